/**
 * Kernel-only timing of a batched lattice kernel with its data already on the device: the same
 * kernel and launch plan as reduce() uses (src/lattice/gpu/batch.ts: prepareLattice, enqueueLattice), the
 * whole batch uploaded once, then `reps` launches each between two CUDA events (after one untimed
 * warm-up launch that also loads the module). Before every launch, outside the timed region, the
 * outputs are poisoned (all bits set: NaN) and the status words zeroed, so the results read back
 * after the last launch are that launch's own.
 *
 * The launches are enqueued back to back (an event pair each) behind the warm-up launch, and the
 * host waits once at the end: a timed launch is already in the stream when its start event is
 * reached, so the events enclose the kernel and not the host's time to submit it (through koffi
 * about 15 to 20 us, which a start event recorded into an idle stream used to include). Where the
 * kernels are shorter than the host's submission of the next rep the stream idles between events
 * again, which can only make a figure larger.
 */
import { requireCuda } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { CudaEvent, Stream } from '../../src/gpu/stream.js';
import {
  STATS_WIDTH,
  chunkDeviceBytes,
  chunkPointers,
  enqueueLattice,
  prepareLattice,
  type LatticeKernelSpec,
  type LaunchPlan,
  type RealArray,
} from '../../src/lattice/gpu/batch.js';
import type { AlgoParams } from '../../src/lattice/types.js';

export interface KernelTiming<A extends RealArray> {
  /** Event times of the timed launches, ms. */
  samplesMs: number[];
  medianMs: number;
  minMs: number;
  /** Outputs of the last launch: reduced bases, transforms, and STATS_WIDTH ints per basis. */
  basis: A;
  Z: Float64Array;
  stats: Int32Array;
  plan: LaunchPlan;
  threadsPerBlock: number;
  /** Bases one full wave of the device holds with this plan. */
  wave: number;
}

/** Times `reps` launches over the whole batch (which must fit in device memory at once). */
export function timeLatticeKernel<A extends RealArray>(
  spec: LatticeKernelSpec,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  reps: number,
): KernelTiming<A> {
  const ctx = requireCuda();
  ctx.makeCurrent();
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const p = prepareLattice(ctx, spec, precision, batch, n, m, params);
  const arena = DeviceBuffer.alloc(ctx, chunkDeviceBytes(p, batch));
  const stream = Stream.create(ctx);
  const starts = Array.from({ length: reps }, () => CudaEvent.create(ctx));
  const ends = Array.from({ length: reps }, () => CudaEvent.create(ctx));
  try {
    const ptr = chunkPointers(p, arena.ptr, batch);
    const off = (x: bigint): number => Number(x - arena.ptr);
    const inBytes = batch * n * m * data.BYTES_PER_ELEMENT;
    arena.upload(data, off(ptr.bin));
    const prepare = (): void => {
      arena.fillRange(off(ptr.bout), inBytes, 0xff, stream);
      arena.fillRange(off(ptr.zout), batch * m * m * 8, 0xff, stream);
      arena.fillRange(off(ptr.stats), batch * STATS_WIDTH * 4, 0, stream);
    };
    prepare();
    enqueueLattice(p, stream, ptr, batch);
    stream.synchronize(); // the module loaded, the first launch's errors raised
    prepare();
    enqueueLattice(p, stream, ptr, batch); // untimed: the stream is busy while the reps are enqueued
    for (let r = 0; r < reps; r++) {
      prepare();
      starts[r]!.record(stream);
      enqueueLattice(p, stream, ptr, batch);
      ends[r]!.record(stream);
    }
    stream.synchronize();
    const samplesMs = starts.map((st, r) => ends[r]!.elapsedSince(st));
    const basis = (precision === 'float32' ? new Float32Array(batch * n * m) : new Float64Array(batch * n * m)) as A;
    const Z = new Float64Array(batch * m * m);
    const stats = new Int32Array(batch * STATS_WIDTH);
    arena.download(basis, off(ptr.bout));
    arena.download(Z, off(ptr.zout));
    arena.download(stats, off(ptr.stats));
    const sorted = [...samplesMs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return {
      samplesMs,
      medianMs: sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2,
      minMs: sorted[0]!,
      basis,
      Z,
      stats,
      plan: p.plan,
      threadsPerBlock: typeof p.plan.threads === 'number' ? p.plan.threads : p.plan.threads[0] * p.plan.threads[1],
      wave: p.wave,
    };
  } finally {
    for (const e of [...starts, ...ends]) e.destroy();
    stream.destroy();
    arena.free();
  }
}
