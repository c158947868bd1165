/**
 * A certified floating-point proof that an integer basis is LLL-reduced: float64 arithmetic with a
 * rigorous a-posteriori error bound, O(m^2 n + m^3) flops instead of the exact proof's O(m^3) BigInt
 * operations. It answers 'proven' or 'not-reduced' only where the bound covers the answer, and
 * 'inconclusive' otherwise (the caller then runs the exact proof, exact.ts).
 *
 * Notation: B has columns b_0..b_{m-1} (integers), G = B^T B, G = R^T R with R upper triangular
 * (r_jj = ||b*_j||, mu_ij = r_ji / r_jj for j < i). u = 2^-53, gamma_k = k u / (1 - k u).
 *
 * The argument, step by step (every computed bound is rounded upwards, see `up` below):
 *  1. G^ = fl(B^T B) from the entries rounded to float64 (each within a relative u):
 *     |G^_ab - G_ab| <= gamma_{n+3} (|B|^T |B|)_ab, and 0 where both columns are integers held
 *     exactly and the computed sum of |products| is at most 2^52 (every product and partial sum
 *     is then an integer below 2^53).
 *  2. R^ = the Cholesky factor of G^ computed in float64 (any upper triangular R^ with a positive
 *     diagonal would do: nothing below depends on how it was found). Its residual G^ - R^T R^ is
 *     evaluated a posteriori with error-free products and sums (Ogita, Rump and Oishi, "Accurate
 *     sum and dot product", SIAM J. Sci. Comput. 2005, Dot2: within u |value| + L^2 u^2 sum |terms|
 *     for L terms; taken as (2 L u)^2), so E = G - R^T R^ satisfies |E| <= M entrywise with
 *     M = (n + 6) u |B|^T |B| (inexact pairs only) + the bound on |G^ - R^T R^|. This is typically
 *     m times below Higham's a-priori backward error gamma_{m+1} |R^T| |R^| (Accuracy and
 *     Stability of Numerical Algorithms, Thm 10.3). Where the bound is inconclusive, once more
 *     with G computed exactly (BigInt) and rounded once: |G^ - G| <= u |G^| (1 + u) replaces the
 *     first term (products past 2^53, whose rounding is about u ||b_a|| ||b_b||, are then no
 *     longer the limit).
 *  3. Write R^ = D U^ (D = diag(r^_jj), U^ unit upper triangular) and V = U^^{-1}. Then
 *     G = R^T (I + F) R^ with F = R^^{-T} E R^^{-1}, and R = C R^ where C^T C = I + F (Cholesky is
 *     unique). With K = D^{-1} (C - I) D the true factor is R = D (I + K) U^, hence
 *       mu_ij = (U^_ji + sum_{k=j..i} K_jk U^_ki) / (1 + K_jj),  r_jj = d_j (1 + K_jj),
 *     so (the k = j term cancels) mu_ij - U^_ji = sum_{k=j+1..i} K_jk U^_ki / (1 + K_jj).
 *  4. K from H = D^{-1} F D = D^{-2} V^T E V, entrywise |H_jk| <= (|V|^T M |V|)_jk / d_j^2.
 *     Expanding C^T C = I + F row by row (the Cholesky recursion of I + F):
 *       K_jk (1 + K_jj) = H_jk - sum_{l<j} K_lj K_lk w_lj^2   (j < k),   w_lj = d_l / d_j,
 *       1 + K_jj = sqrt(1 + H_jj - sum_{l<j} K_lj^2 w_lj^2),
 *     so with bounds Kb_lk >= |K_lk| for the rows l < j and t_j = |H_jj| + sum_{l<j} Kb_lj^2
 *     w_lj^2: if t_j < 1 then |K_jj| <= t_j (|sqrt(1 + x) - 1| <= |x|) and, for k > j,
 *     |K_jk| <= (|H_jk| + sum_{l<j} Kb_lj Kb_lk w_lj^2) / (1 - t_j). This recursion also
 *     constructs C, so t_j < 1 for every j proves I + F, hence G, positive definite: the basis is
 *     independent.
 *  5. |V| is bounded a posteriori: V^ is computed by back substitution, its residual against the
 *     exact U^ is bounded by (m + 3) u |U^| |V^|, and the error W = V - V^ obeys
 *     |W| <= |U^ - I| |W| + residual, solved upwards by the same substitution on |.|.
 *  6. Size: |mu_ij - U^_ji| <= sum_{k=j+1..i} Kb_jk |U^_ki| / (1 - Kb_jj) =: err_ij;
 *     |U^_ji| + err_ij <= eta proves it, |U^_ji| - err_ij > eta disproves it. Lovasz at k (delta r_{k-1}^2 <= r_k^2 +
 *     mu_{k,k-1}^2 r_{k-1}^2): the ratio r_k^2 / r_{k-1}^2 lies within
 *     d_k^2 (1 -+ Kb_kk)^2 / (d_{k-1}^2 (1 +- Kb_{k-1,k-1})^2), mu within the size bound.
 * Rounding of the bounds themselves: each bound is a chain of at most 4096 float64 operations on
 * nonnegative numbers since the last `up` (relative error below (1 + u)^4097 < 1 + 2^-40), and
 * `up` multiplies by 1 + 2^-40 and adds 2^-1000 (gradual underflow loses at most 2^-1074 per
 * operation); differences are bounded with their own rounding term. Hence the limits m, n <= 4000,
 * and entries below 2^400 (no overflow). NaN or infinity anywhere gives 'inconclusive'.
 *
 * Cost: about m^2 n + 5 m^3 flops (G, |B|^T |B| where needed, Cholesky, its residual, V,
 * |V|^T M |V|); the retry with an exact G adds m^2 n / 2 BigInt products.
 * Shapes: `cols` is the basis as m columns (basis vectors) of n integers, as Float64Array (n x m,
 * column-major) or BigInt columns (rounded to nearest, within the bound of step 1).
 */
