/**
 * The core part's public API: batched column-major matrices, the typed errors, and the
 * counter-based generator shared by the CPU and GPU engines. Validation helpers and the worker
 * pool stay internal.
 */
export {
  LatticeMimoError,
  InvalidArgumentError,
  InvalidInputError,
  RankDeficientError,
  IterationLimitError,
  CheckFailedError,
  EngineUnavailableError,
  UnsupportedError,
  CudaError,
  ExternalToolError,
  NodeBudgetError,
  IoError,
  InternalError,
  asLibraryError,
  withContext,
  formatMessage,
  describeError,
  formatError,
  errorRecord,
  errorFromRecord,
  type ErrorCode,
  type ErrorContext,
  type ErrorRecord,
} from './errors.js';
export {
  makeBatch,
  zerosBatch,
  matrixAt,
  fromRows,
  toRows,
  matMul,
  identity,
  precisionOf,
  toPrecision,
  type MatrixBatch,
  type Precision,
  type RealArray,
} from './matrix.js';
export { Philox, philox4x32 } from './rng.js';
