/**
 * The passes of one rung of the precision ladder, cheapest first, each going on from the basis the
 * one before left (every column operation is exact, so a breakdown loses nothing). As fplll's
 * wrapper does, the ladder does not stay on a slow pass: a pass that breaks down
 * (PRECISION_FAILURE) hands over to the next, and a later pass runs for a bounded number of
 * main-loop steps, then hands back to the first, the fastest wherever it settles (a slower pass
 * may have got the basis past where it broke down). The bound doubles at each hand-back, so the
 * passes cannot trade the basis back and forth for ever; the caller's maxIterations bounds them all.
 */
import { LatticeMimoError } from '../../core/index.js';
import type { RungStats } from './rung-stats.js';

export interface Pass {
  /** What the progress reports call it (RungStats.pass). */
  readonly name: string;
  /** Runs the pass; past `maxIterations` steps (stats.iterations then above it) a PRECISION_FAILURE, as DdLLL does. */
  run(maxIterations: number): void;
}

/**
 * Runs `passes` as the file comment says, from pass `start` (a rung above the one whose passes
 * broke down starts at its own pass, the last, and hands back to the passes below it). `stepBack`:
 * main-loop steps a later pass takes before it hands back to the first (doubled each time). Throws
 * the last pass's PRECISION_FAILURE, or any other error at once.
 */
export function runPasses(
  passes: readonly Pass[],
  stats: RungStats,
  maxIterations: number,
  stepBack: number,
  start = 0,
): void {
  if (!(Number.isInteger(start) && start >= 0 && start < passes.length))
    throw new RangeError(`start must be a pass index below ${passes.length}, got ${start}`);
  let i = start,
    budget = stepBack;
  for (;;) {
    const pass = passes[i]!;
    stats.pass = pass.name;
    const limit = i === 0 ? maxIterations : Math.min(maxIterations, stats.iterations + budget);
    try {
      pass.run(limit);
      return;
    } catch (err) {
      if (!(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE')) throw err;
      if (i > 0 && limit < maxIterations && stats.iterations > limit) {
        // the step bound, not a breakdown: back to the first pass from where this one got
        i = 0;
        budget *= 2;
        continue;
      }
      if (i === passes.length - 1) throw err;
      i++;
    }
  }
}
