/**
 * Working-precision arithmetic shared by the serial and the parallel Jacobi reducers, written so a
 * GPU kernel can reproduce it bit for bit. The working precision is the kind of the basis array:
 * with a Float32Array every product and every sum is rounded to float32 on its own (no fused
 * multiply-add: compile the kernel with --fmad=false or use __fmul_rn / __fadd_rn); with a
 * Float64Array it is plain double arithmetic. (JavaScript computes in double; rounding a double
 * result of +, -, *, / on float32 operands to float32 gives the correctly rounded float32 result.)
 */
import type { RealArray } from '../../core/matrix.js';

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
      const oi = i * n, oj = j * n;
      if (f32) for (let t = 0; t < n; t++) s = Math.fround(s + Math.fround(B[oi + t]! * B[oj + t]!));
      else for (let t = 0; t < n; t++) s += B[oi + t]! * B[oj + t]!;
      G[i + j * m] = s;
      G[j + i * m] = s;
    }
  }
}

/**
 * out = Bin Z (n x m): column j of out is the sum over k = 0..m-1, in order, of Bin(:, k) Z(k, j),
 * skipping zero entries of Z (the order of applyTransform in check.ts, so float64 agrees exactly).
 */
export function basisTimesZ(Bin: ArrayLike<number>, Z: Float64Array, n: number, m: number, out: RealArray): void {
  const f32 = out instanceof Float32Array;
  const acc = new Float64Array(n);
  for (let j = 0; j < m; j++) {
    acc.fill(0);
    for (let k = 0; k < m; k++) {
      const z = Z[k + j * m]!;
      if (z === 0) continue;
      const ok = k * n;
      if (f32) for (let t = 0; t < n; t++) acc[t] = Math.fround(acc[t]! + Math.fround(Bin[ok + t]! * z));
      else for (let t = 0; t < n; t++) acc[t]! += Bin[ok + t]! * z;
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
