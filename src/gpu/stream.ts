/**
 * Streams and events: ordering of asynchronous work, waiting for it without blocking Node's event
 * loop, and timing device work with events (the way to time kernels: host clocks see only the
 * asynchronous launch).
 */
import { CudaError } from '../core/index.js';
import { CU_RESULT, check, outHandle } from './driver.js';
import type { CudaContext } from './context.js';

/** CU_STREAM_NON_BLOCKING: no implicit ordering with the legacy default stream. */
const CU_STREAM_NON_BLOCKING = 1;
/** CU_EVENT_DEFAULT records timing; CU_EVENT_DISABLE_TIMING = 2 does not (a cheaper marker for ordering). */
const CU_EVENT_DEFAULT = 0;
const CU_EVENT_DISABLE_TIMING = 2;

/** How long an asynchronous wait may last before it gives up (a hung kernel must not hang Node). */
export const DEFAULT_WAIT_LIMIT_MS = 10 * 60 * 1000;

export class Stream {
  private destroyed = false;
  private constructor(
    readonly ctx: CudaContext,
    readonly handle: bigint,
  ) {}

  static create(ctx: CudaContext): Stream {
    const out = [0];
    check(ctx.driver.cuStreamCreate(out, CU_STREAM_NON_BLOCKING), 'cuStreamCreate');
    return new Stream(ctx, outHandle(out));
  }

  /** Enqueues setting `bytes` bytes at device address `address` to `value` (a byte). */
  fill(address: bigint, bytes: number, value = 0): void {
    if (bytes > 0) check(this.ctx.driver.cuMemsetD8Async(address, value & 0xff, bytes, this.handle), 'cuMemsetD8Async');
  }

  /** Blocks the calling thread until the stream's work is done. */
  synchronize(): void {
    check(this.ctx.driver.cuStreamSynchronize(this.handle), 'cuStreamSynchronize');
  }

  /** Resolves when the stream's work is done, polling so that the event loop keeps running. */
  wait(limitMs = DEFAULT_WAIT_LIMIT_MS): Promise<void> {
    return pollUntilDone(() => this.ctx.driver.cuStreamQuery(this.handle), 'cuStreamQuery', limitMs);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    check(this.ctx.driver.cuStreamDestroy(this.handle), 'cuStreamDestroy');
  }
}

export class CudaEvent {
  private destroyed = false;
  private constructor(
    readonly ctx: CudaContext,
    readonly handle: bigint,
  ) {}

  /** `timing` false: a marker for ordering streams only (elapsedSince cannot use it). */
  static create(ctx: CudaContext, timing = true): CudaEvent {
    const out = [0];
    check(ctx.driver.cuEventCreate(out, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), 'cuEventCreate');
    return new CudaEvent(ctx, outHandle(out));
  }

  record(stream: Stream): void {
    check(this.ctx.driver.cuEventRecord(this.handle, stream.handle), 'cuEventRecord');
  }

  /** Work enqueued on `stream` after this call waits for this event's last record (ordering between streams). */
  awaitOn(stream: Stream): void {
    check(this.ctx.driver.cuStreamWaitEvent(stream.handle, this.handle, 0), 'cuStreamWaitEvent');
  }

  synchronize(): void {
    check(this.ctx.driver.cuEventSynchronize(this.handle), 'cuEventSynchronize');
  }

  wait(limitMs = DEFAULT_WAIT_LIMIT_MS): Promise<void> {
    return pollUntilDone(() => this.ctx.driver.cuEventQuery(this.handle), 'cuEventQuery', limitMs);
  }

  /** Milliseconds of device time from `start` to this event (both recorded and complete). */
  elapsedSince(start: CudaEvent): number {
    const ms = new Float32Array(1);
    check(this.ctx.driver.cuEventElapsedTime(ms, start.handle, this.handle), 'cuEventElapsedTime');
    return ms[0]!;
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    check(this.ctx.driver.cuEventDestroy(this.handle), 'cuEventDestroy');
  }
}

/**
 * Polls a query (cuStreamQuery / cuEventQuery) until it stops answering NOT_READY: first on
 * setImmediate (a few microseconds a turn: a pipelined batch waits for chunks of a few
 * milliseconds, and a timer's millisecond would leave the device idle), then every millisecond.
 */
async function pollUntilDone(query: () => number, what: string, limitMs: number): Promise<void> {
  const start = performance.now();
  for (;;) {
    const r = query();
    if (r === CU_RESULT.SUCCESS) return;
    if (r !== CU_RESULT.ERROR_NOT_READY) check(r, what);
    const waited = performance.now() - start;
    if (waited > limitMs) {
      throw new CudaError('CUDA_ERROR', 'CUDA_ERROR_TIMEOUT', `device work did not finish within ${limitMs} ms`);
    }
    if (waited < 50) await new Promise<void>((resolve) => setImmediate(resolve));
    else await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
}

export interface TimingResult {
  /** Median of the timed repetitions, in milliseconds of device time. */
  medianMs: number;
  minMs: number;
  maxMs: number;
  samplesMs: number[];
}

/**
 * Times `work` (which enqueues device work on `stream`) with events: `warmup` untimed runs first
 * (module load, caches), then `reps` runs each between two events; returns the median.
 */
export function timeOnStream(ctx: CudaContext, stream: Stream, work: () => void, reps = 10, warmup = 2): TimingResult {
  const start = CudaEvent.create(ctx),
    end = CudaEvent.create(ctx);
  try {
    for (let i = 0; i < warmup; i++) work();
    stream.synchronize();
    const samplesMs: number[] = [];
    for (let i = 0; i < reps; i++) {
      start.record(stream);
      work();
      end.record(stream);
      end.synchronize();
      samplesMs.push(end.elapsedSince(start));
    }
    const sorted = [...samplesMs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const medianMs = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    return { medianMs, minMs: sorted[0]!, maxMs: sorted[sorted.length - 1]!, samplesMs };
  } finally {
    start.destroy();
    end.destroy();
  }
}
