/**
 * The Monte Carlo engine: same seed -> same counts with 1 and 2 threads; the stop rules (max bit
 * errors, max vectors, whole chunks in order); the chunk data depends only on (seed, SNR index,
 * chunk index). Every test draws a fresh seed and prints it on failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { simulate } from '../../src/sim/simulate.js';
import { generateLinkChunk } from '../../src/sim/link.js';
import { countErrors } from '../../src/sim/chunk.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { SimPoint, SimProgressEvent, SimulationOptions } from '../../src/sim/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

/** The counts of a point without its timings (which differ from run to run). */
function counts(p: SimPoint) {
  const { timeMs: _t, ...rest } = p;
  return rest;
}

test('same seed gives identical counts with 1 and 2 threads and any chunk of whole units', async () => {
  const base: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }, { detector: 'mmse' }, { detector: 'sphere' }],
    snrs: [0, 8, 16],
    maxErrors: 150,
    maxVectors: 4000,
    unitVectors: 256,
    seed,
  };
  for (const vectorsPerChannel of [1, 4]) {
    const one = await simulate({ ...base, vectorsPerChannel, threads: 1 });
    const two = await simulate({ ...base, vectorsPerChannel, threads: 2, chunkVectors: 256 * (2 + randomInt(4)) });
    assert.equal(one.points.length, 9);
    assert.deepEqual(two.points.map(counts), one.points.map(counts), msg(`vectorsPerChannel ${vectorsPerChannel}`));
    // The seed matters: another seed gives other counts (equal counts at every point would be a fluke).
    const other = await simulate({ ...base, vectorsPerChannel, threads: 2, seed: seed + 1 });
    assert.notDeepEqual(other.points.map(counts), one.points.map(counts), msg('seed + 1 gave the same counts'));
  }
});

test('stop rules: a detector stops at the first whole unit that reaches max errors, else at max vectors', async () => {
  for (let trial = 0; trial < 4; trial++) {
    const vectorsPerChannel = 1 + randomInt(3);
    const unitVectors = vectorsPerChannel * (16 + randomInt(64));
    const maxErrors = 20 + randomInt(200);
    const maxVectorsAsked = 200 + randomInt(3000);
    const maxVectors = Math.ceil(maxVectorsAsked / vectorsPerChannel) * vectorsPerChannel;
    const events: SimProgressEvent[] = [];
    const snrs = [0, 6, 12, 30];
    const result = await simulate({
      nt: 2,
      nr: 2 + randomInt(2),
      modulation: trial % 2 ? '16qam' : 'qpsk',
      detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
      snrs,
      maxErrors,
      maxVectors: maxVectorsAsked,
      vectorsPerChannel,
      unitVectors,
      seed: seed + trial,
      threads: trial % 2 ? 2 : 1,
      onProgress: (e) => events.push(e),
    });
    const what = msg(`trial ${trial}: chunk ${unitVectors}, maxErrors ${maxErrors}, maxVectors ${maxVectors}`);
    assert.equal(result.maxVectors, maxVectors, what);
    for (let s = 0; s < snrs.length; s++) {
      // 'update' comes after each merged chunk and, while a chunk takes long, every PROGRESS_INTERVAL_MS:
      // the merged chunks are the updates whose vector counts moved
      const seen = (e: SimProgressEvent | undefined): string => e?.points.map((q) => q.vectors).join() ?? '0,0';
      const all = events.filter((e) => e.snrIndex === s && e.type === 'update');
      const updates = all.filter((e, i) => seen(e) !== seen(all[i - 1]));
      const final = events.find((e) => e.snrIndex === s && e.type === 'point')!;
      for (let d = 0; d < 2; d++) {
        const p = result.points[s * 2 + d]!;
        assert.deepEqual(counts(final.points[d]!), counts(p), what);
        // Replay the cumulative counts chunk by chunk: the stop is at the first chunk that reaches a limit.
        let expectedStop = -1;
        for (let c = 0; c < updates.length; c++) {
          const q = updates[c]!.points[d]!;
          if (expectedStop >= 0) {
            assert.deepEqual(counts(q), counts(p), `${what}: counts changed after detector ${d} stopped`);
            continue;
          }
          assert.equal(q.vectors, Math.min((c + 1) * unitVectors, maxVectors), `${what}: whole chunks, in order`);
          if (q.bitErrors >= maxErrors || q.vectors >= maxVectors) {
            expectedStop = c;
            assert.equal(updates[c]!.finished[d], true, `${what}: detector ${d} should stop after chunk ${c}`);
            assert.deepEqual(
              counts(q),
              counts(p),
              `${what}: final counts are those at the first chunk reaching a limit`,
            );
          } else {
            assert.equal(updates[c]!.finished[d], false, what);
          }
        }
        assert.ok(expectedStop >= 0, `${what}: detector ${d} at SNR ${snrs[s]} never stopped`);
        assert.ok(p.vectors <= maxVectors, what);
        if (p.stoppedBy === 'errors') assert.ok(p.bitErrors >= maxErrors, what);
        else assert.ok(p.vectors === maxVectors && p.bitErrors < maxErrors, what);
        assert.equal(p.bits, p.vectors * 2 * constellation(result.modulation).bitsPerSymbol, what);
        assert.equal(p.ber, p.bitErrors / p.bits, what);
        assert.equal(p.fer, p.frameErrors / p.vectors, what);
        assert.ok(p.frameErrors <= p.symbolErrors && p.symbolErrors <= p.bitErrors, what);
      }
    }
  }
});

