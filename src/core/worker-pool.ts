/**
 * Worker threads for batched CPU work (lattice batches, simulation chunks). Errors thrown in a
 * worker come back as the same typed error (class, code, words, place, details), not as a crash.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { errorFromRecord, errorRecord, LatticeMimoError, type ErrorRecord } from './errors.js';

/** An error as it crosses a thread: a library error's record (its class, words, place, details), or another's name and words. */
export type SerializedError = { record: ErrorRecord } | { name: string; message: string };

export function serializeError(err: unknown): SerializedError {
  if (err instanceof LatticeMimoError) return { record: errorRecord(err) };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

/** The error a worker threw: a library error of its own class, with its place and details. */
export function deserializeError(e: SerializedError): Error {
  if ('record' in e) return errorFromRecord(e.record);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

interface Job<T, R> {
  id: number;
  task: T;
  transfer: ArrayBuffer[];
  resolve: (r: R) => void;
  reject: (e: Error) => void;
}
interface Reply<R> {
  id: number;
  ok: boolean;
  result?: R;
  error?: SerializedError;
}

/**
 * A persistent pool of up to `size` worker threads started from one module; each worker answers
 * `{id, ok, result | error}` to each `{id, task}` it receives. A worker is started only when a task
 * finds none idle, so a pool sized for a large run costs a small one nothing. Tasks queue until a
 * worker is idle. Errors thrown in a worker come back as the same typed LatticeMimoError; a worker
 * that dies fails every task in flight.
 */
export class WorkerPool<T, R> {
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job<T, R>>();
  private readonly queue: Job<T, R>[] = [];
  private nextId = 0;
  private broken: Error | null = null;
  private closed = false;

  constructor(
    private readonly workerUrl: URL,
    private readonly size: number,
  ) {}

  /** Workers started so far (at most the pool's size). */
  get started(): number {
    return this.workers.length;
  }

  private start(): Worker {
    const w = new Worker(this.workerUrl);
    w.on('message', (msg: Reply<R>) => this.onReply(w, msg));
    w.on('error', (err) => this.fail(err));
    w.on('exit', (code) => {
      if (!this.closed) this.fail(new Error(`worker exited with code ${code}`));
    });
    this.workers.push(w);
    return w;
  }

  /** Runs one task on the next idle worker; `transfer` lists buffers moved (not copied) to it. */
  run(task: T, transfer: ArrayBuffer[] = []): Promise<R> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(new Error('worker pool is closed'));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, transfer, resolve, reject });
      this.pump();
    });
  }

  /** Tasks waiting for a worker (not yet started). */
  get queued(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.workers.length < this.size)) {
      const w = this.idle.pop() ?? this.start();
      const job = this.queue.shift()!;
      this.busy.set(w, job);
      w.postMessage({ id: job.id, task: job.task }, job.transfer);
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

/**
 * Runs a fixed list of tasks on up to `threads` workers and resolves with the results in task
 * order, whatever the scheduling.
 */
export async function runOnWorkers<T, R>(
  workerUrl: URL,
  tasks: readonly T[],
  threads: number,
  transfer: (t: T) => ArrayBuffer[] = () => [],
  onResult?: (index: number, result: R) => void,
): Promise<R[]> {
  if (tasks.length === 0) return [];
  const pool = new WorkerPool<T, R>(workerUrl, Math.max(1, Math.min(threads, tasks.length)));
  try {
    return await Promise.all(
      tasks.map((t, i) =>
        pool.run(t, transfer(t)).then((r) => {
          onResult?.(i, r);
          return r;
        }),
      ),
    );
  } finally {
    await pool.close();
  }
}
