/**
 * `simulate --resume FILE`: the settings and finished points of a run, read from its JSON and
 * checked before they are trusted. The settings go through simulate()'s own validation later;
 * here they are checked for kind (each field named), and every point against them: its detector
 * and SNR are the run's, no (detector, SNR index) twice, every count a non-negative integer, the
 * counts consistent with each other and with the run (bits, symbols and frames from the vectors;
 * errors at most what was sent; rates the counts' ratios; the SNR conversions; the stop reason
 * the counts' own), and each SNR value's points cover every detector. A file that fails is an
 * InvalidInputError naming the file, the point and the field: a resumed run never carries a
 * silently wrong count into its result.
 */
import { InvalidInputError } from '../core/index.js';
import { resolveDecoderOptions } from '../coding/index.js';
import { CHANNEL_MODELS, channelEntry, type ChannelModel } from '../channels/index.js';
import { snrToNoiseVar, bitsPerSymbolOf } from '../mimo/index.js';
import { DETECTORS, MODULATIONS } from '../mimo/index.js';
import {
  codedUnit,
  codeOf,
  vectorsPerFrame,
  detectorLabel,
  toEbN0Db,
  toEsN0Db,
  type SimDetector,
  type SimPoint,
  type SimulationOptions,
} from '../sim/index.js';

type Doc = Record<string, unknown>;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isPositiveInt = (x: unknown): x is number => isCount(x) && x >= 1;
const isObject = (x: unknown): x is Doc => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Ratios and dB values written by the run, compared with what the counts and settings give. */
function near(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** The labels simulate() gives the detectors (its uniqueLabels: "mmse", "mmse #2"). */
function labelsOf(detectors: readonly SimDetector[]): string[] {
  const seen = new Map<string, number>();
  return detectors.map((d) => {
    const base = detectorLabel(d);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} #${n}`;
  });
}

/**
 * The settings and finished points of a run from its JSON (as simulate --json writes it), every
 * point checked against the settings.
 */
export function resumeOptions(text: string, file: string): SimulationOptions {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `${file} is not valid JSON: ${(err as Error).message}`, { file });
  }
  if (!isObject(doc))
    throw new InvalidInputError('INVALID_INPUT', `${file}: expected the JSON object of a simulate run`, { file });
  const d = doc;
  const field = <T>(name: string, check: (x: unknown) => boolean, want: string): T => {
    const x = d[name];
    if (!check(x))
      throw new InvalidInputError(
        'INVALID_INPUT',
        `${file}: field "${name}" must be ${want}, got ${x === undefined ? 'nothing' : JSON.stringify(x)} (not the JSON of a simulate run?)`,
        { file, field: name },
      );
    return x as T;
  };
  const points = field<unknown[]>('points', Array.isArray, 'an array of points');
  const modulation = field<SimulationOptions['modulation']>(
    'modulation',
    (x) => (MODULATIONS as readonly unknown[]).includes(x),
    `one of ${MODULATIONS.join(', ')}`,
  );
  const detectors = field<SimDetector[]>(
    'detectors',
    (x) =>
      Array.isArray(x) &&
      x.length > 0 &&
      x.every((e) => isObject(e) && (DETECTORS as readonly unknown[]).includes(e.detector)),
    `a non-empty array of detectors ({"detector": one of ${DETECTORS.join(', ')}})`,
  );
  const opts: SimulationOptions = {
    nt: field('nt', isPositiveInt, 'a positive integer'),
    nr: field('nr', isPositiveInt, 'a positive integer'),
    modulation,
    detectors,
    snrs: field<number[]>(
      'snrs',
      (x) => Array.isArray(x) && x.length > 0 && x.every(isNum),
      'a non-empty array of finite numbers (dB)',
    ),
    snrType: field('snrType', (x) => x === 'esn0' || x === 'ebn0', 'esn0 or ebn0'),
    maxErrors: field('maxErrors', isPositiveInt, 'a positive integer'),
    maxVectors: field('maxVectors', isPositiveInt, 'a positive integer'),
    vectorsPerChannel: field('vectorsPerChannel', isPositiveInt, 'a positive integer'),
    chunkVectors: field('chunkVectors', isPositiveInt, 'a positive integer'),
    seed: field('seed', isCount, 'a non-negative integer'),
    engine: 'auto',
    completedPoints: points as SimPoint[],
  };
  if (d.channel !== undefined)
    opts.channel = field(
      'channel',
      (x) => typeof x === 'string' && channelEntry(x) !== undefined,
      `a channel model (${CHANNEL_MODELS.join(', ')})`,
    ) as ChannelModel;
  if (d.channelOptions !== undefined)
    opts.channelOptions = field('channelOptions', isObject, "an object (the channel model's parameters)");
  if (d.code !== undefined) {
    opts.code = field('code', (x) => typeof x === 'string', 'a code spec (wimax:N, nr:K:R)');
    opts.decoder = field('decoder', isObject, 'an object (the decoder settings)');
    if (d.maxFrames !== undefined) opts.maxFrames = field('maxFrames', isPositiveInt, 'a positive integer');
  }
  if (d.maxTimeSeconds !== undefined)
    opts.maxTimeSeconds = field('maxTimeSeconds', (x) => isNum(x) && x > 0, 'a positive number of seconds');
  checkPoints(opts, points, file);
  return opts;
}

