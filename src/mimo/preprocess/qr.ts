/**
 * QR decomposition of real column-major matrices by modified Gram-Schmidt (the N-way paper's
 * Alg. 1), plain or sorted (SQRD: at each step the remaining column of smallest residual norm goes
 * next, so the strongest layers end up last, i.e. first in a back-substitution / tree search).
 *
 * The paper's kernel works on the extended matrix V = [H~ | y~] and produces E = [R | Q^T y~]:
 * mgsInPlace does exactly that for any number of extra columns. One channel usually serves many
 * vectors, so the detectors factor H once (qrInto) and apply Q^T per vector instead.
 */
import {
  InvalidArgumentError,
  InvalidInputError,
  RankDeficientError,
  makeBatch,
  type MatrixBatch,
} from '../../core/index.js';

/** A column whose residual norm falls below this fraction of its original norm counts as dependent. */
const RANK_TOL = 1e-12;

/** Column order of the QR: 'none' (plain MGS), 'ascending' (SQRD: the remaining column of least residual norm next) or 'descending'. */
export type QrOrdering = 'none' | 'ascending' | 'descending';

/** One QR factorisation A[:, perm] = Q R of an m x n matrix. */
export interface QrResult {
  /** Rows of A and Q. */
  readonly m: number;
  /** Columns of A and Q; R is n x n. */
  readonly n: number;
  /** m x n, orthonormal columns (column-major). */
  readonly Q: Float64Array;
  /** n x n upper triangular (column-major), positive diagonal. */
  readonly R: Float64Array;
  /** perm[k] = index in A of the column factored at position k: A[:, perm] = Q R. */
  readonly perm: Int32Array;
}

function checkShape(len: number, off: number, m: number, n: number): void {
  if (!Number.isInteger(m) || !Number.isInteger(n) || m < 1 || n < 1)
    throw new InvalidArgumentError(`matrix dimensions must be positive integers, got ${m} x ${n}`);
  if (n > m) throw new InvalidArgumentError(`QR needs rows >= columns, got ${m} x ${n}`);
  if (off < 0 || off + m * n > len)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `matrix ${m} x ${n} at offset ${off} does not fit in ${len} elements`,
    );
}

/**
 * The N-way paper's Alg. 1 in place: V (m x ncols at vOff) is orthogonalised on its first n columns.
 * For i = 0 .. n-1: E_ii = |v_i|, v_i /= E_ii, and for every later column k: E_ik = v_i . v_k,
 * v_k -= E_ik v_i. Afterwards V[:, 0..n) = Q, V[:, n..) = the residuals, and E (n x ncols at eOff,
 * column-major) = [R | Q^T V[:, n..)].
 */
export function mgsInPlace(
  V: Float64Array,
  vOff: number,
  m: number,
  ncols: number,
  n: number,
  E: Float64Array,
  eOff = 0,
): void {
  if (!Number.isInteger(ncols) || !(ncols >= n))
    throw new InvalidArgumentError(`cannot factor ${n} of ${ncols} columns`);
  checkShape(V.length, vOff, m, n);
  if (vOff + m * ncols > V.length)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `matrix ${m} x ${ncols} at offset ${vOff} does not fit in ${V.length} elements`,
    );
  for (let k = 0; k < ncols; k++) for (let i = 0; i < n; i++) E[eOff + i + k * n] = 0;
  for (let i = 0; i < n; i++) {
    const ci = vOff + i * m;
    let nn = 0;
    for (let r = 0; r < m; r++) nn += V[ci + r]! * V[ci + r]!;
    const norm = Math.sqrt(nn);
    if (!(norm > 0) || !Number.isFinite(norm))
      throw new RankDeficientError(
        'RANK_DEFICIENT',
        `column ${i} is linearly dependent on the previous ones (residual norm ${norm})`,
      );
    E[eOff + i + i * n] = norm;
    const s = 1 / norm;
    for (let r = 0; r < m; r++) V[ci + r] = V[ci + r]! * s;
    for (let k = i + 1; k < ncols; k++) {
      const ck = vOff + k * m;
      let d = 0;
      for (let r = 0; r < m; r++) d += V[ci + r]! * V[ck + r]!;
      E[eOff + i + k * n] = d;
      for (let r = 0; r < m; r++) V[ck + r] = V[ck + r]! - d * V[ci + r]!;
    }
  }
}

