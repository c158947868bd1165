/**
 * The ep and mmse-pic detectors (CPU engine) on fresh random inputs (seeded from crypto; the seed
 * is in every message):
 *  - both against the independent float64 references of ep-pic-reference.ts on Rayleigh channels
 *    of several sizes and every modulation: decisions equal, LLRs within 1e-9 relative;
 *  - mmse-pic with no priors (and with all-zero priors) gives mmse's decisions and the documented
 *    MMSE soft output (max-log demapping of the unbiased estimate with N0_eff = 1/mu - 1); with
 *    certain priors (|LLR| = 40, the sent bits) its decisions are the sent symbols;
 *  - ep's bit error rate is below mmse's on 8x8 16-QAM Rayleigh at 14 dB by many standard errors;
 *  - strict options and priors: unknown keys, wrong values, priors of a wrong shape, type or with
 *    NaN / Infinity, priors with a detector that takes none, N0 = 0: InvalidArgumentError naming it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { type DrawnProblem as Problem, rayleighProblem } from './rayleigh-problem.js';
import { detect } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Modulation } from '../../src/mimo/types.js';
import { MODULATIONS } from '../../src/mimo/types.js';
import { epRef, invertReal, mmsePicRef } from './ep-pic-reference.js';

const SEED = Number(process.env.EPPIC_SEED ?? randomInt(2 ** 47));
const rng = new Philox(SEED, 0xe9);
const tag = (what: string) => `${what} (seed ${SEED})`;

function problem(nt: number, nr: number, mod: Modulation, vectors: number, snrDb: number): Problem {
  return rayleighProblem(rng, nt, nr, mod, vectors, 1, snrDb);
}

/** |got - want| <= 1e-9 max(|want|, 1) for each LLR. */
/**
 * Past this |LLR| (a bit's other value has probability under e^-100) both need only agree in sign:
 * self-iterations at high SNR feed back LLRs in the thousands, whose probabilities round to exactly
 * 0 and 1 in float64, and the two implementations' residual variances then differ by their rounding.
 */
const SATURATED = 100;

function assertClose(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!,
      w = want[i]!;
    if (Math.abs(w) > SATURATED && Math.abs(g) > SATURATED && Math.sign(g) === Math.sign(w)) continue;
    assert.ok(Math.abs(g - w) <= 1e-9 * Math.max(Math.abs(w), 1), tag(`${what}: LLR ${i} is ${g}, reference ${w}`));
  }
}

function channelOf(p: Problem, v: number): Float64Array {
  const len = 2 * p.input.nr * p.input.nt;
  return p.input.H.subarray(v * len, (v + 1) * len) as Float64Array;
}
function vectorOf(p: Problem, v: number): Float64Array {
  return p.input.y.subarray(2 * v * p.input.nr, 2 * (v + 1) * p.input.nr) as Float64Array;
}

const SIZES: [number, number][] = [
  [1, 1],
  [2, 2],
  [3, 4],
  [4, 4],
  [6, 6],
];

test('ep equals its float64 reference: decisions and LLRs (1e-9), sizes x modulations x damping, max-log and log-sum-exp', () => {
  for (const [nt, nr] of SIZES) {
    for (const mod of MODULATIONS) {
      const snr = [4, 10, 16, 24][rng.int(4)]!;
      const p = problem(nt, nr, mod, 6, snr);
      const o = {
        iterations: 1 + rng.int(12),
        beta: [0, 0.5, 0.9][rng.int(3)]!,
        epsilon: [1e-6, 1e-4][rng.int(2)]!,
        logmap: rng.int(2) === 1,
      };
      const what = `ep ${nt}x${nr} ${mod} ${snr} dB ${JSON.stringify(o)}`;
      const r = detect(p.input, {
        detector: 'ep',
        modulation: mod,
        iterations: o.iterations,
        beta: o.beta,
        epsilon: o.epsilon,
        soft: o.logmap ? 'logmap' : 'maxlog',
      });
      const bps = constellation(mod).bitsPerSymbol;
      for (let v = 0; v < 6; v++) {
        const ref = epRef(constellation(mod), channelOf(p, v), vectorOf(p, v), nr, nt, p.input.noiseVar, o);
        assert.deepEqual([...r.symbols.subarray(v * nt, (v + 1) * nt)], [...ref.symbols], tag(`${what} vector ${v}`));
        assertClose(r.llr!.subarray(v * nt * bps, (v + 1) * nt * bps), ref.llr, `${what} vector ${v}`);
      }
    }
  }
});

