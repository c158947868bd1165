/**
 * The quad-double rung (dd-lll.ts: qdLLL, its exact Gram matrix updated from the multipliers): on
 * NTRU-like, q-ary and mixed-width bases every column operation exact (B_out = B_in Z, det Z =
 * +-1), the output LLL-reduced exactly; taking over from the basis a stopped double-double rung
 * left; and as a rung of the ladder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LatticeMimoError } from '../../src/core/errors.js';
import { ddLLLHybrid, qdLLL } from '../../src/lattice/precision/dd-lll.js';
import {
  applyTransformBig,
  checkLLLExactBig,
  determinantBig,
  type BigBasis,
} from '../../src/lattice/precision/exact.js';
import { lllIntegral, type LadderProgress } from '../../src/lattice/precision/ladder.js';
import { ntru } from './families.js';

const identity = (m: number): BigBasis =>
  Array.from({ length: m }, (_, j) => Array.from({ length: m }, (_, i) => (i === j ? 1n : 0n)));
const stats = () => ({ swaps: 0, sizeReductions: 0, iterations: 0 });

/** Random rows of mixed widths (each row's entries below 2^b, b from 4 to 300 bits). */
const mixedRows = (m: number, n: number) =>
  fc
    .array(
      fc
        .integer({ min: 4, max: 300 })
        .chain((b) =>
          fc.array(fc.bigInt({ min: -(2n ** BigInt(b)), max: 2n ** BigInt(b) }), { minLength: n, maxLength: n }),
        ),
      { minLength: m, maxLength: m },
    )
    .filter((r) => checkLLLExactBig(r, 0.75, 1e9).violations.every((v) => !v.includes('depends')));

/** qdLLL on a copy with Z tracked: B_out = B_in Z exactly, det Z = +-1, LLL-reduced exactly. */
function quadHolds(rows: BigBasis, delta: number): void {
  const B = rows.map((r) => r.slice()),
    Z = identity(rows.length);
  qdLLL(B, Z, delta, 0.51, 10 ** 7, stats());
  assert.deepEqual(applyTransformBig(rows, Z), B);
  const det = determinantBig(Z);
  assert.ok(det === 1n || det === -1n, `det Z = ${det}`);
  const c = checkLLLExactBig(B, delta, 0.51);
  assert.ok(c.ok, c.violations.join('; '));
}

test('quad-double rung on NTRU-like bases of 60 to 400 bits and on rows of mixed widths: B_out = B_in Z exactly, det Z = +-1, output LLL-reduced exactly', () => {
  fc.assert(
    fc.property(
      fc.tuple(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 60, max: 400 })).chain(([d, bits]) => ntru(d, bits)),
      fc.constantFrom(0.75, 0.99),
      (rows, delta) => quadHolds(rows, delta),
    ),
    { numRuns: 15 },
  );
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 0, max: 3 }))
        .chain(([m, extra]) => mixedRows(m, m + extra)),
      fc.constantFrom(0.75, 0.99),
      (rows, delta) => quadHolds(rows, delta),
    ),
    { numRuns: 25 },
  );
});

test('quad-double rung takes over from the basis a double-double pass stopped at (its step bound passed): exact throughout, reduced at the end', () => {
  fc.assert(
    fc.property(
      fc.tuple(fc.integer({ min: 4, max: 9 }), fc.integer({ min: 100, max: 300 })).chain(([d, bits]) => ntru(d, bits)),
      fc.integer({ min: 20, max: 400 }),
      (rows, steps) => {
        const B = rows.map((r) => r.slice()),
          Z = identity(rows.length);
        let stopped = false;
        try {
          ddLLLHybrid(B, Z, 0.99, 0.51, steps, stats());
        } catch (err) {
          assert.ok(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE', String(err));
          stopped = true;
        }
        assert.deepEqual(applyTransformBig(rows, Z), B);
        const Z2 = identity(rows.length);
        const B2 = B.map((c) => c.slice());
        qdLLL(B2, Z2, 0.99, 0.51, 10 ** 7, stats());
        const Zall = applyTransformBig(Z, Z2);
        assert.deepEqual(applyTransformBig(rows, Zall), B2);
        const det = determinantBig(Zall);
        assert.ok(det === 1n || det === -1n, `det Z = ${det}`);
        assert.ok(
          checkLLLExactBig(B2, 0.99, 0.51).ok,
          `reduced after the hand-over (double-double ${stopped ? 'stopped' : 'finished'})`,
        );
      },
    ),
    { numRuns: 15 },
  );
});

test('ladder: the quad-double rung alone, then the certificate or the exact proof (its place between double-double and exact: precision-ladder.test.ts, knapsack bases)', () => {
  fc.assert(
    fc.property(
      fc.tuple(fc.integer({ min: 2, max: 7 }), fc.integer({ min: 60, max: 300 })).chain(([d, bits]) => ntru(d, bits)),
      fc.constantFrom(0.75, 0.99),
      (rows, delta) => {
        const r = lllIntegral(rows, { delta, rungs: ['quad-double', 'exact'] });
        assert.deepEqual(r.rungs.map((x) => [x.rung, x.ok]).slice(0, 1), [['quad-double', true]]);
        assert.ok(r.proof.lll && r.proof.transform && r.proof.unimodular);
        assert.ok(checkLLLExactBig(r.basis, delta, 0.51).ok);
        assert.deepEqual(applyTransformBig(rows, r.transform), r.basis);
      },
    ),
    { numRuns: 12 },
  );
});

test('ladder: the quad-double rung starts on its own pass and, past 100 m main-loop steps, hands the basis back to the double-double passes; the result is proven', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 10, max: 12 }), fc.integer({ min: 150, max: 250 }))
        .chain(([d, bits]) => ntru(d, bits)),
      (rows) => {
        const reports: LadderProgress[] = [];
        const r = lllIntegral(rows, {
          delta: 0.99,
          rungs: ['quad-double', 'exact'],
          progressEveryMs: 0,
          onProgress: (p) => reports.push({ ...p }),
        });
        assert.ok(r.proof.lll && r.proof.transform && r.proof.unimodular);
        assert.ok(checkLLLExactBig(r.basis, 0.99, 0.51).ok);
        const passes = reports.filter((p) => p.stage === 'quad-double' && p.pass !== undefined).map((p) => p.pass);
        assert.equal(passes[0], 'quad-double Gram-Schmidt', 'the rung starts on its own pass');
        const first = reports.find((p) => p.stage === 'quad-double' && p.pass === 'double-double Gram-Schmidt');
        assert.ok(first, `no hand-back in ${reports.at(-1)?.iterations} steps: ${[...new Set(passes)].join(', ')}`);
        // reports come every 1024 steps: the hand-back is seen within that of its bound
        assert.ok(
          first.iterations >= 100 * rows.length && first.iterations <= 100 * rows.length + 1024 + rows.length,
          `handed back at step ${first.iterations}`,
        );
      },
    ),
    { numRuns: 3 },
  );
});
