/**
 * Types shared by the MIMO part: modulation, channel, detectors and simulation.
 *
 * System model (per received vector): y = H s + w, H is n_r x n_t complex (column-major,
 * interleaved re/im), s holds n_t QAM symbols of unit average energy, w ~ CN(0, N0 I).
 * SNR: Es/N0 = 1 / N0 per stream (E|s|^2 = 1); Eb/N0 = Es/N0 - 10 log10(bitsPerSymbol * codeRate).
 * LLR(b) = ln P(b=0 | y) / P(b=1 | y): positive means 0.
 */
import type { Detector, DetectorOwnOptions } from './registry.js';

export type { Detector } from './registry.js';
export type { PsdOptions } from './detectors/psd/entry.js';
export type { InitialRadius } from './detectors/sphere/entry.js';
import type { BatchRunOptions } from '../gpu/index.js';
import type { CpuKernel, CpuKernelRequest } from '../core/index.js';

/** Every modulation, by name. */
export const MODULATIONS = ['bpsk', 'qpsk', '16qam', '64qam', '256qam'] as const;
/** A QAM order by name: BPSK, QPSK, 16-, 64-, 256-QAM (3GPP Gray labels, unit average energy). */
export type Modulation = (typeof MODULATIONS)[number];

/**
 * A batch of detection problems. Complex arrays are interleaved (re, im).
 *  - H: `channels` matrices of nr x nt, column-major: entry (i, j) of channel c at
 *    2 * (c * nr * nt + i + j * nr) (re) and +1 (im).
 *  - y: `vectors` received vectors of length nr: element i of vector v at 2 * (v * nr + i).
 *  - Vector v uses channel floor(v / vectorsPerChannel) (one channel serves a group of vectors,
 *    as over an OFDM coherence block); vectors = channels * vectorsPerChannel.
 *  - noiseVar: N0, the complex noise variance per receive antenna (one value, or one per vector).
 */
export interface DetectionInput {
  /** Transmit antennas (streams), 1..MAX_ANTENNAS. */
  readonly nt: number;
  /** Receive antennas, 1..MAX_ANTENNAS. */
  readonly nr: number;
  /** Channels: channels x nr x nt complex, column-major, interleaved (2 * channels * nr * nt numbers); float32 suits the GPU engine (no conversion). */
  readonly H: Float64Array | Float32Array;
  /** Received vectors: vectors x nr complex, interleaved (2 * vectors * nr numbers). */
  readonly y: Float64Array | Float32Array;
  /** Consecutive vectors that share one channel (default 1). */
  readonly vectorsPerChannel?: number;
  /** N0 > 0: one value for all vectors, or one per vector (length vectors). */
  readonly noiseVar: number | Float64Array | Float32Array;
  /**
   * A-priori LLRs of the transmitted bits, vectors x nt x bitsPerSymbol in the layout of
   * DetectionResult.llr (stream-major within a vector, b0 first), LLR = ln P(b=0)/P(b=1): finite,
   * 0 where nothing is known. Only detectors whose traits say `priors` take it (mmse-pic, ep, ml,
   * kbest, nway and ssfe, on both engines), and then return extrinsic LLRs; the others
   * refuse it (InvalidArgumentError naming priorLlr) rather than ignore it.
   */
  readonly priorLlr?: Float64Array | Float32Array;
}

/**
 * The options every detector takes (each applies where the detector's traits say: see the option).
 * The detector-specific ones come from the detectors' entries (DetectorOwnOptions).
 */
