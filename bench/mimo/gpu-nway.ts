/**
 * Kernel timings of the N-way detector on the GPU (data on the device, CUDA events, warm-up first,
 * median of 7 timings of 20 back-to-back launches each): the N-way paper's Tables I-III shapes
 * (8400 vectors, 2x2 and 4x4, 16- and 64-QAM, N = 1..4; one channel per vector as in the paper,
 * where the QR records hold z = Q^T y instead of Q, and 14 vectors a channel), the issue's throughput case (4x4 16-QAM N = 1, 2^20 vectors) and a
 * 5G NR 100 MHz slot (3276 channels x 14 vectors, 4x4 64-QAM, N = 4), and the coded link's chunk
 * (262,080 channels of one vector, 4x4 16-QAM, N = 4) with z records and with Q records, each with the QR kernel's
 * default mapping (one thread per QR, qr-thread.cu) and the paper's (a thread per column, qr-batch.cu). Prints the QR kernel (its mapping), the
 * detection kernel, both, and both with pinned transfers on one stream (H, y, N0 in; symbols, LLRs,
 * status out), with Mbps / Gbps of detected bits and each figure's memory floor (bytes at 3.0 TB/s,
 * the device-to-device copy rate measured on this H100), then launch variants (NwayTuning) and
 * measurement builds of both kernels, each line with the detection kernel's registers, spilled
 * bytes and resident blocks a multiprocessor.
 * Usage: node dist/bench/mimo/gpu-nway.js [--quick] [--only=<text>] (--only: the cases whose label holds the text)
 */
import { requireCuda } from '../../src/gpu/context.js';
import { DeviceBuffer, PinnedBuffer } from '../../src/gpu/memory.js';
import { CudaEvent, Stream } from '../../src/gpu/stream.js';
import { Philox } from '../../src/core/rng.js';
import { constellation } from '../../src/mimo/modulation.js';
import { detectorRealModel } from '../../src/mimo/soft/real-model.js';
import type { Modulation } from '../../src/mimo/types.js';
import { NwayPlan, type NwayTuning } from '../../src/mimo/detectors/nway/cuda.js';
import { nwayBuild } from '../kernels/traced.js';
import { qrStoreLoopBuild } from './gpu-nway-builds.js';
import type { DetectChunk } from '../../src/mimo/gpu/cuda-detector.js';
import { STATUS_WORDS } from '../../src/mimo/gpu/status.js';

const BANDWIDTH = 3.0e12;
const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const ctx = requireCuda();
ctx.makeCurrent();
const stream = Stream.create(ctx);
const ev0 = CudaEvent.create(ctx),
  ev1 = CudaEvent.create(ctx);

interface Case {
  label: string;
  nr: number;
  nt: number;
  mod: Modulation;
  passes: number;
  vectors: number;
  vpc: number;
  paper?: { qr?: number; det?: number; total?: number };
  tuning?: NwayTuning;
  detOnly?: boolean;
  qRecords?: boolean;
}

/** Median milliseconds of one call of `fn` (BATCH calls between two events, REPS times). */
function time(fn: () => void): number {
  const BATCH = 20,
    REPS = quick ? 3 : 7;
  for (let i = 0; i < 3; i++) fn();
  stream.synchronize();
  const xs: number[] = [];
  for (let r = 0; r < REPS; r++) {
    ev0.record(stream);
    for (let i = 0; i < BATCH; i++) fn();
    ev1.record(stream);
    ev1.synchronize();
    xs.push(ev1.elapsedSince(ev0) / BATCH);
  }
  xs.sort((a, b) => a - b);
  return xs[xs.length >> 1]!;
}