import type { BigBasis } from './exact.js';
import { productError } from '../lll/double-double.js';

/** What the certificate found: proven reduced, proven not reduced, or a bound too wide to say. */
export interface LLLCertificate {
  status: 'proven' | 'not-reduced' | 'inconclusive';
  /** Why not 'proven': the first condition disproved or not covered by the bound. */
  reason?: string;
  /** Largest bound on |K| (the relative error of the Gram-Schmidt data); NaN where it was not reached. */
  kappa: number;
}

const U = 2 ** -53;
const REL = 2 ** -40;
const TINY = 2 ** -1000;
const MAX_DIM = 4000;
const MAX_ENTRY = 2 ** 400;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An upper bound on a nonnegative quantity computed in at most 4096 rounded operations. */
const up = (x: number): number => x * (1 + REL) + TINY;
/** A lower bound on a nonnegative quantity computed likewise (may go below 0). */
const down = (x: number): number => x * (1 - REL) - TINY;

/**
 * Certifies (delta, eta)-LLL reducedness of an integer basis in float64 with a rigorous bound
 * (see the module comment). `cols`: Float64Array (n x m column-major, integers) or BigInt columns.
 */
export function certifyLLL(
  cols: Float64Array | BigBasis,
  n: number,
  m: number,
  delta: number,
  eta: number,
): LLLCertificate {
  const first = certifyWith(cols, n, m, delta, eta, false);
  if (first.status !== 'inconclusive' || /dimension|2\^400|not integers/.test(first.reason ?? '')) return first;
  // the rounding of G^ (products past 2^53) may be what the bound cannot cover: again with G
  // computed exactly in BigInt and rounded once (|G^ - G| <= u |G^| entrywise; m^2 n / 2 products)
  return certifyWith(cols, n, m, delta, eta, true);
}

