/**
 * The PSD's CUDA kernels (src/mimo/detectors/psd/: psd-prep.cu, psd-warp.cu, psd-block.cu).
 *
 * (1) CUDA emulator (runs in CI, no GPU): on fresh Rayleigh channels, random symbols and noise, the
 *     per-channel factors are a QR of the real model (Q^T Q = I, H_r P = Q R) equal to the CPU's
 *     (float64, same column order) rounded to float32, and both mappings give the CPU engine's psd decisions
 *     (float64, exact ML) except float32 near-ties, each shown to be one: the float64 metrics
 *     ||y - H s||^2 of the two answers differ by less than float32 rounding of the metric's terms.
 *     Node budget, pre-set status flags and singular channels get the contract's status words.
 *     Both mappings, and the warp mapping with 1, 4, 32 and the default lanes a vector.
 * (2) CUDA device (skipped without one, saying so): the plan on device buffers, 2x2 to 8x8, BPSK to
 *     64-QAM, 0 / 10 / 20 dB, against the CPU engine's psd and, where it is affordable, exhaustive
 *     ML in float64; near-ties counted and each checked (PSD_TEST_VECTORS vectors a configuration,
 *     default 20,000; 100,000 on the H100 run gave none). detectAsync end to end: decisions, node
 *     counts, float32 input, node budget (flag and error), a singular channel's RankDeficientError.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { constellation, type Constellation } from '../../src/mimo/modulation.js';
import type { CpuDetector, DetectorOutput } from '../../src/mimo/detectors/detector.js';
import { detector as cpuPsd } from '../../src/mimo/detectors/psd/cpu.js';
import { detector as cpuMl } from '../../src/mimo/detectors/ml/cpu.js';
import { psdConfig } from '../../src/mimo/detectors/psd/config.js';
import {
  createPsdPlan,
  psdAutoLanes,
  psdBlockSharedBytes,
  psdBlockThreads,
  psdDefines,
  psdFactorWords,
  psdWarpSharedBytes,
} from '../../src/mimo/detectors/psd/cuda.js';
import {
  allocTriangular,
  realChannelInto,
  realModel,
  triangularizeInto,
} from '../../src/mimo/preprocess/real-system.js';
import { DEFAULT_MAX_NODES } from '../../src/mimo/budget.js';
import { MIMO_STATUS, STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import type { DetectOptions, Modulation, PsdOptions } from '../../src/mimo/types.js';
import { CudaContext, DeviceBuffer, Stream } from '../../src/gpu/index.js';
import { compileEmulated, runEmulated } from '../gpu/cuda-emulator.js';
import { cutOutput, gpuTestEnv, stdinOf } from './gpu-test-env.js';
import { detect } from '../../src/mimo/detect.js';
import { detectAsync } from '../../src/mimo/detect-async.js';

const { seed, msg, skip, skipEmu } = gpuTestEnv();

interface Problem {
  nr: number;
  nt: number;
  mod: Modulation;
  con: Constellation;
  channels: number;
  vpc: number;
  vectors: number;
  H: Float64Array;
  y: Float64Array;
  noiseVar: number;
}

function problem(
  rng: Philox,
  nr: number,
  nt: number,
  mod: Modulation,
  snrDb: number,
  channels: number,
  vpc: number,
): Problem {
  // Rounded to float32 once, so that the CPU (float64) and the GPU see the same numbers.
  const f32 = (a: Float64Array): Float64Array => Float64Array.from(new Float32Array(a));
  const H = f32(rayleighChannels(rng, channels, nt, nr));
  const vectors = channels * vpc;
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  const noiseVar = snrToNoiseVar(snrDb, 'esn0', 1);
  const y = f32(addNoise(rng, transmit(H, symbols, nt, nr, vpc), noiseVar));
  return { nr, nt, mod, con: constellation(mod), channels, vpc, vectors, H, y, noiseVar };
}

function opts(mod: Modulation, detector: 'psd' | 'ml', psd?: PsdOptions, maxNodes?: number): DetectOptions {
  return { detector, modulation: mod, ...(psd ? { psd } : {}), ...(maxNodes ? { maxNodes } : {}) };
}

/** The CPU engine's psd (float64): symbols, nodes and unproven per vector. */
function runCpu(
  p: Problem,
  det: 'psd' | 'ml',
  psd?: PsdOptions,
  maxNodes = DEFAULT_MAX_NODES,
): { symbols: Int32Array; nodes: Int32Array; unproven: Uint8Array } {
  const d = (det === 'psd' ? cpuPsd : cpuMl) as CpuDetector<unknown>;
  const inst = d.create({
    nr: p.nr,
    nt: p.nt,
    modulation: p.mod,
    constellation: p.con,
    opts: opts(p.mod, det, psd, maxNodes),
    soft: false,
    maxNodes,
  });
  const out: DetectorOutput = {
    symbols: new Int32Array(p.vectors * p.nt),
    llr: null,
    unproven: new Uint8Array(p.vectors),
  };
  const nodes = new Int32Array(p.vectors);
  for (let c = 0; c < p.channels; c++) {
    const prep = inst.prepare(p.H, 2 * c * p.nr * p.nt, p.noiseVar);
    for (let k = 0; k < p.vpc; k++) {
      const v = c * p.vpc + k;
      nodes[v] = inst.detect(prep, p.y, 2 * v * p.nr, p.noiseVar, out, v);
    }
  }
  return { symbols: out.symbols, nodes, unproven: out.unproven };
}

