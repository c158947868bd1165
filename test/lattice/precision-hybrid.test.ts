/**
 * The double-double rung's hybrid store (dd-lll.ts: float64 columns where they fit, BigInt beyond,
 * G recomputed from the columns): exact column operations in every mode, the basis kept on a
 * breakdown, and reduced output on q-ary-like bases whose columns cross 2^52 during the run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LatticeMimoError } from '../../src/core/errors.js';
import { ddLLLHybrid } from '../../src/lattice/precision/dd-lll.js';
import {
  applyTransformBig,
  checkLLLExactBig,
  determinantBig,
  type BigBasis,
} from '../../src/lattice/precision/exact.js';
import { lllIntegral } from '../../src/lattice/precision/ladder.js';
import { knapsack, ntru, qAry } from './families.js';

const identity = (m: number): BigBasis =>
  Array.from({ length: m }, (_, j) => Array.from({ length: m }, (_, i) => (i === j ? 1n : 0n)));

/** Random integer rows of mixed widths: each row's entries below 2^bits_i (some rows float-sized, some not). */
const mixedRows = (m: number, n: number) =>
  fc
    .array(
      fc
        .integer({ min: 4, max: 160 })
        .chain((b) =>
          fc.array(fc.bigInt({ min: -(2n ** BigInt(b)), max: 2n ** BigInt(b) }), { minLength: n, maxLength: n }),
        ),
      { minLength: m, maxLength: m },
    )
    .filter((r) => checkLLLExactBig(r, 0.75, 1e9).violations.every((v) => !v.includes('depends')));

/** Runs the hybrid store on a copy; returns B, Z and whether it finished (a PRECISION_FAILURE is allowed: the ladder goes on). */
function runHybrid(
  rows: BigBasis,
  delta: number,
  plain: boolean,
  maxIterations = 100000,
  exactWide = false,
): { B: BigBasis; Z: BigBasis; done: boolean } {
  const B = rows.map((r) => r.slice());
  const Z = identity(rows.length);
  try {
    ddLLLHybrid(B, Z, delta, 0.51, maxIterations, { swaps: 0, sizeReductions: 0, iterations: 0 }, plain, exactWide);
    return { B, Z, done: true };
  } catch (err) {
    assert.ok(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE', String(err));
    return { B, Z, done: false };
  }
}

/**
 * As the ladder runs it: a float64 Gram-Schmidt pass first (when `plain`), then double-double (G's
 * entries past 2^100 from the columns' copies, or exact with `exactWide`), which must settle;
 * B_out = B_in Z exactly, det Z = +-1, the output LLL-reduced exactly.
 */
function ladderPassesHold(rows: BigBasis, delta: number, plain: boolean, family: string, exactWide = false): void {
  let B = rows,
    Z = identity(rows.length);
  if (plain) {
    const first = runHybrid(rows, delta, true);
    assert.deepEqual(applyTransformBig(rows, first.Z), first.B);
    B = first.B;
    Z = first.Z;
  }
  const second = runHybrid(B, delta, false, 100000, exactWide);
  assert.ok(second.done, `${family} bases of this size settle`);
  const Zall = applyTransformBig(Z, second.Z);
  assert.deepEqual(applyTransformBig(rows, Zall), second.B);
  const det = determinantBig(Zall);
  assert.ok(det === 1n || det === -1n, `det Z = ${det}`);
  const c = checkLLLExactBig(second.B, delta, 0.51);
  assert.ok(c.ok, c.violations.join('; '));
}

test('hybrid store on q-ary bases of 54 to 130 bits (columns cross 2^52 during the run): B_out = B_in Z exactly, det Z = +-1, output LLL-reduced exactly after the double-double pass (with or without a float64 pass before it)', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 3, max: 8 }), fc.integer({ min: 54, max: 130 }))
        .chain(([h, bits]) => qAry(2 * h, h, bits)),
      fc.constantFrom(0.75, 0.99),
      fc.boolean(),
      (rows, delta, plain) => ladderPassesHold(rows, delta, plain, 'q-ary'),
    ),
    { numRuns: 30 },
  );
});

