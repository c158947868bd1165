/**
 * AlgoParams.gpuTuning: validateGpuTuning accepts every well-formed object and names the field of
 * every malformed one; resolveOptions carries the groups an algorithm reads into AlgoParams; the launch plans take each choice
 * (no device needed: the plans read an H100's properties).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { emulatedH100 } from '../gpu/emulated-device.js';
import { allswapPlan } from '../../src/lattice/allswap/cuda.js';
import { JACOBI_ROUNDS, validateGpuTuning, type GpuTuning } from '../../src/lattice/gpu-tuning.js';
import { jacobiParallelPlan, jacobiRoundsOf } from '../../src/lattice/jacobi-parallel/cuda.js';
import type { AlgoParams } from '../../src/lattice/types.js';
import { resolveOptions } from '../../src/lattice/validate.js';
import { ALGORITHM_REGISTRY, CUDA_ALGORITHMS } from '../../src/lattice/registry.js';

const H100 = emulatedH100();
const PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 10_000 };

const memory = fc.constantFrom('shared' as const, 'z-global' as const, 'global' as const);
const validTuning: fc.Arbitrary<GpuTuning> = fc.record(
  {
    allswap: fc.record(
      {
        kernel: fc.constantFrom('block' as const, 'lane' as const, 'grid' as const),
        threads: fc.integer({ min: 1, max: 1024 }),
        blockMemory: memory,
        minBlocks: fc.integer({ min: 0, max: 32 }),
        columnLayout: fc.boolean(),
        laneThreads: fc.integer({ min: 1, max: 1024 }),
        laneMemory: memory,
        laneSpecialise: fc.boolean(),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    jacobi: fc.record(
      {
        threads: fc.integer({ min: 1, max: 1024 }),
        group: fc.integer({ min: 1, max: 32 }).map((w) => 32 * w),
        rounds: fc.constantFrom(...JACOBI_ROUNDS),
        preGram: fc.boolean(),
        hops: fc.integer({ min: 1, max: 32 }),
        lanePairs: fc.integer({ min: 1, max: 16 }),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    block: fc.record(
      {
        scheduling: fc.constantFrom('persistent' as const, 'host-streams' as const),
        kernel: fc.constantFrom('basis' as const, 'grid' as const),
        streams: fc.integer({ min: 1, max: 64 }),
        threads: fc.integer({ min: 1, max: 1024 }),
        subThreads: fc.integer({ min: 1, max: 1024 }),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    batch: fc.record(
      {
        maxChunk: fc.integer({ min: 1, max: 1 << 20 }),
        streams: fc.integer({ min: 1, max: 3 }),
        chunks: fc.integer({ min: 1, max: 256 }),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
  },
  { requiredKeys: [], noNullPrototype: true },
);

/** Values no field takes: wrong types, out of range, non-integers, unknown names. */
const badValue = fc.oneof(
  fc.constant(-1),
  fc.constant(0.5),
  fc.constant(1e9),
  fc.constant(Number.NaN),
  fc.constant('auto'),
  fc.constant(null),
  fc.constant([]),
  fc.string({ minLength: 1, maxLength: 8 }).map((s) => `no-such-${s}`),
);

test('validateGpuTuning accepts every well-formed tuning unchanged, and resolveOptions carries it into AlgoParams', () => {
  fc.assert(
    fc.property(validTuning, (t) => {
      assert.deepEqual(validateGpuTuning(t), t);
      // each algorithm takes the groups its kernels read (its traits) and the batch runner's
      for (const algorithm of CUDA_ALGORITHMS) {
        const groups: string[] = [...ALGORITHM_REGISTRY[algorithm].traits.gpuTuning, 'batch'];
        const mine = Object.fromEntries(Object.entries(t).filter(([g]) => groups.includes(g)));
        assert.deepEqual(resolveOptions({ algorithm, gpuTuning: mine }, 8).gpuTuning, mine);
      }
    }),
  );
  assert.equal(resolveOptions({}, 8).gpuTuning, undefined);
});

