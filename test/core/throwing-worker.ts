/**
 * A worker that throws, for each task, a library error of the class it names, with a place
 * (errors.test.ts). Run as a file of its own (node --test runs every file here), it does nothing.
 */
import { parentPort } from 'node:worker_threads';
import {
  CheckFailedError,
  CudaError,
  EngineUnavailableError,
  ExternalToolError,
  InternalError,
  InvalidArgumentError,
  InvalidInputError,
  IoError,
  IterationLimitError,
  LatticeMimoError,
  NodeBudgetError,
  RankDeficientError,
  UnsupportedError,
} from '../../src/core/errors.js';
import { serializeError } from '../../src/core/worker-pool.js';

/** The same makers as errors.test.ts, in its order. */
const MAKERS: ((reason: string, details: Record<string, unknown>) => LatticeMimoError)[] = [
  (r, d) => new LatticeMimoError('PRECISION_FAILURE', r, d),
  (r, d) => new InvalidArgumentError(r, d),
  (r, d) => new InvalidInputError('NON_FINITE', r, d),
  (r, d) => new RankDeficientError('ZERO_VECTOR', r, d),
  (r, d) => new IterationLimitError(r, d),
  (r, d) => new CheckFailedError(r, d),
  (r, d) => new EngineUnavailableError(r, d),
  (r, d) => new UnsupportedError(r, d),
  (r, d) => new CudaError('OUT_OF_MEMORY', 'CUDA_ERROR_OUT_OF_MEMORY', r, d),
  (r, d) => new ExternalToolError(r, d),
  (r, d) => new NodeBudgetError(r, d),
  (r, d) => new IoError(r, d),
  (r, d) => new InternalError(r, undefined, d),
];

parentPort?.on('message', ({ id, task }: { id: number; task: { which: number; vector: number; chunk: number } }) => {
  const err = MAKERS[task.which]!(`worker ${task.which}`, { size: task.which }).withContext({
    vector: task.vector,
    chunk: task.chunk,
  });
  parentPort!.postMessage({ id, ok: false, error: serializeError(err) });
});
