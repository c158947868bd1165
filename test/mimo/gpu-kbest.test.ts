/**
 * K-best on the GPU against the CPU engine's K-best, on fresh random problems (Rayleigh channels,
 * uniform symbols, noise at low / middle / high SNR; 2x2, 4x4, 8x8; BPSK to 256-QAM; K = 1 to 256),
 * by the proven float32 bound of kbest-float32-bound.ts: the GPU's QR is the CPU's rounded to
 * float32; on every vector whose float64 search has no cut within the bound (kept and cut children
 * whose metric intervals overlap) the decision is the CPU's unless its two best leaves overlap
 * likewise, and every LLR is within the bound T (metric bounds / N0 + 4 u |LLR|); vectors with
 * such a cut (a few per thousand, up to 4% at K = 256) are counted, not checked: their lists may
 * differ. Vectors built to put two children of the last cut within float32 rounding show the GPU
 * keeping other paths there; exact ties (BPSK with y = 0: x and -x) resolve alike on both engines;
 * the detection order is the channel's, not its rounding's, so the GPU on float32-rounded input
 * and the CPU engine on the float64 input agree too. With a-priori LLRs (the search's KB_PRIOR
 * build) the same rule against the CPU engine with the same priors, the bound counting the costs'
 * float32 rounding and the LLRs extrinsic (kbest-float32-bound.ts), and all-zero priors give the
 * prior-free build bit for bit in the emulator (on a device, the CPU engine without priors: the two
 * builds' FMA contraction may differ). The kernels run on the device, or on this CPU through the
 * CUDA emulator (smaller runs, for CI); each part skips, saying why, without its engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { CudaContext } from '../../src/gpu/index.js';
import { NodeBudgetError, UnsupportedError } from '../../src/core/errors.js';
import { detector as kbestCpu } from '../../src/mimo/detectors/kbest/cpu.js';
import { cudaDetector, kbestPrepLaunch, kbestShape } from '../../src/mimo/detectors/kbest/cuda.js';
import { Philox } from '../../src/core/rng.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import { compileEmulated, runEmulated, someCases } from '../gpu/cuda-emulator.js';
import { cutOutput, gpuTestEnv, stdinOf } from './gpu-test-env.js';
import { emulatedH100 } from '../gpu/emulated-device.js';
import { kbestPrep, kbestVectorBound, llrTolerance } from './kbest-float32-bound.js';
import { cpuSetup, differingVectors, gpuSetup, makeProblem, runCpu, runGpu, type Problem } from './kbest-lr-harness.js';

const { skip, skipEmu } = gpuTestEnv();
const VECTORS = Number(process.env.MIMO_GPU_VECTORS ?? 3000);

/** The GPU's per-channel QR (kbest-prep.cu's float32 Q, R and [flags, perm]), where the run gives it. */
interface GpuPrep {
  Q: Float32Array;
  R: Float32Array;
  info: Int32Array;
}

/** A GPU run's outputs (detectAsync's LLRs may come as float64: its arrays are the caller's). */
interface GpuResult {
  symbols: Int32Array;
  llr: Float32Array | Float64Array | null;
  status: Int32Array;
  prep?: GpuPrep;
}

interface Comparison {
  vectors: number;
  /** Vectors with a cut within the bound (not checked), and those of them whose results differ beyond it. */
  nearCut: number;
  nearCutDiffer: number;
  /** Vectors whose decision differs, their two best leaves within the bound. */
  nearBest: number;
  /** The largest |LLR error| / T, |LLR error| and T over the checked bits. */
  worstRatio: number;
  maxLlrErr: number;
  maxTol: number;
}

/**
 * At most this many of n vectors may have a cut within the bound: random inputs have up to about 5%
 * (4x4 64-QAM K = 256 at 0 dB, 2048 children a cut), most a few per thousand; the limit is 5% plus
 * five binomial standard deviations (9% of 756), so that chance does not fail it, while a bound that
 * excused many (a broken one: most vectors) is still caught.
 */
function nearCutLimit(n: number): number {
  return Math.max(3, 0.05 * n + 5 * Math.sqrt(0.05 * 0.95 * n));
}

/**
 * Asserts the rule of the file comment on one configuration; returns the counts. At most
 * `maxNearCut` vectors (default nearCutLimit) may have a cut within the bound.
 */
