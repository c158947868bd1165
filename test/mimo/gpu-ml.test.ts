/**
 * Exhaustive ML on the GPU (src/mimo/detectors/ml/cuda.ts). (1) Through the CUDA emulator (runs in
 * CI without a GPU): gram-kernel.cu + ml-kernel.cu on fresh random problems equal the float64 CPU
 * ml on its symbols except proven float32 near-ties (gpu-exact-check.ts), and on its max-log and
 * log-MAP LLRs within the float32 tolerance below; flagged vectors are left untouched. With
 * a-priori LLRs (the ML_PRIOR build) the same against the CPU engine's ml with the same priors (its
 * MAP decisions up to near-ties of the metric plus a-priori cost, its extrinsic LLRs within the
 * tolerance widened by the priors' float32 rounding), and all-zero priors give the prior-free build
 * bit for bit (in the emulator; on the GPU the all-zero run is held to the CPU engine without
 * priors: the two builds' FMA contraction differs). (2) On a
 * CUDA device (skipped, saying why, otherwise): the same checks at 2x2, 4x4 and 8x8, QPSK to
 * 64-QAM, low / middle / high SNR, on a few thousand vectors each (bench/mimo/gpu-ml-sphere.ts
 * runs the 10^5 per configuration), the size refusals, and detectAsync with a-priori LLRs
 * against the CPU engine with the same priors (2x2 16/64-QAM, 4x4 QPSK/16-QAM, max-log and log-MAP).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { compileEmulated, runEmulated } from '../gpu/cuda-emulator.js';
import { requireCuda } from '../../src/gpu/index.js';
import { constellation } from '../../src/mimo/modulation.js';
import { detector as mlCpu } from '../../src/mimo/detectors/ml/cpu.js';
import { cudaDetector as mlCuda, mlDefines, ML_BLOCK } from '../../src/mimo/detectors/ml/cuda.js';
import { MIMO_STATUS, STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import { NodeBudgetError } from '../../src/core/errors.js';
import type { Modulation } from '../../src/mimo/types.js';
import {
  cpuRun,
  gpuRun,
  gpuSetup,
  makeProblem,
  metric64,
  nearTieTolerance,
  Philox,
  type Problem,
} from './gpu-exact-check.js';
import type { DetectorOutput } from '../../src/mimo/detectors/detector.js';
import { DEFAULT_MAX_NODES } from '../../src/mimo/budget.js';
import { assertMl, cutOutput, gpuTestEnv, stdinOf } from './gpu-test-env.js';

const env = gpuTestEnv();
const { seed, msg, skipEmu, skip } = env;

const KERNELS = ['gram-kernel.cu', 'ml-kernel.cu'].map((k) =>
  fileURLToPath(new URL(`../../src/mimo/detectors/ml/${k}`, import.meta.url)),
);

/** Header ints [channels, vpc, group, hasPrior], then H, y, noise (float), status (int), llrClip (float), with hasPrior the priors (vectors x nt x bps float). */
const MAIN = String.raw`
int main() {
  int h[4];
  if (fread(h, 4, 4, stdin) != 4) return 1;
  const int channels = h[0], vpc = h[1], group = h[2], hasPrior = h[3], vectors = channels * vpc;
  std::vector<float> H((size_t)channels * 2 * ML_NR * ML_NT), y((size_t)vectors * 2 * ML_NR), noise(vectors), G((size_t)channels * 2 * ML_NT * ML_NT);
  std::vector<int> st((size_t)vectors * 2), sym((size_t)vectors * ML_NT, -1);
  std::vector<float> llr((size_t)vectors * ML_NT * ML_BPS, -7.0f);
  float clip;
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size() || fread(noise.data(), 4, noise.size(), stdin) != noise.size()
      || fread(st.data(), 4, st.size(), stdin) != st.size() || fread(&clip, 4, 1, stdin) != 1) return 1;
  std::vector<float> prior(hasPrior ? (size_t)vectors * ML_NT * ML_BPS : 0);
  if (fread(prior.data(), 4, prior.size(), stdin) != prior.size()) return 1;
  if (emu_launch((channels + 31) / 32, dim3{32, 1, 1}, 0, [&] { ml_gram(H.data(), G.data(), channels); })) return 2;
  const unsigned blocks = (unsigned)((vectors * group + ${ML_BLOCK} - 1) / ${ML_BLOCK});
  if (emu_launch(blocks, dim3{${ML_BLOCK}, 1, 1}, 0, [&] { ml_detect(G.data(), H.data(), y.data(), noise.data(), sym.data(), llr.data(), st.data(), vectors, vpc, clip, hasPrior ? prior.data() : nullptr); })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 4, llr.size(), stdout);
  return 0;
}
`;

