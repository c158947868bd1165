/**
 * The detectors' WebAssembly kernels (nway, ssfe: src/mimo/detectors/ssfe/ssfe-lanes.as.ts; sphere:
 * sphere/sphere-kernel.as.ts) against the TypeScript reference on fresh random inputs (Philox seed
 * printed on failure):
 *  - sphere: symbols, nodes, budget stops (unproven, budgetExceeded, the NODE_BUDGET error's vector)
 *    equal, with either initial radius;
 *  - nway, ssfe: decisions, LLRs and node counts equal bit for bit, over random sizes, modulations, channel
 *    reuse, SNRs, passes, llrClip (none to tight) and soft 'none', odd vector and channel counts (a lane alone),
 *    and a batch past one run of the kernel (several runs);
 *  - lr-zf, lr-mmse, lr-sic (their channels' bases on the lattice part's LLL kernel): symbols equal
 *    the reference's, with the kernel and with LATTICE_MIMO_WASM=off, over random sizes, channel
 *    reuse, per-vector N0 and several runs;
 *  - a rank-deficient channel gets the reference's error, naming the channel;
 *  - the fallback: cpuKernel 'typescript', LATTICE_MIMO_WASM=off ('auto' runs TypeScript, 'wasm'
 *    refused), and setups the kernel does not cover (a-priori LLRs, BPSK): 'auto' runs the
 *    reference, 'wasm' is refused naming why; cpuKernel refused for a detector without a kernel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { EngineUnavailableError, InvalidArgumentError, RankDeficientError } from '../../src/core/errors.js';
import { WASM_ENV } from '../../src/core/wasm-kernels.js';
import { addNoise, randomSymbols, transmit } from '../../src/mimo/channel.js';
import { checkFinite, detect, firstTooLarge, yTooLarge } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Modulation } from '../../src/mimo/types.js';
import { plantDeficient, problem, sameAsReference, simd } from './wasm-problems.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const same = (input: DetectionInput, opts: DetectOptions, what: string) => sameAsReference(input, opts, what, msg);

/** A random size: nt 1 to 4, nr nt to nt + 2, QPSK to 256-QAM, 1 to 4 vectors a channel, 1 to 41 vectors, -5 to 30 dB. */
function randomSize(rng: Philox) {
  const mods: Modulation[] = ['qpsk', '16qam', '64qam', '256qam'];
  const nt = 1 + (rng.nextUint32() % 4),
    nr = nt + (rng.nextUint32() % 3);
  const mod = mods[rng.nextUint32() % 4]!;
  const vpc = 1 + (rng.nextUint32() % 4),
    vectors = 1 + (rng.nextUint32() % 41);
  return { nt, nr, mod, vpc, vectors, snr: -5 + rng.uniform() * 35 };
}

test('nway and ssfe: the kernel equals the reference bit for bit on random problems', () => {
  const rng = new Philox(seed, 1);
  for (let trial = 0; trial < 24; trial++) {
    const { nt, nr, mod, vpc, vectors, snr } = randomSize(rng);
    const detector = trial % 3 === 0 ? 'ssfe' : 'nway';
    const opts: DetectOptions = { detector, modulation: mod };
    if (detector === 'nway' && rng.nextUint32() % 2) opts.passes = 1 + (rng.nextUint32() % nt);
    const r = rng.nextUint32() % 4;
    if (r === 0) opts.soft = 'none';
    else if (r === 1) opts.llrClip = 0.5 + rng.uniform() * 20;
    else if (r === 2) opts.llrClip = 1e300; // no clip: the LLRs as computed
    same(
      problem(rng, nt, nr, mod, vectors, vpc, snr),
      opts,
      `${detector} ${nt}x${nr} ${mod} ${vectors} vectors at ${vpc}, ${snr.toFixed(1)} dB, ${JSON.stringify(opts)}`,
    );
  }
});

