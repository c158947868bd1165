/**
 * `lattice-mimo channels`: a channel model's realisations on an OFDM grid, as JSON, for users' own
 * work and for checks. H[slot][symbol][subcarrier][rx][tx] = [re, im].
 */
import { generateChannels, MAX_PRBS, SUBCARRIER_SPACINGS, type ChannelRealisations } from '../channels/index.js';
import { checkOutputPath, InvalidArgumentError, writeOutput } from '../core/index.js';
import { parseCommandLine } from './args.js';
import { channelFlags, channelFromFlags, channelHelp } from './channel-flags.js';
import { parseMimo } from './mimo-values.js';
import { withFlags } from './option-flags.js';
import { intOption, numberOption } from './values.js';

const COLUMN = 28;
/** The longest JSON text written (below V8's longest string, 2^29 - 24 characters). */
const MAX_JSON_CHARS = 2 ** 29 - 2 ** 20;

/** The text of `lattice-mimo channels --help`. */
export function channelsHelp(): string {
  const help = channelHelp(COLUMN);
  return `usage: lattice-mimo channels [options]

A channel model's response on every resource element of consecutive slots of one drop (one
realisation of the model's random process), in the frequency domain: the same channels simulate
draws, for your own work and for checks. The JSON holds {"model", "channelOptions", "nt", "nr",
"scs", "prbs", "symbols", "slots", "subcarriers", "seed", "drop", "H"} with
H[slot][symbol][subcarrier][rx][tx] = [re, im]. Without --json, one line of statistics.

options:
  --model MODEL             the channel model (also --channel), one of those below (default rayleigh)
  --mimo NTxNR              transmit x receive antennas (default 4x4)
  --scs HZ                  subcarrier spacing: ${SUBCARRIER_SPACINGS.join(', ')} (default 30000)
  --prbs N                  resource blocks, 1 to ${MAX_PRBS} (default 273), 12 subcarriers each
  --slots S                 consecutive slots of the drop, 14 symbols each (default 1)
  --seed X                  Philox key (default 1)
  --drop D                  which drop of the seed (default 0)
  --json FILE               write the realisations as JSON ('-' for stdout)
  -h, --help                this text

model options (the same flags as simulate's):
${help.flags.split('\n').slice(1).join('\n')}

channel models:
${help.models}
`;
}

const OPTIONS = {
  model: { type: 'string', aliases: ['--channel'] },
  mimo: { type: 'string' },
  scs: { type: 'string' },
  prbs: { type: 'string' },
  slots: { type: 'string' },
  seed: { type: 'string' },
  drop: { type: 'string' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The JSON text of realisations, H nested [slot][symbol][subcarrier][rx][tx] = [re, im]. */
export function channelsJson(r: ChannelRealisations): string {
  const { nt, nr, subcarriers: K } = r;
  const parts: string[] = [];
  const head = { ...r, H: undefined };
  parts.push(`${JSON.stringify(head).slice(0, -1)},"H":[`);
  for (let s = 0; s < r.slots; s++) {
    parts.push(s === 0 ? '[' : ',[');
    for (let l = 0; l < r.symbols; l++) {
      const sc: string[] = [];
      for (let k = 0; k < K; k++) {
        const o = ((s * r.symbols + l) * K + k) * nr * nt;
        const rows: string[] = [];
        for (let i = 0; i < nr; i++) {
          const row: string[] = [];
          for (let j = 0; j < nt; j++) row.push(`[${r.H[2 * (o + i + j * nr)]},${r.H[2 * (o + i + j * nr) + 1]}]`);
          rows.push(`[${row.join(',')}]`);
        }
        sc.push(`[${rows.join(',')}]`);
      }
      parts.push(`${l === 0 ? '' : ','}[${sc.join(',')}]`);
    }
    parts.push(']');
  }
  parts.push(']}\n');
  return parts.join('');
}

export async function run(argv: string[]): Promise<number> {
  const models = channelFlags();
  const { values: v } = parseCommandLine(argv, withFlags(OPTIONS, models), { command: 'channels' });
  if (v.help) {
    process.stdout.write(channelsHelp());
    return 0;
  }
  const { nt, nr } = parseMimo(v.mimo ?? '4x4');
  const { channel, channelOptions } = channelFromFlags(v, models, 'model');
  const scs = numberOption('scs', v.scs, { above: 0 }) ?? 30e3;
  const prbs = intOption('prbs', v.prbs, MAX_PRBS, 1, MAX_PRBS);
  const slots = intOption('slots', v.slots, 1, 1, 10_000);
  const seed = intOption('seed', v.seed, 1, 0);
  const drop = intOption('drop', v.drop, 0, 0);
  if (v.json !== undefined) {
    checkOutputPath('json', v.json);
    // a complex entry is up to 44 characters of JSON; the text is one string, whose length V8 bounds
    const chars = slots * 14 * 12 * prbs * nr * nt * 44;
    if (chars > MAX_JSON_CHARS)
      throw new InvalidArgumentError(
        `--json: ${slots} slot(s) of ${prbs} resource blocks at ${nt}x${nr} would be up to ${chars} characters of JSON, past the ${MAX_JSON_CHARS} one file takes: give fewer --slots or --prbs, or call generateChannels() for the numbers`,
        { option: '--slots', value: slots, limit: MAX_JSON_CHARS },
      );
  }
  const r = generateChannels({ model: channel, channelOptions, nt, nr, scs, prbs, slots, seed, drop });
  if (v.json !== undefined) await writeOutput(v.json, channelsJson(r));
  let p = 0;
  for (const x of r.H) p += x * x;
  const res = r.H.length / 2;
  process.stderr.write(
    `channels: ${r.model} ${nt}x${nr}, ${r.slots} slot(s) x ${r.symbols} symbols x ${r.subcarriers} subcarriers at ${scs / 1e3} kHz, seed ${seed} drop ${drop}: mean |h|^2 ${(p / res).toFixed(4)}${v.json !== undefined && v.json !== '-' ? `; wrote ${v.json}` : ''}\n`,
  );
  return 0;
}
