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
