/**
 * `lattice-mimo reduce`: reads a basis in fplll's format (rows are basis vectors) or JSON
 * ({"basis": [[...], ...]}) from FILE or stdin, reduces it, and writes fplll's format:
 * `-of b` the reduced basis, `-of u` the transform U (U B_in = B_out, rows), `-of bu` both.
 * `--check` adds the proof and quality metrics (on stderr, so stdout stays fplll's format).
 */
import { InvalidArgumentError, InvalidInputError, LatticeMimoError } from '../core/errors.js';
import { checkOutputPath, isSpecialFile, readInput, writeFileAtomicSync } from '../core/io.js';
import { makeBatch } from '../core/matrix.js';
import {
  assertExactDoubles,
  formatFplll,
  formatIntegerRows,
  parseBasisJson,
  parseFplll,
  type ParsedMatrix,
} from '../lattice/fplll-format.js';
import { lllIntegral, RUNGS, type LadderProgress, type Rung } from '../lattice/precision/ladder.js';
import { formatIntegralResult } from '../lattice/precision/output.js';
import { reduce, type BasisCheck } from '../lattice/reduce.js';
import { ALGORITHMS, type Algorithm } from '../lattice/types.js';
import { choiceOption, parseCommandLine, rejectInapplicable } from './args.js';
import { ProgressLine } from './progress-line.js';

const HELP = `usage: lattice-mimo reduce [options] [FILE]

Reads a basis (fplll's format: [[1 2][3 4]], rows are basis vectors; or JSON {"basis": [[...]]})
from FILE or stdin (FILE '-' or none) and writes the reduced basis in fplll's format.

options:
  -a, --algorithm A     ${ALGORITHMS.join(' | ')} (default lll)
  -d, --delta D         Lovasz parameter in (0.25, 1) (default 0.75)
  -e, --eta E           size-reduction bound in [0.5, sqrt(delta)) (default 0.51)
  -b, --block-size B    sub-basis size for block and cr-block (default 8)
      --precision P     float32 | float64 (default float64)
      --engine E        auto | cpu | cuda (default auto)
      --max-iterations N   bound on the main loop (default: 200 m^2, at least 10^6; on lll's
                        precision ladder that many times the 53-bit words of the largest entry)
      --float32-arithmetic double|float32
                        float32 on the GPU's column-owner all-swap kernel (batches of bases over
                        12 columns and at most 96 rows): every operation in double, equal to the
                        CPU engine (default), or in float32 as the papers' kernels (faster; other
                        results, each proven in float64)
      --no-drift-watch  allswap, block, cr-block on the CPU: the papers' algorithms as they are,
                        without recomputing B* where its swap updates drifted (what the per-basis
                        GPU kernels run; knapsack-like bases can then fail)
  -of, --output-format F   b (basis) | u (transform U, U B_in = B_out) | bu (both) (default b)
      --json            write JSON {basis, transform, stats, check} instead of fplll's format
      --check           print the proof (conditions, |det Z| = 1) and quality metrics on stderr
  -v, --verbose         progress of lll's precision ladder on stderr (rung, vector reached, swaps,
                        time) also where stderr is not a terminal: a line every 10 s; on a terminal
                        the line is shown anyway once the work has taken 2 s, and cleared at the end
      --checkpoint FILE while lll's precision ladder reduces an integer basis, write the basis as
                        it stands (fplll's format; a basis of the same lattice, partly reduced) to
                        FILE, atomically, every --checkpoint-every seconds: a stopped run of hours
                        goes on from FILE (reduce FILE) instead of from the start
      --checkpoint-every S   seconds between checkpoints (default 600)
      --from-rung R     start lll's precision ladder at rung R: ${RUNGS.join(' | ')} (default: the
                        first that applies); going on from a checkpoint written in a rung, the
                        rungs below it need not fail again
  -h, --help            this text

Integer input gives integer output (B_in Z computed exactly). For integer input a U with entries
past 2^53 is rebuilt exactly and printed in full (in --json as strings of digits). lll on an integer
basis takes entries of any size and goes up a precision ladder where float64 cannot hold the basis or
breaks down on it (double-double, then quad-double Gram-Schmidt on an exact BigInt basis, then exact
integer LLL), its
result proven LLL-reduced (a certified float64 bound, interval arithmetic on the exact Gram matrix
where that cannot decide, or exact integer arithmetic; --json says which in check.method). Options are checked before the input is read; --block-size without block or
cr-block, and --no-drift-watch with lll or the jacobi algorithms, are errors. Errors: one line on
stderr, exit 2.`;

function num(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x)) throw new InvalidArgumentError(`${what} must be a number, got '${v}'`);
  return x;
}

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

