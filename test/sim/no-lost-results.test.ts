/**
 * No finished point is lost when a run stops by an error, and no budget stop is hidden: a run that
 * fails mid-way (a node budget under onBudget 'error', or anything thrown, such as an exception of
 * onProgress) rejects with a typed error naming the SNR point (index and dB), the detector, the
 * chunk and the vector, whose details.partial holds exactly the points finished before it; resuming
 * from them ends with the counts of an uninterrupted run. Under onBudget 'flag' every point counts
 * the vectors whose search stopped at the budget (`unproven`), the same for any number of threads,
 * and exactly the vectors whose own detection is unproven. The CLI writes the finished points, says
 * so, prints the error's line and exits 2; --resume continues.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { InternalError, LatticeMimoError, NodeBudgetError } from '../../src/core/errors.js';
import { detect } from '../../src/mimo/detect.js';
import { generateLinkChunk } from '../../src/sim/link.js';
import { resultToCsv } from '../../src/sim/output.js';
import { partialResult } from '../../src/sim/report.js';
import { simulate } from '../../src/sim/simulate.js';
import { formatPointRow, tableHeader } from '../../src/sim/table.js';
import type { SimPoint, SimulationOptions, SimulationResult } from '../../src/sim/types.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** The counts of a point (everything but its timing). */
function counts(p: SimPoint): Omit<SimPoint, 'timeMs'> {
  const { timeMs: _t, ...rest } = p;
  return rest;
}

/** The error simulate() rejected with (fails the test when it resolved). */
async function rejection(run: Promise<SimulationResult>): Promise<LatticeMimoError> {
  const got = await run.then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(got instanceof LatticeMimoError, `expected a typed rejection, got ${String(got)}`);
  return got;
}

/** Whether vector v of chunk `chunk` at SNR index i, detected alone, stops at the budget. */
function unprovenAlone(o: SimulationOptions, d: number, snrIndex: number, chunk: number, v: number, noiseVar: number) {
  const det = o.detectors[d]!;
  const link = generateLinkChunk({
    nt: o.nt,
    nr: o.nr,
    modulation: o.modulation,
    vectorsPerChannel: 1,
    seed: o.seed!,
    snrIndex,
    unitIndex: chunk,
    vectors: o.unitVectors!,
    noiseVar,
  });
  const n = 2 * o.nr * o.nt;
  const r = detect(
    {
      nt: o.nt,
      nr: o.nr,
      H: link.H.subarray(v * n, (v + 1) * n),
      y: link.y.subarray(v * 2 * o.nr, (v + 1) * 2 * o.nr),
      noiseVar,
    },
    { ...det, modulation: o.modulation, onBudget: 'flag' },
  );
  return r.unproven?.[0] === 1;
}

const config = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 }),
  nt: fc.integer({ min: 2, max: 3 }),
  modulation: fc.constantFrom('qpsk', '16qam') as fc.Arbitrary<SimulationOptions['modulation']>,
  slack: fc.integer({ min: 0, max: 8 }),
  // high SNRs first, so that some points usually finish before the budget is reached
  snrs: fc.tuple(fc.integer({ min: 30, max: 45 }), fc.integer({ min: 20, max: 30 }), fc.integer({ min: -6, max: 6 })),
  unitVectors: fc.integer({ min: 8, max: 64 }),
  threads: fc.constantFrom(1, 2),
});

