/**
 * The coded link on the GPU (simulate --engine cuda --code ...), measured on the device: 4x4 16-QAM,
 * nway N = 4 (max-log LLRs), WiMAX n = 2304 rate 1/2, one channel a vector.
 *  1. Stage by stage on one launch of `--frames` frames (data on the GPU, CUDA events after a
 *     warm-up): frames (information bits, encoder, symbols), channels and received vectors,
 *     normalize, nway's plan (QR and detection with soft output), the layered min-sum decoder at
 *     10 and 20 iterations with and without early stop, the count. In Gbps of information bits; the
 *     sum of the stages is the floor a launch can reach on one stream.
 *     Then two such launches on two streams at once against one after the other on one stream.
 *  2. simulate() with engine cuda at Eb/N0 `--ebn0` dB, no error stop, `--sim-frames` frames a point
 *     in chunks of `--chunk` vectors: information bits per second of the second of two equal points'
 *     wall time (the first compiles), for each decoder setting.
 *     Each for `--vpc` vectors a channel (default 1 and 144: a channel a vector, a channel a frame).
 * Usage: node dist/bench/sim/gpu-coded-link.js [--frames N] [--sim-frames N] [--chunk N] [--unit N] [--ebn0 DB] [--vpc LIST]
 * (--unit: simulate()'s unitVectors in step 2, default its own: units as large as the chunk show the host's work a unit)
 */
