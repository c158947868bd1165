/**
 * reduce(): one API for a single basis and for a batch, on any engine. Every output is B_in Z with
 * Z integer (exact for integer input), re-checked in float64 against the algorithm's conditions,
 * with Z proven unimodular in integer arithmetic. A float32 result that fails its check is redone in
 * float64 (counted in stats.redoneInFloat64); a result that still fails raises CheckFailedError,
 * so no unreduced basis is returned as reduced.
 */
import { CheckFailedError, EngineUnavailableError, InvalidInputError, LatticeMimoError } from '../core/errors.js';
import { makeBatch, matrixAt, precisionOf, toPrecision, type MatrixBatch, type RealArray } from '../core/matrix.js';
import {
  applyTransform, CHECK_TOLERANCE, checkLagrangePairs, checkLLL, checkUnimodular, gramSchmidt, qualityMetrics,
  type LagrangeCheck, type LLLCheck, type QualityMetrics, type UnimodularCheck,
} from './check.js';
import { reduceBatchCpu, reduceChunk, reduceOneCpu, withBasisIndex } from './cpu-batch.js';
import { CUDA_ALGORITHMS, CUDA_REDUCERS, cudaDeviceAvailable } from './cuda-registry.js';
import type { Algorithm, BasisStats, ReduceOptions } from './types.js';
import { assertIndependent, firstDependentColumn, firstZeroColumn, resolveOptions, validateBases, type ResolvedOptions } from './validate.js';

export interface BasisCheck {
  ok: boolean;
  /** Which conditions were checked: LLL (size reduction + Lovasz) or pairwise Lagrange (Jacobi). */
  kind: 'lll' | 'lagrange';
  conditions: LLLCheck | LagrangeCheck;
  unimodular: UnimodularCheck;
  metrics: QualityMetrics;
  /** True when this basis was redone in float64 after its float32 result failed. */
  redoneInFloat64: boolean;
}

export interface ReduceStats {
  algorithm: Algorithm;
  engine: 'cpu' | 'cuda';
  precision: 'float32' | 'float64';
  batch: number;
  n: number;
  m: number;
  iterations: number;
  swaps: number;
  sizeReductions: number;
  /** float32 results that failed the float64 check and were redone in float64. */
  redoneInFloat64: number;
  timeMs: number;
  perBasis: BasisStats[];
  /** CUDA engine only: device time of the kernels (events), the GPU call's wall time, chunks the batch was split into. */
  gpu?: { kernelMs: number; totalMs: number; chunks: number };
}

export interface ReduceResult {
  /** The reduced bases B_in Z (same array kind as the input). */
  basis: MatrixBatch;
  /** The unimodular transforms Z (batch x m x m, integer valued). */
  transform: MatrixBatch<Float64Array>;
  stats: ReduceStats;
  /** Per-basis proof and quality (absent when opts.check === false). */
  checks?: BasisCheck[];
}

export function isJacobiFamily(a: Algorithm): boolean {
  return a === 'jacobi' || a === 'jacobi-parallel';
}

/** Proof of one output basis: conditions in float64, Z unimodular exactly, quality metrics. */
export function checkBasis(out: ArrayLike<number>, Z: ArrayLike<number>, n: number, m: number, o: Pick<ResolvedOptions, 'algorithm' | 'delta' | 'eta'>): BasisCheck {
  const lagrange = isJacobiFamily(o.algorithm);
  const gs = gramSchmidt(out, n, m);
  const conditions = lagrange ? checkLagrangePairs(out, n, m) : checkLLL(out, n, m, o.delta, o.eta, CHECK_TOLERANCE, gs);
  const unimodular = checkUnimodular(Z, m);
  // Pairwise Lagrange conditions can hold for dependent vectors (three at 120 degrees in a plane),
  // so independence is part of the proof: every Gram-Schmidt vector keeps a residual far above rounding.
  const independent = firstDependentColumn(out, n, m, gs.r) < 0;
  if (!independent) conditions.violations.push('the output vectors are linearly dependent');
  return {
    ok: conditions.ok && unimodular.ok && independent,
    kind: lagrange ? 'lagrange' : 'lll',
    conditions,
    unimodular,
    metrics: qualityMetrics(out, n, m, gs),
    redoneInFloat64: false,
  };
}

