/**
 * `lattice-mimo simulate`: Monte Carlo BER/SER/FER against SNR for several detectors, with a live
 * table on stderr and JSON / CSV / plot files at the end.
 */
import { formatError, InvalidArgumentError, InvalidInputError } from '../core/errors.js';
import { checkOutputPath, readInput } from '../core/io.js';
import {
  BUDGET_DETECTORS,
  intOption,
  numberOption,
  parseDetectorList,
  parseMimo,
  parseModulationOption,
  SEARCH_DETECTORS,
} from '../sim/cli-options.js';
import { partialResult, writeOutputs, simulateWithTable, type OutputFiles } from '../sim/report.js';
import { DEFAULT_MAX_ERRORS, DEFAULT_MAX_VECTORS, resolveEngine } from '../sim/simulate.js';
import { parseSnrList } from '../sim/snr.js';
import type { SimDetector, SimPoint, SimulationOptions, SimulationResult } from '../sim/types.js';
import { choiceOption, parseCommandLine, rejectInapplicable } from './args.js';
import { LDPC_DECODER_ALGORITHMS } from '../coding/index.js';
import { checkSoftDetectors, codeOf } from '../sim/coded.js';

export const SIMULATE_HELP = `usage: lattice-mimo simulate [options]

Monte Carlo bit / symbol / frame error rates of MIMO detectors over iid Rayleigh fading (or AWGN),
uncoded (a frame is one received vector) or coded with an LDPC code (--code: a frame is a codeword,
BER and FER are those of its information bits after decoding). Every detector sees the same
channels, symbols and noise.

options:
  --mimo NTxNR              transmit x receive antennas (default 4x4)
  --mod MOD                 bpsk | qpsk | 16qam | 64qam | 256qam (default qpsk)
  --detector LIST           comma list of zf, mmse, sic, ml, sphere, psd, kbest, ssfe, nway,
                            lr-zf, lr-mmse, lr-sic; kbest:K and nway:N set K / passes per entry
                            (default zf,mmse,sphere)
  --snr LIST                start:step:stop in dB (stop included) or a comma list (default 0:4:24);
                            negative values work: --snr -4:2:8
  --snr-type esn0|ebn0      what --snr means: Es/N0 (default) or Eb/N0 (= Es/N0 - 10 log10(bits per
                            symbol x code rate))
  --channel rayleigh|awgn   iid Rayleigh fading (default) or H = I, no fading (needs NR >= NT)
  --code SPEC               coded link: wimax:N[:1/2] (N = 576..2304 step 96) or nr:[bgB:]K:R (5G NR,
                            38.212); every detector must be soft (ml, kbest, ssfe, nway): its max-log
                            LLRs feed the decoder. A frame's bits fill consecutive symbols, stream by
                            stream, over ceil(n / (bits per symbol x NT)) vectors (the last padded)
  --decoder ALG             with --code: nms (default), oms, spa, flooding-spa
  --iterations N            with --code: most decoder iterations (default 20; early stop on a zero syndrome)
  --llr-clip X              with --code: clip the soft detectors' |LLR| at X
  --max-errors N            stop a detector at a point after N bit errors, frame errors with --code
                            (default ${DEFAULT_MAX_ERRORS})
  --max-vectors N           ... or after N received vectors (default ${DEFAULT_MAX_VECTORS})
  --max-frames N            with --code: ... or after N frames (rounded up to whole chunks' frames)
  --vectors-per-channel N   one channel matrix serves N consecutive vectors (default 1)
  --chunk-vectors N         vectors per unit of work (default 1024, rounded to whole channel groups
                            and, with --code, whole frames);
                            the GPU runs faster with larger chunks (65536); a CPU run and a GPU run
                            draw the same data only with the same chunk size
  --seed S                  Philox seed (default 1): same seed, same counts, any --threads
  --threads N               worker threads (default: all cores)
  --engine auto|cpu|cuda    engine: cuda runs the whole link on the GPU (every detector needs its
                            CUDA implementation); auto (default) takes it where it can, else cpu
  --k K                     K for kbest
  --passes N                passes (detection orders) for nway
  --max-nodes N             node budget per vector of sphere, psd, ml, kbest (default 2^24 = 16777216)
  --on-budget error|flag    sphere, psd past the budget: error (default; the run stops, exit 2,
                            NODE_BUDGET) or flag (the best leaf found is counted as the decision)
  --max-time SECONDS        wall-clock limit per SNR point: past it the point stops with the counts
                            so far, flagged "stopped by time" in the table, JSON and CSV
  --resume FILE             continue the run saved in FILE (the JSON of an interrupted run): its
                            settings and finished points are taken from FILE, the other points are
                            computed; the counts equal an uninterrupted run's. --json defaults to FILE.
                            Only --threads, --json, --csv and --plot may be given with it.
  --json FILE               write the points as JSON ('-' for stdout)
  --csv FILE                write the points as CSV ('-' for stdout)
  --plot FILE               BER and FER curves, .svg or .png
  -h, --help                this text

Options that do not apply are errors: --k without kbest, --passes without nway, --max-nodes
without sphere, psd, ml or kbest, --on-budget without sphere or psd, --decoder, --iterations,
--max-frames without --code, and --llr-clip without --code (an uncoded simulation counts hard
decisions; no LLRs are computed). With --code the GPU engine also encodes and decodes on the
device (only counts come back). Output directories must exist; files are written atomically.
Interrupted (Ctrl-C, SIGTERM), simulate writes the finished points to the files asked for, says
so on stderr and exits 130 (SIGINT) or 143 (SIGTERM); --resume FILE continues from the JSON.
Stopped by an error (NODE_BUDGET, a worker that died, a GPU error), it writes them the same way,
prints the error's line (naming the SNR point, detector, chunk and vector) and exits 2. With
--on-budget flag, "unproven" (table, JSON, CSV) counts the vectors whose search stopped at the
budget (their best leaf is counted as the decision).
`;