function compare(
  p: Problem,
  opts: Partial<DetectOptions>,
  gpu: GpuResult,
  label: string,
  maxNearCut = nearCutLimit(p.channels * p.vpc),
  prior: Float32Array | null = null,
): Comparison {
  const setup = cpuSetup(p, opts, true);
  const cpu = runCpu(kbestCpu, prior ? { ...setup, priorLlr: Float64Array.from(prior) } : setup, p);
  const tolOf = (metricTol: number, v: number, b: number, l: number): number =>
    llrTolerance(metricTol, p.noise[v]!, l, prior ? prior[v * nb + b]! : 0);
  const vectors = p.channels * p.vpc;
  const nt = p.nt,
    nb = nt * setup.constellation.bitsPerSymbol;
  const r: Comparison = { vectors, nearCut: 0, nearCutDiffer: 0, nearBest: 0, worstRatio: 0, maxLlrErr: 0, maxTol: 0 };
  let prep = kbestPrep(p, opts, 0),
    prepChannel = -1;
  for (let v = 0; v < vectors; v++) {
    assert.equal(gpu.status[2 * v], 0, `${label}: vector ${v} flagged ${gpu.status[2 * v]}`);
    const c = Math.floor(v / p.vpc);
    if (c !== prepChannel) {
      prep = kbestPrep(p, opts, v);
      prepChannel = c;
      if (gpu.prep) assertPrep(prep, gpu.prep, c, `${label}: channel ${c}`);
    }
    const bound = kbestVectorBound(p, opts, v, prep, prior);
    let symbolsDiffer = false;
    for (let j = 0; j < nt; j++) if (cpu.symbols[v * nt + j] !== gpu.symbols[v * nt + j]) symbolsDiffer = true;
    let worst = 0,
      at = 0;
    for (let b = 0; b < nb; b++) {
      const l = cpu.llr![v * nb + b]!;
      const ratio = Math.abs(gpu.llr![v * nb + b]! - l) / tolOf(bound.metricTol[b]!, v, b, l);
      if (!(ratio <= worst)) {
        worst = ratio;
        at = b;
      }
    }
    if (bound.nearCut) {
      r.nearCut++;
      if (symbolsDiffer || worst > 1) r.nearCutDiffer++;
      continue;
    }
    if (symbolsDiffer) {
      assert.ok(
        bound.nearBest,
        `${label}: vector ${v}: GPU [${gpu.symbols.subarray(v * nt, (v + 1) * nt)}], CPU [${cpu.symbols.subarray(v * nt, (v + 1) * nt)}], no leaf within the bound of the best`,
      );
      r.nearBest++;
    }
    const l = cpu.llr![v * nb + at]!,
      tol = tolOf(bound.metricTol[at]!, v, at, l);
    assert.ok(
      worst <= 1,
      `${label}: vector ${v} bit ${at}: LLR ${gpu.llr![v * nb + at]} on the GPU, ${l} on the CPU: off by ${Math.abs(gpu.llr![v * nb + at]! - l)}, the bound is ${tol} (no cut within the bound: cut margin ${bound.cutMargin})`,
    );
    r.worstRatio = Math.max(r.worstRatio, worst);
    for (let b = 0; b < nb; b++) {
      const cb = cpu.llr![v * nb + b]!;
      r.maxLlrErr = Math.max(r.maxLlrErr, Math.abs(gpu.llr![v * nb + b]! - cb));
      r.maxTol = Math.max(r.maxTol, tolOf(bound.metricTol[b]!, v, b, cb));
    }
  }
  assert.ok(r.nearCut <= maxNearCut, `${label}: ${r.nearCut} of ${vectors} vectors have a cut within the bound`);
  if (process.env.KBEST_DEBUG) console.log(label, r);
  return r;
}

/** The GPU's QR of channel c is the CPU's: Q and R rounded to float32, the same column order, no flag. */
function assertPrep(
  cpu: { Q: Float64Array; R: Float64Array; perm: Int32Array },
  gpu: GpuPrep,
  c: number,
  label: string,
): void {
  const nq = cpu.Q.length,
    nr = cpu.R.length,
    nd = cpu.perm.length;
  for (let e = 0; e < nq; e++)
    assert.equal(gpu.Q[c * nq + e], Math.fround(cpu.Q[e]!), `${label}: Q[${e}] is not the CPU's rounded`);
  for (let e = 0; e < nr; e++)
    assert.equal(gpu.R[c * nr + e], Math.fround(cpu.R[e]!), `${label}: R[${e}] is not the CPU's rounded`);
  assert.deepEqual(
    [...gpu.info.subarray(c * (nd + 1), (c + 1) * (nd + 1))],
    [0, ...cpu.perm],
    `${label}: flags and column order`,
  );
}

/** The QR scratch regions a device run read back, as typed arrays. */
function prepOf(scratch: readonly Uint8Array[]): GpuPrep {
  const [q, r, info] = scratch.map((u) => u.slice().buffer) as [ArrayBuffer, ArrayBuffer, ArrayBuffer];
  return { Q: new Float32Array(q), R: new Float32Array(r), info: new Int32Array(info) };
}

