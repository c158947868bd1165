/**
 * The interval proof of the LLL conditions (interval-proof.ts) against the exact check on fresh
 * bases: it never says 'proven' where a condition fails, nor 'not-reduced' where all hold; it proves
 * the ladder's outputs, including NTRU-like bases whose entries (past 2^400) the float64
 * certificate refuses, where the ladder then reports it as the proof; and it refutes reduced
 * bases spoiled by one swap or one added multiple.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { randomInt } from 'node:crypto';
import { parseFplll } from '../../src/lattice/fplll-format.js';
import { availableReferences, runLatticegen } from '../../bench/reference/fplll.js';
import { checkLLLExactBig, type BigBasis } from '../../src/lattice/precision/exact.js';
import { intervalLLLProof, intervalLLLProofAt } from '../../src/lattice/precision/interval-proof.js';
import { lllIntegral } from '../../src/lattice/precision/ladder.js';
import { knapsack, ntru, qAry } from './families.js';

const reduced = (rows: BigBasis, delta: number): BigBasis =>
  lllIntegral(rows, { delta, prove: false, certify: false }).basis;

test("interval proof: proves the ladder's outputs (q-ary, NTRU-like, knapsack bases of 20 to 300 bits), as the exact check says, but for conditions that hold with equality", () => {
  // a condition that holds with equality (small knapsack entries make some) cannot be decided by
  // intervals of nonzero width: 'inconclusive' there is right (the ladder then runs the exact rung)
  let proven = 0,
    runs = 0;
  fc.assert(
    fc.property(
      fc.oneof(
        fc
          .tuple(fc.integer({ min: 4, max: 12 }), fc.integer({ min: 20, max: 300 }))
          .chain(([d, bits]) => qAry(d, d >> 1, bits)),
        fc.tuple(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 20, max: 300 })).chain(([d, bits]) => ntru(d, bits)),
        fc
          .tuple(fc.integer({ min: 4, max: 14 }), fc.integer({ min: 20, max: 200 }))
          .chain(([m, bits]) => knapsack(m, bits)),
      ),
      fc.constantFrom(0.75, 0.99),
      (rows, delta) => {
        const B = reduced(rows, delta);
        assert.ok(checkLLLExactBig(B, delta, 0.51).ok);
        const got = intervalLLLProof(B, delta, 0.51);
        assert.notEqual(got, 'not-reduced');
        runs++;
        if (got === 'proven') proven++;
      },
    ),
    { numRuns: 40 },
  );
  assert.ok(proven >= 0.75 * runs, `proven ${proven} of ${runs}`);
});

test('interval proof: never proven where the exact check fails, never not-reduced where it holds (inputs, spoiled outputs, any precision)', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 3, max: 10 }), fc.integer({ min: 20, max: 200 }))
        .chain(([d, bits]) => qAry(d, d >> 1, bits)),
      fc.constantFrom(0.75, 0.99),
      fc.nat(),
      fc.integer({ min: 0, max: 2 }),
      fc.integer({ min: 8, max: 600 }),
      (rows, delta, pick, how, P) => {
        let B = rows;
        if (how > 0) {
          B = reduced(rows, delta).map((c) => c.slice());
          const k = 1 + (pick % (B.length - 1));
          if (how === 1) {
            const t = B[k]!;
            B[k] = B[k - 1]!;
            B[k - 1] = t;
          } else B[k] = B[k]!.map((v, i) => v + 3n * B[k - 1]![i]!);
        }
        const exact = checkLLLExactBig(B, delta, 0.51).ok;
        for (const got of [intervalLLLProof(B, delta, 0.51), intervalLLLProofAt(B, delta, 0.51, P)]) {
          if (got === 'proven') assert.ok(exact, 'proven, but a condition fails');
          if (got === 'not-reduced') assert.ok(!exact, 'refuted, but every condition holds');
        }
        if (how === 2) assert.equal(exact, false);
      },
    ),
    { numRuns: 80 },
  );
});

const refs = availableReferences();

test('the ladder proves latticegen NTRU-like bases the float64 certificate cannot decide (n d 420 b, fresh seeds) by interval arithmetic, without the exact rung', {
  skip: refs.latticegen ? false : `reference tools missing: ${refs.missing.join('; ')}`,
}, async () => {
  let interval = 0;
  for (let t = 0; t < 4; t++) {
    const seed = randomInt(2 ** 30),
      d = 16 + randomInt(7),
      delta = t % 2 ? 0.99 : 0.75;
    const what = `latticegen -randseed ${seed} n ${d} 420 b at ${delta}`;
    const rows = parseFplll(await runLatticegen(['-randseed', String(seed), 'n', String(d), '420', 'b'])).bigValues!;
    const r = lllIntegral(rows, { delta });
    assert.ok(r.proof.lll && r.proof.transform && r.proof.unimodular, what);
    assert.ok(checkLLLExactBig(r.basis, delta, 0.51).ok, what);
    if (r.certificate?.by === 'interval') {
      interval++;
      assert.equal(r.proof.method, 'interval', what);
      assert.ok(!r.rungs.some((x) => x.rung === 'exact'), `${what}: the exact rung ran`);
    }
  }
  assert.ok(interval >= 1, 'the float64 certificate decided every case: the interval proof was not exercised');
});

test('interval proof at a coarse precision: delta and eta are bounded on the safe side (a Lovasz ratio between delta rounded down and delta is not proven)', () => {
  // r_2 / r_1 = 9945^2 / 10^8 = 0.98903...: below delta = 0.99, above 0.99 rounded down to 8 bits (253 / 256)
  const B: BigBasis = [
    [10000n, 0n],
    [0n, 9945n],
  ];
  assert.equal(checkLLLExactBig(B, 0.99, 0.51).ok, false);
  for (const P of [8, 9, 10, 12, 64]) assert.notEqual(intervalLLLProofAt(B, 0.99, 0.51, P), 'proven', `at ${P} bits`);
  assert.equal(intervalLLLProofAt(B, 0.99, 0.51, 64), 'not-reduced');
  // |mu| = 0.5097 <= eta = 0.51: never refuted, whatever the precision
  const C: BigBasis = [
    [10000n, 0n],
    [5097n, 20000n],
  ];
  assert.equal(checkLLLExactBig(C, 0.75, 0.51).ok, true);
  for (const P of [8, 9, 10, 12, 64])
    assert.notEqual(intervalLLLProofAt(C, 0.75, 0.51, P), 'not-reduced', `at ${P} bits`);
  assert.equal(intervalLLLProofAt(C, 0.75, 0.51, 64), 'proven');
});
