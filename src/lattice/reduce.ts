/**
 * reduce(): one API for a single basis and for a batch, on any engine. Every output is B_in Z with
 * Z integer (exact for integer input), re-checked in float64 against the algorithm's conditions,
 * with Z proven unimodular in integer arithmetic. A float32 result that fails its check is redone in
 * float64 (counted in stats.redoneInFloat64); a float64 breakdown of a per-basis GPU kernel of
 * allswap, block or cr-block is redone on the CPU engine, whose reducers have the drift watch
 * (stats.redoneOnCpu); a result that still fails raises CheckFailedError, so no unreduced basis is
 * returned as reduced.
 */
import {
  allocArray,
  CheckFailedError,
  InvalidArgumentError,
  InvalidInputError,
  LatticeMimoError,
  allocLike,
  makeBatch,
  matrixAt,
  precisionOf,
  toPrecision,
  type MatrixBatch,
  type RealArray,
  type CpuKernel,
  errorFromRecord,
} from '../core/index.js';
import { rebuildTransform, type ExactTransform } from './exact-transform.js';
import { transformLost, transformOverflow } from './lll/columns.js';
import {
  applyTransform,
  CHECK_TOLERANCE,
  checkLagrangePairs,
  checkLLL,
  checkUnimodular,
  gramSchmidt,
  isIntegral,
  qualityMetrics,
  type LagrangeCheck,
  type LLLCheck,
  type QualityMetrics,
  type UnimodularCheck,
} from './check.js';
import { reduceBatchCpu, reduceChunk, reduceOneCpu, withBasisIndex } from './cpu-batch.js';
import { chooseEngine, cpuOnlyEngine, type EngineDecision } from '../gpu/index.js';
import { ALGORITHM_REGISTRY, CUDA_ALGORITHMS } from './registry.js';
import { isBreakdown, remedy } from './fallback.js';
import type { Algorithm, BasisStats, ReduceOptions } from './types.js';
import type { CountTotals, CudaBatchResult } from './gpu/batch.js';
import {
  assertIndependent,
  checkCountsArray,
  firstDependentColumn,
  firstZeroColumn,
  resolveOptions,
  unitScale,
  validateBases,
  validateShape,
  type ResolvedOptions,
} from './validate.js';

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
   * CPU engine: the kernel that reduced the bases, the algorithm's WebAssembly kernel or the
   * TypeScript reference (ReduceOptions.cpuKernel; 'typescript' for algorithms without a kernel).
   */
  kernel?: CpuKernel;
  /**
   * CPU engine on the WebAssembly kernel: bases it handed to the TypeScript reference (a breakdown,
   * a transform near 2^53, ...), which reduced them from their input: the same results.
   */
  redoneInTypescript?: number;
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

/** Proof of one output basis: conditions in float64, Z unimodular exactly, quality metrics. */
export function checkBasis(
  out: ArrayLike<number>,
  Z: ArrayLike<number>,
  n: number,
  m: number,
  o: Pick<ResolvedOptions, 'algorithm' | 'delta' | 'eta'>,
  provenUnimodular?: UnimodularCheck,
): BasisCheck {
  const lagrange = ALGORITHM_REGISTRY[o.algorithm].traits.proof === 'lagrange';
  const gs = gramSchmidt(out, n, m);
  const conditions = lagrange
    ? checkLagrangePairs(out, n, m)
    : checkLLL(out, n, m, o.delta, o.eta, CHECK_TOLERANCE, gs);
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
  Bin: ArrayLike<number>,
  Z: Float64Array,
  reduced: RealArray | undefined,
  n: number,
  m: number,
  index: number,
  batch: number,
  prove: boolean,
): { B: Float64Array; wide?: ExactTransform & { det: bigint | null } } | null {
  if (!transformLost(Z)) {
    const out = applyTransform(Bin, Z, n, m);
    if (!out)
      throw new InvalidInputError(
        'INVALID_INPUT',
        `basis ${index}: an entry of B Z exceeds 2^53 and cannot be represented exactly`,
      );
    return { B: out };
  }
  if (reduced instanceof Float32Array) return null;
  if (!reduced || !isIntegral(Bin) || !isSafeIntegral(reduced)) throw withBasisIndex(transformOverflow(), index, batch);
  const B = Float64Array.from(reduced);
  return { B, wide: rebuildTransform(Bin, B, n, m, prove) };
}

