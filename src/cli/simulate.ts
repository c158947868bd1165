/**
 * `lattice-mimo simulate`: Monte Carlo BER/SER/FER against SNR for several detectors, with a live
 * table on stderr and JSON / CSV / plot files at the end.
 */
import { formatError, InvalidArgumentError, checkDistinctOutputs, checkOutputPath, readInput } from '../core/index.js';
import { parseMimo, parseModulationOption } from './mimo-values.js';
import {
  partialResult,
  writeOutputs,
  simulateWithTable,
  type OutputFiles,
  DEFAULT_MAX_ERRORS,
  DEFAULT_MAX_VECTORS,
  resolveEngine,
  parseSnrList,
  type OfdmOptions,
  type SimulationOptions,
  type SimulationResult,
  type ShardOptions,
  MAX_SHARDS,
  CSI_MODES,
  checkSoftDetectors,
  codeOf,
  MAX_IDD_ITERATIONS,
} from '../sim/index.js';
import { choiceOption, parseCommandLine, rejectInapplicable } from './args.js';
import { resumeOptions } from './resume.js';
import { checkSnrNumbers, intOption, numberOption } from './values.js';
import { LDPC_DECODER_ALGORITHMS, MIN_SUM_ARITHMETICS } from '../coding/index.js';
import { cudaDeviceCount } from '../gpu/index.js';
import { SOFT_DETECTORS, priorDetectors } from '../mimo/index.js';
import { channelEntry, DEFAULT_CHANNEL_MODEL, MAX_PRBS } from '../channels/index.js';
import { channelFlags, channelFromFlags, channelHelp } from './channel-flags.js';
import {
  checkListFlags,
  detectorFlags,
  detectorFlagsHelp,
  detectorsHelp,
  listFormsHelp,
  parseDetectorList,
} from './detector-options.js';
import { givenFlags, helpLine, parseFlags, withFlags } from './option-flags.js';

/** Where help puts the text of an option. */
const COLUMN = 28;

/** The common detector options `simulate` takes as flags (the modulation and engine are the run's). */
const COMMON_FLAGS = ['llrClip', 'maxNodes', 'onBudget'] as const;

/** The detectors of a run without --detector: uncoded, and coded (which needs soft ones). */
const DEFAULT_DETECTORS = { uncoded: 'zf,mmse,sphere', coded: 'nway' };

