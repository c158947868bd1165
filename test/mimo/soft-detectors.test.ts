/**
 * Properties of the K-best, SSFE, N-way and LR-aided detectors on fresh random inputs (seeded from
 * crypto; the seed is in every failure message):
 *  - nway with one pass equals ssfe exactly (hard decisions and LLRs);
 *  - more nway passes never give a worse (higher-metric) hypothesis;
 *  - K-best with K = M^nt is exhaustive: ML hard decisions and ML max-log LLRs;
 *  - soft LLR signs agree with the hard decisions, and |LLR| <= clip;
 *  - LR-aided detectors recover noise-free inputs exactly and beat plain ZF at high SNR.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { detect } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { Detector, Modulation } from '../../src/mimo/types.js';
import { type Problem, rayleighProblem } from './rayleigh-problem.js';

const SEED = randomInt(2 ** 47);
const rng = new Philox(SEED, 0x50f7);
const tag = (what: string) => `${what} (seed ${SEED})`;

function problem(
  nt: number,
  nr: number,
  mod: Modulation,
  channels: number,
  vpc: number,
  snrDb: number | null,
): Problem {
  return rayleighProblem(rng, nt, nr, mod, channels, vpc, snrDb);
}

/** |y - H s|^2 of vector v for the symbol indices at symbols[v * nt ..]. */
function metric(p: Problem, symbols: Int32Array, v: number): number {
  const { nt, nr, H, y, vectorsPerChannel } = p.input;
  const c = constellation(p.mod);
  const h = 2 * Math.floor(v / vectorsPerChannel!) * nr * nt;
  let d = 0;
  for (let i = 0; i < nr; i++) {
    let re = y[2 * (v * nr + i)]!,
      im = y[2 * (v * nr + i) + 1]!;
    for (let j = 0; j < nt; j++) {
      const hr = H[h + 2 * (i + j * nr)]!,
        hi = H[h + 2 * (i + j * nr) + 1]!;
      const s = symbols[v * nt + j]!,
        sr = c.points[2 * s]!,
        si = c.points[2 * s + 1]!;
      re -= hr * sr - hi * si;
      im -= hr * si + hi * sr;
    }
    d += re * re + im * im;
  }
  return d;
}

function errors(a: Int32Array, b: Int32Array): number {
  let e = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) e++;
  return e;
}

const SIZES: [number, number, Modulation][] = [
  [2, 2, '16qam'],
  [4, 4, '16qam'],
  [3, 5, 'qpsk'],
  [4, 4, '64qam'],
  [3, 3, 'bpsk'],
  [1, 2, 'qpsk'],
];

test('nway with one pass equals ssfe exactly', () => {
  for (const [nt, nr, mod] of SIZES) {
    const p = problem(nt, nr, mod, 10, 4, rng.uniform() * 25);
    if (rng.uniform() < 0.5) {
      // Per-vector noise variances (each vector then gets its own preparation).
      const nv = new Float64Array(p.sent.length / nt);
      for (let v = 0; v < nv.length; v++) nv[v] = 10 ** (-rng.uniform() * 2.5);
      p.input = { ...p.input, noiseVar: nv };
    }
    const llrClip = rng.uniform() < 0.5 ? undefined : 1 + rng.uniform() * 40;
    const ssfe = detect(p.input, { detector: 'ssfe', modulation: mod, llrClip });
    const nway = detect(p.input, { detector: 'nway', modulation: mod, llrClip, passes: 1 });
    assert.deepEqual(nway.symbols, ssfe.symbols, tag(`${nt}x${nr} ${mod} symbols`));
    assert.deepEqual(nway.llr, ssfe.llr, tag(`${nt}x${nr} ${mod} LLRs`));
  }
});

test('more nway passes never give a worse hypothesis', () => {
  let improved = 0;
  for (const [nt, nr, mod] of [
    [4, 4, '16qam'],
    [3, 3, '64qam'],
    [4, 6, 'qpsk'],
  ] as const) {
    const p = problem(nt, nr, mod, 40, 5, 5 + rng.uniform() * 15);
    let previous: Int32Array | null = null;
    for (let passes = 1; passes <= nt; passes++) {
      const r = detect(p.input, { detector: 'nway', modulation: mod, passes });
      if (previous) {
        for (let v = 0; v < r.symbols.length / nt; v++) {
          const now = metric(p, r.symbols, v),
            before = metric(p, previous, v);
          assert.ok(
            now <= before * (1 + 1e-12) + 1e-12,
            tag(`${nt}x${nr} ${mod} vector ${v}: ${passes} passes metric ${now} > ${passes - 1} passes ${before}`),
          );
          if (now < before * (1 - 1e-9)) improved++;
        }
      }
      previous = r.symbols;
    }
  }
  // The passes must actually contribute (on 4x4 16-QAM SSFE alone misses the best point often).
  assert.ok(improved > 0, tag('extra passes never improved a hypothesis'));
});

