/**
 * The engine's normalize and summary stages done inside a detector's kernels (CudaDetectorPlan's
 * fuses: qr-batch.cu normalizes its block's channels before it factors them, nway-detect.cu adds
 * each vector to its channel's summary) against the same stages as kernels of their own
 * (normalize.cu, then the plan, then status-summary.cu): every output, bit for bit. Fresh random
 * channels of scales from 2^-60 to 2^60, some with a non-finite entry, vectors that overflow once
 * scaled or hold NaN, N0 per vector or one for all (some zero or non-finite), a padded last
 * channel; 2x2 to 4x4, BPSK to 64-QAM, N = 1 to nt, several vectors a channel and one (z records).
 * The same for PSD (psd-prep.cu normalizes, psd-warp.cu / psd-block.cu add to the summaries). In the
 * CUDA emulator (skips without g++) and on the GPU (skips without a device), where every fusing
 * detector's results through the engine also equal its results with the stages as kernels of their own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { cudaAvailable, CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream } from '../../src/gpu/stream.js';
import { NWAY_DETECT_URL, NwayPlan, nwayDefines, nwayLaunchShape } from '../../src/mimo/detectors/nway/cuda.js';
import {
  psdAutoLanes,
  psdBlockSharedBytes,
  psdBlockThreads,
  psdDefines,
  psdFactorWords,
  psdPrepLanes,
  psdWarpSharedBytes,
} from '../../src/mimo/detectors/psd/cuda.js';
import { psdConfig } from '../../src/mimo/detectors/psd/config.js';
import { enqueueNormalize, enqueueSummary } from '../../src/mimo/gpu/detect-batch.js';
import {
  QR_BATCH_URL,
  qrBatchDefines,
  qrBatchSharedBytes,
  qrGroupsPerBlock,
  qrRecordLayout,
} from '../../src/mimo/gpu/preprocess/qr-batch.js';
import { MIMO_STATUS, STATUS_WORDS, SUMMARY_WORDS } from '../../src/mimo/gpu/status.js';
import { constellation } from '../../src/mimo/modulation.js';
import { detectorRealModel, type RealModel } from '../../src/mimo/soft/real-model.js';
import { realModel } from '../../src/mimo/preprocess/real-system.js';
import type { Modulation } from '../../src/mimo/types.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';
import { emulatorShims } from './nway-emulation.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const cuda = cudaAvailable();
const skipGpu = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

interface Case {
  nr: number;
  nt: number;
  mod: Modulation;
  passes: number;
  channels: number;
  vpc: number;
  soft: boolean;
}

interface Input {
  c: Case;
  m: RealModel;
  H: Float32Array;
  y: Float32Array;
  noise: Float32Array | null;
  noiseScalar: number;
  /** Real vectors (the last channel padded past them). */
  valid: number;
  clip: number;
}

/** A float32 of random sign, mantissa and an exponent in [e - 4, e]. */
const draw = (rng: Philox, e: number): number =>
  Math.fround((rng.uniform() < 0.5 ? -1 : 1) * (1 + rng.uniform()) * 2 ** (e - randomInt(5)));

function makeInput(c: Case, seed: number): Input {
  const m = detectorRealModel('nway', constellation(c.mod), c.nt, c.nr);
  const rng = new Philox(seed);
  const hLen = 2 * c.nr * c.nt,
    yLen = 2 * c.nr,
    vectors = c.channels * c.vpc;
  const H = new Float32Array(c.channels * hLen),
    y = new Float32Array(vectors * yLen);
  for (let ch = 0; ch < c.channels; ch++) {
    const e = -60 + randomInt(121);
    for (let i = 0; i < hLen; i++) H[ch * hLen + i] = draw(rng, e);
    if (randomInt(8) === 0) H[ch * hLen + randomInt(hLen)] = [NaN, Infinity, -Infinity][randomInt(3)]!;
    for (let k = 0; k < c.vpc; k++) {
      // near the channel's scale; now and then far above it (overflows once scaled) or NaN
      const ye = randomInt(8) === 0 ? Math.min(127, e + 100 + randomInt(40)) : e + 1;
      for (let i = 0; i < yLen; i++) y[(ch * c.vpc + k) * yLen + i] = draw(rng, ye);
      if (randomInt(12) === 0) y[(ch * c.vpc + k) * yLen + randomInt(yLen)] = NaN;
    }
  }
  const n0 = (): number =>
    randomInt(16) === 0 ? [0, NaN, Infinity][randomInt(3)]! : Math.fround(10 ** (-2 + 3 * rng.uniform()));
  const noise = randomInt(2) === 0 ? Float32Array.from({ length: vectors }, n0) : null;
  return {
    c,
    m,
    H,
    y,
    noise,
    noiseScalar: Math.fround(0.05 + rng.uniform()),
    valid: vectors - randomInt(c.vpc),
    clip: 8,
  };
}