/** The text of `lattice-mimo simulate --help`, its detector lines read from the registry. */
export function simulateHelp(): string {
  const line = (left: string, text: string) => helpLine(left, text, COLUMN);
  return `usage: lattice-mimo simulate [options]

Monte Carlo bit / symbol / frame error rates of MIMO detectors over a channel model (iid Rayleigh
fading by default), uncoded (a frame is one received vector) or coded with an LDPC code (--code: a
frame is a codeword, BER and FER are those of its information bits after decoding). Every detector
sees the same channels, symbols and noise.

options:
  --mimo NTxNR              transmit x receive antennas (default 4x4)
  --mod MOD                 bpsk | qpsk | 16qam | 64qam | 256qam (default qpsk)
${line('--detector LIST', `comma list of the detectors below; ${listFormsHelp()} of that entry (default ${DEFAULT_DETECTORS.uncoded}; with --code ${DEFAULT_DETECTORS.coded})`)}
  --snr LIST                start:step:stop in dB (stop included) or a comma list (default 0:4:24);
                            negative values work: --snr -4:2:8
  --snr-type esn0|ebn0      what --snr means: Es/N0 (default) or Eb/N0 (= Es/N0 - 10 log10(bits per
                            symbol x code rate))
${channelHelp(COLUMN).flags}
${line('--code SPEC', `coded link: wimax:N[:1/2] (N = 576..2304 step 96) or nr:[bgB:]K:R (5G NR, 38.212); every detector must be soft (${SOFT_DETECTORS.join(', ')}): its max-log LLRs feed the decoder. A frame's bits fill consecutive symbols, stream by stream, over ceil(n / (bits per symbol x NT)) vectors (the last padded)`)}
  --decoder ALG             with --code: nms (default), oms, spa, flooding-spa
  --iterations N            with --code: most decoder iterations (default 20; early stop on a zero syndrome)
  --arithmetic A            with --code, nms or oms on the CPU engine: float (default), int16 (the
                            same decisions, WebAssembly SIMD lanes) or int8 (faster, a slightly
                            different FER); docs/WASM-KERNELS.md
  --idd N                   with --code: iterative detection and decoding, N passes (default 1): each
                            detection after the first takes the previous decoding's extrinsic LLRs as
                            priors; N > 1 needs detectors that take priors (${priorDetectors().join(', ')};
                            on the GPU, those whose CUDA kernels do); N detections and N decodings a frame
  --max-errors N            stop a detector at a point after N bit errors, frame errors with --code
                            (default ${DEFAULT_MAX_ERRORS})
  --max-vectors N           ... or after N received vectors (default ${DEFAULT_MAX_VECTORS})
  --max-frames N            with --code: ... or after N frames (rounded up to whole chunks' frames)
  --scs HZ                  OFDM link (any of these four flags): subcarrier spacing 15000, 30000,
                            60000 or 120000 (default 30000); a chunk is a slot of 14 symbols, a vector
                            a data resource element with its own channel (docs/CHANNELS.md)
  --prbs N                  OFDM link: resource blocks, 1 to 273 (default 273)
  --csi MODE                OFDM link: perfect (default): detectors get the true channel; ls or
                            lmmse: its estimate from the DM-RS, with the noise variance estimated
  --dmrs-additional N       OFDM link: DM-RS symbols after the first, 0 to 3 (default 2); at most 4
                            transmit antennas (a DM-RS port a layer)
  --vectors-per-channel N   one channel matrix serves N consecutive vectors (default 1)
  --unit-vectors N          vectors per unit (default 1024, rounded to whole channel groups and, with
                            --code, whole frames; an OFDM unit is a slot): each unit is drawn from its
                            own streams and the stop rules are checked after each, in order, so the
                            counts of a seed depend on it and on nothing else of how the run is cut
  --chunk-vectors N         vectors handed out at once, whole units (default: one unit; 65536 on the
                            GPU); the counts do not depend on it
  --shard K/N               compute shard K of N (0 <= K < N): chunks K, K+N, ... of every point,
                            each unit's counts kept in --json; 'auto' reads SLURM_ARRAY_TASK_ID (less
                            SLURM_ARRAY_TASK_MIN) and SLURM_ARRAY_TASK_COUNT, or Kubernetes'
                            JOB_COMPLETION_INDEX with --shard-count; merge the files with
                            'lattice-mimo merge' (docs/SCALE.md)
  --shard-count N           the shard count where the scheduler gives only the index (implies
                            --shard auto)
  --shard-dir DIR           a directory every shard reads and writes: the shards stop together once
                            their units reach the run's stop (no server)
  --shard-min-unit U        compute this shard's units up to unit U at least (merge says when)
  --devices LIST            with --engine cuda: 'all' or a comma list of device numbers (default 0),
                            one GPU link a device, chunks dealt out in turn; same counts
  --seed S                  Philox seed (default 1): same seed, same counts, any --threads,
                            --chunk-vectors, engine, devices or shards
  --threads N               worker threads (default: all cores)
  --engine auto|cpu|cuda    engine: cuda runs the whole link on the GPU (every detector needs its
                            CUDA implementation); auto (default) takes it where it can, else cpu
${detectorFlagsHelp(detectorFlags(COMMON_FLAGS), COLUMN, { 'llr-clip': 'with --code' })}
  --max-time SECONDS        wall-clock limit per SNR point: past it the point stops with the counts
                            so far, flagged "stopped by time" in the table, JSON and CSV
  --resume FILE             continue the run saved in FILE (the JSON of an interrupted run): its
                            settings and finished points are taken from FILE, the other points are
                            computed; the counts equal an uninterrupted run's. --json defaults to FILE.
                            Only --threads, --json, --csv and --plot may be given with it. Every
                            point in FILE is checked against its settings (detectors, SNRs, counts).
  --json FILE               write the points as JSON ('-' for stdout)
  --csv FILE                write the points as CSV ('-' for stdout)
  --plot FILE               BER and FER curves, .svg or .png
  -h, --help                this text

detectors:
${detectorsHelp(COLUMN)}

channel models:
${channelHelp(COLUMN).models}

A detector option goes to every detector in --detector that takes it (kbest:K and the like set one
entry's); one that no detector there takes is an error, as are --decoder, --iterations, --max-frames
without --code, and --llr-clip without --code (an uncoded simulation counts hard decisions; no LLRs
are computed). With --on-budget error a search past its budget stops the run (exit 2, NODE_BUDGET);
flag counts the best leaf found as the decision. With --code the GPU engine also encodes and
decodes on the device (only counts come back). Output paths are checked before any work (each
writable, no two the same file or both stdout); files are written atomically.
Interrupted (Ctrl-C, SIGTERM), simulate writes the finished points to the files asked for, says
so on stderr and exits 130 (SIGINT) or 143 (SIGTERM); --resume FILE continues from the JSON.
Stopped by an error (NODE_BUDGET, a worker that died, a GPU error), it writes them the same way,
prints the error's line (naming the SNR point, detector, chunk and vector) and exits 2. With
--on-budget flag, "unproven" (table, JSON, CSV) counts the vectors whose search stopped at the
budget (their best leaf is counted as the decision).
`;
}

const OPTIONS = {
  mimo: { type: 'string' },
  mod: { type: 'string' },
  detector: { type: 'string' },
  snr: { type: 'string' },
  'snr-type': { type: 'string' },
  'max-errors': { type: 'string' },
  'max-vectors': { type: 'string' },
  'vectors-per-channel': { type: 'string' },
  'unit-vectors': { type: 'string' },
  'chunk-vectors': { type: 'string' },
  shard: { type: 'string' },
  'shard-count': { type: 'string' },
  'shard-dir': { type: 'string' },
  'shard-min-unit': { type: 'string' },
  devices: { type: 'string' },
  seed: { type: 'string' },
  threads: { type: 'string' },
  engine: { type: 'string' },
  code: { type: 'string' },
  decoder: { type: 'string' },
  iterations: { type: 'string' },
  arithmetic: { type: 'string' },
  idd: { type: 'string' },
  channel: { type: 'string' },
  'max-frames': { type: 'string' },
  'max-time': { type: 'string' },
  scs: { type: 'string' },
  prbs: { type: 'string' },
  csi: { type: 'string' },
  'dmrs-additional': { type: 'string' },
  resume: { type: 'string' },
  json: { type: 'string' },
  csv: { type: 'string' },
  plot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Largest --max-time, simulate()'s bound on maxTimeSeconds (7 days). */
const MAX_TIME_SECONDS = 7 * 86400;

/**
 * Options that may go with --resume (the others are the run's settings, taken from the file): how
 * the work is run, and, for a shard's file, which shard to run again and how far.
 */
const RESUME_OPTIONS = new Set([
  'resume',
  'threads',
  'json',
  'csv',
  'plot',
  'help',
  'chunk-vectors',
  'devices',
  'shard',
  'shard-count',
  'shard-dir',
  'shard-min-unit',
]);

export interface SimulateCommand {
  options: SimulationOptions;
  files: OutputFiles;
  help: boolean;
  resume?: string;
}

/** Parses the command line into simulation options and output files (no work done). */
export function parseSimulateArgs(argv: string[]): SimulateCommand {
  const flags = detectorFlags(COMMON_FLAGS);
  const models = channelFlags();
  const { values: v, given } = parseCommandLine(argv, withFlags(OPTIONS, flags, models), { command: 'simulate' });
  if (v.help) return { options: {} as SimulationOptions, files: {}, help: true };
  const plot = v.plot;
  if (plot !== undefined && !/\.(svg|png)$/i.test(plot))
    throw new InvalidArgumentError(`--plot file must end in .svg or .png, got '${plot}'`);
  const threads = v.threads === undefined ? undefined : intOption('threads', v.threads, 0, 1, 256);
  const runFlags = runOptionsFromFlags(v, given, v.resume !== undefined);
  if (v.resume !== undefined) {
    const extra = given.filter((g) => !RESUME_OPTIONS.has(g));
    if (extra.length > 0)
      throw new InvalidArgumentError(
        `${[...new Set(extra)].map((o) => `--${o}`).join(', ')} cannot go with --resume: the run's settings come from ${v.resume}`,
      );
    return {
      options: { ...(threads !== undefined ? { threads } : {}), ...runFlags } as SimulationOptions,
      files: { json: v.json ?? v.resume, csv: v.csv, plot },
      help: false,
      resume: v.resume,
    };
  }
  const { nt, nr } = parseMimo(v.mimo ?? '4x4');
  if (v.snr !== undefined) checkSnrNumbers('snr', v.snr);
  const snrType = choiceOption('snr-type', v['snr-type'], ['esn0', 'ebn0'] as const, 'esn0');
  const engine = choiceOption('engine', v.engine, ['auto', 'cpu', 'cuda'] as const, 'auto');
  const code = v.code;
  rejectInapplicable(
    given,
    ['llr-clip'],
    code !== undefined,
    'an uncoded simulation counts hard decisions, no LLRs are computed (give --code)',
  );
  rejectInapplicable(
    given,
    ['decoder', 'iterations', 'arithmetic', 'max-frames', 'idd'],
    code !== undefined,
    'no --code (an uncoded run decodes nothing)',
  );
  const set = givenFlags(v, flags);
  const parsed = parseFlags(v, set);
  const maxTimeSeconds = numberOption('max-time', v['max-time'], { above: 0 });
  if (maxTimeSeconds !== undefined && maxTimeSeconds > MAX_TIME_SECONDS)
    throw new InvalidArgumentError(`--max-time must be at most ${MAX_TIME_SECONDS} s (7 days), got '${v['max-time']}'`);
  const options: SimulationOptions = {
    nt,
    nr,
    modulation: parseModulationOption(v.mod ?? 'qpsk'),
    detectors: parseDetectorList(
      v.detector ?? (code !== undefined ? DEFAULT_DETECTORS.coded : DEFAULT_DETECTORS.uncoded),
      parsed,
    ),
    snrs: parseSnrList(v.snr ?? '0:4:24'),
    snrType,
    maxErrors: intOption('max-errors', v['max-errors'], DEFAULT_MAX_ERRORS, 1),
    maxVectors: intOption('max-vectors', v['max-vectors'], DEFAULT_MAX_VECTORS, 1),
    vectorsPerChannel: intOption('vectors-per-channel', v['vectors-per-channel'], 1, 1, 1 << 20),
    seed: intOption('seed', v.seed, 1, 0),
    engine,
  };
  const { channel, channelOptions } = channelFromFlags(v, models);
  if (channel !== DEFAULT_CHANNEL_MODEL) options.channel = channel;
  if (Object.keys(channelOptions).length > 0) options.channelOptions = channelOptions;
  const ofdm = ofdmFromFlags(v, given);
  if (ofdm) options.ofdm = ofdm;
  if (code !== undefined) {
    options.code = code;
    options.decoder = {
      algorithm: choiceOption('decoder', v.decoder, LDPC_DECODER_ALGORITHMS, 'nms'),
      maxIterations: intOption('iterations', v.iterations, 20, 1, 10_000),
      ...(v.arithmetic !== undefined
        ? { arithmetic: choiceOption('arithmetic', v.arithmetic, MIN_SUM_ARITHMETICS, 'float') }
        : {}),
    };
    if (v['max-frames'] !== undefined) options.maxFrames = intOption('max-frames', v['max-frames'], 0, 1);
    if (v.idd !== undefined) options.idd = intOption('idd', v.idd, 1, 1, MAX_IDD_ITERATIONS);
    // a bad code or a hard detector is refused here, before any output (simulate() says the same)
    codeOf(code, options.modulation);
    checkSoftDetectors(options.detectors);
  }
  checkListFlags(
    options.detectors.map((d) => d.detector),
    set,
  );
  if (maxTimeSeconds !== undefined) options.maxTimeSeconds = maxTimeSeconds;
  if (v['unit-vectors'] !== undefined) {
    options.unitVectors = intOption('unit-vectors', v['unit-vectors'], 0, 1, 1 << 24);
    if (options.unitVectors % options.vectorsPerChannel! !== 0)
      throw new InvalidArgumentError(
        `--unit-vectors (${options.unitVectors}) must be a multiple of --vectors-per-channel (${options.vectorsPerChannel})`,
      );
  }
  Object.assign(options, runFlags);
  if (threads !== undefined) options.threads = threads;
  return { options, files: { json: v.json, csv: v.csv, plot }, help: false };
}