test('K-best with K = M^nt equals ML (hard decisions and max-log LLRs)', () => {
  for (const [nt, nr, mod] of [
    [2, 2, '16qam'],
    [4, 4, 'qpsk'],
    [2, 3, '64qam'],
    [3, 3, 'bpsk'],
  ] as const) {
    const k = constellation(mod).size ** nt;
    const p = problem(nt, nr, mod, 15, 4, rng.uniform() * 20);
    const big = 1e12; // no clipping on either side
    const ml = detect(p.input, { detector: 'ml', modulation: mod, llrClip: big });
    const kb = detect(p.input, { detector: 'kbest', modulation: mod, k, llrClip: big });
    assert.deepEqual(kb.symbols, ml.symbols, tag(`${nt}x${nr} ${mod} K=${k} symbols`));
    for (let i = 0; i < ml.llr!.length; i++) {
      const a = kb.llr![i]!,
        b = ml.llr![i]!;
      assert.ok(Math.abs(a - b) <= 1e-8 * (1 + Math.abs(b)), tag(`${nt}x${nr} ${mod} LLR ${i}: kbest ${a} vs ml ${b}`));
    }
  }
});

test('soft LLR signs agree with the hard decisions and respect the clip', () => {
  const configs: { detector: Detector; passes?: number; k?: number }[] = [
    { detector: 'kbest' },
    { detector: 'kbest', k: 64 },
    { detector: 'ssfe' },
    { detector: 'nway', passes: 2 },
    { detector: 'nway' },
  ];
  for (const [nt, nr, mod] of SIZES) {
    const p = problem(nt, nr, mod, 8, 5, rng.uniform() * 25);
    for (const cfg of configs) {
      if (cfg.passes !== undefined && cfg.passes > nt) continue;
      const llrClip = 0.5 + rng.uniform() * 20;
      const r = detect(p.input, { ...cfg, modulation: mod, llrClip });
      for (let i = 0; i < r.bits.length; i++) {
        const l = r.llr![i]!;
        assert.ok(
          r.bits[i] === 0 ? l >= 0 : l <= 0,
          tag(`${cfg.detector} ${nt}x${nr} ${mod} bit ${i} = ${r.bits[i]} but LLR ${l}`),
        );
        assert.ok(Math.abs(l) <= llrClip, tag(`${cfg.detector} |LLR| ${l} above clip ${llrClip}`));
      }
    }
  }
});

test('LR-aided detectors recover noise-free inputs exactly', () => {
  for (const [nt, nr, mod] of [
    [4, 4, '16qam'],
    [3, 5, '64qam'],
    [4, 4, 'bpsk'],
    [2, 2, 'qpsk'],
    [6, 6, '16qam'],
  ] as const) {
    const p = problem(nt, nr, mod, 20, 3, null);
    for (const detector of ['lr-zf', 'lr-mmse', 'lr-sic'] as const) {
      // MMSE needs N0 > 0; a tiny one leaves the noise-free answer unchanged.
      const input = detector === 'lr-zf' ? p.input : { ...p.input, noiseVar: 1e-12 };
      const r = detect(input, { detector, modulation: mod });
      assert.equal(errors(r.symbols, p.sent), 0, tag(`${detector} ${nt}x${nr} ${mod} noise-free`));
    }
  }
});

test('LR-aided detectors beat plain ZF on 4x4 QPSK at 15 dB', () => {
  // Measured: ZF makes about 200 symbol errors in 8000 here, LR-ZF under 15, LR-MMSE/SIC about 0.
  const p = problem(4, 4, 'qpsk', 500, 4, 15);
  const zf = errors(detect(p.input, { detector: 'zf', modulation: 'qpsk' }).symbols, p.sent);
  assert.ok(zf >= 60, tag(`ZF made only ${zf} errors: too few to compare`));
  for (const detector of ['lr-zf', 'lr-mmse', 'lr-sic'] as const) {
    const e = errors(detect(p.input, { detector, modulation: 'qpsk' }).symbols, p.sent);
    assert.ok(e * 4 <= zf, tag(`${detector}: ${e} symbol errors vs ZF ${zf}`));
  }
});

test('unsupported sizes and bad options give typed errors', () => {
  const p = problem(4, 4, '16qam', 1, 2, 10);
  assert.throws(() => detect(p.input, { detector: 'nway', modulation: '16qam', passes: 5 }), {
    name: 'InvalidArgumentError',
    message: /passes/,
  });
  const wide = problem(4, 2, 'qpsk', 1, 2, 10);
  for (const detector of ['kbest', 'ssfe', 'nway', 'lr-zf', 'lr-mmse', 'lr-sic'] as const) {
    assert.throws(() => detect(wide.input, { detector, modulation: 'qpsk' }), { name: 'UnsupportedError' }, detector);
  }
  // A rank-deficient channel (two equal columns) is named, not silently detected.
  const H = p.input.H.slice();
  for (let i = 0; i < 8; i++) H[8 + i] = H[i]!;
  for (const detector of ['kbest', 'ssfe', 'nway', 'lr-zf'] as const) {
    assert.throws(
      () => detect({ ...p.input, H }, { detector, modulation: '16qam' }),
      { name: 'RankDeficientError' },
      detector,
    );
  }
});
