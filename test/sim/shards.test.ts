/**
 * Counts that do not depend on how the work is cut: for a seed, any chunk size, thread count,
 * shard count (shards run and merged in any order) and set of executors (a second "device") give
 * the counts of one unsharded CPU run, uncoded and coded; shards that share a directory stop
 * together with the same merge; a merge that lacks units names them, and the shard runs it asks
 * for complete it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  EngineUnavailableError,
  InvalidArgumentError,
  InvalidInputError,
  LatticeMimoError,
} from '../../src/core/index.js';
import { resumeOptions } from '../../src/cli/resume.js';
import { runOptionsFromFlags } from '../../src/cli/simulate.js';
import { cudaAvailable } from '../../src/gpu/index.js';
import { runChunk, runChunkSliced, type ChunkResult, type ChunkTask } from '../../src/sim/chunk.js';
import { DealingExecutor, DeviceWorkerExecutor } from '../../src/sim/devices.js';
import { mergeShards } from '../../src/sim/merge.js';
import { simulate, simulateWith } from '../../src/sim/simulate.js';
import type { SimPoint, SimulationOptions, SimulationResult } from '../../src/sim/types.js';
import { type ChunkExecutor, InThreadExecutor } from '../../src/sim/worker-pool.js';

/** A point's counts (everything but timing). */
function counts(p: SimPoint): Omit<SimPoint, 'timeMs'> {
  const { timeMs: _t, ...rest } = p;
  return rest;
}

/** An order of 0..n-1 by fast-check's keys. */
const order = (n: number, keys: readonly number[]): number[] =>
  Array.from({ length: n }, (_, i) => i).sort((a, b) => (keys[a] ?? a) - (keys[b] ?? b) || a - b);

/**
 * Shards 0..n-1 of `opts` run in `runOrder`, merged in `mergeOrder`; where the merge lacks units,
 * the shards it names are run again through the units it asks for (what `lattice-mimo merge`
 * prints), then merged again. Returns the merge and how many shard runs were added.
 */
async function shardedRun(
  opts: SimulationOptions,
  n: number,
  runOrder: readonly number[],
  mergeOrder: readonly number[],
  chunkOf: (k: number) => number,
): Promise<{ merged: SimulationResult; reruns: number }> {
  const results: SimulationResult[] = new Array(n);
  for (const k of runOrder)
    results[k] = await simulate({ ...opts, chunkVectors: chunkOf(k), shard: { index: k, count: n } });
  let reruns = 0;
  for (;;) {
    try {
      return { merged: mergeShards(mergeOrder.map((k) => results[k]!)), reruns };
    } catch (e) {
      if (!(e instanceof InvalidInputError) || e.details?.reason !== 'SHARDS_INCOMPLETE') throw e;
      const rerun = e.details.rerun as { shard: number; minUnit: number }[];
      assert.ok(rerun.length > 0 && reruns < 3 * n, e.message);
      for (const { shard, minUnit } of rerun) {
        results[shard] = await simulate({
          ...opts,
          chunkVectors: chunkOf(shard),
          shard: { index: shard, count: n, minUnit },
        });
        reruns++;
      }
    }
  }
}

const uncoded = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 }),
  nt: fc.integer({ min: 1, max: 2 }),
  modulation: fc.constantFrom('qpsk', '16qam') as fc.Arbitrary<SimulationOptions['modulation']>,
  vpc: fc.integer({ min: 1, max: 3 }),
  unitGroups: fc.integer({ min: 4, max: 24 }),
  units: fc.integer({ min: 3, max: 24 }),
  maxErrors: fc.integer({ min: 5, max: 120 }),
  snrs: fc.array(fc.integer({ min: -2, max: 18 }), { minLength: 1, maxLength: 3 }),
  perChunk: fc.integer({ min: 1, max: 4 }),
  threads: fc.constantFrom(1, 1, 2),
  shards: fc.integer({ min: 1, max: 8 }),
  keys: fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
});

test("uncoded: any chunk size, thread count and shard count (run and merged in any order) give one CPU run's counts", async (t) => {
  let reruns = 0;
  await fc.assert(
    fc.asyncProperty(uncoded, async (c) => {
      const unitVectors = c.vpc * c.unitGroups;
      const opts: SimulationOptions = {
        nt: c.nt,
        nr: c.nt,
        modulation: c.modulation,
        detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
        snrs: c.snrs,
        maxErrors: c.maxErrors,
        maxVectors: unitVectors * c.units - (c.units % 2 ? c.vpc : 0),
        vectorsPerChannel: c.vpc,
        unitVectors,
        seed: c.seed,
        threads: 1,
        engine: 'cpu',
      };
      const one = await simulate(opts);
      const cut = await simulate({ ...opts, chunkVectors: unitVectors * c.perChunk, threads: c.threads });
      assert.deepEqual(cut.points.map(counts), one.points.map(counts), 'chunk size and threads');
      const runOrder = order(c.shards, c.keys),
        mergeOrder = order(c.shards, c.keys.slice(8));
      // the shards of a run share chunkVectors: it decides which shard computes which unit
      const sharded = await shardedRun(opts, c.shards, runOrder, mergeOrder, () => unitVectors * c.perChunk);
      reruns += sharded.reruns;
      assert.deepEqual(sharded.merged.points.map(counts), one.points.map(counts), `${c.shards} shards`);
      assert.equal(sharded.merged.shard, undefined);
      assert.equal(sharded.merged.interrupted, false);
    }),
    { numRuns: 12 },
  );
  t.diagnostic(`shard runs the merges asked for again: ${reruns}`);
});

