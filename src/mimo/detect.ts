/**
 * detect(): batched MIMO detection on the CPU engine. Validates the whole input first (shapes,
 * finiteness, noise variance, option ranges, the detector's nr / nt rule: typed errors naming the
 * problem; where a WebAssembly kernel runs, the kernel scans H and y for NaN, infinities and
 * too-large vectors as it reads each run, and a problem it finds is named by the same error, in
 * the same order), then runs the chosen detector: its per-channel preprocessing once per channel (again
 * only if the noise variance changes inside a channel's group of vectors), its per-vector search
 * for every vector.
 *
 * Scale: detection is invariant under (H, y, N0) -> (a H, a y, a^2 N0), so every channel is
 * brought to a largest entry in [1, 2) by a power of two (exact: the same decisions and LLRs at
 * any scale that does not itself overflow), with its vectors and N0; a scaled N0 > 0 is then held
 * in [2^-1000, 2^1000] (beyond that the LLRs saturate anyway), and a vector whose largest entry
 * is more than 2^500 times its channel's is refused (its metrics would overflow).
 *
 * Soft detectors (traits.soft) return LLRs ('maxlog' unless opts.soft is 'logmap'; none when it
 * is 'none'), in the bits' layout; opts.llrClip then clips them to [-clip, clip], and every LLR is
 * finite, saturated at +-LLR_LIMIT. Hard bits come from the symbols.
 */
import {
  type CpuKernelRequest,
  EngineUnavailableError,
  InvalidArgumentError,
  InvalidInputError,
  LatticeMimoError,
  pickCpuKernel,
  show,
  UnsupportedError,
  withContext,
} from '../core/index.js';
import { cpuOnlyEngine } from '../gpu/index.js';
import { maxNodesOf, nodeBudgetError, onBudgetOf } from './budget.js';
import type { CpuDetector, DetectorSetup, LaneKernel, LaneOutput } from './detectors/detector.js';
import { bitsPerSymbolOf, constellation, symbolsToBits } from './modulation.js';
import { checkDetectOptions } from './options.js';
import { type Detector, detectorEntry, priorDetectors, WIDE_DETECTORS } from './registry.js';
import type { DetectionInput, DetectionResult, DetectOptions, Modulation } from './types.js';

/** Largest antenna count accepted on either side. */
export const MAX_ANTENNAS = 64;

/**
 * |LLR| bound of every soft output: an LLR past it (a tiny N0, or a far counter-hypothesis) is
 * saturated there, so LLRs stay finite and sums of them cannot overflow.
 */
export const LLR_LIMIT = 1e100;

/**
 * The one nr / nt rule of the API, read from the detector's traits (UnsupportedError naming the
 * detector otherwise):
 *  - wideChannels 'yes' or 'regularized' (ml; mmse, sic): any nr and nt (the regularized ones with
 *    nr < nt need noiseVar > 0, checked by detect);
 *  - the other complex-model detectors (zf): nr >= nt (a left inverse of H);
 *  - the other real-model detectors (sphere, psd, kbest, ssfe, nway, lr-*): 2 nr >= real unknowns,
 *    i.e. nr >= nt for QAM and 2 nr >= nt for BPSK (their QR must be square-triangular).
 */
export function checkDetectorShape(detector: Detector, modulation: Modulation, nt: number, nr: number): void {
  const traits = detectorEntry(detector)!.traits;
  if (nr >= nt || traits.wideChannels !== 'no') return;
  const wide = `for nr < nt use ${WIDE_DETECTORS.join(', ')}`;
  if (traits.model === 'complex')
    throw new UnsupportedError(
      `${detector} needs nr >= nt (got nt = ${nt}, nr = ${nr}): H has no left inverse; ${wide}`,
      { detector, nt, nr },
    );
  const unknowns = modulation === 'bpsk' ? nt : 2 * nt;
  if (2 * nr >= unknowns) return;
  throw new UnsupportedError(
    `${detector} needs as many real receive dimensions as real unknowns, nr >= nt for QAM and 2 nr >= nt for BPSK (got nt = ${nt}, nr = ${nr}, ${modulation}); ${wide}`,
    { detector, nt, nr },
  );
}

