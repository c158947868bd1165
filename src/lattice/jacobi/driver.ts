/**
 * The outer loop both Jacobi reducers share: Gram matrix, sweeps until a sweep changes nothing,
 * then B = B_in Z, and a fresh Gram matrix to confirm. Floating point is the hard part: G is updated
 * incrementally, and when a size reduction cancels most of a norm, the rounding errors of the large
 * numbers it came from swamp the small result.
 *
 *  1. G = B^T B in the working precision; Z = I (required on entry).
 *  2. Sweep (the sweeper's ordering: cyclic-by-row or chess tournament) until one full sweep makes
 *     no size reduction and no swap, or the sweeper stops early (drift or overflow, below). Every
 *     sweep, whole or cut short, counts towards p.maxIterations; the sweep past it throws
 *     IterationLimitError. A sweep with no change means every pair has |G(i,j)| <= G(i,i)/2 and
 *     G(i,i) <= G(j,j) (i < j).
 *  3. B = B_in Z from the original columns (so B matches Z exactly in the working precision).
 *  4. Done when the sweeps since G was last computed from a basis made swaps only, or the input is
 *     integral with an exact Gram matrix (below): G is then exactly the (permuted) Gram matrix of B,
 *     and B is a fixed point (reducing it again changes nothing). Otherwise refresh G = B^T B and
 *     go back to 2 (Z keeps accumulating).
 *
 * Drift: E[j] bounds the size (as a squared norm) of the numbers column j of G was computed from
 * since the last refresh, so its rounding error is about u E[j]. A reduction b_j -= r b_i sets
 * E[j] = max(E[j], r^2 E[i]); when G(j,j) <= E[j] * driftRatio (half the working precision's bits
 * lost) the sweeper stops and G is refreshed. Integer bases whose Gram matrix is exact in the
 * working precision never drift (every update is exact): for them only G(j,j) <= 0 counts.
 *
 * Overflow: a reduction that would put an entry of Z beyond 2^53 (no longer an exact integer) is not
 * made; the sweeper stops and the basis is returned as it is (Z stays exactly unimodular).
 *
 * No progress: a refresh that does not lower sum(log ||b_j||^2) below its best so far means rounding
 * noise is deciding (the basis is beyond the working precision); after MAX_STALLS of them, or
 * maxRefreshes(m) refreshes, the basis is returned as it is. In these cases the caller's float64
 * re-check judges the result (reduce() redoes float32 in float64, and reports float64 failures);
 * none of them happens on well-conditioned input. (The potential uses log; a kernel's log may
 * differ in the last bit, which can matter only in this failure regime.)
 */
import {
  IterationLimitError,
  InvalidArgumentError,
  InvalidInputError,
  RankDeficientError,
  allocLike,
  type RealArray,
} from '../../core/index.js';
import type { AlgoParams, BasisStats } from '../types.js';
import { basisTimesZ, gramMatrix } from './arith.js';

/** changed / unchanged: a whole sweep ran; drift / overflow: it stopped early (see above). */
export type SweepOutcome = 'changed' | 'unchanged' | 'drift' | 'overflow';

/** What a sweeper works on. G, Z and E are indexed by physical column (see the parallel sweeper). */
export interface JacobiState {
  readonly m: number;
  /** m x m Gram matrix, working precision. */
  readonly G: RealArray;
  /** m x m transform, integers in a Float64Array. */
  readonly Z: Float64Array;
  /** Per column: the size of the numbers its G column was computed from since the last refresh. */
  readonly E: Float64Array;
  /** Drift when G(j,j) <= E[j] * driftRatio; 0 for exact integer arithmetic (then only G(j,j) <= 0 is drift). */
  readonly driftRatio: number;
  readonly stats: BasisStats;
}

/** One ordering of the pairs. */
export interface JacobiSweeper {
  /** One sweep over all m(m-1)/2 pairs (or up to drift); adds to stats.swaps / stats.sizeReductions. */
  sweep(s: JacobiState): SweepOutcome;
  /** Puts G, Z and E back in logical column order and rewinds the ordering to its first pair. */
  finish(s: JacobiState): void;
}

/** Fraction of a squared norm below which an incrementally updated G(j,j) is not trusted. */
export function driftRatioFor(B: RealArray): number {
  return B instanceof Float32Array ? 2 ** -12 : 2 ** -26;
}

export const MAX_STALLS = 3;
export function maxRefreshes(m: number): number {
  return 100 + 10 * m;
}