/** What the run's settings say a point's counts must be. */
interface RunShape {
  labels: string[];
  bps: number;
  /** Vectors of a frame (1 uncoded) and information bits per frame (nt bps uncoded). */
  vpf: number;
  frameBits: number;
  /** Vectors come in whole units (channel groups, and frames when coded). */
  unit: number;
  maxVectors: number;
  rate: number;
  maxIterations: number;
}

function shapeOf(o: SimulationOptions): RunShape {
  const bps = bitsPerSymbolOf(o.modulation);
  const vpc = o.vectorsPerChannel!;
  let vpf = 1,
    frameBits = o.nt * bps,
    unit = vpc,
    rate = 1,
    maxIterations = 0;
  if (o.code !== undefined) {
    const code = codeOf(o.code, o.modulation);
    vpf = vectorsPerFrame(code.n, o.nt, bps);
    frameBits = code.k;
    unit = codedUnit(vpf, vpc);
    rate = code.rate;
    maxIterations = resolveDecoderOptions({ ...(o.decoder ?? {}) }).maxIterations;
  }
  const asked = Math.min(o.maxVectors!, o.maxFrames !== undefined ? o.maxFrames * vpf : Infinity);
  return {
    labels: labelsOf(o.detectors),
    bps,
    vpf,
    frameBits,
    unit,
    maxVectors: Math.ceil(asked / unit) * unit,
    rate,
    maxIterations,
  };
}

