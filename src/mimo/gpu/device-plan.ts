/**
 * The detection part's device-level plan, for another part's pipeline that keeps H, y and N0 on
 * the device (the GPU link generates them there). As coding's ldpcCudaPlan and lattice's
 * lllCudaPlan, it is made once for a shape and one detector's options and enqueued per launch on
 * the caller's stream and buffers:
 *
 *   const det = await detectionCudaPlan(ctx, { nt, nr, modulation, vectorsPerChannel, options, soft });
 *   det.enqueueNormalize(stream, { H, y, noiseScalar, noiseOut, status }, channels);  // per launch
 *   det.enqueue(stream, { channels, vectorsPerChannel, H, y, noise, symbols, llr, status, scratch });
 *   // a plan with `priors` also takes `prior` (a-priori LLRs; its LLRs are then extrinsic)
 *   // vectors whose status flags meet det.reportFlags: det.remedy(flags) says what they call for;
 *   // redo() gives the answers of the unanswered ones, by the part's one fallback policy
 *   const answers = await det.redo({ H, y, noiseVar, flags });
 *
 * Layouts are the CUDA detectors' (cuda-detector.ts): H channels x nr x nt complex float32, y
 * vectors x nr complex float32, noise one float32 N0 a vector, symbols vectors x nt int32, llr
 * vectors x nt x bitsPerSymbol float32 (0n without soft output), status STATUS_WORDS int32 a vector,
 * scratch one region a scratchBytesPerChannel entry. The normalize stage scales each channel as
 * the engine does (its N0 from noiseScalar, or noiseIn per vector) and flags what it cannot carry.
 */
import { EngineUnavailableError, InvalidArgumentError } from '../../core/index.js';
import type { CudaContext, Stream } from '../../gpu/index.js';
import { onBudgetOf } from '../budget.js';
import { validateDetection } from '../detect.js';
import { remedy, UNANSWERED, type VectorRemedy } from '../fallback.js';
import { hardDecisionOptions } from '../options.js';
import { constellation } from '../modulation.js';
import { detectorEntry } from '../registry.js';
import type { DetectionInput, DetectOptions, Detector, Modulation } from '../types.js';
import type { CudaDetector, CudaDetectorSetup, DetectBuffers } from './cuda-detector.js';
import { cudaSetup, enqueueNormalize, FlaggedVectors, planFor } from './detect-batch.js';
import { MIMO_STATUS, STATUS_WORDS } from './status.js';

/** What a plan detects: the link's shape and one detector with its options. */
export interface DetectionPlanSetup {
  readonly nt: number;
  readonly nr: number;
  readonly modulation: Modulation;
  /** Consecutive vectors that share a channel (every launch holds whole channel groups). */
  readonly vectorsPerChannel: number;
  /** The detector and its options (DetectOptions without the modulation, which the setup fixes). */
  readonly options: Omit<DetectOptions, 'modulation' | 'engine'>;
  /** Whether LLRs are wanted (max-log; a soft detector only). */
  readonly soft: boolean;
}

/** Device addresses of one launch of `channels` channels (layouts in the file comment). */
export interface DetectionLaunch extends DetectBuffers {
  readonly channels: number;
  readonly vectorsPerChannel: number;
  readonly scratch: readonly bigint[];
  /**
   * A-priori LLRs, float32, vectors x nt x bitsPerSymbol (DetectionInput.priorLlr's layout), for a
   * plan whose `priors` is true (its LLRs are then extrinsic); absent or 0n: none.
   */
  readonly prior?: bigint;
}

/** The normalize stage's buffers: H and y scaled in place, N0 and the status words written. */
export interface NormalizeBuffers {
  readonly H: bigint;
  readonly y: bigint;
  /** Per-vector N0 as given, or 0n: noiseScalar for every vector. */
  readonly noiseIn?: bigint;
  readonly noiseScalar: number;
  readonly noiseOut: bigint;
  readonly status: bigint;
}

/** Flagged vectors to answer, each with its own channel, in float64 as the CPU engine takes them. */
export interface VectorsToRedo {
  /** count x nr x nt complex (interleaved, column-major). */
  readonly H: Float64Array;
  /** count x nr complex. */
  readonly y: Float64Array;
  /** count N0s. */
  readonly noiseVar: Float64Array;
  /** count status flags, as the device wrote them. */
  readonly flags: Int32Array;
  /**
   * The vectors' a-priori LLRs, count x nt x bitsPerSymbol, for a plan whose `priors` is true (the
   * redo then goes to the CPU engine, which takes them, and its LLRs are extrinsic); absent: none.
   */
  readonly prior?: Float32Array | Float64Array;
}

/** The answers of redone vectors, in the launch's layouts (count vectors). */
export interface RedoneVectors {
  readonly symbols: Int32Array;
  /** max-log LLRs, where the plan is soft. */
  readonly llr: Float32Array | null;
  /** 1 for a vector whose search stopped at the budget (onBudget 'flag'); null when none did. */
  readonly unproven: Uint8Array | null;
  /** How many went to the detector's float64 kernel and to the CPU engine. */
  readonly redoneInFloat64: number;
  readonly redoneOnCpu: number;
}