/** One line of counts for a configuration. */
function summary(label: string, r: Comparison): string {
  return `${label}: ${r.vectors} vectors; ${r.nearCut} with a cut within the bound (${r.nearCutDiffer} of them differ), ${r.nearBest} decisions differ (two best leaves within it); elsewhere LLR |err| <= ${r.maxLlrErr.toExponential(2)}, at most ${r.worstRatio.toFixed(3)} of the bound T (T <= ${r.maxTol.toExponential(2)})`;
}

// ---------------------------------------------------------------------------------------------
// On the device

const CONFIGS: Array<[number, number, Modulation, number]> = [];
for (const n of [2, 4, 8]) for (const mod of ['qpsk', '16qam', '64qam'] as Modulation[]) CONFIGS.push([n, n, mod, 16]);
CONFIGS.push(
  [2, 2, '256qam', 16],
  [4, 4, '16qam', 64],
  [4, 4, '16qam', 256],
  [4, 4, '64qam', 64],
  [4, 4, '64qam', 256],
  [2, 2, 'bpsk', 4],
  [4, 4, 'bpsk', 16],
  [2, 4, '16qam', 16],
);

test('kbest on the GPU equals the CPU engine within the proven float32 bound', { skip }, () => {
  const ctx = CudaContext.get(0);
  let seed = Date.now() % 1e9;
  const lines: string[] = [];
  for (const [nt, nr, mod, k] of CONFIGS) {
    for (const snr of [0, 12, 25]) {
      const big = k > 16 || nt === 8 ? 4 : 1;
      const vpc = 14;
      const channels = Math.max(1, Math.ceil(VECTORS / big / vpc));
      const p = makeProblem(seed++, nt, nr, mod, channels, vpc, snr);
      const opts = { detector: 'kbest' as const, k };
      const gpu = runGpu(ctx, cudaDetector, gpuSetup(ctx, p, opts, true), p);
      const label = `${nt}x${nr} ${mod} K=${k} ${snr} dB (seed ${seed - 1})`;
      lines.push(summary(label, compare(p, opts, { ...gpu, prep: prepOf(gpu.scratch) }, label)));
    }
  }
  console.log(lines.join('\n'));
});

test('kbest on the GPU: flagged vectors are skipped, a singular channel is RANK_DEFICIENT, hard output alone', {
  skip,
}, () => {
  const ctx = CudaContext.get(0);
  const p = makeProblem(Date.now() % 1e9, 4, 4, '16qam', 6, 5, 15);
  // channel 2: its stream 1 a copy of stream 0 (dependent MRVD columns)
  const hLen = 2 * p.nr * p.nt;
  for (let i = 0; i < 2 * p.nr; i++) p.H[2 * hLen + 2 * p.nr + i] = p.H[2 * hLen + i]!;
  const statusIn = new Int32Array(2 * p.channels * p.vpc);
  statusIn[2 * 7] = MIMO_STATUS.NON_FINITE;
  const gpu = runGpu(ctx, cudaDetector, gpuSetup(ctx, p, { k: 16 }, false), p, statusIn);
  assert.equal(gpu.llr, null);
  for (let v = 0; v < p.channels * p.vpc; v++) {
    const c = Math.floor(v / p.vpc);
    if (v === 7) assert.deepEqual([gpu.status[14], gpu.status[15]], [MIMO_STATUS.NON_FINITE, 0]);
    else if (c === 2) assert.equal(gpu.status[2 * v], MIMO_STATUS.RANK_DEFICIENT);
    else assert.deepEqual([gpu.status[2 * v], gpu.status[2 * v + 1]], [0, 4 + 16 + 64 + 4 * 16 * 5], `vector ${v}`);
  }
});

// ---------------------------------------------------------------------------------------------
// In the CUDA emulator (no GPU needed)

/**
 * Header ints [channels, vpc, soft, prepGrid, prepBlock, blockThreads, vpb, sharedBytes, hasPrior], clip
 * (f32), scale (f64), then H, y, noise, status in, with hasPrior the priors (vectors x NT x BPS
 * float32); out: symbols, LLRs, status, and the QR (Q, R, info).
 */
