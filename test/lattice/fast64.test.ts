/**
 * The ladder's float64 rung (src/lattice/precision/fast64.ts) on fresh random integer bases: its
 * output is exactly LLL-reduced (integral Gram-Schmidt) and spans the input's lattice (the exact
 * rebuild of Z, with Z W = I); where a column operation would pass 2^53 it stops with a
 * PRECISION_FAILURE naming 2^53 and leaves an exact basis of the same lattice; a dependent input is
 * RANK_DEFICIENT.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LatticeMimoError } from '../../src/core/errors.js';
import { fastLLLFloat64 } from '../../src/lattice/precision/fast64.js';
import { checkLLLExactBig, integralGramSchmidt, type BigBasis } from '../../src/lattice/precision/exact.js';
import { rebuildTransform } from '../../src/lattice/exact-transform.js';

/** m columns of n integers below 2^bits, independent (checked exactly), as BigInt columns and float64. */
const basis = (m: number, n: number, bits: number) =>
  fc
    .array(
      fc.array(fc.bigInt({ min: -(2n ** BigInt(bits)) + 1n, max: 2n ** BigInt(bits) - 1n }), {
        minLength: n,
        maxLength: n,
      }),
      { minLength: m, maxLength: m },
    )
    .filter((cols) => !('dependent' in integralGramSchmidt(cols)));

const toF = (cols: BigBasis, n: number): Float64Array => {
  const f = new Float64Array(n * cols.length);
  cols.forEach((c, j) => {
    c.forEach((v, t) => {
      f[j * n + t] = Number(v);
    });
  });
  return f;
};
const toBig = (f: Float64Array, n: number, m: number): BigBasis =>
  Array.from({ length: m }, (_, j) => Array.from(f.subarray(j * n, (j + 1) * n), (v) => BigInt(v)));

/** B_out spans the lattice of B_in: integral, and rebuildTransform proves Z (B_in Z = B_out) unimodular. */
function sameLattice(Bin: Float64Array, Bout: Float64Array, n: number, m: number): void {
  assert.ok(
    Bout.every((v) => Number.isSafeInteger(v)),
    'the basis left the integers below 2^53',
  );
  const z = rebuildTransform(Bin, Bout, n, m, true);
  assert.ok(z.det === 1n || z.det === -1n);
}

test('random bases of 2 to 16 vectors, 3 to 32 bits, both deltas: output exactly LLL-reduced and a basis of the same lattice', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 16 }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 3, max: 32 }),
      fc.constantFrom(0.75, 0.99),
      fc.integer(),
      (m, extra, bits, delta, seed) => {
        const n = m + extra;
        const cols = fc.sample(basis(m, n, bits), { numRuns: 1, seed })[0]!;
        const Bin = toF(cols, n),
          B = Bin.slice();
        const st = { swaps: 0, sizeReductions: 0, iterations: 0 };
        fastLLLFloat64(B, n, m, delta, 0.51, 1e7, st);
        const c = checkLLLExactBig(toBig(B, n, m), delta, 0.51);
        assert.ok(c.ok, c.violations.join('; '));
        sameLattice(Bin, B, n, m);
      },
    ),
    { numRuns: 80 },
  );
});

test('entries of 40 to 52 bits (past the 32 the rung is for): it finishes or stops before a column operation passes 2^53, the basis exact and in the same lattice either way', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 40, max: 52 }), fc.integer(), (m, bits, seed) => {
      const cols = fc.sample(basis(m, m, bits), { numRuns: 1, seed })[0]!;
      // one short vector first makes the multipliers against it large
      cols[0] = cols[0]!.map((v, t) => (t === 0 ? 3n : v % 5n));
      if ('dependent' in integralGramSchmidt(cols)) return;
      const Bin = toF(cols, m),
        B = Bin.slice();
      try {
        // (its float64 Gram-Schmidt on products past 2^53 is a heuristic: the ladder proves or finishes)
        fastLLLFloat64(B, m, m, 0.75, 0.51, 1e7, { swaps: 0, sizeReductions: 0, iterations: 0 });
      } catch (err) {
        assert.ok(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE', String(err));
      }
      sameLattice(Bin, B, m, m);
    }),
    { numRuns: 100 },
  );
});

test('the 2^53 guard trips on some fresh basis of 5 to 8 vectors and 48 to 52 bits (drawn until it does), leaving an exact basis of the same lattice', () => {
  // about 1 draw in 10 trips it; 2000 draws all finishing would be a broken guard, not chance
  for (let draw = 0; draw < 2000; draw++) {
    const m = 5 + (draw % 4),
      bits = 48 + (draw % 5);
    const cols = fc.sample(basis(m, m, bits), 1)[0]!;
    cols[0] = cols[0]!.map((v, t) => (t === 0 ? 3n : v % 5n));
    if ('dependent' in integralGramSchmidt(cols)) continue;
    const Bin = toF(cols, m),
      B = Bin.slice();
    try {
      fastLLLFloat64(B, m, m, 0.75, 0.51, 1e7, { swaps: 0, sizeReductions: 0, iterations: 0 });
      continue;
    } catch (err) {
      assert.ok(
        err instanceof LatticeMimoError &&
          err.code === 'PRECISION_FAILURE' &&
          err.details?.boundBits === 53 &&
          /2\^53/.test(err.message),
        String(err),
      );
    }
    sameLattice(Bin, B, m, m);
    return;
  }
  assert.fail('2000 bases of 48 to 52 bits all finished: the 2^53 guard never tripped');
});

test('a dependent input is RANK_DEFICIENT (b_{m-1} a combination of the others)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 8 }),
      fc.integer({ min: 3, max: 20 }),
      fc.integer({ min: -3, max: 3 }),
      fc.integer(),
      (m, bits, a, seed) => {
        const cols = fc.sample(basis(m, m + 1, bits), { numRuns: 1, seed })[0]!;
        cols[m - 1] = cols[0]!.map((v, t) => BigInt(a) * v + (m > 2 ? cols[1]![t]! : 0n));
        if (cols[m - 1]!.every((v) => v === 0n)) return;
        const B = toF(cols, m + 1);
        assert.throws(
          () => fastLLLFloat64(B, m + 1, m, 0.99, 0.51, 1e7, { swaps: 0, sizeReductions: 0, iterations: 0 }),
          (e: unknown) =>
            e instanceof LatticeMimoError &&
            (e.code === 'RANK_DEFICIENT' || e.code === 'ZERO_VECTOR' || e.code === 'PRECISION_FAILURE'),
        );
      },
    ),
    { numRuns: 40 },
  );
});
