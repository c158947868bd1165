/**
 * The 38.212 5.1 CRCs (src/coding/crc.ts) against a plain polynomial long division written here:
 * the catalogue's check values of ASCII "123456789" (CRC-24/LTE-A 0xCDE703, CRC-24/LTE-B
 * 0x23EF52, CRC-16/XMODEM 0x31C3 for crc16), every kind on fresh random messages of many lengths
 * (both the bit-at-a-time and the table path, and spans inside a longer array), attach then check,
 * every single bit flip detected, typed errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { CRC_KINDS, crcAttach, crcCheck, crcOf, NR_CRCS, type CrcKind } from '../../src/coding/crc.js';
import { InvalidArgumentError, InvalidInputError } from '../../src/core/errors.js';

/** The generator's coefficients, highest first: D^L .. D^0 (from the degrees 38.212 lists). */
const GENERATORS: Record<CrcKind, number[]> = {
  crc24a: [24, 23, 18, 17, 14, 11, 10, 7, 6, 5, 4, 3, 1, 0],
  crc24b: [24, 23, 6, 5, 1, 0],
  crc24c: [24, 23, 21, 20, 17, 15, 13, 12, 8, 4, 2, 1, 0],
  crc16: [16, 12, 5, 0],
  crc11: [11, 10, 9, 5, 0],
  crc6: [6, 5, 0],
};

/** a(D) D^L mod g(D) by long division over the bits, as 38.212 5.1 defines the parity. */
function longDivision(kind: CrcKind, bits: ArrayLike<number>): number {
  const degrees = GENERATORS[kind];
  const L = degrees[0]!;
  const g = new Uint8Array(L + 1);
  for (const d of degrees) g[L - d] = 1;
  const r = Uint8Array.from({ length: bits.length + L }, (_, i) => (i < bits.length ? bits[i]! : 0));
  for (let i = 0; i < bits.length; i++) if (r[i]) for (let j = 0; j <= L; j++) r[i + j] ^= g[j]!;
  let v = 0;
  for (let j = 0; j < L; j++) v = v * 2 + r[bits.length + j]!;
  return v;
}

const asciiBits = (s: string): Uint8Array =>
  Uint8Array.from(
    Array.from(Buffer.from(s, 'ascii')).flatMap((b) => Array.from({ length: 8 }, (_, i) => (b >> (7 - i)) & 1)),
  );

const randomBits = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => randomInt(2));

test('the generators are 38.212 5.1', () => {
  for (const kind of CRC_KINDS) {
    const [L, ...rest] = GENERATORS[kind];
    assert.equal(NR_CRCS[kind].length, L, kind);
    assert.equal(
      NR_CRCS[kind].poly,
      rest.reduce((p, d) => p + 2 ** d, 0),
      kind,
    );
  }
});

test('check values of "123456789": CRC-24/LTE-A, CRC-24/LTE-B, CRC-16/XMODEM', () => {
  const bits = asciiBits('123456789');
  const want: Partial<Record<CrcKind, number>> = { crc24a: 0xcde703, crc24b: 0x23ef52, crc16: 0x31c3 };
  for (const [kind, value] of Object.entries(want) as [CrcKind, number][]) {
    assert.equal(longDivision(kind, bits), value, `long division ${kind}`);
    assert.equal(crcOf(kind, bits), value, kind);
  }
  for (const kind of CRC_KINDS) assert.equal(crcOf(kind, bits), longDivision(kind, bits), kind);
});

test('every kind equals long division on random messages (bit and table paths, spans)', () => {
  const lengths = [0, 1, 5, 7, 8, 9, 23, 31, 32, 33, 40, 63, 64, 65, 100, 1000, 8448, 20000];
  for (const kind of CRC_KINDS) {
    for (const n of lengths) {
      const bits = randomBits(n);
      assert.equal(crcOf(kind, bits), longDivision(kind, bits), `${kind} length ${n}`);
    }
    for (let trial = 0; trial < 20; trial++) {
      const all = randomBits(200 + randomInt(600)).subarray(randomInt(4));
      const start = randomInt(all.length),
        length = randomInt(all.length - start + 1);
      assert.equal(
        crcOf(kind, all, start, length),
        longDivision(kind, all.subarray(start, start + length)),
        `${kind} span ${start} + ${length}`,
      );
    }
  }
});

test('attach then check: remainder 0, parity p_0 first; any single bit flip is detected', () => {
  for (const kind of CRC_KINDS) {
    const L = NR_CRCS[kind].length;
    for (const n of [1, 12, 100, 3824, 8424]) {
      const a = randomBits(n);
      const c = crcAttach(kind, a);
      assert.equal(c.length, n + L);
      assert.deepEqual(c.subarray(0, n), a);
      const p = crcOf(kind, a);
      for (let k = 0; k < L; k++) assert.equal(c[n + k], (p >> (L - 1 - k)) & 1, `${kind} parity bit ${k}`);
      assert.equal(crcOf(kind, c), 0, `${kind} n ${n}`);
      assert.ok(crcCheck(kind, c));
      const flips = n > 200 ? Array.from({ length: 60 }, () => randomInt(c.length)) : c.keys();
      for (const i of flips) {
        c[i] ^= 1;
        assert.ok(!crcCheck(kind, c), `${kind} n ${n}: flip of bit ${i} undetected`);
        c[i] ^= 1;
      }
    }
  }
});

test('typed errors: unknown kind, span outside, non-bits, short check, wrong output', () => {
  const bits = randomBits(40);
  assert.throws(() => crcOf('crc32' as CrcKind, bits), InvalidArgumentError);
  assert.throws(() => crcOf('crc16', bits, 30, 20), InvalidArgumentError);
  assert.throws(() => crcOf('crc16', bits, -1, 2), InvalidArgumentError);
  assert.throws(() => crcOf('crc16', [0, 1] as unknown as Uint8Array), InvalidArgumentError);
  bits[17] = 2;
  assert.throws(
    () => crcOf('crc16', bits),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'INVALID_INPUT' && /bit 17 is 2/.test(e.message),
  );
  for (let trial = 0; trial < 30; trial++) {
    // head, words and tail of a span in an array at any alignment
    const all = randomBits(300),
      view = all.subarray(randomInt(4)),
      start = randomInt(8),
      length = 40 + randomInt(200),
      at = start + randomInt(length);
    view[at] = 2 + randomInt(254);
    assert.throws(
      () => crcOf('crc24a', view, start, length),
      (e: unknown) => e instanceof InvalidInputError && e.code === 'INVALID_INPUT' && e.details?.index === at,
    );
  }
  assert.throws(() => crcCheck('crc24a', new Uint8Array(10)), InvalidArgumentError);
  assert.throws(
    () => crcAttach('crc6', new Uint8Array(10), new Uint8Array(15)),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
});
