/**
 * The lattice part's entry points are as strict as the command line: reduce(), reduceSync(),
 * lllIntegral(), the GPU engine calls, hostBatch(), the generators, fplll's format and the checks
 * refuse unknown keys (suggesting the nearest), values of the wrong type or range (naming the key),
 * options the algorithm, precision or engine does not read (saying why), and non-object options;
 * valid options of every kind are taken and give the results the reducers give; sizes past what an
 * array can hold are typed errors before any allocation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_ARRAY_LENGTH } from '../../src/core/alloc.js';
import {
  EngineUnavailableError,
  InvalidArgumentError,
  InvalidInputError,
  UnsupportedError,
} from '../../src/core/errors.js';
import { makeBatch, type MatrixBatch } from '../../src/core/matrix.js';
import { cudaAvailable } from '../../src/gpu/index.js';
import { applyTransform, checkLLL, checkUnimodular, gramSchmidt, qualityMetrics } from '../../src/lattice/check.js';
import { reduceOneCpu } from '../../src/lattice/cpu-batch.js';
import { allswapBatchCuda, jacobiParallelBatchCuda } from '../../src/lattice/engine-calls.js';
import { formatBasisJson, formatFplll, parseFplllBasis } from '../../src/lattice/fplll-format.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../../src/lattice/generators.js';
import { hostBatch } from '../../src/lattice/host-batch.js';
import { INTEGRAL_LLL_SCHEMA, lllIntegral } from '../../src/lattice/precision/ladder.js';
import { reduce, reduceSync } from '../../src/lattice/reduce.js';
import { ALGORITHM_REGISTRY, CUDA_ALGORITHMS, type AlgorithmParam } from '../../src/lattice/registry.js';
import { ALGORITHMS, type Algorithm, type ReduceOptions } from '../../src/lattice/types.js';
import { ENGINE_CALL_SCHEMA, REDUCE_SCHEMA } from '../../src/lattice/validate.js';
import {
  assertUnknownKeyRefusal,
  namesOption,
  refused,
  refusedSync,
  unknownKey,
  wrongValue,
} from '../core/strict-options.js';

const device = cudaAvailable().ok;

/** A small well-conditioned integer basis (fresh for each seed). */
function smallBasis(seed: number, n = 4, m = 4): MatrixBatch {
  const g = gaussianBases({ batch: 1, n, m, seed });
  return integerScale(g, 64);
}

test('reduce() and reduceSync(): unknown keys are refused with the nearest key suggested', async () => {
  const basis = smallBasis(1);
  await fc.assert(
    fc.asyncProperty(unknownKey(REDUCE_SCHEMA), fc.constantFrom(1, 'x', true), async (key, v) => {
      const opts = { [key]: v } as ReduceOptions;
      assertUnknownKeyRefusal(await refused(() => reduce(basis, opts), key, key), key, REDUCE_SCHEMA);
      assertUnknownKeyRefusal(
        refusedSync(() => reduceSync(basis, opts), key, key),
        key,
        REDUCE_SCHEMA,
      );
    }),
    { numRuns: 60 },
  );
  const e = refusedSync(() => reduceSync(basis, { algoritm: 'allswap' } as ReduceOptions), 'algoritm');
  assert.equal(e.details?.suggestion, 'algorithm');
});

test('reduce() and reduceSync(): a value of the wrong type or range is refused naming its key', async () => {
  const basis = smallBasis(2);
  const keys = Object.keys(REDUCE_SCHEMA) as (keyof typeof REDUCE_SCHEMA)[];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...keys).chain((k) => fc.tuple(fc.constant(k), wrongValue(REDUCE_SCHEMA[k]))),
      async ([key, bad]) => {
        const opts = { [key]: bad } as ReduceOptions;
        await refused(() => reduce(basis, opts), key, `${key}: ${String(bad)}`);
        await refused(() => reduceSync(basis, opts), key, `${key}: ${String(bad)}`);
      },
    ),
    { numRuns: 200 },
  );
  // the examples of the issue, and nested keys
  await refused(() => reduce(basis, { threads: 1.5 }), 'threads');
  await refused(() => reduce(basis, { onProgress: 3 as unknown as () => void }), 'onProgress');
  await refused(
    () => reduce(basis, { out: { transform: new Float32Array(16) as unknown as Float64Array } }),
    'out.transform',
  );
  await refused(() => reduce(basis, { out: { basis: new Float64Array(15) } }), 'out.basis');
  await refused(
    () => reduce(basis, { gpuTuning: { allswap: { threads: 0 } }, algorithm: 'allswap' }),
    'gpuTuning.allswap.threads',
  );
  await refused(
    () => reduce(basis, { algorithm: 'allswap', gpuTuning: { batch: { streams: 4 } } }),
    'gpuTuning.batch.streams',
  );
  await refused(() => reduce(basis, { eta: 0.9, delta: 0.75 }), 'eta');
});