test('chunk data depends only on (seed, SNR index, chunk index); SNR points and chunks are independent', () => {
  const spec = {
    nt: 3,
    nr: 4,
    modulation: '16qam' as const,
    vectorsPerChannel: 2,
    seed,
    snrIndex: 3,
    unitIndex: 7,
    vectors: 64,
    noiseVar: 0.05,
  };
  const a = generateLinkChunk(spec),
    b = generateLinkChunk(spec);
  assert.deepEqual(a, b, msg('same indices, same data'));
  // Every (SNR index, chunk index) has its own data: no two of a random set share channels.
  const seen = new Map<string, string>();
  for (let k = 0; k < 40; k++) {
    const at =
      k < 16 ? { snrIndex: k >> 2, unitIndex: k & 3 } : { snrIndex: randomInt(1 << 19), unitIndex: randomInt(2 ** 32) };
    const key = `${at.snrIndex}/${at.unitIndex}`;
    const h = generateLinkChunk({ ...spec, ...at, vectors: 2 }).H.join(',');
    if (seen.has(h) && seen.get(h) !== key) assert.fail(msg(`chunks ${seen.get(h)} and ${key} have the same channels`));
    seen.set(h, key);
  }
  const c = generateLinkChunk({ ...spec, unitIndex: 8 });
  const d = generateLinkChunk({ ...spec, snrIndex: 4 });
  assert.notDeepEqual(c.H, a.H, msg('chunk index changes the channels'));
  assert.notDeepEqual(d.txIndices, a.txIndices, msg('SNR index changes the symbols'));
  // Noise level only scales the noise: symbols and channels of the chunk are the same.
  const e = generateLinkChunk({ ...spec, noiseVar: 0.5 });
  assert.deepEqual(e.txIndices, a.txIndices, msg('symbols do not depend on the noise'));
  assert.deepEqual(e.H, a.H, msg('channels do not depend on the noise'));
  assert.equal(a.H.length, 2 * (64 / 2) * 4 * 3);
  assert.equal(a.y.length, 2 * 64 * 4);
  // Symbols are uniform over the 16 points (chi-square over a larger draw, 15 dof: 99.99% quantile ~ 44).
  const big = generateLinkChunk({ ...spec, vectors: 4000 });
  const hist = new Array(16).fill(0);
  for (const s of big.txIndices) hist[s]++;
  const expect = big.txIndices.length / 16;
  const chi2 = hist.reduce((acc, h) => acc + (h - expect) ** 2 / expect, 0);
  assert.ok(chi2 < 44, msg(`symbol histogram chi-square ${chi2.toFixed(1)}`));
});

test('countErrors counts bit, symbol and frame errors of a perturbed decision', () => {
  const nt = 3,
    mod = '64qam' as const,
    c = constellation(mod),
    bps = c.bitsPerSymbol;
  for (let trial = 0; trial < 20; trial++) {
    const vectors = 1 + randomInt(30);
    const tx = Int32Array.from({ length: vectors * nt }, () => randomInt(c.size));
    const rx = tx.slice();
    let bitErrors = 0,
      symbolErrors = 0;
    const badVectors = new Set<number>();
    for (let k = 0; k < randomInt(10); k++) {
      const at = randomInt(rx.length);
      if (rx[at] !== tx[at]) continue; // change each symbol at most once, so the counts below are exact
      rx[at] = (tx[at]! + 1 + randomInt(c.size - 1)) % c.size;
      symbolErrors++;
      badVectors.add(Math.floor(at / nt));
      for (let b = 0; b < bps; b++) if (c.bitTable[rx[at]! * bps + b] !== c.bitTable[tx[at]! * bps + b]) bitErrors++;
    }
    const bits = new Uint8Array(rx.length * bps);
    for (let s = 0; s < rx.length; s++) for (let b = 0; b < bps; b++) bits[s * bps + b] = c.bitTable[rx[s]! * bps + b]!;
    assert.deepEqual(countErrors(tx, rx, bits, nt, mod), { bitErrors, symbolErrors, frameErrors: badVectors.size });
  }
});