function certifyWith(
  cols: Float64Array | BigBasis,
  n: number,
  m: number,
  delta: number,
  eta: number,
  exactGram: boolean,
): LLLCertificate {
  if (m < 1 || n < 1 || m > MAX_DIM || n > MAX_DIM) return inconclusive(`dimension outside 1..${MAX_DIM}`);
  const b = new Float64Array(n * m);
  const exact = new Uint8Array(m);
  if (!toFloat(cols, n, m, b, exact)) return inconclusive('an entry is past 2^400');

  // 1-2: G^ and its Cholesky factor R^ (column i holds r^_0i..r^_ii); M (symmetric, row-major)
  // starts as g1 |B|^T |B| on the pairs whose dot product may be inexact
  const g1 = up((n + 6) * U);
  const R = new Float64Array(m * m);
  const M = new Float64Array(m * m);
  const Gh = new Float64Array(m * m);
  let big: BigBasis | null = null;
  if (exactGram) {
    if (cols instanceof Float64Array) {
      if (!b.every((x) => Number.isInteger(x))) return inconclusive('the entries are not integers');
      big = Array.from({ length: m }, (_, j) => Array.from(b.subarray(j * n, j * n + n), (x) => BigInt(x)));
    } else big = cols;
  }
  const reason = gramCholesky(b, big, exact, n, m, g1, R, M, Gh);
  if (reason !== null) return inconclusive(reason);
  addResidual(m, R, Gh, M);
  const d = new Float64Array(m),
    Uh = new Float64Array(m * m);
  unitFactor(m, R, d, Uh);
  const Vb = new Float64Array(m * m);
  boundV(m, Uh, Vb);
  const Hb = new Float64Array(m * m);
  if (!boundH(m, M, Vb, Hb)) return inconclusive('the bound on |U^-1| overflows');
  const Kb = new Float64Array(m * m);
  const kmax = boundK(m, d, Hb, Kb);
  if (typeof kmax !== 'number') return kmax;
  return decide(m, d, Uh, Kb, kmax, delta, eta);
}

/**
 * The columns rounded to float64 into b (n x m), and which are exact there (exact[j]); false where
 * an entry is past 2^400. A dot product of two columns is exact when both hold integers (exactly
 * converted) and the computed sum of |products| is at most 2^52 (then the true one is below 2^53,
 * so is every product and partial sum: all exact integers).
 */
function toFloat(cols: Float64Array | BigBasis, n: number, m: number, b: Float64Array, exact: Uint8Array): boolean {
  if (cols instanceof Float64Array) b.set(cols.subarray(0, n * m));
  else
    for (let j = 0; j < m; j++) {
      const c = cols[j]!;
      for (let t = 0; t < n; t++) b[j * n + t] = Number(c[t]!);
    }
  for (let q = 0; q < n * m; q++) {
    const v = b[q]!;
    if (!(Math.abs(v) < MAX_ENTRY)) return false;
  }
  for (let j = 0; j < m; j++) {
    let ok = 1;
    for (let t = j * n; t < j * n + n; t++) if (!Number.isInteger(b[t]!)) ok = 0;
    if (!(cols instanceof Float64Array)) for (const x of cols[j]!) if (x > SAFE || x < -SAFE) ok = 0;
    exact[j] = ok;
  }
  return true;
}

// The steps of certifyWith, one function each (each is compiled once it has run whole, rather
// than the whole proof being recompiled as later steps are first reached).

/** 1-2: G^ and its Cholesky factor R^ (column i holds r^_0i..r^_ii); M gets g1 |B|^T |B| on the pairs whose dot product may be inexact. Returns why it cannot go on, or null. */
function gramCholesky(
  b: Float64Array,
  big: BigBasis | null,
  exact: Uint8Array,
  n: number,
  m: number,
  g1: number,
  R: Float64Array,
  M: Float64Array,
  Gh: Float64Array,
): string | null {
  for (let i = 0; i < m; i++) {
    const bi = i * n;
    for (let j = 0; j <= i; j++) {
      const bj = j * n;
      let g = 0;
      if (big) {
        const ci = big[i]!,
          cj = big[j]!;
        let e = 0n;
        for (let t = 0; t < n; t++) {
          const x = ci[t]!,
            y = cj[t]!;
          if (x !== 0n && y !== 0n) e += x * y;
        }
        g = Number(e);
        if (!Number.isFinite(g)) return 'a Gram entry is past the double range';
        M[i * m + j] = M[j * m + i] = up(U * Math.abs(g));
      } else {
        let a = 0;
        for (let t = 0; t < n; t++) {
          const p = b[bi + t]! * b[bj + t]!;
          g += p;
          a += Math.abs(p);
        }
        if (!(exact[i] && exact[j] && a <= 2 ** 52)) M[i * m + j] = M[j * m + i] = up(g1 * up(a));
      }
      Gh[i * m + j] = g;
      const ri = i * m,
        rj = j * m;
      for (let l = 0; l < j; l++) g -= R[rj + l]! * R[ri + l]!;
      if (j < i) R[ri + j] = g / R[rj + j]!;
      else {
        if (!(g > 0)) return `Cholesky breaks down at column ${i}`;
        R[ri + i] = Math.sqrt(g);
      }
    }
  }
  return null;
}

