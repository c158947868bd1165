/**
 * Validation of reduce() inputs and options: every problem gets a typed error naming it. The options
 * are declared once, as REDUCE_SCHEMA (each key's check, doc line and command-line flag); what an
 * algorithm reads is in its registry traits, and an option given to an algorithm, precision or
 * engine that would ignore it is refused, naming why.
 */
import {
  allocLike,
  boolean,
  callback,
  checkOptions,
  choice,
  either,
  inapplicable,
  instanceOf,
  integer,
  InvalidArgumentError,
  InvalidInputError,
  matrixAt,
  number,
  object,
  option,
  RankDeficientError,
  type MatrixBatch,
  type OptionsOf,
  type SameKeys,
  assertFinite,
  CPU_KERNEL_REQUESTS,
} from '../core/index.js';
import { ENGINE_REQUESTS } from '../gpu/index.js';
import { gramSchmidt, isIntegral } from './check.js';
import { provablyFullRank } from './exact-rank.js';
import { GPU_TUNING_SCHEMA, type GpuTuning, type TuningGroup } from './gpu-tuning.js';
import { ALGORITHM_REGISTRY, algorithmsReading, WASM_ALGORITHMS, type AlgorithmParam } from './registry.js';
import { ALGORITHMS, type AlgoParams, type Algorithm, type Engine, type ReduceOptions } from './types.js';

export const DEFAULTS = { algorithm: 'lll' as Algorithm, delta: 0.75, eta: 0.51, blockSize: 8 };

/** Worker threads a CPU batch may ask for. */
export const MAX_THREADS = 256;

/** Loop bound used when the caller gives none: generous, but a bound. */
export function defaultMaxIterations(m: number): number {
  return Math.max(1_000_000, 200 * m * m);
}

/** ReduceOptions.out: the arrays a call writes its results into. */
const OUT_SCHEMA = {
  basis: option(
    either(instanceOf(Float32Array), instanceOf(Float64Array), 'a Float32Array or a Float64Array'),
    "batch x n x m, the input's array kind: the reduced bases",
  ),
  transform: option(instanceOf(Float64Array), 'batch x m x m: the transforms Z'),
  counts: option(
    instanceOf(Int32Array),
    "3 x batch: every basis' iterations, then its swaps, then its size reductions",
  ),
};

/** Every option of reduce() and reduceSync(): its check, its doc line, its default and its flag. */
export const REDUCE_SCHEMA = {
  algorithm: option(choice(ALGORITHMS), 'the reduction algorithm', {
    default: DEFAULTS.algorithm,
    cli: { flag: 'algorithm', metavar: 'A' },
  }),
  delta: option(number({ min: 0.25, max: 1, minOpen: true, maxOpen: true }), 'the Lovasz parameter', {
    default: DEFAULTS.delta,
    cli: { flag: 'delta', metavar: 'D' },
  }),
  eta: option(
    number({ min: 0.5, max: 1, maxOpen: true }),
    'the size-reduction bound |mu_ij| <= eta, below sqrt(delta)',
    {
      default: DEFAULTS.eta,
      cli: { flag: 'eta', metavar: 'E' },
    },
  ),
  blockSize: option(integer(2), 'the sub-basis size (columns) of the block algorithms', {
    default: DEFAULTS.blockSize,
    cli: { flag: 'block-size', metavar: 'B' },
  }),
  precision: option(
    choice(['float32', 'float64'] as const),
    'the working precision (a float32 result that fails its float64 check is redone in float64)',
    { default: 'float64', cli: { flag: 'precision', metavar: 'P' } },
  ),
  engine: option(choice(ENGINE_REQUESTS), "the engine: 'cuda' with no device or no kernel is an error", {
    default: 'auto',
    cli: { flag: 'engine', metavar: 'E' },
  }),
  maxIterations: option(integer(1), "the bound on each basis' main loop (an IterationLimitError past it)", {
    cli: { flag: 'max-iterations', metavar: 'N' },
  }),
  check: option(boolean(), 're-check every output in float64 and prove Z unimodular', { default: true }),
  driftWatch: option(boolean(), "the CPU reducers' drift watch (recompute B* where its updates drifted)", {
    default: true,
  }),
  float32Arithmetic: option(
    choice(['double', 'float32'] as const),
    "float32 bases on the GPU's column-owner all-swap kernel: every operation in double, or in float32",
    { default: 'double', cli: { flag: 'float32-arithmetic', metavar: 'A' } },
  ),
  gpuTuning: option(object(GPU_TUNING_SCHEMA), 'launch choices of the GPU kernels and of the batch runner'),
  cpuKernel: option(
    choice(CPU_KERNEL_REQUESTS),
    "the CPU engine's kernel for float64 bases: auto (WebAssembly SIMD where the runtime has it), wasm (it or ENGINE_UNAVAILABLE) or typescript (the reference); the same results",
    { default: 'auto', cli: { flag: 'cpu-kernel', metavar: 'auto|wasm|typescript' } },
  ),
  threads: option(integer(1, MAX_THREADS), 'worker threads for a batch on the CPU engine (default: all cores)'),
  onProgress: option(
    callback<(done: number, total: number) => void>(),
    'called with (bases done, bases in all) as a batch progresses',
  ),
  out: option(object(OUT_SCHEMA), 'arrays to write the results into (repeated calls of one shape)'),
};

