/**
 * Runs a batched lattice-reduction kernel over a batch of bases: validation, module and launch
 * plan, chunking (a chunk that does not fit in device memory is halved until it does), staging
 * through pinned memory with asynchronous copies on one stream (workspace.ts), event timing, and
 * the per-basis status words turned into the same typed errors the CPU reducers throw.
 *
 * Every lattice kernel of this package has the same shape: one thread block per basis, arguments
 * (Bin, Bout, Zout, scratch..., stats, n, m, ...), and STATS_WIDTH ints per basis:
 * [iterations, swaps, sizeReductions, status, detail].
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
import type { Kernel, ParamValue } from './launch.js';
import { BatchWorkspace } from './workspace.js';

export const STATS_WIDTH = 5;
export const STATUS = {
  OK: 0, NON_FINITE: 1, ZERO_VECTOR: 2, ITERATION_LIMIT: 3, RANK_DEFICIENT: 4, PRECISION_FAILURE: 5, TRANSFORM_OVERFLOW: 6,
} as const;

export type RealArray = Float32Array | Float64Array;

/** What the kernel needs per basis and per launch, decided by the algorithm for (n, m, device). */
export interface LaunchPlan {
  threads: number | readonly [number, number];
  sharedBytes: number;
  /** Extra device scratch per basis, in bytes, one entry per scratch argument (0 = not used). */
  scratchBytesPerBasis: readonly number[];
  /** Arguments after (n, m), in the kernel's order: iteration limit, parameters, layout flags... */
  extraArgs: readonly ParamValue[];
}

export interface LatticeKernelSpec {
  /** Name for messages ('jacobi-parallel', 'allswap'). */
  name: string;
  /** The kernel for this precision (compiled or cached). */
  kernel(ctx: CudaContext, precision: 'float32' | 'float64'): Kernel;
  /** `batch` lets a plan trade blocks per multiprocessor (large batches) for threads per basis (a few bases). */
  plan(n: number, m: number, precision: 'float32' | 'float64', p: AlgoParams, device: DeviceProperties, batch: number): LaunchPlan;
}

export interface CudaBatchStats {
  /** Per basis: the main loop's iterations (what each algorithm counts: sweeps, phases). */
  iterations: Int32Array;
  swaps: Int32Array;
  sizeReductions: Int32Array;
  /** Device time of the kernels alone (CUDA events), summed over chunks. */
  kernelMs: number;
  /** Wall time of the whole call: staging, copies, kernels, results. */
  totalMs: number;
  /** How many chunks the batch was split into (more than 1 when it did not fit on the device). */
  chunks: number;
  threadsPerBlock: number;
  sharedBytesPerBlock: number;
}

export interface CudaBatchResult<A extends RealArray> {
  basis: A;
  Z: Float64Array;
  stats: CudaBatchStats;
}

/** Largest chunk of bases per launch (0: as many as half the free device memory holds); tests lower it to exercise chunking. */
export const latticeBatchTuning = { maxChunk: 0 };

/** One GPU batch at a time: the staging buffers and the stream are shared. */
let queue: Promise<unknown> = Promise.resolve();

export function runLatticeBatch<A extends RealArray>(
  spec: LatticeKernelSpec,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
): Promise<CudaBatchResult<A>> {
  const job = queue.then(() => runExclusive(spec, data, batch, n, m, params));
  queue = job.catch(() => undefined);
  return job;
}