/** ||y_v - H s||^2 in float64, and the scale of its terms (||y|| + ||H||_F max|s| sqrt(nt))^2. */
function metric(p: Problem, sym: ArrayLike<number>, v: number): { m: number; scale: number } {
  const { nr, nt, con } = p,
    c = Math.floor(v / p.vpc);
  let d = 0,
    yy = 0,
    hh = 0,
    ss = 0;
  for (let k = 0; k < con.size; k++) ss = Math.max(ss, con.points[2 * k]! ** 2 + con.points[2 * k + 1]! ** 2);
  for (let i = 0; i < nr; i++) {
    let re = p.y[2 * (v * nr + i)]!,
      im = p.y[2 * (v * nr + i) + 1]!;
    yy += re * re + im * im;
    for (let j = 0; j < nt; j++) {
      const hr = p.H[2 * (c * nr * nt + i + j * nr)]!,
        hi = p.H[2 * (c * nr * nt + i + j * nr) + 1]!;
      hh += hr * hr + hi * hi;
      const sr = con.points[2 * sym[j]!]!,
        si = con.points[2 * sym[j]! + 1]!;
      re -= hr * sr - hi * si;
      im -= hr * si + hi * sr;
    }
    d += re * re + im * im;
  }
  return { m: d, scale: (Math.sqrt(yy) + Math.sqrt(hh * ss * nt)) ** 2 };
}

/** Relative float32 rounding of a metric's terms: a gap below NEAR_TIE x scale is a near-tie. */
const NEAR_TIE = 2 ** -16;

/**
 * Compares GPU symbols with a float64 reference (exact ML): every difference must be a near-tie
 * (the GPU's answer's float64 metric within NEAR_TIE x scale of the reference's). Returns the count
 * of differences and the largest relative gap among them.
 */
function compareMl(
  p: Problem,
  ref: Int32Array,
  got: Int32Array,
  what: string,
  skipMask?: Uint8Array,
): { ties: number; maxGap: number } {
  let ties = 0,
    maxGap = 0;
  for (let v = 0; v < p.vectors; v++) {
    if (skipMask?.[v]) continue;
    let same = true;
    for (let j = 0; j < p.nt; j++) if (ref[v * p.nt + j] !== got[v * p.nt + j]) same = false;
    if (same) continue;
    const a = ref.subarray(v * p.nt, (v + 1) * p.nt),
      b = got.subarray(v * p.nt, (v + 1) * p.nt);
    for (let j = 0; j < p.nt; j++)
      assert.ok(b[j]! >= 0 && b[j]! < p.con.size, msg(`${what}: vector ${v} symbol ${b[j]} out of range`));
    const ma = metric(p, a, v),
      mb = metric(p, b, v);
    const gap = (mb.m - ma.m) / ma.scale;
    assert.ok(
      gap <= NEAR_TIE,
      msg(
        `${what}: vector ${v} gives [${[...b]}] (metric ${mb.m}) but ML is [${[...a]}] (metric ${ma.m}); gap ${gap.toExponential(2)} of the scale ${ma.scale.toFixed(2)} is beyond float32 rounding`,
      ),
    );
    ties++;
    maxGap = Math.max(maxGap, Math.abs(gap));
  }
  return { ties, maxGap };
}

