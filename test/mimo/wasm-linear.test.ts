/**
 * The linear detectors' WebAssembly kernel (zf, mmse, sic: src/mimo/detectors/zf/linear-lanes.as.ts)
 * against the TypeScript reference on fresh random inputs (Philox seed printed on failure):
 *  - symbols and bits equal over nt 1 to 8, nr >= nt and (mmse, sic) nr < nt, BPSK to 256-QAM, 1 to
 *    14 vectors a channel, -5 to 30 dB, one N0 or one a vector (runs of equal values: the
 *    preparations the reference shares), inputs far from unit scale, and batches of several runs;
 *  - ill-conditioned channels (a column nearly another's: pivots near the reference's tolerance)
 *    and small-integer channels (exact zeros and ties in the pivoting and the elimination): the
 *    same symbols or the same error;
 *  - rank-deficient channels at random among good ones (zf; mmse and sic with N0 = 0): the same
 *    error (class, code, message, details), naming the first;
 *  - the kernel's Math.hypot (its pivots' magnitudes) equals V8's bit for bit on finite pairs of any
 *    magnitudes (subnormals, zeros, equal magnitudes, near overflow);
 *  - the fallback: LATTICE_MIMO_WASM=off ('auto' runs TypeScript, 'wasm' refused naming why).
 * With the kernels off (no SIMD, or LATTICE_MIMO_WASM=off) every comparison runs the reference twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { EngineUnavailableError } from '../../src/core/errors.js';
import { WASM_ENV } from '../../src/core/wasm-kernels.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { linearKernelHypot } from '../../src/mimo/detectors/zf/linear-wasm.js';
import type { DetectionInput, DetectionResult, DetectOptions, Modulation } from '../../src/mimo/types.js';
import { plantDeficient, problem, simd } from './wasm-problems.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const MODS: Modulation[] = ['bpsk', 'qpsk', '16qam', '64qam', '256qam'];
const LINEAR = ['zf', 'mmse', 'sic'] as const;

type Outcome = { result: DetectionResult } | { error: string };

function outcome(input: DetectionInput, opts: DetectOptions): Outcome {
  try {
    return { result: detect(input, opts) };
  } catch (e) {
    const err = e as Error & { code?: string; details?: unknown };
    return { error: `${err.constructor.name} ${err.code} ${err.message} ${JSON.stringify(err.details)}` };
  }
}

/** The reference and the kernel ('auto') on the same input: the same symbols and bits, or the same error. */
function same(input: DetectionInput, opts: DetectOptions, what: string): Outcome {
  const ts = outcome(input, { ...opts, cpuKernel: 'typescript' });
  const k = outcome(input, { ...opts, cpuKernel: 'auto' });
  if ('error' in ts) {
    assert.deepEqual(k, ts, msg(`${what}: the reference's error`));
    return ts;
  }
  assert.ok('result' in k, msg(`${what}: ${'error' in k ? k.error : ''}`));
  assert.equal(ts.result.stats.kernel, 'typescript');
  assert.equal(k.result.stats.kernel, simd ? 'wasm-simd' : 'typescript', msg(what));
  assert.deepEqual(k.result.symbols, ts.result.symbols, msg(`${what}: symbols`));
  assert.deepEqual(k.result.bits, ts.result.bits, msg(`${what}: bits`));
  return ts;
}

