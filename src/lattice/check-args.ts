/**
 * The arguments of the exported checks (checkLLL, gramSchmidt, applyTransform, ...): sizes that are
 * positive integers, arrays of exactly their size, parameters in range. Each is an
 * InvalidArgumentError naming the call and the argument (details.option), where a wrong argument
 * would otherwise read past an array's end and answer for data that is not there.
 */
import { InvalidArgumentError, show } from '../core/index.js';

/** Columns a check takes at most (its m x m arrays must fit a typed array). */
const MAX_SIZE = 1 << 16;

/** n and m: positive integers (each at most 2^16). */
export function checkSizes(call: string, n: unknown, m: unknown): void {
  for (const [name, v] of [
    ['n', n],
    ['m', m],
  ] as const) {
    if (!(typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_SIZE))
      throw new InvalidArgumentError(`${call}: ${name} must be an integer in [1, ${MAX_SIZE}], got ${show(v)}`, {
        option: name,
      });
  }
}

/** An array of numbers (an Array or a typed array) of exactly `length` entries. */
export function checkArray(call: string, name: string, a: unknown, length: number, shape: string): void {
  const ok = Array.isArray(a) || (ArrayBuffer.isView(a) && !(a instanceof DataView));
  const have = ok ? (a as ArrayLike<number>).length : -1;
  if (have !== length)
    throw new InvalidArgumentError(
      `${call}: ${name} must be an array of ${shape} = ${length} numbers, got ${ok ? `${have} entries` : show(a)}`,
      { option: name, expected: length, ...(ok ? { length: have } : {}) },
    );
}

/** A finite number in [lo, hi] (or with open ends). */
export function checkParam(
  call: string,
  name: string,
  v: unknown,
  lo: number,
  hi: number,
  loOpen = false,
  hiOpen = false,
): void {
  const ok = typeof v === 'number' && Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi);
  if (!ok)
    throw new InvalidArgumentError(
      `${call}: ${name} must be a finite number in ${loOpen ? '(' : '['}${lo}, ${hi}${hiOpen ? ')' : ']'}, got ${show(v)}`,
      { option: name },
    );
}