// ------------------------------------------------------------------------------------------------
// Emulator

/** Header ints [channels, vpc, mapping (0 warp, 1 block), sharedBytes, maxNodes], scale (float32); then H, y (float32), status (int32). */
const EMU_MAIN = String.raw`
int main() {
  int h[5]; float scale;
  if (fread(h, 4, 5, stdin) != 5 || fread(&scale, 4, 1, stdin) != 1) return 1;
  const int channels = h[0], vpc = h[1], mapping = h[2], shared = h[3];
  const long long maxNodes = h[4];
  const int V = channels * vpc;
  std::vector<float> H((size_t)channels * 2 * PSD_NR * PSD_NT), y((size_t)V * 2 * PSD_NR), fac((size_t)channels * PSD_FAC_WORDS, -1e30f);
  std::vector<int> st((size_t)V * 2), sym((size_t)V * PSD_NT, -1);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size() || fread(st.data(), 4, st.size(), stdin) != st.size()) return 1;
  if (emu_launch((channels * PSD_PREP_LANES + 63) / 64, dim3{64, 1, 1}, 0, [&] { psd_prep(H.data(), fac.data(), channels, nullptr, nullptr, 0.f, nullptr, nullptr, nullptr, 0, 0LL); })) return 2;
#ifdef PSD_WARPS
  if (mapping == 0 && emu_launch((V + PSD_WARPS * PSD_GROUPS - 1) / (PSD_WARPS * PSD_GROUPS), dim3{32 * PSD_WARPS, 1, 1}, shared, [&] { psd_warp(y.data(), fac.data(), sym.data(), st.data(), V, vpc, maxNodes, scale, nullptr, 0LL); })) return 2;
#endif
#ifdef PSD_THREADS
  if (mapping == 1 && emu_launch(V, dim3{PSD_THREADS, 1, 1}, shared, [&] { psd_block(y.data(), fac.data(), sym.data(), st.data(), V, vpc, maxNodes, scale, nullptr, 0LL); })) return 2;
#endif
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  fwrite(fac.data(), 4, fac.size(), stdout);
  return 0;
}
`;

const KERNEL = (f: string): string => fileURLToPath(new URL(`../../src/mimo/detectors/psd/${f}`, import.meta.url));

interface GpuOut {
  symbols: Int32Array;
  status: Int32Array;
  fac: Float32Array;
}

function runEmu(
  p: Problem,
  mapping: 'warp' | 'block',
  psd: PsdOptions | undefined,
  status: Int32Array,
  maxNodes: number,
  H = p.H,
  lanes?: number,
): GpuOut {
  const model = realModel(p.con, p.nt, p.nr);
  const config = psdConfig(model.n, model.q, psd);
  const defs = Object.entries(psdDefines(model, config)).map(([k, v]) => `-D${k}=${v}`);
  const warps = 2;
  let shared: number;
  if (mapping === 'warp') {
    const l = lanes ?? psdAutoLanes(model.n, model.q, psdWarpSharedBytes(model.n, config));
    defs.push(`-DPSD_WARPS=${warps}`, `-DPSD_LANES=${l}`);
    shared = warps * (32 / l) * psdWarpSharedBytes(model.n, config);
  } else {
    const threads = psdBlockThreads(config);
    defs.push(`-DPSD_THREADS=${threads}`);
    shared = psdBlockSharedBytes(model.n, config, threads);
  }
  const { exe, error } = compileEmulated(
    EMU_MAIN,
    [KERNEL('psd-prep.cu'), KERNEL(mapping === 'warp' ? 'psd-warp.cu' : 'psd-block.cu')],
    defs,
  );
  assert.equal(error, null, error ?? '');
  const head = new Int32Array([p.channels, p.vpc, mapping === 'warp' ? 0 : 1, shared, Math.min(maxNodes, 2 ** 31 - 1)]);
  const out = runEmulated(
    exe,
    stdinOf([
      head,
      new Float32Array([p.con.pam ? p.con.pam.scale : 1]),
      new Float32Array(H),
      new Float32Array(p.y),
      status,
    ]),
  );
  const [symbols, st, fac] = cutOutput(out, [
    ['i32', p.vectors * p.nt],
    ['i32', p.vectors * STATUS_WORDS],
    ['f32', p.channels * psdFactorWords(model.n, model.m)],
  ]);
  return { symbols, status: st, fac };
}

