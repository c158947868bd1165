/** Worker thread of one CUDA device: a GPU link executor there, chunks in, per-unit counts out (devices.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../core/index.js';
import type { ChunkTask } from '../chunk.js';
import { GpuLinkExecutor, type GpuLinkSetup } from './executor.js';

const port = parentPort!;
try {
  const exec = await GpuLinkExecutor.create(workerData as GpuLinkSetup);
  port.on('message', (m: { type: 'run'; id: number; task: ChunkTask } | { type: 'close' }) => {
    if (m.type === 'close') {
      void exec.close().finally(() => process.exit(0));
      return;
    }
    exec.run(m.task).then(
      (result) => port.postMessage({ type: 'result', id: m.id, result }),
      (err: unknown) => port.postMessage({ type: 'error', id: m.id, error: serializeError(err) }),
    );
  });
  port.postMessage({ type: 'ready', parallelism: exec.parallelism });
} catch (err) {
  port.postMessage({ type: 'failed', error: serializeError(err) });
}
