/**
 * The odd/even all-swap phases of CR-AS-LLL (Algorithm 1 and the CUDA kernel of Algorithm 2 of the
 * CR-MB-LLL paper), shared by the all-swap and block reducers.
 *
 * State: the basis B, its explicit Gram-Schmidt basis B* and the superdiagonal U\ of the GS
 * coefficients (sup[k] = mu_{k,k-1}). The other coefficients are not maintained during the phases
 * (the "delayed GS update" that makes the algorithm cost-reduced): a pair (k-1, k) only needs
 * b*_{k-1}, b*_k and mu_{k,k-1}, and only operations on that pair change them, so all pairs of one
 * parity are independent and a phase may process them in any order (the GPU runs them at once).
 *
 * One pair step (the loop body of Algorithm 2), for pair (k-1, k), 0-based:
 *   mu = <b_k, b*_{k-1}> / ||b*_{k-1}||^2                       (update mu_{k,k-1})
 *   if |mu| > eta: b_k -= round(mu) b_{k-1}, mu -= round(mu)      (SimpleSizeReduce)
 *   if ||b*_k||^2 < (delta - mu^2) ||b*_{k-1}||^2: SimpleSwap      (Lovasz fails)
 * SimpleSwap (Procedure 2) swaps b_{k-1} and b_k and updates the two GS vectors in place:
 *   b*'_{k-1} = b*_k + mu b*_{k-1},  mu' = mu ||b*_{k-1}||^2 / ||b*'_{k-1}||^2,
 *   b*'_k = b*_{k-1} - mu' b*'_{k-1} = (||b*_k||^2 / ||b*'_{k-1}||^2) b*_{k-1} - mu' b*_k.
 * The last form (a combination of two orthogonal vectors, no cancellation) is the one computed:
 * the paper's b*_{k-1} - mu' b*'_{k-1} cancels badly when ||b*'_k|| << ||b*_{k-1}||. The squared
 * norms come from the two-dimensional identities (||b*'_{k-1}||^2 = ||b*_k||^2 + mu^2 ||b*_{k-1}||^2)
 * instead of two more dot products.
 *
 * A phase processes every pair (k-1, k) with k of one parity (k odd: pairs (0,1), (2,3), ...; k
 * even: (1,2), (3,4), ...) inside a column range, in increasing k. Phases alternate, odd first,
 * until the latest phase of each parity made no swap (Algorithm 1's odd/even flags).
 */
import type { RealArray } from '../../core/index.js';
import type { AlgoParams, BasisStats } from '../types.js';
import { dotCols, reduceColumn, swapColumns } from '../lll/columns.js';
import { gramSchmidtInto, iterationLimit } from '../lll/gso.js';

export interface PairState {
  readonly B: RealArray;
  /** Explicit Gram-Schmidt basis, same shape and precision as B. */
  readonly Bs: RealArray;
  readonly Z: Float64Array;
  readonly n: number;
  readonly m: number;
  /** U\: sup[k] = mu_{k,k-1} as last computed (working precision, like the kernel's shared array). */
  readonly sup: RealArray;
  readonly delta: number;
  /** |mu| above this is rounded away (reductionBound). */
  readonly bound: number;
  /** Largest |Z_ij| written by a column operation since the caller last reset it (growth watch). */
  zPeak: number;
  /** zPeak above this calls for the early size reduction (see growthFactor). */
  zLimit: number;
  /** Whether the drift watch runs (AlgoParams.driftWatch). */
  readonly watchDrift: boolean;
  /** B* was changed by a swap since it was last computed from the basis (the drift watch looks only then). */
  watch: boolean;
  /** A pair step found B* drifted (bstarDrifted) and did nothing: the caller recomputes B*. */
  drift: boolean;
}

/** A fresh PairState's watch fields; B* computed from the basis just now. */
export const FRESH_BSTAR = { watch: false, drift: false } as const;

/**
 * B* (r: its squared norms; mu: the GS coefficients, or null) computed from the basis, which clears
 * the drift watch's state: every caller that recomputes B* goes through here.
 */
