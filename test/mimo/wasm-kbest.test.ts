/**
 * The K-best detector's WebAssembly kernel (src/mimo/detectors/kbest/kbest-lanes.as.ts) against the
 * TypeScript reference on fresh random inputs (Philox seed printed on failure):
 *  - decisions, LLRs and node counts equal bit for bit over random sizes (nt 1 to 4, nr nt to
 *    nt + 2), QPSK to 256-QAM, K from 1 past Q^levels, channel reuse, -5 to 30 dB, llrClip (none
 *    to tight) and soft 'none', odd vector and channel counts (a lane alone), a batch past one run;
 *  - exact ties (y = 0, integer channels without noise), where the search's order decides: the same;
 *  - a rank-deficient channel gets the reference's error, naming the first such channel;
 *  - the fallback: LATTICE_MIMO_WASM=off ('auto' runs TypeScript, 'wasm' refused), a-priori LLRs,
 *    BPSK and a K x Q past the kernel's: 'auto' runs the reference, 'wasm' is refused naming why.
 * Passes with the kernels off too (every comparison is then the reference against itself).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { EngineUnavailableError, RankDeficientError } from '../../src/core/errors.js';
import { WASM_ENV } from '../../src/core/wasm-kernels.js';
import { randomSymbols, transmit } from '../../src/mimo/channel.js';
import { detect } from '../../src/mimo/detect.js';
import { MAX_CHILDREN } from '../../src/mimo/detectors/kbest/wasm.js';
import { bitsPerSymbolOf } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Modulation } from '../../src/mimo/types.js';
import { plantDeficient, problem, sameAsReference, simd } from './wasm-problems.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const same = (input: DetectionInput, opts: DetectOptions, what: string) => sameAsReference(input, opts, what, msg);
const mods: Modulation[] = ['qpsk', '16qam', '64qam', '256qam'];

/** A K for nt streams of `mod`: 1, small, the default 16, around Q^2, or at and past Q^(2 nt) (nothing pruned); K Q within the kernel's. */
function randomK(rng: Philox, nt: number, mod: Modulation): number {
  const q = Math.sqrt(2 ** bitsPerSymbolOf(mod));
  const all = q ** (2 * nt);
  const ks = [1, 2 + (rng.nextUint32() % 7), 16, q * q + (rng.nextUint32() % 5), Math.min(all, 4096), all + 3];
  return Math.min(ks[rng.nextUint32() % ks.length]!, MAX_CHILDREN / q);
}

test('kbest: the kernel equals the reference bit for bit on random problems', () => {
  const rng = new Philox(seed, 1);
  for (let trial = 0; trial < 40; trial++) {
    const nt = 1 + (rng.nextUint32() % 4),
      nr = nt + (rng.nextUint32() % 3);
    const mod = mods[rng.nextUint32() % 4]!;
    const vpc = 1 + (rng.nextUint32() % 5),
      vectors = 1 + (rng.nextUint32() % 31);
    const snr = -5 + rng.uniform() * 35;
    const opts: DetectOptions = { detector: 'kbest', modulation: mod, k: randomK(rng, nt, mod), maxNodes: 1e9 };
    const r = rng.nextUint32() % 4;
    if (r === 0) opts.soft = 'none';
    else if (r === 1) opts.llrClip = 0.5 + rng.uniform() * 20;
    else if (r === 2) opts.llrClip = 1e300; // no clip: the LLRs as computed
    same(
      problem(rng, nt, nr, mod, vectors, vpc, snr),
      opts,
      `kbest ${nt}x${nr} ${mod} ${vectors} vectors at ${vpc}, ${snr.toFixed(1)} dB, ${JSON.stringify(opts)}`,
    );
  }
});

