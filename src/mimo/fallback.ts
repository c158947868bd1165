/**
 * The one fallback policy of the GPU detection engine (as the lattice part's fallback.ts is for
 * reduction): what a vector's status flags (gpu/status.ts) call for. Read by detect-batch.ts.
 *
 *  - non-finite input: the CPU engine's NON_FINITE error, naming the element;
 *  - float32 could not carry the vector, or found its channel singular: redo it in float64, on the
 *    device where the detector has a float64 kernel (CudaDetector.float64, the CPU engine's answer
 *    bit for bit), else on the CPU engine. What the float64 kernel cannot answer (a channel singular
 *    in float64 too, a vector too large for its channel) goes to the CPU engine, which answers or
 *    throws its own typed error;
 *  - the node budget was reached: onBudget decides (error, or flag the vector as unproven).
 */
import { MIMO_STATUS } from './gpu/status.js';

/** What to do about a vector with these (non-zero) flags. */
export type VectorRemedy = 'non-finite' | 'redo-float64' | 'redo-cpu' | 'node-budget';

/** What the detector's CUDA implementation offers beyond its float32 kernels. */
export interface RedoTraits {
  /** A float64 kernel equal to the CPU engine (CudaDetector.float64). */
  readonly float64Kernel: boolean;
}

const REDO = MIMO_STATUS.FLOAT32_UNSAFE | MIMO_STATUS.RANK_DEFICIENT | MIMO_STATUS.Y_TOO_LARGE;

/**
 * Flags of a vector whose outputs on the device are not its answer (its remedy is not the budget
 * rule): a pipeline that counts on the device leaves these vectors out and has them answered.
 */
export const UNANSWERED = MIMO_STATUS.NON_FINITE | REDO;

/** The remedy of a vector's flags, most severe first. */
export function remedy(flags: number, traits: RedoTraits): VectorRemedy {
  if (flags & MIMO_STATUS.NON_FINITE) return 'non-finite';
  if (flags & REDO) return traits.float64Kernel && !(flags & MIMO_STATUS.Y_TOO_LARGE) ? 'redo-float64' : 'redo-cpu';
  if (flags & MIMO_STATUS.NODE_BUDGET) return 'node-budget';
  return 'redo-cpu';
}
