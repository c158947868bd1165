/**
 * The one fallback policy of reduce(), as fplll's wrapper keeps one: which breakdown of which run is
 * retried with what, read from the algorithm's traits (registry.ts) and the call's options. Every
 * engine asks here: the CPU batch (cpu-batch.ts), the GPU status words (gpu/batch.ts) and the
 * checks of reduce() itself.
 *
 * - A float32 run that breaks down, or whose output fails the float64 check, is redone in float64 on
 *   the CPU engine.
 * - A float64 GPU run of an algorithm whose CPU reducer has the drift watch and whose per-basis
 *   kernels do not (with the watch on) is redone on the CPU engine when it breaks down or fails its check.
 * - Anything else is raised (reduce() first asks whether the input itself is dependent).
 */
import type { AlgorithmTraits } from './registry.js';

/** Error codes of a run that lost its way in floating point, rather than of bad input. */
const BREAKDOWNS: ReadonlySet<string> = new Set([
  'PRECISION_FAILURE',
  'RANK_DEFICIENT',
  'ZERO_VECTOR',
  'UNSUPPORTED',
  'ITERATION_LIMIT',
  'CHECK_FAILED',
]);

/** What a redo is, or 'raise'. */
export type Remedy = 'float64' | 'cpu' | 'raise';

/** The run that failed: its engine and precision, and the call's drift-watch option. */
export interface FailedRun {
  engine: 'cpu' | 'cuda';
  precision: 'float32' | 'float64';
  driftWatch: boolean;
}

/** The remedy for a failure with error code `code` ('CHECK_FAILED' for an output that failed its check). */
export function remedy(traits: AlgorithmTraits, run: FailedRun, code: string): Remedy {
  if (!BREAKDOWNS.has(code)) return 'raise';
  if (run.precision === 'float32') return 'float64';
  if (
    run.engine === 'cuda' &&
    run.driftWatch &&
    traits.cpuDriftWatch &&
    !traits.gpuDriftWatch &&
    code !== 'ITERATION_LIMIT'
  )
    return 'cpu';
  return 'raise';
}

/** Whether a failure with this code is a breakdown of the run (true) or a property of the input. */
export function isBreakdown(code: string): boolean {
  return BREAKDOWNS.has(code);
}