function checkPoints(o: SimulationOptions, points: unknown[], file: string): void {
  const run = shapeOf(o);
  const coded = o.code !== undefined;
  const seen = new Map<string, number>();
  const bySnr = new Map<number, Set<string>>();
  for (const [i, raw] of points.entries()) {
    let where = `points[${i}]`;
    const bad = (field: string, why: string): InvalidInputError =>
      new InvalidInputError('INVALID_INPUT', `${file}: ${where}: ${field} ${why}`, { file, point: i, field });
    if (!isObject(raw)) throw bad('the point', 'is not an object');
    const p = raw;
    const detector = p.detector;
    if (typeof detector !== 'string') throw bad('detector', 'must be a string');
    const di = run.labels.indexOf(detector);
    if (di < 0)
      throw bad(
        'detector',
        `'${detector}' is not one of the run's detectors (${run.labels.map((l) => `'${l}'`).join(', ')})`,
      );
    const snrIndex = p.snrIndex;
    if (!Number.isInteger(snrIndex) || (snrIndex as number) < 0 || (snrIndex as number) >= o.snrs.length)
      throw bad('snrIndex', `${JSON.stringify(snrIndex)} is not an index of the run's ${o.snrs.length} SNR values`);
    const k = snrIndex as number;
    where = `points[${i}] (${detector} at SNR index ${k})`;
    const key = `${k}\u0000${detector}`;
    const twin = seen.get(key);
    if (twin !== undefined)
      throw bad('the point', `repeats points[${twin}] (each detector has one point per SNR value)`);
    seen.set(key, i);
    if (p.algorithm !== o.detectors[di]!.detector)
      throw bad('algorithm', `${JSON.stringify(p.algorithm)} is not the detector's (${o.detectors[di]!.detector})`);
    if (p.snr !== o.snrs[k]) throw bad('snr', `${JSON.stringify(p.snr)} is not the run's snrs[${k}] = ${o.snrs[k]}`);
    if (p.snrType !== o.snrType) throw bad('snrType', `${JSON.stringify(p.snrType)} is not the run's (${o.snrType})`);
    const count = (name: string): number => {
      const x = p[name];
      if (!isCount(x)) throw bad(name, `must be a non-negative integer, got ${JSON.stringify(x)}`);
      return x as number;
    };
    const [bitErrors, symbolErrors, frameErrors, bits, symbols, frames, vectors] = [
      'bitErrors',
      'symbolErrors',
      'frameErrors',
      'bits',
      'symbols',
      'frames',
      'vectors',
    ].map(count) as [number, number, number, number, number, number, number];
    if (vectors % run.unit !== 0)
      throw bad(
        'vectors',
        `${vectors} is not a whole number of the run's units of ${run.unit} vectors (channel groups${coded ? ' and frames' : ''})`,
      );
    if (vectors > run.maxVectors)
      throw bad('vectors', `${vectors} is past the run's limit of ${run.maxVectors} vectors`);
    const expect = (name: string, got: number, want: number, how: string) => {
      if (got !== want) throw bad(name, `${got} does not match ${vectors} vectors: ${how} = ${want}`);
    };
    expect(
      'frames',
      frames,
      vectors / run.vpf,
      coded ? `vectors / ${run.vpf} vectors per frame` : 'one frame per vector',
    );
    expect('bits', bits, frames * run.frameBits, `frames x ${run.frameBits} ${coded ? 'information ' : ''}bits`);
    expect('symbols', symbols, vectors * o.nt, `vectors x ${o.nt} streams`);
    if (bitErrors > bits) throw bad('bitErrors', `${bitErrors} is more than the ${bits} bits sent`);
    if (symbolErrors > symbols) throw bad('symbolErrors', `${symbolErrors} is more than the ${symbols} symbols sent`);
    if (frameErrors > frames) throw bad('frameErrors', `${frameErrors} is more than the ${frames} frames sent`);
    // a frame error is a frame with at least one wrong bit
    if (frameErrors > bitErrors)
      throw bad('frameErrors', `${frameErrors} frame errors need at least as many bit errors, not ${bitErrors}`);
    if (bitErrors > frameErrors * run.frameBits)
      throw bad(
        'bitErrors',
        `${bitErrors} bit errors do not fit in ${frameErrors} wrong frames of ${run.frameBits} bits`,
      );
    const ratio = (name: string, num: number, den: number) => {
      const want = den > 0 ? num / den : 0;
      if (!isNum(p[name]) || !near(p[name] as number, want))
        throw bad(name, `${JSON.stringify(p[name])} is not ${num} / ${den} = ${want}`);
    };
    ratio('ber', bitErrors, bits);
    ratio('ser', symbolErrors, symbols);
    ratio('fer', frameErrors, frames);
    const snr = o.snrs[k]!;
    const derived: [string, number][] = [
      ['esn0Db', toEsN0Db(snr, o.snrType!, run.bps, run.rate)],
      ['ebn0Db', toEbN0Db(snr, o.snrType!, run.bps, run.rate)],
      ['noiseVar', snrToNoiseVar(snr, o.snrType!, run.bps, run.rate)],
    ];
    for (const [name, want] of derived)
      if (!isNum(p[name]) || !near(p[name] as number, want))
        throw bad(
          name,
          `${JSON.stringify(p[name])} is not what SNR ${snr} dB (${o.snrType}) gives in this run: ${want}`,
        );
    if (!isNum(p.timeMs) || (p.timeMs as number) < 0)
      throw bad('timeMs', `must be a non-negative number, got ${JSON.stringify(p.timeMs)}`);
    const stopErrors = coded ? frameErrors : bitErrors;
    const errorsName = coded ? 'frame errors' : 'bit errors';
    switch (p.stoppedBy) {
      case 'errors':
        if (stopErrors < o.maxErrors!)
          throw bad(
            'stoppedBy',
            `'errors' with ${stopErrors} ${errorsName}, fewer than the run's maxErrors ${o.maxErrors}`,
          );
        break;
      case 'vectors':
        if (stopErrors >= o.maxErrors!)
          throw bad(
            'stoppedBy',
            `'vectors' with ${stopErrors} ${errorsName}: the run stops by errors at ${o.maxErrors}`,
          );
        if (vectors < run.maxVectors)
          throw bad('stoppedBy', `'vectors' with ${vectors} vectors, fewer than the run's limit of ${run.maxVectors}`);
        break;
      case 'time':
        if (o.maxTimeSeconds === undefined) throw bad('stoppedBy', "'time' in a run without maxTimeSeconds");
        if (stopErrors >= o.maxErrors! || vectors >= run.maxVectors)
          throw bad(
            'stoppedBy',
            `'time' with counts that reached the run's ${stopErrors >= o.maxErrors! ? 'maxErrors' : 'vector limit'}`,
          );
        break;
      default:
        throw bad('stoppedBy', `must be errors, vectors or time, got ${JSON.stringify(p.stoppedBy)}`);
    }
    if (coded) {
      if (p.code !== o.code) throw bad('code', `${JSON.stringify(p.code)} is not the run's code (${o.code})`);
      const it = p.meanIterations;
      if (!isNum(it) || it < 0 || it > run.maxIterations)
        throw bad('meanIterations', `must be a number in [0, ${run.maxIterations}], got ${JSON.stringify(it)}`);
    } else if (p.code !== undefined || p.meanIterations !== undefined) {
      throw bad(p.code !== undefined ? 'code' : 'meanIterations', 'belongs to a coded run, and this run is uncoded');
    }
    let at = bySnr.get(k);
    if (!at) bySnr.set(k, (at = new Set()));
    at.add(detector);
  }
  // simulate writes an SNR value's points together: every detector's, or none
  for (const [k, have] of bySnr) {
    if (have.size === run.labels.length) continue;
    const missing = run.labels.filter((l) => !have.has(l));
    throw new InvalidInputError(
      'INVALID_INPUT',
      `${file}: the points of SNR index ${k} (${o.snrs[k]} dB) lack ${missing.map((l) => `'${l}'`).join(', ')}: a run writes every detector's point of an SNR value, or none`,
      { file, snrIndex: k, missing },
    );
  }
}
