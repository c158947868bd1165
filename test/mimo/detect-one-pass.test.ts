/**
 * detect() reads H and y once where a WebAssembly kernel runs (the scan for NaN and infinities,
 * each channel's scale, the too-large check and the copy into the kernel's memory in one pass):
 * on fresh random inputs with bad entries planted at random places (NaN, infinities, vectors over
 * 2^500 times their channel, several at once, with other errors beside them: a bad noiseVar, the
 * 'cuda' engine, a node budget hit in an earlier run), every call throws what the unfused checks
 * throw first, in their order (validation with its scan, the engine, then the first too-large
 * vector: the same class, code, message and details), and where nothing is wrong the kernel's
 * outputs equal the reference's (cpuKernel 'typescript', which scans and scales pass by pass).
 * detectAsync's CPU engine the same, in its order (its scan after the rest of the validation).
 * Philox seed printed on failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { cpuOnlyEngine } from '../../src/gpu/index.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import {
  type ValidatedInput,
  channelShift,
  checkFinite,
  detect,
  firstTooLarge,
  maxAbs,
  validateDetection,
  yTooLargeError,
} from '../../src/mimo/detect.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { bitsPerSymbolOf } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectionResult, Detector, DetectOptions, Modulation } from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

type Outcome = { error: unknown } | { result: DetectionResult };

function outcome(f: () => DetectionResult): Outcome {
  try {
    return { result: f() };
  } catch (error) {
    return { error };
  }
}

/**
 * The checks as passes over the whole input, in the call's order: detect()'s validation (its scan
 * of H, then y) and engine, or detectAsync()'s validation, then its scan; each channel's scale,
 * the first too-large vector.
 */
function unfusedError(input: DetectionInput, opts: DetectOptions, call: 'detect()' | 'detectAsync()'): unknown {
  try {
    let val: ValidatedInput;
    if (call === 'detect()') {
      val = validateDetection(input, opts);
      cpuOnlyEngine(val.opts.engine, 'detect()', 'detectAsync()');
    } else {
      // detectAsync scans H and y after the rest of the validation and the engine's choice
      val = validateDetection(input, opts, 'defer', call);
      checkFinite(input.H, 'H');
      checkFinite(input.y, 'y');
    }
    const H = Float64Array.from(input.H),
      Y = Float64Array.from(input.y);
    const hLen = 2 * val.nr * val.nt,
      shift = new Int32Array(val.channels);
    for (let c = 0; c < val.channels; c++) shift[c] = channelShift(H, c, hLen);
    const v = firstTooLarge(Y, shift, val.vectorsPerChannel, 2 * val.nr);
    if (v >= 0) return yTooLargeError(input, val, v);
  } catch (e) {
    return e;
  }
  return null;
}

/** The error's class, code, message and details. */
function describe(e: unknown): unknown {
  if (!(e instanceof Error)) return { thrown: e };
  const x = e as Error & { code?: unknown; details?: unknown };
  return { name: x.constructor.name, code: x.code, message: x.message, details: x.details };
}

function sameOutcome(got: Outcome, want: Outcome, what: string): void {
  if ('error' in want) {
    assert.ok('error' in got, msg(`${what}: expected ${String(want.error)}, got a result`));
    assert.deepEqual(describe(got.error), describe(want.error), msg(what));
    return;
  }
  if ('error' in got) assert.fail(msg(`${what}: unexpected ${String(got.error)}`));
  const a = got.result,
    b = want.result;
  assert.deepEqual(a.symbols, b.symbols, msg(`${what}: symbols`));
  assert.deepEqual(a.bits, b.bits, msg(`${what}: bits`));
  assert.deepEqual(a.llr, b.llr, msg(`${what}: LLRs`));
  assert.deepEqual(a.unproven, b.unproven, msg(`${what}: unproven`));
  assert.equal(a.stats.nodesVisited, b.stats.nodesVisited, msg(`${what}: nodes`));
  assert.equal(a.stats.budgetExceeded, b.stats.budgetExceeded, msg(`${what}: budgetExceeded`));
}

const KERNEL_DETECTORS: Detector[] = ['sphere', 'nway', 'ssfe', 'kbest', 'zf', 'mmse', 'sic'];

