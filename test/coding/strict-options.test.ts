/**
 * The coding part's entry points are as strict as the command line: decoder options (a code's
 * decoder(), decode(), decodeBatch(), LdpcDecoder, decodeBatchAsync), ldpcCode()'s options and
 * nrCode()'s request refuse unknown keys (suggesting the nearest), values of the wrong type or
 * range (naming the key), and options the algorithm or engine does not read (alpha without nms,
 * beta without oms, the GPU's launch choices on the CPU engine); valid options of every kind are
 * taken and decode as the decoder does with them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { ldpcCode, nrCode, qcCode, sparseCode, wimaxCode } from '../../src/coding/code.js';
import { DECODER_SCHEMA, LDPC_DECODER_DEFAULTS, LdpcDecoder, resolveDecoderOptions } from '../../src/coding/decoder.js';
import { DECODE_ASYNC_SCHEMA, decodeBatchAsync } from '../../src/coding/gpu/cuda-decoder.js';
import { NR_CODE_SCHEMA } from '../../src/coding/nr.js';
import { LDPC_DECODER_ALGORITHMS, type DecoderOptions } from '../../src/coding/types.js';
import { assertUnknownKeyRefusal, refused, refusedSync, unknownKey, wrongValue } from '../core/strict-options.js';

const code = wimaxCode(576);

/** Random decoder options, each key in range and read by the algorithm chosen. */
const validDecoder: fc.Arbitrary<DecoderOptions> = fc
  .record(
    {
      algorithm: fc.constantFrom(...LDPC_DECODER_ALGORITHMS),
      maxIterations: fc.integer({ min: 1, max: 12 }),
      earlyStop: fc.boolean(),
      alpha: fc.double({ min: 0.05, max: 1, noNaN: true }),
      beta: fc.double({ min: 0, max: 3, noNaN: true }),
      saturation: fc.double({ min: 1, max: 100, noNaN: true }),
    },
    { requiredKeys: [], noNullPrototype: true },
  )
  .map(({ alpha, beta, ...o }) => {
    const algorithm = o.algorithm ?? 'nms';
    return {
      ...o,
      ...(algorithm === 'nms' && alpha !== undefined ? { alpha } : {}),
      ...(algorithm === 'oms' && beta !== undefined ? { beta } : {}),
    };
  });

function noisyFrames(frames: number, seed: number): Float64Array {
  const rng = new Philox(seed, 7);
  const info = new Uint8Array(frames * code.k).map(() => rng.nextUint32() & 1);
  const cw = code.encodeBatch(info, frames);
  return Float64Array.from(cw, (b) => 2 * (1 - 2 * b) + 1.2 * rng.normal());
}

test('decoder options: unknown keys are refused by every way in, with the nearest key suggested', async () => {
  const llr = noisyFrames(1, 1);
  await fc.assert(
    fc.asyncProperty(unknownKey(DECODER_SCHEMA), async (key) => {
      const o = { [key]: 1 } as DecoderOptions;
      for (const f of [
        () => code.decoder(o),
        () => code.decode(llr, o),
        () => code.decodeBatch(llr, 1, o),
        () => new LdpcDecoder(code.H, o),
        () => resolveDecoderOptions(o),
      ]) {
        assertUnknownKeyRefusal(refusedSync(f, key), key, DECODER_SCHEMA);
      }
      const e = await refused(() => decodeBatchAsync(code, llr, 1, o), key);
      assertUnknownKeyRefusal(e, key, DECODE_ASYNC_SCHEMA);
    }),
    { numRuns: 40 },
  );
});

test('decoder options: a value of the wrong type or range is refused naming its key', async () => {
  const llr = noisyFrames(1, 2);
  const keys = Object.keys(DECODE_ASYNC_SCHEMA) as (keyof typeof DECODE_ASYNC_SCHEMA)[];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...keys).chain((k) => fc.tuple(fc.constant(k), wrongValue(DECODE_ASYNC_SCHEMA[k]))),
      async ([key, bad]) => {
        const o = { [key]: bad } as DecoderOptions;
        await refused(() => decodeBatchAsync(code, llr, 1, o), key, `${key}: ${String(bad)}`);
        if (key in DECODER_SCHEMA) refusedSync(() => code.decoder(o), key, `${key}: ${String(bad)}`);
      },
    ),
    { numRuns: 150 },
  );
  for (const bad of [null, 3, 'nms', []]) {
    refusedSync(() => code.decoder(bad as DecoderOptions), 'LDPC decoder', String(bad));
    await refused(() => decodeBatchAsync(code, llr, 1, bad as DecoderOptions), 'decodeBatchAsync()', String(bad));
  }
  await refused(() => decodeBatchAsync(code, llr, 1, { gpuBatch: { streams: 9 } }), 'gpuBatch.streams');
});

test('decoder options the algorithm or engine does not read are refused, saying why', async () => {
  const llr = noisyFrames(1, 3);
  for (const algorithm of LDPC_DECODER_ALGORITHMS) {
    if (algorithm !== 'nms') {
      const e = refusedSync(() => code.decoder({ algorithm, alpha: 0.8 }), 'alpha');
      assert.equal(e.details?.reason, 'inapplicable');
      assert.ok(e.message.includes(`the algorithm is '${algorithm}'`), e.message);
    }
    if (algorithm !== 'oms') refusedSync(() => code.decoder({ algorithm, beta: 0.4 }), 'beta');
  }
  refusedSync(() => code.decoder({ beta: 0.4 }), 'beta'); // the default algorithm is nms
  await refused(() => decodeBatchAsync(code, llr, 1, { engine: 'cpu', framesPerBlock: 2 }), 'framesPerBlock');
  await refused(() => decodeBatchAsync(code, llr, 1, { engine: 'cpu', gpuBatch: {} }), 'gpuBatch');
});