/** detect()'s input after validateDetection(): sizes, the per-vector N0 and the parsed options. */
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

/**
 * Throws the NON_FINITE error naming the first NaN or infinity of `a` (`what` names the array; `a`
 * starts at element `offset` of it). details: { array, index, ...details }.
 */
export function checkFinite(
  a: Float64Array | Float32Array,
  what: string,
  offset = 0,
  details?: Record<string, unknown>,
): void {
  // four entries a test (x - x is 0 for a finite x, NaN otherwise); the first block that fails is
  // searched entry by entry below
  const n = a.length;
  let from = 0;
  for (; from + 4 <= n; from += 4) {
    const w = a[from]!,
      x = a[from + 1]!,
      y = a[from + 2]!,
      z = a[from + 3]!;
    if (w - w + (x - x) + (y - y) + (z - z) !== 0) break;
  }
  for (let i = from; i < n; i++) {
    const v = a[i]!;
    if (!Number.isFinite(v)) {
      throw new InvalidInputError(
        'NON_FINITE',
        `${what} contains ${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'} at element ${offset + i}`,
        { array: what, index: offset + i, ...details },
      );
    }
  }
}

function checkAntennas(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_ANTENNAS) {
    throw new InvalidArgumentError(`${what} must be an integer in [1, ${MAX_ANTENNAS}], got ${show(v)}`);
  }
  return v;
}

/** `positive`: why N0 must be > 0 (a clause), or null where 0 is allowed. */
function checkNoise(v: number, what: string, positive: string | null): void {
  if (typeof v !== 'number' || Number.isNaN(v)) throw new InvalidInputError('NON_FINITE', `${what} is NaN`);
  if (!Number.isFinite(v)) throw new InvalidInputError('NON_FINITE', `${what} is ${v}`);
  if (v < 0) throw new InvalidArgumentError(`${what} must be >= 0 (a variance), got ${v}`);
  if (positive !== null && v === 0) throw new InvalidArgumentError(`${what} must be > 0 ${positive}`);
}

/**
 * Checks DetectionInput.priorLlr (when given) against the detector and the batch: only a detector
 * whose traits say `priors` takes it; a Float64Array or Float32Array of vectors x nt x
 * bitsPerSymbol finite LLRs. InvalidArgumentError with details.option 'priorLlr' otherwise.
 */
export function checkPriorLlr(
  input: DetectionInput,
  detector: Detector,
  vectors: number,
  nt: number,
  bps: number,
): void {
  const p = input.priorLlr;
  if (p === undefined) return;
  const fail = (why: string, extra: Record<string, unknown> = {}): never => {
    throw new InvalidArgumentError(`priorLlr ${why}`, { option: 'priorLlr', ...extra });
  };
  if (!detectorEntry(detector)!.traits.priors) {
    const takers = priorDetectors();
    fail(
      `does not apply: ${detector} takes no a-priori LLRs (detectors that do: ${takers.length ? takers.join(', ') : 'none'})`,
      { detector },
    );
  }
  if (!(p instanceof Float64Array || p instanceof Float32Array))
    fail(`must be a Float64Array or Float32Array of vectors x nt x bitsPerSymbol LLRs, got ${show(p)}`);
  const want = vectors * nt * bps;
  if (p.length !== want)
    fail(`has ${p.length} entries, expected vectors x nt x bitsPerSymbol = ${vectors} x ${nt} x ${bps} = ${want}`, {
      expected: want,
      got: p.length,
    });
  for (let i = 0; i < p.length; i++) {
    const l = p[i]!;
    if (!Number.isFinite(l))
      fail(
        `contains ${Number.isNaN(l) ? 'NaN' : l > 0 ? 'Infinity' : '-Infinity'} at element ${i} (vector ${Math.floor(i / (nt * bps))}); a certain bit is a large finite LLR`,
        { index: i },
      );
  }
}

/**
 * Checks input and options; returns the derived sizes. Throws typed errors naming the problem.
 * values 'defer' skips the scan of H and y for NaN and infinities (the GPU engine's normalize
 * kernel flags them, and the engine then throws the same error).
 */
