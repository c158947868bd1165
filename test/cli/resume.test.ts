/**
 * `simulate --resume FILE` trusts no count it has not checked (issue 28, "resume files' counts are
 * not validated"): the JSON of every real run (fresh random settings: detectors with parameters and
 * duplicates, channel reuse, Eb/N0, AWGN, time limits, coded links) is taken as it is, and one
 * field broken in one point (negative, fractional, non-numeric, more errors than bits, vectors that
 * do not match, an SNR not in the run, a point twice, a detector not in the run, rates or SNR
 * conversions not the counts', a stop reason the counts do not have, an SNR value's points
 * incomplete) is an INVALID_INPUT naming the file, the point and the field. On the command line the
 * file stays as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { resumeOptions } from '../../src/cli/resume.js';
import { resultToJson } from '../../src/sim/output.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimDetector, SimulationOptions } from '../../src/sim/types.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

type Doc = { points: Record<string, unknown>[]; [k: string]: unknown };

/** A break of one point: what it does, and the field the error must name (null: no point field). */
interface Break {
  what: string;
  field: string | null;
  /** The point index the error names (default: the point broken). */
  at?: (doc: Doc, i: number) => number;
  apply: (doc: Doc, i: number) => void;
}

const COUNTS = ['bitErrors', 'symbolErrors', 'frameErrors', 'bits', 'symbols', 'frames', 'vectors'] as const;

const BREAKS: Break[] = [
  ...COUNTS.flatMap((f): Break[] => [
    { what: `${f} negative`, field: f, apply: (d, i) => void (d.points[i]![f] = -1) },
    { what: `${f} fractional`, field: f, apply: (d, i) => void (d.points[i]![f] = (d.points[i]![f] as number) + 0.5) },
    { what: `${f} a string`, field: f, apply: (d, i) => void (d.points[i]![f] = String(d.points[i]![f])) },
    { what: `${f} missing`, field: f, apply: (d, i) => void delete d.points[i]![f] },
  ]),
  {
    what: 'more bit errors than bits',
    field: 'bitErrors',
    apply: (d, i) => void (d.points[i]!.bitErrors = (d.points[i]!.bits as number) + 1),
  },
  {
    what: 'more frame errors than frames',
    field: 'frameErrors',
    apply: (d, i) => void (d.points[i]!.frameErrors = (d.points[i]!.frames as number) + 1),
  },
  {
    what: 'more symbol errors than symbols',
    field: 'symbolErrors',
    apply: (d, i) => void (d.points[i]!.symbolErrors = (d.points[i]!.symbols as number) + 1),
  },
  {
    what: 'bits that do not match the vectors',
    field: 'bits',
    apply: (d, i) => void (d.points[i]!.bits = (d.points[i]!.bits as number) + 1),
  },
  {
    what: 'symbols that do not match the vectors',
    field: 'symbols',
    apply: (d, i) => void (d.points[i]!.symbols = (d.points[i]!.symbols as number) * 2 + 1),
  },
  {
    what: 'an SNR index past the list',
    field: 'snrIndex',
    apply: (d, i) => void (d.points[i]!.snrIndex = (d.snrs as number[]).length),
  },
  { what: 'a negative SNR index', field: 'snrIndex', apply: (d, i) => void (d.points[i]!.snrIndex = -1) },
  {
    what: 'an SNR not the list',
    field: 'snr',
    apply: (d, i) => void (d.points[i]!.snr = (d.points[i]!.snr as number) + 0.5),
  },
  {
    what: 'another SNR type',
    field: 'snrType',
    apply: (d, i) => void (d.points[i]!.snrType = d.snrType === 'esn0' ? 'ebn0' : 'esn0'),
  },
  { what: 'a detector not in the run', field: 'detector', apply: (d, i) => void (d.points[i]!.detector = 'lr-sic #9') },
  { what: 'another algorithm', field: 'algorithm', apply: (d, i) => void (d.points[i]!.algorithm = 'ml') },
  {
    what: 'a point twice',
    field: 'the point',
    at: (d) => d.points.length - 1,
    apply: (d, i) => void d.points.push({ ...d.points[i]! }),
  },
  {
    what: 'a BER not the counts',
    field: 'ber',
    apply: (d, i) => void (d.points[i]!.ber = (d.points[i]!.ber as number) + 0.01),
  },
  { what: 'a FER not the counts', field: 'fer', apply: (d, i) => void (d.points[i]!.fer = -0.5) },
  {
    what: 'N0 not the SNR',
    field: 'noiseVar',
    apply: (d, i) => void (d.points[i]!.noiseVar = (d.points[i]!.noiseVar as number) * 2),
  },
  {
    what: 'Eb/N0 not the SNR',
    field: 'ebn0Db',
    apply: (d, i) => void (d.points[i]!.ebn0Db = (d.points[i]!.ebn0Db as number) + 1),
  },
  { what: 'a stop reason of no kind', field: 'stoppedBy', apply: (d, i) => void (d.points[i]!.stoppedBy = 'luck') },
  { what: 'unproven negative', field: 'unproven', apply: (d, i) => void (d.points[i]!.unproven = -1) },
  {
    what: 'more unproven vectors than vectors',
    field: 'unproven',
    apply: (d, i) => void (d.points[i]!.unproven = (d.points[i]!.vectors as number) + 1),
  },
  { what: 'a negative time', field: 'timeMs', apply: (d, i) => void (d.points[i]!.timeMs = -1) },
  { what: 'a point that is not an object', field: 'the point', apply: (d, i) => void (d.points[i] = [1, 2] as never) },
  {
    what: 'an SNR value missing a detector',
    field: null,
    apply: (d, i) => void d.points.splice(i, 1),
  },
];