/** One pipeline's outputs, in this order; each as raw bytes. */
const PARTS = ['H', 'y', 'noise', 'status', 'records', 'symbols', 'llr', 'summary'] as const;
type Outputs = Record<(typeof PARTS)[number], Uint8Array>;

function sizes(inp: Input): Record<(typeof PARTS)[number], number> {
  const { c, m } = inp;
  const vectors = c.channels * c.vpc;
  return {
    H: 8 * c.nr * c.nt * c.channels,
    y: 8 * c.nr * vectors,
    noise: 4 * vectors,
    status: 4 * STATUS_WORDS * vectors,
    records: 4 * c.channels * c.passes * qrRecordLayout(c.nr, c.nt, m.dimsPerStream, c.vpc === 1).floats,
    symbols: 4 * vectors * c.nt,
    llr: 4 * vectors * c.nt * m.bitsPerSymbol,
    summary: 4 * SUMMARY_WORDS * c.channels,
  };
}

/** Emulated program: both pipelines on the same input, the separate stages' outputs then the fused ones'. */
const MAIN = String.raw`
int main() {
  int h[10]; float fp[3];
  if (fread(h, 4, 10, stdin) != 10 || fread(fp, 4, 3, stdin) != 3) return 1;
  const int channels = h[0], vpc = h[1], qt = h[2], qs = h[3], nwt = h[4], nws = h[5], valid = h[6], perVector = h[7], soft = h[8], recFloats = h[9];
  const int vectors = channels * vpc, problems = channels * QR_PASSES, hLen = 2 * QR_NR * QR_NT, yLen = 2 * QR_NR;
  std::vector<float> H((size_t)channels * hLen), y((size_t)vectors * yLen), noiseIn(perVector ? vectors : 1);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()) return 1;
  if (perVector && fread(noiseIn.data(), 4, vectors, stdin) != (size_t)vectors) return 1;
  const float* nIn = perVector ? noiseIn.data() : nullptr;
  for (int fused = 0; fused < 2; fused++) {
    std::vector<float> Hc = H, yc = y, noise(vectors, -5.f), rec((size_t)problems * recFloats, -777.f), llr((size_t)vectors * NW_NBITS, -999.f);
    std::vector<int> status((size_t)vectors * 2, -7), sym((size_t)vectors * NW_NT, -1), summary((size_t)channels * 4, -7);
    const unsigned qg = (problems + QR_GROUPS - 1) / QR_GROUPS, ng = (vectors + NW_VPB - 1) / NW_VPB;
    if (!fused) {
      if (emu_launch((channels + 3) / 4, dim3{128, 1, 1}, 0, [&] { mimo_normalize(Hc.data(), yc.data(), nIn, fp[2], noise.data(), status.data(), nullptr, channels, vpc, hLen, yLen, valid); })) return 2;
      if (emu_launch(qg, dim3{(unsigned)qt, 1, 1}, qs, [&] { qr_batch(Hc.data(), yc.data(), rec.data(), problems, fp[1], nullptr, 0.f, nullptr, nullptr, nullptr, 0, 0LL); })) return 2;
      if (emu_launch(ng, dim3{(unsigned)nwt, 1, 1}, nws, [&] { nway_detect(yc.data(), noise.data(), rec.data(), sym.data(), soft ? llr.data() : nullptr, status.data(), vectors, vpc, fp[0], nullptr, 0LL, nullptr); })) return 2;
      if (emu_launch((channels + 3) / 4, dim3{128, 1, 1}, 0, [&] { mimo_status_summary(status.data(), summary.data(), channels, vpc, valid); })) return 2;
    } else {
      if (emu_launch(qg, dim3{(unsigned)qt, 1, 1}, qs, [&] { qr_batch(Hc.data(), yc.data(), rec.data(), problems, fp[1], nIn, fp[2], noise.data(), status.data(), summary.data(), vpc, valid); })) return 2;
      if (emu_launch(ng, dim3{(unsigned)nwt, 1, 1}, nws, [&] { nway_detect(yc.data(), noise.data(), rec.data(), sym.data(), soft ? llr.data() : nullptr, status.data(), vectors, vpc, fp[0], summary.data(), (long long)valid, nullptr); })) return 2;
    }
    fwrite(Hc.data(), 4, Hc.size(), stdout); fwrite(yc.data(), 4, yc.size(), stdout); fwrite(noise.data(), 4, noise.size(), stdout);
    fwrite(status.data(), 4, status.size(), stdout); fwrite(rec.data(), 4, rec.size(), stdout); fwrite(sym.data(), 4, sym.size(), stdout);
    fwrite(llr.data(), 4, llr.size(), stdout); fwrite(summary.data(), 4, summary.size(), stdout);
  }
  return 0;
}
`;

