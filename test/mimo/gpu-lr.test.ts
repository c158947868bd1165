/**
 * The lattice-aided detectors on the GPU (lr-zf, lr-mmse, lr-sic) on fresh random problems
 * (Rayleigh channels, uniform symbols, noise at low / middle / high SNR; 2x2, 4x4, 8x8; QPSK to
 * 64-QAM). The GPU's all-swap LLL in float32 may reduce a channel to another basis than the CPU's
 * sequential LLL in float64 (both LLL-reduced, delta 0.75), and then decisions may legitimately
 * differ. So the rule asserted is:
 *  1. every Z the GPU used is unimodular and B Z is LLL-reduced (delta 0.75, eta 0.51, checked in
 *     float64 within LLL_TOL);
 *  2. with that Z, the GPU's decisions equal the float64 lattice-aided detection (lattice-aided.ts's
 *     steps, here replayed with the GPU's Z; the replay gives the CPU engine's decisions with the
 *     CPU's Z, checked too) except near-ties: vectors where some rounding argument lies within
 *     ROUND_TOL (relative to its terms) of a half-integer; counted, at most 0.5% of the vectors;
 *  3. where the GPU's Z is the CPU's, decisions equal the CPU engine's (except those near-ties),
 *     and over all vectors the GPU's bit errors are not systematically above the CPU engine's on
 *     the same data (a paired per-channel test, assertBerNotWorse).
 * The kernels run on the device, or on this CPU through the CUDA emulator (a smaller run, for CI).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { CudaContext } from '../../src/gpu/index.js';
import { checkLLL, checkUnimodular } from '../../src/lattice/check.js';
import { qrInto } from '../../src/mimo/preprocess/qr.js';
import {
  fillRealMatrix,
  naturalDimOrder,
  realModel,
  symbolsOfLevels,
  type RealModel,
} from '../../src/mimo/soft/real-model.js';
import { LrPrepScratch, prepareLr, reducedFilter, type LrVariant } from '../../src/mimo/detectors/lr/lattice-aided.js';
import { lrDetector } from '../../src/mimo/detectors/lr/detector.js';
import { lrCudaDetector, lrShape } from '../../src/mimo/detectors/lr/cuda.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import type { Modulation } from '../../src/mimo/types.js';
import { compileEmulated, runEmulated } from '../gpu/cuda-emulator.js';
import { cutOutput, gpuTestEnv, stdinOf } from './gpu-test-env.js';
import { emulatedH100 } from '../gpu/emulated-device.js';
import {
  bitErrors,
  cpuSetup,
  differingVectors,
  gpuSetup,
  makeProblem,
  runCpu,
  runGpu,
  type Problem,
} from './kbest-lr-harness.js';

const { skip, skipEmu } = gpuTestEnv();
const VECTORS = Number(process.env.MIMO_GPU_VECTORS ?? 3000);
const LLL_TOL = 1e-4;
const ROUND_TOL = 2 ** -16;
const VARIANTS: LrVariant[] = ['zf', 'mmse', 'sic'];

/** The float64 basis B (nb x nd) and constant part of one channel, as prepareLr builds them. */
function basisOf(
  m: RealModel,
  variant: LrVariant,
  H: Float64Array,
  hOff: number,
  noiseVar: number,
): { B: Float64Array; cst: Float64Array; nb: number } {
  const { rows, nd, q } = m;
  const ext = variant !== 'zf';
  const nb = ext ? rows + nd : rows;
  const Ha = fillRealMatrix(m, H, hOff, naturalDimOrder(m), new Float64Array(rows * nd));
  const beta = ext ? Math.sqrt(noiseVar / 2 / m.levelEnergy) : 0;
  const B = new Float64Array(nb * nd),
    cst = new Float64Array(nb);
  for (let k = 0; k < nd; k++) {
    for (let r = 0; r < rows; r++) {
      B[r + k * nb] = 2 * Ha[r + k * rows]!;
      cst[r] += (q - 1) * Ha[r + k * rows]!;
    }
    if (ext) {
      B[rows + k + k * nb] = 2 * beta;
      cst[rows + k] = (q - 1) * beta;
    }
  }
  return { B, cst, nb };
}

const mulZ = (B: Float64Array, Z: ArrayLike<number>, nb: number, nd: number): Float64Array => {
  const out = new Float64Array(nb * nd);
  for (let j = 0; j < nd; j++)
    for (let r = 0; r < nb; r++) {
      let a = 0;
      for (let k = 0; k < nd; k++) a += B[r + k * nb]! * Z[k + j * nd]!;
      out[r + j * nb] = a;
    }
  return out;
};