/** Random priors: each stream all-zero with probability 1/3, else LLRs ~ N(0, 3^2). */
function randomPriors(vectors: number, nt: number, bps: number): Float64Array {
  const p = new Float64Array(vectors * nt * bps);
  for (let s = 0; s < vectors * nt; s++) {
    if (rng.int(3) === 0) continue;
    for (let b = 0; b < bps; b++) p[s * bps + b] = 3 * rng.normal();
  }
  return p;
}

test('mmse-pic equals its float64 reference (per-stream filters, explicit inverses): random priors, sizes (nr < nt too) x modulations x self-iterations', () => {
  for (const [nt, nr] of [...SIZES, [4, 3] as [number, number], [5, 2] as [number, number]]) {
    for (const mod of MODULATIONS) {
      const snr = [0, 6, 12, 20][rng.int(4)]!;
      const p = problem(nt, nr, mod, 5, snr);
      const bps = constellation(mod).bitsPerSymbol;
      const prior = randomPriors(5, nt, bps);
      const iterations = 1 + rng.int(3),
        logmap = rng.int(2) === 1;
      const what = `mmse-pic ${nt}x${nr} ${mod} ${snr} dB I=${iterations}${logmap ? ' logmap' : ''}`;
      const r = detect(
        { ...p.input, priorLlr: prior },
        { detector: 'mmse-pic', modulation: mod, picIterations: iterations, soft: logmap ? 'logmap' : 'maxlog' },
      );
      for (let v = 0; v < 5; v++) {
        const ref = mmsePicRef(
          constellation(mod),
          channelOf(p, v),
          vectorOf(p, v),
          nr,
          nt,
          p.input.noiseVar,
          prior.subarray(v * nt * bps, (v + 1) * nt * bps),
          iterations,
          logmap,
        );
        assert.deepEqual([...r.symbols.subarray(v * nt, (v + 1) * nt)], [...ref.symbols], tag(`${what} vector ${v}`));
        assertClose(r.llr!.subarray(v * nt * bps, (v + 1) * nt * bps), ref.llr, `${what} vector ${v}`);
      }
    }
  }
});

/** The documented MMSE soft output, computed here: z = [(G + N0 I)^{-1} H^H y]_k / mu_k, N0_eff = 1/mu_k - 1, max-log. */
function mmseSoft(p: Problem, v: number): { z: Float64Array; llr: Float64Array } {
  const { nt, nr, noiseVar: n0 } = p.input;
  const H = channelOf(p, v),
    y = vectorOf(p, v),
    con = constellation(p.mod),
    bps = con.bitsPerSymbol;
  // the 2nt x 2nt real form of G + N0 I and H^H y
  const n = 2 * nt,
    R = new Float64Array(n * n),
    b = new Float64Array(n);
  for (let a = 0; a < nt; a++) {
    for (let c = 0; c < nt; c++) {
      let re = 0,
        im = 0;
      for (let i = 0; i < nr; i++) {
        const ar = H[2 * (i + a * nr)]!,
          ai = H[2 * (i + a * nr) + 1]!,
          cr = H[2 * (i + c * nr)]!,
          ci = H[2 * (i + c * nr) + 1]!;
        re += ar * cr + ai * ci;
        im += ar * ci - ai * cr;
      }
      if (a === c) re += n0;
      R[a + c * n] = re;
      R[a + nt + (c + nt) * n] = re;
      R[a + nt + c * n] = im;
      R[a + (c + nt) * n] = -im;
    }
    let re = 0,
      im = 0;
    for (let i = 0; i < nr; i++) {
      const hr = H[2 * (i + a * nr)]!,
        hi = H[2 * (i + a * nr) + 1]!;
      re += hr * y[2 * i]! + hi * y[2 * i + 1]!;
      im += hr * y[2 * i + 1]! - hi * y[2 * i]!;
    }
    b[a] = re;
    b[a + nt] = im;
  }
  const Ri = invertReal(R, n);
  const z = new Float64Array(2 * nt),
    llr = new Float64Array(nt * bps);
  for (let k = 0; k < nt; k++) {
    let re = 0,
      im = 0;
    for (let j = 0; j < n; j++) {
      re += Ri[k + j * n]! * b[j]!;
      im += Ri[k + nt + j * n]! * b[j]!;
    }
    const mu = 1 - n0 * Ri[k + k * n]!,
      nEff = 1 / mu - 1;
    z[2 * k] = re / mu;
    z[2 * k + 1] = im / mu;
    for (let bit = 0; bit < bps; bit++) {
      let d0 = Infinity,
        d1 = Infinity;
      for (let c = 0; c < con.size; c++) {
        const d = (z[2 * k]! - con.points[2 * c]!) ** 2 + (z[2 * k + 1]! - con.points[2 * c + 1]!) ** 2;
        if (con.bitTable[c * bps + bit]) d1 = Math.min(d1, d);
        else d0 = Math.min(d0, d);
      }
      llr[k * bps + bit] = (d1 - d0) / nEff;
    }
  }
  return { z, llr };
}

