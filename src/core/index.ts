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
  type ErrorCode,
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
export {
  option,
  integer,
  number,
  choice,
  boolean,
  string,
  callback,
  instanceOf,
  arrayOf,
  object,
  either,
  checkOptions,
  nearest,
  type Check,
  type ValueKind,
  type ValueCheck,
  type CliFlag,
  type OptionSpec,
  type OptionSchema,
  type OptionsOf,
  type SchemaOf,
} from './options.js';
export { show, oneOf } from './show.js';
