/**
 * The status words of a received vector on the GPU engine (STATUS_WORDS int32 a vector:
 * [flags, nodes visited]). Flags are bits, so the engine's normalize kernel and a detector's
 * kernels can each add theirs; detect-batch.ts turns them into the CPU engine's typed errors,
 * the unproven mask, or a redo on the CPU (mimo/fallback.ts).
 */

/** int32 words per received vector. */
export const STATUS_WORDS = 2;

/**
 * int32 words of a channel's status summary (status-summary.cuh: [flags of its vectors or-ed, 0,
 * nodes summed: low 32 bits, high 32 bits]), what the engine reads back per channel.
 */
export const SUMMARY_WORDS = 4;

export const MIMO_STATUS = {
  /** The search stopped at its node budget; the symbols are the best leaf found (not proven ML). */
  NODE_BUDGET: 1,
  /** H, y or N0 of this vector holds NaN or an infinity (set by the normalize kernel). */
  NON_FINITE: 2,
  /** The vector's largest entry is over 2^MAX_Y_OVER_H_EXPONENT times its channel's (set by normalize). */
  Y_TOO_LARGE: 4,
  /** The channel's preprocessing found it singular where the detector needs full column rank. */
  RANK_DEFICIENT: 8,
  /**
   * The GPU's answer for this vector cannot be trusted (a float32 breakdown the kernel detected, or
   * a filter prepared per channel with another vector's N0); the engine redoes it on the CPU in float64.
   */
  FLOAT32_UNSAFE: 16,
} as const;