test('zf, mmse, sic: the kernel equals the reference bit for bit on random problems', () => {
  const rng = new Philox(seed, 1);
  for (let trial = 0; trial < 90; trial++) {
    const detector = LINEAR[trial % 3]!;
    const nt = 1 + (rng.nextUint32() % 8);
    // zf needs nr >= nt; mmse and sic also take wide channels
    const nr = detector !== 'zf' && rng.uniform() < 0.25 ? 1 + (rng.nextUint32() % nt) : nt + (rng.nextUint32() % 4);
    const mod = MODS[rng.nextUint32() % MODS.length]!;
    const vpc = [1, 1, 2, 3, 5, 14][rng.nextUint32() % 6]!,
      vectors = 1 + (rng.nextUint32() % 120);
    const snr = -5 + rng.uniform() * 35;
    let input = problem(rng, nt, nr, mod, vectors, vpc, snr, rng.uniform() < 0.4);
    // the whole input at another scale, N0 with it: detect() scales each channel back
    const k = rng.uniform() < 0.2 ? [-300, 300, 480][rng.nextUint32() % 3]! : 0;
    if (k !== 0) {
      const H = input.H as Float64Array,
        y = input.y as Float64Array;
      for (let i = 0; i < H.length; i++) H[i] = H[i]! * 2 ** k;
      for (let i = 0; i < y.length; i++) y[i] = y[i]! * 2 ** k;
      const n0 = input.noiseVar;
      input = {
        ...input,
        noiseVar: typeof n0 === 'number' ? n0 * 2 ** (2 * k) : Float64Array.from(n0, (x) => x * 2 ** (2 * k)),
      };
    }
    const what = `${detector} ${nt}x${nr} ${mod} ${vectors} vectors at ${vpc}, ${snr.toFixed(1)} dB, scale 2^${k}`;
    const r = same(input, { detector, modulation: mod }, what);
    assert.ok('result' in r, msg(`${what}: a Rayleigh channel refused`));
  }
});

test('zf, mmse, sic: batches of several runs, with an N0 a vector', () => {
  const rng = new Philox(seed, 2);
  for (const detector of LINEAR) {
    const input = problem(rng, 4, 4, '16qam', 3001, 7, 12, true);
    same(input, { detector, modulation: '16qam' }, `${detector} 4x4 16qam, 3001 vectors`);
    const wide = problem(rng, 8, 8, 'qpsk', 1999, 1, 5, false);
    same(wide, { detector, modulation: 'qpsk' }, `${detector} 8x8 qpsk, 1999 vectors`);
  }
});

test('ill-conditioned and small-integer channels: the same symbols or the same error', () => {
  const rng = new Philox(seed, 3);
  let refused = 0,
    compared = 0;
  for (let trial = 0; trial < 60; trial++) {
    const detector = LINEAR[trial % 3]!;
    const nt = 2 + (rng.nextUint32() % 5),
      nr = nt + (rng.nextUint32() % 2);
    const mod = MODS[1 + (rng.nextUint32() % 3)]!;
    const vpc = 1 + (rng.nextUint32() % 4),
      vectors = 2 + (rng.nextUint32() % 30),
      channels = Math.ceil(vectors / vpc);
    let H: Float64Array;
    if (trial % 2) {
      // entries in {-2 .. 2} + i {-2 .. 2}: exact zeros, ties between pivots, singular draws
      H = new Float64Array(channels * 2 * nr * nt).map(() => (rng.nextUint32() % 5) - 2);
    } else {
      // one column another's plus a perturbation of 1e-3 to 1e-16 of it
      H = rayleighChannels(rng, channels, nt, nr);
      for (let c = 0; c < channels; c++) {
        const a = rng.nextUint32() % nt,
          b = (a + 1 + (rng.nextUint32() % (nt - 1))) % nt,
          eps = 10 ** -(3 + rng.uniform() * 13);
        const base = c * 2 * nr * nt;
        for (let i = 0; i < 2 * nr; i++)
          H[base + 2 * nr * b + i] = H[base + 2 * nr * a + i]! * (1 + eps * (rng.uniform() - 0.5));
      }
    }
    const input = problem(rng, nt, nr, mod, vectors, vpc, 10 + rng.uniform() * 30, rng.uniform() < 0.3, H);
    // N0 = 0 half the time: mmse and sic without regularization
    const noiseVar = rng.uniform() < 0.5 ? 0 : input.noiseVar;
    const r = same(
      { ...input, noiseVar },
      { detector, modulation: mod },
      `${detector} ${nt}x${nr} ${mod} trial ${trial}`,
    );
    if ('error' in r) refused++;
    else compared++;
  }
  assert.ok(refused > 0 && compared > 0, msg(`refused ${refused}, compared ${compared}`));
});