/** Uncoded runs of fresh random settings (small: they run in this thread). */
const uncoded = fc.record({
  nt: fc.integer({ min: 1, max: 3 }),
  extra: fc.integer({ min: 0, max: 1 }),
  modulation: fc.constantFrom('bpsk', 'qpsk', '16qam') as fc.Arbitrary<SimulationOptions['modulation']>,
  detectors: fc.array(
    fc.constantFrom<SimDetector>(
      { detector: 'zf' },
      { detector: 'mmse' },
      { detector: 'kbest', k: 2 },
      { detector: 'sphere' },
    ),
    { minLength: 1, maxLength: 3 },
  ),
  snrs: fc.array(fc.integer({ min: -2, max: 16 }), { minLength: 1, maxLength: 3 }),
  snrType: fc.constantFrom('esn0', 'ebn0') as fc.Arbitrary<'esn0' | 'ebn0'>,
  vpc: fc.integer({ min: 1, max: 4 }),
  chunks: fc.integer({ min: 1, max: 4 }),
  maxErrors: fc.integer({ min: 1, max: 60 }),
  maxVectors: fc.integer({ min: 1, max: 300 }),
  awgn: fc.boolean(),
  timed: fc.boolean(),
  seed: fc.nat(),
});

type Config = typeof uncoded extends fc.Arbitrary<infer T> ? T : never;

function pick(c: Config): SimulationOptions {
  return {
    nt: c.nt,
    nr: c.nt + c.extra,
    modulation: c.modulation,
    detectors: c.detectors,
    snrs: c.snrs,
    snrType: c.snrType,
    vectorsPerChannel: c.vpc,
    unitVectors: c.vpc * c.chunks * 8,
    maxErrors: c.maxErrors,
    maxVectors: c.maxVectors,
    seed: c.seed,
    threads: 1,
    engine: 'cpu',
    ...(c.awgn ? { channel: 'awgn' as const } : {}),
    ...(c.timed ? { maxTimeSeconds: 3600 } : {}),
  };
}

