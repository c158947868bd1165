/**
 * The block LLL reducers of the CR-MB-LLL paper (Section 3.2, Algorithm 3), on the CPU: MB-LLL and
 * the cost-reduced CR-MB-LLL. The basis is split into sub-bases of p.blockSize consecutive columns
 * (the last one may be shorter). Sub-bases are reduced as projected lattices: every quantity is the
 * global Gram-Schmidt of the whole basis (explicit B*), so a reduced sub-basis means that the pairs
 * inside it satisfy the LLL conditions. Each step below touches disjoint columns per sub-basis or
 * per boundary, which is what one GPU thread block per sub-basis (and a boundary-check kernel)
 * computes; the CPU runs them in increasing order.
 *
 * CR-MB-LLL, one round (from a fresh Gram-Schmidt):
 *   repeat (a block round, counted in iterations):
 *     a. every flagged sub-basis: the all-swap phases (allswap/phases.ts) until neither parity
 *        swaps, with condition (1) relaxed: only mu_{k,k-1} is size-reduced, no GS update;
 *     b. boundary check of each pair (e-1, e) across adjacent sub-bases: SimpleSizeReduce of
 *        mu_{e,e-1} and, when Lovasz fails, SimpleSwap; both neighbours are flagged;
 *   until no boundary swap; then the GS-coefficient update and size reduction of everything.
 * MB-LLL keeps the full GS-coefficient matrix U valid instead and every sub-basis LLL-reduced:
 *     a. phases of the flagged sub-bases; then the GS-coefficient update of U for the rows and
 *        columns of the sub-bases whose phases changed anything, and size reduction with U inside
 *        each flagged sub-basis (condition (1) within it);
 *     b. boundary checks with Swap (Procedure 3, which keeps U valid) instead of SimpleSwap;
 *   until no boundary swap; then size reduction of everything with U.
 * The boundary steps commute (each is a 2 x 2 column operation on its own pair, and their updates of
 * U act on different rows and columns), so any order, or all at once, gives the same result.
 *
 * The growth watch of allswap/phases.ts (growthFactor) runs the closing step early, followed by a
 * fresh Gram-Schmidt (and U, for MB-LLL), where the coefficients grow: between phases, after each
 * sub-basis, and after each boundary step (CR-MB-LLL) or the boundary checks (MB-LLL). This is a
 * safeguard beyond the paper: without it, 2- and 4-column sub-bases on 20 x 20 Gaussian bases
 * already drove |Z| past 2^53.
 *
 * As in allswap/cpu.ts, rounds repeat from a fresh Gram-Schmidt (of B = B_in Z for non-integral
 * input) until one changes nothing (at most MAX_ROUNDS); that last round has verified every
 * condition. iterations counts block rounds and is bounded by p.maxIterations; so is the number
 * of phases of each sub-basis reduction.
 */
import { InvalidArgumentError, allocLike, type RealArray } from '../../core/index.js';
import type { AlgoParams, BasisStats, CpuReducer } from '../types.js';
import { maxAbs } from '../lll/columns.js';
import {
  basisFromTransform,
  checkReducerInput,
  iterationLimit,
  keepInput,
  newStats,
  normsInto,
  reductionBound,
  sizeReduceFromBstar,
} from '../lll/gso.js';
import { MAX_ROUNDS } from '../allswap/cpu.js';
import { FRESH_BSTAR, growthFactor, pairStep, recomputeBstar, runPhases, type PairState } from '../allswap/phases.js';
import { boundaryStepWithU, sizeReduceWithU, updateCoefficients } from './coefficients.js';

interface BlockSetup {
  s: PairState;
  r: RealArray;
  /** Columns per sub-basis and the number of sub-bases. */
  size: number;
  count: number;
}

function setup(B: RealArray, Z: Float64Array, n: number, m: number, p: AlgoParams, name: string): BlockSetup {
  checkReducerInput(B, Z, n, m, p, name);
  if (!Number.isInteger(p.blockSize) || p.blockSize < 2) {
    throw new InvalidArgumentError(`${name}: blockSize must be an integer >= 2, got ${p.blockSize}`);
  }
  const s: PairState = {
    B,
    Z,
    n,
    m,
    Bs: allocLike(B, n * m),
    sup: allocLike(B, m),
    delta: p.delta,
    bound: reductionBound(p.eta, B),
    zPeak: 0,
    zLimit: 0,
    watchDrift: p.driftWatch !== false,
    ...FRESH_BSTAR,
  };
  const size = Math.min(p.blockSize, m);
  return { s, r: allocLike(B, m), size, count: Math.ceil(m / size) };
}

function nextRound(stats: BasisStats, p: AlgoParams, name: string): void {
  if (stats.iterations >= p.maxIterations) throw iterationLimit(name, 'block rounds', p, stats);
  stats.iterations++;
}

/** Re-arms the growth watch (allswap/phases.ts: growthFactor) at the current Z. */
function armGrowthWatch(s: PairState): void {
  s.zLimit = growthFactor(s.B) * maxAbs(s.Z);
  s.zPeak = 0;
}

