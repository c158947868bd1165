/**
 * The detector options of the `detect` and `simulate` commands, generated from the detector
 * registry (src/mimo/registry.ts): every flag is an option's spec (its CliFlag, the kind of value
 * it takes, its doc line and default), from the common options a command takes and from every
 * entry's own options (a nested option such as psd's gives a flag per field: --psd-levels). The
 * `--detector` list syntax (`kbest:8`) reads the entries' list arguments, and the help lines and
 * the errors for options that do not apply are written from the same specs and traits. So a new
 * detector's options reach both commands without an edit here.
 */
import { InvalidArgumentError, type OptionSchema, type OptionSpec } from '../core/index.js';
import {
  COMMON_DETECT_OPTIONS,
  type CommonDetectOptions,
  type CommonOptionSpec,
  type Detector,
  DETECTORS,
  detectorEntry,
  detectorsWhere,
  inapplicableReason,
} from '../mimo/index.js';
import type { SimDetector } from '../sim/index.js';
import {
  entryFlags,
  flagHelp,
  flagsOf,
  fromText,
  helpLine,
  optionsFromFlags,
  type SchemaFlag,
} from './option-flags.js';

/** One command-line flag of a detector option (owners: the detectors whose entries declare it; null: a common option). */
export type DetectorFlag = SchemaFlag<Detector>;

/**
 * The detector flags of a command: those of the common options it names (`detector` and
 * `modulation` are each command's own business and never generated), then every entry's own
 * options in registry order (an option several entries share is one flag).
 */
export function detectorFlags(common: readonly (keyof CommonDetectOptions)[]): DetectorFlag[] {
  return [
    ...common.flatMap((key) => flagsOf<Detector>(COMMON_DETECT_OPTIONS[key] as OptionSpec, [key], null)),
    ...entryFlags(DETECTORS, (d) => detectorEntry(d)!.options as OptionSchema),
  ];
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
  return optionsFromFlags(parsed, (f) => flagReason(f, detector) === null);
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
      return flagHelp(f, who, column);
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
