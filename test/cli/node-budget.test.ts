/**
 * The node-budget options of detect and simulate (--max-nodes, --on-budget), run as a user runs
 * them: a budget too small for the search is exit 2 with NODE_BUDGET under 'error', and a success
 * with every stopped vector marked under 'flag'; the options are refused where they do not apply.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin = ''): Run {
  const r = spawnSync(process.execPath, [MAIN, ...args], { input: stdin, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertError(r: Run, code: string, what: string): void {
  assert.equal(r.code, 2, `${what}: exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('lattice-mimo: error'));
  assert.equal(lines.length, 1, `${what}: one error line, got: ${r.stderr}`);
  assert.match(lines[0]!, new RegExp(`^lattice-mimo: error \\[${code}\\]: `), what);
}

/** `vectors` random nr x nt problems (Gaussian channels, full rank almost surely) with noisy y, as detect's JSON. */
function problem(nt: number, nr: number, vectors: number): string {
  const gauss = () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
  const c = (scale: number) => () => [scale * gauss(), scale * gauss()];
  const H = Array.from({ length: vectors }, () =>
    Array.from({ length: nr }, () => Array.from({ length: nt }, c(Math.SQRT1_2))),
  );
  const y = Array.from({ length: vectors }, () => Array.from({ length: nr }, c(2)));
  return JSON.stringify({ H, y });
}

