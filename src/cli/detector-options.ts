/**
 * The detector options of the `detect` and `simulate` commands, generated from the detector
 * registry (src/mimo/registry.ts): every flag is an option's spec (its CliFlag, the kind of value
 * it takes, its doc line and default), from the common options a command takes and from every
 * entry's own options (a nested option such as psd's gives a flag per field: --psd-levels). The
 * `--detector` list syntax (`kbest:8`) reads the entries' list arguments, and the help lines and
 * the errors for options that do not apply are written from the same specs and traits. So a new
 * detector's options reach both commands without an edit here.
 */
import { InvalidArgumentError, type OptionSchema, type OptionSpec, type ValueCheck } from '../core/index.js';
import {
  COMMON_DETECT_OPTIONS,
  type CommonDetectOptions,
  type CommonOptionSpec,
  type Detector,
  DETECTORS,
  detectorEntry,
  detectorsWhere,
  inapplicableReason,
  optionOwners,
} from '../mimo/index.js';
import { numberOption } from '../sim/cli-options.js';
import type { SimDetector } from '../sim/index.js';
import type { OptionSpecs } from './args.js';

/** One command-line flag of a detector option. */
export interface DetectorFlag {
  /** The long flag without dashes: 'max-nodes', 'psd-levels'. */
  readonly flag: string;
  /** The value's placeholder in help; absent for a switch. */
  readonly metavar?: string;
  /** Where its value goes in DetectOptions: ['k'], or ['psd', 'levels'] for a nested field. */
  readonly path: readonly string[];
  /** The spec of the value it sets (the nested field's for a nested option). */
  readonly spec: OptionSpec;
  /** The detectors whose entries declare the option, or null for a common option. */
  readonly owners: readonly Detector[] | null;
}

/** The flags of a spec at `path`: its own, or its nested fields' (an option without a flag has none). */
function flagsOf(spec: OptionSpec, path: string[], owners: readonly Detector[] | null): DetectorFlag[] {
  if (spec.cli) return [{ flag: spec.cli.flag, metavar: spec.cli.metavar, path, spec, owners }];
  const fields: OptionSchema | undefined = spec.fields;
  if (!fields) return [];
  return Object.entries(fields).flatMap(([k, s]) => flagsOf(s, [...path, k], owners));
}

/**
 * The detector flags of a command: those of the common options it names (`detector` and
 * `modulation` are each command's own business and never generated), then every entry's own
 * options in registry order (an option several entries share is one flag).
 */
export function detectorFlags(common: readonly (keyof CommonDetectOptions)[]): DetectorFlag[] {
  const flags: DetectorFlag[] = [];
  for (const key of common) flags.push(...flagsOf(COMMON_DETECT_OPTIONS[key] as OptionSpec, [key], null));
  const seen = new Set<string>();
  for (const d of DETECTORS) {
    for (const [key, spec] of Object.entries(detectorEntry(d)!.options as OptionSchema)) {
      if (seen.has(key)) continue;
      seen.add(key);
      flags.push(...flagsOf(spec, [key], optionOwners(key)));
    }
  }
  const byFlag = new Map<string, DetectorFlag>();
  for (const f of flags) {
    if (byFlag.has(f.flag)) throw new Error(`internal: detector flag --${f.flag} is declared twice`);
    byFlag.set(f.flag, f);
  }
  return flags;
}

/** The parseCommandLine specs of a command: its own options and its detector flags (a clash is a bug). */
export function withDetectorFlags<S extends OptionSpecs>(own: S, flags: readonly DetectorFlag[]): S & OptionSpecs {
  const specs: Record<string, OptionSpecs[string]> = { ...own };
  for (const f of flags) {
    if (Object.hasOwn(specs, f.flag))
      throw new Error(`internal: detector flag --${f.flag} clashes with a command option`);
    specs[f.flag] = { type: f.spec.kind === 'boolean' ? 'boolean' : 'string' };
  }
  return specs as S & OptionSpecs;
}

/** A word of the command line as the value kind of `check` wants it (before the check). */
function fromText(check: ValueCheck<unknown>, text: string, flag: string): unknown {
  if (check.kind === 'integer' || check.kind === 'number') return numberOption(flag, text);
  if (check.item) {
    const item = check.item;
    return text.split(',').map((t) => fromText(item, t.trim(), flag));
  }
  return text;
}

/** The value of a flag's text, checked by the option's spec (InvalidArgumentError naming the flag). */
export function parseFlagValue(f: DetectorFlag, text: string | boolean): unknown {
  if (typeof text === 'boolean') return f.spec.check(text, `--${f.flag}`);
  return f.spec.check(fromText(f.spec, text, f.flag), `--${f.flag}`);
}

/** The detector flags given a value on a command line. */
export function givenFlags(
  values: Readonly<Record<string, string | boolean | undefined>>,
  flags: readonly DetectorFlag[],
): DetectorFlag[] {
  return flags.filter((f) => values[f.flag] !== undefined);
}

/** The given flags' values, parsed and checked: flag -> value. */
export function parseDetectorFlags(
  values: Readonly<Record<string, string | boolean | undefined>>,
  given: readonly DetectorFlag[],
): Map<DetectorFlag, unknown> {
  return new Map(given.map((f) => [f, parseFlagValue(f, values[f.flag]!)]));
}

/** Why a flag does not apply to `detector`, or null when it does. */
function flagReason(f: DetectorFlag, detector: Detector): string | null {
  return inapplicableReason(f.path[0]!, detector) ?? null;
}

