/**
 * Runs a CPU reducer over a batch of bases: in this thread for small batches, on worker threads
 * (src/lattice/cpu-worker.ts) for large ones. The working array's kind is the precision.
 *
 * A float32 basis whose reduction breaks down (precision failure, a transform past 2^53, no
 * convergence) is not an error yet: it is marked (`float32Failure`) and reduce() redoes it in
 * float64. Any other error names its basis (`details.basis`).
 */
import {
  allocArray,
  allocLike,
  errorRecord,
  identity,
  LatticeMimoError,
  type RealArray,
  withContext,
  defaultThreads,
  runOnWorkers,
  pickCpuKernel,
  EngineUnavailableError,
  type CpuKernel,
} from '../core/index.js';
import { ALGORITHM_REGISTRY, type CpuWasmKernel } from './registry.js';
import { remedy } from './fallback.js';
import type { AlgoParams, Algorithm, BasisStats } from './types.js';
import { isIntegral } from './check.js';
import { allowTransformLoss } from './lll/columns.js';

export interface BatchOutcome {
  /** The bases as the algorithm left them (working precision). */
  work: RealArray;
  /** batch x m x m transforms. */
  Z: Float64Array;
  stats: BasisStats[];
  /** Which kernel reduced the bases (ChunkResult.kernel). */
  kernel: CpuKernel;
  /** Bases the WebAssembly kernel handed to the reference (ChunkResult.redoneInTypescript). */
  redoneInTypescript: number;
}

/**
 * Reduces one basis in place; Z starts as the identity. A Z that passes 2^53 may lose entries (NaN)
 * only for integral float64 input, which reduce() rebuilds exactly; otherwise it is UNSUPPORTED at
 * once (a float32 run is then redone in float64, as for the GPU's TRANSFORM_OVERFLOW status).
 */
export function reduceOneCpu(
  algorithm: Algorithm,
  B: RealArray,
  n: number,
  m: number,
  p: AlgoParams,
): { Z: Float64Array; stats: BasisStats } {
  const Z = identity(m);
  if (B instanceof Float64Array && isIntegral(B)) allowTransformLoss(Z);
  const stats = ALGORITHM_REGISTRY[algorithm].cpu(B, Z, n, m, p);
  return { Z, stats };
}

/**
 * The error at basis `index` of a batch of `batch` bases: its details name the basis, and so does
 * its message where the batch has more than one.
 */
export function withBasisIndex(err: unknown, index: number, batch: number): unknown {
  return batch > 1 ? withContext(err, { basis: index }) : withContext(err, {}, { basis: index });
}

export interface ChunkTask {
  algorithm: Algorithm;
  params: AlgoParams;
  n: number;
  m: number;
  work: RealArray;
  count: number;
  offset: number;
  /** Bases of the whole batch the chunk is part of. */
  batch: number;
}
export interface ChunkResult {
  work: RealArray;
  Z: Float64Array;
  stats: BasisStats[];
  /** Which kernel reduced the chunk's bases: the algorithm's WebAssembly kernel or the TypeScript reference. */
  kernel: CpuKernel;
  /** Bases the WebAssembly kernel handed to the reference (reduced by it from their input: the same result). */
  redoneInTypescript: number;
}

/**
 * The WebAssembly kernel a chunk runs on, or null for the reference: the algorithm has one, the
 * bases are float64, the one policy (core pickCpuKernel: option cpuKernel, LATTICE_MIMO_WASM) says
 * 'wasm-simd' and the kernel covers the shape ('wasm' where it does not: EngineUnavailableError).
 */
function wasmKernelOf(t: ChunkTask): CpuWasmKernel | null {
  const wasm = ALGORITHM_REGISTRY[t.algorithm].cpuWasm;
  if (!wasm || !(t.work instanceof Float64Array)) return null;
  const request = t.params.cpuKernel ?? 'auto';
  if (pickCpuKernel(request, `reduce() ${t.algorithm}`) !== 'wasm-simd') return null;
  if (wasm.covers(t.n, t.m, t.params)) return wasm;
  if (request === 'wasm')
    throw new EngineUnavailableError(
      `reduce() ${t.algorithm}: cpuKernel 'wasm' asked for, and the kernel does not take ${t.n} x ${t.m} bases`,
    );
  return null;
}