/**
 * Lattice-aided detection in float64 with a given Z (lattice-aided.ts's prepareLr after its LLL,
 * then detectLr), with each vector's least relative distance of a rounding argument to a half-integer.
 */
function replay(
  p: Problem,
  variant: LrVariant,
  Zs: (c: number) => ArrayLike<number>,
): { symbols: Int32Array; margin: Float64Array } {
  const m = realModel(cpuSetup(p, {}, false).constellation, p.nt, p.nr);
  const { rows, nd, q } = m;
  const vectors = p.channels * p.vpc;
  const symbols = new Int32Array(vectors * p.nt),
    margin = new Float64Array(vectors).fill(Infinity);
  const t = new Float64Array(nd),
    scaleT = new Float64Array(nd),
    x = new Float64Array(nd),
    u = new Int32Array(nd);
  for (let c = 0; c < p.channels; c++) {
    const noise = p.noise[c * p.vpc]!;
    const { B, cst, nb } = basisOf(m, variant, p.H, c * 2 * p.nr * p.nt, noise);
    const Z = Zs(c);
    const Qb = new Float64Array(nb * nd),
      R = new Float64Array(nd * nd);
    qrInto(mulZ(B, Z, nb, nd), 0, nb, nd, 'none', Qb, R, new Int32Array(nd));
    const { P, p0 } = reducedFilter(Qb, R, cst, nb, nd, rows, variant);
    for (let v = c * p.vpc; v < (c + 1) * p.vpc; v++) {
      for (let k = 0; k < nd; k++) {
        t[k] = p0[k]!;
        scaleT[k] = Math.abs(p0[k]!);
      }
      for (let r = 0; r < rows; r++) {
        const yr = p.y[v * rows + r]!;
        for (let k = 0; k < nd; k++) {
          t[k] += P[k + r * nd]! * yr;
          scaleT[k] += Math.abs(P[k + r * nd]! * yr);
        }
      }
      let mg = Infinity;
      const dist = (a: number, s: number): number => Math.abs(a - (Math.floor(a) + 0.5)) / (1 + s);
      if (variant === 'sic') {
        for (let i = nd - 1; i >= 0; i--) {
          let b = t[i]!,
            s = scaleT[i]!;
          for (let j = i + 1; j < nd; j++) {
            b -= R[i + j * nd]! * x[j]!;
            s += Math.abs(R[i + j * nd]! * x[j]!);
          }
          const a = b / R[i + i * nd]!;
          mg = Math.min(mg, dist(a, s / R[i + i * nd]!));
          x[i] = Math.round(a);
        }
      } else {
        for (let k = 0; k < nd; k++) {
          mg = Math.min(mg, dist(t[k]!, scaleT[k]!));
          x[k] = Math.round(t[k]!);
        }
      }
      for (let i = 0; i < nd; i++) {
        let a = 0;
        for (let k = 0; k < nd; k++) a += Z[i + k * nd]! * x[k]!;
        u[i] = a < 0 ? 0 : a > q - 1 ? q - 1 : a;
      }
      symbolsOfLevels(m, u, 0, naturalDimOrder(m), symbols, v * p.nt);
      margin[v] = mg;
    }
  }
  return { symbols, margin };
}

/** The CPU engine's own Z of each channel (its prepareLr). */
function cpuZ(p: Problem, variant: LrVariant): Float64Array[] {
  const m = realModel(cpuSetup(p, {}, false).constellation, p.nt, p.nr);
  const sc = new LrPrepScratch(m, variant);
  return Array.from({ length: p.channels }, (_, c) => prepareLr(sc, p.H, c * 2 * p.nr * p.nt, p.noise[c * p.vpc]!).Z);
}

/**
 * The GPU's bit errors are not systematically above the CPU engine's on the same data: errors
 * cluster in channels (a channel's basis serves its vectors), so the paired per-channel difference
 * d_c = gpu_c - cpu_c is tested, one-sided at 4 standard errors: mean(d) <= 4 sd(d) / sqrt(C) + 1/C.
 */
