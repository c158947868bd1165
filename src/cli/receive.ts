/**
 * `lattice-mimo receive`: 5G NR PUSCH slots through the slot receiver (docs/RECEIVER.md), made here
 * (random transport blocks through drops of a channel model) or read from a JSON file, on the engine
 * chosen; a line a run, and with --json each slot's verdicts and decoded transport block.
 */
import { generateChannels, MAX_PRBS, SUBCARRIER_SPACINGS } from '../channels/index.js';
import {
  checkOutputPath,
  InvalidArgumentError,
  InvalidInputError,
  Philox,
  readInput,
  show,
  writeOutput,
} from '../core/index.js';
import { MODULATIONS, snrToNoiseVar } from '../mimo/index.js';
import {
  MAX_RECEIVER_ANTENNAS,
  MAX_RECEIVER_LAYERS,
  type ReceivedSlot,
  receivedGrid,
  receiveSlots,
  resolveReceiver,
  type SlotReceiverOptions,
  type SlotResult,
  transmitSlot,
} from '../receiver/index.js';
import { choiceOption, parseCommandLine } from './args.js';
import { channelFlags, channelFromFlags, channelHelp } from './channel-flags.js';
import {
  checkFlagsApply,
  type DetectorFlag,
  detectorFlags,
  detectorFlagsHelp,
  flagOptions,
  parseDetectorName,
} from './detector-options.js';
import { givenFlags, parseFlags, withFlags } from './option-flags.js';
import { intOption, numberOption } from './values.js';

const COLUMN = 28;
/** Most slots one run makes. */
const MAX_MAKE = 10_000;