// the interface and the schema name the same keys
const _sameKeys: SameKeys<ReduceOptions, typeof REDUCE_SCHEMA> = true;
void _sameKeys;

/** The checked options of a call (OptionsOf the schema). */
export type CheckedReduceOptions = OptionsOf<typeof REDUCE_SCHEMA>;

export interface ResolvedOptions extends AlgoParams {
  algorithm: Algorithm;
  engine: Engine;
  precision: 'float32' | 'float64';
  check: boolean;
}

/** What the call is: reduceSync() runs the CPU engine in the calling thread. */
export interface ReduceCall {
  /** For messages: 'reduce()', 'reduceSync()', 'lllIntegral()'. */
  readonly name: string;
  /** The call runs the CPU engine in the calling thread (no GPU, no workers). */
  readonly sync?: boolean;
}

/**
 * The options of a call checked against REDUCE_SCHEMA (unknown keys, wrong types, ranges), then
 * against the algorithm's traits, precision and engine (an option none of them reads is refused,
 * naming why), with the defaults filled in.
 */
export function resolveOptions(opts: unknown, m: number, call: ReduceCall = { name: 'reduce()' }): ResolvedOptions {
  const o = checkOptions(opts, REDUCE_SCHEMA, call.name);
  const algorithm = o.algorithm ?? DEFAULTS.algorithm;
  const precision = o.precision ?? 'float64';
  if (call.sync && o.threads !== undefined)
    throw inapplicable(call.name, 'threads', `${call.name} runs in the calling thread; reduce() takes threads`);
  const cpuOnly = call.sync ? `${call.name} runs the CPU engine` : o.engine === 'cpu' ? "the engine is 'cpu'" : null;
  refuseInapplicable(o, call.name, algorithm, precision, cpuOnly, o.engine);
  return {
    ...algoParams(o, m, call.name),
    algorithm,
    engine: o.engine ?? 'auto',
    precision,
    check: o.check ?? true,
  };
}

/** The parameters every algorithm sees, defaults filled in; eta checked against delta. */
function algoParams(o: Partial<CheckedReduceOptions>, m: number, call: string): AlgoParams {
  const delta = o.delta ?? DEFAULTS.delta;
  const eta = o.eta ?? DEFAULTS.eta;
  if (!(eta < Math.sqrt(delta))) {
    throw new InvalidArgumentError(
      `${call} option eta must be in [0.5, sqrt(delta)) = [0.5, ${Math.sqrt(delta).toFixed(6)}), got ${eta}`,
      { option: 'eta', value: eta },
    );
  }
  return {
    delta,
    eta,
    blockSize: o.blockSize ?? DEFAULTS.blockSize,
    maxIterations: o.maxIterations ?? defaultMaxIterations(m),
    driftWatch: o.driftWatch ?? true,
    float32Arithmetic: o.float32Arithmetic ?? 'double',
    ...(o.cpuKernel ? { cpuKernel: o.cpuKernel } : {}),
    ...(o.gpuTuning ? { gpuTuning: o.gpuTuning as GpuTuning } : {}),
  };
}