/**
 * How the work is run, from its flags: --chunk-vectors, --devices, and the shard (--shard K/N or
 * auto, --shard-count, --shard-dir, --shard-min-unit). An 'auto' shard comes from the scheduler's
 * environment: Slurm's array task (SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN, of
 * SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job's JOB_COMPLETION_INDEX (of --shard-count).
 */
export function runOptionsFromFlags(
  v: Record<string, string | boolean | undefined>,
  given: readonly string[],
  resuming = false,
  env: NodeJS.ProcessEnv = process.env,
): Pick<SimulationOptions, 'chunkVectors' | 'devices' | 'shard'> {
  const out: Pick<SimulationOptions, 'chunkVectors' | 'devices' | 'shard'> = {};
  if (v['chunk-vectors'] !== undefined)
    out.chunkVectors = intOption('chunk-vectors', v['chunk-vectors'] as string, 0, 1, 1 << 24);
  if (v.devices !== undefined) out.devices = parseDevices(v.devices as string);
  const count =
    v['shard-count'] === undefined ? undefined : intOption('shard-count', v['shard-count'] as string, 0, 1, MAX_SHARDS);
  const spec = (v.shard as string | undefined) ?? (count !== undefined ? 'auto' : undefined);
  const stray = ['shard-dir', 'shard-min-unit'].filter((f) => given.includes(f));
  if (spec === undefined && stray.length === 0) return out;
  // resuming a shard's file, the shard may come from the file (resumeOptions)
  if (spec === undefined && !resuming)
    throw new InvalidArgumentError(`--${stray[0]} needs --shard (or --shard-count)`, { option: stray[0] });
  const shard = spec === undefined ? ({} as ShardOptions) : parseShard(spec, count, env);
  if (v['shard-dir'] !== undefined) shard.dir = v['shard-dir'] as string;
  if (v['shard-min-unit'] !== undefined)
    shard.minUnit = intOption('shard-min-unit', v['shard-min-unit'] as string, 0, 0);
  out.shard = shard;
  return out;
}

