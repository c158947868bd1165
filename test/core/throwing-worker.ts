/**
 * A worker that throws, for each task, a library error of the class it names, with a place
 * (errors.test.ts). Run as a file of its own (node --test runs every file here), it does nothing.
 */
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../../src/core/worker-pool.js';
import { MAKERS } from './error-makers.js';

parentPort?.on('message', ({ id, task }: { id: number; task: { which: number; vector: number; chunk: number } }) => {
  const err = MAKERS[task.which]![1](`worker ${task.which}`, { size: task.which }).withContext({
    vector: task.vector,
    chunk: task.chunk,
  });
  parentPort!.postMessage({ id, ok: false, error: serializeError(err) });
});
