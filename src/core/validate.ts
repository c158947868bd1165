/** Input validation shared by every part: finite data, shapes, option ranges. */
import { InvalidArgumentError, InvalidInputError } from './errors.js';

export function assertFinite(a: ArrayLike<number>, what: string): void {
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    if (!Number.isFinite(v)) {
      throw new InvalidInputError(
        'NON_FINITE',
        `${what} contains ${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'} at element ${i}`,
        { index: i },
      );
    }
  }
}

export function assertPositiveInt(v: unknown, what: string): asserts v is number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
    throw new InvalidArgumentError(`${what} must be a positive integer, got ${String(v)}`);
}

/** Value in an open/closed interval; `range` is written for the message, e.g. "(0.25, 1)". */
export function assertInRange(
  v: unknown,
  what: string,
  lo: number,
  hi: number,
  loOpen: boolean,
  hiOpen: boolean,
): asserts v is number {
  const ok = typeof v === 'number' && Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi);
  if (!ok) {
    const range = `${loOpen ? '(' : '['}${lo}, ${hi}${hiOpen ? ')' : ']'}`;
    throw new InvalidArgumentError(`${what} must be in ${range}, got ${String(v)}`);
  }
}

export function assertOneOf<T extends string>(v: unknown, what: string, allowed: readonly T[]): asserts v is T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new InvalidArgumentError(`unknown ${what} '${String(v)}' (expected one of: ${allowed.join(', ')})`);
  }
}
