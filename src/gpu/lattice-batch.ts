/**
 * Runs a batched lattice-reduction kernel over a batch of bases: validation, module and launch
 * plan, chunking, staging through pinned memory with asynchronous copies, event timing, and the
 * per-basis status words turned into the same typed errors the CPU reducers throw (or, for a
 * float32 breakdown, into a basis for reduce() to redo in float64).
 *
 * Chunks and streams: a large batch is cut into chunks of at least one full wave of the device
 * (about eight chunks), spread over up to three streams (workspace.ts: PipelineLane), so that the
 * upload of one chunk and the download of another overlap the kernel of a third; a batch larger
 * than half the free device memory is cut into chunks that fit (and halved again on OUT_OF_MEMORY).
 *
 * Every lattice kernel of this package has the same arguments (Bin, Bout, Zout, scratch...,
 * stats, n, m, ...) and writes STATS_WIDTH ints per basis: [iterations, swaps, sizeReductions,
 * status, detail]. Most give each basis a thread block; the per-thread ones (LaunchPlan's
 * basesPerBlock) take the number of bases as their last argument.
 */
import {
  InvalidArgumentError,
  InvalidInputError,
  IterationLimitError,
  LatticeMimoError,
  RankDeficientError,
  UnsupportedError,
} from '../core/errors.js';
import type { AlgoParams } from '../lattice/types.js';
import { requireCuda, type CudaContext, type DeviceProperties } from './context.js';
import { check } from './driver.js';
import type { Kernel, ParamValue } from './launch.js';
import type { Stream } from './stream.js';
import { BatchWorkspace, type PipelineLane } from './workspace.js';

export const STATS_WIDTH = 5;
export const STATUS = {
  OK: 0, NON_FINITE: 1, ZERO_VECTOR: 2, ITERATION_LIMIT: 3, RANK_DEFICIENT: 4, PRECISION_FAILURE: 5, TRANSFORM_OVERFLOW: 6,
  /** A persistent kernel's wait (grid barrier, flag) passed its time limit: it gave up instead of hanging. */
  TIMEOUT: 7,
} as const;

export type RealArray = Float32Array | Float64Array;

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
   * many blocks as can be resident (grid-wide barriers need them all at once) reduces the chunk's
   * bases one after another; it takes the number of bases as its last argument, and its first
   * scratch buffer (control words) is zeroed before each launch. Chunks run on one stream.
   */
  persistent?: boolean;
  /**
   * A kernel launched before the main one on the same stream (the spec's preKernel), with
   * blocksPerBasis x bases blocks of `threads` threads and `sharedBytes` of dynamic shared memory,
   * arguments (Bin, scratch[scratchIndex], n, m): say, a product spread over the device that one
   * block per basis would compute slowly. Inside the timed region with the main kernel.
   */
  pre?: { blocksPerBasis: number; threads: number; sharedBytes: number; scratchIndex: number };
}