/**
 * QR of A (m x n at aOff) by MGS into caller-owned Q (m x n), R (n x n), perm (n): no allocation,
 * for per-channel preprocessing. With ordering 'ascending' (SQRD) the remaining column of least
 * residual norm is taken at each step; 'descending' takes the largest (QR with column pivoting).
 * Throws RankDeficientError when a column is (numerically) dependent on the others.
 *
 * `pairs` (with 'ascending'): columns 2j and 2j + 1 of A are the real and imaginary parts of one
 * complex unknown (the MRVD). While the columns taken so far form whole pairs, the two residual
 * norms of every remaining pair are equal in exact arithmetic (a pair's columns are orthogonal and
 * the span of whole pairs is closed under multiplication by i), so rounding alone would pick one:
 * then a pair counts as one column of the lesser of its two residuals, and equal residuals go to
 * the column of least index in A, the pair's real part first. With a pair half taken no such tie
 * exists and the least residual is taken, as with 'ascending'.
 */
export function qrInto(
  A: ArrayLike<number>,
  aOff: number,
  m: number,
  n: number,
  ordering: QrOrdering,
  Q: Float64Array,
  R: Float64Array,
  perm: Int32Array,
  norms?: Float64Array,
  resid?: Float64Array,
  pairs = false,
): void {
  checkShape(A.length, aOff, m, n);
  if (pairs && (ordering !== 'ascending' || n % 2 !== 0))
    throw new InvalidArgumentError(
      `QR by pairs of columns needs ordering 'ascending' and an even n, got '${ordering}', n = ${n}`,
    );
  const orig = norms ?? new Float64Array(n);
  for (let k = 0; k < n; k++) {
    perm[k] = k;
    let nn = 0;
    for (let r = 0; r < m; r++) {
      const v = A[aOff + r + k * m]!;
      if (!Number.isFinite(v)) throw new InvalidInputError('NON_FINITE', `matrix entry (${r}, ${k}) is ${v}`);
      Q[r + k * m] = v;
      nn += v * v;
    }
    orig[k] = Math.sqrt(nn);
    for (let i = 0; i < n; i++) R[i + k * n] = 0;
  }
  // Residual squared norms of the columns not yet factored (downdated after each step, as in SQRD).
  const res = resid ?? new Float64Array(n);
  for (let k = 0; k < n; k++) res[k] = orig[k]! * orig[k]!;
  for (let i = 0; i < n; i++) {
    if (ordering !== 'none') {
      // Pick the pivot among the residual columns i..n-1 and swap it (Q, R's rows above i, perm).
      let best = i,
        bestVal = res[i]!;
      if (pairs) {
        let whole = true;
        for (let t = 0; t < i && whole; t++) {
          whole = false;
          for (let u = 0; u < i; u++) if (perm[u] === (perm[t]! ^ 1)) whole = true;
        }
        bestVal = Infinity;
        for (let k = i; k < n; k++) {
          let v = res[k]!;
          // whole pairs taken: the pair's lesser residual, and the least index on a tie
          if (whole) for (let t = i; t < n; t++) if (perm[t] === (perm[k]! ^ 1) && res[t]! < v) v = res[t]!;
          if (v < bestVal || (whole && v === bestVal && perm[k]! < perm[best]!)) {
            bestVal = v;
            best = k;
          }
        }
      } else {
        for (let k = i + 1; k < n; k++) {
          const v = res[k]!;
          if (ordering === 'ascending' ? v < bestVal : v > bestVal) {
            bestVal = v;
            best = k;
          }
        }
      }
      if (best !== i) {
        for (let r = 0; r < m; r++) {
          const t = Q[r + i * m]!;
          Q[r + i * m] = Q[r + best * m]!;
          Q[r + best * m] = t;
        }
        for (let r = 0; r < i; r++) {
          const t = R[r + i * n]!;
          R[r + i * n] = R[r + best * n]!;
          R[r + best * n] = t;
        }
        const tp = perm[i]!;
        perm[i] = perm[best]!;
        perm[best] = tp;
        const tn = orig[i]!;
        orig[i] = orig[best]!;
        orig[best] = tn;
        const tr = res[i]!;
        res[i] = res[best]!;
        res[best] = tr;
      }
    }
    let nn = 0;
    for (let r = 0; r < m; r++) nn += Q[r + i * m]! * Q[r + i * m]!;
    const norm = Math.sqrt(nn);
    if (!(norm > RANK_TOL * orig[i]!)) {
      throw new RankDeficientError(
        orig[i] === 0 ? 'ZERO_VECTOR' : 'RANK_DEFICIENT',
        orig[i] === 0
          ? `column ${perm[i]} is zero`
          : `column ${perm[i]} is linearly dependent on the others (rank-deficient matrix)`,
      );
    }
    R[i + i * n] = norm;
    const s = 1 / norm;
    for (let r = 0; r < m; r++) Q[r + i * m] = Q[r + i * m]! * s;
    for (let k = i + 1; k < n; k++) {
      let d = 0;
      for (let r = 0; r < m; r++) d += Q[r + i * m]! * Q[r + k * m]!;
      R[i + k * n] = d;
      for (let r = 0; r < m; r++) Q[r + k * m] = Q[r + k * m]! - d * Q[r + i * m]!;
      res[k] = res[k]! - d * d;
    }
  }
}

