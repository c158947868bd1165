/**
 * K-best on the GPU against the CPU engine's K-best, on fresh random problems (Rayleigh channels,
 * uniform symbols, noise at low / middle / high SNR; 2x2, 4x4, 8x8; BPSK to 64-QAM; K = 16 to 256):
 * the decisions equal the CPU's except on vectors where float32 may legitimately reorder the list,
 * i.e. where the float64 search (same preprocessing) had two metrics at a pruning boundary, or its
 * two best leaves, within tieTol = 2^-18 (1 + |y|^2) of each other (near-ties: each differing
 * vector checked to be one, at most 0.5% of the vectors); each LLR is within 2 tieTol / N0 of the
 * CPU's (max-log LLRs are metric differences over N0) except on such near-ties (counted). The kernels run on the device, or on this CPU
 * through the CUDA emulator (a smaller run, for CI); each part skips, saying why, without its
 * engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { CudaContext } from '../../src/gpu/index.js';
import { NodeBudgetError, UnsupportedError } from '../../src/core/errors.js';
import { detector as kbestCpu } from '../../src/mimo/detectors/kbest/cpu.js';
import { cudaDetector, kbestShape, KBEST_PREP_THREADS } from '../../src/mimo/detectors/kbest/cuda.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import { realModel } from '../../src/mimo/soft/real-model.js';
import { applyQt } from '../../src/mimo/preprocess/qr.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import { compileEmulated, runEmulated } from '../gpu/cuda-emulator.js';
import { cutOutput, gpuTestEnv, stdinOf } from './gpu-test-env.js';
import { emulatedH100 } from '../gpu/emulated-device.js';
import {
  cpuSetup,
  differingVectors,
  gpuSetup,
  makeProblem,
  runCpu,
  runGpu,
  type GpuOutput,
  type Problem,
} from './kbest-lr-harness.js';

const { skip, skipEmu } = gpuTestEnv();
const VECTORS = Number(process.env.MIMO_GPU_VECTORS ?? 3000);

/** Metrics closer than this (|y|^2 scale) may be ordered differently by float32. */
const tieTol = (yy: number): number => 2 ** -Number(process.env.KBEST_TOL ?? 18) * (1 + yy);

/**
 * The float64 K-best of search.ts with a full sort per level (the same survivors), for one vector:
 * the least gap between the K-th and (K+1)-th child of a pruned level and between the two best leaves.
 */
function nearTieGap(p: Problem, opts: Partial<DetectOptions>, v: number): number {
  const setup = cpuSetup(p, opts, false);
  const inst = kbestCpu.create(setup);
  const m = realModel(setup.constellation, p.nt, p.nr);
  const { nd, q, rows } = m;
  const k = Math.min(opts.k ?? 16, q ** nd);
  const half = q - 1;
  const c = Math.floor(v / p.vpc);
  const { Q, R } = inst.prepare(p.H, c * 2 * p.nr * p.nt, p.noise[v]!) as { Q: Float64Array; R: Float64Array };
  const z = applyQt(Q, rows, nd, p.y, v * rows, new Float64Array(nd));
  let list: Array<{ lev: number[]; m: number }> = [{ lev: new Array<number>(nd).fill(0), m: 0 }];
  let gap = Infinity;
  for (let i = nd - 1; i >= 0; i--) {
    const ch: Array<{ lev: number[]; m: number; idx: number }> = [];
    list.forEach((s, si) => {
      let b = z[i]!;
      for (let j = i + 1; j < nd; j++) b -= R[i + j * nd]! * (2 * s.lev[j]! - half);
      for (let cc = 0; cc < q; cc++) {
        const e = b - R[i + i * nd]! * (2 * cc - half);
        const lev = s.lev.slice();
        lev[i] = cc;
        ch.push({ lev, m: s.m + e * e, idx: si * q + cc });
      }
    });
    ch.sort((a, b) => a.m - b.m || a.idx - b.idx);
    if (ch.length > k) gap = Math.min(gap, ch[k]!.m - ch[k - 1]!.m);
    list = ch.slice(0, k);
  }
  const ms = list.map((s) => s.m).sort((a, b) => a - b);
  if (ms.length > 1) gap = Math.min(gap, ms[1]! - ms[0]!);
  return gap;
}

const yNorm2 = (p: Problem, v: number): number => {
  let s = 0;
  for (let e = 0; e < 2 * p.nr; e++) s += p.y[v * 2 * p.nr + e]! ** 2;
  return s;
};

interface Comparison {
  vectors: number;
  mismatches: number;
  llrExcused: number;
  maxLlrErr: number;
  maxMetricErr: number;
}

