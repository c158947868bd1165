/**
 * Options objects, checked strictly. Every entry point that takes an options object declares its
 * keys as an OptionSchema (the key's check, one line of documentation, and its command-line flag
 * where it has one); checkOptions() then refuses what a demanding user would not want to pass
 * silently: an options value that is not an object (null, a number, an array), an unknown key (with
 * the nearest known one suggested: `algoritm` -> `algorithm`), and a value of the wrong type or out
 * of range, each an InvalidArgumentError naming the option (`details.option`). The same
 * declarations give the command line its flags and help lines, so a registry entry that owns its
 * options owns them everywhere.
 */
import { InvalidArgumentError } from './errors.js';
import { show } from './show.js';

/**
 * Checks one option's value (never undefined: an absent option is not checked) and returns it,
 * possibly normalised; throws InvalidArgumentError naming `path` ("reduce() option delta").
 */
export type Check<T> = (v: unknown, path: string) => T;

/** What kind of value a check takes, for the command line (which parses text into it) and help. */
export type ValueKind = 'integer' | 'number' | 'choice' | 'boolean' | 'string' | 'function' | 'object' | 'other';

/** A check with what the command line and help need to know about the values it takes. */
export interface ValueCheck<T> {
  readonly check: Check<T>;
  readonly kind: ValueKind;
  /** integer / number: the range, as a reader writes it ("[1, 65536]", "(0, 1)"). */
  readonly range?: string;
  /** choice: the words allowed. */
  readonly choices?: readonly string[];
  /** arrayOf: the check of each element (the command line reads a comma list of them). */
  readonly item?: ValueCheck<unknown>;
  /** object: the nested keys (the command line may give each its own flag). */
  readonly fields?: OptionSchema;
  /**
   * How the command line reads a flag's text into a value for `check`, where the kind's reading
   * does not fit (a complex number written `0.7@30`); `readNumber` reads a decimal number, refusing
   * anything else naming the flag. Text it cannot read it returns as it is, for `check` to refuse.
   */
  readonly parse?: (text: string, readNumber: (text: string) => number) => unknown;
}

/** The command-line flag of an option. */
export interface CliFlag {
  /** The long flag without dashes: 'max-nodes'. */
  readonly flag: string;
  /** The value's placeholder in help ('N', 'K', 'X'); absent for a boolean switch. */
  readonly metavar?: string;
}

/** One option: its check, its documentation, and its flag where it has one. */
export interface OptionSpec<T = unknown> extends ValueCheck<T> {
  /** One line: what it does, its unit (help text, API docs, error messages). */
  readonly doc: string;
  /** Its value when absent, shown in help ("default 8"). */
  readonly default?: T;
  /** Its command-line flag, when the commands take it. */
  readonly cli?: CliFlag;
  /** The call needs it: checkOptions refuses an options object without it. */
  readonly required?: boolean;
}

/** The keys an options object may hold. */
// biome-ignore lint/suspicious/noExplicitAny: a schema holds specs of every value type
export type OptionSchema = Readonly<Record<string, OptionSpec<any>>>;

/** The schema of an options interface: one spec per key, of the key's value type (a registry entry's options). */
export type SchemaOf<O> = { readonly [K in keyof O]-?: OptionSpec<Exclude<O[K], undefined>> };

/**
 * true when an options interface and its schema name the same keys, else never: a
 * `const _check: SameKeys<Options, typeof SCHEMA> = true` stops the build when one gains a key.
 */
export type SameKeys<O, S> = [keyof O, keyof S] extends [keyof S, keyof O] ? true : never;

/** The options object a schema describes: every key optional, of its check's type. */
export type OptionsOf<S extends OptionSchema> = {
  -readonly [K in keyof S]?: S[K] extends OptionSpec<infer T> ? T : never;
};

/** An option described by its check and documentation (and flag). */
export function option<T>(
  value: ValueCheck<T>,
  doc: string,
  more: { default?: NoInfer<T>; cli?: CliFlag; required?: boolean } = {},
): OptionSpec<T> {
  return { ...value, doc, ...more };
}

