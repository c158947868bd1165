/**
 * The command-line layer every subcommand shares: GNU-style long options (`--snr -4:2:0`,
 * `--snr=-4:2:0`), one-letter short options (`-d 0.99`), extra spellings (fplll's `-of`), `--` to end
 * the options, and `-` as a positional (stdin / stdout); getopt's `-d0.99` and `-vh`. A string option always takes the next word
 * as its value, even one that starts with '-', so negative numbers work as they do with getopt_long;
 * node:util parseArgs refuses them, and minimist reads `-4` as a flag. Unknown options, missing
 * values and extra positionals are InvalidArgumentErrors naming the word at fault.
 */
import { InvalidArgumentError } from '../core/index.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** One letter: `-x`. */
  short?: string;
  /** Other exact spellings, e.g. '-of'. */
  aliases?: readonly string[];
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export type OptionValues<S extends OptionSpecs> = {
  [K in keyof S]?: S[K]['type'] extends 'boolean' ? boolean : string;
};

export interface ParsedArgs<S extends OptionSpecs> {
  values: OptionValues<S>;
  positionals: string[];
  /** Options given, by their long names, in command-line order (a repeated one appears once per use). */
  given: (keyof S & string)[];
}

export interface ParseSettings {
  /** The subcommand, for messages ("simulate"). */
  command: string;
  /** Most positionals allowed (default 0). */
  maxPositionals?: number;
  /** Where a refused word sends the user (default: `lattice-mimo <command> --help`). */
  help?: string;
}

/**
 * Parses argv (the words after the subcommand) against `specs`. A repeated option keeps its last
 * value, as most Unix tools do. One-letter options take getopt's forms too: the value glued to the
 * letter (`-d0.99`) and flags together (`-vh`); `-d=0.99` is refused, naming the value getopt would
 * read ('=0.99'). A long option is never abbreviated; an unknown one that starts a single option's
 * name is named in the message.
 */
export function parseCommandLine<S extends OptionSpecs>(
  argv: readonly string[],
  specs: S,
  settings: ParseSettings,
): ParsedArgs<S> {
  const byWord = new Map<string, string>();
  const byLetter = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) {
    byWord.set(`--${name}`, name);
    if (spec.short !== undefined) {
      byWord.set(`-${spec.short}`, name);
      byLetter.set(spec.short, name);
    }
    for (const a of spec.aliases ?? []) byWord.set(a, name);
  }
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  const given: string[] = [];
  const hint = `see ${settings.help ?? `'lattice-mimo ${settings.command} --help'`}`;
  const unknown = (key: string, word: string): InvalidArgumentError => {
    // a unique prefix of a long option: named, not taken (a later option could make it ambiguous)
    const near = key.startsWith('--') ? Object.keys(specs).filter((n) => n.startsWith(key.slice(2))) : [];
    const inWord = word !== key ? ` in '${word}'` : '';
    const guess = near.length === 1 ? `; did you mean --${near[0]}?` : '';
    return new InvalidArgumentError(`unknown option '${key}'${inWord} for ${settings.command} (${hint})${guess}`, {
      option: key,
    });
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (word === '-' || !word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    const take = (name: string, key: string, inline: string | undefined): void => {
      if (specs[name]!.type === 'boolean') {
        if (inline !== undefined)
          throw new InvalidArgumentError(`option ${key} takes no value, got '${word}'`, { option: key });
        values[name] = true;
      } else if (inline !== undefined) {
        values[name] = inline;
      } else {
        if (i + 1 >= argv.length)
          throw new InvalidArgumentError(`option ${key} needs a value (${hint})`, { option: key });
        values[name] = argv[++i]!;
      }
      given.push(name);
    };
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const key = eq >= 0 ? word.slice(0, eq) : word;
      const name = byWord.get(key);
      if (name === undefined) throw unknown(key, word);
      take(name, key, eq >= 0 ? word.slice(eq + 1) : undefined);
      continue;
    }
    // one dash: an exact spelling (-d, -h, fplll's -of), else getopt's forms: a value glued to its
    // letter (-d0.99) and letters of flags together (-vh, -vd0.99)
    const exact = byWord.get(word);
    if (exact !== undefined) {
      take(exact, word, undefined);
      continue;
    }
    const alias = [...byWord.keys()].find((k) => k.length > 2 && !k.startsWith('--') && word.startsWith(k));
    if (alias !== undefined)
      throw new InvalidArgumentError(
        `option ${alias} takes its value as the next word ('${alias} ${word.slice(alias.length).replace(/^=/, '')}'), got '${word}'`,
        { option: alias },
      );
    for (let c = 1; c < word.length; c++) {
      const key = `-${word[c]}`;
      const name = byLetter.get(word[c]!);
      if (name === undefined) {
        if (c > 1 && word[c] === '=')
          throw new InvalidArgumentError(`option -${word[c - 1]} takes no value, got '${word}'`, {
            option: `-${word[c - 1]}`,
          });
        throw unknown(key, word);
      }
      if (specs[name]!.type === 'boolean') {
        take(name, key, undefined);
        continue;
      }
      const rest = word.slice(c + 1);
      if (rest.startsWith('='))
        throw new InvalidArgumentError(
          `option ${key} takes its value as the next word or glued to it (${key} ${rest.slice(1)}, ${key}${rest.slice(1)}, --${name}=${rest.slice(1)}); in '${word}' the value would be '${rest}', as getopt reads it`,
          { option: key },
        );
      take(name, key, rest === '' ? undefined : rest);
      break;
    }
  }
  const max = settings.maxPositionals ?? 0;
  if (positionals.length > max) {
    throw new InvalidArgumentError(
      max === 0
        ? `${settings.command} takes no positional argument, got '${positionals[0]}' (${hint})`
        : `${settings.command} takes at most ${max} positional argument(s), got ${positionals.length}: ${positionals.map((p) => `'${p}'`).join(' ')}`,
    );
  }
  return { values: values as OptionValues<S>, positionals, given: given as (keyof S & string)[] };
}

/**
 * Refuses options that do not apply to what was asked (`--k` with zf): silence would let a typo or a
 * misunderstanding pass for a setting that took effect.
 */
export function rejectInapplicable(
  given: readonly string[],
  options: readonly string[],
  applies: boolean,
  why: string,
): void {
  if (applies) return;
  const used = options.filter((o) => given.includes(o));
  if (used.length > 0)
    throw new InvalidArgumentError(
      `${used.map((o) => `--${o}`).join(', ')} ${used.length === 1 ? 'does' : 'do'} not apply: ${why}`,
    );
}

/** One of a fixed set of words, or an InvalidArgumentError naming the option and the choices. */
export function choiceOption<T extends string>(
  name: string,
  text: string | undefined,
  choices: readonly T[],
  fallback: T,
): T;
export function choiceOption<T extends string>(
  name: string,
  text: string | undefined,
  choices: readonly T[],
): T | undefined;
export function choiceOption<T extends string>(
  name: string,
  text: string | undefined,
  choices: readonly T[],
  fallback?: T,
): T | undefined {
  if (text === undefined) return fallback;
  if (!(choices as readonly string[]).includes(text))
    throw new InvalidArgumentError(`--${name} must be one of ${choices.join(', ')}, got '${text}'`);
  return text as T;
}
