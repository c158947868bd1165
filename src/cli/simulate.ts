/**
 * `lattice-mimo simulate`: Monte Carlo BER/SER/FER against SNR for several detectors, with a live
 * table on stderr and JSON / CSV / plot files at the end.
 */
import { parseArgs } from 'node:util';
import { InvalidArgumentError } from '../core/errors.js';
import { intOption, numberOption, parseDetectorList, parseMimo, parseModulationOption } from '../sim/cli-options.js';
import { writeOutputs, simulateWithTable, type OutputFiles } from '../sim/report.js';
import { DEFAULT_MAX_ERRORS, DEFAULT_MAX_VECTORS, resolveEngine } from '../sim/simulate.js';
import { parseSnrList } from '../sim/snr.js';
import type { SimulationOptions } from '../sim/types.js';

export const SIMULATE_HELP = `usage: lattice-mimo simulate [options]

Monte Carlo bit / symbol / frame error rates of MIMO detectors over iid Rayleigh fading
(uncoded; a frame is one received vector). Every detector sees the same channels, symbols and noise.

options:
  --mimo NTxNR              transmit x receive antennas (default 4x4)
  --mod MOD                 bpsk | qpsk | 16qam | 64qam | 256qam (default qpsk)
  --detector LIST           comma list of zf, mmse, sic, ml, sphere, psd, kbest, ssfe, nway,
                            lr-zf, lr-mmse, lr-sic; kbest:K and nway:N set K / passes per entry
                            (default zf,mmse,sphere)
  --snr LIST                start:step:stop in dB (stop included) or a comma list (default 0:4:24)
  --snr-type esn0|ebn0      what --snr means: Es/N0 (default) or Eb/N0
  --max-errors N            stop a detector at a point after N bit errors (default ${DEFAULT_MAX_ERRORS})
  --max-vectors N           ... or after N received vectors (default ${DEFAULT_MAX_VECTORS})
  --vectors-per-channel N   one channel matrix serves N consecutive vectors (default 1)
  --chunk-vectors N         vectors per unit of work (default 1024, rounded to whole channel groups)
  --seed S                  Philox seed (default 1): same seed, same counts, any --threads
  --threads N               worker threads (default: all cores)
  --engine auto|cpu|cuda    engine (default auto = cpu; no CUDA MIMO simulation engine yet)
  --k K                     K for kbest
  --passes N                passes (detection orders) for nway
  --llr-clip C              |LLR| clipping for soft detectors
  --json FILE               write the points as JSON ('-' for stdout)
  --csv FILE                write the points as CSV ('-' for stdout)
  --plot FILE               BER and FER curves, .svg or .png
  -h, --help                this text
`;

const OPTIONS = {
  mimo: { type: 'string' }, mod: { type: 'string' }, detector: { type: 'string' }, snr: { type: 'string' },
  'snr-type': { type: 'string' }, 'max-errors': { type: 'string' }, 'max-vectors': { type: 'string' },
  'vectors-per-channel': { type: 'string' }, 'chunk-vectors': { type: 'string' }, seed: { type: 'string' },
  threads: { type: 'string' }, engine: { type: 'string' }, k: { type: 'string' }, passes: { type: 'string' },
  'llr-clip': { type: 'string' }, json: { type: 'string' }, csv: { type: 'string' }, plot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface SimulateCommand { options: SimulationOptions; files: OutputFiles; help: boolean }

/** Parses the command line into simulation options and output files (no work done). */
export function parseSimulateArgs(argv: string[]): SimulateCommand {
  const { values: v } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  if (v.help) return { options: {} as SimulationOptions, files: {}, help: true };
  const { nt, nr } = parseMimo(v.mimo ?? '4x4');
  const snrType = v['snr-type'] ?? 'esn0';
  if (snrType !== 'esn0' && snrType !== 'ebn0') throw new InvalidArgumentError(`--snr-type must be esn0 or ebn0, got '${snrType}'`);
  const engine = v.engine ?? 'auto';
  if (engine !== 'auto' && engine !== 'cpu' && engine !== 'cuda') throw new InvalidArgumentError(`--engine must be auto, cpu or cuda, got '${engine}'`);
  const k = v.k === undefined ? undefined : intOption('k', v.k, 0, 1, 1 << 16);
  const passes = v.passes === undefined ? undefined : intOption('passes', v.passes, 0, 1, 64);
  const llrClip = numberOption('llr-clip', v['llr-clip'], { above: 0 });
  const plot = v.plot;
  if (plot !== undefined && !/\.(svg|png)$/i.test(plot)) throw new InvalidArgumentError(`--plot file must end in .svg or .png, got '${plot}'`);
  const options: SimulationOptions = {
    nt, nr,
    modulation: parseModulationOption(v.mod ?? 'qpsk'),
    detectors: parseDetectorList(v.detector ?? 'zf,mmse,sphere', { k, passes, llrClip }),
    snrs: parseSnrList(v.snr ?? '0:4:24'),
    snrType,
    maxErrors: intOption('max-errors', v['max-errors'], DEFAULT_MAX_ERRORS, 1),
    maxVectors: intOption('max-vectors', v['max-vectors'], DEFAULT_MAX_VECTORS, 1),
    vectorsPerChannel: intOption('vectors-per-channel', v['vectors-per-channel'], 1, 1, 1 << 20),
    seed: intOption('seed', v.seed, 1, 0),
    engine,
  };
  if (v['chunk-vectors'] !== undefined) options.chunkVectors = intOption('chunk-vectors', v['chunk-vectors'], 0, 1, 1 << 24);
  if (v.threads !== undefined) options.threads = intOption('threads', v.threads, 0, 1, 256);
  return { options, files: { json: v.json, csv: v.csv, plot }, help: false };
}

export async function run(argv: string[]): Promise<number> {
  const cmd = parseSimulateArgs(argv);
  if (cmd.help) { process.stdout.write(SIMULATE_HELP); return 0; }
  const o = cmd.options;
  const engine = resolveEngine(o.engine);
  process.stderr.write(`simulate: ${o.nt}x${o.nr} ${o.modulation}, engine ${engine}${o.engine === 'auto' ? ' (auto)' : ''}, seed ${o.seed}\n`);
  const result = await simulateWithTable(o);
  for (const file of await writeOutputs(result, cmd.files)) process.stderr.write(`wrote ${file}\n`);
  return 0;
}
