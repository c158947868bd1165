/**
 * Double-double (about 106-bit) Gram-Schmidt rows for the LLL's extended-precision mode.
 *
 * A value is an unevaluated sum hi + lo of two float64s with |lo| <= ulp(hi) / 2. JavaScript has
 * no fused multiply-add, so exact products use Dekker's splitting (each factor cut into two 26-bit
 * halves whose products are exact); sums use Knuth's two-sum. The LLL switches to these rows only
 * when float64 breaks down on an integral basis with an exact integer Gram matrix: then every input
 * of the recurrence (G) is exact and the rows are accurate to about 2^-100 relative to their terms.
 *
 * Layout as in cpu.ts: mu_{k,j} and r_{k,j} at k*m + j (row-major by position), high parts in
 * mu / R, low parts in muLo / RLo; r_k = ||b*_k||^2 at k*m + k.
 */

/** 2^27 + 1: Dekker's splitter for float64. */
export const SPLIT = 134217729;

/**
 * The exact rounding error of the float64 product p = fl(x y), so x y = p + productError(x, y, p)
 * exactly (Dekker's splitting; no overflow or underflow: |x|, |y| well inside float64's range).
 */
export function productError(x: number, y: number, p: number): number {
  let t = SPLIT * x;
  const xh = t - (t - x),
    xl = x - xh;
  t = SPLIT * y;
  const yh = t - (t - y),
    yl = y - yh;
  return xh * yh - p + xh * yl + xl * yh + xl * yl;
}

/** A double-double accumulator (hi + lo), updated in place by subProduct. */
export interface Acc {
  hi: number;
  lo: number;
}

/**
 * s -= (ah + al)(bh + bl) in double-double: the high product exact by Dekker's splitting, the
 * subtraction by Knuth's two-sum, then renormalised.
 */
export function subProduct(s: Acc, ah: number, al: number, bh: number, bl: number): void {
  const ph = ah * bh;
  let t = SPLIT * ah;
  const ahh = t - (t - ah),
    ahl = ah - ahh;
  t = SPLIT * bh;
  const bhh = t - (t - bh),
    bhl = bh - bhh;
  const pl = ahh * bhh - ph + ahh * bhl + ahl * bhh + ahl * bhl + (ah * bl + al * bh);
  const v = s.hi - ph;
  const bb = v - s.hi;
  const err = s.hi - (v - bb) - (ph + bb) + (s.lo - pl);
  s.hi = v + err;
  s.lo = err - (s.hi - v);
}

/**
 * Row k of mu and R from column `from` on, and r_k, in double-double:
 *   r_{k,j} = G_{kj} - sum_{i<j} mu_{j,i} r_{k,i},  mu_{k,j} = r_{k,j} / r_j,
 *   r_k = G_{kk} - sum_{i<k} mu_{k,i} r_{k,i}.
 * `gram(j)` returns the exact G_{kj} (an integer below 2^53).
 */
export function doubleDoubleRow(
  mu: Float64Array,
  muLo: Float64Array,
  R: Float64Array,
  RLo: Float64Array,
  m: number,
  k: number,
  from: number,
  gram: (j: number) => number,
): void {
  const ko = k * m;
  const s: Acc = { hi: 0, lo: 0 };
  for (let j = from; j <= k; j++) {
    const jo = j * m;
    // a row's own coefficients (j = k) for the diagonal, row j's for the others
    const co = j === k ? ko : jo;
    s.hi = gram(j);
    s.lo = 0;
    for (let i = 0; i < j; i++) subProduct(s, mu[co + i]!, muLo[co + i]!, R[ko + i]!, RLo[ko + i]!);
    const sh = s.hi,
      sl = s.lo;
    R[ko + j] = sh;
    RLo[ko + j] = sl;
    if (j === k) break;
    // mu_{k,j} = (sh + sl) / (rh + rl): a first quotient, then one correction from the remainder
    const rh = R[jo + j]!,
      rl = RLo[jo + j]!;
    const q1 = sh / rh;
    const ph = q1 * rh;
    let t = SPLIT * q1;
    const qh = t - (t - q1),
      ql = q1 - qh;
    t = SPLIT * rh;
    const rhh = t - (t - rh),
      rhl = rh - rhh;
    const pl = qh * rhh - ph + qh * rhl + ql * rhh + ql * rhl + q1 * rl;
    const rem = sh - ph - pl + sl;
    const q2 = rem / rh;
    const q = q1 + q2;
    mu[ko + j] = q;
    muLo[ko + j] = q2 - (q - q1);
  }
}

/**
 * The projected norms S_i = ||pi_i(b_k)||^2 for the Lovasz test, in double-double from the top:
 * S_0 = G_kk, S_i = S_{i-1} - mu_{k,i-1} r_{k,i-1} (high parts in S, low parts in SLo).
 */
export function doubleDoubleProjections(
  mu: Float64Array,
  muLo: Float64Array,
  R: Float64Array,
  RLo: Float64Array,
  m: number,
  k: number,
  gkk: number,
  S: Float64Array,
  SLo: Float64Array,
): void {
  const ko = k * m;
  const s: Acc = { hi: gkk, lo: 0 };
  S[0] = gkk;
  SLo[0] = 0;
  for (let i = 1; i <= k; i++) {
    subProduct(s, mu[ko + i - 1]!, muLo[ko + i - 1]!, R[ko + i - 1]!, RLo[ko + i - 1]!);
    S[i] = s.hi;
    SLo[i] = s.lo;
  }
}
