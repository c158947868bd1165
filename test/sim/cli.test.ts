/**
 * The simulate and detect commands, run as a user runs them (node dist/src/cli/main.js ...): bad
 * options exit 2 with one line on stderr; a small simulation writes JSON and CSV that agree with
 * the library; detect round-trips a JSON file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { MODULATIONS } from '../../src/mimo/types.js';
import { simulate } from '../../src/sim/simulate.js';

/** The built CLI, found from this test's own compiled location (dist/test/sim -> dist/src/cli). */
const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '',
      stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

function assertOneLineError(
  r: { code: number | null; stderr: string; stdout: string },
  code: string,
  mentions: string,
  what: string,
): void {
  assert.equal(r.code, 2, `${what}: exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line on stderr, got: ${r.stderr}`);
  assert.match(lines[0]!, new RegExp(`^lattice-mimo: error \\[${code}\\]: `), what);
  assert.ok(lines[0]!.includes(mentions), `${what}: '${lines[0]}' should mention '${mentions}'`);
  assert.equal(r.stdout, '', what);
}

test('bad simulate and detect options exit 2 with one line', async () => {
  const cases: [string[], string, string][] = [
    [['simulate', '--mimo', '4y4'], 'INVALID_ARGUMENT', '--mimo'],
    [['simulate', '--mod', 'qam7'], 'INVALID_ARGUMENT', '--mod'],
    [['simulate', '--detector', 'zf,magic'], 'INVALID_ARGUMENT', 'magic'],
    [['simulate', '--snr', '0:0:3'], 'INVALID_ARGUMENT', 'step'],
    [['simulate', '--max-vectors', 'many'], 'INVALID_ARGUMENT', '--max-vectors'],
    [['simulate', '--frobnicate'], 'INVALID_ARGUMENT', 'frobnicate'],
    // without a device the GPU link is unavailable (with one, --engine cuda runs)
    ...(cudaAvailable().ok
      ? []
      : [[['simulate', '--engine', 'cuda'], 'ENGINE_UNAVAILABLE', 'CUDA'] as [string[], string, string]]),
    [['detect', '--mod', 'qpsk', '--noise-var', '0.1'], 'INVALID_ARGUMENT', '--detector'],
    [['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', '-1'], 'INVALID_ARGUMENT', '--noise-var'],
  ];
  for (const [args, code, mentions] of cases) assertOneLineError(await cli(args), code, mentions, args.join(' '));
  const help = await cli(['simulate', '--help']);
  assert.equal(help.code, 0);
  for (const opt of [
    '--mimo',
    '--mod',
    '--detector',
    '--snr',
    '--snr-type',
    '--max-errors',
    '--max-vectors',
    '--vectors-per-channel',
    '--seed',
    '--threads',
    '--engine',
    '--json',
    '--csv',
    '--plot',
    '--k',
    '--passes',
    '--max-time',
    '--resume',
  ]) {
    assert.ok(help.stdout.includes(opt), `help mentions ${opt}`);
  }
});