const KBEST_MAIN = String.raw`
int main() {
  int h[9]; float clip; double scale;
  if (fread(h, 4, 9, stdin) != 9 || fread(&clip, 4, 1, stdin) != 1 || fread(&scale, 8, 1, stdin) != 1) return 1;
  const int channels = h[0], vpc = h[1], soft = h[2], pg = h[3], pt = h[4], bt = h[5], vpb = h[6], shared = h[7], hasPrior = h[8];
  const int vectors = channels * vpc;
  std::vector<float> H((size_t)channels * 2 * NR * NT), y((size_t)vectors * ROWS), noise(vectors);
  std::vector<int> status((size_t)vectors * 2);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()
      || fread(noise.data(), 4, noise.size(), stdin) != noise.size() || fread(status.data(), 4, status.size(), stdin) != status.size()) return 1;
  std::vector<float> prior(hasPrior ? (size_t)vectors * NT * BPS : 0);
  if (fread(prior.data(), 4, prior.size(), stdin) != prior.size()) return 1;
  std::vector<float> Q((size_t)channels * ROWS * ND), R((size_t)channels * ND * ND), llr((size_t)vectors * NT * BPS, -1e30f);
  std::vector<int> info((size_t)channels * (ND + 1)), sym((size_t)vectors * NT, -1);
  if (emu_launch(pg, dim3{(unsigned)pt, 1, 1}, 0, [&] { kbest_prep(H.data(), Q.data(), R.data(), info.data(), channels, scale); })) return 2;
  if (emu_launch((vectors + vpb - 1) / vpb, dim3{(unsigned)bt, 1, 1}, shared, [&] {
    kbest_search(y.data(), noise.data(), Q.data(), R.data(), info.data(), sym.data(), soft ? llr.data() : nullptr, status.data(), vectors, vpc, clip, hasPrior ? prior.data() : nullptr); })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 4, llr.size(), stdout);
  fwrite(status.data(), 4, status.size(), stdout);
  fwrite(Q.data(), 4, Q.size(), stdout);
  fwrite(R.data(), 4, R.size(), stdout);
  fwrite(info.data(), 4, info.size(), stdout);
  return 0;
}
`;

function runKbestEmulated(p: Problem, opts: Partial<DetectOptions>, prior: Float32Array | null = null): GpuResult {
  const setup = { ...cpuSetup(p, opts, true), llrClip: 3.0e38, device: emulatedH100() };
  const sh = kbestShape(setup, {}, prior !== null);
  const defines = [
    ...Object.entries(sh.searchDefines).map(([k, v]) => `-D${k}=${v}`),
    `-DSYM_OF_LEVELS={${Array.from(sh.model.symbolOfLevels).join(',')}}`,
  ];
  const files = ['kbest-prep.cu', 'kbest-search.cu'].map((f) =>
    fileURLToPath(new URL(`../../src/mimo/detectors/kbest/${f}`, import.meta.url)),
  );
  const { exe, error } = compileEmulated(KBEST_MAIN, files, defines);
  if (error) throw new Error(error);
  const vectors = p.channels * p.vpc,
    nb = p.nt * setup.constellation.bitsPerSymbol;
  const head = new ArrayBuffer(9 * 4 + 4 + 8);
  const prepLaunch = kbestPrepLaunch(p.channels, sh.model.nd);
  const dv = new DataView(head);
  [
    p.channels,
    p.vpc,
    1,
    prepLaunch.grid,
    prepLaunch.block,
    sh.threadsPerVector * sh.vectorsPerBlock,
    sh.vectorsPerBlock,
    sh.sharedBytes,
    prior ? 1 : 0,
  ].forEach((x, i) => {
    dv.setInt32(4 * i, x, true);
  });
  dv.setFloat32(36, sh.clip, true);
  dv.setFloat64(40, sh.scale, true);
  const parts = [
    new Uint8Array(head),
    Float32Array.from(p.H),
    Float32Array.from(p.y),
    Float32Array.from(p.noise),
    new Int32Array(2 * vectors),
    ...(prior ? [prior] : []),
  ];
  const out = runEmulated(exe, stdinOf(parts));
  const { rows, nd } = sh.model;
  const [symbols, llr, status, Q, R, info] = cutOutput(out, [
    ['i32', vectors * p.nt],
    ['f32', vectors * nb],
    ['i32', 2 * vectors],
    ['f32', p.channels * rows * nd],
    ['f32', p.channels * nd * nd],
    ['i32', p.channels * (nd + 1)],
  ]);
  return { symbols, llr, status, prep: { Q, R, info } };
}