/** One detector compiled for a link's shape (see the file comment). */
export interface DetectionCudaPlan {
  readonly detector: Detector;
  /** Whether enqueue writes LLRs. */
  readonly soft: boolean;
  /** Whether the detector's CUDA kernels read DetectionLaunch.prior (registry trait `priors` true). */
  readonly priors: boolean;
  /** int32 status words a vector. */
  readonly statusWords: number;
  /** The node budget a vector (DetectOptions.maxNodes or its default) and what reaching it does. */
  readonly maxNodes: number;
  readonly onBudget: 'error' | 'flag';
  /** Device-only scratch per channel, in bytes, one entry a region. */
  readonly scratchBytesPerChannel: readonly number[];
  /** Flags of a vector whose outputs are not its answer: left out of device counts, answered by redo(). */
  readonly unanswered: number;
  /**
   * Flags of the vectors the caller must list: the unanswered, and the node budget's (an error under
   * onBudget 'error'; under 'flag' an unproven vector whose best leaf is its answer).
   */
  readonly reportFlags: number;
  /** The one fallback policy's remedy for a vector's non-zero flags. */
  remedy(flags: number): VectorRemedy;
  /** The engine's normalize stage for a launch of `channels` channels. */
  enqueueNormalize(stream: Stream, b: NormalizeBuffers, channels: number): void;
  /** The detector's kernels for a launch (normalized already). */
  enqueue(stream: Stream, launch: DetectionLaunch): void;
  /**
   * The answers of flagged vectors (flags with the remedy 'redo-float64' or 'redo-cpu'): in float64,
   * on the device where the detector has a float64 kernel and the vectors no priors, else on the CPU
   * engine (with their priors). A vector the
   * CPU engine refuses (non-finite) is its typed error, naming the vector's index in the list.
   */
  redo(vectors: VectorsToRedo): Promise<RedoneVectors>;
}

/** The device-level plan of one detector for a link's shape (see the file comment). */
export async function detectionCudaPlan(ctx: CudaContext, s: DetectionPlanSetup): Promise<DetectionCudaPlan> {
  const { nt, nr, modulation, vectorsPerChannel: vpc } = s;
  const options: DetectOptions = s.soft
    ? { ...s.options, modulation, engine: 'cuda', soft: s.options.soft ?? 'maxlog' }
    : { ...hardDecisionOptions(s.options), modulation, engine: 'cuda' };
  // the engine's checks of options and shapes, on a probe input of the link's size
  const val = validateDetection(
    { nt, nr, H: new Float64Array(2 * nr * nt), y: new Float64Array(2 * nr * vpc), noiseVar: 1 },
    options,
  );
  const entry = detectorEntry(val.opts.detector)!;
  if (!entry.cuda) {
    throw new EngineUnavailableError(`the '${val.opts.detector}' detector has no CUDA implementation`, {
      detector: val.opts.detector,
    });
  }
  const impl: CudaDetector = await entry.cuda();
  const setup: CudaDetectorSetup = cudaSetup(ctx, val, impl);
  if (s.soft && !setup.soft) {
    throw new EngineUnavailableError(`the CUDA ${val.opts.detector} detector gives no LLRs`, {
      detector: val.opts.detector,
    });
  }
  const plan = planFor(ctx, impl, setup);
  const traits = { float64Kernel: impl.float64 !== undefined };
  const onBudgetError = onBudgetOf(val.opts.onBudget) === 'error';
  const bps = constellation(modulation).bitsPerSymbol;
  return {
    detector: val.opts.detector,
    soft: setup.soft,
    priors: entry.traits.priors === true,
    statusWords: STATUS_WORDS,
    maxNodes: setup.maxNodes,
    onBudget: onBudgetError ? 'error' : 'flag',
    scratchBytesPerChannel: plan.scratchBytesPerChannel,
    unanswered: UNANSWERED,
    reportFlags: UNANSWERED | MIMO_STATUS.NODE_BUDGET,
    remedy: (flags) => remedy(flags, traits),
    enqueueNormalize(stream, b, channels) {
      enqueueNormalize(ctx, stream, { ...b, noiseIn: b.noiseIn ?? 0n }, channels, vpc, nr, nt);
    },
    enqueue(stream, launch) {
      if (launch.prior && entry.traits.priors !== true)
        throw new InvalidArgumentError(`the CUDA ${val.opts.detector} detector takes no a-priori LLRs`, {
          option: 'prior',
          detector: val.opts.detector,
        });
      plan.enqueue(stream, launch);
    },
    async redo(v) {
      const count = v.flags.length;
      const input: DetectionInput = {
        nt,
        nr,
        H: v.H,
        y: v.y,
        vectorsPerChannel: 1,
        noiseVar: v.noiseVar,
        ...(v.prior ? { priorLlr: v.prior } : {}),
      };
      const redoVal = validateDetection(input, val.opts, 'defer');
      const flagged = new FlaggedVectors(input, redoVal, impl);
      for (let i = 0; i < count; i++) {
        if ((v.flags[i]! & UNANSWERED) === 0) {
          throw new InvalidArgumentError(`redo: vector ${i} has flags ${v.flags[i]}, none that leave it unanswered`, {
            vector: i,
            flags: v.flags[i],
          });
        }
        flagged.add(i, v.flags[i]!);
      }
      const symbols = new Int32Array(count * nt);
      const llr = setup.soft ? new Float32Array(count * nt * bps) : null;
      const r = await flagged.settle(ctx, plan, setup, symbols, llr);
      return { symbols, llr, unproven: r.unproven, redoneInFloat64: r.redoneInFloat64, redoneOnCpu: r.redoneOnCpu };
    },
  };
}
