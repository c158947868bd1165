/**
 * Typed errors. Every error the library throws on purpose is a LatticeMimoError with a stable
 * `code`, so callers (and the CLI, which prints one line and exits 2) can tell problems apart.
 */
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
  | 'IO_ERROR';

export class LatticeMimoError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'LatticeMimoError';
    this.code = code;
    this.details = details;
  }
}

/** An option or argument is outside its allowed range or of the wrong kind. */
export class InvalidArgumentError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('INVALID_ARGUMENT', message, details);
    this.name = 'InvalidArgumentError';
  }
}

/** Input data is malformed: NaN/Inf, wrong lengths, ragged rows, empty input. */
export class InvalidInputError extends LatticeMimoError {
  constructor(code: 'INVALID_INPUT' | 'NON_FINITE' | 'SHAPE_MISMATCH' | 'PARSE_ERROR', message: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'InvalidInputError';
  }
}

/** The basis vectors are not linearly independent (a zero vector, or a dependent one). */
export class RankDeficientError extends LatticeMimoError {
  constructor(code: 'RANK_DEFICIENT' | 'ZERO_VECTOR', message: string, details?: Record<string, unknown>) {
    super(code, message, details);
    this.name = 'RankDeficientError';
  }
}

/** A loop reached maxIterations before the algorithm converged. */
export class IterationLimitError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('ITERATION_LIMIT', message, details);
    this.name = 'IterationLimitError';
  }
}

/** A result failed its verification and could not be repaired. */
export class CheckFailedError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('CHECK_FAILED', message, details);
    this.name = 'CheckFailedError';
  }
}

/** The requested engine (e.g. 'cuda') is not available on this machine. */
export class EngineUnavailableError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('ENGINE_UNAVAILABLE', message, details);
    this.name = 'EngineUnavailableError';
  }
}

/** A request the library understands but does not support (a size past a limit, say). */
export class UnsupportedError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('UNSUPPORTED', message, details);
    this.name = 'UnsupportedError';
  }
}

/** A CUDA driver or NVRTC call failed; `cudaError` carries the CUDA error name. */
export class CudaError extends LatticeMimoError {
  readonly cudaError: string;
  constructor(code: 'CUDA_ERROR' | 'NVRTC_ERROR' | 'OUT_OF_MEMORY', cudaError: string, message: string, details?: Record<string, unknown>) {
    super(code, message, { cudaError, ...details });
    this.name = 'CudaError';
    this.cudaError = cudaError;
  }
}

/** An external reference tool (fplll, IT++) failed or is missing. */
export class ExternalToolError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('EXTERNAL_TOOL', message, details);
    this.name = 'ExternalToolError';
  }
}

/** Reading or writing a file or stream failed (missing directory, no permission, full disk). */
export class IoError extends LatticeMimoError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('IO_ERROR', message, details);
    this.name = 'IoError';
  }
}
