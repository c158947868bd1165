/**
 * reduce(): one API for a single basis and for a batch, on any engine. Every output is B_in Z with
 * Z integer (exact for integer input), re-checked in float64 against the algorithm's conditions,
 * with Z proven unimodular in integer arithmetic. A float32 result that fails its check is redone in
 * float64 (counted in stats.redoneInFloat64); a float64 breakdown of a per-basis GPU kernel of
 * allswap, block or cr-block is redone on the CPU engine, whose reducers have the drift watch
 * (stats.redoneOnCpu); a result that still fails raises CheckFailedError, so no unreduced basis is
 * returned as reduced.
 */
import { CheckFailedError, EngineUnavailableError, InvalidInputError, LatticeMimoError } from '../core/errors.js';
import { makeBatch, matrixAt, precisionOf, toPrecision, type MatrixBatch, type RealArray } from '../core/matrix.js';
import { rebuildTransform, type ExactTransform } from './exact-transform.js';
import { transformLost, transformOverflow } from './lll/columns.js';
import {
  applyTransform, CHECK_TOLERANCE, checkLagrangePairs, checkLLL, checkUnimodular, gramSchmidt, isIntegral, qualityMetrics,
  type LagrangeCheck, type LLLCheck, type QualityMetrics, type UnimodularCheck,
} from './check.js';
import { reduceBatchCpu, reduceChunk, reduceOneCpu, withBasisIndex } from './cpu-batch.js';
import { CUDA_ALGORITHMS, CUDA_REDUCERS, cudaDeviceAvailable, type CudaReducer } from './cuda-registry.js';
import type { Algorithm, BasisStats, ReduceOptions } from './types.js';
import { assertIndependent, firstDependentColumn, firstZeroColumn, resolveOptions, unitScale, validateBases, type ResolvedOptions } from './validate.js';

export interface BasisCheck {
  ok: boolean;
  /** Which conditions were checked: LLL (size reduction + Lovasz) or pairwise Lagrange (Jacobi). */
  kind: 'lll' | 'lagrange';
  conditions: LLLCheck | LagrangeCheck;
  unimodular: UnimodularCheck;
  metrics: QualityMetrics;
  /** True when this basis was redone in float64 after its float32 result failed. */
  redoneInFloat64: boolean;
  /** True when a GPU float64 result of this basis broke down and the basis was redone on the CPU (drift watch). */
  redoneOnCpu: boolean;
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
  /** CUDA engine, float64, allswap / block / cr-block: bases whose GPU run broke down and were redone on the CPU. */
  redoneOnCpu: number;
  timeMs: number;
  perBasis: BasisStats[];
  /**
   * CUDA engine only: device time of the kernels (events), the GPU call's wall time, chunks the
   * batch was split into, and which kernel ran (its plan's variant, e.g. 'grid' for the
   * whole-device kernel).
   */
  gpu?: { kernelMs: number; totalMs: number; chunks: number; variant: string };
}

export interface ReduceResult {
  /** The reduced bases B_in Z (same array kind as the input). */
  basis: MatrixBatch;
  /** The unimodular transforms Z (batch x m x m, integer valued; NaN for a basis in wideTransforms). */
  transform: MatrixBatch<Float64Array>;
  stats: ReduceStats;
  /** Per-basis proof and quality (absent when opts.check === false). */
  checks?: BasisCheck[];
  /**
   * Integral input only: the exact Z (column-major m x m BigInts) of each basis whose transform
   * has an entry past 2^53, keyed by basis index; `transform` holds NaN for those bases. Each is
   * proven: B_in Z = B_out exactly, and (with the check) unimodular. See exact-transform.ts.
   */
  wideTransforms?: Map<number, bigint[]>;
}

export function isJacobiFamily(a: Algorithm): boolean {
  return a === 'jacobi' || a === 'jacobi-parallel';
}

/** Proof of one output basis: conditions in float64, Z unimodular exactly, quality metrics. */
export function checkBasis(
  out: ArrayLike<number>, Z: ArrayLike<number>, n: number, m: number, o: Pick<ResolvedOptions, 'algorithm' | 'delta' | 'eta'>,
  provenUnimodular?: UnimodularCheck,
): BasisCheck {
  const lagrange = isJacobiFamily(o.algorithm);
  const gs = gramSchmidt(out, n, m);
  const conditions = lagrange ? checkLagrangePairs(out, n, m) : checkLLL(out, n, m, o.delta, o.eta, CHECK_TOLERANCE, gs);
  const unimodular = provenUnimodular ?? checkUnimodular(Z, m);
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
    redoneOnCpu: false,
  };
}

