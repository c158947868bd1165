/**
 * The command line's conventions, run as a user runs them (node dist/src/cli/main.js ...): help and
 * --version on stdout with exit 0, unknown options refused by every subcommand, options checked
 * before stdin is read, '-' for stdin / stdout, a closed pipe ending quietly, I/O errors as one
 * line with exit 2, output paths checked before any work, and atomic writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { checkOutputPath, writeFileAtomic } from '../../src/core/io.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../../package.json', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin?: string): Run {
  const r = spawnSync(process.execPath, [MAIN, ...args], { input: stdin ?? '', encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertOneLineError(r: Run, code: string, mentions: string, what: string): void {
  assert.equal(r.code, 2, `${what}: exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line on stderr, got: ${r.stderr}`);
  assert.match(lines[0]!, new RegExp(`^lattice-mimo: error \\[${code}\\]: `), what);
  assert.ok(lines[0]!.includes(mentions), `${what}: '${lines[0]}' should mention '${mentions}'`);
}

/** A small detect input: `vectors` random 2x2 problems. */
function detectInput(vectors: number): string {
  const g = () => [Math.random() - 0.5, Math.random() - 0.5];
  return JSON.stringify({
    H: Array.from({ length: vectors }, () => [
      [g(), g()],
      [g(), g()],
    ]),
    y: Array.from({ length: vectors }, () => [g(), g()]),
  });
}

const COMMANDS = ['reduce', 'detect', 'simulate', 'demo', 'info'];