test('sphere: the kernel equals the reference (symbols, nodes, budget stops) on random problems', () => {
  const rng = new Philox(seed, 5);
  for (let trial = 0; trial < 24; trial++) {
    const { nt, nr, mod, vpc, vectors, snr } = randomSize(rng);
    const opts: DetectOptions = { detector: 'sphere', modulation: mod };
    if (rng.nextUint32() % 2) opts.initialRadius = 'babai';
    // a budget some searches reach: their best leaf (or the sliced ZF point), flagged; always one
    // for 64- and 256-QAM, whose exact searches at a low SNR may take long
    const budget = rng.nextUint32() % 2 ? 2 * nt + (rng.nextUint32() % 40) : 20_000;
    if (budget < 20_000 || mod === '64qam' || mod === '256qam')
      Object.assign(opts, { maxNodes: budget, onBudget: 'flag' });
    const what = `sphere ${nt}x${nr} ${mod} ${vectors} vectors at ${vpc}, ${snr.toFixed(1)} dB, ${JSON.stringify(opts)}`;
    const input = problem(rng, nt, nr, mod, vectors, vpc, snr);
    same(input, opts, what);
    const a = detect(input, { ...opts, cpuKernel: 'typescript' }),
      b = detect(input, opts);
    assert.equal(b.stats.budgetExceeded, a.stats.budgetExceeded, msg(what));
    assert.deepEqual(b.unproven, a.unproven, msg(what));
  }
  // past the budget with onBudget 'error': the same error, naming the same vector
  const input = problem(rng, 4, 4, '64qam', 30, 3, 5);
  const errorOf = (cpuKernel: 'typescript' | 'auto') => {
    try {
      detect(input, { detector: 'sphere', modulation: '64qam', maxNodes: 9, cpuKernel });
    } catch (e) {
      return (e as { code?: string; details?: unknown }).code + JSON.stringify((e as { details?: unknown }).details);
    }
    return 'no error';
  };
  assert.equal(errorOf('auto'), errorOf('typescript'), msg('budget error'));
  assert.match(errorOf('auto'), /NODE_BUDGET/);
});

/** Exhaustive ML: the symbol indices minimizing ||y - H s||^2 over every combination, and the runner-up's margin. */
function exhaustiveMl(
  H: Float64Array,
  hOff: number,
  y: Float64Array,
  yOff: number,
  nt: number,
  nr: number,
  mod: Modulation,
) {
  const pts = constellation(mod).points,
    size = pts.length / 2;
  let best = Infinity,
    second = Infinity,
    arg: number[] = [];
  const s = new Array<number>(nt).fill(0);
  for (let combo = 0; combo < size ** nt; combo++) {
    for (let t = 0, c = combo; t < nt; t++, c = Math.floor(c / size)) s[t] = c % size;
    let d = 0;
    for (let r = 0; r < nr; r++) {
      let re = y[yOff + 2 * r]!,
        im = y[yOff + 2 * r + 1]!;
      for (let t = 0; t < nt; t++) {
        const hr = H[hOff + 2 * (t * nr + r)]!,
          hi = H[hOff + 2 * (t * nr + r) + 1]!,
          xr = pts[2 * s[t]!]!,
          xi = pts[2 * s[t]! + 1]!;
        re -= hr * xr - hi * xi;
        im -= hr * xi + hi * xr;
      }
      d += re * re + im * im;
    }
    if (d < best) {
      second = best;
      best = d;
      arg = [...s];
    } else if (d < second) second = d;
  }
  return { arg, margin: second - best, best };
}

test("sphere: the kernel's decisions are the exhaustive ML point on small random problems", () => {
  const rng = new Philox(seed, 6);
  const mods: Modulation[] = ['qpsk', '16qam'];
  let compared = 0;
  for (let trial = 0; trial < 16; trial++) {
    const mod = mods[trial % 2]!;
    const nt = 1 + (rng.nextUint32() % (mod === 'qpsk' ? 4 : 3)),
      nr = nt + (rng.nextUint32() % 2);
    const vpc = 1 + (rng.nextUint32() % 3),
      vectors = 1 + (rng.nextUint32() % 9);
    const snr = -5 + rng.uniform() * 30;
    const input = problem(rng, nt, nr, mod, vectors, vpc, snr);
    const opts: DetectOptions = { detector: 'sphere', modulation: mod };
    if (rng.nextUint32() % 2) opts.initialRadius = 'babai';
    const r = detect(input, opts);
    assert.equal(r.stats.kernel, simd ? 'wasm-simd' : 'typescript');
    const H = input.H as Float64Array,
      y = input.y as Float64Array;
    for (let v = 0; v < vectors; v++) {
      const ml = exhaustiveMl(H, Math.floor(v / vpc) * 2 * nr * nt, y, v * 2 * nr, nt, nr, mod);
      // a near tie (relative margin under 1e-9) may go either way in floating point
      if (ml.margin <= 1e-9 * ml.best) continue;
      compared++;
      assert.deepEqual(
        [...r.symbols.subarray(v * nt, (v + 1) * nt)],
        ml.arg,
        msg(
          `sphere ${nt}x${nr} ${mod} vector ${v} of ${vectors} at ${vpc}, ${snr.toFixed(1)} dB, ${JSON.stringify(opts)}`,
        ),
      );
    }
  }
  assert.ok(compared > 0);
});

