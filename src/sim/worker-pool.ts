/**
 * Executors for simulation chunks: the persistent worker pool (src/core/worker-pool.ts), which the
 * simulation feeds chunk by chunk as it decides whether more are needed, or this thread; the GPU
 * link (src/sim/gpu/executor.ts) is the third.
 */
import { WorkerPool } from '../core/index.js';

export { WorkerPool };

/** Something that runs chunk tasks: a pool of workers, or this thread. */
export interface ChunkExecutor<T, R> {
  run(task: T): Promise<R>;
  /** Tasks it computes at once (the GPU's chunks per launch); absent: one per thread of the run. */
  readonly parallelism?: number;
  close(): Promise<void>;
}

/**
 * Runs tasks in this thread, one at a time, as async functions that yield to the event loop
 * (timers, signals, the live table); close() makes the tasks still running give up.
 */
export class InThreadExecutor<T, R> implements ChunkExecutor<T, R> {
  private closed = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly fn: (task: T, cancelled: () => boolean) => Promise<R>) {}

  run(task: T): Promise<R> {
    const result = this.tail.then(() => this.fn(task, () => this.closed));
    this.tail = result.catch(() => {});
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
