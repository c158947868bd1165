/**
 * Quad-double arithmetic (about 212 bits: Hida, Li and Bailey's QD) for the quad-double rung's
 * Gram-Schmidt (dd-lll.ts), the place of fplll's heuristic<mpz_t, mpfr_t> at 212 bits where 106
 * do not settle.
 *
 * A value is an unevaluated sum x0 + x1 + x2 + x3 of float64s, each about an ulp of the one
 * before. Exact products by Dekker's splitting (JavaScript has no fused multiply-add), exact sums
 * by Knuth's two-sum; the terms of order 2^-212 and below are added in plain float64. Results go
 * to a caller's Float64Array(4) (no allocation in the hot loops). Operands are passed as numbers:
 * the four limbs of each live in four arrays (mu, r, G by limb), as the double-double code keeps
 * two.
 */
import { SPLIT } from '../lll/double-double.js';

/** s + err = a + b exactly (Knuth's two-sum): s returned, its error in `err`. */
let err = 0;
function twoSum(a: number, b: number): number {
  const s = a + b,
    bb = s - a;
  err = a - (s - bb) + (b - bb);
  return s;
}

/**
 * out = v0 + v1 + v2 + v3 as a quad-double, exactly (every step an error-free transformation): a
 * two-sum pass from the bottom gives the leading limb, a second one over its three errors the rest;
 * again (at most four times) while a limb is not below an ulp of the one above (a sum that cancels).
 */
export function renorm(v0: number, v1: number, v2: number, v3: number, out: Float64Array): void {
  for (let pass = 0; ; pass++) {
    let t = twoSum(v2, v3);
    const e3 = err;
    t = twoSum(v1, t);
    const e2 = err;
    const h0 = twoSum(v0, t);
    const e1 = err;
    t = twoSum(e2, e3);
    const f3 = err;
    const h1 = twoSum(e1, t);
    const f2 = err;
    const h2 = twoSum(f2, f3),
      h3 = err;
    if (pass === 3 || (Math.abs(h1) <= Math.abs(h0) * 2 ** -51 && Math.abs(h2) <= Math.abs(h1) * 2 ** -51)) {
      out[0] = h0;
      out[1] = h1;
      out[2] = h2;
      out[3] = h3;
      return;
    }
    v0 = h0;
    v1 = h1;
    v2 = h2;
    v3 = h3;
  }
}

/**
 * out = s - a b (quad-doubles), to about 2^-210 of |s| + |a b|: the products a_i b_j with
 * i + j <= 2 exact, those with i + j = 3 rounded, the rest dropped; each order summed exactly and
 * its errors carried to the next. The hot loop of the quad-double Gram-Schmidt: Dekker's products and
 * Knuth's two-sums written out in place (locals, no shared error variable).
 */