const EMU_CASES: Array<[number, number, Modulation, PsdOptions?]> = [
  [2, 2, 'qpsk'],
  [2, 2, '16qam'],
  [4, 4, 'qpsk'],
  [4, 4, '16qam'],
  [2, 2, '64qam'],
  [3, 2, 'bpsk'],
  [4, 3, '16qam'],
  [4, 4, 'qpsk', { levels: [7, 3, 2, 1], paths: [3, 2, 3] }],
];

for (const [mapping, lanes] of [
  ['warp', undefined],
  ['warp', 32],
  ['warp', 4],
  ['warp', 1],
  ['block', undefined],
] as const) {
  test(`psd kernels (${mapping} mapping${lanes ? `, ${lanes} lanes a vector` : ''}), emulated: the CPU engine's decisions and node counts on fresh vectors except float32 near-ties`, {
    skip: skipEmu,
  }, () => {
    const rng = new Philox(seed, mapping === 'warp' ? 1 + (lanes ?? 0) : 2);
    let ties = 0,
      total = 0,
      nodeSame = 0;
    for (const [nr, nt, mod, psd] of EMU_CASES) {
      for (const snr of [0, 12, 25]) {
        const p = problem(rng, nr, nt, mod, snr, 4, 3);
        const status = new Int32Array(p.vectors * STATUS_WORDS);
        const got = runEmu(p, mapping, psd, status, DEFAULT_MAX_NODES, p.H, lanes);
        const ref = runCpu(p, 'psd', psd);
        const what = `${mapping} ${nr}x${nt} ${mod} ${snr} dB${psd ? ` ${JSON.stringify(psd)}` : ''}`;
        for (let v = 0; v < p.vectors; v++) {
          assert.equal(got.status[2 * v], 0, msg(`${what}: vector ${v} flags ${got.status[2 * v]}`));
          assert.ok(got.status[2 * v + 1]! > 0, msg(`${what}: vector ${v} visited no node`));
          if (got.status[2 * v + 1] === ref.nodes[v]) nodeSame++;
        }
        ties += compareMl(p, ref.symbols, got.symbols, what).ties;
        total += p.vectors;
      }
    }
    assert.ok(ties <= total / 50, msg(`${ties} near-ties in ${total} vectors`));
    // The same walk: node counts equal the CPU's but where float32 reorders near-equal metrics.
    console.log(
      `${mapping}${lanes ? ` ${lanes} lanes` : ''}: ${ties} near-ties, node counts equal the CPU's on ${nodeSame} of ${total} vectors`,
    );
    assert.ok(nodeSame >= 0.97 * total, msg(`node counts equal the CPU's on ${nodeSame} of ${total} vectors`));
  });
}

