/**
 * A batch of bases through one lattice kernel on the GPU, on the domain-free batch runner
 * (src/gpu/batch-runner.ts): the kernel's launch plan, its buffers as runner records (the input
 * bases; the output bases and Z; the plan's scratch; STATS_WIDTH status words a basis), then the
 * product stage (apply-transform.cu: B_out = B_in Z as the CPU engine computes it), and the status
 * words read through the fallback policy: a breakdown it redoes is listed for reduce(), any other
 * is the CPU reducer's typed error.
 *
 * Every lattice kernel has the arguments (Bin, Bout, Zout, scratch..., stats, n, m, ...extraArgs);
 * most give each basis a thread block, the per-thread ones (LaunchPlan.basesPerBlock) take the
 * number of bases as their last argument.
 */
import {
  InvalidArgumentError,
  InvalidInputError,
  UnsupportedError,
  allocArray,
  allocLike,
  errorRecord,
  type ErrorRecord,
  type RealArray,
} from '../../core/index.js';
import {
  runBatch,
  requireCuda,
  type CudaContext,
  type DeviceProperties,
  check,
  type Kernel,
  type ParamValue,
  loadModule,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';
import { remedy } from '../fallback.js';
import { checkCountsArray } from '../validate.js';
import { ALGORITHM_REGISTRY } from '../registry.js';
import type { AlgoParams, Algorithm } from '../types.js';
import { STATS_WIDTH, STATUS, statusCode, statusError } from './status.js';

export { STATS_WIDTH, STATUS } from './status.js';
export type { RealArray } from '../../core/index.js';

/** What the kernel needs per basis and per launch, decided by the algorithm for (n, m, device). */
export interface LaunchPlan {
  /** Which of the algorithm's kernels runs (the spec's default when absent). */
  variant?: string;
  /** Extra -D defines of the kernel's module (a module specialised to the size, say). */
  defines?: Readonly<Record<string, number>>;
  threads: number | readonly [number, number];
  sharedBytes: number;
  /**
   * Bases per thread block: absent or 1 for the kernels that give each basis a block; L for the
   * kernels that give each basis one thread (L = threads). Those get the number of bases in the
   * launch as their last argument, and their scratch is allocated for whole blocks.
   */
  basesPerBlock?: number;
  /** Extra device scratch per basis, in bytes, one entry per scratch argument (0 = not used). */
  scratchBytesPerBasis: readonly number[];
  /** Arguments after (n, m), in the kernel's order: iteration limit, parameters, layout flags... */
  extraArgs: readonly ParamValue[];
  /**
   * A persistent kernel that spreads each basis over the whole device: one cooperative launch of as
   * many blocks as can be resident reduces the chunk's bases one after another; it takes the number
   * of bases as its last argument, and its first scratch buffer (control words) is zeroed before
   * each launch. Chunks run on one stream.
   */
  persistent?: boolean;
  /**
   * A kernel launched before the main one on the same stream (the spec's preKernel), with
   * blocksPerBasis x bases blocks of `threads` threads and `sharedBytes` of dynamic shared memory,
   * arguments (Bin, scratch[scratchIndex], n, m).
   */
  pre?: { blocksPerBasis: number; threads: number; sharedBytes: number; scratchIndex: number };
}

export interface LatticeKernelSpec {
  /** The algorithm (its registry entry's traits decide which breakdowns are redone). */
  name: Algorithm;
  /** The kernel for this precision and plan (its variant and defines; compiled or cached). */
  kernel(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel;
  /** The kernel of plan.pre (same module), when the plan has one. */
  preKernel?(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel;
  /** `batch` lets a plan trade blocks per multiprocessor (large batches) for threads per basis (a few bases). */
  plan(
    n: number,
    m: number,
    precision: 'float32' | 'float64',
    p: AlgoParams,
    device: DeviceProperties,
    batch: number,
  ): LaunchPlan;
}

/** Counts summed over a batch. */
export interface CountTotals {
  /** Main-loop iterations of every basis. */
  iterations: number;
  /** Swaps of every basis. */
  swaps: number;
  /** Size reductions of every basis. */
  sizeReductions: number;
}

export interface CudaBatchStats {
  /** Per basis: the main loop's iterations (what each algorithm counts: sweeps, phases). */
  iterations: Int32Array;
  swaps: Int32Array;
  sizeReductions: Int32Array;
  /** The counts summed over the batch, where the engine summed them as it read them. */
  totals?: CountTotals;
  /** float32 runs: bases that broke down (index to the error, as data); not reduced; reduce() redoes them in float64. */
  float32Failures: Map<number, ErrorRecord>;
  /**
   * float64 runs of a kernel without the CPU's drift watch (fallback.ts): bases that broke down
   * (index to the error, as data); not reduced; reduce() redoes them on the CPU engine.
   */
  gpuBreakdowns: Map<number, ErrorRecord>;
  /** Reduced bases whose product B_in Z may pass 2^53 (integral input): `basis` holds the kernel's own basis, reduce() computes the product exactly. */
  hostProduct: Set<number>;
  /** Whether `basis` is B_in Z computed as the CPU engine computes it (the product stage ran), rather than the kernel's own working basis. */
  basisIsProduct: boolean;
  /** Device time of the kernels (events), summed over chunks. */
  kernelMs: number;
  /** Wall time of the whole call: staging, copies, kernels, results. */
  totalMs: number;
  /** Chunks the batch was cut into (memory, or to overlap one chunk's copies with another's kernels). */
  chunks: number;
  /** Streams the chunks were spread over. */
  streams: number;
  threadsPerBlock: number;
  sharedBytesPerBlock: number;
  /** Which kernel ran (the plan's variant). */
  variant: string;
}

export interface CudaBatchResult<A extends RealArray> {
  /** batch x n x m, B_in Z in the input's precision (see stats for the bases left to reduce()). */
  basis: A;
  /** batch x m x m, the unimodular transforms. */
  Z: Float64Array;
  stats: CudaBatchStats;
}

/**
 * Arrays the caller gives for the outputs (filled and returned as `basis` and `Z`), for repeated
 * calls on batches of one shape; on pinned memory (allocPinned) they are written by the copy
 * engine directly. `basis` may be the input array itself (reduced in place).
 */
export interface CudaBatchOutputs<A extends RealArray> {
  /** batch x n x m, the precision of the input. */
  basis?: A;
  /** batch x m x m. */
  Z?: Float64Array;
  /** 3 x batch: every basis' iterations, then swaps, then size reductions (see countArrays). */
  counts?: Int32Array;
  /** Called with (bases come back, batch) as each chunk's results arrive (ReduceOptions.onProgress). */
  progress?: (done: number, total: number) => void;
}

/**
 * The per-basis count arrays (iterations, swaps, size reductions): views of the caller's 3 x batch
 * `counts`, or fresh. Reused, they spare a large batch of small bases the first-touch page faults
 * of fresh memory, which cost the host more than the counts' copy itself.
 */
export function countArrays(
  batch: number,
  counts: Int32Array | undefined,
): { iterations: Int32Array; swaps: Int32Array; sizeReductions: Int32Array } {
  const c = counts ?? allocArray(Int32Array, 3 * batch, `per-basis counts (3 x batch = 3 x ${batch})`);
  return {
    iterations: c.subarray(0, batch),
    swaps: c.subarray(batch, 2 * batch),
    sizeReductions: c.subarray(2 * batch, 3 * batch),
  };
}

/** Shapes and parameters of a batched lattice call (the engines' own entry check). */
export function validateLatticeBatch(data: RealArray, batch: number, n: number, m: number, params: AlgoParams): void {
  if (!(data instanceof Float32Array) && !(data instanceof Float64Array)) {
    throw new InvalidArgumentError('bases must be a Float32Array or a Float64Array');
  }
  for (const [what, v] of [
    ['batch', batch],
    ['n', n],
    ['m', m],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1)
      throw new InvalidArgumentError(`${what} must be a positive integer, got ${v}`);
  }
  if (m > n) throw new InvalidArgumentError(`need m <= n (columns no more than rows), got n = ${n}, m = ${m}`);
  if (data.length !== batch * n * m) {
    throw new InvalidInputError('SHAPE_MISMATCH', `data has ${data.length} elements, batch x n x m = ${batch * n * m}`);
  }
  if (!Number.isInteger(params.maxIterations) || params.maxIterations < 1) {
    throw new InvalidArgumentError(`maxIterations must be a positive integer, got ${params.maxIterations}`);
  }
}

/** The caller's output arrays, checked against the batch, or fresh ones. */
export function outputArrays<A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  out: CudaBatchOutputs<A> | undefined,
): { basis: A; Z: Float64Array } {
  const basis = out?.basis;
  if (basis !== undefined && (basis.constructor !== data.constructor || basis.length !== batch * n * m)) {
    throw new InvalidArgumentError(
      `out.basis must be a ${data.constructor.name} of batch x n x m = ${batch * n * m} elements, got a ${basis.constructor.name} of ${basis.length}`,
    );
  }
  const Z = out?.Z;
  if (Z !== undefined && (!(Z instanceof Float64Array) || Z.length !== batch * m * m)) {
    throw new InvalidArgumentError(`out.Z must be a Float64Array of batch x m x m = ${batch * m * m} elements`);
  }
  const counts = checkCountsArray(out?.counts, batch);
  const overlap = (a: ArrayBufferView, b: ArrayBufferView) =>
    a.buffer === b.buffer && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
  // every pair of distinct arrays (a basis written in place is the input itself)
  const arrays = [data, basis === data ? undefined : basis, Z, counts].filter((x) => x !== undefined);
  if (arrays.some((a, i) => arrays.some((b, j) => i < j && overlap(a, b)))) {
    throw new InvalidArgumentError(
      'the output arrays must not overlap the input or each other (out.basis may be the input itself)',
    );
  }
  return {
    basis: basis ?? allocLike(data, batch * n * m, `result bases (batch x n x m = ${batch} x ${n} x ${m})`),
    Z: Z ?? allocArray(Float64Array, batch * m * m, `transforms (batch x m x m = ${batch} x ${m} x ${m})`),
  };
}

/** A kernel with its launch plan for one (n, m, precision, batch): what a chunk needs to launch. */
export interface PreparedLattice {
  spec: LatticeKernelSpec;
  kernel: Kernel;
  preKernel: Kernel | null;
  plan: LaunchPlan;
  n: number;
  m: number;
  precision: 'float32' | 'float64';
  /** Bases one full wave of the device holds (resident blocks x bases per block). */
  wave: number;
  /** Blocks of each launch: the whole device for a persistent plan, else 0 (one per basis, or per basesPerBlock bases). */
  grid: number;
}

/** Device addresses of one chunk's buffers. */
export interface ChunkPointers {
  bin: bigint;
  bout: bigint;
  zout: bigint;
  scratch: readonly bigint[];
  stats: bigint;
}

/** Compiles (or finds) the kernel and decides the launch plan. */
export function prepareLattice(
  ctx: CudaContext,
  spec: LatticeKernelSpec,
  precision: 'float32' | 'float64',
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
): PreparedLattice {
  const planned = spec.plan(n, m, precision, params, ctx.props, batch);
  const kernel = spec.kernel(ctx, precision, planned);
  // the kernel's own limit (its register use) caps the block; the block kernels loop over their
  // work, so any size is correct (the per-thread kernels plan within the limit themselves)
  const limit = kernel.attributes().maxThreadsPerBlock;
  const plan: LaunchPlan =
    typeof planned.threads === 'number' && planned.threads > limit && !(planned.basesPerBlock! > 1)
      ? { ...planned, threads: limit }
      : planned;
  if (plan.sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(plan.sharedBytes);
  const preKernel = plan.pre && spec.preKernel ? spec.preKernel(ctx, precision, plan) : null;
  if (plan.pre && !preKernel)
    throw new UnsupportedError(`${spec.name}: the plan has a pre-kernel that the spec does not provide`);
  if (preKernel && plan.pre!.sharedBytes > 48 * 1024) preKernel.setMaxDynamicShared(plan.pre!.sharedBytes);
  const threads = typeof plan.threads === 'number' ? plan.threads : plan.threads[0] * plan.threads[1];
  const perSM = kernel.occupancy(threads, plan.sharedBytes);
  if (plan.persistent && perSM < 1) {
    throw new UnsupportedError(
      `${spec.name}: the ${plan.variant ?? 'persistent'} kernel does not fit on a multiprocessor (${threads} threads, ${plan.sharedBytes} bytes of shared memory)`,
    );
  }
  const resident = Math.max(1, perSM) * ctx.props.multiprocessors;
  return {
    spec,
    kernel,
    preKernel,
    plan,
    n,
    m,
    precision,
    wave: plan.persistent ? 1 : resident * (plan.basesPerBlock ?? 1),
    grid: plan.persistent ? resident : 0,
  };
}

/** Enqueues the reduction kernel(s) on `stream` for `count` bases (stats zeroed by the caller). */
export function enqueueLattice(p: PreparedLattice, stream: Stream, ptr: ChunkPointers, count: number): void {
  const persistent = p.plan.persistent === true;
  const per = p.plan.basesPerBlock ?? 1;
  if (persistent) {
    // the control words (barrier, stage slots) start at zero
    check(
      p.kernel.ctx.driver.cuMemsetD8Async(ptr.scratch[0]!, 0, count * p.plan.scratchBytesPerBasis[0]!, stream.handle),
      'cuMemsetD8Async',
    );
  }
  const pre = p.plan.pre;
  if (pre && p.preKernel) {
    p.preKernel.launch({ grid: pre.blocksPerBasis * count, block: pre.threads, sharedBytes: pre.sharedBytes, stream }, [
      ptr.bin,
      ptr.scratch[pre.scratchIndex]!,
      p.n,
      p.m,
    ]);
  }
  p.kernel.launch(
    {
      grid: persistent ? p.grid : per > 1 ? Math.ceil(count / per) : count,
      block: p.plan.threads,
      sharedBytes: p.plan.sharedBytes,
      stream,
      cooperative: persistent,
    },
    [
      ptr.bin,
      ptr.bout,
      ptr.zout,
      ...ptr.scratch,
      ptr.stats,
      p.n,
      p.m,
      ...p.plan.extraArgs,
      ...(persistent || per > 1 ? [count] : []),
    ],
  );
}

const align256 = (x: number): number => Math.ceil(x / 256) * 256;

/** One chunk's device arena laid out as the batch runner does (for measurements that launch by hand). */
function arenaLayout(p: PreparedLattice, count: number) {
  const elt = p.precision === 'float32' ? 4 : 8;
  let d = 0;
  const take = (bytes: number): number => {
    const o = d;
    d += align256(Math.max(bytes, 1));
    return o;
  };
  const per = Math.max(1, p.plan.basesPerBlock ?? 1);
  const bin = take(count * p.n * p.m * elt),
    bout = take(count * p.n * p.m * elt),
    zout = take(count * p.m * p.m * 8);
  const scratch = p.plan.scratchBytesPerBasis.map((s) => take(Math.ceil(count / per) * per * s));
  const stats = take(count * STATS_WIDTH * 4);
  return { bin, bout, zout, scratch, stats, total: d };
}

/** Device bytes a chunk of `count` bases needs (inputs, outputs, scratch, stats). */
export function chunkDeviceBytes(p: PreparedLattice, count: number): number {
  return arenaLayout(p, count).total;
}

/** The device addresses of a chunk of `count` bases laid out from `base`. */
export function chunkPointers(p: PreparedLattice, base: bigint, count: number): ChunkPointers {
  const at = arenaLayout(p, count);
  return {
    bin: base + BigInt(at.bin),
    bout: base + BigInt(at.bout),
    zout: base + BigInt(at.zout),
    scratch: at.scratch.map((o) => base + BigInt(o)),
    stats: base + BigInt(at.stats),
  };
}

/** The bases of a GPU run that reduce() finishes: see CudaBatchStats. */
export interface LeftOverBases {
  float32Failures: Map<number, ErrorRecord>;
  gpuBreakdowns: Map<number, ErrorRecord>;
  hostProduct: Set<number>;
}

export function emptyOutcome(): LeftOverBases {
  return { float32Failures: new Map(), gpuBreakdowns: new Map(), hostProduct: new Set() };
}

/**
 * Reads basis `index`'s status words (s: STATS_WIDTH of them) through the fallback policy: OK; a
 * product left to the host; a breakdown the policy redoes (listed in `outcome`); or the typed error
 * the CPU reducer would have thrown.
 */
/**
 * Copies a chunk's per-basis counts out of its status words; returns the chunk positions whose
 * status is not OK. A function of the module, not a closure of the call, so that it stays optimised
 * from one batch to the next (a closure made per call starts in the interpreter each time).
 */
function copyCounts(
  st: Int32Array,
  first: number,
  count: number,
  iterations: Int32Array,
  swaps: Int32Array,
  sizeReductions: Int32Array,
  totals: CountTotals,
): number[] {
  const notOk: number[] = [];
  let it = 0,
    sw = 0,
    sr = 0;
  for (let b = 0, o = 0; b < count; b++, o += STATS_WIDTH) {
    const k = first + b;
    const i = st[o]!,
      s = st[o + 1]!,
      r = st[o + 2]!;
    iterations[k] = i;
    swaps[k] = s;
    sizeReductions[k] = r;
    it += i;
    sw += s;
    sr += r;
    if (st[o + 3] !== STATUS.OK) notOk.push(b);
  }
  totals.iterations += it;
  totals.swaps += sw;
  totals.sizeReductions += sr;
  return notOk;
}

export function settleStatus(
  name: Algorithm,
  index: number,
  s: Int32Array,
  params: AlgoParams,
  precision: 'float32' | 'float64',
  outcome: LeftOverBases,
): void {
  const status = s[3]!;
  if (status === STATUS.OK) return;
  if (status === STATUS.HOST_PRODUCT) {
    outcome.hostProduct.add(index);
    return;
  }
  const err = statusError(name, index, s, params);
  const r = remedy(
    ALGORITHM_REGISTRY[name].traits,
    { engine: 'cuda', precision, driftWatch: params.driftWatch !== false },
    statusCode(status),
  );
  if (r === 'float64') outcome.float32Failures.set(index, errorRecord(err));
  else if (r === 'cpu') outcome.gpuBreakdowns.set(index, errorRecord(err));
  else throw err;
}

/**
 * The product stage: product-check.cu (one block a basis: whether float64 sums B_in Z exactly enough,
 * else the host does), then apply-transform.cu (small bases: a block a basis) or
 * apply-transform-tiled.cu (large ones: tiles of outputs over the device).
 */
function productStage(ctx: CudaContext, precision: 'float32' | 'float64', n: number, m: number) {
  const load = (file: string, name: string, params: readonly ('ptr' | 'i32')[]) =>
    loadModule(ctx, {
      source: readKernelSource(new URL(`./${file}`, import.meta.url)),
      name: `lattice/gpu/${file}`,
      defines: { REAL: precision === 'float32' ? 'float' : 'double' },
      options: ['-fmad=false'],
    }).kernel(name, params);
  const check = load('product-check.cu', 'product_check', ['ptr', 'ptr', 'ptr', 'i32', 'i32']);
  const checkThreads = n * m >= 1 << 16 ? 1024 : Math.min(256, Math.ceil((n * m) / 32) * 32);
  if (n * m > TILED_PRODUCT_ENTRIES) {
    // a large basis: 64 x 32 tiles of outputs over the device, k through shared memory
    const tiled = load('apply-transform-tiled.cu', 'apply_transform_tiled', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32']);
    const tiles = Math.ceil(n / 64) * Math.ceil(m / 32);
    return (stream: Stream, ptr: ChunkPointers, count: number): void => {
      check.launch({ grid: count, block: checkThreads, sharedBytes: 0, stream }, [ptr.bin, ptr.zout, ptr.stats, n, m]);
      tiled.launch({ grid: count * tiles, block: 256, sharedBytes: 0, stream }, [
        ptr.bin,
        ptr.zout,
        ptr.bout,
        ptr.stats,
        n,
        m,
      ]);
    };
  }
  const apply = load('apply-transform.cu', 'apply_transform', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32']);
  // about 1024 outputs a block: a small basis is one block
  const cols = Math.max(1, Math.min(m, Math.floor(1024 / n)));
  const tiles = Math.ceil(m / cols);
  const applyThreads = Math.min(256, Math.ceil((n * cols) / 32) * 32);
  return (stream: Stream, ptr: ChunkPointers, count: number): void => {
    check.launch({ grid: count, block: checkThreads, sharedBytes: 0, stream }, [ptr.bin, ptr.zout, ptr.stats, n, m]);
    apply.launch({ grid: count * tiles, block: applyThreads, sharedBytes: 0, stream }, [
      ptr.bin,
      ptr.zout,
      ptr.bout,
      ptr.stats,
      n,
      m,
      cols,
    ]);
  };
}

/** Bases of more entries than this take the tiled product (apply-transform-tiled.cu): each column's tile would re-read all of B_in. */
const TILED_PRODUCT_ENTRIES = 1 << 14;

/**
 * Reduces a batch through `spec`'s kernel: the outputs in `out` (or fresh arrays), per-basis counts,
 * and the bases the fallback policy leaves to reduce(). Throws the first basis' typed error that the
 * policy does not redo, and EngineUnavailableError without a device.
 */
export async function runLatticeBatch<A extends RealArray>(
  spec: LatticeKernelSpec,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  const t0 = performance.now();
  validateLatticeBatch(data, batch, n, m, params);
  const { basis, Z } = outputArrays(data, batch, n, m, out);
  const ctx = requireCuda();
  ctx.makeCurrent();
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const elt = precision === 'float32' ? 4 : 8;
  const p = prepareLattice(ctx, spec, precision, batch, n, m, params);
  const product = productStage(ctx, precision, n, m);

  const { iterations, swaps, sizeReductions } = countArrays(batch, out?.counts);
  const totals: CountTotals = { iterations: 0, swaps: 0, sizeReductions: 0 };
  const outcome = emptyOutcome();
  const { float32Failures, gpuBreakdowns, hostProduct } = outcome;
  const persistent = p.plan.persistent === true;
  const per = Math.max(1, p.plan.basesPerBlock ?? 1);
  let settled = 0;
  const stats = await runBatch(ctx, {
    name: spec.name,
    items: batch,
    inputs: [{ array: data, bytesPerItem: n * m * elt }],
    outputs: [
      { array: basis, bytesPerItem: n * m * elt },
      { array: Z, bytesPerItem: m * m * 8 },
    ],
    scratch: p.plan.scratchBytesPerBasis.map((bytes) => ({ bytesPerItem: bytes, itemsPerGroup: per })),
    statusWords: STATS_WIDTH,
    exclusive: persistent,
    // a basis's reduction takes from a few to many sweeps: each chunk ends in a tail
    unevenItems: true,
    options: params.gpuTuning?.batch,
    enqueue(stream, c) {
      const ptr: ChunkPointers = {
        bin: c.inputs[0]!,
        bout: c.outputs[0]!,
        zout: c.outputs[1]!,
        scratch: c.scratch,
        stats: c.status,
      };
      enqueueLattice(p, stream, ptr, c.count);
      product(stream, ptr, c.count);
    },
    settle(first, count, st) {
      for (const b of copyCounts(st, first, count, iterations, swaps, sizeReductions, totals)) {
        settleStatus(
          spec.name,
          first + b,
          st.subarray(b * STATS_WIDTH, (b + 1) * STATS_WIDTH),
          params,
          precision,
          outcome,
        );
      }
      settled += count;
      out?.progress?.(settled, batch);
    },
  });
  const threadsPerBlock = typeof p.plan.threads === 'number' ? p.plan.threads : p.plan.threads[0] * p.plan.threads[1];
  return {
    basis,
    Z,
    stats: {
      iterations,
      swaps,
      sizeReductions,
      totals,
      float32Failures,
      gpuBreakdowns,
      hostProduct,
      basisIsProduct: true,
      kernelMs: stats.kernelMs,
      totalMs: performance.now() - t0,
      chunks: stats.chunks,
      streams: stats.streams,
      threadsPerBlock,
      sharedBytesPerBlock: p.plan.sharedBytes,
      variant: p.plan.variant ?? 'default',
    },
  };
}
