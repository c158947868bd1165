/**
 * Column arithmetic on column-major bases and on the integer transform Z: dot products, the Gram
 * matrix, the integer column operation b_k -= x b_j, swaps, and the exactness of Z (an entry past
 * 2^53 can no longer be held in a float64: it becomes NaN, never a silent rounding).
 */
import { UnsupportedError, type RealArray } from '../../core/index.js';

/**
 * <A[:, a], C[:, c]> over n entries; a and c are column offsets. Accumulates in float64 with four
 * partial sums, which breaks the add-latency chain (about 3x faster than one running sum).
 */
export function dotCols(A: RealArray, a: number, C: RealArray, c: number, n: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  let t = 0;
  for (; t + 3 < n; t += 4) {
    s0 += A[a + t]! * C[c + t]!;
    s1 += A[a + t + 1]! * C[c + t + 1]!;
    s2 += A[a + t + 2]! * C[c + t + 2]!;
    s3 += A[a + t + 3]! * C[c + t + 3]!;
  }
  for (; t < n; t++) s0 += A[a + t]! * C[c + t]!;
  return s0 + s1 + (s2 + s3);
}

/**
 * <B[:, k], B[:, j]> for the first count - count % 4 columns j listed in `pending`, four per pass
 * over column k (one pass per four columns: about 1.5x faster than separate dot products), into
 * out[0 ..); each a running sum in row order. Returns how many it did: the caller takes the rest.
 */
export function dotsByFours(
  B: RealArray,
  n: number,
  k: number,
  pending: Int32Array,
  count: number,
  out: Float64Array,
): number {
  const ko = k * n;
  let c = 0;
  for (; c + 3 < count; c += 4) {
    const a0 = pending[c]! * n,
      a1 = pending[c + 1]! * n,
      a2 = pending[c + 2]! * n,
      a3 = pending[c + 3]! * n;
    let s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    for (let t = 0; t < n; t++) {
      const v = B[ko + t]!;
      s0 += v * B[a0 + t]!;
      s1 += v * B[a1 + t]!;
      s2 += v * B[a2 + t]!;
      s3 += v * B[a3 + t]!;
    }
    out[c] = s0;
    out[c + 1] = s1;
    out[c + 2] = s2;
    out[c + 3] = s3;
  }
  return c;
}

/**
 * G = B^T B (m x m, symmetric, both triangles) from dot products, in 4 x 4 tiles: each pass over
 * the rows loads eight entries for sixteen products (about 2x faster than column pairs in V8).
 */
export function gramInto(B: RealArray, n: number, m: number, G: RealArray): void {
  for (let i = 0; i < m; i += 4) {
    for (let j = 0; j <= i; j += 4) {
      if (i + 3 < m && j + 3 < i) gramTile(B, n, m, G, i, j);
      else {
        for (let a = i; a < Math.min(i + 4, m); a++) {
          for (let b = j; b <= Math.min(a, j + 3); b++) G[a * m + b] = dotCols(B, a * n, B, b * n, n);
        }
      }
    }
  }
  for (let i = 0; i < m; i++) for (let j = 0; j < i; j++) G[j * m + i] = G[i * m + j]!;
}

