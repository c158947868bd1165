/**
 * isUnimodular (the proof of |det| = 1 by residues) against the exact determinant on fresh
 * matrices: products of random elementary operations with entries of up to hundreds of bits (det
 * +-1), the same with one column scaled (det +-k), singular ones, and matrices whose determinant is
 * +-1 modulo the first primes the proof uses but not exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { determinantBig, type BigBasis } from '../../src/lattice/precision/exact.js';
import { isUnimodular } from '../../src/lattice/precision/unimodular.js';

/** A unimodular m x m matrix: the identity after `ops` random column operations (c_k += x c_j, swaps, sign flips). */
const unimodular = (m: number) =>
  fc
    .array(fc.tuple(fc.nat(m - 1), fc.nat(m - 1), fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }), fc.nat(9)), {
      minLength: 1,
      maxLength: 6 * m,
    })
    .map((ops): BigBasis => {
      const M: BigBasis = Array.from({ length: m }, (_, j) =>
        Array.from({ length: m }, (_, i): bigint => (i === j ? 1n : 0n)),
      );
      for (const [k, j, x, kind] of ops) {
        if (kind === 0) {
          const t = M[k]!;
          M[k] = M[j]!;
          M[j] = t;
        } else if (kind === 1) M[k] = M[k]!.map((v) => -v);
        else if (k !== j) M[k] = M[k]!.map((v, i) => v + x * M[j]![i]!);
      }
      return M;
    });

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

test('isUnimodular: true on products of elementary operations (entries of up to hundreds of bits), as the exact determinant says', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 12 }).chain(unimodular), (M) => {
      assert.equal(abs(determinantBig(M)), 1n);
      assert.equal(isUnimodular(M), true);
    }),
    { numRuns: 150 },
  );
});

test('isUnimodular: false where |det| is not 1 (a column scaled by k, a repeated column), as the exact determinant says', () => {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 10 })
        .chain((m) => fc.tuple(unimodular(m), fc.nat(m - 1), fc.bigInt({ min: 2n, max: 2n ** 70n }), fc.boolean())),
      ([M, j, k, repeat]) => {
        const m = M.length;
        const N = M.map((c) => c.slice());
        if (repeat && m >= 2) N[j] = N[(j + 1) % m]!.slice();
        else N[j] = N[j]!.map((v) => v * k);
        assert.notEqual(abs(determinantBig(N)), 1n);
        assert.equal(isUnimodular(N), false);
      },
    ),
    { numRuns: 150 },
  );
});

test('isUnimodular: random integer matrices agree with the exact determinant', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }).chain((m) =>
        fc.array(fc.array(fc.bigInt({ min: -3n, max: 3n }), { minLength: m, maxLength: m }), {
          minLength: m,
          maxLength: m,
        }),
      ),
      (M) => {
        assert.equal(isUnimodular(M), abs(determinantBig(M)) === 1n);
      },
    ),
    { numRuns: 300 },
  );
});

test('isUnimodular: a determinant of 1 + (the product of the first primes below 2^26), 1 modulo each of them, is not taken for 1', () => {
  const primes: bigint[] = [];
  for (let c = 2 ** 26 - 1; primes.length < 12; c -= 2) {
    let ok = true;
    for (let d = 3; d * d <= c; d += 2)
      if (c % d === 0) {
        ok = false;
        break;
      }
    if (ok) primes.push(BigInt(c));
  }
  for (const k of [1, 5, 12]) {
    const D = 1n + primes.slice(0, k).reduce((a, b) => a * b, 1n);
    for (const sign of [1n, -1n]) {
      const M: BigBasis = [
        [sign * D, 0n, 0n],
        [0n, 1n, 0n],
        [0n, 0n, 1n],
      ];
      assert.equal(isUnimodular(M), false, `det ${sign * D}`);
      // the same determinant spread over a unimodular product: M U, U with a unit determinant
      const U: BigBasis = [
        [1n, 7n, 0n],
        [0n, 1n, 0n],
        [3n, 21n, 1n],
      ];
      const MU = U.map((u) => M[0]!.map((_, i) => M.reduce((s, col, t) => s + col[i]! * u[t]!, 0n)));
      assert.equal(abs(determinantBig(MU)), D);
      assert.equal(isUnimodular(MU), false, `M U with det ${sign * D}`);
    }
  }
});