function runEmu(
  p: Problem,
  soft: 0 | 1 | 2,
  status: Int32Array,
  llrClip: number,
  prior: Float32Array | null = null,
): { symbols: Int32Array; llr: Float32Array } {
  const bps = constellation(p.mod).bitsPerSymbol;
  const defs = mlDefines(p.nt, p.nr, bps, soft, prior !== null);
  const { exe, error } = compileEmulated(
    MAIN,
    KERNELS,
    Object.entries(defs).map(([k, v]) => `-D${k}=${v}`),
  );
  if (error) throw new Error(error);
  const out = runEmulated(
    exe,
    stdinOf([
      new Int32Array([p.channels, p.vpc, defs.ML_GROUP!, prior ? 1 : 0]),
      Float32Array.from(p.H),
      Float32Array.from(p.y),
      new Float32Array(p.vectors).fill(p.noiseVar),
      status,
      new Float32Array([llrClip]),
      ...(prior ? [prior] : []),
    ]),
  );
  const ns = p.vectors * p.nt;
  const [symbols, llr] = cutOutput(out, [
    ['i32', ns],
    ['f32', ns * bps],
  ]);
  return { symbols, llr };
}

/**
 * LLR tolerance against float64: the metrics' float32 error (up to nt nr 2^-22 (||y||^2 + ||H s||^2),
 * as gpu-exact-check.ts) over N0, plus 2^-16 relative. Where the float64 log-MAP fell back to
 * max-log (one side's sum underflowed: |LLR| past 700) the GPU's exact value may differ by up to
 * ln(M^nt) from it; the test then allows that much.
 */
function assertLlrClose(
  p: Problem,
  cpu: Float64Array,
  gpu: Float32Array,
  clip: number,
  logmap: boolean,
  what: string,
  prior: Float32Array | null = null,
): void {
  const con = constellation(p.mod),
    bps = con.bitsPerSymbol,
    n = p.nt * bps;
  for (let v = 0; v < p.vectors; v++) {
    let yy = 0;
    for (let i = 0; i < 2 * p.nr; i++) yy += p.y[2 * v * p.nr + i]! ** 2;
    // with priors the metrics also carry N0 sum |L_a| (float32 costs; the extrinsic subtraction)
    let la = 0;
    for (let i = 0; prior && i < n; i++) la += Math.abs(prior[v * n + i]!);
    const scale = (p.nt * p.nr * 2 ** -22 * 4 * (yy + 4 * p.nt * p.nr)) / p.noiseVar + 2 ** -18 * p.nt * la;
    for (let i = 0; i < n; i++) {
      const c = Math.max(-clip, Math.min(clip, cpu[v * n + i]!)),
        g = gpu[v * n + i]!;
      let tol = scale + 2 ** -16 * Math.abs(c) + 1e-5;
      // the a-posteriori LLR is the extrinsic one plus L_a
      const post = cpu[v * n + i]! + (prior ? prior[v * n + i]! : 0);
      if (logmap && Math.abs(post) > 700) tol += p.nt * Math.log(con.size);
      assert.ok(Math.abs(c - g) <= tol, msg(`${what}: vector ${v} LLR ${i}: GPU ${g}, CPU ${c} (tolerance ${tol})`));
    }
  }
}

/**
 * A-priori LLRs for a problem's vectors (vectors x nt x bitsPerSymbol float32), as gpu-nway.test.ts:
 * every fifth vector none (all zero), else each stream's all zero with probability 1/4, else a
 * bit's ~ N(0, 3^2), 0 with probability 1/8.
 */