test('reduce() and reduceSync(): null and other non-objects as options are refused', async () => {
  const basis = smallBasis(3);
  for (const bad of [null, 3, 'lll', [], true]) {
    await refused(() => reduce(basis, bad as ReduceOptions), 'reduce()', String(bad));
    await refused(() => reduceSync(basis, bad as ReduceOptions), 'reduceSync()', String(bad));
  }
});

/** Per-algorithm option values that the algorithm reads. */
const PARAM_VALUE: Record<AlgorithmParam, unknown> = {
  delta: 0.99,
  eta: 0.52,
  blockSize: 4,
  float32Arithmetic: 'float32',
};

test('an option the algorithm does not read is refused, naming the option and why (the registry traits)', async () => {
  const basis = smallBasis(4);
  for (const algorithm of ALGORITHMS) {
    const traits = ALGORITHM_REGISTRY[algorithm].traits;
    for (const p of Object.keys(PARAM_VALUE) as AlgorithmParam[]) {
      const opts = { algorithm, [p]: PARAM_VALUE[p], precision: 'float32', engine: 'auto' } as ReduceOptions;
      if (traits.params.includes(p)) continue;
      const e = await refused(() => reduce(basis, opts), p, `${algorithm} ${p}`);
      assert.equal(e.details?.reason, 'inapplicable');
      assert.ok(e.message.includes(`the algorithm is ${algorithm}`), e.message);
    }
    if (!traits.cpuDriftWatch) {
      for (const driftWatch of [true, false]) {
        const e = refusedSync(() => reduceSync(basis, { algorithm, driftWatch }), 'driftWatch', algorithm);
        assert.match(e.message, /drift watch/);
      }
    }
    for (const group of ['allswap', 'jacobi', 'block'] as const) {
      if (traits.gpuTuning.includes(group)) continue;
      const opts: ReduceOptions = { algorithm, gpuTuning: { [group]: {} } };
      const named = ALGORITHM_REGISTRY[algorithm].cuda ? `gpuTuning.${group}` : 'gpuTuning';
      await refused(() => reduce(basis, opts), named, `${algorithm} gpuTuning.${group}`);
    }
  }
  // the example, and the precision and engine that ignore an option
  await refused(() => reduce(basis, { blockSize: 8 }), 'blockSize');
  await refused(() => reduce(basis, { algorithm: 'allswap', float32Arithmetic: 'float32' }), 'float32Arithmetic');
  await refused(
    () => reduce(basis, { algorithm: 'allswap', precision: 'float32', engine: 'cpu', float32Arithmetic: 'double' }),
    'float32Arithmetic',
  );
  await refused(() => reduce(basis, { algorithm: 'allswap', engine: 'cpu', gpuTuning: {} }), 'gpuTuning');
  refusedSync(() => reduceSync(basis, { algorithm: 'allswap', gpuTuning: {} }), 'gpuTuning');
  refusedSync(() => reduceSync(basis, { threads: 2 } as ReduceOptions), 'threads');
  // reduceSync() with engine 'cuda' names the asynchronous call
  assert.throws(
    () => reduceSync(basis, { engine: 'cuda' } as ReduceOptions),
    (e: unknown) => e instanceof EngineUnavailableError && /reduce\(\)/.test(e.message),
  );
});