function isSafeIntegral(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isSafeInteger(a[i]!)) return false;
  return true;
}

function describeFailure(c: BasisCheck): string {
  const v = c.conditions.violations.slice(0, 2).join('; ');
  return c.unimodular.ok ? v : `Z is not unimodular (det ${c.unimodular.det ?? 'not integer'})${v ? `; ${v}` : ''}`;
}

/**
 * After a breakdown (an error, a zero output vector, a failed float64 check) on basis k: if its
 * vectors are dependent, that is the error to report (RankDeficientError, exact for integer bases).
 */
function diagnose(bases: MatrixBatch, k: number): void {
  try {
    assertIndependent(matrixAt(bases, k), bases.rows, bases.cols);
  } catch (err) {
    throw withBasisIndex(err, k, bases.batch);
  }
}

/** The advice a floating-point failure on an integer basis carries (none for other bases). */
function ladderAdvice(B: RealArray): string {
  return isIntegral(B)
    ? ' (an integer basis: lllIntegral() and the reduce command run lll up a precision ladder to exact arithmetic)'
    : '';
}

/** Rethrows an algorithm's error, replaced by the dependence diagnosis where that is the cause. */
function explainFailure(bases: MatrixBatch, err: unknown): never {
  const k = err instanceof LatticeMimoError ? (err.details as { basis?: number } | undefined)?.basis : undefined;
  if (k !== undefined && err instanceof LatticeMimoError && isBreakdown(err.code)) {
    diagnose(bases, k);
    // independent after all: the "dependence" was floating point losing the basis
    if (err.code === 'RANK_DEFICIENT' || err.code === 'ZERO_VECTOR') {
      throw new LatticeMimoError(
        'PRECISION_FAILURE',
        `basis ${k} is linearly independent, but the reduction lost it in floating point (${err.reason}): it is too ill-conditioned for this algorithm in this precision${ladderAdvice(matrixAt(bases, k))}`,
        { ...err.details, basis: k },
      );
    }
  }
  throw err;
}

/** Where the outputs of a call go: the result arrays (the caller's `out`, or fresh ones). */
interface Target {
  basis: RealArray;
  Z: Float64Array;
  checks: BasisCheck[];
  wide: Map<number, bigint[]>;
  redone: number;
  redoneOnCpu: number;
}

/**
 * Turns basis k's raw Z into its checked output in `t`. A failure the fallback policy redoes
 * (a float32 breakdown or failed check; a GPU float64 breakdown of a kernel without the drift watch)
 * is redone on the CPU; one that still fails, or that the policy does not redo, is explained
 * (dependence) or raised.
 */
function finishBasis(
  bases: MatrixBatch,
  o: ResolvedOptions,
  engine: 'cpu' | 'cuda',
  k: number,
  perBasis: BasisRecords,
  t: Target,
  reduced?: RealArray,
): void {
  const { rows: n, cols: m } = bases;
  const Bin = matrixAt(bases, k);
  const traits = ALGORITHM_REGISTRY[o.algorithm].traits;
  const run = { engine, precision: o.precision, driftWatch: o.driftWatch !== false };
  const Z = t.Z.subarray(k * m * m, (k + 1) * m * m);
  const failure = perBasis.get(k).float32Failure ?? perBasis.get(k).gpuBreakdown;
  let res = failure ? null : outputOf(Bin, Z, reduced, n, m, k, bases.batch, o.check);
  let c = o.check && res ? checkBasis(res.B, Z, n, m, o, res.wide && proofOf(res.wide)) : undefined;
  const failed = !res || (c !== undefined && !c.ok) || firstZeroColumn(res.B, n, m) >= 0;
  const how = failed ? remedy(traits, run, failure ? failure.code : 'CHECK_FAILED') : 'raise';
  if (failed && how !== 'raise') {
    const B64 = Float64Array.from(Bin);
    let again: ReturnType<typeof reduceOneCpu>;
    try {
      again = reduceOneCpu(o.algorithm, B64, n, m, o);
    } catch (err) {
      explainFailure(bases, withBasisIndex(err, k, bases.batch));
    }
    Z.set(again.Z);
    perBasis.set(k, again.stats);
    res = outputOf(Bin, Z, B64, n, m, k, bases.batch, o.check)!;
    c = o.check
      ? {
          ...checkBasis(res.B, Z, n, m, o, res.wide && proofOf(res.wide)),
          redoneInFloat64: how === 'float64',
          redoneOnCpu: how === 'cpu',
        }
      : undefined;
    if (how === 'float64') t.redone++;
    else t.redoneOnCpu++;
  } else if (!res) {
    throw failure
      ? errorFromRecord(failure).withContext({ basis: k })
      : new LatticeMimoError('INTERNAL', `basis ${k}: no output, no recorded failure and no redo`, { basis: k });
  }
  const Bk = res!.B;
  // Without the check, the Jacobi family (whose conditions say nothing of independence) still
  // gets the input's independence test; the LLL family breaks down on dependent input by itself.
  if (!c && traits.proof === 'lagrange') diagnose(bases, k);
  if (firstZeroColumn(Bk, n, m) >= 0 || (c && !c.ok)) {
    diagnose(bases, k);
    if (c && !c.ok) {
      throw new CheckFailedError(
        `basis ${k}: the ${o.algorithm} output failed its float64 check (${describeFailure(c)}); the basis may be too ill-conditioned for float64${ladderAdvice(Bin)}`,
        { basis: k },
      );
    }
  }
  if (res!.wide) {
    t.wide.set(k, res!.wide.Z);
    perBasis.get(k).wideTransformBits = res!.wide.maxBits;
  }
  if (c) t.checks.push(c);
  t.basis.set(Bk, k * n * m);
}

