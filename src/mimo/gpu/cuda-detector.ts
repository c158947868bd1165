/**
 * The interface every CUDA detector implements (src/mimo/detectors/<name>/cuda.ts exports
 * `export const cudaDetector: CudaDetector`), so the GPU engine (src/mimo/gpu/detect-batch.ts)
 * can run any of them on the domain-free batch runner.
 *
 * A batch is cut into chunks of whole channels (a channel with its vectorsPerChannel received
 * vectors). Before the detector's kernels run, the engine's normalize kernel has, per channel:
 * scaled H, its vectors and their N0 by the power of two that brings the channel's largest entry
 * into [1, 2) (exact; detection is invariant under (H, y, N0) -> (a H, a y, a^2 N0)), clamped N0
 * to [2^-100, 2^100], and flagged non-finite or over-large input in the vectors' status words (the
 * detector's kernels skip a vector whose flags are already set). A detector may therefore assume
 * finite float32 data of moderate range, the shapes and the nr / nt rule of checkDetectorShape.
 *
 * Device layouts of one chunk (all float32 unless said; complex numbers interleaved re, im):
 *  - H:       channels x (nr x nt complex, column-major): entry (i, j) of channel c at
 *             2 * (c * nr * nt + i + j * nr), as DetectionInput.H.
 *  - y:       channels * vpc vectors x nr complex: element i of vector v at 2 * (v * nr + i).
 *  - noise:   one N0 per vector.
 *  - symbols: int32 out, vectors x nt symbol indices (the CPU engine's symbol index convention).
 *  - llr:     float32 out, vectors x nt x bitsPerSymbol, stream-major, LLR = ln P(b=0)/P(b=1)
 *             scaled by 1/N0 (positive means 0), clipped to [-llrClip, llrClip]; 0n when !soft.
 *  - status:  int32, STATUS_WORDS per vector: [flags (status.ts: MIMO_STATUS), nodes visited].
 *  - summary: int32, MIMO_SUMMARY_WORDS per channel (status-summary.cuh), when the plan fuses it.
 *  - scratch: the detector's device-only regions, scratchBytesPerChannel[k] bytes per channel each
 *             (QR factors, filters, rotated orders), in the order the plan lists them.
 */
import type { CudaContext, DeviceProperties, Stream } from '../../gpu/index.js';
import type { DetectorSetup } from '../detectors/detector.js';
import type { Detector } from '../types.js';

/** The CPU detectors' setup, and what only the GPU needs. */
export interface CudaDetectorSetup extends DetectorSetup {
  /** |LLR| bound applied in the kernel: min(opts.llrClip, GPU_LLR_LIMIT). */
  readonly llrClip: number;
  /** Received vectors per channel in every chunk (the last channel of the batch is padded to it). */
  readonly vectorsPerChannel: number;
  readonly device: DeviceProperties;
}

/** Device addresses of a detection's inputs and outputs (layouts: the file comment, or Float64Redo's). */
export interface DetectBuffers {
  readonly H: bigint;
  readonly y: bigint;
  readonly noise: bigint;
  readonly symbols: bigint;
  /** 0n when no LLRs are wanted. */
  readonly llr: bigint;
  readonly status: bigint;
}

/** Device addresses of one chunk of `channels` channels (layouts in the file comment). */
export interface DetectChunk extends DetectBuffers {
  readonly channels: number;
  readonly vectorsPerChannel: number;
  readonly scratch: readonly bigint[];
  /**
   * The chunk's a-priori LLRs, float32, vectors x nt x bitsPerSymbol (DetectionInput.priorLlr's
   * layout), given only to detectors whose traits say `priors` and only when the caller gave some;
   * absent or 0n: none (every prior 0).
   */
  readonly prior?: bigint;
  /**
   * Given only to a plan whose fuses.normalize is true: its first kernel does the engine's
   * normalize stage (normalize.cuh) on H, y (in place), writing noise and status, and the
   * summaries' heads when `summary` is given too. Absent: the chunk is normalized already.
   */
  readonly normalize?: ChunkNormalize;
  /**
   * Given only to a plan whose fuses.summary is true: its kernels add each real vector's flags
   * and nodes to its channel's summary (status-summary.cuh), whose head the normalize stage wrote.
   */
  readonly summary?: ChunkSummary;
}

/** The inputs of the engine's normalize stage that a chunk's normalized buffers do not show. */
export interface ChunkNormalize {
  /** Per-vector N0 as given, or 0n: noiseScalar for every vector. */
  readonly noiseIn: bigint;
  readonly noiseScalar: number;
}

/** Where a chunk's channel summaries go. */
export interface ChunkSummary {
  /** MIMO_SUMMARY_WORDS int32 a channel. */
  readonly address: bigint;
  /** Vectors of the chunk that are real (the batch's last channel may be padded). */
  readonly realVectors: number;
}

/** A detector compiled for one setup: its scratch needs and its kernels' launches. */
export interface CudaDetectorPlan {
  /** Device-only scratch per channel, in bytes, one entry per region (may be empty). */
  readonly scratchBytesPerChannel: readonly number[];
  /** Enqueues the chunk's kernels (preprocessing, detection) on `stream`; no host synchronisation. */
  enqueue(stream: Stream, chunk: DetectChunk): void;
  /**
   * The engine's stages the plan's kernels can do themselves (DetectChunk.normalize, .summary), so
   * that a chunk needs two launches fewer; absent: neither.
   */
  readonly fuses?: { readonly normalize: boolean; readonly summary: boolean };
  /**
   * The same kernels as enqueue, stage by stage (e.g. 'qr' then 'detect'), for benchmarks that
   * time each stage (the N-way paper's Tables I and II); running them in order equals enqueue.
   */
  readonly stages?: readonly PlanStage[];
}

/** One stage of a plan's kernels. */
export interface PlanStage {
  /** What the stage does: 'qr', 'filter', 'detect', ... */
  readonly name: string;
  enqueue(stream: Stream, chunk: DetectChunk): void;
}

/**
 * Device addresses of a float64 redo of `count` vectors (CudaDetector.float64), each vector with
 * its own copy of its channel. Inputs are float64, scaled as the CPU engine scales them (detect.ts:
 * channelShift, scaleInto, scaledNoise):
 *  - H:       count x (nr x nt complex, column-major, interleaved);
 *  - y:       count x nr complex; noise: count N0;
 *  - symbols: int32 out, count x nt;
 *  - llr:     float64 out, count x nt x bitsPerSymbol, the CPU detector's own clipped LLRs; 0n when !soft;
 *  - status:  int32 out, 2 a vector: [flags, nodes]; flags RANK_DEFICIENT: not answered (the CPU engine decides).
 */
export interface Float64Redo extends DetectBuffers {
  readonly count: number;
}

/** A detector's float64 kernel: the CPU engine's answer, bit for bit, for vectors its float32 kernels flagged. */
export interface Float64Kernel {
  enqueue(stream: Stream, redo: Float64Redo): void;
}

export interface CudaDetector {
  readonly name: Detector;
  /** Whether it can produce LLRs. */
  readonly soft: boolean;
  /**
   * The float64 kernel (optional) that redoes flagged vectors on the device (mimo/fallback.ts);
   * without it they are redone on the CPU engine.
   */
  float64?(ctx: CudaContext, setup: CudaDetectorSetup): Float64Kernel;
  /**
   * Checks the sizes and options it supports on the GPU (UnsupportedError / InvalidArgumentError
   * naming the limit, as the CPU engine's create() does) and compiles or loads its kernels.
   */
  create(ctx: CudaContext, setup: CudaDetectorSetup): CudaDetectorPlan;
}
