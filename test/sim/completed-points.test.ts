/**
 * simulate()'s `completedPoints` are checked through the API as `simulate --resume` checks a file:
 * the points of a real short run, one field broken in one point (a fresh random choice of point
 * for every way of breaking every field), are refused before any work with INVALID_INPUT naming
 * the point and the field; the points as written resume to the uninterrupted run's result.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { simulate } from '../../src/sim/simulate.js';
import type { SimPoint, SimulationOptions, SimulationResult } from '../../src/sim/types.js';

type Point = Record<string, unknown>;

/** 2x2 QPSK, two detectors; snrType, chunkVectors and the rest left to simulate()'s defaults. */
const OPTS: SimulationOptions = {
  nt: 2,
  nr: 2,
  modulation: 'qpsk',
  detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
  snrs: [0, 8, 30],
  maxErrors: 60,
  maxVectors: 256,
  vectorsPerChannel: 2,
  seed: 5,
  threads: 1,
  engine: 'cpu',
};

/** One way of breaking one field of point i (the error must name `field`, at point `at` if given). */
interface Break {
  field: string;
  what: string;
  apply: (points: Point[], i: number, run: SimulationResult) => void;
  at?: (points: Point[], i: number) => number;
}

const set =
  (field: string, value: (p: Point, run: SimulationResult) => unknown) =>
  (points: Point[], i: number, run: SimulationResult) =>
    void (points[i]![field] = value(points[i]!, run));

/** Every field of a point made of the wrong kind: negative, fractional, a string, null, missing. */
function kinds(field: string, numeric: 'count' | 'number' | 'other'): Break[] {
  const out: Break[] = [
    { field, what: 'a string', apply: set(field, (p) => `x${String(p[field])}`) },
    { field, what: 'null', apply: set(field, () => null) },
    { field, what: 'an object', apply: set(field, () => ({})) },
  ];
  if (field !== 'unproven') out.push({ field, what: 'missing', apply: (pts, i) => void delete pts[i]![field] });
  if (numeric !== 'other') out.push({ field, what: 'negative', apply: set(field, () => -1) });
  if (numeric === 'count')
    out.push({ field, what: 'fractional', apply: set(field, (p) => (p[field] as number) + 0.5) });
  return out;
}

const COUNTS = ['bitErrors', 'symbolErrors', 'frameErrors', 'bits', 'symbols', 'frames', 'vectors', 'unproven'];
const NUMBERS = ['ber', 'ser', 'fer', 'esn0Db', 'ebn0Db', 'noiseVar', 'timeMs', 'snr'];

const BREAKS: Break[] = [
  ...COUNTS.flatMap((f) => kinds(f, 'count')),
  ...NUMBERS.flatMap((f) => kinds(f, 'number')),
  ...['detector', 'algorithm', 'snrType', 'stoppedBy'].flatMap((f) => kinds(f, 'other')),
  ...kinds('snrIndex', 'count'),
  { field: 'snrIndex', what: 'past the list', apply: set('snrIndex', () => OPTS.snrs.length) },
  { field: 'detector', what: 'not in the run', apply: set('detector', () => 'mmse #2') },
  {
    field: 'algorithm',
    what: "the other detector's",
    apply: set('algorithm', (p) => (p.algorithm === 'zf' ? 'mmse' : 'zf')),
  },
  { field: 'snr', what: 'not the list', apply: set('snr', (p) => (p.snr as number) + 0.5) },
  { field: 'snrType', what: 'not the default', apply: set('snrType', () => 'ebn0') },
  { field: 'bitErrors', what: 'more than the bits', apply: set('bitErrors', (p) => (p.bits as number) + 1) },
  {
    field: 'symbolErrors',
    what: 'more than the symbols',
    apply: set('symbolErrors', (p) => (p.symbols as number) + 1),
  },
  { field: 'frameErrors', what: 'more than the frames', apply: set('frameErrors', (p) => (p.frames as number) + 1) },
  { field: 'bits', what: 'not the vectors', apply: set('bits', (p) => (p.bits as number) + 1) },
  { field: 'symbols', what: 'not the vectors', apply: set('symbols', (p) => (p.symbols as number) + 2) },
  { field: 'frames', what: 'not the vectors', apply: set('frames', (p) => (p.frames as number) + 1) },
  { field: 'vectors', what: 'not whole channel groups', apply: set('vectors', (p) => (p.vectors as number) + 1) },
  { field: 'vectors', what: 'past the limit', apply: set('vectors', (_p, r) => r.maxVectors + 2) },
  { field: 'unproven', what: 'more than the vectors', apply: set('unproven', (p) => (p.vectors as number) + 1) },
  { field: 'ber', what: 'not the counts', apply: set('ber', (p) => (p.ber as number) + 0.01) },
  { field: 'ser', what: 'not the counts', apply: set('ser', (p) => (p.ser as number) * 2 + 0.01) },
  { field: 'fer', what: 'not the counts', apply: set('fer', (p) => (p.fer as number) + 0.01) },
  { field: 'esn0Db', what: 'not the SNR', apply: set('esn0Db', (p) => (p.esn0Db as number) + 1) },
  { field: 'ebn0Db', what: 'not the SNR', apply: set('ebn0Db', (p) => (p.ebn0Db as number) - 1) },
  { field: 'noiseVar', what: 'not the SNR', apply: set('noiseVar', (p) => (p.noiseVar as number) * 2) },
  { field: 'stoppedBy', what: 'of no kind', apply: set('stoppedBy', () => 'luck') },
  { field: 'stoppedBy', what: "'time' without maxTimeSeconds", apply: set('stoppedBy', () => 'time') },
  {
    field: 'stoppedBy',
    what: 'the other reason',
    apply: set('stoppedBy', (p) => (p.stoppedBy === 'errors' ? 'vectors' : 'errors')),
  },
  { field: 'code', what: 'a code in an uncoded run', apply: set('code', () => 'wimax:576') },
  { field: 'meanIterations', what: 'iterations in an uncoded run', apply: set('meanIterations', () => 3) },
  { field: 'the point', what: 'not an object', apply: (pts, i) => void (pts[i] = [1, 2] as never) },
  { field: 'the point', what: 'null', apply: (pts, i) => void (pts[i] = null as never) },
  {
    field: 'the point',
    what: 'twice',
    apply: (pts, i) => void pts.push({ ...pts[i]! }),
    at: (pts) => pts.length - 1,
  },
];