export function validateDetection(
  input: DetectionInput,
  opts: DetectOptions,
  values: 'check' | 'defer' = 'check',
  call = 'detect()',
): ValidatedInput {
  if (input === null || typeof input !== 'object') throw new InvalidArgumentError('detection input must be an object');
  const checked = checkDetectOptions(opts, call, { required: ['modulation'] });
  const entry = detectorEntry(checked.detector)!;
  const nt = checkAntennas(input.nt, 'nt');
  const nr = checkAntennas(input.nr, 'nr');
  checkDetectorShape(checked.detector, checked.modulation, nt, nr);
  if (!(input.H instanceof Float64Array || input.H instanceof Float32Array))
    throw new InvalidInputError(
      'INVALID_INPUT',
      'H must be a Float64Array or Float32Array (interleaved complex, column-major)',
    );
  if (!(input.y instanceof Float64Array || input.y instanceof Float32Array))
    throw new InvalidInputError('INVALID_INPUT', 'y must be a Float64Array or Float32Array (interleaved complex)');
  const perChannel = 2 * nr * nt;
  if (input.y.length === 0) throw new InvalidInputError('INVALID_INPUT', 'y holds no received vectors');
  if (input.y.length % (2 * nr) !== 0)
    throw new InvalidInputError('SHAPE_MISMATCH', `y has ${input.y.length} reals, not a multiple of 2 nr = ${2 * nr}`);
  if (input.H.length === 0 || input.H.length % perChannel !== 0) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `H has ${input.H.length} reals, not a positive multiple of 2 nr nt = ${perChannel}`,
    );
  }
  const vectors = input.y.length / (2 * nr);
  const hChannels = input.H.length / perChannel;
  let vpc: number;
  if (input.vectorsPerChannel === undefined) {
    if (vectors % hChannels !== 0)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `${vectors} vectors cannot be split evenly over ${hChannels} channels; give vectorsPerChannel`,
      );
    vpc = vectors / hChannels;
  } else {
    vpc = input.vectorsPerChannel;
    if (!Number.isInteger(vpc) || vpc < 1)
      throw new InvalidArgumentError(`vectorsPerChannel must be a positive integer, got ${show(vpc)}`);
    const need = Math.ceil(vectors / vpc);
    if (need !== hChannels)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `${vectors} vectors at ${vpc} per channel need ${need} channels, H holds ${hChannels}`,
      );
  }
  if (values === 'check') {
    checkFinite(input.H, 'H');
    checkFinite(input.y, 'y');
  }
  const soft = entry.traits.soft && checked.soft !== 'none';
  checkPriorLlr(input, checked.detector, vectors, nt, bitsPerSymbolOf(checked.modulation));
  const positive = soft
    ? 'for soft output (LLRs scale with 1/N0)'
    : entry.traits.positiveNoise
      ? `for ${checked.detector} (N0 weighs its prior against the observation)`
      : null;
  let noiseAt: (v: number) => number;
  const nv = input.noiseVar;
  if (typeof nv === 'number') {
    checkNoise(nv, 'noiseVar', positive);
    noiseAt = () => nv;
  } else if (nv instanceof Float64Array || nv instanceof Float32Array) {
    if (nv.length !== vectors)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `noiseVar has ${nv.length} entries, expected one per vector (${vectors})`,
      );
    for (let v = 0; v < nv.length; v++) checkNoise(nv[v]!, `noiseVar[${v}]`, positive);
    noiseAt = (v) => nv[v]!;
  } else {
    throw new InvalidArgumentError(
      'noiseVar must be a number or a Float64Array / Float32Array with one value per vector',
    );
  }
  if (nr < nt && entry.traits.wideChannels === 'regularized') {
    for (let v = 0; v < vectors; v++) {
      if (noiseAt(v) === 0)
        throw new InvalidArgumentError(
          `${checked.detector} with nr < nt (nt = ${nt}, nr = ${nr}) needs noiseVar > 0 (H^H H is singular), got 0${typeof nv === 'number' ? '' : ` at vector ${v}`}`,
        );
    }
  }
  return { nr, nt, vectors, channels: hChannels, vectorsPerChannel: vpc, noiseAt, opts: checked };
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** floor(log2 x) of a finite x > 0, read from its exponent bits (exact, subnormals included). */
export function exponentOf(x: number): number {
  if (x < 2 ** -1022) return exponentOf(x * 2 ** 64) - 64;
  f64[0] = x;
  return ((u32[1]! >>> 20) & 0x7ff) - 1023;
}

