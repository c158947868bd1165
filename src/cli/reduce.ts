/**
 * `lattice-mimo reduce`: reads a basis in fplll's format (rows are basis vectors) or JSON
 * ({"basis": [[...], ...]}) from FILE or stdin, reduces it, and writes fplll's format:
 * `-of b` the reduced basis, `-of u` the transform U (U B_in = B_out, rows), `-of bu` both.
 * `--check` adds the proof and quality metrics (on stderr, so stdout stays fplll's format).
 */
import {
  InvalidArgumentError,
  InvalidInputError,
  LatticeMimoError,
  UnsupportedError,
  checkDistinctOutputs,
  checkOutputPath,
  readInput,
  writeFileAtomicSync,
  writesInPlace,
  makeBatch,
  type MatrixBatch,
  CPU_KERNEL_REQUESTS,
} from '../core/index.js';
import {
  assertExactDoubles,
  formatFplll,
  formatIntegerRows,
  parseBasisJson,
  parseFplll,
  type ParsedMatrix,
  lllIntegral,
  RUNGS,
  type LadderProgress,
  type Rung,
  formatIntegralResult,
  reduce,
  type BasisCheck,
  reduceEngine,
  ALGORITHMS,
  type Algorithm,
  unitScale,
  ALGORITHM_REGISTRY,
  recursiveReduce,
  formatRecursiveResult,
  checkRecursiveOptions,
  type RecursiveOptions,
} from '../lattice/index.js';
import { choiceOption, parseCommandLine, rejectInapplicable } from './args.js';
import { escapeForTerminal } from './error-line.js';
import { ProgressLine } from './progress-line.js';
import { intOption, parseDecimal } from './values.js';

/**
 * The flags an algorithm's registry entry owns beyond the common ones (AlgorithmEntry.options:
 * recursive's --rhf, --alpha, --threads), each with the entry it belongs to.
 */
const ENTRY_FLAGS: ReadonlyMap<string, { algorithm: Algorithm; key: string; metavar: string; doc: string }> = new Map(
  ALGORITHMS.flatMap((a) =>
    Object.entries(ALGORITHM_REGISTRY[a].options ?? {})
      .filter(([, spec]) => spec.cli && !['delta', 'eta', 'engine'].includes(spec.cli.flag))
      .map(([key, spec]) => [spec.cli!.flag, { algorithm: a, key, metavar: spec.cli!.metavar ?? '', doc: spec.doc }]),
  ),
);

/** Help lines of the entry-owned flags. */
function entryHelp(): string {
  return [...ENTRY_FLAGS]
    .map(([flag, f]) => {
      const head = `      --${flag} ${f.metavar}`;
      return `${head.padEnd(24)}-a ${f.algorithm}: ${f.doc}`;
    })
    .join('\n');
}