test('mmse-pic without priors, and with all-zero priors, is mmse: its decisions, and max-log LLRs of the unbiased estimate at N0_eff = 1/mu - 1', () => {
  for (const [nt, nr] of [...SIZES, [4, 2] as [number, number]]) {
    for (const mod of MODULATIONS) {
      const snr = [0, 8, 15][rng.int(3)]!;
      const p = problem(nt, nr, mod, 20, snr);
      const bps = constellation(mod).bitsPerSymbol;
      const mmse = detect(p.input, { detector: 'mmse', modulation: mod });
      const none = detect(p.input, { detector: 'mmse-pic', modulation: mod });
      const zero = detect(
        { ...p.input, priorLlr: new Float64Array(20 * nt * bps) },
        { detector: 'mmse-pic', modulation: mod },
      );
      const what = `${nt}x${nr} ${mod} ${snr} dB`;
      assert.deepEqual(none.symbols, mmse.symbols, tag(`${what}: no priors`));
      assert.deepEqual(zero.symbols, mmse.symbols, tag(`${what}: zero priors`));
      assert.deepEqual(zero.llr, none.llr, tag(`${what}: zero priors = no priors`));
      for (let v = 0; v < 20; v++)
        assertClose(none.llr!.subarray(v * nt * bps, (v + 1) * nt * bps), mmseSoft(p, v).llr, `${what} vector ${v}`);
    }
  }
});

test('mmse-pic with certain priors (the sent bits at |LLR| = 40) decides the sent symbols, at any SNR and nr < nt', () => {
  for (const [nt, nr] of [
    [4, 4],
    [8, 8],
    [6, 3],
  ] as [number, number][]) {
    for (const mod of MODULATIONS) {
      const p = problem(nt, nr, mod, 30, rng.int(10) - 5);
      const con = constellation(mod),
        bps = con.bitsPerSymbol;
      const prior = new Float64Array(30 * nt * bps);
      for (let s = 0; s < 30 * nt; s++)
        for (let b = 0; b < bps; b++) prior[s * bps + b] = con.bitTable[p.sent[s]! * bps + b] ? -40 : 40;
      const r = detect({ ...p.input, priorLlr: prior }, { detector: 'mmse-pic', modulation: mod });
      assert.deepEqual(r.symbols, p.sent, tag(`${nt}x${nr} ${mod}`));
    }
  }
});

test('ep: bit error rate below mmse on 8x8 16-QAM Rayleigh at Es/N0 = 14 dB by over 10 standard errors', () => {
  const vectors = 3000,
    nt = 8;
  const p = problem(nt, 8, '16qam', vectors, 14);
  const con = constellation('16qam');
  const perVector = (symbols: Int32Array): Float64Array => {
    const e = new Float64Array(vectors);
    for (let v = 0; v < vectors; v++)
      for (let j = 0; j < nt; j++) {
        const a = symbols[v * nt + j]!,
          b = p.sent[v * nt + j]!;
        for (let bit = 0; bit < 4; bit++) e[v] += con.bitTable[a * 4 + bit] !== con.bitTable[b * 4 + bit] ? 1 : 0;
      }
    return e;
  };
  const ep = perVector(detect(p.input, { detector: 'ep', modulation: '16qam', soft: 'none' }).symbols);
  const mmse = perVector(detect(p.input, { detector: 'mmse', modulation: '16qam' }).symbols);
  // the paired difference per vector (bit errors of one vector are not independent; vectors are)
  let mean = 0;
  for (let v = 0; v < vectors; v++) mean += (mmse[v]! - ep[v]!) / vectors;
  let sq = 0;
  for (let v = 0; v < vectors; v++) sq += (mmse[v]! - ep[v]! - mean) ** 2;
  const se = Math.sqrt(sq / (vectors - 1) / vectors);
  const ber = (e: Float64Array) => e.reduce((a, b) => a + b, 0) / (vectors * nt * 4);
  assert.ok(
    mean > 10 * se,
    tag(`ep BER ${ber(ep)}, mmse BER ${ber(mmse)}: difference ${mean} bits a vector, standard error ${se}`),
  );
});

