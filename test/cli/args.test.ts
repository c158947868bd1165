/**
 * The shared argument layer, as properties over random option tables and command lines: every
 * value (negative numbers and words starting with '-' included) comes back as given, in both the
 * `--name value` and `--name=value` spellings; unknown options and missing values are typed errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCommandLine, rejectInapplicable, type OptionSpecs } from '../../src/cli/args.js';
import { parseSimulateArgs } from '../../src/cli/simulate.js';
import { parseSnrList } from '../../src/sim/snr.js';

const name = fc.stringMatching(/^[a-z][a-z0-9-]{1,10}$/);
/** Values as users type them: numbers (negative ones too), ranges, and words with leading dashes. */
const value = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc
    .tuple(fc.integer({ min: -40, max: 0 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 40 }))
    .map(([a, s, b]) => `${a}:${s}:${b}`),
  fc.string({ maxLength: 12 }),
  fc.string({ maxLength: 8 }).map((s) => `-${s}`),
  fc.string({ maxLength: 8 }).map((s) => `--${s}`),
);

test('every given value comes back, whatever its first character, in either spelling', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(name, fc.boolean()), { minLength: 1, maxLength: 8, selector: ([n]) => n }),
      fc.array(fc.tuple(fc.nat(), value, fc.boolean()), { maxLength: 12 }),
      (specList, uses) => {
        const specs: Record<string, { type: 'string' | 'boolean' }> = {};
        for (const [n, isString] of specList) specs[n] = { type: isString ? 'string' : 'boolean' };
        const argv: string[] = [];
        const expected: Record<string, string | boolean> = {};
        for (const [pick, v, inline] of uses) {
          const [n] = specList[pick % specList.length]!;
          if (specs[n]!.type === 'boolean') {
            argv.push(`--${n}`);
            expected[n] = true;
            continue;
          }
          if (inline) argv.push(`--${n}=${v}`);
          else argv.push(`--${n}`, v);
          expected[n] = v; // the last use wins
        }
        const got = parseCommandLine(argv, specs as OptionSpecs, { command: 't' });
        assert.deepEqual({ ...got.values }, expected);
        assert.deepEqual(got.positionals, []);
      },
    ),
    { numRuns: 300 },
  );
});