/** A random problem and options, with bad entries and other errors planted at random. */
function randomCase(rng: Philox): { input: DetectionInput; opts: DetectOptions; what: string } {
  const pick = <T>(a: readonly T[]): T => a[rng.nextUint32() % a.length]!;
  const detector: Detector = rng.uniform() < 0.85 ? pick(KERNEL_DETECTORS) : pick(['ml', 'psd'] as Detector[]);
  const mod: Modulation = rng.uniform() < 0.1 ? 'bpsk' : pick(['qpsk', '16qam'] as Modulation[]);
  const nt = 1 + (rng.nextUint32() % 4),
    nr = nt + (rng.nextUint32() % 2);
  // most batches within one run of the kernel, some over several
  const vpc = pick([1, 1, 2, 3, 14, 40]),
    vectors = rng.uniform() < 0.2 ? 600 + (rng.nextUint32() % 1500) : 1 + (rng.nextUint32() % 60);
  const channels = Math.ceil(vectors / vpc);
  const H = rayleighChannels(rng, channels, nt, nr);
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  let noise = snrToNoiseVar(-5 + 35 * rng.uniform(), 'esn0', bitsPerSymbolOf(mod));
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), noise);
  // the whole input at another scale (tiny channels shift past 2^1000 where scaled)
  const k = rng.uniform() < 0.3 ? pick([-1040, -700, -300, 300, 480]) : 0;
  if (k !== 0) {
    for (let i = 0; i < H.length; i++) H[i] = H[i]! * 2 ** k;
    for (let i = 0; i < y.length; i++) y[i] = y[i]! * 2 ** k;
    // N0 with them where it stays a normal double; else as it was (clamped where scaled)
    if (Math.abs(k) <= 500) noise = noise * 2 ** k * 2 ** k;
  }
  const planted: string[] = [];
  const bad = rng.uniform() < 0.25 ? 0 : 1 + (rng.nextUint32() % 3);
  for (let j = 0; j < bad; j++) {
    const kind = pick(['NaN', 'Infinity', '-Infinity', 'large', 'large']);
    if (kind === 'large') {
      const v = rng.nextUint32() % vectors,
        c = Math.floor(v / vpc),
        i = v * 2 * nr + (rng.nextUint32() % (2 * nr));
      const m = maxAbs(H, c * 2 * nr * nt, 2 * nr * nt) || 1;
      y[i] = (rng.uniform() < 0.5 ? -1 : 1) * Math.min(m * 2 ** (501 + (rng.nextUint32() % 3)), 1e308);
      planted.push(`large y[${i}]`);
    } else {
      const inH = rng.uniform() < 0.5,
        a = inH ? H : y,
        i = rng.nextUint32() % a.length;
      a[i] = kind === 'NaN' ? NaN : kind === 'Infinity' ? Infinity : -Infinity;
      planted.push(`${kind} ${inH ? 'H' : 'y'}[${i}]`);
    }
  }
  const opts: DetectOptions = { detector, modulation: mod };
  const other = rng.uniform();
  if (other < 0.1) Object.assign(opts, { engine: 'cuda' });
  if (other >= 0.1 && other < 0.2) noise = -noise;
  if (detector === 'sphere' && rng.uniform() < 0.3)
    Object.assign(opts, { maxNodes: 2 + (rng.nextUint32() % 12), onBudget: pick(['error', 'flag']) });
  const wide = rng.uniform() < 0.6;
  const input: DetectionInput = {
    nt,
    nr,
    H: wide ? H : Float32Array.from(H),
    y: wide ? y : Float32Array.from(y),
    vectorsPerChannel: vpc,
    noiseVar: noise,
  };
  return {
    input,
    opts,
    what: `${detector} ${nt}x${nr} ${mod}, ${vectors} vectors at ${vpc}, scale 2^${k}, ${planted.join(', ') || 'clean'}, ${JSON.stringify(opts)}, noise ${noise}`,
  };
}

test('detect(): errors as the unfused checks throw them, outputs as the reference gives them, on random inputs with planted bad entries', () => {
  const rng = new Philox(seed);
  let errors = 0;
  for (let t = 0; t < 300; t++) {
    const { input, opts, what } = randomCase(rng);
    const got = outcome(() => detect(input, opts));
    const want = unfusedError(input, opts, 'detect()');
    if (want !== null) {
      errors++;
      sameOutcome(got, { error: want }, what);
    } else if (KERNEL_DETECTORS.includes(opts.detector as Detector)) {
      sameOutcome(
        got,
        outcome(() => detect(input, { ...opts, cpuKernel: 'typescript' })),
        what,
      );
    }
  }
  assert.ok(errors > 50, msg(`only ${errors} of the cases had an error`));
});

test('detectAsync() on the CPU engine: the same errors and outputs as detect()', async () => {
  const rng = new Philox(seed + 1);
  for (let t = 0; t < 60; t++) {
    const { input, opts, what } = randomCase(rng);
    if (opts.engine === 'cuda') continue;
    const cpu = { ...opts, engine: 'cpu' as const };
    let got: Outcome;
    try {
      got = { result: await detectAsync(input, cpu) };
    } catch (error) {
      got = { error };
    }
    const want = unfusedError(input, cpu, 'detectAsync()');
    if (want !== null) sameOutcome(got, { error: want }, `detectAsync ${what}`);
    else
      sameOutcome(
        got,
        outcome(() => detect(input, cpu)),
        `detectAsync ${what}`,
      );
  }
});
