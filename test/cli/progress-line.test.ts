/**
 * The progress line of long single computations (src/cli/progress-line.ts): on a terminal nothing
 * before the delay, then the line redrawn in place and cleared at the end; elsewhere nothing unless
 * verbose, then a plain line at each new stage and at most one per interval within a stage.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ProgressLine } from '../../src/cli/progress-line.js';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return {
    writes,
    stream: {
      isTTY,
      write: (s: string) => {
        writes.push(s);
        return true;
      },
    } as unknown as NodeJS.WritableStream & { isTTY?: boolean },
  };
}

/** Updates at increasing times, each with a stage (0 .. 2) and a text naming its time. */
const updates = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 40 })
  .map((steps) => {
    let t = 0;
    return steps.map(([dt, stage]) => {
      t += dt;
      return { t, stage: `s${stage}`, text: `at ${t}` };
    });
  });

test('terminal: nothing before the delay (unless verbose), then each update redrawn in place; done clears it', () => {
  fc.assert(
    fc.property(updates, fc.boolean(), (ups, verbose) => {
      const { writes, stream } = sink(true);
      const line = new ProgressLine(stream, { verbose, delayMs: 2000 });
      for (const u of ups) line.update(u.stage, u.text, u.t);
      const shown = ups.filter((u) => verbose || u.t >= 2000);
      assert.deepEqual(
        writes,
        shown.map((u) => `\r\x1b[2K${u.text}`),
      );
      line.done();
      if (shown.length > 0) assert.equal(writes.at(-1), '\r\x1b[2K');
      else assert.equal(writes.length, 0);
      assert.ok(
        writes.every((w) => !w.includes('\n')),
        'a terminal line never scrolls',
      );
    }),
  );
});

test('not a terminal: silent unless verbose; verbose gives a line at each stage change and at most one per interval within a stage', () => {
  fc.assert(
    fc.property(updates, fc.boolean(), (ups, verbose) => {
      const { writes, stream } = sink(false);
      const line = new ProgressLine(stream, { verbose, everyMs: 10_000 });
      const expected: string[] = [];
      let stage: string | null = null,
        last = -Infinity;
      for (const u of ups) {
        line.update(u.stage, u.text, u.t);
        if (verbose && (u.stage !== stage || u.t - last >= 10_000)) {
          expected.push(`${u.text}\n`);
          stage = u.stage;
          last = u.t;
        }
      }
      line.done();
      assert.deepEqual(writes, expected);
    }),
  );
});
