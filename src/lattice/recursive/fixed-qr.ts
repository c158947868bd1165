/**
 * The R factor of an exact integer basis, computed by Householder reflections in BigInt fixed
 * point: every entry is an integer standing for itself times 2^-F. Orthogonal transformations keep
 * norms, so the absolute error of every entry of R stays a small multiple of (m + n) 2^-F whatever
 * the conditioning: the precision is chosen by what the caller needs to resolve (the smallest
 * Gram-Schmidt norm, to `guard` bits), never by the basis' condition number as a floating QR's is.
 *
 * Shapes: B is m columns of n BigInts (column j = basis vector j, m <= n); R is m columns of m
 * BigInts, upper triangular (R[j][i] = r_ij for i <= j, zero below), with a positive diagonal,
 * at scale 2^F: the true r_ij is R[j][i] / 2^F, and B = Q R for an orthonormal Q.
 */
import { RankDeficientError } from '../../core/index.js';
import type { BigBasis } from '../precision/exact.js';

/** An R factor at scale 2^F, with the base-2 logarithms of its diagonal (the basis' profile). */
export interface FixedR {
  /** m columns of m BigInts, upper triangular, r_ij = R[j][i] / 2^F. */
  R: BigBasis;
  /** The scale's exponent (fractional bits). */
  F: number;
  /** log2 r_ii, i = 0..m-1. */
  profile: Float64Array;
}

/** Bits of |x| (0 for 0). */
export function bitLength(x: bigint): number {
  if (x < 0n) x = -x;
  if (x === 0n) return 0;
  const hex = x.toString(16);
  return (hex.length - 1) * 4 + 32 - Math.clz32(Number.parseInt(hex[0]!, 16));
}

/** log2 |x| to about 15 digits (-Infinity for 0). */
export function log2Big(x: bigint): number {
  if (x < 0n) x = -x;
  if (x === 0n) return Number.NEGATIVE_INFINITY;
  const bits = bitLength(x);
  if (bits <= 1000) return Math.log2(Number(x));
  const shift = bits - 64;
  return Math.log2(Number(x >> BigInt(shift))) + shift;
}

/** floor(sqrt(x)) for x >= 0 (Newton's iteration from above). */
export function isqrt(x: bigint): bigint {
  if (x < 2n) return x;
  let r = 1n << BigInt((bitLength(x) >> 1) + 1);
  for (;;) {
    const next = (r + x / r) >> 1n;
    if (next >= r) return r;
    r = next;
  }
}

/** Largest bit length of the entries. */
export function maxBitLength(B: BigBasis): number {
  let big = 0n;
  for (const c of B)
    for (const v of c) {
      const a = v < 0n ? -v : v;
      if (a > big) big = a;
    }
  return bitLength(big);
}

/**
 * Householder QR of B at scale 2^F (see the module comment). `from`: columns 0..from-1 of R (and
 * the reflectors that made them) are taken from `reuse`, which a previous call on a basis with the
 * same first `from` columns returned: a block reduction that changed only later columns pays only
 * for those.
 */
export function fixedQR(B: BigBasis, F: number, reuse?: FixedQRState, from = 0): FixedR & { state: FixedQRState } {
  const m = B.length,
    n = B[0]!.length;
  const S = BigInt(F);
  const start = reuse && reuse.F === F ? Math.min(from, reuse.done) : 0;
  // A: the columns being triangularised (fixed point); V: the reflectors; VV: their squared norms
  const A: BigBasis = new Array(m);
  const V: BigBasis = reuse && start > 0 ? reuse.V.slice(0, start) : [];
  const VV: bigint[] = reuse && start > 0 ? reuse.VV.slice(0, start) : [];
  // rows whose reflector left a negative diagonal entry: negated in every column (Q's column too)
  const flip: boolean[] = reuse && start > 0 ? reuse.flip.slice(0, start) : [];
  const R: BigBasis = new Array(m);
  for (let j = 0; j < start; j++) R[j] = reuse!.R[j]!.slice();
  for (let j = start; j < m; j++) {
    const c = B[j]!,
      a = new Array<bigint>(n);
    for (let t = 0; t < n; t++) a[t] = c[t]! << S;
    // the reflectors of the reused columns, in order
    for (let k = 0; k < start; k++) reflect(a, V[k]!, VV[k]!, k, n, S);
    A[j] = a;
  }
  for (let k = start; k < m; k++) {
    const x = A[k]!;
    let norm2 = 0n;
    for (let t = k; t < n; t++) norm2 += x[t]! * x[t]!;
    const norm = isqrt(norm2);
    if (norm === 0n)
      throw new RankDeficientError(
        'RANK_DEFICIENT',
        `basis vector ${k} is linearly dependent on the vectors before it (its Gram-Schmidt norm is 0 at ${F} fractional bits)`,
        { vector: k },
      );
    const x0 = x[k]!;
    const alpha = x0 >= 0n ? -norm : norm;
    const v = x.slice();
    for (let t = 0; t < k; t++) v[t] = 0n;
    v[k] = x0 - alpha;
    const vv = norm2 - x0 * x0 + v[k]! * v[k]!;
    V[k] = v;
    VV[k] = vv;
    flip[k] = alpha < 0n;
    const col = new Array<bigint>(m).fill(0n);
    for (let i = 0; i < k; i++) col[i] = x[i]!;
    col[k] = alpha;
    R[k] = col;
    for (let j = k + 1; j < m; j++) reflect(A[j]!, v, vv, k, n, S);
  }
  // a positive diagonal: row i of R times the sign of r_ii (Q's column i times it too); the
  // reused columns have theirs already
  for (let j = start; j < m; j++) {
    const col = R[j]!;
    for (let i = 0; i <= j; i++) if (flip[i]) col[i] = -col[i]!;
  }
  const profile = new Float64Array(m);
  for (let i = 0; i < m; i++) profile[i] = log2Big(R[i]![i]!) - F;
  return { R, F, profile, state: { F, V, VV, flip, R, done: m } };
}

/** What fixedQR() keeps for a later call that reuses its first columns. */
export interface FixedQRState {
  F: number;
  V: BigBasis;
  VV: bigint[];
  flip: boolean[];
  R: BigBasis;
  done: number;
}

/** a -= v (2 v.a / v.v), entries k..n-1, at scale 2^S (the coefficient rounded to the scale). */
function reflect(a: bigint[], v: bigint[], vv: bigint, k: number, n: number, S: bigint): void {
  let d = 0n;
  for (let t = k; t < n; t++) d += v[t]! * a[t]!;
  if (d === 0n) return;
  const coef = ((d << (S + 1n)) + (vv >> 1n)) / vv;
  if (coef === 0n) return;
  for (let t = k; t < n; t++) a[t] = a[t]! - ((coef * v[t]!) >> S);
}
