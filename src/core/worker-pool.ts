/**
 * A small pool of worker threads for batched CPU work. Tasks are independent messages; results come
 * back in task order whatever the scheduling. Errors thrown in a worker come back as the same typed
 * LatticeMimoError (code, message, details), not as a crash.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { LatticeMimoError, type ErrorCode } from './errors.js';

export interface SerializedError { code?: ErrorCode; name: string; message: string; details?: Record<string, unknown> }

export function serializeError(err: unknown): SerializedError {
  if (err instanceof LatticeMimoError) return { code: err.code, name: err.name, message: err.message, details: err.details };
  if (err instanceof Error) return { name: err.name, message: err.message };
  return { name: 'Error', message: String(err) };
}

export function deserializeError(e: SerializedError): Error {
  if (e.code) {
    const err = new LatticeMimoError(e.code, e.message, e.details);
    err.name = e.name;
    return err;
  }
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

interface Reply<R> { id: number; ok: boolean; result?: R; error?: SerializedError }

/**
 * Runs `tasks` on up to `threads` workers started from `workerUrl`; each worker answers
 * `{id, ok, result | error}` to each `{id, task}` it receives. Resolves with results in task order.
 */
export async function runOnWorkers<T, R>(
  workerUrl: URL,
  tasks: readonly T[],
  threads: number,
  transfer: (t: T) => ArrayBuffer[] = () => [],
  onResult?: (index: number, result: R) => void,
): Promise<R[]> {
  const results: R[] = new Array(tasks.length);
  if (tasks.length === 0) return results;
  const count = Math.max(1, Math.min(threads, tasks.length));
  const workers = Array.from({ length: count }, () => new Worker(workerUrl));
  let next = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let pending = tasks.length;
      let failed = false;
      const feed = (w: Worker): void => {
        if (failed || next >= tasks.length) return;
        const id = next++;
        const task = tasks[id]!;
        w.postMessage({ id, task }, transfer(task));
      };
      for (const w of workers) {
        w.on('message', (msg: Reply<R>) => {
          if (failed) return;
          if (!msg.ok) { failed = true; reject(deserializeError(msg.error!)); return; }
          results[msg.id] = msg.result as R;
          onResult?.(msg.id, msg.result as R);
          if (--pending === 0) resolve();
          else feed(w);
        });
        w.on('error', (err) => { if (!failed) { failed = true; reject(err); } });
        w.on('exit', (code) => {
          if (!failed && pending > 0 && code !== 0) { failed = true; reject(new Error(`worker exited with code ${code}`)); }
        });
        feed(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