const proofOf = (w: ExactTransform & { det: bigint | null }): UnimodularCheck => ({
  ok: true,
  integer: true,
  det: w.det,
  method: 'lattice',
});

/**
 * Per-basis counts: an engine's own records (an array, or the GPU's count arrays read on demand)
 * with the host's records for the bases it finished. A batch of many small bases pays for a record
 * object per basis only when stats.perBasis is read.
 */
export class BasisRecords {
  private readonly own = new Map<number, BasisStats>();
  constructor(
    readonly length: number,
    private readonly base: (k: number) => BasisStats,
    private readonly counts?: {
      iterations: Int32Array;
      swaps: Int32Array;
      sizeReductions: Int32Array;
      totals?: CountTotals;
    },
  ) {}

  static of(list: BasisStats[]): BasisRecords {
    return new BasisRecords(list.length, (k) => list[k]!);
  }

  get(k: number): BasisStats {
    let s = this.own.get(k);
    if (!s) {
      s = this.base(k);
      this.own.set(k, s);
    }
    return s;
  }

  set(k: number, s: BasisStats): void {
    this.own.set(k, s);
  }

  toArray(): BasisStats[] {
    return Array.from({ length: this.length }, (_, k) => this.get(k));
  }

  /** Writes every basis' counts into `out` (3 x length; see ReduceOptions.out.counts), skipping what the engine wrote there itself. */
  writeCounts(out: Int32Array): void {
    const n = this.length,
      c = this.counts;
    if (c && c.iterations.buffer === out.buffer && c.iterations.byteOffset === out.byteOffset) {
      for (const [k, b] of this.own) {
        // the engine's totals move with the counts they summed, so sums() is the same before and after
        if (c.totals) {
          c.totals.iterations += b.iterations - out[k]!;
          c.totals.swaps += b.swaps - out[n + k]!;
          c.totals.sizeReductions += b.sizeReductions - out[2 * n + k]!;
        }
        out[k] = b.iterations;
        out[n + k] = b.swaps;
        out[2 * n + k] = b.sizeReductions;
      }
      return;
    }
    for (let k = 0; k < n; k++) {
      const b = this.own.get(k) ?? this.base(k);
      out[k] = b.iterations;
      out[n + k] = b.swaps;
      out[2 * n + k] = b.sizeReductions;
    }
  }

  sums(): Pick<ReduceStats, 'iterations' | 'swaps' | 'sizeReductions'> {
    let iterations = 0,
      swaps = 0,
      sizeReductions = 0;
    const c = this.counts;
    if (!c) {
      for (let k = 0; k < this.length; k++) {
        const b = this.get(k);
        iterations += b.iterations;
        swaps += b.swaps;
        sizeReductions += b.sizeReductions;
      }
      return { iterations, swaps, sizeReductions };
    }
    if (c.totals) ({ iterations, swaps, sizeReductions } = c.totals);
    else
      for (let k = 0; k < this.length; k++) {
        iterations += c.iterations[k]!;
        swaps += c.swaps[k]!;
        sizeReductions += c.sizeReductions[k]!;
      }
    for (const [k, b] of this.own) {
      iterations += b.iterations - c.iterations[k]!;
      swaps += b.swaps - c.swaps[k]!;
      sizeReductions += b.sizeReductions - c.sizeReductions[k]!;
    }
    return { iterations, swaps, sizeReductions };
  }
}

