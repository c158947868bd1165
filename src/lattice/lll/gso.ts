/**
 * Helpers the LLL family shares: input checks, the rounding rule of size reduction, Gram-Schmidt
 * with an explicit orthogonal basis B*, re-anchoring B on B_in Z, and the closing "GS-coefficient
 * update and size reduction" pass of the parallel algorithms (column arithmetic: columns.ts).
 *
 * Conventions: a basis B is n x m column-major (column j at offset j*n); Z is m x m column-major
 * (column j at j*m); B* has B's shape; r[j] = ||b*_j||^2; a full mu matrix is m x m row-major with
 * mu_{i,j} at i*m + j (j < i), so the row of one vector is contiguous.
 */
import {
  InvalidArgumentError,
  InvalidInputError,
  IterationLimitError,
  LatticeMimoError,
  RankDeficientError,
  type RealArray,
} from '../../core/index.js';
import { isIntegral } from '../check.js';
import type { AlgoParams, BasisStats } from '../types.js';
import { addProduct, dotCols, reduceColumn, subMulCol, transformLost, transformOverflow } from './columns.js';

export function newStats(): BasisStats {
  return { iterations: 0, swaps: 0, sizeReductions: 0 };
}

/** Shapes, finiteness, parameters and Z = I on entry: a typed error naming what is wrong. */
export function checkReducerInput(
  B: RealArray,
  Z: Float64Array,
  n: number,
  m: number,
  p: AlgoParams,
  name: string,
): void {
  if (!Number.isInteger(n) || !Number.isInteger(m) || m < 1 || n < m) {
    throw new InvalidArgumentError(`${name}: need integers 1 <= m <= n, got n = ${n}, m = ${m}`);
  }
  if (B.length !== n * m)
    throw new InvalidInputError('SHAPE_MISMATCH', `${name}: basis has ${B.length} entries, n x m = ${n * m}`);
  if (Z.length !== m * m)
    throw new InvalidInputError('SHAPE_MISMATCH', `${name}: Z has ${Z.length} entries, m x m = ${m * m}`);
  if (!(p.delta > 0.25 && p.delta < 1))
    throw new InvalidArgumentError(`${name}: delta must be in (0.25, 1), got ${p.delta}`);
  if (!(p.eta >= 0.5 && p.eta < Math.sqrt(p.delta))) {
    throw new InvalidArgumentError(`${name}: eta must be in [0.5, sqrt(delta)), got ${p.eta}`);
  }
  if (!Number.isInteger(p.maxIterations) || p.maxIterations < 1) {
    throw new InvalidArgumentError(`${name}: maxIterations must be a positive integer, got ${p.maxIterations}`);
  }
  for (let i = 0; i < B.length; i++) {
    if (!Number.isFinite(B[i]!))
      throw new InvalidInputError('NON_FINITE', `${name}: basis entry ${i} is ${B[i]}`, { index: i });
  }
  for (let j = 0; j < m; j++)
    for (let i = 0; i < m; i++) {
      if (Z[i + j * m] !== (i === j ? 1 : 0))
        throw new InvalidArgumentError(`${name}: Z must be the identity on entry`);
    }
}

export function iterationLimit(name: string, what: string, p: AlgoParams, stats: BasisStats): IterationLimitError {
  return new IterationLimitError(`${name}: no convergence within maxIterations = ${p.maxIterations} ${what}`, {
    ...stats,
  });
}

/**
 * The bound above which mu is rounded away. eta itself, except that eta = 1/2 exactly would let
 * rounding noise flip mu between +1/2 and -1/2 forever: the bound keeps a margin far below the
 * float64 re-check's tolerance (float32 needs a wider one).
 */
export function reductionBound(eta: number, B: RealArray): number {
  return precisionReductionBound(eta, B instanceof Float32Array ? 'float32' : 'float64');
}

/** reductionBound for a working precision named rather than held (the GPU plans pass it to their kernels). */
export function precisionReductionBound(eta: number, precision: 'float32' | 'float64'): number {
  return Math.max(eta, 0.5 + (precision === 'float32' ? 2 ** -18 : 2 ** -40));
}

/** Nearest integer (halves up); callers only round values with |x| > 1/2. */
export function roundMu(x: number): number {
  return Math.round(x);
}

