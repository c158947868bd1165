/**
 * The command line's edges, run as a user runs them (issue 28, "CLI edges"): numbers decimal only
 * on every subcommand, an integer's exponent and digit forms alike, getopt's one-letter forms,
 * options that do not apply refused, help help, output paths checked before any work (two outputs
 * in one place, unwritable targets) while /dev/null, /dev/stdout and FIFOs keep working, control
 * characters escaped in the error line, a basis float64 cannot square named as such, and an NR
 * code rate never changed without a word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ldpcCode } from '../../src/coding/code.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin = '', cwd?: string): Run {
  const r = spawnSync(process.execPath, [MAIN, ...args], { input: stdin, encoding: 'utf8', timeout: 60_000, cwd });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2 and one line `lattice-mimo: error [CODE]: ...` mentioning each of `mentions`. */
function oneLineError(r: Run, code: string, mentions: string[], what: string): string {
  assert.equal(r.code, 2, `${what}: exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line on stderr (no work done), got: ${r.stderr}`);
  assert.match(lines[0]!, new RegExp(`^lattice-mimo: error \\[${code}\\]: `), what);
  for (const m of mentions) assert.ok(lines[0]!.includes(m), `${what}: '${lines[0]}' should mention '${m}'`);
  return lines[0]!;
}

const SIM = ['simulate', '--mimo', '1x1', '--detector', 'zf', '--snr', '0', '--max-vectors', '64', '--threads', '1'];
const DETECT_IN = JSON.stringify({ H: [[[[1, 0]]]], y: [[[0.9, 0.1]]] });

/** Numeric options of every subcommand (argv before the option, the option, what else it needs). */
const NUMERIC: { argv: string[]; option: string; stdin?: string; integer: boolean }[] = [
  { argv: ['reduce'], option: '--delta', stdin: '[[1 0][0 1]]', integer: false },
  { argv: ['reduce'], option: '--max-iterations', stdin: '[[1 0][0 1]]', integer: true },
  { argv: ['reduce', '-a', 'block'], option: '--block-size', stdin: '[[1 0][0 1]]', integer: true },
  { argv: SIM, option: '--max-vectors', integer: true },
  { argv: SIM, option: '--seed', integer: true },
  { argv: SIM, option: '--max-time', integer: false },
  { argv: ['detect', '--detector', 'zf', '--mod', 'bpsk'], option: '--noise-var', stdin: DETECT_IN, integer: false },
  {
    argv: ['detect', '--detector', 'zf', '--mod', 'bpsk', '--noise-var', '1'],
    option: '--vectors-per-channel',
    stdin: DETECT_IN,
    integer: true,
  },
  { argv: ['demo'], option: '--seed', integer: true },
  { argv: ['bench', 'mimo'], option: '--vectors', integer: true },
  { argv: ['bench', 'lattice', '--engine', 'cpu'], option: '--reps', integer: true },
];

test('numbers are decimal on every subcommand: hex, octal, binary, Infinity, empty, white space and trailing characters are refused naming the option, before any work', () => {
  const bad = fc.oneof(
    fc.integer({ min: 1, max: 255 }).map((n) => `0x${n.toString(16)}`),
    fc.integer({ min: 1, max: 63 }).map((n) => `0o${n.toString(8)}`),
    fc.integer({ min: 1, max: 15 }).map((n) => `0b${n.toString(2)}`),
    fc.constantFrom('Infinity', '', ' ', ' 5', '5 ', '5x', '1,5e', 'NaN'),
  );
  fc.assert(
    fc.property(fc.constantFrom(...NUMERIC), bad, ({ argv, option, stdin }, text) => {
      const r = cli([...argv, option, text], stdin);
      // the values list of --snr names the option once for the list
      oneLineError(r, 'INVALID_ARGUMENT', [option], `${argv.join(' ')} ${option} '${text}'`);
    }),
    { numRuns: 24 },
  );
  // a list's items may be spaced ('0, 4'), each one decimal
  for (const snr of ['0x1', '0:0x2:4', '1e400', 'Infinity,0', '0,,4'])
    oneLineError(cli([...SIM.slice(0, 5), '--snr', snr]), 'INVALID_ARGUMENT', ['--snr'], `--snr ${snr}`);
});