test("sphere: the kernel equals the reference at budgets around its lanes' 2n - 1 nodes and with vectors far larger than their channel", () => {
  const rng = new Philox(seed, 7);
  for (let trial = 0; trial < 8; trial++) {
    const nt = 1 + (rng.nextUint32() % 4),
      nr = nt + (rng.nextUint32() % 2);
    const mod: Modulation = trial % 2 ? 'qpsk' : '16qam';
    const vectors = 1 + (rng.nextUint32() % 23),
      vpc = 1 + (rng.nextUint32() % 5);
    const input = problem(rng, nt, nr, mod, vectors, vpc, 5 + rng.uniform() * 20);
    const maxNodes = 4 * nt - 2 + (rng.nextUint32() % 3);
    const opts: DetectOptions = { detector: 'sphere', modulation: mod, maxNodes, onBudget: 'flag' };
    if (trial & 2) opts.initialRadius = 'babai';
    same(input, opts, `sphere ${nt}x${nr} ${mod} ${vectors} at ${vpc}, ${JSON.stringify(opts)}`);
    // some vectors up to 2^499 times their channel: metrics that overflow to infinity
    const y = Float64Array.from(input.y as Float64Array);
    for (let v = 0; v < vectors; v++)
      if (rng.nextUint32() % 2)
        for (let i = 0; i < 2 * nr; i++) y[v * 2 * nr + i]! *= 2 ** (300 + (rng.nextUint32() % 199));
    same({ ...input, y }, { detector: 'sphere', modulation: mod }, `sphere ${nt}x${nr} ${mod}, large vectors`);
    // channels (with their vectors) scaled by 2^+-1005 to 2^+-1015: the scaling's steps of 2^1000
    const H2 = Float64Array.from(input.H as Float64Array),
      y2 = Float64Array.from(input.y as Float64Array);
    const hLen = 2 * nr * nt;
    for (let c = 0; c * vpc < vectors; c++) {
      if (rng.nextUint32() % 2) continue;
      const f = 2 ** ((rng.nextUint32() % 2 ? 1 : -1) * (1005 + (rng.nextUint32() % 11)));
      for (let i = c * hLen; i < (c + 1) * hLen; i++) H2[i]! *= f;
      for (let i = c * vpc * 2 * nr; i < Math.min(vectors, (c + 1) * vpc) * 2 * nr; i++) y2[i]! *= f;
    }
    same(
      { ...input, H: H2, y: y2 },
      { detector: 'sphere', modulation: mod },
      `sphere ${nt}x${nr} ${mod}, scaled channels`,
    );
  }
});