const OPTIONS = {
  layers: { type: 'string' },
  nr: { type: 'string' },
  scs: { type: 'string' },
  prbs: { type: 'string' },
  'dmrs-additional': { type: 'string' },
  mod: { type: 'string' },
  rate: { type: 'string' },
  'base-graph': { type: 'string' },
  csi: { type: 'string' },
  n0: { type: 'string' },
  detector: { type: 'string' },
  iterations: { type: 'string' },
  rnti: { type: 'string' },
  'scrambling-id': { type: 'string' },
  engine: { type: 'string' },
  model: { type: 'string', aliases: ['--channel'] },
  make: { type: 'string' },
  snr: { type: 'string' },
  seed: { type: 'string' },
  input: { type: 'string' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The text of `lattice-mimo receive --help`. */
export function receiveHelp(): string {
  const help = channelHelp(COLUMN);
  return `usage: lattice-mimo receive [options]

Receives 5G NR PUSCH slots (docs/RECEIVER.md): DM-RS estimation, detection, descrambling, rate
recovery, LDPC decoding and CRCs, on the engine chosen. The slots are made here (--make N: random
transport blocks through N drops of --model at --snr) or read (--input FILE: {"slots": [{"slot",
"grid": [re, im, ...]}]}, a grid 14 x K x nr complex, (symbol, subcarrier, antenna) in that order).
Prints one line: the transport blocks whose CRC passes (and, for made slots, those equal to the
bits sent); --json writes {"engine", "A", "C", "Kprime", "E", "slots": [{"slot", "tbCrcOk",
"blockCrcOk", "iterations", "tb" (hex, A bits, the first the most significant)}]}.

options:
  --layers N                layers (DM-RS ports), 1 to ${MAX_RECEIVER_LAYERS} (default 2)
  --nr N                    receive antennas, 1 to ${MAX_RECEIVER_ANTENNAS} (default 4)
  --scs HZ                  subcarrier spacing: ${SUBCARRIER_SPACINGS.join(', ')} (default 30000)
  --prbs N                  resource blocks, 1 to ${MAX_PRBS} (default 24)
  --dmrs-additional N       dmrs-AdditionalPosition, 0 to 3 (default 1)
  --mod MOD                 ${MODULATIONS.join(', ')} (default 16qam)
  --rate R                  target code rate, above 0, at most 0.95 (default 0.5)
  --base-graph B            LDPC base graph 1 or 2 (default: 38.212's choice)
  --csi ls|lmmse            the channel estimator (default lmmse: --model's delay profile; both
                            count --model's Doppler in the noise variance)
  --n0 X                    LMMSE: the N0 its filter assumes (default: that of --snr, else 0.1)
  --detector NAME           a soft detector (default nway; mmse: mmse-pic without priors)
  --iterations N            LDPC decoder iterations (default 10)
  --rnti N, --scrambling-id N   the scrambling's n_RNTI (0 to 65535) and n_ID (0 to 1023) (default 0)
  --engine auto|cpu|cuda    (default auto)
  --model MODEL             the channel model the slots are made with, and the one the estimator
                            assumes: LMMSE's profile, the Doppler of time interpolation (default tdl-c)
  --make N                  make N slots (default 4; not with --input), 1 to ${MAX_MAKE}
  --snr DB                  made slots: Es/N0 in dB (default 20)
  --seed X                  made slots: Philox key (default 1)
  --input FILE              read the slots from FILE ('-' for stdin)
  --json FILE               write the results as JSON ('-' for stdout)
  -h, --help                this text

detector options:
${detectorFlagsHelp(detectorFlags([]), COLUMN, {})}
model options (the same flags as simulate's):
${help.flags.split('\n').slice(1).join('\n')}
`;
}

/** The slots of an --input file: {"slots": [{"slot", "grid"}]}, InvalidInputError naming what is wrong. */
function slotsFromJson(text: string, file: string): ReceivedSlot[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InvalidInputError('PARSE_ERROR', `${file}: not JSON (${(e as Error).message})`);
  }
  const slots = (doc as { slots?: unknown })?.slots;
  if (!Array.isArray(slots) || slots.length === 0)
    throw new InvalidInputError(
      'INVALID_INPUT',
      `${file}: expected {"slots": [{"slot", "grid"}, ...]} with at least one slot`,
    );
  return slots.map((s, i) => {
    const { slot, grid } = (s ?? {}) as { slot?: unknown; grid?: unknown };
    if (!Array.isArray(grid) || grid.some((x) => typeof x !== 'number'))
      throw new InvalidInputError(
        'INVALID_INPUT',
        `${file}: slots[${i}].grid must be an array of numbers, got ${show(grid)}`,
        {
          slot: i,
        },
      );
    return { slot: slot as number, grid: Float64Array.from(grid as number[]) };
  });
}

/** A transport block's bits as hex, the first bit the most significant (a last partial digit padded with zeros). */
function hexOf(bits: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bits.length; i += 4) {
    let v = 0;
    for (let b = 0; b < 4; b++) v = (v << 1) | (bits[i + b] ?? 0);
    out += v.toString(16);
  }
  return out;
}