/** Splits a program's output (the separate stages', then the fused ones') into the two pipelines' parts. */
function split(out: Uint8Array, inp: Input): [Outputs, Outputs] {
  const sz = sizes(inp);
  let at = 0;
  const one = (): Outputs =>
    Object.fromEntries(
      PARTS.map((p) => {
        const r = out.subarray(at, at + sz[p]);
        at += sz[p];
        return [p, r];
      }),
    ) as Outputs;
  const a = one(),
    b = one();
  assert.equal(at, out.length, 'output size');
  return [a, b];
}

/** The two pipelines agree byte for byte; returns what the input exercised (so the test can ask that it exercised the branches). */
function compare(
  a: Outputs,
  b: Outputs,
  inp: Input,
  where: string,
): { flagged: number; nonFinite: number; unsafe: number; nodes: bigint } {
  for (const p of PARTS) {
    const i = a[p].findIndex((x, k) => x !== b[p][k]);
    assert.equal(i, -1, `${where}: ${p} differs first at byte ${i} (word ${i >> 2})`);
  }
  const status = new Int32Array(a.status.buffer, a.status.byteOffset, a.status.length / 4);
  const summary = new Int32Array(a.summary.buffer, a.summary.byteOffset, a.summary.length / 4);
  let nonFinite = 0,
    unsafe = 0,
    flagged = 0,
    nodes = 0n;
  for (let v = 0; v < inp.valid; v++) {
    const f = status[STATUS_WORDS * v]!;
    if (f & MIMO_STATUS.NON_FINITE) nonFinite++;
    if (f & MIMO_STATUS.FLOAT32_UNSAFE) unsafe++;
  }
  for (let ch = 0; ch < inp.c.channels; ch++) {
    if (summary[SUMMARY_WORDS * ch] !== 0) flagged++;
    nodes += BigInt(summary[SUMMARY_WORDS * ch + 2]! >>> 0) + (BigInt(summary[SUMMARY_WORDS * ch + 3]! >>> 0) << 32n);
  }
  return { flagged, nonFinite, unsafe, nodes };
}

const CASES: readonly Case[] = [
  { nr: 4, nt: 4, mod: '16qam', passes: 4, channels: 9, vpc: 3, soft: true },
  { nr: 4, nt: 4, mod: '64qam', passes: 3, channels: 6, vpc: 5, soft: true },
  { nr: 2, nt: 2, mod: 'qpsk', passes: 1, channels: 40, vpc: 4, soft: false },
  { nr: 3, nt: 3, mod: 'bpsk', passes: 3, channels: 50, vpc: 1, soft: true },
];

