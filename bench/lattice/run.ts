/**
 * `lattice-mimo bench lattice`: the lattice papers' result tables with our figures beside theirs.
 *
 *  1. CR-AS-LLL (all-swap), batches of n x n bases, n = 8, 16, 32, 64 (batches that fill the GPU):
 *     time per basis (the CR-MB-LLL paper's Table 1: GTX 690).
 *  2. CR-AS-LLL, one basis of n = 128 ... 1024 (the paper's block algorithms MB-LLL and CR-MB-LLL
 *     have no GPU version here yet); our CPU engine and fplll on the same bases.
 *  3. Parallel Jacobi, one basis of n = 10 ... 200 (the Jacobi paper's Table 1: GTX 660).
 *
 * Inputs: iid N(0,1) bases and block-Toeplitz bases (MIMO with ISI: complex 1x1 taps, L = 3,
 * real-decomposed, the whole convolution: (n + 4) x n), float32 and float64. For every GPU figure:
 * the kernel alone (CUDA events, data already on the GPU, bench/gpu/lattice-timing.ts) and the
 * whole engine call with transfers (reduceBatchCuda: staging, copies on up to three streams,
 * kernel, results), each beside its floor: bytes over the measured device bandwidth and operations
 * over the measured rate (bench/lattice/floors.ts, bench/gpu/ceilings.ts), and for the
 * with-transfers time the host-link floor. Every GPU output is checked in float64 (LLL or pairwise
 * Lagrange conditions on B_in Z, Z unimodular exactly). Progress on stderr; the markdown section
 * on stdout and, with --out, in FILE (section `bench-lattice`, `bench-lattice-cpu` for --engine cpu).
 */
import { cpuDescription, gitCommit, median, writeResultsSection } from '../report.js';
import { choiceOption, parseCommandLine } from '../../src/cli/args.js';
import { intListOption, intOption, numberOption } from '../../src/cli/values.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { checkOutputPath } from '../../src/core/io.js';
import type { RealArray } from '../../src/core/matrix.js';
import { defaultThreads } from '../../src/core/worker-pool.js';
import { applyTransform, checkLagrangePairs, checkLLL, checkUnimodular } from '../../src/lattice/check.js';
import { reduceBatchCpu } from '../../src/lattice/cpu-batch.js';
import { formatFplll } from '../../src/lattice/fplll-format.js';
import { availableReferences, runFplll } from '../reference/fplll.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../../src/lattice/generators.js';
import { allswapOps, floorOf, jacobiOps, latticeBytesPerBasis, type Floor, type RunCounts } from './floors.js';
import type { AlgoParams, Algorithm } from '../../src/lattice/types.js';
import { validateGpuTuning } from '../../src/lattice/gpu-tuning.js';

const HELP = `usage: lattice-mimo bench lattice [options]

  --engine cuda|cpu       cuda (default where a device answers): GPU figures, with the CPU engine
                          and fplll beside them; cpu: the CPU engine and fplll alone
  --quick                 fewer sizes, bases and repetitions (a smoke run)
  --batched LIST          all-swap batched sizes n (default 8,16,32,64; none: skip the table)
  --single LIST           all-swap single-basis sizes n (default 128,256,512,1024; none: skip)
  --jacobi LIST           Jacobi single-basis sizes n (default 10,20,30,40,50,100,200; none: skip)
  --families LIST         gaussian,toeplitz (default both)
  --algorithms LIST       tables 1 and 2: allswap (default), block (MB-LLL), cr-block (CR-MB-LLL); the
                          block algorithms are timed through their engine call (kernel = the call's
                          kernel event time, one chunk: the reduction and the product stage B_in Z),
                          with the bytes floor only
  --precisions LIST       float32,float64 (default both)
  --reps N                timed kernel launches per figure (default 10; single large bases: 3)
  --cpu-budget S          skip a CPU-engine figure expected to take longer than S seconds (default 20)
  --no-cpu                no CPU-engine figures
  --no-fplll              no fplll figures
  --fplll-timeout S       per fplll run (default 60)
  --seed S                seed of the inputs (default 1)
  --variants              also time the kernels' tuning variants (block vs per-thread all-swap, Jacobi block sizes)
  --out FILE              also write the section into FILE (e.g. bench/RESULTS.md)

lattice-mimo bench lattice recursive [--help]: large integer lattices, ours (-a recursive) beside
fplll and flatter (bench/lattice/recursive.ts).`;

const PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 10_000_000 };
const FPLLL_SCALE = 2 ** 20;

/** The papers' figures (float32). */
const PAPER_CRMB = {
  gpu: 'GTX 690 (+ i7-3820 for CR-MB-LLL), float32, block-Toeplitz',
  crAs: { 8: 0.33e-6, 64: 13.7e-6, 1024: 16.7e-3 } as Record<number, number>,
  crMb: { 8: 0.77e-6, 64: 13.0e-6, 1024: 12.8e-3 } as Record<number, number>,
};
const PAPER_JACOBI = {
  gpu: 'GTX 660, float32, Gaussian, kernel only (no copies)',
  gpuMs: { 10: 0.234, 20: 0.374, 30: 0.479, 40: 0.624, 50: 0.882, 100: 2.481, 200: 7.733 } as Record<number, number>,
  cpuMs: { 50: 40, 100: 147, 200: 432 } as Record<number, number>,
};
/** Issue 4's targets on the H100, data already on the GPU. */
const TARGETS = { batched8: 0.01e-6, batched64: 0.4e-6, single1024: 2e-3, jacobi200: 0.3e-3 };

type Family = 'gaussian' | 'toeplitz';
type Precision = 'float32' | 'float64';
type GpuAlgo = 'allswap' | 'jacobi-parallel';
type LllAlgo = 'allswap' | 'block' | 'cr-block';
const ALGO_LABEL: Record<LllAlgo, string> = { allswap: 'CR-AS-LLL', block: 'MB-LLL', 'cr-block': 'CR-MB-LLL' };

interface Opts {
  engine: 'cuda' | 'cpu';
  quick: boolean;
  batched: number[];
  single: number[];
  jacobi: number[];
  families: Family[];
  precisions: Precision[];
  algorithms: LllAlgo[];
  reps: number;
  cpuBudgetS: number;
  cpu: boolean;
  fplll: boolean;
  fplllTimeoutS: number;
  seed: number;
  variants: boolean;
}

const progress = (s: string): void => {
  process.stderr.write(`[bench lattice] ${s}\n`);
};

function intList(s: string, name: string): number[] {
  if (s === 'none') return [];
  return intListOption(name, s, 2, 4096);
}

function listOf<T extends string>(s: string, what: string, allowed: readonly T[]): T[] {
  const v = s.split(',') as T[];
  for (const x of v)
    if (!allowed.includes(x))
      throw new InvalidArgumentError(`${what}: unknown '${x}' (expected ${allowed.join(', ')})`);
  return v;
}