function assertBerNotWorse(p: Problem, gpu: Int32Array, cpu: Int32Array, label: string): void {
  const bps = realModel(cpuSetup(p, {}, false).constellation, p.nt, p.nr).bitsPerSymbol;
  const per = p.vpc * p.nt;
  const d = Array.from(
    { length: p.channels },
    (_, c) =>
      bitErrors(gpu.subarray(c * per, (c + 1) * per), p.sent.subarray(c * per, (c + 1) * per), bps) -
      bitErrors(cpu.subarray(c * per, (c + 1) * per), p.sent.subarray(c * per, (c + 1) * per), bps),
  );
  const C = d.length,
    mean = d.reduce((a, b) => a + b, 0) / C;
  const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, C - 1));
  assert.ok(
    mean <= (4 * sd) / Math.sqrt(C) + 1 / C,
    `${label}: the GPU makes ${mean} more bit errors a channel than the CPU engine (sd ${sd}, ${C} channels)`,
  );
}

interface LrComparison {
  vectors: number;
  nearTies: number;
  replayDiffer: number;
  sameZ: number;
  cpuDiffer: number;
  bits: number;
  gpuErrors: number;
  cpuErrors: number;
}

function compare(
  p: Problem,
  variant: LrVariant,
  gpu: { symbols: Int32Array; status: Int32Array; Z: (c: number) => ArrayLike<number> },
  label: string,
): LrComparison {
  const m = realModel(cpuSetup(p, {}, false).constellation, p.nt, p.nr);
  const { nd } = m;
  const vectors = p.channels * p.vpc;
  for (let v = 0; v < vectors; v++)
    assert.equal(gpu.status[2 * v], 0, `${label}: vector ${v} flagged ${gpu.status[2 * v]}`);
  // 1. Z unimodular, B Z LLL-reduced
  let sameZ = 0;
  const zc = cpuZ(p, variant);
  for (let c = 0; c < p.channels; c++) {
    const Z = Float64Array.from(gpu.Z(c));
    assert.ok(checkUnimodular(Z, nd).ok, `${label}: channel ${c}: Z is not unimodular`);
    const { B, nb } = basisOf(m, variant, p.H, c * 2 * p.nr * p.nt, p.noise[c * p.vpc]!);
    const chk = checkLLL(mulZ(B, Z, nb, nd), nb, nd, 0.75, 0.51, LLL_TOL);
    assert.ok(chk.ok, `${label}: channel ${c}: B Z is not LLL-reduced: ${chk.violations.join('; ')}`);
    if (Z.every((z, i) => z === zc[c]![i])) sameZ++;
  }
  // 2. the float64 replay with the GPU's Z; the replay with the CPU's Z is the CPU engine
  const cpu = runCpu(lrDetector(variant), cpuSetup(p, { detector: `lr-${variant}` }, false), p);
  const own = replay(p, variant, (c) => zc[c]!);
  assert.deepEqual(
    differingVectors(own.symbols, cpu.symbols, p.nt),
    [],
    `${label}: the float64 replay is not the CPU engine`,
  );
  const rep = replay(p, variant, gpu.Z);
  const diff = differingVectors(rep.symbols, gpu.symbols, p.nt);
  let nearTies = 0;
  for (let v = 0; v < vectors; v++) if (rep.margin[v]! <= ROUND_TOL) nearTies++;
  for (const v of diff)
    assert.ok(
      rep.margin[v]! <= ROUND_TOL,
      `${label}: vector ${v} differs from the float64 replay of its Z without a near-tie (margin ${rep.margin[v]})`,
    );
  assert.ok(
    diff.length <= Math.max(2, 0.005 * vectors),
    `${label}: ${diff.length} of ${vectors} vectors differ from the float64 replay`,
  );
  // 3. against the CPU engine: same Z, same decisions (but near-ties); BER within a margin
  const cpuDiff = differingVectors(cpu.symbols, gpu.symbols, p.nt);
  for (const v of cpuDiff) {
    const c = Math.floor(v / p.vpc);
    const same = Float64Array.from(gpu.Z(c)).every((z, i) => z === zc[c]![i]);
    assert.ok(
      !same || rep.margin[v]! <= ROUND_TOL,
      `${label}: vector ${v} differs from the CPU engine with the CPU's Z`,
    );
  }
  const bps = m.bitsPerSymbol,
    bits = vectors * p.nt * bps;
  const gpuErrors = bitErrors(gpu.symbols, p.sent, bps),
    cpuErrors = bitErrors(cpu.symbols, p.sent, bps);
  assertBerNotWorse(p, gpu.symbols, cpu.symbols, label);
  return { vectors, nearTies, replayDiffer: diff.length, sameZ, cpuDiffer: cpuDiff.length, bits, gpuErrors, cpuErrors };
}