test("help CMD and CMD --help print the same usage on stdout with exit 0; --version is package.json's", () => {
  for (const cmd of [...COMMANDS, 'bench']) {
    const a = cli([cmd, '--help']),
      b = cli(['help', cmd]);
    assert.equal(a.code, 0, `${cmd} --help: ${a.stderr}`);
    assert.equal(b.code, 0, `help ${cmd}: ${b.stderr}`);
    assert.match(a.stdout, new RegExp(`^usage: lattice-mimo ${cmd}`), cmd);
    assert.equal(b.stdout, a.stdout, `help ${cmd} = ${cmd} --help`);
  }
  const v = cli(['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout, `lattice-mimo ${JSON.parse(readFileSync(PACKAGE, 'utf8')).version}\n`);
  assertOneLineError(cli(['help', 'nosuch']), 'INVALID_ARGUMENT', 'nosuch', 'help of an unknown command');
});

test('every subcommand refuses an unknown option with one line naming it', () => {
  fc.assert(
    fc.property(fc.constantFrom(...COMMANDS), fc.stringMatching(/^[a-z]{3,9}$/), (cmd, word) => {
      const opt = `--zz${word}`;
      assertOneLineError(cli([cmd, opt, '1'], ''), 'INVALID_ARGUMENT', opt, `${cmd} ${opt}`);
    }),
    { numRuns: 10 },
  );
});

test('options are checked before stdin is read: a bad option fails at once with stdin left open', async () => {
  const cases: [string[], string][] = [
    [['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', '0.1', '--k', '4'], '--k'],
    [['detect', '--detector', 'sphere', '--mod', 'qpsk', '--noise-var', '0.1', '--psd-levels', '1,2'], '--psd-levels'],
    [['detect', '--detector', 'psd', '--mod', 'qpsk', '--noise-var', '0.1', '--soft', 'maxlog'], '--soft'],
    [['reduce', '-a', 'nope'], '--algorithm'],
    [['reduce', '-d', 'abc'], 'delta'],
    [['reduce', '-a', 'lll', '-b', '4'], '--block-size'],
  ];
  for (const [args, mentions] of cases) {
    const r = await new Promise<Run>((resolve, reject) => {
      const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '',
        stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${args.join(' ')} waited for stdin`));
      }, 20_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      // stdin stays open: a command that reads it first would hang
    });
    assertOneLineError(r, 'INVALID_ARGUMENT', mentions, args.join(' '));
  }
});

test("'-' means stdin and stdout; negative values reach the checks as values", async () => {
  const input = detectInput(1 + randomInt(5));
  const viaDash = cli(
    ['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', '0.1', '--input', '-', '--output', '-'],
    input,
  );
  const plain = cli(['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', '0.1'], input);
  assert.equal(viaDash.code, 0, viaDash.stderr);
  assert.equal(viaDash.stdout, plain.stdout);
  const reduced = cli(['reduce', '-'], '[[1 0][1 1]]');
  assert.equal(reduced.code, 0, reduced.stderr);
  assertOneLineError(
    cli(['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', `-${1 + randomInt(9)}`], input),
    'INVALID_ARGUMENT',
    '>= 0',
    'negative noise',
  );
  const snr = -1 - randomInt(20);
  const sim = cli([
    'simulate',
    '--mimo',
    '1x1',
    '--detector',
    'zf',
    '--snr',
    String(snr),
    '--max-vectors',
    '64',
    '--threads',
    '1',
    '--json',
    '-',
  ]);
  assert.equal(sim.code, 0, sim.stderr);
  assert.equal(JSON.parse(sim.stdout).points[0].snr, snr);
});

test('a closed stdout pipe ends quietly (141, no stack trace); a full disk is one IO_ERROR line, exit 2', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-io-'));
  try {
    await writeFile(join(dir, 'in.json'), detectInput(200));
    const args = [
      MAIN,
      'detect',
      '--detector',
      'zf',
      '--mod',
      'qpsk',
      '--noise-var',
      '0.1',
      '--input',
      join(dir, 'in.json'),
    ];
    // `true` closes the pipe before the command writes
    const quoted = [process.execPath, ...args].map((a) => `'${a}'`).join(' ');
    const piped = spawnSync('bash', ['-c', `${quoted} 2>${join(dir, 'err')} | true; echo \${PIPESTATUS[0]}`], {
      encoding: 'utf8',
    });
    assert.ok(['0', '141'].includes(piped.stdout.trim()), `exit status ${piped.stdout}`);
    assert.equal(await readFile(join(dir, 'err'), 'utf8'), '', 'nothing on stderr');
    // stdout on /dev/full, and --output /dev/full
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, args, { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      assertOneLineError(
        { code: r.status, stdout: '', stderr: r.stderr },
        'IO_ERROR',
        'no space left',
        'stdout on /dev/full',
      );
    } finally {
      closeSync(full);
    }
    assertOneLineError(cli([...args.slice(1), '--output', '/dev/full']), 'IO_ERROR', '/dev/full', '--output /dev/full');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('output paths are checked before any work: a missing directory is IO_ERROR, nothing computed', async () => {
  const missing = join(tmpdir(), `no-such-${randomBytes(6).toString('hex')}`);
  for (const opt of ['--json', '--csv', '--plot']) {
    const file = join(missing, opt === '--plot' ? 'p.svg' : 'r.out');
    const r = cli(['simulate', '--mimo', '2x2', '--detector', 'zf', '--snr', '0', '--max-vectors', '64', opt, file]);
    assertOneLineError(r, 'IO_ERROR', missing, `simulate ${opt}`); // one line: no table, so no work
  }
  assertOneLineError(
    cli(
      ['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', '1', '--output', join(missing, 'o.json')],
      detectInput(1),
    ),
    'IO_ERROR',
    missing,
    'detect --output',
  );
  assert.throws(() => checkOutputPath('json', tmpdir()), { code: 'IO_ERROR', message: /is a directory/ });
});

test('atomic writes: the file holds exactly what was written; a failed write keeps the old content and leaves no temporary file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'atomic-'));
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 5000 }),
        fc.string({ maxLength: 200 }),
        fc.integer({ min: 1, max: 3 }),
        async (bytes, text, failAfter) => {
          const file = join(dir, 'f.bin');
          await writeFileAtomic(file, bytes);
          assert.deepEqual(new Uint8Array(await readFile(file)), bytes);
          await writeFileAtomic(file, text);
          assert.equal(await readFile(file, 'utf8'), text);
          // a write that fails part way (an iterable that throws after some chunks)
          async function* failing() {
            for (let i = 0; i < failAfter; i++) yield Buffer.from(`chunk ${i}\n`);
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          }
          await assert.rejects(writeFileAtomic(file, failing() as unknown as Uint8Array), {
            code: 'IO_ERROR',
            message: /f\.bin/,
          });
          assert.equal(await readFile(file, 'utf8'), text, 'old content kept');
          assert.deepEqual(await readdir(dir), ['f.bin'], 'no temporary file left');
        },
      ),
      { numRuns: 40 },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
