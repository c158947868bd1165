/**
 * The N-way soft detector on the GPU (the N-way paper, Section IV): per chunk, the batched MGS QR
 * of every channel for each of the N rotated passes (src/mimo/gpu/preprocess/qr-batch.cu, once per
 * channel, records in per-channel scratch), then nway-detect.cu: M = Q^2 threads a pass (Alg. 2,
 * one path each), N passes and several vectors a block, the hypothesis / counter-hypothesis minima
 * and the merge over passes in shared memory (Alg. 3, Section IV-D), max-log LLRs clipped in the
 * kernel. float32; the CPU engine's conventions (nway/cpu.ts, ssfe/search.ts): the same rotations,
 * level rounding, tie order (the first least metric in pass then path order) and LLR sign.
 * SSFE is the one-pass case (ssfe/cuda.ts).
 */
import { UnsupportedError } from '../../../core/errors.js';
import type { CudaContext } from '../../../gpu/context.js';
import type { Kernel } from '../../../gpu/launch.js';
import { loadModule, readKernelSource } from '../../../gpu/module-cache.js';
import type { Stream } from '../../../gpu/stream.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup, DetectChunk, PlanStage } from '../../gpu/cuda-detector.js';
import { llrClipOf } from '../../soft/maxlog.js';
import { QrBatchPlan } from '../../gpu/preprocess/qr-batch.js';
import { detectorRealModel, type RealModel } from '../../soft/real-model.js';
import type { Detector } from '../../types.js';
import { passesOf } from './cpu.js';

export const NWAY_DETECT_URL = new URL('./nway-detect.cu', import.meta.url);

/** Threads a block aims at (measured: 128 a little ahead of 256 and 512); a vector's M x N threads never span two blocks. */
const BLOCK_TARGET = 128;

/**
 * Alg. 3's minima by shared atomics, registers capped for 2048 resident threads: measured fastest
 * on the H100 (bench/mimo/gpu-nway-notes.md): the kernel is latency bound, so occupancy counts more
 * than the atomics' conflicts.
 */
const DEFAULT_MODE = 0;

/** Launch choices the benchmarks vary (defaults: the production build). */
export interface NwayTuning {
  /** Threads a block aims at (default 128). */
  readonly blockThreads?: number;
  /** How Alg. 3's minima are formed (nway-detect.cu's NW_MODE): 0 shared atomics a path (default), 1 warp reductions, 2 the candidate list scanned a bit a thread. */
  readonly mode?: 0 | 1 | 2;
  /** Resident blocks a multiprocessor the registers are capped for (default: 2048 threads' worth, 1 for no cap). */
  readonly minBlocks?: number;
  /** R's upper triangle in registers by 16-byte loads (ssfe-search.cuh's SSFE_R_REGS; default false). */
  readonly rInRegisters?: boolean;
}
/** The largest M x N (threads of one vector): one block. */
const MAX_THREADS_PER_VECTOR = 1024;

/**
 * The symbol-index bits each real and imaginary level index carries (symbol = reBits[lr] | imBits[li]),
 * read off the constellation's tables; checked against every symbol and the bit table, so the
 * kernel's per-dimension LLRs are the CPU's per-symbol ones.
 */
export function levelBits(m: RealModel): { reBits: number[]; imBits: number[] } {
  const q = m.q, bps = m.bitsPerSymbol, table = m.symbolOfLevels;
  if (m.dimsPerStream === 1) return { reBits: [table[0]!, table[1]!], imBits: [0, 0] };
  let reMask = 0, imMask = 0;
  for (let l = 0; l < q; l++) {
    reMask |= table[l * q]! ^ table[0]!;
    imMask |= table[l]! ^ table[0]!;
  }
  const reBits: number[] = [], imBits: number[] = [];
  for (let l = 0; l < q; l++) {
    reBits.push(table[l * q]! & reMask);
    imBits.push(table[l]! & imMask);
  }
  let ok = (reMask & imMask) === 0 && (reMask | imMask) === (1 << bps) - 1;
  for (let a = 0; a < q && ok; a++) {
    for (let b = 0; b < q && ok; b++) {
      const sym = table[a * q + b]!;
      if (sym !== (reBits[a]! | imBits[b]!)) ok = false;
      for (let bit = 0; bit < bps; bit++) if (m.bitTable[sym * bps + bit] !== ((sym >> (bps - 1 - bit)) & 1)) ok = false;
    }
  }
  if (!ok) throw new UnsupportedError('the N-way kernel needs a constellation whose bits each follow one PAM dimension');
  return { reBits, imBits };
}

/** Threads of one vector: M x passes padded to a power of two up to 32, or to a multiple of 32 (nway-detect.cu's NW_PP). */
export function paddedThreads(p: number): number {
  if (p > 32) return Math.ceil(p / 32) * 32;
  let t = 2;
  while (t < p) t *= 2;
  return t;
}

/** The detection kernel's launch shape for a model and pass count (nway-detect.cu's shared layout). */
export function nwayLaunchShape(m: RealModel, passes: number, soft = true, tuning: NwayTuning = {}): { paths: number; threadsPerVector: number; vectorsPerBlock: number; sharedBytes: number } {
  const paths = m.nd >= 2 ? m.q * m.q : m.q;
  const P = paths * passes;
  const threadsPerVector = paddedThreads(P);
  const vectorsPerBlock = Math.max(1, Math.floor((tuning.blockThreads ?? BLOCK_TARGET) / threadsPerVector));
  const warpsPerVector = Math.max(1, threadsPerVector / 32);
  const tasks = soft ? m.nt * m.bitsPerSymbol : 1;
  const slices = Math.max(1, Math.floor(threadsPerVector / tasks));
  const part = slices > 1 ? slices * tasks + slices : 0;
  const slot = 16 * (P + part) + 8 * warpsPerVector + 4 + 4 * passes * m.nd + 4 * m.nd * m.q;
  return { paths, threadsPerVector, vectorsPerBlock, sharedBytes: vectorsPerBlock * slot };
}