export function subMul(
  s0: number,
  s1: number,
  s2: number,
  s3: number,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
  out: Float64Array,
): void {
  // Dekker's halves of a0, a1, a2, b0, b1, b2
  let t = SPLIT * a0;
  const a0h = t - (t - a0),
    a0l = a0 - a0h;
  t = SPLIT * a1;
  const a1h = t - (t - a1),
    a1l = a1 - a1h;
  t = SPLIT * a2;
  const a2h = t - (t - a2),
    a2l = a2 - a2h;
  t = SPLIT * b0;
  const b0h = t - (t - b0),
    b0l = b0 - b0h;
  t = SPLIT * b1;
  const b1h = t - (t - b1),
    b1l = b1 - b1h;
  t = SPLIT * b2;
  const b2h = t - (t - b2),
    b2l = b2 - b2h;
  // the products of orders 1, 2^-53, 2^-106 and their exact errors
  const p00 = a0 * b0,
    e00 = a0h * b0h - p00 + a0h * b0l + a0l * b0h + a0l * b0l;
  const p01 = a0 * b1,
    e01 = a0h * b1h - p01 + a0h * b1l + a0l * b1h + a0l * b1l;
  const p10 = a1 * b0,
    e10 = a1h * b0h - p10 + a1h * b0l + a1l * b0h + a1l * b0l;
  const p02 = a0 * b2,
    e02 = a0h * b2h - p02 + a0h * b2l + a0l * b2h + a0l * b2l;
  const p11 = a1 * b1,
    e11 = a1h * b1h - p11 + a1h * b1l + a1l * b1h + a1l * b1l;
  const p20 = a2 * b0,
    e20 = a2h * b0h - p20 + a2h * b0l + a2l * b0h + a2l * b0l;
  // order 1: v0 + c0 = s0 - p00
  let x = -p00;
  const v0 = s0 + x;
  let bb = v0 - s0;
  const c0 = s0 - (v0 - bb) + (x - bb);
  // order 2^-53, summed exactly; its errors (order 2^-106) exactly into c1, theirs into c2
  let u = s1,
    c1 = 0,
    c2 = 0,
    e = 0,
    w = 0;
  x = -e00;
  w = u + x;
  bb = w - u;
  e = u - (w - bb) + (x - bb);
  u = w;
  w = c1 + e;
  bb = w - c1;
  c2 += c1 - (w - bb) + (e - bb);
  c1 = w;
  x = -p01;
  w = u + x;
  bb = w - u;
  e = u - (w - bb) + (x - bb);
  u = w;
  w = c1 + e;
  bb = w - c1;
  c2 += c1 - (w - bb) + (e - bb);
  c1 = w;
  x = -p10;
  w = u + x;
  bb = w - u;
  e = u - (w - bb) + (x - bb);
  u = w;
  w = c1 + e;
  bb = w - c1;
  c2 += c1 - (w - bb) + (e - bb);
  c1 = w;
  x = c0;
  w = u + x;
  bb = w - u;
  e = u - (w - bb) + (x - bb);
  u = w;
  w = c1 + e;
  bb = w - c1;
  c2 += c1 - (w - bb) + (e - bb);
  c1 = w;
  const v1 = u;
  // order 2^-106; errors into c2
  u = s2;
  x = -e01;
  w = u + x;
  bb = w - u;
  c2 += u - (w - bb) + (x - bb);
  u = w;
  x = -e10;
  w = u + x;
  bb = w - u;
  c2 += u - (w - bb) + (x - bb);
  u = w;
  x = -p02;
  w = u + x;
  bb = w - u;
  c2 += u - (w - bb) + (x - bb);
  u = w;
  x = -p11;
  w = u + x;
  bb = w - u;
  c2 += u - (w - bb) + (x - bb);
  u = w;
  x = -p20;
  w = u + x;
  bb = w - u;
  c2 += u - (w - bb) + (x - bb);
  u = w;
  x = c1;
  w = u + x;
  bb = w - u;
  c2 += u - (w - bb) + (x - bb);
  u = w;
  // order 2^-159, in float64
  const v3 = s3 + c2 - (e02 + e11 + e20) - (a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0);
  renorm(v0, v1, u, v3, out);
}

/** out = a / b (quad-doubles; b0 != 0): a first quotient and three corrections from the remainder. */
export function div(
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
  out: Float64Array,
): void {
  const q0 = a0 / b0;
  subMul(a0, a1, a2, a3, q0, 0, 0, 0, b0, b1, b2, b3, out);
  const q1 = out[0]! / b0;
  subMul(out[0]!, out[1]!, out[2]!, out[3]!, q1, 0, 0, 0, b0, b1, b2, b3, out);
  const q2 = out[0]! / b0;
  subMul(out[0]!, out[1]!, out[2]!, out[3]!, q2, 0, 0, 0, b0, b1, b2, b3, out);
  const q3 = out[0]! / b0;
  renorm(q0, q1, q2, q3, out);
}

/**
 * out = v 2^-shift rounded to a quad-double (four roundings to nearest, each exact on what the ones
 * before left, so about 2^-212 relative). Infinite limbs where v 2^-shift is past the double range.
 */
export function fromBig(v: bigint, out: Float64Array, shift = 0n): void {
  let r = shift > 0n ? v >> shift : v;
  for (let i = 0; i < 4; i++) {
    const h = Number(r);
    out[i] = h;
    if (!Number.isFinite(h)) {
      out.fill(h, i);
      return;
    }
    r -= BigInt(h);
  }
}

/** The integer nearest x0 + x1 + x2 + x3 (a quad-double), exactly as a BigInt. */
export function roundToBig(x0: number, x1: number, x2: number, x3: number): bigint {
  // limbs of magnitude 2^52 and up are integers; the first one below holds the fraction
  let acc = 0n;
  const xs = [x0, x1, x2, x3];
  for (let i = 0; i < 4; i++) {
    const v = xs[i]!;
    if (Math.abs(v) >= 2 ** 52) {
      acc += BigInt(v);
      continue;
    }
    let f = v;
    for (let t = i + 1; t < 4; t++) f += xs[t]!;
    return acc + BigInt(Math.round(f));
  }
  return acc;
}
