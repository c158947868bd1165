/**
 * The block workers' supervisor (parallel.ts): starts the workers and watches them from its own
 * event loop, which the blocked calling thread does not run. A worker that ends (out of memory, a
 * crash, a failed start) has its flag set to DIED with its exit code, and the caller is woken.
 * Shapes: workerData.ports[i] and flags[i] (Int32Array [state, exit code, out of memory]) are
 * worker i's; workerData.limits its V8 resource limits, if any.
 */
import { type MessagePort, type ResourceLimits, Worker, workerData } from 'node:worker_threads';
import { FLAG } from './parallel.js';

const { ports, flags, limits } = workerData as {
  ports: MessagePort[];
  flags: Int32Array[];
  limits?: ResourceLimits;
};

ports.forEach((port, i) => {
  const flag = flags[i]!;
  const worker = new Worker(new URL('./worker.js', import.meta.url), {
    workerData: { port, flag },
    transferList: [port],
    ...(limits ? { resourceLimits: limits } : {}),
  });
  worker.on('error', (err: Error & { code?: string }) => {
    if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') Atomics.store(flag, 2, 1);
  });
  worker.on('exit', (code) => {
    Atomics.store(flag, 1, code);
    Atomics.store(flag, 0, FLAG.DIED);
    Atomics.notify(flag, 0);
  });
});
