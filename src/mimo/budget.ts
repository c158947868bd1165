/**
 * Node budget of the exact detectors, so that a hard instance (16x16 256-QAM at 0 dB, say) ends in
 * bounded time instead of running for hours.
 *
 *  - sphere, psd: a search that has visited `maxNodes` tree nodes for one received vector stops.
 *    With onBudget 'error' (default) detect() throws a NodeBudgetError naming the vector; with
 *    'flag' it keeps the best leaf found so far (the sliced zero-forcing point if none), marks the
 *    vector in DetectionResult.unproven and counts it in stats.budgetExceeded. The sphere decoder
 *    checks after every node; the PSD after each stage's expansion (at most PSD_MAX_EXPANDED more)
 *    and only once it holds a leaf (its first descent is bounded by its configuration).
 *  - ml, kbest: their work per vector is fixed (M^nt leaves; the sum of K Q children per level),
 *    so a size past the budget is refused up front with a NodeBudgetError, whatever onBudget says.
 */
import { InvalidArgumentError, NodeBudgetError, type ErrorContext, oneOf, show } from '../core/index.js';

/** Default node budget per received vector: 2^24, the work of exhaustive ML on 4x4 64-QAM. */
export const DEFAULT_MAX_NODES = 1 << 24;

/** What an exact search does past its budget: throw ('error', default) or flag the vector ('flag'). */
export type OnBudget = 'error' | 'flag';
/** What a search past its node budget does: throw NodeBudgetError, or flag the vector (DetectOptions.onBudget). */
export const ON_BUDGET = ['error', 'flag'] as const;

/** opts.maxNodes validated (a positive safe integer), or the default. */
export function maxNodesOf(v: unknown): number {
  if (v === undefined) return DEFAULT_MAX_NODES;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    throw new InvalidArgumentError(
      `maxNodes (node budget per received vector) must be a positive integer, got ${show(v)}`,
    );
  }
  return v;
}

/** opts.onBudget validated, or the default 'error'. */
export function onBudgetOf(v: unknown): OnBudget {
  if (v === undefined) return 'error';
  return oneOf(v, 'onBudget', ON_BUDGET);
}

/**
 * The NodeBudgetError of a search (sphere, psd) that reached its budget under onBudget 'error',
 * at `where` (the detector and the vector, as the caller numbers it): one wording for the CPU
 * engine, the GPU engine and the GPU link. details: { maxNodes, detector, vector, ...details }.
 */
export function nodeBudgetError(
  maxNodes: number,
  where: ErrorContext & { detector: string },
  details?: Record<string, unknown>,
): NodeBudgetError {
  return new NodeBudgetError(
    `the search reached the node budget maxNodes = ${maxNodes} before its answer was proven ML; raise maxNodes, or pass onBudget 'flag' to keep the best leaf found`,
    { maxNodes },
  ).withContext(where, details);
}
