/**
 * runPasses (precision/passes.ts), the order of a rung's passes: on random scripts of what each
 * pass does when run (settle after some steps, break down after some steps, or take every step it
 * is given), the passes run in the order the rule says, each bound is what it says, the last
 * breakdown or any other error comes out, and the steps never pass maxIterations.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError, LatticeMimoError } from '../../src/core/errors.js';
import { runPasses, type Pass } from '../../src/lattice/precision/passes.js';
import type { RungStats } from '../../src/lattice/precision/rung-stats.js';

/** What a pass does on one run: settle after `steps`, break down after `steps`, or run until its bound. */
type Act = { kind: 'settle' | 'break'; steps: number } | { kind: 'bound' };

const act = fc.oneof(
  fc.record({ kind: fc.constantFrom('settle' as const, 'break' as const), steps: fc.integer({ min: 0, max: 50 }) }),
  fc.constant({ kind: 'bound' as const }),
);

/** Passes that follow `script[i]` run by run (the last act repeats); records each run as [pass, limit]. */
function scripted(script: Act[][], stats: RungStats, runs: Array<[number, number]>): Pass[] {
  const next = script.map(() => 0);
  return script.map((acts, i) => ({
    name: `pass ${i}`,
    run(limit: number) {
      runs.push([i, limit]);
      const a = acts[Math.min(next[i]!++, acts.length - 1)]!;
      const fail = () => new LatticeMimoError('PRECISION_FAILURE', `pass ${i} broke down`);
      if (a.kind === 'bound') {
        stats.iterations = limit + 1;
        throw new LatticeMimoError('PRECISION_FAILURE', `more than ${limit} main-loop steps`);
      }
      // a pass never goes past its bound
      if (stats.iterations + a.steps > limit) {
        stats.iterations = limit + 1;
        throw new LatticeMimoError('PRECISION_FAILURE', `more than ${limit} main-loop steps`);
      }
      stats.iterations += a.steps;
      if (a.kind === 'break') throw fail();
    },
  }));
}

test('runPasses: the first pass alone where it settles; the next pass after each breakdown; a slower pass hands back to the first when its step bound (doubled each time) is spent; any pass may start', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(act, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 50, max: 2000 }),
      fc.nat(),
      (script, stepBack, maxIterations, from) => {
        const start = from % script.length;
        const stats: RungStats = { swaps: 0, sizeReductions: 0, iterations: 0 };
        const runs: Array<[number, number]> = [];
        let error: unknown = null;
        try {
          runPasses(scripted(script, stats, runs), stats, maxIterations, stepBack, start);
        } catch (e) {
          error = e;
        }
        // replay the rule on the recorded runs
        let i = start,
          budget = stepBack,
          iterations = 0;
        for (let r = 0; r < runs.length; r++) {
          const [pass, limit] = runs[r]!;
          assert.equal(pass, i, `run ${r}: pass ${pass}, the rule says ${i}`);
          assert.equal(
            limit,
            i === 0 ? maxIterations : Math.min(maxIterations, iterations + budget),
            `run ${r}: bound`,
          );
          // what that run did, from the scripts (each pass's acts in order)
          const nth = runs.slice(0, r).filter(([p]) => p === pass).length;
          const a = script[pass]![Math.min(nth, script[pass]!.length - 1)]!;
          const hitBound = a.kind === 'bound' || iterations + a.steps > limit;
          iterations = hitBound ? limit + 1 : iterations + a.steps;
          const last = r === runs.length - 1;
          if (!hitBound && a.kind === 'settle') {
            assert.ok(last && error === null, 'a settled pass ends the rung');
            continue;
          }
          if (i > 0 && hitBound && limit < maxIterations) {
            i = 0;
            budget *= 2;
            continue;
          }
          if (i === script.length - 1) {
            assert.ok(
              last && error instanceof LatticeMimoError && error.code === 'PRECISION_FAILURE',
              'the last breakdown comes out',
            );
            continue;
          }
          i++;
        }
        assert.ok(
          stats.iterations <= maxIterations + 1,
          `${stats.iterations} steps against the bound ${maxIterations}`,
        );
        assert.equal(stats.pass, `pass ${runs[runs.length - 1]![0]}`);
      },
    ),
    { numRuns: 400 },
  );
});

test('runPasses: a slower pass that needs more steps than its first bound finishes after the first pass breaks down again (the bound doubles)', () => {
  const stats: RungStats = { swaps: 0, sizeReductions: 0, iterations: 0 };
  const runs: Array<[number, number]> = [];
  // the first pass always breaks down at once; the second needs 25 steps
  let second = 25;
  const passes: Pass[] = [
    {
      name: 'fast',
      run: (limit) => {
        runs.push([0, limit]);
        throw new LatticeMimoError('PRECISION_FAILURE', 'Babai did not settle');
      },
    },
    {
      name: 'slow',
      run: (limit) => {
        runs.push([1, limit]);
        const room = limit - stats.iterations;
        if (second > room) {
          second -= room;
          stats.iterations = limit + 1;
          throw new LatticeMimoError('PRECISION_FAILURE', 'steps');
        }
        stats.iterations += second;
      },
    },
  ];
  runPasses(passes, stats, 10_000, 4);
  // bounds 4, 8, 16 steps beyond where the slow pass starts each time (it starts at 0, 5, 14: each spent bound leaves one step over)
  assert.deepEqual(
    runs.map(([p]) => p),
    [0, 1, 0, 1, 0, 1],
  );
  assert.deepEqual(
    runs.filter(([p]) => p === 1).map(([, limit], k) => limit - [0, 5, 14][k]!),
    [4, 8, 16],
  );
  assert.equal(stats.pass, 'slow');
});

test('runPasses: an error other than a breakdown comes out at once', () => {
  const stats: RungStats = { swaps: 0, sizeReductions: 0, iterations: 0 };
  let ran = 0;
  const passes: Pass[] = [
    {
      name: 'a',
      run: () => {
        ran++;
        throw new InvalidArgumentError('bad');
      },
    },
    {
      name: 'b',
      run: () => {
        ran++;
      },
    },
  ];
  assert.throws(() => runPasses(passes, stats, 100, 10), InvalidArgumentError);
  assert.equal(ran, 1);
  for (const start of [-1, 2, 0.5, NaN])
    assert.throws(() => runPasses(passes, stats, 100, 10, start), RangeError, `start ${start}`);
  assert.equal(ran, 1, 'no pass runs from a start that is not a pass');
});