test("psd_prep, emulated: a QR of the real model (Q^T Q = I, H_r P = Q R, R upper with positive diagonal), the CPU's Q, R and column order rounded to float32", {
  skip: skipEmu,
}, () => {
  const rng = new Philox(seed, 3);
  let total = 0;
  for (const [nr, nt, mod] of [
    [4, 4, '16qam'],
    [3, 2, 'bpsk'],
    [4, 3, 'qpsk'],
    [8, 8, 'qpsk'],
    [2, 2, '64qam'],
  ] as const) {
    const p = problem(rng, nr, nt, mod, 10, 40, 1);
    const got = runEmu(p, 'warp', undefined, new Int32Array(p.vectors * STATUS_WORDS), DEFAULT_MAX_NODES);
    const model = realModel(p.con, nt, nr);
    const { m, n } = model;
    const W = psdFactorWords(n, m);
    const Hr = new Float64Array(m * n),
      tri = allocTriangular(model);
    for (let c = 0; c < p.channels; c++) {
      const f = got.fac.subarray(c * W, (c + 1) * W);
      const perm = new Int32Array(f.buffer, f.byteOffset + 4 * (n * m + n * n), n);
      assert.equal(new Int32Array(f.buffer, f.byteOffset + 4 * (n * m + n * n + n), 1)[0], 0, 'channel flags');
      realChannelInto(model, p.H, 2 * c * nr * nt, Hr);
      let hn = 0;
      for (const x of Hr) hn += x * x;
      const tol = 1e-5 * Math.sqrt(hn);
      for (let a = 0; a < n; a++) {
        for (let b = 0; b < n; b++) {
          let qq = 0;
          for (let r = 0; r < m; r++) qq += f[a * m + r]! * f[b * m + r]!;
          assert.ok(Math.abs(qq - (a === b ? 1 : 0)) < 1e-5, msg(`channel ${c}: (Q^T Q)[${a}][${b}] = ${qq}`));
          if (b < a) assert.equal(f[n * m + a * n + b], 0, 'R is upper triangular');
        }
        assert.ok(f[n * m + a * n + a]! > 0, 'positive diagonal');
        // column perm[a] of H_r = sum_k Q[:, k] R[k][a]
        for (let r = 0; r < m; r++) {
          let s = 0;
          for (let k = 0; k <= a; k++) s += f[k * m + r]! * f[n * m + k * n + a]!;
          assert.ok(
            Math.abs(s - Hr[r + perm[a]! * m]!) < tol,
            msg(`channel ${c}: (Q R)[${r}][${a}] = ${s}, H_r = ${Hr[r + perm[a]! * m]}`),
          );
        }
      }
      // The CPU's factorisation of the same input, bit for bit before the rounding to float32.
      triangularizeInto(model, p.H, 2 * c * nr * nt, 'ascending', tri);
      assert.deepEqual([...perm], [...tri.perm], msg(`channel ${c}: column order`));
      for (let a = 0; a < n; a++) {
        for (let b = a; b < n; b++)
          assert.equal(f[n * m + a * n + b], Math.fround(tri.R[a + b * n]!), msg(`channel ${c}: R[${a}][${b}]`));
        for (let r = 0; r < m; r++)
          assert.equal(f[a * m + r], Math.fround(tri.Q[r + a * m]!), msg(`channel ${c}: Q[${r}][${a}]`));
      }
      total++;
    }
  }
  assert.ok(total > 0);
});

test("psd kernels, emulated: node budget (NODE_BUDGET and the CPU's best leaf at that point), pre-set flags skipped, singular channels RANK_DEFICIENT", {
  skip: skipEmu,
}, () => {
  const rng = new Philox(seed, 4);
  for (const mapping of ['warp', 'block'] as const) {
    const p = problem(rng, 4, 4, '16qam', 8, 4, 3);
    // Budget of one node: every search stops after its first descent with the greedy leaf.
    const budget = 1;
    const got = runEmu(p, mapping, undefined, new Int32Array(p.vectors * STATUS_WORDS), budget);
    const ref = runCpu(p, 'psd', undefined, budget);
    for (let v = 0; v < p.vectors; v++) {
      assert.equal(got.status[2 * v], MIMO_STATUS.NODE_BUDGET, msg(`${mapping}: vector ${v} flags`));
      assert.equal(ref.unproven[v], 1);
      assert.equal(got.status[2 * v + 1], ref.nodes[v], msg(`${mapping}: vector ${v} nodes of the first descent`));
    }
    // The first descent's leaf (the same column order: only a float32 near-tie could part them).
    let diff = 0;
    for (let v = 0; v < p.vectors; v++)
      for (let j = 0; j < p.nt; j++)
        if (got.symbols[v * p.nt + j] !== ref.symbols[v * p.nt + j]) {
          diff++;
          break;
        }
    assert.ok(diff <= 1, msg(`${mapping}: ${diff} budgeted vectors differ from the CPU's first leaf`));

    // Pre-set flags: skipped, untouched. A zero column in channel 1: its vectors flagged FLOAT32_UNSAFE.
    const status = new Int32Array(p.vectors * STATUS_WORDS);
    status[2 * 0] = MIMO_STATUS.NON_FINITE;
    status[2 * 5] = MIMO_STATUS.Y_TOO_LARGE;
    const H = p.H.slice();
    for (let i = 0; i < p.nr; i++) {
      H[2 * (1 * 16 + i + 2 * 4)] = 0;
      H[2 * (1 * 16 + i + 2 * 4) + 1] = 0;
    }
    const g2 = runEmu(p, mapping, undefined, status, DEFAULT_MAX_NODES, H);
    assert.equal(g2.status[0], MIMO_STATUS.NON_FINITE);
    assert.equal(g2.status[1], 0);
    for (let j = 0; j < p.nt; j++) assert.equal(g2.symbols[j], -1, 'skipped vector left alone');
    assert.equal(g2.status[10], MIMO_STATUS.Y_TOO_LARGE);
    for (const v of [3, 4])
      assert.equal(
        g2.status[2 * v],
        MIMO_STATUS.RANK_DEFICIENT,
        msg(`${mapping}: vector ${v} of the singular channel`),
      );
    for (const v of [6, 7, 8]) assert.equal(g2.status[2 * v], 0);
  }
});