test("fused normalize and summary stages (emulated): qr-batch.cu and nway-detect.cu give the separate stages' outputs bit for bit", {
  skip: skipEmu,
}, () => {
  const seen = { flagged: 0, nonFinite: 0, unsafe: 0, nodes: 0n };
  for (const c of CASES) {
    const zOfVector = c.vpc === 1;
    const m = detectorRealModel('nway', constellation(c.mod), c.nt, c.nr);
    const groups = qrGroupsPerBlock(m.nd, c.passes);
    const layout = qrRecordLayout(c.nr, c.nt, m.dimsPerStream, zOfVector);
    const shape = nwayLaunchShape(m, c.passes, c.soft);
    const defs = {
      ...qrBatchDefines(
        { nr: c.nr, nt: c.nt, dimsPerStream: m.dimsPerStream, passes: c.passes, sorted: false, zOfVector },
        groups,
      ),
      ...nwayDefines(m, c.passes, c.soft, {}, zOfVector),
      WARPS: 4,
    };
    const files = [
      emulatorShims(),
      fileURLToPath(new URL('../../src/mimo/gpu/normalize.cu', import.meta.url)),
      fileURLToPath(QR_BATCH_URL),
      fileURLToPath(NWAY_DETECT_URL),
      fileURLToPath(new URL('../../src/mimo/gpu/status-summary.cu', import.meta.url)),
    ];
    const { exe, error } = compileEmulated(
      MAIN,
      files,
      Object.entries(defs).map(([k, v]) => `-D${k}=${v}`),
    );
    assert.equal(error, null, error ?? '');
    for (let rep = 0; rep < 2; rep++) {
      const inp = makeInput(c, randomInt(2 ** 31));
      const head = new Int32Array([
        c.channels,
        c.vpc,
        groups * m.nd,
        qrBatchSharedBytes(m.rows, m.nd, groups, layout.qRows),
        shape.threadsPerVector * shape.vectorsPerBlock,
        shape.sharedBytes,
        inp.valid,
        inp.noise ? 1 : 0,
        c.soft ? 1 : 0,
        layout.floats,
      ]);
      const parts = [
        head,
        new Float32Array([inp.clip, m.scale, inp.noiseScalar]),
        inp.H,
        inp.y,
        ...(inp.noise ? [inp.noise] : []),
      ];
      const out = runEmulated(exe, Buffer.concat(parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))));
      const [a, b] = split(out, inp);
      const r = compare(a, b, inp, `${c.nr}x${c.nt} ${c.mod} N = ${c.passes}, ${c.channels} x ${c.vpc}, rep ${rep}`);
      seen.flagged += r.flagged;
      seen.nonFinite += r.nonFinite;
      seen.unsafe += r.unsafe;
      seen.nodes += r.nodes;
    }
  }
  // the draws reached flagged and unflagged vectors of both kinds (else the equality proved less)
  assert.ok(
    seen.flagged > 0 && seen.nonFinite > 0 && seen.unsafe > 0 && seen.nodes > 0n,
    JSON.stringify({ ...seen, nodes: String(seen.nodes) }),
  );
});