/** The inputs: bases of one family, size and precision (toeplitz: (n + 4) x n, n even). */
function bases(
  family: Family,
  n: number,
  batch: number,
  precision: Precision,
  seed: number,
): { data: RealArray; rows: number; cols: number } {
  if (family === 'gaussian') {
    const g = gaussianBases({ batch, n, seed, precision });
    return { data: g.data, rows: n, cols: n };
  }
  if (n % 2 !== 0) throw new InvalidArgumentError(`block-Toeplitz sizes must be even (2x2 real blocks), got ${n}`);
  const t = blockToeplitzBases({
    batch,
    blocks: n / 2,
    blockSize: 1,
    complex: true,
    taps: 3,
    shape: 'full',
    seed,
    precision,
  });
  return { data: t.data, rows: t.rows, cols: t.cols };
}

/** float64 proof of every output: conditions on B_in Z, Z unimodular; and that every output of an OK basis was written. */
interface CheckTally {
  checked: number;
  failed: number;
  kernelErrors: Map<number, number>;
  unwritten: number;
  firstFailure?: string;
}

const STATUS_NAMES = [
  'OK',
  'NON_FINITE',
  'ZERO_VECTOR',
  'ITERATION_LIMIT',
  'RANK_DEFICIENT',
  'PRECISION_FAILURE',
  'TRANSFORM_OVERFLOW',
];

function checkOutputs(
  algo: GpuAlgo,
  input: RealArray,
  Z: Float64Array,
  basis: RealArray | null,
  stats: Int32Array | null,
  batch: number,
  n: number,
  m: number,
): CheckTally {
  const tally: CheckTally = { checked: 0, failed: 0, kernelErrors: new Map(), unwritten: 0 };
  for (let b = 0; b < batch; b++) {
    const status = stats ? stats[b * 5 + 3]! : 0;
    if (status !== 0) {
      tally.kernelErrors.set(status, (tally.kernelErrors.get(status) ?? 0) + 1);
      continue;
    }
    const Zb = Z.subarray(b * m * m, (b + 1) * m * m);
    if (basis) {
      let nan = false;
      for (let i = b * n * m; i < (b + 1) * n * m && !nan; i++) nan = Number.isNaN(basis[i]!);
      for (let i = 0; i < m * m && !nan; i++) nan = Number.isNaN(Zb[i]!);
      if (nan) {
        tally.unwritten++;
        continue;
      }
    }
    const out = applyTransform(input.subarray(b * n * m, (b + 1) * n * m), Zb, n, m);
    const cond = out
      ? algo === 'jacobi-parallel'
        ? checkLagrangePairs(out, n, m)
        : checkLLL(out, n, m, PARAMS.delta, PARAMS.eta)
      : null;
    const uni = checkUnimodular(Zb, m);
    tally.checked++;
    if (!cond?.ok || !uni.ok) {
      tally.failed++;
      tally.firstFailure ??= `basis ${b}: ${!uni.ok ? 'Z not unimodular; ' : ''}${cond ? cond.violations.slice(0, 1).join('') : 'B Z not representable'}`;
    }
  }
  return tally;
}

function describeChecks(t: CheckTally, precision: Precision): string {
  const parts: string[] = [];
  if (t.failed === 0 && t.checked > 0) parts.push(`${t.checked} ok`);
  if (t.failed > 0)
    parts.push(
      precision === 'float32'
        ? `${t.checked - t.failed} ok, ${t.failed} fail in float32 (reduce() redoes them in float64)`
        : `**${t.failed} FAIL** (${t.firstFailure})`,
    );
  for (const [s, c] of t.kernelErrors)
    parts.push(`${c} ${STATUS_NAMES[s] ?? s}${s === 5 ? ' (redone in float64 by reduce())' : ''}`);
  if (t.unwritten > 0) parts.push(`**${t.unwritten} outputs not written**`);
  return parts.join('; ') || 'none';
}

/** Mean counts over the bases the kernel finished. */
function meanCounts(stats: Int32Array, batch: number): RunCounts {
  let it = 0,
    sw = 0,
    sr = 0,
    k = 0;
  for (let b = 0; b < batch; b++) {
    if (stats[b * 5 + 3] !== 0) continue;
    it += stats[b * 5]!;
    sw += stats[b * 5 + 1]!;
    sr += stats[b * 5 + 2]!;
    k++;
  }
  return k
    ? { iterations: it / k, swaps: sw / k, sizeReductions: sr / k }
    : { iterations: 0, swaps: 0, sizeReductions: 0 };
}

// formatting
const fmtTime = (s: number): string => {
  if (!Number.isFinite(s)) return 'n/a';
  if (s >= 1) return `${s.toPrecision(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toPrecision(3)} ms`;
  if (s >= 1e-6) return `${(s * 1e6).toPrecision(3)} us`;
  return `${(s * 1e9).toPrecision(3)} ns`;
};
const fmtX = (x: number): string =>
  Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : 'n/a';
const fmtFloor = (f: Floor): string =>
  `${fmtTime(f.floorS)} (${f.bound}; ${f.bound === 'ops' ? `bytes ${fmtTime(f.bytesS)}` : `ops ${fmtTime(f.opsS)}`})`;
const GB = 1e9;

interface Ceilings {
  deviceBytesPerS: number;
  hostToDeviceBytesPerS: number;
  deviceToHostBytesPerS: number;
  fp64OpsPerS: number;
  fp64FmaFlopsPerS: number;
  fp32FmaFlopsPerS: number;
  copyBytes: number;
  hostCopyBytes: number;
}

/** What the GPU modules give the tables (loaded only for --engine cuda). */
interface GpuKit {
  deviceLine: string;
  ceilings: Ceilings;
  timeKernel(
    algo: GpuAlgo,
    data: RealArray,
    batch: number,
    n: number,
    m: number,
    reps: number,
  ): Promise<{
    medianS: number;
    samples: number[];
    basis: RealArray;
    Z: Float64Array;
    stats: Int32Array;
    threads: number;
    variant: string;
    wave: number;
  }>;
  /** The engine call's wall time; `fresh`: new output arrays (else the same arrays as the last call of this shape). */
  withTransfers(
    algo: GpuAlgo,
    data: RealArray,
    batch: number,
    n: number,
    m: number,
    fresh?: boolean,
  ): Promise<{ totalS: number; kernelS: number; chunks: number; streams: number }>;
  /** The engine call of a block algorithm (MB-LLL, CR-MB-LLL): its kernel event time (reduction and product stage) and wall time. */
  engineCall(
    algo: 'block' | 'cr-block',
    data: RealArray,
    batch: number,
    n: number,
    m: number,
  ): Promise<{ kernelS: number; totalS: number; Z: Float64Array; chunks: number; streams: number }>;
  /** Batch that fills the device several times over with the plan chosen for a large batch. */
  fillBatch(algo: GpuAlgo, n: number, m: number, precision: Precision): number;
  setVariant(v: Record<string, string | number>): void;
  resetVariant(): void;
  multiprocessors: number;
}