/** --shard K/N, or 'auto' from the scheduler's environment (runOptionsFromFlags). */
function parseShard(spec: string, count: number | undefined, env: NodeJS.ProcessEnv): ShardOptions {
  const int = (name: string, text: string | undefined): number => {
    if (text === undefined || !/^\d+$/.test(text.trim()))
      throw new InvalidArgumentError(`--shard ${spec}: ${name} must be a non-negative integer, got '${text ?? ''}'`, {
        option: 'shard',
      });
    return Number(text.trim());
  };
  let index: number, total: number;
  const m = /^(\d+)\/(\d+)$/.exec(spec.trim());
  if (m) {
    [index, total] = [Number(m[1]), Number(m[2])];
    if (count !== undefined && count !== total)
      throw new InvalidArgumentError(`--shard ${spec} and --shard-count ${count} disagree`, { option: 'shard-count' });
  } else if (spec.trim() === 'auto') {
    if (env.SLURM_ARRAY_TASK_ID !== undefined) {
      index =
        int('SLURM_ARRAY_TASK_ID', env.SLURM_ARRAY_TASK_ID) -
        int('SLURM_ARRAY_TASK_MIN', env.SLURM_ARRAY_TASK_MIN ?? '0');
      total = count ?? int('SLURM_ARRAY_TASK_COUNT', env.SLURM_ARRAY_TASK_COUNT);
    } else if (env.JOB_COMPLETION_INDEX !== undefined) {
      index = int('JOB_COMPLETION_INDEX', env.JOB_COMPLETION_INDEX);
      if (count === undefined)
        throw new InvalidArgumentError(
          "--shard auto: a Kubernetes Indexed Job gives the index (JOB_COMPLETION_INDEX), not the count: give --shard-count N (the Job's completions)",
          { option: 'shard-count' },
        );
      total = count;
    } else {
      throw new InvalidArgumentError(
        '--shard auto: no scheduler said which shard this is (neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set); give --shard K/N',
        { option: 'shard' },
      );
    }
  } else {
    throw new InvalidArgumentError(`--shard must be K/N (0 <= K < N) or auto, got '${spec}'`, { option: 'shard' });
  }
  if (total < 1 || total > MAX_SHARDS || index < 0 || index >= total)
    throw new InvalidArgumentError(
      `--shard ${index}/${total}: the index must be in [0, ${total}) and the count in [1, ${MAX_SHARDS}]`,
      {
        option: 'shard',
        index,
        count: total,
      },
    );
  return { index, count: total };
}

