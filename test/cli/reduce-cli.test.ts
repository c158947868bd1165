/** `lattice-mimo reduce` and `info` end to end, through the built CLI. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { formatFplll, parseFplll } from '../../src/lattice/fplll-format.js';
import { blockToeplitzBases, integerScale } from '../../src/lattice/generators.js';
import { checkLLL, checkUnimodular } from '../../src/lattice/check.js';
import { wasmUnavailableReason } from '../../src/core/wasm-kernels.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const cli = (args: string[], input?: string) =>
  spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', timeout: 60_000 });

const seed = Math.floor(Math.random() * 2 ** 31);
const rng = new Philox(seed, 5);

function randomIntegerBasisText(m: number, n: number): { text: string; rows: number[][] } {
  const rows: number[][] = [];
  for (let i = 0; i < m; i++) rows.push(Array.from({ length: n }, () => rng.int(2001) - 1000));
  return { rows, text: `[${rows.map((r) => `[${r.join(' ')}]`).join('\n')}]\n` };
}

test('reduce -of bu: integer in, integer out, U B_in = B_out exactly, U unimodular, output LLL-reduced', () => {
  for (let trial = 0; trial < 4; trial++) {
    const n = 3 + rng.int(10),
      m = 2 + rng.int(n - 1);
    const { text, rows } = randomIntegerBasisText(m, n);
    const r = cli(['reduce', '-of', 'bu', '-d', '0.99'], text);
    assert.equal(r.status, 0, `seed ${seed}: ${r.stderr}`);
    const parts = r.stdout.trim().split(/\n(?=\[\[)/);
    assert.equal(parts.length, 2, r.stdout);
    const B = parseFplll(parts[0]!),
      U = parseFplll(parts[1]!);
    assert.ok(B.integral && U.integral);
    assert.equal(B.rows, m);
    assert.equal(B.cols, n);
    assert.equal(U.rows, m);
    assert.equal(U.cols, m);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = 0n;
        for (let k = 0; k < m; k++) s += BigInt(U.values[i]![k]!) * BigInt(rows[k]![j]!);
        assert.equal(BigInt(B.values[i]![j]!), s);
      }
    assert.ok(checkUnimodular(Float64Array.from(U.values.flat()), m).ok);
    assert.ok(checkLLL(Float64Array.from(B.values.flat()), n, m, 0.99, 0.51).ok, `seed ${seed}`);
  }
});

test('reduce -of bu on a square block-Toeplitz basis whose U passes 2^53: U printed exactly, U B_in = B_out in BigInt', () => {
  // a channel found to need U past 2^53 at delta 0.99 (72 bits)
  const basis = integerScale(
    blockToeplitzBases({ batch: 1, blocks: 24, blockSize: 1, taps: 3, complex: true, seed: 7 }),
    2 ** 20,
  );
  const text = formatFplll(basis);
  const rows = parseFplll(text).values;
  const m = rows.length,
    n = rows[0]!.length;
  const r = cli(['reduce', '-of', 'bu', '-d', '0.99', '--check'], text);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /rebuilt exactly/);
  const [bText, uText] = r.stdout.trim().split(/\n(?=\[\[)/);
  const bigRows = (t: string) =>
    t
      .split('\n')
      .filter((l) => /\d/.test(l))
      .map((l) => (l.match(/-?\d+/g) ?? []).map((v) => BigInt(v)));
  const B = bigRows(bText!),
    U = bigRows(uText!);
  assert.equal(U.length, m);
  assert.ok(
    U.some((row) => row.some((v) => (v < 0n ? -v : v) > 2n ** 53n)),
    'this channel needs U past 2^53',
  );
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0n;
      for (let k = 0; k < m; k++) s += U[i]![k]! * BigInt(rows[k]![j]!);
      assert.equal(B[i]![j], s, `(U B_in)(${i}, ${j})`);
    }
});

test('reduce --check reports PASS and the metrics on stderr; --json works; every algorithm runs', () => {
  const { text } = randomIntegerBasisText(6, 6);
  for (const a of ['lll', 'allswap', 'block', 'cr-block', 'jacobi', 'jacobi-parallel']) {
    const r = cli(['reduce', '-a', a, '--check', ...(a === 'block' || a === 'cr-block' ? ['-b', '3'] : [])], text);
    assert.equal(r.status, 0, `${a}: ${r.stderr}`);
    assert.match(r.stderr, /check: PASS/);
    assert.match(r.stderr, /Hadamard ratio/);
  }
  const plain = cli(['reduce', '-a', 'block', '--no-drift-watch', '--check', '-b', '3'], text);
  assert.equal(plain.status, 0, `--no-drift-watch: ${plain.stderr}`);
  assert.match(plain.stderr, /check: PASS/);
  const j = cli(['reduce', '--json', '-of', 'bu'], text);
  assert.equal(j.status, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.check.ok, true);
  assert.equal(doc.basis.length, 6);
  assert.equal(doc.transform.length, 6);
});

test('reduce errors: one line on stderr, exit code 2', () => {
  const cases: [string[], string, RegExp][] = [
    [['reduce'], '', /empty input/],
    [['reduce'], '[[1 2][3 nan]]', /NaN|nan|non-finite|number/i],
    [['reduce'], '[[1 2][3]]', /ragged|entries/i],
    [['reduce'], '[[1 2][2 4]]', /dependent/],
    [['reduce'], '[[0 0][1 2]]', /zero/],
    [['reduce', '-d', '1.2'], '[[1 2][3 4]]', /delta/],
    [['reduce', '-e', '0.3'], '[[1 2][3 4]]', /eta/],
    [['reduce', '-a', 'bkz'], '[[1 2][3 4]]', /algorithm/],
    [['reduce', '--bogus'], '[[1 2][3 4]]', /bogus/],
    [['reduce', '--engine', 'cuda', '--engine', 'warp'], '[[1 2][3 4]]', /engine/],
    [['nonsense'], '', /unknown command/],
  ];
  for (const [args, input, pattern] of cases) {
    const r = cli(args, input);
    assert.equal(r.status, 2, `${args.join(' ')}: status ${r.status}, stderr ${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(lines[0]!, pattern);
  }
});

test('info lists the engines', () => {
  const r = cli(['info']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /cpu/);
});

test('reduce -v: progress of the precision ladder on stderr (a non-terminal gets plain lines), stdout the same as without it; without -v stderr stays empty', () => {
  // a knapsack basis past 2^53 (the ladder's double-double rung): a random column of 120-bit numbers, then the identity
  const m = 12 + rng.int(6);
  const rows = Array.from({ length: m }, (_, i) => [
    BigInt(`0x8${Array.from({ length: 29 }, () => rng.int(16).toString(16)).join('')}`),
    ...Array.from({ length: m }, (_, j) => (i === j ? 1n : 0n)),
  ]);
  const text = `[${rows.map((r) => `[${r.join(' ')}]`).join('\n')}]\n`;
  const quiet = cli(['reduce', '-d', '0.99'], text);
  const verbose = cli(['reduce', '-d', '0.99', '-v'], text);
  assert.equal(quiet.status, 0, quiet.stderr);
  assert.equal(verbose.status, 0, verbose.stderr);
  assert.equal(quiet.stderr, '', 'no progress without -v on a non-terminal');
  assert.equal(verbose.stdout, quiet.stdout, `seed ${seed}: -v changed the output`);
  const lines = verbose.stderr.trim().split('\n');
  assert.ok(lines.length >= 1 && lines.every((l) => /^lll: /.test(l)), `seed ${seed}: ${verbose.stderr}`);
  assert.match(lines[0]!, /^lll: double-double rung started, \d+ vectors, \d+ s$/);
  const help = cli(['reduce', '--help']);
  assert.match(help.stdout, /-v, --verbose/);
  // every other path reports too (issue 28: -v was silent off the ladder): its start and its end
  const small = '[[1 0 0][1 1 0][1 1 1]]';
  for (const args of [['-a', 'allswap', '--engine', 'cpu'], ['-a', 'jacobi', '--engine', 'cpu'], []]) {
    const plain = cli(['reduce', ...args], small);
    const told = cli(['reduce', ...args, '-v'], small);
    assert.equal(told.status, 0, told.stderr);
    assert.equal(told.stdout, plain.stdout, `${args.join(' ')}: -v changed the output`);
    assert.equal(plain.stderr, '');
    assert.match(told.stderr, /3 vectors in dimension 3, reducing\n/, args.join(' '));
    assert.match(
      told.stderr,
      /on cpu \(float64(, WebAssembly kernel)?\): \d+ iterations, \d+ swaps, [\d.]+ ms; result checked \(pass\)\n$/,
    );
  }
});

test('reduce --cpu-kernel: the same output from the WebAssembly kernel and the TypeScript reference; refused where it does not apply', () => {
  assert.match(cli(['reduce', '--help']).stdout, /--cpu-kernel K/);
  const basis = `[${Array.from({ length: 6 }, () => `[${Array.from({ length: 6 }, () => rng.int(2001) - 1000).join(' ')}]`).join('')}]`;
  const ts = cli(['reduce', '-of', 'bu', '--cpu-kernel', 'typescript', '-v'], basis);
  assert.equal(ts.status, 0, ts.stderr);
  assert.doesNotMatch(ts.stderr, /WebAssembly/);
  const auto = cli(['reduce', '-of', 'bu', '-v'], basis);
  assert.equal(auto.stdout, ts.stdout);
  if (wasmUnavailableReason() === null) assert.match(auto.stderr, /WebAssembly kernel/);
  for (const args of [
    ['--cpu-kernel', 'wasm', '-a', 'allswap'],
    ['--cpu-kernel', 'typescript', '--precision', 'float32'],
    ['--cpu-kernel', 'fast'],
  ]) {
    const r = cli(['reduce', ...args], basis);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /cpu-kernel/, args.join(' '));
  }
});

test('reduce --checkpoint FILE: the basis as it stands written atomically while the ladder runs (a basis of the same lattice, fplll format), reduce FILE goes on from it, --from-rung at a chosen rung; bad uses rejected before the input is read', async () => {
  const { mkdtempSync, readFileSync, readdirSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { determinantBig } = await import('../../src/lattice/precision/exact.js');
  const dir = mkdtempSync(join(tmpdir(), 'lm-ckpt-'));
  try {
    // a q-ary basis of 16 dimensions, 150-bit q: the double-double rung runs for thousands of steps
    const d = 16,
      k = 8,
      q = 2n ** 149n + BigInt(rng.int(1 << 30));
    const rows = Array.from({ length: d }, (_, i) =>
      Array.from({ length: d }, (_, j) => {
        if (i < k) return j < k ? (i === j ? 1n : 0n) : BigInt(rng.int(2 ** 30)) ** 5n % q;
        return i === j ? q : 0n;
      }),
    );
    const text = `[${rows.map((r) => `[${r.join(' ')}]`).join('\n')}]\n`;
    const file = join(dir, 'ck.txt');
    const r = cli(['reduce', '-v', '-d', '0.99', '--checkpoint', file, '--checkpoint-every', '0.001'], text);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`checkpoint written to ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    const ck = parseFplll(readFileSync(file, 'utf8'));
    const ckRows = ck.bigValues ?? ck.values.map((row) => row.map(BigInt));
    assert.equal(ckRows.length, d);
    const abs = (x: bigint) => (x < 0n ? -x : x);
    assert.equal(
      abs(determinantBig(ckRows)),
      abs(determinantBig(rows)),
      'the checkpoint spans a lattice of the same volume',
    );
    assert.deepEqual(readdirSync(dir), ['ck.txt'], 'no temporary file left beside it');
    const again = cli(['reduce', '-d', '0.99', '--check', file]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /PASS/);
    // going on at a chosen rung: the rungs below it do not run
    const fromQuad = cli(['reduce', '-v', '-d', '0.99', '--check', '--from-rung', 'quad-double', file]);
    assert.equal(fromQuad.status, 0, fromQuad.stderr);
    assert.match(fromQuad.stderr, /quad-double rung started/);
    assert.doesNotMatch(fromQuad.stderr, /double-double rung|float64 rung/);
    assert.match(fromQuad.stderr, /PASS/);
    // rejected before stdin is read (no input given: a read would fail otherwise)
    for (const [args, msg] of [
      [['reduce', '-a', 'allswap', '--checkpoint', file], /checkpoints are lll's/],
      [['reduce', '--checkpoint-every', '5'], /--checkpoint-every needs --checkpoint FILE/],
      [['reduce', '--checkpoint', file, '--checkpoint-every', '0'], /positive number of seconds/],
      [['reduce', '--checkpoint', join(dir, 'no', 'such', 'x.txt')], /does not exist/],
      [['reduce', '--checkpoint', '-'], /needs a regular file/],
      [['reduce', '--checkpoint', '/dev/null'], /needs a regular file/],
      [['reduce', '--from-rung', 'octuple'], /--from-rung must be one of float64, double-double, quad-double, exact/],
      [['reduce', '-a', 'block', '--from-rung', 'exact'], /the precision ladder is lll's/],
    ] as const) {
      const e = cli([...args]);
      assert.equal(e.status, 2, `${args.join(' ')}: ${e.stderr}`);
      assert.match(e.stderr, msg);
      assert.equal(e.stderr.trim().split('\n').length, 1, e.stderr);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
