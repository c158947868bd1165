import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Philox, philox4x32 } from '../../src/core/rng.js';

test('Philox4x32-10 matches the Random123 known-answer vectors', () => {
  const out = new Uint32Array(4);
  const kat: [number[], number[]][] = [
    [
      [0, 0, 0, 0, 0, 0],
      [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
    ],
    [
      [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff],
      [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
    ],
    // key (a4093822, 299f31d0), counter (243f6a88, 85a308d3, 13198a2e, 03707344)
    [
      [0xa4093822, 0x299f31d0, 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
      [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
    ],
  ];
  for (const [[k0, k1, c0, c1, c2, c3], want] of kat) {
    philox4x32(k0!, k1!, c0!, c1!, c2!, c3!, out);
    assert.deepEqual([...out], want);
  }
});

test('a stream is a pure function of (seed, stream, position)', () => {
  fc.assert(
    fc.property(fc.nat(), fc.nat(), fc.nat({ max: 1000 }), (seed, stream, pos) => {
      const a = new Philox(seed, stream);
      const seq: number[] = [];
      for (let i = 0; i < pos + 8; i++) seq.push(a.nextUint32());
      const b = new Philox(seed, stream).seek(pos);
      for (let i = 0; i < 8; i++) assert.equal(b.nextUint32(), seq[pos + i]);
    }),
    { numRuns: 50 },
  );
});

test('different streams and seeds give different words', () => {
  const seed = Date.now() % 1e9;
  const words = (s: number, st: number) => {
    const p = new Philox(s, st);
    return [p.nextUint32(), p.nextUint32(), p.nextUint32()];
  };
  assert.notDeepEqual(words(seed, 0), words(seed, 1));
  assert.notDeepEqual(words(seed, 0), words(seed + 1, 0));
});

test('uniforms lie in (0, 1) and normals have mean 0, variance 1', () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const p = new Philox(seed, 7);
  const N = 200000;
  let s = 0,
    s2 = 0,
    s4 = 0;
  for (let i = 0; i < N; i++) {
    const u = p.uniform();
    assert.ok(u > 0 && u < 1, `seed ${seed}: uniform ${u}`);
    const x = p.normal();
    s += x;
    s2 += x * x;
    s4 += x ** 4;
  }
  const mean = s / N,
    variance = s2 / N - mean * mean,
    kurt = s4 / N;
  // Standard errors: mean 1/sqrt(N) = 0.0022, variance sqrt(2/N) = 0.0032; 6 sigma bounds.
  assert.ok(Math.abs(mean) < 0.014, `seed ${seed}: mean ${mean}`);
  assert.ok(Math.abs(variance - 1) < 0.02, `seed ${seed}: variance ${variance}`);
  assert.ok(Math.abs(kurt - 3) < 0.15, `seed ${seed}: fourth moment ${kurt}`);
});

test('int(n) stays in range and hits every value', () => {
  const p = new Philox(Date.now() % 1e6, 3);
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const v = p.int(10);
    assert.ok(Number.isInteger(v) && v >= 0 && v < 10);
    seen.add(v);
  }
  assert.equal(seen.size, 10);
});

test('bad seeds are typed errors', () => {
  assert.throws(() => new Philox(-1), /seed/);
  assert.throws(() => new Philox(1.5), /seed/);
  assert.throws(() => new Philox(2n ** 64n), /seed/);
});