/**
 * M += |G^ - R^T R^|, the residual of the computed factor, evaluated with error-free products
 * and sums (Ogita, Rump and Oishi's Dot2): within u |value| + L^2 u^2 sum |terms| of it for L
 * terms, taken here as (2 L u)^2, plus L 2^-1000 for products that underflow.
 */
function addResidual(m: number, R: Float64Array, Gh: Float64Array, M: Float64Array): void {
  for (let i = 0; i < m; i++) {
    const ri = i * m;
    for (let j = 0; j <= i; j++) {
      const rj = j * m;
      let p = Gh[i * m + j]!,
        c = 0,
        abs = Math.abs(p);
      for (let l = 0; l <= j; l++) {
        const x = R[ri + l]!,
          y = -R[rj + l]!,
          h = x * y;
        const q = p + h,
          z = q - p;
        c += p - (q - z) + (h - z) + productError(x, y, h);
        p = q;
        abs += Math.abs(h);
      }
      const L = j + 2;
      const res = up(up(Math.abs(p + c) + up(up((2 * L * U) ** 2) * up(abs)) + L * TINY) / (1 - 4 * U));
      M[i * m + j] = M[j * m + i] = up(M[i * m + j]! + res);
    }
  }
}

/** d = diag(R^); U^ row-major (row j: mu^_ij for i > j), computed as fl(r^_ji / d_j). */
function unitFactor(m: number, R: Float64Array, d: Float64Array, Uh: Float64Array): void {
  for (let j = 0; j < m; j++) d[j] = R[j * m + j]!;
  for (let i = 0; i < m; i++) for (let j = 0; j < i; j++) Uh[j * m + i] = R[i * m + j]! / d[j]!;
}

/** 5: column k of V (at k m, rows 0..k) by back substitution, with the bound w on its error: Vb = |V^| + w >= |V|. */
function boundV(m: number, Uh: Float64Array, Vb: Float64Array): void {
  const v = new Float64Array(m),
    w = new Float64Array(m);
  const ce = up((m + 3) * U);
  for (let k = 0; k < m; k++) {
    v[k] = 1;
    w[k] = 0;
    for (let j = k - 1; j >= 0; j--) {
      const row = j * m;
      let s = 0,
        a = 0,
        e = 0;
      for (let l = j + 1; l <= k; l++) {
        const ul = Uh[row + l]!,
          au = Math.abs(ul);
        s += ul * v[l]!;
        a += au * Math.abs(v[l]!);
        e += au * w[l]!;
      }
      v[j] = -s;
      w[j] = up(up(e) + up(ce * up(a)));
    }
    for (let j = 0; j <= k; j++) Vb[k * m + j] = up(Math.abs(v[j]!) + w[j]!);
  }
}

/** Hb = Vb^T M Vb >= |V^T E V| entrywise (upper triangle, row-major), so |H_jk| <= Hb_jk / d_j^2; false where it overflows. */
function boundH(m: number, M: Float64Array, Vb: Float64Array, Hb: Float64Array): boolean {
  const T = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const vk = k * m;
    for (let a = 0; a <= k; a++) {
      const ma = a * m;
      let s = 0;
      for (let q = 0; q <= k; q++) s += M[ma + q]! * Vb[vk + q]!;
      T[a] = up(s);
    }
    for (let j = 0; j <= k; j++) {
      const vj = j * m;
      let s = 0;
      for (let a = 0; a <= j; a++) s += Vb[vj + a]! * T[a]!;
      Hb[j * m + k] = up(s);
    }
    if (!Number.isFinite(Hb[k * m + k]!)) return false;
  }
  return true;
}