export interface LatticeKernelSpec {
  /** Name for messages ('jacobi-parallel', 'allswap'). */
  name: string;
  /** The kernel for this precision and plan (its variant and defines; compiled or cached). */
  kernel(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel;
  /** The kernel of plan.pre (same module), when the plan has one. */
  preKernel?(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel;
  /** `batch` lets a plan trade blocks per multiprocessor (large batches) for threads per basis (a few bases). */
  plan(n: number, m: number, precision: 'float32' | 'float64', p: AlgoParams, device: DeviceProperties, batch: number): LaunchPlan;
}

export interface CudaBatchStats {
  /** Per basis: the main loop's iterations (what each algorithm counts: sweeps, phases). */
  iterations: Int32Array;
  swaps: Int32Array;
  sizeReductions: Int32Array;
  /**
   * float32 runs: the bases that broke down in float32 (index to reason); their outputs are not
   * reduced, and reduce() redoes them in float64. Empty for float64 runs, which raise instead.
   */
  float32Failures: Map<number, string>;
  /** Device time of the kernels alone (CUDA events), summed over chunks. */
  kernelMs: number;
  /** Wall time of the whole call: staging, copies, kernels, results. */
  totalMs: number;
  /** How many chunks the batch was split into (more than 1 when it did not fit on the device, or to overlap copies with kernels). */
  chunks: number;
  /** Streams the chunks were spread over (copies of one chunk overlap the kernel of another). */
  streams: number;
  threadsPerBlock: number;
  sharedBytesPerBlock: number;
  /** Which kernel ran (the plan's variant). */
  variant: string;
}

export interface CudaBatchResult<A extends RealArray> {
  basis: A;
  Z: Float64Array;
  stats: CudaBatchStats;
}

/**
 * Arrays the caller gives for the outputs (filled and returned as `basis` and `Z`), for repeated
 * calls on batches of one shape. Fresh output arrays cost their first-touch page faults, which
 * dominate the engine call on large batches (bench/gpu-notes.md: about 0.7 ms per MiB on the
 * development machine; 68x64 float32 x 4096: 205 MB of outputs); arrays that were written before
 * cost a copy from the pinned staging buffer only.
 */
export interface CudaBatchOutputs<A extends RealArray> {
  /** batch x n x m, the precision of the input. */
  basis?: A;
  /** batch x m x m. */
  Z?: Float64Array;
}

/**
 * Tuning of the batch runner (tests and benchmarks set these; leave at 0 otherwise).
 * maxChunk: largest chunk of bases per launch (0: what memory and the pipeline decide);
 * streams: pipeline lanes (0: up to 3 when the batch has several chunks).
 */
export const latticeBatchTuning = { maxChunk: 0, streams: 0 };

/** One GPU batch at a time: the staging buffers and the streams are shared. */
let queue: Promise<unknown> = Promise.resolve();

export function runLatticeBatch<A extends RealArray>(
  spec: LatticeKernelSpec,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  const job = queue.then(() => runExclusive(spec, data, batch, n, m, params, out));
  queue = job.catch(() => undefined);
  return job;
}

/** Shapes and parameters of a batched lattice call (the engines' own entry check). */
export function validateLatticeBatch(data: RealArray, batch: number, n: number, m: number, params: AlgoParams): void {
  if (!(data instanceof Float32Array) && !(data instanceof Float64Array)) {
    throw new InvalidArgumentError('bases must be a Float32Array or a Float64Array');
  }
  for (const [what, v] of [['batch', batch], ['n', n], ['m', m]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new InvalidArgumentError(`${what} must be a positive integer, got ${v}`);
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
function outputArrays<A extends RealArray>(data: A, batch: number, n: number, m: number, out: CudaBatchOutputs<A> | undefined): { basis: A; Z: Float64Array } {
  const basis = out?.basis;
  if (basis !== undefined && (basis.constructor !== data.constructor || basis.length !== batch * n * m)) {
    throw new InvalidArgumentError(`out.basis must be a ${data.constructor.name} of batch x n x m = ${batch * n * m} elements, got a ${basis.constructor.name} of ${basis.length}`);
  }
  const Z = out?.Z;
  if (Z !== undefined && (!(Z instanceof Float64Array) || Z.length !== batch * m * m)) {
    throw new InvalidArgumentError(`out.Z must be a Float64Array of batch x m x m = ${batch * m * m} elements`);
  }
  // out.basis may be the input itself (reduced in place: a chunk's input is staged before its
  // outputs come back); otherwise no output may overlap the input or the other output
  const overlap = (a: RealArray, b: RealArray) => a.buffer === b.buffer
    && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
  if ((basis && basis !== data && overlap(basis, data)) || (Z && overlap(Z, data)) || (basis && Z && overlap(basis, Z))) {
    throw new InvalidArgumentError('the output arrays must not overlap the input or each other (out.basis may be the input itself)');
  }
  return {
    basis: basis ?? ((data instanceof Float32Array ? new Float32Array(batch * n * m) : new Float64Array(batch * n * m)) as A),
    Z: Z ?? new Float64Array(batch * m * m),
  };
}

/** A kernel with its launch plan for one (n, m, precision, batch): what a chunk needs to launch. */
export interface PreparedLattice {
  spec: LatticeKernelSpec;
  kernel: Kernel;
  /** plan.pre's kernel, when the plan has one. */
  preKernel: Kernel | null;
  plan: LaunchPlan;
  n: number;
  m: number;
  precision: 'float32' | 'float64';
  params: AlgoParams;
  layout: Layout;
  /** Bases one full wave of the device holds (resident blocks x bases per block): a chunk at least this large fills the GPU. */
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
  ctx: CudaContext, spec: LatticeKernelSpec, precision: 'float32' | 'float64', batch: number, n: number, m: number, params: AlgoParams,
): PreparedLattice {
  const planned = spec.plan(n, m, precision, params, ctx.props, batch);
  const kernel = spec.kernel(ctx, precision, planned);
  // the kernel's own limit (its register use) caps the block; the block kernels loop over their
  // work, so any size is correct (the per-thread kernels plan within the limit themselves)
  const limit = kernelThreadLimit(kernel);
  const plan: LaunchPlan = typeof planned.threads === 'number' && planned.threads > limit && !(planned.basesPerBlock! > 1)
    ? { ...planned, threads: limit } : planned;
  if (plan.sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(plan.sharedBytes);
  const preKernel = plan.pre && spec.preKernel ? spec.preKernel(ctx, precision, plan) : null;
  if (plan.pre && !preKernel) throw new UnsupportedError(`${spec.name}: the plan has a pre-kernel that the spec does not provide`);
  if (preKernel && plan.pre!.sharedBytes > 48 * 1024) preKernel.setMaxDynamicShared(plan.pre!.sharedBytes);
  const threads = typeof plan.threads === 'number' ? plan.threads : plan.threads[0] * plan.threads[1];
  const perSM = kernel.occupancy(threads, plan.sharedBytes);
  if (plan.persistent && perSM < 1) {
    throw new UnsupportedError(`${spec.name}: the ${plan.variant ?? 'persistent'} kernel does not fit on a multiprocessor (${threads} threads, ${plan.sharedBytes} bytes of shared memory)`);
  }
  const resident = Math.max(1, perSM) * ctx.props.multiprocessors;
  return {
    spec, kernel, preKernel, plan, n, m, precision, params,
    layout: bufferLayout(n, m, precision === 'float32' ? 4 : 8, plan),
    wave: plan.persistent ? 1 : resident * (plan.basesPerBlock ?? 1),
    grid: plan.persistent ? resident : 0,
  };
}

/** Enqueues the kernel on `stream` for `count` bases at the given device addresses (stats zeroed by the caller). */
export function enqueueLattice(p: PreparedLattice, stream: Stream, ptr: ChunkPointers, count: number): void {
  const persistent = p.plan.persistent === true;
  const per = p.plan.basesPerBlock ?? 1;
  if (persistent) {
    // the control words (barrier, stage slots) start at zero
    check(p.kernel.ctx.driver.cuMemsetD8Async(ptr.scratch[0]!, 0, count * p.plan.scratchBytesPerBasis[0]!, stream.handle), 'cuMemsetD8Async');
  }
  const pre = p.plan.pre;
  if (pre && p.preKernel) {
    p.preKernel.launch(
      { grid: pre.blocksPerBasis * count, block: pre.threads, sharedBytes: pre.sharedBytes, stream },
      [ptr.bin, ptr.scratch[pre.scratchIndex]!, p.n, p.m],
    );
  }
  p.kernel.launch(
    { grid: persistent ? p.grid : per > 1 ? Math.ceil(count / per) : count, block: p.plan.threads, sharedBytes: p.plan.sharedBytes, stream, cooperative: persistent },
    [ptr.bin, ptr.bout, ptr.zout, ...ptr.scratch, ptr.stats, p.n, p.m, ...p.plan.extraArgs, ...(persistent || per > 1 ? [count] : [])],
  );
}

/** Device bytes a chunk of `count` bases needs (inputs, outputs, scratch, stats). */
export function chunkDeviceBytes(p: PreparedLattice, count: number): number {
  return chunkLayout(p.layout, count).deviceTotal;
}

/** The device addresses of a chunk of `count` bases laid out from `base`. */
export function chunkPointers(p: PreparedLattice, base: bigint, count: number): ChunkPointers {
  const at = chunkLayout(p.layout, count);
  return { bin: base + BigInt(at.bin), bout: base + BigInt(at.bout), zout: base + BigInt(at.zout), scratch: at.scratch.map((o) => base + BigInt(o)), stats: base + BigInt(at.stats) };
}

/**
 * Chunk size and lane count for a batch: chunks of at least one full wave of the device, about
 * eight of them when the batch is large (so that copies of one overlap the kernel of another), on
 * up to three streams; no more than half the free device memory in all.
 */
function pipelineShape(p: PreparedLattice, batch: number, freeBytes: number): { chunk: number; lanes: number } {
  let chunk = Math.min(batch, Math.max(p.wave, Math.ceil(batch / 8)));
  if (latticeBatchTuning.maxChunk > 0) chunk = Math.min(chunk, latticeBatchTuning.maxChunk);
  const chunks = Math.ceil(batch / chunk);
  let lanes = latticeBatchTuning.streams > 0 ? latticeBatchTuning.streams : Math.min(BatchWorkspace.MAX_LANES, chunks);
  lanes = Math.max(1, Math.min(lanes, chunks));
  // a persistent kernel holds the whole device: cooperative launches on two streams would only queue
  if (p.plan.persistent) lanes = 1;
  const fit = Math.floor((0.5 * freeBytes) / lanes / p.layout.deviceBytesPerBasis);
  if (fit < chunk) chunk = Math.max(1, fit);
  return { chunk, lanes };
}

async function runExclusive<A extends RealArray>(
  spec: LatticeKernelSpec,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out: CudaBatchOutputs<A> | undefined,
): Promise<CudaBatchResult<A>> {
  const t0 = performance.now();
  validateLatticeBatch(data, batch, n, m, params);
  const { basis, Z } = outputArrays(data, batch, n, m, out);
  const ctx = requireCuda();
  ctx.makeCurrent();
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const p = prepareLattice(ctx, spec, precision, batch, n, m, params);
  const { layout } = p;

  const iterations = new Int32Array(batch), swaps = new Int32Array(batch), sizeReductions = new Int32Array(batch);
  const float32Failures = new Map<number, string>();

  const ws = BatchWorkspace.of(ctx);
  let { chunk, lanes: laneCount } = pipelineShape(p, batch, ctx.memInfo().freeBytes + ws.deviceBytes);
  let lanes: PipelineLane[];
  for (;;) {
    try {
      const at = chunkLayout(layout, chunk);
      lanes = ws.lanes(laneCount, at.hostTotal, at.deviceTotal);
      break;
    } catch (e) {
      if (e instanceof LatticeMimoError && e.code === 'OUT_OF_MEMORY' && (chunk > 1 || laneCount > 1)) {
        ws.release();  // does not fit: fewer lanes, then smaller chunks
        if (laneCount > 1) laneCount--; else chunk = Math.ceil(chunk / 2);
        continue;
      }
      throw e;
    }
  }

  let kernelMs = 0, chunks = 0;
  const pending: Array<{ lane: PipelineLane; first: number; count: number }> = [];
  // reads one finished chunk back into the outputs; raises the first bad basis' error
  const collect = async (job: { lane: PipelineLane; first: number; count: number }): Promise<void> => {
    const { lane, first, count } = job;
    await lane.stream.wait();
    lane.busy = false;
    kernelMs += lane.end.elapsedSince(lane.start);
    chunks++;
    const at = chunkLayout(layout, count);
    const inBytes = count * layout.inBytes;
    new Uint8Array(basis.buffer, basis.byteOffset + first * layout.inBytes, inBytes).set(lane.host.u8(at.hostBasis, inBytes));
    Z.set(lane.host.f64(at.hostZ, count * m * m), first * m * m);
    const st = lane.host.i32(at.hostStats, count * STATS_WIDTH);
    for (let b = 0, o = 0; b < count; b++, o += STATS_WIDTH) {
      settleStatus(spec.name, first + b, st.subarray(o, o + STATS_WIDTH), params, precision === 'float32' ? float32Failures : null);
      iterations[first + b] = st[o]!;
      swaps[first + b] = st[o + 1]!;
      sizeReductions[first + b] = st[o + 2]!;
    }
  };
  try {
    for (let first = 0, i = 0; first < batch; i++) {
      const count = Math.min(chunk, batch - first);
      const lane = lanes[i % lanes.length]!;
      // the lane's previous chunk must be read back before its staging buffer is reused
      const prev = pending.findIndex((j) => j.lane === lane);
      if (prev >= 0) await collect(pending.splice(prev, 1)[0]!);
      const at = chunkLayout(layout, count);
      const { dev, host, stream } = lane;
      const inBytes = count * layout.inBytes;
      host.u8(0, inBytes).set(new Uint8Array(data.buffer, data.byteOffset + first * layout.inBytes, inBytes));
      dev.uploadAsync(host, stream, inBytes, 0, at.bin);
      dev.fillRange(at.stats, count * layout.statsBytes, 0, stream);
      lane.start.record(stream);
      enqueueLattice(p, stream, chunkPointers(p, dev.ptr, count), count);
      lane.end.record(stream);
      // outputs come back into the same pinned buffer (the stream orders them after the upload)
      dev.downloadAsync(host, stream, inBytes, at.bout, at.hostBasis);
      dev.downloadAsync(host, stream, count * layout.zBytes, at.zout, at.hostZ);
      dev.downloadAsync(host, stream, count * layout.statsBytes, at.stats, at.hostStats);
      lane.busy = true;
      pending.push({ lane, first, count });
      first += count;
    }
    while (pending.length > 0) await collect(pending.shift()!);
  } finally {
    // on an error, let every lane finish before its buffers are reused
    for (const l of lanes) if (l.busy) { l.stream.synchronize(); l.busy = false; }
  }
  const threadsPerBlock = typeof p.plan.threads === 'number' ? p.plan.threads : p.plan.threads[0] * p.plan.threads[1];
  return {
    basis,
    Z,
    stats: {
      iterations, swaps, sizeReductions, float32Failures, kernelMs, totalMs: performance.now() - t0, chunks, streams: lanes.length,
      threadsPerBlock, sharedBytesPerBlock: p.plan.sharedBytes, variant: p.plan.variant ?? 'default',
    },
  };
}

const threadLimits = new WeakMap<Kernel, number>();
function kernelThreadLimit(kernel: Kernel): number {
  let v = threadLimits.get(kernel);
  if (v === undefined) {
    v = kernel.attributes().maxThreadsPerBlock;
    threadLimits.set(kernel, v);
  }
  return v;
}

/** Breakdowns of a float32 run that float64 may not have (as on the CPU engine): redone in float64 by reduce(). */
const FLOAT32_RETRYABLE: ReadonlySet<number> = new Set([STATUS.PRECISION_FAILURE, STATUS.RANK_DEFICIENT, STATUS.ITERATION_LIMIT, STATUS.TRANSFORM_OVERFLOW]);

/**
 * Settles one basis' status word: nothing for OK; for a float32 breakdown that float64 may not
 * have, when `float32Failures` is given, its message goes there (reduce() redoes that basis in
 * float64 on the CPU, and the rest of the batch stands); otherwise the typed error the CPU reducer
 * would have thrown.
 */
export function settleStatus(name: string, index: number, s: Int32Array, params: AlgoParams, float32Failures: Map<number, string> | null): void {
  const status = s[3]!;
  if (status === STATUS.OK) return;
  const err = statusError(name, index, s, params);
  if (float32Failures && FLOAT32_RETRYABLE.has(status)) {
    float32Failures.set(index, `${err.code}: ${err.message}`);
    return;
  }
  throw err;
}

/** The typed error the CPU reducer would have thrown for this basis. */
function statusError(name: string, index: number, s: Int32Array, params: AlgoParams): LatticeMimoError {
  const status = s[3]!;
  const detail = s[4]!;
  const where = `basis ${index} of the batch`;
  if (status === STATUS.NON_FINITE) {
    return new InvalidInputError('NON_FINITE', `${where}: basis vector ${detail} has non-finite entries or a non-finite norm (NaN/Inf or overflow)`, { basis: index, vector: detail });
  }
  if (status === STATUS.ZERO_VECTOR) {
    return new RankDeficientError('ZERO_VECTOR', `${where}: basis vector ${detail} is zero`, { basis: index, vector: detail });
  }
  if (status === STATUS.RANK_DEFICIENT) {
    return new RankDeficientError('RANK_DEFICIENT', `${where}: basis vector ${detail} is linearly dependent on the vectors before it (numerically)`, { basis: index, vector: detail });
  }
  if (status === STATUS.PRECISION_FAILURE) {
    return new LatticeMimoError('PRECISION_FAILURE', `${where}: Gram-Schmidt vector ${detail} vanished in float32 (redo in float64)`, { basis: index, vector: detail });
  }
  if (status === STATUS.ITERATION_LIMIT) {
    return new IterationLimitError(`${name}: ${where}: no convergence within maxIterations = ${params.maxIterations}`, {
      basis: index, iterations: s[0], swaps: s[1], sizeReductions: s[2],
    });
  }
  if (status === STATUS.TRANSFORM_OVERFLOW) {
    return new UnsupportedError(`${name}: ${where}: an entry of the unimodular transform Z reached 2^53: it cannot be held exactly in float64 (the basis is too ill-conditioned for this engine)`, { basis: index });
  }
  if (status === STATUS.TIMEOUT) {
    return new LatticeMimoError('KERNEL_TIMEOUT', `${name}: ${where}: a wait inside the kernel passed its time limit; the kernel gave up (a bug, or a device shared with other work)`, { basis: index });
  }
  return new UnsupportedError(`${name}: ${where}: the kernel reported an unknown status ${status}`, { basis: index, status });
}

export interface Layout {
  inBytes: number;
  zBytes: number;
  statsBytes: number;
  scratch: readonly number[];
  /** Scratch is allocated for whole blocks of this many bases. */
  basesPerBlock: number;
  deviceBytesPerBasis: number;
}

function bufferLayout(n: number, m: number, elt: number, plan: LaunchPlan): Layout {
  const inBytes = n * m * elt;
  const zBytes = m * m * 8;
  const statsBytes = STATS_WIDTH * 4;
  const scratchTotal = plan.scratchBytesPerBasis.reduce((a, b) => a + b, 0);
  return {
    inBytes, zBytes, statsBytes, scratch: plan.scratchBytesPerBasis, basesPerBlock: Math.max(1, plan.basesPerBlock ?? 1),
    deviceBytesPerBasis: 2 * inBytes + zBytes + statsBytes + scratchTotal,
  };
}

const align256 = (x: number): number => Math.ceil(x / 256) * 256;

/**
 * Byte offsets of one chunk of `count` bases: in the device arena (input, output, Z, scratch
 * buffers, stats, each 256-byte aligned) and in the pinned buffer (the basis, input then output;
 * Z; stats).
 */
function chunkLayout(layout: Layout, count: number) {
  let d = 0;
  const take = (bytes: number): number => { const o = d; d += align256(Math.max(bytes, 1)); return o; };
  const bin = take(count * layout.inBytes);
  const bout = take(count * layout.inBytes);
  const zout = take(count * layout.zBytes);
  const blocksOf = Math.ceil(count / layout.basesPerBlock) * layout.basesPerBlock;
  const scratch = layout.scratch.map((s) => take(s * blocksOf));
  const stats = take(count * layout.statsBytes);
  const hostZ = Math.ceil((count * layout.inBytes) / 8) * 8;
  const hostStats = hostZ + count * layout.zBytes;
  return { bin, bout, zout, scratch, stats, deviceTotal: d, hostBasis: 0, hostZ, hostStats, hostTotal: hostStats + count * layout.statsBytes };
}