test('sphere: the kernel equals the reference at 4 x 4 (its sizes fixed in the kernel) on any number of channels, and where column norms tie', () => {
  const rng = new Philox(seed, 11);
  const mods: Modulation[] = ['qpsk', '16qam', '64qam', '256qam'];
  let compared = 0;
  for (let trial = 0; trial < 12; trial++) {
    const mod = mods[trial % 4]!;
    // channels in fours and pairs (the kernel's groups) and beside them: 1 to 9 channels
    const vpc = 1 + (rng.nextUint32() % 14),
      vectors = vpc * (1 + (rng.nextUint32() % 9)) - (rng.nextUint32() % vpc);
    const opts: DetectOptions = { detector: 'sphere', modulation: mod, maxNodes: 20_000, onBudget: 'flag' };
    if (trial & 1) opts.initialRadius = 'babai';
    const input = problem(rng, 4, 4, mod, vectors, vpc, rng.uniform() * 30);
    same(input, opts, `sphere 4x4 ${mod} ${vectors} vectors at ${vpc}, ${JSON.stringify(opts)}`);
    // integer channels whose columns hold the same entries in other rows: equal column norms, so
    // the sorted QR's first choice is a tie (the first such column is taken)
    const H = Float64Array.from(input.H as Float64Array);
    const channels = H.length / 32;
    for (let c = 0; c < channels; c++) {
      const col = Array.from({ length: 8 }, () => (rng.nextUint32() % 7) - 3);
      for (let k = 0; k < 4; k++)
        for (let r = 0; r < 4; r++) {
          const from = (r + k * (c % 2 ? 3 : 1)) % 4;
          H[c * 32 + k * 8 + 2 * r] = col[2 * from]!;
          H[c * 32 + k * 8 + 2 * r + 1] = col[2 * from + 1]! * (k % 2 ? -1 : 1);
        }
    }
    const y = transmit(H, randomSymbols(rng, vectors * 4, mod).symbols, 4, 4, vpc);
    const tied = { ...input, H, y: addNoise(rng, y, input.noiseVar as number) };
    let deficient: string | null = null;
    try {
      detect(tied, { ...opts, cpuKernel: 'typescript' });
    } catch (e) {
      if (!(e instanceof RankDeficientError)) throw e;
      deficient = e.message;
    }
    if (deficient === null) same(tied, opts, `sphere 4x4 ${mod}, tied column norms`);
    else
      assert.throws(
        () => detect(tied, opts),
        (e) => e instanceof RankDeficientError && e.message === deficient,
        msg('tied column norms, a rank-deficient draw'),
      );
    compared += deficient === null ? 1 : 0;
  }
  assert.ok(compared > 0, msg('every tied draw was rank deficient'));
});

test('lr-zf, lr-mmse, lr-sic: the LLL kernel path equals the reference, and LATTICE_MIMO_WASM=off runs the reference', () => {
  const rng = new Philox(seed, 12);
  const mods: Modulation[] = ['bpsk', 'qpsk', '16qam', '64qam'];
  for (let trial = 0; trial < 18; trial++) {
    const detector = (['lr-zf', 'lr-mmse', 'lr-sic'] as const)[trial % 3]!;
    const mod = mods[rng.nextUint32() % 4]!;
    const nt = 1 + (rng.nextUint32() % 4),
      nr = nt + (rng.nextUint32() % 3);
    const vpc = 1 + (rng.nextUint32() % 14),
      vectors = 1 + (rng.nextUint32() % (trial < 15 ? 60 : 1500));
    let input = problem(rng, nt, nr, mod, vectors, vpc, rng.uniform() * 30);
    // per-vector N0 in half the trials, repeated along runs of vectors (the MMSE basis holds it)
    if (trial % 2) {
      const noise = new Float64Array(vectors);
      for (let v = 0; v < vectors; v++)
        noise[v] = v > 0 && rng.nextUint32() % 3 ? noise[v - 1]! : 0.01 + rng.uniform() * 0.3;
      input = { ...input, noiseVar: noise };
    }
    const opts: DetectOptions = { detector, modulation: mod };
    const what = `${detector} ${nt}x${nr} ${mod} ${vectors} vectors at ${vpc}`;
    // the LLL kernel takes bases of 2 or more columns: a BPSK stream alone (1 real dimension) runs the reference
    const kernel = simd && (mod === 'bpsk' ? nt : 2 * nt) >= 2 ? 'wasm-simd' : 'typescript';
    const ts = detect(input, { ...opts, cpuKernel: 'typescript' }),
      k = detect(input, opts);
    assert.equal(ts.stats.kernel, 'typescript');
    assert.equal(k.stats.kernel, kernel, msg(what));
    assert.deepEqual(k.symbols, ts.symbols, msg(`${what}: symbols`));
    if (kernel === 'typescript' && simd)
      assert.throws(
        () => detect(input, { ...opts, cpuKernel: 'wasm' }),
        (e) => e instanceof EngineUnavailableError && / x 1 bases/.test(e.message),
        msg(what),
      );
    const before = process.env[WASM_ENV];
    process.env[WASM_ENV] = 'off';
    let off: ReturnType<typeof detect>;
    try {
      off = detect(input, opts);
    } finally {
      if (before === undefined) delete process.env[WASM_ENV];
      else process.env[WASM_ENV] = before;
    }
    assert.equal(off.stats.kernel, 'typescript', msg(what));
    assert.deepEqual(k.symbols, off.symbols, msg(`${what}: kernel on and off`));
  }
  // a rank-deficient channel: the reference's error, naming it
  const p = problem(rng, 3, 3, '16qam', 12, 2, 20);
  const Hd = Float64Array.from(p.H);
  for (let i = 0; i < 6; i++) Hd[4 * 18 + 6 + i] = Hd[4 * 18 + i]!;
  for (const detector of ['lr-zf', 'lr-mmse'] as const) {
    const errorOf = (cpuKernel: 'typescript' | 'auto') => {
      try {
        detect(
          { ...p, H: Hd, noiseVar: detector === 'lr-zf' ? p.noiseVar : 0 },
          { detector, modulation: '16qam', cpuKernel },
        );
      } catch (e) {
        return `${(e as { code?: string }).code} ${(e as Error).message}`;
      }
      return 'no error';
    };
    assert.match(errorOf('typescript'), /channel 4/, msg(detector));
    assert.equal(errorOf('auto'), errorOf('typescript'), msg(detector));
  }
});

