/**
 * reduce()'s handling of what a GPU engine call leaves over (reduce.ts: packGpuResult, with the
 * fallback policy of fallback.ts), with a stand-in for the engine call so that it runs without a
 * device: float32 breakdowns redone in float64, float64 breakdowns of kernels without the drift
 * watch redone on the CPU, products past 2^53 computed exactly on the host, and every other basis
 * kept as the engine gave it when the check is off.
 */
import { test } from 'node:test';
import { show } from '../../src/core/show.js';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { errorRecord, LatticeMimoError, RankDeficientError } from '../../src/core/errors.js';
import { makeBatch, type RealArray } from '../../src/core/matrix.js';
import { applyTransform, checkLLL, checkUnimodular } from '../../src/lattice/check.js';
import { remedy } from '../../src/lattice/fallback.js';
import { gaussianBases } from '../../src/lattice/generators.js';
import type { CudaBatchResult } from '../../src/lattice/gpu/batch.js';
import { packGpuResult, reduceSync } from '../../src/lattice/reduce.js';
import { ALGORITHM_REGISTRY } from '../../src/lattice/registry.js';
import { ALGORITHMS } from '../../src/lattice/types.js';
import { resolveOptions } from '../../src/lattice/validate.js';

/**
 * A stand-in engine result for `data`: the CPU reference's Z and B_in Z for every basis, except the
 * bases in `lost`, whose outputs are NaN and which are listed as the engine lists them.
 */
function engineResult(
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  lost: Map<number, 'float32' | 'breakdown' | 'product'>,
): CudaBatchResult<RealArray> {
  const ref = reduceSync(makeBatch(data.slice() as RealArray, batch, n, m), {
    algorithm: 'allswap',
    precision: data instanceof Float32Array ? 'float32' : 'float64',
    driftWatch: false,
    check: false,
  });
  const basis = ref.basis.data.slice() as RealArray,
    Z = ref.transform.data.slice();
  const stats: CudaBatchResult<RealArray>['stats'] = {
    iterations: new Int32Array(batch).fill(1),
    swaps: new Int32Array(batch),
    sizeReductions: new Int32Array(batch),
    float32Failures: new Map(),
    gpuBreakdowns: new Map(),
    hostProduct: new Set(),
    basisIsProduct: true,
    kernelMs: 1,
    totalMs: 2,
    chunks: 1,
    streams: 1,
    threadsPerBlock: 32,
    sharedBytesPerBlock: 0,
    variant: 'stand-in',
  };
  for (const [k, how] of lost) {
    basis.fill(NaN, k * n * m, (k + 1) * n * m);
    if (how === 'product') continue; // Z stands, the basis is the host's to compute
    Z.fill(NaN, k * m * m, (k + 1) * m * m);
    if (how === 'float32')
      stats.float32Failures.set(k, errorRecord(new LatticeMimoError('PRECISION_FAILURE', 'lost it')));
    else stats.gpuBreakdowns.set(k, errorRecord(new RankDeficientError('RANK_DEFICIENT', 'lost it')));
  }
  for (const [k, how] of lost) if (how === 'product') stats.hostProduct.add(k);
  return { basis, Z, stats };
}

for (const check of [false, true]) {
  test(`bases the engine left over are finished on the host, the others kept (check ${check})`, () => {
    const seed = randomInt(2 ** 40);
    const batch = 20 + randomInt(30),
      n = 6 + randomInt(4),
      m = 4 + randomInt(3);
    for (const precision of ['float32', 'float64'] as const) {
      const what = `seed ${seed}, ${precision}, batch ${batch}, ${n} x ${m}`;
      const bases = gaussianBases({ batch, n, m, seed, precision });
      const lost = new Map<number, 'float32' | 'breakdown' | 'product'>();
      const kinds = precision === 'float32' ? (['float32', 'product'] as const) : (['breakdown', 'product'] as const);
      for (let i = 0; i < 1 + randomInt(6); i++) lost.set(randomInt(batch), kinds[randomInt(2)]!);
      const r = engineResult(bases.data, batch, n, m, lost);
      const o = resolveOptions({ algorithm: 'allswap', precision, check }, m);
      const arrays = { basis: r.basis, Z: r.Z };
      const res = packGpuResult(bases, o, r, arrays, true, performance.now());
      assert.equal(res.basis.data, r.basis, `${what}: the engine's arrays are the result's`);
      for (let k = 0; k < batch; k++) {
        const Bk = res.basis.data.subarray(k * n * m, (k + 1) * n * m),
          Zk = res.transform.data.subarray(k * m * m, (k + 1) * m * m);
        const P = bases.data.slice(0, n * m) as RealArray;
        P.set(applyTransform(bases.data.subarray(k * n * m, (k + 1) * n * m), Zk, n, m)!);
        assert.deepEqual(Bk, P, `${what}, basis ${k} (${lost.get(k) ?? 'kept'}): the basis is B_in Z`);
        assert.ok(checkUnimodular(Zk, m).ok, `${what}, basis ${k}: Z unimodular`);
        if (lost.has(k) && lost.get(k) !== 'product')
          assert.ok(checkLLL(Bk, n, m, 0.75, 0.51, 1e-9).ok, `${what}, basis ${k}: the redo is reduced`);
      }
      const want = (how: string) => [...lost.values()].filter((v) => v === how).length;
      assert.equal(res.stats.redoneInFloat64, want('float32'), what);
      assert.equal(res.stats.redoneOnCpu, want('breakdown'), what);
      assert.equal(res.checks?.length, check ? batch : undefined, what);
    }
  });
}

