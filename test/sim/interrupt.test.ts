/**
 * No result is lost: a simulation stopped by its signal keeps every finished point, resuming from
 * those points ends with the counts of an uninterrupted run of the same seed (API and CLI, the
 * CLI killed by a real SIGINT / SIGTERM); a per-point time limit stops a point with its counts,
 * flagged; progress events come at least once a second inside a long point.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { resultToCsv } from '../../src/sim/output.js';
import { simulate } from '../../src/sim/simulate.js';
import { formatPointRow } from '../../src/sim/table.js';
import type { SimDetector, SimPoint, SimulationOptions } from '../../src/sim/types.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** The counts of a point (everything but its timing). */
function counts(p: SimPoint): Omit<SimPoint, 'timeMs'> {
  const { timeMs: _t, ...rest } = p;
  return rest;
}

const config = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 }),
  nt: fc.integer({ min: 1, max: 3 }),
  extra: fc.integer({ min: 0, max: 1 }),
  modulation: fc.constantFrom('bpsk', 'qpsk', '16qam') as fc.Arbitrary<SimulationOptions['modulation']>,
  detectors: fc.subarray<SimDetector>([{ detector: 'zf' }, { detector: 'mmse' }, { detector: 'sic' }], {
    minLength: 1,
  }),
  snrs: fc.array(fc.integer({ min: -5, max: 20 }), { minLength: 2, maxLength: 4 }),
  maxErrors: fc.integer({ min: 5, max: 200 }),
  unitVectors: fc.integer({ min: 8, max: 128 }),
});

test('an aborted run keeps exactly its finished points; resuming from them gives the uninterrupted counts', async () => {
  await fc.assert(
    fc.asyncProperty(config, fc.nat(), async (c, stopPick) => {
      const opts: SimulationOptions = {
        nt: c.nt,
        nr: c.nt + c.extra,
        modulation: c.modulation,
        detectors: c.detectors,
        snrs: c.snrs,
        maxErrors: c.maxErrors,
        maxVectors: 2000,
        unitVectors: c.unitVectors,
        seed: c.seed,
        threads: 1,
      };
      const full = await simulate(opts);
      assert.equal(full.interrupted, false);
      // abort while point `stopAt` runs (after its first merged chunk), or right after point stopAt - 1 ends
      const stopAt = 1 + (stopPick % (c.snrs.length - 1));
      const midPoint = stopPick % 2 === 0;
      const controller = new AbortController();
      const partial = await simulate({
        ...opts,
        signal: controller.signal,
        onProgress: (ev) => {
          if (
            midPoint
              ? ev.snrIndex === stopAt && ev.type === 'update'
              : ev.snrIndex === stopAt - 1 && ev.type === 'point'
          )
            controller.abort();
        },
      });
      // the points before stopAt; point stopAt too when the abort came in its last chunk (it finished)
      const kept = new Set(partial.points.map((p) => p.snrIndex)).size;
      assert.ok(kept === stopAt || (midPoint && kept === stopAt + 1), `kept ${kept} SNR points, stopped at ${stopAt}`);
      assert.deepEqual(partial.points.map(counts), full.points.filter((p) => p.snrIndex < kept).map(counts));
      assert.equal(partial.interrupted, kept < c.snrs.length, 'interrupted unless every point finished');
      const resumed = await simulate({ ...opts, completedPoints: JSON.parse(JSON.stringify(partial.points)) });
      assert.equal(resumed.interrupted, false);
      assert.deepEqual(resumed.points.map(counts), full.points.map(counts));
    }),
    { numRuns: 12 },
  );
});

test('completed points of another run are refused', async () => {
  const opts: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }],
    snrs: [0, 5],
    maxVectors: 64,
    threads: 1,
  };
  const r = await simulate(opts);
  await assert.rejects(simulate({ ...opts, snrs: [1, 5], completedPoints: r.points }), {
    code: 'INVALID_INPUT',
    message: /^completedPoints\[0\] \(zf at SNR index 0\): snr 0 is not the run's snrs\[0\] = 1/,
  });
  await assert.rejects(simulate({ ...opts, maxTimeSeconds: 0 }), {
    code: 'INVALID_ARGUMENT',
    message: /maxTimeSeconds/,
  });
});

