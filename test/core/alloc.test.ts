/**
 * core/alloc.ts: an allocation sized by a caller's input is checked before it is made. A length
 * past the typed-array limit is an UnsupportedError naming what was asked for, its size and the
 * limit (never a RangeError), and so is memory the process cannot get; lengths within both give
 * zero-filled arrays of the kind asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { allocArray, checkArrayLength, MAX_ARRAY_LENGTH } from '../../src/core/alloc.js';
import { UnsupportedError } from '../../src/core/errors.js';
import { allocLike, allocReal } from '../../src/core/matrix.js';

const KINDS = [Float64Array, Float32Array, Int32Array, Uint8Array] as const;

function sizeError(f: () => unknown, what: string, elements: number): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof UnsupportedError, `not an UnsupportedError: ${String(e)}`);
    assert.equal(e.details?.what, what);
    assert.equal(e.details?.elements, elements);
    assert.ok(e.details?.limit === MAX_ARRAY_LENGTH || e.details?.limit === 'memory', String(e.details?.limit));
    assert.match(e.message, new RegExp(`^${what}: `));
    assert.ok(e.message.includes(String(elements)), e.message);
    return true;
  });
}

test('lengths past the typed-array limit are refused by name and size, before any allocation', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 2 ** 20 }),
      fc.integer({ min: 1, max: 2 ** 20 }),
      fc.integer({ min: 1, max: 2 ** 12 }),
      fc.constantFrom(...KINDS),
      (batch, n, m, kind) => {
        const elements = batch * n * m;
        fc.pre(elements > MAX_ARRAY_LENGTH);
        sizeError(() => checkArrayLength(elements, 'the bases', kind.BYTES_PER_ELEMENT), 'the bases', elements);
        sizeError(() => allocArray<ArrayLike<number>>(kind, elements, 'the bases'), 'the bases', elements);
        sizeError(() => allocReal('float32', elements, 'the results'), 'the results', elements);
        sizeError(() => allocLike(new Float64Array(1), elements, 'a copy'), 'a copy', elements);
      },
    ),
    { numRuns: 50 },
  );
});

test('memory the process cannot get is the same typed error (limit: memory)', () => {
  // 2^32 doubles (32 GiB) is within V8's length limit on Node 20 but past this machine's memory;
  // where a machine has that much, the array is simply made
  const n = Math.min(MAX_ARRAY_LENGTH, 2 ** 32);
  let a: Float64Array | undefined;
  try {
    a = allocArray(Float64Array, n, 'a huge array');
  } catch (e) {
    assert.ok(e instanceof UnsupportedError, String(e));
    assert.equal(e.details?.limit, 'memory');
    assert.equal(e.details?.bytes, 8 * n);
  }
  assert.ok(a === undefined || a.length === n);
});

test('lengths within the limits give zero-filled arrays of the kind asked for', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 4096 }), fc.constantFrom(...KINDS), (n, kind) => {
      const a = allocArray<ArrayLike<number>>(kind, n, 'x');
      assert.ok(a instanceof kind);
      assert.equal(a.length, n);
      assert.ok(Array.prototype.every.call(a, (v: number) => v === 0));
      assert.ok(allocReal('float32', n) instanceof Float32Array);
      assert.ok(allocLike(new Float64Array(1), n) instanceof Float64Array);
    }),
  );
});