export async function run(argv: string[]): Promise<number> {
  const flags: DetectorFlag[] = detectorFlags([]);
  const models = channelFlags();
  const { values: v } = parseCommandLine(argv, withFlags(OPTIONS, flags, models), { command: 'receive' });
  if (v.help) {
    process.stdout.write(receiveHelp());
    return 0;
  }
  if (v.input !== undefined && (v.make !== undefined || v.snr !== undefined || v.seed !== undefined))
    throw new InvalidArgumentError('--make, --snr and --seed make slots: they do not go with --input', {
      option: '--input',
    });
  if (v.json !== undefined) checkOutputPath('json', v.json);
  const detector = parseDetectorName(v.detector ?? 'nway');
  const given = givenFlags(v, flags);
  checkFlagsApply(detector, given);
  const { channel, channelOptions } = channelFromFlags(v, models, 'model');
  const model = v.model === undefined ? 'tdl-c' : channel;
  const layers = intOption('layers', v.layers, 2, 1, MAX_RECEIVER_LAYERS);
  const nr = intOption('nr', v.nr, 4, 1, MAX_RECEIVER_ANTENNAS);
  const snr = numberOption('snr', v.snr) ?? 20;
  const noiseVar = snrToNoiseVar(snr, 'esn0', 1, 1);
  const options: SlotReceiverOptions = {
    layers,
    nr,
    scs: numberOption('scs', v.scs, { above: 0 }) ?? 30e3,
    prbs: intOption('prbs', v.prbs, 24, 1, MAX_PRBS),
    dmrsAdditional: intOption('dmrs-additional', v['dmrs-additional'], 1, 0, 3),
    modulation: choiceOption('mod', v.mod, MODULATIONS, '16qam'),
    rate: numberOption('rate', v.rate, { above: 0 }) ?? 0.5,
    ...(v['base-graph'] !== undefined ? { baseGraph: intOption('base-graph', v['base-graph'], 1, 1, 2) as 1 | 2 } : {}),
    csi: choiceOption('csi', v.csi, ['ls', 'lmmse'] as const, 'lmmse'),
    channel: model,
    channelOptions,
    n0: numberOption('n0', v.n0, { above: 0 }) ?? (v.input === undefined ? noiseVar : 0.1),
    detector: { detector, ...flagOptions(detector, parseFlags(v, given)) } as SlotReceiverOptions['detector'],
    decoder: { maxIterations: intOption('iterations', v.iterations, 10, 1, 10_000) },
    rnti: intOption('rnti', v.rnti, 0, 0, 65535),
    dataScramblingId: intOption('scrambling-id', v['scrambling-id'], 0, 0, 1023),
    engine: choiceOption('engine', v.engine, ['auto', 'cpu', 'cuda'] as const, 'auto'),
  };
  const r = resolveReceiver(options, 'receive');
  const t0 = performance.now();
  let slots: ReceivedSlot[];
  let sent: Uint8Array[] | null = null;
  if (v.input !== undefined) {
    slots = slotsFromJson(await readInput(v.input, 'give --input FILE or pipe the JSON on stdin'), v.input);
  } else {
    const make = intOption('make', v.make, 4, 1, MAX_MAKE);
    const seed = intOption('seed', v.seed, 1, 0);
    const rng = new Philox(seed, 1);
    sent = [];
    slots = [];
    for (let s = 0; s < make; s++) {
      const tb = Uint8Array.from({ length: r.A }, () => (rng.uniform() < 0.5 ? 1 : 0));
      const { H } = generateChannels({
        model,
        channelOptions,
        nt: layers,
        nr,
        scs: r.config.scs,
        prbs: r.config.prbs,
        seed,
        drop: s,
      });
      sent.push(tb);
      slots.push({ slot: s, grid: receivedGrid(r, transmitSlot(r, tb, s), H, noiseVar, rng) });
    }
  }
  const made = performance.now();
  const results: SlotResult[] = await receiveSlots(slots, options);
  const ms = performance.now() - made;
  const ok = results.filter((x) => x.tbCrcOk).length;
  const equal = sent ? results.filter((x, i) => x.tb.every((b, j) => b === sent![i]![j])).length : null;
  const engine = results[0]?.engine ?? 'cpu';
  process.stderr.write(
    `receive: ${slots.length} slot(s) of ${r.C} block(s) (K' ${r.code.k}, E ${r.E}, A ${r.A} bits), ${detector}, ${r.options.csi}, engine ${engine}: ${ok} transport block(s) pass their CRC${equal !== null ? `, ${equal} equal the bits sent (Es/N0 ${snr} dB, ${model}; made in ${((made - t0) / 1e3).toFixed(1)} s)` : ''}; received in ${(ms / 1e3).toFixed(2)} s\n`,
  );
  if (v.json !== undefined)
    await writeOutput(
      v.json,
      `${JSON.stringify({
        engine,
        A: r.A,
        C: r.C,
        Kprime: r.code.k,
        E: r.E,
        slots: results.map((x, i) => ({
          slot: slots[i]!.slot,
          tbCrcOk: x.tbCrcOk,
          blockCrcOk: x.blockCrcOk,
          iterations: Array.from(x.iterations),
          tb: hexOf(x.tb),
        })),
      })}\n`,
    );
  return 0;
}
