/**
 * The R factor of an exact integer basis by Householder reflections in double-double arithmetic
 * (about 104 bits): the same result as fixed-qr.ts where 104 bits resolve what the caller needs
 * (the basis' largest entry down to `guard` bits below its smallest Gram-Schmidt norm), an order of
 * magnitude faster than BigInt fixed point. Householder is backward stable: R is the exact R of
 * B + E with |E_j| <= c n 2^-104 |b_j|, whatever B's conditioning.
 *
 * Shapes: B is m columns of n BigInts (column j = basis vector j); the result is fixed-qr.ts's
 * FixedR: R as m columns of m BigInts at scale 2^F, upper triangular with a positive diagonal.
 */
import { RankDeficientError } from '../../core/index.js';
import type { BigBasis } from '../precision/exact.js';
import type { FixedR } from './fixed-qr.js';

/** Bits of precision the double-double QR resolves relative to the largest entry (with room for n m roundings). */
export const DD_BITS = 100;

const SPLIT = 134217729; // 2^27 + 1, Dekker's splitter

/** The double-double QR of B, R at scale 2^F (entries of B below 2^400 in magnitude). */
export function ddQR(B: BigBasis, F: number): FixedR {
  const m = B.length,
    n = B[0]!.length;
  const hi = new Float64Array(n * m),
    lo = new Float64Array(n * m);
  for (let j = 0; j < m; j++) {
    const c = B[j]!;
    for (let t = 0; t < n; t++) {
      const x = c[t]!;
      const h = Number(x);
      hi[j * n + t] = h;
      lo[j * n + t] = Number(x - BigInt(h));
    }
  }
  const vh = new Float64Array(n),
    vl = new Float64Array(n);
  const diagH = new Float64Array(m),
    diagL = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const o = k * n;
    // ||x||^2 of the column's entries k..n-1
    let sh = 0,
      sl = 0;
    for (let t = k; t < n; t++) {
      const ah = hi[o + t]!,
        al = lo[o + t]!;
      // (ah + al)^2 ~ ah^2 + 2 ah al
      const p = ah * ah;
      const e = twoProdErr(ah, ah, p) + 2 * ah * al;
      // s += p + e
      const s = sh + p;
      const bb = s - sh;
      const err = sh - (s - bb) + (p - bb) + sl + e;
      sh = s + err;
      sl = err - (sh - s);
    }
    if (!(sh > 0))
      throw new RankDeficientError(
        'RANK_DEFICIENT',
        `basis vector ${k} is linearly dependent on the vectors before it (its Gram-Schmidt norm is 0)`,
        { vector: k },
      );
    // norm = sqrt(s) in double-double: x + (s - x^2) / (2x)
    const x = Math.sqrt(sh);
    const xx = x * x;
    const rem = sh - xx - twoProdErr(x, x, xx) + sl;
    let nh = x + rem / (2 * x);
    let nl = rem / (2 * x) - (nh - x);
    const x0h = hi[o + k]!,
      x0l = lo[o + k]!;
    // alpha = -sign(x0) norm; v = x - alpha e_k; R's diagonal |alpha| with the row's sign flipped
    if (x0h < 0) {
      nh = -nh;
      nl = -nl;
    }
    // v_k = x0 + sign(x0) norm (no cancellation)
    for (let t = k; t < n; t++) {
      vh[t] = hi[o + t]!;
      vl[t] = lo[o + t]!;
    }
    {
      const s = x0h + nh;
      const bb = s - x0h;
      const err = x0h - (s - bb) + (nh - bb) + x0l + nl;
      vh[k] = s + err;
      vl[k] = err - (vh[k]! - s);
    }
    // v.v = 2 norm (norm + |x0|) = 2 v_k norm (signs: v_k and norm share x0's sign)
    const [vvh, vvl] = mul(vh[k]!, vl[k]!, nh, nl);
    const VVh = 2 * vvh,
      VVl = 2 * vvl;
    diagH[k] = Math.abs(nh);
    diagL[k] = nh < 0 ? -nl : nl;
    // the column's R entries: rows < k as they stand, row k: -alpha = sign(x0) norm (|alpha| after the flip)
    hi[o + k] = -nh;
    lo[o + k] = -nl;
    for (let t = k + 1; t < n; t++) {
      hi[o + t] = 0;
      lo[o + t] = 0;
    }
    for (let j = k + 1; j < m; j++) {
      const c = j * n;
      // d = v . a_j
      let dh = 0,
        dl = 0;
      for (let t = k; t < n; t++) {
        const ph = vh[t]! * hi[c + t]!;
        const pl = twoProdErr(vh[t]!, hi[c + t]!, ph) + vh[t]! * lo[c + t]! + vl[t]! * hi[c + t]!;
        const s = dh + ph;
        const bb = s - dh;
        const err = dh - (s - bb) + (ph - bb) + dl + pl;
        dh = s + err;
        dl = err - (dh - s);
      }
      if (dh === 0) continue;
      // f = 2 d / v.v
      const [fh, fl] = div(2 * dh, 2 * dl, VVh, VVl);
      for (let t = k; t < n; t++) {
        // a_t -= f v_t
        const ph = fh * vh[t]!;
        const pl = twoProdErr(fh, vh[t]!, ph) + fh * vl[t]! + fl * vh[t]!;
        const ah = hi[c + t]!;
        const s = ah - ph;
        const bb = s - ah;
        const err = ah - (s - bb) + (-ph - bb) + lo[c + t]! - pl;
        const h = s + err;
        hi[c + t] = h;
        lo[c + t] = err - (h - s);
      }
    }
  }
  // R with a positive diagonal: row i negated where the reflector left r_ii negative
  const R: BigBasis = new Array(m);
  const flip = new Array<boolean>(m);
  for (let i = 0; i < m; i++) flip[i] = hi[i * n + i]! < 0;
  for (let j = 0; j < m; j++) {
    const col = new Array<bigint>(m).fill(0n);
    for (let i = 0; i <= j; i++) {
      const h = hi[j * n + i]!,
        l = lo[j * n + i]!;
      const v = toFixed(h, F) + toFixed(l, F);
      col[i] = flip[i] ? -v : v;
    }
    R[j] = col;
  }
  const profile = new Float64Array(m);
  for (let i = 0; i < m; i++) profile[i] = Math.log2(diagH[i]!) + Math.log1p(diagL[i]! / diagH[i]!) / Math.LN2;
  return { R, F, profile };
}