test('kbest kernels in the CUDA emulator equal the CPU engine within the proven float32 bound', {
  skip: skipEmu,
}, () => {
  let seed = Date.now() % 1e9;
  const cases: Array<[number, number, Modulation, number, number]> = [
    [4, 4, '16qam', 16, 12],
    [4, 4, '16qam', 64, 4],
    [2, 2, '64qam', 4, 6],
    [2, 2, '64qam', 100, 15],
    [8, 8, 'qpsk', 8, 0],
    [4, 4, '64qam', 16, 20],
    [2, 2, 'bpsk', 2, 3],
    [2, 4, '16qam', 8, 10],
    [2, 2, '256qam', 16, 24],
    [2, 2, '16qam', 1, 10],
  ];
  const lines: string[] = [];
  for (const [nt, nr, mod, k, snr] of someCases(cases, new Philox(seed, 7), 5)) {
    const p = makeProblem(seed++, nt, nr, mod, Number(process.env.KBEST_EMU_CHANNELS ?? 8), 10, snr);
    const opts = { detector: 'kbest' as const, k };
    const label = `emulated ${nt}x${nr} ${mod} K=${k} ${snr} dB (seed ${seed - 1})`;
    lines.push(summary(label, compare(p, opts, runKbestEmulated(p, opts), label)));
  }
  if (process.env.KBEST_DEBUG) console.log(lines.join('\n'));
});

/**
 * A-priori LLRs for a problem's vectors (vectors x nt x bitsPerSymbol float32), as gpu-nway.test.ts:
 * every fifth vector none (all zero), else each stream's all zero with probability 1/4, else a
 * bit's ~ N(0, 3^2), 0 with probability 1/8.
 */
function randomPriors(p: Problem, seed: number): Float32Array {
  const rng = new Philox(seed);
  const bps = cpuSetup(p, {}, false).constellation.bitsPerSymbol;
  const vectors = p.channels * p.vpc;
  const prior = new Float32Array(vectors * p.nt * bps);
  for (let v = 0; v < vectors; v++) {
    if (v % 5 === 4) continue;
    for (let j = 0; j < p.nt; j++) {
      if (rng.int(4) === 0) continue;
      for (let b = 0; b < bps; b++) prior[(v * p.nt + j) * bps + b] = rng.int(8) === 0 ? 0 : 3 * rng.normal();
    }
  }
  return prior;
}

test('kbest kernels in the CUDA emulator with a-priori LLRs equal the CPU engine with the same priors within the proven float32 bound; all-zero priors give the prior-free build bit for bit', {
  skip: skipEmu,
}, () => {
  let seed = Date.now() % 1e9;
  const cases: Array<[number, number, Modulation, number, number]> = [
    [4, 4, '16qam', 16, 12],
    [2, 2, '64qam', 4, 6],
    [4, 4, 'qpsk', 8, 3],
    [2, 2, 'bpsk', 2, 3],
    [2, 4, '16qam', 8, 10],
    [2, 2, '256qam', 16, 24],
    [2, 2, '16qam', 1, 10],
  ];
  const lines: string[] = [];
  let changed = 0,
    checked = 0;
  for (const [nt, nr, mod, k, snr] of someCases(cases, new Philox(seed, 7), 4)) {
    const p = makeProblem(seed++, nt, nr, mod, Number(process.env.KBEST_EMU_CHANNELS ?? 8), 10, snr);
    const prior = randomPriors(p, seed * 7 + 1);
    const opts = { detector: 'kbest' as const, k };
    const label = `emulated with priors ${nt}x${nr} ${mod} K=${k} ${snr} dB (seed ${seed - 1})`;
    const got = runKbestEmulated(p, opts, prior);
    lines.push(summary(label, compare(p, opts, got, label, undefined, prior)));
    const plain = runKbestEmulated(p, opts);
    const zero = runKbestEmulated(p, opts, new Float32Array(prior.length));
    assert.deepEqual(zero.symbols, plain.symbols, `${label}: all-zero priors symbols`);
    assert.deepEqual(zero.llr, plain.llr, `${label}: all-zero priors LLRs`);
    assert.deepEqual(zero.status, plain.status, `${label}: all-zero priors status (node counts)`);
    const nb = p.nt * cpuSetup(p, {}, false).constellation.bitsPerSymbol;
    checked += p.channels * p.vpc;
    for (let v = 0; v < p.channels * p.vpc; v++)
      for (let b = 0; b < nb; b++)
        if (got.llr![v * nb + b] !== plain.llr![v * nb + b]) {
          changed++;
          break;
        }
  }
  // the priors matter: four vectors in five have some
  assert.ok(changed > 0.3 * checked, `only ${changed} of ${checked} vectors' LLRs changed by their priors`);
  if (process.env.KBEST_DEBUG) console.log(lines.join('\n'));
});

/**
 * Moves vector v's y along Q's first column, which moves only the last level's observation z_0
 * (by t), to the nearest t where two children of the last level tie at its cut in float64 (their
 * metrics m + 2 e t + t^2 meet), then rounds y to float32: a tie within float32 rounding. False when
 * the last level prunes nothing or no such t exists.
 */
