/**
 * Typed errors. Every error the library throws on purpose is a LatticeMimoError with a stable
 * `code`, so callers (and the CLI, which prints one line and exits 2) can tell problems apart.
 *
 * How an error travels: the thrower writes its words (`reason`) and its facts (`details`); code on
 * the way up that knows where the failure happened (the SNR point, the chunk, the basis, the
 * channel, the vector) adds it with {@link withContext}, which returns a new error of the same class
 * with the place in `context` (and merged into `details`), never by editing words. The message a
 * user reads is composed once, by {@link formatMessage}: the place, then the thrower's words
 * ("SNR point 2 (10 dB), detector sphere, chunk 3, vector 17: the search reached the node budget
 * ..."). A failure kept as a value rather than thrown (a float32 basis to redo, a rung of the
 * precision ladder that failed, an error crossing a worker thread) is an {@link ErrorRecord}: plain
 * data that {@link errorFromRecord} turns back into the same error. Programs decide on `code` and
 * `details`, never on words; the command line prints {@link formatError}'s text.
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
  | 'IO_ERROR'
  | 'INTERNAL';

/**
 * Where a failure happened, as the code on the way up knows it. Each key is rendered in the
 * message, in this order: `file`, then `SNR point <snrIndex> (<snr> dB)`, `detector <detector>`,
 * `chunk <chunk>`, `basis <basis>`, `channel <channel>`, `vector <vector>`. An outer caller's value
 * replaces an inner one of the same key: indices are those of the outermost call that names them
 * (a vector of a sub-batch becomes the vector of the caller's batch).
 */
export interface ErrorContext {
  /** The file the failing data came from. */
  readonly file?: string;
  /** Simulation: the SNR point's index in `snrs`. */
  readonly snrIndex?: number;
  /** Simulation: the SNR point in dB (of the run's snrType). */
  readonly snr?: number;
  /** MIMO: the detector (its label in a simulation, its name elsewhere). */
  readonly detector?: string;
  /** Simulation: the chunk's index at its SNR point. */
  readonly chunk?: number;
  /** Lattice: the basis' index in its batch. */
  readonly basis?: number;
  /** MIMO: the channel matrix's index in its batch. */
  readonly channel?: number;
  /** MIMO: the received vector's index (in the batch, or in its chunk where `chunk` is named). */
  readonly vector?: number;
}

/** The order and the words in which {@link formatMessage} renders a context. */
const CONTEXT_WORDS: readonly [keyof ErrorContext, (c: ErrorContext) => string | null][] = [
  ['file', (c) => c.file ?? null],
  [
    'snrIndex',
    (c) => (c.snrIndex === undefined ? null : `SNR point ${c.snrIndex}${c.snr === undefined ? '' : ` (${c.snr} dB)`}`),
  ],
  ['snr', (c) => (c.snrIndex === undefined && c.snr !== undefined ? `SNR ${c.snr} dB` : null)],
  ['detector', (c) => (c.detector === undefined ? null : `detector ${c.detector}`)],
  ['chunk', (c) => (c.chunk === undefined ? null : `chunk ${c.chunk}`)],
  ['basis', (c) => (c.basis === undefined ? null : `basis ${c.basis}`)],
  ['channel', (c) => (c.channel === undefined ? null : `channel ${c.channel}`)],
  ['vector', (c) => (c.vector === undefined ? null : `vector ${c.vector}`)],
];

const CONTEXT_KEYS: ReadonlySet<string> = new Set(CONTEXT_WORDS.map(([k]) => k));

/**
 * The one composition of an error's message: the place (`context`, in {@link ErrorContext}'s
 * order), then the thrower's words. No context: the words alone.
 */
export function formatMessage(reason: string, context: ErrorContext = {}): string {
  const place: string[] = [];
  for (const [, words] of CONTEXT_WORDS) {
    const w = words(context);
    if (w !== null) place.push(w);
  }
  return place.length > 0 ? `${place.join(', ')}: ${reason}` : reason;
}

/** Base class of every error the library throws on purpose; `code` tells problems apart. */
export class LatticeMimoError extends Error {
  /** Stable machine-readable code; the message may change wording, the code does not. */
  readonly code: ErrorCode;
  /**
   * Context for programs (sizes, indices, the offending value), where the thrower has it, with the
   * place added on the way up (`context`) merged in.
   */
  readonly details?: Record<string, unknown>;
  /** The thrower's own words; `message` is these after the place (formatMessage). */
  readonly reason: string;
  /** Where the failure happened, added on the way up (withContext); empty where the thrower's words say it all. */
  readonly context: ErrorContext;
  /** `message` names the problem in words a user can act on; `details` carries machine-readable context. */
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'LatticeMimoError';
    this.code = code;
    this.details = details;
    this.reason = message;
    this.context = Object.freeze({});
  }

  /**
   * This error at a place: a new error of the same class (code, reason, own fields kept) whose
   * context and details gain `context` (an outer value replacing an inner one) and `details` (facts
   * for programs that the message does not show, such as a partial result). A place the thrower
   * already put in its details with the same value is its words' own and is not repeated in the
   * message. `cause` is the error as first thrown, whatever the places added since (an
   * InternalError's: the value it wraps), so its stack is where the failure happened.
   */
  withContext(context: ErrorContext, details?: Record<string, unknown>): this {
    const merged: Record<string, unknown> = { ...this.context };
    for (const [k, v] of Object.entries(context)) {
      if (v === undefined) continue;
      if (!(k in this.context) && this.details?.[k] === v) continue;
      merged[k] = v;
    }
    const cause = this.cause !== undefined ? this.cause : this;
    return rebuild(this, this.reason, merged as ErrorContext, { ...this.details, ...merged, ...details }, cause);
  }
}

