/**
 * Shared by the kernel tests: each basis of a kernel's output against its CPU reference run on the
 * same input: the same Z, basis and [iterations, swaps, sizeReductions], or the same error as the
 * kernel's status word says.
 */
import assert from 'node:assert/strict';
import type { RealArray } from '../../src/core/matrix.js';
import { applyTransform } from '../../src/lattice/check.js';
import { STATS_WIDTH } from '../../src/lattice/gpu/batch.js';
import type { AlgoParams, CpuReducer } from '../../src/lattice/types.js';
import { reduceBatchCuda as allswapCuda } from '../../src/lattice/allswap/cuda.js';

/**
 * The all-swap engine call with its kernel forced to `kind` (AlgoParams.gpuTuning), asserting that
 * the plan took it.
 */
export function forcedAllswap(kind: 'lane' | 'grid'): typeof allswapCuda {
  return async (data, batch, n, m, p, out) => {
    const r = await allswapCuda(
      data,
      batch,
      n,
      m,
      { ...p, gpuTuning: { ...p.gpuTuning, allswap: { ...p.gpuTuning?.allswap, kernel: kind } } },
      out,
    );
    assert.equal(r.stats.variant, kind);
    return r;
  };
}

/** The error code each kernel status stands for (src/lattice/gpu/status.ts). */
export const STATUS_CODES = [
  '',
  'NON_FINITE',
  'ZERO_VECTOR',
  'ITERATION_LIMIT',
  'RANK_DEFICIENT',
  'PRECISION_FAILURE',
  'UNSUPPORTED',
];

export function assertMatchesReference(
  cpu: CpuReducer,
  p: AlgoParams,
  what: string,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  got: { basis: RealArray; Z: Float64Array; stats: Int32Array },
  /** The output basis is B_in Z as reduce() computes it (the engine's product stage), not the reducer's working basis. */
  product = false,
): void {
  for (let b = 0; b < batch; b++) {
    const B = data.slice(b * n * m, (b + 1) * n * m) as RealArray;
    const Z = new Float64Array(m * m);
    for (let i = 0; i < m; i++) Z[i + i * m] = 1;
    const where = `${what}, basis ${b}`;
    const status = got.stats[b * STATS_WIDTH + 3]!;
    let s: ReturnType<typeof cpu>;
    try {
      s = cpu(B, Z, n, m, p);
    } catch (e) {
      // the reference gave up on this basis (too ill-conditioned): the kernel must say so too
      assert.equal(
        STATUS_CODES[status],
        (e as { code?: string }).code,
        `${where}: the CPU threw ${String(e)}, the kernel's status is ${status}`,
      );
      continue;
    }
    assert.equal(status, 0, `${where}: kernel status ${status}, the CPU succeeded`);
    assert.deepEqual(got.Z.subarray(b * m * m, (b + 1) * m * m), Z, `${where}: Z`);
    const want = product
      ? (() => {
          const P = B.slice() as RealArray;
          P.set(applyTransform(data.subarray(b * n * m, (b + 1) * n * m), Z, n, m)!);
          return P;
        })()
      : B;
    assert.deepEqual(got.basis.subarray(b * n * m, (b + 1) * n * m), want, `${where}: basis`);
    assert.deepEqual(
      Array.from(got.stats.subarray(b * STATS_WIDTH, b * STATS_WIDTH + 3)),
      [s.iterations, s.swaps, s.sizeReductions],
      `${where}: counts`,
    );
  }
}
