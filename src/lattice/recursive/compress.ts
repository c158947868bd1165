/**
 * The compressed copy of a block of R: the projected sublattice of columns a..b-1 (its basis is the
 * block R[a:b, a:b], upper triangular) scaled by a power of two that brings its smallest diagonal
 * entry to about 2^guard, and rounded to integers. Its reduction is a reduction of the block to
 * within a relative error of about 2^-guard of the shortest Gram-Schmidt vector, found on integers
 * of (profile spread + guard) bits instead of the basis' own size (Ryan and Heninger's compression).
 *
 * Shapes: R is m columns of m BigInts at scale 2^F (fixed-qr.ts); the result is k = b - a columns
 * of k BigInts (column j = compressed basis vector j), upper triangular.
 */
import type { BigBasis } from '../precision/exact.js';

/**
 * The block [a, b) of R compressed to `guard` bits below its smallest diagonal entry; `profile`
 * holds log2 r_ii (fixed-qr.ts).
 */
export function compressBlock(
  R: BigBasis,
  F: number,
  profile: Float64Array,
  a: number,
  b: number,
  guard: number,
): BigBasis {
  let low = Number.POSITIVE_INFINITY;
  for (let i = a; i < b; i++) low = Math.min(low, profile[i]!);
  // r_ij 2^-F 2^-(low - guard): the shift from R's scale to the compressed one
  const shift = F + Math.floor(low) - guard;
  const k = b - a;
  const out: BigBasis = new Array(k);
  for (let j = 0; j < k; j++) {
    const src = R[a + j]!,
      col = new Array<bigint>(k).fill(0n);
    for (let i = 0; i <= j; i++) col[i] = scaleRound(src[a + i]!, shift);
    out[j] = col;
  }
  return out;
}

/** Nearest integer to x 2^-s (any sign of s). */
function scaleRound(x: bigint, s: number): bigint {
  if (s <= 0) return x << BigInt(-s);
  const S = BigInt(s);
  return (x + (1n << (S - 1n))) >> S;
}
