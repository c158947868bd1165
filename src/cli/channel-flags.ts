/**
 * The channel model's choice and parameters on the command line (`--channel MODEL` and the flags
 * the models' schemas declare), shared by `simulate` and `channels`.
 */
import { CHANNEL_MODELS, type ChannelModel, channelEntry, DEFAULT_CHANNEL_MODEL } from '../channels/index.js';
import { InvalidArgumentError, type OptionSchema } from '../core/index.js';
import { choiceOption } from './args.js';
import {
  entryFlags,
  flagHelp,
  givenFlags,
  helpLine,
  optionsFromFlags,
  parseFlags,
  type SchemaFlag,
} from './option-flags.js';

/** The channel models' parameter flags, from their entries' schemas. */
export function channelFlags(): SchemaFlag[] {
  return entryFlags(CHANNEL_MODELS as readonly string[], (m) => channelEntry(m)!.options as OptionSchema);
}

/** The models that own a flag, a family written once ('tdl-*') where every member of it does. */
export function ownersText(owners: readonly string[]): string {
  const out: string[] = [];
  for (const m of owners) {
    const family = m.includes('-') ? m.slice(0, m.indexOf('-') + 1) : null;
    const members = family ? CHANNEL_MODELS.filter((x) => x.startsWith(family)) : [];
    if (family && members.length > 1 && members.every((x) => owners.includes(x))) {
      if (!out.includes(`${family}*`)) out.push(`${family}*`);
    } else out.push(m);
  }
  return out.join(', ');
}

/** Help lines: --channel, each model flag (with the models that take it), then the models. */
export function channelHelp(column: number): { flags: string; models: string } {
  const line = (left: string, text: string) => helpLine(left, text, column);
  return {
    flags: [
      line('--channel MODEL', `the channel model, one of those below (default ${DEFAULT_CHANNEL_MODEL})`),
      ...channelFlags().map((f) => flagHelp(f, `${ownersText(f.owners!)} only`, column)),
    ].join('\n'),
    models: CHANNEL_MODELS.map((m) => line(m, channelEntry(m)!.description)).join('\n'),
  };
}

/**
 * The model and its parameters from parsed flags: a flag of another model than the chosen one is an
 * InvalidArgumentError naming the flag and its owners (the values are checked by the model later).
 * `modelFlag` is the flag naming the model (`channel`, or `model` for `lattice-mimo channels`).
 */
export function channelFromFlags(
  values: Readonly<Record<string, string | boolean | undefined>>,
  flags: readonly SchemaFlag[],
  modelFlag = 'channel',
): { channel: ChannelModel; channelOptions: Record<string, unknown> } {
  const channel = choiceOption(
    modelFlag,
    values[modelFlag] as string | undefined,
    CHANNEL_MODELS,
    DEFAULT_CHANNEL_MODEL,
  );
  const set = givenFlags(values, flags);
  for (const f of set) {
    if (!f.owners!.includes(channel))
      throw new InvalidArgumentError(
        `--${f.flag} does not apply: it is a parameter of ${ownersText(f.owners!)}, not of ${channel}`,
        { option: `--${f.flag}`, channel },
      );
  }
  return { channel, channelOptions: optionsFromFlags(parseFlags(values, set)) };
}