test('valid decoder options of every kind are taken and decode as the decoder does with them', async () => {
  await fc.assert(
    fc.asyncProperty(validDecoder, fc.integer({ min: 1, max: 3 }), fc.nat(1e9), async (o, frames, seed) => {
      const llr = noisyFrames(frames, seed);
      const resolved = resolveDecoderOptions(o);
      assert.deepEqual({ ...resolved }, { ...LDPC_DECODER_DEFAULTS, ...o });
      // settings resolveDecoderOptions made are taken again as they are (alpha and beta included)
      assert.equal(resolveDecoderOptions(resolved), resolved);
      const direct = new LdpcDecoder(code.H, o);
      const batch = code.decodeBatch(llr, frames, o);
      const onCpu = await decodeBatchAsync(code, llr, frames, { ...o, engine: 'cpu' });
      assert.deepEqual(onCpu.bits, batch.bits);
      assert.deepEqual(onCpu.iterations, batch.iterations);
      const first = direct.decode(llr.subarray(0, code.n));
      assert.equal(first.iterations, batch.iterations[0]);
    }),
    { numRuns: 40 },
  );
});

test("ldpcCode()'s options and nrCode()'s request are checked key by key", () => {
  fc.assert(
    fc.property(unknownKey(NR_CODE_SCHEMA), (key) => {
      fc.pre(key !== 'qm'); // (a typo of Qm: its suggestion is checked below)
      const e = refusedSync(() => nrCode({ K: 100, R: 0.5, [key]: 1 } as never), key);
      assertUnknownKeyRefusal(e, key, NR_CODE_SCHEMA);
    }),
    { numRuns: 40 },
  );
  const keys = Object.keys(NR_CODE_SCHEMA) as (keyof typeof NR_CODE_SCHEMA)[];
  fc.assert(
    fc.property(
      fc.constantFrom(...keys).chain((k) => fc.tuple(fc.constant(k), wrongValue(NR_CODE_SCHEMA[k]))),
      ([key, bad]) => {
        refusedSync(() => nrCode({ K: 100, R: 0.5, [key]: bad } as never), key, `${key}: ${String(bad)}`);
      },
    ),
    { numRuns: 100 },
  );
  refusedSync(() => nrCode({ R: 0.5 } as never), 'K');
  refusedSync(() => nrCode({ K: 100 }), 'R');
  refusedSync(() => nrCode(null as never), 'nrCode()');
  const qm = refusedSync(() => ldpcCode('nr:bg2:100:1/2', { qm: 2 } as never), 'qm');
  assert.equal(qm.details?.suggestion, 'Qm');
  refusedSync(() => ldpcCode('wimax:576', { Qm: 2 }), 'Qm');
  refusedSync(() => ldpcCode('nr:bg2:100:1/2', null as never), 'ldpcCode()');
  refusedSync(() => ldpcCode(576 as never), 'spec');
  // E: NR only, whole Qm-bit symbols, a rate 38.214 has; the spec's rate keeps the base graph
  refusedSync(() => ldpcCode('wimax:576', { E: 1200 }), 'E');
  refusedSync(() => ldpcCode('nr:bg2:100:1/2', { Qm: 4, E: 402 }), 'E');
  refusedSync(() => ldpcCode('nr:bg2:100:1/2', { E: 0 }), 'E');
  assert.throws(() => ldpcCode('nr:bg2:100:1/2', { E: 100_000 }), InvalidArgumentError, 'rate 0.001');
  // rate 0.7 picks base graph 1 for K = 2000; alone, E's rate (0.2 to 0.33) would pick base graph 2
  const E = 2 * (3000 + Math.floor(Math.random() * 2000));
  const matched = ldpcCode('nr:2000:0.7', { Qm: 2, E });
  assert.equal(matched.n, E);
  assert.equal((matched as { nr?: { bg: number } }).nr?.bg, 1, 'the spec keeps its base graph');
  // explicit defaults change nothing
  assert.equal(ldpcCode('nr:bg2:100:1/2', { Qm: 1 }).name, ldpcCode('nr:bg2:100:1/2').name);
  assert.deepEqual(nrCode({ K: 100, R: 0.5, Qm: 1 }).nr, nrCode({ K: 100, R: 0.5 }).nr);
});

test('qcCode() and sparseCode() refuse arguments that are not a base matrix, a parity check or a name', () => {
  refusedSync(() => qcCode(null as never, 24), 'base');
  refusedSync(() => qcCode({ rows: 2, cols: 4, shifts: [0, 1] } as never, 24), 'base');
  refusedSync(() => qcCode({ rows: 1, cols: 2, shifts: Int32Array.from([0, 0]) }, 4, ''), 'name');
  refusedSync(() => sparseCode({ m: 2 } as never), 'H');
  refusedSync(() => sparseCode(code.H, 7 as never), 'name');
  assert.ok(sparseCode(code.H, 'wimax as sparse').k > 0);
});
