/** Worker thread of the CPU-engine benchmark: detect() on the slice it is sent, answering its symbols and time. */
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../../src/core/worker-pool.js';
import { detect } from '../../src/mimo/detect.js';
import type { DetectionInput, DetectOptions } from '../../src/mimo/types.js';

parentPort!.on('message', ({ id, task }: { id: number; task: { input: DetectionInput; opts: DetectOptions } }) => {
  try {
    const t = performance.now();
    const r = detect(task.input, task.opts);
    parentPort!.postMessage({ id, ok: true, result: { symbols: r.symbols, ms: performance.now() - t } });
  } catch (err) {
    parentPort!.postMessage({ id, ok: false, error: serializeError(err) });
  }
});