/**
 * Modified Gram-Schmidt in the working precision (arrays allocated like B): B* (n x m), r[j] =
 * ||b*_j||^2 and, when `mu` is given, the full m x m row-major coefficient matrix. Throws
 * RankDeficientError when a vector has no component left (zero or dependent vector).
 */
export function gramSchmidtInto(
  B: RealArray,
  n: number,
  m: number,
  Bs: RealArray,
  r: RealArray,
  mu: RealArray | null,
): void {
  Bs.set(B.subarray(0, n * m));
  for (let j = 0; j < m; j++) {
    const jo = j * n;
    const norm0 = dotCols(Bs, jo, Bs, jo, n);
    for (let i = 0; i < j; i++) {
      const io = i * n;
      const c = dotCols(Bs, jo, Bs, io, n) / r[i]!;
      if (mu) mu[j * m + i] = c;
      subMulCol(Bs, jo, io, c, n);
    }
    const rj = dotCols(Bs, jo, Bs, jo, n);
    r[j] = rj;
    if (!(r[j]! > 0) || !(rj > 1e-28 * norm0)) throw breakdown(B, j, norm0 === 0);
  }
}

/**
 * A Gram-Schmidt vector vanished. In float64 the basis is (numerically) dependent; in float32 it may
 * just be rounding, so that is a PRECISION_FAILURE the caller can answer by redoing in float64.
 */
export function breakdown(B: RealArray, j: number, zero: boolean): LatticeMimoError {
  if (B instanceof Float32Array && !zero) {
    return new LatticeMimoError('PRECISION_FAILURE', `Gram-Schmidt vector ${j} vanished in float32 (redo in float64)`, {
      vector: j,
    });
  }
  return new RankDeficientError(
    zero ? 'ZERO_VECTOR' : 'RANK_DEFICIENT',
    `basis vector ${j} is ${zero ? 'zero' : 'linearly dependent on the vectors before it (numerically)'}`,
    { vector: j },
  );
}

/**
 * The input basis kept for re-anchoring, or null when B is integral: column operations on integers
 * are exact (below 2^53), so B always equals B_in Z there.
 */
export function keepInput(B: RealArray): RealArray | null {
  return isIntegral(B) ? null : (B.slice() as RealArray);
}

/**
 * B = B_in Z, accumulated in float64 and stored in the working precision. The in-place column
 * operations round at every step; a verification round starts from this product instead, which is
 * what the caller returns, so that what is verified is the output itself.
 */
export function basisFromTransform(Bin: RealArray, Z: Float64Array, n: number, m: number, B: RealArray): void {
  if (transformLost(Z)) throw transformOverflow();
  const out = new Float64Array(n * m);
  addProduct(Bin, Z, n, m, out);
  B.set(out);
}

/** r[j] = ||b*_j||^2 for every column of B*, in the working precision. */
export function normsInto(Bs: RealArray, n: number, m: number, r: RealArray): void {
  for (let j = 0; j < m; j++) r[j] = dotCols(Bs, j * n, Bs, j * n, n);
}

/**
 * The GS-coefficient update and size reduction of columns k in [kLo, kHi) against columns j in
 * [jLo, k), from B* (which size reduction leaves unchanged): for k from the last column down, for j
 * from k-1 down, mu_{k,j} = <b_k, b*_j> / ||b*_j||^2 on the current b_k, and b_k -= round(mu) b_j
 * when |mu| > bound. Each column only reads columns to its left, which are still untouched when k
 * descends: so the result equals the parallel form (every column reduced at once against the
 * unreduced columns), which is what a GPU kernel with one thread group per column computes.
 * Returns the number of column operations.
 */
export function sizeReduceFromBstar(
  B: RealArray,
  Bs: RealArray,
  r: RealArray,
  Z: Float64Array,
  n: number,
  m: number,
  kLo: number,
  kHi: number,
  jLo: number,
  bound: number,
): number {
  let count = 0;
  for (let k = kHi - 1; k >= kLo && k > jLo; k--) {
    const ko = k * n;
    for (let j = k - 1; j >= jLo; j--) {
      const mu = dotCols(B, ko, Bs, j * n, n) / r[j]!;
      if (Math.abs(mu) > bound) {
        reduceColumn(B, Z, n, m, k, j, roundMu(mu));
        count++;
      }
    }
  }
  return count;
}