/**
 * The output basis of basis `index` and, when its Z passed 2^53 (NaN entries, see columns.ts), the
 * exact wide Z rebuilt from the reducer's own output (integral float64 input only: B is then exact
 * by itself). `null` asks the caller to redo a float32 run in float64.
 */
function outputOf(
  Bin: ArrayLike<number>, Z: Float64Array, reduced: RealArray | undefined, n: number, m: number, index: number, prove: boolean,
): { B: Float64Array; wide?: ExactTransform & { det: bigint | null } } | null {
  if (!transformLost(Z)) {
    const out = applyTransform(Bin, Z, n, m);
    if (!out) throw new InvalidInputError('INVALID_INPUT', `basis ${index}: an entry of B Z exceeds 2^53 and cannot be represented exactly`);
    return { B: out };
  }
  if (reduced instanceof Float32Array) return null;
  if (!reduced || !isIntegral(Bin) || !isSafeIntegral(reduced)) throw withBasisIndex(transformOverflow(), index);
  const B = Float64Array.from(reduced);
  return { B, wide: rebuildTransform(Bin, B, n, m, prove) };
}

function isSafeIntegral(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isSafeInteger(a[i]!)) return false;
  return true;
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
  if (k !== undefined && err instanceof LatticeMimoError && BREAKDOWNS.has(err.code)) {
    diagnose(bases, k);
    // independent after all: the "dependence" was floating point losing the basis
    if (err.code === 'RANK_DEFICIENT' || err.code === 'ZERO_VECTOR') {
      throw new LatticeMimoError('PRECISION_FAILURE', `basis ${k} is linearly independent, but the reduction lost it in floating point (${err.message}): it is too ill-conditioned for this algorithm in float64${isIntegral(matrixAt(bases, k)) ? ' (an integer basis: lllIntegral() and the reduce command run lll up a precision ladder to exact arithmetic)' : ''}`, { ...err.details, basis: k });
    }
  }
  throw err;
}

const BREAKDOWNS = new Set(['RANK_DEFICIENT', 'ZERO_VECTOR', 'PRECISION_FAILURE', 'UNSUPPORTED', 'ITERATION_LIMIT', 'CHECK_FAILED']);

/**
 * Turns the algorithm's raw Z into checked outputs. A float32 basis that broke down or failed its
 * check is redone in float64; a float64 failure is explained (dependence) or raised.
 */
function finish(
  bases: MatrixBatch, o: ResolvedOptions, engine: 'cpu' | 'cuda', Zall: Float64Array, perBasis: BasisStats[], reducedAll?: RealArray,
): { out: Float64Array; checks?: BasisCheck[]; redone: number; redoneOnCpu: number; wide: Map<number, bigint[]> } {
  const { batch, rows: n, cols: m } = bases;
  const out = new Float64Array(batch * n * m);
  const checks: BasisCheck[] = [];
  const wide = new Map<number, bigint[]>();
  let redone = 0, redoneOnCpu = 0;
  // a float64 GPU result of a kernel without the drift watch that broke down is redone on the CPU
  const cpuRedoable = engine === 'cuda' && driftRedoable(o);
  const proofOf = (w: ExactTransform & { det: bigint | null }): UnimodularCheck => ({ ok: true, integer: true, det: w.det, method: 'lattice' });
  for (let k = 0; k < batch; k++) {
    const Bin = matrixAt(bases, k);
    let Z = Zall.subarray(k * m * m, (k + 1) * m * m);
    const failed = perBasis[k]!.float32Failure ?? perBasis[k]!.gpuBreakdown;
    let res = failed ? null : outputOf(Bin, Z, reducedAll?.subarray(k * n * m, (k + 1) * n * m), n, m, k, o.check);
    let c = o.check && res ? checkBasis(res.B, Z, n, m, o, res.wide && proofOf(res.wide)) : undefined;
    if ((o.precision === 'float32' || cpuRedoable) && (!res || (c && !c.ok) || firstZeroColumn(res.B, n, m) >= 0)) {
      let again;
      const B64 = Float64Array.from(Bin);
      try {
        again = reduceOneCpu(o.algorithm, B64, n, m, o);
      } catch (err) {
        explainFailure(bases, withBasisIndex(err, k));
      }
      Zall.set(again.Z, k * m * m);
      Z = Zall.subarray(k * m * m, (k + 1) * m * m);
      perBasis[k] = again.stats;
      res = outputOf(Bin, Z, B64, n, m, k, o.check)!;
      const float32 = o.precision === 'float32';
      c = o.check ? { ...checkBasis(res.B, Z, n, m, o, res.wide && proofOf(res.wide)), redoneInFloat64: float32, redoneOnCpu: !float32 } : undefined;
      if (float32) redone++; else redoneOnCpu++;
    }
    const Bk = res!.B;
    // Without the check, the Jacobi family (whose conditions say nothing of independence) still
    // gets the input's independence test; the LLL family breaks down on dependent input by itself.
    if (!c && isJacobiFamily(o.algorithm)) diagnose(bases, k);
    if (firstZeroColumn(Bk, n, m) >= 0 || (c && !c.ok)) {
      diagnose(bases, k);
      if (c && !c.ok) {
        throw new CheckFailedError(`basis ${k}: the ${o.algorithm} output failed its float64 check (${describeFailure(c)}); the basis may be too ill-conditioned for float64`, { basis: k });
      }
    }
    if (res!.wide) {
      wide.set(k, res!.wide.Z);
      perBasis[k]!.wideTransformBits = res!.wide.maxBits;
    }
    if (c) checks.push(c);
    out.set(Bk, k * n * m);
  }
  return { out, checks: o.check ? checks : undefined, redone, redoneOnCpu, wide };
}