/** The options of the GPU engine calls (allswapBatchCuda, jacobiParallelBatchCuda): reduce()'s that reach a kernel. */
export const ENGINE_CALL_SCHEMA = {
  delta: REDUCE_SCHEMA.delta,
  eta: REDUCE_SCHEMA.eta,
  blockSize: REDUCE_SCHEMA.blockSize,
  maxIterations: REDUCE_SCHEMA.maxIterations,
  float32Arithmetic: REDUCE_SCHEMA.float32Arithmetic,
  gpuTuning: REDUCE_SCHEMA.gpuTuning,
};

/** The parameters of a GPU engine call (reduce()'s that reach a kernel); each absent one takes reduce()'s default. */
export interface EngineCallParams {
  /** Lovasz parameter, in (0.25, 1); default 0.75 (allswap). */
  delta?: number;
  /** Size-reduction bound, in [0.5, sqrt(delta)); default 0.51 (allswap). */
  eta?: number;
  /** Sub-basis size (the block algorithms). */
  blockSize?: number;
  /** Bound on each basis' main loop; default max(10^6, 200 m^2). */
  maxIterations?: number;
  /** float32 data on the column-owner all-swap kernel: 'double' (default) or 'float32' arithmetic. */
  float32Arithmetic?: 'double' | 'float32';
  /** Launch choices: the algorithm's own group and the batch runner's. */
  gpuTuning?: GpuTuning;
}

// the interface and the schema name the same keys
const _sameEngineKeys: SameKeys<EngineCallParams, typeof ENGINE_CALL_SCHEMA> = true;
void _sameEngineKeys;

/**
 * A GPU engine call's parameters checked as reduce()'s are (ENGINE_CALL_SCHEMA, then the
 * algorithm's traits and the data's precision), defaults filled in.
 */
export function resolveEngineCall(
  algorithm: Algorithm,
  params: unknown,
  data: unknown,
  m: number,
  call: string,
): AlgoParams {
  const o = checkOptions(params, ENGINE_CALL_SCHEMA, call);
  refuseInapplicable(o, call, algorithm, data instanceof Float32Array ? 'float32' : 'float64', null);
  return algoParams(o, Number.isSafeInteger(m) && m > 0 ? m : 1, call);
}

/** Options none of the call's algorithm, precision and engine reads: refused, saying why. */
function refuseInapplicable(
  o: Partial<CheckedReduceOptions>,
  call: string,
  algorithm: Algorithm,
  precision: 'float32' | 'float64',
  cpuOnly: string | null,
  engineAsked?: string,
): void {
  const entry = ALGORITHM_REGISTRY[algorithm];
  const traits = entry.traits;
  const readBy = (p: AlgorithmParam) => {
    const users = algorithmsReading(p);
    return `${p} (${REDUCE_SCHEMA[p].doc}) is read by ${users.join(', ')} only; the algorithm is ${algorithm}`;
  };
  for (const p of ['delta', 'eta', 'blockSize', 'float32Arithmetic'] as const) {
    if (o[p] !== undefined && !traits.params.includes(p)) throw inapplicable(call, p, readBy(p));
  }
  if (o.driftWatch !== undefined && !traits.cpuDriftWatch) {
    const users = ALGORITHMS.filter((a) => ALGORITHM_REGISTRY[a].traits.cpuDriftWatch);
    throw inapplicable(
      call,
      'driftWatch',
      `the drift watch is ${users.join(', ')}'s on the CPU engine, and the algorithm is ${algorithm}`,
    );
  }
  if (o.float32Arithmetic !== undefined) {
    if (precision !== 'float32')
      throw inapplicable(call, 'float32Arithmetic', "it is for float32 bases, and the precision is 'float64'");
    if (cpuOnly)
      throw inapplicable(
        call,
        'float32Arithmetic',
        `it is the GPU kernel's (the CPU computes in double), and ${cpuOnly}`,
      );
  }
  if (o.cpuKernel !== undefined && o.cpuKernel !== 'auto') {
    if (!entry.cpuWasm)
      throw inapplicable(
        call,
        'cpuKernel',
        `${algorithm} runs TypeScript only on the CPU (algorithms with a WebAssembly kernel: ${WASM_ALGORITHMS.join(', ')})`,
      );
    if (precision !== 'float64')
      throw inapplicable(
        call,
        'cpuKernel',
        "the WebAssembly kernel reduces float64 bases, and the precision is 'float32'",
      );
    if (engineAsked === 'cuda')
      throw inapplicable(call, 'cpuKernel', "it chooses the CPU engine's kernel, and the engine is 'cuda'");
  }
  if (o.gpuTuning !== undefined) {
    if (entry.cuda === undefined) throw inapplicable(call, 'gpuTuning', `${algorithm} has no GPU kernel`);
    if (cpuOnly) throw inapplicable(call, 'gpuTuning', `it tunes the GPU kernels, and ${cpuOnly}`);
    for (const group of Object.keys(o.gpuTuning) as (keyof GpuTuning)[]) {
      if (group === 'batch' || traits.gpuTuning.includes(group as TuningGroup)) continue;
      const users = ALGORITHMS.filter((a) => ALGORITHM_REGISTRY[a].traits.gpuTuning.includes(group as TuningGroup));
      throw inapplicable(
        call,
        `gpuTuning.${group}`,
        `it tunes the kernels of ${users.join(', ')}, and the algorithm is ${algorithm}`,
      );
    }
  }
}

