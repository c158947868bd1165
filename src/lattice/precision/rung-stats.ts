/**
 * The counters every rung of the precision ladder keeps (one object through the rungs a ladder
 * climbs), and the optional watch a rung's main loop calls every WATCH_MASK + 1 steps with the
 * position k (0-based) it has reached (the exact rung also calls it as each row of its integral
 * Gram-Schmidt starts): what the ladder's progress report is made of.
 */
export interface RungStats {
  swaps: number;
  sizeReductions: number;
  iterations: number;
  watch?: (k: number) => void;
  /**
   * The basis as the rung holds it now (m columns of n BigInts, copies), for the ladder's
   * checkpoints; set by a rung whose basis lives outside the caller's arrays while it runs.
   */
  snapshot?: () => bigint[][];
  /** Which pass of a rung of several runs (its progress reports name it). */
  pass?: string;
}

/** The main loops call RungStats.watch when (iterations & WATCH_MASK) === 0: every 1024th step. */
export const WATCH_MASK = 1023;