const HELP = `usage: lattice-mimo reduce [options] [FILE]

Reads a basis (fplll's format: [[1 2][3 4]], rows are basis vectors; or JSON {"basis": [[...]]})
from FILE or stdin (FILE '-' or none) and writes the reduced basis in fplll's format.

options:
  -a, --algorithm A     ${ALGORITHMS.join(' | ')} (default lll)
  -d, --delta D         Lovasz parameter in (0.25, 1) (default 0.75); not with the jacobi algorithms
  -e, --eta E           size-reduction bound in [0.5, sqrt(delta)) (default 0.51); not with jacobi
  -b, --block-size B    sub-basis size for block and cr-block (default 8)
      --precision P     float32 | float64 (default float64)
      --engine E        auto | cpu | cuda (default auto)
      --max-iterations N   bound on the main loop (default: 200 m^2, at least 10^6; on lll's
                        precision ladder that many times the 53-bit words of the largest entry)
      --float32-arithmetic double|float32
                        float32 on the GPU's column-owner all-swap kernel (batches of bases over
                        12 columns and at most 96 rows): every operation in double, equal to the
                        CPU engine (default), or in float32 as the papers' kernels (faster; other
                        results, each proven in float64). Only with -a allswap, --precision float32
                        and the GPU (--engine cuda, or auto with a device)
      --cpu-kernel K    auto | wasm | typescript (default auto): lll's kernel on the CPU engine for
                        float64 bases: WebAssembly SIMD where the runtime has it (auto), it or an
                        ENGINE_UNAVAILABLE error (wasm), or the TypeScript reference; the same
                        result bit for bit. Only with -a lll, float64 and the CPU engine (the
                        precision ladder's rungs past float64 run TypeScript)
      --no-drift-watch  allswap, block, cr-block on the CPU: the papers' algorithms as they are,
                        without recomputing B* where its swap updates drifted (what the per-basis
                        GPU kernels run; knapsack-like bases can then fail)
${entryHelp()}
  -of, --output-format F   b (basis) | u (transform U, U B_in = B_out) | bu (both) (default b)
      --json            write JSON {basis, transform, stats, check} instead of fplll's format
      --check           print the proof (conditions, |det Z| = 1) and quality metrics on stderr
  -v, --verbose         progress on stderr, every algorithm and path: the reduction's start and end
                        (iterations, swaps, time, the check), lll's precision ladder (rung, vector
                        reached, swaps, time) and, while the GPU works, the time; also where stderr
                        is not a terminal, a line every 10 s; on a terminal the line is shown
                        anyway once the work has taken 2 s, and cleared at the end
      --checkpoint FILE while lll's precision ladder reduces an integer basis, write the basis as
                        it stands (fplll's format; a basis of the same lattice, partly reduced) to
                        FILE, atomically, every --checkpoint-every seconds: a stopped run of hours
                        goes on from FILE (reduce FILE) instead of from the start
      --checkpoint-every S   seconds between checkpoints (default 600)
      --from-rung R     start lll's precision ladder at rung R: ${RUNGS.join(' | ')} (default: the
                        first that applies); going on from a checkpoint written in a rung, the
                        rungs below it need not fail again
  -h, --help            this text

A one-letter option takes its value as the next word or glued to it (-d 0.99, -d0.99; -vd0.99);
-d=0.99 is refused (getopt would read the value '=0.99'). Numbers are decimal (0.99, 1e6; no 0x,
no Infinity); integers past 2^53 - 1 are refused, in either notation.

Integer input gives integer output (B_in Z computed exactly). For integer input a U with entries
past 2^53 is rebuilt exactly and printed in full (in --json as strings of digits). lll on an integer
basis takes entries of any size and goes up a precision ladder where float64 cannot hold the basis or
breaks down on it (double-double, then quad-double Gram-Schmidt on an exact BigInt basis, then exact
integer LLL), its
result proven LLL-reduced (a certified float64 bound, interval arithmetic on the exact Gram matrix
where that cannot decide, or exact integer arithmetic; --json says which in check.method). Options
are checked before the input is read; an option that does not apply is an error (--block-size
without block or cr-block, --no-drift-watch with lll or the jacobi algorithms, --delta with jacobi,
--checkpoint on a basis that is not integer). A real basis whose vectors' lengths span more than
float64's squared range (a vector below about 2^-511 of the largest entry) is UNSUPPORTED. Errors:
one line on stderr, exit 2.`;

/** Basis rows (each row a basis vector) from fplll text or JSON. */
export function readBasisText(text: string): number[][] {
  const p = readBasisParsed(text);
  assertExactDoubles(p);
  return p.values;
}

/** The parsed basis, integers of any size kept exactly (bigValues). */
export function readBasisParsed(text: string): ParsedMatrix {
  const t = text.trim();
  if (t === '')
    throw new InvalidInputError(
      'INVALID_INPUT',
      'empty input: expected a basis in fplll format ([[1 2][3 4]]) or JSON {"basis": [[...]]}',
    );
  return t.startsWith('{') ? parseBasisJson(t) : parseFplll(t);
}