/** Magnitudes past which a basis is rescaled (UNIT_SCALE_LIMIT and its inverse): squared norms and Gram-Schmidt would leave float64's range. */
const UNIT_SCALE_LIMIT = 2 ** 128;

/**
 * Lattice reduction is scale-invariant (Z does not change when every entry is multiplied by one
 * number), so a basis whose largest entry is beyond 2^128 or below 2^-128 is scaled by a power of
 * two (exact) to a largest entry in [1, 2): then [[1e-200 0][0 1e-200]] is not "dependent" because
 * its squared norms underflow. Returns null when no basis of the batch needs it; otherwise the
 * scaled batch and the inverse scaling for the output (same array kind, batch x n x m).
 */
export function unitScale(b: MatrixBatch): { scaled: MatrixBatch; unscale: (out: MatrixBatch) => MatrixBatch } | null {
  const size = b.rows * b.cols;
  const factors: number[] = [];
  let any = false;
  for (let k = 0; k < b.batch; k++) {
    let big = 0;
    for (let i = k * size; i < (k + 1) * size; i++) big = Math.max(big, Math.abs(b.data[i]!));
    const e = big > 0 && (big > UNIT_SCALE_LIMIT || big < 1 / UNIT_SCALE_LIMIT) ? -Math.floor(Math.log2(big)) : 0;
    factors.push(e);
    if (e !== 0) any = true;
  }
  if (!any) return null;
  // 2^e in two halves: 2^e alone can overflow for e near +-1074 (subnormal inputs)
  const mul = (data: MatrixBatch['data'], sign: number) => {
    const out = allocLike(data, data.length, 'the bases scaled by powers of two');
    out.set(data);
    for (let k = 0; k < b.batch; k++) {
      const e = sign * factors[k]!,
        h = Math.trunc(e / 2),
        f1 = 2 ** h,
        f2 = 2 ** (e - h);
      for (let i = k * size; i < (k + 1) * size; i++) out[i] = out[i]! * f1 * f2;
    }
    return out;
  };
  return {
    scaled: { ...b, data: mul(b.data, 1) },
    unscale: (out) => ({ ...out, data: mul(out.data, -1) }),
  };
}

/** The batch's shape: its array kind, positive sizes, m <= n, and the data's length. */
export function validateShape(b: MatrixBatch): void {
  if (!b || typeof b !== 'object' || !(b.data instanceof Float64Array || b.data instanceof Float32Array)) {
    throw new InvalidInputError(
      'INVALID_INPUT',
      'bases must be {batch, rows, cols, data: Float64Array | Float32Array}',
    );
  }
  for (const [k, v] of [
    ['batch', b.batch],
    ['rows', b.rows],
    ['cols', b.cols],
  ] as const) {
    if (!Number.isInteger(v) || v < 1)
      throw new InvalidInputError('INVALID_INPUT', `${k} must be a positive integer, got ${v} (empty input?)`);
  }
  const { batch, rows: n, cols: m } = b;
  if (m > n)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `a basis has m = ${m} vectors in dimension n = ${n}: m vectors in R^n are dependent when m > n`,
    );
  if (b.data.length !== batch * n * m) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `data has ${b.data.length} elements, batch x n x m = ${batch} x ${n} x ${m} = ${batch * n * m}`,
    );
  }
}