export interface CommonDetectOptions {
  /** Which detector. */
  detector: Detector;
  /** The transmitted constellation. */
  modulation: Modulation;
  /**
   * detectAsync()'s engine: 'cpu'; 'cuda' (EngineUnavailableError without a device or a CUDA
   * implementation of the detector); 'auto' (default): the GPU where both are there, else the CPU.
   * detect() runs the CPU engine only.
   */
  engine?: 'auto' | 'cpu' | 'cuda';
  /**
   * Soft detectors (ml, kbest, ssfe, nway) only: 'maxlog' (default), 'logmap' (exact, for ml) or
   * 'none' (hard decisions only: no LLRs are computed, which makes ml faster).
   */
  soft?: 'maxlog' | 'logmap' | 'none';
  /** Soft detectors only, not with soft 'none': |LLR| clipping value (every LLR is also saturated at LLR_LIMIT = 1e100). */
  llrClip?: number;
  /**
   * Detectors with a node budget (sphere, psd stop their search there; ml and kbest refuse a size
   * whose fixed work exceeds it): the budget per received vector. Default DEFAULT_MAX_NODES = 2^24.
   * See src/mimo/budget.ts.
   */
  maxNodes?: number;
  /**
   * Searches that stop at the node budget (sphere, psd) only, past the budget: 'error' (default)
   * throws a NodeBudgetError naming the vector; 'flag' keeps the best leaf found so far, marks the
   * vector in `unproven` and counts it in stats.budgetExceeded.
   */
  onBudget?: 'error' | 'flag';
  /**
   * CPU engine, detectors with a WebAssembly kernel only (the registry trait wasmKernel: nway, ssfe, kbest,
   * sphere, lr-zf, lr-mmse, lr-sic): 'auto' (default) runs the WebAssembly SIMD kernel where the
   * runtime has SIMD and LATTICE_MIMO_WASM does not turn it off;
   * 'wasm' runs it or throws EngineUnavailableError (no SIMD, or a setup it does not cover);
   * 'typescript' the reference. Same decisions and LLRs either way; stats.kernel says which ran.
   */
  cpuKernel?: CpuKernelRequest;
  /** GPU engine: how the batch runner cuts the batch into chunks and streams (the defaults suit production; the one schema of gpu/batch-options.ts). */
  gpuBatch?: BatchRunOptions;
}

/**
 * Options of `detect()`: the detector, the modulation, the common options and the detector's own
 * (`k` for kbest, `passes` for nway, `initialRadius` for sphere, `psd` for psd: each refused with
 * any other detector).
 */
export interface DetectOptions extends CommonDetectOptions, DetectorOwnOptions {}

/** What `detect()` returns: per-vector decisions, in the layouts below. */
export interface DetectionResult {
  /** Symbol indices, vectors x nt (index = integer whose binary digits, MSB first, are the bit label). */
  readonly symbols: Int32Array;
  /** Hard bits, vectors x nt x bitsPerSymbol, stream-major within a vector (stream 0's bits first). */
  readonly bits: Uint8Array;
  /**
   * LLRs in the same layout as bits, for soft detectors: always finite, |LLR| <= LLR_LIMIT (and
   * <= llrClip when given); float32 from the GPU engine, saturated at GPU_LLR_LIMIT.
   */
  readonly llr?: Float64Array | Float32Array;
  /**
   * Present only when some search stopped at its node budget (onBudget 'flag'): 1 for a vector whose
   * symbols are the best found so far, not proven ML.
   */
  readonly unproven?: Uint8Array;
  /** The detector that ran, the engine, how many vectors, wall time, and (tree searches) nodes whose metric was computed. */
  readonly stats: {
    detector: Detector;
    engine: 'cpu' | 'cuda';
    vectors: number;
    timeMs: number;
    nodesVisited?: number;
    /** Vectors whose search stopped at the node budget (sphere and psd; 0 when none did). */
    budgetExceeded?: number;
    /** GPU engine: vectors float32 could not carry, redone in float64 on the device by the detector's float64 kernel (nway, ssfe): the CPU engine's answer. */
    redoneInFloat64?: number;
    /** GPU engine: vectors float32 could not carry, redone by the CPU engine in float64. */
    redoneOnCpu?: number;
    /** CPU engine: the kernel that ran, WebAssembly SIMD or the TypeScript reference (see DetectOptions.cpuKernel). */
    kernel?: CpuKernel;
  };
}