/** Random options an algorithm reads, of every kind, in range. */
function validOptions(algorithm: Algorithm): fc.Arbitrary<ReduceOptions> {
  const t = ALGORITHM_REGISTRY[algorithm].traits;
  return fc
    .record(
      {
        delta: fc.double({ min: 0.3, max: 0.99, noNaN: true }),
        etaSlack: fc.double({ min: 0, max: 0.04, noNaN: true }),
        blockSize: fc.integer({ min: 2, max: 6 }),
        maxIterations: fc.integer({ min: 100_000, max: 10_000_000 }),
        check: fc.boolean(),
        precision: fc.constantFrom('float32' as const, 'float64' as const),
        driftWatch: fc.boolean(),
      },
      { requiredKeys: [] },
    )
    .map((r) => {
      const o: ReduceOptions = { algorithm };
      if (t.params.includes('delta') && r.delta !== undefined) o.delta = r.delta;
      if (t.params.includes('eta') && r.etaSlack !== undefined) o.eta = 0.5 + r.etaSlack;
      if (t.params.includes('blockSize') && r.blockSize !== undefined) o.blockSize = r.blockSize;
      if (t.cpuDriftWatch && r.driftWatch !== undefined) o.driftWatch = r.driftWatch;
      if (r.maxIterations !== undefined) o.maxIterations = r.maxIterations;
      if (r.check !== undefined) o.check = r.check;
      if (r.precision !== undefined) o.precision = r.precision;
      return o;
    });
}

test('valid options of every kind are taken, and the result is the reducer run with them', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ALGORITHMS).chain((a) => validOptions(a)),
      fc.integer({ min: 2, max: 6 }),
      fc.nat(1e9),
      async (opts, n, seed) => {
        const basis = smallBasis(seed, n, n);
        const progress: number[] = [];
        const r = reduceSync(basis, { ...opts, onProgress: (done) => progress.push(done) });
        const again = await reduce(basis, { ...opts, engine: 'cpu', threads: 1 });
        // the reducer itself on the same parameters (defaults filled in as documented)
        const work = opts.precision === 'float32' ? Float32Array.from(basis.data) : Float64Array.from(basis.data);
        let direct: ReturnType<typeof reduceOneCpu>;
        try {
          direct = reduceOneCpu(opts.algorithm!, work, n, n, {
            delta: opts.delta ?? 0.75,
            eta: opts.eta ?? 0.51,
            blockSize: opts.blockSize ?? 8,
            maxIterations: opts.maxIterations ?? 1_000_000,
            driftWatch: opts.driftWatch ?? true,
          });
        } catch (e) {
          // a float32 breakdown, which reduce() redoes in float64: another path
          assert.equal(opts.precision, 'float32', String(e));
          assert.equal(r.stats.redoneInFloat64, 1);
          return;
        }
        if (r.stats.redoneInFloat64 > 0) return;
        assert.deepEqual(Array.from(r.transform.data), Array.from(direct.Z));
        assert.deepEqual(Array.from(again.transform.data), Array.from(direct.Z));
        assert.deepEqual(Array.from(r.basis.data), Array.from(applyTransform(basis.data, direct.Z, n, n)!));
        assert.deepEqual(progress, [1]);
        assert.equal(r.checks === undefined, opts.check === false);
      },
    ),
    { numRuns: 60 },
  );
});

test('lllIntegral(): unknown keys, wrong types and options without their partner are refused; valid ones taken', async () => {
  const rows = [
    [1, 0, 0, 12345],
    [0, 1, 0, 54321],
    [0, 0, 1, 99991],
  ];
  fc.assert(
    fc.property(unknownKey(INTEGRAL_LLL_SCHEMA), (key) => {
      const e = refusedSync(() => lllIntegral(rows, { [key]: 1 } as never), key);
      assertUnknownKeyRefusal(e, key, INTEGRAL_LLL_SCHEMA);
    }),
    { numRuns: 40 },
  );
  const keys = Object.keys(INTEGRAL_LLL_SCHEMA) as (keyof typeof INTEGRAL_LLL_SCHEMA)[];
  fc.assert(
    fc.property(
      fc.constantFrom(...keys).chain((k) => fc.tuple(fc.constant(k), wrongValue(INTEGRAL_LLL_SCHEMA[k]))),
      ([key, bad]) => {
        refusedSync(() => lllIntegral(rows, { [key]: bad } as never), key, `${key}: ${String(bad)}`);
      },
    ),
    { numRuns: 100 },
  );
  refusedSync(() => lllIntegral(rows, { onProgress: 5 as never }), 'onProgress');
  refusedSync(() => lllIntegral(rows, { rungs: [] }), 'rungs');
  refusedSync(() => lllIntegral(rows, null as never), 'lllIntegral()');
  for (const [key, partner] of [
    ['progressEveryMs', 'onProgress'],
    ['checkpointEveryMs', 'onCheckpoint'],
  ] as const) {
    const e = refusedSync(() => lllIntegral(rows, { [key]: 10 }), key);
    assert.ok(e.message.includes(partner), e.message);
  }
  const plain = lllIntegral(rows);
  const full = lllIntegral(rows, {
    delta: 0.75,
    eta: 0.51,
    prove: true,
    certify: true,
    rungs: ['float64', 'double-double', 'quad-double', 'exact'],
    onProgress: () => {},
    progressEveryMs: 1000,
  });
  assert.deepEqual(full.basis, plain.basis);
  assert.deepEqual(full.transform, plain.transform);
});

