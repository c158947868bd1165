/**
 * Random lattice bases of latticegen's families as fast-check arbitraries (rows of BigInts, each
 * row a basis vector), for the precision ladder's property tests.
 */
import fc from 'fast-check';

/**
 * A q-ary basis as latticegen's `q d k b` writes it: k rows (e_i | a_i) with a_i mod q, then d - k
 * rows q e_j; q a random `bits`-bit number (entries wide, reduced ones small). Square, full rank.
 */
export const qAry = (d: number, k: number, bits: number) =>
  fc
    .tuple(
      fc.bigInt({ min: 2n ** BigInt(bits - 1), max: 2n ** BigInt(bits) - 1n }),
      fc.array(fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) }), { minLength: k * (d - k), maxLength: k * (d - k) }),
    )
    .map(([q, a]) =>
      Array.from({ length: d }, (_, i) =>
        Array.from({ length: d }, (_, j) => {
          if (i < k) return j < k ? (i === j ? 1n : 0n) : a[i * (d - k) + j - k]! % q;
          return i === j ? q : 0n;
        }),
      ),
    );

/**
 * An NTRU-like basis as latticegen's `n d b` writes it: d rows (e_i | rot^i(h)), then d rows
 * (0 | q e_i), q a `bits`-bit number, h mod q: 2d x 2d, every long column past 2^101 from the start
 * for 120 bits and more (latticegen -randseed 2 n 35 200 b is the benchmark's).
 */
export const ntru = (d: number, bits: number) =>
  fc
    .tuple(
      fc.bigInt({ min: 2n ** BigInt(bits - 1), max: 2n ** BigInt(bits) - 1n }),
      fc.array(fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) }), { minLength: d, maxLength: d }),
    )
    .map(([q, h]) =>
      Array.from({ length: 2 * d }, (_, i) =>
        Array.from({ length: 2 * d }, (_, j) => {
          if (i < d) return j < d ? (i === j ? 1n : 0n) : h[(j - i + d) % d]! % q;
          return j < d ? 0n : i === j ? q : 0n;
        }),
      ),
    );

/** Knapsack rows (a_i, e_i) with a_i of up to `bits` bits (latticegen's r family): m x (m + 1). */
export const knapsack = (m: number, bits: number) =>
  fc
    .array(fc.bigInt({ min: 1n, max: 2n ** BigInt(bits) }), { minLength: m, maxLength: m })
    .map((a) => a.map((x, i) => Array.from({ length: m + 1 }, (_, t) => (t === 0 ? x : t === i + 1 ? 1n : 0n))));