test('hybrid store on rows of mixed widths (4 to 160 bits, so past what 106 bits resolve): every column operation exact (B_out = B_in Z, det Z = +-1), finished or not; the ladder then proves the result', () => {
  fc.assert(
    fc.property(
      fc.tuple(fc.integer({ min: 2, max: 9 }), fc.integer({ min: 0, max: 2 })).chain(([m, e]) => mixedRows(m, m + e)),
      fc.constantFrom(0.75, 0.99),
      fc.boolean(),
      (rows, delta, plain) => {
        const { B, Z } = runHybrid(rows, delta, plain);
        assert.deepEqual(applyTransformBig(rows, Z), B);
        const det = determinantBig(Z);
        assert.ok(det === 1n || det === -1n, `det Z = ${det}`);
        const r = lllIntegral(rows, { delta });
        assert.ok(r.proof.lll && r.proof.transform && checkLLLExactBig(r.basis, delta, 0.51).ok);
        assert.deepEqual(applyTransformBig(rows, r.transform), r.basis);
      },
    ),
    { numRuns: 40 },
  );
});

test('hybrid store stopped mid-run (iteration bound): B and Z written back exactly, B = B_in Z', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 4, max: 8 }),
      fc.integer({ min: 60, max: 120 }),
      fc.integer({ min: 1, max: 10 }),
      fc.boolean(),
      (h, bits, limit, plain) => {
        const rows = fc.sample(qAry(2 * h, h, bits), 1)[0]!;
        const { B, Z, done } = runHybrid(rows, 0.99, plain, limit);
        assert.ok(!done, 'a q-ary basis takes more main-loop steps than the bound');
        assert.deepEqual(applyTransformBig(rows, Z), B);
      },
    ),
    { numRuns: 15 },
  );
});

test('ladder on q-ary bases of 54 to 200 bits: reduced through the double-double rung, proven exactly', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 3, max: 10 }),
      fc.integer({ min: 54, max: 200 }),
      fc.constantFrom(0.75, 0.99),
      (h, bits, delta) => {
        const rows = fc.sample(qAry(2 * h, h, bits), 1)[0]!;
        const r = lllIntegral(rows, { delta });
        assert.ok(
          r.rungs.some((x) => x.rung === 'double-double' && x.ok),
          JSON.stringify(r.rungs),
        );
        assert.ok(r.proof.lll && r.proof.transform && r.proof.unimodular);
        assert.ok(checkLLLExactBig(r.basis, delta, 0.51).ok);
        assert.deepEqual(applyTransformBig(rows, r.transform), r.basis);
      },
    ),
    { numRuns: 12 },
  );
});

test('hybrid store on knapsack bases of 60 to 260 bits (wide multipliers against float64 columns): B_out = B_in Z exactly, det Z = +-1, reduced exactly after the double-double pass; the ladder reads the same Z off B_out', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 6, max: 30 }), fc.integer({ min: 60, max: 260 }))
        .chain(([m, bits]) => knapsack(m, bits)),
      fc.constantFrom(0.75, 0.99),
      (rows, delta) => {
        const first = runHybrid(rows, delta, true);
        assert.deepEqual(applyTransformBig(rows, first.Z), first.B);
        const second = runHybrid(first.B, delta, false);
        assert.ok(second.done, 'knapsack bases of this size settle');
        const Zall = applyTransformBig(first.Z, second.Z);
        assert.deepEqual(applyTransformBig(rows, Zall), second.B);
        const det = determinantBig(Zall);
        assert.ok(det === 1n || det === -1n, `det Z = ${det}`);
        assert.ok(checkLLLExactBig(second.B, delta, 0.51).ok);
        // the ladder, which does not track Z on such bases: Z read off B_out, checked and unimodular
        const r = lllIntegral(rows, { delta });
        assert.ok(r.proof.lll && r.proof.transform && r.proof.unimodular);
        assert.deepEqual(applyTransformBig(rows, r.transform), r.basis);
        assert.ok(checkLLLExactBig(r.basis, delta, 0.51).ok);
      },
    ),
    { numRuns: 25 },
  );
});

test('hybrid store on NTRU-like bases of 120 to 300 bits (digit-tier columns of B and Z): B_out = B_in Z exactly, det Z = +-1, reduced exactly after the double-double pass (with or without a float64 pass before it; G past 2^100 from the copies or exact)', () => {
  fc.assert(
    fc.property(
      fc.tuple(fc.integer({ min: 3, max: 10 }), fc.integer({ min: 120, max: 300 })).chain(([d, bits]) => ntru(d, bits)),
      fc.constantFrom(0.75, 0.99),
      fc.boolean(),
      fc.boolean(),
      (rows, delta, plain, exactWide) => ladderPassesHold(rows, delta, plain, 'NTRU-like', exactWide),
    ),
    { numRuns: 24 },
  );
});
