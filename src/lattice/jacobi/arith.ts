/**
 * Working-precision arithmetic shared by the serial and the parallel Jacobi reducers, written so a
 * GPU kernel can reproduce it bit for bit. The working precision is the kind of the basis array:
 * with a Float32Array every product and every sum is rounded to float32 on its own (no fused
 * multiply-add: compile the kernel with --fmad=false or use __fmul_rn / __fadd_rn); with a
 * Float64Array it is plain double arithmetic. (JavaScript computes in double; rounding a double
 * result of +, -, *, / on float32 operands to float32 gives the correctly rounded float32 result.)
 */
import type { RealArray } from '../../core/index.js';
import { addProduct } from '../lll/columns.js';

/**
 * The size-reduction test: reduce b_j by b_i when |G(i,j)| > G(i,i) * reductionBound, with the
 * bound 1/2 (1 + 2^-40) in float64 and 1/2 (1 + 2^-20) in float32 (both exact in their precision;
 * the product G(i,i) * bound is rounded to the working precision). The paper's test is |q| > 1/2;
 * the relative slack is far above the rounding noise of G and far below the float64 check's 1e-9,
 * so pairs tied at exactly 1/2 (structured bases have them) are not flipped back and forth by noise.
 */
export function reductionLimit(gii: number, f32: boolean): number {
  return f32 ? Math.fround(gii * REDUCTION_BOUND_F32) : gii * REDUCTION_BOUND_F64;
}
export const REDUCTION_BOUND_F64 = 0.5 + 2 ** -41;
export const REDUCTION_BOUND_F32 = 0.5 + 2 ** -21;

/** Nearest integer, halves away from zero (C's round / CUDA's round and roundf). */
export function roundHalfAway(q: number): number {
  return q < 0 ? -Math.round(-q) : Math.round(q);
}

/**
 * G = B^T B (m x m, column-major, both triangles), each entry a dot product summed over t = 0..n-1
 * in order. The same order as checkLagrangePairs, so in float64 the two agree exactly.
 */
export function gramMatrix(B: ArrayLike<number>, n: number, m: number, G: RealArray): void {
  const f32 = G instanceof Float32Array;
  for (let j = 0; j < m; j++) {
    for (let i = 0; i <= j; i++) {
      let s = 0;
      const oi = i * n,
        oj = j * n;
      if (f32) for (let t = 0; t < n; t++) s = Math.fround(s + Math.fround(B[oi + t]! * B[oj + t]!));
      else for (let t = 0; t < n; t++) s += B[oi + t]! * B[oj + t]!;
      G[i + j * m] = s;
      G[j + i * m] = s;
    }
  }
}

/**
 * out = Bin Z (n x m): column j of out is the sum over k = 0..m-1, in order, of Bin(:, k) Z(k, j),
 * skipping zero entries of Z (addProduct, the order of applyTransform in check.ts, so float64
 * agrees exactly); in float32 every product and partial sum is rounded, as on the GPU.
 */
export function basisTimesZ(Bin: ArrayLike<number>, Z: Float64Array, n: number, m: number, out: RealArray): void {
  if (!(out instanceof Float32Array)) {
    out.fill(0);
    addProduct(Bin, Z, n, m, out);
    return;
  }
  const acc = new Float64Array(n);
  for (let j = 0; j < m; j++) {
    acc.fill(0);
    for (let k = 0; k < m; k++) {
      const z = Z[k + j * m]!;
      if (z === 0) continue;
      const ok = k * n;
      for (let t = 0; t < n; t++) acc[t] = Math.fround(acc[t]! + Math.fround(Bin[ok + t]! * z));
    }
    out.set(acc, j * n);
  }
}

/** Largest magnitude below which every integer is exact in a double. */
const EXACT_INTEGER_LIMIT = 2 ** 53;

/**
 * Does Z(:, j) - r Z(:, i) (columns starting at ci and cj) keep every entry an exact integer? A
 * false answer means the basis is too ill-conditioned for the transform to be represented.
 */
export function transformUpdateFits(Z: Float64Array, m: number, ci: number, cj: number, r: number): boolean {
  const ar = Math.abs(r);
  for (let t = 0; t < m; t++) {
    if (!(Math.abs(Z[cj + t]!) + ar * Math.abs(Z[ci + t]!) < EXACT_INTEGER_LIMIT)) return false;
  }
  return true;
}
