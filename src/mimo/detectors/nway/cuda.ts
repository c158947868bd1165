/**
 * The N-way soft detector on the GPU (the N-way paper, Section IV): per chunk, the batched MGS QR
 * of every channel for each of the N rotated passes (src/mimo/gpu/preprocess/qr-thread.cu, one
 * thread per QR, or qr-batch.cu, the paper's thread per column: the same records bit for bit; once
 * per channel, records in per-channel scratch; with one vector per channel the records hold z = Q^T y
 * in place of Q: 92 floats a record instead of 148 for 4x4), then nway-detect.cu: Q threads a
 * pass of M = Q^2 paths (Alg. 2, the Q paths of a thread sharing the first level), N passes and several vectors a
 * block, the hypothesis / counter-hypothesis minima and the merge over passes in shared memory
 * (Alg. 3, Section IV-D), max-log LLRs clipped in the kernel. float32; the CPU engine's conventions (nway/cpu.ts, ssfe/search.ts): the same rotations,
 * level rounding, tie order (the first least metric in pass then path order) and LLR sign.
 * SSFE is the one-pass case (ssfe/cuda.ts).
 *
 * A-priori LLRs (DetectChunk.prior, IDD): a chunk that carries them runs the kernel's NW_PRIOR
 * build (compiled at the first such chunk): each vector's a-priori level costs in the metrics and
 * in the child choice of the levels they touch, extrinsic LLRs out, the CPU engine's node count
 * (ssfe/search.ts's LevelPriors and runSsfePass); a chunk without runs the prior-free build, as
 * before. The float64 redo kernel takes no priors: the engine redoes a prior-carrying batch's
 * flagged vectors on the CPU engine (detect-batch.ts's FlaggedVectors).
 */
import { InvalidArgumentError, UnsupportedError } from '../../../core/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../../gpu/index.js';
import type {
  CudaDetector,
  CudaDetectorPlan,
  CudaDetectorSetup,
  DetectChunk,
  Float64Kernel,
  PlanStage,
} from '../../gpu/cuda-detector.js';
import { realModelDefines, withSymbolTable } from '../kbest/gpu-model.js';
import { llrClipOf } from '../../soft/maxlog.js';
import { defaultQrMapping, QrBatchPlan, type QrMapping, type QrThreadLaunch } from '../../gpu/preprocess/qr-batch.js';
import { normalizeArgs, summaryArgs } from '../../gpu/fused-stages.js';
import { detectorRealModel, type RealModel } from '../../soft/real-model.js';
import type { Detector } from '../../types.js';
import { passesOf } from './cpu.js';

export const NWAY_DETECT_URL = new URL('./nway-detect.cu', import.meta.url);

/** Threads a block aims at by default (measured: 64 a little ahead of 32, 128 and 256); a vector's threads never span two blocks. */
const BLOCK_TARGET = 64;

/**
 * Launch choices of the detection kernel (defaults: the production build), validated by
 * nwayTuningOf. Measured on the H100 in bench/mimo/gpu-nway-notes.md.
 */
export interface NwayTuning {
  /** Threads a block aims at (a power of two, 32 .. 1024; default 64). */
  readonly blockThreads?: number;
  /** Copies of a vector's level-minimum table (a power of two, at most the Q threads of a pass; default: Q / 2). */
  readonly copies?: number;
  /** Resident blocks a multiprocessor the registers are capped for (__launch_bounds__; 1: no cap; default by shape, see nwayDefines). */
  readonly minBlocks?: number;
  /** A measurement build's source in place of nway-detect.cu, and its further -D defines (bench/kernels/traced.ts's nwayBuild). */
  readonly build?: {
    readonly source: string;
    readonly name: string;
    readonly defines: Readonly<Record<string, number>>;
  };
  /** The same for the QR kernel, qr-batch.cu (bench/mimo/gpu-nway.ts); implies qrMapping 'column'. */
  readonly qrBuild?: {
    readonly source: string;
    readonly name: string;
    readonly defines: Readonly<Record<string, number>>;
  };
  /** The QR kernel: 'thread' (qr-thread.cu, one thread per QR) or 'column' (qr-batch.cu); default nwayQrMapping's. */
  readonly qrMapping?: QrMapping;
  /** qr-thread.cu's launch choices (threads a block, staging chunk; qr-batch.ts's QrThreadLaunch), checked by QrBatchPlan. */
  readonly qrThread?: QrThreadLaunch;
}