/** x * 2^p for an integer p, in steps that stay representable. */
export function timesPow2(x: number, p: number): number {
  while (p > 1000) {
    x *= 2 ** 1000;
    p -= 1000;
  }
  while (p < -1000) {
    x *= 2 ** -1000;
    p += 1000;
  }
  return x * 2 ** p;
}

/** Largest |a[i]| over [off, off + len). */
export function maxAbs(a: Float64Array | Float32Array, off: number, len: number): number {
  let m = 0;
  for (let i = off; i < off + len; i++) {
    const v = Math.abs(a[i]!);
    if (v > m) m = v;
  }
  return m;
}

/** dst[dOff .. dOff + len) = src[off ..] * 2^p. */
export function scaleInto(
  src: Float64Array | Float32Array,
  off: number,
  len: number,
  p: number,
  dst: Float64Array | Float32Array,
  dOff = 0,
): void {
  if (p >= -1000 && p <= 1000) {
    const f = 2 ** p;
    for (let i = 0; i < len; i++) dst[dOff + i] = src[off + i]! * f;
  } else {
    for (let i = 0; i < len; i++) dst[dOff + i] = timesPow2(src[off + i]!, p);
  }
}

/** Largest ratio (as a power of two) of a vector's largest entry to its channel's. */
export const MAX_Y_OVER_H_EXPONENT = 500;
const NOISE_FLOOR = 2 ** -1000,
  NOISE_CEIL = 2 ** 1000;

/** The CPU engine's scale of channel c: the power of two that brings its largest entry into [1, 2) (0 for a zero channel). */
export function channelShift(H: Float64Array | Float32Array, c: number, hLen: number): number {
  const m = maxAbs(H, c * hLen, hLen);
  return m > 0 ? -exponentOf(m) : 0;
}

/** Whether vector v's largest entry is over 2^MAX_Y_OVER_H_EXPONENT times its channel's (scaled by 2^p, its metrics would overflow). */
export function yTooLarge(Y: Float64Array | Float32Array, v: number, yLen: number, p: number): boolean {
  const m = maxAbs(Y, v * yLen, yLen);
  return m > 0 && exponentOf(m) + p > MAX_Y_OVER_H_EXPONENT;
}

/**
 * The first vector that yTooLarge refuses (each vector v with its channel's power of two
 * shift[floor(v / vpc)]), or -1: one comparison an entry, |y_i| >= 2^(MAX + 1 - p) being
 * exactly exponentOf(max |y|) + p > MAX (the bound is a normal double or infinity).
 */
export function firstTooLarge(Y: Float64Array, shift: Int32Array, vpc: number, yLen: number): number {
  const vectors = Y.length / yLen;
  for (let c = 0; c * vpc < vectors; c++) {
    const bound = tooLargeBound(shift[c]!),
      end = Math.min(vectors, (c + 1) * vpc) * yLen;
    for (let i = c * vpc * yLen; i < end; i++) if (Math.abs(Y[i]!) >= bound) return Math.floor(i / yLen);
  }
  return -1;
}

/** 2^(MAX_Y_OVER_H_EXPONENT + 1 - p), from its exponent bits (a normal double), or infinity past the largest: |y_i| at or over it is too large at channel shift p. */
function tooLargeBound(p: number): number {
  const e = MAX_Y_OVER_H_EXPONENT + 1 - p;
  u32[0] = 0;
  u32[1] = (e + 1023) << 20;
  return e <= 1023 ? f64[0]! : Infinity;
}