/** Where a call's results go: the basis and transform, and the caller's counts array if given. */
interface ResultArrays {
  basis: RealArray;
  Z: Float64Array;
  counts?: Int32Array;
}

/**
 * The result arrays: the caller's `out` (checked against the batch) or fresh ones, in the input's
 * precision; made before any work, so that a batch whose results cannot be held says so at once
 * (UnsupportedError naming the size and the limit).
 */
function resultArrays(bases: MatrixBatch, out: ReduceOptions['out']): ResultArrays {
  const { batch, rows: n, cols: m, data } = bases;
  const basis = out?.basis;
  if (basis !== undefined && (basis.constructor !== data.constructor || basis.length !== data.length)) {
    throw new InvalidArgumentError(
      `out.basis must be a ${data.constructor.name} of batch x n x m = ${data.length} elements (the input's kind), got a ${basis?.constructor?.name} of ${basis?.length}`,
      { option: 'out.basis' },
    );
  }
  const Z = out?.transform;
  if (Z !== undefined && (!(Z instanceof Float64Array) || Z.length !== batch * m * m)) {
    throw new InvalidArgumentError(
      `out.transform must be a Float64Array of batch x m x m = ${batch * m * m} elements`,
      {
        option: 'out.transform',
      },
    );
  }
  if (basis && Z && basis.buffer === Z.buffer)
    throw new InvalidArgumentError('out.basis and out.transform must not share memory', { option: 'out.transform' });
  const counts = checkCountsArray(out?.counts, batch);
  if (counts && [basis, Z].some((a) => a?.buffer === counts.buffer))
    throw new InvalidArgumentError('out.counts must not share memory with out.basis or out.transform', {
      option: 'out.counts',
    });
  return {
    basis: basis ?? allocLike(data, batch * n * m, `reduce() result bases (batch x n x m = ${batch} x ${n} x ${m})`),
    Z: Z ?? allocArray(Float64Array, batch * m * m, `reduce() transforms (batch x m x m = ${batch} x ${m} x ${m})`),
    counts,
  };
}

function packResult(
  bases: MatrixBatch,
  o: ResolvedOptions,
  engine: 'cpu' | 'cuda',
  arrays: ResultArrays,
  perBasis: BasisRecords,
  t0: number,
  todo: Iterable<number>,
  reduced?: RealArray,
): ReduceResult {
  const { batch, rows: n, cols: m } = bases;
  const t: Target = { basis: arrays.basis, Z: arrays.Z, checks: [], wide: new Map(), redone: 0, redoneOnCpu: 0 };
  for (const k of todo) finishBasis(bases, o, engine, k, perBasis, t, reduced?.subarray(k * n * m, (k + 1) * n * m));
  const stats = {
    algorithm: o.algorithm,
    engine,
    precision: o.precision,
    batch,
    n,
    m,
    ...perBasis.sums(),
    redoneInFloat64: t.redone,
    redoneOnCpu: t.redoneOnCpu,
    timeMs: performance.now() - t0,
  } as ReduceStats;
  // after the sums: they correct the engine's counts by the host's records, which this overwrites
  if (arrays.counts) perBasis.writeCounts(arrays.counts);
  let list: BasisStats[] | undefined;
  Object.defineProperty(stats, 'perBasis', { enumerable: true, get: () => (list ??= perBasis.toArray()) });
  return {
    basis: makeBatch(t.basis, batch, n, m),
    transform: makeBatch(t.Z, batch, m, m),
    stats,
    checks: o.check ? t.checks : undefined,
    ...(t.wide.size > 0 ? { wideTransforms: t.wide } : {}),
  };
}

const all = (count: number): Iterable<number> => ({
  [Symbol.iterator]: function* () {
    for (let k = 0; k < count; k++) yield k;
  },
});

/**
 * The engine reduce() runs a call of this algorithm on: the package's one chooser (gpu/engine.ts)
 * with the algorithm's registry entry saying whether it has a GPU implementation (the CLI asks
 * before it reads its input).
 */
