/**
 * The command line's number grammar (src/cli/values.ts), as properties over fresh random values:
 * every decimal a user writes reads as JavaScript reads it; an integer in exponent form and in
 * digits is the same integer, and past 2^53 both are refused with the same message; every
 * non-decimal spelling Number() would take (hex, octal, binary, Infinity, '', white space,
 * trailing characters) is an InvalidArgumentError naming the option. And the error line's
 * escaping: no control character, bidirectional override or U+FFFD reaches the terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeForTerminal, errorLine } from '../../src/cli/error-line.js';
import { intListOption, intOption, numberOption, parseDecimal, parseInteger } from '../../src/cli/values.js';
import { InvalidArgumentError } from '../../src/core/errors.js';

const name = fc.stringMatching(/^[a-z][a-z-]{0,12}$/);

/** An InvalidArgumentError naming --`option` and echoing `text`. */
function refuses(f: () => unknown, option: string, text: string): InvalidArgumentError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof InvalidArgumentError, `'${text}' accepted`);
  assert.equal(caught.code, 'INVALID_ARGUMENT');
  assert.ok(caught.message.startsWith(`--${option} must be `), caught.message);
  assert.ok(caught.message.includes(`got '${text}'`), caught.message);
  assert.equal(caught.details?.option, `--${option}`);
  assert.equal(caught.details?.value, text);
  return caught;
}

test('a decimal number reads as Number() reads it, in every notation JavaScript prints', () => {
  fc.assert(
    fc.property(name, fc.double({ noNaN: true, noDefaultInfinity: true }), (opt, x) => {
      for (const text of [String(x), x.toExponential(), x.toFixed(Math.abs(x) < 1e21 ? 6 : 0)]) {
        if (!/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) continue;
        const v = Number(text);
        // a nonzero text read as 0 is refused (see below)
        if (v === 0 && /[1-9]/.test(text.replace(/e.*$/i, ''))) continue;
        assert.equal(parseDecimal(opt, text), v === 0 ? 0 : v, text);
        assert.equal(numberOption(opt, text), v === 0 ? 0 : v);
      }
      assert.equal(numberOption(opt, undefined), undefined);
    }),
  );
});

test('non-decimal spellings are refused, naming the option and why: hex, octal, binary, Infinity, empty, white space, trailing characters', () => {
  const bad = fc.oneof(
    fc.nat().map((n) => `0x${n.toString(16)}`),
    fc.nat().map((n) => `0o${n.toString(8)}`),
    fc.nat().map((n) => `0b${n.toString(2)}`),
    fc.constantFrom(
      'Infinity',
      '-Infinity',
      '+Infinity',
      'inf',
      'NaN',
      '',
      ' ',
      '\t',
      '1_000',
      '1,5',
      '--1',
      '.',
      'e5',
      '1e',
    ),
    fc.tuple(fc.integer(), fc.constantFrom(' ', '\t', '\n')).map(([n, w]) => `${w}${n}`),
    fc.tuple(fc.integer(), fc.constantFrom(' ', '\t', '\n')).map(([n, w]) => `${n}${w}`),
    fc.tuple(fc.integer(), fc.stringMatching(/^[a-zA-Z%,;:]{1,4}$/)).map(([n, s]) => `${n}${s}`),
  );
  fc.assert(
    fc.property(name, bad, (opt, text) => {
      const e = refuses(() => parseDecimal(opt, text), opt, text);
      assert.ok(/\(.+\)$/.test(e.message), `why is said: ${e.message}`);
      refuses(() => parseInteger(opt, text, 0), opt, text);
    }),
  );
  // what the reason says, for the common mistakes
  assert.match(refuses(() => parseDecimal('delta', '0x1'), 'delta', '0x1').message, /decimal digits only/);
  assert.match(refuses(() => parseDecimal('delta', 'Infinity'), 'delta', 'Infinity').message, /not a finite/);
  assert.match(refuses(() => parseDecimal('delta', '  '), 'delta', '  ').message, /white space/);
  assert.match(refuses(() => parseDecimal('delta', '0.9x'), 'delta', '0.9x').message, /'x' after the number/);
  assert.match(refuses(() => parseDecimal('x', '1e400'), 'x', '1e400').message, /largest double/);
  assert.match(refuses(() => parseDecimal('x', '-1e-400'), 'x', '-1e-400').message, /read as 0/);
});