/** One detector's flags: each must apply to it (InvalidArgumentError saying why otherwise). */
export function checkFlagsApply(detector: Detector, given: readonly DetectorFlag[]): void {
  for (const f of given) {
    const why = flagReason(f, detector);
    if (why !== null)
      throw new InvalidArgumentError(`--${f.flag} does not apply: ${why}`, { option: `--${f.flag}`, reason: why });
  }
}

/** The options the parsed flags give `detector`: each flag that applies to it, at its path. */
export function flagOptions(detector: Detector, parsed: ReadonlyMap<DetectorFlag, unknown>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [f, value] of parsed) {
    if (flagReason(f, detector) !== null) continue;
    let at = o;
    for (const key of f.path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[f.path[f.path.length - 1]!] = value;
  }
  return o;
}

/** Who takes a flag, in words: 'kbest', 'sphere or psd', or a common option's holders with their names. */
function takers(f: DetectorFlag): string {
  if (f.owners) return f.owners.join(' or ');
  const rule = (COMMON_DETECT_OPTIONS as Record<string, CommonOptionSpec<unknown>>)[f.path[0]!]!.applies;
  return rule ? `${rule.holders} (${detectorsWhere((t) => rule.applies(t)).join(', ')})` : 'detectors';
}

/**
 * A list's flags: each given flag must apply to some detector of the list (InvalidArgumentError
 * naming the flag and who takes it otherwise).
 */
export function checkListFlags(detectors: readonly Detector[], given: readonly DetectorFlag[]): void {
  for (const f of given) {
    if (detectors.some((d) => flagReason(f, d) === null)) continue;
    throw new InvalidArgumentError(`--${f.flag} does not apply: no ${takers(f)} in --detector`, {
      option: `--${f.flag}`,
    });
  }
}

/** A detector name as the command line gives it (any case), or an InvalidArgumentError listing them. */
export function parseDetectorName(text: string): Detector {
  return COMMON_DETECT_OPTIONS.detector.check(text.trim().toLowerCase(), '--detector');
}

/** Longest --detector list. */
const MAX_LIST = 64;

/**
 * "zf,mmse,kbest:16,nway:2" -> detectors. `name:ARG` sets the option the entry's list argument
 * names (kbest:K, nway:N), so one run can compare several settings; the flags in `parsed` go to the
 * detectors they apply to, an item's own argument before them.
 */
export function parseDetectorList(text: string, parsed: ReadonlyMap<DetectorFlag, unknown>): SimDetector[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new InvalidArgumentError('--detector needs at least one detector name');
  if (items.length > MAX_LIST)
    throw new InvalidArgumentError(`--detector lists ${items.length} detectors (at most ${MAX_LIST})`);
  return items.map((item) => {
    const [name, arg, ...extra] = item.split(':');
    const detector = parseDetectorName(name!);
    const d = { detector, ...flagOptions(detector, parsed) } as SimDetector;
    if (arg === undefined) return d;
    const list = detectorEntry(detector)!.listArgument;
    if (extra.length > 0 || !list) {
      throw new InvalidArgumentError(`detector '${item}': only ${listForms().join(', ')} take a parameter`, {
        option: '--detector',
        value: item,
      });
    }
    const spec = detectorEntry(detector)!.options[list.option] as OptionSpec;
    const at = `detector ${detector}:${list.metavar}`;
    (d as unknown as Record<string, unknown>)[list.option] = spec.check(fromText(spec, arg, at), `--${at}`);
    return d;
  });
}

/** The list forms of the entries that have one: 'kbest:K', 'nway:N'. */
export function listForms(): string[] {
  return DETECTORS.flatMap((d) => {
    const l = detectorEntry(d)!.listArgument;
    return l ? [`${d}:${l.metavar}`] : [];
  });
}

/** The list forms and the options they set, for help: "kbest:K sets k, nway:N sets passes". */
export function listFormsHelp(): string {
  return DETECTORS.flatMap((d) => {
    const l = detectorEntry(d)!.listArgument;
    return l ? [`${d}:${l.metavar} sets ${l.option}`] : [];
  }).join(', ');
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

/** The help lines of detector flags: whose option each is (after a command's note), what it does, its default. */
export function detectorFlagsHelp(
  flags: readonly DetectorFlag[],
  column: number,
  notes: Readonly<Record<string, string>> = {},
): string {
  return flags
    .map((f) => {
      const who = [notes[f.flag] ?? '', f.owners ? `${f.owners.join(', ')} only` : takersOfCommon(f)]
        .filter(Boolean)
        .join(', ');
      const def = f.spec.default !== undefined ? ` (default ${String(f.spec.default)})` : '';
      return helpLine(
        `--${f.flag}${f.metavar ? ` ${f.metavar}` : ''}`,
        `${who ? `${who}: ` : ''}${f.spec.doc}${def}`,
        column,
      );
    })
    .join('\n');
}

/** A common option's holders for help ('soft detectors'), or '' when it applies to every detector. */
function takersOfCommon(f: DetectorFlag): string {
  const rule = (COMMON_DETECT_OPTIONS as Record<string, CommonOptionSpec<unknown>>)[f.path[0]!]!.applies;
  return rule ? `${rule.holders} (${detectorsWhere((t) => rule.applies(t)).join(', ')})` : '';
}

/** The detectors and their one-line descriptions, for help. */
export function detectorsHelp(column: number): string {
  return DETECTORS.map((d) => {
    const e = detectorEntry(d)!;
    const notes = [e.traits.soft ? 'soft' : '', e.listArgument ? `${d}:${e.listArgument.metavar}` : '']
      .filter(Boolean)
      .join('; ');
    return helpLine(d, `${e.description}${notes ? ` (${notes})` : ''}`, column);
  }).join('\n');
}