const line = (label: string, r: LrComparison, channels: number): string =>
  `${label}: ${r.vectors} vectors; same Z as the CPU on ${r.sameZ}/${channels} channels; ${r.cpuDiffer} vectors differ from the CPU engine, ${r.replayDiffer} from the float64 replay (${r.nearTies} near-ties); BER GPU ${(r.gpuErrors / r.bits).toExponential(3)} CPU ${(r.cpuErrors / r.bits).toExponential(3)}`;

// ---------------------------------------------------------------------------------------------
// On the device

test("lr-zf, lr-mmse, lr-sic on the GPU: reduced bases, the float64 replay of their Z, the CPU engine's BER", {
  skip,
}, () => {
  const ctx = CudaContext.get(0);
  let seed = Date.now() % 1e9;
  const lines: string[] = [];
  for (const n of [2, 4, 8])
    for (const mod of ['qpsk', '16qam', '64qam'] as Modulation[])
      for (const snr of [5, 15, 28])
        for (const variant of VARIANTS) {
          const vpc = 14;
          // not a multiple of 32 channels: the LLL's last partial block
          const channels = Math.ceil(VECTORS / (n === 8 ? 2 : 1) / vpc) | 1;
          const p = makeProblem(seed++, n, n, mod, channels, vpc, snr);
          const det = lrCudaDetector(variant);
          const gpu = runGpu(ctx, det, gpuSetup(ctx, p, { detector: `lr-${variant}` }, false), p);
          const nd = 2 * n;
          const zBytes = gpu.scratch[2]!;
          const Zall = new Float64Array(zBytes.buffer, zBytes.byteOffset, zBytes.byteLength / 8);
          const per = lrShape(variant, gpuSetup(ctx, p, {}, false)).scratchBytesPerChannel[2]! / 8;
          const label = `lr-${variant} ${n}x${n} ${mod} ${snr} dB (seed ${seed - 1})`;
          const r = compare(
            p,
            variant,
            { symbols: gpu.symbols, status: gpu.status, Z: (c) => Zall.subarray(c * per, c * per + nd * nd) },
            label,
          );
          lines.push(line(label, r, channels));
        }
  console.log(lines.join('\n'));
});

test('lr on the GPU: flagged vectors skipped, a singular channel is RANK_DEFICIENT, another N0 within a channel goes to the CPU', {
  skip,
}, () => {
  const ctx = CudaContext.get(0);
  for (const variant of VARIANTS) {
    const p = makeProblem(Date.now() % 1e9, 4, 4, '16qam', 40, 3, 15);
    const hLen = 2 * p.nr * p.nt;
    for (let i = 0; i < 2 * p.nr; i++) p.H[5 * hLen + i] = 0; // channel 5: stream 0 silent
    p.noise[3 * p.vpc + 1] = p.noise[3 * p.vpc + 1]! * 2; // channel 3: its second vector another N0
    const statusIn = new Int32Array(2 * p.channels * p.vpc);
    statusIn[2 * 10] = MIMO_STATUS.Y_TOO_LARGE;
    const gpu = runGpu(
      ctx,
      lrCudaDetector(variant),
      gpuSetup(ctx, p, { detector: `lr-${variant}` }, false),
      p,
      statusIn,
    );
    for (let v = 0; v < p.channels * p.vpc; v++) {
      const c = Math.floor(v / p.vpc);
      const want =
        v === 10
          ? MIMO_STATUS.Y_TOO_LARGE
          : c === 5 && variant === 'zf'
            ? MIMO_STATUS.RANK_DEFICIENT
            : v === 3 * p.vpc + 1 && variant !== 'zf'
              ? MIMO_STATUS.FLOAT32_UNSAFE
              : 0;
      assert.equal(gpu.status[2 * v], want, `lr-${variant} vector ${v}`);
    }
  }
});

// ---------------------------------------------------------------------------------------------
// In the CUDA emulator (no GPU needed)

/**
 * The four launches of cuda.ts's enqueue, the LLL through the generic lane kernel (whole blocks of
 * L bases, then a block of the rest, as the host does when the workspace is in global scratch).
 * Header ints [channels, vpc, L, sharedPerBasis, wsPerBasis, zs, bs, maxIter], doubles [delta, bound, scale], then H, y, noise.
 */