test('a node budget mid-run: the typed error names point, detector, chunk and vector, carries the finished points, and resuming gives the uninterrupted counts', async () => {
  let stops = 0,
    kept = 0;
  await fc.assert(
    fc.asyncProperty(config, async (c) => {
      // a budget about the first descent's (2 nt real levels): reached at low SNR, rarely at high
      const budgeted = { detector: 'sphere' as const, maxNodes: 4 * c.nt + c.slack };
      const base: SimulationOptions = {
        nt: c.nt,
        nr: c.nt,
        modulation: c.modulation,
        detectors: [{ detector: 'zf' }, budgeted],
        snrs: [...c.snrs],
        maxErrors: 40,
        maxVectors: 256,
        unitVectors: c.unitVectors,
        seed: c.seed,
        threads: c.threads,
        // the CPU engine, whose search unprovenAlone repeats; the GPU's float32 kernels may stop at
        // other vectors (gpu-budget.test.ts compares the engines where their searches step alike)
        engine: 'cpu',
      };
      const flagged = await simulate({ ...base, detectors: [{ detector: 'zf' }, { ...budgeted, onBudget: 'flag' }] });
      const first = flagged.points.find((p) => p.algorithm === 'sphere' && p.unproven > 0);
      if (!first) {
        // no vector reached the budget: the run under 'error' is the same run
        const plain = await simulate(base);
        assert.deepEqual(plain.points.map(counts), flagged.points.map(counts));
        return;
      }
      const i = first.snrIndex;
      stops++;
      if (i > 0) kept++;
      const err = await rejection(simulate(base));
      assert.ok(err instanceof NodeBudgetError, `${err.name}: ${err.message}`);
      assert.equal(err.code, 'NODE_BUDGET');
      const { snrIndex, snr, detector, chunk, vector } = err.context;
      assert.deepEqual([snrIndex, snr, detector], [i, c.snrs[i], 'sphere'], err.message);
      assert.ok(Number.isInteger(chunk) && Number.isInteger(vector) && vector! < c.unitVectors, err.message);
      assert.equal(err.details?.maxNodes, budgeted.maxNodes);
      assert.equal(
        err.message.split(': the search')[0],
        `SNR point ${i} (${c.snrs[i]} dB), detector sphere, chunk ${chunk}, vector ${vector}`,
      );
      // the vector named is the first of its chunk, in order, whose own search stops at the budget
      const noiseVar = first.noiseVar;
      assert.ok(unprovenAlone(base, 1, i, chunk!, vector!, noiseVar), `vector ${vector} of chunk ${chunk}`);
      for (let v = 0; v < vector!; v++) assert.ok(!unprovenAlone(base, 1, i, chunk!, v, noiseVar), `vector ${v}`);
      // the finished points, as the flagged run has them (no vector of theirs reached the budget)
      const partial = partialResult(err);
      assert.ok(partial?.interrupted && partial.error?.code === 'NODE_BUDGET');
      assert.equal(partial.error.message, err.message);
      assert.deepEqual(partial.points.map(counts), flagged.points.filter((p) => p.snrIndex < i).map(counts));
      // resumed from them (the budget now flagged: the detector's label, hence its points, are the same)
      const resumed = await simulate({
        ...base,
        detectors: flagged.detectors,
        completedPoints: JSON.parse(JSON.stringify(partial.points)),
      });
      assert.deepEqual(resumed.points.map(counts), flagged.points.map(counts));
    }),
    { numRuns: 10 },
  );
  assert.ok(stops >= 5 && kept >= 5, `${stops} of 10 runs stopped at the budget, ${kept} with finished points`);
});

test('anything thrown mid-run (here by onProgress) is an InternalError at its SNR point, with the finished points', async () => {
  const seed = randomInt(2 ** 31),
    stopAt = 1 + randomInt(2);
  const opts: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'mmse' }],
    snrs: [0, 4, 8],
    maxErrors: 1e9,
    maxVectors: 64 * (2 + randomInt(3)),
    unitVectors: 64,
    seed,
    threads: 1,
  };
  const full = await simulate(opts);
  const thrown = new Error(`callback failed ${randomInt(1000)}`);
  const err = await rejection(
    simulate({
      ...opts,
      onProgress: (ev) => {
        if (ev.snrIndex === stopAt && ev.type === 'update') throw thrown;
      },
    }),
  );
  assert.ok(err instanceof InternalError, String(err));
  assert.equal(err.cause, thrown);
  assert.equal(err.context.snrIndex, stopAt);
  assert.ok(err.message.startsWith(`SNR point ${stopAt} (${opts.snrs[stopAt]} dB): `), err.message);
  assert.ok(err.message.endsWith(thrown.message));
  const partial = partialResult(err)!;
  assert.deepEqual(partial.points.map(counts), full.points.filter((p) => p.snrIndex < stopAt).map(counts));
  assert.equal(partial.error?.code, 'INTERNAL');
});

