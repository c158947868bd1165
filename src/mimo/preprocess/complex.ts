/**
 * Small dense complex linear algebra on interleaved re/im arrays (column-major), for the linear
 * detectors' per-channel filters: Gram matrix H^H H (+ a I), Hermitian inverse, products.
 */
import { RankDeficientError } from '../../core/index.js';

/** G = H^H H + diag * I (nt x nt), H = nr x nt at H[hOff]; `cols` selects and orders H's columns. */
export function gramInto(
  H: Float64Array,
  hOff: number,
  nr: number,
  cols: ArrayLike<number>,
  diag: number,
  G: Float64Array,
): void {
  const n = cols.length;
  for (let a = 0; a < n; a++) {
    const ca = hOff + 2 * cols[a]! * nr;
    for (let b = a; b < n; b++) {
      const cb = hOff + 2 * cols[b]! * nr;
      let re = 0,
        im = 0;
      for (let i = 0; i < nr; i++) {
        const ar = H[ca + 2 * i]!,
          ai = H[ca + 2 * i + 1]!,
          br = H[cb + 2 * i]!,
          bi = H[cb + 2 * i + 1]!;
        re += ar * br + ai * bi; // conj(a) * b
        im += ar * bi - ai * br;
      }
      if (a === b) {
        re += diag;
        im = 0;
      }
      G[2 * (a + b * n)] = re;
      G[2 * (a + b * n) + 1] = im;
      G[2 * (b + a * n)] = re;
      G[2 * (b + a * n) + 1] = -im;
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
  for (let i = 0; i < 2 * n * n; i++) {
    inv[i] = 0;
    scale = Math.max(scale, Math.abs(A[i]!));
  }
  for (let i = 0; i < n; i++) inv[2 * (i + i * n)] = 1;
  const tol = 1e-13 * scale;
  for (let c = 0; c < n; c++) {
    let p = c,
      pBest = -1;
    for (let r = c; r < n; r++) {
      const m = Math.hypot(A[2 * (r + c * n)]!, A[2 * (r + c * n) + 1]!);
      if (m > pBest) {
        pBest = m;
        p = r;
      }
    }
    if (!(pBest > tol))
      throw new RankDeficientError('RANK_DEFICIENT', 'channel matrix is rank-deficient (singular Gram matrix)');
    if (p !== c) {
      for (let k = 0; k < n; k++) {
        swap(A, 2 * (c + k * n), 2 * (p + k * n));
        swap(inv, 2 * (c + k * n), 2 * (p + k * n));
      }
    }
    // Scale row c by 1 / pivot.
    const pr = A[2 * (c + c * n)]!,
      pi = A[2 * (c + c * n) + 1]!;
    const d = pr * pr + pi * pi,
      qr = pr / d,
      qi = -pi / d;
    for (let k = 0; k < n; k++) {
      scaleEntry(A, 2 * (c + k * n), qr, qi);
      scaleEntry(inv, 2 * (c + k * n), qr, qi);
    }
    // Eliminate column c from the other rows.
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const fr = A[2 * (r + c * n)]!,
        fi = A[2 * (r + c * n) + 1]!;
      if (fr === 0 && fi === 0) continue;
      for (let k = 0; k < n; k++) {
        subMul(A, 2 * (r + k * n), 2 * (c + k * n), fr, fi);
        subMul(inv, 2 * (r + k * n), 2 * (c + k * n), fr, fi);
      }
    }
  }
  A.set(inv.subarray(0, 2 * n * n));
}

function swap(M: Float64Array, x: number, y: number): void {
  const tr = M[x]!,
    ti = M[x + 1]!;
  M[x] = M[y]!;
  M[x + 1] = M[y + 1]!;
  M[y] = tr;
  M[y + 1] = ti;
}

/** M[x] *= (qr + i qi). */
function scaleEntry(M: Float64Array, x: number, qr: number, qi: number): void {
  const xr = M[x]!,
    xi = M[x + 1]!;
  M[x] = xr * qr - xi * qi;
  M[x + 1] = xr * qi + xi * qr;
}

/** M[x] -= (fr + i fi) M[y]. */
function subMul(M: Float64Array, x: number, y: number, fr: number, fi: number): void {
  const yr = M[y]!,
    yi = M[y + 1]!;
  M[x] = M[x]! - (fr * yr - fi * yi);
  M[x + 1] = M[x + 1]! - (fr * yi + fi * yr);
}

/**
 * W = Ginv H_cols^H (n x nr, column-major), with Ginv n x n and H_cols the selected columns of H.
 * Row k of W is the linear filter of stream cols[k].
 */
export function filterInto(
  Ginv: Float64Array,
  H: Float64Array,
  hOff: number,
  nr: number,
  cols: ArrayLike<number>,
  W: Float64Array,
): void {
  const n = cols.length;
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < nr; i++) {
      let re = 0,
        im = 0;
      for (let j = 0; j < n; j++) {
        const gr = Ginv[2 * (k + j * n)]!,
          gi = Ginv[2 * (k + j * n) + 1]!;
        const hr = H[hOff + 2 * (i + cols[j]! * nr)]!,
          hi = -H[hOff + 2 * (i + cols[j]! * nr) + 1]!; // conj(H_ij)
        re += gr * hr - gi * hi;
        im += gr * hi + gi * hr;
      }
      W[2 * (k + i * n)] = re;
      W[2 * (k + i * n) + 1] = im;
    }
  }
}