/** The run's JSON must come back as it is; each break must be named. */
function checkRun(json: string, breakPick: number, pointPick: number): void {
  const opts = resumeOptions(json, 'run.json');
  const doc = JSON.parse(json) as Doc;
  assert.deepEqual(opts.completedPoints, doc.points);
  const b = BREAKS[breakPick % BREAKS.length]!;
  const i = pointPick % doc.points.length;
  const broken = structuredClone(doc);
  b.apply(broken, i);
  // removing a point of a one-detector run removes its whole SNR value: nothing left to mismatch
  if (b.field === null && (doc.detectors as unknown[]).length === 1) return;
  let caught: (Error & { code?: string; details?: Record<string, unknown> }) | undefined;
  try {
    resumeOptions(JSON.stringify(broken), 'run.json');
  } catch (e) {
    caught = e as typeof caught;
  }
  assert.ok(caught, `${b.what}: accepted`);
  assert.equal(caught.code, 'INVALID_INPUT', `${b.what}: ${caught.message}`);
  assert.ok(caught.message.startsWith('run.json: '), caught.message);
  if (b.field === null) {
    assert.ok(typeof caught.details?.snrIndex === 'number', caught.message);
    return;
  }
  assert.equal(caught.details?.field, b.field, `${b.what}: ${caught.message}`);
  assert.equal(caught.details?.point, b.at ? b.at(broken, i) : i, `${b.what}: ${caught.message}`);
  assert.ok(caught.message.startsWith(`run.json: completedPoints[${caught.details?.point}]`), caught.message);
}

test('every uncoded run resumes as written; one field broken in one point is INVALID_INPUT naming the point and the field', async () => {
  await fc.assert(
    fc.asyncProperty(uncoded, fc.nat(), fc.nat(), async (c, breakPick, pointPick) => {
      const opts = pick(c);
      if (opts.channel === 'awgn' && opts.nr < opts.nt) return;
      const result = await simulate(opts);
      checkRun(resultToJson(result), breakPick, pointPick);
    }),
    { numRuns: 60 },
  );
});

test('coded runs resume as written; a point of another code, or past the decoder iterations, is refused', async () => {
  for (const code of ['wimax:576', 'nr:bg2:40:1/2']) {
    const result = await simulate({
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      detectors: [{ detector: 'kbest', k: 4 }, { detector: 'nway' }],
      snrs: [4, 8],
      code,
      decoder: { algorithm: 'nms', maxIterations: 5 },
      maxErrors: 3,
      maxVectors: 400,
      maxFrames: 6,
      seed: 7,
      threads: 1,
      engine: 'cpu',
    });
    const json = resultToJson(result);
    for (let b = 0; b < BREAKS.length; b++) checkRun(json, b, b);
    const doc = JSON.parse(json) as Doc;
    for (const [field, value] of [
      ['code', 'wimax:672'],
      ['meanIterations', 6],
      ['meanIterations', -1],
    ] as const) {
      const broken = structuredClone(doc);
      broken.points[1]![field] = value;
      assert.throws(() => resumeOptions(JSON.stringify(broken), 'r.json'), {
        code: 'INVALID_INPUT',
        message: new RegExp(`^r\\.json: completedPoints\\[1\\] \\(.*\\): ${field} `),
      });
    }
  }
});

test('the settings are checked by name too; on the command line a bad file is one line and stays as it was', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resume-'));
  try {
    const file = join(dir, 'run.json');
    const first = spawnSync(
      process.execPath,
      [
        MAIN,
        'simulate',
        '--mimo',
        '2x2',
        '--detector',
        'zf,mmse',
        '--snr',
        '0,6',
        '--max-vectors',
        '128',
        '--threads',
        '1',
        '--json',
        file,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(first.status, 0, first.stderr);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Doc;
    for (const [field, value] of [
      ['nt', 2.5],
      ['maxErrors', -3],
      ['snrs', ['0']],
      ['detectors', [{ detector: 'nosuch' }]],
      ['modulation', 'qam3'],
    ] as const) {
      const broken = { ...doc, [field]: value };
      assert.throws(() => resumeOptions(JSON.stringify(broken), 'r.json'), {
        code: 'INVALID_INPUT',
        message: new RegExp(`field "${field}"`),
      });
    }
    const broken = structuredClone(doc);
    broken.points[0]!.bitErrors = -(1 + Math.floor(Math.random() * 9));
    const text = JSON.stringify(broken);
    writeFileSync(file, text);
    const r = spawnSync(process.execPath, [MAIN, 'simulate', '--resume', file], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /^lattice-mimo: error \[INVALID_INPUT\]: .*run\.json: completedPoints\[0\] \(zf at SNR index 0\): bitErrors must be a non-negative integer/,
    );
    assert.equal(readFileSync(file, 'utf8'), text, 'the file as it was');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