/**
 * An error of `like`'s class (its prototype, name, code and own fields such as CudaError's
 * cudaError) with the given reason, context and details, composed into its message. Built through
 * Error itself, so it is a real Error (stack, util.inspect) without running the subclass'
 * constructor, whose parameters differ from class to class.
 */
function rebuild<E extends LatticeMimoError>(
  like: E,
  reason: string,
  context: ErrorContext,
  details: Record<string, unknown> | undefined,
  cause?: unknown,
): E {
  const e = Reflect.construct(
    Error,
    cause === undefined ? [formatMessage(reason, context)] : [formatMessage(reason, context), { cause }],
    like.constructor,
  ) as E;
  const own = { ...like } as Record<string, unknown>;
  delete own.cause;
  Object.assign(e, own, { reason, context: Object.freeze({ ...context }), details });
  return e;
}

/**
 * `err` at a place (see LatticeMimoError.withContext); any other thrown value is returned as it is
 * (a bug's error keeps its own stack and words).
 */
export function withContext<T>(err: T, context: ErrorContext, details?: Record<string, unknown>): T {
  return err instanceof LatticeMimoError ? (err.withContext(context, details) as T) : err;
}

/**
 * A failure as plain data (structured-clone and JSON safe where its details are): what a failure
 * kept rather than thrown holds, and what crosses a worker thread. `message` is the composed text,
 * for readers of JSON; errorFromRecord() rebuilds the error from the rest.
 */
export interface ErrorRecord {
  /** The error's stable code. */
  code: ErrorCode;
  /** The class's name (NodeBudgetError, ...): errorFromRecord() rebuilds that class. */
  name: string;
  /** The thrower's words. */
  reason: string;
  /** The message as formatMessage() composed it. */
  message: string;
  /** The error's details (its context merged in). */
  details?: Record<string, unknown>;
  /** Where it happened, where the calls on the way up said so. */
  context?: ErrorContext;
}

/** `err` as an ErrorRecord. */
export function errorRecord(err: LatticeMimoError): ErrorRecord {
  return {
    code: err.code,
    name: err.name,
    reason: err.reason,
    message: err.message,
    ...(err.details !== undefined ? { details: err.details } : {}),
    ...(Object.keys(err.context).length > 0 ? { context: { ...err.context } } : {}),
  };
}

/** The error an ErrorRecord holds, of its class where the name is one of this module's. */
export function errorFromRecord(r: ErrorRecord): LatticeMimoError {
  const cls = ERROR_CLASSES[r.name] ?? LatticeMimoError;
  const like = Object.create(cls.prototype) as LatticeMimoError;
  Object.assign(like, { name: r.name, code: r.code });
  if (cls === CudaError) Object.assign(like, { cudaError: String(r.details?.cudaError ?? '') });
  const context: ErrorContext = {};
  for (const [k, v] of Object.entries(r.context ?? {})) if (CONTEXT_KEYS.has(k)) Object.assign(context, { [k]: v });
  return rebuild(like, r.reason, context, r.details);
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

/**
 * A failure the library did not expect: a bug, or a worker thread that died. Raised where a
 * partial result must travel with the failure (simulate()'s `details.partial`); `cause` holds
 * what was thrown.
 */
export class InternalError extends LatticeMimoError {
  /** `message`: the words of what was thrown; `cause`: the thrown value itself. */
  constructor(message: string, cause?: unknown, details?: Record<string, unknown>) {
    super('INTERNAL', message, details);
    this.name = 'InternalError';
    if (cause !== undefined) Object.defineProperty(this, 'cause', { value: cause, configurable: true, writable: true });
  }
}

/** `err` itself when it is a LatticeMimoError, else an InternalError with its words and `err` as the cause. */
export function asLibraryError(err: unknown): LatticeMimoError {
  if (err instanceof LatticeMimoError) return err;
  return new InternalError(err instanceof Error ? err.message : String(err), err);
}

/** The classes errorFromRecord() rebuilds, by name. */
const ERROR_CLASSES: Record<string, new (...args: never[]) => LatticeMimoError> = {
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
};

/**
 * The code and words a user is shown for anything thrown: a LatticeMimoError's own; Node's
 * argument-parser errors are INVALID_ARGUMENT, its system errors (an errno code such as ENOSPC)
 * IO_ERROR, anything else INTERNAL. The words are as thrown (the command line's edge makes them
 * safe for a terminal).
 */
export function describeError(err: unknown): { code: ErrorCode; message: string } {
  if (err instanceof LatticeMimoError) return { code: err.code, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  const nodeCode = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  if (typeof nodeCode === 'string' && nodeCode.startsWith('ERR_PARSE_ARGS'))
    return { code: 'INVALID_ARGUMENT', message };
  if (typeof nodeCode === 'string' && /^E[A-Z0-9]+$/.test(nodeCode)) return { code: 'IO_ERROR', message };
  return { code: 'INTERNAL', message };
}

/** The text the command line prints for an error (after its program name): `error [CODE]: message`. */
export function formatError(err: unknown): string {
  const { code, message } = describeError(err);
  return `error [${code}]: ${message}`;
}