// ------------------------------------------------------------------------------------------------
// Device

function runDevice(
  p: Problem,
  mapping: 'warp' | 'block',
  psd?: PsdOptions,
  maxNodes = DEFAULT_MAX_NODES,
  lanes?: number,
): { symbols: Int32Array; status: Int32Array } {
  const ctx = CudaContext.get(0);
  const plan = createPsdPlan(
    ctx,
    {
      nr: p.nr,
      nt: p.nt,
      modulation: p.mod,
      constellation: p.con,
      opts: opts(p.mod, 'psd', { ...psd, gpuMapping: mapping }),
      soft: false,
      maxNodes,
      llrClip: 0,
      vectorsPerChannel: p.vpc,
      device: ctx.props,
    },
    lanes ? { lanes } : {},
  );
  const bufs = {
    H: DeviceBuffer.alloc(ctx, 4 * p.H.length),
    y: DeviceBuffer.alloc(ctx, 4 * p.y.length),
    noise: DeviceBuffer.alloc(ctx, 4 * p.vectors),
    symbols: DeviceBuffer.alloc(ctx, 4 * p.vectors * p.nt),
    status: DeviceBuffer.alloc(ctx, 4 * STATUS_WORDS * p.vectors),
    scratch: plan.scratchBytesPerChannel.map((b) => DeviceBuffer.alloc(ctx, b * p.channels)),
  };
  const stream = Stream.create(ctx);
  try {
    bufs.H.upload(new Float32Array(p.H));
    bufs.y.upload(new Float32Array(p.y));
    bufs.noise.upload(new Float32Array(p.vectors).fill(p.noiseVar));
    bufs.status.upload(new Int32Array(STATUS_WORDS * p.vectors));
    plan.enqueue(stream, {
      channels: p.channels,
      vectorsPerChannel: p.vpc,
      H: bufs.H.ptr,
      y: bufs.y.ptr,
      noise: bufs.noise.ptr,
      symbols: bufs.symbols.ptr,
      llr: 0n,
      status: bufs.status.ptr,
      scratch: bufs.scratch.map((b) => b.ptr),
    });
    stream.synchronize();
    const symbols = new Int32Array(p.vectors * p.nt),
      status = new Int32Array(STATUS_WORDS * p.vectors);
    bufs.symbols.download(symbols);
    bufs.status.download(status);
    return { symbols, status };
  } finally {
    stream.destroy();
    for (const b of [bufs.H, bufs.y, bufs.noise, bufs.symbols, bufs.status, ...bufs.scratch]) b.free();
  }
}

const DEVICE_COUNT = Number(process.env.PSD_TEST_VECTORS ?? 20_000);
const DEVICE_CASES: Array<[number, number, Modulation, number]> = [
  [2, 2, 'bpsk', 1],
  [2, 2, 'qpsk', 1],
  [2, 2, '16qam', 1],
  [2, 2, '64qam', 1],
  [4, 4, 'qpsk', 1],
  [4, 4, '16qam', 1],
  [4, 4, '64qam', 0.2],
  [8, 8, 'qpsk', 0.2],
  [8, 8, '16qam', 0.05],
  [4, 2, '16qam', 1],
];