function validate(data: RealArray, batch: number, n: number, m: number, params: AlgoParams): void {
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

async function runExclusive<A extends RealArray>(
  spec: LatticeKernelSpec,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
): Promise<CudaBatchResult<A>> {
  const t0 = performance.now();
  validate(data, batch, n, m, params);
  const ctx = requireCuda();
  ctx.makeCurrent();
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const elt = data.BYTES_PER_ELEMENT;
  const kernel = spec.kernel(ctx, precision);
  const planned = spec.plan(n, m, precision, params, ctx.props, batch);
  // the kernel's own limit (its register use) caps the block; the kernels loop over their work, so any size is correct
  const limit = kernelThreadLimit(kernel);
  const plan: LaunchPlan = typeof planned.threads === 'number' && planned.threads > limit ? { ...planned, threads: limit } : planned;
  if (plan.sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(plan.sharedBytes);

  const basis = (precision === 'float32' ? new Float32Array(batch * n * m) : new Float64Array(batch * n * m)) as A;
  const Z = new Float64Array(batch * m * m);
  const iterations = new Int32Array(batch), swaps = new Int32Array(batch), sizeReductions = new Int32Array(batch);

  const layout = bufferLayout(n, m, elt, plan);
  const ws = BatchWorkspace.of(ctx);
  let chunk = Math.max(1, Math.min(batch, Math.floor((0.5 * (ctx.memInfo().freeBytes + ws.deviceBytes)) / layout.deviceBytesPerBasis)));
  if (latticeBatchTuning.maxChunk > 0) chunk = Math.min(chunk, latticeBatchTuning.maxChunk);
  let kernelMs = 0, chunks = 0;
  for (let first = 0; first < batch;) {
    const count = Math.min(chunk, batch - first);
    const at = chunkLayout(layout, count);
    try {
      ws.ensure(at.hostTotal, at.deviceTotal);
    } catch (e) {
      if (e instanceof LatticeMimoError && e.code === 'OUT_OF_MEMORY' && count > 1) {
        chunk = Math.ceil(count / 2);  // does not fit: split and retry
        continue;
      }
      throw e;
    }
    const { dev, host, stream, start, end } = ws;
    const inBytes = count * layout.inBytes;
    host.u8(0, inBytes).set(new Uint8Array(data.buffer, data.byteOffset + first * layout.inBytes, inBytes));
    dev.uploadAsync(host, stream, inBytes, 0, at.bin);
    dev.fillRange(at.stats, count * layout.statsBytes, 0, stream);
    start.record(stream);
    kernel.launch(
      { grid: count, block: plan.threads, sharedBytes: plan.sharedBytes, stream },
      [dev.ptr + BigInt(at.bin), dev.ptr + BigInt(at.bout), dev.ptr + BigInt(at.zout), ...at.scratch.map((o) => dev.ptr + BigInt(o)),
        dev.ptr + BigInt(at.stats), n, m, ...plan.extraArgs],
    );
    end.record(stream);
    // outputs come back into the same pinned buffer (the stream orders them after the upload)
    dev.downloadAsync(host, stream, inBytes, at.bout, at.hostBasis);
    dev.downloadAsync(host, stream, count * layout.zBytes, at.zout, at.hostZ);
    dev.downloadAsync(host, stream, count * layout.statsBytes, at.stats, at.hostStats);
    await stream.wait();
    kernelMs += end.elapsedSince(start);
    chunks++;
    new Uint8Array(basis.buffer, first * layout.inBytes, inBytes).set(host.u8(at.hostBasis, inBytes));
    Z.set(host.f64(at.hostZ, count * m * m), first * m * m);
    const st = host.i32(at.hostStats, count * STATS_WIDTH);
    for (let b = 0; b < count; b++) {
      const s = st.subarray(b * STATS_WIDTH, (b + 1) * STATS_WIDTH);
      raiseStatus(spec.name, first + b, s, params);
      iterations[first + b] = s[0]!;
      swaps[first + b] = s[1]!;
      sizeReductions[first + b] = s[2]!;
    }
    first += count;
  }
  const threadsPerBlock = typeof plan.threads === 'number' ? plan.threads : plan.threads[0] * plan.threads[1];
  return {
    basis,
    Z,
    stats: { iterations, swaps, sizeReductions, kernelMs, totalMs: performance.now() - t0, chunks, threadsPerBlock, sharedBytesPerBlock: plan.sharedBytes },
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

/** The typed error the CPU reducer would have thrown for this basis. */
function raiseStatus(name: string, index: number, s: Int32Array, params: AlgoParams): void {
  const status = s[3]!;
  if (status === STATUS.OK) return;
  const detail = s[4]!;
  const where = `basis ${index} of the batch`;
  if (status === STATUS.NON_FINITE) {
    throw new InvalidInputError('NON_FINITE', `${where}: basis vector ${detail} has non-finite entries or a non-finite norm (NaN/Inf or overflow)`, { basis: index, vector: detail });
  }
  if (status === STATUS.ZERO_VECTOR) {
    throw new RankDeficientError('ZERO_VECTOR', `${where}: basis vector ${detail} is zero`, { basis: index, vector: detail });
  }
  if (status === STATUS.RANK_DEFICIENT) {
    throw new RankDeficientError('RANK_DEFICIENT', `${where}: basis vector ${detail} is linearly dependent on the vectors before it (numerically)`, { basis: index, vector: detail });
  }
  if (status === STATUS.PRECISION_FAILURE) {
    throw new LatticeMimoError('PRECISION_FAILURE', `${where}: Gram-Schmidt vector ${detail} vanished in float32 (redo in float64)`, { basis: index, vector: detail });
  }
  if (status === STATUS.ITERATION_LIMIT) {
    throw new IterationLimitError(`${name}: ${where}: no convergence within maxIterations = ${params.maxIterations}`, {
      basis: index, iterations: s[0], swaps: s[1], sizeReductions: s[2],
    });
  }
  if (status === STATUS.TRANSFORM_OVERFLOW) {
    throw new UnsupportedError(`${name}: ${where}: an entry of the unimodular transform Z reached 2^53: it cannot be held exactly in float64 (the basis is too ill-conditioned for this engine)`, { basis: index });
  }
  throw new UnsupportedError(`${name}: ${where}: the kernel reported an unknown status ${status}`, { basis: index, status });
}

interface Layout {
  inBytes: number;
  zBytes: number;
  statsBytes: number;
  scratch: readonly number[];
  deviceBytesPerBasis: number;
}

function bufferLayout(n: number, m: number, elt: number, plan: LaunchPlan): Layout {
  const inBytes = n * m * elt;
  const zBytes = m * m * 8;
  const statsBytes = STATS_WIDTH * 4;
  const scratchTotal = plan.scratchBytesPerBasis.reduce((a, b) => a + b, 0);
  return {
    inBytes, zBytes, statsBytes, scratch: plan.scratchBytesPerBasis,
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
  const scratch = layout.scratch.map((s) => take(s * count));
  const stats = take(count * layout.statsBytes);
  const hostZ = Math.ceil((count * layout.inBytes) / 8) * 8;
  const hostStats = hostZ + count * layout.zBytes;
  return { bin, bout, zout, scratch, stats, deviceTotal: d, hostBasis: 0, hostZ, hostStats, hostTotal: hostStats + count * layout.statsBytes };
}