test('an integer in exponent form and in digits is the same integer; out of range, both are refused with one message', () => {
  fc.assert(
    fc.property(
      name,
      fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
      fc.integer({ min: 0, max: 4 }),
      fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
      (opt, n, shift, bound) => {
        const digits = n.toString();
        // the same integer as mantissa and exponent: 1234 -> 1.234e3, 12.34e2, 1234e0, 123400e-2
        const abs = digits.replace('-', '');
        const sign = n < 0n ? '-' : '';
        const forms = [digits, `${digits}e0`, `${sign}${abs}00e-2`, `${digits}.0`];
        if (abs.length > shift) {
          const cut = abs.length - shift;
          forms.push(`${sign}${abs.slice(0, cut)}.${abs.slice(cut)}e${shift}`);
        }
        const safe = n >= -BigInt(Number.MAX_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER);
        const lo = bound < n ? bound : n;
        const min = Number(lo < BigInt(Number.MIN_SAFE_INTEGER) ? BigInt(Number.MIN_SAFE_INTEGER) : lo);
        const messages = new Set<string>();
        for (const text of forms) {
          if (safe) {
            const v = parseInteger(opt, text, min);
            assert.equal(v, Number(n), text);
            assert.ok(!Object.is(v, -0), 'never -0');
          } else {
            const e = refuses(() => parseInteger(opt, text, 0), opt, text);
            messages.add(e.message.replace(`got '${text}'`, 'got X'));
          }
        }
        // one message for every spelling of the same refused value
        assert.ok(messages.size <= 1, [...messages].join(' | '));
      },
    ),
  );
  // 1e20 and its digits: refused alike, saying why (past 2^53)
  const a = refuses(() => intOption('max-vectors', '1e20', 0, 1), 'max-vectors', '1e20');
  const b = refuses(
    () => intOption('max-vectors', '100000000000000000000', 0, 1),
    'max-vectors',
    '100000000000000000000',
  );
  assert.equal(a.message.replace("'1e20'", 'X'), b.message.replace("'100000000000000000000'", 'X'));
  assert.match(a.message, /2\^53 - 1/);
  // 2^53 + 1 in digits rounds to 2^53 in a double: refused, never rounded
  refuses(() => parseInteger('seed', '9007199254740993', 0), 'seed', '9007199254740993');
  assert.equal(parseInteger('seed', '9007199254740991', 0), Number.MAX_SAFE_INTEGER);
  // not whole, though a double would round it to one
  refuses(() => parseInteger('k', '0.99999999999999999999', 0), 'k', '0.99999999999999999999');
  refuses(() => parseInteger('k', '1.5', 0), 'k', '1.5');
  assert.equal(parseInteger('k', '1.5e1', 0), 15);
  refuses(() => parseInteger('k', '1e999999999999', 0), 'k', '1e999999999999');
  assert.equal(parseInteger('k', '0e999999999999', 0), 0, 'a zero mantissa is 0 at any exponent');
  assert.equal(parseInteger('k', '-0.000e-999999999999', 0), 0);
  refuses(() => parseInteger('k', '5e-999999999999', 0), 'k', '5e-999999999999');
});

test('integer ranges: the bounds named in the message, a comma list item by item', () => {
  fc.assert(
    fc.property(name, fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 0, max: 1000 }), (opt, lo, span) => {
      const hi = lo + span;
      const inside = lo + Math.floor(span / 2);
      assert.equal(parseInteger(opt, String(inside), lo, hi), inside);
      const e = refuses(() => parseInteger(opt, String(hi + 1), lo, hi), opt, String(hi + 1));
      assert.ok(e.message.includes(`[${lo}, ${hi}]`), e.message);
      assert.deepEqual(e.details, { option: `--${opt}`, value: String(hi + 1), min: lo, max: hi });
      assert.deepEqual(intListOption(opt, `${lo}, ${inside},${hi}`, lo, hi), [lo, inside, hi]);
      assert.throws(() => intListOption(opt, `${lo},0x1`, lo, hi), { code: 'INVALID_ARGUMENT' });
    }),
  );
});

test('the error line escapes what the user typed: no control character, DEL, C1, bidi override or U+FFFD reaches the terminal', () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the test
  const unsafe = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]|\p{Surrogate}/u;
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
      const out = escapeForTerminal(s);
      assert.ok(!unsafe.test(out), JSON.stringify(out));
      const line = errorLine(new InvalidArgumentError(`--delta must be a decimal number, got '${s}'`));
      assert.ok(!unsafe.test(line), JSON.stringify(line));
      assert.ok(!line.includes('\n'), 'one line');
      // printable text stays as it is
      const printable = s.replace(/[^\x20-\x7e]/g, '');
      assert.equal(escapeForTerminal(printable), printable);
    }),
  );
  assert.equal(escapeForTerminal('a\x7fb\x1b[31mc\nd\te\u202ef\ufffd'), 'a\\x7fb\\x1b[31mc\\nd\\te\\u202ef\\ufffd');
  // non-typed errors keep their first line only, escaped too
  assert.equal(errorLine(new Error('bad \x07bell\nsecond line')), 'lattice-mimo: error [INTERNAL]: bad \\x07bell');
});
