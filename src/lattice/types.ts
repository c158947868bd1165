/**
 * Types shared by every lattice-reduction algorithm and engine.
 *
 * Bases are column-major n x m (n = dimension of the space, m = number of basis vectors, m <= n);
 * the basis vectors are the columns. Z is m x m, column-major, integer valued, with B' = B Z.
 */
import type { CpuKernelRequest, ErrorRecord, Precision, RealArray } from '../core/index.js';
import type { GpuTuning } from './gpu-tuning.js';

/** Every reduction algorithm `reduce()` accepts, by name. */
export const ALGORITHMS = ['lll', 'allswap', 'block', 'cr-block', 'jacobi', 'jacobi-parallel', 'recursive'] as const;
/**
 * `lll` sequential LLL, `allswap` CR-AS-LLL, `block` MB-LLL, `cr-block` CR-MB-LLL, `jacobi` /
 * `jacobi-parallel` the Jacobi method, `recursive` reduction by iterated compression (large integer bases).
 */
export type Algorithm = (typeof ALGORITHMS)[number];
/** `cpu` always there; `cuda` an NVIDIA GPU, an error when none answers; `auto` the GPU where the algorithm has a kernel and a device answers. */
export type Engine = 'auto' | 'cpu' | 'cuda';

/** The numeric parameters every algorithm sees (defaults filled in, validated). */
export interface AlgoParams {
  /** Lovasz parameter, in (0.25, 1). Default 0.75 as in the papers. */
  readonly delta: number;
  /** Size-reduction bound |mu_ij| <= eta, in [0.5, sqrt(delta)). Default 0.51. */
  readonly eta: number;
  /** Sub-basis size (columns) for the block algorithms. */
  readonly blockSize: number;
  /** Upper bound on the main loop's iterations (each algorithm says what it counts). */
  readonly maxIterations: number;
  /**
   * The drift watch of the all-swap and block reducers on the CPU (allswap/phases.ts), default on.
   * false runs the papers' algorithms as they are, which is what the per-basis GPU kernels equal bit
   * for bit (their tests pass false); the whole-device GPU kernel has a watch of its own.
   */
  readonly driftWatch?: boolean;
  /**
   * How float32 bases are computed on the GPU's column-owner all-swap kernel (batches of bases with
   * more than 12 columns and at most 96 rows): 'double' (default) computes every operation in double
   * and rounds what it stores to float32, so its results equal the CPU engine's bit for bit;
   * 'float32' computes Gram-Schmidt and the size reductions in float32 arithmetic, as the papers'
   * float32 kernels (faster; other results, each proven in float64 like every GPU output). The CPU engine and the other kernels
   * compute in double either way.
   */
  readonly float32Arithmetic?: 'double' | 'float32';
  /**
   * Launch choices of the GPU kernels (which kernel, block sizes, workspace memory; gpu-tuning.ts),
   * each absent field the plan's own choice. For tests and measurements; the defaults are measured.
   */
  readonly gpuTuning?: GpuTuning;
  /**
   * The CPU engine's kernel for float64 bases of an algorithm with a WebAssembly one (lll): 'auto'
   * (default) the kernel where the runtime has WebAssembly SIMD, 'wasm' it or an
   * EngineUnavailableError, 'typescript' the reference. The same results either way.
   */
  readonly cpuKernel?: CpuKernelRequest;
}