import { ldpcCode } from '../../src/coding/code.js';
import { requireCuda } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { snrToNoiseVar } from '../../src/mimo/channel.js';
import { maxNodesOf } from '../../src/mimo/budget.js';
import { enqueueNormalize, GPU_LLR_LIMIT } from '../../src/mimo/gpu/detect-batch.js';
import { MIMO_STATUS, STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import { validateDetection } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import { DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import type { DecoderOptions } from '../../src/coding/types.js';
import { CodedLinkKernels, type CodedLaunch } from '../../src/sim/gpu/coded-kernels.js';
import type { CudaDetectorPlan, DetectChunk } from '../../src/mimo/gpu/cuda-detector.js';
import type { CudaContext } from '../../src/gpu/context.js';
import { CHANNEL_REGISTRY, type ChannelCudaPlan } from '../../src/channels/index.js';
import { LinkKernels } from '../../src/sim/gpu/link-kernels.js';
import { simulate } from '../../src/sim/simulate.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};

const CODE = 'wimax:2304:1/2';
const REDO = MIMO_STATUS.NON_FINITE | MIMO_STATUS.Y_TOO_LARGE | MIMO_STATUS.RANK_DEFICIENT | MIMO_STATUS.FLOAT32_UNSAFE;
const SETTINGS: { label: string; decoder: DecoderOptions }[] = [
  { label: '10 it, no early stop', decoder: { algorithm: 'nms', maxIterations: 10, earlyStop: false } },
  { label: '10 it, early stop', decoder: { algorithm: 'nms', maxIterations: 10, earlyStop: true } },
  { label: '20 it, no early stop', decoder: { algorithm: 'nms', maxIterations: 20, earlyStop: false } },
  { label: '20 it, early stop', decoder: { algorithm: 'nms', maxIterations: 20, earlyStop: true } },
];

/** The device buffers and kernels of one launch of the coded link (as the executor enqueues it), for `vpc` vectors a channel. */
class Pipeline {
  readonly vectors: number;
  readonly channels: number;
  readonly coded: CodedLinkKernels[];
  private readonly bufs: DeviceBuffer[] = [];
  private readonly b: Record<string, DeviceBuffer>;
  private readonly scratch: bigint[];
  private readonly link: LinkKernels;
  private readonly l: CodedLaunch;
  readonly plan: CudaDetectorPlan;
  readonly noiseVar: number;
  private constructor(
    readonly ctx: CudaContext,
    readonly frames: number,
    readonly vpc: number,
    ebn0: number,
    plan: CudaDetectorPlan,
    channels: ChannelCudaPlan,
  ) {
    const nt = 4,
      nr = 4,
      con = constellation('16qam'),
      bps = con.bitsPerSymbol,
      code = ldpcCode(CODE);
    this.plan = plan;
    this.coded = SETTINGS.map((s) => new CodedLinkKernels(ctx, code, s.decoder, nt, bps));
    const ck = this.coded[0]!;
    this.vectors = frames * ck.vpf;
    if (this.vectors % vpc !== 0) throw new Error(`${this.vectors} vectors are not whole channels of ${vpc}`);
    this.channels = this.vectors / vpc;
    this.noiseVar = snrToNoiseVar(ebn0, 'ebn0', bps, code.rate);
    this.link = new LinkKernels(ctx, nt, nr, { coded: true, channels });
    const alloc = (bytes: number) => {
      const x = DeviceBuffer.alloc(ctx, Math.max(16, bytes));
      this.bufs.push(x);
      return x;
    };
    const hLen = 2 * nr * nt,
      V = this.vectors,
      C = this.channels;
    this.b = {
      points: alloc(con.points.byteLength),
      H64: alloc(C * hLen * 8),
      H32: alloc(C * hLen * 4),
      tx: alloc(V * nt * 4),
      y32: alloc(V * 2 * nr * 4),
      n0: alloc(V * 4),
      statusBase: alloc(V * STATUS_WORDS * 4),
      status: alloc(V * STATUS_WORDS * 4),
      rx: alloc(V * nt * 4),
      info: alloc(frames * code.k),
      cw: alloc(frames * ck.nFull),
      llr: alloc(V * nt * bps * 4),
      bits: alloc(frames * code.k),
      dec: alloc(frames * 4),
      counts: alloc(64),
      list: alloc(4 * 200),
      skipped: alloc(4 * 17),
      side: alloc(16 * ck.perFrame * 4),
    };
    this.scratch = plan.scratchBytesPerChannel.map((x) => alloc(x * C).ptr);
    this.b.points!.upload(con.points);
    this.l = { seed: 7, snrIndex: 0, unit0: 0, v0: 0, unitVectors: V, vectors: V, vpc, lastVectors: V };
  }

  static async create(ctx: CudaContext, frames: number, vpc: number, ebn0: number): Promise<Pipeline> {
    const nt = 4,
      nr = 4,
      modulation = '16qam' as const,
      con = constellation(modulation);
    const opts = { detector: 'nway' as const, passes: 4, modulation, soft: 'maxlog' as const };
    const val = validateDetection(
      { nt, nr, H: new Float64Array(2 * nr * nt), y: new Float64Array(2 * nr), noiseVar: 1 },
      opts,
    );
    const impl = await DETECTOR_REGISTRY.nway.cuda!();
    const plan = impl.create(ctx, {
      nr,
      nt,
      modulation,
      constellation: con,
      opts: val.opts,
      soft: true,
      maxNodes: maxNodesOf(undefined),
      llrClip: GPU_LLR_LIMIT,
      vectorsPerChannel: vpc,
      device: ctx.props,
    });
    const channels = (await CHANNEL_REGISTRY.rayleigh.cuda!()).plan(ctx, { nt, nr }, {});
    return new Pipeline(ctx, frames, vpc, ebn0, plan, channels);
  }

  makeFrames(stream: Stream): void {
    const b = this.b;
    this.coded[0]!.enqueueFrames(stream, this.l, { info: b.info!.ptr, cw: b.cw!.ptr, tx: b.tx!.ptr });
  }

  generate(stream: Stream): void {
    const b = this.b;
    this.link.enqueueGenerate(
      stream,
      this.l,
      { points: b.points!.ptr, H64: b.H64!.ptr, H32: b.H32!.ptr, tx: b.tx!.ptr, y32: b.y32!.ptr },
      16,
      Math.sqrt(this.noiseVar / 2),
    );
  }

  normalize(stream: Stream): void {
    const b = this.b;
    b.statusBase!.fillRange(0, this.vectors * STATUS_WORDS * 4, 0, stream);
    enqueueNormalize(
      this.ctx,
      stream,
      {
        H: b.H32!.ptr,
        y: b.y32!.ptr,
        noiseIn: 0n,
        noiseScalar: this.noiseVar,
        noiseOut: b.n0!.ptr,
        status: b.statusBase!.ptr,
      },
      this.channels,
      this.vpc,
      4,
      4,
    );
  }

  private chunk(): DetectChunk {
    const b = this.b;
    return {
      channels: this.channels,
      vectorsPerChannel: this.vpc,
      H: b.H32!.ptr,
      y: b.y32!.ptr,
      noise: b.n0!.ptr,
      symbols: b.rx!.ptr,
      llr: b.llr!.ptr,
      status: b.status!.ptr,
      scratch: this.scratch,
    };
  }

  /** The detector's plan, or one of its stages (by name). */
  detect(stream: Stream, stage?: string): void {
    const c = this.chunk();
    if (stage === undefined) {
      this.b.status!.copyFromAsync(this.b.statusBase!, stream, this.vectors * STATUS_WORDS * 4);
      this.plan.enqueue(stream, c);
    } else {
      this.plan.stages!.find((x) => x.name === stage)!.enqueue(stream, c);
    }
  }

  decode(stream: Stream, setting: number): void {
    const b = this.b;
    this.coded[setting]!.enqueueDecode(stream, this.frames, {
      llr: b.llr!.ptr,
      input: 0n,
      bits: b.bits!.ptr,
      dec: b.dec!.ptr,
    });
  }

  count(stream: Stream): void {
    const b = this.b;
    b.counts!.fill(0, stream);
    b.list!.fill(0, stream);
    b.skipped!.fill(0, stream);
    // the executor's masks: flagged vectors listed and their frames left out (with their LLRs)
    this.coded[0]!.enqueueCount(
      stream,
      this.l,
      {
        info: b.info!.ptr,
        bits: b.bits!.ptr,
        dec: b.dec!.ptr,
        tx: b.tx!.ptr,
        rx: b.rx!.ptr,
        status: b.status!.ptr,
        llr: b.llr!.ptr,
        counts: b.counts!.ptr,
        list: b.list!.ptr,
        skipped: b.skipped!.ptr,
        side: b.side!.ptr,
      },
      64,
      REDO,
      REDO,
      16,
    );
  }

  whole(stream: Stream, setting: number): void {
    this.makeFrames(stream);
    this.generate(stream);
    this.normalize(stream);
    this.detect(stream);
    this.decode(stream, setting);
    this.count(stream);
  }

  /** Vectors the detector flagged and frames left out for a redo in the last count. */
  flagged(): { vectors: number; frames: number } {
    const v = new Int32Array(1),
      f = new Int32Array(1);
    this.b.list!.download(v);
    this.b.skipped!.download(f);
    return { vectors: v[0]!, frames: f[0]! };
  }

  meanIterations(): number {
    const it = new Int32Array(this.frames);
    this.b.dec!.download(it);
    return it.reduce((a, x) => a + (x & 0xffff), 0) / this.frames;
  }

  free(): void {
    for (const x of this.bufs) x.free();
    for (const k of this.coded) k.free();
  }
}

async function stages(frames: number, vpc: number, ebn0: number): Promise<void> {
  const ctx = requireCuda();
  const p = await Pipeline.create(ctx, frames, vpc, ebn0);
  const stream = Stream.create(ctx);
  const infoBits = frames * 1152;
  const report = (name: string, ms: number) =>
    console.log(
      `  ${name.padEnd(40)} ${ms.toFixed(3).padStart(8)} ms  ${(infoBits / (ms * 1e-3) / 1e9).toFixed(2).padStart(7)} Gbps of information bits`,
    );
  const time = (work: () => void) => timeOnStream(ctx, stream, work, 10, 2).medianMs;
  console.log(
    `stages, one launch of ${frames} frames (${p.vectors} vectors, ${vpc} a channel) of ${CODE}, 4x4 16-QAM, nway N = 4, Eb/N0 ${ebn0} dB:`,
  );
  const tFrames = time(() => p.makeFrames(stream));
  report('frames (bits, encoder, symbols)', tFrames);
  const tGen = time(() => p.generate(stream));
  report('channels, received vectors', tGen);
  const tNorm = time(() => p.normalize(stream));
  report('normalize', tNorm);
  const tDet = time(() => p.detect(stream));
  report('nway N = 4, soft', tDet);
  for (const st of p.plan.stages ?? [])
    report(
      `  its stage '${st.name}'`,
      time(() => p.detect(stream, st.name)),
    );
  const tCount = time(() => p.count(stream));
  report('count', tCount);
  for (const [i, s] of SETTINGS.entries()) {
    p.makeFrames(stream);
    p.generate(stream);
    p.normalize(stream);
    p.detect(stream);
    const tDec = time(() => p.decode(stream, i));
    report(`decoder, ${s.label} (mean ${p.meanIterations().toFixed(2)})`, tDec);
    report('  sum of the stages with it', tFrames + tGen + tNorm + tDet + tCount + tDec);
    report(
      '  whole launch, one stream',
      time(() => p.whole(stream, i)),
    );
  }
  const fl = p.flagged();
  console.log(
    `  flagged by the detector in the launch: ${fl.vectors} vectors, ${fl.frames} frames left out for a redo on the CPU`,
  );
  stream.destroy();
  p.free();
}

/** Two launches at once on two streams against one after the other on one (host wall time, median of 10). */
async function overlap(frames: number, vpc: number, ebn0: number): Promise<void> {
  const ctx = requireCuda();
  const a = await Pipeline.create(ctx, frames, vpc, ebn0),
    b = await Pipeline.create(ctx, frames, vpc, ebn0);
  const s1 = Stream.create(ctx),
    s2 = Stream.create(ctx);
  const wall = (work: () => void) => {
    const t: number[] = [];
    for (let r = 0; r < 12; r++) {
      const t0 = performance.now();
      work();
      s1.synchronize();
      s2.synchronize();
      if (r >= 2) t.push(performance.now() - t0);
    }
    return t.sort((x, y) => x - y)[t.length >> 1]!;
  };
  const one = wall(() => {
    a.whole(s1, 0);
    b.whole(s1, 0);
  });
  const two = wall(() => {
    a.whole(s1, 0);
    b.whole(s2, 0);
  });
  const bits = 2 * frames * 1152;
  console.log(
    `  two launches of ${frames} frames (${vpc} a channel, 10 it, no early stop): one stream ${one.toFixed(3)} ms = ${(bits / (one * 1e-3) / 1e9).toFixed(2)} Gbps, two streams ${two.toFixed(3)} ms = ${(bits / (two * 1e-3) / 1e9).toFixed(2)} Gbps`,
  );
  s1.destroy();
  s2.destroy();
  a.free();
  b.free();
}

async function endToEnd(
  simFrames: number,
  chunk: number,
  vpc: number,
  ebn0: number,
  settings = SETTINGS,
  unit = 0,
): Promise<void> {
  console.log(
    `simulate --engine cuda --code ${CODE}, 4x4 16-QAM, nway N = 4, ${vpc} vectors a channel, Eb/N0 ${ebn0} dB, ${simFrames} frames a point, chunks of ${chunk} vectors:`,
  );
  for (const s of settings) {
    let wallMs = 0;
    const r = await simulate({
      nt: 4,
      nr: 4,
      modulation: '16qam',
      detectors: [{ detector: 'nway', passes: 4 }],
      code: CODE,
      decoder: s.decoder,
      snrs: [ebn0, ebn0],
      snrType: 'ebn0',
      maxErrors: Number.MAX_SAFE_INTEGER,
      maxFrames: simFrames,
      maxVectors: simFrames * 144,
      chunkVectors: chunk,
      ...(unit > 0 ? { unitVectors: unit } : {}),
      vectorsPerChannel: vpc,
      seed: 1,
      engine: 'cuda',
      onProgress: (e) => {
        if (e.type === 'point' && e.snrIndex === 1) wallMs = e.pointWallMs;
      },
    });
    const p = r.points[1]!;
    console.log(
      `  ${s.label.padEnd(22)} ${(p.bits / (wallMs * 1e-3) / 1e9).toFixed(2)} Gbps of information bits (${p.frames} frames, ${wallMs.toFixed(0)} ms), FER ${p.fer.toExponential(2)}, BER ${p.ber.toExponential(2)}, mean iterations ${p.meanIterations?.toFixed(2)}, engine ${r.engine}`,
    );
  }
}

async function main(): Promise<void> {
  const dev = requireCuda().props;
  console.log(`device: ${dev.name}, ${dev.multiprocessors} SMs; ${new Date().toISOString()}`);
  const ebn0 = Number(arg('ebn0', '4'));
  const frames = Number(arg('frames', '1820')),
    simFrames = Number(arg('sim-frames', String(1 << 17))),
    chunk = Number(arg('chunk', String(144 * 455))),
    unit = Number(arg('unit', '0'));
  const vpcs = arg('vpc', '1,144').split(',').map(Number);
  for (const vpc of vpcs) await stages(frames, vpc, ebn0);
  console.log('overlap:');
  for (const vpc of vpcs) await overlap(frames, vpc, ebn0);
  for (const vpc of vpcs) await endToEnd(simFrames, chunk, vpc, ebn0, SETTINGS, unit);
  // the default chunk (7 frames): the host's work a chunk shows
  await endToEnd(Math.min(simFrames, 1 << 15), 144 * 7, 1, ebn0, SETTINGS.slice(0, 1));
}

await main();
