/**
 * bench/args.ts, the bench scripts' command line: values in range come back as numbers and lists
 * (fresh random ones), absent options give the fallback, and every bad word (out of range, not a
 * number, not one of the choices, unknown option, missing value) ends the process with status 2
 * and a line naming the option, then the usage line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { BenchArgs } from '../../bench/args.js';

const NAMES = ['n', 'xs', 'words', 'x', 'label'] as const;
const USAGE = 'probe [--n N] [--xs A,B] [--words a,b] [--x X] [--label L]';
const WORDS = ['alpha', 'beta', 'gamma'] as const;

test('BenchArgs: values in range parse to what was written, switches to whether they were given; absent options give the fallback', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -1000, max: 1000 }),
      fc.array(fc.double({ min: -50, max: 50, noNaN: true }), { minLength: 1, maxLength: 5 }),
      fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      (n, xs, words, equals, on) => {
        // both spellings, negative values too (`--n -4` as with every subcommand)
        const argv = equals
          ? [`--n=${n}`, `--xs=${xs.join(',')}`, `--words=${words.join(',')}`]
          : ['--n', String(n), '--xs', xs.join(','), '--words', words.join(',')];
        if (on) argv.splice(2, 0, '--on');
        const cl = BenchArgs.parse('probe', USAGE, NAMES, argv, ['on', 'off']);
        assert.equal(cl.flag('on'), on);
        assert.equal(cl.flag('off'), false);
        assert.equal(cl.int('n', -1000, 1000, 7), n);
        assert.deepEqual(
          cl.numbers('xs', -50, 50, [1]),
          xs.map((v) => Number(String(v))),
        );
        assert.deepEqual(cl.choices('words', WORDS, ['beta']), words);
        assert.equal(cl.number('x', 0, 1, 0.25), 0.25);
        assert.equal(cl.text('label', 'none'), 'none');
      },
    ),
  );
});

const PROBE = fileURLToPath(new URL('./args-probe.js', import.meta.url));

function run(argv: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [PROBE, ...argv], { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stderr: r.stderr };
}

test('BenchArgs: a bad word exits with status 2, naming the option, and prints the usage', () => {
  const lo = -3 - Math.floor(Math.random() * 10),
    hi = 3 + Math.floor(Math.random() * 10);
  const cases: Array<[string[], RegExp]> = [
    [['--n', String(hi + 1)], new RegExp(`--n must be an integer in \\[${lo}, ${hi}\\], got ${hi + 1}`)],
    [['--n', '1.5'], /--n must be an integer/],
    [['--xs', `1,${hi + 0.5}`], /--xs must be numbers in/],
    [['--xs', '1,x'], /--xs must be a decimal number, got 'x'/],
    // the CLI's grammar: what Number() would take and no user means is refused, saying why
    [['--n', '0x10'], /--n must be an integer, got '0x10' \(hexadecimal, octal and binary are not accepted/],
    [['--x', ''], /--x must be a decimal number, got '' \(an empty value\)/],
    [['--x', 'Infinity'], /--x must be a decimal number, got 'Infinity' \(not a finite number\)/],
    [['--n', '1e400'], /--n must be an integer, got '1e400'/],
    [['--words', 'alpha,delta'], /--words must be a list of alpha, beta, gamma, got alpha,delta/],
    [['--bogus', '1'], /unknown option '--bogus' for probe \(see the usage line below\)/],
    [['--n'], /option --n needs a value/],
    [['stray'], /probe takes no positional argument, got 'stray'/],
    [['--on=1'], /option --on takes no value/],
  ];
  for (const [argv, re] of cases) {
    const r = run([String(lo), String(hi), ...argv]);
    assert.equal(r.status, 2, `${argv.join(' ')}: status ${r.status}, stderr ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^probe: ${re.source}`), argv.join(' '));
    assert.match(r.stderr, /\nusage: probe \[--n N\]/, argv.join(' '));
  }
  const ok = run([String(lo), String(hi), '--n', String(hi), `--xs=${lo},${hi}`]);
  assert.equal(ok.status, 0, ok.stderr);
});