/** QR by modified Gram-Schmidt (no pivoting) of A (m x n, column-major). */
export function qrMgs(A: ArrayLike<number>, m: number, n: number, aOff = 0): QrResult {
  const Q = new Float64Array(m * n),
    R = new Float64Array(n * n),
    perm = new Int32Array(n);
  qrInto(A, aOff, m, n, 'none', Q, R, perm);
  return { m, n, Q, R, perm };
}

/** Sorted QR (SQRD): A[:, perm] = Q R with columns taken by increasing residual norm (or decreasing). */
export function sortedQr(
  A: ArrayLike<number>,
  m: number,
  n: number,
  aOff = 0,
  order: 'ascending' | 'descending' = 'ascending',
): QrResult {
  const Q = new Float64Array(m * n),
    R = new Float64Array(n * n),
    perm = new Int32Array(n);
  qrInto(A, aOff, m, n, order, Q, R, perm);
  return { m, n, Q, R, perm };
}

/**
 * Batched QR of A (batch x m x n, column-major, m >= n): Q batch x m x n, R batch x n x n, perm
 * batch x n (see QrResult), all float64.
 */
export function qrBatch(
  A: MatrixBatch,
  ordering: QrOrdering = 'none',
): { Q: MatrixBatch<Float64Array>; R: MatrixBatch<Float64Array>; perm: Int32Array } {
  const { batch, rows: m, cols: n } = A;
  const Q = new Float64Array(batch * m * n),
    R = new Float64Array(batch * n * n),
    perm = new Int32Array(batch * n);
  const norms = new Float64Array(n);
  for (let b = 0; b < batch; b++) {
    qrInto(
      A.data,
      b * m * n,
      m,
      n,
      ordering,
      Q.subarray(b * m * n),
      R.subarray(b * n * n),
      perm.subarray(b * n),
      norms,
    );
  }
  return { Q: makeBatch(Q, batch, m, n), R: makeBatch(R, batch, n, n), perm };
}

/** y_hat = Q^T y (Q m x n column-major), written to out[outOff ..]. */
export function applyQt(
  Q: Float64Array,
  m: number,
  n: number,
  y: ArrayLike<number>,
  yOff: number,
  out: Float64Array,
  outOff = 0,
): Float64Array {
  for (let k = 0; k < n; k++) {
    let d = 0;
    const c = k * m;
    for (let r = 0; r < m; r++) d += Q[c + r]! * y[yOff + r]!;
    out[outOff + k] = d;
  }
  return out;
}