test("an integer option takes 1e2 as 100, and refuses 1e20 with its digits' message (past 2^53 - 1)", () => {
  for (const { argv, option, stdin, integer } of NUMERIC.filter((n) => n.integer)) {
    assert.ok(integer);
    const a = oneLineError(cli([...argv, option, '1e20'], stdin), 'INVALID_ARGUMENT', [option], `${option} 1e20`);
    const b = oneLineError(
      cli([...argv, option, '100000000000000000000'], stdin),
      'INVALID_ARGUMENT',
      [option],
      `${option} digits`,
    );
    assert.equal(a.replace("'1e20'", 'X'), b.replace("'100000000000000000000'", 'X'), option);
  }
  // the exponent form runs as its digits do
  const json = (v: string) =>
    JSON.parse(cli([...SIM.slice(0, -4), '--max-vectors', v, '--threads', '1', '--json', '-']).stdout);
  const [e, d] = [json('6.4e1'), json('64')];
  assert.deepEqual(
    e.points.map((p: { bitErrors: number; vectors: number }) => [p.bitErrors, p.vectors]),
    d.points.map((p: { bitErrors: number; vectors: number }) => [p.bitErrors, p.vectors]),
  );
  assert.equal(e.maxVectors, 64);
});

test("getopt's forms on reduce: -d0.99 and -vd0.99 as -d 0.99; -d=0.99 refused saying what getopt would read", () => {
  // a fresh basis of full rank (its rows [a 2 1], [3 b 1], [1 1 c]: determinant nonzero)
  let a: number, b: number, c: number;
  do {
    [a, b, c] = [randomInt(1, 9), randomInt(1, 9), randomInt(10, 20)];
  } while (a * (b * c - 1) - 2 * (3 * c - 1) + (3 - b) === 0);
  const basis = `[[${a} 2 1][3 ${b} 1][1 1 ${c}]]`;
  const spaced = cli(['reduce', '-d', '0.99'], basis);
  assert.equal(spaced.code, 0, spaced.stderr);
  assert.equal(cli(['reduce', '-d0.99'], basis).stdout, spaced.stdout);
  const verbose = cli(['reduce', '-vd0.99'], basis);
  assert.equal(verbose.stdout, spaced.stdout);
  assert.match(verbose.stderr, /reducing/);
  const line = oneLineError(cli(['reduce', '-d=0.99'], basis), 'INVALID_ARGUMENT', ['-d', "'=0.99'"], '-d=0.99');
  assert.match(line, /-d 0\.99, -d0\.99, --delta=0\.99/);
  oneLineError(cli(['reduce', '-v=1'], basis), 'INVALID_ARGUMENT', ['-v takes no value'], '-v=1');
  oneLineError(cli(['reduce', '-ofu'], basis), 'INVALID_ARGUMENT', ["'-of u'"], '-ofu');
});