test('checkFinite names the first NaN or infinity, wherever it is', () => {
  const rng = new Philox(seed, 9);
  for (let trial = 0; trial < 200; trial++) {
    const a = Float64Array.from(
      { length: rng.nextUint32() % 19 },
      () => (rng.uniform() - 0.5) * 2 ** ((rng.nextUint32() % 200) - 100),
    );
    const bad = [NaN, Infinity, -Infinity];
    let first = -1;
    for (let k = rng.nextUint32() % 3; k > 0 && a.length > 0; k--) {
      const i = rng.nextUint32() % a.length;
      a[i] = bad[rng.nextUint32() % 3]!;
      if (first < 0 || i < first) first = i;
    }
    let got = -1;
    try {
      checkFinite(a, 'a', 5);
    } catch (e) {
      got = ((e as { details?: { index?: number } }).details?.index ?? -100) - 5;
    }
    assert.equal(got, first, msg(`trial ${trial}: ${Array.from(a)}`));
  }
});

test('firstTooLarge finds the first vector yTooLarge refuses', () => {
  const rng = new Philox(seed, 8);
  for (let trial = 0; trial < 50; trial++) {
    const yLen = 2 * (1 + (rng.nextUint32() % 4)),
      vpc = 1 + (rng.nextUint32() % 4),
      vectors = 1 + (rng.nextUint32() % 12);
    const channels = Math.ceil(vectors / vpc);
    const shift = Int32Array.from({ length: channels }, () => -1074 + (rng.nextUint32() % 2098));
    const Y = Float64Array.from({ length: vectors * yLen }, () => {
      // a third of the trials with no vector too large
      const e = Math.min(-1074 + (rng.nextUint32() % 2098), trial % 3 ? 1022 : -600);
      return rng.nextUint32() % 8 ? (rng.uniform() + 1) * 2 ** e * (rng.nextUint32() % 2 ? 1 : -1) : 0;
    });
    let want = -1;
    for (let v = 0; v < vectors && want < 0; v++) if (yTooLarge(Y, v, yLen, shift[Math.floor(v / vpc)]!)) want = v;
    assert.equal(firstTooLarge(Y, shift, vpc, yLen), want, msg(`trial ${trial}`));
  }
});

test('a batch past one run of the kernel, and per-vector noise', () => {
  const rng = new Philox(seed, 2);
  // 4x4 16-QAM N = 4: a run holds about 50 vectors
  const input = problem(rng, 4, 4, '16qam', 4001, 7, 12);
  const noise = new Float64Array(4001).map(() => 0.02 + rng.uniform() * 0.1);
  same({ ...input, noiseVar: noise }, { detector: 'nway', modulation: '16qam' }, 'nway 4x4 16qam, 4001 vectors');
});