function refused(f: () => unknown, option: string, what: string, re?: RegExp): void {
  assert.throws(
    f,
    (e: unknown) => {
      assert.ok(e instanceof InvalidArgumentError, tag(`${what}: ${String(e)}`));
      assert.equal(e.details?.option, option, tag(`${what}: names ${String(e.details?.option)}: ${e.message}`));
      if (re) assert.match(e.message, re, tag(what));
      return true;
    },
    tag(what),
  );
}

test('strict options and priors: typed InvalidArgumentError naming the option', () => {
  const p = problem(2, 2, 'qpsk', 3, 10);
  const run = (o: Record<string, unknown>, input: Partial<DetectionInput> = {}) =>
    detect({ ...p.input, ...input }, { modulation: 'qpsk', ...o } as unknown as DetectOptions);
  for (const [o, key] of [
    [{ detector: 'ep', beta: 1.5 }, 'beta'],
    [{ detector: 'ep', beta: -0.1 }, 'beta'],
    [{ detector: 'ep', beta: Number.NaN }, 'beta'],
    [{ detector: 'ep', iterations: 0 }, 'iterations'],
    [{ detector: 'ep', iterations: 2.5 }, 'iterations'],
    [{ detector: 'ep', iterations: '10' }, 'iterations'],
    [{ detector: 'ep', epsilon: 0 }, 'epsilon'],
    [{ detector: 'ep', epsilon: 1 }, 'epsilon'],
    [{ detector: 'mmse-pic', picIterations: 0 }, 'picIterations'],
    [{ detector: 'mmse-pic', picIterations: 17 }, 'picIterations'],
    [{ detector: 'mmse-pic', beta: 0.5 }, 'beta'],
    [{ detector: 'ep', picIterations: 2 }, 'picIterations'],
    [{ detector: 'kbest', iterations: 2 }, 'iterations'],
    [{ detector: 'ep', betta: 0.5 }, 'betta'],
    [{ detector: 'mmse-pic', picIteration: 2 }, 'picIteration'],
  ] as [Record<string, unknown>, string][]) {
    refused(() => run(o), key, JSON.stringify(o));
  }
  assert.throws(
    () => run({ detector: 'ep', betta: 0.5 }),
    (e: unknown) => e instanceof InvalidArgumentError && e.details?.suggestion === 'beta',
    tag('betta: did you mean beta'),
  );
  const good = new Float64Array(3 * 2 * 2);
  // ml, ep, kbest, nway and ssfe take priors too (test/mimo/priors.test.ts, test/sim/idd.test.ts)
  for (const d of ['mmse', 'sphere', 'zf'])
    refused(
      () => run({ detector: d }, { priorLlr: good }),
      'priorLlr',
      `priorLlr with ${d}`,
      /takes no a-priori LLRs.*mmse-pic/,
    );
  for (const [prior, re] of [
    [new Float64Array(11), /11 entries, expected .* = 12/],
    [new Float64Array(13), /13 entries/],
    [new Float32Array(6), /6 entries/],
    [Float64Array.of(0, 0, 0, Number.NaN, 0, 0, 0, 0, 0, 0, 0, 0), /NaN at element 3/],
    [Float32Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Number.NEGATIVE_INFINITY), /-Infinity at element 11/],
    [new Array(12).fill(0), /Float64Array or Float32Array/],
  ] as [Float64Array, RegExp][]) {
    refused(() => run({ detector: 'mmse-pic' }, { priorLlr: prior }), 'priorLlr', `priorLlr ${re}`, re);
  }
  // N0 = 0: no meaning for either, soft output or not
  for (const d of ['ep', 'mmse-pic'])
    for (const soft of ['maxlog', 'none'])
      assert.throws(
        () => run({ detector: d, soft }, { noiseVar: 0 }),
        (e: unknown) => e instanceof InvalidArgumentError && /noiseVar must be > 0/.test(e.message),
        tag(`${d} soft ${soft} N0 = 0`),
      );
  // float32 priors are taken as float64
  const f32 = Float32Array.from({ length: 12 }, () => Math.fround(rng.normal()));
  const a = run({ detector: 'mmse-pic' }, { priorLlr: f32 }),
    b = run({ detector: 'mmse-pic' }, { priorLlr: Float64Array.from(f32) });
  assert.deepEqual(a.llr, b.llr, tag('float32 priors'));
});