const LR_MAIN = String.raw`
int main() {
  int h[8]; double d[3];
  if (fread(h, 4, 8, stdin) != 8 || fread(d, 8, 3, stdin) != 3) return 1;
  const int channels = h[0], vpc = h[1], L = h[2], shPer = h[3], wsPer = h[4], zs = h[5], bs = h[6], maxIter = h[7];
  const int vectors = channels * vpc;
  std::vector<float> H((size_t)channels * 2 * NR * NT), y((size_t)vectors * ROWS), noise(vectors);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size() || fread(noise.data(), 4, noise.size(), stdin) != noise.size()) return 1;
  std::vector<float> Bin((size_t)channels * NB * ND), Bout(Bin.size()), P((size_t)channels * ND * ROWS), p0((size_t)channels * ND), R((size_t)channels * ND * ND), Zf(R.size());
  std::vector<double> Z((size_t)channels * ND * ND, -1e30);
  std::vector<int> st((size_t)channels * 5), fl(channels, -1), sym((size_t)vectors * NT, -1), status((size_t)vectors * 2, 0);
  std::vector<unsigned char> ws((size_t)channels * wsPer + 16, 0xff);
  if (emu_launch((channels + 63) / 64, dim3{64, 1, 1}, 0, [&] { lr_basis(H.data(), noise.data(), Bin.data(), channels, vpc, d[2]); })) return 2;
  const int full = channels / L * L, rest = channels - full;
  if (full > 0 && emu_launch(full / L, dim3{(unsigned)L, 1, 1}, (size_t)shPer * L, [&] {
    allswap_lane(Bin.data(), Bout.data(), Z.data(), ws.data(), st.data(), NB, ND, maxIter, d[0], d[1], zs, bs, full); })) return 2;
  if (rest > 0 && emu_launch(1, dim3{(unsigned)rest, 1, 1}, (size_t)shPer * rest, [&] {
    allswap_lane(Bin.data() + (size_t)full * NB * ND, Bout.data() + (size_t)full * NB * ND, Z.data() + (size_t)full * ND * ND, ws.data() + (size_t)full * wsPer, st.data() + (size_t)full * 5, NB, ND, maxIter, d[0], d[1], zs, bs, rest); })) return 2;
  if (emu_launch((channels + 63) / 64, dim3{64, 1, 1}, 0, [&] { lr_filter(H.data(), noise.data(), Z.data(), st.data(), P.data(), p0.data(), R.data(), Zf.data(), fl.data(), channels, vpc, d[2]); })) return 2;
  if (emu_launch((vectors + 127) / 128, dim3{128, 1, 1}, 0, [&] { lr_detect(y.data(), noise.data(), P.data(), p0.data(), R.data(), Zf.data(), fl.data(), sym.data(), status.data(), vectors, vpc); })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(status.data(), 4, status.size(), stdout);
  fwrite(Z.data(), 8, Z.size(), stdout);
  return 0;
}
`;

function runLrEmulated(
  p: Problem,
  variant: LrVariant,
  memory: 'shared' | 'global',
): { symbols: Int32Array; status: Int32Array; Z: (c: number) => Float64Array } {
  const setup = { ...cpuSetup(p, { detector: `lr-${variant}` }, false), llrClip: 8, device: emulatedH100() };
  const sh = lrShape(variant, setup);
  const { nd } = sh.model;
  // the generic lane kernel, its workspace where asked
  const zB = nd * nd * 8,
    bB = (2 * sh.nb * nd + nd) * 4;
  const zs = memory === 'shared' ? 1 : 0,
    bs = zs;
  const shPer = (zs ? zB : 0) + (bs ? bB : 0),
    wsPer = (zs ? 0 : zB) + (bs ? 0 : bB);
  const defines = [
    ...Object.entries(sh.defines).map(([k, v]) => `-D${k}=${v}`),
    `-DSYM_OF_LEVELS={${Array.from(sh.model.symbolOfLevels).join(',')}}`,
    '-DREAL=float',
  ];
  const files = [
    fileURLToPath(new URL('../../src/lattice/allswap/lane-kernel.cu', import.meta.url)),
    ...['lr-basis.cu', 'lr-filter.cu', 'lr-detect.cu'].map((f) =>
      fileURLToPath(new URL(`../../src/mimo/detectors/lr/${f}`, import.meta.url)),
    ),
  ];
  const { exe, error } = compileEmulated(LR_MAIN, files, defines);
  if (error) throw new Error(error);
  const vectors = p.channels * p.vpc;
  const head = new ArrayBuffer(8 * 4 + 3 * 8);
  const dv = new DataView(head);
  [p.channels, p.vpc, 32, shPer, wsPer, zs, bs, Number(sh.lll.launch.extraArgs[0])].forEach((x, i) => {
    dv.setInt32(4 * i, x, true);
  });
  [Number(sh.lll.launch.extraArgs[1]), Number(sh.lll.launch.extraArgs[2]), sh.model.scale].forEach((x, i) => {
    dv.setFloat64(32 + 8 * i, x, true);
  });
  const parts = [new Uint8Array(head), Float32Array.from(p.H), Float32Array.from(p.y), Float32Array.from(p.noise)];
  const out = runEmulated(exe, stdinOf(parts));
  const [symbols, status, Z] = cutOutput(out, [
    ['i32', vectors * p.nt],
    ['i32', 2 * vectors],
    ['f64', p.channels * nd * nd],
  ]);
  return { symbols, status, Z: (c) => Z.subarray(c * nd * nd, (c + 1) * nd * nd) };
}