/** Entries from..from+7 of a byte table as a hex integer, entry from + i in bits 8i .. 8i+7. */
function packBytes(table: readonly number[], from: number): string {
  let v = 0n;
  for (let i = 0; i < 8 && from + i < table.length; i++) v |= BigInt(table[from + i]!) << BigInt(8 * i);
  return `0x${v.toString(16)}ull`;
}

/** The -D defines of one build of nway-detect.cu. */
export function nwayDefines(m: RealModel, passes: number, soft: boolean, tuning: NwayTuning = {}): Record<string, string | number> {
  const { reBits, imBits } = levelBits(m);
  const shape = nwayLaunchShape(m, passes, soft, tuning);
  return {
    NW_NR: m.nr, NW_NT: m.nt, NW_DPS: m.dimsPerStream, NW_QL: m.q, NW_PASSES: passes,
    NW_VPB: shape.vectorsPerBlock, NW_SOFT: soft ? 1 : 0,
    NW_MODE: tuning.mode ?? DEFAULT_MODE,
    // 32 registers for 2048 resident threads (8x8's 16 levels would spill there: 64 for 1024)
    NW_MINB: tuning.minBlocks ?? Math.max(1, Math.floor((m.nd > 8 ? 1024 : 2048) / (shape.threadsPerVector * shape.vectorsPerBlock))),
    ...(tuning.rInRegisters ? { SSFE_R_REGS: 1 } : {}),
    NW_RE_BITS0: packBytes(reBits, 0), NW_RE_BITS1: packBytes(reBits, 8), NW_IM_BITS0: packBytes(imBits, 0), NW_IM_BITS1: packBytes(imBits, 8),
  };
}

/** The compiled plan of `passes` rotated SSFE passes (ssfe: 1; nway: opts.passes, default nt). */
export class NwayPlan implements CudaDetectorPlan {
  readonly scratchBytesPerChannel: readonly number[];
  readonly stages: readonly PlanStage[];
  readonly qr: QrBatchPlan;
  readonly shape: ReturnType<typeof nwayLaunchShape>;
  private readonly kernel: Kernel;

  constructor(ctx: CudaContext, readonly model: RealModel, readonly passes: number, readonly soft: boolean, readonly llrClip: number, tuning: NwayTuning = {}) {
    this.shape = nwayLaunchShape(model, passes, soft, tuning);
    if (this.shape.threadsPerVector > MAX_THREADS_PER_VECTOR) {
      throw new UnsupportedError(`the N-way kernel runs M x passes = ${this.shape.paths * passes} threads a vector, at most ${MAX_THREADS_PER_VECTOR}: use fewer passes`);
    }
    this.qr = new QrBatchPlan(ctx, { nr: model.nr, nt: model.nt, dimsPerStream: model.dimsPerStream, passes, sorted: false }, model.scale);
    this.scratchBytesPerChannel = [this.qr.bytesPerChannel];
    this.stages = [
      { name: 'qr', enqueue: (stream, chunk) => this.enqueueQr(stream, chunk) },
      { name: 'detect', enqueue: (stream, chunk) => this.enqueueDetect(stream, chunk) },
    ];
    const mod = loadModule(ctx, { source: readKernelSource(NWAY_DETECT_URL), name: 'nway-detect.cu', defines: nwayDefines(model, passes, soft, tuning) });
    this.kernel = mod.kernel('nway_detect', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'f32']);
    if (this.shape.sharedBytes > 48 * 1024) this.kernel.setMaxDynamicShared(this.shape.sharedBytes);
  }

  /** The QR kernel on the chunk's channels (records into chunk.scratch[0]). */
  enqueueQr(stream: Stream, chunk: DetectChunk): void {
    this.qr.enqueue(stream, chunk.H, chunk.scratch[0]!, chunk.channels);
  }

  /** The detection kernel on the chunk's vectors (the QR records must be there). */
  enqueueDetect(stream: Stream, chunk: DetectChunk): void {
    const vectors = chunk.channels * chunk.vectorsPerChannel;
    if (vectors <= 0) return;
    const { vectorsPerBlock, threadsPerVector, sharedBytes } = this.shape;
    this.kernel.launch(
      { grid: Math.ceil(vectors / vectorsPerBlock), block: threadsPerVector * vectorsPerBlock, sharedBytes, stream },
      [chunk.y, chunk.noise, chunk.scratch[0]!, chunk.symbols, this.soft ? chunk.llr : 0n, chunk.status, vectors, chunk.vectorsPerChannel, this.llrClip],
    );
  }

  enqueue(stream: Stream, chunk: DetectChunk): void {
    this.enqueueQr(stream, chunk);
    this.enqueueDetect(stream, chunk);
  }
}

/**
 * Builds the plan of detector `name` with `passes` passes (the shape checks of the CPU engine
 * first). The kernel clips as the CPU detector does (opts.llrClip, default 8), within the engine's limit.
 */
export function createNwayPlan(name: Detector, ctx: CudaContext, setup: CudaDetectorSetup, passes: number): NwayPlan {
  const model = detectorRealModel(name, setup.constellation, setup.nt, setup.nr);
  return new NwayPlan(ctx, model, passes, setup.soft, Math.min(setup.llrClip, llrClipOf(setup.opts.llrClip)));
}

export const cudaDetector: CudaDetector = {
  name: 'nway',
  soft: true,
  create: (ctx, setup) => createNwayPlan('nway', ctx, setup, passesOf(setup.opts.passes, setup.nt)),
};