function run(c: Case): string {
  const m = detectorRealModel('nway', constellation(c.mod), c.nt, c.nr);
  // one vector per channel: the production plan's z records (QR forms z = Q^T y, no Q stored)
  const plan = new NwayPlan(ctx, m, c.passes, true, 8, c.tuning, c.vpc === 1 && !c.qRecords);
  const channels = Math.ceil(c.vectors / c.vpc),
    vectors = channels * c.vpc;
  const nbits = c.nt * m.bitsPerSymbol;
  const rng = new Philox(7, c.vectors);
  const H = new Float32Array(2 * channels * c.nr * c.nt).map(() => rng.normal() * Math.SQRT1_2);
  const pts = constellation(c.mod).points;
  const y = new Float32Array(2 * vectors * c.nr),
    noise = new Float32Array(vectors).fill(0.05);
  for (let v = 0; v < vectors; v++) {
    const hb = 2 * Math.floor(v / c.vpc) * c.nr * c.nt;
    for (let j = 0; j < c.nt; j++) {
      const s = rng.int(pts.length / 2),
        sr = pts[2 * s]!,
        si = pts[2 * s + 1]!;
      for (let i = 0; i < c.nr; i++) {
        const hr = H[hb + 2 * (i + j * c.nr)]!,
          hi = H[hb + 2 * (i + j * c.nr) + 1]!;
        y[2 * (v * c.nr + i)] += hr * sr - hi * si;
        y[2 * (v * c.nr + i) + 1] += hr * si + hi * sr;
      }
    }
    for (let i = 0; i < 2 * c.nr; i++) y[2 * v * c.nr + i] += rng.normal() * Math.sqrt(0.025);
  }
  const d = {
    H: DeviceBuffer.alloc(ctx, H.byteLength),
    y: DeviceBuffer.alloc(ctx, y.byteLength),
    noise: DeviceBuffer.alloc(ctx, noise.byteLength),
    symbols: DeviceBuffer.alloc(ctx, 4 * vectors * c.nt),
    llr: DeviceBuffer.alloc(ctx, 4 * vectors * nbits),
    status: DeviceBuffer.alloc(ctx, 4 * STATUS_WORDS * vectors),
    scratch: DeviceBuffer.alloc(ctx, channels * plan.scratchBytesPerChannel[0]!),
  };
  d.H.upload(H);
  d.y.upload(y);
  d.noise.upload(noise);
  d.status.fill(0);
  const chunk: DetectChunk = {
    channels,
    vectorsPerChannel: c.vpc,
    H: d.H.ptr,
    y: d.y.ptr,
    noise: d.noise.ptr,
    symbols: d.symbols.ptr,
    llr: d.llr.ptr,
    status: d.status.ptr,
    scratch: [d.scratch.ptr],
  };
  const inBytes = H.byteLength + y.byteLength + noise.byteLength,
    outBytes = 4 * vectors * (c.nt + nbits + STATUS_WORDS);
  const hostIn = PinnedBuffer.alloc(ctx, inBytes),
    hostOut = PinnedBuffer.alloc(ctx, outBytes);
  new Uint8Array(hostIn.buffer).set(new Uint8Array(H.buffer), 0);
  new Uint8Array(hostIn.buffer).set(new Uint8Array(y.buffer), H.byteLength);
  new Uint8Array(hostIn.buffer).set(new Uint8Array(noise.buffer), H.byteLength + y.byteLength);
  const info = plan.detectKernelInfo();
  const shape = `[${info.registers} regs${info.localBytes ? `, ${info.localBytes} B local` : ''}, ${info.blocksPerSm} x ${info.threadsPerBlock} threads/SM]`;
  plan.enqueue(stream, chunk);
  if (c.detOnly) {
    const tDet = time(() => plan.enqueueDetect(stream, chunk));
    stream.synchronize();
    for (const b of Object.values(d)) b.free();
    hostIn.free();
    hostOut.free();
    const bps = (vectors * nbits) / (tDet * 1e-3);
    return `${c.label.padEnd(34)} detection ${tDet.toFixed(4)} ms = ${(bps / 1e9).toFixed(2)} Gbps ${shape}`;
  }
  const tQr = time(() => plan.enqueueQr(stream, chunk));
  const tDet = time(() => plan.enqueueDetect(stream, chunk));
  const tBoth = time(() => plan.enqueue(stream, chunk));
  const tTotal = time(() => {
    d.H.uploadAsync(hostIn, stream, H.byteLength, 0, 0);
    d.y.uploadAsync(hostIn, stream, y.byteLength, H.byteLength, 0);
    d.noise.uploadAsync(hostIn, stream, noise.byteLength, H.byteLength + y.byteLength, 0);
    d.status.fillRange(0, 4 * STATUS_WORDS * vectors, 0, stream);
    plan.enqueue(stream, chunk);
    d.symbols.downloadAsync(hostOut, stream, 4 * vectors * c.nt, 0, 0);
    d.llr.downloadAsync(hostOut, stream, 4 * vectors * nbits, 0, 4 * vectors * c.nt);
    d.status.downloadAsync(hostOut, stream, 4 * STATUS_WORDS * vectors, 0, 4 * vectors * (c.nt + nbits));
  });
  stream.synchronize();
  for (const b of Object.values(d)) b.free();
  hostIn.free();
  hostOut.free();
  const bits = vectors * nbits;
  const rate = (ms: number): string => {
    const bps = bits / (ms * 1e-3);
    return bps >= 1e9 ? `${(bps / 1e9).toFixed(2)} Gbps` : `${(bps / 1e6).toFixed(1)} Mbps`;
  };
  // memory floors: QR reads H (and y with z records), writes records; detection reads y (not with z
  // records), N0, records (once per channel), status, writes symbols, LLRs, status
  const recBytes = channels * plan.scratchBytesPerChannel[0]!;
  const yQr = plan.zOfVector ? y.byteLength : 0;
  const qrFloor = ((H.byteLength + yQr + recBytes) / BANDWIDTH) * 1e3;
  const detFloor =
    ((y.byteLength - yQr + noise.byteLength + recBytes + outBytes + 4 * STATUS_WORDS * vectors) / BANDWIDTH) * 1e3;
  const p = c.paper;
  const paper = p ? ` | paper: QR ${p.qr ?? '-'} ms, detection ${p.det ?? '-'} ms, total ${p.total ?? '-'} ms` : '';
  return (
    `${c.label.padEnd(34)} ${vectors} vectors (${channels} ch): QR ${tQr.toFixed(4)} ms [${plan.qr.mapping}] (floor ${qrFloor.toFixed(4)}), ` +
    `detection ${tDet.toFixed(4)} ms = ${(vectors / tDet / 1e3).toFixed(1)} Mvec/s = ${rate(tDet)} (floor ${detFloor.toFixed(4)}), ` +
    `QR+detection ${tBoth.toFixed(4)} ms = ${rate(tBoth)}, with transfers ${tTotal.toFixed(4)} ms = ${rate(tTotal)} ${shape}${paper}`
  );
}