test("fused normalize and summary stages (GPU): the plan with both gives the separate kernels' outputs bit for bit", {
  skip: skipGpu,
}, () => {
  const ctx = CudaContext.get(0);
  ctx.makeCurrent();
  const stream = Stream.create(ctx);
  let flaggedChannels = 0;
  try {
    for (const base of CASES) {
      // the GPU takes larger batches: several blocks of every kernel, a chunk of a 5G slot's shape
      const c = { ...base, channels: base.channels * 60 };
      const inp = makeInput(c, randomInt(2 ** 31));
      const { m } = inp;
      const zOfVector = c.vpc === 1;
      // the z-record plan's default QR kernel (one thread a QR) does not normalize: the column one does
      const plan = new NwayPlan(ctx, m, c.passes, c.soft, inp.clip, { qrMapping: 'column' }, zOfVector);
      assert.deepEqual(plan.fuses, { normalize: true, summary: true });
      const sz = sizes(inp),
        vectors = c.channels * c.vpc;
      const run = (fused: boolean): Outputs => {
        const b = Object.fromEntries(PARTS.map((p) => [p, DeviceBuffer.alloc(ctx, sz[p])])) as Record<
          (typeof PARTS)[number],
          DeviceBuffer
        >;
        const noiseIn = inp.noise ? DeviceBuffer.alloc(ctx, inp.noise.byteLength) : null;
        try {
          b.H.upload(inp.H);
          b.y.upload(inp.y);
          if (noiseIn) noiseIn.upload(inp.noise!);
          for (const p of ['noise', 'status', 'records', 'symbols', 'llr', 'summary'] as const) b[p].fill(0xa5);
          const chunk = {
            channels: c.channels,
            vectorsPerChannel: c.vpc,
            H: b.H.ptr,
            y: b.y.ptr,
            noise: b.noise.ptr,
            symbols: b.symbols.ptr,
            llr: c.soft ? b.llr.ptr : 0n,
            status: b.status.ptr,
            scratch: [b.records.ptr],
          };
          if (fused) {
            plan.enqueue(stream, {
              ...chunk,
              normalize: { noiseIn: noiseIn?.ptr ?? 0n, noiseScalar: inp.noiseScalar },
              summary: { address: b.summary.ptr, realVectors: inp.valid },
            });
          } else {
            enqueueNormalize(
              ctx,
              stream,
              {
                H: b.H.ptr,
                y: b.y.ptr,
                noiseIn: noiseIn?.ptr ?? 0n,
                noiseScalar: inp.noiseScalar,
                noiseOut: b.noise.ptr,
                status: b.status.ptr,
              },
              c.channels,
              c.vpc,
              c.nr,
              c.nt,
            );
            plan.enqueue(stream, chunk);
            enqueueSummary(ctx, stream, b.status.ptr, b.summary.ptr, c.channels, c.vpc, inp.valid);
          }
          stream.synchronize();
          return Object.fromEntries(
            PARTS.map((p) => {
              const o = new Uint8Array(sz[p]);
              b[p].download(o);
              return [p, o];
            }),
          ) as Outputs;
        } finally {
          for (const x of Object.values(b)) x.free();
          noiseIn?.free();
        }
      };
      const r = compare(
        run(false),
        run(true),
        inp,
        `${c.nr}x${c.nt} ${c.mod} N = ${c.passes}, ${c.channels} x ${c.vpc} (${vectors} vectors)`,
      );
      flaggedChannels += r.flagged;
    }
  } finally {
    stream.destroy();
  }
  assert.ok(flaggedChannels > 0, 'the inputs flagged no channel');
});

test("fused stages through the engine (GPU): nway reports a NaN as the CPU engine's NON_FINITE error naming it, and the CPU's node count", {
  skip: skipGpu,
}, async () => {
  const { detect } = await import('../../src/mimo/detect.js');
  const { detectAsync } = await import('../../src/mimo/detect-async.js');
  const { InvalidInputError } = await import('../../src/core/errors.js');
  const c: Case = { nr: 4, nt: 4, mod: '16qam', passes: 4, channels: 300, vpc: 14, soft: true };
  const inp = makeInput(c, randomInt(2 ** 31));
  // a clean batch: finite entries of moderate range, some vectors of the last channel missing
  const rng = new Philox(randomInt(2 ** 31));
  const H = Float32Array.from(inp.H, () => Math.fround(rng.normal())),
    y = Float32Array.from(inp.y, () => Math.fround(rng.normal()));
  const vectors = inp.valid,
    yv = y.subarray(0, vectors * 2 * c.nr);
  const opts = { detector: 'nway' as const, modulation: c.mod, passes: c.passes };
  const input = { nt: c.nt, nr: c.nr, H, y: yv, vectorsPerChannel: c.vpc, noiseVar: 0.1 };
  const cpu = detect(input, opts),
    gpu = await detectAsync(input, { ...opts, engine: 'cuda' });
  assert.ok((cpu.stats.nodesVisited ?? 0) > 0);
  assert.equal(gpu.stats.nodesVisited, cpu.stats.nodesVisited, 'nodes visited');
  for (const [where, at] of [
    ['y', randomInt(yv.length)],
    ['H', randomInt(H.length)],
  ] as const) {
    const bad = { ...input, H: Float32Array.from(H), y: Float32Array.from(yv) };
    bad[where][at] = Number.NaN;
    await assert.rejects(detectAsync(bad, { ...opts, engine: 'cuda' }), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError, String(e));
      assert.equal(e.code, 'NON_FINITE');
      assert.match(e.message, new RegExp(`^${where} contains NaN at element ${at}$`));
      return true;
    });
  }
});

