/**
 * Several executors as one: chunks dealt out in turn (chunk i to executor i mod n), their results
 * merged by simulate() in unit order as from one executor, so the counts cannot depend on how many
 * there are or which finishes first. The GPU link runs one executor per CUDA device: the first in
 * this thread, each other in a worker thread of its own (a thread keeps one device current).
 */
import { Worker } from 'node:worker_threads';
import { deserializeError, type SerializedError } from '../core/index.js';
import type { ChunkResult, ChunkTask } from './chunk.js';
import type { GpuLinkSetup } from './gpu/executor.js';
import type { ChunkExecutor } from './worker-pool.js';

/** Executors taking chunks in turn; parallelism is their sum. */
export class DealingExecutor<T, R> implements ChunkExecutor<T, R> {
  readonly parallelism: number;
  private next = 0;

  constructor(private readonly executors: readonly ChunkExecutor<T, R>[]) {
    this.parallelism = executors.reduce((t, e) => t + (e.parallelism ?? 1), 0);
  }

  run(task: T): Promise<R> {
    const e = this.executors[this.next]!;
    this.next = (this.next + 1) % this.executors.length;
    return e.run(task);
  }

  async close(): Promise<void> {
    await Promise.all(this.executors.map((e) => e.close()));
  }
}

type FromDevice =
  | { type: 'ready'; parallelism: number }
  | { type: 'result'; id: number; result: ChunkResult }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'failed'; error: SerializedError };

/** A GPU link executor on one device, in a worker thread of its own (gpu/device-worker.ts). */
export class DeviceWorkerExecutor implements ChunkExecutor<ChunkTask, ChunkResult> {
  private nextId = 0;
  private exited = false;
  private readonly pending = new Map<number, { resolve: (r: ChunkResult) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly worker: Worker,
    readonly parallelism: number,
  ) {
    worker.on('message', (m: FromDevice) => {
      if (m.type !== 'result' && m.type !== 'error') return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.type === 'result') p.resolve(m.result);
      else p.reject(deserializeError(m.error));
    });
    worker.on('error', (e) => this.failAll(e));
    worker.on('exit', () => {
      this.exited = true;
      this.failAll(new Error('GPU device worker exited'));
    });
  }

  /** Starts the worker on `setup.device` and waits until its executor is ready (its compile errors reject). */
  static start(setup: GpuLinkSetup): Promise<DeviceWorkerExecutor> {
    const worker = new Worker(new URL('./gpu/device-worker.js', import.meta.url), { workerData: setup });
    return new Promise((resolve, reject) => {
      const first = (m: FromDevice) => {
        worker.off('message', first);
        worker.off('error', reject);
        if (m.type === 'ready') resolve(new DeviceWorkerExecutor(worker, m.parallelism));
        else {
          void worker.terminate();
          reject(m.type === 'failed' ? deserializeError(m.error) : new Error('GPU device worker: unexpected message'));
        }
      };
      worker.on('message', first);
      worker.once('error', reject);
    });
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  run(task: ChunkTask): Promise<ChunkResult> {
    if (this.exited) return Promise.reject(new Error('GPU device worker exited'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'run', id, task });
    });
  }

  async close(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
      this.worker.postMessage({ type: 'close' });
      await gone;
    }
    this.failAll(new Error('GPU device worker closed'));
  }
}
