/**
 * Typed errors. Every error the library throws on purpose is a LatticeMimoError with a stable
 * `code`, so callers (and the CLI, which prints one line and exits 2) can tell problems apart.
 */
/** The stable codes of {@link LatticeMimoError}. */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_INPUT'
  | 'NON_FINITE'
  | 'SHAPE_MISMATCH'
  | 'RANK_DEFICIENT'
  | 'ZERO_VECTOR'
  | 'PARSE_ERROR'
  | 'ITERATION_LIMIT'
  | 'PRECISION_FAILURE'
  | 'CHECK_FAILED'
  | 'UNSUPPORTED'
  | 'ENGINE_UNAVAILABLE'
  | 'CUDA_ERROR'
  | 'NVRTC_ERROR'
  | 'OUT_OF_MEMORY'
  | 'KERNEL_TIMEOUT'
  | 'EXTERNAL_TOOL'
  | 'NODE_BUDGET'
  | 'IO_ERROR';

/** Base class of every error the library throws on purpose; `code` tells problems apart. */
export class LatticeMimoError extends Error {
  /** Stable machine-readable code; the message may change wording, the code does not. */
  readonly code: ErrorCode;
  /** Context for programs (sizes, indices, the offending value), where the thrower has it. */
  readonly details?: Record<string, unknown>;
  /** `message` names the problem in words a user can act on; `details` carries machine-readable context. */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'LatticeMimoError';
    this.code = code;
    this.details = details;
  }
}

/** An option or argument is outside its allowed range or of the wrong kind. */
export class InvalidArgumentError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('INVALID_ARGUMENT', message, details);
    this.name = 'InvalidArgumentError';
  }
}

/** Input data is malformed: NaN/Inf, wrong lengths, ragged rows, empty input. */
export class InvalidInputError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(
    code: 'INVALID_INPUT' | 'NON_FINITE' | 'SHAPE_MISMATCH' | 'PARSE_ERROR',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, details);
    this.name = 'InvalidInputError';
  }
}

/** The basis vectors are not linearly independent (a zero vector, or a dependent one). */
export class RankDeficientError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(code: 'RANK_DEFICIENT' | 'ZERO_VECTOR', message: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'RankDeficientError';
  }
}

/** A loop reached maxIterations before the algorithm converged. */
export class IterationLimitError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('ITERATION_LIMIT', message, details);
    this.name = 'IterationLimitError';
  }
}

/** A result failed its verification and could not be repaired. */
export class CheckFailedError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('CHECK_FAILED', message, details);
    this.name = 'CheckFailedError';
  }
}

/** The requested engine (e.g. 'cuda') is not available on this machine. */
export class EngineUnavailableError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('ENGINE_UNAVAILABLE', message, details);
    this.name = 'EngineUnavailableError';
  }
}

/** A request the library understands but does not support (a size past a limit, say). */
export class UnsupportedError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('UNSUPPORTED', message, details);
    this.name = 'UnsupportedError';
  }
}

/** A CUDA driver or NVRTC call failed; `cudaError` carries the CUDA error name. */
export class CudaError extends LatticeMimoError {
  /** The driver's or NVRTC's own error name (e.g. CUDA_ERROR_OUT_OF_MEMORY). */
  readonly cudaError: string;
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(
    code: 'CUDA_ERROR' | 'NVRTC_ERROR' | 'OUT_OF_MEMORY',
    cudaError: string,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(code, message, { cudaError, ...details });
    this.name = 'CudaError';
    this.cudaError = cudaError;
  }
}

/** An external reference tool (fplll, IT++) failed or is missing. */
export class ExternalToolError extends LatticeMimoError {
  /** `message` names the problem; `details` carries machine-readable context. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('EXTERNAL_TOOL', message, details);
    this.name = 'ExternalToolError';
  }
}

/**
 * An exact tree search (sphere, psd) reached its node budget (DetectOptions.maxNodes) before it
 * proved its answer ML, or a detector's fixed work per vector (ml, kbest) exceeds the budget.
 * details: { detector, maxNodes, vector? }.
 */
export class NodeBudgetError extends LatticeMimoError {
  /** The message names the vector and the budget; details: { detector, maxNodes, vector? }. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('NODE_BUDGET', message, details);
    this.name = 'NodeBudgetError';
  }
}

/** Reading or writing a file or stream failed (missing directory, no permission, full disk). */
export class IoError extends LatticeMimoError {
  /** The message names the file or stream and the system error. */
  constructor(message: string, details?: Record<string, unknown>) {
    super('IO_ERROR', message, details);
    this.name = 'IoError';
  }
}