for (const [mapping, lanes, share] of [
  ['warp', undefined, 1],
  ['block', undefined, 0.25],
  ['warp', 32, 0.1],
  ['warp', 1, 0.1],
  ['warp', 8, 0.1],
] as const) {
  test(`psd on the GPU (${mapping} mapping${lanes ? `, ${lanes} lanes a vector` : ''}) equals the CPU engine's psd and exhaustive ML in float64 but for counted float32 near-ties`, {
    skip,
  }, () => {
    const rng = new Philox(seed, mapping === 'warp' ? 10 + (lanes ?? 0) : 20);
    for (const [nr, nt, mod, frac] of DEVICE_CASES) {
      for (const snr of [0, 10, 20]) {
        const count = Math.max(200, Math.round(DEVICE_COUNT * frac * share));
        const vpc = 14;
        const p = problem(rng, nr, nt, mod, snr, Math.ceil(count / vpc), vpc);
        const got = runDevice(p, mapping, undefined, DEFAULT_MAX_NODES, lanes);
        const ref = runCpu(p, 'psd');
        const what = `${mapping}${lanes ? ` ${lanes} lanes` : ''} ${nr}x${nt} ${mod} ${snr} dB`;
        let unsafe = 0;
        const mask = new Uint8Array(p.vectors);
        for (let v = 0; v < p.vectors; v++) {
          const f = got.status[2 * v]!;
          assert.ok(f === 0 || f === MIMO_STATUS.FLOAT32_UNSAFE, msg(`${what}: vector ${v} flags ${f}`));
          if (f) {
            unsafe++;
            mask[v] = 1;
          }
        }
        const { ties, maxGap } = compareMl(p, ref.symbols, got.symbols, what, mask);
        let mlNote = '';
        // Exhaustive ML (float64) on a slice where M^nt hypotheses per vector stay affordable.
        const hyp = p.con.size ** nt;
        if (hyp <= 65536) {
          const k = Math.min(p.vectors, Math.max(14, Math.floor(4e7 / hyp / 14) * 14));
          const sub: Problem = {
            ...p,
            channels: k / p.vpc,
            vectors: k,
            H: p.H.subarray(0, 2 * nr * nt * (k / p.vpc)),
            y: p.y.subarray(0, 2 * nr * k),
          };
          const ml = runCpu(sub, 'ml');
          const t2 = compareMl(sub, ml.symbols, got.symbols.subarray(0, k * nt), `${what} vs exhaustive ML`, mask);
          mlNote = `, exhaustive ML on ${k}: ${t2.ties} near-ties`;
        }
        assert.ok(ties <= Math.max(2, p.vectors / 1000), msg(`${what}: ${ties} near-ties in ${p.vectors}`));
        assert.ok(unsafe <= p.vectors / 1000, msg(`${what}: ${unsafe} vectors flagged FLOAT32_UNSAFE`));
        console.log(
          `${what}: ${p.vectors} vectors, ${ties} near-ties (largest gap ${maxGap.toExponential(2)} of the scale), ${unsafe} FLOAT32_UNSAFE${mlNote}`,
        );
      }
    }
  });
}

test('psd on the GPU: node budget flags NODE_BUDGET with a leaf; a configuration too large for shared memory is an UnsupportedError', {
  skip,
}, () => {
  const rng = new Philox(seed, 30);
  const p = problem(rng, 4, 4, '16qam', 5, 100, 14);
  for (const mapping of ['warp', 'block'] as const) {
    const got = runDevice(p, mapping, undefined, 200);
    const ref = runCpu(p, 'psd', undefined, 200);
    let flagged = 0;
    for (let v = 0; v < p.vectors; v++) {
      const f = got.status[2 * v]!;
      assert.ok(f === 0 || f === MIMO_STATUS.NODE_BUDGET, msg(`flags ${f}`));
      if (f) {
        flagged++;
        assert.ok(got.status[2 * v + 1]! >= 200);
      }
      for (let j = 0; j < p.nt; j++) assert.ok(got.symbols[v * p.nt + j]! >= 0 && got.symbols[v * p.nt + j]! < 16);
    }
    let cpuFlagged = 0;
    for (let v = 0; v < p.vectors; v++) cpuFlagged += ref.unproven[v]!;
    assert.ok(
      Math.abs(flagged - cpuFlagged) <= p.vectors / 100,
      msg(`${mapping}: ${flagged} flagged, CPU ${cpuFlagged}`),
    );
  }
  const ctx = CudaContext.get(0);
  const con = constellation('64qam');
  assert.throws(
    () =>
      createPsdPlan(ctx, {
        nr: 4,
        nt: 4,
        modulation: '64qam',
        constellation: con,
        opts: { detector: 'psd', modulation: '64qam', psd: { levels: [9, 4, 1], paths: [1, 2] } },
        soft: false,
        maxNodes: DEFAULT_MAX_NODES,
        llrClip: 0,
        vectorsPerChannel: 1,
        device: { ...ctx.props, sharedPerBlockOptinBytes: 100_000 },
      }),
    (e: Error) => e.name === 'UnsupportedError' && /shared memory/.test(e.message),
  );
});

