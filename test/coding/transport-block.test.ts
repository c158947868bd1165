/**
 * Transport blocks (src/coding/transport-block.ts): 38.212's CRC and segmentation rules on known
 * sizes (CRC16 up to 3824 bits, C and K' at the base graphs' limits), round trips of random
 * transport blocks of 38.214 sizes with C = 1 and C > 1 on both base graphs, a flipped bit failing
 * its own block's CRC24B and the transport block CRC and no other block's, code block sizes equal
 * to the LDPC code's K (the blocks encode and decode through ldpcCode), transportBlockSize's
 * inverse, typed errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { ldpcCode } from '../../src/coding/code.js';
import { crcOf } from '../../src/coding/crc.js';
import type { NrBaseGraph } from '../../src/coding/nr.js';
import {
  checkTransportBlock,
  segmentTransportBlock,
  transportBlockSegmentation,
  transportBlockSize,
  type TransportBlockSegmentation,
} from '../../src/coding/transport-block.js';
import { InvalidArgumentError, InvalidInputError } from '../../src/core/errors.js';

const randomBits = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => randomInt(2));

/** A 38.214 5.1.3.2 size for C blocks (A + 24 a multiple of 8 C), about `near` bits. */
const tbsFor = (C: number, near: number): number => 8 * C * Math.ceil((near + 24) / (8 * C)) - 24;

test('38.212 rules on known sizes', () => {
  const s1 = transportBlockSegmentation(3824, 1);
  assert.deepEqual([s1.tbCrc, s1.B, s1.C, s1.Kprime, s1.blockCrc], ['crc16', 3840, 1, 3840, null]);
  const s2 = transportBlockSegmentation(3840, 2);
  assert.deepEqual([s2.tbCrc, s2.B, s2.C, s2.Kprime, s2.perBlock], ['crc24a', 3864, 2, 1956, 1932]);
  const s3 = transportBlockSegmentation(8424, 1);
  assert.deepEqual([s3.C, s3.Kprime], [1, 8448]);
  const s4 = transportBlockSegmentation(8448, 1);
  assert.deepEqual([s4.C, s4.Kprime, s4.blockCrc], [2, 4260, 'crc24b']);
  // 38.214's largest sizes: 1,277,992 bits on base graph 1 is C = 152 blocks of 8432 + 24
  const s5 = transportBlockSegmentation(1277992, 1);
  assert.deepEqual([s5.C, s5.Kprime], [152, 8432]);
});

test('round trips on random transport blocks: C = 1 and C > 1, both base graphs', () => {
  const cases: [number, NrBaseGraph][] = [
    [24, 2],
    [200 + randomInt(100), 2],
    [3824, 2],
    [tbsFor(2, 3900), 2],
    [tbsFor(3, 9000), 2],
    [1000 + randomInt(2000), 1],
    [tbsFor(1, 5000), 1],
    [8424, 1],
    [tbsFor(2, 9000), 1],
    [tbsFor(4, 30000), 1],
  ];
  for (const [A, bg] of cases) {
    const tb = randomBits(A);
    const seg = segmentTransportBlock(tb, bg);
    assert.equal(seg.blocks.length, seg.C);
    for (const blk of seg.blocks) {
      assert.equal(blk.length, seg.Kprime);
      if (seg.C > 1) assert.equal(crcOf('crc24b', blk), 0);
    }
    assert.equal(transportBlockSize(seg.C, seg.Kprime, bg), A);
    const back = checkTransportBlock(seg.blocks, A, bg);
    assert.deepEqual(back.tb, tb, `A ${A} bg ${bg}`);
    assert.ok(back.tbCrcOk);
    assert.deepEqual(back.blockCrcOk, new Array(seg.C).fill(true));
    const flat = new Uint8Array(seg.C * seg.Kprime);
    seg.blocks.forEach((b, r) => {
      flat.set(b, r * seg.Kprime);
    });
    assert.deepEqual(checkTransportBlock(flat, A, bg), back);
  }
});

