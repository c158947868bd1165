/**
 * Executors for simulation chunks: the persistent worker pool (src/core/worker-pool.ts), which the
 * simulation feeds chunk by chunk as it decides whether more are needed, or this thread.
 */
import { WorkerPool } from '../core/worker-pool.js';

export { WorkerPool };

/** Something that runs chunk tasks: a pool of workers, or this thread. */
export interface ChunkExecutor<T, R> {
  run(task: T): Promise<R>;
  close(): Promise<void>;
}

/** Runs tasks in this thread, one at a time, yielding to the event loop between them. */
export class InThreadExecutor<T, R> implements ChunkExecutor<T, R> {
  constructor(private readonly fn: (task: T) => R) {}

  async run(task: T): Promise<R> {
    // Let timers and signals (the live table, Ctrl-C) run between chunks.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return this.fn(task);
  }

  async close(): Promise<void> {}
}
