/**
 * The GPU implementation of each algorithm that has one, loaded lazily so that the CPU engine never
 * loads the CUDA bindings. Each is checked against its CPU reference (src/lattice/<alg>/cpu.ts).
 */
import type { RealArray } from '../core/matrix.js';
import type { CudaBatchResult } from '../gpu/lattice-batch.js';
import type { AlgoParams, Algorithm } from './types.js';

export type CudaReducer = <A extends RealArray>(data: A, batch: number, n: number, m: number, p: AlgoParams) => Promise<CudaBatchResult<A>>;

export const CUDA_REDUCERS: Partial<Record<Algorithm, () => Promise<CudaReducer>>> = {
  allswap: async () => (await import('./allswap/cuda.js')).reduceBatchCuda,
  'jacobi-parallel': async () => (await import('./jacobi-parallel/cuda.js')).reduceBatchCuda,
  block: async () => (await import('./block/cuda.js')).reduceBatchCudaBlock,
  'cr-block': async () => (await import('./block/cuda.js')).reduceBatchCudaCrBlock,
};

export const CUDA_ALGORITHMS = Object.keys(CUDA_REDUCERS) as Algorithm[];

/** Whether a CUDA device answers (never throws; loads the bindings on first call). */
export async function cudaDeviceAvailable(): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    const { cudaAvailable } = await import('../gpu/context.js');
    const a = cudaAvailable();
    return a.ok ? { ok: true } : { ok: false, reason: a.reason };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}