/** Rows i..i+3, columns j..j+3 of B^T B (lower triangle, j + 3 < i). */
function gramTile(B: RealArray, n: number, m: number, G: RealArray, i: number, j: number): void {
  const a0 = i * n,
    a1 = a0 + n,
    a2 = a1 + n,
    a3 = a2 + n;
  const b0 = j * n,
    b1 = b0 + n,
    b2 = b1 + n,
    b3 = b2 + n;
  let s00 = 0,
    s01 = 0,
    s02 = 0,
    s03 = 0,
    s10 = 0,
    s11 = 0,
    s12 = 0,
    s13 = 0;
  let s20 = 0,
    s21 = 0,
    s22 = 0,
    s23 = 0,
    s30 = 0,
    s31 = 0,
    s32 = 0,
    s33 = 0;
  for (let t = 0; t < n; t++) {
    const x0 = B[a0 + t]!,
      x1 = B[a1 + t]!,
      x2 = B[a2 + t]!,
      x3 = B[a3 + t]!;
    const y0 = B[b0 + t]!,
      y1 = B[b1 + t]!,
      y2 = B[b2 + t]!,
      y3 = B[b3 + t]!;
    s00 += x0 * y0;
    s01 += x0 * y1;
    s02 += x0 * y2;
    s03 += x0 * y3;
    s10 += x1 * y0;
    s11 += x1 * y1;
    s12 += x1 * y2;
    s13 += x1 * y3;
    s20 += x2 * y0;
    s21 += x2 * y1;
    s22 += x2 * y2;
    s23 += x2 * y3;
    s30 += x3 * y0;
    s31 += x3 * y1;
    s32 += x3 * y2;
    s33 += x3 * y3;
  }
  let o = i * m + j;
  G[o] = s00;
  G[o + 1] = s01;
  G[o + 2] = s02;
  G[o + 3] = s03;
  o += m;
  G[o] = s10;
  G[o + 1] = s11;
  G[o + 2] = s12;
  G[o + 3] = s13;
  o += m;
  G[o] = s20;
  G[o + 1] = s21;
  G[o + 2] = s22;
  G[o + 3] = s23;
  o += m;
  G[o] = s30;
  G[o + 1] = s31;
  G[o + 2] = s32;
  G[o + 3] = s33;
}

/**
 * A[:, dst] -= x * A[:, src] (column offsets, length len): the integer column operation. Unrolled
 * by four (about 20% faster in V8 than the plain loop).
 */
export function subMulCol(A: RealArray | Float64Array, dst: number, src: number, x: number, len: number): void {
  let t = 0;
  for (; t + 3 < len; t += 4) {
    const a0 = A[dst + t]! - x * A[src + t]!;
    const a1 = A[dst + t + 1]! - x * A[src + t + 1]!;
    const a2 = A[dst + t + 2]! - x * A[src + t + 2]!;
    const a3 = A[dst + t + 3]! - x * A[src + t + 3]!;
    A[dst + t] = a0;
    A[dst + t + 1] = a1;
    A[dst + t + 2] = a2;
    A[dst + t + 3] = a3;
  }
  for (; t < len; t++) A[dst + t] = A[dst + t]! - x * A[src + t]!;
}

/**
 * A[dst..dst+len) -= x * A[src..src+len) on integer values; false when a product or a result
 * reaches 2^53 (then the row is no longer exact).
 */
export function subMulRowExact(A: RealArray, dst: number, src: number, x: number, len: number): boolean {
  const lim = EXACT_INTEGER_LIMIT;
  let exact = true;
  for (let t = 0; t < len; t++) {
    const q = x * A[src + t]!;
    const v = A[dst + t]! - q;
    A[dst + t] = v;
    if (q >= lim || q <= -lim || v >= lim || v <= -lim) exact = false;
  }
  return exact;
}

/** The largest integer magnitude a float64 holds exactly (2^53). */
export const EXACT_INTEGER_LIMIT = 2 ** 53;

/**
 * Z[:, dst] -= x * Z[:, src] on the integer transform. An entry that reaches 2^53 can no longer be
 * held exactly in a float64: in a transform registered with allowTransformLoss it becomes NaN
 * (unknown) rather than silently rounded, and NaN stays NaN through later operations (reduce()
 * then rebuilds Z exactly from the bases); in any other it is an UnsupportedError. Returns the
 * largest finite |entry| of the new column.
 */
export function subMulColExact(Z: Float64Array, dst: number, src: number, x: number, len: number): number {
  let big = 0,
    lost = false;
  for (let t = 0; t < len; t++) {
    const v = Z[dst + t]! - x * Z[src + t]!;
    const a = Math.abs(v);
    if (!(a < EXACT_INTEGER_LIMIT)) {
      Z[dst + t] = NaN;
      lost = true;
      continue;
    }
    Z[dst + t] = v;
    if (a > big) big = a;
  }
  if (lost && !REBUILDABLE.has(Z)) throw transformOverflow();
  return big;
}

/**
 * The transforms that may lose entries past 2^53 and go on: reduce() registers the Z of each
 * integral float64 input (whose basis stays exact on its own, so that Z can be rebuilt afterwards,
 * exact-transform.ts). In any other Z an entry past 2^53 throws at once, as the GPU kernels stop
 * with their TRANSFORM_OVERFLOW status.
 */