/**
 * The per-basis GPU kernels of these algorithms run the papers' algorithms without the drift watch
 * (allswap/phases.ts); where the CPU engine has it on (the default), a float64 breakdown of theirs is
 * redone on the CPU engine.
 */
function driftRedoable(o: ResolvedOptions): boolean {
  return o.precision === 'float64' && o.driftWatch !== false && (o.algorithm === 'allswap' || o.algorithm === 'block' || o.algorithm === 'cr-block');
}

/** Breakdowns of those kernels that the drift watch can avoid (a typed error naming the basis). */
const DRIFT_BREAKDOWNS = new Set(['PRECISION_FAILURE', 'RANK_DEFICIENT', 'ZERO_VECTOR', 'UNSUPPORTED']);

/** GPU re-runs around breakdowns in one reduce() call; past it, the bases left go to the CPU whole. */
const MAX_GPU_RERUNS = 16;

/**
 * The CUDA engine's call, where a float64 breakdown of one basis (a typed error naming it, which
 * loses the whole call) is marked for the CPU redo of finish() and the other bases run on the GPU
 * again, before and after it (at most MAX_GPU_RERUNS times a call: each re-run repeats the GPU work
 * of its part). Per-basis counts and Z of the whole batch, kernel times summed.
 */
export async function cudaWithBreakdowns(
  reducer: CudaReducer, work: RealArray, batch: number, n: number, m: number, o: ResolvedOptions, reruns = { left: MAX_GPU_RERUNS },
): Promise<{ Z: Float64Array; perBasis: BasisStats[]; kernelMs: number; chunks: number; variant: string }> {
  if (reruns.left < 0) {
    // too many breakdowns: every basis of this part is redone on the CPU
    const why = `the GPU broke down on more than ${MAX_GPU_RERUNS} bases of this call`;
    return { Z: new Float64Array(batch * m * m), perBasis: Array.from({ length: batch }, () => ({ iterations: 0, swaps: 0, sizeReductions: 0, gpuBreakdown: why })), kernelMs: 0, chunks: 0, variant: 'default' };
  }
  try {
    const r = await reducer(work, batch, n, m, o);
    const perBasis: BasisStats[] = [];
    for (let k = 0; k < batch; k++) {
      const failure = r.stats.float32Failures.get(k);
      perBasis.push({ iterations: r.stats.iterations[k]!, swaps: r.stats.swaps[k]!, sizeReductions: r.stats.sizeReductions[k]!, ...(failure ? { float32Failure: failure } : {}) });
    }
    return { Z: r.Z, perBasis, kernelMs: r.stats.kernelMs, chunks: r.stats.chunks, variant: r.stats.variant };
  } catch (err) {
    const k = err instanceof LatticeMimoError ? (err.details as { basis?: number } | undefined)?.basis : undefined;
    if (!driftRedoable(o) || k === undefined || !(err instanceof LatticeMimoError) || !DRIFT_BREAKDOWNS.has(err.code)) throw err;
    const size = n * m, mm = m * m;
    const Z = new Float64Array(batch * mm);
    const perBasis: BasisStats[] = [];
    let kernelMs = 0, chunks = 0, variant = 'default';
    const part = async (first: number, count: number) => {
      if (count === 0) return;
      reruns.left--;
      const r = await cudaWithBreakdowns(reducer, work.subarray(first * size, (first + count) * size), count, n, m, o, reruns);
      Z.set(r.Z, first * mm);
      perBasis.push(...r.perBasis);
      kernelMs += r.kernelMs; chunks += r.chunks;
      if (r.chunks > 0) variant = r.variant;
    };
    await part(0, k);
    perBasis.push({ iterations: 0, swaps: 0, sizeReductions: 0, gpuBreakdown: `${err.code}: ${err.message}` });
    await part(k + 1, batch - k - 1);
    return { Z, perBasis, kernelMs, chunks, variant };
  }
}