function checkLines(c: BasisCheck, algorithm: Algorithm, m: number): string[] {
  const lines = [
    `check: ${c.ok ? 'PASS' : 'FAIL'} (${c.kind === 'lll' ? 'LLL conditions' : 'pairwise Lagrange conditions'} re-checked in float64; Z exactly unimodular: ${c.unimodular.ok}, det Z = ${c.unimodular.det}${c.unimodular.method === 'lattice' ? '; Z passed 2^53 and was rebuilt exactly from B_in and B_out' : ''})`,
  ];
  if ('maxMu' in c.conditions)
    lines.push(
      m < 2
        ? '  one vector: no size-reduction or Lovasz condition to check'
        : `  max |mu_ij| = ${c.conditions.maxMu.toFixed(6)}, min Lovasz slack = ${c.conditions.lovaszSlack.toExponential(3)}`,
    );
  else lines.push(`  max |b_i.b_j| / min(|b_i|^2, |b_j|^2) = ${c.conditions.maxRatio.toFixed(6)}`);
  const q = c.metrics;
  lines.push(
    `  ${algorithm}: Hadamard ratio ${q.hadamardRatio.toFixed(6)}, orthogonality defect ${q.orthogonalityDefect.toExponential(6)}, root Hermite factor ${q.rootHermiteFactor.toFixed(6)}`,
  );
  return lines;
}