test('simulate writes JSON and CSV equal to the library run with the same seed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sim-cli-'));
  try {
    const snrs = [randomInt(6), 6 + randomInt(10)];
    const r = await cli([
      'simulate',
      '--mimo',
      '2x2',
      '--mod',
      'qpsk',
      '--detector',
      'zf,mmse',
      '--snr',
      snrs.join(','),
      '--snr-type',
      'ebn0',
      '--max-errors',
      '100',
      '--max-vectors',
      '3000',
      '--seed',
      String(seed),
      '--threads',
      '2',
      '--json',
      join(dir, 'r.json'),
      '--csv',
      join(dir, 'r.csv'),
    ]);
    assert.equal(r.code, 0, msg(r.stderr));
    assert.ok(r.stderr.includes('Eb/N0'), 'the table says which SNR it shows');
    const json = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8'));
    const lib = await simulate({
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
      snrs,
      snrType: 'ebn0',
      maxErrors: 100,
      maxVectors: 3000,
      seed,
      threads: 1,
    });
    assert.equal(json.points.length, 4);
    json.points.forEach((p: Record<string, unknown>, i: number) => {
      const q = lib.points[i]!;
      for (const k of ['detector', 'snr', 'snrType', 'ber', 'ser', 'fer', 'bitErrors', 'bits', 'vectors'] as const) {
        assert.equal(p[k], q[k], msg(`point ${i} field ${k}`));
      }
    });
    const csv = (await readFile(join(dir, 'r.csv'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const head = csv[0]!;
    assert.equal(csv.length, 5);
    csv.slice(1).forEach((row, i) => {
      assert.equal(row[head.indexOf('detector')], lib.points[i]!.detector);
      assert.equal(Number(row[head.indexOf('bitErrors')]), lib.points[i]!.bitErrors);
      assert.equal(Number(row[head.indexOf('ber')]), lib.points[i]!.ber);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Random problems y = H s + w with small noise, as the detect JSON holds them. */
function randomDetectJson(
  rng: Philox,
  nt: number,
  nr: number,
  vectors: number,
  mod: (typeof MODULATIONS)[number],
  noiseSd: number,
) {
  const c = constellation(mod);
  const H: number[][][][] = [],
    y: number[][][] = [],
    tx: number[][] = [];
  for (let v = 0; v < vectors; v++) {
    const Hv = Array.from({ length: nr }, () =>
      Array.from({ length: nt }, () => [rng.normal() * Math.SQRT1_2, rng.normal() * Math.SQRT1_2]),
    );
    const s = Array.from({ length: nt }, () => rng.int(c.size));
    const yv = Hv.map((row) => {
      let re = rng.normal() * noiseSd,
        im = rng.normal() * noiseSd;
      row.forEach(([hr, hi], j) => {
        const sr = c.points[2 * s[j]!]!,
          si = c.points[2 * s[j]! + 1]!;
        re += hr! * sr - hi! * si;
        im += hr! * si + hi! * sr;
      });
      return [re, im];
    });
    H.push(Hv);
    y.push(yv);
    tx.push(s);
  }
  return { H, y, tx };
}

test('detect round trip: near-noiseless problems come back with the transmitted symbols and their bits', async () => {
  const rng = new Philox(seed, 3);
  const dir = await mkdtemp(join(tmpdir(), 'detect-cli-'));
  try {
    for (const [detector, mod] of [
      ['zf', 'qpsk'],
      ['mmse', '16qam'],
      ['zf', 'bpsk'],
      ['kbest', '16qam'],
    ] as const) {
      const nt = 1 + rng.int(3),
        nr = nt + rng.int(2),
        vectors = 1 + rng.int(12);
      const { H, y, tx } = randomDetectJson(rng, nt, nr, vectors, mod, 1e-4);
      // Via stdin / stdout for one, via --input / --output for the others.
      const viaFiles = detector !== 'zf' || mod === 'bpsk';
      let out: { symbols: number[][]; bits: number[][]; llr?: number[][] };
      const soft = detector === 'kbest';
      const clip = 5 + rng.int(20);
      const args = [
        'detect',
        '--detector',
        detector,
        '--mod',
        mod,
        '--noise-var',
        '1e-6',
        ...(soft ? ['--k', '16', '--llr-clip', String(clip)] : []),
      ];
      if (viaFiles) {
        await writeFile(join(dir, 'in.json'), JSON.stringify({ H, y }));
        const r = await cli([...args, '--input', join(dir, 'in.json'), '--output', join(dir, 'out.json')]);
        assert.equal(r.code, 0, msg(r.stderr));
        out = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8'));
      } else {
        const r = await cli(args, JSON.stringify({ H, y }));
        assert.equal(r.code, 0, msg(r.stderr));
        out = JSON.parse(r.stdout);
      }
      const c = constellation(mod);
      // With noise 1e-4 a wrong decision needs an ill-conditioned H beyond any realistic draw here.
      assert.deepEqual(out.symbols, tx, msg(`${detector} ${mod} ${nt}x${nr}`));
      assert.deepEqual(
        out.bits,
        tx.map((s) => s.flatMap((k) => [...c.bitTable.subarray(k * c.bitsPerSymbol, (k + 1) * c.bitsPerSymbol)])),
        msg('bits'),
      );
      if (!soft) {
        assert.equal(out.llr, undefined, 'hard detectors give no LLRs');
        continue;
      }
      // LLR = ln P(b=0)/P(b=1): its sign is the hard bit (positive means 0), clipped to the limit.
      assert.equal(out.llr!.length, vectors);
      out.llr!.forEach((row, v) => {
        row.forEach((l, b) => {
          assert.ok(Math.abs(l) <= clip, msg(`|LLR| ${l} above clip ${clip}`));
          assert.equal(
            l > 0 ? 0 : 1,
            out.bits[v]![b],
            msg(`LLR ${l} vs bit ${out.bits[v]![b]} (vector ${v}, bit ${b})`),
          );
        });
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('detect names the bad part of its input', async () => {
  const rng = new Philox(seed, 4);
  const { H, y } = randomDetectJson(rng, 2, 2, 3, 'qpsk', 0.1);
  const args = ['detect', '--detector', 'zf', '--mod', 'qpsk', '--noise-var', '0.1'];
  const broken = (f: (d: { H: unknown[]; y: unknown[] }) => void) => {
    const d = JSON.parse(JSON.stringify({ H, y }));
    f(d);
    return JSON.stringify(d);
  };
  const cases: [string, string, string][] = [
    ['{"H": [', 'PARSE_ERROR', 'not valid JSON'],
    ['[]', 'INVALID_INPUT', 'JSON object'],
    ['', 'INVALID_INPUT', 'input is empty'],
    [
      broken((d) => {
        d.y.pop();
      }),
      'SHAPE_MISMATCH',
      '2 vectors',
    ],
    [
      broken((d) => {
        (d.H[2] as unknown[][]).pop();
      }),
      'SHAPE_MISMATCH',
      'H[2]',
    ],
    [
      broken((d) => {
        (d.H[1] as unknown[][])[1]!.pop();
      }),
      'SHAPE_MISMATCH',
      'H[1] row 1',
    ],
    [
      broken((d) => {
        (d.H[0] as unknown[][][])[1]![0]![1] = 'x';
      }),
      'INVALID_INPUT',
      'H[0] row 1 column 0',
    ],
    [
      broken((d) => {
        (d.y[2] as unknown[]).push([0, 0]);
      }),
      'SHAPE_MISMATCH',
      'y[2]',
    ],
    [
      broken((d) => {
        delete (d as { H?: unknown }).H;
      }),
      'INVALID_INPUT',
      '"H"',
    ],
    // JSON has no NaN, but 1e999 parses to Infinity.
    [
      broken((d) => {
        ((d.y[1] as unknown[])[0] as unknown[])[1] = 12345.5;
      }).replace('12345.5', '1e999'),
      'NON_FINITE',
      'y[1] entry 0',
    ],
  ];
  for (const [input, code, mentions] of cases)
    assertOneLineError(await cli(args, input), code, mentions, `${code} ${mentions}`);
});