/** Emulated PSD program: both pipelines on the same input (PSD_MAPPING 0: psd_warp, 1: psd_block), the separate stages' outputs then the fused ones'. */
const PSD_MAIN = String.raw`
int main() {
  int h[7]; float fp[2];
  if (fread(h, 4, 7, stdin) != 7 || fread(fp, 4, 2, stdin) != 2) return 1;
  const int channels = h[0], vpc = h[1], shared = h[2], valid = h[3], perVector = h[4], facWords = h[5];
  const long long maxNodes = h[6];
  const int vectors = channels * vpc, hLen = 2 * PSD_NR * PSD_NT, yLen = 2 * PSD_NR;
  std::vector<float> H((size_t)channels * hLen), y((size_t)vectors * yLen), noiseIn(perVector ? vectors : 1);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()) return 1;
  if (perVector && fread(noiseIn.data(), 4, vectors, stdin) != (size_t)vectors) return 1;
  const float* nIn = perVector ? noiseIn.data() : nullptr;
  const unsigned prepGrid = (channels * PSD_PREP_LANES + 127) / 128;
  for (int fused = 0; fused < 2; fused++) {
    std::vector<float> Hc = H, yc = y, noise(vectors, -5.f), fac((size_t)channels * facWords, -1e30f);
    std::vector<int> status((size_t)vectors * 2, -7), sym((size_t)vectors * PSD_NT, -1), summary((size_t)channels * 4, -7);
    int* sum = fused ? summary.data() : nullptr;
    if (!fused) {
      if (emu_launch((channels + 3) / 4, dim3{128, 1, 1}, 0, [&] { mimo_normalize(Hc.data(), yc.data(), nIn, fp[1], noise.data(), status.data(), nullptr, channels, vpc, hLen, yLen, valid); })) return 2;
      if (emu_launch(prepGrid, dim3{128, 1, 1}, 0, [&] { psd_prep(Hc.data(), fac.data(), channels, nullptr, nullptr, 0.f, nullptr, nullptr, nullptr, 0, 0LL); })) return 2;
    } else {
      if (emu_launch(prepGrid, dim3{128, 1, 1}, 0, [&] { psd_prep(Hc.data(), fac.data(), channels, yc.data(), nIn, fp[1], noise.data(), status.data(), sum, vpc, valid); })) return 2;
    }
#if PSD_MAPPING == 0
    if (emu_launch((vectors + PSD_WARPS * PSD_GROUPS - 1) / (PSD_WARPS * PSD_GROUPS), dim3{32 * PSD_WARPS, 1, 1}, shared, [&] { psd_warp(yc.data(), fac.data(), sym.data(), status.data(), vectors, vpc, maxNodes, fp[0], sum, fused ? (long long)valid : 0LL); })) return 2;
#else
    if (emu_launch(vectors, dim3{PSD_THREADS, 1, 1}, shared, [&] { psd_block(yc.data(), fac.data(), sym.data(), status.data(), vectors, vpc, maxNodes, fp[0], sum, fused ? (long long)valid : 0LL); })) return 2;
#endif
    if (!fused && emu_launch((channels + 3) / 4, dim3{128, 1, 1}, 0, [&] { mimo_status_summary(status.data(), summary.data(), channels, vpc, valid); })) return 2;
    fwrite(Hc.data(), 4, Hc.size(), stdout); fwrite(yc.data(), 4, yc.size(), stdout); fwrite(noise.data(), 4, noise.size(), stdout);
    fwrite(status.data(), 4, status.size(), stdout); fwrite(fac.data(), 4, fac.size(), stdout); fwrite(sym.data(), 4, sym.size(), stdout);
    fwrite(summary.data(), 4, summary.size(), stdout);
  }
  return 0;
}
`;