// The paper's Tables I-III (GTX 560 Ti): QR kernel, detection kernel, total, ms for 8400 symbols.
const PAPER: Record<string, { qr?: number; det?: number; total?: number }> = {
  '2x2 16qam 1': { qr: 0.03, det: 0.0768, total: 0.342 },
  '2x2 16qam 2': { qr: 0.052, det: 0.159, total: 0.462 },
  '4x4 16qam 1': { qr: 0.137, det: 0.164, total: 0.739 },
  '4x4 16qam 2': { qr: 0.257, det: 0.332, total: 1.048 },
  '4x4 16qam 3': { qr: 0.399, det: 0.5, total: 1.349 },
  '4x4 16qam 4': { qr: 0.501, det: 0.665, total: 1.629 },
  '2x2 64qam 1': { qr: 0.03, det: 0.524, total: 0.818 },
  '2x2 64qam 2': { qr: 0.052, det: 1.04, total: 1.363 },
  '4x4 64qam 1': { qr: 0.137, det: 0.833, total: 1.457 },
  '4x4 64qam 2': { qr: 0.257, det: 1.658, total: 2.415 },
  '4x4 64qam 3': { qr: 0.399, det: 2.474, total: 3.39 },
  '4x4 64qam 4': { qr: 0.501, det: 3.297, total: 4.3 },
};

const cases: Case[] = [];
cases.push({
  label: 'target: 4x4 16qam N=1 (2^20 vec)',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 1,
  vectors: 1 << 20,
  vpc: 14,
});
cases.push({ label: '5G NR slot: 4x4 64qam N=4', nr: 4, nt: 4, mod: '64qam', passes: 4, vectors: 45_864, vpc: 14 });
// other launch choices (NwayTuning: the register cap as resident blocks, table copies, block size)
// and measurement builds (bench/kernels/traced.ts: NW_MODE=1 the level floor by conversions,
// NW_MODE=2 R read where used)
const targetVariants: [string, NwayTuning][] = [
  ['blockThreads 128 minBlocks 8', { blockThreads: 128, minBlocks: 8 }],
  ['minBlocks 12 (80 regs)', { minBlocks: 12 }],
  ['copies 1', { copies: 1 }],
  ['copies 4', { copies: 4 }],
  ['NW_MODE=1', { build: nwayBuild({ NW_MODE: 1 }) }],
];
const slotVariants: [string, NwayTuning][] = [
  ['blockThreads 128 minBlocks 6', { blockThreads: 128, minBlocks: 6 }],
  ['minBlocks 8 (128 regs)', { minBlocks: 8 }],
  ['copies 8', { copies: 8 }],
  ['copies 2', { copies: 2 }],
  ['NW_MODE=2', { build: nwayBuild({ NW_MODE: 2 }) }],
];
for (const [name, tuning] of targetVariants)
  cases.push({
    label: `  target ${name}`,
    nr: 4,
    nt: 4,
    mod: '16qam',
    passes: 1,
    vectors: 1 << 20,
    vpc: 14,
    tuning,
    detOnly: true,
  });
