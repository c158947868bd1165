/** Validation of reduce() inputs and options: every problem gets a typed error naming it. */
import { InvalidArgumentError, InvalidInputError, RankDeficientError } from '../core/errors.js';
import { matrixAt, type MatrixBatch } from '../core/matrix.js';
import { assertFinite, assertInRange, assertOneOf, assertPositiveInt } from '../core/validate.js';
import { gramSchmidt, isIntegral } from './check.js';
import { provablyFullRank } from './exact-rank.js';
import { checkEngineRequest } from '../gpu/engine.js';
import { validateGpuTuning } from './gpu-tuning.js';
import { ALGORITHMS, type AlgoParams, type Algorithm, type Engine, type ReduceOptions } from './types.js';

export const DEFAULTS = { algorithm: 'lll' as Algorithm, delta: 0.75, eta: 0.51, blockSize: 8 };

/** Loop bound used when the caller gives none: generous, but a bound. */
export function defaultMaxIterations(m: number): number {
  return Math.max(1_000_000, 200 * m * m);
}

export interface ResolvedOptions extends AlgoParams {
  algorithm: Algorithm;
  engine: Engine;
  precision: 'float32' | 'float64';
  check: boolean;
}

export function resolveOptions(opts: ReduceOptions, m: number): ResolvedOptions {
  const algorithm = opts.algorithm ?? DEFAULTS.algorithm;
  assertOneOf(algorithm, 'algorithm', ALGORITHMS);
  const engine = checkEngineRequest(opts.engine);
  const precision = opts.precision ?? 'float64';
  assertOneOf(precision, 'precision', ['float32', 'float64'] as const);
  const delta = opts.delta ?? DEFAULTS.delta;
  assertNumber(delta, 'delta');
  assertInRange(delta, 'delta', 0.25, 1, true, true);
  const eta = opts.eta ?? DEFAULTS.eta;
  assertNumber(eta, 'eta');
  if (typeof eta !== 'number' || !(eta >= 0.5) || !(eta < Math.sqrt(delta))) {
    throw new InvalidArgumentError(
      `eta must be in [0.5, sqrt(delta)) = [0.5, ${Math.sqrt(delta).toFixed(6)}), got ${String(eta)}`,
    );
  }
  const blockSize = opts.blockSize ?? DEFAULTS.blockSize;
  assertPositiveInt(blockSize, 'blockSize');
  if (blockSize < 2) throw new InvalidArgumentError(`blockSize must be at least 2, got ${blockSize}`);
  const maxIterations = opts.maxIterations ?? defaultMaxIterations(m);
  assertPositiveInt(maxIterations, 'maxIterations');
  const driftWatch = opts.driftWatch ?? true;
  if (typeof driftWatch !== 'boolean')
    throw new InvalidArgumentError(`driftWatch must be true or false, got ${String(driftWatch)}`);
  const float32Arithmetic = opts.float32Arithmetic ?? 'double';
  assertOneOf(float32Arithmetic, 'float32Arithmetic', ['double', 'float32'] as const);
  const gpuTuning = opts.gpuTuning === undefined ? undefined : validateGpuTuning(opts.gpuTuning);
  return {
    algorithm,
    engine,
    precision,
    delta,
    eta,
    blockSize,
    maxIterations,
    check: opts.check ?? true,
    driftWatch,
    float32Arithmetic,
    ...(gpuTuning ? { gpuTuning } : {}),
  };
}

/** A parameter given as another type (a string '0.9', say) is named as such, not as out of range. */
function assertNumber(v: unknown, what: string): void {
  if (typeof v !== 'number')
    throw new InvalidArgumentError(`${what} must be a number, got ${typeof v} ${JSON.stringify(v) ?? String(v)}`);
}

/** Magnitudes past which a basis is rescaled (UNIT_SCALE_LIMIT and its inverse): squared norms and Gram-Schmidt would leave float64's range. */
const UNIT_SCALE_LIMIT = 2 ** 128;

/**
 * Lattice reduction is scale-invariant (Z does not change when every entry is multiplied by one
 * number), so a basis whose largest entry is beyond 2^128 or below 2^-128 is scaled by a power of
 * two (exact) to a largest entry in [1, 2): then [[1e-200 0][0 1e-200]] is not "dependent" because
 * its squared norms underflow. Returns null when no basis of the batch needs it; otherwise the
 * scaled batch and the inverse scaling for the output (same array kind, batch x n x m).
 */
export function unitScale(b: MatrixBatch): { scaled: MatrixBatch; unscale: (out: MatrixBatch) => MatrixBatch } | null {
  const size = b.rows * b.cols;
  const factors: number[] = [];
  let any = false;
  for (let k = 0; k < b.batch; k++) {
    let big = 0;
    for (let i = k * size; i < (k + 1) * size; i++) big = Math.max(big, Math.abs(b.data[i]!));
    const e = big > 0 && (big > UNIT_SCALE_LIMIT || big < 1 / UNIT_SCALE_LIMIT) ? -Math.floor(Math.log2(big)) : 0;
    factors.push(e);
    if (e !== 0) any = true;
  }
  if (!any) return null;
  // 2^e in two halves: 2^e alone can overflow for e near +-1074 (subnormal inputs)
  const mul = (data: MatrixBatch['data'], sign: number) => {
    const out = data.slice();
    for (let k = 0; k < b.batch; k++) {
      const e = sign * factors[k]!,
        h = Math.trunc(e / 2),
        f1 = 2 ** h,
        f2 = 2 ** (e - h);
      for (let i = k * size; i < (k + 1) * size; i++) out[i] = out[i]! * f1 * f2;
    }
    return out;
  };
  return {
    scaled: { ...b, data: mul(b.data, 1) },
    unscale: (out) => ({ ...out, data: mul(out.data, -1) }),
  };
}