function craftLastCutTie(p: Problem, opts: Partial<DetectOptions>, v: number): boolean {
  const prep = kbestPrep(p, opts, v);
  const { metric, e } = kbestVectorBound(p, opts, v, prep).last;
  const n = metric.length,
    k = Math.min(opts.k ?? 16, n);
  if (k >= n) return false;
  const rows = 2 * p.nr;
  const at = (c: number, t: number): number => metric[c]! + t * (2 * e[c]! + t);
  let best = Infinity;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      if (e[a] === e[b]) continue;
      // m_a + 2 e_a t = m_b + 2 e_b t
      const t = (metric[b]! - metric[a]!) / (2 * (e[a]! - e[b]!));
      if (!(Math.abs(t) < Math.abs(best))) continue;
      // a and b the k-th and (k+1)-th there: exactly k - 1 children below them
      const level = at(a, t);
      let below = 0;
      for (let c = 0; c < n; c++) if (c !== a && c !== b && at(c, t) < level) below++;
      if (below === k - 1) best = t;
    }
  }
  if (!Number.isFinite(best)) return false;
  for (let r = 0; r < rows; r++) p.y[v * rows + r] = Math.fround(p.y[v * rows + r]! + best * prep.Q[r]!);
  return true;
}

test('kbest in the CUDA emulator: two children tied within float32 rounding at a cut may leave the GPU another list, and only there', {
  skip: skipEmu,
}, () => {
  let seed = Date.now() % 1e9;
  const lines: string[] = [];
  let differ = 0;
  for (const [nt, nr, mod, k, snr] of [
    [4, 4, '16qam', 16, 0],
    [2, 2, '64qam', 16, 4],
    [8, 8, 'qpsk', 8, -3],
  ] as Array<[number, number, Modulation, number, number]>) {
    // a channel a vector: each tie built on its own QR
    const p = makeProblem(seed++, nt, nr, mod, 150, 1, snr);
    const opts = { detector: 'kbest' as const, k };
    let crafted = 0;
    for (let v = 0; v < p.channels; v++) if (craftLastCutTie(p, opts, v)) crafted++;
    const label = `emulated ${nt}x${nr} ${mod} K=${k} ${snr} dB, ties built at the last cut (seed ${seed - 1})`;
    const r = compare(p, opts, runKbestEmulated(p, opts), label, Infinity);
    assert.ok(r.nearCut >= 0.8 * crafted, `${label}: ${r.nearCut} of ${crafted} built ties lie within the bound`);
    differ += r.nearCutDiffer;
    lines.push(summary(`${label}, ${crafted} built`, r));
  }
  // about one tie in ten ends with another list on the GPU and an LLR that shows it
  assert.ok(differ > 0, `no built tie changed the GPU's results:\n${lines.join('\n')}`);
  if (process.env.KBEST_DEBUG) console.log(lines.join('\n'));
});

test('kbest in the CUDA emulator: exact ties (BPSK, y = 0: x and -x) resolve as on the CPU', { skip: skipEmu }, () => {
  let seed = Date.now() % 1e9;
  for (const [nt, k] of [
    [4, 4],
    [8, 16],
    [16, 64],
  ] as Array<[number, number]>) {
    const p = makeProblem(seed++, nt, nt, 'bpsk', 20, 2, 10);
    p.y.fill(0);
    const opts = { detector: 'kbest' as const, k };
    const gpu = runKbestEmulated(p, opts);
    const cpu = runCpu(kbestCpu, cpuSetup(p, opts, true), p);
    const label = `emulated ${nt}x${nt} bpsk K=${k}, y = 0 (seed ${seed - 1})`;
    assert.deepEqual(differingVectors(cpu.symbols, gpu.symbols, nt), [], `${label}: decisions`);
    assert.deepEqual([...gpu.llr!], [...Float32Array.from(cpu.llr!)], `${label}: LLRs`);
  }
});

/** p with H and y rounded to float32: what the GPU engine stores of float64 input. */
const float32Of = (p: Problem): Problem => ({ ...p, H: p.H.map(Math.fround), y: p.y.map(Math.fround) });

test("kbest's detection order is the channel's, not its rounding's: H and H rounded to float32 give one sorted QR order", () => {
  // A stream's real and imaginary columns tie in the sorted QR (equal residuals in exact
  // arithmetic): taken by rounding, the order would change with it, and with the order the list.
  const seed = Date.now() % 1e9;
  let channels = 0;
  const differ: string[] = [];
  for (const [nt, nr, mod] of [
    [4, 4, '16qam'],
    [2, 2, '64qam'],
    [8, 8, 'qpsk'],
    [4, 8, '256qam'],
  ] as Array<[number, number, Modulation]>) {
    const p = makeProblem(seed, nt, nr, mod, 300, 1, 10, false);
    const q = float32Of(p);
    for (let c = 0; c < p.channels; c++, channels++) {
      const a = kbestPrep(p, { k: 16 }, c).perm,
        b = kbestPrep(q, { k: 16 }, c).perm;
      if (a.some((d, i) => d !== b[i])) differ.push(`${nt}x${nr} ${mod} channel ${c}: [${a}] / [${b}]`);
    }
  }
  // two streams' residuals within float32 rounding of each other (about one channel in a million) may swap
  assert.ok(
    differ.length <= 1,
    `seed ${seed}: ${differ.length} of ${channels} channels change order: ${differ.slice(0, 5).join('; ')}`,
  );
});

