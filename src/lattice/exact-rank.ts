/**
 * Exact full-rank test for integer bases, by elimination modulo primes. If the n x m integer matrix
 * has rank m modulo some prime p, it has rank m over the rationals (a nonzero m x m minor mod p is
 * nonzero): a proof of independence that float64 Gram-Schmidt cannot give for badly conditioned
 * integer bases (square block-Toeplitz, say). Primes below 2^26 keep every product below 2^52, exact
 * in a double.
 */
const PRIMES = [67108859, 67108837, 67108819, 67108777];

function modInverse(a: number, p: number): number {
  let [r0, r1] = [a, p];
  let [s0, s1] = [1, 0];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % p) + p) % p;
}

/** Rank of the n x m column-major integer matrix modulo p. */
export function rankModP(B: ArrayLike<number>, n: number, m: number, p: number): number {
  const a = new Float64Array(n * m);
  for (let i = 0; i < n * m; i++) a[i] = ((B[i]! % p) + p) % p;
  let rank = 0;
  // Column-by-column elimination: for column j, find a pivot row among the rows not yet used.
  const usedRow = new Uint8Array(n);
  for (let j = 0; j < m; j++) {
    let piv = -1;
    for (let i = 0; i < n; i++)
      if (!usedRow[i] && a[i + j * n] !== 0) {
        piv = i;
        break;
      }
    if (piv < 0) continue;
    usedRow[piv] = 1;
    rank++;
    const inv = modInverse(a[piv + j * n]!, p);
    // eliminate row `piv` from the later columns: col_k -= (a[piv,k] / a[piv,j]) col_j
    for (let k = j + 1; k < m; k++) {
      const f = (a[piv + k * n]! * inv) % p;
      if (f === 0) continue;
      for (let i = 0; i < n; i++) {
        const v = a[i + j * n]!;
        if (v !== 0) a[i + k * n] = (a[i + k * n]! + (((p - f) * v) % p)) % p;
      }
    }
  }
  return rank;
}

/** True when the integer basis provably has full column rank m (rank m modulo one of a few primes). */
export function provablyFullRank(B: ArrayLike<number>, n: number, m: number): boolean {
  return PRIMES.some((p) => rankModP(B, n, m, p) === m);
}