export function runJacobi(
  B: RealArray,
  Z: Float64Array,
  n: number,
  m: number,
  p: AlgoParams,
  sweeper: JacobiSweeper,
  name: string,
): BasisStats {
  checkShapes(B, Z, n, m);
  const stats: BasisStats = { iterations: 0, swaps: 0, sizeReductions: 0 };
  if (m < 2) return stats;
  const Bin = B.slice() as RealArray;
  const G = allocLike(B, m * m);
  gramMatrix(Bin, n, m, G);
  checkDiagonal(G, m);
  const E = new Float64Array(m);
  const state: JacobiState = { m, G, Z, E, driftRatio: exactIntegerGram(Bin, G, m) ? 0 : driftRatioFor(B), stats };
  let bestPotential = resetScales(G, E, m);
  let stalls = 0;
  for (let refresh = 0; ; refresh++) {
    const reductionsBefore = stats.sizeReductions;
    let outcome: SweepOutcome;
    do {
      if (stats.iterations >= p.maxIterations) {
        throw new IterationLimitError(`${name}: no convergence within maxIterations = ${p.maxIterations} sweeps`, {
          ...stats,
        });
      }
      stats.iterations++;
      outcome = sweeper.sweep(state);
    } while (outcome === 'changed');
    sweeper.finish(state);
    basisTimesZ(Bin, Z, n, m, B);
    if (outcome === 'overflow') return stats;
    // converged on a G that is exactly B's Gram matrix (permuted, or exact integer arithmetic)
    if (outcome === 'unchanged' && (stats.sizeReductions === reductionsBefore || state.driftRatio === 0)) return stats;
    gramMatrix(B, n, m, G);
    const potential = resetScales(G, E, m);
    if (potential < bestPotential) {
      bestPotential = potential;
    } else if (++stalls >= MAX_STALLS || !Number.isFinite(potential)) {
      return stats; // no progress (or a zero / non-finite norm): precision exhausted
    }
    if (refresh >= maxRefreshes(m)) return stats;
  }
}

/** E = diag(G) after a refresh; returns sum(log G(j,j)) (NaN / -Infinity when a norm is not positive). */
function resetScales(G: RealArray, E: Float64Array, m: number): number {
  let potential = 0;
  for (let j = 0; j < m; j++) {
    const g = G[j + j * m]!;
    E[j] = g;
    potential += g > 0 ? Math.log(g) : NaN;
  }
  return potential;
}

/** Integer input whose Gram entries stay below 2^(p-2): every update of G is exact (|G(i,j)| <= max G(j,j), which never grows). */
function exactIntegerGram(Bin: RealArray, G: RealArray, m: number): boolean {
  for (let i = 0; i < Bin.length; i++) if (!Number.isInteger(Bin[i]!)) return false;
  const limit = G instanceof Float32Array ? 2 ** 22 : 2 ** 51;
  for (let j = 0; j < m; j++) if (!(G[j + j * m]! < limit)) return false;
  return true;
}

function checkShapes(B: RealArray, Z: Float64Array, n: number, m: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(m) || m < 1 || n < m) {
    throw new InvalidArgumentError(`need integers 1 <= m <= n, got n = ${n}, m = ${m}`);
  }
  if (B.length !== n * m)
    throw new InvalidInputError('SHAPE_MISMATCH', `basis has ${B.length} entries, n x m = ${n * m}`);
  if (Z.length !== m * m) throw new InvalidInputError('SHAPE_MISMATCH', `Z has ${Z.length} entries, m x m = ${m * m}`);
  for (let j = 0; j < m; j++)
    for (let i = 0; i < m; i++) {
      if (Z[i + j * m] !== (i === j ? 1 : 0)) throw new InvalidArgumentError('Z must be the identity on entry');
    }
}

/** Zero, NaN or infinite norms would make the multipliers NaN: say so instead. */
function checkDiagonal(G: RealArray, m: number): void {
  for (let j = 0; j < m; j++) {
    const g = G[j + j * m]!;
    if (!Number.isFinite(g))
      throw new InvalidInputError(
        'NON_FINITE',
        `basis vector ${j} has a non-finite norm (NaN/Inf entries or overflow)`,
        { vector: j },
      );
    if (g === 0) throw new RankDeficientError('ZERO_VECTOR', `basis vector ${j} is zero`, { vector: j });
  }
}