export function reduceEngine(o: { algorithm: Algorithm; engine?: unknown }): Promise<EngineDecision> {
  return chooseEngine({
    asked: o.engine,
    call: `reduce (${o.algorithm})`,
    gpuGap: () =>
      ALGORITHM_REGISTRY[o.algorithm].cuda !== undefined
        ? null
        : `'${o.algorithm}' has no CUDA implementation (CUDA algorithms: ${CUDA_ALGORITHMS.join(', ')})`,
  });
}

async function pickEngine(o: ResolvedOptions): Promise<'cpu' | 'cuda'> {
  return (await reduceEngine(o)).engine;
}

/**
 * The CUDA engine's part of reduce(). The GPU's output basis is B_in Z computed as the CPU engine
 * computes it, so with the check off the bases it reduced are taken as they are (written by the
 * copy engine into the result arrays) and only those the fallback policy left over are finished here.
 */
async function reduceOnCuda(
  bases: MatrixBatch,
  o: ResolvedOptions,
  out: ReduceOptions['out'],
  onProgress: ReduceOptions['onProgress'],
  t0: number,
): Promise<ReduceResult> {
  const { batch, rows: n, cols: m } = bases;
  const reducer = await ALGORITHM_REGISTRY[o.algorithm].cuda!();
  // the kernels only read the input: no copy where it is already in the working precision
  const direct = precisionOf(bases.data) === o.precision;
  const work = direct ? bases.data : toPrecision(bases.data, o.precision);
  const arrays = resultArrays(bases, out);
  const tGpu = performance.now();
  const r = await reducer(work, batch, n, m, o, {
    ...(direct ? { basis: arrays.basis } : {}),
    Z: arrays.Z,
    counts: arrays.counts,
    ...(onProgress ? { progress: onProgress } : {}),
  }).catch((err: unknown) => explainFailure(bases, err));
  // (an engine call that made its own arrays: its results are what count)
  if (r.Z !== arrays.Z) arrays.Z.set(r.Z);
  if (direct && r.basis !== arrays.basis) arrays.basis.set(r.basis);
  const res = packGpuResult(bases, o, r, arrays, direct, t0);
  res.stats.gpu!.totalMs = performance.now() - tGpu;
  return res;
}

/**
 * reduce()'s result from a GPU engine call's (r): with the check off, the bases the GPU reduced are
 * kept as they are (`direct`: the engine computed B_in Z from the caller's own input) and only those
 * it left over (stats: float32Failures, gpuBreakdowns, hostProduct) are finished on the host;
 * otherwise every basis is checked.
 */
export function packGpuResult(
  bases: MatrixBatch,
  o: ResolvedOptions,
  r: CudaBatchResult<RealArray>,
  arrays: ResultArrays,
  direct: boolean,
  t0: number,
): ReduceResult {
  const { batch } = bases;
  const s = r.stats;
  const perBasis = new BasisRecords(
    batch,
    (k) => {
      const b: BasisStats = { iterations: s.iterations[k]!, swaps: s.swaps[k]!, sizeReductions: s.sizeReductions[k]! };
      const f32 = s.float32Failures.get(k),
        gpu = s.gpuBreakdowns.get(k);
      if (f32) b.float32Failure = f32;
      if (gpu) b.gpuBreakdown = gpu;
      return b;
    },
    s,
  );
  const fast = !o.check && direct && s.basisIsProduct && ALGORITHM_REGISTRY[o.algorithm].traits.proof === 'lll';
  const todo = fast ? new Set([...s.float32Failures.keys(), ...s.gpuBreakdowns.keys(), ...s.hostProduct]) : all(batch);
  const res = packResult(bases, o, 'cuda', arrays, perBasis, t0, todo);
  res.stats.gpu = { kernelMs: s.kernelMs, totalMs: s.totalMs, chunks: s.chunks, variant: s.variant };
  return res;
}

/**
 * Reduces every basis of the batch.
 * @param bases batch x n x m, column-major, a basis is its m columns (m <= n); Float32Array or Float64Array.
 * @param opts algorithm ('lll'), delta (0.75), eta (0.51), blockSize (8), precision ('float64'),
 *   engine ('auto'), maxIterations, check (true), driftWatch, float32Arithmetic, threads, onProgress,
 *   out (result arrays to fill; on pinned memory from hostBatch() the GPU writes them directly).
 * @returns basis: batch x n x m, B_in Z in the input's precision; transform: batch x m x m integer Z; stats; checks.
 */
