/**
 * reduce()'s handling of float64 breakdowns on the CUDA engine (reduce.ts: cudaWithBreakdowns),
 * with a stand-in for the GPU engine call, so it runs without a device: a breakdown naming a basis
 * marks that basis for the CPU redo and runs the others again, at most MAX_GPU_RERUNS times a call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { LatticeMimoError } from '../../src/core/errors.js';
import type { RealArray } from '../../src/core/matrix.js';
import type { CudaBatchResult } from '../../src/gpu/lattice-batch.js';
import type { CudaReducer } from '../../src/lattice/cuda-registry.js';
import { cudaWithBreakdowns } from '../../src/lattice/reduce.js';
import { resolveOptions } from '../../src/lattice/validate.js';

const n = 3, m = 2;

/**
 * A stand-in engine call: basis k carries its global index in its first entry; the bases in `bad`
 * break down (a typed error naming the first of them in the call, local index); the others get
 * Z = index times the identity and one swap.
 */
function fakeEngine(bad: Set<number>, calls: { count: number }): CudaReducer {
  return (async <A extends RealArray>(data: A, batch: number): Promise<CudaBatchResult<A>> => {
    calls.count++;
    for (let k = 0; k < batch; k++) {
      if (bad.has(data[k * n * m]!)) throw new LatticeMimoError('PRECISION_FAILURE', 'lost it', { basis: k });
    }
    const Z = new Float64Array(batch * m * m);
    for (let k = 0; k < batch; k++) { Z[k * m * m] = data[k * n * m]!; Z[k * m * m + 3] = data[k * n * m]!; }
    const ones = new Int32Array(batch).fill(1);
    return {
      basis: data, Z,
      stats: { iterations: ones, swaps: ones, sizeReductions: new Int32Array(batch), float32Failures: new Map(), kernelMs: 1, totalMs: 1, chunks: 1, streams: 1, threadsPerBlock: 32, sharedBytesPerBlock: 0, variant: 'persistent' },
    };
  }) as CudaReducer;
}

function batchOf(size: number): Float64Array {
  const data = new Float64Array(size * n * m);
  for (let k = 0; k < size; k++) data[k * n * m] = k;
  return data;
}

test('float64 breakdowns of named bases go to the CPU redo, the other bases keep their GPU results', async () => {
  const size = 20 + randomInt(40);
  const bad = new Set(Array.from({ length: 1 + randomInt(6) }, () => randomInt(size)));
  const calls = { count: 0 };
  const o = resolveOptions({ algorithm: 'block', precision: 'float64' }, m);
  const r = await cudaWithBreakdowns(fakeEngine(bad, calls), batchOf(size), size, n, m, o);
  assert.equal(r.perBasis.length, size);
  for (let k = 0; k < size; k++) {
    if (bad.has(k)) assert.ok(r.perBasis[k]!.gpuBreakdown?.startsWith('PRECISION_FAILURE'), `basis ${k} of ${[...bad]}`);
    else {
      assert.equal(r.perBasis[k]!.gpuBreakdown, undefined, `basis ${k}`);
      assert.equal(r.Z[k * m * m], k, `basis ${k}: its own GPU result`);
    }
  }
  assert.ok(calls.count <= 1 + 2 * bad.size, `${calls.count} engine calls for ${bad.size} breakdowns`);
  assert.equal(r.variant, 'persistent');
});

test('past MAX_GPU_RERUNS re-runs, the rest of the batch goes to the CPU whole; float32, jacobi and driftWatch false are not redone', async () => {
  const size = 200;
  const bad = new Set(Array.from({ length: size }, (_, k) => k).filter((k) => k % 3 === 0));
  const calls = { count: 0 };
  const o = resolveOptions({ algorithm: 'allswap', precision: 'float64' }, m);
  const r = await cudaWithBreakdowns(fakeEngine(bad, calls), batchOf(size), size, n, m, o);
  assert.equal(r.perBasis.length, size);
  assert.ok(calls.count <= 1 + 17, `${calls.count} engine calls`);
  for (const k of bad) assert.ok(r.perBasis[k]!.gpuBreakdown, `basis ${k}`);
  for (let k = 0; k < size; k++) if (!r.perBasis[k]!.gpuBreakdown) assert.equal(r.Z[k * m * m], k, `basis ${k}`);
  for (const opts of [{ algorithm: 'allswap', precision: 'float32' }, { algorithm: 'jacobi-parallel', precision: 'float64' }, { algorithm: 'block', precision: 'float64', driftWatch: false }] as const) {
    await assert.rejects(cudaWithBreakdowns(fakeEngine(new Set([1]), { count: 0 }), batchOf(4), 4, n, m, resolveOptions(opts, m)),
      (e: unknown) => e instanceof LatticeMimoError && e.code === 'PRECISION_FAILURE', JSON.stringify(opts));
  }
});

test('scale: a basis of tiny or huge entries is reduced as its scaled copy (not called dependent), output scaled back exactly', async () => {
  const { reduce } = await import('../../src/lattice/reduce.js');
  const { makeBatch } = await import('../../src/core/matrix.js');
  const fc = (await import('fast-check')).default;
  await fc.assert(fc.asyncProperty(
    fc.integer({ min: 2, max: 6 }), fc.integer({ min: -1000, max: 1000 }).filter((e) => Math.abs(e) > 140),
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
      assert.deepEqual(Array.from(b.basis.data), Array.from(a.basis.data, (v) => v * s));
    }), { numRuns: 20 });
  const r = await reduce(makeBatch(Float64Array.from([1e-200, 0, 0, 1e-200]), 1, 2, 2), { engine: 'cpu' });
  assert.deepEqual(Array.from(r.basis.data), [1e-200, 0, 0, 1e-200]);
});

test('a delta or eta of another type is "must be a number", not out of range', () => {
  for (const [k, v] of [['delta', '0.9'], ['eta', '0.51'], ['delta', true], ['eta', [0.5]]] as const) {
    let err: unknown;
    try { resolveOptions({ [k]: v } as never, 4); } catch (e) { err = e; }
    assert.ok(err instanceof LatticeMimoError && err.code === 'INVALID_ARGUMENT');
    assert.match(err.message, new RegExp(`${k} must be a number, got`));
  }
});
