/**
 * Shared by the strict-options tests of every part: arbitraries of unknown keys (random, and one
 * edit away from a known key), of values of the wrong type for an option's kind, and assertions
 * that an entry point refuses them with an InvalidArgumentError naming the option.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { nearest, type OptionSchema, type OptionSpec } from '../../src/core/options.js';
import { show } from '../../src/core/show.js';

/**
 * Whether the error is an InvalidArgumentError naming `option` (or a key or element under it),
 * with details a program can serialise (the command line's --json writes them).
 */
export function namesOption(e: unknown, option: string): e is InvalidArgumentError {
  if (!(e instanceof InvalidArgumentError)) return false;
  JSON.stringify(e.details);
  const named = String(e.details?.option);
  return named === option || named.startsWith(`${option}.`) || named.startsWith(`${option}[`);
}

/** Asserts that f throws (or rejects with) an InvalidArgumentError naming `option`; returns it. */
export async function refused(f: () => unknown, option: string, what = ''): Promise<InvalidArgumentError> {
  let err: unknown;
  try {
    await f();
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `${what}: accepted, expected a refusal naming ${option}`);
  assert.ok(
    namesOption(err, option),
    `${what}: expected an InvalidArgumentError naming ${option}, got ${String(err)} ${show((err as InvalidArgumentError).details)}`,
  );
  return err as InvalidArgumentError;
}

/** Synchronous refused(). */
export function refusedSync(f: () => unknown, option: string, what = ''): InvalidArgumentError {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `${what}: accepted, expected a refusal naming ${option}`);
  assert.ok(
    namesOption(err, option),
    `${what}: expected an InvalidArgumentError naming ${option}, got ${String(err)} ${show((err as InvalidArgumentError).details)}`,
  );
  return err as InvalidArgumentError;
}

/** Keys that are not in the schema: random identifiers, and known keys one edit away (typos). */
export function unknownKey(schema: OptionSchema): fc.Arbitrary<string> {
  const keys = Object.keys(schema);
  const typo = fc
    .tuple(fc.constantFrom(...keys), fc.nat(), fc.constantFrom('drop', 'swap', 'double', 'case'))
    .map(([k, i, how]) => {
      const p = i % k.length;
      if (how === 'drop') return k.slice(0, p) + k.slice(p + 1);
      if (how === 'double') return k.slice(0, p) + k[p] + k.slice(p);
      if (how === 'case')
        return (
          k.slice(0, p) + (k[p] === k[p]!.toUpperCase() ? k[p]!.toLowerCase() : k[p]!.toUpperCase()) + k.slice(p + 1)
        );
      return p + 1 < k.length ? k.slice(0, p) + k[p + 1] + k[p] + k.slice(p + 2) : `${k}x`;
    });
  const random = fc.stringMatching(/^[a-zA-Z_$][a-zA-Z0-9_$]{0,12}$/);
  return fc.oneof(typo, random).filter((k) => !Object.hasOwn(schema, k) && k !== '__proto__');
}

/**
 * Asserts the refusal of an unknown key: InvalidArgumentError naming it, and the nearest known key
 * suggested when there is one (always for a typo of a key of four letters or more).
 */
export function assertUnknownKeyRefusal(e: InvalidArgumentError, key: string, schema: OptionSchema): void {
  const near = nearest(key, Object.keys(schema));
  assert.equal(e.details?.option, key, e.message);
  assert.equal(e.details?.suggestion, near ?? undefined, e.message);
  if (near) assert.ok(e.message.includes(`did you mean '${near}'`), e.message);
}

const junk = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.double({ noNaN: true }).map((x) => x + 0.5),
  fc.integer(),
  fc.constant([]),
  fc.constant({}),
  fc.constant(() => 0),
  fc.constant(1n),
);

/**
 * Values of the wrong type (or out of range) for an option: junk of every kind that its own check
 * refuses. The entry point must refuse each, naming the option.
 */
export function wrongValue(spec: OptionSpec): fc.Arbitrary<unknown> {
  const refused = (v: unknown): boolean => {
    try {
      spec.check(v, 'probe option x');
      return false;
    } catch {
      return true;
    }
  };
  // a check that takes every kind of value leaves the filter nothing to keep: it would draw forever
  if (!JUNK_SAMPLES.some(refused))
    throw new Error(
      `wrongValue: the option (${spec.doc}) accepts a value of every kind: leave it out of the keys it is drawn for`,
    );
  return junk.filter(refused);
}

/** One value of each kind junk draws (a check that refuses none of them refuses nothing junk draws). */
const JUNK_SAMPLES: readonly unknown[] = ['', 'x', true, null, Number.NaN, Infinity, 0.5, -1, 7, [], {}, () => 0, 1n];