test("onBudget 'flag': each point counts exactly its vectors whose search stopped at the budget, whatever the threads; table and CSV show it", async () => {
  const nt = 2 + randomInt(2),
    unitVectors = 16 * (1 + randomInt(3)),
    seed = randomInt(2 ** 31);
  const opts: SimulationOptions = {
    nt,
    nr: nt,
    modulation: 'qpsk',
    detectors: [{ detector: 'sphere', maxNodes: 4 * nt + randomInt(6), onBudget: 'flag' }, { detector: 'zf' }],
    snrs: [-2 + randomInt(6)],
    maxErrors: 1e9,
    maxVectors: unitVectors * (1 + randomInt(3)),
    unitVectors,
    seed,
  };
  const one = await simulate({ ...opts, threads: 1 });
  const two = await simulate({ ...opts, threads: 2 });
  assert.deepEqual(two.points.map(counts), one.points.map(counts));
  const [sphere, zf] = one.points as [SimPoint, SimPoint];
  assert.equal(zf.unproven, 0);
  let expected = 0;
  for (let k = 0; k < sphere.vectors / unitVectors; k++)
    for (let v = 0; v < unitVectors; v++) if (unprovenAlone(opts, 0, 0, k, v, sphere.noiseVar)) expected++;
  assert.equal(sphere.unproven, expected, `seed ${seed}`);
  assert.ok(expected > 0, `seed ${seed}: no vector reached ${opts.detectors[0]!.maxNodes} nodes at ${opts.snrs[0]} dB`);
  const csv = resultToCsv(one).trim().split('\n');
  const col = csv[0]!.split(',').indexOf('unproven');
  assert.ok(col >= 0, csv[0]);
  assert.deepEqual(
    csv.slice(1).map((l) => Number(l.split(',')[col])),
    one.points.map((p) => p.unproven),
  );
  const head = tableHeader('esn0', undefined, true).split('\n');
  const names = head[head.length - 2]!.split('|').map((s) => s.trim());
  const cells = formatPointRow(sphere, undefined, true)
    .split('|')
    .map((s) => s.trim());
  assert.equal(cells[names.indexOf('unproven')], String(expected));
  assert.equal(cells.length, names.length);
});

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('simulate CLI: a NODE_BUDGET stop writes the finished points (JSON, CSV), says so, prints one error line, exits 2; --resume continues', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lm-lost-'));
  try {
    const seed = String(randomInt(1 << 30)),
      maxNodes = 10 + randomInt(4);
    const common = ['simulate', '--mimo', '2x2', '--mod', 'qpsk', '--detector', 'sphere,zf', '--snr', '40,35,-4'];
    const rest = ['--max-vectors', '128', '--unit-vectors', '32', '--threads', '1', '--seed', seed];
    const json = join(dir, 'run.json'),
      csv = join(dir, 'run.csv');
    const failed = cli([...common, ...rest, '--max-nodes', String(maxNodes), '--json', json, '--csv', csv]);
    assert.equal(failed.code, 2, failed.stderr);
    const lines = failed.stderr.split('\n').filter((l) => l.startsWith('lattice-mimo: error'));
    assert.equal(lines.length, 1, failed.stderr);
    assert.match(
      lines[0]!,
      /^lattice-mimo: error \[NODE_BUDGET\]: SNR point 2 \(-4 dB\), detector sphere, chunk \d+, vector \d+: the search reached the node budget/,
    );
    assert.match(
      failed.stderr,
      /simulate: stopped by an error with 2 of 3 SNR values finished; wrote .*run\.json, .*run\.csv; continue with: lattice-mimo simulate --resume /,
    );
    const doc = JSON.parse(await readFile(json, 'utf8')) as SimulationResult;
    assert.equal(doc.interrupted, true);
    assert.equal(doc.error?.code, 'NODE_BUDGET');
    assert.deepEqual([...new Set(doc.points.map((p) => p.snrIndex))], [0, 1]);
    assert.equal((await readFile(csv, 'utf8')).trim().split('\n').length, 1 + doc.points.length);
    // the budget flagged instead (same labels, so the finished points are kept): --resume continues
    const sphere = doc.detectors.find((d) => d.detector === 'sphere')!;
    sphere.onBudget = 'flag';
    await writeFile(json, JSON.stringify(doc));
    const resumed = cli(['simulate', '--resume', json]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const direct = join(dir, 'direct.json');
    const ok = cli([...common, ...rest, '--max-nodes', String(maxNodes), '--on-budget', 'flag', '--json', direct]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /\| +unproven \|/, 'the table has the unproven column');
    const want = (JSON.parse(await readFile(direct, 'utf8')) as SimulationResult).points.map(counts);
    const got = (JSON.parse(await readFile(json, 'utf8')) as SimulationResult).points.map(counts);
    assert.deepEqual(got, want);
    assert.ok(want.some((p) => p.algorithm === 'sphere' && p.unproven > 0));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
