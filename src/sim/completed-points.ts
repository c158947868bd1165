/**
 * The points of an earlier run that simulate() resumes from (`completedPoints`, a run's JSON
 * `points`), checked against the run's settings as simulate() resolves them before any is
 * trusted: its detector and SNR are the run's, no (detector, SNR index) twice, every count a
 * non-negative integer, the counts consistent with each other and with the run (bits, symbols and
 * frames from the vectors; errors at most what was sent; rates the counts' ratios; the SNR
 * conversions; the stop reason the counts' own; unproven vectors at most the vectors), and each
 * SNR value's points cover every detector. A resumed run never carries a silently wrong count into
 * its result, whether the points come through the API or from a file (`simulate --resume`).
 */
import { InvalidInputError } from '../core/index.js';
import { snrToNoiseVar, type Detector } from '../mimo/index.js';
import { toEbN0Db, toEsN0Db } from './snr.js';
import type { SnrType } from './types.js';

/** The settings a point is checked against, as simulate()'s plan resolved them (defaults filled in). */
export interface ResolvedRun {
  readonly opts: { readonly nt: number; readonly snrs: readonly number[] };
  readonly snrType: SnrType;
  readonly maxErrors: number;
  /** The vector limit, rounded up to whole units (and capped by maxFrames when coded). */
  readonly maxVectors: number;
  readonly vectorsPerChannel: number;
  readonly maxTimeSeconds: number | undefined;
  readonly bitsPerSymbol: number;
  /** The detectors' unique labels ("mmse", "mmse #2"), in order. */
  readonly labels: readonly string[];
  readonly detectors: readonly { readonly detector: Detector }[];
  readonly coded: {
    readonly code: string;
    readonly k: number;
    readonly rate: number;
    readonly vectorsPerFrame: number;
    /** Vectors of whole frames and channel groups: a point's vectors come in these. */
    readonly unit: number;
    readonly maxIterations: number;
  } | null;
}