function outputOf(Bin: ArrayLike<number>, Z: Float64Array, n: number, m: number, index: number): Float64Array {
  const out = applyTransform(Bin, Z, n, m);
  if (!out) throw new InvalidInputError('INVALID_INPUT', `basis ${index}: an entry of B Z exceeds 2^53 and cannot be represented exactly`);
  return out;
}

function describeFailure(c: BasisCheck): string {
  const v = c.conditions.violations.slice(0, 2).join('; ');
  return c.unimodular.ok ? v : `Z is not unimodular (det ${c.unimodular.det ?? 'not integer'})${v ? '; ' + v : ''}`;
}

/**
 * After a breakdown (an error, a zero output vector, a failed float64 check) on basis k: if its
 * vectors are dependent, that is the error to report (RankDeficientError, exact for integer bases).
 */
function diagnose(bases: MatrixBatch, k: number): void {
  assertIndependent(matrixAt(bases, k), bases.rows, bases.cols, bases.batch > 1 ? `basis ${k}: ` : '');
}

/** Rethrows an algorithm's error, replaced by the dependence diagnosis where that is the cause. */
function explainFailure(bases: MatrixBatch, err: unknown): never {
  const k = err instanceof LatticeMimoError ? (err.details as { basis?: number } | undefined)?.basis : undefined;
  if (k !== undefined && err instanceof LatticeMimoError && BREAKDOWNS.has(err.code)) diagnose(bases, k);
  throw err;
}

const BREAKDOWNS = new Set(['RANK_DEFICIENT', 'ZERO_VECTOR', 'PRECISION_FAILURE', 'UNSUPPORTED', 'ITERATION_LIMIT', 'CHECK_FAILED']);

/**
 * Turns the algorithm's raw Z into checked outputs. A float32 basis that broke down or failed its
 * check is redone in float64; a float64 failure is explained (dependence) or raised.
 */
function finish(bases: MatrixBatch, o: ResolvedOptions, Zall: Float64Array, perBasis: BasisStats[]): { out: Float64Array; checks?: BasisCheck[]; redone: number } {
  const { batch, rows: n, cols: m } = bases;
  const out = new Float64Array(batch * n * m);
  const checks: BasisCheck[] = [];
  let redone = 0;
  for (let k = 0; k < batch; k++) {
    const Bin = matrixAt(bases, k);
    let Z = Zall.subarray(k * m * m, (k + 1) * m * m);
    let Bk = outputOf(Bin, Z, n, m, k);
    let c = o.check && !perBasis[k]!.float32Failure ? checkBasis(Bk, Z, n, m, o) : undefined;
    if (o.precision === 'float32' && (perBasis[k]!.float32Failure || (c && !c.ok) || firstZeroColumn(Bk, n, m) >= 0)) {
      let again;
      try {
        again = reduceOneCpu(o.algorithm, Float64Array.from(Bin), n, m, o);
      } catch (err) {
        explainFailure(bases, withBasisIndex(err, k));
      }
      Zall.set(again.Z, k * m * m);
      Z = Zall.subarray(k * m * m, (k + 1) * m * m);
      perBasis[k] = again.stats;
      Bk = outputOf(Bin, Z, n, m, k);
      c = o.check ? { ...checkBasis(Bk, Z, n, m, o), redoneInFloat64: true } : undefined;
      redone++;
    }
    // Without the check, the Jacobi family (whose conditions say nothing of independence) still
    // gets the input's independence test; the LLL family breaks down on dependent input by itself.
    if (!c && isJacobiFamily(o.algorithm)) diagnose(bases, k);
    if (firstZeroColumn(Bk, n, m) >= 0 || (c && !c.ok)) {
      diagnose(bases, k);
      if (c && !c.ok) {
        throw new CheckFailedError(`basis ${k}: the ${o.algorithm} output failed its float64 check (${describeFailure(c)}); the basis may be too ill-conditioned for float64`, { basis: k });
      }
    }
    if (c) checks.push(c);
    out.set(Bk, k * n * m);
  }
  return { out, checks: o.check ? checks : undefined, redone };
}

function sumStats(s: BasisStats[]): Pick<ReduceStats, 'iterations' | 'swaps' | 'sizeReductions'> {
  let iterations = 0, swaps = 0, sizeReductions = 0;
  for (const b of s) { iterations += b.iterations; swaps += b.swaps; sizeReductions += b.sizeReductions; }
  return { iterations, swaps, sizeReductions };
}