export function reduceChunk(t: ChunkTask, onBasis?: (k: number) => void): ChunkResult {
  const size = t.n * t.m,
    mm = t.m * t.m;
  const Z = allocArray(Float64Array, t.count * mm, `transforms (${t.count} x m x m, m = ${t.m})`);
  const stats: BasisStats[] = new Array(t.count);
  const one = (k: number) => {
    try {
      const r = reduceOneCpu(t.algorithm, t.work.subarray(k * size, (k + 1) * size), t.n, t.m, t.params);
      Z.set(r.Z, k * mm);
      stats[k] = r.stats;
    } catch (err) {
      const precision = t.work instanceof Float32Array ? 'float32' : 'float64';
      const traits = ALGORITHM_REGISTRY[t.algorithm].traits;
      if (
        !(err instanceof LatticeMimoError) ||
        remedy(traits, { engine: 'cpu', precision, driftWatch: t.params.driftWatch !== false }, err.code) !== 'float64'
      ) {
        throw withBasisIndex(err, t.offset + k, t.batch);
      }
      Z.set(identity(t.m), k * mm);
      stats[k] = { iterations: 0, swaps: 0, sizeReductions: 0, float32Failure: errorRecord(err) };
    }
    onBasis?.(k);
  };
  const wasm = wasmKernelOf(t);
  if (!wasm) {
    for (let k = 0; k < t.count; k++) one(k);
    return { work: t.work, Z, stats, kernel: 'typescript', redoneInTypescript: 0 };
  }
  // the kernel's bases; those it hands back the reference reduces from their input
  let redone = 0;
  const done: (BasisStats | undefined)[] = new Array(t.count);
  wasm.reduce(t.work as Float64Array, Z, t.count, t.n, t.m, t.params, done, (first, len) => {
    for (let k = first; k < first + len; k++) {
      const s = done[k];
      if (s) {
        stats[k] = s;
        onBasis?.(k);
      } else {
        redone++;
        one(k);
      }
    }
  });
  return { work: t.work, Z, stats, kernel: 'wasm-simd', redoneInTypescript: redone };
}

/** Rough work estimate (flops) of one basis, to decide whether threads pay. */
function workOf(n: number, m: number): number {
  return n * m * m * 4;
}

export async function reduceBatchCpu(
  algorithm: Algorithm,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  p: AlgoParams,
  threads = defaultThreads(),
  onProgress?: (done: number, total: number) => void,
): Promise<BatchOutcome> {
  const useThreads = Math.min(threads, batch);
  if (useThreads <= 1 || batch * workOf(n, m) < 2e6) {
    const r = reduceChunk({ algorithm, params: p, n, m, work: data, count: batch, offset: 0, batch }, (k) => {
      if (onProgress && (k % 64 === 63 || k === batch - 1)) onProgress(k + 1, batch);
    });
    return r;
  }
  // Chunks small enough to balance the load, large enough that messaging is cheap.
  const chunks = Math.min(batch, useThreads * 8);
  const per = Math.ceil(batch / chunks);
  const size = n * m;
  const tasks: ChunkTask[] = [];
  for (let start = 0; start < batch; start += per) {
    const count = Math.min(per, batch - start);
    const work = allocLike(data, count * size, `a chunk of ${count} bases`);
    work.set(data.subarray(start * size, (start + count) * size));
    tasks.push({ algorithm, params: p, n, m, work, count, offset: start, batch });
  }
  let done = 0;
  const results = await runOnWorkers<ChunkTask, ChunkResult>(
    new URL('./cpu-worker.js', import.meta.url),
    tasks,
    useThreads,
    (t) => [t.work.buffer as ArrayBuffer],
    (i) => {
      done += tasks[i]!.count;
      onProgress?.(done, batch);
    },
  );
  const Z = allocArray(Float64Array, batch * m * m, `transforms (${batch} x m x m, m = ${m})`);
  const stats: BasisStats[] = [];
  let redoneInTypescript = 0;
  results.forEach((r, i) => {
    const offset = tasks[i]!.offset;
    data.set(r.work, offset * size);
    Z.set(r.Z, offset * m * m);
    stats.push(...r.stats);
    redoneInTypescript += r.redoneInTypescript;
  });
  return { work: data, Z, stats, kernel: results[0]!.kernel, redoneInTypescript };
}