/**
 * Asserts the rule of the file comment on one configuration; returns the counts. The near-tie
 * gap (a float64 search) is computed for the vectors that need the excuse: those whose decisions
 * differ, and those whose LLRs miss the bound.
 */
function compare(
  p: Problem,
  opts: Partial<DetectOptions>,
  gpu: Pick<GpuOutput, 'symbols' | 'llr' | 'status'>,
  label: string,
): Comparison {
  const setup = cpuSetup(p, opts, true);
  const cpu = runCpu(kbestCpu, setup, p);
  const vectors = p.channels * p.vpc;
  const bps = setup.constellation.bitsPerSymbol,
    nb = p.nt * bps;
  for (let v = 0; v < vectors; v++)
    assert.equal(gpu.status[2 * v], 0, `${label}: vector ${v} flagged ${gpu.status[2 * v]}`);
  const diff = differingVectors(cpu.symbols, gpu.symbols, p.nt);
  const near = (v: number): boolean => nearTieGap(p, opts, v) <= tieTol(yNorm2(p, v));
  for (const v of diff)
    assert.ok(
      near(v),
      `${label}: vector ${v} differs from the CPU without a near-tie (least gap ${nearTieGap(p, opts, v)}, tolerance ${tieTol(yNorm2(p, v))})`,
    );
  const differs = new Set(diff);
  let llrExcused = 0,
    maxLlrErr = 0,
    maxMetricErr = 0;
  for (let v = 0; v < vectors; v++) {
    if (differs.has(v)) continue;
    const bound = (2 * tieTol(yNorm2(p, v))) / p.noise[v]!;
    let worst = 0,
      at = 0;
    for (let b = 0; b < nb; b++) {
      const err = Math.abs(cpu.llr![v * nb + b]! - gpu.llr![v * nb + b]!);
      if (err > worst) {
        worst = err;
        at = b;
      }
    }
    if (worst > bound) {
      assert.ok(
        near(v),
        `${label}: vector ${v} bit ${at}: LLR ${gpu.llr![v * nb + at]} on the GPU, ${cpu.llr![v * nb + at]} on the CPU (bound ${bound}), no near-tie`,
      );
      llrExcused++;
      continue;
    }
    maxLlrErr = Math.max(maxLlrErr, worst);
    maxMetricErr = Math.max(maxMetricErr, (worst * p.noise[v]!) / (1 + yNorm2(p, v)));
  }
  // decisions that float32 changed are rare: at most 0.5% of the vectors
  assert.ok(
    diff.length <= Math.max(2, 0.005 * vectors),
    `${label}: ${diff.length} of ${vectors} vectors differ from the CPU`,
  );
  if (process.env.KBEST_DEBUG)
    console.log(label, { vectors, mismatches: diff.length, llrExcused, maxLlrErr, maxMetricErr });
  return { vectors, mismatches: diff.length, llrExcused, maxLlrErr, maxMetricErr };
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

test('kbest on the GPU equals the CPU engine, except float32 near-ties', { skip }, () => {
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
      const r = compare(p, opts, gpu, `${nt}x${nr} ${mod} K=${k} ${snr} dB (seed ${seed - 1})`);
      lines.push(
        `${nt}x${nr} ${mod} K=${k} ${snr} dB: ${r.vectors} vectors, ${r.mismatches} decisions differ (near-ties), ${r.llrExcused} more with an LLR off by a near-tie; LLR max |err| ${r.maxLlrErr.toExponential(2)} elsewhere (metric error / (1 + |y|^2) ${r.maxMetricErr.toExponential(2)})`,
      );
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

/** Header ints [channels, vpc, soft, prepThreads, blockThreads, vpb, sharedBytes], clip (f32), scale (f64), then H, y, noise, status in. */
const KBEST_MAIN = String.raw`
int main() {
  int h[7]; float clip; double scale;
  if (fread(h, 4, 7, stdin) != 7 || fread(&clip, 4, 1, stdin) != 1 || fread(&scale, 8, 1, stdin) != 1) return 1;
  const int channels = h[0], vpc = h[1], soft = h[2], pt = h[3], bt = h[4], vpb = h[5], shared = h[6];
  const int vectors = channels * vpc;
  std::vector<float> H((size_t)channels * 2 * NR * NT), y((size_t)vectors * ROWS), noise(vectors);
  std::vector<int> status((size_t)vectors * 2);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()
      || fread(noise.data(), 4, noise.size(), stdin) != noise.size() || fread(status.data(), 4, status.size(), stdin) != status.size()) return 1;
  std::vector<float> Q((size_t)channels * ROWS * ND), R((size_t)channels * ND * ND), llr((size_t)vectors * NT * BPS, -1e30f);
  std::vector<int> info((size_t)channels * (ND + 1)), sym((size_t)vectors * NT, -1);
  if (emu_launch((channels + pt - 1) / pt, dim3{(unsigned)pt, 1, 1}, 0, [&] { kbest_prep(H.data(), Q.data(), R.data(), info.data(), channels, scale); })) return 2;
  if (emu_launch((vectors + vpb - 1) / vpb, dim3{(unsigned)bt, 1, 1}, shared, [&] {
    kbest_search(y.data(), noise.data(), Q.data(), R.data(), info.data(), sym.data(), soft ? llr.data() : nullptr, status.data(), vectors, vpc, clip); })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 4, llr.size(), stdout);
  fwrite(status.data(), 4, status.size(), stdout);
  return 0;
}
`;

function runKbestEmulated(p: Problem, opts: Partial<DetectOptions>): Pick<GpuOutput, 'symbols' | 'llr' | 'status'> {
  const setup = { ...cpuSetup(p, opts, true), llrClip: 3.0e38, device: emulatedH100() };
  const sh = kbestShape(setup);
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
  const head = new ArrayBuffer(7 * 4 + 4 + 8);
  const dv = new DataView(head);
  [
    p.channels,
    p.vpc,
    1,
    KBEST_PREP_THREADS,
    sh.threadsPerVector * sh.vectorsPerBlock,
    sh.vectorsPerBlock,
    sh.sharedBytes,
  ].forEach((x, i) => {
    dv.setInt32(4 * i, x, true);
  });
  dv.setFloat32(28, sh.clip, true);
  dv.setFloat64(32, sh.scale, true);
  const parts = [
    new Uint8Array(head),
    Float32Array.from(p.H),
    Float32Array.from(p.y),
    Float32Array.from(p.noise),
    new Int32Array(2 * vectors),
  ];
  const out = runEmulated(exe, stdinOf(parts));
  const [symbols, llr, status] = cutOutput(out, [
    ['i32', vectors * p.nt],
    ['f32', vectors * nb],
    ['i32', 2 * vectors],
  ]);
  return { symbols, llr, status };
}

test('kbest kernels in the CUDA emulator equal the CPU engine, except float32 near-ties', { skip: skipEmu }, () => {
  let seed = Date.now() % 1e9;
  const cases: Array<[number, number, Modulation, number, number]> = [
    [4, 4, '64qam', 16, 20],
    [4, 4, '16qam', 16, 12],
    [4, 4, '16qam', 64, 4],
    [2, 2, 'qpsk', 3, 5],
    [2, 2, 'bpsk', 2, 3],
    [2, 4, '16qam', 8, 10],
    [2, 2, '256qam', 16, 24],
    [2, 2, '16qam', 1, 10],
    [2, 2, '64qam', 100, 15],
  ];
  for (const [nt, nr, mod, k, snr] of cases) {
    const p = makeProblem(seed++, nt, nr, mod, Number(process.env.KBEST_EMU_CHANNELS ?? 5), 6, snr);
    const opts = { detector: 'kbest' as const, k };
    compare(p, opts, runKbestEmulated(p, opts), `emulated ${nt}x${nr} ${mod} K=${k} (seed ${seed - 1})`);
  }
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
  const { detect } = await import('../../src/mimo/detect.js');
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
    const cpu = detect(
      { nt: 4, nr: 4, H: Float64Array.from(H), y: Float64Array.from(y), vectorsPerChannel: 14, noiseVar },
      opts,
    );
    assert.equal(gpu.stats.engine, 'cuda');
    const diff = differingVectors(cpu.symbols, gpu.symbols, 4);
    assert.ok(diff.length <= 0.005 * 300 * 14, `${mod}: ${diff.length} vectors differ`);
    const nb = 4 * constellationBits(mod);
    let maxErr = 0;
    const bad = new Set(diff);
    for (let v = 0; v < 300 * 14; v++) {
      if (bad.has(v)) continue;
      for (let b = 0; b < nb; b++) maxErr = Math.max(maxErr, Math.abs(gpu.llr![v * nb + b]! - cpu.llr![v * nb + b]!));
    }
    console.log(
      `detectAsync kbest ${mod} K=${k}: ${diff.length} of ${300 * 14} vectors differ; LLR max |err| ${maxErr.toExponential(2)} on the others`,
    );
    assert.ok(maxErr < 0.05, `${mod}: LLR error ${maxErr}`);
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

const constellationBits = (mod: Modulation): number => ({ bpsk: 1, qpsk: 2, '16qam': 4, '64qam': 6, '256qam': 8 })[mod];