function packResult(bases: MatrixBatch, o: ResolvedOptions, engine: 'cpu' | 'cuda', Z: Float64Array, perBasis: BasisStats[], t0: number): ReduceResult {
  const { batch, rows: n, cols: m } = bases;
  const { out, checks, redone } = finish(bases, o, Z, perBasis);
  const data: RealArray = precisionOf(bases.data) === 'float32' ? Float32Array.from(out) : out;
  return {
    basis: makeBatch(data, batch, n, m),
    transform: makeBatch(Z, batch, m, m),
    stats: {
      algorithm: o.algorithm, engine, precision: o.precision, batch, n, m, ...sumStats(perBasis),
      redoneInFloat64: redone, timeMs: performance.now() - t0, perBasis,
    },
    checks,
  };
}

/**
 * Which engine runs this call. 'cpu' always can. 'cuda' must: an algorithm without a GPU version,
 * or no device, is an EngineUnavailableError (never a silent fallback). 'auto' takes the GPU where
 * the algorithm has a GPU version and a device answers, the CPU otherwise.
 */
async function pickEngine(o: ResolvedOptions): Promise<'cpu' | 'cuda'> {
  if (o.engine === 'cpu') return 'cpu';
  const hasKernel = CUDA_REDUCERS[o.algorithm] !== undefined;
  if (o.engine === 'cuda' && !hasKernel) {
    throw new EngineUnavailableError(`'${o.algorithm}' has no CUDA implementation yet (CUDA algorithms: ${CUDA_ALGORITHMS.join(', ')}); use engine 'cpu' or 'auto'`);
  }
  if (!hasKernel) return 'cpu';
  const dev = await cudaDeviceAvailable();
  if (dev.ok) return 'cuda';
  if (o.engine === 'cuda') throw new EngineUnavailableError(`the CUDA engine was asked for but is not available: ${dev.reason}`);
  return 'cpu';
}

/**
 * Reduces every basis of the batch. Options: algorithm (default 'lll'), delta (0.75), eta (0.51),
 * blockSize, precision ('float64'), engine ('auto'), maxIterations, check (true), threads, onProgress.
 */
export async function reduce(bases: MatrixBatch, opts: ReduceOptions = {}): Promise<ReduceResult> {
  const t0 = performance.now();
  validateBases(bases);
  const o = resolveOptions(opts, bases.cols);
  const engine = await pickEngine(o);
  const { batch, rows: n, cols: m } = bases;
  const work = toPrecision(bases.data, o.precision);
  if (engine === 'cuda') {
    const reducer = await CUDA_REDUCERS[o.algorithm]!();
    const r = await reducer(work, batch, n, m, o).catch((err: unknown) => explainFailure(bases, err));
    const perBasis: BasisStats[] = [];
    for (let k = 0; k < batch; k++) {
      perBasis.push({ iterations: r.stats.iterations[k]!, swaps: r.stats.swaps[k]!, sizeReductions: r.stats.sizeReductions[k]! });
    }
    const res = packResult(bases, o, 'cuda', r.Z, perBasis, t0);
    res.stats.gpu = { kernelMs: r.stats.kernelMs, totalMs: r.stats.totalMs, chunks: r.stats.chunks };
    return res;
  }
  const run = await reduceBatchCpu(o.algorithm, work, batch, n, m, o, opts.threads, opts.onProgress)
    .catch((err: unknown) => explainFailure(bases, err));
  return packResult(bases, o, engine, run.Z, run.stats, t0);
}

/** Synchronous CPU reduction in this thread (for small work, e.g. LR-aided detection per channel). */
export function reduceSync(bases: MatrixBatch, opts: Omit<ReduceOptions, 'engine' | 'threads'> = {}): ReduceResult {
  const t0 = performance.now();
  validateBases(bases);
  const o = resolveOptions({ ...opts, engine: 'cpu' }, bases.cols);
  const { batch, rows: n, cols: m } = bases;
  const work = toPrecision(bases.data, o.precision);
  let run;
  try {
    run = reduceChunk({ algorithm: o.algorithm, params: o, n, m, work, count: batch, offset: 0 });
  } catch (err) {
    explainFailure(bases, err);
  }
  const { Z, stats } = run;
  return packResult(bases, o, 'cpu', Z, stats, t0);
}