test('detect: a budget below one leaf is NODE_BUDGET under error (the default) and flags every vector under flag', () => {
  for (const detector of ['sphere', 'psd']) {
    const nt = randomInt(2, 5),
      nr = nt + randomInt(0, 2),
      vectors = randomInt(1, 6);
    const input = problem(nt, nr, vectors);
    const base = ['detect', '--detector', detector, '--mod', '16qam', '--noise-var', '0.5', '--max-nodes', '1'];
    assertError(cli(base, input), 'NODE_BUDGET', `${detector} default`);
    assertError(cli([...base, '--on-budget', 'error'], input), 'NODE_BUDGET', `${detector} error`);
    const r = cli([...base, '--on-budget', 'flag'], input);
    assert.equal(r.code, 0, `${detector} flag: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { symbols: number[][]; unproven: number[] };
    assert.equal(out.symbols.length, vectors);
    for (const row of out.symbols)
      for (const s of row) assert.ok(Number.isInteger(s) && s >= 0 && s < 16, `${detector}: symbol ${s}`);
    // One node cannot reach a leaf of a tree of depth nt >= 2: every vector stopped unproven.
    assert.deepEqual(out.unproven, new Array<number>(vectors).fill(1), `${detector}: unproven`);
  }
});

test('detect: a budget the search fits in gives the unbudgeted answer and no "unproven"', () => {
  const nt = randomInt(1, 4),
    vectors = randomInt(1, 6);
  const input = problem(nt, nt, vectors);
  const args = ['detect', '--detector', 'sphere', '--mod', 'qpsk', '--noise-var', '0.2'];
  const plain = cli(args, input),
    budgeted = cli([...args, '--max-nodes', '1000000', '--on-budget', 'flag'], input);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(budgeted.code, 0, budgeted.stderr);
  assert.equal(budgeted.stdout, plain.stdout);
  assert.ok(!('unproven' in JSON.parse(budgeted.stdout)));
});

test('detect: ml and kbest refuse a fixed work past --max-nodes; the options are refused where they do not apply', () => {
  const input = problem(4, 4, 2);
  const base = ['--mod', '16qam', '--noise-var', '0.5'];
  assertError(
    cli(['detect', '--detector', 'ml', ...base, '--max-nodes', String(randomInt(1, 65536))], input),
    'NODE_BUDGET',
    'ml 16^4 hypotheses',
  );
  assertError(
    cli(['detect', '--detector', 'kbest', '--k', '4', ...base, '--max-nodes', String(randomInt(1, 8))], input),
    'NODE_BUDGET',
    'kbest',
  );
  for (const d of ['zf', 'mmse', 'sic', 'ssfe', 'nway', 'lr-zf'])
    assertError(
      cli(['detect', '--detector', d, ...base, '--max-nodes', '10'], input),
      'INVALID_ARGUMENT',
      `--max-nodes with ${d}`,
    );
  for (const d of ['zf', 'ml', 'kbest'])
    assertError(
      cli(['detect', '--detector', d, ...base, '--on-budget', 'flag'], input),
      'INVALID_ARGUMENT',
      `--on-budget with ${d}`,
    );
  for (const bad of ['0', '-3', '1.5', 'many'])
    assertError(
      cli(['detect', '--detector', 'sphere', ...base, '--max-nodes', bad], input),
      'INVALID_ARGUMENT',
      `--max-nodes ${bad}`,
    );
  assertError(
    cli(['detect', '--detector', 'sphere', ...base, '--on-budget', 'ignore'], input),
    'INVALID_ARGUMENT',
    '--on-budget ignore',
  );
});

test('simulate: --on-budget error stops with NODE_BUDGET naming the point, chunk and vector (the JSON keeps the error); flag finishes and keeps the budget in the JSON', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lm-budget-'));
  try {
    const seed = String(randomInt(1 << 30));
    const common = [
      'simulate',
      '--mimo',
      '4x4',
      '--mod',
      '16qam',
      '--detector',
      'sphere,zf',
      '--snr',
      '0,8',
      '--max-vectors',
      '64',
      '--unit-vectors',
      '64',
      '--threads',
      '1',
      '--seed',
      seed,
      '--max-nodes',
      '2',
    ];
    const failed = join(dir, 'failed.json');
    const stopped = cli([...common, '--on-budget', 'error', '--json', failed]);
    assertError(stopped, 'NODE_BUDGET', 'simulate error');
    // two nodes cannot reach a leaf: the first chunk's first vector stops the run, no point finished
    assert.match(
      stopped.stderr,
      /error \[NODE_BUDGET\]: SNR point 0 \(0 dB\), detector sphere, chunk 0, vector 0: the search reached the node budget maxNodes = 2 /,
    );
    const record = JSON.parse(readFileSync(failed, 'utf8')) as {
      points: unknown[];
      interrupted: boolean;
      error: { code: string; context: Record<string, unknown> };
    };
    assert.deepEqual(record.points, [], 'the JSON of a run stopped before any point finished');
    assert.equal(record.interrupted, true);
    assert.equal(record.error.code, 'NODE_BUDGET');
    assert.deepEqual(record.error.context, { detector: 'sphere', vector: 0, snrIndex: 0, chunk: 0, snr: 0 });
    const ok = join(dir, 'ok.json');
    const r = cli([...common, '--on-budget', 'flag', '--json', ok]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(readFileSync(ok, 'utf8')) as {
      detectors: Record<string, unknown>[];
      points: { detector: string; vectors: number; unproven: number }[];
    };
    assert.deepEqual(doc.detectors, [{ detector: 'sphere', maxNodes: 2, onBudget: 'flag' }, { detector: 'zf' }]);
    assert.equal(doc.points.length, 4);
    for (const p of doc.points) assert.ok(p.vectors >= 1 && p.vectors <= 64);
    // every search stopped at two nodes: all its vectors unproven; zf has no budget
    for (const p of doc.points) assert.equal(p.unproven, p.detector === 'sphere' ? p.vectors : 0, p.detector);
    assertError(
      cli(['simulate', '--detector', 'zf,mmse', '--max-nodes', '5']),
      'INVALID_ARGUMENT',
      '--max-nodes without a budgeted detector',
    );
    assertError(
      cli(['simulate', '--detector', 'kbest', '--on-budget', 'flag']),
      'INVALID_ARGUMENT',
      '--on-budget without sphere or psd',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