test("fused normalize and summary stages (emulated): psd-prep.cu and the PSD search kernels give the separate stages' outputs bit for bit", {
  skip: skipEmu,
}, () => {
  let flagged = 0,
    searched = 0n;
  const cases: Array<{ c: Case; mapping: 'warp' | 'block' }> = [
    { c: { nr: 4, nt: 4, mod: '16qam', passes: 1, channels: 12, vpc: 3, soft: false }, mapping: 'warp' },
    { c: { nr: 2, nt: 2, mod: 'qpsk', passes: 1, channels: 40, vpc: 2, soft: false }, mapping: 'block' },
    { c: { nr: 3, nt: 2, mod: 'bpsk', passes: 1, channels: 70, vpc: 1, soft: false }, mapping: 'warp' },
  ];
  for (const { c, mapping } of cases) {
    const model = realModel(constellation(c.mod), c.nt, c.nr);
    const config = psdConfig(model.n, model.q);
    const defs: Record<string, string | number> = {
      ...psdDefines(model, config),
      WARPS: 4,
      PSD_MAPPING: mapping === 'warp' ? 0 : 1,
    };
    let shared: number;
    if (mapping === 'warp') {
      const lanes = psdAutoLanes(model.n, model.q, psdWarpSharedBytes(model.n, config));
      Object.assign(defs, { PSD_WARPS: 2, PSD_LANES: lanes });
      shared = 2 * (32 / lanes) * psdWarpSharedBytes(model.n, config);
    } else {
      const threads = psdBlockThreads(config);
      defs.PSD_THREADS = threads;
      shared = psdBlockSharedBytes(model.n, config, threads);
    }
    const psdFile = (f: string): string => fileURLToPath(new URL(`../../src/mimo/detectors/psd/${f}`, import.meta.url));
    const files = [
      fileURLToPath(new URL('../../src/mimo/gpu/normalize.cu', import.meta.url)),
      psdFile('psd-prep.cu'),
      psdFile(mapping === 'warp' ? 'psd-warp.cu' : 'psd-block.cu'),
      fileURLToPath(new URL('../../src/mimo/gpu/status-summary.cu', import.meta.url)),
    ];
    const { exe, error } = compileEmulated(
      PSD_MAIN,
      files,
      Object.entries(defs).map(([k, v]) => `-D${k}=${v}`),
    );
    assert.equal(error, null, error ?? '');
    assert.equal(
      psdPrepLanes(model.n) * Math.floor(128 / psdPrepLanes(model.n)),
      128,
      'psd_prep blocks of 128 threads hold whole channels',
    );
    for (let rep = 0; rep < 2; rep++) {
      const inp = makeInput(c, randomInt(2 ** 31));
      const vectors = c.channels * c.vpc,
        facWords = psdFactorWords(model.n, model.m);
      const head = new Int32Array([c.channels, c.vpc, shared, inp.valid, inp.noise ? 1 : 0, facWords, 4000]);
      const parts = [
        head,
        new Float32Array([constellation(c.mod).pam?.scale ?? 1, inp.noiseScalar]),
        inp.H,
        inp.y,
        ...(inp.noise ? [inp.noise] : []),
      ];
      const out = runEmulated(exe, Buffer.concat(parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))));
      const sz = [
        8 * c.nr * c.nt * c.channels,
        8 * c.nr * vectors,
        4 * vectors,
        8 * vectors,
        4 * facWords * c.channels,
        4 * vectors * c.nt,
        16 * c.channels,
      ];
      const names = ['H', 'y', 'noise', 'status', 'factors', 'symbols', 'summary'];
      const total = sz.reduce((a, b) => a + b, 0);
      assert.equal(out.length, 2 * total, 'output size');
      let at = 0;
      sz.forEach((n, k) => {
        const a = out.subarray(at, at + n),
          b = out.subarray(total + at, total + at + n);
        const i = a.findIndex((x, j) => x !== b[j]);
        assert.equal(
          i,
          -1,
          `psd ${mapping} ${c.nr}x${c.nt} ${c.mod}, rep ${rep}: ${names[k]} differs first at byte ${i}`,
        );
        at += n;
      });
      const summary = new Int32Array(
        out.buffer.slice(out.byteOffset + total - 16 * c.channels, out.byteOffset + total),
      );
      for (let ch = 0; ch < c.channels; ch++) {
        if (summary[4 * ch] !== 0) flagged++;
        searched += BigInt(summary[4 * ch + 2]! >>> 0);
      }
    }
  }
  assert.ok(flagged > 0 && searched > 0n, `flagged channels ${flagged}, nodes ${searched}`);
});

