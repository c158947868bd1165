/** Worker thread for reduceBatchCpu: reduces the chunks it is sent. */
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../core/index.js';
import { reduceChunk, type ChunkTask } from './cpu-batch.js';

parentPort!.on('message', ({ id, task }: { id: number; task: ChunkTask }) => {
  try {
    const result = reduceChunk(task);
    parentPort!.postMessage({ id, ok: true, result }, [
      result.work.buffer as ArrayBuffer,
      result.Z.buffer as ArrayBuffer,
    ]);
  } catch (err) {
    parentPort!.postMessage({ id, ok: false, error: serializeError(err) });
  }
});