export function recomputeBstar(s: PairState, r: RealArray, mu: RealArray | null): void {
  gramSchmidtInto(s.B, s.n, s.m, s.Bs, r, mu);
  Object.assign(s, FRESH_BSTAR);
}

/**
 * Drift watch. SimpleSwap updates b*_{k-1}, b*_k through the formulas above instead of
 * recomputing them, and where the Gram-Schmidt norms span many orders (knapsack-like bases: r_0
 * near 2^38, the rest near 1) those updates lose every digit within a few dozen swaps of one
 * sub-basis: MB-LLL then ends in a precision failure or a failed check, and the whole-device
 * kernel's block mode drives |Z| past 2^53. A true b*_j satisfies <b_j, b*_j> = ||b*_j||^2 (b_j - b*_j lies in
 * the span of the earlier ones); a pair step with B* changed since it was computed checks that for
 * j = k-1, k within DRIFT_TOL ||b_j||^2 (the rounding of b*_j is relative to the columns it was
 * projected from, at most about j units of ||b_j||) and otherwise does nothing and sets s.drift;
 * the caller then runs the closing size reduction and a fresh Gram-Schmidt, as for the growth
 * watch. Where it finds no drift nothing changes; it does find some on ill-conditioned bases where
 * no reduction fails (square block-Toeplitz, 12 x 12), so the per-basis GPU kernels, which run the
 * papers' algorithms as they are, equal the reducers with it off (AlgoParams.driftWatch false).
 */
export function driftTolerance(B: RealArray): number {
  return B instanceof Float32Array ? 2 ** -8 : 2 ** -36;
}

export function bstarDrifted(s: PairState, k: number, r1: number, rk: number): boolean {
  const { B, Bs, n } = s;
  const tol = driftTolerance(B);
  const a = (k - 1) * n,
    b = k * n;
  return (
    !(Math.abs(dotCols(B, a, Bs, a, n) - r1) <= tol * dotCols(B, a, B, a, n)) ||
    !(Math.abs(dotCols(B, b, Bs, b, n) - rk) <= tol * dotCols(B, b, B, b, n))
  );
}

/**
 * Growth watch. The delayed size reduction lets the coefficients of a vector along non-adjacent GS
 * vectors grow: a vector moving down by swaps is only reduced against its current neighbour, and
 * each multiplier carries into the coefficients it drags along, so they can grow exponentially with
 * the path (seen on ill-conditioned block-Toeplitz bases, and on Gaussian ones with 2- or 4-column
 * sub-bases: |Z| past 2^53). When |Z| has grown by this factor since the last full size reduction,
 * the algorithm's closing step (GS-coefficient update and size reduction of everything) is run
 * early, at the next point where B* is consistent (between phases, between boundary steps), and
 * B* is recomputed from the basis (it drifts fastest exactly when vectors have grown, since the
 * pair steps' dot products then lose accuracy). Size reduction changes no b*_j and reduces only
 * coefficients, so every pair's state and every odd/even flag stays valid: the schedule of the
 * algorithm is unchanged, only the growth (and the drift) is cut. The factor keeps the rounding of
 * the grown vectors well inside the working precision.
 */
export function growthFactor(B: RealArray): number {
  return B instanceof Float32Array ? 2 ** 6 : 2 ** 16;
}

/**
 * SimpleSwap's update of the GS vectors at column offsets a (b*_{k-1}) and b (b*_k); the basis
 * columns are swapped by the caller. mu = mu_{k,k-1}, r1 = ||b*_{k-1}||^2, rk = ||b*_k||^2 before
 * the swap. Returns the new mu_{k,k-1}.
 */
export function simpleSwapBstar(
  Bs: RealArray,
  a: number,
  b: number,
  n: number,
  mu: number,
  r1: number,
  rk: number,
): number {
  const r1New = rk + mu * mu * r1;
  const muNew = (mu * r1) / r1New;
  const c = rk / r1New;
  for (let t = 0; t < n; t++) {
    const x = Bs[a + t]!,
      y = Bs[b + t]!;
    Bs[a + t] = y + mu * x;
    Bs[b + t] = c * x - muNew * y;
  }
  return muNew;
}