async function loadGpuKit(): Promise<GpuKit> {
  const [{ requireCuda, describeCuda }, { measureCeilings }, { timeLatticeKernel }, lb, as, jp] = await Promise.all([
    import('../../src/gpu/index.js'),
    import('../gpu/ceilings.js'),
    import('../gpu/lattice-timing.js'),
    import('../../src/lattice/gpu/batch.js'),
    import('../../src/lattice/allswap/cuda.js'),
    import('../../src/lattice/jacobi-parallel/cuda.js'),
  ]);
  const ctx = requireCuda();
  const spec = (a: GpuAlgo) => (a === 'allswap' ? as.allswapSpec : jp.jacobiParallelSpec);
  const reducer = (a: GpuAlgo) => (a === 'allswap' ? as.reduceBatchCuda : jp.reduceBatchCuda);
  progress('measuring the device ceilings (copy bandwidth, host link, float64/float32 rates)');
  const ceilings = measureCeilings(ctx);
  const lines = await describeCuda();
  let reused: { key: string; out: { basis: RealArray; Z: Float64Array } } | null = null;
  let kernelParams = PARAMS; // (a variant may ask for other params: float32Arithmetic)
  return {
    deviceLine: lines.map((l) => l.trim()).join('; '),
    ceilings,
    multiprocessors: ctx.props.multiprocessors,
    async timeKernel(algo, data, batch, n, m, reps) {
      const t = timeLatticeKernel(spec(algo), data, batch, n, m, kernelParams, reps);
      return {
        medianS: t.medianMs / 1e3,
        samples: t.samplesMs,
        basis: t.basis,
        Z: t.Z,
        stats: t.stats,
        threads: t.threadsPerBlock,
        variant: t.plan.variant ?? 'default',
        wave: t.wave,
      };
    },
    async withTransfers(algo, data, batch, n, m, fresh = false) {
      // outputs in arrays reused over the calls of one shape (the engine's `out`): fresh arrays
      // add their first-touch page faults, which the `fresh` figure shows
      const key = `${algo} ${data.constructor.name} ${batch} ${n} ${m}`;
      if (!fresh && reused?.key !== key) {
        reused = {
          key,
          out: {
            basis: data instanceof Float32Array ? new Float32Array(batch * n * m) : new Float64Array(batch * n * m),
            Z: new Float64Array(batch * m * m),
          },
        };
      }
      const r = await reducer(algo)(data, batch, n, m, kernelParams, fresh ? undefined : reused!.out);
      return {
        totalS: r.stats.totalMs / 1e3,
        kernelS: r.stats.kernelMs / 1e3,
        chunks: r.stats.chunks,
        streams: r.stats.streams,
      };
    },
    async engineCall(algo, data, batch, n, m) {
      const { ALGORITHM_REGISTRY } = await import('../../src/lattice/registry.js');
      const load = ALGORITHM_REGISTRY[algo].cuda;
      if (!load) throw new InvalidArgumentError(`'${algo}' has no CUDA implementation in this build`);
      const r = await (await load())(data, batch, n, m, kernelParams);
      return {
        kernelS: r.stats.kernelMs / 1e3,
        totalS: r.stats.totalMs / 1e3,
        Z: r.Z,
        chunks: r.stats.chunks,
        streams: (r.stats as { streams?: number }).streams ?? 1,
      };
    },
    fillBatch(algo, n, m, precision) {
      const p = lb.prepareLattice(ctx, spec(algo), precision, 1 << 20, n, m, kernelParams);
      return p.wave;
    },
    setVariant(v) {
      // the variant's launch choices as AlgoParams.gpuTuning (validated: a typo names the field)
      const allswap: Record<string, unknown> = {};
      for (const k of ['kernel', 'threads', 'blockMemory', 'minBlocks', 'laneThreads', 'laneMemory'] as const)
        if (k in v) allswap[k] = v[k];
      if ('blockColumns' in v) allswap.columnLayout = v.blockColumns === 'on';
      if ('laneSpecialise' in v) allswap.laneSpecialise = Boolean(v.laneSpecialise);
      const jacobi: Record<string, unknown> = {};
      if ('jacobiThreads' in v) jacobi.threads = v.jacobiThreads;
      if ('jacobiRounds' in v) jacobi.rounds = v.jacobiRounds;
      if ('jacobiPreGram' in v) jacobi.preGram = Boolean(v.jacobiPreGram);
      kernelParams = {
        ...PARAMS,
        gpuTuning: validateGpuTuning({ allswap, jacobi }),
        ...('float32Arithmetic' in v ? { float32Arithmetic: v.float32Arithmetic as 'float32' } : {}),
      };
    },
    resetVariant() {
      kernelParams = PARAMS;
    },
  };
}

/** CPU engine on the first `count` bases (worker threads for batches), seconds per basis; null when skipped. */
async function cpuPerBasis(
  algorithm: Algorithm,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  budgetS: number,
  estimateS: number | null,
): Promise<{ perBasisS: number; count: number; threads: number } | { skipped: string }> {
  if (estimateS !== null && estimateS > budgetS) return { skipped: `skipped (about ${fmtTime(estimateS)} expected)` };
  const threads = defaultThreads();
  // warm-up (compilation of the hot paths), untimed
  await reduceBatchCpu(algorithm, data.slice(0, n * m) as RealArray, 1, n, m, PARAMS, 1);
  let count = Math.min(batch, 8);
  for (let attempt = 0; attempt < 4; attempt++) {
    const work = data.slice(0, count * n * m) as RealArray;
    const t0 = performance.now();
    await reduceBatchCpu(algorithm, work, count, n, m, PARAMS, threads);
    const s = (performance.now() - t0) / 1e3;
    if (s > 0.3 || count >= batch) return { perBasisS: s / count, count, threads: Math.min(threads, count) };
    count = Math.min(batch, Math.ceil(count * Math.min(50, 0.5 / Math.max(s, 1e-4))));
  }
  return { skipped: 'no stable figure' };
}

/** fplll (-m fast -z double, the fastest setting that finishes on these sizes) on round(2^20 B); wall time of the process. */
async function fplllTime(data: RealArray, n: number, m: number, timeoutS: number): Promise<string> {
  const scaled = integerScale(
    { data: Float64Array.from(data.subarray(0, n * m)), batch: 1, rows: n, cols: m },
    FPLLL_SCALE,
  );
  const text = formatFplll(scaled);
  const r = await runFplll(text, {
    delta: PARAMS.delta,
    eta: PARAMS.eta,
    method: 'fast',
    integerType: 'double',
    timeoutMs: timeoutS * 1000,
  });
  return r.ok ? fmtTime(r.timeMs / 1e3) : `failed: ${r.failure}`;
}

