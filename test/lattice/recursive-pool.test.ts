/**
 * The recursion's block workers (src/lattice/recursive/parallel.ts): a worker that ends without
 * answering wakes the blocked caller with a typed error (it waits synchronously, so only the
 * supervisor thread can see the end), and a pool whose worker died refuses new blocks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InternalError } from '../../src/core/index.js';
import { identity, type IterateStats, reduceLevel } from '../../src/lattice/recursive/iterate.js';
import { type BlockJob, BlockPool } from '../../src/lattice/recursive/parallel.js';

const stats = (): IterateStats => ({ rounds: 0, leaves: 0, swaps: 0, factorisations: 0, depth: 0, workerBlocks: 0 });

/** A knapsack-like block of n columns: e_i (i < n - 1) over its first n - 1 rows, a 2000-bit entry from `seed` in the last. */
function job(n: number, seed: number): BlockJob {
  let x = BigInt(seed) + 1n;
  const block = Array.from({ length: n }, (_, i) => {
    x = (x * 6364136223846793005n + 1442695040888963407n) % (1n << 2000n);
    return Array.from({ length: n }, (_, j) => (j === n - 1 ? x : BigInt(i === j)));
  });
  return { block, depth: 0, delta: 0.99, innerDelta: undefined, eta: 0.51, guard: 32, leafBits: 60, maxRounds: 1000 };
}

test('a block worker out of memory is an InternalError naming it (exit code, outOfMemory), not a wait forever; the pool then refuses blocks', {
  timeout: 60_000,
}, () => {
  const seed = Math.floor(Math.random() * 1000);
  const pool = new BlockPool(1, { maxOldGenerationSizeMb: 2, maxYoungGenerationSizeMb: 1 });
  try {
    const isDeath = (e: unknown) =>
      e instanceof InternalError &&
      e.details?.worker === 0 &&
      e.details?.outOfMemory === true &&
      /ended without answering/.test(e.message);
    // the worker may die before the block is sent (start refuses) or while it runs (wait wakes)
    assert.throws(() => {
      pool.start(0, job(24, seed));
      pool.wait(0, stats());
    }, isDeath);
    assert.throws(() => pool.start(0, job(8, seed)), isDeath);
  } finally {
    pool.close();
  }
});

test("a block worker with room answers: the calling thread's transform and counts", { timeout: 60_000 }, () => {
  const seed = Math.floor(Math.random() * 1000);
  const pool = new BlockPool(1);
  try {
    const j = job(12, seed);
    pool.start(0, j);
    const s = stats();
    const Z = pool.wait(0, s);
    const here = stats(),
      Zhere = identity(12);
    const changed = reduceLevel(
      j.block.map((c) => [...c]),
      Zhere,
      { delta: j.delta, eta: j.eta, guard: j.guard, leafBits: j.leafBits, maxRounds: j.maxRounds, stats: here },
      j.depth,
    );
    assert.ok(changed, 'the block is not reduced as given');
    assert.deepEqual(Z, Zhere);
    assert.deepEqual(s, here);
    // a second block on the same worker: it is free again
    assert.equal(pool.free(), 0);
    pool.start(0, job(6, seed + 1));
    pool.wait(0, stats());
  } finally {
    pool.close();
  }
});
