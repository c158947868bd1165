/**
 * Modulation: labels against the 3GPP TS 38.211 5.1 formulas (written out here independently),
 * unit energy, the Gray property, hard slicing against brute-force nearest point, soft demapping
 * against brute-force max-log / log-MAP sums and its sign against the hard decision.
 * Random inputs come from a fresh seed, printed on failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { InvalidArgumentError, InvalidInputError } from '../../src/core/errors.js';
import {
  bitsOf,
  bitsToSymbols,
  constellation,
  hardDemap,
  modulate,
  parseModulation,
  softDemap,
  symbolsToBits,
} from '../../src/mimo/modulation.js';
import { MODULATIONS, type Modulation } from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

/** 38.211 5.1.2 - 5.1.7, b = bit label b0 b1 ... . */
function spec(mod: Modulation, b: number[]): [number, number] {
  const s = (i: number) => 1 - 2 * b[i]!;
  switch (mod) {
    case 'bpsk':
      return [s(0) / Math.SQRT2, s(0) / Math.SQRT2];
    case 'qpsk':
      return [s(0) / Math.SQRT2, s(1) / Math.SQRT2];
    case '16qam':
      return [(s(0) * (2 - s(2))) / Math.sqrt(10), (s(1) * (2 - s(3))) / Math.sqrt(10)];
    case '64qam':
      return [(s(0) * (4 - s(2) * (2 - s(4)))) / Math.sqrt(42), (s(1) * (4 - s(3) * (2 - s(5)))) / Math.sqrt(42)];
    case '256qam':
      return [
        (s(0) * (8 - s(2) * (4 - s(4) * (2 - s(6))))) / Math.sqrt(170),
        (s(1) * (8 - s(3) * (4 - s(5) * (2 - s(7))))) / Math.sqrt(170),
      ];
  }
}

const BPS: Record<Modulation, number> = { bpsk: 1, qpsk: 2, '16qam': 4, '64qam': 6, '256qam': 8 };

function labelBits(index: number, bps: number): number[] {
  return Array.from({ length: bps }, (_, k) => (index >> (bps - 1 - k)) & 1);
}

test('every point matches the 38.211 formula of its label; unit average energy', () => {
  for (const mod of MODULATIONS) {
    const c = constellation(mod);
    const bps = BPS[mod];
    assert.equal(c.bitsPerSymbol, bps);
    assert.equal(c.size, 1 << bps);
    assert.equal(c.points.length, 2 << bps);
    let energy = 0;
    for (let idx = 0; idx < c.size; idx++) {
      const bits = labelBits(idx, bps);
      const [re, im] = spec(mod, bits);
      assert.ok(
        Math.abs(c.points[2 * idx]! - re) < 1e-15 && Math.abs(c.points[2 * idx + 1]! - im) < 1e-15,
        `${mod} point ${idx}`,
      );
      assert.deepEqual([...bitsOf(idx, mod)], bits);
      energy += re * re + im * im;
    }
    assert.ok(Math.abs(energy / c.size - 1) < 1e-12, `${mod} energy ${energy / c.size}`);
  }
});

test('modulate() applies the formulas to random bit streams', () => {
  const rng = new Philox(seed, 1);
  for (const mod of MODULATIONS) {
    const bps = BPS[mod];
    const n = 200;
    const bits = Array.from({ length: n * bps }, () => rng.int(2));
    const s = modulate(bits, mod);
    for (let k = 0; k < n; k++) {
      const [re, im] = spec(mod, bits.slice(k * bps, (k + 1) * bps));
      assert.ok(Math.abs(s[2 * k]! - re) < 1e-15 && Math.abs(s[2 * k + 1]! - im) < 1e-15, msg(`${mod} symbol ${k}`));
    }
    assert.deepEqual([...symbolsToBits(bitsToSymbols(bits, mod), mod)], bits, msg(`${mod} bits round trip`));
  }
});