/** 4: Kb >= |K| entry by entry, row by row (row j: k >= j, row-major); the largest bound, or why it is inconclusive. */
function boundK(m: number, d: Float64Array, Hb: Float64Array, Kb: Float64Array): number | LLLCertificate {
  const acc = new Float64Array(m);
  const d2 = new Float64Array(m);
  for (let j = 0; j < m; j++) d2[j] = up(d[j]! * d[j]!);
  let kmax = 0;
  for (let j = 0; j < m; j++) {
    // acc_k = sum_{l<j} Kb_lj Kb_lk d_l^2 (k >= j)
    acc.fill(0, j);
    for (let l = 0; l < j; l++) {
      const f = Kb[l * m + j]! * d2[l]!,
        rl = l * m;
      if (f === 0) continue;
      for (let k = j; k < m; k++) acc[k] += f * Kb[rl + k]!;
    }
    const dj2lo = down(d[j]! * d[j]!);
    if (!(dj2lo > 0)) return inconclusive(`||b*_${j}||^2 is below the range of the bound`);
    const t = up(up(Hb[j * m + j]! / dj2lo) + up(up(acc[j]!) / dj2lo));
    if (!(t < 0.5))
      return inconclusive(`the bound on the Gram-Schmidt data reaches ${t.toPrecision(3)} at index ${j}`, t);
    const inv = 1 / down(1 - t),
      rj = j * m;
    Kb[rj + j] = t;
    for (let k = j + 1; k < m; k++) Kb[rj + k] = up(up(up(Hb[rj + k]! / dj2lo) + up(up(acc[k]!) / dj2lo)) * inv);
    for (let k = j; k < m; k++) if (Kb[rj + k]! > kmax) kmax = Kb[rj + k]!;
  }
  return kmax;
}

/** 6: size and Lovasz with the bound; the first disproved condition wins over an uncovered one. */
function decide(
  m: number,
  d: Float64Array,
  Uh: Float64Array,
  Kb: Float64Array,
  kmax: number,
  delta: number,
  eta: number,
): LLLCertificate {
  let open: string | undefined;
  const err = new Float64Array(m);
  for (let j = 0; j < m - 1; j++) {
    // err_i = sum_{k=j+1..i} Kb_jk |U^_ki| / (1 - Kb_jj) for i > j (U^_ii = 1)
    err.fill(0, j + 1);
    const rj = j * m;
    for (let k = j + 1; k < m; k++) {
      const f = Kb[rj + k]!,
        rk = k * m;
      err[k] += f;
      for (let i = k + 1; i < m; i++) err[i] += f * Math.abs(Uh[rk + i]!);
    }
    const inv = 1 / down(1 - Kb[rj + j]!);
    for (let i = j + 1; i < m; i++) {
      const e = up(up(err[i]!) * inv);
      const mu = Math.abs(Uh[rj + i]!);
      const hi = up(up(mu) + e),
        lo = down(down(mu) - e);
      if (lo > eta) return { status: 'not-reduced', reason: `|mu_${i},${j}| > eta = ${eta}`, kappa: kmax };
      if (!(hi <= eta) && open === undefined) open = `|mu_${i},${j}| within the bound of eta`;
      if (i === j + 1) {
        // Lovasz at i: delta <= r_i^2 / r_j^2 + mu_ij^2, r_i = d_i (1 + K_ii), r_j = d_j (1 + K_jj)
        const ki = Kb[i * m + i]!,
          kj = Kb[rj + j]!;
        const ratio = d[i]! / d[j]!;
        const qLo = down((down(ratio * ratio) * down(down(1 - ki) ** 2)) / up(up(1 + kj) ** 2));
        const qHi = up((up(ratio * ratio) * up(up(1 + ki) ** 2)) / down(down(1 - kj) ** 2));
        const muLo = Math.max(0, lo);
        const rhsLo = down(qLo + down(muLo * muLo)),
          rhsHi = up(qHi + up(hi * hi));
        if (rhsHi < delta) return { status: 'not-reduced', reason: `Lovasz fails at k = ${i}`, kappa: kmax };
        if (!(rhsLo >= delta) && open === undefined) open = `Lovasz at k = ${i} within the bound`;
      }
    }
  }
  if (open !== undefined) return inconclusive(open, kmax);
  return { status: 'proven', kappa: kmax };
}

function inconclusive(reason: string, kappa = NaN): LLLCertificate {
  return { status: 'inconclusive', reason, kappa };
}
