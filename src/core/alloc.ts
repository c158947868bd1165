/**
 * Allocations sized by a caller's input (batch x n x m typed arrays, result arrays, simulation
 * buffers) are checked before they are made: a length past what a typed array may hold in this
 * engine, or memory the process cannot get, is an UnsupportedError naming what was asked for, its
 * size and the limit, never the engine's own RangeError from deep inside a call.
 */
import { constants } from 'node:buffer';
import { UnsupportedError } from './errors.js';

/** The most elements a typed array may hold in this JavaScript engine (V8 in Node 20: 2^32). */
export const MAX_ARRAY_LENGTH: number = constants.MAX_LENGTH;

/** A typed-array constructor (Float64Array, Int32Array, ...). */
export interface TypedArrayKind<A> {
  new (length: number): A;
  readonly BYTES_PER_ELEMENT: number;
  readonly name: string;
}

const mib = (bytes: number): string =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * Throws UnsupportedError when `elements` (a product of sizes the caller gave, e.g. batch x n x m)
 * is past MAX_ARRAY_LENGTH. `what` names the array in the message ("reduce() result bases").
 * details: { what, elements, limit, bytes }.
 */
export function checkArrayLength(elements: number, what: string, bytesPerElement = 8): void {
  if (elements <= MAX_ARRAY_LENGTH) return;
  const bytes = elements * bytesPerElement;
  throw new UnsupportedError(
    `${what}: ${elements} elements (${mib(bytes)}) asked for, past the ${MAX_ARRAY_LENGTH} elements a typed array may hold`,
    { what, elements, limit: MAX_ARRAY_LENGTH, bytes },
  );
}

/**
 * A new zero-filled typed array of `length` elements, or an UnsupportedError naming `what`, the
 * size asked for and the limit: the typed-array limit (checkArrayLength), or the memory this
 * process can allocate (details.limit 'memory').
 */
export function allocArray<A>(kind: TypedArrayKind<A>, length: number, what: string): A {
  checkArrayLength(length, what, kind.BYTES_PER_ELEMENT);
  try {
    return new kind(length);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const bytes = length * kind.BYTES_PER_ELEMENT;
    throw new UnsupportedError(
      `${what}: a ${kind.name} of ${length} elements (${mib(bytes)}) could not be allocated: not enough memory`,
      { what, elements: length, limit: 'memory', bytes },
    );
  }
}
