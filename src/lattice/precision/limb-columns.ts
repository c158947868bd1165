/**
 * The exact integer columns of the double-double rung's hybrid store (dd-lll.ts): one integer
 * matrix (the basis B, or the transform Z) column by column in four tiers, so that the size
 * reduction b_k -= sum_j X_j b_j runs on float64 arithmetic for every entry below 2^390 and in
 * BigInt only beyond (or for multipliers past 2^52). Every operation is exact: a result equals the
 * BigInt computation bit for bit.
 */
import { productError } from '../lll/double-double.js';

/** Below this, integers and their products by size-reduction multipliers are exact in float64 (checked). */
export const F64_LIMIT = 2 ** 53;
/** Below this a size-reduction multiplier's double equals its BigInt (sizeReduce rounds exactly there). */
export const X_EXACT = 2 ** 52;

/** Size-reduction multiplier j exactly: its double below 2^52, else the BigInt kept beside it. */
export function bigX(xd: Float64Array, xs: bigint[], j: number): bigint {
  const x = xd[j]!;
  return Math.abs(x) < X_EXACT ? BigInt(x) : xs[j]!;
}

/** Limb base of the pair tier: v = a R + b with 0 <= b < R. */
export const R = 2 ** 52;
/**
 * Bound of the pair tier's results: then |a| < 2^50 and |X a_j| < 2^53 (|X| < 2^52), X b_j splits
 * exactly into p + e with |e| < 2^50, and every limb stays an exact integer (ColumnSet.update).
 */
const PAIR_LIMIT = 2 ** 101;
/** Digit base of the digit tier and of limbUpdate's multipliers. */
const LIMB = 2 ** 26;
/** Bound on the summed column bounds limbUpdate takes: then every digit sum stays below 2^52. */
const LIMB_SUM = 2 ** 26;
/** Digits per entry at most in the digit tier (storage per column: DIGITS x len). */
export const DIGITS = 16;
/**
 * Bound of the digit tier's results, 2^(26 (DIGITS - 1)) = 2^390: a result then needs at most
 * DIGITS - 1 digits, and a product by a multiplier's high digit one more (ColumnSet.digitUpdate).
 */
export const DIGIT_LIMIT = 2 ** (26 * (DIGITS - 1));
/**
 * Bound on |digit| while a digit-tier update accumulates products without carrying: below 2^53
 * with room for a carry (below 2^28) added when the digits are carried.
 */
const HEADROOM = 2 ** 53 - 2 ** 28;
/** 2^(26 w) for w = 0 .. DIGITS + 1. */
const POW = Array.from({ length: DIGITS + 2 }, (_, w) => 2 ** (26 * w));

/** 2^13, half a digit (dotDigits), and its inverse. */
const HALF = 2 ** 13;
const HALF_INV = 2 ** -13;

/** Carries the sums S[0 .. ns) (13-bit positions, each below 2^53) into [0, 2^13) below the top one, which takes the last carry. */
function carry13(S: Float64Array, ns: number): void {
  let c = 0;
  for (let q = 0; q < ns - 1; q++) {
    const v = S[q]! + c;
    c = Math.floor(v * HALF_INV);
    S[q] = v - c * HALF;
  }
  S[ns - 1] = S[ns - 1]! + c;
}

/** The fewest 26-bit digits whose signed-top form holds integers of magnitude below a: a < 2^(26 w). */
function widthOf(a: number): number {
  let w = 1;
  while (w <= DIGITS && !(a < POW[w]!)) w++;
  return w;
}

/**
 * Writes v = a 2^52 + b (a, b integers, |a| < 2^51, |b| < 2^53) as w digits at D[o + i len + t],
 * i < w: digits 0 .. w - 2 in [0, 2^26), the top one signed (|v| < 2^(26 w) makes it below 2^26).
 */