test('the GPU engine calls check their parameters as reduce() does, before looking for a device', async () => {
  const data = new Float64Array(2 * 4 * 4);
  await fc.assert(
    fc.asyncProperty(unknownKey(ENGINE_CALL_SCHEMA), async (key) => {
      const e = await refused(() => allswapBatchCuda(data, 2, 4, 4, { [key]: 1 } as never), key);
      assertUnknownKeyRefusal(e, key, ENGINE_CALL_SCHEMA);
    }),
    { numRuns: 30 },
  );
  await refused(() => allswapBatchCuda(data, 2, 4, 4, { blockSize: 8 }), 'blockSize');
  await refused(() => jacobiParallelBatchCuda(data, 2, 4, 4, { delta: 0.99 }), 'delta');
  await refused(() => jacobiParallelBatchCuda(data, 2, 4, 4, { gpuTuning: { allswap: {} } }), 'gpuTuning.allswap');
  await refused(() => allswapBatchCuda(data, 2, 4, 4, { float32Arithmetic: 'float32' }), 'float32Arithmetic');
  await refused(() => allswapBatchCuda(data, 2, 4, 4, { maxIterations: 0 }), 'maxIterations');
  await refused(() => allswapBatchCuda(data, 2, 4, 4, null as never), 'allswapBatchCuda()');
  if (!device) {
    // valid parameters get as far as the device
    await assert.rejects(
      () => allswapBatchCuda(new Float32Array(32), 2, 4, 4, { delta: 0.99, float32Arithmetic: 'float32' }),
      EngineUnavailableError,
    );
    await assert.rejects(
      () => jacobiParallelBatchCuda(data, 2, 4, 4, { maxIterations: 50, gpuTuning: { jacobi: { threads: 64 } } }),
      EngineUnavailableError,
    );
  }
  assert.deepEqual(CUDA_ALGORITHMS.includes('allswap'), true);
});

test('hostBatch(): its shape is checked (required keys, types, unknown keys), and a shape past an array is a typed error before any allocation', async () => {
  await refused(() => hostBatch({ batch: 2, rows: 3 } as never), 'cols');
  await refused(() => hostBatch({ batch: 2, rows: 3, cols: 1.5 }), 'cols');
  await refused(() => hostBatch({ batch: 2, rows: 3, cols: 3, precison: 'float32' } as never), 'precison');
  await refused(() => hostBatch(null as never), 'hostBatch()');
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 2 ** 20 }),
      fc.integer({ min: 1, max: 2 ** 20 }),
      fc.integer({ min: 1, max: 2 ** 12 }),
      async (batch, rows, cols) => {
        const elements = batch * rows * cols;
        fc.pre(elements > MAX_ARRAY_LENGTH);
        await assert.rejects(
          () => hostBatch({ batch, rows, cols }),
          (e: unknown) =>
            e instanceof UnsupportedError &&
            e.details?.elements === elements &&
            e.details?.limit === MAX_ARRAY_LENGTH &&
            e.message.includes(`${batch} x ${rows} x ${cols}`),
        );
      },
    ),
    { numRuns: 30 },
  );
  // the array's type follows the precision, for the compiler as at run time
  const b = await hostBatch({ batch: 2, rows: 3, cols: 2, precision: 'float32' });
  const f32: Float32Array = b.data;
  assert.ok(f32 instanceof Float32Array && f32.length === 12);
  const f64: Float64Array = (await hostBatch({ batch: 2, rows: 3, cols: 2 })).data;
  assert.ok(f64 instanceof Float64Array && f64.length === 12);
});