test('a float64 breakdown the policy does not redo (driftWatch false) is raised, naming the basis', () => {
  const batch = 5,
    n = 6,
    m = 5,
    bad = randomInt(batch);
  const bases = gaussianBases({ batch, n, m, seed: randomInt(2 ** 40), precision: 'float64' });
  const r = engineResult(bases.data, batch, n, m, new Map([[bad, 'breakdown']]));
  const o = resolveOptions({ algorithm: 'allswap', precision: 'float64', check: false, driftWatch: false }, m);
  assert.throws(
    () => packGpuResult(bases, o, r, { basis: r.basis, Z: r.Z }, true, 0),
    (e: { code?: string; details?: { basis?: number } }) => e.details?.basis === bad,
  );
});

test('the fallback policy: float32 breakdowns go to float64, GPU float64 ones to the CPU only where the CPU has a drift watch the kernels lack, input errors never', () => {
  const codes = [
    'PRECISION_FAILURE',
    'RANK_DEFICIENT',
    'ZERO_VECTOR',
    'UNSUPPORTED',
    'ITERATION_LIMIT',
    'CHECK_FAILED',
    'NON_FINITE',
    'SHAPE_MISMATCH',
    'INVALID_ARGUMENT',
  ];
  fc.assert(
    fc.property(
      fc.constantFrom(...ALGORITHMS),
      fc.constantFrom('cpu', 'cuda'),
      fc.constantFrom('float32', 'float64'),
      fc.boolean(),
      fc.constantFrom(...codes),
      (alg, engine, precision, driftWatch, code) => {
        const traits = ALGORITHM_REGISTRY[alg].traits;
        const r = remedy(
          traits,
          { engine: engine as 'cpu' | 'cuda', precision: precision as 'float32' | 'float64', driftWatch },
          code,
        );
        const input = code === 'NON_FINITE' || code === 'SHAPE_MISMATCH' || code === 'INVALID_ARGUMENT';
        if (input) return r === 'raise';
        if (precision === 'float32') return r === 'float64';
        const cpuRedo =
          engine === 'cuda' &&
          driftWatch &&
          (alg === 'allswap' || alg === 'block' || alg === 'cr-block') &&
          code !== 'ITERATION_LIMIT';
        return r === (cpuRedo ? 'cpu' : 'raise');
      },
    ),
  );
});

test('scale: a basis of tiny or huge entries is reduced as its scaled copy (not called dependent), output scaled back exactly', async () => {
  const { reduce } = await import('../../src/lattice/reduce.js');
  const { makeBatch } = await import('../../src/core/matrix.js');
  const fc = (await import('fast-check')).default;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 2, max: 6 }),
      fc.integer({ min: -1000, max: 1000 }).filter((e) => Math.abs(e) > 140),
      fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 36, maxLength: 36 }),
      async (m, e, ints) => {
        const base = Float64Array.from({ length: m * m }, (_, i) => ints[i]! + (i % (m + 1) === 0 ? 200 : 0)); // diagonally dominant: independent
        const s = 2 ** e;
        const scaled = base.map((v) => v * s);
        const a = await reduce(makeBatch(base, 1, m, m), { engine: 'cpu' });
        const b = await reduce(makeBatch(scaled, 1, m, m), { engine: 'cpu' });
        assert.ok(b.checks![0]!.ok);
        // the same transform, the output the scaled output
        assert.deepEqual(Array.from(b.transform.data), Array.from(a.transform.data));
        assert.deepEqual(
          Array.from(b.basis.data),
          Array.from(a.basis.data, (v) => v * s),
        );
      },
    ),
    { numRuns: 20 },
  );
  const r = await reduce(makeBatch(Float64Array.from([1e-200, 0, 0, 1e-200]), 1, 2, 2), { engine: 'cpu' });
  assert.deepEqual(Array.from(r.basis.data), [1e-200, 0, 0, 1e-200]);
});

test('a delta or eta of another type is named as such: "must be a finite number", quoting what was given', () => {
  for (const [k, v] of [
    ['delta', '0.9'],
    ['eta', '0.51'],
    ['delta', true],
    ['eta', [0.5]],
  ] as const) {
    let err: unknown;
    try {
      resolveOptions({ [k]: v } as never, 4);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof LatticeMimoError && err.code === 'INVALID_ARGUMENT');
    assert.equal(err.details?.option, k);
    assert.ok(err.message.includes(`${k} must be a finite number in `), err.message);
    assert.ok(err.message.endsWith(`got ${show(v)}`), err.message);
  }
});