/** --devices: 'all' (every device the driver reports), or a comma list of distinct device numbers. */
function parseDevices(text: string): number[] {
  if (text.trim() === 'all') {
    const n = cudaDeviceCount();
    if (n === 0)
      throw new InvalidArgumentError('--devices all: no CUDA device answers (the CUDA engine is not available)', {
        option: 'devices',
      });
    return Array.from({ length: n }, (_, i) => i);
  }
  const list = text.split(',').map((x) => x.trim());
  if (list.some((x) => !/^\d+$/.test(x)) || new Set(list).size !== list.length)
    throw new InvalidArgumentError(
      `--devices must be 'all' or a comma list of distinct device numbers, got '${text}'`,
      {
        option: 'devices',
      },
    );
  return list.map(Number);
}

/** The OFDM flags, when any is given: --scs (default 30000), --prbs (default 273), --csi, --dmrs-additional. */
function ofdmFromFlags(v: Record<string, string | boolean | undefined>, given: readonly string[]): OfdmOptions | null {
  if (!['scs', 'prbs', 'csi', 'dmrs-additional'].some((f) => given.includes(f))) return null;
  const ofdm: OfdmOptions = {
    scs: numberOption('scs', v.scs as string | undefined, { above: 0 }) ?? 30e3,
    prbs: intOption('prbs', v.prbs as string | undefined, MAX_PRBS, 1, MAX_PRBS),
  };
  const csi = choiceOption('csi', v.csi as string | undefined, CSI_MODES);
  if (csi !== undefined) ofdm.csi = csi;
  if (v['dmrs-additional'] !== undefined)
    ofdm.dmrsAdditional = intOption('dmrs-additional', v['dmrs-additional'] as string, 2, 0, 3);
  return ofdm;
}

