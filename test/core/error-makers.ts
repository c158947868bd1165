/**
 * One maker of each library error class, from its words and details (the constructors' parameters
 * differ): errors.test.ts and its throwing worker build the same errors from an index.
 */
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

/** [class name, maker] of every class errorFromRecord() rebuilds. */
export const MAKERS: [string, (reason: string, details: Record<string, unknown>) => LatticeMimoError][] = [
  ['LatticeMimoError', (r, d) => new LatticeMimoError('PRECISION_FAILURE', r, d)],
  ['InvalidArgumentError', (r, d) => new InvalidArgumentError(r, d)],
  ['InvalidInputError', (r, d) => new InvalidInputError('NON_FINITE', r, d)],
  ['RankDeficientError', (r, d) => new RankDeficientError('ZERO_VECTOR', r, d)],
  ['IterationLimitError', (r, d) => new IterationLimitError(r, d)],
  ['CheckFailedError', (r, d) => new CheckFailedError(r, d)],
  ['EngineUnavailableError', (r, d) => new EngineUnavailableError(r, d)],
  ['UnsupportedError', (r, d) => new UnsupportedError(r, d)],
  ['CudaError', (r, d) => new CudaError('OUT_OF_MEMORY', 'CUDA_ERROR_OUT_OF_MEMORY', r, d)],
  ['ExternalToolError', (r, d) => new ExternalToolError(r, d)],
  ['NodeBudgetError', (r, d) => new NodeBudgetError(r, d)],
  ['IoError', (r, d) => new IoError(r, d)],
  ['InternalError', (r, d) => new InternalError(r, undefined, d)],
];