/**
 * One pair step on (k-1, k): SimpleSizeReduce of mu_{k,k-1}, Lovasz test, SimpleSwap. True on a
 * swap. With s.watch, first the drift watch (nothing done, s.drift set, where B* drifted).
 */
export function pairStep(s: PairState, k: number, stats: BasisStats): boolean {
  const { B, Bs, Z, n, m, sup } = s;
  const a = (k - 1) * n,
    b = k * n;
  const r1 = dotCols(Bs, a, Bs, a, n);
  const rk = dotCols(Bs, b, Bs, b, n); // the size reduction below does not change b*_k
  if (s.watch && bstarDrifted(s, k, r1, rk)) {
    s.drift = true;
    return false;
  }
  sup[k] = dotCols(B, b, Bs, a, n) / r1;
  let mu = sup[k]!;
  if (Math.abs(mu) > s.bound) {
    const X = Math.round(mu);
    const big = reduceColumn(B, Z, n, m, k, k - 1, X);
    if (big > s.zPeak) s.zPeak = big;
    sup[k] = mu - X;
    mu = sup[k]!;
    stats.sizeReductions++;
  }
  if (!(rk < (s.delta - mu * mu) * r1)) return false;
  swapColumns(B, Z, n, m, k, k - 1);
  sup[k] = simpleSwapBstar(Bs, a, b, n, mu, r1, rk);
  s.watch = s.watchDrift;
  stats.swaps++;
  return true;
}

/** One phase over the pairs (k-1, k) with lo < k < hi and k % 2 === parity. Returns its swap count. */
export function allSwapPhase(s: PairState, lo: number, hi: number, parity: 0 | 1, stats: BasisStats): number {
  let swaps = 0;
  let k = lo + 1;
  if ((k & 1) !== parity) k++;
  for (; k < hi; k += 2) if (pairStep(s, k, stats)) swaps++;
  return swaps;
}

/** What one run of phases did. */
export interface PhaseRun {
  phases: number;
  swaps: number;
  sizeReductions: number;
}

/**
 * Odd and even phases over the columns [lo, hi) until the latest phase of each parity made no swap.
 * Then every pair (k-1, k) inside the range satisfies Lovasz with |mu_{k,k-1}| <= eta. At most
 * p.maxIterations phases (IterationLimitError past that); `countPhases` adds each phase to
 * stats.iterations (the all-swap reducer counts phases, the block reducers count rounds).
 * `onGrowth` is called between phases once s.zPeak passes s.zLimit (the growth watch) or a pair
 * step found B* drifted (the drift watch); it must recompute B* (and clear s.watch, s.drift). The
 * pairs a drift skipped are taken again: both parities run once more.
 */
export function runPhases(
  s: PairState,
  lo: number,
  hi: number,
  stats: BasisStats,
  p: AlgoParams,
  countPhases: boolean,
  name: string,
  onGrowth?: () => void,
): PhaseRun {
  const swaps0 = stats.swaps,
    red0 = stats.sizeReductions;
  let oddDirty = true,
    evenDirty = true;
  let parity: 0 | 1 = 1;
  let phases = 0;
  while (oddDirty || evenDirty) {
    if (phases >= p.maxIterations || (countPhases && stats.iterations >= p.maxIterations)) {
      throw iterationLimit(name, 'phases', p, stats);
    }
    phases++;
    if (countPhases) stats.iterations++;
    const swapped = allSwapPhase(s, lo, hi, parity, stats) > 0;
    if (parity === 1) oddDirty = swapped;
    else evenDirty = swapped;
    parity = parity === 1 ? 0 : 1;
    if (s.drift) {
      oddDirty = evenDirty = true;
      if (!onGrowth) Object.assign(s, FRESH_BSTAR); // nobody recomputes B*: go on without the watch
    }
    if (onGrowth && (s.zPeak > s.zLimit || s.drift)) onGrowth();
  }
  return { phases, swaps: stats.swaps - swaps0, sizeReductions: stats.sizeReductions - red0 };
}
