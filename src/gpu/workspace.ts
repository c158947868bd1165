/**
 * The memory and stream that batched kernels reuse from call to call (see BatchWorkspace).
 */
import type { CudaContext } from './context.js';
import { DeviceBuffer, PinnedBuffer } from './memory.js';
import { CudaEvent, Stream } from './stream.js';

/**
 * What every batch reuses, per context: a stream, two timing events, one device arena and one
 * pinned staging buffer, grown when a batch needs more (allocating pinned memory costs about a
 * millisecond per call, more than a small batch's kernel). releaseCudaWorkspace() gives it back.
 */
export class BatchWorkspace {
  private static readonly byContext = new Map<CudaContext, BatchWorkspace>();
  private device: DeviceBuffer | null = null;
  private pinned: PinnedBuffer | null = null;
  readonly stream: Stream;
  readonly start: CudaEvent;
  readonly end: CudaEvent;

  private constructor(private readonly ctx: CudaContext) {
    this.stream = Stream.create(ctx);
    this.start = CudaEvent.create(ctx);
    this.end = CudaEvent.create(ctx);
  }

  static of(ctx: CudaContext): BatchWorkspace {
    let w = BatchWorkspace.byContext.get(ctx);
    if (!w) {
      w = new BatchWorkspace(ctx);
      BatchWorkspace.byContext.set(ctx, w);
    }
    return w;
  }

  get deviceBytes(): number { return this.device?.bytes ?? 0; }
  get dev(): DeviceBuffer { return this.device!; }
  get host(): PinnedBuffer { return this.pinned!; }

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

  static releaseAll(): void {
    for (const w of BatchWorkspace.byContext.values()) w.release();
  }
}

/** Frees the device and pinned memory the lattice batches keep for reuse (they grow it again on demand). */
export function releaseCudaWorkspace(): void {
  BatchWorkspace.releaseAll();
}
