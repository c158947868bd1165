/** The live table: one row per detector and point when not a terminal; redrawn in place (ANSI) on one. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { simulate } from '../../src/sim/simulate.js';
import { LiveTable } from '../../src/sim/table.js';

async function runWithTable(tty: boolean, snrType: 'esn0' | 'ebn0') {
  let text = '';
  const table = new LiveTable({ write: (s: string) => { text += s; }, isTTY: tty }, snrType);
  table.start();
  const snrs = [randomInt(5), 5 + randomInt(10)];
  const result = await simulate({
    nt: 2, nr: 2, modulation: 'qpsk', detectors: [{ detector: 'zf' }, { detector: 'mmse' }], snrs, snrType,
    maxErrors: 400, maxVectors: 4096, chunkVectors: 128, seed: randomInt(2 ** 31), threads: 1,
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
  const ups = [...text.matchAll(/\x1b\[(\d+)A/g)].map((m) => Number(m[1]));
  assert.ok(ups.length >= 1 && ups.every((n) => n === 2), `cursor-up counts ${ups.join(',')}`);
});