const fail = (path: string, want: string, v: unknown): never => {
  const at = path.lastIndexOf(' option ');
  throw new InvalidArgumentError(`${path} must be ${want}, got ${show(v)}`, {
    option: at < 0 ? path : path.slice(at + 8),
    value: safeValue(v),
  });
};

/** The value itself for details when it is a primitive that JSON can carry (objects may be large or cyclic). */
function safeValue(v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  return v === null || (typeof v !== 'object' && typeof v !== 'function') ? v : Object.prototype.toString.call(v);
}

const rangeText = (lo: number, hi: number, loOpen: boolean, hiOpen: boolean): string =>
  `${loOpen ? '(' : '['}${lo}, ${hi}${hiOpen ? ')' : ']'}`;

/** A safe integer in [min, max]. */
export function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): ValueCheck<number> {
  const range = rangeText(min, max, false, false);
  return {
    kind: 'integer',
    range,
    check: (v, path) =>
      typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max
        ? v
        : fail(path, `an integer in ${range}`, v),
  };
}

/** A finite number in a range whose ends may be open ({ min: 0, minOpen: true }: x > 0). */
export function number(
  r: { min?: number; max?: number; minOpen?: boolean; maxOpen?: boolean } = {},
): ValueCheck<number> {
  const min = r.min ?? -Number.MAX_VALUE,
    max = r.max ?? Number.MAX_VALUE;
  const lo = r.minOpen ?? false,
    hi = r.maxOpen ?? false;
  const range = r.min === undefined && r.max === undefined ? '' : rangeText(min, max, lo, hi);
  return {
    kind: 'number',
    ...(range ? { range } : {}),
    check: (v, path) =>
      typeof v === 'number' && Number.isFinite(v) && (lo ? v > min : v >= min) && (hi ? v < max : v <= max)
        ? v
        : fail(path, range ? `a finite number in ${range}` : 'a finite number', v),
  };
}

/** One of a fixed set of words. */
export function choice<T extends string>(choices: readonly T[]): ValueCheck<T> {
  return {
    kind: 'choice',
    choices,
    check: (v, path) =>
      typeof v === 'string' && (choices as readonly string[]).includes(v)
        ? (v as T)
        : fail(path, `one of ${choices.join(', ')}`, v),
  };
}

/** true or false. */
export function boolean(): ValueCheck<boolean> {
  return { kind: 'boolean', check: (v, path) => (typeof v === 'boolean' ? v : fail(path, 'true or false', v)) };
}

/** Any string (non-empty unless allowed). */
export function string(allowEmpty = false): ValueCheck<string> {
  return {
    kind: 'string',
    check: (v, path) =>
      typeof v === 'string' && (allowEmpty || v.length > 0)
        ? v
        : fail(path, allowEmpty ? 'a string' : 'a non-empty string', v),
  };
}

/** A function (a callback). */
// biome-ignore lint/complexity/noBannedTypes: any callable is accepted; the caller's type narrows it
export function callback<T extends Function>(): ValueCheck<T> {
  return { kind: 'function', check: (v, path) => (typeof v === 'function' ? (v as T) : fail(path, 'a function', v)) };
}

/** An instance of a class (an AbortSignal, a typed array kind). */
export function instanceOf<T>(ctor: abstract new (...args: never[]) => T, name = ctor.name): ValueCheck<T> {
  return { kind: 'other', check: (v, path) => (v instanceof ctor ? v : fail(path, `a ${name}`, v)) };
}

/** An array whose every element passes `item` (and whose length lies in [minLength, maxLength]). */
export function arrayOf<T>(item: ValueCheck<T>, minLength = 0, maxLength = Number.MAX_SAFE_INTEGER): ValueCheck<T[]> {
  return {
    kind: 'other',
    item,
    check: (v, path) => {
      if (!Array.isArray(v)) return fail(path, 'an array', v);
      if (v.length < minLength || v.length > maxLength) {
        return fail(path, `an array of ${minLength} to ${maxLength} elements`, `${v.length} elements`);
      }
      return v.map((x, i) => item.check(x, `${path}[${i}]`));
    },
  };
}