test("lr kernels and the all-swap LLL in the CUDA emulator: reduced bases, the float64 replay, the CPU engine's BER", {
  skip: skipEmu,
}, () => {
  let seed = Date.now() % 1e9;
  const cases: Array<[number, Modulation, number, LrVariant, 'shared' | 'global']> = [
    [4, '16qam', 15, 'zf', 'global'],
    [4, '16qam', 8, 'mmse', 'shared'],
    [4, '64qam', 25, 'sic', 'global'],
    [2, 'qpsk', 5, 'mmse', 'global'],
    [2, 'bpsk', 6, 'sic', 'shared'],
    [8, '16qam', 18, 'zf', 'global'],
  ];
  for (const [n, mod, snr, variant, memory] of cases) {
    const p = makeProblem(seed++, n, n, mod, 37, 4, snr);
    const label = `emulated lr-${variant} ${n}x${n} ${mod} ${snr} dB ${memory} (seed ${seed - 1})`;
    const r = compare(p, variant, runLrEmulated(p, variant, memory), label);
    if (process.env.LR_DEBUG) console.log(line(label, r, p.channels));
  }
});

// ---------------------------------------------------------------------------------------------
// End to end through detectAsync (the GPU engine: normalize kernel, chunks, status words)

test("lr-* through detectAsync on the GPU engine: BER beside the CPU engine's; another N0 within a channel is redone on the CPU", {
  skip,
}, async () => {
  const { detectAsync } = await import('../../src/mimo/detect-async.js');
  const { detect } = await import('../../src/mimo/detect.js');
  for (const variant of VARIANTS) {
    const p = makeProblem(Date.now() % 1e9, 4, 4, '16qam', 401, 14, 16);
    const H = Float32Array.from(p.H, (x) => x * 1.7),
      y = Float32Array.from(p.y, (x) => x * 1.7);
    const noiseVar = Float64Array.from(p.noise, (x) => Math.fround(x * 1.7 * 1.7));
    noiseVar[14 * 3 + 2] = noiseVar[14 * 3 + 2]! * 1.5;
    const opts = { detector: `lr-${variant}` as const, modulation: '16qam' as const };
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
    if (variant !== 'zf') {
      assert.ok(
        (gpu.stats.redoneOnCpu ?? 0) >= 1,
        `lr-${variant}: the vector with its own N0 was not redone on the CPU`,
      );
      assert.deepEqual([...gpu.symbols.subarray(4 * 44, 4 * 45)], [...cpu.symbols.subarray(4 * 44, 4 * 45)]);
    }
    const bits = 401 * 14 * 16;
    const ge = bitErrors(gpu.symbols, p.sent, 4),
      ce = bitErrors(cpu.symbols, p.sent, 4);
    const diff = differingVectors(cpu.symbols, gpu.symbols, 4).length;
    console.log(
      `detectAsync lr-${variant} 4x4 16qam 16 dB: ${diff} of ${401 * 14} vectors differ from the CPU engine; BER GPU ${(ge / bits).toExponential(3)} CPU ${(ce / bits).toExponential(3)}`,
    );
    assertBerNotWorse(p, gpu.symbols, cpu.symbols, `lr-${variant}`);
  }
});