test('unknown options, missing values and extra positionals are INVALID_ARGUMENT naming the word', () => {
  const specs = {
    snr: { type: 'string' },
    json: { type: 'boolean' },
    delta: { type: 'string', short: 'd' },
    of: { type: 'string', aliases: ['-of'] },
  } as const;
  fc.assert(
    fc.property(
      name.filter((n) => !['snr', 'json', 'delta', 'of'].includes(n)),
      (n) => {
        assert.throws(
          () => parseCommandLine([`--${n}`, '1'], specs, { command: 't' }),
          (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT' && e.message.includes(`--${n}`),
        );
      },
    ),
  );
  assert.throws(() => parseCommandLine(['--snr'], specs, { command: 't' }), {
    code: 'INVALID_ARGUMENT',
    message: /--snr needs a value/,
  });
  assert.throws(() => parseCommandLine(['--json=1'], specs, { command: 't' }), {
    code: 'INVALID_ARGUMENT',
    message: /takes no value/,
  });
  assert.throws(() => parseCommandLine(['a'], specs, { command: 't' }), { code: 'INVALID_ARGUMENT', message: /'a'/ });
  assert.throws(() => parseCommandLine(['a', 'b'], specs, { command: 't', maxPositionals: 1 }), {
    code: 'INVALID_ARGUMENT',
  });
  // short options, aliases, '-' and '--'
  const r = parseCommandLine(['-d', '-0.5', '-of', 'bu', '-', '--', '--snr'], specs, {
    command: 't',
    maxPositionals: 2,
  });
  assert.deepEqual({ ...r.values }, { delta: '-0.5', of: 'bu' });
  assert.deepEqual(r.positionals, ['-', '--snr']);
});

test("one-letter options take getopt's forms: -d 0.99, -d0.99, flags together (-vh, -vd0.99); -d=0.99 is refused, naming the value getopt would read", () => {
  const letters = 'abcdefgijklmnopqrstuvwxyz'.split('');
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.tuple(fc.constantFrom(...letters), fc.boolean()), {
        minLength: 1,
        maxLength: 6,
        selector: ([l]) => l,
      }),
      fc.array(fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 8 }), fc.nat(3)), { maxLength: 8 }),
      (specList, uses) => {
        const specs: Record<string, { type: 'string' | 'boolean'; short: string }> = {};
        for (const [l, isString] of specList) specs[`opt-${l}`] = { type: isString ? 'string' : 'boolean', short: l };
        const flags = specList.filter(([, s]) => !s).map(([l]) => l);
        const argv: string[] = [];
        const expected: Record<string, string | boolean> = {};
        for (const [pick, v, form] of uses) {
          const [l, isString] = specList[pick % specList.length]!;
          if (!isString) {
            argv.push(`-${l}`);
            expected[`opt-${l}`] = true;
            continue;
          }
          // flags before it in one word (-vd0.99), as getopt reads them
          const lead = form === 3 ? flags.join('') : '';
          for (const f of lead) expected[`opt-${f}`] = true;
          if (form === 0 || v.startsWith('=')) argv.push(`-${lead}${l}`, v);
          else argv.push(`-${lead}${l}${v}`);
          expected[`opt-${l}`] = v;
        }
        const got = parseCommandLine(argv, specs as OptionSpecs, { command: 't' });
        assert.deepEqual({ ...got.values }, expected, argv.join(' '));
        for (const [l, isString] of specList) {
          const call = () => parseCommandLine([`-${l}=0.99`], specs as OptionSpecs, { command: 't' });
          assert.throws(
            call,
            (e: Error & { code?: string; details?: Record<string, unknown> }) =>
              e.code === 'INVALID_ARGUMENT' &&
              e.message.includes(`-${l}`) &&
              (isString ? e.message.includes("'=0.99'") : e.message.includes('takes no value')) &&
              e.details?.option === `-${l}`,
          );
        }
      },
    ),
    { numRuns: 200 },
  );
  const specs = {
    delta: { type: 'string', short: 'd' },
    'output-format': { type: 'string', aliases: ['-of'] },
  } as const;
  // fplll's -of takes its value as the next word only (fplll itself refuses -ofu)
  assert.throws(() => parseCommandLine(['-ofbu'], specs, { command: 't' }), {
    code: 'INVALID_ARGUMENT',
    message: /-of takes its value as the next word \('-of bu'\)/,
  });
  assert.throws(() => parseCommandLine(['-x'], specs, { command: 't' }), { message: /unknown option '-x'/ });
  assert.throws(() => parseCommandLine(['-dx', '-q'], specs, { command: 't' }), { message: /unknown option '-q'/ });
  // a long option is never abbreviated; a unique prefix is named in the message
  assert.throws(() => parseCommandLine(['--del', '0.9'], specs, { command: 't' }), {
    code: 'INVALID_ARGUMENT',
    message: /unknown option '--del'.*did you mean --delta\?/,
  });
});

test('simulate takes negative SNR ranges and values, spaced or with =', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -30, max: -1 }),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 0, max: 20 }),
      fc.boolean(),
      (start, step, count, inline) => {
        const spec = `${start}:${step}:${start + step * count}`;
        const cmd = parseSimulateArgs(inline ? [`--snr=${spec}`] : ['--snr', spec]);
        assert.deepEqual(cmd.options.snrs, parseSnrList(spec));
        assert.equal(cmd.options.snrs[0], start);
        assert.deepEqual(parseSimulateArgs(['--snr', String(start)]).options.snrs, [start]);
      },
    ),
  );
});

test('an option that does not apply is refused, naming it', () => {
  fc.assert(
    fc.property(fc.subarray(['k', 'passes', 'soft']), fc.boolean(), (given, applies) => {
      const call = () => rejectInapplicable(given, ['k', 'passes'], applies, 'why');
      if (applies || !given.some((g) => g === 'k' || g === 'passes')) call();
      else
        assert.throws(
          call,
          (e: Error & { code?: string }) =>
            e.code === 'INVALID_ARGUMENT' &&
            given.filter((g) => g !== 'soft').every((g) => e.message.includes(`--${g}`)),
        );
    }),
  );
  assert.throws(() => parseSimulateArgs(['--detector', 'zf,mmse', '--k', '4']), {
    code: 'INVALID_ARGUMENT',
    message: /--k/,
  });
  assert.throws(() => parseSimulateArgs(['--detector', 'kbest', '--passes', '4']), {
    code: 'INVALID_ARGUMENT',
    message: /--passes/,
  });
  assert.equal(parseSimulateArgs(['--detector', 'kbest,zf', '--k', '4']).options.detectors[0]!.k, 4);
  assert.throws(() => parseSimulateArgs(['--resume', 'r.json', '--seed', '4']), {
    code: 'INVALID_ARGUMENT',
    message: /--seed cannot go with --resume/,
  });
});