/**
 * The QR kernel's mapping when the tuning names none. With one vector a channel (z records) the
 * QR is the largest stage and its batches are large: qr-batch.ts's defaultQrMapping ('thread' where
 * the real matrix fits registers comfortably, 4x4 QAM included), measured twice as fast on the H100.
 * With several vectors a channel the QR is a small share, often of a small batch (a 5G slot: a
 * fraction of a wave), where the paper's column mapping has the shorter latency: 'column'.
 */
export function nwayQrMapping(m: RealModel, zOfVector: boolean): QrMapping {
  return zOfVector ? defaultQrMapping(m.nr, m.nt, m.dimsPerStream, false) : 'column';
}

const isPow2 = (x: number): boolean => Number.isInteger(x) && x >= 1 && (x & (x - 1)) === 0;

/** `tuning` checked against the kernel's limits for this model and pass count (InvalidArgumentError naming the field). */
export function nwayTuningOf(m: RealModel, tuning: NwayTuning = {}): NwayTuning {
  const g = m.nd >= 2 ? m.q : 1;
  const { blockThreads, copies, minBlocks, qrMapping } = tuning;
  if (blockThreads !== undefined && (!isPow2(blockThreads) || blockThreads < 32 || blockThreads > 1024)) {
    throw new InvalidArgumentError(`tuning.blockThreads must be a power of two in [32, 1024], got ${blockThreads}`);
  }
  if (copies !== undefined && (!isPow2(copies) || copies > g)) {
    throw new InvalidArgumentError(
      `tuning.copies must be a power of two in [1, ${g}] (the threads of a pass), got ${copies}`,
    );
  }
  if (minBlocks !== undefined && (!Number.isInteger(minBlocks) || minBlocks < 1 || minBlocks > 32)) {
    throw new InvalidArgumentError(`tuning.minBlocks must be an integer in [1, 32], got ${minBlocks}`);
  }
  if (qrMapping !== undefined && qrMapping !== 'column' && qrMapping !== 'thread') {
    throw new InvalidArgumentError(`tuning.qrMapping must be 'column' or 'thread', got ${String(qrMapping)}`);
  }
  if (qrMapping === 'thread' && tuning.qrBuild) {
    throw new InvalidArgumentError(
      "tuning.qrBuild is a build of qr-batch.cu (the column mapping), got qrMapping 'thread' with it",
    );
  }
  return tuning;
}
/** The largest QL x passes (threads of one vector): one block. */
const MAX_THREADS_PER_VECTOR = 1024;

/**
 * The symbol-index bits each real and imaginary level index carries (symbol = reBits[lr] | imBits[li]),
 * read off the constellation's tables; checked against every symbol and the bit table, so the
 * kernel's per-dimension LLRs are the CPU's per-symbol ones.
 */