test('kbest in the CUDA emulator on float32-rounded input against the CPU engine on the float64 input: one order, the CPU LLRs within 1e-3 + 1e-3 |LLR|', {
  skip: skipEmu,
}, () => {
  // What detectAsync and detect do with one Float64Array: the GPU engine rounds it to float32.
  let seed = Date.now() % 1e9;
  const lines: string[] = [];
  for (const [nt, nr, mod, k, snr] of [
    [4, 4, '16qam', 16, 4],
    [2, 2, '64qam', 16, 6],
    [8, 8, 'qpsk', 8, 0],
  ] as Array<[number, number, Modulation, number, number]>) {
    const p64 = makeProblem(seed++, nt, nr, mod, 20, 10, snr, false);
    const p32 = float32Of(p64);
    const opts = { detector: 'kbest' as const, k };
    const gpu = runKbestEmulated(p32, opts);
    const cpu = runCpu(kbestCpu, cpuSetup(p64, opts, true), p64);
    const label = `emulated ${nt}x${nr} ${mod} K=${k} ${snr} dB, float64 input (seed ${seed - 1})`;
    const nd = gpu.prep!.info.length / p64.channels - 1,
      nb = gpu.llr!.length / (p64.channels * p64.vpc);
    let nearCut = 0,
      worst = 0;
    for (let c = 0; c < p64.channels; c++) {
      const perm = kbestPrep(p64, opts, c * p64.vpc).perm;
      if (gpu.prep!.info[c * (nd + 1)] === MIMO_STATUS.FLOAT32_UNSAFE) continue;
      assert.deepEqual(
        [...gpu.prep!.info.subarray(c * (nd + 1) + 1, (c + 1) * (nd + 1))],
        [...perm],
        `${label}: channel ${c}'s order`,
      );
      for (let v = c * p64.vpc; v < (c + 1) * p64.vpc; v++) {
        // a channel float32 cannot carry: the engine redoes it on the CPU
        if (gpu.status[2 * v] === MIMO_STATUS.FLOAT32_UNSAFE) continue;
        // a cut within the float32 bound may go either way
        if (kbestVectorBound(p32, opts, v).nearCut) {
          nearCut++;
          continue;
        }
        assert.deepEqual(
          [...gpu.symbols.subarray(v * nt, (v + 1) * nt)],
          [...cpu.symbols.subarray(v * nt, (v + 1) * nt)],
          `${label}: vector ${v}'s decision`,
        );
        for (let b = 0; b < nb; b++) {
          const l = cpu.llr![v * nb + b]!,
            err = Math.abs(gpu.llr![v * nb + b]! - l);
          assert.ok(
            err <= 1e-3 + 1e-3 * Math.abs(l),
            `${label}: vector ${v} bit ${b}: LLR ${gpu.llr![v * nb + b]} on the GPU, ${l} on the CPU`,
          );
          worst = Math.max(worst, err);
        }
      }
    }
    lines.push(
      `${label}: ${nearCut} vectors with a cut within the bound; elsewhere LLR |err| <= ${worst.toExponential(2)}`,
    );
  }
  if (process.env.KBEST_DEBUG) console.log(lines.join('\n'));
});

test('kbest on the GPU refuses what the CPU refuses, and what does not fit', () => {
  const p = makeProblem(1, 4, 4, '64qam', 1, 1, 10);
  const setup = { ...cpuSetup(p, { k: 16 }, true), llrClip: 8, device: emulatedH100() };
  assert.throws(() => kbestShape({ ...setup, maxNodes: 100 }), NodeBudgetError);
  assert.throws(() => kbestShape({ ...setup, opts: { ...setup.opts, k: 0 } }), /positive integer/);
  assert.throws(() => kbestShape({ ...setup, opts: { ...setup.opts, k: 2048 } }), UnsupportedError);
  const wide = makeProblem(1, 4, 1, '16qam', 1, 1, 10);
  assert.throws(
    () => kbestShape({ ...cpuSetup(wide, {}, true), llrClip: 8, device: emulatedH100() }),
    UnsupportedError,
  );
});