/**
 * The closing step that the growth and drift watches run early: every column size-reduced from B*,
 * then B* (and U, for MB-LLL; null for CR-MB-LLL) afresh and the growth watch re-armed.
 */
function reduceAllStep(g: BlockSetup, stats: BasisStats, U: RealArray | null): () => void {
  const { s, r } = g;
  return () => {
    normsInto(s.Bs, s.n, s.m, r);
    stats.sizeReductions += sizeReduceFromBstar(s.B, s.Bs, r, s.Z, s.n, s.m, 1, s.m, 0, s.bound);
    recomputeBstar(s, r, U);
    armGrowthWatch(s);
  };
}

/**
 * Boundary checks of all pairs across sub-basis boundaries; flags both neighbours of every swap.
 * `step` is SimpleSwap's pair step (CR-MB-LLL) or the Swap one (MB-LLL). True if any swap.
 */
function boundaryChecks(g: BlockSetup, flagged: boolean[], step: (k: number) => boolean): boolean {
  let any = false;
  for (let b = 1; b < g.count; b++) {
    if (step(b * g.size)) {
      flagged[b - 1] = true;
      flagged[b] = true;
      any = true;
    }
  }
  return any;
}

/** CR-MB-LLL: sub-bases reduced with condition (1) relaxed, SimpleSwap at the boundaries. */
export const crBlockCpu: CpuReducer = (B, Z, n, m, p) => {
  const g = setup(B, Z, n, m, p, 'cr-block');
  const { s, r, size, count } = g;
  const stats = newStats();
  if (m < 2) return stats;
  const Bin = keepInput(B);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = stats.swaps + stats.sizeReductions;
    if (round > 0 && Bin) basisFromTransform(Bin, Z, n, m, B);
    recomputeBstar(s, r, null);
    const flagged = new Array<boolean>(count).fill(true);
    const reduceAll = reduceAllStep(g, stats, null);
    // the growth and drift watches (phases.ts); a boundary pair skipped for drift is checked again
    // in the next round, which starts from a fresh Gram-Schmidt (the round changed B*, so it runs)
    const watchGrowth = (): void => {
      if (s.zPeak > s.zLimit || s.drift) reduceAll();
    };
    armGrowthWatch(s);
    for (;;) {
      nextRound(stats, p, 'cr-block');
      for (let b = 0; b < count; b++) {
        if (!flagged[b]) continue;
        runPhases(s, b * size, Math.min(m, (b + 1) * size), stats, p, false, 'cr-block', reduceAll);
        flagged[b] = false;
        watchGrowth();
      }
      if (
        !boundaryChecks(g, flagged, (k) => {
          const swapped = pairStep(s, k, stats);
          watchGrowth();
          return swapped;
        })
      )
        break;
    }
    reduceAll();
    if (stats.swaps + stats.sizeReductions === before) break;
  }
  return stats;
};

/** MB-LLL: every sub-basis kept LLL-reduced with the full GS coefficients U; Swap at the boundaries. */
export const blockCpu: CpuReducer = (B, Z, n, m, p) => {
  const g = setup(B, Z, n, m, p, 'block');
  const { s, r, size, count } = g;
  const stats = newStats();
  if (m < 2) return stats;
  const U = allocLike(B, m * m);
  const Bin = keepInput(B);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = stats.swaps + stats.sizeReductions;
    if (round > 0 && Bin) basisFromTransform(Bin, Z, n, m, B);
    recomputeBstar(s, r, U);
    const flagged = new Array<boolean>(count).fill(true);
    const stale = new Array<boolean>(count).fill(false);
    // growth and drift watches: B* and U recomputed whole (valid for all blocks)
    const reduceAll = reduceAllStep(g, stats, U);
    armGrowthWatch(s);
    for (;;) {
      nextRound(stats, p, 'block');
      let anyStale = false;
      for (let b = 0; b < count; b++) {
        if (!flagged[b]) {
          stale[b] = false;
          continue;
        }
        const run = runPhases(s, b * size, Math.min(m, (b + 1) * size), stats, p, false, 'block', reduceAll);
        stale[b] = run.swaps + run.sizeReductions > 0;
        anyStale ||= stale[b]!;
      }
      if (anyStale) {
        normsInto(s.Bs, n, m, r);
        updateCoefficients(s, r, U, stale, size);
      }
      for (let b = 0; b < count; b++) {
        if (!flagged[b]) continue;
        const lo = b * size;
        stats.sizeReductions += sizeReduceWithU(s, U, lo + 1, Math.min(m, lo + size), lo);
        flagged[b] = false;
      }
      const boundarySwap = boundaryChecks(g, flagged, (k) => boundaryStepWithU(s, U, k, stats));
      const drift = s.drift; // a boundary pair skipped for drift is checked again on fresh B* and U
      if (!boundarySwap && !drift) break;
      if (s.zPeak > s.zLimit || drift) reduceAll();
    }
    stats.sizeReductions += sizeReduceWithU(s, U, 1, m, 0);
    if (stats.swaps + stats.sizeReductions === before) break;
  }
  return stats;
};