export { resumeOptions } from './resume.js';

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
    process.stdout.write(simulateHelp());
    return 0;
  }
  let o = cmd.options;
  if (cmd.resume !== undefined) {
    const run = o;
    o = resumeOptions(await readInput(cmd.resume, 'give the JSON of a run'), cmd.resume);
    if (run.threads !== undefined) o.threads = run.threads;
    if (run.chunkVectors !== undefined) o.chunkVectors = run.chunkVectors;
    if (run.devices !== undefined) o.devices = run.devices;
    // a shard's file runs its shard again (from the start: a shard keeps no partial points), or the shard given
    if (run.shard !== undefined || o.shard !== undefined) {
      if (o.shard === undefined && run.shard?.index === undefined)
        throw new InvalidArgumentError(
          `${cmd.resume} is not a shard's file: --shard-dir and --shard-min-unit need --shard K/N`,
          { option: 'shard' },
        );
      o.shard = { ...o.shard!, ...run.shard };
      delete o.completedPoints;
    }
  }
  // Every output path is checked before any work: a typo must not cost a run.
  const outputs = Object.entries(cmd.files).flatMap(([option, file]) =>
    typeof file === 'string' ? [{ option, file }] : [],
  );
  for (const { option, file } of outputs) checkOutputPath(option, file);
  checkDistinctOutputs(outputs);
  const { engine, reason } = await resolveEngine(o.engine, o.detectors, {
    code: o.code,
    decoder: o.decoder ?? {},
    modulation: o.modulation,
    channel: o.channel,
    ...(o.idd !== undefined ? { idd: o.idd } : {}),
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
      (o.code !== undefined
        ? `, code ${o.code} (${o.decoder?.algorithm ?? 'nms'}, ${o.decoder?.maxIterations ?? 20} iterations${(o.idd ?? 1) > 1 ? `, ${o.idd} IDD passes` : ''})`
        : '') +
      (o.ofdm !== undefined
        ? `, OFDM ${o.ofdm.prbs} PRBs at ${o.ofdm.scs / 1e3} kHz, ${o.ofdm.csi ?? 'perfect'} CSI`
        : '');
    process.stderr.write(
      `simulate: ${o.nt}x${o.nr} ${o.modulation}${link}${o.channel !== undefined && o.channel !== DEFAULT_CHANNEL_MODEL ? `, ${channelEntry(o.channel)?.title ?? o.channel}` : ''}, engine ${engine} (${reason}), seed ${o.seed}${cmd.resume !== undefined ? `, resuming ${cmd.resume}` : ''}\n`,
    );
    if (cmd.resume !== undefined)
      process.stderr.write(
        o.shard
          ? `simulate: running shard ${o.shard.index} of ${o.shard.count} of ${cmd.resume}'s run${o.shard.minUnit !== undefined ? ` through unit ${o.shard.minUnit} at least` : ''}\n`
          : `simulate: ${cmd.resume} holds ${o.completedPoints!.length} points (${done} SNR values); computing the rest\n`,
      );
    else if (o.shard)
      process.stderr.write(
        `simulate: shard ${o.shard.index} of ${o.shard.count}${o.shard.dir ? `, sharing ${o.shard.dir}` : ''}\n`,
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
