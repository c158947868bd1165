/**
 * The GPU's product stage (src/lattice/gpu/: product-check.cu, apply-transform.cu for small bases,
 * apply-transform-tiled.cu for large ones): the engine's output basis is B_in Z exactly as the CPU
 * engine computes it, bit for bit; reduce() with the check off returns it as it is, equal to what
 * the checked path returns; integral bases whose product may pass 2^53 get the host's exact product.
 * Skips, saying so, without a CUDA device.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { makeBatch, type RealArray } from '../../src/core/matrix.js';
import { applyTransform } from '../../src/lattice/check.js';
import { gaussianBases } from '../../src/lattice/generators.js';
import { reduce } from '../../src/lattice/reduce.js';
import { reduceBatchCuda as allswapCuda } from '../../src/lattice/allswap/cuda.js';
import { cudaAvailable } from '../../src/gpu/index.js';
import type { AlgoParams } from '../../src/lattice/types.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 1_000_000, driftWatch: false };

/** B_in Z of basis k as reduce() computes it on the host, in the input's precision. */
function hostProduct(data: RealArray, Z: Float64Array, k: number, n: number, m: number): RealArray {
  const Bin = data.subarray(k * n * m, (k + 1) * n * m);
  const P = Bin.slice() as RealArray;
  P.set(applyTransform(Bin, Z.subarray(k * m * m, (k + 1) * m * m), n, m)!);
  return P;
}

test("the engine's output basis is B_in Z as the CPU computes it, small and large bases (both product kernels), float32 and float64", {
  skip,
}, async () => {
  const seed = randomInt(2 ** 40);
  const rng = new Philox(seed, 7);
  const shapes = [
    [2 + rng.int(10), 0],
    [20 + rng.int(60), 0],
    [140 + rng.int(80), 0],
  ].map(([n]) => [n!, n! - rng.int(Math.min(4, n! - 1))] as const);
  for (const [n, m] of shapes)
    for (const precision of ['float32', 'float64'] as const) {
      const batch = n > 100 ? 2 : 5 + rng.int(20);
      const what = `seed ${seed}, ${n} x ${m} ${precision}, batch ${batch}`;
      const g = gaussianBases({ batch, n, m, seed: seed + n, precision });
      const r = await allswapCuda(g.data, batch, n, m, PARAMS);
      assert.equal(r.stats.basisIsProduct, true, what);
      for (let k = 0; k < batch; k++) {
        if (r.stats.float32Failures.has(k)) continue;
        assert.deepEqual(
          r.basis.subarray(k * n * m, (k + 1) * n * m),
          hostProduct(g.data, r.Z, k, n, m),
          `${what}, basis ${k}`,
        );
      }
    }
});

test("reduce() with the check off returns the GPU's product as it is, equal to the checked result", {
  skip,
}, async () => {
  const seed = randomInt(2 ** 40);
  for (const [n, m, batch] of [
    [8, 8, 3000],
    [68, 64, 40],
    [160, 150, 1],
  ] as const) {
    const g = gaussianBases({ batch, n, m, seed: seed + n, precision: 'float32' });
    const opts = { algorithm: 'allswap' as const, precision: 'float32' as const, engine: 'cuda' as const };
    const fast = await reduce(g, { ...opts, check: false });
    const checked = await reduce(g, opts);
    const what = `seed ${seed}, ${n} x ${m} x ${batch}`;
    assert.deepEqual(fast.transform.data, checked.transform.data, `${what}: Z`);
    assert.deepEqual(fast.basis.data, checked.basis.data, `${what}: basis`);
    assert.ok(
      checked.checks!.every((c) => c.ok),
      what,
    );
  }
});

test("integral bases whose product may pass 2^53 get the host's exact product (check off)", { skip }, async () => {
  const seed = randomInt(2 ** 40);
  const rng = new Philox(seed, 3);
  const batch = 8,
    n = 4,
    m = 4;
  // integers near 2^50: float64 reduces them (Z stays small), but max|B| max|Z| m passes 2^53, so
  // the GPU leaves the product to the host's exact integer arithmetic
  const data = Float64Array.from({ length: batch * n * m }, () => Math.floor((rng.uniform() - 0.5) * 2 ** 51));
  const engine = await allswapCuda(data, batch, n, m, { ...PARAMS, driftWatch: true });
  assert.ok(
    engine.stats.hostProduct.size > 0,
    `seed ${seed}: no basis needed the host's product (${engine.stats.gpuBreakdowns.size} breakdowns)`,
  );
  const res = await reduce(makeBatch(data, batch, n, m), { algorithm: 'allswap', engine: 'cuda', check: false });
  for (let k = 0; k < batch; k++) {
    assert.deepEqual(
      res.basis.data.subarray(k * n * m, (k + 1) * n * m),
      hostProduct(data, res.transform.data, k, n, m),
      `seed ${seed}, basis ${k}`,
    );
  }
});