/** The CPU engine's error for a vector yTooLarge refuses. */
export function yTooLargeError(input: DetectionInput, val: ValidatedInput, v: number): InvalidInputError {
  const hLen = 2 * val.nr * val.nt,
    yLen = 2 * val.nr,
    c = Math.floor(v / val.vectorsPerChannel);
  return new InvalidInputError(
    'INVALID_INPUT',
    `vector ${v}: its largest entry (${maxAbs(input.y, v * yLen, yLen)}) is over 2^${MAX_Y_OVER_H_EXPONENT} times the largest entry of channel ${c} (${maxAbs(input.H, c * hLen, hLen)}); its metrics would overflow`,
    { vector: v, channel: c },
  );
}

/** N0 scaled with its channel (by 2^(2p)) and held in [floor, ceil] (the CPU engine's: [2^-1000, 2^1000]); 0 stays 0. */
export function scaledNoise(noise: number, p: number, floor = NOISE_FLOOR, ceil = NOISE_CEIL): number {
  if (!(noise > 0)) return noise;
  const s = timesPow2(noise, 2 * p);
  return s < floor ? floor : s > ceil ? ceil : s;
}

/**
 * The detector's WebAssembly kernel where the one policy (pickCpuKernel) picks 'wasm-simd' and the
 * kernel covers the setup; null: the TypeScript reference runs. `request` 'wasm' with a setup the
 * kernel does not cover is an EngineUnavailableError naming why (never a silent fallback).
 */
function laneKernelOf(impl: CpuDetector, setup: DetectorSetup, request: CpuKernelRequest): LaneKernel | null {
  if (!impl.lanes || pickCpuKernel(request, `detect() ${impl.name}`) !== 'wasm-simd') return null;
  const kernel = impl.lanes(setup);
  if (typeof kernel !== 'string') return kernel;
  if (request === 'wasm')
    throw new EngineUnavailableError(`detect() ${impl.name}: cpuKernel 'wasm' asked for, and ${kernel}`, {
      cause: kernel,
    });
  return null;
}

/**
 * Batched detection on the CPU engine (synchronous; detectAsync() runs either engine): `input`
 * holds channels x nr x nt channels and vectors x nr received vectors (complex, interleaved); the
 * result holds vectors x nt symbol indices, vectors x nt x bitsPerSymbol bits and, for soft
 * detectors, as many LLRs (see DetectionInput, DetectionResult). float32 input is widened to float64.
 */
export function detect(input: DetectionInput, opts: DetectOptions): DetectionResult {
  const t0 = performance.now();
  // the scan of H and y for NaN and infinities waits for detectCpu, which reads them once; an
  // error found before it comes after the scan's, so the scan runs first there
  let val: ValidatedInput;
  try {
    val = validateDetection(input, opts, 'defer');
  } catch (e) {
    validateDetection(input, opts);
    throw e;
  }
  try {
    cpuOnlyEngine(val.opts.engine, 'detect()', 'detectAsync()');
  } catch (e) {
    checkFinite(input.H, 'H');
    checkFinite(input.y, 'y');
    throw e;
  }
  return detectCpu(input, val, t0, 'unscanned');
}

/**
 * The CPU engine on validated input (detect() and the GPU engine's redo of flagged vectors).
 * `values` 'unscanned': H and y are not yet checked for NaN and infinities (validateDetection's
 * 'defer'), and detectCpu checks them first, as validation would have: every error as the
 * validated call throws it, while a WebAssembly kernel's run reads H and y once for the scan, the
 * scale and the copy.
 */
