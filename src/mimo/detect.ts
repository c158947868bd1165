/**
 * detect(): batched MIMO detection on the CPU engine. Validates the whole input first (shapes,
 * finiteness, noise variance, option ranges: typed errors naming the problem), then runs the chosen
 * detector: its per-channel preprocessing once per channel (again only if the noise variance
 * changes inside a channel's group of vectors), its per-vector search for every vector.
 *
 * Soft detectors (SOFT_DETECTORS) return LLRs ('maxlog' unless opts.soft is 'logmap'; none when it is 'none'), in
 * the bits' layout; opts.llrClip then clips them to [-clip, clip]. Hard bits come from the symbols.
 */
import { EngineUnavailableError, InvalidArgumentError, InvalidInputError, LatticeMimoError } from '../core/errors.js';
import { assertOneOf } from '../core/validate.js';
import type { CpuDetector, DetectorOutput, DetectorSetup } from './detectors/detector.js';
import { detector as zf } from './detectors/zf/cpu.js';
import { detector as mmse } from './detectors/mmse/cpu.js';
import { detector as sic } from './detectors/sic/cpu.js';
import { detector as ml } from './detectors/ml/cpu.js';
import { detector as sphere } from './detectors/sphere/cpu.js';
import { detector as psd } from './detectors/psd/cpu.js';
import { detector as kbest } from './detectors/kbest/cpu.js';
import { detector as ssfe } from './detectors/ssfe/cpu.js';
import { detector as nway } from './detectors/nway/cpu.js';
import { detector as lrZf } from './detectors/lr-zf/cpu.js';
import { detector as lrMmse } from './detectors/lr-mmse/cpu.js';
import { detector as lrSic } from './detectors/lr-sic/cpu.js';
import { constellation, parseModulation, symbolsToBits } from './modulation.js';
import { DETECTORS, SOFT_DETECTORS, type DetectionInput, type DetectionResult, type DetectOptions, type Detector } from './types.js';

/** The CPU implementation of every detector. */
export const CPU_DETECTORS: Readonly<Record<Detector, CpuDetector<unknown>>> = {
  zf, mmse, sic, ml, sphere, psd, kbest, ssfe, nway, 'lr-zf': lrZf, 'lr-mmse': lrMmse, 'lr-sic': lrSic,
} as Record<Detector, CpuDetector<unknown>>;

/** Largest antenna count accepted on either side. */
export const MAX_ANTENNAS = 64;

export interface ValidatedInput {
  readonly nr: number;
  readonly nt: number;
  readonly vectors: number;
  readonly channels: number;
  readonly vectorsPerChannel: number;
  /** noiseAt(v): N0 of vector v. */
  readonly noiseAt: (v: number) => number;
  readonly opts: DetectOptions;
}

function checkFinite(a: Float64Array, what: string): void {
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (!Number.isFinite(v)) {
      throw new InvalidInputError('NON_FINITE', `${what} contains ${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'} at element ${i}`, { index: i });
    }
  }
}

function checkAntennas(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_ANTENNAS) {
    throw new InvalidArgumentError(`${what} must be an integer in [1, ${MAX_ANTENNAS}], got ${String(v)}`);
  }
  return v;
}

function checkNoise(v: number, what: string, needPositive: boolean): void {
  if (typeof v !== 'number' || Number.isNaN(v)) throw new InvalidInputError('NON_FINITE', `${what} is NaN`);
  if (!Number.isFinite(v)) throw new InvalidInputError('NON_FINITE', `${what} is ${v}`);
  if (v < 0) throw new InvalidArgumentError(`${what} must be >= 0 (a variance), got ${v}`);
  if (needPositive && v === 0) throw new InvalidArgumentError(`${what} must be > 0 for soft output (LLRs scale with 1/N0)`);
}