/** The rounding error of the product p = fl(a b): a b = p + err exactly (Dekker). */
function twoProdErr(a: number, b: number, p: number): number {
  let t = SPLIT * a;
  const ah = t - (t - a),
    al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b),
    bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

function mul(ah: number, al: number, bh: number, bl: number): [number, number] {
  const p = ah * bh;
  const e = twoProdErr(ah, bh, p) + ah * bl + al * bh;
  const h = p + e;
  return [h, e - (h - p)];
}

function div(ah: number, al: number, bh: number, bl: number): [number, number] {
  const q1 = ah / bh;
  // r = a - q1 b
  const [ph, pl] = mul(q1, 0, bh, bl);
  const s = ah - ph;
  const bb = s - ah;
  const r = ah - (s - bb) + (-ph - bb) + al - pl;
  const q2 = (s + r) / bh;
  const h = q1 + q2;
  return [h, q2 - (h - q1)];
}

/** Nearest integer to x 2^F (x a double). */
function toFixed(x: number, F: number): bigint {
  if (x === 0) return 0n;
  // x = mant 2^(e - 52) with mant an integer below 2^53
  const e = Math.floor(Math.log2(Math.abs(x)));
  let sh = 52 - e;
  let mant = x * 2 ** sh;
  // log2's rounding: keep mant within [2^52, 2^53)
  while (Math.abs(mant) >= 2 ** 53) {
    sh--;
    mant = x * 2 ** sh;
  }
  while (Math.abs(mant) < 2 ** 52) {
    sh++;
    mant = x * 2 ** sh;
  }
  const s = F - sh;
  const M = BigInt(mant);
  if (s >= 0) return M << BigInt(s);
  const S = BigInt(-s);
  return (M + (1n << (S - 1n))) >> S;
}