function randomPriors(p: Problem, seed: number): Float32Array {
  const rng = new Philox(seed);
  const bps = constellation(p.mod).bitsPerSymbol;
  const prior = new Float32Array(p.vectors * p.nt * bps);
  for (let v = 0; v < p.vectors; v++) {
    if (v % 5 === 4) continue;
    for (let j = 0; j < p.nt; j++) {
      if (rng.int(4) === 0) continue;
      for (let b = 0; b < bps; b++) prior[(v * p.nt + j) * bps + b] = rng.int(8) === 0 ? 0 : 3 * rng.normal();
    }
  }
  return prior;
}

/** The float64 CPU ml with a-priori LLRs (its extrinsic LLRs, its MAP symbols). */
function cpuRunPrior(p: Problem, soft: 0 | 1 | 2, prior: Float32Array): DetectorOutput {
  const con = constellation(p.mod);
  const inst = mlCpu.create({
    nr: p.nr,
    nt: p.nt,
    modulation: p.mod,
    constellation: con,
    opts: { detector: 'ml', modulation: p.mod, soft: soft === 2 ? 'logmap' : 'maxlog' },
    soft: soft > 0,
    maxNodes: DEFAULT_MAX_NODES,
    priorLlr: Float64Array.from(prior),
  });
  const out: DetectorOutput = {
    symbols: new Int32Array(p.vectors * p.nt),
    llr: soft > 0 ? new Float64Array(p.vectors * p.nt * con.bitsPerSymbol) : null,
    unproven: new Uint8Array(p.vectors),
  };
  for (let c = 0; c < p.channels; c++) {
    const prep = inst.prepare(p.H, 2 * c * p.nr * p.nt, p.noiseVar);
    for (let v = c * p.vpc; v < (c + 1) * p.vpc; v++) inst.detect(prep, p.y, 2 * v * p.nr, p.noiseVar, out, v);
  }
  return out;
}

/**
 * Asserts that `got` is the float64 MAP decision `ref` (metric plus a-priori cost N0 sum_b c_b
 * L_a(b)) on every vector but those `skip` names, up to at most `maxNearTies` near-ties: vectors
 * whose two decisions' float64 costs differ by no more than the float32 rounding of both metrics
 * (gpu-exact-check.ts's nearTieTolerance) plus that of the costs.
 */
function assertMap(
  p: Problem,
  prior: Float32Array,
  ref: Int32Array,
  got: Int32Array,
  what: string,
  maxNearTies: number,
  skip?: (v: number) => boolean,
): number {
  const con = constellation(p.mod),
    bps = con.bitsPerSymbol;
  const cost = (sym: ArrayLike<number>, v: number): number => {
    let c = metric64(p, con, sym, v).d;
    for (let j = 0; j < p.nt; j++)
      for (let b = 0; b < bps; b++)
        if (con.bitTable[sym[j]! * bps + b] === 1) c += p.noiseVar * prior[(v * p.nt + j) * bps + b]!;
    return c;
  };
  let ties = 0;
  for (let v = 0; v < p.vectors; v++) {
    if (skip?.(v)) continue;
    const r = ref.subarray(v * p.nt, (v + 1) * p.nt),
      g = got.subarray(v * p.nt, (v + 1) * p.nt);
    if (r.every((x, j) => x === g[j])) continue;
    let la = 0;
    for (let i = 0; i < p.nt * bps; i++) la += Math.abs(prior[v * p.nt * bps + i]!);
    const tol = nearTieTolerance(p, con, r, v) + nearTieTolerance(p, con, g, v) + 2 ** -20 * p.nt * p.noiseVar * la;
    const gap = cost(g, v) - cost(r, v);
    assert.ok(
      gap >= -1e-12 && gap <= tol,
      msg(`${what}: vector ${v}: GPU ${[...g]} vs CPU ${[...r]}, cost gap ${gap} over tolerance ${tol}`),
    );
    ties++;
  }
  assert.ok(ties <= maxNearTies, msg(`${what}: ${ties} near-ties in ${p.vectors} vectors`));
  return ties;
}