test("detectAsync(engine cuda) runs psd on the GPU: the CPU engine's decisions and nodes, both mappings, float32 input, budget and singular channels as on the CPU", {
  skip,
}, async () => {
  const rng = new Philox(seed, 40);
  const p = problem(rng, 4, 4, '16qam', 10, 300, 14);
  const input = { nt: 4, nr: 4, H: p.H, y: p.y, vectorsPerChannel: 14, noiseVar: p.noiseVar };
  const cpu = detect(input, { detector: 'psd', modulation: '16qam' });
  for (const gpuMapping of ['warp', 'block'] as const) {
    for (const f32 of [false, true]) {
      const inp = f32 ? { ...input, H: new Float32Array(p.H), y: new Float32Array(p.y) } : input;
      const gpu = await detectAsync(inp, { detector: 'psd', modulation: '16qam', engine: 'cuda', psd: { gpuMapping } });
      assert.equal(gpu.stats.engine, 'cuda');
      const { ties } = compareMl(p, cpu.symbols, gpu.symbols, `detectAsync ${gpuMapping}${f32 ? ' float32' : ''}`);
      assert.ok(ties <= 2, msg(`${ties} near-ties`));
      const dn = Math.abs(gpu.stats.nodesVisited! - cpu.stats.nodesVisited!) / cpu.stats.nodesVisited!;
      assert.ok(
        dn < 0.01,
        msg(`nodes visited ${gpu.stats.nodesVisited} on the GPU, ${cpu.stats.nodesVisited} on the CPU`),
      );
    }
  }
  // Node budget: 'flag' marks the vectors the CPU marks (but for float32 near-ties), 'error' throws.
  const budget = { detector: 'psd' as const, modulation: '16qam' as const, maxNodes: 300 };
  const cpuB = detect(input, { ...budget, onBudget: 'flag' });
  const gpuB = await detectAsync(input, { ...budget, onBudget: 'flag', engine: 'cuda' });
  let diff = 0;
  for (let v = 0; v < p.vectors; v++) diff += Number((cpuB.unproven?.[v] ?? 0) !== (gpuB.unproven?.[v] ?? 0));
  assert.ok(
    cpuB.stats.budgetExceeded! > 0 && diff <= p.vectors / 200,
    msg(`budget: CPU ${cpuB.stats.budgetExceeded} unproven, GPU ${gpuB.stats.budgetExceeded}, ${diff} differ`),
  );
  await assert.rejects(detectAsync(input, { ...budget, engine: 'cuda' }), (e: Error) => e.name === 'NodeBudgetError');
  // A singular channel: the CPU redo raises the CPU engine's RankDeficientError.
  const H2 = p.H.slice();
  for (let i = 0; i < 4; i++) {
    H2[2 * (3 * 16 + i + 4)] = 0;
    H2[2 * (3 * 16 + i + 4) + 1] = 0;
  }
  await assert.rejects(
    detectAsync({ ...input, H: H2 }, { detector: 'psd', modulation: '16qam', engine: 'cuda' }),
    (e: Error) => e.name === 'RankDeficientError',
  );
  // A bad mapping name is the CPU's typed error on either engine.
  await assert.rejects(
    detectAsync(input, {
      detector: 'psd',
      modulation: '16qam',
      engine: 'cuda',
      psd: { gpuMapping: 'thread' as 'warp' },
    }),
    (e: Error) => e.name === 'InvalidArgumentError',
  );
});

test('psd.gpuMapping is validated on the CPU engine too (InvalidArgumentError naming the choices)', () => {
  const rng = new Philox(seed, 41);
  const p = problem(rng, 2, 2, 'qpsk', 10, 2, 1);
  assert.throws(
    () =>
      detect(
        { nt: 2, nr: 2, H: p.H, y: p.y, noiseVar: p.noiseVar },
        { detector: 'psd', modulation: 'qpsk', psd: { gpuMapping: 'grid' as 'warp' } },
      ),
    (e: Error) => e.name === 'InvalidArgumentError' && /warp, block/.test(e.message),
  );
  const r = detect(
    { nt: 2, nr: 2, H: p.H, y: p.y, noiseVar: p.noiseVar },
    { detector: 'psd', modulation: 'qpsk', psd: { gpuMapping: 'block' } },
  );
  assert.equal(r.symbols.length, 4);
});