// ---------------------------------------------------------------------------------------------
// End to end through detectAsync (the GPU engine: normalize kernel, chunks, status words)

test("kbest through detectAsync on the GPU engine: the CPU engine's decisions and LLRs; a singular channel is the CPU's RankDeficientError", {
  skip,
}, async () => {
  const { detectAsync } = await import('../../src/mimo/detect-async.js');
  const { RankDeficientError } = await import('../../src/core/errors.js');
  for (const [mod, k] of [
    ['16qam', 16],
    ['64qam', 64],
    ['qpsk', 4],
  ] as Array<[Modulation, number]>) {
    const p = makeProblem(Date.now() % 1e9, 4, 4, mod, 300, 14, 14);
    // not a power of two: the engine's normalization has work to do (same float32 numbers for both engines)
    const H = Float32Array.from(p.H, (x) => x * 0.37),
      y = Float32Array.from(p.y, (x) => x * 0.37);
    const noiseVar = Float64Array.from(p.noise, (x) => Math.fround(x * 0.37 * 0.37));
    const opts: DetectOptions = { detector: 'kbest', modulation: mod, k };
    const gpu = await detectAsync(
      {
        nt: 4,
        nr: 4,
        H: H as unknown as Float64Array,
        y: y as unknown as Float64Array,
        vectorsPerChannel: 14,
        noiseVar,
      },
      { ...opts, engine: 'cuda' },
    );
    assert.equal(gpu.stats.engine, 'cuda');
    // the bound is scale-free (metrics and N0 scale alike): the CPU detector on the unnormalized numbers
    const q: Problem = { ...p, H: Float64Array.from(H), y: Float64Array.from(y), noise: noiseVar };
    const label = `detectAsync kbest ${mod} K=${k}`;
    const r = compare(q, opts, { symbols: gpu.symbols, llr: gpu.llr!, status: new Int32Array(2 * 300 * 14) }, label);
    console.log(summary(label, r));
  }
  const p = makeProblem(5, 4, 4, '16qam', 4, 3, 14);
  const hLen = 32;
  for (let i = 0; i < 8; i++) p.H[hLen + 8 + i] = p.H[hLen + i]!;
  await assert.rejects(
    detectAsync(
      {
        nt: 4,
        nr: 4,
        H: Float32Array.from(p.H) as unknown as Float64Array,
        y: Float32Array.from(p.y) as unknown as Float64Array,
        vectorsPerChannel: 3,
        noiseVar: 0.1,
      },
      { detector: 'kbest', modulation: '16qam', engine: 'cuda' },
    ),
    RankDeficientError,
  );
});

test("kbest through detectAsync on the GPU engine with a-priori LLRs (the KB_PRIOR build): the CPU engine's decisions and extrinsic LLRs with the same priors within the proven bound; all-zero priors: the CPU engine without priors", {
  skip,
}, async () => {
  const { detectAsync } = await import('../../src/mimo/detect-async.js');
  for (const [nt, mod, k, snr] of [
    [4, '16qam', 16, 12],
    [4, '64qam', 64, 18],
    [2, 'qpsk', 4, 3],
    [2, 'bpsk', 2, 3],
  ] as Array<[number, Modulation, number, number]>) {
    const p = makeProblem(Date.now() % 1e9, nt, nt, mod, 300, 14, snr);
    const prior = randomPriors(p, Date.now() % 1e9);
    const opts: DetectOptions = { detector: 'kbest', modulation: mod, k };
    const base = {
      nt,
      nr: nt,
      H: Float32Array.from(p.H) as unknown as Float64Array,
      y: Float32Array.from(p.y) as unknown as Float64Array,
      vectorsPerChannel: 14,
      noiseVar: p.noise,
    };
    const status = new Int32Array(2 * 300 * 14);
    const label = `detectAsync kbest with priors ${nt}x${nt} ${mod} K=${k} ${snr} dB`;
    const gpu = await detectAsync({ ...base, priorLlr: prior }, { ...opts, engine: 'cuda' });
    assert.equal(gpu.stats.engine, 'cuda');
    console.log(
      summary(label, compare(p, opts, { symbols: gpu.symbols, llr: gpu.llr!, status }, label, undefined, prior)),
    );
    // all-zero priors (the KB_PRIOR build): the CPU engine without priors (not bit for bit the
    // prior-free build on a device: the two builds' FMA contraction may differ)
    const zero = await detectAsync({ ...base, priorLlr: new Float32Array(prior.length) }, { ...opts, engine: 'cuda' });
    compare(p, opts, { symbols: zero.symbols, llr: zero.llr!, status }, `${label}: all-zero priors`);
  }
});