test('a flipped bit fails its block and the transport block, no other block', () => {
  for (const [A, bg] of [
    [tbsFor(3, 20000), 1],
    [tbsFor(4, 12000), 2],
    [1500, 1],
  ] as [number, NrBaseGraph][]) {
    const seg = segmentTransportBlock(randomBits(A), bg);
    for (let trial = 0; trial < 10; trial++) {
      const r = randomInt(seg.C),
        i = randomInt(seg.Kprime);
      const blocks = seg.blocks.map((b) => b.slice());
      blocks[r]![i] ^= 1;
      const got = checkTransportBlock(blocks, A, bg);
      assert.equal(got.blockCrcOk[r], false, `A ${A}: block ${r} bit ${i}`);
      got.blockCrcOk.forEach((ok, q) => {
        if (q !== r) assert.ok(ok);
      });
      // a flip in a block's own CRC24B leaves the payload and its CRC intact
      assert.equal(got.tbCrcOk, seg.C > 1 && i >= seg.perBlock, `A ${A}: block ${r} bit ${i}`);
    }
  }
});

test("code blocks are the LDPC code's K: they encode and decode through ldpcCode", () => {
  for (const [A, bg, R] of [
    [tbsFor(2, 5000), 2, '1/5'],
    [tbsFor(2, 10000), 1, '1/2'],
  ] as [number, NrBaseGraph, string][]) {
    const seg = segmentTransportBlock(randomBits(A), bg);
    const code = ldpcCode(`nr:bg${bg}:${seg.Kprime}:${R}`);
    assert.equal(code.k, seg.Kprime);
    const decoded = seg.blocks.map((b) => {
      const cw = code.encode(b);
      return code.decode(Float64Array.from(cw, (x) => (x ? -8 : 8))).bits;
    });
    const got = checkTransportBlock(decoded, A, bg);
    assert.ok(got.tbCrcOk && got.blockCrcOk.every(Boolean));
  }
});

test('transportBlockSize: the inverse of segmentation, refusals', () => {
  let checked = 0;
  for (let trial = 0; trial < 200; trial++) {
    const bg = (1 + randomInt(2)) as NrBaseGraph;
    const C = 1 + randomInt(6);
    const A = C === 1 ? 1 + randomInt(8424) : tbsFor(C, (C - 0.5) * (bg === 1 ? 8424 : 3816));
    let s: TransportBlockSegmentation;
    try {
      s = transportBlockSegmentation(A, bg);
    } catch {
      continue; // a size 38.214 would not give (C does not divide B)
    }
    assert.equal(transportBlockSize(s.C, s.Kprime, bg), A, `A ${A} bg ${bg}`);
    assert.equal(transportBlockSize(s.C, s.Kprime), A);
    checked++;
  }
  assert.ok(checked > 150, `${checked} sizes checked`);
  assert.throws(() => transportBlockSize(1, 3845), InvalidArgumentError);
  assert.throws(() => transportBlockSize(2, 100, 1), InvalidArgumentError);
  assert.throws(() => transportBlockSize(1, 5000, 2), InvalidArgumentError);
  assert.throws(() => transportBlockSize(0, 100), InvalidArgumentError);
});

test('typed errors: sizes that do not divide, bad shapes and bits', () => {
  assert.throws(
    () => transportBlockSegmentation(9001, 1),
    (e: unknown) => e instanceof InvalidArgumentError && /A = 9001/.test(e.message) && /C = 2/.test(e.message),
  );
  assert.throws(() => transportBlockSegmentation(0, 1), InvalidArgumentError);
  assert.throws(() => transportBlockSegmentation(100, 3 as NrBaseGraph), InvalidArgumentError);
  const seg = segmentTransportBlock(randomBits(tbsFor(2, 9000)), 1);
  const A = seg.A;
  assert.throws(
    () => checkTransportBlock(seg.blocks.slice(0, 1), A, 1),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  assert.throws(
    () => checkTransportBlock([seg.blocks[0]!, seg.blocks[1]!.subarray(1)], A, 1),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  assert.throws(
    () => checkTransportBlock(new Uint8Array(seg.Kprime), A, 1),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  const bad = seg.blocks.map((b) => b.slice());
  bad[1]![5] = 7;
  assert.throws(
    () => checkTransportBlock(bad, A, 1),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'INVALID_INPUT',
  );
  assert.throws(() => segmentTransportBlock(new Uint8Array([0, 1, 2]), 2), InvalidInputError);
});