function sumStats(s: BasisStats[]): Pick<ReduceStats, 'iterations' | 'swaps' | 'sizeReductions'> {
  let iterations = 0, swaps = 0, sizeReductions = 0;
  for (const b of s) { iterations += b.iterations; swaps += b.swaps; sizeReductions += b.sizeReductions; }
  return { iterations, swaps, sizeReductions };
}

function packResult(
  bases: MatrixBatch, o: ResolvedOptions, engine: 'cpu' | 'cuda', Z: Float64Array, perBasis: BasisStats[], t0: number, reduced?: RealArray,
): ReduceResult {
  const { batch, rows: n, cols: m } = bases;
  const { out, checks, redone, redoneOnCpu, wide } = finish(bases, o, engine, Z, perBasis, reduced);
  const data: RealArray = precisionOf(bases.data) === 'float32' ? Float32Array.from(out) : out;
  return {
    basis: makeBatch(data, batch, n, m),
    transform: makeBatch(Z, batch, m, m),
    stats: {
      algorithm: o.algorithm, engine, precision: o.precision, batch, n, m, ...sumStats(perBasis),
      redoneInFloat64: redone, redoneOnCpu, timeMs: performance.now() - t0, perBasis,
    },
    checks,
    ...(wide.size > 0 ? { wideTransforms: wide } : {}),
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
  // (scale) entries past 2^+-128: reduced scaled by a power of two (same Z), output scaled back
  const unit = unitScale(bases);
  if (unit) { const r = await reduce(unit.scaled, opts); return { ...r, basis: unit.unscale(r.basis) }; }
  const o = resolveOptions(opts, bases.cols);
  const engine = await pickEngine(o);
  const { batch, rows: n, cols: m } = bases;
  const work = toPrecision(bases.data, o.precision);
  if (engine === 'cuda') {
    const reducer = await CUDA_REDUCERS[o.algorithm]!();
    const tGpu = performance.now();
    const r = await cudaWithBreakdowns(reducer, work, batch, n, m, o).catch((err: unknown) => explainFailure(bases, err));
    const totalMs = performance.now() - tGpu;
    const res = packResult(bases, o, 'cuda', r.Z, r.perBasis, t0);
    res.stats.gpu = { kernelMs: r.kernelMs, totalMs, chunks: r.chunks, variant: r.variant };
    return res;
  }
  const run = await reduceBatchCpu(o.algorithm, work, batch, n, m, o, opts.threads, opts.onProgress)
    .catch((err: unknown) => explainFailure(bases, err));
  return packResult(bases, o, engine, run.Z, run.stats, t0, run.work);
}

/** Synchronous CPU reduction in this thread (for small work, e.g. LR-aided detection per channel). */
export function reduceSync(bases: MatrixBatch, opts: Omit<ReduceOptions, 'engine' | 'threads'> = {}): ReduceResult {
  const t0 = performance.now();
  validateBases(bases);
  // (scale) entries past 2^+-128: reduced scaled by a power of two (same Z), output scaled back
  const unit = unitScale(bases);
  if (unit) { const r = reduceSync(unit.scaled, opts); return { ...r, basis: unit.unscale(r.basis) }; }
  const o = resolveOptions({ ...opts, engine: 'cpu' }, bases.cols);
  const { batch, rows: n, cols: m } = bases;
  const work = toPrecision(bases.data, o.precision);
  let run;
  try {
    run = reduceChunk({ algorithm: o.algorithm, params: o, n, m, work, count: batch, offset: 0 });
  } catch (err) {
    explainFailure(bases, err);
  }
  return packResult(bases, o, 'cpu', run.Z, run.stats, t0, run.work);
}