function putDigits(D: Float64Array, o: number, len: number, t: number, a: number, b: number, w: number): void {
  if (w <= 2) {
    // |v| < 2^52: exact as one double
    const v = a * R + b;
    if (w === 1) {
      D[o + t] = v;
      return;
    }
    const c = Math.floor(v / LIMB);
    D[o + t] = v - c * LIMB;
    D[o + len + t] = c;
    return;
  }
  const c = Math.floor(b / LIMB),
    c2 = Math.floor(c / LIMB),
    h = a + c2;
  D[o + t] = b - c * LIMB;
  D[o + len + t] = c - c2 * LIMB;
  if (w === 3) {
    D[o + 2 * len + t] = h;
    return;
  }
  const c3 = Math.floor(h / LIMB);
  D[o + 2 * len + t] = h - c3 * LIMB;
  D[o + 3 * len + t] = c3;
  for (let i = 4; i < w; i++) D[o + i * len + t] = 0;
}

/**
 * The columns of one integer matrix (B, or Z) in four tiers, every operation exact:
 *  1. float64 (entries below 2^52), in F;
 *  2. pairs of float64 limbs v = a 2^52 + b (entries below 2^100), in F (a) and L (b);
 *  3. 26-bit digits in float64s (entries below 2^389), v = sum_i d_i 2^(26 i) over the column's
 *     width w, d_i in [0, 2^26) below the top digit, the top one signed; in D;
 *  4. BigInt beyond, in `cols`.
 * A column moves between tiers as it grows or shrinks; `cols[j]` is current only in tier 4 (or
 * after big(j)). Shapes: column j at [j len, (j + 1) len) of F and L; its digit i at
 * D[(slot[j] DIGITS + i) len + t] (slots follow the columns through swaps).
 */
