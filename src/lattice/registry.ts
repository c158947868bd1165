/**
 * The lattice algorithms, one entry each: its traits (what proves its output, which drift watches it
 * has, which of reduce()'s options it reads) and its engines, the CPU reducer beside the GPU one (loaded lazily, so that the CPU engine
 * never loads the CUDA bindings). Each entry lives in its algorithm's folder (entry.ts); adding an
 * algorithm is adding a folder and a line here. reduce(), its option checks (validate.ts) and the
 * fallback policy (fallback.ts) read the traits instead of lists of names.
 */
import type { OptionSchema, RealArray } from '../core/index.js';
import type { AlgoParams, Algorithm, BasisStats, CpuReducer } from './types.js';
import type { CudaBatchOutputs, CudaBatchResult } from './gpu/batch.js';
import type { TuningGroup } from './gpu-tuning.js';
import { lllEntry } from './lll/entry.js';
import { allswapEntry } from './allswap/entry.js';
import { blockEntry, crBlockEntry } from './block/entry.js';
import { jacobiEntry } from './jacobi/entry.js';
import { jacobiParallelEntry } from './jacobi-parallel/entry.js';
import { recursiveEntry } from './recursive/entry.js';

export interface AlgorithmTraits {
  /** The conditions that prove an output: LLL's (size reduction and Lovasz) or pairwise Lagrange's (Jacobi). */
  readonly proof: 'lll' | 'lagrange';
  /** The CPU reducer has the drift watch (AlgoParams.driftWatch). */
  readonly cpuDriftWatch: boolean;
  /** Every GPU kernel of the algorithm has one too (where the CPU has it and they do not, fallback.ts redoes their float64 breakdowns on the CPU). */
  readonly gpuDriftWatch: boolean;
  /**
   * The options of reduce() that only some algorithms read, and that this one's reducers do read
   * (every algorithm reads maxIterations, precision, engine, check, threads, onProgress and out;
   * driftWatch applies where cpuDriftWatch says). reduce() refuses the others, naming why.
   */
  readonly params: readonly AlgorithmParam[];
  /** The groups of reduce()'s gpuTuning that its GPU kernels read (gpuTuning.batch: every GPU algorithm's). */
  readonly gpuTuning: readonly TuningGroup[];
}

/** The options of reduce() that only some algorithms read (AlgorithmTraits.params). */
export type AlgorithmParam = 'delta' | 'eta' | 'blockSize' | 'float32Arithmetic';

/**
 * A GPU engine call: `batch` bases of n x m (column-major, back to back in `data`, whose array kind
 * is the working precision) reduced into `out` or fresh arrays.
 */
export type CudaReducer = <A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  p: AlgoParams,
  out?: CudaBatchOutputs<A>,
) => Promise<CudaBatchResult<A>>;

/**
 * A CPU reducer's WebAssembly kernel: float64 bases, a run of them a call, with the reference's
 * results bit for bit. `reduce` reduces `count` bases of `work` in place with their transforms into
 * Z, sets `stats[k]` for each basis it reduced and leaves the others as they were (their input,
 * `stats[k]` undefined) for the reference; `onRun(first, count)` after each run of bases.
 */
export interface CpuWasmKernel {
  /** Whether it takes bases of n x m with these parameters (else the reference runs all of them). */
  covers(n: number, m: number, p: AlgoParams): boolean;
  reduce(
    work: Float64Array,
    Z: Float64Array,
    count: number,
    n: number,
    m: number,
    p: AlgoParams,
    stats: (BasisStats | undefined)[],
    onRun?: (first: number, count: number) => void,
  ): void;
}

export interface AlgorithmEntry {
  readonly name: Algorithm;
  readonly traits: AlgorithmTraits;
  readonly cpu: CpuReducer;
  /**
   * The CPU reducer's WebAssembly kernel for float64 bases, when there is one: run where the one
   * policy (core pickCpuKernel, option cpuKernel, LATTICE_MIMO_WASM) says 'wasm-simd'.
   */
  readonly cpuWasm?: CpuWasmKernel;
  /** The GPU implementation, when there is one. */
  readonly cuda?: () => Promise<CudaReducer>;
  /**
   * Options of its own beyond reduce()'s (the recursive reduction's quality goals), with their
   * command-line flags: the reduce command reads its flags and help lines from here.
   */
  readonly options?: OptionSchema;
}

export const ALGORITHM_REGISTRY: Readonly<Record<Algorithm, AlgorithmEntry>> = {
  lll: lllEntry,
  allswap: allswapEntry,
  block: blockEntry,
  'cr-block': crBlockEntry,
  jacobi: jacobiEntry,
  'jacobi-parallel': jacobiParallelEntry,
  recursive: recursiveEntry,
};

/** The algorithms with a GPU implementation. */
export const CUDA_ALGORITHMS = (Object.values(ALGORITHM_REGISTRY) as AlgorithmEntry[])
  .filter((e) => e.cuda)
  .map((e) => e.name);

/** The algorithms with a WebAssembly kernel on the CPU engine. */
export const WASM_ALGORITHMS = (Object.values(ALGORITHM_REGISTRY) as AlgorithmEntry[])
  .filter((e) => e.cpuWasm)
  .map((e) => e.name);

/** The algorithms whose reducers read an option (AlgorithmTraits.params), for messages. */
export function algorithmsReading(param: AlgorithmParam): Algorithm[] {
  return (Object.values(ALGORITHM_REGISTRY) as AlgorithmEntry[])
    .filter((e) => e.traits.params.includes(param))
    .map((e) => e.name);
}
