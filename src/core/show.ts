/**
 * show(v): a value as an error message quotes it. Never throws, whatever v is (an object whose
 * toString is not a function, a cycle, a BigInt), so a bad option always gets its typed error.
 */
import { InvalidArgumentError } from './errors.js';

export function show(v: unknown): string {
  try {
    if (typeof v === 'string') return `'${v}'`;
    if (typeof v === 'object' && v !== null) return JSON.stringify(v) ?? Object.prototype.toString.call(v);
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** Asserts that v is one of the allowed strings (InvalidArgumentError naming `what` otherwise). */
export function oneOf<T extends string>(v: unknown, what: string, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw new InvalidArgumentError(`unknown ${what} ${show(v)} (expected one of: ${allowed.join(', ')})`);
  }
  return v as T;
}
