/**
 * A proof that a square integer matrix has determinant +-1, by residues: det M modulo primes
 * p < 2^26 (a product of two residues is then exact in float64), until the primes' product P
 * exceeds twice Hadamard's bound H >= |det M| (the product of the columns' norms). det M is the one
 * integer in (-P/2, P/2) with those residues (Chinese remainders), so it is s in {1, -1} exactly
 * when it is s modulo every one of them.
 *
 * Cost: a float64 elimination (m^3 / 3 multiply-and-reduce steps) a prime, about log2 H / 25.9
 * primes; no number grows, where fraction-free elimination (exact.ts: determinantBig) works on
 * integers of up to m times the entries' width. A matrix that is not unimodular usually fails at
 * the first prime.
 * Shapes: M as m columns of m BigInts (exact.ts's BigBasis).
 */
import type { BigBasis } from './exact.js';

/** Digit base of the entries' residues: v = sum_k d_k 2^(26 k). */
const DIGIT = 2 ** 26;

/** Odd primes below 2^26, from the largest down, made as needed (trial division; kept). */
const PRIMES: number[] = [];
function prime(i: number): number {
  for (let c = PRIMES.length ? PRIMES[PRIMES.length - 1]! - 2 : DIGIT - 1; PRIMES.length <= i; c -= 2) {
    let isPrime = true;
    for (let d = 3; d * d <= c; d += 2)
      if (c % d === 0) {
        isPrime = false;
        break;
      }
    if (isPrime) PRIMES.push(c);
  }
  return PRIMES[i]!;
}

/** log2 of Hadamard's bound on |det M|, rounded up: sum over columns of ceil(bits(||m_j||^2) / 2). */
function hadamardBits(M: BigBasis): number {
  let bits = 0;
  for (const c of M) {
    let s = 0n;
    for (const v of c) s += v * v;
    bits += Math.ceil(s.toString(2).length / 2);
  }
  return bits;
}

/** a^-1 mod p (0 < a < p, p prime), by the extended Euclidean algorithm (every number below 2^26). */
function inverse(a: number, p: number): number {
  let [r0, r1, s0, s1] = [p, a, 0, 1];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return s0 < 0 ? s0 + p : s0;
}

/** det A mod p for A (m x m, column-major, residues in [0, p)), destroying A. */
function detMod(A: Float64Array, m: number, p: number): number {
  const pinv = 1 / p;
  let det = 1;
  for (let k = 0; k < m; k++) {
    let piv = k;
    while (piv < m && A[piv + k * m] === 0) piv++;
    if (piv === m) return 0;
    if (piv !== k) {
      for (let j = k; j < m; j++) {
        const t = A[k + j * m]!;
        A[k + j * m] = A[piv + j * m]!;
        A[piv + j * m] = t;
      }
      det = p - det;
    }
    const a = A[k + k * m]!;
    det = (det * a) % p;
    const inv = inverse(a, p);
    for (let i = k + 1; i < m; i++) {
      const f = (A[i + k * m]! * inv) % p;
      if (f === 0) continue;
      // a - f b mod p with the quotient from a product by 1/p (off by at most one, then corrected):
      // f b < 2^52 and q p are exact, and this avoids a floating remainder per entry
      const g = p - f;
      for (let j = k + 1; j < m; j++) {
        const x = A[i + j * m]! + g * A[k + j * m]!;
        let r = x - Math.floor(x * pinv) * p;
        if (r < 0) r += p;
        else if (r >= p) r -= p;
        A[i + j * m] = r;
      }
    }
  }
  return det % p;
}

/** Whether det M = +-1 exactly (M square, m columns of m integers). */
export function isUnimodular(M: BigBasis): boolean {
  const m = M.length;
  if (m === 0) return true;
  // each entry as 26-bit digits of its magnitude (and its sign), once: its residue modulo any p
  // is then a few float64 multiply-and-reduce steps
  const digits: Float64Array[] = [],
    sign = new Int8Array(m * m);
  let width = 1;
  for (let j = 0; j < m; j++) {
    for (let i = 0; i < m; i++) {
      let v = M[j]![i]!;
      sign[i + j * m] = v < 0n ? -1 : v > 0n ? 1 : 0;
      if (v < 0n) v = -v;
      const ds: number[] = [];
      while (v > 0n) {
        ds.push(Number(v & 0x3ffffffn));
        v >>= 26n;
      }
      digits.push(Float64Array.from(ds));
      width = Math.max(width, ds.length);
    }
  }
  const need = hadamardBits(M) + 2;
  const A = new Float64Array(m * m),
    pow = new Float64Array(width);
  let s = 0,
    have = 0;
  for (let k = 0; have < need; k++) {
    const p = prime(k);
    pow[0] = 1;
    for (let w = 1; w < width; w++) pow[w] = (pow[w - 1]! * DIGIT) % p;
    for (let e = 0; e < m * m; e++) {
      const ds = digits[e]!;
      let r = 0;
      for (let w = 0; w < ds.length; w++) r = (r + (ds[w]! % p) * pow[w]!) % p;
      A[e] = sign[e]! < 0 && r !== 0 ? p - r : r;
    }
    const d = detMod(A, m, p);
    const here = d === 1 ? 1 : d === p - 1 ? -1 : 0;
    if (here === 0 || (s !== 0 && here !== s)) return false;
    s = here;
    have += Math.log2(p) - 1e-9;
  }
  return true;
}
