/** The live table: one row per detector and point when not a terminal; redrawn in place (ANSI) on one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { simulate } from '../../src/sim/simulate.js';
import { LiveTable } from '../../src/sim/table.js';

async function runWithTable(tty: boolean, snrType: 'esn0' | 'ebn0') {
  let text = '';
  const table = new LiveTable(
    {
      write: (s: string) => {
        text += s;
      },
      isTTY: tty,
    },
    snrType,
  );
  table.start();
  const snrs = [randomInt(5), 5 + randomInt(10)];
  const result = await simulate({
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
    snrs,
    snrType,
    maxErrors: 400,
    maxVectors: 4096,
    unitVectors: 128,
    seed: randomInt(2 ** 31),
    threads: 1,
    onProgress: (e) => table.update(e),
  });
  table.finish(result);
  return { text, result };
}

test('not a terminal: a header saying which SNR, then one plain line per detector and point', async () => {
  const { text, result } = await runWithTable(false, 'ebn0');
  assert.ok(!text.includes('\x1b['), 'no ANSI codes in a log');
  assert.ok(text.startsWith('SNR is Eb/N0 in dB'));
  const rows = text.split('\n').filter((l) => /^\s+-?\d+\.\d \| /.test(l));
  assert.equal(rows.length, result.points.length);
  rows.forEach((row, i) => {
    const cells = row.split('|').map((c) => c.trim());
    const p = result.points[i]!;
    assert.equal(Number(cells[0]), p.snr);
    assert.equal(cells[1], p.detector);
    assert.ok(Math.abs(Number(cells[2]) - p.ber) <= 0.005 * p.ber + 1e-12, `${cells[2]} vs ${p.ber}`);
    assert.equal(Number(cells[5]), p.bitErrors);
    assert.equal(Number(cells[6]), p.vectors);
  });
});

test('terminal: rows are redrawn in place with cursor-up and clear-line', async () => {
  const { text } = await runWithTable(true, 'esn0');
  assert.ok(text.startsWith('SNR is Es/N0 in dB'));
  assert.ok(text.includes('\x1b[2K'), 'clear-line');
  // Every cursor-up moves over exactly the two rows (two detectors) of the point being drawn.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequence is what is tested
  const ups = [...text.matchAll(/\x1b\[(\d+)A/g)].map((m) => Number(m[1]));
  assert.ok(ups.length >= 1 && ups.every((n) => n === 2), `cursor-up counts ${ups.join(',')}`);
});

test("terminal: a running row shows the point's wall time, redrawn by progress without new chunks", () => {
  let text = '';
  const table = new LiveTable(
    {
      write: (s: string) => {
        text += s;
      },
      isTTY: true,
    },
    'esn0',
  );
  const point = {
    detector: 'ml',
    algorithm: 'ml' as const,
    snrIndex: 0,
    snr: 3,
    snrType: 'esn0' as const,
    esn0Db: 3,
    ebn0Db: 0,
    noiseVar: 0.5,
    ber: 0,
    ser: 0,
    fer: 0,
    bitErrors: 0,
    symbolErrors: 0,
    frameErrors: 0,
    bits: 0,
    symbols: 0,
    frames: 0,
    vectors: 0,
    unproven: 0,
    timeMs: 0,
    stoppedBy: 'vectors' as const,
  };
  const walls = [1500 + randomInt(1000), 4000 + randomInt(4000)];
  const start = performance.now();
  for (const w of walls) {
    while (performance.now() - start < 120 * (walls.indexOf(w) + 1)) {
      /* past the redraw throttle */
    }
    table.update({
      type: 'update',
      snrIndex: 0,
      snr: 3,
      snrType: 'esn0',
      points: [point],
      finished: [false],
      pointWallMs: w,
    });
  }
  for (const w of walls)
    assert.ok(text.includes(`... ${(w / 1000).toFixed(1)} s`), `row shows ${w} ms: ${JSON.stringify(text)}`);
  table.update({
    type: 'point',
    snrIndex: 0,
    snr: 3,
    snrType: 'esn0',
    points: [{ ...point, stoppedBy: 'time' }],
    finished: [true],
    pointWallMs: 9000,
  });
  assert.ok(text.trimEnd().endsWith('(time limit)'), 'a time-stopped row says so');
});