test('--max-time stops a long point with its counts, flagged; progress comes at least once a second', async () => {
  for (const threads of [1, 2]) {
    const maxTimeSeconds = 1.2 + Math.random() * 0.5;
    const times: number[] = [];
    const t0 = performance.now();
    // ml over 3x3 16-QAM (4096 candidates a vector) at 10^6 vectors on the CPU engine: hours, unless stopped
    const r = await simulate({
      nt: 3,
      nr: 3,
      modulation: '16qam',
      detectors: [{ detector: 'ml' }, { detector: 'zf' }],
      snrs: [30, 31],
      maxErrors: 1e9,
      maxVectors: 1e6,
      unitVectors: 256,
      seed: randomInt(1000),
      threads,
      maxTimeSeconds,
      engine: 'cpu',
      onProgress: (ev) => {
        if (ev.snrIndex === 0) times.push(performance.now());
      },
    });
    const wall = performance.now() - t0;
    assert.ok(wall < 2 * (maxTimeSeconds * 1000) + 3000, `two points of ${maxTimeSeconds} s took ${wall} ms`);
    for (const p of r.points) {
      assert.equal(p.stoppedBy, 'time', `${p.detector} at ${p.snr} dB`);
      assert.ok(p.vectors < 1e6 && p.bits === p.vectors * 3 * 4 && p.bitErrors <= p.bits);
      assert.match(formatPointRow(p), /\(time limit\)$/);
    }
    assert.equal(r.maxTimeSeconds, maxTimeSeconds);
    assert.ok(
      resultToCsv(r)
        .split('\n')
        .slice(1, -1)
        .every((line) => line.endsWith(',time')),
      'CSV flags the time stop',
    );
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    assert.ok(
      times.length >= 2 && Math.max(...gaps) <= 1000,
      `threads ${threads}: progress gaps ${gaps.map((g) => g.toFixed(0)).join(', ')} ms`,
    );
  }
});

interface Child {
  code: number | null;
  stderr: string;
}

/** Runs simulate in a child process; `onStderr` sees each stderr chunk and may signal the child. */
function simulateChild(
  args: string[],
  onStderr: (text: string, kill: (sig: NodeJS.Signals) => void) => void = () => {},
): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'simulate', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      onStderr(stderr, (sig) => child.kill(sig));
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('simulate killed by a signal writes the finished points and says so; --resume ends with the uninterrupted counts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sim-int-'));
  const seed = randomInt(2 ** 31);
  const signal: NodeJS.Signals = randomInt(2) === 0 ? 'SIGINT' : 'SIGTERM';
  const msg = (s: string) => `${s} (seed ${seed}, ${signal})`;
  try {
    const json = join(dir, 'r.json'),
      csv = join(dir, 'r.csv'),
      plot = join(dir, 'r.svg');
    const snrs = [0, 2, 4, 6, 8, 10, 12, 14, 16, 18];
    const run = [
      '--mimo',
      '4x4',
      '--mod',
      '16qam',
      '--detector',
      'zf,mmse',
      '--snr',
      snrs.join(','),
      '--max-errors',
      '1000000',
      '--max-vectors',
      '20000',
      '--unit-vectors',
      '512',
      '--seed',
      String(seed),
      '--threads',
      '2',
    ];
    let sent = false;
    const first = await simulateChild([...run, '--json', json, '--csv', csv, '--plot', plot], (text, kill) => {
      // a point's rows are printed when it ends (stderr is not a terminal here)
      if (!sent && /^\s+0\.0 \| mmse/m.test(text)) {
        sent = true;
        kill(signal);
      }
    });
    assert.ok(sent, msg(`no point finished: ${first.stderr}`));
    assert.equal(first.code, signal === 'SIGINT' ? 130 : 143, msg(first.stderr));
    assert.match(
      first.stderr,
      new RegExp(
        `interrupted by ${signal} with \\d+ of ${snrs.length} SNR values finished; wrote .*r\\.json.*--resume`,
      ),
      msg('says so'),
    );
    const saved = JSON.parse(await readFile(json, 'utf8'));
    assert.equal(saved.interrupted, true);
    const finished = saved.points.length / 2;
    assert.ok(
      finished >= 1 && finished < snrs.length && Number.isInteger(finished),
      msg(`${saved.points.length} points saved`),
    );
    assert.equal((await readFile(csv, 'utf8')).trim().split('\n').length, 1 + saved.points.length, 'CSV rows');
    assert.match(await readFile(plot, 'utf8'), /<svg/);

    const resumed = await simulateChild(['--resume', json, '--threads', '1']);
    assert.equal(resumed.code, 0, msg(resumed.stderr));
    const final = JSON.parse(await readFile(json, 'utf8'));
    assert.equal(final.interrupted, false);
    const lib = await simulate({
      nt: 4,
      nr: 4,
      modulation: '16qam',
      detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
      snrs,
      maxErrors: 1_000_000,
      maxVectors: 20000,
      unitVectors: 512,
      seed,
      threads: 2,
    });
    assert.deepEqual(final.points.map(counts), lib.points.map(counts), msg('resumed = uninterrupted'));
    // the first run's points are kept as they were
    assert.deepEqual(final.points.slice(0, saved.points.length), saved.points);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