test("coded: any chunk size and shard count give one CPU run's counts (frame errors stop the point)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        seed: fc.integer({ min: 0, max: 2 ** 31 }),
        framesPerUnit: fc.integer({ min: 1, max: 3 }),
        frames: fc.integer({ min: 3, max: 12 }),
        maxErrors: fc.integer({ min: 1, max: 6 }),
        ebn0: fc.integer({ min: 0, max: 4 }),
        perChunk: fc.integer({ min: 1, max: 3 }),
        shards: fc.integer({ min: 1, max: 8 }),
        keys: fc.array(fc.nat(), { minLength: 16, maxLength: 16 }),
      }),
      async (c) => {
        // wimax:576 on 2x2 QPSK: 144 vectors a frame
        const unitVectors = 144 * c.framesPerUnit;
        const opts: SimulationOptions = {
          nt: 2,
          nr: 2,
          modulation: 'qpsk',
          detectors: [{ detector: 'nway', passes: 1 }],
          code: 'wimax:576',
          decoder: { maxIterations: 6 },
          snrs: [c.ebn0],
          snrType: 'ebn0',
          maxErrors: c.maxErrors,
          maxFrames: c.frames,
          unitVectors,
          seed: c.seed,
          threads: 1,
          engine: 'cpu',
        };
        const one = await simulate(opts);
        const sharded = await shardedRun(
          opts,
          c.shards,
          order(c.shards, c.keys),
          order(c.shards, c.keys.slice(8)),
          () => unitVectors * c.perChunk,
        );
        assert.deepEqual(sharded.merged.points.map(counts), one.points.map(counts), `${c.shards} shards`);
      },
    ),
    { numRuns: 6 },
  );
});

test("shards sharing a directory stop together; their merge is one run's counts", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shards-'));
  try {
    const seed = fc.sample(fc.nat(2 ** 31), 1)[0]!;
    const opts: SimulationOptions = {
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      detectors: [{ detector: 'zf' }, { detector: 'sphere' }],
      snrs: [0, 10],
      maxErrors: 150,
      maxVectors: 200_000,
      unitVectors: 64,
      seed,
      threads: 1,
      engine: 'cpu',
    };
    const one = await simulate(opts);
    const n = 4;
    const shards = await Promise.all(
      Array.from({ length: n }, (_, k) => simulate({ ...opts, shard: { index: k, count: n, dir } })),
    );
    assert.deepEqual(mergeShards(shards).points.map(counts), one.points.map(counts), `seed ${seed}`);
    assert.deepEqual(
      (await readdir(dir)).sort(),
      Array.from({ length: n }, (_, k) => `shard-${k}-of-${n}.json`).sort(),
    );
    // every shard stopped within a few units of its share: none computed the whole point alone
    for (const s of shards)
      for (const r of s.shard!.units) {
        const point = one.points.find((p) => p.snrIndex === r.snrIndex && p.detector === r.detector)!;
        assert.ok(
          r.units.length * 64 < point.vectors,
          `shard ${s.shard!.index} computed ${r.units.length} units of ${point.vectors / 64}`,
        );
      }
    // a directory is one run's: another seed there is refused
    await assert.rejects(
      simulate({ ...opts, seed: seed + 1, shard: { index: 0, count: n, dir } }),
      (e: unknown) => e instanceof InvalidInputError && /another run/.test((e as Error).message),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A fake second device: runs chunks after random delays, so they finish out of order. */
class ShuffledExecutor implements ChunkExecutor<ChunkTask, ChunkResult> {
  readonly parallelism = 3;
  run(task: ChunkTask): Promise<ChunkResult> {
    return new Promise((resolve, reject) =>
      setTimeout(() => {
        try {
          resolve(runChunk(task));
        } catch (e) {
          reject(e);
        }
      }, Math.random() * 5),
    );
  }
  async close(): Promise<void> {}
}

test("devices: chunks dealt to several executors (one, and a fake second device finishing out of order) give one executor's counts", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        seed: fc.integer({ min: 0, max: 2 ** 31 }),
        devices: fc.integer({ min: 2, max: 4 }),
        perChunk: fc.integer({ min: 1, max: 3 }),
        maxErrors: fc.integer({ min: 10, max: 150 }),
      }),
      async (c) => {
        const opts: SimulationOptions = {
          nt: 2,
          nr: 2,
          modulation: '16qam',
          detectors: [{ detector: 'mmse' }, { detector: 'zf' }],
          snrs: [4, 14],
          maxErrors: c.maxErrors,
          maxVectors: 4096,
          unitVectors: 128,
          seed: c.seed,
          threads: 1,
          engine: 'cpu',
        };
        const one = await simulate(opts);
        const dealt = await simulateWith({ ...opts, chunkVectors: 128 * c.perChunk }, async () => {
          const devices: ChunkExecutor<ChunkTask, ChunkResult>[] = [new InThreadExecutor(runChunkSliced)];
          for (let i = 1; i < c.devices; i++) devices.push(new ShuffledExecutor());
          return new DealingExecutor(devices);
        });
        assert.deepEqual(dealt.points.map(counts), one.points.map(counts), `${c.devices} devices`);
      },
    ),
    { numRuns: 8 },
  );
});