test('fused stages through the engine (GPU): every fusing detector gives the results it gives with the stages as kernels of their own', {
  skip: skipGpu,
}, async () => {
  const { validateDetection } = await import('../../src/mimo/detect.js');
  const { cudaSetup, detectCuda } = await import('../../src/mimo/gpu/detect-batch.js');
  const { DETECTOR_REGISTRY } = await import('../../src/mimo/registry.js');
  const { requireCuda } = await import('../../src/gpu/context.js');
  const ctx = requireCuda();
  const runs = [
    { detector: 'nway' as const, modulation: '64qam' as const, passes: 4 },
    { detector: 'ssfe' as const, modulation: '16qam' as const },
    { detector: 'psd' as const, modulation: '16qam' as const },
    { detector: 'psd' as const, modulation: 'qpsk' as const, psd: { gpuMapping: 'block' as const } },
  ];
  let fusing = 0;
  for (const opts of runs) {
    const impl = (await DETECTOR_REGISTRY[opts.detector].cuda!())!;
    // the same detector with its plan's fuses hidden: the engine launches both stages itself
    const separate = {
      ...impl,
      create: (c: typeof ctx, setup: Parameters<typeof impl.create>[1]) =>
        Object.create(impl.create(c, setup), { fuses: { value: undefined } }),
    };
    const c: Case = { nr: 4, nt: 4, mod: opts.modulation, passes: 1, channels: 500, vpc: 14, soft: true };
    const inp = makeInput(c, randomInt(2 ** 31));
    // valid input of mixed channel scales (2^-60 to 2^60), each vector at its channel's scale, the last channel padded
    const rng = new Philox(randomInt(2 ** 31));
    const hLen = 2 * c.nr * c.nt,
      yLen = 2 * c.nr;
    const H = inp.H.map((x) => (Number.isFinite(x) ? x : 1));
    const y = new Float32Array(inp.valid * yLen);
    for (let v = 0; v < inp.valid; v++) {
      const ch = Math.floor(v / c.vpc);
      const scale = H.subarray(ch * hLen, (ch + 1) * hLen).reduce((a, x) => Math.max(a, Math.abs(x)), 0);
      for (let i = 0; i < yLen; i++) y[v * yLen + i] = Math.fround(rng.normal() * scale);
    }
    const noiseVar = inp.noise
      ? inp.noise.subarray(0, inp.valid).map((x) => (Number.isFinite(x) && x > 0 ? x : 0.1))
      : inp.noiseScalar;
    const input = { nt: c.nt, nr: c.nr, H, y, vectorsPerChannel: c.vpc, noiseVar };
    const search = DETECTOR_REGISTRY[opts.detector].traits.nodeBudget === 'search';
    const val = validateDetection(input, { ...opts, engine: 'cuda', ...(search ? { onBudget: 'flag' as const } : {}) });
    const plan = impl.create(ctx, cudaSetup(ctx, val, impl));
    if (plan.fuses?.normalize && plan.fuses.summary) fusing++;
    const a = await detectCuda(input, val, impl, performance.now()),
      b = await detectCuda(input, val, separate, performance.now());
    const what = `${opts.detector} ${opts.modulation}${'psd' in opts ? ' (block)' : ''}`;
    assert.deepEqual(Array.from(a.symbols), Array.from(b.symbols), `${what}: symbols`);
    if (a.llr || b.llr) assert.deepEqual(Array.from(a.llr!), Array.from(b.llr!), `${what}: LLRs`);
    assert.deepEqual(
      a.unproven ? Array.from(a.unproven) : null,
      b.unproven ? Array.from(b.unproven) : null,
      `${what}: unproven`,
    );
    const { timeMs: _a, ...sa } = a.stats,
      { timeMs: _b, ...sb } = b.stats;
    assert.deepEqual(sa, sb, `${what}: stats`);
  }
  assert.equal(fusing, runs.length, 'every detector here fuses both stages');
});
