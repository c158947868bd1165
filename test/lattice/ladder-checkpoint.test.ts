/**
 * The ladder's checkpoints (lllIntegral's onCheckpoint): handed out while each rung reduces, each a
 * basis of the input lattice (every row an integral combination of the input rows, the same
 * volume), and the ladder started again from the last one ends LLL-reduced in the same lattice. A
 * ladder that fails on every rung hands out its basis as far as it got, with the same guarantees.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkLLLExactBig, determinantBig, type BigBasis } from '../../src/lattice/precision/exact.js';
import { LatticeMimoError } from '../../src/core/errors.js';
import { lllIntegral, type LadderProgress, type Rung, type RungOutcome } from '../../src/lattice/precision/ladder.js';
import { qAry } from './families.js';

/** Minor of square rows M without row r and column c. */
const minor = (M: BigBasis, r: number, c: number): BigBasis =>
  M.filter((_, i) => i !== r).map((row) => row.filter((_, j) => j !== c));

/**
 * Whether every row of C is an integral combination of the rows of the square, invertible B:
 * x = c B^-1 = c adj(B) / det B, integral.
 */
function inLattice(B: BigBasis, C: BigBasis): boolean {
  const m = B.length,
    det = determinantBig(B);
  // adj(B)[j][i] = (-1)^(i + j) det(minor(B, i, j))
  const adj = Array.from({ length: m }, (_, j) =>
    Array.from({ length: m }, (_, i) => ((i + j) % 2 ? -1n : 1n) * determinantBig(minor(B, i, j))),
  );
  return C.every((c) => adj[0]!.every((_, col) => c.reduce((s, v, t) => s + v * adj[t]![col]!, 0n) % det === 0n));
}

const abs = (x: bigint) => (x < 0n ? -x : x);

test('onCheckpoint: the basis as each rung holds it, a basis of the input lattice every time; the ladder started again from the last one ends LLL-reduced in it', () => {
  const sets: (readonly Rung[] | undefined)[] = [undefined, ['quad-double', 'exact'], ['exact']];
  let tooShort = 0;
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 10, max: 14 }), fc.integer({ min: 150, max: 250 }))
        .chain(([d, bits]) => qAry(d, d >> 1, bits)),
      fc.constantFrom(...sets),
      (rows, rungs) => {
        const seen: { basis: bigint[][]; p: LadderProgress }[] = [];
        const r = lllIntegral(rows, {
          delta: 0.99,
          ...(rungs ? { rungs } : {}),
          checkpointEveryMs: 0,
          onCheckpoint: (basis, p) => seen.push({ basis, p }),
        });
        if (seen.length === 0) {
          // a checkpoint comes with every 1024th main-loop step: none only where every rung took fewer
          assert.ok(
            r.rungs.every((x) => x.swaps < 1024),
            `no checkpoint: ${JSON.stringify(r.rungs)}`,
          );
          tooShort++;
          return;
        }
        const ran = new Set(r.rungs.map((x) => x.rung));
        const volume = abs(determinantBig(rows));
        // the first, a middle and the last checkpoint (each proof is m + 1 determinants per row)
        for (const { basis, p } of [seen[0]!, seen[seen.length >> 1]!, seen.at(-1)!]) {
          assert.ok(ran.has(p.stage as Rung), `checkpoint of stage ${p.stage}, rungs run: ${[...ran].join(', ')}`);
          assert.equal(basis.length, rows.length);
          assert.equal(abs(determinantBig(basis)), volume, 'same volume');
          assert.ok(inLattice(rows, basis), 'every row an integral combination of the input rows');
        }
        // the basis as it stands, not the one the rung started from
        assert.notDeepEqual(seen.at(-1)!.basis, rows, 'the last checkpoint carries the work done');
        const again = lllIntegral(seen.at(-1)!.basis, { delta: 0.99 });
        assert.ok(checkLLLExactBig(again.basis, 0.99, 0.51).ok);
        assert.ok(inLattice(rows, again.basis));
      },
    ),
    { numRuns: 9 },
  );
  assert.ok(tooShort <= 3, `${tooShort} of 9 bases too easy for a checkpoint: the test no longer exercises them`);
});

test('a ladder that fails on every rung keeps its work: details.partial.basis spans the input lattice, and the ladder goes on from it', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 8, max: 12 }), fc.integer({ min: 120, max: 200 }))
        .chain(([d, bits]) => qAry(d, d >> 1, bits)),
      fc.integer({ min: 15, max: 60 }),
      (rows, maxIterations) => {
        let err: unknown = null;
        try {
          lllIntegral(rows, { delta: 0.99, maxIterations });
        } catch (e) {
          err = e;
        }
        assert.ok(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE', String(err));
        const rungs = err.details?.rungs as RungOutcome[];
        assert.ok(rungs.length > 0 && rungs.every((x) => !x.ok && x.error !== undefined), JSON.stringify(rungs));
        const basis = (err.details?.partial as { basis: bigint[][] } | undefined)?.basis;
        assert.ok(basis, 'the basis as far as the ladder got');
        assert.equal(basis.length, rows.length);
        assert.equal(abs(determinantBig(basis)), abs(determinantBig(rows)), 'same volume');
        assert.ok(inLattice(rows, basis), 'every row an integral combination of the input rows');
        assert.notDeepEqual(basis, rows, 'the work done is kept');
        const again = lllIntegral(basis, { delta: 0.99 });
        assert.ok(checkLLLExactBig(again.basis, 0.99, 0.51).ok);
        assert.ok(inLattice(rows, again.basis));
      },
    ),
    { numRuns: 6 },
  );
});

test('checkpointEveryMs and onCheckpoint: typed errors for bad values; no checkpoint on a run shorter than the interval', () => {
  const rows = [
    [5n, 3n],
    [2n, 7n],
  ];
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as { code?: string }).code;
    }
    return 'none';
  };
  assert.equal(
    code(() => lllIntegral(rows, { checkpointEveryMs: -1, onCheckpoint: () => {} })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => lllIntegral(rows, { onCheckpoint: 'file' as unknown as () => void })),
    'INVALID_ARGUMENT',
  );
  let calls = 0;
  lllIntegral(rows, {
    onCheckpoint: () => {
      calls++;
    },
  });
  assert.equal(calls, 0, 'the default interval is ten minutes');
});
