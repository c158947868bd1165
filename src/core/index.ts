/**
 * The core part's public API: batched column-major matrices, the typed errors, the counter-based
 * generator shared by the CPU and GPU engines, the strict options schemas every part declares its
 * options with, and checked allocation of arrays sized by a caller's input. The worker pool stays
 * internal.
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
export { Philox, philox4x32, philoxWords } from './rng.js';
export {
  checkOptions,
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
  satisfying,
  inapplicable,
  nearest,
  type Check,
  type ValueKind,
  type ValueCheck,
  type CliFlag,
  type OptionSpec,
  type OptionSchema,
  type OptionsOf,
  type SameKeys,
  type SchemaOf,
} from './options.js';
export { MAX_ARRAY_LENGTH, checkArrayLength, allocArray, type TypedArrayKind } from './alloc.js';
export { allocReal, allocLike } from './matrix.js';
export { show, oneOf } from './show.js';

// What other parts of the package use (the package index, src/index.ts, picks what users see).
export {
  checkOutputPath,
  toIoError,
  writeFileAtomic,
  readInput,
  writeOutput,
  checkDistinctOutputs,
  writeFileAtomicSync,
  writesInPlace,
} from './io.js';
export {
  defaultThreads,
  deserializeError,
  runOnWorkers,
  serializeError,
  WorkerPool,
  type SerializedError,
} from './worker-pool.js';
export { assertFinite } from './validate.js';
export {
  CPU_KERNEL_REQUESTS,
  WASM_ENV,
  describeCpuKernels,
  pickCpuKernel,
  instantiateWasmKernel,
  sharedWasmKernel,
  wasmSimdSupported,
  wasmUnavailableReason,
  type CpuKernel,
  type CpuKernelRequest,
  type WasmKernelInstance,
} from './wasm-kernels.js';