export function levelBits(m: RealModel): { reBits: number[]; imBits: number[] } {
  const q = m.q,
    bps = m.bitsPerSymbol,
    table = m.symbolOfLevels;
  if (m.dimsPerStream === 1) return { reBits: [table[0]!, table[1]!], imBits: [0, 0] };
  let reMask = 0,
    imMask = 0;
  for (let l = 0; l < q; l++) {
    reMask |= table[l * q]! ^ table[0]!;
    imMask |= table[l]! ^ table[0]!;
  }
  const reBits: number[] = [],
    imBits: number[] = [];
  for (let l = 0; l < q; l++) {
    reBits.push(table[l * q]! & reMask);
    imBits.push(table[l]! & imMask);
  }
  let ok = (reMask & imMask) === 0 && (reMask | imMask) === (1 << bps) - 1;
  for (let a = 0; a < q && ok; a++) {
    for (let b = 0; b < q && ok; b++) {
      const sym = table[a * q + b]!;
      if (sym !== (reBits[a]! | imBits[b]!)) ok = false;
      for (let bit = 0; bit < bps; bit++)
        if (m.bitTable[sym * bps + bit] !== ((sym >> (bps - 1 - bit)) & 1)) ok = false;
    }
  }
  if (!ok)
    throw new UnsupportedError('the N-way kernel needs a constellation whose bits each follow one PAM dimension');
  return { reBits, imBits };
}

/** Threads of one vector: Q x passes padded to a power of two up to 32, or to a multiple of 32 (nway-detect.cu's NW_TP). */
export function paddedThreads(p: number): number {
  if (p > 32) return Math.ceil(p / 32) * 32;
  let t = 1;
  while (t < p) t *= 2;
  return t;
}

/**
 * The detection kernel's launch shape for a model and pass count (nway-detect.cu's thread mapping
 * and shared layout): Q threads a pass (1 when nd = 1), `copies` level-minimum tables a vector;
 * `priors`: the NW_PRIOR build, whose vectors also hold an nd x Q cost table and nd active flags.
 */
export function nwayLaunchShape(
  m: RealModel,
  passes: number,
  soft = true,
  tuning: NwayTuning = {},
  priors = false,
): { paths: number; threadsPerVector: number; vectorsPerBlock: number; copies: number; sharedBytes: number } {
  const paths = m.nd >= 2 ? m.q * m.q : m.q;
  const g = m.nd >= 2 ? m.q : 1;
  const threadsPerVector = paddedThreads(g * passes);
  // whole warps a block: a multiple of 32 / threadsPerVector vectors
  const perWarp = Math.max(1, Math.floor(32 / threadsPerVector));
  const vectorsPerBlock = Math.max(
    perWarp,
    Math.floor((tuning.blockThreads ?? BLOCK_TARGET) / threadsPerVector / perWarp) * perWarp,
  );
  // half the pass's threads (measured: ahead of g and g / 4 for 16- and 64-QAM, bench/mimo/gpu-nway-notes.md)
  const copies = tuning.copies ?? Math.max(1, g >> 1);
  const table = soft ? m.nd * m.q * copies : 0;
  const stride = Math.ceil(table / 32) * 32 + (threadsPerVector < 32 ? (threadsPerVector * copies) / g : 0);
  const wpv = threadsPerVector > 32 ? threadsPerVector / 32 : 1;
  const priorWords = priors ? m.nd * m.q + m.nd : 0;
  return {
    paths,
    threadsPerVector,
    vectorsPerBlock,
    copies,
    sharedBytes: 4 * vectorsPerBlock * (stride + (wpv > 1 ? wpv : 0) + priorWords),
  };
}

/** Entries from..from+7 of a byte table as a hex integer, entry from + i in bits 8i .. 8i+7. */
function packBytes(table: readonly number[], from: number): string {
  let v = 0n;
  for (let i = 0; i < 8 && from + i < table.length; i++) v |= BigInt(table[from + i]!) << BigInt(8 * i);
  return `0x${v.toString(16)}ull`;
}

/**
 * Resident blocks a multiprocessor the registers are capped for, by default: the kernel holds R
 * and a thread's Q paths in registers (about 95 for 4x4 16-QAM, 160 for 64-QAM uncapped). Measured
 * (bench/mimo/gpu-nway-notes.md): a cap at 64 registers (1024 threads a multiprocessor) for Q <= 4
 * and at 80 (768) for Q = 8 beat the uncapped builds despite a few spilled words; 128 (512) above.
 */
function defaultMinBlocks(m: RealModel, blockThreads: number): number {
  const threads = m.nd > 8 || m.q > 8 ? 512 : m.q > 4 ? 768 : 1024;
  return Math.max(1, Math.floor(threads / blockThreads));
}