/** Runs one figure; an error becomes a table row saying what failed, and the benchmark goes on. */
async function guarded(lines: string[], what: string, f: () => Promise<void>): Promise<void> {
  const before = lines.length;
  try {
    await f();
    // the finished row on stderr too, so that a run cut short keeps what it measured
    for (const l of lines.slice(before)) progress(`row: ${l}`);
  } catch (e) {
    const msg = `${(e as Error).name}: ${(e as Error).message}`.replace(/\s+/g, ' ').slice(0, 300);
    progress(`${what}: FAILED: ${msg}`);
    lines.push(`| ${what}: failed: ${msg.replace(/\|/g, '/')} |`);
  }
}

export async function run(argv: string[]): Promise<number> {
  // large integer lattices beside fplll and flatter: a table of its own (recursive.ts)
  if (argv[0] === 'recursive') return (await import('./recursive.js')).run(argv.slice(1));
  // the CLI's own argument layer and value parsers (src/cli): decimal numbers only, each option checked before any work
  const { values } = parseCommandLine(
    argv,
    {
      engine: { type: 'string' },
      quick: { type: 'boolean' },
      batched: { type: 'string' },
      single: { type: 'string' },
      jacobi: { type: 'string' },
      families: { type: 'string' },
      precisions: { type: 'string' },
      algorithms: { type: 'string' },
      reps: { type: 'string' },
      'cpu-budget': { type: 'string' },
      'no-cpu': { type: 'boolean' },
      'no-fplll': { type: 'boolean' },
      'fplll-timeout': { type: 'string' },
      seed: { type: 'string' },
      variants: { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } as const,
    { command: 'bench lattice' },
  );
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  let engine = choiceOption('engine', values.engine, ['cuda', 'cpu'] as const);
  const quick = values.quick ?? false;
  const o: Omit<Opts, 'engine'> = {
    quick,
    batched: intList(values.batched ?? '8,16,32,64', 'batched'),
    single: intList(values.single ?? '128,256,512,1024', 'single'),
    jacobi: intList(values.jacobi ?? '10,20,30,40,50,100,200', 'jacobi'),
    families: listOf(values.families ?? 'gaussian,toeplitz', '--families', ['gaussian', 'toeplitz'] as const),
    algorithms: listOf(values.algorithms ?? 'allswap', '--algorithms', ['allswap', 'block', 'cr-block'] as const),
    precisions: listOf(values.precisions ?? 'float32,float64', '--precisions', ['float32', 'float64'] as const),
    reps: intOption('reps', values.reps, quick ? 3 : 10, 1, 10_000),
    cpuBudgetS: numberOption('cpu-budget', values['cpu-budget'], { above: 0 }) ?? 20,
    cpu: !values['no-cpu'],
    fplll: !values['no-fplll'],
    fplllTimeoutS: numberOption('fplll-timeout', values['fplll-timeout'], { above: 0 }) ?? 60,
    seed: intOption('seed', values.seed, 1, 0),
    variants: values.variants ?? false,
  };
  if (values.out !== undefined) checkOutputPath('out', values.out);
  if (engine === undefined) {
    const { cudaAvailable } = await import('../../src/gpu/index.js');
    engine = cudaAvailable().ok ? 'cuda' : 'cpu';
  }
  return runWith({ engine, ...o }, values.reps !== undefined, values.out, argv);
}

async function runWith(o: Opts, repsGiven: boolean, out: string | undefined, argv: string[]): Promise<number> {
  const fplllOk = o.fplll && availableReferences().fplll;
  const gpu = o.engine === 'cuda' ? await loadGpuKit() : null;
  const date = new Date().toISOString();
  const lines: string[] = [];

  // ---- header
  lines.push(
    `## Lattice reduction: our ${o.engine === 'cuda' ? 'GPU (CUDA) and CPU engines' : 'CPU engine'} beside the papers (${date.slice(0, 10)})`,
    '',
  );
  if (gpu) lines.push(`- Device: ${gpu.deviceLine}`);
  lines.push(`- Host: ${cpuDescription()}; CPU engine on ${defaultThreads()} worker thread(s) for batches`);
  lines.push(`- Date: ${date}; commit ${gitCommit()}; command: \`lattice-mimo bench lattice ${argv.join(' ')}\``);
  lines.push(
    `- Inputs (seed ${o.seed}): gaussian = iid N(0,1), n x n; toeplitz = block-Toeplitz MIMO channel with ISI (complex 1x1 taps CN(0,1), L = 3, real-decomposed), the whole convolution, (n + 4) x n. delta ${PARAMS.delta}, eta ${PARAMS.eta}.`,
  );
  if (gpu) {
    const c = gpu.ceilings;
    lines.push(
      `- Measured ceilings: device memory ${(c.deviceBytesPerS / GB).toFixed(0)} GB/s (copy of ${(c.copyBytes / 2 ** 20).toFixed(0)} MiB, read + written); host link ${(c.hostToDeviceBytesPerS / GB).toFixed(1)} GB/s up, ${(c.deviceToHostBytesPerS / GB).toFixed(1)} GB/s down (pinned, ${(c.hostCopyBytes / 2 ** 20).toFixed(0)} MiB); float64 ${(c.fp64OpsPerS / 1e12).toFixed(1)} Tops/s as separate multiplies and adds (how our kernels compute, -fmad=false, to round like JavaScript), ${(c.fp64FmaFlopsPerS / 1e12).toFixed(1)} Tflop/s with FMA; float32 ${(c.fp32FmaFlopsPerS / 1e12).toFixed(1)} Tflop/s with FMA.`,
    );
    lines.push(
      '- kernel = CUDA-event time of the kernel alone, data already on the GPU (median of the timed launches after a warm-up, per basis; for MB-LLL and CR-MB-LLL, timed through their engine call, the reduction and the product stage B_in Z together); with transfers = wall time of the engine call reduceBatchCuda (pinned staging, uploads, kernels and downloads in chunks on up to 3 streams, status words), median of 3 after a warm-up, the outputs written into arrays reused over the calls (its `out` argument); "fresh arrays" (batched table) = one call that allocates its outputs, whose first-touch page faults it pays. floor = max(bytes / bandwidth, operations / rate): the input read once, basis + Z + status written once; operations from the run\'s own counts (bench/lattice/floors.ts; a lower bound). x floor = measured / floor. link floor = input / upload rate + outputs / download rate.',
    );
    lines.push(
      '- checks: every GPU output in float64: LLL conditions (all-swap) or pairwise Lagrange conditions (Jacobi) on B_in Z, and Z unimodular exactly (src/lattice/check.ts); float32 runs that fail are redone in float64 by reduce(), counted here.',
    );
  }
  lines.push(
    `- CPU engine = reduceBatchCpu (the engine reduce() runs, worker threads for batches), wall time per basis on a part of the same inputs; fplll = \`fplll -a lll -m fast -z double\` on round(2^20 B), wall time of the process (start, parse, reduce, print)${fplllOk ? '' : `: not run (${o.fplll ? 'fplll not found on this machine' : '--no-fplll'})`}.`,
  );
  lines.push('');

  const variantRows: string[] = [];
  const targetsMet: string[] = [];

  // ---- 1. batched all-swap
  if (o.batched.length > 0) {
    const head = gpu
      ? [
          'n x m',
          'family',
          'precision',
          'batch',
          'kernel (threads) or algorithm',
          'kernel / basis',
          'floor / basis',
          'x floor',
          'with transfers / basis (chunks x streams)',
          'link floor',
          'CPU engine / basis',
          'paper CR-AS-LLL / CR-MB-LLL',
          'checks',
        ]
      : ['n x m', 'family', 'precision', 'CPU engine / basis', 'paper CR-AS-LLL / CR-MB-LLL (GPU)'];
    lines.push(
      `### 1. CR-AS-LLL (all-swap), batches of small bases: time per basis (paper: Table 1 of the CR-MB-LLL paper, ${PAPER_CRMB.gpu})`,
      '',
    );
    lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    for (const algo of o.algorithms.filter((a) => a !== 'allswap')) {
      if (!gpu) break;
      for (const n of o.batched)
        for (const family of o.families)
          for (const precision of o.precisions)
            await guarded(lines, `${algo} batched ${family} n=${n} ${precision}`, async () => {
              const inp0 = bases(family, n, 1, precision, o.seed);
              const batch = Math.min(n <= 8 ? 1 << 16 : 4096, Math.max(1024, Math.floor(2 ** 22 / (inp0.rows * n))));
              const inp = bases(family, n, batch, precision, o.seed);
              progress(`${algo} batched ${family} n=${n} ${precision}: batch ${batch}`);
              await gpu.engineCall(algo as 'block' | 'cr-block', inp.data, batch, inp.rows, inp.cols); // warm-up
              const runs: Array<{ kernelS: number; totalS: number; Z: Float64Array; chunks: number; streams: number }> =
                [];
              for (let r = 0; r < 3; r++)
                runs.push(await gpu.engineCall(algo as 'block' | 'cr-block', inp.data, batch, inp.rows, inp.cols));
              const k = median(runs.map((x) => x.kernelS)),
                t = median(runs.map((x) => x.totalS));
              const bytes = latticeBytesPerBasis(inp.rows, inp.cols, precision === 'float32' ? 4 : 8);
              const floorS = (bytes.read + bytes.written) / gpu.ceilings.deviceBytesPerS;
              const link =
                bytes.read / gpu.ceilings.hostToDeviceBytesPerS + bytes.written / gpu.ceilings.deviceToHostBytesPerS;
              const checks = checkOutputs('allswap', inp.data, runs[0]!.Z, null, null, batch, inp.rows, inp.cols);
              const paper = `${PAPER_CRMB.crAs[n] ? fmtTime(PAPER_CRMB.crAs[n]!) : '-'} / ${PAPER_CRMB.crMb[n] ? fmtTime(PAPER_CRMB.crMb[n]!) : '-'}`;
              lines.push(
                `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${batch} | ${ALGO_LABEL[algo]} (engine call, ${runs[0]!.chunks}x${runs[0]!.streams}) | ${fmtTime(k / batch)} | ${fmtTime(floorS)} (bytes; ops not modelled) | ${fmtX(k / batch / floorS)} | ${fmtTime(t / batch)} | ${fmtTime(link)} | - | ${paper} | ${describeChecks(checks, precision)} |`,
              );
            });
    }
    if (o.algorithms.includes('allswap'))
      for (const n of o.batched)
        for (const family of o.families)
          for (const precision of o.precisions)
            await guarded(lines, `all-swap batched ${family} n=${n} ${precision}`, async () => {
              const what = `all-swap batched ${family} n=${n} ${precision}`;
              const paper = `${PAPER_CRMB.crAs[n] ? fmtTime(PAPER_CRMB.crAs[n]!) : '-'} / ${PAPER_CRMB.crMb[n] ? fmtTime(PAPER_CRMB.crMb[n]!) : '-'}`;
              const elt = precision === 'float32' ? 4 : 8;
              if (!gpu) {
                const inp = bases(family, n, o.quick ? 64 : 512, precision, o.seed);
                progress(`${what}: CPU engine`);
                const c = o.cpu
                  ? await cpuPerBasis(
                      'allswap',
                      inp.data,
                      inp.data.length / (inp.rows * inp.cols),
                      inp.rows,
                      inp.cols,
                      o.cpuBudgetS,
                      null,
                    )
                  : { skipped: '--no-cpu' };
                lines.push(
                  `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${'perBasisS' in c ? `${fmtTime(c.perBasisS)} (${c.count} bases, ${c.threads} thr)` : c.skipped} | ${paper} |`,
                );
                return;
              }
              const rows = family === 'gaussian' ? n : n + 4;
              const wave = gpu.fillBatch('allswap', rows, n, precision);
              // enough waves that the slowest bases of the last wave do not dominate (measured: 16x16 with
              // the block kernel, 181 ns per basis at 131072 bases against 311 ns at 2 waves), within a
              // bound on the time the float64 checks of every output take
              const cap = o.quick
                ? 1 << 14
                : rows * n <= 144
                  ? 1 << 17
                  : Math.min(1 << 17, Math.max(4096, Math.floor(2 ** 22 / (rows * n))));
              const batch = Math.min(Math.max(16 * wave, 1024), cap);
              progress(`${what}: batch ${batch} (a wave is ${wave} bases)`);
              const inp = bases(family, n, batch, precision, o.seed);
              const k = await gpu.timeKernel('allswap', inp.data, batch, inp.rows, inp.cols, o.reps);
              const counts = meanCounts(k.stats, batch);
              const bytes = latticeBytesPerBasis(inp.rows, inp.cols, elt);
              const floor = floorOf(
                (bytes.read + bytes.written) * batch,
                gpu.ceilings.deviceBytesPerS,
                (allswapOps(inp.rows, inp.cols, counts) * batch) / gpu.ceilings.fp64OpsPerS,
              );
              const perBasis = k.medianS / batch;
              progress(
                `${what}: kernel ${fmtTime(perBasis)} per basis (${k.variant}, ${k.threads} threads); checking ${batch} outputs`,
              );
              const checks = checkOutputs('allswap', inp.data, k.Z, k.basis, k.stats, batch, inp.rows, inp.cols);
              await gpu.withTransfers('allswap', inp.data, batch, inp.rows, inp.cols); // warm-up
              const tr: Array<{ totalS: number; chunks: number; streams: number }> = [];
              for (let r = 0; r < 3; r++)
                tr.push(await gpu.withTransfers('allswap', inp.data, batch, inp.rows, inp.cols));
              const totalS = median(tr.map((t) => t.totalS));
              const freshS = (await gpu.withTransfers('allswap', inp.data, batch, inp.rows, inp.cols, true)).totalS;
              const link =
                (bytes.read * batch) / gpu.ceilings.hostToDeviceBytesPerS +
                (bytes.written * batch) / gpu.ceilings.deviceToHostBytesPerS;
              let cpuCell = '--no-cpu';
              if (o.cpu) {
                progress(`${what}: CPU engine`);
                const c = await cpuPerBasis('allswap', inp.data, batch, inp.rows, inp.cols, o.cpuBudgetS, null);
                cpuCell = 'perBasisS' in c ? `${fmtTime(c.perBasisS)} (${c.count} bases, ${c.threads} thr)` : c.skipped;
              }
              lines.push(
                `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${batch} | ${k.variant} (${k.threads}) | ${fmtTime(perBasis)} | ${fmtFloor({ ...floor, floorS: floor.floorS / batch, bytesS: floor.bytesS / batch, opsS: floor.opsS / batch })} | ${fmtX(k.medianS / floor.floorS)} | ${fmtTime(totalS / batch)} (${tr[0]!.chunks}x${tr[0]!.streams}; fresh arrays ${fmtTime(freshS / batch)}) | ${fmtTime(link / batch)} | ${cpuCell} | ${paper} | ${describeChecks(checks, precision)} |`,
              );
              if (family === 'toeplitz' && precision === 'float32' && (n === 8 || n === 64)) {
                const target = n === 8 ? TARGETS.batched8 : TARGETS.batched64;
                targetsMet.push(
                  `batched ${inp.rows}x${n} block-Toeplitz float32, kernel: ${fmtTime(perBasis)} per basis against the target ${fmtTime(target)} (${perBasis <= target ? 'met' : `${fmtX(perBasis / target)}x over`}); paper CR-AS-LLL ${fmtTime(PAPER_CRMB.crAs[n]!)}`,
                );
              }
              if (o.variants && (family === 'gaussian' || (n >= 64 && precision === 'float32'))) {
                // (the generic block kernel's other layouts are the blockColumns 'off' ones; bench/gpu-notes.md has their figures)
                const variants: Array<Record<string, string | number>> =
                  n >= 64
                    ? [
                        { kernel: 'block' },
                        { kernel: 'block', blockColumns: 'off' },
                        { kernel: 'block', blockColumns: 'on', minBlocks: 2 },
                        { kernel: 'block', blockColumns: 'on', minBlocks: 0 },
                        { kernel: 'block', blockColumns: 'on', blockMemory: 'global' },
                        { kernel: 'block', blockColumns: 'off', blockMemory: 'z-global', threads: 384, minBlocks: 2 },
                        ...(precision === 'float32' ? [{ kernel: 'block', float32Arithmetic: 'float32' }] : []),
                      ]
                    : n > 16
                      ? [{ kernel: 'block' }, { kernel: 'block', blockColumns: 'off' }]
                      : [
                          { kernel: 'block', blockColumns: 'off' },
                          { kernel: 'block' },
                          { kernel: 'lane' },
                          { kernel: 'lane', laneSpecialise: 0 },
                          { kernel: 'lane', laneMemory: 'shared' },
                          { kernel: 'lane', laneMemory: 'z-global' },
                          { kernel: 'lane', laneThreads: 64 },
                        ];
                for (const v of variants) {
                  gpu.setVariant(v);
                  try {
                    const kv = await gpu.timeKernel(
                      'allswap',
                      inp.data,
                      batch,
                      inp.rows,
                      inp.cols,
                      Math.max(3, o.reps >> 1),
                    );
                    // (float32 arithmetic is not the default's arithmetic: every output of it is checked)
                    const checked = 'float32Arithmetic' in v ? batch : Math.min(batch, 256);
                    const cv = checkOutputs('allswap', inp.data, kv.Z, kv.basis, kv.stats, checked, inp.rows, inp.cols);
                    let same = kv.Z.length === k.Z.length;
                    for (let i = 0; same && i < k.Z.length; i++) same = Object.is(kv.Z[i], k.Z[i]);
                    if ('float32Arithmetic' in v && family === 'toeplitz' && n === 64) {
                      const t = kv.medianS / batch;
                      targetsMet.push(
                        `batched ${inp.rows}x${n} block-Toeplitz float32 with float32 arithmetic (float32Arithmetic 'float32', --variants), kernel: ${fmtTime(t)} per basis against the target ${fmtTime(TARGETS.batched64)} (${t <= TARGETS.batched64 ? 'met' : `${fmtX(t / TARGETS.batched64)}x over`}); ${describeChecks(cv, precision)}`,
                      );
                    }
                    variantRows.push(
                      `| all-swap ${inp.rows}x${n} ${family} ${precision} batch ${batch} | ${JSON.stringify(v)} | ${fmtTime(kv.medianS / batch)} per basis | ${kv.threads} thr, wave ${kv.wave} | ${describeChecks(cv, precision)} (${checked === batch ? 'all' : 'first 256'}); Z ${same ? 'equal to' : 'DIFFERS from'} the default's |`,
                    );
                  } catch (e) {
                    variantRows.push(
                      `| all-swap ${inp.rows}x${n} ${precision} batch ${batch} | ${JSON.stringify(v)} | failed: ${(e as Error).message.slice(0, 120)} | | |`,
                    );
                  } finally {
                    gpu.resetVariant();
                  }
                }
              }
            });
    lines.push('');
  }

  // ---- 2. single large bases, all-swap
  if (o.single.length > 0) {
    const head = gpu
      ? [
          'n x m',
          'family',
          'precision',
          'kernel (threads) or algorithm',
          'kernel',
          'floor',
          'x floor',
          'with transfers',
          'link floor',
          'CPU engine',
          'fplll fast-double',
          'paper CR-AS-LLL / CR-MB-LLL',
          'checks',
        ]
      : ['n x m', 'family', 'precision', 'CPU engine', 'fplll fast-double', 'paper CR-AS-LLL / CR-MB-LLL (GPU)'];
    const blockNote = o.algorithms.some((a) => a !== 'allswap')
      ? 'MB-LLL and CR-MB-LLL rows: the GPU block algorithms (src/lattice/block/cuda.ts) through their engine call'
      : 'the block algorithms MB-LLL and CR-MB-LLL run on the GPU through `--algorithms block,cr-block` (their kernels came after this table was set up); without it their paper column is for comparison only';
    lines.push(`### 2. CR-AS-LLL, one large basis (${blockNote})`, '');
    lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    const cpuSeen = new Map<string, { n: number; s: number }>();
    for (const algo of o.algorithms.filter((a) => a !== 'allswap')) {
      if (!gpu) break;
      for (const n of o.single)
        for (const family of o.families)
          for (const precision of o.precisions)
            await guarded(lines, `${algo} single ${family} n=${n} ${precision}`, async () => {
              const inp = bases(family, n, 1, precision, o.seed + n);
              progress(`${algo} single ${family} n=${n} ${precision}`);
              await gpu.engineCall(algo as 'block' | 'cr-block', inp.data, 1, inp.rows, inp.cols); // warm-up
              const runs: Array<{ kernelS: number; totalS: number; Z: Float64Array }> = [];
              for (let r = 0; r < 2; r++)
                runs.push(await gpu.engineCall(algo as 'block' | 'cr-block', inp.data, 1, inp.rows, inp.cols));
              const k = median(runs.map((x) => x.kernelS)),
                t = median(runs.map((x) => x.totalS));
              const bytes = latticeBytesPerBasis(inp.rows, inp.cols, precision === 'float32' ? 4 : 8);
              const floorS = (bytes.read + bytes.written) / gpu.ceilings.deviceBytesPerS;
              const link =
                bytes.read / gpu.ceilings.hostToDeviceBytesPerS + bytes.written / gpu.ceilings.deviceToHostBytesPerS;
              const checks = checkOutputs('allswap', inp.data, runs[0]!.Z, null, null, 1, inp.rows, inp.cols);
              const paper = `${PAPER_CRMB.crAs[n] ? fmtTime(PAPER_CRMB.crAs[n]!) : '-'} / ${PAPER_CRMB.crMb[n] ? fmtTime(PAPER_CRMB.crMb[n]!) : '-'}`;
              lines.push(
                `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${ALGO_LABEL[algo]} (engine call) | ${fmtTime(k)} | ${fmtTime(floorS)} (bytes; ops not modelled) | ${fmtX(k / floorS)} | ${fmtTime(t)} | ${fmtTime(link)} | - | - | ${paper} | ${describeChecks(checks, precision)} |`,
              );
            });
    }
    if (o.algorithms.includes('allswap'))
      for (const n of o.single)
        for (const family of o.families)
          for (const precision of o.precisions)
            await guarded(lines, `all-swap single ${family} n=${n} ${precision}`, async () => {
              const what = `all-swap single ${family} n=${n} ${precision}`;
              const inp = bases(family, n, 1, precision, o.seed + n);
              const paper = `${PAPER_CRMB.crAs[n] ? fmtTime(PAPER_CRMB.crAs[n]!) : '-'} / ${PAPER_CRMB.crMb[n] ? fmtTime(PAPER_CRMB.crMb[n]!) : '-'}`;
              // CPU engine, unless the last size's time scaled by (n / n_last)^3 says it would take too long
              let cpuCell = '--no-cpu';
              if (o.cpu) {
                const key = `${family}/${precision}`;
                const prev = cpuSeen.get(key);
                const est = prev ? prev.s * (n / prev.n) ** 3 : null;
                progress(`${what}: CPU engine`);
                const c = await cpuPerBasis('allswap', inp.data, 1, inp.rows, inp.cols, o.cpuBudgetS, est);
                if ('perBasisS' in c) {
                  cpuSeen.set(key, { n, s: c.perBasisS });
                  cpuCell = fmtTime(c.perBasisS);
                } else cpuCell = c.skipped;
              }
              let fplllCell = fplllOk ? '' : 'not run';
              if (fplllOk && precision === 'float64') {
                progress(`${what}: fplll`);
                fplllCell = await fplllTime(inp.data, inp.rows, inp.cols, o.fplllTimeoutS);
              } else if (fplllOk) fplllCell = '(as float64)';
              if (!gpu) {
                lines.push(
                  `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${cpuCell} | ${fplllCell} | ${paper} |`,
                );
                return;
              }
              const reps = repsGiven ? o.reps : n >= 1024 ? 2 : 3;
              progress(`${what}: kernel`);
              const k = await gpu.timeKernel('allswap', inp.data, 1, inp.rows, inp.cols, reps);
              const counts = meanCounts(k.stats, 1);
              const elt = precision === 'float32' ? 4 : 8;
              const bytes = latticeBytesPerBasis(inp.rows, inp.cols, elt);
              const floor = floorOf(
                bytes.read + bytes.written,
                gpu.ceilings.deviceBytesPerS,
                allswapOps(inp.rows, inp.cols, counts) / gpu.ceilings.fp64OpsPerS,
              );
              progress(`${what}: kernel ${fmtTime(k.medianS)}; with transfers; checking`);
              if (n < 1024) await gpu.withTransfers('allswap', inp.data, 1, inp.rows, inp.cols); // warm-up (staging memory, streams)
              const t = await gpu.withTransfers('allswap', inp.data, 1, inp.rows, inp.cols);
              const link =
                bytes.read / gpu.ceilings.hostToDeviceBytesPerS + bytes.written / gpu.ceilings.deviceToHostBytesPerS;
              const checks = checkOutputs('allswap', inp.data, k.Z, k.basis, k.stats, 1, inp.rows, inp.cols);
              lines.push(
                `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${k.variant} (${k.threads}) | ${fmtTime(k.medianS)} | ${fmtFloor(floor)} | ${fmtX(k.medianS / floor.floorS)} | ${fmtTime(t.totalS)} | ${fmtTime(link)} | ${cpuCell} | ${fplllCell} | ${paper} | ${describeChecks(checks, precision)} |`,
              );
              if (n === 1024 && family === 'toeplitz' && precision === 'float32') {
                targetsMet.push(
                  `one ${inp.rows}x1024 block-Toeplitz basis, float32, kernel: ${fmtTime(k.medianS)} against the target ${fmtTime(TARGETS.single1024)} (${k.medianS <= TARGETS.single1024 ? 'met' : `${fmtX(k.medianS / TARGETS.single1024)}x over`}); paper CR-AS-LLL ${fmtTime(PAPER_CRMB.crAs[1024]!)}, CR-MB-LLL ${fmtTime(PAPER_CRMB.crMb[1024]!)}`,
                );
              }
            });
    lines.push('');
  }

  // ---- 3. Jacobi, single bases
  if (o.jacobi.length > 0) {
    const head = gpu
      ? [
          'n x m',
          'family',
          'precision',
          'threads',
          'kernel',
          'floor',
          'x floor',
          'with transfers',
          'link floor',
          'CPU engine',
          'paper GPU / CPU',
          'sweeps',
          'checks',
        ]
      : ['n x m', 'family', 'precision', 'CPU engine', 'paper GPU / CPU'];
    const count = o.quick ? 2 : 5;
    lines.push(
      `### 3. Parallel Jacobi, one basis at a time: median over ${count} bases (paper: Table 1 of the Jacobi paper, ${PAPER_JACOBI.gpu}, mean of 100)`,
      '',
    );
    lines.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    for (const n of o.jacobi)
      for (const family of o.families)
        for (const precision of o.precisions)
          await guarded(lines, `jacobi ${family} n=${n} ${precision}`, async () => {
            const what = `jacobi ${family} n=${n} ${precision}`;
            const paper = `${PAPER_JACOBI.gpuMs[n] !== undefined ? `${PAPER_JACOBI.gpuMs[n]} ms` : '-'} / ${PAPER_JACOBI.cpuMs[n] !== undefined ? `${PAPER_JACOBI.cpuMs[n]} ms` : '-'}`;
            const inp = bases(family, n, count, precision, o.seed + 7 * n);
            const size = inp.rows * inp.cols;
            let cpuCell = '--no-cpu';
            if (o.cpu) {
              progress(`${what}: CPU engine`);
              const c = await cpuPerBasis('jacobi-parallel', inp.data, count, inp.rows, inp.cols, o.cpuBudgetS, null);
              cpuCell = 'perBasisS' in c ? fmtTime(c.perBasisS) : c.skipped;
            }
            if (!gpu) {
              lines.push(`| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${cpuCell} | ${paper} |`);
              return;
            }
            progress(`${what}: kernel`);
            const kernelS: number[] = [],
              totalS: number[] = [],
              floors: number[] = [],
              sweeps: number[] = [];
            let threads = 0;
            const tally: CheckTally = { checked: 0, failed: 0, kernelErrors: new Map(), unwritten: 0 };
            const elt = precision === 'float32' ? 4 : 8;
            const bytes = latticeBytesPerBasis(inp.rows, inp.cols, elt);
            for (let b = 0; b < count; b++) {
              const one = inp.data.subarray(b * size, (b + 1) * size) as RealArray;
              const k = await gpu.timeKernel('jacobi-parallel', one, 1, inp.rows, inp.cols, Math.max(3, o.reps >> 1));
              threads = k.threads;
              kernelS.push(k.medianS);
              const counts = meanCounts(k.stats, 1);
              sweeps.push(counts.iterations);
              const ops = jacobiOps(inp.rows, inp.cols, counts);
              const opsS =
                ops.working / (precision === 'float32' ? gpu.ceilings.fp32FmaFlopsPerS / 2 : gpu.ceilings.fp64OpsPerS) +
                ops.fp64 / gpu.ceilings.fp64OpsPerS;
              floors.push(floorOf(bytes.read + bytes.written, gpu.ceilings.deviceBytesPerS, opsS).floorS);
              const c = checkOutputs('jacobi-parallel', one, k.Z, k.basis, k.stats, 1, inp.rows, inp.cols);
              tally.checked += c.checked;
              tally.failed += c.failed;
              tally.unwritten += c.unwritten;
              tally.firstFailure ??= c.firstFailure;
              for (const [s, v] of c.kernelErrors) tally.kernelErrors.set(s, (tally.kernelErrors.get(s) ?? 0) + v);
              await gpu.withTransfers('jacobi-parallel', one, 1, inp.rows, inp.cols);
              totalS.push((await gpu.withTransfers('jacobi-parallel', one, 1, inp.rows, inp.cols)).totalS);
            }
            const k = median(kernelS),
              f = median(floors);
            const link =
              bytes.read / gpu.ceilings.hostToDeviceBytesPerS + bytes.written / gpu.ceilings.deviceToHostBytesPerS;
            progress(`${what}: kernel ${fmtTime(k)}`);
            lines.push(
              `| ${inp.rows}x${inp.cols} | ${family} | ${precision} | ${threads} | ${fmtTime(k)} | ${fmtTime(f)} | ${fmtX(k / f)} | ${fmtTime(median(totalS))} | ${fmtTime(link)} | ${cpuCell} | ${paper} | ${median(sweeps)} | ${describeChecks(tally, precision)} |`,
            );
            if (n === 200 && family === 'gaussian' && precision === 'float32') {
              targetsMet.push(
                `Jacobi 200x200 Gaussian float32, one basis, kernel: ${fmtTime(k)} against the target ${fmtTime(TARGETS.jacobi200)} (${k <= TARGETS.jacobi200 ? 'met' : `${fmtX(k / TARGETS.jacobi200)}x over`}); paper ${PAPER_JACOBI.gpuMs[200]} ms`,
              );
            }
            if (o.variants && family === 'gaussian' && precision === 'float32' && n >= 50) {
              const one = inp.data.subarray(0, size) as RealArray;
              // block sizes; who runs the rounds (gpu-tuning.ts: JacobiRounds); G by the block instead of jacobi_gram
              const jv: Array<Record<string, number | string>> = [
                { jacobiThreads: 256 },
                { jacobiThreads: 512 },
                { jacobiThreads: 1024 },
                { jacobiRounds: 'first-warp' },
                { jacobiRounds: 'group-shared-permutation' },
                { jacobiRounds: 'group-register-players' },
                { jacobiPreGram: 0 },
              ];
              for (const v of jv) {
                gpu.setVariant(v);
                const name = Object.entries(v)
                  .map(([a, b]) => `${a} ${b}`)
                  .join(', ');
                try {
                  const kv = await gpu.timeKernel('jacobi-parallel', one, 1, inp.rows, inp.cols, 3);
                  const c = checkOutputs('jacobi-parallel', one, kv.Z, kv.basis, kv.stats, 1, inp.rows, inp.cols);
                  variantRows.push(
                    `| jacobi ${inp.rows}x${n} ${precision} single | ${name} | ${fmtTime(kv.medianS)} | ${kv.threads} thr | ${c.failed === 0 && c.unwritten === 0 ? 'ok' : 'FAILED'} |`,
                  );
                } catch (e) {
                  variantRows.push(
                    `| jacobi ${inp.rows}x${n} ${precision} single | ${name} | failed: ${(e as Error).message.slice(0, 120)} | | |`,
                  );
                } finally {
                  gpu.resetVariant();
                }
              }
            }
          });
    lines.push('');
  }

  if (targetsMet.length > 0) {
    lines.push('### Targets (issue 4, H100, data already on the GPU)', '');
    for (const t of targetsMet) lines.push(`- ${t}`);
    lines.push('');
  }
  if (variantRows.length > 0) {
    lines.push(
      '### Tuning variants (kernel time; --variants)',
      '',
      '| figure | variant | kernel | block | checks |',
      '|---|---|---|---|---|',
      ...variantRows,
      '',
    );
  }
  const section = lines.join('\n');
  process.stdout.write(`${section}\n`);
  if (out) writeResultsSection(out, o.engine === 'cuda' ? 'bench-lattice' : 'bench-lattice-cpu', section);
  return 0;
}
