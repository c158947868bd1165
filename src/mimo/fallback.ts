/**
 * The one fallback policy of the GPU detection engine (as the lattice part's fallback.ts is for
 * reduction): what a vector's status flags (gpu/status.ts) call for. Read by detect-batch.ts.
 *
 *  - non-finite input: the CPU engine's NON_FINITE error, naming the element;
 *  - float32 could not carry the vector, or found its channel singular: redo it on the CPU engine
 *    in float64 (which answers, or throws its own typed error for a truly singular channel);
 *  - the node budget was reached: onBudget decides (error, or flag the vector as unproven).
 */
import { MIMO_STATUS } from './gpu/status.js';

/** What to do about a vector with these (non-zero) flags. */
export type VectorRemedy = 'non-finite' | 'redo-cpu' | 'node-budget';

/** The remedy of a vector's flags, most severe first. */
export function remedy(flags: number): VectorRemedy {
  if (flags & MIMO_STATUS.NON_FINITE) return 'non-finite';
  if (flags & (MIMO_STATUS.FLOAT32_UNSAFE | MIMO_STATUS.RANK_DEFICIENT | MIMO_STATUS.Y_TOO_LARGE)) return 'redo-cpu';
  if (flags & MIMO_STATUS.NODE_BUDGET) return 'node-budget';
  return 'redo-cpu';
}