test('validateGpuTuning names the bad field of a malformed tuning (InvalidArgumentError)', () => {
  fc.assert(
    fc.property(validTuning, fc.nat(), badValue, (t, pick, bad) => {
      // one field of one group set to a value it does not take (every field rejects these: none takes
      // negative numbers, halves, 1e9, NaN, strings outside its list, null or arrays; booleans take none)
      const fields: Array<[string, string]> = [
        ['allswap', 'kernel'],
        ['allswap', 'threads'],
        ['allswap', 'blockMemory'],
        ['allswap', 'columnLayout'],
        ['allswap', 'laneSpecialise'],
        ['jacobi', 'rounds'],
        ['jacobi', 'group'],
        ['jacobi', 'hops'],
        ['block', 'scheduling'],
        ['block', 'streams'],
        ['batch', 'maxChunk'],
        ['batch', 'chunks'],
      ];
      const [group, field] = fields[pick % fields.length]!;
      if (field === 'maxChunk' && bad === 1e9) return; // (a valid chunk bound)
      const broken = { ...t, [group]: { ...(t as Record<string, object | undefined>)[group], [field]: bad } };
      assert.throws(
        () => validateGpuTuning(broken),
        (e: unknown) =>
          e instanceof InvalidArgumentError &&
          e.code === 'INVALID_ARGUMENT' &&
          e.details?.option === `gpuTuning.${group}.${field}` &&
          e.message.includes(`gpuTuning.${group}.${field} `),
      );
      assert.throws(
        () => resolveOptions({ gpuTuning: broken as GpuTuning }, 8),
        (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === `gpuTuning.${group}.${field}`,
      );
    }),
  );
  for (const [t, name, suggestion] of [
    [{ allswap: { thread: 64 } }, 'gpuTuning.allswap.thread', 'gpuTuning.allswap.threads'],
    [{ lane: {} }, 'gpuTuning.lane', undefined],
    [{ jacobi: 3 }, 'gpuTuning.jacobi', undefined],
    [[], 'gpuTuning', undefined],
  ] as const) {
    assert.throws(
      () => validateGpuTuning(t),
      (e: unknown) =>
        e instanceof InvalidArgumentError &&
        e.details?.option === name &&
        (suggestion === undefined || e.message.includes(`did you mean '${suggestion}'`)),
      name,
    );
  }
});

test("the launch plans take the tuning passed in AlgoParams (and the plan's own choice without it)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 12 }),
      fc.integer({ min: 1, max: 8 }),
      fc.constantFrom('float32' as const, 'float64' as const),
      (m, extra, precision) => {
        const n = m + extra;
        // small bases in a full batch: the per-thread kernel unless told otherwise
        assert.equal(allswapPlan(n, m, precision, PARAMS, H100).variant, 'lane');
        const lane = allswapPlan(
          n,
          m,
          precision,
          { ...PARAMS, gpuTuning: { allswap: { laneThreads: 7, laneMemory: 'global', laneSpecialise: false } } },
          H100,
        );
        assert.deepEqual([lane.threads, lane.sharedBytes, lane.defines], [7, 0, undefined]);
        const block = allswapPlan(
          n,
          m,
          precision,
          { ...PARAMS, gpuTuning: { allswap: { kernel: 'block', threads: 96, blockMemory: 'global', minBlocks: 0 } } },
          H100,
        );
        assert.deepEqual([block.variant, block.threads, block.sharedBytes], ['block-global', 96, 0]);
      },
    ),
  );
  // the plans check what they are given (engine calls need not pass through resolveOptions)
  const zero = { ...PARAMS, gpuTuning: { allswap: { threads: 0 }, jacobi: { threads: 0 } } };
  assert.throws(
    () => allswapPlan(8, 8, 'float64', zero, H100),
    (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === 'gpuTuning.allswap.threads',
  );
  assert.throws(
    () => jacobiParallelPlan(8, 8, 'float64', { ...zero, gpuTuning: { jacobi: { rounds: 'mode-2' as never } } }, H100),
    (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === 'gpuTuning.jacobi.rounds',
  );
  // Jacobi, one 200 x 200 basis: the halo mode by default, each other way when asked
  assert.equal(jacobiRoundsOf(jacobiParallelPlan(200, 200, 'float32', PARAMS, H100, 1)), 'group-halo');
  for (const rounds of JACOBI_ROUNDS) {
    const plan = jacobiParallelPlan(
      200,
      200,
      'float32',
      { ...PARAMS, gpuTuning: { jacobi: { rounds, threads: 512 } } },
      H100,
      1,
    );
    assert.equal(jacobiRoundsOf(plan), rounds);
    assert.equal(plan.threads, 512);
  }
});