const EMU_CASES: Array<{ nr: number; nt: number; mod: Modulation; snr: number; soft: 0 | 1 | 2 }> = [
  { nr: 2, nt: 2, mod: 'qpsk', snr: 5, soft: 1 },
  { nr: 2, nt: 2, mod: '16qam', snr: 15, soft: 2 },
  { nr: 2, nt: 3, mod: 'bpsk', snr: 3, soft: 2 },
  { nr: 3, nt: 2, mod: 'qpsk', snr: 0, soft: 0 },
  { nr: 2, nt: 3, mod: 'qpsk', snr: 10, soft: 1 },
];

for (const c of EMU_CASES) {
  test(`ml kernels (emulated) ${c.nr}x${c.nt} ${c.mod} ${c.snr} dB soft ${c.soft}: float64 ML symbols up to near-ties, LLRs within float32 tolerance`, {
    skip: skipEmu,
  }, () => {
    const rng = new Philox(seed, c.nr * 100 + c.nt * 10 + c.soft);
    const p = makeProblem(rng, 6, 5, c.nr, c.nt, c.mod, c.snr);
    const status = new Int32Array(p.vectors * STATUS_WORDS);
    // a flagged vector is skipped: its outputs stay as they were
    const flagged = randomInt(p.vectors);
    status[STATUS_WORDS * flagged] = MIMO_STATUS.NON_FINITE;
    const clip = 20 + randomInt(20);
    const gpu = runEmu(p, c.soft, status, clip);
    const ref = cpuRun(mlCpu, p, { soft: c.soft === 2 ? 'logmap' : 'maxlog' }, c.soft > 0);
    assertMl(env, p, ref.symbols, gpu.symbols, `${c.nr}x${c.nt} ${c.mod}`, 1, (v) => v === flagged);
    for (let j = 0; j < p.nt; j++) assert.equal(gpu.symbols[flagged * p.nt + j], -1, msg('flagged vector written'));
    if (c.soft > 0) {
      const n = p.nt * constellation(p.mod).bitsPerSymbol;
      for (let i = 0; i < n; i++) {
        assert.equal(gpu.llr[flagged * n + i], -7, msg('flagged vector LLR written'));
        gpu.llr[flagged * n + i] = Math.max(-clip, Math.min(clip, ref.llr![flagged * n + i]!));
      }
      assertLlrClose(p, ref.llr!, gpu.llr, clip, c.soft === 2, `${c.nr}x${c.nt} ${c.mod}`);
    }
  });
}

test("ml kernels (emulated) with a-priori LLRs: the CPU engine's MAP decisions with the same priors up to near-ties, its extrinsic LLRs within tolerance; all-zero priors give the prior-free build bit for bit", {
  skip: skipEmu,
}, () => {
  let changed = 0,
    moved = 0;
  for (const c of EMU_CASES) {
    const rng = new Philox(seed, 7000 + c.nr * 100 + c.nt * 10 + c.soft);
    const p = makeProblem(rng, 8, 5, c.nr, c.nt, c.mod, c.snr);
    const n = p.nt * constellation(p.mod).bitsPerSymbol;
    const prior = randomPriors(p, randomInt(2 ** 31));
    const status = new Int32Array(p.vectors * STATUS_WORDS);
    const flagged = randomInt(p.vectors);
    status[STATUS_WORDS * flagged] = MIMO_STATUS.NON_FINITE;
    const clip = 20 + randomInt(20);
    const what = `${c.nr}x${c.nt} ${c.mod} soft ${c.soft} with priors`;
    const gpu = runEmu(p, c.soft, status.slice(), clip, prior);
    const ref = cpuRunPrior(p, c.soft, prior);
    assertMap(p, prior, ref.symbols, gpu.symbols, what, 2, (v) => v === flagged);
    for (let j = 0; j < p.nt; j++) assert.equal(gpu.symbols[flagged * p.nt + j], -1, msg('flagged vector written'));
    const plain = runEmu(p, c.soft, status.slice(), clip);
    for (let v = 0; v < p.vectors; v++)
      if (plain.symbols.subarray(v * p.nt, (v + 1) * p.nt).some((x, j) => x !== gpu.symbols[v * p.nt + j])) moved++;
    if (c.soft > 0) {
      for (let i = 0; i < n; i++) {
        assert.equal(gpu.llr[flagged * n + i], -7, msg('flagged vector LLR written'));
        gpu.llr[flagged * n + i] = Math.max(-clip, Math.min(clip, ref.llr![flagged * n + i]!));
      }
      assertLlrClose(p, ref.llr!, gpu.llr, clip, c.soft === 2, what, prior);
      for (let v = 0; v < p.vectors; v++)
        for (let i = 0; i < n; i++)
          if (gpu.llr[v * n + i] !== plain.llr[v * n + i]) {
            changed++;
            break;
          }
    }
    // all-zero priors: the prior-free build bit for bit (zero costs are added exactly)
    const zero = runEmu(p, c.soft, status.slice(), clip, new Float32Array(prior.length));
    assert.deepEqual(zero.symbols, plain.symbols, msg(`${what}: all-zero priors symbols`));
    assert.deepEqual(zero.llr, plain.llr, msg(`${what}: all-zero priors LLRs`));
  }
  // the priors matter: LLRs and decisions move
  assert.ok(changed > 60, msg(`only ${changed} vectors' LLRs changed by their priors`));
  assert.ok(moved > 5, msg(`only ${moved} vectors' decisions changed by their priors`));
});