type Doc = Record<string, unknown>;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isObject = (x: unknown): x is Doc => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Ratios and dB values written by the run, compared with what the counts and settings give. */
function near(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * Checks every point of `points` against the run `run` (module doc); an InvalidInputError
 * ('INVALID_INPUT') names the first bad one as `completedPoints[i]` (with its detector and SNR
 * index once those are known) and the field, details `{ point: i, field }`; an SNR index whose
 * points lack some detector is named with details `{ snrIndex, missing }`.
 *
 * `unproven` is written in every point since the count exists: present, it must be a non-negative
 * integer not above `vectors`; absent, the point comes from a version before it and counts 0
 * (simulate() fills it in).
 */
export function checkCompletedPoints(points: readonly unknown[], run: ResolvedRun): void {
  const { snrs, nt } = run.opts;
  const coded = run.coded;
  const vpf = coded?.vectorsPerFrame ?? 1;
  const frameBits = coded ? coded.k : nt * run.bitsPerSymbol;
  const unit = coded?.unit ?? run.vectorsPerChannel;
  const rate = coded?.rate ?? 1;
  const seen = new Map<string, number>();
  const bySnr = new Map<number, Set<string>>();
  for (const [i, raw] of points.entries()) {
    let where = `completedPoints[${i}]`;
    const bad = (field: string, why: string): InvalidInputError =>
      new InvalidInputError('INVALID_INPUT', `${where}: ${field} ${why}`, { point: i, field });
    if (!isObject(raw)) throw bad('the point', 'is not an object');
    const p = raw;
    const detector = p.detector;
    if (typeof detector !== 'string') throw bad('detector', `must be a string, got ${JSON.stringify(detector)}`);
    const di = run.labels.indexOf(detector);
    if (di < 0)
      throw bad(
        'detector',
        `'${detector}' is not one of the run's detectors (${run.labels.map((l) => `'${l}'`).join(', ')})`,
      );
    const snrIndex = p.snrIndex;
    if (!Number.isInteger(snrIndex) || (snrIndex as number) < 0 || (snrIndex as number) >= snrs.length)
      throw bad('snrIndex', `${JSON.stringify(snrIndex)} is not an index of the run's ${snrs.length} SNR values`);
    const k = snrIndex as number;
    where = `completedPoints[${i}] (${detector} at SNR index ${k})`;
    const key = `${k}\u0000${detector}`;
    const twin = seen.get(key);
    if (twin !== undefined)
      throw bad('the point', `repeats completedPoints[${twin}] (each detector has one point per SNR value)`);
    seen.set(key, i);
    const algorithm = run.detectors[di]!.detector;
    if (p.algorithm !== algorithm)
      throw bad('algorithm', `${JSON.stringify(p.algorithm)} is not the detector's (${algorithm})`);
    const snr = snrs[k]!;
    if (p.snr !== snr) throw bad('snr', `${JSON.stringify(p.snr)} is not the run's snrs[${k}] = ${snr}`);
    if (p.snrType !== run.snrType)
      throw bad('snrType', `${JSON.stringify(p.snrType)} is not the run's (${run.snrType})`);
    const count = (name: string): number => {
      const x = p[name];
      if (!isCount(x)) throw bad(name, `must be a non-negative integer, got ${JSON.stringify(x)}`);
      return x;
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
    if (vectors % unit !== 0)
      throw bad(
        'vectors',
        `${vectors} is not a whole number of the run's units of ${unit} vectors (channel groups${coded ? ' and frames' : ''})`,
      );
    if (vectors > run.maxVectors)
      throw bad('vectors', `${vectors} is past the run's limit of ${run.maxVectors} vectors`);
    const expect = (name: string, got: number, want: number, how: string) => {
      if (got !== want) throw bad(name, `${got} does not match ${vectors} vectors: ${how} = ${want}`);
    };
    expect('frames', frames, vectors / vpf, coded ? `vectors / ${vpf} vectors per frame` : 'one frame per vector');
    expect('bits', bits, frames * frameBits, `frames x ${frameBits} ${coded ? 'information ' : ''}bits`);
    expect('symbols', symbols, vectors * nt, `vectors x ${nt} streams`);
    if (bitErrors > bits) throw bad('bitErrors', `${bitErrors} is more than the ${bits} bits sent`);
    if (symbolErrors > symbols) throw bad('symbolErrors', `${symbolErrors} is more than the ${symbols} symbols sent`);
    if (frameErrors > frames) throw bad('frameErrors', `${frameErrors} is more than the ${frames} frames sent`);
    // a frame error is a frame with at least one wrong bit
    if (frameErrors > bitErrors)
      throw bad('frameErrors', `${frameErrors} frame errors need at least as many bit errors, not ${bitErrors}`);
    if (bitErrors > frameErrors * frameBits)
      throw bad('bitErrors', `${bitErrors} bit errors do not fit in ${frameErrors} wrong frames of ${frameBits} bits`);
    if (p.unproven !== undefined) {
      const unproven = count('unproven');
      if (unproven > vectors) throw bad('unproven', `${unproven} is more than the ${vectors} vectors detected`);
    }
    const ratio = (name: string, num: number, den: number) => {
      const want = den > 0 ? num / den : 0;
      if (!isNum(p[name]) || !near(p[name], want))
        throw bad(name, `${JSON.stringify(p[name])} is not ${num} / ${den} = ${want}`);
    };
    ratio('ber', bitErrors, bits);
    ratio('ser', symbolErrors, symbols);
    ratio('fer', frameErrors, frames);
    const derived: [string, number][] = [
      ['esn0Db', toEsN0Db(snr, run.snrType, run.bitsPerSymbol, rate)],
      ['ebn0Db', toEbN0Db(snr, run.snrType, run.bitsPerSymbol, rate)],
      ['noiseVar', snrToNoiseVar(snr, run.snrType, run.bitsPerSymbol, rate)],
    ];
    for (const [name, want] of derived)
      if (!isNum(p[name]) || !near(p[name], want))
        throw bad(
          name,
          `${JSON.stringify(p[name])} is not what SNR ${snr} dB (${run.snrType}) gives in this run: ${want}`,
        );
    if (!isNum(p.timeMs) || p.timeMs < 0)
      throw bad('timeMs', `must be a non-negative number, got ${JSON.stringify(p.timeMs)}`);
    const stopErrors = coded ? frameErrors : bitErrors;
    const errorsName = coded ? 'frame errors' : 'bit errors';
    switch (p.stoppedBy) {
      case 'errors':
        if (stopErrors < run.maxErrors)
          throw bad(
            'stoppedBy',
            `'errors' with ${stopErrors} ${errorsName}, fewer than the run's maxErrors ${run.maxErrors}`,
          );
        break;
      case 'vectors':
        if (stopErrors >= run.maxErrors)
          throw bad(
            'stoppedBy',
            `'vectors' with ${stopErrors} ${errorsName}: the run stops by errors at ${run.maxErrors}`,
          );
        if (vectors < run.maxVectors)
          throw bad('stoppedBy', `'vectors' with ${vectors} vectors, fewer than the run's limit of ${run.maxVectors}`);
        break;
      case 'time':
        if (run.maxTimeSeconds === undefined) throw bad('stoppedBy', "'time' in a run without maxTimeSeconds");
        if (stopErrors >= run.maxErrors || vectors >= run.maxVectors)
          throw bad(
            'stoppedBy',
            `'time' with counts that reached the run's ${stopErrors >= run.maxErrors ? 'maxErrors' : 'vector limit'}`,
          );
        break;
      default:
        throw bad('stoppedBy', `must be errors, vectors or time, got ${JSON.stringify(p.stoppedBy)}`);
    }
    if (coded) {
      if (p.code !== coded.code) throw bad('code', `${JSON.stringify(p.code)} is not the run's code (${coded.code})`);
      const it = p.meanIterations;
      if (!isNum(it) || it < 0 || it > coded.maxIterations)
        throw bad('meanIterations', `must be a number in [0, ${coded.maxIterations}], got ${JSON.stringify(it)}`);
    } else if (p.code !== undefined || p.meanIterations !== undefined) {
      throw bad(p.code !== undefined ? 'code' : 'meanIterations', 'belongs to a coded run, and this run is uncoded');
    }
    let at = bySnr.get(k);
    if (!at) bySnr.set(k, (at = new Set()));
    at.add(detector);
  }
  // simulate() finishes an SNR value for every detector at once: its points come all, or none
  for (const [k, have] of bySnr) {
    if (have.size === run.labels.length) continue;
    const missing = run.labels.filter((l) => !have.has(l));
    throw new InvalidInputError(
      'INVALID_INPUT',
      `completedPoints: the points of SNR index ${k} (${snrs[k]} dB) lack ${missing.map((l) => `'${l}'`).join(', ')}: a run finishes every detector's point of an SNR value, or none`,
      { snrIndex: k, missing },
    );
  }
}