const OPTIONS = {
  mimo: { type: 'string' },
  mod: { type: 'string' },
  detector: { type: 'string' },
  snr: { type: 'string' },
  'snr-type': { type: 'string' },
  'max-errors': { type: 'string' },
  'max-vectors': { type: 'string' },
  'vectors-per-channel': { type: 'string' },
  'chunk-vectors': { type: 'string' },
  seed: { type: 'string' },
  threads: { type: 'string' },
  engine: { type: 'string' },
  k: { type: 'string' },
  passes: { type: 'string' },
  'llr-clip': { type: 'string' },
  code: { type: 'string' },
  decoder: { type: 'string' },
  iterations: { type: 'string' },
  channel: { type: 'string' },
  'max-frames': { type: 'string' },
  'max-nodes': { type: 'string' },
  'on-budget': { type: 'string' },
  'max-time': { type: 'string' },
  resume: { type: 'string' },
  json: { type: 'string' },
  csv: { type: 'string' },
  plot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Largest --max-time, simulate()'s bound on maxTimeSeconds (7 days). */
const MAX_TIME_SECONDS = 7 * 86400;

/** Options that may go with --resume (the others are the run's settings, taken from the file). */
const RESUME_OPTIONS = new Set(['resume', 'threads', 'json', 'csv', 'plot', 'help']);

export interface SimulateCommand {
  options: SimulationOptions;
  files: OutputFiles;
  help: boolean;
  resume?: string;
}

/** Parses the command line into simulation options and output files (no work done). */
export function parseSimulateArgs(argv: string[]): SimulateCommand {
  const { values: v, given } = parseCommandLine(argv, OPTIONS, { command: 'simulate' });
  if (v.help) return { options: {} as SimulationOptions, files: {}, help: true };
  const plot = v.plot;
  if (plot !== undefined && !/\.(svg|png)$/i.test(plot))
    throw new InvalidArgumentError(`--plot file must end in .svg or .png, got '${plot}'`);
  const threads = v.threads === undefined ? undefined : intOption('threads', v.threads, 0, 1, 256);
  if (v.resume !== undefined) {
    const extra = given.filter((g) => !RESUME_OPTIONS.has(g));
    if (extra.length > 0)
      throw new InvalidArgumentError(
        `${[...new Set(extra)].map((o) => `--${o}`).join(', ')} cannot go with --resume: the run's settings come from ${v.resume}`,
      );
    return {
      options: { threads } as SimulationOptions,
      files: { json: v.json ?? v.resume, csv: v.csv, plot },
      help: false,
      resume: v.resume,
    };
  }
  const { nt, nr } = parseMimo(v.mimo ?? '4x4');
  const snrType = choiceOption('snr-type', v['snr-type'], ['esn0', 'ebn0'] as const, 'esn0');
  const engine = choiceOption('engine', v.engine, ['auto', 'cpu', 'cuda'] as const, 'auto');
  const k = v.k === undefined ? undefined : intOption('k', v.k, 0, 1, 1 << 16);
  const passes = v.passes === undefined ? undefined : intOption('passes', v.passes, 0, 1, 64);
  const maxNodes = v['max-nodes'] === undefined ? undefined : intOption('max-nodes', v['max-nodes'], 0, 1);
  const onBudget = choiceOption('on-budget', v['on-budget'], ['error', 'flag'] as const);
  const code = v.code;
  rejectInapplicable(
    given,
    ['llr-clip'],
    code !== undefined,
    'an uncoded simulation counts hard decisions, no LLRs are computed (give --code)',
  );
  rejectInapplicable(
    given,
    ['decoder', 'iterations', 'max-frames'],
    code !== undefined,
    'no --code (an uncoded run decodes nothing)',
  );
  const llrClip = numberOption('llr-clip', v['llr-clip'], { above: 0 });
  const channel = choiceOption('channel', v.channel, ['rayleigh', 'awgn'] as const, 'rayleigh');
  const maxTimeSeconds = numberOption('max-time', v['max-time'], { above: 0 });
  if (maxTimeSeconds !== undefined && maxTimeSeconds > MAX_TIME_SECONDS)
    throw new InvalidArgumentError(`--max-time must be at most ${MAX_TIME_SECONDS} s (7 days), got '${v['max-time']}'`);
  const options: SimulationOptions = {
    nt,
    nr,
    modulation: parseModulationOption(v.mod ?? 'qpsk'),
    detectors: parseDetectorList(v.detector ?? (code !== undefined ? 'nway' : 'zf,mmse,sphere'), {
      k,
      passes,
      maxNodes,
      onBudget,
      llrClip,
    }),
    snrs: parseSnrList(v.snr ?? '0:4:24'),
    snrType,
    maxErrors: intOption('max-errors', v['max-errors'], DEFAULT_MAX_ERRORS, 1),
    maxVectors: intOption('max-vectors', v['max-vectors'], DEFAULT_MAX_VECTORS, 1),
    vectorsPerChannel: intOption('vectors-per-channel', v['vectors-per-channel'], 1, 1, 1 << 20),
    seed: intOption('seed', v.seed, 1, 0),
    engine,
  };
  if (channel !== 'rayleigh') options.channel = channel;
  if (code !== undefined) {
    options.code = code;
    options.decoder = {
      algorithm: choiceOption('decoder', v.decoder, LDPC_DECODER_ALGORITHMS, 'nms'),
      maxIterations: intOption('iterations', v.iterations, 20, 1, 10_000),
    };
    if (v['max-frames'] !== undefined) options.maxFrames = intOption('max-frames', v['max-frames'], 0, 1);
    // a bad code or a hard detector is refused here, before any output (simulate() says the same)
    codeOf(code, options.modulation);
    checkSoftDetectors(options.detectors);
  }
  const algorithms = options.detectors.map((d) => d.detector);
  rejectInapplicable(given, ['k'], algorithms.includes('kbest'), 'no kbest in --detector');
  rejectInapplicable(given, ['passes'], algorithms.includes('nway'), 'no nway in --detector');
  rejectInapplicable(
    given,
    ['max-nodes'],
    algorithms.some((a) => BUDGET_DETECTORS.includes(a)),
    `no detector with a node budget (${BUDGET_DETECTORS.join(', ')}) in --detector`,
  );
  rejectInapplicable(
    given,
    ['on-budget'],
    algorithms.some((a) => SEARCH_DETECTORS.includes(a)),
    `no ${SEARCH_DETECTORS.join(' or ')} in --detector (only their searches stop at the node budget)`,
  );
  if (maxTimeSeconds !== undefined) options.maxTimeSeconds = maxTimeSeconds;
  if (v['chunk-vectors'] !== undefined) {
    options.chunkVectors = intOption('chunk-vectors', v['chunk-vectors'], 0, 1, 1 << 24);
    if (options.chunkVectors % options.vectorsPerChannel! !== 0)
      throw new InvalidArgumentError(
        `--chunk-vectors (${options.chunkVectors}) must be a multiple of --vectors-per-channel (${options.vectorsPerChannel})`,
      );
  }
  if (threads !== undefined) options.threads = threads;
  return { options, files: { json: v.json, csv: v.csv, plot }, help: false };
}

function field<T>(doc: Record<string, unknown>, name: string, check: (x: unknown) => boolean, file: string): T {
  const x = doc[name];
  if (!check(x))
    throw new InvalidInputError(
      'INVALID_INPUT',
      `${file}: field "${name}" is missing or of the wrong kind (not the JSON of a simulate run?)`,
    );
  return x as T;
}

const isNum = (x: unknown) => typeof x === 'number' && Number.isFinite(x);

/**
 * The settings and finished points of a run from its JSON (as simulate --json writes it). The
 * settings go through simulate's own validation; the points are matched to the run by SNR index,
 * detector and SNR.
 */
export function resumeOptions(text: string, file: string): SimulationOptions {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new InvalidInputError('INVALID_INPUT', `${file}: expected the JSON object of a simulate run`);
  const d = doc as Record<string, unknown>;
  const points = field<unknown[]>(d, 'points', Array.isArray, file);
  for (const [i, p] of points.entries()) {
    const ok =
      typeof p === 'object' &&
      p !== null &&
      typeof (p as SimPoint).detector === 'string' &&
      Number.isInteger((p as SimPoint).snrIndex) &&
      ['bitErrors', 'symbolErrors', 'frameErrors', 'vectors', 'snr'].every((k) =>
        isNum((p as unknown as Record<string, unknown>)[k]),
      );
    if (!ok)
      throw new InvalidInputError(
        'INVALID_INPUT',
        `${file}: points[${i}] is not a simulation point (detector, snrIndex, snr and counts)`,
      );
  }
  const opts: SimulationOptions = {
    nt: field(d, 'nt', isNum, file),
    nr: field(d, 'nr', isNum, file),
    modulation: field(d, 'modulation', (x) => typeof x === 'string', file),
    detectors: field<SimDetector[]>(d, 'detectors', Array.isArray, file),
    snrs: field<number[]>(d, 'snrs', Array.isArray, file),
    snrType: field(d, 'snrType', (x) => x === 'esn0' || x === 'ebn0', file),
    maxErrors: field(d, 'maxErrors', isNum, file),
    maxVectors: field(d, 'maxVectors', isNum, file),
    vectorsPerChannel: field(d, 'vectorsPerChannel', isNum, file),
    chunkVectors: field(d, 'chunkVectors', isNum, file),
    seed: field(d, 'seed', isNum, file),
    engine: 'auto',
    completedPoints: points as SimPoint[],
  };
  if (d.channel !== undefined) opts.channel = field(d, 'channel', (x) => x === 'rayleigh' || x === 'awgn', file);
  if (d.code !== undefined) {
    opts.code = field(d, 'code', (x) => typeof x === 'string', file);
    opts.decoder = field(d, 'decoder', (x) => typeof x === 'object' && x !== null && !Array.isArray(x), file);
    if (d.maxFrames !== undefined) opts.maxFrames = field(d, 'maxFrames', isNum, file);
  }
  if (d.maxTimeSeconds !== undefined) opts.maxTimeSeconds = field(d, 'maxTimeSeconds', isNum, file);
  return opts;
}

/**
 * Says on stderr that a run stopped early (`why`) with its finished points in the files `written`,
 * and the command that continues it.
 */
function sayFinished(result: SimulationResult, written: string[], files: OutputFiles, why: string): void {
  const finished = new Set(result.points.map((p) => p.snrIndex)).size;
  const where =
    written.length > 0 ? `wrote ${written.join(', ')}` : 'no file written (no --json, --csv or --plot given)';
  const resume =
    files.json && files.json !== '-' ? `; continue with: lattice-mimo simulate --resume ${files.json}` : '';
  process.stderr.write(
    `simulate: ${why} with ${finished} of ${result.snrs.length} SNR values finished; ${where}${resume}\n`,
  );
}

/** Exit status of a process stopped by a signal: 128 + its number. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export async function run(argv: string[]): Promise<number> {
  const cmd = parseSimulateArgs(argv);
  if (cmd.help) {
    process.stdout.write(SIMULATE_HELP);
    return 0;
  }
  let o = cmd.options;
  if (cmd.resume !== undefined) {
    const threads = o.threads;
    o = resumeOptions(await readInput(cmd.resume, 'give the JSON of a run'), cmd.resume);
    if (threads !== undefined) o.threads = threads;
  }
  // Every output path is checked before any work: a typo must not cost a run.
  for (const [opt, file] of Object.entries(cmd.files)) if (typeof file === 'string') checkOutputPath(opt, file);
  const { engine, reason } = await resolveEngine(o.engine, o.detectors, {
    code: o.code,
    decoder: o.decoder ?? {},
    modulation: o.modulation,
  });
  const controller = new AbortController();
  let signalName: string | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalName !== null) process.exit(SIGNAL_EXIT[sig]!); // a second Ctrl-C: stop now
    signalName = sig;
    const files = Object.values(cmd.files).filter((f) => typeof f === 'string').length;
    process.stderr.write(
      `\nsimulate: ${sig}: stopping${files > 0 ? '; the finished points go to the files asked for' : ''} (${sig} again quits at once, writing nothing)\n`,
    );
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const done = o.completedPoints ? new Set(o.completedPoints.map((p) => p.snrIndex)).size : 0;
    const link =
      o.code !== undefined
        ? `, code ${o.code} (${o.decoder?.algorithm ?? 'nms'}, ${o.decoder?.maxIterations ?? 20} iterations)`
        : '';
    process.stderr.write(
      `simulate: ${o.nt}x${o.nr} ${o.modulation}${link}${o.channel === 'awgn' ? ', AWGN' : ''}, engine ${engine} (${reason}), seed ${o.seed}${cmd.resume !== undefined ? `, resuming ${cmd.resume}` : ''}\n`,
    );
    if (cmd.resume !== undefined)
      process.stderr.write(
        `simulate: ${cmd.resume} holds ${o.completedPoints!.length} points (${done} SNR values); computing the rest\n`,
      );
    let result: SimulationResult;
    try {
      result = await simulateWithTable({ ...o, signal: controller.signal });
    } catch (err) {
      // an error mid-run: the finished points go to the files asked for, then main prints the error's line (exit 2)
      const partial = partialResult(err);
      if (partial) {
        // a failed write is said, and the run's own error is still the one reported
        const written = await writeOutputs(partial, cmd.files).catch((writeErr: unknown) => {
          process.stderr.write(`simulate: the finished points could not be written: ${formatError(writeErr)}\n`);
          return null;
        });
        if (written) sayFinished(partial, written, cmd.files, 'stopped by an error');
      }
      throw err;
    }
    const written = await writeOutputs(result, cmd.files);
    if (!result.interrupted) {
      for (const file of written) process.stderr.write(`wrote ${file}\n`);
      return 0;
    }
    sayFinished(result, written, cmd.files, `interrupted by ${signalName ?? 'a signal'}`);
    return SIGNAL_EXIT[signalName ?? 'SIGINT']!;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