function checkLines(c: BasisCheck, algorithm: Algorithm): string[] {
  const lines = [
    `check: ${c.ok ? 'PASS' : 'FAIL'} (${c.kind === 'lll' ? 'LLL conditions' : 'pairwise Lagrange conditions'} re-checked in float64; Z exactly unimodular: ${c.unimodular.ok}, det Z = ${c.unimodular.det}${c.unimodular.method === 'lattice' ? '; Z passed 2^53 and was rebuilt exactly from B_in and B_out' : ''})`,
  ];
  if ('maxMu' in c.conditions)
    lines.push(
      `  max |mu_ij| = ${c.conditions.maxMu.toFixed(6)}, min Lovasz slack = ${c.conditions.lovaszSlack.toExponential(3)}`,
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
  verbose: { type: 'boolean', short: 'v' },
  checkpoint: { type: 'string' },
  'from-rung': { type: 'string' },
  'checkpoint-every': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

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

export async function run(argv: string[]): Promise<number> {
  const { values, positionals, given } = parseCommandLine(argv, OPTIONS, { command: 'reduce', maxPositionals: 1 });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const of = choiceOption('output-format', values['output-format'], ['b', 'u', 'bu'] as const, 'b');
  // Every option is checked before the input is read (a pipe may take long to fill).
  const algorithm = choiceOption('algorithm', values.algorithm, ALGORITHMS, 'lll');
  rejectInapplicable(
    given,
    ['block-size'],
    algorithm === 'block' || algorithm === 'cr-block',
    `the sub-basis size is for block and cr-block, the algorithm is ${algorithm}`,
  );
  rejectInapplicable(
    given,
    ['verbose'],
    algorithm === 'lll',
    `the progress display is lll's precision ladder's, the algorithm is ${algorithm}`,
  );
  rejectInapplicable(
    given,
    ['checkpoint', 'checkpoint-every'],
    algorithm === 'lll',
    `checkpoints are lll's precision ladder's, the algorithm is ${algorithm}`,
  );
  if (given.includes('checkpoint-every') && values.checkpoint === undefined)
    throw new InvalidArgumentError('--checkpoint-every needs --checkpoint FILE');
  const checkpointEvery = num(values['checkpoint-every'], 'checkpoint interval') ?? 600;
  if (!(checkpointEvery > 0))
    throw new InvalidArgumentError(`--checkpoint-every must be a positive number of seconds, got ${checkpointEvery}`);
  const checkpointFile = values.checkpoint;
  rejectInapplicable(
    given,
    ['from-rung'],
    algorithm === 'lll',
    `the precision ladder is lll's, the algorithm is ${algorithm}`,
  );
  const fromRung = choiceOption('from-rung', values['from-rung'], RUNGS);
  if (checkpointFile !== undefined) {
    if (checkpointFile === '-' || isSpecialFile(checkpointFile))
      throw new InvalidArgumentError(
        `--checkpoint needs a regular file, got ${checkpointFile === '-' ? "'-' (stdout carries the result)" : checkpointFile}`,
      );
    checkOutputPath('checkpoint', checkpointFile);
  }
  rejectInapplicable(
    given,
    ['no-drift-watch'],
    ['allswap', 'block', 'cr-block'].includes(algorithm),
    `the drift watch is allswap's, block's and cr-block's, the algorithm is ${algorithm}`,
  );
  const options = {
    algorithm,
    delta: num(values.delta, 'delta'),
    eta: num(values.eta, 'eta'),
    blockSize: num(values['block-size'], 'block size'),
    precision: choiceOption('precision', values.precision, ['float32', 'float64'] as const),
    engine: choiceOption('engine', values.engine, ['auto', 'cpu', 'cuda'] as const),
    maxIterations: num(values['max-iterations'], 'max iterations'),
    check: true,
    ...(values['no-drift-watch'] ? { driftWatch: false } : {}),
    float32Arithmetic: choiceOption('float32-arithmetic', values['float32-arithmetic'], ['double', 'float32'] as const),
  };

  const text = await readInput(positionals[0], 'pipe a basis on stdin or give a FILE');
  const parsed = readBasisParsed(text);
  // lll on an integer basis goes up the precision ladder (precision/ladder.ts) where float64
  // cannot hold it or breaks down on it; the result is integers of any size, proven (certificate or exact proof)
  const viaLadder = (rungs?: Rung[]): number => {
    const line = new ProgressLine(process.stderr, { verbose: values.verbose === true });
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
                  `lll: checkpoint written to ${checkpointFile} (${p.stage} rung, furthest vector ${p.furthest} of ${p.vectors})`,
                );
            } catch (err) {
              if (!(err instanceof LatticeMimoError) || checkpointFailed) return;
              checkpointFailed = true;
              line.note(`lll: warning: no checkpoint: ${err.message}; the reduction goes on`);
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
    parsed.bigValues !== null &&
    algorithm === 'lll' &&
    (options.precision ?? 'float64') === 'float64' &&
    options.engine !== 'cuda';
  if (fromRung !== undefined) {
    if (!ladder)
      throw new InvalidArgumentError(
        '--from-rung needs an integer basis (the precision ladder), lll in float64 on the CPU',
      );
    return viaLadder(RUNGS.slice(RUNGS.indexOf(fromRung)));
  }
  if (ladder && !parsed.exact) return viaLadder();
  assertExactDoubles(parsed);
  const rows = parsed.values;
  const m = rows.length,
    n = rows[0]!.length;
  // Row-major rows of fplll's m x n matrix are exactly our column-major n x m basis.
  const basis = makeBatch(Float64Array.from(rows.flat()), 1, n, m);
  const res = await reduce(basis, options).catch((err: unknown) => {
    if (ladder && err instanceof LatticeMimoError && (err.code === 'PRECISION_FAILURE' || err.code === 'CHECK_FAILED'))
      return null;
    throw err;
  });
  // float64 broke down: the rungs above it
  if (res === null) return viaLadder(RUNGS.filter((r) => r !== 'float64'));
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
        ...checkLines(check, s.algorithm),
        `  ${s.algorithm} on ${s.engine} (${s.precision}${s.redoneInFloat64 ? ', redone in float64' : ''}${s.redoneOnCpu ? ', a GPU breakdown redone on the CPU' : ''}): n = ${n}, m = ${m}, ${s.iterations} iterations, ${s.swaps} swaps, ${s.timeMs.toFixed(2)} ms`,
      ].join('\n')}\n`,
    );
  }
  return 0;
}