const REBUILDABLE = new WeakSet<Float64Array>();

export function allowTransformLoss(Z: Float64Array): void {
  REBUILDABLE.add(Z);
}

/**
 * Z[:, dst] -= x * Z[:, src] where x * Z[:, src] may pass 2^53 while the result does not: the
 * products are formed exactly in BigInt. Entries past 2^53 become NaN as in subMulColExact.
 */
export function subMulColBigInt(Z: Float64Array, dst: number, src: number, x: number, len: number): number {
  const safeX = Number.isSafeInteger(x);
  const bx = safeX ? BigInt(x) : 0n;
  let big = 0,
    lost = false;
  for (let t = 0; t < len; t++) {
    const zs = Z[src + t]!,
      zd = Z[dst + t]!;
    if (zs === 0) continue;
    if (!safeX || Number.isNaN(zs) || Number.isNaN(zd)) {
      Z[dst + t] = NaN;
      lost = true;
      continue;
    }
    const v = Number(BigInt(zd) - bx * BigInt(zs));
    const a = Math.abs(v);
    if (a >= EXACT_INTEGER_LIMIT) {
      Z[dst + t] = NaN;
      lost = true;
      continue;
    }
    Z[dst + t] = v;
    if (a > big) big = a;
  }
  if (lost && !REBUILDABLE.has(Z)) throw transformOverflow();
  return big;
}

/** True when an entry of the transform passed 2^53 and was marked unknown (NaN). */
export function transformLost(Z: ArrayLike<number>): boolean {
  for (let i = 0; i < Z.length; i++) if (Number.isNaN(Z[i])) return true;
  return false;
}

/** The error for a transform past 2^53 on input that is not integral (so it cannot be rebuilt exactly). */
export function transformOverflow(): UnsupportedError {
  return new UnsupportedError(
    'an entry of the unimodular transform Z passed 2^53 and cannot be held exactly in float64; for input that is not integral it cannot be rebuilt either (scale the basis to integers, e.g. with integerScale, to get an exact wide transform)',
  );
}

export function swapCols(A: RealArray | Float64Array, a: number, b: number, len: number): void {
  for (let t = 0; t < len; t++) {
    const v = A[a + t]!;
    A[a + t] = A[b + t]!;
    A[b + t] = v;
  }
}

/**
 * b_k -= x b_j on B (n x m) and Z (m x m) together: one integer column operation. Returns the
 * largest |entry| of the new column of Z (a measure of coefficient growth).
 */
export function reduceColumn(
  B: RealArray,
  Z: Float64Array,
  n: number,
  m: number,
  k: number,
  j: number,
  x: number,
): number {
  subMulCol(B, k * n, j * n, x, n);
  return subMulColExact(Z, k * m, j * m, x, m);
}

/**
 * out += A X for A n x m and X m x m, column-major: column j of out gathers the columns of A
 * (contiguous) times X's column j, in order, skipping X's zeros. In float64 the result is exact
 * while every partial sum is an integer below 2^53.
 */
export function addProduct(A: ArrayLike<number>, X: ArrayLike<number>, n: number, m: number, out: Float64Array): void {
  for (let j = 0; j < m; j++) {
    const jo = j * n;
    for (let k = 0; k < m; k++) {
      const x = X[k + j * m]!;
      if (x === 0) continue;
      const ko = k * n;
      for (let i = 0; i < n; i++) out[jo + i]! += A[ko + i]! * x;
    }
  }
}

/** max |A[off .. off + len)|. */
export function columnMax(A: Float64Array, off: number, len: number): number {
  let big = 0;
  for (let t = 0; t < len; t++) {
    const a = Math.abs(A[off + t]!);
    if (a > big) big = a;
  }
  return big;
}

/** max |Z_ij|. */
export function maxAbs(Z: Float64Array): number {
  let big = 0;
  for (let i = 0; i < Z.length; i++) {
    const a = Math.abs(Z[i]!);
    if (a > big) big = a;
  }
  return big;
}

/** Swap columns k and j of B and Z. */
export function swapColumns(B: RealArray, Z: Float64Array, n: number, m: number, k: number, j: number): void {
  swapCols(B, k * n, j * n, n);
  swapCols(Z, k * m, j * m, m);
}
