/**
 * Runs a batched lattice-reduction kernel over a batch of bases: validation, module and launch
 * plan, chunking (a chunk that does not fit in device memory is halved until it does), pinned
 * staging buffers with asynchronous copies on one stream, event timing, and the per-basis status
 * words turned into the same typed errors the CPU reducers throw.
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
import { DeviceBuffer, PinnedBuffer } from './memory.js';
import type { Kernel, ParamValue } from './launch.js';
import { CudaEvent, Stream } from './stream.js';

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
  /** Integer arguments after (n, m): iteration limit, layout flags... */
  extraArgs: readonly ParamValue[];
}

export interface LatticeKernelSpec {
  /** Name for messages ('jacobi-parallel', 'allswap'). */
  name: string;
  /** The kernel for this precision (compiled or cached). */
  kernel(ctx: CudaContext, precision: 'float32' | 'float64'): Kernel;
  plan(n: number, m: number, precision: 'float32' | 'float64', p: AlgoParams, device: DeviceProperties): LaunchPlan;
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
  const planned = spec.plan(n, m, precision, params, ctx.props);
  // the kernel's own limit (its register use) caps the block; the kernels loop over their work, so any size is correct
  const limit = kernel.attributes().maxThreadsPerBlock;
  const plan: LaunchPlan = typeof planned.threads === 'number' && planned.threads > limit ? { ...planned, threads: limit } : planned;
  if (plan.sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(plan.sharedBytes);

  const basis = (precision === 'float32' ? new Float32Array(batch * n * m) : new Float64Array(batch * n * m)) as A;
  const Z = new Float64Array(batch * m * m);
  const iterations = new Int32Array(batch), swaps = new Int32Array(batch), sizeReductions = new Int32Array(batch);

  const layout = bufferLayout(n, m, elt, plan);
  let chunk = Math.max(1, Math.min(batch, Math.floor((0.5 * ctx.memInfo().freeBytes) / layout.deviceBytesPerBasis)));
  if (latticeBatchTuning.maxChunk > 0) chunk = Math.min(chunk, latticeBatchTuning.maxChunk);
  const stream = Stream.create(ctx);
  const start = CudaEvent.create(ctx), end = CudaEvent.create(ctx);
  let kernelMs = 0, chunks = 0;
  try {
    for (let first = 0; first < batch;) {
      const count = Math.min(chunk, batch - first);
      let buffers: ChunkBuffers;
      try {
        buffers = ChunkBuffers.alloc(ctx, layout, count);
      } catch (e) {
        if (e instanceof LatticeMimoError && e.code === 'OUT_OF_MEMORY' && count > 1) {
          chunk = Math.ceil(count / 2);  // does not fit: split and retry
          continue;
        }
        throw e;
      }
      try {
        const { dev, host } = buffers;
        host.u8(0, count * layout.inBytes).set(new Uint8Array(data.buffer, data.byteOffset + first * layout.inBytes, count * layout.inBytes));
        dev.bin.uploadAsync(host, stream, count * layout.inBytes);
        dev.stats.fill(0, stream);
        start.record(stream);
        kernel.launch(
          { grid: count, block: plan.threads, sharedBytes: plan.sharedBytes, stream },
          [dev.bin, dev.bout, dev.zout, ...dev.scratch, dev.stats, n, m, ...plan.extraArgs],
        );
        end.record(stream);
        // outputs come back into the same pinned buffer (the stream orders them after the upload)
        const at = hostOffsets(layout, count);
        dev.bout.downloadAsync(host, stream, count * layout.inBytes, 0, at.basis);
        dev.zout.downloadAsync(host, stream, count * layout.zBytes, 0, at.z);
        dev.stats.downloadAsync(host, stream, count * layout.statsBytes, 0, at.stats);
        await stream.wait();
        kernelMs += end.elapsedSince(start);
        chunks++;
        new Uint8Array(basis.buffer, first * layout.inBytes, count * layout.inBytes).set(host.u8(at.basis, count * layout.inBytes));
        Z.set(host.f64(at.z, count * m * m), first * m * m);
        const st = host.i32(at.stats, count * STATS_WIDTH);
        for (let b = 0; b < count; b++) {
          const s = st.subarray(b * STATS_WIDTH, (b + 1) * STATS_WIDTH);
          raiseStatus(spec.name, first + b, s, params);
          iterations[first + b] = s[0]!;
          swaps[first + b] = s[1]!;
          sizeReductions[first + b] = s[2]!;
        }
      } finally {
        buffers.free();
      }
      first += count;
    }
  } finally {
    start.destroy();
    end.destroy();
    stream.destroy();
  }
  const threadsPerBlock = typeof plan.threads === 'number' ? plan.threads : plan.threads[0] * plan.threads[1];
  return {
    basis,
    Z,
    stats: { iterations, swaps, sizeReductions, kernelMs, totalMs: performance.now() - t0, chunks, threadsPerBlock, sharedBytesPerBlock: plan.sharedBytes },
  };
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

const align8 = (x: number): number => Math.ceil(x / 8) * 8;

/** Byte offsets in the pinned buffer of a chunk of `count` bases: the basis (input, then output), Z, stats. */
function hostOffsets(layout: Layout, count: number): { basis: number; z: number; stats: number; total: number } {
  const z = align8(count * layout.inBytes);
  const stats = z + count * layout.zBytes;
  return { basis: 0, z, stats, total: stats + count * layout.statsBytes };
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

/** Device buffers of one chunk, and one pinned host buffer used for the input, then the outputs. */
class ChunkBuffers {
  private constructor(
    readonly dev: { bin: DeviceBuffer; bout: DeviceBuffer; zout: DeviceBuffer; scratch: DeviceBuffer[]; stats: DeviceBuffer },
    readonly host: PinnedBuffer,
    private readonly all: Array<DeviceBuffer | PinnedBuffer>,
  ) {}

  static alloc(ctx: CudaContext, layout: Layout, count: number): ChunkBuffers {
    const all: Array<DeviceBuffer | PinnedBuffer> = [];
    const d = (bytes: number): DeviceBuffer => { const b = DeviceBuffer.alloc(ctx, bytes); all.push(b); return b; };
    try {
      const bin = d(count * layout.inBytes);
      const bout = d(count * layout.inBytes);
      const zout = d(count * layout.zBytes);
      const scratch = layout.scratch.map((s) => d(Math.max(s, 1) * count));
      const stats = d(count * layout.statsBytes);
      const host = PinnedBuffer.alloc(ctx, hostOffsets(layout, count).total);
      all.push(host);
      return new ChunkBuffers({ bin, bout, zout, scratch, stats }, host, all);
    } catch (e) {
      for (const b of all) b.free();
      throw e;
    }
  }

  free(): void {
    for (const b of this.all) b.free();
  }
}
