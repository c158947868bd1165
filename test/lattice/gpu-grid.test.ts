/**
 * The whole-device all-swap kernel (allswap/grid-kernel.cu: one basis spread over every
 * multiprocessor, grid-wide barriers). Its dot products are summed by warps, not in the CPU
 * reference's order, so its output is not bit-identical to the reference: each output is proven
 * instead, on fresh random bases (Gaussian and block-Toeplitz, float64 and float32): Z unimodular
 * exactly, the LLL conditions of B_in Z in float64, the returned basis equal to B_in Z. Typed errors
 * for bad bases and the iteration limit, as for every kernel. Skips, saying why, without a CUDA device.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { InvalidInputError, IterationLimitError, RankDeficientError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { gaussianBases } from '../../src/lattice/generators.js';
import type { AlgoParams } from '../../src/lattice/types.js';
import { forcedAllswap } from '../gpu/match-reference.js';
import { proveCall, proveOutput } from '../gpu/prove-output.js';
import { gridCases, knapsackBasis } from '../gpu/grid-cases.js';
import { reduce } from '../../src/lattice/reduce.js';
import { cudaAvailable } from '../../src/gpu/index.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

const PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 100_000 };

const NO_WATCH: AlgoParams = { ...PARAMS, driftWatch: false };

const gridCuda = forcedAllswap('grid');

for (const precision of ['float64', 'float32'] as const) {
  test(`allswap on the whole GPU: every output proven (${precision}, Gaussian and block-Toeplitz, m = 2..300)`, {
    skip,
  }, async () => {
    const seed = randomInt(2 ** 40);
    const rng = new Philox(seed, 21);
    for (const c of gridCases(rng, seed, precision, true)) {
      const what = `seed ${seed}, ${c.family}, n = ${c.n}, m = ${c.m}, ${precision}`;
      const r = await proveCall(gridCuda, c.data, c.batch, c.n, c.m, PARAMS, what);
      assert.ok(r.stats.kernelMs > 0, what);
    }
  });
}

test('allswap on the whole GPU: large integer bases (knapsack-like) are reduced, with swaps and size reductions', {
  skip,
}, async () => {
  const seed = randomInt(2 ** 40);
  const rng = new Philox(seed, 22);
  const m = 100 + rng.int(60);
  const { B, n } = knapsackBasis(rng, m);
  const r = await gridCuda(B, 1, n, m, PARAMS);
  assert.ok(
    r.stats.swaps[0]! > 0 && r.stats.sizeReductions[0]! > 0,
    `seed ${seed}: counts ${r.stats.swaps[0]} / ${r.stats.sizeReductions[0]}`,
  );
  proveOutput(B, r, 0, n, m, PARAMS, `seed ${seed}, knapsack m = ${m}`);
});

test('allswap on the whole GPU: bad bases and the iteration limit give typed errors naming the basis and vector', {
  skip,
}, async () => {
  const seed = randomInt(2 ** 40);
  const n = 130,
    m = 128,
    batch = 3;
  const bad = randomInt(batch),
    col = 1 + randomInt(m - 2);
  const zero = gaussianBases({ batch, n, m, seed, precision: 'float64' }).data;
  zero.fill(0, bad * n * m + col * n, bad * n * m + (col + 1) * n);
  // with the drift watch asked for, a float64 breakdown is listed for reduce()'s CPU redo (fallback.ts) ...
  const listed = await gridCuda(zero, batch, n, m, PARAMS);
  assert.equal(listed.stats.gpuBreakdowns.get(bad)?.code, 'ZERO_VECTOR', `seed ${seed}`);
  assert.equal(listed.stats.gpuBreakdowns.get(bad)?.details?.basis, bad, `seed ${seed}`);
  assert.equal(listed.stats.gpuBreakdowns.size, 1, `seed ${seed}`);
  // ... and without it, it is the typed error
  await assert.rejects(gridCuda(zero, batch, n, m, NO_WATCH), (e: unknown) => {
    assert.ok(e instanceof RankDeficientError, String(e));
    assert.equal(e.code, 'ZERO_VECTOR');
    assert.equal(e.details?.basis, bad, `seed ${seed}`);
    assert.equal(e.details?.vector, col, `seed ${seed}`);
    return true;
  });
  const dep = gaussianBases({ batch, n, m, seed: seed + 1, precision: 'float64' }).data;
  for (let t = 0; t < n; t++)
    dep[bad * n * m + col * n + t] = 2 * dep[bad * n * m + (col - 1) * n + t]! - dep[bad * n * m + t]!;
  await assert.rejects(
    gridCuda(dep, batch, n, m, NO_WATCH),
    (e: unknown) => e instanceof RankDeficientError && e.details?.basis === bad,
  );
  const nan = gaussianBases({ batch, n, m, seed: seed + 2, precision: 'float32' }).data;
  nan[bad * n * m + col * n + 3] = NaN;
  await assert.rejects(
    gridCuda(nan, batch, n, m, PARAMS),
    (e: unknown) =>
      e instanceof InvalidInputError &&
      e.code === 'NON_FINITE' &&
      e.details?.basis === bad &&
      e.details?.vector === col,
  );
  const big = gaussianBases({ batch: 1, n, m, seed: seed + 3, precision: 'float64' }).data;
  for (let i = 0; i < big.length; i++) big[i]! *= 1 + (i % 7) * 1000;
  await assert.rejects(gridCuda(big, 1, n, m, { ...PARAMS, maxIterations: 1 }), IterationLimitError);
});

test('reduce() on the CUDA engine takes a single 256 x 256 basis over the whole GPU and proves it', {
  skip,
}, async () => {
  const seed = randomInt(2 ** 40);
  for (const precision of ['float32', 'float64'] as const) {
    const g = gaussianBases({ batch: 1, n: 256, seed, precision });
    const res = await reduce(g, { engine: 'cuda', algorithm: 'allswap', check: true, precision });
    assert.ok(
      res.checks?.[0]?.ok,
      `seed ${seed}, ${precision}: ${JSON.stringify(res.checks?.[0]?.conditions.violations)}`,
    );
    assert.ok(res.stats.gpu && res.stats.gpu.kernelMs > 0, `seed ${seed}, ${precision}`);
  }
});