test('options that do not apply are refused, naming why: --float32-arithmetic off the GPU all-swap float32 path, --delta with jacobi', () => {
  const cases: [string[], string][] = [
    [['reduce', '--float32-arithmetic', 'float32'], 'the algorithm is lll'],
    [['reduce', '-a', 'allswap', '--float32-arithmetic', 'double'], 'the precision is float64'],
    [
      ['reduce', '-a', 'allswap', '--precision', 'float32', '--engine', 'cpu', '--float32-arithmetic', 'float32'],
      'computes in double',
    ],
    [['reduce', '-a', 'jacobi', '-d', '0.99'], 'Lagrange'],
    [['reduce', '-a', 'jacobi-parallel', '--eta', '0.6'], 'Lagrange'],
    [['reduce', '--precision', 'float32', '--from-rung', 'exact'], 'precision ladder'],
    [['bench', 'mimo', '--tables', 'psd'], '--engine cuda'],
  ];
  for (const [args, why] of cases) {
    // no stdin: refused before it is read
    const r = spawnSync(process.execPath, [MAIN, ...args], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    oneLineError(
      { code: r.status, stdout: r.stdout, stderr: r.stderr },
      'INVALID_ARGUMENT',
      ['does not apply', why],
      args.join(' '),
    );
  }
  // a basis that is not integer: no checkpoint can be written
  const dir = mkdtempSync(join(tmpdir(), 'edge-ck-'));
  try {
    oneLineError(
      cli(['reduce', '--checkpoint', join(dir, 'c.txt')], '[[1.5 0][0 1]]'),
      'INVALID_ARGUMENT',
      ['--checkpoint does not apply'],
      'checkpoint of a real basis',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("help help prints help's usage and exits 0; a word too many, or an option before the command, is one error line", () => {
  const r = cli(['help', 'help']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: lattice-mimo help \[COMMAND\]/);
  assert.equal(r.stderr, '');
  assert.equal(cli(['help', '--help']).stdout, r.stdout);
  assert.equal(cli(['help', 'bench', 'mimo']).stdout, cli(['bench', 'mimo', '--help']).stdout);
  oneLineError(cli(['help', 'reduce', 'x']), 'INVALID_ARGUMENT', ["'x'"], 'help reduce x');
  oneLineError(cli(['-x']), 'INVALID_ARGUMENT', ["'-x'"], '-x before a command');
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the test
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202e\ufffd]/;

test('the error line escapes control characters and U+FFFD from user input: a terminal never gets a raw ESC or DEL', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('\x7f', '\x1b[31m', '\x07', '\x9b', '\r', '\n', '\u202e', '\ufffd', 'a', '1'), {
        minLength: 1,
        maxLength: 6,
      }),
      fc.constantFrom(
        ['reduce', '--delta'],
        ['reduce'],
        ['simulate', '--mod'],
        ['detect', '--mod', 'bpsk', '--detector'],
      ),
      (parts, argv) => {
        const word = parts.join('');
        const r = cli([...argv, word], '');
        assert.equal(r.code, 2);
        assert.doesNotMatch(r.stderr.slice(0, -1), UNSAFE, JSON.stringify(r.stderr));
        assert.equal(r.stderr.split('\n').length, 2, 'one line');
      },
    ),
    { numRuns: 12 },
  );
  const r = cli(['reduce', '--delta', 'x\x7f\x1b[2J']);
  assert.ok(r.stderr.includes("got 'x\\x7f\\x1b[2J'"), r.stderr);
});

test('output paths are checked before any work: two outputs in one place (stdout twice, a file by two spellings or a link), unwritable targets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-out-'));
  try {
    const a = join(dir, 'a.out');
    writeFileSync(join(dir, 'target.csv'), 'old\n');
    symlinkSync('a.out', join(dir, 'link.out'));
    const ro = join(dir, 'ro.csv');
    writeFileSync(ro, 'kept\n');
    chmodSync(ro, 0o444);
    mkdirSync(join(dir, 'sub'));
    const same: [string[], string[]][] = [
      [['--csv', '-', '--json', '-'], ['stdout']],
      [['--json', '/dev/stdout', '--csv', '-'], ['stdout']],
      [['--json', a, '--csv', a], [a]],
      [
        ['--json', 'a.out', '--csv', './a.out'],
        ['a.out', './a.out'],
      ],
      [['--json', 'a.out', '--csv', `../${dir.split('/').pop()}/a.out`], ['a.out']],
      [
        ['--json', 'link.out', '--plot', 'p.svg', '--csv', 'a.out'],
        ['link.out', 'a.out'],
      ],
    ];
    for (const [args, mentions] of same) {
      oneLineError(cli([...SIM, ...args], '', dir), 'INVALID_ARGUMENT', ['same', ...mentions], args.join(' '));
      assert.ok(!existsSync(a), 'nothing written');
    }
    const unwritable: [string, string][] = [
      ['/proc/version', 'read-only'],
      ['/proc/lattice-mimo.csv', '/proc'],
      [ro, 'read-only'],
      [join(dir, 'sub'), 'is a directory'],
      [`${join(dir, 'sub')}/`, "ends in '/'"],
      [join(dir, 'missing', 'x.csv'), 'does not exist'],
      [join(dir, 'target.csv', 'x.csv'), 'is not a directory'],
    ];
    for (const [file, why] of unwritable) oneLineError(cli([...SIM, '--csv', file]), 'IO_ERROR', ['--csv', why], file);
    assert.equal(readFileSync(ro, 'utf8'), 'kept\n');
    // detect's --output, and reduce's checkpoint against the file stdout goes to
    oneLineError(
      cli(['detect', '--detector', 'zf', '--mod', 'bpsk', '--noise-var', '1', '--output', ro], DETECT_IN),
      'IO_ERROR',
      ['--output', 'read-only'],
      'detect --output read-only',
    );
    const quoted = [process.execPath, MAIN, 'reduce', '--checkpoint', 'r.txt'].map((w) => `'${w}'`).join(' ');
    const redirected = spawnSync('bash', ['-c', `echo '[[1 2][3 4]]' | ${quoted} > r.txt`], {
      cwd: dir,
      encoding: 'utf8',
    });
    oneLineError(
      { code: redirected.status, stdout: '', stderr: redirected.stderr },
      'INVALID_ARGUMENT',
      ['stdout', '--checkpoint r.txt', 'same file'],
      'checkpoint = stdout',
    );
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.includes('.tmp')),
      [],
      'no probe file left behind',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("/dev/null (any number of times), /dev/stdout and FIFOs stay outputs; a link is written through, keeping the file's permissions", () => {
  const dir = mkdtempSync(join(tmpdir(), 'edge-ok-'));
  try {
    const nul = cli([...SIM, '--csv', '/dev/null', '--json', '/dev/null']);
    assert.equal(nul.code, 0, nul.stderr);
    const out = cli([...SIM, '--csv', '/dev/stdout']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^detector,algorithm,snr/);
    // /dev/stdout redirected to a file (>>): appended, what was there kept
    const quoted = [process.execPath, MAIN, ...SIM, '--csv', '/dev/stdout'].map((w) => `'${w}'`).join(' ');
    const r = spawnSync('bash', ['-c', `echo first > o.csv; ${quoted} >> o.csv`], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(join(dir, 'o.csv'), 'utf8'), /^first\ndetector,algorithm/);
    const fifo = spawnSync(
      'bash',
      [
        '-c',
        `mkfifo f && (cat f > got.csv &) && ${[process.execPath, MAIN, ...SIM, '--json', 'f'].map((w) => `'${w}'`).join(' ')} && sleep 0.3`,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    assert.equal(fifo.status, 0, fifo.stderr);
    assert.equal(JSON.parse(readFileSync(join(dir, 'got.csv'), 'utf8')).points.length, 1);
    writeFileSync(join(dir, 'real.csv'), 'old\n');
    chmodSync(join(dir, 'real.csv'), 0o600);
    symlinkSync('real.csv', join(dir, 'link.csv'));
    const linked = cli([...SIM, '--csv', 'link.csv'], '', dir);
    assert.equal(linked.code, 0, linked.stderr);
    assert.match(readFileSync(join(dir, 'real.csv'), 'utf8'), /^detector,/);
    assert.ok(lstatSync(join(dir, 'link.csv')).isSymbolicLink(), 'the link stays a link');
    assert.equal(statSync(join(dir, 'real.csv')).mode & 0o777, 0o600, "the file's permissions kept");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a real basis float64 cannot square is UNSUPPORTED, naming the vector (never a NaN residual); within range it is reduced', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 170, max: 320 }),
      fc.integer({ min: 0, max: 150 }),
      (m, tiny, fine) => {
        const rows = (e: number) =>
          `[${Array.from({ length: m + 1 }, (_, i) => `[${Array.from({ length: m + 1 }, (_, j) => (i === j ? (i === m ? `1e-${e}` : '1') : '0')).join(' ')}]`).join('')}]`;
        const bad = cli(['reduce'], rows(tiny));
        const line = oneLineError(bad, 'UNSUPPORTED', [`basis vector ${m}`, '2^-1022'], `1e-${tiny}`);
        assert.doesNotMatch(line, /NaN/);
        const ok = cli(['reduce', '--check'], rows(fine));
        assert.equal(ok.code, 0, ok.stderr);
        assert.match(ok.stderr, /check: PASS/);
      },
    ),
    { numRuns: 6 },
  );
  // tiny but all alike: scaled by a power of two, reduced
  const same = cli(['reduce', '--check'], '[[1e-300 0][1e-300 1e-300]]');
  assert.equal(same.code, 0, same.stderr);
  // one vector: no Lovasz condition to speak of
  const one = cli(['reduce', '--check'], '[[7]]');
  assert.match(one.stderr, /one vector: no size-reduction or Lovasz condition/);
});

test('an NR code keeps the rate asked: a K too small for it is refused, saying the highest rate K allows (nr:1:0.95 was rate 1/2)', () => {
  oneLineError(
    cli(['simulate', '--code', 'nr:1:0.95', '--detector', 'nway', '--mod', 'qpsk']),
    'INVALID_ARGUMENT',
    ["'nr:1:0.95'", 'rate 0.5', 'highest rate'],
    'nr:1:0.95',
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 600 }),
      fc.constantFrom('0.95', '0.9', '5/6', '2/3', '1/2', '1/3', '0.2'),
      fc.constantFrom(1, 2, 4, 6, 8),
      (K, R, Qm) => {
        const asked = R.includes('/') ? Number(R.split('/')[0]) / Number(R.split('/')[1]) : Number(R);
        let code: ReturnType<typeof ldpcCode>;
        try {
          code = ldpcCode(`nr:${K}:${R}`, { Qm });
        } catch (e) {
          const err = e as Error & { code?: string; details?: { rate: number; highestRate: number } };
          assert.equal(err.code, 'INVALID_ARGUMENT');
          if (err.details?.rate === undefined) return; // another limit (K's range)
          assert.ok(err.details.rate < 0.85 * asked, err.message);
          assert.match(err.message, /highest rate/);
          return;
        }
        assert.ok(code.rate >= 0.85 * asked && code.rate <= asked + 1e-12, `${code.name}: rate ${code.rate}`);
      },
    ),
  );
});

test('bench takes the CLI conventions: negative SNRs as values, decimal numbers, the output file checked before the run', () => {
  const r = cli([
    'bench',
    'mimo',
    '--snr',
    '-5',
    '--detector',
    'zf',
    '--vectors',
    '16',
    '--reps',
    '1',
    '--no-itpp',
    '--vectors-per-channel',
    '1',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /-5 dB, 1\/ch/);
  oneLineError(
    cli(['bench', 'lattice', '--engine', 'cpu', '--out', '/proc/x.md']),
    'IO_ERROR',
    ['--out'],
    'bench --out',
  );
  oneLineError(
    cli(['bench', 'lattice', '--batched', '8,0x10']),
    'INVALID_ARGUMENT',
    ['--batched', '0x10'],
    '--batched hex',
  );
});