const DEVICE_CASES: Array<{ n: number; mod: Modulation; snrs: number[]; vectors: number }> = [
  { n: 2, mod: 'qpsk', snrs: [0, 10, 20], vectors: 4000 },
  { n: 2, mod: '16qam', snrs: [5, 15, 25], vectors: 4000 },
  { n: 2, mod: '64qam', snrs: [10, 20, 30], vectors: 1000 },
  { n: 4, mod: 'qpsk', snrs: [0, 10, 20], vectors: 2000 },
  { n: 4, mod: '16qam', snrs: [5, 15, 25], vectors: 100 },
  { n: 8, mod: 'qpsk', snrs: [0, 10, 20], vectors: 100 },
];

for (const c of DEVICE_CASES) {
  test(`ml on the GPU ${c.n}x${c.n} ${c.mod} at ${c.snrs.join(' / ')} dB: float64 ML up to near-ties, max-log and log-MAP LLRs`, {
    skip,
  }, () => {
    const ctx = requireCuda();
    for (const snr of c.snrs) {
      const rng = new Philox(seed, c.n * 1000 + snr);
      const p = makeProblem(rng, c.vectors / 4, 4, c.n, c.n, c.mod, snr);
      for (const mode of ['none', 'maxlog', 'logmap'] as const) {
        if (mode === 'logmap' && c.n === 8) continue;
        const soft = mode !== 'none';
        const ref = cpuRun(mlCpu, p, { soft: mode }, soft);
        const gpu = gpuRun(ctx, mlCuda, p, { soft: mode, llrClip: 50 }, soft);
        assertMl(env, p, ref.symbols, gpu.symbols, `${snr} dB ${mode}`, Math.max(2, p.vectors / 1000));
        if (soft)
          assertLlrClose(p, ref.llr!, gpu.llr!, 50, mode === 'logmap', `${c.n}x${c.n} ${c.mod} ${snr} dB ${mode}`);
      }
    }
  });
}

test('ml on the GPU refuses what the CPU refuses (NodeBudgetError naming the hypotheses)', { skip }, () => {
  const ctx = requireCuda();
  const p = makeProblem(new Philox(seed), 1, 1, 8, 8, '16qam', 10);
  assert.throws(
    () => mlCuda.create(ctx, gpuSetup(ctx, p, { detector: 'ml' }, false)),
    (e: unknown) => e instanceof NodeBudgetError && /16\^8/.test((e as Error).message),
  );
  const q = makeProblem(new Philox(seed), 1, 1, 4, 4, 'qpsk', 10);
  assert.throws(() => mlCuda.create(ctx, gpuSetup(ctx, q, { detector: 'ml', maxNodes: 255 }, false)), NodeBudgetError);
});