for (const [name, tuning] of slotVariants)
  cases.push({
    label: `  5G slot ${name}`,
    nr: 4,
    nt: 4,
    mod: '64qam',
    passes: 4,
    vectors: 45_864,
    vpc: 14,
    tuning,
    detOnly: true,
  });
// the QR kernel's records stored by the element loop (measurement build) instead of staged copies
cases.push({
  label: '  target QR_STORE_LOOP=1',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 1,
  vectors: 1 << 20,
  vpc: 14,
  tuning: { qrBuild: qrStoreLoopBuild() },
});
cases.push({
  label: '  5G slot QR_STORE_LOOP=1',
  nr: 4,
  nt: 4,
  mod: '64qam',
  passes: 4,
  vectors: 45_864,
  vpc: 14,
  tuning: { qrBuild: qrStoreLoopBuild() },
});
for (const mod of ['16qam', '64qam'] as const) {
  for (const n of [2, 4]) {
    for (let passes = 1; passes <= Math.min(n, 4); passes++) {
      const key = `${n}x${n} ${mod} ${passes}`;
      for (const vpc of quick ? [1] : [1, 14]) {
        cases.push({
          label: `T${vpc === 1 ? 'I-III' : ''} ${key}${vpc === 1 ? '' : ' (14/ch)'}`,
          nr: n,
          nt: n,
          mod,
          passes,
          vectors: 8400,
          vpc,
          paper: vpc === 1 ? PAPER[key] : undefined,
        });
      }
    }
  }
}
// the coded link's chunk (one vector per channel, bench/sim/gpu-coded-link.ts): z records against Q records
cases.push({
  label: 'coded link: 4x4 16qam N=4 vpc 1',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
});
cases.push({
  label: '  coded link, Q records',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
  qRecords: true,
});
// the same with the QR kernel's column mapping (qr-batch.cu, the paper's) beside the default (qr-thread.cu)
cases.push({
  label: '  coded link, QR column mapping',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
  tuning: { qrMapping: 'column' },
});
cases.push({
  label: '  coded link, Q rec., column map.',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
  qRecords: true,
  tuning: { qrMapping: 'column' },
});
// the thread mapping's launch choices: whole records staged at once (QR_CHUNK), 64 and 256 threads a block
cases.push({
  label: '  coded link, QR whole-record stage',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
  tuning: { qrMapping: 'thread', qrThread: { chunk: 64 } },
});
cases.push({
  label: '  coded link, QR 64 threads/block',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
  tuning: { qrMapping: 'thread', qrThread: { threads: 64 } },
});
cases.push({
  label: '  coded link, QR 256 threads/block',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 4,
  vectors: 262_080,
  vpc: 1,
  tuning: { qrMapping: 'thread', qrThread: { threads: 256 } },
});
// production again: the spread between two timings of one build
cases.push({
  label: '  target (again)',
  nr: 4,
  nt: 4,
  mod: '16qam',
  passes: 1,
  vectors: 1 << 20,
  vpc: 14,
  detOnly: true,
});
cases.push({
  label: '  5G slot (again)',
  nr: 4,
  nt: 4,
  mod: '64qam',
  passes: 4,
  vectors: 45_864,
  vpc: 14,
  detOnly: true,
});
console.log(`N-way kernels on ${ctx.props.name} (${ctx.props.multiprocessors} SMs), ${new Date().toISOString()}`);
for (const c of cases) if (!only || c.label.includes(only)) console.log(run(c));
stream.destroy();
