/**
 * Our CPU LLL against fplll on the same integer bases.
 *
 *   node dist/bench/fplll-compare.js [--sizes 16,32,64,128,256,512] [--families gaussian,toeplitz,toeplitz-full]
 *        [--reps 3] [--delta 0.75] [--seed S] [--timeout 300] [--out FILE | --out - (default)]
 *        [--section fplll-compare] [--title TEXT]   (the marked section of --out, and a heading suffix)
 *        [--input-seed S]   (every size from generator seed S; default seed + n)
 *
 * Inputs: round(2^20 * N(0,1)) Gaussian bases and round(2^20 * H) block-Toeplitz bases (complex
 * 1x1 taps, real-decomposed: b = 2, L = 3), square n x n or the full (n + 4) x n convolution. Ours: reduce() in this process
 * (reduceSync, lll, float64, check off while timed), median of the reps; its output is then
 * checked once in float64 (LLL conditions) and exactly (Z unimodular). fplll: `fplll -a lll -d
 * delta` with its default options and with `-m fast -z double`, median wall time of the process
 * (start, parse, reduce, print, exit), each run bounded by --timeout. Progress goes to stderr; the
 * markdown table to stdout and into a marked section of --out.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { gitCommit, median, writeResultsSection } from './report.js';
import { BenchArgs } from './args.js';
import { LatticeMimoError } from '../src/core/errors.js';
import { matrixAt, type MatrixBatch } from '../src/core/matrix.js';
import { checkLLL, checkUnimodular, qualityMetrics } from '../src/lattice/check.js';
import { basisFromRows, formatFplll, parseFplll } from '../src/lattice/fplll-format.js';
import { availableReferences, runFplll, type FplllOptions, type FplllResult } from './reference/fplll.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../src/lattice/generators.js';
import { reduceSync } from '../src/lattice/reduce.js';
import { rebuildTransform } from '../src/lattice/exact-transform.js';

const ETA = 0.51;
/** Untimed runs of ours on each input before timing it, and the time they may take together. */
const WARM_UP_RUNS = 5;
const WARM_UP_MS = 2000;
const SCALE = 2 ** 20;
type Family = 'gaussian' | 'toeplitz' | 'toeplitz-full';
const FAMILIES: readonly Family[] = ['gaussian', 'toeplitz', 'toeplitz-full'];

interface Args {
  sizes: number[];
  families: Family[];
  reps: number;
  delta: number;
  seed: number;
  inputSeed: number | null;
  timeoutS: number;
  out: string;
  section: string;
  title: string;
}

const USAGE =
  'node dist/bench/fplll-compare.js [--sizes 16,32,...] [--families gaussian,toeplitz,toeplitz-full] [--reps N] [--delta 0.75] [--seed S] [--input-seed S] [--timeout seconds] [--out FILE | - (default)] [--section NAME] [--title TEXT]';

function parseCommandLine(argv: string[]): Args {
  const cl = BenchArgs.parse(
    'fplll-compare',
    USAGE,
    ['sizes', 'families', 'reps', 'delta', 'seed', 'input-seed', 'timeout', 'out', 'section', 'title'],
    argv,
  );
  const inputSeed = cl.int('input-seed', 0, 2 ** 52, -1);
  return {
    sizes: cl.numbers('sizes', 2, 4096, [16, 32, 64, 128, 256, 512], true),
    families: cl.choices('families', FAMILIES, FAMILIES),
    reps: cl.int('reps', 1, 100, 3),
    delta: cl.number('delta', 0.26, 0.999, 0.75),
    seed: cl.int('seed', 0, 2 ** 52, Date.now() % 2 ** 31),
    inputSeed: inputSeed < 0 ? null : inputSeed,
    timeoutS: cl.number('timeout', 1, 86400, 300),
    out: cl.text('out', '-'),
    section: cl.text('section', 'fplll-compare'),
    title: cl.text('title', ''),
  };
}

function progress(msg: string): void {
  process.stderr.write(`[fplll-compare] ${msg}\n`);
}

function makeInput(family: Family, n: number, seed: number): MatrixBatch | null {
  if (family === 'gaussian') return integerScale(gaussianBases({ batch: 1, n, seed }), SCALE);
  if (n % 2 !== 0) return null; // complex taps give even dimensions
  const shape = family === 'toeplitz' ? 'square' : 'full';
  return integerScale(
    blockToeplitzBases({ batch: 1, blocks: n / 2, blockSize: 1, taps: Math.min(3, n / 2), complex: true, shape, seed }),
    SCALE,
  );
}

