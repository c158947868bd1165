/**
 * The memory and streams that batched kernels reuse from call to call (see BatchWorkspace).
 */
import { MAX_PIPELINE_LANES } from './batch-options.js';
import type { CudaContext } from './context.js';
import { DeviceBuffer, PinnedBuffer } from './memory.js';
import { CudaEvent, Stream } from './stream.js';

/**
 * One lane of the copy/compute pipeline: a stream, two timing events around its kernel, a device
 * arena and a pinned staging buffer for one chunk of a batch. While one lane's kernel runs, another
 * lane's chunk is being copied in or out and a third is being staged by the host.
 */
export class PipelineLane {
  private device: DeviceBuffer | null = null;
  private pinned: PinnedBuffer | null = null;
  readonly stream: Stream;
  readonly start: CudaEvent;
  readonly end: CudaEvent;
  /** Recorded after the lane's chunk's kernels: the next chunk's kernels wait for it when a job orders its kernels. */
  readonly computed: CudaEvent;
  /** Whether a chunk was enqueued on this lane and its results not yet read back. */
  busy = false;

  constructor(private readonly ctx: CudaContext) {
    this.stream = Stream.create(ctx);
    this.start = CudaEvent.create(ctx);
    this.end = CudaEvent.create(ctx);
    this.computed = CudaEvent.create(ctx, false);
  }

  get deviceBytes(): number {
    return this.device?.bytes ?? 0;
  }
  get dev(): DeviceBuffer {
    return this.device!;
  }
  get host(): PinnedBuffer {
    return this.pinned!;
  }

  /** Whether the lane holds at least this much already (ensure() would allocate nothing). */
  fits(hostBytes: number, deviceBytes: number): boolean {
    return this.deviceBytes >= deviceBytes && (this.pinned?.bytes ?? 0) >= hostBytes;
  }

  /** At least `hostBytes` pinned and `deviceBytes` on the device (OUT_OF_MEMORY when the device has not). */
  ensure(hostBytes: number, deviceBytes: number): void {
    if (!this.device || this.device.bytes < deviceBytes) {
      this.device?.free();
      this.device = null;
      this.device = DeviceBuffer.alloc(this.ctx, Math.ceil(deviceBytes * 1.25));
    }
    if (!this.pinned || this.pinned.bytes < hostBytes) {
      this.pinned?.free();
      this.pinned = null;
      this.pinned = PinnedBuffer.alloc(this.ctx, Math.ceil(hostBytes * 1.25));
    }
  }

  release(): void {
    this.device?.free();
    this.pinned?.free();
    this.device = null;
    this.pinned = null;
  }
}

/**
 * What every batch reuses, per context: up to MAX_LANES pipeline lanes, grown when a batch needs
 * more memory (allocating pinned memory costs about a millisecond per call, more than a small
 * batch's kernel). releaseCudaWorkspace() gives the memory back.
 */
export class BatchWorkspace {
  static readonly MAX_LANES = MAX_PIPELINE_LANES;
  private static readonly byContext = new Map<CudaContext, BatchWorkspace>();
  private readonly all: PipelineLane[] = [];

  private constructor(private readonly ctx: CudaContext) {}

  static of(ctx: CudaContext): BatchWorkspace {
    let w = BatchWorkspace.byContext.get(ctx);
    if (!w) {
      w = new BatchWorkspace(ctx);
      BatchWorkspace.byContext.set(ctx, w);
    }
    return w;
  }

  /** Device bytes held by all lanes (counted as free when a batch sizes its chunks). */
  get deviceBytes(): number {
    return this.all.reduce((s, l) => s + l.deviceBytes, 0);
  }

  /** Whether the first `count` lanes each hold at least `deviceBytes` already (no allocation needed). */
  holds(count: number, deviceBytes: number): boolean {
    if (this.all.length < count) return false;
    for (let i = 0; i < count; i++) if (this.all[i]!.deviceBytes < deviceBytes) return false;
    return true;
  }

  /** The first `count` lanes (created on demand), each with at least the given memory. */
  lanes(count: number, hostBytes: number, deviceBytes: number): PipelineLane[] {
    const k = Math.max(1, Math.min(BatchWorkspace.MAX_LANES, count));
    while (this.all.length < k) this.all.push(new PipelineLane(this.ctx));
    const out = this.all.slice(0, k);
    // lanes beyond k keep nothing while a larger chunk is allocated (a batch of fewer lanes that
    // fits, such as a small job between large ones, leaves them for the next large one)
    if (!out.every((l) => l.fits(hostBytes, deviceBytes)))
      for (let i = k; i < this.all.length; i++) this.all[i]!.release();
    for (const l of out) l.ensure(hostBytes, deviceBytes);
    return out;
  }

  release(): void {
    for (const l of this.all) l.release();
  }

  static releaseAll(): void {
    for (const w of BatchWorkspace.byContext.values()) w.release();
  }
}

/** Frees the device and pinned memory the lattice batches keep for reuse (they grow it again on demand). */
export function releaseCudaWorkspace(): void {
  BatchWorkspace.releaseAll();
}