test('generators: required keys, types, unknown keys and their own size bound are typed errors; explicit defaults change nothing', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 8 }), fc.nat(1e9), (batch, n, seed) => {
      const plain = gaussianBases({ batch, n, seed });
      assert.deepEqual(gaussianBases({ batch, n, m: n, seed, precision: 'float64' }), plain);
      assert.deepEqual(gaussianBases({ batch, n, seed: BigInt(seed) }), plain);
    }),
    { numRuns: 30 },
  );
  refusedSync(() => gaussianBases({ batch: 1, n: 4 } as never), 'seed');
  refusedSync(() => gaussianBases({ batch: 1, n: 4, seed: -1 }), 'seed');
  refusedSync(() => gaussianBases({ batch: 1, n: 4, seed: 1, m: 5 }), 'm');
  refusedSync(() => gaussianBases({ batch: 1, n: 4, seed: 1, cols: 4 } as never), 'cols');
  refusedSync(() => gaussianBases(null as never), 'gaussianBases()');
  refusedSync(() => blockToeplitzBases({ batch: 1, blocks: 4, blockSize: 2, taps: 5, seed: 1 }), 'taps');
  refusedSync(
    () => blockToeplitzBases({ batch: 1, blocks: 4, blockSize: 2, taps: 2, seed: 1, shape: 'tall' as never }),
    'shape',
  );
  refusedSync(() => blockToeplitzBases({ batch: 1, blocks: 4, blockSize: 2, tap: 2, seed: 1 } as never), 'tap');
  assert.throws(
    () => gaussianBases({ batch: 1 << 20, n: 64, seed: 1 }),
    (e: unknown) => e instanceof InvalidArgumentError && e.details?.elements === (1 << 20) * 64 * 64,
  );
  assert.throws(
    () => integerScale(null as never, 2),
    (e: unknown) => e instanceof InvalidInputError,
  );
  refusedSync(() => integerScale(gaussianBases({ batch: 1, n: 2, seed: 1 }), Number.NaN), 'scale');
});

test("fplll's format: options are checked; index applies to a batch only", () => {
  const rows = [
    [1, 2],
    [3, 4],
  ];
  refusedSync(() => formatFplll(rows, { styel: 'fplll' } as never), 'styel');
  refusedSync(() => formatFplll(rows, { style: 'fpylll' as never }), 'style');
  refusedSync(() => formatFplll(rows, { index: 1 }), 'index');
  refusedSync(() => formatBasisJson(rows, { index: 0 }), 'index');
  refusedSync(() => formatFplll(rows, null as never), 'formatFplll()');
  refusedSync(() => parseFplllBasis('[[1 0][0 1]]', 'float16' as never), 'precision');
  const batch = makeBatch(new Float64Array([1, 0, 0, 1, 2, 0, 0, 2]), 2, 2, 2);
  assert.equal(formatFplll(batch, { index: 1, style: 'latticegen' }), '[[2 0]\n[0 2]]\n');
  assert.equal(formatFplll(rows, { style: 'fplll' }), formatFplll(rows));
});

test('the checks refuse sizes and arrays that do not match, naming the argument', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: -3, max: 3 }),
      (n, m, d) => {
        fc.pre(d !== 0 && n * m + d >= 0 && m * m + d >= 0);
        const B = new Float64Array(n * m + d);
        refusedSync(() => gramSchmidt(B, n, m), 'B');
        refusedSync(() => checkLLL(B, n, m, 0.75, 0.51), 'B');
        refusedSync(() => qualityMetrics(B, n, m), 'B');
        refusedSync(() => checkUnimodular(new Float64Array(m * m + d), m), 'Z');
        refusedSync(() => applyTransform(new Float64Array(n * m), new Float64Array(m * m + d), n, m), 'Z');
      },
    ),
  );
  refusedSync(() => gramSchmidt([1, 0, 0, 1], 2.5, 2), 'n');
  refusedSync(() => checkLLL([1, 0, 0, 1], 2, 2, 75, 0.51), 'delta');
  refusedSync(() => checkLLL([1, 0, 0, 1], 2, 2, 0.75, 0.51, -1), 'tol');
  refusedSync(() => checkLLL([1, 0, 0, 1], 2, 2, 0.75, 0.51, 1e-9, { mu: new Float64Array(1) } as never), 'gs.mu');
  assert.ok(checkLLL([1, 0, 0, 1], 2, 2, 0.75, 0.51).ok);
  assert.ok(namesOption(new InvalidArgumentError('x', { option: 'B' }), 'B'));
});
