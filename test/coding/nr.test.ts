/**
 * 5G NR rate matching (38.212 5.4.2) over random code blocks, rates, modulation orders and
 * redundancy versions (fast-check):
 *  - k0 per Table 5.4.2.1-2; undoing the interleaver gives the circular-buffer walk from k0 over the
 *    N unpunctured bits, fillers skipped, wrapping as often as E needs;
 *  - rate matching then recovery: every sent codeword bit comes back with its sign and the summed
 *    magnitude of its repeats, unsent and punctured bits 0, fillers +saturation; two redundancy
 *    versions soft-combine by addition;
 *  - bad rv / shapes get typed errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError, InvalidInputError } from '../../src/core/errors.js';
import { nrCode } from '../../src/coding/code.js';
import {
  nrCodeParams,
  nrK0,
  nrRateMatch,
  nrRateMatchMap,
  nrRateRecover,
  type NrCodeParams,
} from '../../src/coding/nr.js';

const blockArb = fc.record({
  bg: fc.constantFrom<1 | 2>(1, 2),
  K: fc.integer({ min: 1, max: 3840 }),
  R: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
  Qm: fc.constantFrom(1, 2, 4, 6, 8),
  rv: fc.constantFrom(0, 1, 2, 3),
});

const isFiller = (p: NrCodeParams, c: number) => c >= p.K && c < p.Kldpc;

test('k0 follows 38.212 Table 5.4.2.1-2 (N_cb = N)', () => {
  fc.assert(
    fc.property(blockArb, ({ bg, K, R, Qm }) => {
      const p = nrCodeParams({ K, R, bg, Qm });
      const table = bg === 1 ? [0, 17, 33, 56] : [0, 13, 25, 43];
      for (let rv = 0; rv < 4; rv++) assert.equal(nrK0(p, rv), table[rv]! * p.Zc);
    }),
    { numRuns: 30 },
  );
});

test('undoing the interleaver gives the circular-buffer walk from k0, fillers skipped', () => {
  fc.assert(
    fc.property(blockArb, ({ bg, K, R, Qm, rv }) => {
      const p = nrCodeParams({ K, R, bg, Qm });
      const f = nrRateMatchMap(p, rv);
      assert.equal(f.length, p.E);
      const rows = p.E / Qm;
      const e = new Int32Array(p.E);
      for (let i = 0; i < Qm; i++) for (let j = 0; j < rows; j++) e[i * rows + j] = f[i + j * Qm]!;
      // Walk the buffer independently.
      let pos = nrK0(p, rv);
      for (let k = 0; k < p.E; k++) {
        while (isFiller(p, pos + 2 * p.Zc)) pos = (pos + 1) % p.N;
        assert.equal(e[k], pos + 2 * p.Zc, `position ${k} of E = ${p.E}`);
        pos = (pos + 1) % p.N;
      }
    }),
    { numRuns: 40 },
  );
});

test('rate matching then recovery returns each sent bit with its summed repeats; combining adds', () => {
  fc.assert(
    fc.property(blockArb, fc.nat(), ({ bg, K, R, Qm, rv }, seed) => {
      const code = nrCode({ K: Math.min(K, 1000), R, bg, Qm });
      const p = code.nr!;
      let st = seed >>> 0;
      const rnd = () => {
        st = (Math.imul(st, 1664525) + 1013904223) >>> 0;
        return st / 2 ** 32;
      };
      const info = new Uint8Array(p.K).map(() => (rnd() < 0.5 ? 1 : 0));
      const cw = code.encodeFull(info).slice();
      const map = nrRateMatchMap(p, rv);
      const tx = nrRateMatch(map, cw);
      const mags = Float64Array.from(tx, () => 0.5 + rnd());
      const llr = Float64Array.from(tx, (b, k) => (b ? -mags[k]! : mags[k]!));
      const acc = new Float64Array(p.nFull);
      nrRateRecover(p, map, llr, acc, true, 50);
      const want = new Float64Array(p.nFull);
      for (let k = 0; k < p.E; k++) want[map[k]!] += cw[map[k]!] ? -mags[k]! : mags[k]!;
      for (let c = 0; c < p.nFull; c++) {
        if (isFiller(p, c)) assert.equal(acc[c], 50, 'filler bits are not known zeros');
        else if (c < 2 * p.Zc) assert.equal(acc[c], 0, 'a punctured bit got an LLR');
        else assert.ok(Math.abs(acc[c]! - want[c]!) < 1e-9, `column ${c}`);
      }
      // Every non-filler bit of the buffer is sent once E covers it.
      const sendable = p.N - Math.max(0, p.Kldpc - Math.max(p.K, 2 * p.Zc));
      if (p.E >= sendable) {
        for (let c = 2 * p.Zc; c < p.nFull; c++)
          if (!isFiller(p, c)) assert.notEqual(acc[c], 0, `column ${c} never sent though E >= ${sendable}`);
      }
      // Soft combining with a second redundancy version adds its LLRs.
      const map2 = nrRateMatchMap(p, (rv + 2) % 4);
      const llr2 = Float64Array.from(nrRateMatch(map2, cw), (b) => (b ? -1 : 1));
      nrRateRecover(p, map2, llr2, acc, false, 50);
      for (let k = 0; k < p.E; k++) want[map2[k]!] += cw[map2[k]!] ? -1 : 1;
      for (let c = 2 * p.Zc; c < p.nFull; c++)
        if (!isFiller(p, c)) assert.ok(Math.abs(acc[c]! - want[c]!) < 1e-9, `combined column ${c}`);
    }),
    { numRuns: 30 },
  );
});

test('bad redundancy versions and shapes get typed errors', () => {
  const p = nrCodeParams({ K: 500, R: 0.5, bg: 2 });
  for (const rv of [-1, 4, 1.5])
    assert.throws(
      () => nrRateMatchMap(p, rv),
      (e: unknown) => e instanceof InvalidArgumentError && /redundancy version/.test(e.message),
    );
  const map = nrRateMatchMap(p, 0);
  assert.throws(
    () => nrRateRecover(p, map, new Float64Array(p.E), new Float64Array(p.nFull - 1), true, 10),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  assert.throws(
    () => nrRateRecover(p, map, new Float64Array(p.E - 1), new Float64Array(p.nFull), true, 10),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  assert.throws(
    () => nrRateMatch(map, new Uint8Array(p.nFull), new Uint8Array(3)),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  const bad = new Float64Array(p.E);
  bad[7] = NaN;
  assert.throws(
    () => nrRateRecover(p, map, bad, new Float64Array(p.nFull), true, 10),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'NON_FINITE',
  );
});