test('Gray labelling: nearest neighbours differ in exactly one bit', () => {
  for (const mod of MODULATIONS) {
    const c = constellation(mod);
    let dmin = Infinity;
    for (let a = 0; a < c.size; a++)
      for (let b = a + 1; b < c.size; b++) {
        dmin = Math.min(
          dmin,
          Math.hypot(c.points[2 * a]! - c.points[2 * b]!, c.points[2 * a + 1]! - c.points[2 * b + 1]!),
        );
      }
    let pairs = 0;
    for (let a = 0; a < c.size; a++)
      for (let b = a + 1; b < c.size; b++) {
        const d = Math.hypot(c.points[2 * a]! - c.points[2 * b]!, c.points[2 * a + 1]! - c.points[2 * b + 1]!);
        if (d < dmin * (1 + 1e-9)) {
          pairs++;
          let x = a ^ b,
            ones = 0;
          while (x) {
            ones += x & 1;
            x >>= 1;
          }
          assert.equal(ones, 1, `${mod}: neighbours ${a} and ${b} differ in ${ones} bits`);
        }
      }
    const q = Math.sqrt(c.size);
    // A square Q x Q grid has 2 Q (Q - 1) nearest-neighbour pairs (BPSK: 1).
    assert.equal(pairs, mod === 'bpsk' ? 1 : 2 * q * (q - 1), mod);
  }
});

test('hard demapping is the nearest point; soft demapping matches brute force and agrees in sign', () => {
  const rng = new Philox(seed, 2);
  for (const mod of MODULATIONS) {
    const c = constellation(mod);
    const bps = c.bitsPerSymbol;
    const n = 300;
    const y = new Float64Array(2 * n);
    for (let i = 0; i < 2 * n; i++) y[i] = rng.normal() * 0.8;
    const noiseVar = 0.01 + rng.uniform();
    const hard = hardDemap(y, mod);
    const maxlog = softDemap(y, noiseVar, mod, 'maxlog');
    const logmap = softDemap(y, noiseVar, mod, 'logmap');
    for (let k = 0; k < n; k++) {
      const d = Array.from(
        { length: c.size },
        (_, a) => (y[2 * k]! - c.points[2 * a]!) ** 2 + (y[2 * k + 1]! - c.points[2 * a + 1]!) ** 2,
      );
      const nearest = d.indexOf(Math.min(...d));
      assert.ok(
        d[hard[k]!]! <= d[nearest]! + 1e-12,
        msg(`${mod} sample ${k}: hard ${hard[k]} is not the nearest point ${nearest}`),
      );
      for (let b = 0; b < bps; b++) {
        let m0 = Infinity,
          m1 = Infinity,
          s0 = 0,
          s1 = 0;
        for (let a = 0; a < c.size; a++) {
          const bit = (a >> (bps - 1 - b)) & 1;
          if (bit === 0) {
            m0 = Math.min(m0, d[a]!);
            s0 += Math.exp(-d[a]! / noiseVar);
          } else {
            m1 = Math.min(m1, d[a]!);
            s1 += Math.exp(-d[a]! / noiseVar);
          }
        }
        const refMax = (m1 - m0) / noiseVar;
        const l = maxlog[k * bps + b]!;
        assert.ok(
          Math.abs(l - refMax) <= 1e-9 * (1 + Math.abs(refMax)),
          msg(`${mod} sample ${k} bit ${b}: max-log ${l} vs ${refMax}`),
        );
        if (s0 > 1e-250 && s1 > 1e-250) {
          const refExact = Math.log(s0) - Math.log(s1);
          assert.ok(
            Math.abs(logmap[k * bps + b]! - refExact) <= 1e-7 * (1 + Math.abs(refExact)),
            msg(`${mod} sample ${k} bit ${b}: log-MAP ${logmap[k * bps + b]} vs ${refExact}`),
          );
        }
        const hardBit = (hard[k]! >> (bps - 1 - b)) & 1;
        if (Math.abs(l) > 1e-9)
          assert.equal(
            l > 0 ? 0 : 1,
            hardBit,
            msg(`${mod} sample ${k} bit ${b}: LLR ${l} against hard bit ${hardBit}`),
          );
      }
    }
  }
});

test('parseModulation accepts the names and aliases, rejects others with InvalidArgumentError', () => {
  assert.equal(parseModulation('QPSK'), 'qpsk');
  assert.equal(parseModulation('16-QAM'), '16qam');
  assert.equal(parseModulation('qam64'), '64qam');
  assert.equal(parseModulation('256qam'), '256qam');
  assert.equal(parseModulation('bpsk'), 'bpsk');
  for (const bad of ['32qam', '', 'qam', '8psk', '1024qam'])
    assert.throws(() => parseModulation(bad), InvalidArgumentError, bad);
  assert.throws(() => bitsOf(16, '16qam'), InvalidArgumentError);
  assert.throws(() => modulate([0, 1, 1], '16qam'), InvalidInputError);
  assert.throws(() => modulate([0, 2], 'qpsk'), InvalidInputError);
});
