/**
 * Command-line flags generated from option schemas (core/options.ts): an option with a CliFlag is a
 * flag, a nested option (core's object()) gives its fields' flags, and the flag's text is read as
 * its value kind wants it (a number, a word, a comma list) and then checked by the option's own
 * check, so the command line refuses what the API refuses, with the same ranges. Registry entries
 * (detectors, channel models) declare their options once; the commands read them from here.
 */
import type { OptionSchema, OptionSpec, ValueCheck } from '../core/index.js';
import { numberOption } from './values.js';
import type { OptionSpecs } from './args.js';

/** One command-line flag of an option. */
export interface SchemaFlag<Owner extends string = string> {
  /** The long flag without dashes: 'max-nodes', 'psd-levels'. */
  readonly flag: string;
  /** The value's placeholder in help; absent for a switch. */
  readonly metavar?: string;
  /** Where its value goes in the options object: ['k'], or ['psd', 'levels'] for a nested field. */
  readonly path: readonly string[];
  /** The spec of the value it sets (the nested field's for a nested option). */
  readonly spec: OptionSpec;
  /** The registry entries that declare the option, or null for an option every entry takes. */
  readonly owners: readonly Owner[] | null;
}

/** The flags of a spec at `path`: its own, or its nested fields' (an option without a flag has none). */
export function flagsOf<Owner extends string>(
  spec: OptionSpec,
  path: string[],
  owners: readonly Owner[] | null,
): SchemaFlag<Owner>[] {
  if (spec.cli) return [{ flag: spec.cli.flag, metavar: spec.cli.metavar, path, spec, owners }];
  const fields: OptionSchema | undefined = spec.fields;
  if (!fields) return [];
  return Object.entries(fields).flatMap(([k, s]) => flagsOf(s, [...path, k], owners));
}

/**
 * The flags of the options of registry entries, in registry order (an option several entries share,
 * with the same spec, is one flag; a flag declared twice is a bug).
 */
export function entryFlags<Owner extends string>(
  entries: readonly Owner[],
  optionsOf: (owner: Owner) => OptionSchema,
): SchemaFlag<Owner>[] {
  const flags: SchemaFlag<Owner>[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    for (const [key, spec] of Object.entries(optionsOf(e))) {
      if (seen.has(key)) continue;
      seen.add(key);
      flags.push(
        ...flagsOf(
          spec,
          [key],
          entries.filter((o) => Object.hasOwn(optionsOf(o), key)),
        ),
      );
    }
  }
  return flags;
}

/** The parseCommandLine specs of a command: its own options and generated flags (a clash is a bug). */
export function withFlags<S extends OptionSpecs>(own: S, ...groups: (readonly SchemaFlag[])[]): S & OptionSpecs {
  const specs: Record<string, OptionSpecs[string]> = { ...own };
  for (const f of groups.flat()) {
    if (Object.hasOwn(specs, f.flag)) throw new Error(`internal: the flag --${f.flag} is declared twice`);
    specs[f.flag] = { type: f.spec.kind === 'boolean' ? 'boolean' : 'string' };
  }
  return specs as S & OptionSpecs;
}

/** A word of the command line as the value kind of `check` wants it (before the check). */
export function fromText(check: ValueCheck<unknown>, text: string, flag: string): unknown {
  if (check.parse) return check.parse(text, (t) => numberOption(flag, t)!);
  if (check.kind === 'integer' || check.kind === 'number') return numberOption(flag, text);
  if (check.item) {
    const item = check.item;
    return text.split(',').map((t) => fromText(item, t.trim(), flag));
  }
  return text;
}

/** The value of a flag's text, checked by the option's spec (InvalidArgumentError naming the flag). */
export function parseFlagValue(f: SchemaFlag, text: string | boolean): unknown {
  if (typeof text === 'boolean') return f.spec.check(text, `--${f.flag}`);
  return f.spec.check(fromText(f.spec, text, f.flag), `--${f.flag}`);
}

/** The flags given a value on a command line. */
export function givenFlags<F extends SchemaFlag>(
  values: Readonly<Record<string, string | boolean | undefined>>,
  flags: readonly F[],
): F[] {
  return flags.filter((f) => values[f.flag] !== undefined);
}

/** The given flags' values, parsed and checked: flag -> value. */
export function parseFlags<F extends SchemaFlag>(
  values: Readonly<Record<string, string | boolean | undefined>>,
  given: readonly F[],
): Map<F, unknown> {
  return new Map(given.map((f) => [f, parseFlagValue(f, values[f.flag]!)]));
}

/** The parsed flags' values at their paths in an options object (for the flags `keep` keeps). */
export function optionsFromFlags<F extends SchemaFlag>(
  parsed: ReadonlyMap<F, unknown>,
  keep: (f: F) => boolean = () => true,
): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [f, value] of parsed) {
    if (!keep(f)) continue;
    let at = o;
    for (const key of f.path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[f.path[f.path.length - 1]!] = value;
  }
  return o;
}

/** Words greedily packed into lines of at most `width` characters (a longer word stands alone). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/**
 * A help line: `  --flag METAVAR` padded to `column` characters, then the text wrapped at `width`
 * columns under itself (the text starts on the next line when the left part reaches the column).
 */
export function helpLine(left: string, text: string, column: number, width = 100): string {
  const head = `  ${left}`;
  const indent = ' '.repeat(column);
  const body = wrapWords(text, width - column);
  if (head.length < column) return [head.padEnd(column) + body[0], ...body.slice(1).map((l) => indent + l)].join('\n');
  return [head, ...body.map((l) => indent + l)].join('\n');
}

/** A flag's help line: `who` (whose option it is), its doc line and its default. */
export function flagHelp(f: SchemaFlag, who: string, column: number): string {
  const def = f.spec.default !== undefined ? ` (default ${String(f.spec.default)})` : '';
  return helpLine(
    `--${f.flag}${f.metavar ? ` ${f.metavar}` : ''}`,
    `${who ? `${who}: ` : ''}${f.spec.doc}${def}`,
    column,
  );
}
