/** Worker thread of the simulation: runs the chunks it is sent and answers their counts. */
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../core/index.js';
import { runChunk, type ChunkTask } from './chunk.js';

parentPort!.on('message', ({ id, task }: { id: number; task: ChunkTask }) => {
  try {
    parentPort!.postMessage({ id, ok: true, result: runChunk(task) });
  } catch (err) {
    parentPort!.postMessage({ id, ok: false, error: serializeError(err) });
  }
});
