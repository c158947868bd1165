/**
 * Types shared by the MIMO part: modulation, channel, detectors and simulation.
 *
 * System model (per received vector): y = H s + w, H is n_r x n_t complex (column-major,
 * interleaved re/im), s holds n_t QAM symbols of unit average energy, w ~ CN(0, N0 I).
 * SNR: Es/N0 = 1 / N0 per stream (E|s|^2 = 1); Eb/N0 = Es/N0 - 10 log10(bitsPerSymbol * codeRate).
 * LLR(b) = ln P(b=0 | y) / P(b=1 | y): positive means 0.
 */
import type { BatchRunOptions } from '../gpu/index.js';

/** Every modulation, by name. */
export const MODULATIONS = ['bpsk', 'qpsk', '16qam', '64qam', '256qam'] as const;
/** A QAM order by name: BPSK, QPSK, 16-, 64-, 256-QAM (3GPP Gray labels, unit average energy). */
export type Modulation = (typeof MODULATIONS)[number];

/** Every detector `detect()` accepts, by name. */
export const DETECTORS = [
  'zf',
  'mmse',
  'sic',
  'ml',
  'sphere',
  'psd',
  'kbest',
  'ssfe',
  'nway',
  'lr-zf',
  'lr-mmse',
  'lr-sic',
] as const;
/** A detector by name; the README's detector table says what each does. */
export type Detector = (typeof DETECTORS)[number];

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
}

/**
 * PSD configuration (Jozsa et al., Table 1): `levels` lvl_1 > ... > lvl_S = 1 (lvl_0 = n + 1 may be
 * omitted; n = 2 nt real positions, nt for BPSK) and `paths` paths_lvl_1 .. (paths_lvl_0 = 1 may
 * be omitted). `paths` alone applies to the default levels. See psdConfig().
 */
export interface PsdOptions {
  /** Tree level boundaries lvl_1 > ... > lvl_S = 1 (depth + 1 first may be omitted). */
  levels?: number[];
  /** Paths kept at each boundary but the last (paths_lvl_0 = 1 may be omitted). */
  paths?: number[];
  /** CUDA engine only: 'warp' (default, one warp a vector) or 'block' (the paper's block a vector). */
  gpuMapping?: 'warp' | 'block';
}

/** The sphere decoder's initial radius: 'infinity' (the first leaf is the Babai point) or 'babai' (the sliced ZF distance). */
export type InitialRadius = 'infinity' | 'babai';

/** Options of `detect()`: the detector, the modulation, and the detector's own parameters. */
export interface DetectOptions {
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
  /** K for kbest. */
  k?: number;
  /** Passes (rotated detection orders) for nway, default nt; 1 equals SSFE. */
  passes?: number;
  /** |LLR| clipping value for soft detectors (every LLR is also saturated at LLR_LIMIT = 1e100). */
  llrClip?: number;
  /**
   * Soft output of the soft detectors (ml, kbest, ssfe, nway): 'maxlog' (default), 'logmap' (exact,
   * for ml) or 'none' (hard decisions only: no LLRs are computed, which makes ml faster).
   */
  soft?: 'maxlog' | 'logmap' | 'none';
  /** Sphere decoder's initial radius: 'infinity' (default) or 'babai'. */
  initialRadius?: InitialRadius;
  /** PSD configuration: `levels` (tree level boundaries, depth + 1 down to 1) and `paths` (kept at each boundary but the last); defaults from the paper's Table 1. */
  psd?: PsdOptions;
  /**
   * Node budget per received vector of the exact searches (sphere, psd; ml and kbest refuse a size
   * whose fixed work exceeds it). Default DEFAULT_MAX_NODES = 2^24. See src/mimo/budget.ts.
   */
  maxNodes?: number;
  /**
   * Past the budget: 'error' (default) throws a NodeBudgetError naming the vector; 'flag' keeps the
   * best leaf found so far, marks the vector in `unproven` and counts it in stats.budgetExceeded.
   */
  onBudget?: 'error' | 'flag';
  /** GPU engine: how the batch runner cuts the batch into chunks and streams (the defaults suit production; the one schema of gpu/batch-options.ts). */
  gpuBatch?: BatchRunOptions;
}

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
  };
}