/** The -D defines of one build of nway-detect.cu (`priors`: the NW_PRIOR build, which reads the chunk's a-priori LLRs). */
export function nwayDefines(
  m: RealModel,
  passes: number,
  soft: boolean,
  tuning: NwayTuning = {},
  zOfVector = false,
  priors = false,
): Record<string, string | number> {
  const { reBits, imBits } = levelBits(m);
  const shape = nwayLaunchShape(m, passes, soft, tuning);
  return {
    NW_NR: m.nr,
    NW_NT: m.nt,
    NW_DPS: m.dimsPerStream,
    NW_QL: m.q,
    NW_PASSES: passes,
    NW_VPB: shape.vectorsPerBlock,
    NW_SOFT: soft ? 1 : 0,
    NW_COPIES: shape.copies,
    NW_ZREC: zOfVector ? 1 : 0,
    ...(priors ? { NW_PRIOR: 1 } : {}),
    NW_MINB: tuning.minBlocks ?? defaultMinBlocks(m, shape.threadsPerVector * shape.vectorsPerBlock),
    NW_RE_BITS0: packBytes(reBits, 0),
    NW_RE_BITS1: packBytes(reBits, 8),
    NW_IM_BITS0: packBytes(imBits, 0),
    NW_IM_BITS1: packBytes(imBits, 8),
    ...tuning.build?.defines,
  };
}

/**
 * The compiled plan of `passes` rotated SSFE passes (ssfe: 1; nway: opts.passes, default nt).
 * zOfVector: for chunks of one vector per channel only (enqueue refuses others), the QR stage forms
 * z = Q^T y into its records (no Q) and detection reads it: the same decisions and LLRs, bit for bit.
 */
export class NwayPlan implements CudaDetectorPlan {
  readonly scratchBytesPerChannel: readonly number[];
  readonly stages: readonly PlanStage[];
  readonly qr: QrBatchPlan;
  readonly shape: ReturnType<typeof nwayLaunchShape>;
  /** The QR kernel normalizes the chunk first where its mapping can; the detection kernel adds to the summaries. */
  readonly fuses: { readonly normalize: boolean; readonly summary: boolean };
  private readonly kernel: Kernel;
  /** The NW_PRIOR build and its shared bytes a block, made at the first chunk with priors. */
  private priorKernel: { kernel: Kernel; sharedBytes: number } | null = null;

  constructor(
    private readonly ctx: CudaContext,
    readonly model: RealModel,
    readonly passes: number,
    readonly soft: boolean,
    readonly llrClip: number,
    private readonly tuning: NwayTuning = {},
    readonly zOfVector = false,
  ) {
    nwayTuningOf(model, tuning);
    this.shape = nwayLaunchShape(model, passes, soft, tuning);
    if (this.shape.threadsPerVector > MAX_THREADS_PER_VECTOR) {
      throw new UnsupportedError(
        `the N-way kernel runs Q x passes = ${this.shape.threadsPerVector} threads a vector, at most ${MAX_THREADS_PER_VECTOR}: use fewer passes`,
      );
    }
    const mapping = tuning.qrBuild ? 'column' : (tuning.qrMapping ?? nwayQrMapping(model, zOfVector));
    this.qr = new QrBatchPlan(
      ctx,
      { nr: model.nr, nt: model.nt, dimsPerStream: model.dimsPerStream, passes, sorted: false, zOfVector, mapping },
      model.scale,
      tuning.qrBuild,
      tuning.qrThread,
    );
    this.scratchBytesPerChannel = [this.qr.bytesPerChannel];
    this.fuses = { normalize: this.qr.normalizes, summary: true };
    this.stages = [
      { name: 'qr', enqueue: (stream, chunk) => this.enqueueQr(stream, chunk) },
      { name: 'detect', enqueue: (stream, chunk) => this.enqueueDetect(stream, chunk) },
    ];
    this.kernel = this.loadDetect(false, this.shape.sharedBytes);
  }