/** Checks input and options; returns the derived sizes. Throws typed errors naming the problem. */
export function validateDetection(input: DetectionInput, opts: DetectOptions): ValidatedInput {
  if (input === null || typeof input !== 'object') throw new InvalidArgumentError('detection input must be an object');
  if (opts === null || typeof opts !== 'object') throw new InvalidArgumentError('detection options must be an object');
  assertOneOf(opts.detector, 'detector', DETECTORS);
  const modulation = parseModulation(opts.modulation);
  if (opts.engine !== undefined) assertOneOf(opts.engine, 'engine', ['auto', 'cpu', 'cuda'] as const);
  if (opts.soft !== undefined) assertOneOf(opts.soft, 'soft output', ['maxlog', 'logmap', 'none'] as const);
  if (opts.initialRadius !== undefined) assertOneOf(opts.initialRadius, 'initial radius', ['infinity', 'babai'] as const);
  for (const [name, v] of [['k', opts.k], ['passes', opts.passes]] as const) {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 1)) throw new InvalidArgumentError(`${name} must be a positive integer, got ${String(v)}`);
  }
  if (opts.llrClip !== undefined && !(typeof opts.llrClip === 'number' && opts.llrClip > 0 && Number.isFinite(opts.llrClip))) {
    throw new InvalidArgumentError(`llrClip must be a finite number > 0, got ${String(opts.llrClip)}`);
  }
  const nr = checkAntennas(input.nr, 'nr');
  const nt = checkAntennas(input.nt, 'nt');
  if (!(input.H instanceof Float64Array)) throw new InvalidInputError('INVALID_INPUT', 'H must be a Float64Array (interleaved complex, column-major)');
  if (!(input.y instanceof Float64Array)) throw new InvalidInputError('INVALID_INPUT', 'y must be a Float64Array (interleaved complex)');
  const perChannel = 2 * nr * nt;
  if (input.y.length === 0) throw new InvalidInputError('INVALID_INPUT', 'y holds no received vectors');
  if (input.y.length % (2 * nr) !== 0) throw new InvalidInputError('SHAPE_MISMATCH', `y has ${input.y.length} reals, not a multiple of 2 nr = ${2 * nr}`);
  if (input.H.length === 0 || input.H.length % perChannel !== 0) {
    throw new InvalidInputError('SHAPE_MISMATCH', `H has ${input.H.length} reals, not a positive multiple of 2 nr nt = ${perChannel}`);
  }
  const vectors = input.y.length / (2 * nr);
  const hChannels = input.H.length / perChannel;
  let vpc: number;
  if (input.vectorsPerChannel === undefined) {
    if (vectors % hChannels !== 0) throw new InvalidInputError('SHAPE_MISMATCH', `${vectors} vectors cannot be split evenly over ${hChannels} channels; give vectorsPerChannel`);
    vpc = vectors / hChannels;
  } else {
    vpc = input.vectorsPerChannel;
    if (!Number.isInteger(vpc) || vpc < 1) throw new InvalidArgumentError(`vectorsPerChannel must be a positive integer, got ${String(vpc)}`);
    const need = Math.ceil(vectors / vpc);
    if (need !== hChannels) throw new InvalidInputError('SHAPE_MISMATCH', `${vectors} vectors at ${vpc} per channel need ${need} channels, H holds ${hChannels}`);
  }
  checkFinite(input.H, 'H');
  checkFinite(input.y, 'y');
  const soft = SOFT_DETECTORS.includes(opts.detector) && opts.soft !== 'none';
  let noiseAt: (v: number) => number;
  const nv = input.noiseVar;
  if (typeof nv === 'number') {
    checkNoise(nv, 'noiseVar', soft);
    noiseAt = () => nv;
  } else if (nv instanceof Float64Array) {
    if (nv.length !== vectors) throw new InvalidInputError('SHAPE_MISMATCH', `noiseVar has ${nv.length} entries, expected one per vector (${vectors})`);
    for (let v = 0; v < nv.length; v++) checkNoise(nv[v]!, `noiseVar[${v}]`, soft);
    noiseAt = (v) => nv[v]!;
  } else {
    throw new InvalidArgumentError('noiseVar must be a number or a Float64Array with one value per vector');
  }
  return { nr, nt, vectors, channels: hChannels, vectorsPerChannel: vpc, noiseAt, opts: { ...opts, modulation } };
}

/**
 * Batched detection on the CPU engine: `input` holds channels x nr x nt channels and vectors x nr
 * received vectors (complex, interleaved); the result holds vectors x nt symbol indices, vectors x
 * nt x bitsPerSymbol bits and, for soft detectors, as many LLRs (see DetectionInput, DetectionResult).
 */
export function detect(input: DetectionInput, opts: DetectOptions): DetectionResult {
  const t0 = performance.now();
  const val = validateDetection(input, opts);
  if (opts.engine === 'cuda') {
    throw new EngineUnavailableError(`the CUDA engine has no '${opts.detector}' detector yet; use engine 'cpu' or 'auto'`);
  }
  const { nr, nt, vectors, vectorsPerChannel: vpc, noiseAt } = val;
  const mod = val.opts.modulation;
  const con = constellation(mod);
  const impl = CPU_DETECTORS[val.opts.detector];
  const soft = SOFT_DETECTORS.includes(val.opts.detector) && impl.soft && val.opts.soft !== 'none';
  const setup: DetectorSetup = { nr, nt, modulation: mod, constellation: con, opts: val.opts, soft };
  const instance = impl.create(setup);
  const out: DetectorOutput = {
    symbols: new Int32Array(vectors * nt),
    llr: soft ? new Float64Array(vectors * nt * con.bitsPerSymbol) : null,
  };
  let prep: unknown = undefined;
  let prepChannel = -1, prepNoise = NaN, nodes = 0;
  for (let v = 0; v < vectors; v++) {
    const c = Math.floor(v / vpc);
    const noise = noiseAt(v);
    if (c !== prepChannel || noise !== prepNoise) {
      try {
        prep = instance.prepare(input.H, 2 * c * nr * nt, noise);
      } catch (e) {
        if (e instanceof LatticeMimoError) e.message = `channel ${c}: ${e.message}`;
        throw e;
      }
      prepChannel = c; prepNoise = noise;
    }
    nodes += instance.detect(prep, input.y, 2 * v * nr, noise, out, v);
  }
  if (out.llr && val.opts.llrClip !== undefined) {
    const clip = val.opts.llrClip, llr = out.llr;
    for (let i = 0; i < llr.length; i++) {
      if (llr[i]! > clip) llr[i] = clip; else if (llr[i]! < -clip) llr[i] = -clip;
    }
  }
  const bits = symbolsToBits(out.symbols, mod);
  const stats: DetectionResult['stats'] = {
    detector: val.opts.detector, engine: 'cpu', vectors, timeMs: performance.now() - t0,
    ...(nodes > 0 ? { nodesVisited: nodes } : {}),
  };
  return out.llr ? { symbols: out.symbols, bits, llr: out.llr, stats } : { symbols: out.symbols, bits, stats };
}
