/**
 * The command line's number parsers, one grammar for every subcommand: decimal only (an optional
 * sign, digits with an optional fraction, an optional decimal exponent: `12`, `-0.5`, `.5`, `1e6`,
 * `2.5E-3`). JavaScript's Number() would also take `0x10`, `0o7`, `0b1`, `Infinity`, `''` and
 * `' 1 '`; each of those is an InvalidArgumentError naming the option and saying why, as are
 * trailing characters (`1,5`, `10k`) and values a double cannot hold (`1e400`; `1e-400`, which
 * would be read as 0).
 *
 * Integers are judged on the text, exactly: `1e6` and `1000000` are the same integer, `1.5e1` is
 * 15, `0.99999999999999999999` is not an integer (though it rounds to 1), and `1e20` and
 * `100000000000000000000` are refused alike, past 2^53 - 1 (a double holds no larger integer
 * exactly). Every error carries `details` {option, value, ...}.
 */
import { InvalidArgumentError } from '../core/index.js';

/** A decimal number as the command line takes it. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** The longest decimal prefix of a text (to name what trails it). */
const DECIMAL_PREFIX = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;

/** Why `text` is not a decimal number, in words (the caller knows it is not). */
function notDecimal(text: string): string {
  if (text === '') return 'an empty value';
  if (text.trim() === '') return 'only white space';
  if (text.trim() !== text) return 'white space around the number';
  if (/^[+-]?0[xob]/i.test(text)) return 'hexadecimal, octal and binary are not accepted: decimal digits only';
  if (/^[+-]?(?:inf(?:inity)?|nan)$/i.test(text)) return 'not a finite number';
  const prefix = DECIMAL_PREFIX.exec(text);
  if (prefix) return `'${text.slice(prefix[0].length)}' after the number`;
  return 'not a decimal number';
}

function fail(name: string, text: string, what: string, reason?: string, extra: Record<string, unknown> = {}): never {
  throw new InvalidArgumentError(`--${name} must be ${what}, got '${text}'${reason ? ` (${reason})` : ''}`, {
    option: `--${name}`,
    value: text,
    ...extra,
  });
}

/**
 * A finite decimal number. `what` says what the option wants ("a number", "a number > 0") in the
 * message of a value that is not one.
 */
export function parseDecimal(name: string, text: string, what = 'a decimal number'): number {
  if (!DECIMAL.test(text)) fail(name, text, what, notDecimal(text));
  const v = Number(text);
  if (!Number.isFinite(v)) fail(name, text, what, 'past the largest double, about 1.8e308');
  // a nonzero digit before the exponent, read as 0: the value the user wrote is lost
  if (v === 0 && /[1-9]/.test(text.replace(/[eE].*$/, '')))
    fail(name, text, what, 'below the smallest double, about 4.9e-324: it would be read as 0');
  return v === 0 ? 0 : v;
}

/**
 * The integer a decimal text denotes, exactly: a bigint, 'fraction' when it is not an integer,
 * or 'huge' when it has more than 20 digits (far past 2^53). `text` matches DECIMAL.
 */
function exactInteger(text: string): bigint | 'fraction' | 'huge' {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const frac = m[3] ?? '';
  let digits = `${m[2]}${frac}`.replace(/^0+/, '');
  if (digits === '') return 0n;
  // an exponent of many digits: far out either way (only its sign matters)
  const expText = m[4] ?? '0';
  if (expText.replace(/^[+-]?0*/, '').length > 6) return expText.startsWith('-') ? 'fraction' : 'huge';
  let scale = Number(expText) - frac.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  scale += trailing;
  if (scale < 0) return 'fraction';
  if (digits.length + scale > 20) return 'huge';
  const v = BigInt(digits) * 10n ** BigInt(scale);
  return m[1] === '-' ? -v : v;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An integer in [min, max] (max at most 2^53 - 1); exponent and digit forms alike. */
export function parseInteger(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const top = Math.min(max, Number.MAX_SAFE_INTEGER);
  const what =
    top < Number.MAX_SAFE_INTEGER
      ? `an integer in [${min}, ${top}]`
      : min > Number.MIN_SAFE_INTEGER
        ? `an integer >= ${min}`
        : 'an integer';
  const range = { min, max: top };
  if (!DECIMAL.test(text)) fail(name, text, what, notDecimal(text), range);
  const v = exactInteger(text);
  if (v === 'fraction') fail(name, text, what, 'not a whole number', range);
  if (v === 'huge' || v > SAFE || v < -SAFE)
    fail(name, text, what, 'integers past 2^53 - 1 = 9007199254740991 are not exact in a double', range);
  const n = Number(v);
  if (n < min || n > top) fail(name, text, what, undefined, range);
  return n;
}

/** An integer option in [min, max], or `fallback` when not given. */
export function intOption(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  return text === undefined ? fallback : parseInteger(name, text, min, max);
}

/** A finite decimal number option, with an optional strict lower bound; undefined when not given. */
export function numberOption(
  name: string,
  text: string | undefined,
  opts: { above?: number } = {},
): number | undefined {
  if (text === undefined) return undefined;
  const what = opts.above !== undefined ? `a number > ${opts.above}` : 'a finite number';
  const v = parseDecimal(name, text, what);
  if (opts.above !== undefined && !(v > opts.above)) fail(name, text, what);
  return v;
}

/**
 * A comma list of integers, each as parseInteger takes it (white space around an item is allowed,
 * as in every list of the command line); at most `maxItems` items.
 */
export function intListOption(name: string, text: string, min: number, max: number, maxItems = 64): number[] {
  const items = text.split(',').map((t) => t.trim());
  if (items.length > maxItems)
    throw new InvalidArgumentError(
      `--${name} must be a comma list of at most ${maxItems} integers, got ${items.length}`,
      {
        option: `--${name}`,
        value: text,
      },
    );
  return items.map((t) => parseInteger(name, t, min, max));
}

/**
 * Checks the numbers of an SNR list (`start:step:stop` or `a,b,c`) against the decimal grammar,
 * naming the option and the item; the list's own rules (points, step) are parseSnrList's.
 */
export function checkSnrNumbers(name: string, text: string): void {
  const items = text.includes(':') ? text.split(':') : text.split(',');
  for (const item of items) {
    const t = item.trim();
    if (!DECIMAL.test(t))
      fail(name, text, 'start:step:stop or a comma list of decimal numbers (dB)', `'${t}': ${notDecimal(t)}`);
    parseDecimal(name, t, 'a list of finite numbers');
  }
}