/**
 * Sorted QR (SQRD) of the complex nr x nt matrix at H[hOff] by modified Gram-Schmidt: H[:, perm] =
 * Q R with Q nr x nt (orthonormal columns) and R nt x nt upper triangular with a real positive
 * diagonal, both complex column-major; at each step the remaining column of least residual norm
 * goes next. Its MRVD is the real QR of the MRVD channel (the diagonal blocks are R_kk I), at a
 * third of the cost of factoring the real 2nr x 2nt matrix. `resid` is nt scratch.
 */
export function complexSortedQrInto(
  H: Float64Array,
  hOff: number,
  nt: number,
  nr: number,
  Q: Float64Array,
  R: Float64Array,
  perm: Int32Array,
  resid: Float64Array,
): void {
  let scale = 0;
  for (let k = 0; k < nt; k++) {
    perm[k] = k;
    let nn = 0;
    for (let i = 0; i < 2 * nr; i++) {
      const v = H[hOff + 2 * k * nr + i]!;
      Q[2 * k * nr + i] = v;
      nn += v * v;
    }
    resid[k] = nn;
    scale = Math.max(scale, nn);
    for (let i = 0; i < 2 * nt; i++) R[2 * k * nt + i] = 0;
  }
  for (let i = 0; i < nt; i++) {
    let best = i;
    for (let k = i + 1; k < nt; k++) if (resid[k]! < resid[best]!) best = k;
    if (best !== i) {
      for (let r = 0; r < 2 * nr; r++) {
        const t = Q[2 * i * nr + r]!;
        Q[2 * i * nr + r] = Q[2 * best * nr + r]!;
        Q[2 * best * nr + r] = t;
      }
      for (let r = 0; r < 2 * i; r++) {
        const t = R[2 * i * nt + r]!;
        R[2 * i * nt + r] = R[2 * best * nt + r]!;
        R[2 * best * nt + r] = t;
      }
      const tp = perm[i]!;
      perm[i] = perm[best]!;
      perm[best] = tp;
      const tr = resid[i]!;
      resid[i] = resid[best]!;
      resid[best] = tr;
    }
    const ci = 2 * i * nr;
    let nn = 0;
    for (let r = 0; r < 2 * nr; r++) nn += Q[ci + r]! * Q[ci + r]!;
    if (!(nn > 1e-24 * scale)) {
      throw new RankDeficientError(
        scale === 0 ? 'ZERO_VECTOR' : 'RANK_DEFICIENT',
        scale === 0
          ? 'channel matrix is zero'
          : `channel column ${perm[i]} is linearly dependent on the others (rank-deficient channel)`,
      );
    }
    const norm = Math.sqrt(nn),
      inv = 1 / norm;
    R[2 * (i + i * nt)] = norm;
    for (let r = 0; r < 2 * nr; r++) Q[ci + r] = Q[ci + r]! * inv;
    for (let k = i + 1; k < nt; k++) {
      const ck = 2 * k * nr;
      let dr = 0,
        di = 0; // q_i^H q_k
      for (let r = 0; r < nr; r++) {
        const ar = Q[ci + 2 * r]!,
          ai = Q[ci + 2 * r + 1]!,
          br = Q[ck + 2 * r]!,
          bi = Q[ck + 2 * r + 1]!;
        dr += ar * br + ai * bi;
        di += ar * bi - ai * br;
      }
      R[2 * (i + k * nt)] = dr;
      R[2 * (i + k * nt) + 1] = di;
      for (let r = 0; r < nr; r++) {
        const ar = Q[ci + 2 * r]!,
          ai = Q[ci + 2 * r + 1]!;
        Q[ck + 2 * r] = Q[ck + 2 * r]! - (ar * dr - ai * di);
        Q[ck + 2 * r + 1] = Q[ck + 2 * r + 1]! - (ar * di + ai * dr);
      }
      resid[k] = resid[k]! - (dr * dr + di * di);
    }
  }
}