test('bad shards and devices are refused naming the option; --shard auto reads Slurm and Kubernetes', async () => {
  const base: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }],
    snrs: [0],
    maxVectors: 1024,
    threads: 1,
  };
  const count = 1 + fc.sample(fc.nat(20), 1)[0]!;
  const option = (name: string) => (e: unknown) => e instanceof LatticeMimoError && e.details?.option === name;
  await assert.rejects(simulate({ ...base, shard: { index: count, count } }), option('shard'));
  await assert.rejects(simulate({ ...base, shard: { index: 0, count }, maxTimeSeconds: 5 }), option('maxTimeSeconds'));
  await assert.rejects(simulate({ ...base, engine: 'cpu', devices: [0, 1] }), option('devices'));
  // no CUDA device here: 'auto' takes the CPU, which has no devices
  if (!cudaAvailable().ok)
    await assert.rejects(
      simulate({ ...base, devices: [0, 1] }),
      (e: unknown) => e instanceof EngineUnavailableError && e.details?.option === 'devices',
    );
  const k = fc.sample(fc.nat(count - 1), 1)[0]!,
    min = fc.sample(fc.nat(5), 1)[0]!;
  const flags = (v: Record<string, string>, env: NodeJS.ProcessEnv) =>
    runOptionsFromFlags(v, Object.keys(v), false, env).shard;
  assert.deepEqual(flags({ shard: `${k}/${count}` }, {}), { index: k, count });
  assert.deepEqual(
    flags(
      { shard: 'auto' },
      {
        SLURM_ARRAY_TASK_ID: String(k + min),
        SLURM_ARRAY_TASK_MIN: String(min),
        SLURM_ARRAY_TASK_COUNT: String(count),
      },
    ),
    { index: k, count },
  );
  assert.deepEqual(flags({ 'shard-count': String(count) }, { JOB_COMPLETION_INDEX: String(k) }), { index: k, count });
  for (const [v, env] of [
    [{ shard: 'auto' }, {}],
    [{ shard: 'auto' }, { JOB_COMPLETION_INDEX: '1' }],
    [{ shard: `${count}/${count}` }, {}],
    [{ shard: `${k}/${count}`, 'shard-count': String(count + 1) }, {}],
    [{ 'shard-dir': '/tmp/x' }, {}],
  ] as [Record<string, string>, NodeJS.ProcessEnv][])
    assert.throws(() => flags(v, env), InvalidArgumentError, JSON.stringify(v));
});

test('a file written before units (no unitVectors) resumes with its chunks as its units: the counts of its uninterrupted run', async () => {
  const chunk = 64 * (1 + fc.sample(fc.nat(3), 1)[0]!);
  const opts: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
    snrs: [0, 6, 12],
    maxErrors: 200,
    maxVectors: 20_000,
    unitVectors: chunk,
    seed: fc.sample(fc.nat(2 ** 31), 1)[0]!,
    threads: 1,
    engine: 'cpu',
  };
  const full = await simulate(opts);
  // what an older version wrote: its chunks drew from their own streams, and no unitVectors
  const { unitVectors: _u, ...old } = { ...full, points: full.points.filter((p) => p.snrIndex === 0) };
  const resumed = resumeOptions(JSON.stringify(old), 'old.json');
  assert.equal(resumed.unitVectors, chunk);
  const again = await simulate({ ...resumed, threads: 1, engine: 'cpu' });
  assert.deepEqual(again.points.map(counts), full.points.map(counts));
});

test("a device worker without its device: start() rejects with the worker's typed error, and the thread ends", {
  skip: cudaAvailable().ok ? 'a CUDA device answers here (the device tests run the workers)' : false,
}, async () => {
  await assert.rejects(
    DeviceWorkerExecutor.start({
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      vectorsPerChannel: 1,
      unitVectors: 1024,
      seed: 1,
      detectors: [{ detector: 'zf', modulation: 'qpsk', engine: 'cpu' }],
      device: 1,
    }),
    (e: unknown) => e instanceof EngineUnavailableError,
  );
});
