/**
 * The GPU engine calls for repeated batches of one shape: raw results into the caller's arrays, no
 * proof, no fallback. Their parameters are reduce()'s that reach a kernel (ENGINE_CALL_SCHEMA),
 * checked as strictly as reduce()'s: an unknown key, a wrong type or range, or a parameter the
 * algorithm does not read (blockSize for allswap, delta for jacobi-parallel) is an
 * InvalidArgumentError naming it. The kernels load on the first call.
 */
import type { RealArray } from '../core/index.js';
import type { CudaBatchOutputs, CudaBatchResult } from './gpu/batch.js';
import { ALGORITHM_REGISTRY } from './registry.js';
import type { Algorithm } from './types.js';
import { resolveEngineCall, type EngineCallParams } from './validate.js';

async function engineCall<A extends RealArray>(
  algorithm: Algorithm,
  call: string,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: EngineCallParams | undefined,
  out: CudaBatchOutputs<A> | undefined,
): Promise<CudaBatchResult<A>> {
  const p = resolveEngineCall(algorithm, params, data, m, call);
  const reducer = await ALGORITHM_REGISTRY[algorithm].cuda!();
  return reducer(data, batch, n, m, p, out);
}

/**
 * CR-AS-LLL (all-swap) on the GPU: `batch` bases of n x m (column-major, back to back in `data`,
 * whose kind is the precision) reduced into `out` or fresh arrays.
 * @param params delta (0.75), eta (0.51), maxIterations (max(10^6, 200 m^2)), float32Arithmetic
 *   (float32 data), gpuTuning (allswap, batch).
 * @returns basis batch x n x m, Z batch x m x m, stats (per-basis counts, breakdowns).
 */
export function allswapBatchCuda<A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  params?: EngineCallParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  return engineCall('allswap', 'allswapBatchCuda()', data, batch, n, m, params, out);
}

/**
 * Parallel Jacobi (chess-tournament ordering) on the GPU: `batch` bases of n x m reduced into
 * `out` or fresh arrays.
 * @param params maxIterations (max(10^6, 200 m^2)), gpuTuning (jacobi, batch).
 * @returns basis batch x n x m, Z batch x m x m, stats (per-basis counts, breakdowns).
 */
export function jacobiParallelBatchCuda<A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  params?: EngineCallParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  return engineCall('jacobi-parallel', 'jacobiParallelBatchCuda()', data, batch, n, m, params, out);
}
