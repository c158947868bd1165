/**
 * Small dense complex linear algebra on interleaved re/im arrays (column-major), for the linear
 * detectors' per-channel filters: Gram matrix H^H H (+ a I), Hermitian inverse, products.
 */
import { RankDeficientError } from '../../core/errors.js';

/** G = H^H H + diag * I (nt x nt), H = nr x nt at H[hOff]; `cols` selects and orders H's columns. */
export function gramInto(H: Float64Array, hOff: number, nr: number, cols: ArrayLike<number>, diag: number, G: Float64Array): void {
  const n = cols.length;
  for (let a = 0; a < n; a++) {
    const ca = hOff + 2 * cols[a]! * nr;
    for (let b = a; b < n; b++) {
      const cb = hOff + 2 * cols[b]! * nr;
      let re = 0, im = 0;
      for (let i = 0; i < nr; i++) {
        const ar = H[ca + 2 * i]!, ai = H[ca + 2 * i + 1]!, br = H[cb + 2 * i]!, bi = H[cb + 2 * i + 1]!;
        re += ar * br + ai * bi; // conj(a) * b
        im += ar * bi - ai * br;
      }
      if (a === b) { re += diag; im = 0; }
      G[2 * (a + b * n)] = re; G[2 * (a + b * n) + 1] = im;
      G[2 * (b + a * n)] = re; G[2 * (b + a * n) + 1] = -im;
    }
  }
}

/**
 * In-place inverse of an n x n complex matrix by Gauss-Jordan elimination with partial pivoting.
 * `work` needs 2 n n entries. Throws RankDeficientError when a pivot is (numerically) zero.
 */
export function invertInPlace(A: Float64Array, n: number, work: Float64Array): void {
  const inv = work;
  let scale = 0;
  for (let i = 0; i < 2 * n * n; i++) { inv[i] = 0; scale = Math.max(scale, Math.abs(A[i]!)); }
  for (let i = 0; i < n; i++) inv[2 * (i + i * n)] = 1;
  const tol = 1e-13 * scale;
  for (let c = 0; c < n; c++) {
    let p = c, pBest = -1;
    for (let r = c; r < n; r++) {
      const m = Math.hypot(A[2 * (r + c * n)]!, A[2 * (r + c * n) + 1]!);
      if (m > pBest) { pBest = m; p = r; }
    }
    if (!(pBest > tol)) throw new RankDeficientError('RANK_DEFICIENT', 'channel matrix is rank-deficient (singular Gram matrix)');
    if (p !== c) {
      for (let k = 0; k < n; k++) {
        for (const M of [A, inv]) {
          const x = 2 * (c + k * n), y = 2 * (p + k * n);
          const tr = M[x]!, ti = M[x + 1]!;
          M[x] = M[y]!; M[x + 1] = M[y + 1]!; M[y] = tr; M[y + 1] = ti;
        }
      }
    }
    // Scale row c by 1 / pivot.
    const pr = A[2 * (c + c * n)]!, pi = A[2 * (c + c * n) + 1]!;
    const d = pr * pr + pi * pi, qr = pr / d, qi = -pi / d;
    for (let k = 0; k < n; k++) {
      for (const M of [A, inv]) {
        const x = 2 * (c + k * n), xr = M[x]!, xi = M[x + 1]!;
        M[x] = xr * qr - xi * qi; M[x + 1] = xr * qi + xi * qr;
      }
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const fr = A[2 * (r + c * n)]!, fi = A[2 * (r + c * n) + 1]!;
      if (fr === 0 && fi === 0) continue;
      for (let k = 0; k < n; k++) {
        for (const M of [A, inv]) {
          const x = 2 * (r + k * n), y = 2 * (c + k * n), yr = M[y]!, yi = M[y + 1]!;
          M[x] = M[x]! - (fr * yr - fi * yi); M[x + 1] = M[x + 1]! - (fr * yi + fi * yr);
        }
      }
    }
  }
  A.set(inv.subarray(0, 2 * n * n));
}

/**
 * W = Ginv H_cols^H (n x nr, column-major), with Ginv n x n and H_cols the selected columns of H.
 * Row k of W is the linear filter of stream cols[k].
 */
export function filterInto(Ginv: Float64Array, H: Float64Array, hOff: number, nr: number, cols: ArrayLike<number>, W: Float64Array): void {
  const n = cols.length;
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < nr; i++) {
      let re = 0, im = 0;
      for (let j = 0; j < n; j++) {
        const gr = Ginv[2 * (k + j * n)]!, gi = Ginv[2 * (k + j * n) + 1]!;
        const hr = H[hOff + 2 * (i + cols[j]! * nr)]!, hi = -H[hOff + 2 * (i + cols[j]! * nr) + 1]!; // conj(H_ij)
        re += gr * hr - gi * hi;
        im += gr * hi + gi * hr;
      }
      W[2 * (k + i * n)] = re; W[2 * (k + i * n) + 1] = im;
    }
  }
}