/** What one run of an algorithm on one basis reports. */
export interface BasisStats {
  /** Main-loop iterations (LLL: k-steps; all-swap: phases; block: block rounds; Jacobi: sweeps). */
  iterations: number;
  /** Column swaps performed. */
  swaps: number;
  /** Size-reduction steps (integer column updates) performed. */
  sizeReductions: number;
  /** Set when a float32 run broke down (the error, as data); reduce() then redoes the basis in float64. */
  float32Failure?: ErrorRecord;
  /**
   * Set when a per-basis GPU kernel's float64 run of allswap, block or cr-block broke down (the
   * error, as data): those kernels have no drift watch, so reduce() redoes the basis on the CPU engine, whose
   * reducers have it (AlgoParams.driftWatch).
   */
  gpuBreakdown?: ErrorRecord;
  /** Set when float64 broke down on an integral basis and the LLL went on with double-double Gram-Schmidt rows. */
  extendedPrecision?: 'double-double';
  /** Set when Z outgrew float64 and was rebuilt exactly (reduce()'s wideTransforms): bits of its largest entry. */
  wideTransformBits?: number;
}

/**
 * A CPU reducer works in place on one basis:
 *  - B: n x m column-major; its array kind is the working precision (a Float32Array means every
 *    stored intermediate is rounded to float32, as on the GPU); allocate scratch with allocLike(B).
 *  - Z: m x m column-major Float64Array, the identity on entry; every integer column operation on
 *    B is applied to Z too, so that on return B_in * Z = B (up to rounding) and Z is unimodular.
 * Throws IterationLimitError past p.maxIterations; never loops forever.
 */
export type CpuReducer = (B: RealArray, Z: Float64Array, n: number, m: number, p: AlgoParams) => BasisStats;

/** Options of `reduce()`; every one is optional and validated (InvalidArgumentError names the bad one). */
export interface ReduceOptions {
  /** Which algorithm; default 'lll'. */
  algorithm?: Algorithm;
  /** Lovasz parameter, in (0.25, 1); default 0.75 as in the papers. */
  delta?: number;
  /** Size-reduction bound |mu_ij| <= eta, in [0.5, sqrt(delta)); default 0.51. */
  eta?: number;
  /** Sub-basis size (columns) of `block` and `cr-block`, at least 2; default 8. */
  blockSize?: number;
  /** Working precision; default float64. A float32 run whose check fails is redone in float64. */
  precision?: Precision;
  /** Which engine; default 'auto'. 'cuda' with no device, or for an algorithm without a kernel, is an EngineUnavailableError. */
  engine?: Engine;
  /** Bound on the main loop of each basis (IterationLimitError past it); default max(10^6, 200 m^2). */
  maxIterations?: number;
  /** Re-check every output in float64 (LLL / Lagrange conditions, exact unimodularity). Default true. */
  check?: boolean;
  /** The drift watch of the all-swap and block reducers on the CPU engine (AlgoParams.driftWatch); default true. */
  driftWatch?: boolean;
  /** float32 arithmetic on the GPU's column-owner kernel (AlgoParams.float32Arithmetic); default 'double'. */
  float32Arithmetic?: 'double' | 'float32';
  /** Launch choices of the GPU kernels (AlgoParams.gpuTuning); validated, default none. */
  gpuTuning?: GpuTuning;
  /** The CPU engine's kernel for float64 bases (AlgoParams.cpuKernel; algorithms with a WebAssembly kernel: lll); default 'auto'. */
  cpuKernel?: CpuKernelRequest;
  /** Worker threads for batches on the CPU engine; default: all cores (1 for small batches). */
  threads?: number;
  /** Called with (basesDone, basesTotal) as a batch progresses: on the CPU as bases finish, on the GPU as chunks come back. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Arrays to write the results into (returned as the result's `basis.data` and `transform.data`),
   * for repeated calls on batches of one shape: basis batch x n x m of the input's kind, transform
   * batch x m x m. On pinned memory (hostBatch()) the GPU's copy engine writes them directly.
   */
  out?: {
    /** batch x n x m, the input's array kind. */
    basis?: RealArray;
    /** batch x m x m. */
    transform?: Float64Array;
    /**
     * 3 x batch: every basis' iterations, then its swaps, then its size reductions (stats.perBasis's
     * counts). Reused over calls, it spares a large batch of small bases the page faults of fresh memory.
     */
    counts?: Int32Array;
  };
}