test('kbest: exact ties (y = 0, integer channels without noise) go as in the reference', () => {
  const rng = new Philox(seed, 2);
  for (let trial = 0; trial < 12; trial++) {
    const nt = 1 + (rng.nextUint32() % 4),
      nr = nt + (rng.nextUint32() % 2);
    const mod = mods[rng.nextUint32() % 3]!;
    const vectors = 2 + (rng.nextUint32() % 9),
      vpc = 1 + (rng.nextUint32() % 3);
    const input = problem(rng, nt, nr, mod, vectors, vpc, 20);
    const H = Float64Array.from(input.H);
    if (trial % 2) {
      // small integer channels (many equal metrics), received without noise
      for (let i = 0; i < H.length; i++) H[i] = (rng.nextUint32() % 5) - 2;
      for (let c = 0; c * 2 * nr * nt < H.length; c++)
        for (let j = 0; j < Math.min(nt, nr); j++) H[c * 2 * nr * nt + j * 2 * nr + 2 * j] = 3;
    }
    const { symbols } = randomSymbols(rng, vectors * nt, mod);
    const y = trial % 2 ? transmit(H, symbols, nt, nr, vpc) : new Float64Array(vectors * 2 * nr);
    // a few vectors all zero in either case
    for (let v = 0; v < vectors; v += 3) y.fill(0, v * 2 * nr, (v + 1) * 2 * nr);
    const k = [1, 3, 16, 64][rng.nextUint32() % 4]!;
    same(
      { ...input, H, y },
      { detector: 'kbest', modulation: mod, k, maxNodes: 1e9 },
      `kbest ties ${nt}x${nr} ${mod} K=${k} trial ${trial}`,
    );
  }
});

test('kbest: a batch past one run of the kernel, and per-vector noise', () => {
  const rng = new Philox(seed, 3);
  const input = problem(rng, 4, 4, '16qam', 1501, 7, 12);
  const noise = new Float64Array(1501).map(() => 0.02 + rng.uniform() * 0.1);
  same({ ...input, noiseVar: noise }, { detector: 'kbest', modulation: '16qam' }, 'kbest 4x4 16qam, 1501 vectors');
});

test("kbest: a rank-deficient channel gets the reference's error, naming the first", () => {
  const rng = new Philox(seed, 4);
  for (let trial = 0; trial < 12; trial++) {
    const nt = 2 + (rng.nextUint32() % 3),
      channels = 2 + (rng.nextUint32() % 6);
    const p = problem(rng, nt, nt, '16qam', channels, 1, 20);
    const Hd = Float64Array.from(p.H);
    const bad = plantDeficient(rng, Hd, channels, nt, nt);
    const first = bad.indexOf(true);
    const errorOf = (cpuKernel: 'typescript' | 'auto') => {
      try {
        detect({ ...p, H: Hd }, { detector: 'kbest', modulation: '16qam', cpuKernel });
      } catch (e) {
        assert.ok(e instanceof RankDeficientError, msg(String(e)));
        return `${e.code} ${e.message}`;
      }
      return 'no error';
    };
    assert.match(errorOf('typescript'), new RegExp(`channel ${first}\\b`), msg(`deficient channels ${bad}`));
    assert.equal(errorOf('auto'), errorOf('typescript'), msg(`deficient channels ${bad}`));
  }
});

test('kbest: the fallback (LATTICE_MIMO_WASM=off, a-priori LLRs, BPSK, a K past the kernel)', () => {
  const rng = new Philox(seed, 5);
  const input = problem(rng, 2, 2, '16qam', 8, 2, 15);
  const opts: DetectOptions = { detector: 'kbest', modulation: '16qam' };
  const before = process.env[WASM_ENV];
  process.env[WASM_ENV] = 'off';
  try {
    assert.equal(detect(input, opts).stats.kernel, 'typescript');
    assert.throws(
      () => detect(input, { ...opts, cpuKernel: 'wasm' }),
      (e) => e instanceof EngineUnavailableError && e.message.includes(WASM_ENV),
    );
  } finally {
    if (before === undefined) delete process.env[WASM_ENV];
    else process.env[WASM_ENV] = before;
  }
  const refused = (inp: DetectionInput, o: DetectOptions, why: RegExp) => {
    assert.equal(detect(inp, o).stats.kernel, 'typescript', msg(String(why)));
    if (simd)
      assert.throws(
        () => detect(inp, { ...o, cpuKernel: 'wasm' }),
        (e) => e instanceof EngineUnavailableError && why.test(e.message),
        msg(String(why)),
      );
  };
  const priorLlr = new Float64Array(8 * 2 * 4).map(() => rng.uniform() * 4 - 2);
  refused({ ...input, priorLlr }, opts, /a-priori/);
  refused(problem(rng, 2, 2, 'bpsk', 4, 1, 10), { detector: 'kbest', modulation: 'bpsk' }, /square QAM/);
  refused(
    problem(rng, 3, 3, '256qam', 4, 1, 30),
    { detector: 'kbest', modulation: '256qam', k: MAX_CHILDREN / 8, maxNodes: 1e9 },
    /K x Q/,
  );
});