export function detectCpu(
  input: DetectionInput,
  val: ValidatedInput,
  t0 = performance.now(),
  values: 'scanned' | 'unscanned' = 'scanned',
): DetectionResult {
  const H = input.H instanceof Float64Array ? input.H : Float64Array.from(input.H);
  const Y = input.y instanceof Float64Array ? input.y : Float64Array.from(input.y);
  const { nr, nt, vectors, channels, vectorsPerChannel: vpc, noiseAt } = val;
  const mod = val.opts.modulation;
  const con = constellation(mod);
  const entry = detectorEntry(val.opts.detector)!;
  const impl = entry.cpu;
  const soft = entry.traits.soft && impl.soft && val.opts.soft !== 'none';
  const maxNodes = maxNodesOf(val.opts.maxNodes),
    onBudget = onBudgetOf(val.opts.onBudget);
  // Per channel: the power of two that brings its largest entry into [1, 2) (0 for a zero channel).
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  const shift = new Int32Array(channels);
  /** The input's checks in their order, each pass over the whole batch (the first problem thrown); sets shift. */
  function checkAll(): void {
    if (values === 'unscanned') {
      checkFinite(input.H, 'H');
      checkFinite(input.y, 'y');
    }
    for (let c = 0; c < channels; c++) shift[c] = channelShift(H, c, hLen);
    const tooLarge = firstTooLarge(Y, shift, vpc, yLen);
    if (tooLarge >= 0) throw yTooLargeError(input, val, tooLarge);
  }
  /** Throws `e` after the input's checks (which throw first where they find a problem). */
  function after(e: unknown): never {
    checkAll();
    throw e;
  }
  const prior = input.priorLlr;
  const setup: DetectorSetup = {
    nr,
    nt,
    modulation: mod,
    constellation: con,
    opts: val.opts,
    soft,
    maxNodes,
    ...(prior ? { priorLlr: prior instanceof Float64Array ? prior : Float64Array.from(prior) } : {}),
  };
  let instance: ReturnType<CpuDetector['create']>, lanes: LaneKernel | null;
  try {
    instance = impl.create(setup);
    lanes = laneKernelOf(impl, setup, val.opts.cpuKernel ?? 'auto');
  } catch (e) {
    after(e);
  }
  // checked up front, or run by run by the kernel (LaneKernel.scan) as it reads them
  if (!lanes?.scan) checkAll();
  const out: LaneOutput = {
    symbols: new Int32Array(vectors * nt),
    llr: soft ? new Float64Array(vectors * nt * con.bitsPerSymbol) : null,
    unproven: new Uint8Array(vectors),
    bits: lanes?.bits ? new Uint8Array(vectors * nt * con.bitsPerSymbol) : null,
  };
  const Hs = new Float64Array(hLen),
    ys = new Float64Array(yLen);
  let prep: unknown;
  let prepChannel = -1,
    prepNoise = NaN,
    nodes = 0,
    budgetExceeded = 0;
  /** The reference on vectors [from, to), in order: its errors come as the reference's do. */
  function reference(from: number, to: number): void {
    for (let v = from; v < to; v++) {
      const c = Math.floor(v / vpc),
        p = shift[c]!;
      const noise = scaledNoise(noiseAt(v), p);
      if (c !== prepChannel || noise !== prepNoise) {
        if (c !== prepChannel) scaleInto(H, c * hLen, hLen, p, Hs);
        try {
          prep = instance.prepare(Hs, 0, noise);
        } catch (e) {
          throw withContext(e, { channel: c });
        }
        prepChannel = c;
        prepNoise = noise;
      }
      scaleInto(Y, v * yLen, yLen, p, ys);
      nodes += instance.detect(prep, ys, 0, noise, out, v);
      if (out.unproven[v]) {
        if (onBudget === 'error') {
          throw nodeBudgetError(maxNodes, { detector: val.opts.detector, vector: v });
        }
        budgetExceeded++;
      }
    }
  }
  // The WebAssembly kernel: the batch in runs of at most lanes.capacity vectors, scaled into its memory.
  for (let v0 = 0; lanes && v0 < vectors; v0 += lanes.capacity) {
    const v1 = Math.min(vectors, v0 + lanes.capacity),
      c0 = Math.floor(v0 / vpc),
      c1 = Math.floor((v1 - 1) / vpc) + 1;
    const run = lanes.inputs(c1 - c0, v1 - v0);
    if (lanes.scan || lanes.unscaled) {
      // H and y copied as they are: the kernel scales them itself (and, with scan, checks them,
      // each entry read once)
      run.H.set(H.subarray(c0 * hLen, c1 * hLen));
      run.y.set(Y.subarray(v0 * yLen, v1 * yLen));
      for (let v = v0, c = c0, next = (c0 + 1) * vpc; v < v1; v++) {
        if (v === next) {
          c++;
          next += vpc;
        }
        run.channel[v - v0] = c - c0;
      }
    }
    if (lanes.scan) {
      if (!lanes.scan(c1 - c0, v1 - v0)) {
        checkAll();
        throw new LatticeMimoError(
          'CHECK_FAILED',
          "detect(): the WebAssembly kernel's input check and detect()'s disagree",
        );
      }
      shift.set(run.shift, c0);
      for (let v = v0, raw = NaN, p = NaN, scaled = NaN; !lanes.unscaled && v < v1; v++) {
        const n0 = noiseAt(v),
          pv = shift[Math.floor(v / vpc)]!;
        if (n0 !== raw || pv !== p) {
          raw = n0;
          p = pv;
          scaled = scaledNoise(n0, pv);
        }
        run.noise[v - v0] = scaled;
      }
    } else if (lanes.unscaled) run.shift.set(shift.subarray(c0, c1));
    for (let c = c0; !lanes.scan && !lanes.unscaled && c < c1; c++) {
      const p = shift[c]!,
        a = Math.max(v0, c * vpc),
        b = Math.min(v1, (c + 1) * vpc);
      scaleInto(H, c * hLen, hLen, p, run.H, (c - c0) * hLen);
      // the channel's vectors in the run, contiguous
      scaleInto(Y, a * yLen, (b - a) * yLen, p, run.y, (a - v0) * yLen);
      let raw = NaN,
        scaled = NaN;
      for (let v = a; v < b; v++) {
        const n0 = noiseAt(v);
        if (n0 !== raw) {
          raw = n0;
          scaled = scaledNoise(n0, p);
        }
        run.noise[v - v0] = scaled;
        run.channel[v - v0] = c - c0;
      }
    }
    const r = lanes.run(c1 - c0, v1 - v0, out, v0);
    if (r < 0) {
      // the reference on the run throws what it throws first: a vector's budget error before the
      // channel, or the channel's error (after the input's checks: the later runs' not yet done)
      checkAll();
      reference(v0, v1);
      throw new LatticeMimoError('CHECK_FAILED', `the WebAssembly kernel could not prepare channel ${c0 - 1 - r}`);
    }
    nodes += r;
    for (let v = v0; v < v1; v++) {
      if (!out.unproven[v]) continue;
      if (onBudget === 'error') after(nodeBudgetError(maxNodes, { detector: val.opts.detector, vector: v }));
      budgetExceeded++;
    }
  }
  if (!lanes) reference(0, vectors);
  if (out.llr) {
    const clip = Math.min(val.opts.llrClip ?? LLR_LIMIT, LLR_LIMIT),
      llr = out.llr;
    for (let i = 0; i < llr.length; i++) {
      const l = llr[i]!;
      if (l > clip) llr[i] = clip;
      else if (l < -clip) llr[i] = -clip;
      else if (Number.isNaN(l)) {
        throw new LatticeMimoError(
          'CHECK_FAILED',
          `${val.opts.detector} produced a NaN LLR (vector ${Math.floor(i / (nt * con.bitsPerSymbol))}); please report this input`,
        );
      }
    }
  }
  const bits = out.bits ?? symbolsToBits(out.symbols, mod);
  const budgeted = entry.traits.nodeBudget === 'search';
  const stats: DetectionResult['stats'] = {
    detector: val.opts.detector,
    engine: 'cpu',
    vectors,
    timeMs: performance.now() - t0,
    ...(nodes > 0 ? { nodesVisited: nodes } : {}),
    ...(budgeted ? { budgetExceeded } : {}),
    kernel: lanes ? 'wasm-simd' : 'typescript',
  };
  const unproven = budgetExceeded > 0 ? { unproven: out.unproven } : {};
  return out.llr
    ? { symbols: out.symbols, bits, llr: out.llr, ...unproven, stats }
    : { symbols: out.symbols, bits, ...unproven, stats };
}