test("rank-deficient channels: the reference's error, naming the first", () => {
  const rng = new Philox(seed, 4);
  for (let trial = 0; trial < 30; trial++) {
    const detector = LINEAR[trial % 3]!;
    const nt = 2 + (rng.nextUint32() % 4),
      nr = nt + (rng.nextUint32() % 2);
    const vpc = 1 + (rng.nextUint32() % 3),
      channels = 2 + (rng.nextUint32() % 8);
    const input = problem(rng, nt, nr, '16qam', channels * vpc, vpc, 20, false);
    const H = input.H as Float64Array;
    const bad = plantDeficient(rng, H, channels, nt, nr);
    // N0 = 0: the Gram matrix itself
    const noiseVar = detector === 'zf' ? input.noiseVar : 0;
    const first = bad.indexOf(true);
    const what = `${detector} ${nt}x${nr}, deficient ${bad.join()}`;
    const r = same({ ...input, noiseVar }, { detector, modulation: '16qam' }, what);
    assert.ok('error' in r && r.error.startsWith('RankDeficientError'), msg(what));
    assert.match(r.error, new RegExp(`"channel":${first}\\b`), msg(what));
  }
});

test("the kernel's Math.hypot, which picks the pivots, is V8's bit for bit", () => {
  if (!simd) return;
  const rng = new Philox(seed, 6);
  const count = 20_001;
  const x = new Float64Array(count),
    y = new Float64Array(count);
  const draw = (): number => {
    const r = rng.uniform();
    if (r < 0.03) return 0;
    if (r < 0.06) return 2 ** -1074 * (1 + (rng.nextUint32() % 1000));
    const e = r < 0.5 ? -60 + (rng.nextUint32() % 120) : -1074 + (rng.nextUint32() % 2098);
    return (rng.uniform() - 0.5) * 2 ** Math.min(e, 1023) * 1.999;
  };
  for (let i = 0; i < count; i++) {
    x[i] = draw();
    const r = rng.uniform();
    // the same magnitude, one near it, or its own
    y[i] = r < 0.1 ? -x[i]! : r < 0.2 ? x[i]! * (1 + 2 ** -52 * (rng.nextUint32() % 8)) : draw();
  }
  const h = linearKernelHypot(x, y);
  for (let i = 0; i < count; i++)
    if (!Object.is(h[i], Math.hypot(x[i]!, y[i]!)))
      assert.fail(msg(`hypot(${x[i]}, ${y[i]}): the kernel's ${h[i]}, V8's ${Math.hypot(x[i]!, y[i]!)}`));
});

test('the fallback: LATTICE_MIMO_WASM=off runs the reference, and cpuKernel wasm is refused naming why', () => {
  const rng = new Philox(seed, 5);
  const input = problem(rng, 3, 4, '64qam', 20, 3, 18, false);
  const before = process.env[WASM_ENV];
  process.env[WASM_ENV] = 'off';
  try {
    for (const detector of LINEAR) {
      const a = detect(input, { detector, modulation: '64qam' });
      assert.equal(a.stats.kernel, 'typescript');
      assert.deepEqual(a.symbols, detect(input, { detector, modulation: '64qam', cpuKernel: 'typescript' }).symbols);
      assert.throws(
        () => detect(input, { detector, modulation: '64qam', cpuKernel: 'wasm' }),
        (e) => e instanceof EngineUnavailableError && e.message.includes(WASM_ENV),
      );
    }
  } finally {
    if (before === undefined) delete process.env[WASM_ENV];
    else process.env[WASM_ENV] = before;
  }
  for (const detector of LINEAR)
    assert.equal(detect(input, { detector, modulation: '64qam' }).stats.kernel, simd ? 'wasm-simd' : 'typescript');
});
