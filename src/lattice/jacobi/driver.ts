/**
 * The outer loop both Jacobi reducers share: Gram matrix, sweeps until a sweep changes nothing,
 * then B = B_in Z and a check on a freshly computed Gram matrix.
 *
 *  1. G = B^T B in the working precision; Z = I (required on entry).
 *  2. Sweep (the sweeper's ordering: cyclic-by-row or chess tournament) until one full sweep makes
 *     no size reduction and no swap. Every sweep counts towards p.maxIterations; the sweep past it
 *     throws IterationLimitError. A sweep with no change means every pair has |G(i,j)| <= G(i,i)/2
 *     and G(i,i) <= G(j,j) (i < j) on the incrementally updated G.
 *  3. B = B_in Z from the original columns (so B matches Z exactly in the working precision).
 *  4. If only swaps happened since G was last computed from a basis, G is exact (a permuted Gram
 *     matrix) and we are done. Otherwise G has drifted by rounding: recompute G = B^T B and, if some
 *     pair violates the Lagrange condition by more than a rounding slack, go back to 2 on that G
 *     (Z keeps accumulating). At most MAX_RESTARTS restarts; after them the basis is returned as it
 *     is and the caller's float64 re-check judges it (never seen on test inputs).
 */
import { IterationLimitError, InvalidArgumentError, InvalidInputError, RankDeficientError } from '../../core/errors.js';
import { allocLike, type RealArray } from '../../core/matrix.js';
import type { AlgoParams, BasisStats } from '../types.js';
import { basisTimesZ, gramMatrix, hasLagrangeViolation } from './arith.js';

/** One ordering of the pairs. Both methods work on G (m x m, working precision) and Z. */
export interface JacobiSweeper {
  /** One sweep over all m(m-1)/2 pairs; adds to stats.swaps / stats.sizeReductions; true when something changed. */
  sweep(G: RealArray, Z: Float64Array, stats: BasisStats): boolean;
  /** Puts Z (and G) back in logical column order (the parallel method keeps a permutation array). */
  finish(G: RealArray, Z: Float64Array): void;
}

/** Restarts from a recomputed Gram matrix before giving up on the float check (loop bound). */
export const MAX_RESTARTS = 64;

/** Relative slack of the final check on the recomputed Gram matrix, per working precision. */
export function restartSlack(B: RealArray): number {
  return B instanceof Float32Array ? 2 ** -16 : 2 ** -40;
}

export function runJacobi(B: RealArray, Z: Float64Array, n: number, m: number, p: AlgoParams, sweeper: JacobiSweeper, name: string): BasisStats {
  checkShapes(B, Z, n, m);
  const stats: BasisStats = { iterations: 0, swaps: 0, sizeReductions: 0 };
  if (m < 2) return stats;
  const Bin = B.slice() as RealArray;
  const G = allocLike(B, m * m);
  gramMatrix(Bin, n, m, G);
  checkDiagonal(G, m);
  const tau = restartSlack(B);
  for (let restart = 0; ; restart++) {
    const reductionsBefore = stats.sizeReductions;
    let changed = true;
    while (changed) {
      if (stats.iterations >= p.maxIterations) {
        throw new IterationLimitError(`${name}: no convergence within maxIterations = ${p.maxIterations} sweeps`, { ...stats });
      }
      stats.iterations++;
      changed = sweeper.sweep(G, Z, stats);
    }
    sweeper.finish(G, Z);
    basisTimesZ(Bin, Z, n, m, B);
    if (stats.sizeReductions === reductionsBefore) return stats;
    gramMatrix(B, n, m, G);
    if (!hasLagrangeViolation(G, m, tau) || restart >= MAX_RESTARTS) return stats;
  }
}

function checkShapes(B: RealArray, Z: Float64Array, n: number, m: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(m) || m < 1 || n < m) {
    throw new InvalidArgumentError(`need integers 1 <= m <= n, got n = ${n}, m = ${m}`);
  }
  if (B.length < n * m) throw new InvalidInputError('SHAPE_MISMATCH', `basis has ${B.length} entries, n x m = ${n * m}`);
  if (Z.length !== m * m) throw new InvalidInputError('SHAPE_MISMATCH', `Z has ${Z.length} entries, m x m = ${m * m}`);
  for (let j = 0; j < m; j++) for (let i = 0; i < m; i++) {
    if (Z[i + j * m] !== (i === j ? 1 : 0)) throw new InvalidArgumentError('Z must be the identity on entry');
  }
}

/** Zero, NaN or infinite norms would make the multipliers NaN: say so instead. */
function checkDiagonal(G: RealArray, m: number): void {
  for (let j = 0; j < m; j++) {
    const g = G[j + j * m]!;
    if (!Number.isFinite(g)) throw new InvalidInputError('NON_FINITE', `basis vector ${j} has a non-finite norm (NaN/Inf entries or overflow)`, { vector: j });
    if (g === 0) throw new RankDeficientError('ZERO_VECTOR', `basis vector ${j} is zero`, { vector: j });
  }
}