/** Shape, finiteness and no zero vector in any basis of the batch. */
export function validateBases(b: MatrixBatch): void {
  validateShape(b);
  const { batch, rows: n, cols: m } = b;
  assertFinite(b.data, 'basis data');
  for (let k = 0; k < batch; k++) assertNoZeroVector(matrixAt(b, k), n, m, batch > 1 ? `basis ${k}: ` : '');
}

/**
 * Zero vectors are caught up front (O(nm)). Linear dependence costs a Gram-Schmidt (as much as an
 * LLL of an easy basis), so it is diagnosed only when a reduction breaks down or its output has a
 * zero vector: see reduce.ts, which then calls assertIndependent.
 */
export function assertNoZeroVector(B: ArrayLike<number>, n: number, m: number, prefix = ''): void {
  const j = firstZeroColumn(B, n, m);
  if (j >= 0) throw new RankDeficientError('ZERO_VECTOR', `${prefix}basis vector ${j} is zero`, { vector: j });
}

/** Index of the first all-zero column, or -1. */
export function firstZeroColumn(B: ArrayLike<number>, n: number, m: number): number {
  for (let j = 0; j < m; j++) {
    let zero = true;
    for (let t = 0; t < n && zero; t++) if (B[j * n + t] !== 0) zero = false;
    if (zero) return j;
  }
  return -1;
}

/**
 * The float64 independence test: index of the first column whose Gram-Schmidt residual is not far
 * above rounding (||b*_j||^2 <= relative ||b_j||^2; default 1e-24, i.e. 1e-12 in norm), or -1.
 * `r` are the squared Gram-Schmidt norms (gramSchmidt(B).r).
 */
export function firstDependentColumn(
  B: ArrayLike<number>,
  n: number,
  m: number,
  r: Float64Array,
  relative = 1e-24,
): number {
  for (let j = 0; j < m; j++) {
    let s = 0;
    for (let t = 0; t < n; t++) s += B[j * n + t]! * B[j * n + t]!;
    if (!(r[j]! > relative * s)) return j;
  }
  return -1;
}

/**
 * Rejects zero vectors and dependent ones. Float64 Gram-Schmidt decides for real bases; an integer
 * basis that it flags is tested exactly (rank modulo primes), so badly conditioned but independent
 * integer bases are accepted.
 */
export function assertIndependent(B: ArrayLike<number>, n: number, m: number, prefix = ''): void {
  assertNoZeroVector(B, n, m, prefix);
  const { r } = gramSchmidt(B, n, m);
  const j = firstDependentColumn(B, n, m, r);
  if (j < 0) return;
  const integral = isIntegral(B);
  if (integral && provablyFullRank(B, n, m)) return;
  let s = 0;
  for (let t = 0; t < n; t++) s += B[j * n + t]! * B[j * n + t]!;
  const ratio = Math.sqrt(Math.max(0, r[j]!) / s);
  throw new RankDeficientError(
    'RANK_DEFICIENT',
    `${prefix}basis vector ${j} is linearly dependent on the vectors before it (Gram-Schmidt residual ${ratio.toExponential(2)} of its length${integral ? ', confirmed exactly' : ', below float64 resolution'})`,
    { vector: j, residual: ratio },
  );
}

/** The caller's out.counts for a batch: absent, or an Int32Array of 3 x batch (iterations, swaps, size reductions). */
export function checkCountsArray(counts: unknown, batch: number): Int32Array | undefined {
  if (counts !== undefined && (!(counts instanceof Int32Array) || counts.length !== 3 * batch)) {
    throw new InvalidArgumentError(`out.counts must be an Int32Array of 3 x batch = ${3 * batch} elements`);
  }
  return counts;
}