/** A nested options object, checked by its own schema. */
export function object<S extends OptionSchema>(schema: S): ValueCheck<OptionsOf<S>> {
  return {
    kind: 'object',
    fields: schema,
    check: (v, path) => {
      // path: "<call> option <key>": the nested keys are named <key>.<nested key>
      const at = path.lastIndexOf(' option ');
      return at < 0
        ? checkOptions(v, schema, path)
        : checkOptions(v, schema, path.slice(0, at), `${path.slice(at + 8)}.`);
    },
  };
}

/** Any value `ok` accepts, described as `want` in messages ("a non-empty array", "an AbortSignal"). */
export function satisfying<T>(want: string, ok: (v: unknown) => boolean, kind: ValueKind = 'other'): ValueCheck<T> {
  return { kind, check: (v, path) => (ok(v) ? (v as T) : fail(path, want, v)) };
}

/**
 * The InvalidArgumentError of an option given where it does not apply (blockSize with lll): it
 * names the option and says why, so that a value that would be ignored is never taken silently.
 */
export function inapplicable(call: string, key: string, why: string): InvalidArgumentError {
  return new InvalidArgumentError(`${call}: option '${key}' does not apply: ${why}`, {
    option: key,
    reason: 'inapplicable',
  });
}

/** The first check that accepts the value (for options that take, e.g., a number or an array). */
export function either<A, B>(a: ValueCheck<A>, b: ValueCheck<B>, want: string): ValueCheck<A | B> {
  return {
    kind: 'other',
    check: (v, path) => {
      try {
        return a.check(v, path);
      } catch {
        try {
          return b.check(v, path);
        } catch {
          return fail(path, want, v);
        }
      }
    },
  };
}

/**
 * Checks an options object against its schema and returns a copy holding the checked values of
 * the keys given (absent and undefined keys are left out). `call` names the call or the enclosing
 * option in messages ('reduce()', 'detect() option psd'). undefined is an empty object; anything
 * else that is not a plain object, an unknown key, or a bad value is an InvalidArgumentError
 * naming the option.
 */
export function checkOptions<S extends OptionSchema>(
  value: unknown,
  schema: S,
  call: string,
  prefix = '',
): OptionsOf<S> {
  if (value === undefined) {
    missingRequired({}, schema, call, prefix);
    return {};
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const what = prefix ? `${call} option ${prefix.slice(0, -1)}` : `${call} options`;
    throw new InvalidArgumentError(`${what} must be an object, got ${show(value)}`, {
      option: prefix.slice(0, -1) || call,
    });
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const spec = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (spec === undefined) {
      const near = nearest(key, Object.keys(schema));
      throw new InvalidArgumentError(
        `${call}: unknown option '${prefix}${key}'${near ? ` (did you mean '${prefix}${near}'?)` : ''}; the options are ${Object.keys(schema).join(', ')}`,
        { option: `${prefix}${key}`, ...(near ? { suggestion: `${prefix}${near}` } : {}) },
      );
    }
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = spec.check(v, `${call} option ${prefix}${key}`);
  }
  missingRequired(out, schema, call, prefix);
  return out as OptionsOf<S>;
}

/** InvalidArgumentError naming the first required key of the schema that `out` lacks. */
function missingRequired(out: Record<string, unknown>, schema: OptionSchema, call: string, prefix: string): void {
  for (const [key, spec] of Object.entries(schema)) {
    if (spec.required && out[key] === undefined) {
      throw new InvalidArgumentError(`${call}: option '${prefix}${key}' is required (${spec.doc})`, {
        option: `${prefix}${key}`,
      });
    }
  }
}

/** The known key nearest to `key` (edit distance at most a third of its length, at least 1), or null. */
export function nearest(key: string, known: readonly string[]): string | null {
  let best: string | null = null,
    bestD = Math.max(1, Math.floor(key.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

/** Levenshtein distance (insertions, deletions, substitutions, and swaps of neighbours). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
