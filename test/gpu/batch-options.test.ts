/**
 * The batch runner's options (maxChunk, streams, chunks) are declared once (gpu/batch-options.ts)
 * and every part reads that one schema: detect()'s gpuBatch, reduce()'s gpuTuning.batch and
 * decodeBatchAsync()'s gpuBatch accept exactly the values the runner accepts and refuse exactly
 * the others, naming the key. No device is needed: the options are checked before any GPU work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { wimaxCode } from '../../src/coding/code.js';
import { decodeBatchAsync } from '../../src/coding/gpu/cuda-decoder.js';
import {
  BATCH_RUN_SCHEMA,
  checkBatchRunOptions,
  MAX_PIPELINE_LANES,
  MAX_TUNED_CHUNKS,
} from '../../src/gpu/batch-options.js';
import { gaussianBases } from '../../src/lattice/generators.js';
import { reduce } from '../../src/lattice/reduce.js';
import { detect } from '../../src/mimo/detect.js';
import { namesOption, unknownKey } from '../core/strict-options.js';

const basis = gaussianBases({ batch: 1, n: 3, seed: 5 });
const code = wimaxCode(576);
const llr = new Float64Array(code.n).fill(1);
const H = Float64Array.from([1, 0, 0, 0, 0, 0, 1, 0]);
const y = Float64Array.from([0.7, 0, -0.7, 0]);

/** Whether each part accepts the value as its batch options (true) or refuses it naming `key`. */
async function verdicts(value: unknown, key: string): Promise<boolean[]> {
  const calls: (() => unknown)[] = [
    () => checkBatchRunOptions(value, 'runner option gpuBatch'),
    () =>
      detect({ nt: 2, nr: 2, H, y, noiseVar: 0.1 }, { detector: 'zf', modulation: 'qpsk', gpuBatch: value as never }),
    () => reduce(basis, { algorithm: 'allswap', engine: 'auto', gpuTuning: { batch: value as never } }),
    () => decodeBatchAsync(code, llr, 1, { engine: 'auto', gpuBatch: value as never }),
  ];
  const out: boolean[] = [];
  for (const [i, f] of calls.entries()) {
    try {
      await f();
      out.push(true);
    } catch (e) {
      const named = i === 2 ? `gpuTuning.batch${key ? `.${key}` : ''}` : `gpuBatch${key ? `.${key}` : ''}`;
      assert.ok(
        namesOption(e, named),
        `call ${i}: ${String(e)} (${JSON.stringify((e as { details?: unknown }).details)})`,
      );
      out.push(false);
    }
  }
  return out;
}

test('every part accepts the values the runner accepts and refuses the others, naming the key', async () => {
  const value = fc.oneof(fc.integer({ min: -3, max: 300 }), fc.constantFrom(0.5, Number.NaN, '2', null, true, 2 ** 53));
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('maxChunk', 'streams', 'chunks'), value, async (key, v) => {
      const got = await verdicts({ [key]: v }, key);
      const want =
        typeof v === 'number' &&
        Number.isSafeInteger(v) &&
        v >= 0 &&
        v <= (key === 'streams' ? MAX_PIPELINE_LANES : key === 'chunks' ? MAX_TUNED_CHUNKS : Number.MAX_SAFE_INTEGER);
      assert.deepEqual(got, [want, want, want, want], `${key}: ${String(v)}`);
    }),
    { numRuns: 60 },
  );
  await fc.assert(
    fc.asyncProperty(unknownKey(BATCH_RUN_SCHEMA), async (key) => {
      assert.deepEqual(await verdicts({ [key]: 1 }, key), [false, false, false, false]);
    }),
    { numRuns: 20 },
  );
  for (const bad of [3, null, 'x', []]) assert.deepEqual(await verdicts(bad, ''), [false, false, false, false]);
});
