/**
 * The coded link on the GPU (simulate --engine cuda --code ...), measured on the device: 4x4 16-QAM,
 * nway N = 4 (max-log LLRs), WiMAX n = 2304 rate 1/2, one channel a vector.
 *  1. Stage by stage on one launch of `--frames` frames (data on the GPU, CUDA events after a
 *     warm-up): frames (information bits, encoder, symbols), channels and received vectors,
 *     normalize, nway's plan (QR and detection with soft output), the layered min-sum decoder at
 *     10 and 20 iterations with and without early stop, the count. In Gbps of information bits; the
 *     sum of the stages is the floor a launch can reach on one stream.
 *  2. simulate() with engine cuda at Eb/N0 `--ebn0` dB, no error stop, `--sim-frames` frames a point
 *     in chunks of `--chunk` vectors: information bits per second of the second of two equal points'
 *     wall time (the first compiles), for each decoder setting.
 * Usage: node dist/bench/sim/gpu-coded-link.js [--frames N] [--sim-frames N] [--chunk N] [--ebn0 DB]
 */
import { ldpcCode } from '../../src/coding/code.js';
import { requireCuda } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { snrToNoiseVar } from '../../src/mimo/channel.js';
import { maxNodesOf } from '../../src/mimo/budget.js';
import { enqueueNormalize, GPU_LLR_LIMIT } from '../../src/mimo/gpu/detect-batch.js';
import { STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import { validateDetection } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import { DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import type { DecoderOptions } from '../../src/coding/types.js';
import { CodedLinkKernels } from '../../src/sim/gpu/coded-kernels.js';
import { LinkKernels } from '../../src/sim/gpu/link-kernels.js';
import { simulate } from '../../src/sim/simulate.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};

const CODE = 'wimax:2304:1/2';
const SETTINGS: { label: string; decoder: DecoderOptions }[] = [
  { label: '10 it, no early stop', decoder: { algorithm: 'nms', maxIterations: 10, earlyStop: false } },
  { label: '10 it, early stop', decoder: { algorithm: 'nms', maxIterations: 10, earlyStop: true } },
  { label: '20 it, no early stop', decoder: { algorithm: 'nms', maxIterations: 20, earlyStop: false } },
  { label: '20 it, early stop', decoder: { algorithm: 'nms', maxIterations: 20, earlyStop: true } },
];

async function stages(frames: number, ebn0: number): Promise<void> {
  const ctx = requireCuda();
  const nt = 4, nr = 4, modulation = '16qam' as const, con = constellation(modulation), bps = con.bitsPerSymbol;
  const code = ldpcCode(CODE);
  const coded = SETTINGS.map((s) => new CodedLinkKernels(ctx, code, s.decoder, nt, bps));
  const ck = coded[0]!;
  const vectors = frames * ck.vpf, channels = vectors;
  const noiseVar = snrToNoiseVar(ebn0, 'ebn0', bps, code.rate);
  const link = new LinkKernels(ctx, nt, nr, { coded: true });
  const opts = { detector: 'nway' as const, passes: 4, modulation, soft: 'maxlog' as const };
  const val = validateDetection({ nt, nr, H: new Float64Array(2 * nr * nt), y: new Float64Array(2 * nr), noiseVar: 1 }, opts);
  const impl = await DETECTOR_REGISTRY.nway.cuda!();
  const plan = impl.create(ctx, { nr, nt, modulation, constellation: con, opts: val.opts, soft: true, maxNodes: maxNodesOf(undefined), llrClip: GPU_LLR_LIMIT, vectorsPerChannel: 1, device: ctx.props });
  const bufs: DeviceBuffer[] = [];
  const alloc = (bytes: number) => { const b = DeviceBuffer.alloc(ctx, Math.max(16, bytes)); bufs.push(b); return b; };
  const hLen = 2 * nr * nt;
  const b = {
    points: alloc(con.points.byteLength), H64: alloc(channels * hLen * 8), H32: alloc(channels * hLen * 4), tx: alloc(vectors * nt * 4),
    y32: alloc(vectors * 2 * nr * 4), n0: alloc(vectors * 4), statusBase: alloc(vectors * STATUS_WORDS * 4), status: alloc(vectors * STATUS_WORDS * 4),
    rx: alloc(vectors * nt * 4), info: alloc(frames * code.k), cw: alloc(frames * ck.nFull), llr: alloc(vectors * nt * bps * 4),
    bits: alloc(frames * code.k), dec: alloc(frames * 4), counts: alloc(64), list: alloc(4 * 200),
  };
  const scratch = plan.scratchBytesPerChannel.map((s) => alloc(s * channels).ptr);
  b.points.upload(con.points);
  const stream = Stream.create(ctx);
  const l = { seed: 7, snrIndex: 0, chunk0: 0, v0: 0, chunkVectors: vectors, vectors, vpc: 1, lastVectors: vectors };
  const infoBits = frames * code.k;
  const report = (name: string, ms: number) => console.log(`  ${name.padEnd(34)} ${ms.toFixed(3).padStart(8)} ms  ${(infoBits / (ms * 1e-3) / 1e9).toFixed(2).padStart(7)} Gbps of information bits`);
  const time = (work: () => void) => timeOnStream(ctx, stream, work, 10, 2).medianMs;
  const enqFrames = () => ck.enqueueFrames(stream, l, { info: b.info.ptr, cw: b.cw.ptr, tx: b.tx.ptr });
  const enqGen = () => link.enqueueGenerate(stream, l, { points: b.points.ptr, H64: b.H64.ptr, H32: b.H32.ptr, tx: b.tx.ptr, y32: b.y32.ptr }, con.size, Math.sqrt(noiseVar / 2));
  const enqNorm = () => {
    b.statusBase.fillRange(0, vectors * STATUS_WORDS * 4, 0, stream);
    enqueueNormalize(ctx, stream, { H: b.H32.ptr, y: b.y32.ptr, noiseIn: 0n, noiseScalar: noiseVar, noiseOut: b.n0.ptr, status: b.statusBase.ptr }, channels, 1, nr, nt);
  };
  const enqDetect = () => {
    b.status.copyFromAsync(b.statusBase, stream, vectors * STATUS_WORDS * 4);
    plan.enqueue(stream, { channels, vectorsPerChannel: 1, H: b.H32.ptr, y: b.y32.ptr, noise: b.n0.ptr, symbols: b.rx.ptr, llr: b.llr.ptr, status: b.status.ptr, scratch });
  };
  const enqDecode = (k: CodedLinkKernels) => k.enqueueDecode(stream, frames, { llr: b.llr.ptr, input: 0n, bits: b.bits.ptr, dec: b.dec.ptr });
  const enqCount = () => {
    b.counts.fill(0, stream); b.list.fill(0, stream);
    ck.enqueueCount(stream, l, { info: b.info.ptr, bits: b.bits.ptr, dec: b.dec.ptr, tx: b.tx.ptr, rx: b.rx.ptr, status: b.status.ptr, counts: b.counts.ptr, list: b.list.ptr }, 64, 0, 0);
  };
  console.log(`stages, one launch of ${frames} frames (${vectors} vectors) of ${CODE}, 4x4 16-QAM, nway N = 4, Eb/N0 ${ebn0} dB:`);
  const tFrames = time(enqFrames); report('frames (bits, encoder, symbols)', tFrames);
  const tGen = time(enqGen); report('channels, received vectors', tGen);
  const tNorm = time(enqNorm); report('normalize', tNorm);
  const tDet = time(enqDetect); report('nway N = 4, soft (QR, detection)', tDet);
  const tCount = time(() => { enqDecode(coded[0]!); enqCount(); }) - time(() => enqDecode(coded[0]!));
  for (const [i, s] of SETTINGS.entries()) {
    enqFrames(); enqGen(); enqNorm(); enqDetect();
    const tDec = time(() => enqDecode(coded[i]!));
    const it = new Int32Array(frames);
    b.dec.download(it);
    const mean = it.reduce((a, x) => a + (x & 0xffff), 0) / frames;
    report(`decoder, ${s.label} (mean ${mean.toFixed(2)})`, tDec);
    const rest = tFrames + tGen + tNorm + tDet + Math.max(0, tCount);
    report(`  sum of the stages with it`, rest + tDec);
    const whole = time(() => { enqFrames(); enqGen(); enqNorm(); enqDetect(); enqDecode(coded[i]!); enqCount(); });
    report(`  whole launch, one stream`, whole);
  }
  report('count', Math.max(0, tCount));
  stream.destroy();
  for (const x of bufs) x.free();
  for (const k of coded) k.free();
}

async function endToEnd(simFrames: number, chunk: number, ebn0: number): Promise<void> {
  console.log(`simulate --engine cuda --code ${CODE}, 4x4 16-QAM, nway N = 4, Eb/N0 ${ebn0} dB, ${simFrames} frames a point, chunks of ${chunk} vectors:`);
  for (const s of SETTINGS) {
    let wallMs = 0;
    const r = await simulate({
      nt: 4, nr: 4, modulation: '16qam', detectors: [{ detector: 'nway', passes: 4 }], code: CODE, decoder: s.decoder,
      snrs: [ebn0, ebn0], snrType: 'ebn0', maxErrors: Number.MAX_SAFE_INTEGER, maxFrames: simFrames, chunkVectors: chunk, seed: 1, engine: 'cuda',
      onProgress: (e) => { if (e.type === 'point' && e.snrIndex === 1) wallMs = e.pointWallMs; },
    });
    const p = r.points[1]!;
    console.log(`  ${s.label.padEnd(22)} ${(p.bits / (wallMs * 1e-3) / 1e9).toFixed(2)} Gbps of information bits (${p.frames} frames, ${wallMs.toFixed(0)} ms), FER ${p.fer.toExponential(2)}, BER ${p.ber.toExponential(2)}, mean iterations ${p.meanIterations?.toFixed(2)}, engine ${r.engine}`);
  }
}

async function main(): Promise<void> {
  const dev = requireCuda().props;
  console.log(`device: ${dev.name}, ${dev.multiprocessors} SMs; ${new Date().toISOString()}`);
  const ebn0 = Number(arg('ebn0', '4'));
  await stages(Number(arg('frames', '1820')), ebn0);
  await endToEnd(Number(arg('sim-frames', String(1 << 17))), Number(arg('chunk', String(144 * 455))), ebn0);
}

await main();