export async function reduce(bases: MatrixBatch, opts: ReduceOptions = {}): Promise<ReduceResult> {
  const t0 = performance.now();
  const o = resolveOptions(opts, (bases as MatrixBatch | null)?.cols ?? 1);
  validateShape(bases);
  const engine = await pickEngine(o);
  // the GPU kernels report non-finite entries and zero vectors themselves (status words), naming the basis
  if (engine === 'cpu') validateBases(bases);
  // entries past 2^+-128: reduced scaled by a power of two (the same Z), the output scaled back
  // (float32 data cannot pass 2^128, and its tiny entries the GPU's kernels report as lost)
  const unit = engine === 'cpu' || bases.data instanceof Float64Array ? unitScale(bases) : null;
  if (unit) return intoOut(unit.unscale, await reduce(unit.scaled, { ...opts, out: undefined }), opts.out);
  if (engine === 'cuda') return reduceOnCuda(bases, o, opts.out, opts.onProgress, t0);
  const { batch, rows: n, cols: m } = bases;
  const arrays = resultArrays(bases, opts.out);
  const work = toPrecision(bases.data, o.precision);
  const run = await reduceBatchCpu(o.algorithm, work, batch, n, m, o, opts.threads, opts.onProgress).catch(
    (err: unknown) => explainFailure(bases, err),
  );
  arrays.Z.set(run.Z);
  return withKernel(packResult(bases, o, engine, arrays, BasisRecords.of(run.stats), t0, all(batch), run.work), run);
}

/** A CPU engine result's stats with the kernel that ran (and the bases it handed to the reference). */
function withKernel(r: ReduceResult, run: { kernel: CpuKernel; redoneInTypescript: number }): ReduceResult {
  r.stats.kernel = run.kernel;
  if (run.kernel === 'wasm-simd') r.stats.redoneInTypescript = run.redoneInTypescript;
  return r;
}

/** A result of the scaled bases with its basis scaled back, written into the caller's `out` arrays where given. */
function intoOut(unscale: (b: MatrixBatch) => MatrixBatch, r: ReduceResult, out: ReduceOptions['out']): ReduceResult {
  const arrays = resultArrays(r.basis, out);
  arrays.basis.set(unscale(r.basis).data);
  arrays.Z.set(r.transform.data);
  if (arrays.counts) BasisRecords.of(r.stats.perBasis).writeCounts(arrays.counts);
  const { batch, rows: n, cols: m } = r.basis;
  return { ...r, basis: makeBatch(arrays.basis, batch, n, m), transform: makeBatch(arrays.Z, batch, m, m) };
}

/**
 * Synchronous CPU reduction in this thread (for small work, e.g. LR-aided detection per channel).
 * Takes reduce()'s options but `threads` (it runs in the calling thread) and the GPU's
 * (`gpuTuning`, `float32Arithmetic`); `engine` 'cuda' is an EngineUnavailableError naming reduce().
 */
export function reduceSync(bases: MatrixBatch, opts: Omit<ReduceOptions, 'engine' | 'threads'> = {}): ReduceResult {
  const t0 = performance.now();
  const o = resolveOptions(opts, (bases as MatrixBatch | null)?.cols ?? 1, { name: 'reduceSync()', sync: true });
  cpuOnlyEngine(o.engine, 'reduceSync()', 'reduce()');
  validateBases(bases);
  // (scale) entries past 2^+-128: reduced scaled by a power of two (same Z), output scaled back
  const unit = unitScale(bases);
  if (unit) return intoOut(unit.unscale, reduceSync(unit.scaled, { ...opts, out: undefined }), opts.out);
  const { batch, rows: n, cols: m } = bases;
  const arrays = resultArrays(bases, opts.out);
  const work = toPrecision(bases.data, o.precision);
  const onProgress = opts.onProgress;
  let run: ReturnType<typeof reduceChunk>;
  try {
    run = reduceChunk({ algorithm: o.algorithm, params: o, n, m, work, count: batch, offset: 0, batch }, (k) => {
      if (onProgress && (k % 64 === 63 || k === batch - 1)) onProgress(k + 1, batch);
    });
  } catch (err) {
    explainFailure(bases, err);
  }
  arrays.Z.set(run.Z);
  return withKernel(
    packResult(bases, { ...o, engine: 'cpu' }, 'cpu', arrays, BasisRecords.of(run.stats), t0, all(batch), run.work),
    run,
  );
}