interface OursResult {
  ms: number | null;
  check: string;
  rhf: number | null;
  note?: string;
}

/** Our LLL, timed in-process; null time when it cannot run (placeholder engine). */
function timeOurs(basis: MatrixBatch, a: Args, label: string): OursResult {
  const opts = { algorithm: 'lll' as const, delta: a.delta, eta: ETA, check: false };
  const times: number[] = [];
  let last: ReturnType<typeof reduceSync> | undefined;
  // untimed runs on the same input first, while a run is short enough for JIT compilation to
  // matter (V8 needs about four runs of a code path, the wide-transform rebuild say, before its
  // optimised code runs): up to WARM_UP_RUNS of them, within WARM_UP_MS
  let warmUps = 0;
  for (let spent = 0; warmUps < WARM_UP_RUNS && spent < WARM_UP_MS; warmUps++) {
    progress(`${label}: ours warm-up ${warmUps + 1}`);
    const t0 = performance.now();
    try {
      reduceSync(basis, opts);
    } catch {
      break;
    } // the timed runs below report it
    spent += performance.now() - t0;
  }
  for (let r = 0; r < a.reps; r++) {
    progress(`${label}: ours rep ${r + 1}/${a.reps}`);
    const t0 = performance.now();
    try {
      last = reduceSync(basis, opts);
    } catch (e) {
      if (e instanceof LatticeMimoError && e.code === 'UNSUPPORTED')
        return { ms: null, check: '-', rhf: null, note: `ours unavailable: ${e.message}` };
      if (e instanceof LatticeMimoError)
        return { ms: null, check: `FAIL: ${e.code}: ${e.message.slice(0, 120)}`, rhf: null };
      throw e;
    }
    times.push(performance.now() - t0);
  }
  const { rows: n, cols: m } = basis;
  const out = matrixAt(last!.basis, 0),
    Z = matrixAt(last!.transform, 0);
  const lll = checkLLL(out, n, m, a.delta, ETA);
  // a Z past 2^53 was rebuilt exactly with B_in Z = B_out proven; its unimodularity is proven here
  const stats = last!.stats.perBasis[0]!;
  let uniOk: boolean;
  try {
    uniOk = stats.wideTransformBits
      ? rebuildTransform(basis.data, out, n, m, true).det !== null
      : checkUnimodular(Z, m).ok;
  } catch {
    uniOk = false;
  }
  const how = [
    stats.extendedPrecision ? `double-double after a float64 breakdown` : '',
    stats.wideTransformBits ? `Z of ${stats.wideTransformBits} bits rebuilt exactly` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const check =
    (lll.ok && uniOk ? 'ok' : `FAIL: ${uniOk ? lll.violations[0] : 'Z not unimodular'}`) + (how ? ` (${how})` : '');
  return { ms: median(times), check, rhf: qualityMetrics(out, n, m).rootHermiteFactor };
}

interface FplllTiming {
  ms: number | null;
  failure?: string;
  rhf: number | null;
}

async function timeFplll(text: string, opts: FplllOptions, a: Args, label: string): Promise<FplllTiming> {
  const times: number[] = [];
  let last: FplllResult | undefined;
  for (let r = 0; r < a.reps; r++) {
    progress(
      `${label}: fplll ${opts.method ?? 'default'}${opts.integerType ? ` -z ${opts.integerType}` : ''} rep ${r + 1}/${a.reps}`,
    );
    last = await runFplll(text, { ...opts, delta: a.delta, eta: ETA, timeoutMs: a.timeoutS * 1000 });
    if (!last.ok) return { ms: null, failure: last.failure, rhf: null };
    times.push(last.timeMs);
  }
  const b = basisFromRows(parseFplll(last!.text).values);
  return { ms: median(times), rhf: qualityMetrics(b.data, b.rows, b.cols).rootHermiteFactor };
}

const fmtMs = (v: number | null) =>
  v === null ? 'n/a' : v < 10 ? v.toFixed(2) : v < 1000 ? v.toFixed(1) : v.toFixed(0);

async function main(): Promise<number> {
  const a = parseCommandLine(process.argv.slice(2));
  const refs = availableReferences();
  if (!refs.fplll) {
    progress(`fplll is missing: ${refs.missing.join('; ')}`);
    return 1;
  }
  // one untimed run first, so the JIT's warm-up is not charged to the first size
  try {
    reduceSync(integerScale(gaussianBases({ batch: 1, n: 24, seed: a.seed }), SCALE), {
      algorithm: 'lll',
      delta: a.delta,
      eta: ETA,
      check: false,
    });
  } catch {
    /* reported per size below */
  }
  // what a process costs before any reduction: start, parse and print a 2 x 2 identity
  const baseline = await timeFplll('[[1 0]\n[0 1]]\n', {}, { ...a, reps: Math.max(3, a.reps) }, 'baseline 2x2');
  const rows: string[] = [];
  const oursNotes = new Set<string>();
  const started = new Date();
  for (const n of a.sizes) {
    for (const family of a.families) {
      const label = `n=${n} ${family}`;
      const basis = makeInput(family, n, a.inputSeed ?? a.seed + n);
      if (!basis) {
        progress(`${label}: skipped (odd n)`);
        continue;
      }
      const text = formatFplll(basis);
      const ours = timeOurs(basis, a, label);
      if (ours.note) oursNotes.add(ours.note);
      const def = await timeFplll(text, {}, a, label);
      const fast = await timeFplll(text, { method: 'fast', integerType: 'double' }, a, label);
      const status =
        [
          def.failure ? `fplll default: ${def.failure}` : '',
          fast.failure ? `fplll fast-double: ${fast.failure}` : '',
          ours.ms === null ? (ours.note ? 'ours unavailable' : 'ours failed') : '',
        ]
          .filter(Boolean)
          .join('; ') || 'ok';
      const ratio = ours.ms !== null && fast.ms !== null ? (ours.ms / fast.ms).toFixed(2) : 'n/a';
      const rhf = (v: number | null) => (v === null ? 'n/a' : v.toFixed(4));
      rows.push(
        `| ${basis.rows}x${basis.cols} | ${family} | ${fmtMs(ours.ms)} | ${fmtMs(def.ms)} | ${fmtMs(fast.ms)} | ${ratio} | ${rhf(ours.rhf)} / ${rhf(def.rhf)} | ${status} | ${ours.check} |`,
      );
      progress(
        `${label}: ours ${fmtMs(ours.ms)} ms, fplll ${fmtMs(def.ms)} ms, fast-double ${fmtMs(fast.ms)} ms, ${status}`,
      );
    }
  }
  const cpu = cpus();
  const section = [
    `## LLL: ours (CPU, TypeScript) vs fplll${a.title ? `, ${a.title}` : ''} (${started.toISOString().slice(0, 10)})`,
    '',
    `- Device: ${cpu[0]?.model ?? 'unknown CPU'} (${cpu.length} logical cores), Node ${process.version}, ${process.platform}/${process.arch}`,
    `- Date: ${started.toISOString()}; commit ${gitCommit()}`,
    `- Command: \`node dist/bench/fplll-compare.js ${process.argv.slice(2).join(' ')}\` (${a.inputSeed === null ? `inputs from generator seed ${a.seed} + n` : `every input from generator seed ${a.inputSeed}`})`,
    `- Inputs: gaussian = round(2^20 N(0,1)), n x n; toeplitz = round(2^20 H), square n x n block-Toeplitz with complex 1x1 taps real-decomposed (b = 2), L = 3 (ill-conditioned, exponentially in n, whenever the channel polynomial has a root inside the unit circle); toeplitz-full = the same channel's whole convolution, (n + 4) x n. delta ${a.delta}, eta ${ETA}.`,
    `- ours: reduceSync(lll, float64, check off) in this process after up to ${WARM_UP_RUNS} untimed warm-up runs on the same input (while they take less than ${WARM_UP_MS / 1000} s together: V8 compiles a code path after a few runs), median of ${a.reps}; "check" is the float64 LLL re-check plus exact unimodularity of Z, run once after timing. Ours always returns Z (fplll here does not compute U); where Z passed 2^53 its exact rebuild is inside our time.`,
    `- fplll: \`fplll -a lll -d ${a.delta} -e ${ETA}\` (default = wrapper, mpz) and with \`-m fast -z double\`; median of ${a.reps} process wall times, which include process start, parsing the text matrix and printing the result. Timeout ${a.timeoutS} s per run. A 2 x 2 identity takes ${fmtMs(baseline.ms)} ms this way (the floor of every fplll figure).`,
    ...[...oursNotes].map((s) => `- ${s}`),
    '',
    '| n x m | family | ours ms | fplll default ms | fplll fast-double ms | ours / fast | root Hermite ours / fplll | status | our check |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (a.out !== '-') {
    writeResultsSection(a.out, a.section, section);
    progress(`wrote ${a.out}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`fplll-compare: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
