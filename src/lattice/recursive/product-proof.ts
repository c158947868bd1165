/**
 * Proof that B_in Z = B_out over the integers, by residues: the difference D = B_in Z - B_out is
 * bounded, |D_ij| <= m max|B_in| max|Z| + max|B_out| = H, so D = 0 as soon as D = 0 modulo primes
 * whose product passes 2 H. Each prime below 2^26 keeps every product of two residues exact in
 * float64; a few primes (H of a few hundred bits) cost far less than the BigInt product itself.
 *
 * Shapes: every matrix is columns of BigInts: B_in and B_out m columns of n, Z m columns of m
 * (column j of B_out = sum_i Z[j][i] b_i).
 */
import type { BigBasis } from '../precision/exact.js';
import { bitLength } from './fixed-qr.js';

/** Odd primes below 2^26, largest first (trial division; a call needs a handful). */
function primes(count: number): number[] {
  const out: number[] = [];
  for (let c = 2 ** 26 - 1; out.length < count; c -= 2) {
    let prime = true;
    for (let d = 3; d * d <= c; d += 2)
      if (c % d === 0) {
        prime = false;
        break;
      }
    if (prime) out.push(c);
  }
  return out;
}

function maxAbs(M: BigBasis): bigint {
  let big = 0n;
  for (const c of M)
    for (const v of c) {
      const a = v < 0n ? -v : v;
      if (a > big) big = a;
    }
  return big;
}

/** Residues of M's entries modulo p, column-major (rows x columns). */
function residues(M: BigBasis, p: number): Float64Array {
  const rows = M[0]!.length;
  const out = new Float64Array(rows * M.length);
  const P = BigInt(p);
  M.forEach((c, j) => {
    for (let t = 0; t < rows; t++) {
      const r = Number(c[t]! % P);
      out[j * rows + t] = r < 0 ? r + p : r;
    }
  });
  return out;
}

/** Whether B_in Z = B_out exactly (the module comment). */
export function provesProduct(Bin: BigBasis, Z: BigBasis, Bout: BigBasis): boolean {
  const m = Bin.length,
    n = Bin[0]!.length;
  if (Z.length !== m || Bout.length !== m || Bout[0]!.length !== n) return false;
  const H = BigInt(m) * maxAbs(Bin) * maxAbs(Z) + maxAbs(Bout);
  const need = bitLength(H) + 2;
  const ps = primes(Math.ceil(need / 25));
  for (const p of ps) {
    const a = residues(Bin, p),
      z = residues(Z, p),
      b = residues(Bout, p);
    const col = new Float64Array(n);
    for (let j = 0; j < m; j++) {
      col.fill(0);
      for (let i = 0; i < m; i++) {
        const c = z[j * m + i]!;
        if (c === 0) continue;
        for (let t = 0; t < n; t++) col[t] = (col[t]! + c * a[i * n + t]!) % p;
      }
      for (let t = 0; t < n; t++) if (col[t] !== b[j * n + t]) return false;
    }
  }
  return true;
}