const OPTIONS = {
  algorithm: { type: 'string', short: 'a' },
  delta: { type: 'string', short: 'd' },
  eta: { type: 'string', short: 'e' },
  'block-size': { type: 'string', short: 'b' },
  precision: { type: 'string' },
  engine: { type: 'string' },
  'max-iterations': { type: 'string' },
  // fplll spells the output format `-of`
  'output-format': { type: 'string', aliases: ['-of'] },
  json: { type: 'boolean' },
  check: { type: 'boolean' },
  'no-drift-watch': { type: 'boolean' },
  'float32-arithmetic': { type: 'string' },
  'cpu-kernel': { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
  checkpoint: { type: 'string' },
  'from-rung': { type: 'string' },
  'checkpoint-every': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The common options and the flags the registry entries own (ENTRY_FLAGS), each taking a value. */
const ALL_OPTIONS = {
  ...OPTIONS,
  ...Object.fromEntries([...ENTRY_FLAGS.keys()].map((flag) => [flag, { type: 'string' as const }])),
};

/** A ladder progress report as one line. */
export function progressText(p: LadderProgress): string {
  const s = Math.round(p.elapsedMs / 1000);
  const time = s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
  if (p.stage === 'certificate')
    return `lll: proving the LLL conditions (certified float64 bound, else interval arithmetic), ${time}`;
  if (p.stage === 'unimodularity') return `lll: proving |det U| = 1 (exact), ${time}`;
  if (p.furthest === 0) return `lll: ${p.stage} rung started, ${p.vectors} vectors, ${time}`;
  return `lll: ${p.stage} rung${p.pass ? ` (${p.pass})` : ''}, vector ${p.vector} of ${p.vectors} (furthest ${p.furthest}), ${p.swaps} swaps, ${time}`;
}

/**
 * Float64 Gram-Schmidt squares the vectors' lengths (after reduce() scales the basis by a power of
 * two where its entries pass 2^+-128): a vector whose squared length then falls below the smallest
 * normal double (2^-1022) has lost its precision (or is 0), and float64 cannot tell it from a
 * dependent one. Refused here, naming the vector and the range, rather than reported as a
 * dependence with a NaN residual. Zero vectors are left to reduce() (ZERO_VECTOR).
 */
function assertLengthsInRange(basis: MatrixBatch): void {
  const scaled = unitScale(basis)?.scaled ?? basis;
  const { rows: n, cols: m } = basis;
  let big = 0;
  for (const v of basis.data) big = Math.max(big, Math.abs(v));
  for (let j = 0; j < m; j++) {
    let s = 0,
      zero = true;
    for (let t = 0; t < n; t++) {
      const x = scaled.data[j * n + t]!;
      if (x !== 0) zero = false;
      s += x * x;
    }
    if (zero || s >= 2 ** -1022) continue;
    let len = 0;
    for (let t = 0; t < n; t++) len = Math.max(len, Math.abs(basis.data[j * n + t]!));
    throw new UnsupportedError(
      `basis vector ${j} (largest entry ${len.toExponential(2)}) is too short beside the basis' largest entry ${big.toExponential(2)}: float64 Gram-Schmidt squares lengths, and its squared length falls below the smallest normal double (2^-1022), where float64 keeps no precision: the basis spans too wide a range of magnitudes to reduce in float64`,
      { vector: j, largestEntryOfVector: len, largestEntry: big },
    );
  }
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals, given } = parseCommandLine(argv, ALL_OPTIONS, { command: 'reduce', maxPositionals: 1 });
  const entryValues = values as Record<string, string | boolean | undefined>;
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const of = choiceOption('output-format', values['output-format'], ['b', 'u', 'bu'] as const, 'b');
  // Every option is checked before the input is read (a pipe may take long to fill).
  const algorithm = choiceOption('algorithm', values.algorithm, ALGORITHMS, 'lll');
  const precision = choiceOption('precision', values.precision, ['float32', 'float64'] as const);
  const engine = choiceOption('engine', values.engine, ['auto', 'cpu', 'cuda'] as const);
  rejectInapplicable(
    given,
    ['block-size'],
    algorithm === 'block' || algorithm === 'cr-block',
    `the sub-basis size is for block and cr-block, the algorithm is ${algorithm}`,
  );
  rejectInapplicable(
    given,
    ['delta', 'eta'],
    algorithm !== 'jacobi' && algorithm !== 'jacobi-parallel',
    `${algorithm} reduces pairs of vectors to Lagrange's condition: it has no Lovasz parameter or size-reduction bound`,
  );
  rejectInapplicable(
    given,
    ['checkpoint', 'checkpoint-every'],
    algorithm === 'lll',
    `checkpoints are lll's precision ladder's, the algorithm is ${algorithm}`,
  );
  if (given.includes('checkpoint-every') && values.checkpoint === undefined)
    throw new InvalidArgumentError('--checkpoint-every needs --checkpoint FILE', { option: '--checkpoint-every' });
  const everyText = values['checkpoint-every'];
  const checkpointEvery =
    everyText === undefined ? 600 : parseDecimal('checkpoint-every', everyText, 'a positive number of seconds');
  if (!(checkpointEvery > 0))
    throw new InvalidArgumentError(`--checkpoint-every must be a positive number of seconds, got '${everyText}'`, {
      option: '--checkpoint-every',
      value: everyText,
    });
  const checkpointFile = values.checkpoint;
  rejectInapplicable(
    given,
    ['from-rung'],
    algorithm === 'lll',
    `the precision ladder is lll's, the algorithm is ${algorithm}`,
  );
  const fromRung = choiceOption('from-rung', values['from-rung'], RUNGS);
  rejectInapplicable(
    given,
    ['no-drift-watch'],
    ['allswap', 'block', 'cr-block'].includes(algorithm),
    `the drift watch is allswap's, block's and cr-block's, the algorithm is ${algorithm}`,
  );
  const f32 = "it sets the arithmetic of the GPU's all-swap kernel on float32 bases";
  rejectInapplicable(given, ['float32-arithmetic'], algorithm === 'allswap', `${f32}, the algorithm is ${algorithm}`);
  rejectInapplicable(
    given,
    ['float32-arithmetic'],
    precision === 'float32',
    `${f32}, the precision is float64 (give --precision float32)`,
  );
  rejectInapplicable(given, ['float32-arithmetic'], engine !== 'cpu', `${f32}; the CPU engine computes in double`);
  const cpuKernel = choiceOption('cpu-kernel', values['cpu-kernel'], CPU_KERNEL_REQUESTS);
  const kernelLine = "it chooses the CPU engine's kernel for float64 bases";
  rejectInapplicable(
    given,
    ['cpu-kernel'],
    ALGORITHM_REGISTRY[algorithm].cpuWasm !== undefined,
    `${kernelLine}, and ${algorithm} runs TypeScript only on the CPU`,
  );
  rejectInapplicable(given, ['cpu-kernel'], precision !== 'float32', `${kernelLine}, the precision is float32`);
  rejectInapplicable(given, ['cpu-kernel'], engine !== 'cuda', `${kernelLine}, the engine is cuda`);
  // the engine reduce() will choose, asked before the input is read ('cuda' that cannot be had fails here)
  const decision = await reduceEngine({ algorithm, engine });
  // auto: without a device the CPU engine runs, in double, and the option would go unheard
  rejectInapplicable(
    given,
    ['float32-arithmetic'],
    decision.engine === 'cuda',
    `${f32}, and the CPU engine would run (${decision.reason}), in double`,
  );
  rejectInapplicable(
    given,
    ['checkpoint', 'checkpoint-every', 'from-rung'],
    precision !== 'float32' && engine !== 'cuda',
    'the precision ladder runs lll in float64 and beyond on the CPU (no --precision float32, no --engine cuda)',
  );
  for (const [flag, f] of ENTRY_FLAGS)
    rejectInapplicable(
      given,
      [flag],
      algorithm === f.algorithm,
      `--${flag} is ${f.algorithm}'s, the algorithm is ${algorithm}`,
    );
  rejectInapplicable(
    given,
    ['precision', 'max-iterations'],
    algorithm !== 'recursive',
    'recursive reduces integer bases exactly, its compressed copies in float64, and bounds its rounds itself',
  );
  if (algorithm === 'recursive') {
    const entry = ALGORITHM_REGISTRY.recursive.options!;
    // the value read by its flag's name; its range is the schema's (checkRecursiveOptions names the option)
    const read = (flag: string, key: string, text: string | boolean | undefined) =>
      typeof text !== 'string'
        ? undefined
        : entry[key]!.kind === 'integer'
          ? intOption(flag, text, 0, Number.MIN_SAFE_INTEGER)
          : parseDecimal(flag, text);
    const ropts: RecursiveOptions = {
      ...(values.delta !== undefined ? { delta: parseDecimal('delta', values.delta) } : {}),
      ...(values.eta !== undefined ? { eta: parseDecimal('eta', values.eta) } : {}),
      ...(engine !== undefined ? { engine } : {}),
    };
    for (const [flag, f] of ENTRY_FLAGS)
      if (f.algorithm === 'recursive' && entryValues[flag] !== undefined)
        (ropts as Record<string, unknown>)[f.key] = read(flag, f.key, entryValues[flag]);
    checkRecursiveOptions(ropts);
    const parsedR = readBasisParsed(await readInput(positionals[0], 'pipe a basis on stdin or give a FILE'));
    if (parsedR.bigValues === null)
      throw new InvalidInputError(
        'INVALID_INPUT',
        'recursive reduces integer bases (its compression and its proof are exact integer arithmetic); this basis has entries that are not integers (lll reduces real bases)',
      );
    const lineR = new ProgressLine(process.stderr, { verbose: values.verbose === true });
    lineR.update('recursive', `recursive: ${parsedR.bigValues.length} vectors, reducing`, 0);
    let r: ReturnType<typeof recursiveReduce>;
    try {
      r = recursiveReduce(parsedR.bigValues, ropts);
    } finally {
      lineR.done();
    }
    const o = formatRecursiveResult(
      r,
      of,
      values.json === true,
      values.check === true,
      ropts.delta ?? 0.99,
      ropts.eta ?? 0.51,
    );
    process.stdout.write(o.stdout);
    if (o.stderr) process.stderr.write(o.stderr);
    return 0;
  }
  if (checkpointFile !== undefined) {
    if (checkpointFile === '-' || writesInPlace(checkpointFile))
      throw new InvalidArgumentError(
        `--checkpoint needs a regular file, got ${checkpointFile === '-' ? "'-' (stdout carries the result)" : checkpointFile}`,
        { option: '--checkpoint' },
      );
    checkOutputPath('checkpoint', checkpointFile);
    // the checkpoint would replace the file stdout writes the result into (> FILE)
    checkDistinctOutputs([
      { option: '', file: '-' },
      { option: 'checkpoint', file: checkpointFile },
    ]);
  }
  const options = {
    algorithm,
    delta: values.delta === undefined ? undefined : parseDecimal('delta', values.delta),
    eta: values.eta === undefined ? undefined : parseDecimal('eta', values.eta),
    blockSize: values['block-size'] === undefined ? undefined : intOption('block-size', values['block-size'], 0, 1),
    precision,
    engine,
    maxIterations:
      values['max-iterations'] === undefined ? undefined : intOption('max-iterations', values['max-iterations'], 0, 1),
    check: true,
    ...(values['no-drift-watch'] ? { driftWatch: false } : {}),
    float32Arithmetic: choiceOption('float32-arithmetic', values['float32-arithmetic'], ['double', 'float32'] as const),
    cpuKernel,
  };

  const text = await readInput(positionals[0], 'pipe a basis on stdin or give a FILE');
  const parsed = readBasisParsed(text);
  // one progress line for the whole run (-v: on every path; on a terminal once the work takes 2 s)
  const line = new ProgressLine(process.stderr, { verbose: values.verbose === true });
  const t0 = performance.now();
  // lll on an integer basis goes up the precision ladder (precision/ladder.ts) where float64
  // cannot hold it or breaks down on it; the result is integers of any size, proven (certificate or exact proof)
  const viaLadder = (rungs?: Rung[]): number => {
    let r: ReturnType<typeof lllIntegral>;
    // a checkpoint that cannot be written is said once and the reduction goes on (its result matters more)
    let checkpointFailed = false;
    const onCheckpoint =
      checkpointFile === undefined
        ? undefined
        : (basis: bigint[][], p: LadderProgress) => {
            try {
              writeFileAtomicSync(checkpointFile, `${formatIntegerRows(basis)}\n`);
              if (values.verbose)
                line.note(
                  `lll: checkpoint written to ${escapeForTerminal(checkpointFile)} (${p.stage} rung, furthest vector ${p.furthest} of ${p.vectors})`,
                );
            } catch (err) {
              if (!(err instanceof LatticeMimoError) || checkpointFailed) return;
              checkpointFailed = true;
              line.note(`lll: warning: no checkpoint: ${escapeForTerminal(err.message)}; the reduction goes on`);
            }
          };
    try {
      r = lllIntegral(parsed.bigValues!, {
        delta: options.delta,
        eta: options.eta,
        maxIterations: options.maxIterations,
        rungs,
        onProgress: (p) => line.update(p.stage, progressText(p), p.elapsedMs),
        ...(onCheckpoint ? { onCheckpoint, checkpointEveryMs: checkpointEvery * 1000 } : {}),
      });
    } finally {
      line.done();
    }
    const o = formatIntegralResult(r, of, values.json === true, values.check === true, options.delta ?? 0.75);
    process.stdout.write(o.stdout);
    if (o.stderr) process.stderr.write(o.stderr);
    return 0;
  };
  const ladder =
    parsed.bigValues !== null && algorithm === 'lll' && (precision ?? 'float64') === 'float64' && engine !== 'cuda';
  if (fromRung !== undefined) {
    if (!ladder)
      throw new InvalidArgumentError(
        '--from-rung needs an integer basis (the precision ladder), lll in float64 on the CPU',
        { option: '--from-rung' },
      );
    return viaLadder(RUNGS.slice(RUNGS.indexOf(fromRung)));
  }
  if (checkpointFile !== undefined && !ladder)
    throw new InvalidArgumentError(
      "--checkpoint does not apply: checkpoints are written by lll's precision ladder, which reduces integer bases, and this basis has entries that are not integers",
      { option: '--checkpoint' },
    );
  if (ladder && !parsed.exact) return viaLadder();
  assertExactDoubles(parsed);
  const rows = parsed.values;
  const m = rows.length,
    n = rows[0]!.length;
  // Row-major rows of fplll's m x n matrix are exactly our column-major n x m basis.
  const basis = makeBatch(Float64Array.from(rows.flat()), 1, n, m);
  assertLengthsInRange(basis);
  const what = `${algorithm} (${precision ?? 'float64'}, engine ${engine ?? 'auto'}): ${m} vector${m === 1 ? '' : 's'} in dimension ${n}`;
  line.update('reduce', `${what}, reducing`, 0);
  // the CPU engine reduces one basis in this thread; the GPU's (asynchronous) work lets this tick
  const ticker = setInterval(() => {
    const ms = performance.now() - t0;
    line.update('reduce', `${what}, reducing, ${(ms / 1000).toFixed(0)} s`, ms);
  }, 1000);
  ticker.unref();
  const res = await reduce(basis, options)
    .catch((err: unknown) => {
      if (
        ladder &&
        err instanceof LatticeMimoError &&
        (err.code === 'PRECISION_FAILURE' || err.code === 'CHECK_FAILED')
      ) {
        line.update(
          'fallback',
          `lll: float64 broke down (${err.code}): going up the precision ladder`,
          performance.now() - t0,
        );
        return null;
      }
      line.done();
      throw err;
    })
    .finally(() => clearInterval(ticker));
  // float64 broke down: the rungs above it
  if (res === null) return viaLadder(RUNGS.filter((r) => r !== 'float64'));
  {
    const s = res.stats;
    line.update(
      'reduced',
      `${s.algorithm} on ${s.engine} (${s.precision}${s.kernel === 'wasm-simd' ? ', WebAssembly kernel' : ''}): ${s.iterations} iterations, ${s.swaps} swaps, ${s.timeMs.toFixed(1)} ms; result checked (${res.checks![0]!.ok ? 'pass' : 'FAIL'})`,
      performance.now() - t0,
    );
    line.done();
  }
  const outRows: number[][] = [];
  for (let j = 0; j < m; j++) outRows.push(Array.from(res.basis.data.subarray(j * n, (j + 1) * n)));
  // U's rows are Z's columns; a Z past 2^53 (integral input) comes exact, as BigInts
  const wide = res.wideTransforms?.get(0);
  const uRows: (number | bigint)[][] = [];
  for (let j = 0; j < m; j++)
    uRows.push(wide ? wide.slice(j * m, (j + 1) * m) : Array.from(res.transform.data.subarray(j * m, (j + 1) * m)));
  const check = res.checks![0]!;
  if (values.json) {
    const doc: Record<string, unknown> = { stats: { ...res.stats, perBasis: undefined } };
    if (of.includes('b')) doc.basis = outRows;
    // JSON numbers past 2^53 would round when read back: such entries are strings of digits
    if (of.includes('u')) doc.transform = uRows.map((r) => r.map((v) => (typeof v === 'bigint' ? v.toString() : v)));
    doc.check = {
      ok: check.ok,
      kind: check.kind,
      unimodular: check.unimodular.ok,
      det: String(check.unimodular.det),
      ...('maxMu' in check.conditions
        ? { maxMu: check.conditions.maxMu, lovaszSlack: check.conditions.lovaszSlack }
        : { maxRatio: check.conditions.maxRatio }),
      ...check.metrics,
    };
    process.stdout.write(`${JSON.stringify(doc)}\n`);
  } else {
    if (of.includes('b')) process.stdout.write(formatFplll(outRows));
    if (of.includes('u')) process.stdout.write(formatIntegerRows(uRows));
  }
  if (values.check) {
    const s = res.stats;
    process.stderr.write(
      `${[
        ...checkLines(check, s.algorithm, m),
        `  ${s.algorithm} on ${s.engine} (${s.precision}${s.redoneInFloat64 ? ', redone in float64' : ''}${s.redoneOnCpu ? ', a GPU breakdown redone on the CPU' : ''}): n = ${n}, m = ${m}, ${s.iterations} iterations, ${s.swaps} swaps, ${s.timeMs.toFixed(2)} ms`,
      ].join('\n')}\n`,
    );
  }
  return 0;
}
