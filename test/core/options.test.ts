/**
 * core/options.ts: strict options objects. Unknown keys are refused with the nearest known key
 * suggested, every check refuses values of the wrong type or range and keeps the ones in range,
 * nested objects name their keys with a dot, and non-objects are refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import {
  arrayOf,
  boolean,
  callback,
  checkOptions,
  choice,
  inapplicable,
  integer,
  nearest,
  number,
  object,
  option,
} from '../../src/core/options.js';

const SCHEMA = {
  algorithm: option(choice(['lll', 'allswap'] as const), 'the algorithm'),
  delta: option(number({ min: 0.25, max: 1, minOpen: true, maxOpen: true }), 'the Lovasz factor'),
  threads: option(integer(1, 256), 'worker threads'),
  check: option(boolean(), 'proof of the output'),
  onProgress: option(callback<(n: number) => void>(), 'progress'),
  levels: option(arrayOf(integer(1, 64), 1, 8), 'levels'),
  psd: option(object({ paths: option(arrayOf(integer(1)), 'paths') }), 'psd'),
};

function refused(f: () => unknown, option: string): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof InvalidArgumentError, `not an InvalidArgumentError: ${String(e)}`);
    const named = String(e.details?.option);
    assert.ok(named === option || named.startsWith(`${option}[`), `details.option ${named} of: ${e.message}`);
    return true;
  });
}

test('values in range are kept, absent and undefined keys left out', () => {
  fc.assert(
    fc.property(
      fc.record(
        {
          algorithm: fc.constantFrom('lll', 'allswap'),
          delta: fc.double({ min: 0.2500001, max: 0.9999999, noNaN: true }),
          threads: fc.integer({ min: 1, max: 256 }),
          check: fc.boolean(),
          levels: fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
        },
        { requiredKeys: [], noNullPrototype: true },
      ),
      (opts) => {
        assert.deepEqual(checkOptions(opts, SCHEMA, 'f()'), opts);
        const { threads: _threads, ...rest } = opts;
        assert.deepEqual(checkOptions({ ...opts, threads: undefined }, SCHEMA, 'f()'), rest);
      },
    ),
  );
});

test('out of range, wrong type, non-integer and non-finite values are refused naming the option', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.record({
          key: fc.constant('delta'),
          v: fc.oneof(fc.double({ max: 0.25 }), fc.double({ min: 1 }), fc.constant(Number.NaN), fc.string()),
        }),
        fc.record({
          key: fc.constant('threads'),
          v: fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 257 }), fc.constant(1.5), fc.constant('4')),
        }),
        fc.record({ key: fc.constant('algorithm'), v: fc.oneof(fc.constant('LLL'), fc.constant(''), fc.integer()) }),
        fc.record({ key: fc.constant('check'), v: fc.oneof(fc.constant(1), fc.constant('true'), fc.constant(null)) }),
        fc.record({ key: fc.constant('onProgress'), v: fc.oneof(fc.integer(), fc.constant({})) }),
        fc.record({ key: fc.constant('levels'), v: fc.oneof(fc.constant([]), fc.constant([0]), fc.constant(3)) }),
      ),
      ({ key, v }) => refused(() => checkOptions({ [key]: v }, SCHEMA, 'f()'), key),
    ),
  );
});

test('unknown keys are refused with the nearest known key suggested', () => {
  assert.throws(
    () => checkOptions({ algoritm: 'allswap' }, SCHEMA, 'reduce()'),
    (e: unknown) =>
      e instanceof InvalidArgumentError &&
      e.details?.suggestion === 'algorithm' &&
      /did you mean 'algorithm'/.test(e.message),
  );
  refused(() => checkOptions({ blockSize: 4 }, SCHEMA, 'f()'), 'blockSize');
  refused(() => checkOptions({ toString: 4 }, SCHEMA, 'f()'), 'toString');
  assert.equal(nearest('theads', Object.keys(SCHEMA)), 'threads');
  assert.equal(nearest('xyz', Object.keys(SCHEMA)), null);
});

test('nested objects name their keys with a dot; non-objects are refused', () => {
  refused(() => checkOptions({ psd: { path: [1] } }, SCHEMA, 'detect()'), 'psd.path');
  refused(() => checkOptions({ psd: { paths: [0] } }, SCHEMA, 'detect()'), 'psd.paths[0]');
  refused(() => checkOptions({ psd: null }, SCHEMA, 'detect()'), 'psd');
  for (const bad of [null, 3, 'x', [1], true]) refused(() => checkOptions(bad, SCHEMA, 'f()'), 'f()');
  assert.deepEqual(checkOptions(undefined, SCHEMA, 'f()'), {});
});

test('required keys are refused when absent, naming the key; an inapplicable key names why', () => {
  const S = { nt: option(integer(1, 64), 'transmit antennas', { required: true }), seed: option(integer(0), 'seed') };
  refused(() => checkOptions({ seed: 1 }, S, 'simulate()'), 'nt');
  refused(() => checkOptions(undefined, S, 'simulate()'), 'nt');
  refused(() => checkOptions({ nt: undefined }, S, 'simulate()'), 'nt');
  assert.deepEqual(checkOptions({ nt: 4 }, S, 'simulate()'), { nt: 4 });
  const e = inapplicable('reduce()', 'blockSize', 'the sub-basis size of block and cr-block; the algorithm is lll');
  assert.ok(e instanceof InvalidArgumentError);
  assert.equal(e.details?.option, 'blockSize');
  assert.match(e.message, /does not apply: the sub-basis size/);
});
