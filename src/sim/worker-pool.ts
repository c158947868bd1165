/**
 * A persistent pool of worker threads that runs simulation chunks one message at a time.
 *
 * Unlike core/worker-pool's runOnWorkers (a fixed task list), the simulation hands out chunks as
 * it goes (it decides after each merged chunk whether more are needed), so this pool keeps its
 * workers alive and answers each `run(task)` with a promise. Errors thrown in a worker come back
 * as the same typed LatticeMimoError; a worker that dies fails every task in flight.
 */
import { Worker } from 'node:worker_threads';
import { deserializeError, type SerializedError } from '../core/worker-pool.js';

interface Job<T, R> { id: number; task: T; resolve: (r: R) => void; reject: (e: Error) => void }
interface Reply<R> { id: number; ok: boolean; result?: R; error?: SerializedError }

/** Something that runs chunk tasks: a pool of workers, or this thread. */
export interface ChunkExecutor<T, R> {
  run(task: T): Promise<R>;
  close(): Promise<void>;
}

export class WorkerPool<T, R> implements ChunkExecutor<T, R> {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job<T, R>>();
  private readonly queue: Job<T, R>[] = [];
  private nextId = 0;
  private broken: Error | null = null;
  private closed = false;

  constructor(workerUrl: URL, size: number) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(workerUrl);
      w.on('message', (msg: Reply<R>) => this.onReply(w, msg));
      w.on('error', (err) => this.fail(err));
      w.on('exit', (code) => { if (!this.closed) this.fail(new Error(`simulation worker exited with code ${code}`)); });
      this.workers.push(w);
      this.idle.push(w);
    }
  }

  run(task: T): Promise<R> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, resolve, reject });
      this.pump();
    });
  }

  /** Tasks waiting for a worker (not yet started). */
  get queued(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.pop()!;
      const job = this.queue.shift()!;
      this.busy.set(w, job);
      w.postMessage({ id: job.id, task: job.task });
    }
  }

  private onReply(w: Worker, msg: Reply<R>): void {
    const job = this.busy.get(w);
    this.busy.delete(w);
    this.idle.push(w);
    if (job && job.id === msg.id) {
      if (msg.ok) job.resolve(msg.result as R);
      else job.reject(deserializeError(msg.error!));
    }
    this.pump();
  }

  private fail(err: Error): void {
    if (this.broken) return;
    this.broken = err;
    for (const job of [...this.busy.values(), ...this.queue]) job.reject(err);
    this.busy.clear();
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue) job.reject(new Error('worker pool closed'));
    this.queue.length = 0;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
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