test("ml through detectAsync on the CUDA engine: the CPU engine's decisions up to near-ties, its LLRs within tolerance; 8x8 16-QAM refused", {
  skip,
}, async () => {
  const { detectAsync } = await import('../../src/mimo/detect-async.js');
  const { detect } = await import('../../src/mimo/detect.js');
  for (const [n, mod, snr] of [
    [2, '16qam', 12],
    [4, 'qpsk', 6],
  ] as const) {
    const p = makeProblem(new Philox(seed, n), 300, 7, n, n, mod, snr);
    const input = { nr: n, nt: n, H: p.H, y: p.y, vectorsPerChannel: p.vpc, noiseVar: p.noiseVar };
    const opts = { detector: 'ml', modulation: mod, llrClip: 40 } as const;
    const gpu = await detectAsync(input, { ...opts, engine: 'cuda' });
    const cpu = detect(input, { ...opts, engine: 'cpu' });
    assert.equal(gpu.stats.engine, 'cuda');
    assertMl(env, p, cpu.symbols, gpu.symbols, `detectAsync ${n}x${n} ${mod}`, Infinity);
    assertLlrClose(
      p,
      Float64Array.from(cpu.llr!),
      Float32Array.from(gpu.llr!),
      40,
      false,
      `detectAsync ${n}x${n} ${mod}`,
    );
  }
  const big = makeProblem(new Philox(seed), 1, 2, 8, 8, '16qam', 10);
  await assert.rejects(
    detectAsync(
      { nr: 8, nt: 8, H: big.H, y: big.y, noiseVar: 0.1 },
      { detector: 'ml', modulation: '16qam', engine: 'cuda' },
    ),
    NodeBudgetError,
  );
});

test("ml through detectAsync on the CUDA engine with a-priori LLRs (the ML_PRIOR build): the CPU engine's MAP decisions with the same priors up to near-ties, its extrinsic max-log and log-MAP LLRs within tolerance; all-zero priors: the CPU engine without priors", {
  skip,
}, async () => {
  const { detectAsync } = await import('../../src/mimo/detect-async.js');
  const { detect } = await import('../../src/mimo/detect.js');
  for (const [n, mod, snr] of [
    [2, '16qam', 12],
    [2, '64qam', 18],
    [4, 'qpsk', 6],
    [4, '16qam', 14],
  ] as const) {
    const p = makeProblem(new Philox(seed, 40 + n), n === 4 && mod === '16qam' ? 20 : 300, 7, n, n, mod, snr);
    const prior = randomPriors(p, randomInt(2 ** 31));
    const base = { nr: n, nt: n, H: p.H, y: p.y, vectorsPerChannel: p.vpc, noiseVar: p.noiseVar };
    for (const soft of ['maxlog', 'logmap'] as const) {
      const what = `detectAsync with priors ${n}x${n} ${mod} ${soft}`;
      const opts = { detector: 'ml', modulation: mod, llrClip: 40, soft } as const;
      const gpu = await detectAsync({ ...base, priorLlr: prior }, { ...opts, engine: 'cuda' });
      const cpu = detect({ ...base, priorLlr: prior }, { ...opts, engine: 'cpu' });
      assert.equal(gpu.stats.engine, 'cuda');
      assertMap(p, prior, cpu.symbols, gpu.symbols, what, Math.max(2, p.vectors / 1000));
      assertLlrClose(p, Float64Array.from(cpu.llr!), Float32Array.from(gpu.llr!), 40, soft === 'logmap', what, prior);
      // all-zero priors (the ML_PRIOR build): the CPU engine without priors (not bit for bit the
      // prior-free build on a device: the two builds' FMA contraction differs)
      const zero = await detectAsync(
        { ...base, priorLlr: new Float32Array(prior.length) },
        { ...opts, engine: 'cuda' },
      );
      const plain = detect(base, { ...opts, engine: 'cpu' });
      assertMl(env, p, plain.symbols, zero.symbols, `${what}: all-zero priors`, Math.max(2, p.vectors / 1000));
      assertLlrClose(
        p,
        Float64Array.from(plain.llr!),
        Float32Array.from(zero.llr!),
        40,
        soft === 'logmap',
        `${what}: all-zero priors`,
      );
    }
  }
});
