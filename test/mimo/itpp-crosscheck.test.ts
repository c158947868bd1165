/**
 * Cross-check against IT++ (libitpp-dev): our exhaustive `ml` detector's max-log LLRs, through
 * detect(), against IT++'s Modulator_NCD::demodulate_soft_bits(FULL_ENUM_MAXLOG) on the same fresh
 * random inputs, and our `sphere` decisions against IT++'s sphere_decoding. Skips, printing why,
 * when g++ or IT++ is missing.
 *
 * IT++ computes in fixed point (QLLR, 2^-12 steps, every point's metric |y - Hs|^2 / N0 saturating
 * at 2^15), so the comparison allows one QLLR step of absolute difference plus 1e-9 relative, on
 * inputs whose metrics provably stay below the saturation; anything beyond that (a wrong bit order,
 * sign or noise convention) shows up as differences of order 1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { itppAvailability, itppSoftDemod, itppSphere } from '../../bench/reference/itpp.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, Modulation } from '../../src/mimo/types.js';

const SEED = randomInt(2 ** 47);
const rng = new Philox(SEED, 0x17bb);
const tag = (what: string) => `${what} (seed ${SEED})`;

function problem(
  nt: number,
  nr: number,
  mod: Modulation,
  channels: number,
  vpc: number,
  snrDb: number,
): DetectionInput {
  const c = constellation(mod);
  const H = rayleighChannels(rng, channels, nt, nr);
  const vectors = channels * vpc;
  const y = new Float64Array(2 * vectors * nr);
  const n0 = 10 ** (-snrDb / 10);
  const sd = Math.sqrt(n0 / 2);
  for (let v = 0; v < vectors; v++) {
    const h = 2 * Math.floor(v / vpc) * nr * nt;
    for (let i = 0; i < nr; i++) {
      y[2 * (v * nr + i)] = rng.normal() * sd;
      y[2 * (v * nr + i) + 1] = rng.normal() * sd;
    }
    for (let j = 0; j < nt; j++) {
      const s = rng.int(c.size),
        sr = c.points[2 * s]!,
        si = c.points[2 * s + 1]!;
      for (let i = 0; i < nr; i++) {
        const hr = H[h + 2 * (i + j * nr)]!,
          hi = H[h + 2 * (i + j * nr) + 1]!;
        y[2 * (v * nr + i)] += hr * sr - hi * si;
        y[2 * (v * nr + i) + 1] += hr * si + hi * sr;
      }
    }
  }
  return { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar: n0 };
}

/** An upper bound on |y - H s|^2 / N0 over all vectors and symbol vectors: (|y| + |H|_F |s|_max)^2 / N0. */
function worstMetric(input: DetectionInput, mod: Modulation): number {
  const { nt, nr, H, y, vectorsPerChannel: vpc } = input;
  const c = constellation(mod);
  let peak = 0;
  for (let i = 0; i < c.size; i++) peak = Math.max(peak, c.points[2 * i]! ** 2 + c.points[2 * i + 1]! ** 2);
  let worst = 0;
  for (let v = 0; v < y.length / (2 * nr); v++) {
    const h = 2 * Math.floor(v / vpc!) * nr * nt;
    let hf = 0,
      yn = 0;
    for (let i = 0; i < 2 * nr * nt; i++) hf += H[h + i]! ** 2;
    for (let i = 0; i < 2 * nr; i++) yn += y[2 * v * nr + i]! ** 2;
    worst = Math.max(worst, (Math.sqrt(yn) + Math.sqrt(hf * nt * peak)) ** 2 / (input.noiseVar as number));
  }
  return worst;
}

const availability = itppAvailability();
const skip = availability.ok ? false : `IT++ unavailable: ${availability.reason}`;
if (skip) console.log(`skipping IT++ cross-checks: ${skip}`);

test('ml max-log LLRs equal IT++ FULL_ENUM_MAXLOG', { skip }, () => {
  // 4x4 16-QAM enumerates 65536 points per vector (IT++ takes ~15 ms each): fewer vectors there.
  const cases: [number, number, Modulation, number][] = [
    [2, 2, 'qpsk', 200],
    [2, 2, '16qam', 200],
    [4, 4, 'qpsk', 200],
    [4, 4, '16qam', 40],
  ];
  for (const [nt, nr, mod, vectors] of cases) {
    const snr = rng.uniform() * 15;
    const input = problem(nt, nr, mod, vectors / 4, 4, snr);
    const ours = detect(input, { detector: 'ml', modulation: mod, soft: 'maxlog' }).llr!;
    const ref = itppSoftDemod(input, mod, 'maxlog', { dint1: 12 });
    assert.equal(ref.llr.length, ours.length);
    const worst = worstMetric(input, mod);
    assert.ok(
      worst < ref.saturation / 2,
      tag(`metrics up to ${worst} may saturate IT++'s QLLR (${ref.saturation}); lower the SNR`),
    );
    let maxDiff = 0;
    for (let i = 0; i < ours.length; i++) {
      const a = ours[i]!,
        b = ref.llr[i]!;
      const diff = Math.abs(a - b);
      maxDiff = Math.max(maxDiff, diff);
      assert.ok(
        diff <= ref.resolution + 1e-9 * Math.abs(a),
        tag(`${nt}x${nr} ${mod} at ${snr.toFixed(1)} dB, LLR ${i}: ours ${a}, IT++ ${b}`),
      );
    }
    console.log(
      `${nt}x${nr} ${mod} ${vectors} vectors at ${snr.toFixed(1)} dB: max |ours - IT++| = ${maxDiff.toExponential(2)} (QLLR step ${ref.resolution.toExponential(2)})`,
    );
  }
});

test('sphere decisions equal IT++ sphere_decoding', { skip }, () => {
  for (const [nt, nr, mod] of [
    [4, 4, '16qam'],
    [3, 4, 'qpsk'],
  ] as const) {
    const input = problem(nt, nr, mod, 50, 4, 5 + rng.uniform() * 20);
    const ours = detect(input, { detector: 'sphere', modulation: mod }).symbols;
    const ref = itppSphere(input, mod, { rmax: 1e4 });
    assert.equal(ref.failures, 0, tag('IT++ sphere search failed up to rmax'));
    // Both are ML: they differ only on exact ties, which continuous noise makes improbable.
    assert.deepEqual(ref.symbols, ours, tag(`${nt}x${nr} ${mod} sphere decisions`));
  }
});