/** A point as its counts (timeMs is the machine's). */
function counts(p: SimPoint): Omit<SimPoint, 'timeMs'> {
  const { timeMs: _t, ...rest } = p;
  return rest;
}

/** The result without what depends on the machine. */
function settled(r: SimulationResult): unknown {
  const { wallMs: _w, points, ...rest } = r;
  return { ...rest, points: points.map(counts) };
}

let fullRun: Promise<SimulationResult> | undefined;
const full = (): Promise<SimulationResult> => (fullRun ??= simulate(OPTS));

test('the run stops by errors and by vectors: the stop reasons are both tried', async () => {
  const r = await full();
  const reasons = new Set(r.points.map((p) => p.stoppedBy));
  assert.deepEqual([...reasons].sort(), ['errors', 'vectors']);
  assert.ok(r.points.every((p) => p.unproven === 0));
});

test('every field broken in a random point is refused by simulate() before any work, INVALID_INPUT naming the point and the field', async () => {
  const run = await full();
  const written = JSON.parse(JSON.stringify(run.points)) as Point[];
  const named = new Set<string>();
  for (const b of BREAKS) {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: written.length - 1 }), async (i) => {
        const points = structuredClone(written);
        b.apply(points, i, run);
        let events = 0;
        let caught: (Error & { code?: string; details?: Record<string, unknown> }) | undefined;
        try {
          await simulate({ ...OPTS, completedPoints: points as never, onProgress: () => events++ });
        } catch (e) {
          caught = e as typeof caught;
        }
        const what = `${b.field} ${b.what} at point ${i}`;
        assert.ok(caught, `${what}: accepted`);
        assert.equal(caught.code, 'INVALID_INPUT', `${what}: ${caught.message}`);
        const at = b.at ? b.at(points, i) : i;
        assert.deepEqual(caught.details, { point: at, field: b.field }, `${what}: ${caught.message}`);
        assert.ok(caught.message.startsWith(`completedPoints[${at}]`), caught.message);
        assert.ok(caught.message.includes(`: ${b.field} `), caught.message);
        assert.equal(events, 0, `${what}: work was done before the points were refused`);
        named.add(b.field);
      }),
      { numRuns: 4 },
    );
  }
  const fields = new Set(Object.keys(written[0]!));
  for (const f of fields) assert.ok(named.has(f), `no break of ${f}`);
});

test('an SNR value whose points lack a detector is refused, naming it and the missing detector', async () => {
  const run = await full();
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: run.points.length - 1 }), async (i) => {
      const points = run.points.filter((_, j) => j !== i);
      const gone = run.points[i]!;
      await assert.rejects(
        simulate({ ...OPTS, completedPoints: points }),
        (err: Error & { code?: string; details?: Record<string, unknown> }) => {
          assert.equal(err.code, 'INVALID_INPUT', err.message);
          assert.deepEqual(err.details, { snrIndex: gone.snrIndex, missing: [gone.detector] }, err.message);
          assert.match(
            err.message,
            new RegExp(`^completedPoints: the points of SNR index ${gone.snrIndex} .* lack '${gone.detector}'`),
          );
          return true;
        },
      );
    }),
    { numRuns: 6 },
  );
});

test('the points as written resume to the uninterrupted run, whatever SNR values are done; points without unproven (older runs) count 0', async () => {
  const run = await full();
  for (let done = 0; done <= OPTS.snrs.length; done++) {
    const points = JSON.parse(JSON.stringify(run.points.filter((p) => p.snrIndex < done))) as SimPoint[];
    const resumed = await simulate({ ...OPTS, completedPoints: points });
    assert.deepEqual(settled(resumed), settled(run), `${done} SNR values done`);
    // the finished points are taken as they are, not recomputed
    for (const [j, p] of points.entries()) assert.equal(resumed.points[j]!.timeMs, p.timeMs);
    const older = points.map(({ unproven: _u, ...p }) => p) as SimPoint[];
    const fromOlder = await simulate({ ...OPTS, completedPoints: older });
    assert.deepEqual(settled(fromOlder), settled(run), `${done} SNR values done, without unproven`);
  }
});
