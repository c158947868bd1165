/** Plots: a valid SVG with the axis titles and legend, a PNG with the PNG signature, zero-error points left out. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plotSpec, writePlot } from '../../src/sim/plot.js';
import type { SimPoint, SimulationResult } from '../../src/sim/types.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A result with random error counts (some zero) for random detectors and SNRs. */
function randomResult(snrType: 'esn0' | 'ebn0'): SimulationResult {
  const detectors = ['zf', 'mmse', `kbest K=${1 + randomInt(32)}`].slice(0, 1 + randomInt(3));
  const snrs = Array.from({ length: 2 + randomInt(6) }, (_, i) => i * (1 + randomInt(4)));
  const points: SimPoint[] = [];
  for (const [snrIndex, snr] of snrs.entries()) {
    for (const detector of detectors) {
      const vectors = 1000 * (1 + randomInt(100)),
        bits = vectors * 8;
      const bitErrors = randomInt(4) === 0 ? 0 : 1 + randomInt(bits / 4);
      const frameErrors = Math.min(vectors, bitErrors);
      points.push({
        detector,
        algorithm: 'zf',
        snrIndex,
        snr,
        snrType,
        esn0Db: snr,
        ebn0Db: snr - 3,
        noiseVar: 10 ** (-snr / 10),
        ber: bitErrors / bits,
        ser: bitErrors / (vectors * 4),
        fer: frameErrors / vectors,
        bitErrors,
        symbolErrors: bitErrors,
        frameErrors,
        bits,
        symbols: vectors * 4,
        unproven: 0,
        frames: vectors,
        vectors,
        timeMs: 1,
        stoppedBy: 'vectors',
      });
    }
  }
  return {
    nt: 4,
    nr: 4,
    modulation: 'qpsk',
    snrType,
    seed: randomInt(1000),
    threads: 1,
    engine: 'cpu',
    maxErrors: 100,
    maxVectors: 1e5,
    vectorsPerChannel: 1,
    unitVectors: 1024,
    chunkVectors: 1024,
    wallMs: 1,
    points,
    detectors: detectors.map(() => ({ detector: 'zf' })),
    snrs,
    interrupted: false,
  };
}

test('the spec leaves out exactly the zero-error points of each panel, on a log y scale', () => {
  for (let t = 0; t < 20; t++) {
    const r = randomResult(t % 2 ? 'esn0' : 'ebn0');
    const spec = plotSpec(r) as {
      hconcat: { data: { values: { value: number }[] }; encoding: { y: { scale: { type: string } } } }[];
      title: { subtitle: string[] };
    };
    const [ber, fer] = spec.hconcat;
    assert.equal(ber!.data.values.length, r.points.filter((p) => p.bitErrors > 0).length);
    assert.equal(fer!.data.values.length, r.points.filter((p) => p.frameErrors > 0).length);
    for (const panel of spec.hconcat) {
      assert.equal(panel.encoding.y.scale.type, 'log');
      assert.ok(panel.data.values.every((v) => v.value > 0));
    }
    const hasZero = r.points.some((p) => p.bitErrors === 0);
    assert.equal(
      spec.title.subtitle.some((s) => s.includes('zero errors')),
      hasZero,
    );
  }
});

test('writePlot writes an SVG with axis titles and legend, and a PNG', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sim-plot-'));
  try {
    const r = randomResult(randomInt(2) ? 'esn0' : 'ebn0');
    r.points[0]!.bitErrors = 0;
    r.points[0]!.ber = 0; // at least one omitted point
    await writePlot(join(dir, 'p.svg'), r);
    const svg = await readFile(join(dir, 'p.svg'), 'utf8');
    assert.match(svg, /<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.ok(svg.trimEnd().endsWith('</svg>'));
    assert.ok(svg.includes(r.snrType === 'esn0' ? 'Es/N0 (dB)' : 'Eb/N0 (dB)'), 'x axis title');
    assert.ok(svg.includes('BER (bit error rate)') && svg.includes('FER (frame error rate)'), 'y axis titles');
    // every detector with a drawn point has a legend entry (one whose points all have zero errors has none to draw)
    for (const d of new Set(r.points.filter((p) => p.bitErrors > 0 || p.frameErrors > 0).map((p) => p.detector)))
      assert.ok(svg.includes(`>${d}<`), `legend entry ${d}`);
    assert.ok(svg.includes('zero errors are not drawn'), 'the note on omitted points');

    await writePlot(join(dir, 'p.png'), r);
    const png = await readFile(join(dir, 'p.png'));
    assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
    assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
    const width = png.readUInt32BE(16),
      height = png.readUInt32BE(20);
    assert.ok(width > 600 && height > 300, `PNG is ${width} x ${height}`);

    await assert.rejects(writePlot(join(dir, 'p.jpg'), r), { code: 'INVALID_ARGUMENT' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