export class ColumnSet {
  /** Tier 1: the entries; tier 2: the high limbs a (len per column, column-major by position). */
  readonly F: Float64Array;
  /** Tier 2: the low limbs b, in [0, 2^52) (same layout as F). */
  readonly L: Float64Array;
  /** 1, 2, 3 or 4: the tier of each column. */
  readonly tier: Uint8Array;
  /** An upper bound on |entry| of each column in tiers 1 to 3 (Infinity in tier 4). */
  readonly max: Float64Array;
  /** Whether cols[j] holds column j (always in tier 4; in tiers 1 to 3 after big(j), until it changes). */
  private readonly valid: Uint8Array;
  /** Tier 3: the digits (allocated with the first column that needs them). */
  private D = new Float64Array(0);
  /** Each column's place in D (its digits in tier 3, cached ones in tiers 1 and 2). */
  private readonly slot: Int32Array;
  /** Each column's number of digits where its digits are current. */
  private readonly width: Uint8Array;
  /** Whether the digits in a column's slot are current: always in tier 3; in tiers 1 and 2 once made (digitsOf), until the column changes. */
  private readonly cached: Uint8Array;
  /** digitUpdate's group of columns: multiplier parts, slot offsets, widths (m each); subtract's terms (2 m). */
  private readonly gX0: Float64Array;
  private readonly gX1: Float64Array;
  private readonly gSo: Int32Array;
  private readonly gW: Int32Array;
  private readonly tOff: Int32Array;
  private readonly tMul: Float64Array;
  /** The carries of a column being normalized (len). */
  private readonly carries: Float64Array;
  /** dot's 13-bit halves of one column's digits (2 DIGITS len) and its sums (4 DIGITS + 2). */
  private halves = new Float64Array(0);
  private readonly sums13 = new Float64Array(4 * DIGITS + 2);
  constructor(
    readonly cols: bigint[][],
    readonly len: number,
  ) {
    const m = cols.length;
    this.F = new Float64Array(len * m);
    this.L = new Float64Array(len * m);
    this.tier = new Uint8Array(m);
    this.max = new Float64Array(m);
    this.valid = new Uint8Array(m);
    this.slot = Int32Array.from({ length: m }, (_, j) => j);
    this.width = new Uint8Array(m);
    this.cached = new Uint8Array(m);
    this.carries = new Float64Array(len);
    this.gX0 = new Float64Array(m);
    this.gX1 = new Float64Array(m);
    this.gSo = new Int32Array(m);
    this.gW = new Int32Array(m);
    this.tOff = new Int32Array(2 * m);
    this.tMul = new Float64Array(2 * m);
    for (let j = 0; j < m; j++) this.settle(j, cols[j]!);
  }
  private digitStore(): Float64Array {
    if (this.D.length === 0) this.D = new Float64Array(this.tier.length * DIGITS * this.len);
    return this.D;
  }
  /** Column j from BigInts into its tier. */
  settle(j: number, c: bigint[]): void {
    const { F, L, len } = this,
      o = j * len;
    this.valid[j] = 1;
    this.cached[j] = 0;
    let a = 0;
    for (let t = 0; t < len; t++) {
      const w = Math.abs(Number(c[t]!));
      if (w > a) a = w;
    }
    if (a < F64_LIMIT / 2) {
      for (let t = 0; t < len; t++) F[o + t] = Number(c[t]!);
      this.tier[j] = 1;
      this.max[j] = a;
    } else if (a < PAIR_LIMIT / 2) {
      const r = BigInt(R);
      for (let t = 0; t < len; t++) {
        const v = c[t]!,
          lo = ((v % r) + r) % r;
        F[o + t] = Number((v - lo) / r);
        L[o + t] = Number(lo);
      }
      this.tier[j] = 2;
      this.max[j] = a * (1 + 2 ** -40);
    } else if (a < DIGIT_LIMIT / 2) {
      // 52 bits per BigInt step, split into two digits; the rest (floor) is the signed top digit
      const mx = a * (1 + 2 ** -40) + 1,
        w = widthOf(mx),
        D = this.digitStore(),
        so = this.slot[j]! * DIGITS * len;
      for (let t = 0; t < len; t++) {
        let v = c[t]!,
          i = 0;
        for (; i + 2 < w; i += 2) {
          const chunk = Number(BigInt.asUintN(52, v));
          v >>= 52n;
          const hi = Math.floor(chunk / LIMB);
          D[so + i * len + t] = chunk - hi * LIMB;
          D[so + (i + 1) * len + t] = hi;
        }
        if (i + 1 < w) {
          D[so + i * len + t] = Number(BigInt.asUintN(26, v));
          v >>= 26n;
          i++;
        }
        D[so + i * len + t] = Number(v);
      }
      this.tier[j] = 3;
      this.max[j] = mx;
      this.width[j] = w;
      this.cached[j] = 1;
    } else {
      this.tier[j] = 4;
      this.max[j] = Infinity;
    }
  }
  /** Column j as BigInts (written into cols[j] from tiers 1 to 3). */
  big(j: number): bigint[] {
    const { F, L, len } = this,
      o = j * len,
      c = this.cols[j]!,
      tier = this.tier[j];
    if (this.valid[j]) return c;
    this.valid[j] = 1;
    if (tier === 1) for (let t = 0; t < len; t++) c[t] = BigInt(F[o + t]!);
    else if (tier === 2) for (let t = 0; t < len; t++) c[t] = BigInt(F[o + t]!) * BigInt(R) + BigInt(L[o + t]!);
    else if (tier === 3) {
      // two digits (52 bits, exact in a double) per BigInt step, from the top
      const D = this.D,
        so = this.slot[j]! * DIGITS * len,
        w = this.width[j]!;
      for (let t = 0; t < len; t++) {
        let i = w - 1,
          r: bigint;
        if ((w & 1) === 0) {
          r = BigInt(D[so + i * len + t]! * LIMB + D[so + (i - 1) * len + t]!);
          i -= 2;
        } else {
          r = BigInt(D[so + i * len + t]!);
          i--;
        }
        for (; i >= 1; i -= 2) r = (r << 52n) + BigInt(D[so + i * len + t]! * LIMB + D[so + (i - 1) * len + t]!);
        c[t] = r;
      }
    }
    return c;
  }
  /**
   * Column j (tier 3) as double-doubles into hi, lo at o .. o + len: the digits summed from the top
   * in double-double (about 2^-104 relative).
   */
  copyDigits(j: number, hi: Float64Array, lo: Float64Array, o: number): void {
    const { D, len } = this,
      so = this.slot[j]! * DIGITS * len,
      w = this.width[j]!;
    for (let t = 0; t < len; t++) {
      let h = D[so + (w - 1) * len + t]!,
        l = 0;
      for (let i = w - 2; i >= 0; i--) {
        h *= LIMB;
        l *= LIMB;
        const d = D[so + i * len + t]!,
          s = h + d,
          bb = s - h,
          e = h - (s - bb) + (d - bb) + l;
        h = s + e;
        l = e - (h - s);
      }
      hi[o + t] = h;
      lo[o + t] = l;
    }
  }
  /**
   * Column k minus sum_j X_j column j (j in nz, all below k), exactly, in the lowest tier the bound
   * |b_k| + sum |X_j| max_j allows: float64, pairs, digits (then moved down where the result fits),
   * else BigInt (also for a tier 4 column or a multiplier past 2^52, whose BigInt is in xs[j]).
   */
  update(k: number, xd: Float64Array, xs: bigint[], nz: readonly number[]): void {
    const { F, L, len, tier, max } = this;
    if (len === 0 || nz.length === 0) return;
    let bound = max[k]!;
    let top = tier[k]!;
    for (const j of nz) {
      const X = Math.abs(xd[j]!);
      if (!(X < X_EXACT)) {
        bound = Infinity;
        break;
      }
      bound += X * max[j]!;
      if (tier[j]! > top) top = tier[j]!;
    }
    const ko = k * len;
    this.valid[k] = 0;
    this.cached[k] = 0;
    if (top === 1 && bound < F64_LIMIT) {
      // float64 tier: every product and partial result below 2^53
      for (const j of nz) {
        const X = xd[j]!,
          jo = j * len;
        for (let t = 0; t < len; t++) F[ko + t] = F[ko + t]! - X * F[jo + t]!;
      }
      let a = 0;
      for (let t = ko; t < ko + len; t++) {
        const v = Math.abs(F[t]!);
        if (v > a) a = v;
      }
      max[k] = a;
      return;
    }
    if (top <= 2 && bound < PAIR_LIMIT) {
      // pair tier: |a| R <= bound + R < 2^102, so X a_j is exact (below 2^53) and X b_j, X v are split
      // exactly into p + e (Dekker); each partial result stays below the bound
      if (tier[k] === 1) {
        for (let t = ko; t < ko + len; t++) {
          const v = F[t]!,
            a = Math.floor(v / R);
          F[t] = a;
          L[t] = v - a * R;
        }
        tier[k] = 2;
      }
      for (const j of nz) {
        const X = xd[j]!,
          jo = j * len,
          pj = tier[j] === 2;
        for (let t = 0; t < len; t++) {
          let a = F[ko + t]!,
            b = L[ko + t]!;
          let v: number;
          if (pj) {
            a -= X * F[jo + t]!;
            v = L[jo + t]!;
          } else v = F[jo + t]!;
          if (v !== 0) {
            const p = X * v;
            if (Math.abs(p) < R) {
              // exact, and b - p stays below 2^53
              b -= p;
            } else {
              const e = productError(X, v, p);
              const pa = Math.floor(p / R);
              a -= pa;
              b -= p - pa * R + e;
            }
            const c = Math.floor(b / R);
            a += c;
            b -= c * R;
          }
          F[ko + t] = a;
          L[ko + t] = b;
        }
      }
      let a = 0;
      for (let t = ko; t < ko + len; t++) {
        const w = Math.abs(F[t]!);
        if (w > a) a = w;
      }
      max[k] = a * R + R;
      // high limbs in {-1, 0, 1}: the values are below 2^53 and exact as a R + b; back to float64
      // where they are all below 2^52
      if (a <= 1) {
        let b = 0;
        for (let t = ko; t < ko + len; t++) {
          const w = Math.abs(F[t]! * R + L[t]!);
          if (w > b) b = w;
        }
        if (b < F64_LIMIT / 2) {
          for (let t = ko; t < ko + len; t++) F[t] = F[t]! * R + L[t]!;
          tier[k] = 1;
          max[k] = b;
        }
      }
      return;
    }
    if (bound < DIGIT_LIMIT && this.digitUpdate(k, xd, nz, bound)) return;
    const ck = this.big(k);
    // the float64 columns together, by 26-bit digits of their multipliers (limbUpdate); the rest in BigInt
    let small = 0,
      sum = 0;
    for (const j of nz)
      if (tier[j] === 1) {
        small++;
        sum += max[j]!;
      }
    const rest = small >= 2 && sum < LIMB_SUM ? nz.filter((j) => tier[j] !== 1) : nz;
    if (rest !== nz) this.limbUpdate(ck, xd, xs, nz);
    for (const j of rest) {
      const X = bigX(xd, xs, j);
      const cj = tier[j] === 4 ? this.cols[j]! : this.big(j);
      for (let t = 0; t < len; t++) {
        const v = cj[t]!;
        if (v !== 0n) ck[t] = ck[t]! - X * v;
      }
    }
    this.settle(k, ck);
  }
  /**
   * The digit tier's update (all columns in tiers 1 to 3, |X_j| < 2^52, result below DIGIT_LIMIT):
   * each X_j = X1 2^26 + X0 with |X0| <= 2^25, |X1| <= 2^26, so every product of a multiplier part
   * and a digit (below 2^26) is exact; digit i of b_k takes -X0 d_i(b_j) and -X1 d_{i-1}(b_j) per j,
   * carried only when the bound on its digits (h) would pass HEADROOM. Then one carry pass, the
   * width trimmed to the result, and the column moved down to tier 2 or 1 where it fits.
   * False (nothing written) where the digits would not fit DIGITS.
   */
  private digitUpdate(k: number, xd: Float64Array, nz: readonly number[], bound: number): boolean {
    const { len, tier, max, width } = this;
    let W = widthOf(bound);
    for (const j of nz) {
      this.digitsOf(j);
      const w = width[j]! + (Math.round(xd[j]! / LIMB) !== 0 ? 1 : 0);
      if (w > W) W = w;
    }
    if (W > DIGITS) return false;
    const D = this.digitStore(),
      span = DIGITS * len,
      ko = this.slot[k]! * span;
    // b_k as W digits (its own width is at most W: its bound is below `bound`)
    const wk = tier[k] === 3 ? width[k]! : widthOf(max[k]!);
    if (tier[k] !== 3) this.toDigits(k, D, ko, wk);
    if (wk < W) D.fill(0, ko + wk * len, ko + W * len);
    // the columns j in groups whose summed increments keep the digits below HEADROOM, carried between groups
    const { gX0, gX1, gSo, gW } = this;
    let h = LIMB,
      g = 0;
    for (const j of nz) {
      const X = xd[j]!,
        X1 = Math.round(X / LIMB),
        X0 = X - X1 * LIMB;
      const inc = (Math.abs(X0) + Math.abs(X1)) * LIMB;
      if (h + inc > HEADROOM) {
        this.subtract(D, ko, W, g);
        this.carry(D, ko, W);
        h = LIMB;
        g = 0;
      }
      h += inc;
      gX0[g] = X0;
      gX1[g] = X1;
      gSo[g] = this.slot[j]! * span;
      gW[g] = width[j]!;
      g++;
    }
    this.subtract(D, ko, W, g);
    this.carry(D, ko, W);
    // a bound on |entry|: the digits summed from the top in float64 (relative error below 2^-37
    // for 16 digits: each step at most doubles the error before it, as the lower digits are >= 0)
    let a = 0;
    for (let t = 0; t < len; t++) {
      let f = D[ko + (W - 1) * len + t]!;
      for (let i = W - 2; i >= 0; i--) f = f * LIMB + D[ko + i * len + t]!;
      const g = Math.abs(f);
      if (g > a) a = g;
    }
    const mx = a * (1 + 2 ** -30) + 1;
    const w = Math.min(widthOf(mx), W);
    // digits above w - 1 into the top one: their partial sums floor(v / 2^(26 i)) are 0 or -1 there,
    // exact, and below 2^26 at i = w - 1
    if (w < W) {
      for (let t = 0; t < len; t++) {
        let f = D[ko + (W - 1) * len + t]!;
        for (let i = W - 2; i >= w - 1; i--) f = f * LIMB + D[ko + i * len + t]!;
        D[ko + (w - 1) * len + t] = f;
      }
    }
    // the digits stay current in every tier the column lands in
    width[k] = w;
    this.cached[k] = 1;
    if (!(mx < PAIR_LIMIT / 2)) {
      tier[k] = 3;
      max[k] = mx;
      return true;
    }
    const { F, L } = this,
      fo = k * len;
    if (mx < F64_LIMIT / 2) {
      // below 2^52: every partial sum exact
      let b = 0;
      for (let t = 0; t < len; t++) {
        let f = D[ko + (w - 1) * len + t]!;
        for (let i = w - 2; i >= 0; i--) f = f * LIMB + D[ko + i * len + t]!;
        F[fo + t] = f;
        const g = Math.abs(f);
        if (g > b) b = g;
      }
      tier[k] = 1;
      max[k] = b;
      return true;
    }
    // pair tier: b = d_0 + d_1 2^26 in [0, 2^52), a = the digits above (|a| < 2^49)
    for (let t = 0; t < len; t++) {
      if (w <= 2) {
        const f = w === 1 ? D[ko + t]! : D[ko + len + t]! * LIMB + D[ko + t]!,
          q = Math.floor(f / R);
        F[fo + t] = q;
        L[fo + t] = f - q * R;
        continue;
      }
      let f = D[ko + (w - 1) * len + t]!;
      for (let i = w - 2; i >= 2; i--) f = f * LIMB + D[ko + i * len + t]!;
      F[fo + t] = f;
      L[fo + t] = D[ko + len + t]! * LIMB + D[ko + t]!;
    }
    tier[k] = 2;
    max[k] = mx;
    return true;
  }
  /**
   * <column i, column j> (tiers 1 to 3) exactly from their digits, rounded to a double-double into
   * out[0] + out[1] (about 2^-100 relative). The narrower column's digits cut into 13-bit halves, so
   * every digit product is below 2^39 and the sums per 13-bit position stay exact for 2^13 digit
   * pairs each (entries taken in blocks, the sums carried between blocks).
   */
  dotDigits(i: number, j: number, out: Float64Array): void {
    const { len, width } = this,
      span = DIGITS * len;
    this.digitsOf(i);
    this.digitsOf(j);
    let x = i,
      y = j;
    if (width[y]! > width[x]!) {
      x = j;
      y = i;
    }
    const D = this.D,
      wx = width[x]!,
      wy = width[y]!,
      xo = this.slot[x]! * span,
      yo = this.slot[y]! * span;
    if (this.halves.length < 2 * span) this.halves = new Float64Array(2 * span);
    const H = this.halves,
      S = this.sums13,
      ns = 2 * (wx + wy);
    for (let b = 0; b < wy; b++) {
      const lo = 2 * b * len,
        hi = lo + len,
        src = yo + b * len;
      for (let t = 0; t < len; t++) {
        const v = D[src + t]!,
          h = Math.floor(v * HALF_INV);
        H[hi + t] = h;
        H[lo + t] = v - h * HALF;
      }
    }
    S.fill(0, 0, ns);
    const blk = Math.max(1, Math.floor(HALF / wy));
    for (let t0 = 0; t0 < len; t0 += blk) {
      const t1 = Math.min(len, t0 + blk);
      for (let a = 0; a < wx; a++) {
        const xa = xo + a * len;
        for (let b = 0; b < wy; b++) {
          const lo = 2 * b * len,
            hi = lo + len;
          let s0 = 0,
            s1 = 0;
          for (let t = t0; t < t1; t++) {
            const v = D[xa + t]!;
            s0 += v * H[lo + t]!;
            s1 += v * H[hi + t]!;
          }
          const l = 2 * (a + b);
          S[l] = S[l]! + s0;
          S[l + 1] = S[l + 1]! + s1;
        }
      }
      if (t1 < len) carry13(S, ns);
    }
    carry13(S, ns);
    // from the top in double-double: the positions below the top are in [0, 2^13)
    let h = S[ns - 1]!,
      l = 0;
    for (let q = ns - 2; q >= 0; q--) {
      h *= HALF;
      l *= HALF;
      const d = S[q]!,
        s = h + d,
        bb = s - h,
        e = h - (s - bb) + (d - bb) + l;
      h = s + e;
      l = e - (h - s);
    }
    out[0] = h;
    out[1] = l;
  }
  /**
   * Digit row i of b_k (at D[o + i len]) minus sum_g X0_g row i of b_g + X1_g row i - 1 of b_g, for
   * the g columns in gX0, gX1, gSo (slot offsets), gW (widths): each row of b_k read and written once.
   */
  private subtract(D: Float64Array, o: number, W: number, g: number): void {
    const { len, gX0, gX1, gSo, gW, tOff, tMul } = this;
    for (let i = 0; i < W; i++) {
      let cnt = 0;
      for (let q = 0; q < g; q++) {
        if (i < gW[q]! && gX0[q] !== 0) {
          tOff[cnt] = gSo[q]! + i * len;
          tMul[cnt] = gX0[q]!;
          cnt++;
        }
        if (i >= 1 && i <= gW[q]! && gX1[q] !== 0) {
          tOff[cnt] = gSo[q]! + (i - 1) * len;
          tMul[cnt] = gX1[q]!;
          cnt++;
        }
      }
      if (cnt === 0) continue;
      // four terms a pass (every partial sum an integer below HEADROOM: exact in any order)
      const a = o + i * len;
      let q = 0;
      for (; q + 3 < cnt; q += 4) {
        const b0 = tOff[q]!,
          b1 = tOff[q + 1]!,
          b2 = tOff[q + 2]!,
          b3 = tOff[q + 3]!;
        const x0 = tMul[q]!,
          x1 = tMul[q + 1]!,
          x2 = tMul[q + 2]!,
          x3 = tMul[q + 3]!;
        for (let t = 0; t < len; t++)
          D[a + t] = D[a + t]! - x0 * D[b0 + t]! - x1 * D[b1 + t]! - x2 * D[b2 + t]! - x3 * D[b3 + t]!;
      }
      if (cnt - q === 3) {
        const b0 = tOff[q]!,
          b1 = tOff[q + 1]!,
          b2 = tOff[q + 2]!,
          x0 = tMul[q]!,
          x1 = tMul[q + 1]!,
          x2 = tMul[q + 2]!;
        for (let t = 0; t < len; t++) D[a + t] = D[a + t]! - x0 * D[b0 + t]! - x1 * D[b1 + t]! - x2 * D[b2 + t]!;
      } else if (cnt - q === 2) {
        const b0 = tOff[q]!,
          b1 = tOff[q + 1]!,
          x0 = tMul[q]!,
          x1 = tMul[q + 1]!;
        for (let t = 0; t < len; t++) D[a + t] = D[a + t]! - x0 * D[b0 + t]! - x1 * D[b1 + t]!;
      } else if (cnt - q === 1) {
        const b0 = tOff[q]!,
          x0 = tMul[q]!;
        for (let t = 0; t < len; t++) D[a + t] = D[a + t]! - x0 * D[b0 + t]!;
      }
    }
  }
  /** Makes column j's digits current in its slot (from tier 1 or 2: widthOf its bound). */
  private digitsOf(j: number): void {
    if (this.cached[j]) return;
    const w = widthOf(this.max[j]!);
    this.toDigits(j, this.digitStore(), this.slot[j]! * DIGITS * this.len, w);
    this.width[j] = w;
    this.cached[j] = 1;
  }
  /** Column j of tier 1 or 2 as w digits (w from its bound) at T[o + i len + t]. */
  private toDigits(j: number, T: Float64Array, o: number, w: number): void {
    const { F, L, len } = this,
      jo = j * len;
    if (this.tier[j] === 1) for (let t = 0; t < len; t++) putDigits(T, o, len, t, 0, F[jo + t]!, w);
    else for (let t = 0; t < len; t++) putDigits(T, o, len, t, F[jo + t]!, L[jo + t]!, w);
  }
  /**
   * Carries the W digits at D[o + i len + t] (each below HEADROOM) into [0, 2^26) below the top
   * one, which takes the last carry (signed). Digit by digit over the entries, the carries in a row.
   */
  private carry(D: Float64Array, o: number, W: number): void {
    const { len, carries } = this;
    carries.fill(0);
    for (let i = 0; i < W - 1; i++) {
      const a = o + i * len;
      for (let t = 0; t < len; t++) {
        const v = D[a + t]! + carries[t]!,
          c = Math.floor(v / LIMB);
        D[a + t] = v - c * LIMB;
        carries[t] = c;
      }
    }
    const a = o + (W - 1) * len;
    for (let t = 0; t < len; t++) D[a + t] = D[a + t]! + carries[t]!;
  }
  /**
   * ck -= sum_j X_j c_j over the float64 columns j of nz (sum of their bounds below LIMB_SUM): each
   * |X_j| in base 2^26, one float64 sum per digit and entry (exact: below 2^26 LIMB_SUM), then one
   * BigInt per entry from the carried digits instead of a BigInt product per column and entry.
   */
  private limbUpdate(ck: bigint[], xd: Float64Array, xs: bigint[], nz: readonly number[]): void {
    const { F, len, tier } = this;
    let digits = 0;
    let S = this.sums;
    for (const j of nz) {
      if (tier[j] !== 1) continue;
      const jo = j * len;
      const x = xd[j]!,
        neg = x < 0;
      // |X_j| digit by digit, least significant first (as a double below 2^52, else from its BigInt)
      let a = Math.abs(x),
        A = 0n;
      const wide = !(a < X_EXACT);
      if (wide) {
        A = xs[j]!;
        if (A < 0n) A = -A;
      }
      for (let l = 0; wide ? A > 0n : a > 0; l++) {
        let d: number;
        if (wide) {
          d = Number(BigInt.asUintN(26, A));
          A >>= 26n;
        } else {
          d = a % LIMB;
          a = (a - d) / LIMB;
        }
        if (l >= digits) {
          if ((l + 1) * len > S.length) {
            const T = new Float64Array(2 * (l + 1) * len);
            T.set(S);
            S = this.sums = T;
          }
          S.fill(0, l * len, (l + 1) * len);
          digits = l + 1;
        }
        if (d === 0) continue;
        const sd = neg ? -d : d,
          lo = l * len;
        for (let t = 0; t < len; t++) {
          const v = F[jo + t]!;
          if (v !== 0) S[lo + t] = S[lo + t]! + sd * v;
        }
      }
    }
    // per entry: carry the digit sums into [0, 2^26) (the last carry signed), pair them into
    // 52-bit chunks and build the BigInt from the top chunk down
    const D = this.digitScratch(digits + 2);
    for (let t = 0; t < len; t++) {
      let carry = 0,
        any = false;
      for (let l = 0; l < digits; l++) {
        const c = S[l * len + t]! + carry;
        if (c !== 0) any = true;
        carry = Math.floor(c / LIMB);
        D[l] = c - carry * LIMB;
      }
      if (!any) continue;
      D[digits] = carry;
      D[digits + 1] = 0;
      let r = 0n;
      for (let i = digits >> 1; i >= 0; i--) {
        const chunk = D[2 * i]! + D[2 * i + 1]! * LIMB;
        if (r !== 0n) r <<= 52n;
        if (chunk !== 0) r += BigInt(chunk);
      }
      if (r !== 0n) ck[t] = ck[t]! - r;
    }
  }
  private sums = new Float64Array(0);
  private digits = new Float64Array(0);
  private digitScratch(n: number): Float64Array {
    if (this.digits.length < n) this.digits = new Float64Array(2 * n);
    return this.digits;
  }
  swap(k: number, p: number): void {
    const { F, L, len, cols, tier, max } = this;
    const c = cols[k]!;
    cols[k] = cols[p]!;
    cols[p] = c;
    let y = this.slot[k]!;
    this.slot[k] = this.slot[p]!;
    this.slot[p] = y;
    y = this.width[k]!;
    this.width[k] = this.width[p]!;
    this.width[p] = y;
    y = this.cached[k]!;
    this.cached[k] = this.cached[p]!;
    this.cached[p] = y;
    let x = tier[k]!;
    tier[k] = tier[p]!;
    tier[p] = x;
    x = this.valid[k]!;
    this.valid[k] = this.valid[p]!;
    this.valid[p] = x;
    x = max[k]!;
    max[k] = max[p]!;
    max[p] = x;
    const ko = k * len,
      po = p * len;
    for (let t = 0; t < len; t++) {
      const f = F[ko + t]!;
      F[ko + t] = F[po + t]!;
      F[po + t] = f;
    }
    // the low limbs are read only in tier 2
    if (tier[k] === 2 || tier[p] === 2)
      for (let t = 0; t < len; t++) {
        const f = L[ko + t]!;
        L[ko + t] = L[po + t]!;
        L[po + t] = f;
      }
  }
}
