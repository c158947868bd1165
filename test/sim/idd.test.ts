/**
 * Iterative detection and decoding (simulate's `idd`): one pass is today's coded link, count for
 * count; on a 4x4 16-QAM Rayleigh link with an 802.16e n = 576 code, three passes of mmse-pic
 * never lose a frame that one pass decodes (beyond a few) and lose significantly fewer in all,
 * paired over the same frames; ml's priors give the exhaustive MAP extrinsic LLRs; two passes of
 * ml, ep, kbest, nway and ssfe lose no more frames than one beyond a few; the option is strict
 * (values, an uncoded run, a detector without priors); every detector that takes priors takes them
 * on both engines (the GPU's engine choice: test/sim/gpu-idd.test.ts). The GPU engine's IDD: test/sim/gpu-idd.test.ts. Fresh seeds, printed on failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { simulate } from '../../src/sim/simulate.js';
import { generateLinkChunk } from '../../src/sim/link.js';
import { codeOf, decodeRange, vectorsPerFrame, type CodedSpec } from '../../src/sim/coded.js';
import { snrToNoiseVar } from '../../src/mimo/channel.js';
import { constellation } from '../../src/mimo/modulation.js';
import { detect } from '../../src/mimo/detect.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { priorDetectors } from '../../src/mimo/registry.js';
import { parseSimulateArgs } from '../../src/cli/simulate.js';
import { resumeOptions } from '../../src/cli/resume.js';
import { resultToJson } from '../../src/sim/output.js';
import type { SimPoint, SimulationOptions } from '../../src/sim/types.js';
import { refused } from '../core/strict-options.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

const counts = (p: SimPoint) => {
  const { timeMs: _t, ...rest } = p;
  return rest;
};

const CODED: SimulationOptions = {
  nt: 4,
  nr: 4,
  modulation: '16qam',
  detectors: [{ detector: 'mmse-pic' }],
  snrs: [5, 7],
  code: 'wimax:576:1/2',
  maxErrors: 1e6,
  maxFrames: 48,
  threads: 1,
  engine: 'cpu',
};

test('idd 1 gives exactly the counts of a run without idd (mmse-pic, same seed)', async () => {
  const a = await simulate({ ...CODED, seed });
  const b = await simulate({ ...CODED, seed, idd: 1 });
  assert.deepEqual(b.points.map(counts), a.points.map(counts), msg('idd 1'));
  assert.equal(b.idd, 1);
  assert.equal(a.idd, undefined);
});

test('idd 3 beats one pass of mmse-pic, paired over the same frames (4x4 16-QAM Rayleigh, wimax:576)', () => {
  const nt = 4,
    nr = 4,
    modulation = '16qam' as const;
  const spec: CodedSpec = { code: 'wimax:576:1/2', decoder: {} };
  const code = codeOf(spec.code, modulation);
  const vpf = vectorsPerFrame(code.n, nt, constellation(modulation).bitsPerSymbol);
  // Es/N0 6 dB: one pass loses about half the frames (FER ~ 0.5), three passes about a tenth of that
  const noiseVar = snrToNoiseVar(6, 'esn0', 4, code.rate);
  const frames = 240;
  let one = 0,
    three = 0,
    worse = 0;
  for (let chunk = 0; chunk < frames / 24; chunk++) {
    const task = {
      nt,
      nr,
      modulation,
      vectorsPerChannel: 1,
      seed,
      snrIndex: 0,
      unitIndex: chunk,
      vectors: 24 * vpf,
      noiseVar,
      coded: spec,
    };
    const link = generateLinkChunk(task);
    const args = { ...task, H: link.H, y: link.y, txIndices: link.txIndices, info: link.info! };
    for (let f = 0; f < 24; f++) {
      const v0 = f * vpf,
        v1 = v0 + vpf;
      const a = decodeRange(args, spec, { detector: 'mmse-pic', modulation }, v0, v1);
      const b = decodeRange(args, { ...spec, idd: 3 }, { detector: 'mmse-pic', modulation }, v0, v1);
      // the first pass's symbol errors, whatever the passes
      assert.equal(b.symbolErrors, a.symbolErrors, msg('raw symbol errors'));
      one += a.frameErrors;
      three += b.frameErrors;
      if (b.frameErrors > a.frameErrors) worse++;
    }
  }
  if (process.env.IDD_PRINT) console.log(`paired: one ${one}, three ${three}, worse ${worse}, of ${frames}`);
  assert.ok(
    one >= 0.1 * frames && one <= 0.8 * frames,
    msg(`one pass: FER ${one / frames}, outside the test's regime`),
  );
  // frames one pass decodes and three passes lose: a few at most
  assert.ok(worse <= 4, msg(`${worse} frames decoded by one pass were lost by three`));
  // paired: of the frames that differ, three passes must win far more (sign test, p << 1e-6 at 40 vs 4)
  assert.ok(three <= one / 2, msg(`idd 3: ${three} frame errors, idd 1: ${one}, of ${frames}`));
});

test("ml's priors: its extrinsic LLRs are the exhaustive MAP ones (max-log and log-MAP) minus the priors", () => {
  const rng = new Philox(seed, 3);
  const nt = 2,
    nr = 2,
    modulation = '16qam' as const;
  const con = constellation(modulation);
  const bps = con.bitsPerSymbol,
    M = con.size;
  const vectors = 8;
  const g = () => rng.normal();
  const H = Float64Array.from({ length: 2 * nr * nt }, () => g() * Math.SQRT1_2);
  const y = Float64Array.from({ length: 2 * nr * vectors }, () => g());
  const prior = Float64Array.from({ length: vectors * nt * bps }, () => (rng.uniform() - 0.5) * 8);
  const noiseVar = 0.3;
  for (const soft of ['maxlog', 'logmap'] as const) {
    const r = detect(
      { nt, nr, H, y, vectorsPerChannel: vectors, noiseVar, priorLlr: prior },
      { detector: 'ml', modulation, soft },
    );
    for (let v = 0; v < vectors; v++) {
      // every hypothesis: -|y - Hs|^2 / N0 + ln P(s) (bits independent, P(c) = e^{-c L} / (1 + e^{-L}))
      const score: number[] = [];
      const hyp: number[][] = [];
      for (let i = 0; i < M ** nt; i++) {
        const s = [i % M, Math.floor(i / M)];
        let d = 0;
        for (let k = 0; k < nr; k++) {
          let re = y[2 * (v * nr + k)]!,
            im = y[2 * (v * nr + k) + 1]!;
          for (let j = 0; j < nt; j++) {
            const hr = H[2 * (k + j * nr)]!,
              hi = H[2 * (k + j * nr) + 1]!;
            const pr = con.points[2 * s[j]!]!,
              pi = con.points[2 * s[j]! + 1]!;
            re -= hr * pr - hi * pi;
            im -= hr * pi + hi * pr;
          }
          d += re * re + im * im;
        }
        let lp = 0;
        for (let j = 0; j < nt; j++)
          for (let b = 0; b < bps; b++) {
            const L = prior[(v * nt + j) * bps + b]!;
            lp -= con.bitTable[s[j]! * bps + b]! * L + Math.log1p(Math.exp(-L));
          }
        score.push(-d / noiseVar + lp);
        hyp.push(s);
      }
      let best = 0;
      for (let i = 1; i < score.length; i++) if (score[i]! > score[best]!) best = i;
      assert.deepEqual([...r.symbols.subarray(v * nt, v * nt + nt)], hyp[best], msg('MAP decision'));
      for (let j = 0; j < nt; j++)
        for (let b = 0; b < bps; b++) {
          let m0 = -Infinity,
            m1 = -Infinity,
            s0 = 0,
            s1 = 0;
          const top = score[best]!;
          score.forEach((sc, i) => {
            const bit = con.bitTable[hyp[i]![j]! * bps + b]!;
            if (bit === 0) {
              m0 = Math.max(m0, sc);
              s0 += Math.exp(sc - top);
            } else {
              m1 = Math.max(m1, sc);
              s1 += Math.exp(sc - top);
            }
          });
          const post = soft === 'maxlog' ? m0 - m1 : Math.log(s0) - Math.log(s1);
          const want = post - prior[(v * nt + j) * bps + b]!;
          const got = r.llr![(v * nt + j) * bps + b]!;
          assert.ok(
            Math.abs(got - want) <= 1e-9 * (1 + Math.abs(want)),
            msg(`${soft} v${v} s${j} b${b}: ${got} vs ${want}`),
          );
        }
    }
  }
});

test("ml's and kbest's priors: detectAsync with priorLlr runs them under 'auto' (the CPU without a device) and 'cpu', the same extrinsic LLRs", async () => {
  const input = {
    nt: 2,
    nr: 2,
    H: Float64Array.of(1, 0, 0, 0, 0, 0, 1, 0),
    y: Float64Array.of(0.3, -0.2, 0.1, 0.4),
    vectorsPerChannel: 1,
    noiseVar: 0.5,
    priorLlr: new Float64Array(4).fill(1),
  };
  for (const detector of ['ml', 'kbest'] as const) {
    const a = await detectAsync(input, { detector, modulation: 'qpsk', engine: 'auto', soft: 'maxlog' });
    const c = await detectAsync(input, { detector, modulation: 'qpsk', engine: 'cpu', soft: 'maxlog' });
    assert.equal(a.llr?.length, 4);
    assert.deepEqual(a.symbols, c.symbols, detector);
    if (a.stats.engine === 'cpu') assert.deepEqual(a.llr, c.llr, detector);
  }
});

test('idd with ml: more passes, no more frame errors beyond a few (2x2 16-QAM)', async () => {
  const o: SimulationOptions = {
    ...CODED,
    nt: 2,
    nr: 2,
    detectors: [{ detector: 'ml' }],
    snrs: [7],
    maxFrames: 40,
    seed,
  };
  const a = await simulate(o);
  const b = await simulate({ ...o, idd: 2 });
  assert.ok(
    b.points[0]!.frameErrors <= a.points[0]!.frameErrors + 3,
    msg(`ml: idd 2 ${b.points[0]!.frameErrors}, idd 1 ${a.points[0]!.frameErrors}`),
  );
});

test('idd with ep, kbest, nway and ssfe (their priors): more passes, no more frame errors beyond a few (2x2 16-QAM)', async () => {
  const o: SimulationOptions = {
    ...CODED,
    nt: 2,
    nr: 2,
    detectors: [{ detector: 'ep' }, { detector: 'kbest' }, { detector: 'nway' }, { detector: 'ssfe' }],
    snrs: [7],
    maxFrames: 40,
    seed,
  };
  const a = await simulate(o);
  const b = await simulate({ ...o, idd: 2 });
  for (const d of ['ep', 'kbest', 'nway', 'ssfe']) {
    const one = a.points.find((p) => p.algorithm === d)!,
      two = b.points.find((p) => p.algorithm === d)!;
    if (process.env.IDD_PRINT) console.log(`${d}: idd 1 ${one.frameErrors}, idd 2 ${two.frameErrors} of ${one.frames}`);
    assert.equal(two.frames, one.frames, msg(`${d}: frames`));
    assert.ok(two.frameErrors <= one.frameErrors + 3, msg(`${d}: idd 2 ${two.frameErrors}, idd 1 ${one.frameErrors}`));
  }
});

test('idd is strict: values, an uncoded run, detectors without priors', async () => {
  const base = { ...CODED, snrs: [8], maxFrames: 4 };
  for (const bad of [0, 1.5, 'x', -2, 33, Number.NaN])
    await refused(() => simulate({ ...base, idd: bad as never }), 'idd', `idd ${String(bad)}`);
  const { code: _c, maxFrames: _m, ...uncoded } = base;
  await refused(() => simulate({ ...uncoded, idd: 2 }), 'idd', 'uncoded');
  await refused(() => simulate({ ...uncoded, idd: 1 }), 'idd', 'uncoded idd 1');
  // every soft detector takes priors: those without are hard, refused for idd before the soft check
  for (const detector of ['sphere', 'zf'] as const) {
    const e = await refused(() => simulate({ ...base, detectors: [{ detector }], idd: 2 }), 'idd', detector);
    for (const d of priorDetectors()) assert.ok(e.message.includes(d), `${e.message} names ${d}`);
  }
  // one pass is any soft detector's
  await simulate({ ...base, detectors: [{ detector: 'kbest' }], idd: 1 });
  // every detector that takes priors runs idd on either engine (the GPU's choice: gpu-idd.test.ts)
  const r = await simulate({ ...base, nt: 2, nr: 2, detectors: [{ detector: 'kbest' }], idd: 2, engine: 'cpu' });
  assert.equal(r.engine, 'cpu');
  assert.equal(r.idd, 2);
});

test('--idd: the flag, its checks, and resume reading idd from the JSON', async () => {
  const cmd = parseSimulateArgs([
    '--mimo',
    '2x2',
    '--mod',
    '16qam',
    '--code',
    'wimax:576',
    '--detector',
    'mmse-pic',
    '--idd',
    '3',
  ]);
  assert.equal(cmd.options.idd, 3);
  assert.throws(() => parseSimulateArgs(['--idd', '2']), /idd/);
  assert.throws(() => parseSimulateArgs(['--code', 'wimax:576', '--detector', 'mmse-pic', '--idd', '0']), /idd/);
  const o: SimulationOptions = { ...CODED, nt: 2, nr: 2, snrs: [6, 8], maxFrames: 8, idd: 2, seed };
  const full = await simulate(o);
  const half = { ...full, points: full.points.filter((p) => p.snrIndex === 0) };
  const back = resumeOptions(resultToJson(half), 'run.json');
  assert.equal(back.idd, 2);
  const resumed = await simulate({ ...back, threads: 1, engine: 'cpu' });
  assert.deepEqual(resumed.points.map(counts), full.points.map(counts), msg('resumed idd run'));
});