test("a rank-deficient channel: the reference's error, naming the channel", () => {
  const rng = new Philox(seed, 3);
  const input = problem(rng, 2, 2, 'qpsk', 6, 2, 10);
  const H = Float64Array.from(input.H);
  // channel 1's second column equals its first
  for (let i = 0; i < 4; i++) H[8 + 4 + i] = H[8 + i]!;
  for (const cpuKernel of ['typescript', 'auto'] as const)
    assert.throws(
      () => detect({ ...input, H }, { detector: 'nway', modulation: 'qpsk', cpuKernel }),
      (e) => e instanceof RankDeficientError && /channel 1/.test(e.message),
      cpuKernel,
    );
  for (const cpuKernel of ['typescript', 'auto'] as const)
    assert.throws(
      () => detect({ ...input, H }, { detector: 'sphere', modulation: 'qpsk', cpuKernel }),
      (e) => e instanceof RankDeficientError && /channel 1/.test(e.message),
      `sphere ${cpuKernel}`,
    );
  // a vector past its budget (onBudget 'error') before a rank-deficient channel of the same run:
  // the budget error first, as the reference meets them
  {
    const p = problem(rng, 3, 3, '64qam', 12, 2, 0);
    const Hd = Float64Array.from(p.H);
    const c = 2 + (rng.nextUint32() % 4);
    Hd.fill(0, c * 18, (c + 1) * 18);
    const errorOf = (cpuKernel: 'typescript' | 'auto') => {
      try {
        detect({ ...p, H: Hd }, { detector: 'sphere', modulation: '64qam', maxNodes: 6, cpuKernel });
      } catch (e) {
        return `${(e as { code?: string }).code} ${JSON.stringify((e as { details?: unknown }).details)}`;
      }
      return 'no error';
    };
    assert.match(errorOf('typescript'), /NODE_BUDGET/, msg('budget before the channel'));
    assert.equal(errorOf('auto'), errorOf('typescript'), msg('budget before the channel'));
  }
  // the sphere kernel prepares channels in pairs: deficient channels at random (one column
  // repeated, or a zero channel), the error names the first, whichever lane it is in
  for (let trial = 0; trial < 16; trial++) {
    const nt = 2 + (rng.nextUint32() % 3),
      channels = 2 + (rng.nextUint32() % 6);
    const p = problem(rng, nt, nt, '16qam', channels, 1, 20);
    const Hd = Float64Array.from(p.H);
    const bad = plantDeficient(rng, Hd, channels, nt, nt);
    const first = bad.indexOf(true);
    for (const cpuKernel of ['typescript', 'auto'] as const)
      assert.throws(
        () => detect({ ...p, H: Hd }, { detector: 'sphere', modulation: '16qam', cpuKernel }),
        (e) => e instanceof RankDeficientError && new RegExp(`channel ${first}\\b`).test(e.message),
        msg(`sphere ${cpuKernel}, deficient channels ${bad}`),
      );
  }
});

test('the fallback: LATTICE_MIMO_WASM=off, uncovered setups, and where cpuKernel applies', () => {
  const rng = new Philox(seed, 4);
  const input = problem(rng, 2, 2, '16qam', 8, 2, 15);
  const opts: DetectOptions = { detector: 'nway', modulation: '16qam' };
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
  // a-priori LLRs: the reference runs under 'auto'; 'wasm' names why not
  const priorLlr = new Float64Array(8 * 2 * 4).map(() => rng.uniform() * 4 - 2);
  assert.equal(detect({ ...input, priorLlr }, opts).stats.kernel, 'typescript');
  if (simd)
    assert.throws(
      () => detect({ ...input, priorLlr }, { ...opts, cpuKernel: 'wasm' }),
      (e) => e instanceof EngineUnavailableError && /a-priori/.test(e.message),
    );
  const bpsk = problem(rng, 2, 2, 'bpsk', 4, 1, 10);
  assert.equal(detect(bpsk, { detector: 'ssfe', modulation: 'bpsk' }).stats.kernel, 'typescript');
  if (simd)
    assert.throws(
      () => detect(bpsk, { detector: 'ssfe', modulation: 'bpsk', cpuKernel: 'wasm' }),
      (e) => e instanceof EngineUnavailableError && /square QAM/.test(e.message),
    );
  assert.throws(
    () => detect(input, { detector: 'ml', modulation: '16qam', cpuKernel: 'typescript' }),
    (e) => e instanceof InvalidArgumentError && /cpuKernel/.test(e.message),
  );
  assert.equal(detect(bpsk, { detector: 'sphere', modulation: 'bpsk' }).stats.kernel, 'typescript');
  assert.equal(detect(input, { detector: 'ml', modulation: '16qam' }).stats.kernel, 'typescript');
});