  /** A build of the detection kernel (`priors`: NW_PRIOR) with its launch's shared bytes. */
  private loadDetect(priors: boolean, sharedBytes: number): Kernel {
    const { tuning } = this;
    const mod = loadModule(this.ctx, {
      source: tuning.build?.source ?? readKernelSource(NWAY_DETECT_URL),
      name: tuning.build?.name ?? 'nway-detect.cu',
      defines: nwayDefines(this.model, this.passes, this.soft, tuning, this.zOfVector, priors),
    });
    const kernel = mod.kernel('nway_detect', [
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'i32',
      'i32',
      'f32',
      'ptr',
      'i64',
      'ptr',
    ]);
    if (sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(sharedBytes);
    return kernel;
  }

  /** The NW_PRIOR build (compiled at the first call) and its shared bytes a block. */
  private priorBuild(): { kernel: Kernel; sharedBytes: number } {
    if (!this.priorKernel) {
      const { sharedBytes } = nwayLaunchShape(this.model, this.passes, this.soft, this.tuning, true);
      this.priorKernel = { kernel: this.loadDetect(true, sharedBytes), sharedBytes };
    }
    return this.priorKernel;
  }

  /** The detection kernel's registers, local (spill) bytes and resident blocks a multiprocessor at this plan's launch shape. */
  detectKernelInfo(): { registers: number; localBytes: number; blocksPerSm: number; threadsPerBlock: number } {
    const a = this.kernel.attributes();
    const threadsPerBlock = this.shape.threadsPerVector * this.shape.vectorsPerBlock;
    return {
      registers: a.registers,
      localBytes: a.localBytes,
      blocksPerSm: this.kernel.occupancy(threadsPerBlock, this.shape.sharedBytes),
      threadsPerBlock,
    };
  }

  /**
   * The QR kernel on the chunk's channels (records into chunk.scratch[0]; with zOfVector, z of
   * chunk.y's vectors), after the engine's normalize stage when the chunk asks for it.
   */
  enqueueQr(stream: Stream, chunk: DetectChunk): void {
    this.checkChunk(chunk);
    this.qr.enqueue(stream, chunk.H, chunk.y, chunk.scratch[0]!, chunk.channels, normalizeArgs(chunk));
  }

  /**
   * The detection kernel on the chunk's vectors (the QR records must be there): the NW_PRIOR build
   * when the chunk carries a-priori LLRs (its LLRs then extrinsic), else the prior-free one.
   */
  enqueueDetect(stream: Stream, chunk: DetectChunk): void {
    this.checkChunk(chunk);
    const vectors = chunk.channels * chunk.vectorsPerChannel;
    if (vectors <= 0) return;
    const prior = chunk.prior ?? 0n;
    const { vectorsPerBlock, threadsPerVector } = this.shape;
    const { kernel, sharedBytes } =
      prior !== 0n ? this.priorBuild() : { kernel: this.kernel, sharedBytes: this.shape.sharedBytes };
    kernel.launch(
      { grid: Math.ceil(vectors / vectorsPerBlock), block: threadsPerVector * vectorsPerBlock, sharedBytes, stream },
      [
        chunk.y,
        chunk.noise,
        chunk.scratch[0]!,
        chunk.symbols,
        this.soft ? chunk.llr : 0n,
        chunk.status,
        vectors,
        chunk.vectorsPerChannel,
        this.llrClip,
        ...summaryArgs(chunk),
        prior,
      ],
    );
  }

  /** A z-record plan serves one vector per channel (its records hold z of that vector). */
  private checkChunk(chunk: DetectChunk): void {
    if (this.zOfVector && chunk.vectorsPerChannel !== 1) {
      throw new InvalidArgumentError(
        `this N-way plan keeps z = Q^T y of one vector per channel in its QR records, got a chunk of ${chunk.vectorsPerChannel} vectors per channel`,
      );
    }
  }

  enqueue(stream: Stream, chunk: DetectChunk): void {
    this.enqueueQr(stream, chunk);
    this.enqueueDetect(stream, chunk);
  }
}

/**
 * Builds the plan of detector `name` with `passes` passes (the shape checks of the CPU engine
 * first). The kernel clips as the CPU detector does (opts.llrClip, default 8), within the engine's
 * limit. One vector per channel: the z-record plan (NwayPlan's zOfVector).
 */
export function createNwayPlan(name: Detector, ctx: CudaContext, setup: CudaDetectorSetup, passes: number): NwayPlan {
  const model = detectorRealModel(name, setup.constellation, setup.nt, setup.nr);
  return new NwayPlan(
    ctx,
    model,
    passes,
    setup.soft,
    Math.min(setup.llrClip, llrClipOf(setup.opts.llrClip)),
    {},
    setup.vectorsPerChannel === 1,
  );
}

/**
 * nway-float64.cu's launch shape: threadsPerVector (Q a pass, one per first-level point; 1 with a
 * single level) x passes, vectorsPerBlock vectors a block (about 64 threads), each vector's
 * minima, QR factors and threads' bests in sharedBytesPerVector of shared memory (48 KiB a block at most).
 */
export function nwayFloat64Shape(
  m: RealModel,
  passes: number,
): { threadsPerVector: number; vectorsPerBlock: number; sharedBytesPerVector: number } {
  const threadsPerVector = passes * (m.nd >= 2 ? m.q : 1);
  const words =
    m.nt * (1 << m.bitsPerSymbol) +
    passes * (m.nd * m.nd + 2 * m.nd + 1) +
    threadsPerVector * (1 + Math.floor((m.nt + 1) / 2));
  const sharedBytesPerVector = 8 * words;
  const vectorsPerBlock = Math.max(
    1,
    Math.min(Math.floor(64 / threadsPerVector), Math.floor((48 * 1024) / sharedBytesPerVector)),
  );
  return { threadsPerVector, vectorsPerBlock, sharedBytesPerVector };
}

/**
 * The float64 kernel of detector `name` with `passes` passes (nway-float64.cu): the CPU engine's
 * nway / ssfe on the device, bit for bit, for the vectors float32 cannot carry.
 */
export function createNwayFloat64(
  name: Detector,
  ctx: CudaContext,
  setup: CudaDetectorSetup,
  passes: number,
): Float64Kernel {
  const model = detectorRealModel(name, setup.constellation, setup.nt, setup.nr);
  const { threadsPerVector, vectorsPerBlock: vpb, sharedBytesPerVector } = nwayFloat64Shape(model, passes);
  const kernel = loadModule(ctx, {
    source: withSymbolTable(model, readKernelSource(new URL('./nway-float64.cu', import.meta.url))),
    name: 'nway/nway-float64.cu',
    defines: { ...realModelDefines(model), PASSES: passes, VPB: vpb, SOFT: setup.soft ? 1 : 0 },
    options: ['-fmad=false'],
  }).kernel('nway_float64', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'f64', 'f64']);
  const clip = llrClipOf(setup.opts.llrClip);
  return {
    enqueue(stream, r) {
      if (r.count <= 0) return;
      kernel.launch(
        {
          grid: Math.ceil(r.count / vpb),
          block: threadsPerVector * vpb,
          sharedBytes: vpb * sharedBytesPerVector,
          stream,
        },
        [r.H, r.y, r.noise, r.symbols, setup.soft ? r.llr : 0n, r.status, r.count, model.scale, clip],
      );
    },
  };
}

export const cudaDetector: CudaDetector = {
  name: 'nway',
  soft: true,
  create: (ctx, setup) => createNwayPlan('nway', ctx, setup, passesOf(setup.opts.passes, setup.nt)),
  float64: (ctx, setup) => createNwayFloat64('nway', ctx, setup, passesOf(setup.opts.passes, setup.nt)),
};