/** The batch's shape: its array kind, positive sizes, m <= n, and the data's length. */
export function validateShape(b: MatrixBatch): void {
  if (!b || typeof b !== 'object' || !(b.data instanceof Float64Array || b.data instanceof Float32Array)) {
    throw new InvalidInputError(
      'INVALID_INPUT',
      'bases must be {batch, rows, cols, data: Float64Array | Float32Array}',
    );
  }
  for (const [k, v] of [
    ['batch', b.batch],
    ['rows', b.rows],
    ['cols', b.cols],
  ] as const) {
    if (!Number.isInteger(v) || v < 1)
      throw new InvalidInputError('INVALID_INPUT', `${k} must be a positive integer, got ${v} (empty input?)`);
  }
  const { batch, rows: n, cols: m } = b;
  if (m > n)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `a basis has m = ${m} vectors in dimension n = ${n}: m vectors in R^n are dependent when m > n`,
    );
  if (b.data.length !== batch * n * m) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `data has ${b.data.length} elements, batch x n x m = ${batch} x ${n} x ${m} = ${batch * n * m}`,
    );
  }
}

/** Shape, finiteness and no zero vector in any basis of the batch. */
export function validateBases(b: MatrixBatch): void {
  validateShape(b);
  const { batch, rows: n, cols: m } = b;
  assertFinite(b.data, 'basis data');
  for (let k = 0; k < batch; k++) assertNoZeroVector(matrixAt(b, k), n, m, batch > 1 ? `basis ${k}: ` : '');
}

/**
 * Zero vectors are caught up front (O(nm)). Linear dependence costs a Gram-Schmidt (as much as an
 * LLL of an easy basis), so it is diagnosed only when a reduction breaks down or its output has a
 * zero vector: see reduce.ts, which then calls assertIndependent.
 */
export function assertNoZeroVector(B: ArrayLike<number>, n: number, m: number, prefix = ''): void {
  const j = firstZeroColumn(B, n, m);
  if (j >= 0) throw new RankDeficientError('ZERO_VECTOR', `${prefix}basis vector ${j} is zero`, { vector: j });
}

/** Index of the first all-zero column, or -1. */
export function firstZeroColumn(B: ArrayLike<number>, n: number, m: number): number {
  for (let j = 0; j < m; j++) {
    let zero = true;
    for (let t = 0; t < n && zero; t++) if (B[j * n + t] !== 0) zero = false;
    if (zero) return j;
  }
  return -1;
}

/**
 * The float64 independence test: index of the first column whose Gram-Schmidt residual is not far
 * above rounding (||b*_j||^2 <= relative ||b_j||^2; default 1e-24, i.e. 1e-12 in norm), or -1.
 * `r` are the squared Gram-Schmidt norms (gramSchmidt(B).r).
 */
export function firstDependentColumn(
  B: ArrayLike<number>,
  n: number,
  m: number,
  r: Float64Array,
  relative = 1e-24,
): number {
  for (let j = 0; j < m; j++) {
    let s = 0;
    for (let t = 0; t < n; t++) s += B[j * n + t]! * B[j * n + t]!;
    if (!(r[j]! > relative * s)) return j;
  }
  return -1;
}

/**
 * Rejects zero vectors and dependent ones. Float64 Gram-Schmidt decides for real bases; an integer
 * basis that it flags is tested exactly (rank modulo primes), so badly conditioned but independent
 * integer bases are accepted.
 */
export function assertIndependent(B: ArrayLike<number>, n: number, m: number, prefix = ''): void {
  assertNoZeroVector(B, n, m, prefix);
  const { r } = gramSchmidt(B, n, m);
  const j = firstDependentColumn(B, n, m, r);
  if (j < 0) return;
  const integral = isIntegral(B);
  if (integral && provablyFullRank(B, n, m)) return;
  let s = 0;
  for (let t = 0; t < n; t++) s += B[j * n + t]! * B[j * n + t]!;
  const ratio = Math.sqrt(Math.max(0, r[j]!) / s);
  throw new RankDeficientError(
    'RANK_DEFICIENT',
    `${prefix}basis vector ${j} is linearly dependent on the vectors before it (Gram-Schmidt residual ${ratio.toExponential(2)} of its length${integral ? ', confirmed exactly' : ', below float64 resolution'})`,
    { vector: j, residual: ratio },
  );
}

/** The caller's out.counts for a batch: absent, or an Int32Array of 3 x batch (iterations, swaps, size reductions). */
export function checkCountsArray(counts: unknown, batch: number): Int32Array | undefined {
  if (counts !== undefined && (!(counts instanceof Int32Array) || counts.length !== 3 * batch)) {
    throw new InvalidArgumentError(`out.counts must be an Int32Array of 3 x batch = ${3 * batch} elements`);
  }
  return counts;
}
