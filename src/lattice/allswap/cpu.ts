/**
 * CR-AS-LLL, the cost-reduced all-swap LLL (Algorithm 1 of the CR-MB-LLL paper), on the CPU: the
 * exact reference for the GPU kernel.
 *
 * One round:
 *  1. Modified Gram-Schmidt (working precision) of the current basis: B* and ||b*_j||^2. From
 *     round 2 on, for non-integral input, of B = B_in Z recomputed, so that the rounding of the
 *     in-place column operations does not accumulate.
 *  2. Odd/even all-swap phases over all pairs until neither parity swaps (allswap/phases.ts):
 *     SimpleSizeReduce of mu_{k,k-1} and SimpleSwap, the other GS coefficients left stale.
 *  3. The delayed GS-coefficient update and size reduction of everything: for each column k (from
 *     the last), for j = k-1 .. 0, mu_{k,j} = <b_k, b*_j> / ||b*_j||^2 and b_k -= round(mu) b_j
 *     where |mu| > eta (lll/gso.ts: sizeReduceFromBstar; column-parallel on a GPU).
 * Between phases, the growth watch (allswap/phases.ts: growthFactor) may run step 3 early and
 * recompute B*.
 * In exact arithmetic one round ends LLL-reduced: after step 2 every adjacent pair satisfies Lovasz
 * with |mu_{k,k-1}| <= eta, and step 3 changes no b*_j and no mu_{k,k-1}. In floating point B*
 * drifts over many SimpleSwaps, so rounds repeat, each from a fresh Gram-Schmidt, until a round
 * changes nothing: that round has verified every condition on freshly computed values. At most
 * MAX_ROUNDS rounds; past them the basis is returned as it is and the caller's float64 check
 * judges it (float32 runs may end there; float64 has not on our test families).
 *
 * iterations counts phases (over all rounds) and is bounded by p.maxIterations.
 */
import { allocLike, type RealArray } from '../../core/index.js';
import type { AlgoParams, BasisStats, CpuReducer } from '../types.js';
import { maxAbs } from '../lll/columns.js';
import {
  basisFromTransform,
  checkReducerInput,
  keepInput,
  newStats,
  normsInto,
  reductionBound,
  sizeReduceFromBstar,
} from '../lll/gso.js';
import { FRESH_BSTAR, growthFactor, recomputeBstar, runPhases, type PairState } from './phases.js';

/** Rounds from a fresh Gram-Schmidt before the result is handed to the caller's check. */
export const MAX_ROUNDS = 8;

export const allswapCpu: CpuReducer = (B, Z, n, m, p) => {
  checkReducerInput(B, Z, n, m, p, 'allswap');
  const stats = newStats();
  if (m >= 2) allSwapRounds(B, Z, n, m, p, stats, keepInput(B), 'allswap');
  return stats;
};

/**
 * The rounds of CR-AS-LLL on B (with Z) until one changes nothing, at most MAX_ROUNDS. `input` is
 * the caller's original basis when it is not integral (rounds after the first start from
 * B = input Z), else null. Adds to stats (iterations: phases). Also used by lllCpu to verify and
 * polish its result on a modified Gram-Schmidt when its own Gram-based one may be inexact.
 */
export function allSwapRounds(
  B: RealArray,
  Z: Float64Array,
  n: number,
  m: number,
  p: AlgoParams,
  stats: BasisStats,
  input: RealArray | null,
  name: string,
): void {
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
  const r = allocLike(B, m);
  const reduceAll = (): void => {
    normsInto(s.Bs, n, m, r);
    stats.sizeReductions += sizeReduceFromBstar(B, s.Bs, r, Z, n, m, 1, m, 0, s.bound);
    s.zLimit = growthFactor(B) * maxAbs(Z);
    s.zPeak = 0;
  };
  // the growth and drift watches (phases.ts)
  const growthWatch = (): void => {
    reduceAll();
    recomputeBstar(s, r, null);
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = stats.swaps + stats.sizeReductions;
    if (round > 0 && input) basisFromTransform(input, Z, n, m, B);
    recomputeBstar(s, r, null);
    s.zLimit = growthFactor(B) * maxAbs(Z);
    s.zPeak = 0;
    runPhases(s, 0, m, stats, p, true, name, growthWatch);
    reduceAll();
    if (stats.swaps + stats.sizeReductions === before) return;
  }
}
