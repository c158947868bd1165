/**
 * The N-way paper's Figure 3 on the CPU engine: FER of 4x4 MIMO over iid Rayleigh fading (one
 * channel per vector) with the 802.16e n = 2304 rate-1/2 LDPC code, layered normalized min-sum,
 * 20 iterations; nway N = 1..4 (LLR clip 8 for N < 4, none for N = 4, as the paper), kbest K = 64
 * (clip 8), and in separate runs (same seed, same data, their own time limit) kbest K = 256 for
 * 64-QAM and exhaustive max-log ml for 16-QAM. Every run is bounded by --frames, --errors and --time (seconds per SNR point).
 * Writes bench/sim/figure3-<mod>.json and one plot of every curve (--out DIR, default bench/sim).
 * Usage: node dist/bench/sim/figure3.js [--mod 16qam,64qam] [--snr16 LIST] [--snr64 LIST]
 *        [--frames N] [--errors N] [--time S] [--slow-time S] [--threads N] [--seed S] [--out DIR]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writePlot } from '../../src/sim/plot.js';
import { resultToJson } from '../../src/sim/output.js';
import { simulate } from '../../src/sim/simulate.js';
import { parseSnrList } from '../../src/sim/snr.js';
import type { SimDetector, SimulationOptions, SimulationResult } from '../../src/sim/types.js';
import type { Modulation } from '../../src/mimo/types.js';
import { BenchArgs } from '../args.js';

const cl = BenchArgs.parse(
  'figure3',
  'node dist/bench/sim/figure3.js [--mod 16qam,64qam] [--snr16 LIST] [--snr64 LIST] [--frames N] [--errors N] [--time S] [--slow-time S] [--threads N] [--seed S] [--out DIR]',
  ['mod', 'snr16', 'snr64', 'frames', 'errors', 'time', 'slow-time', 'threads', 'seed', 'out'],
);
const mods = cl.choices<Modulation>('mod', ['16qam', '64qam'], ['16qam', '64qam']);
const frames = cl.int('frames', 1, 1e9, 200);
const errors = cl.int('errors', 1, 1e9, 20);
const time = cl.number('time', 0, 1e6, 60);
const slowTime = cl.number('slow-time', 0, 1e6, 60);
const threads = cl.int('threads', 1, 1024, 2);
const seed = cl.int('seed', 0, 2 ** 47, 2026);
const out = cl.text('out', 'bench/sim');

const nway = (n: number): SimDetector => ({
  detector: 'nway',
  passes: n,
  ...(n < 4 ? { llrClip: 8 } : {}),
  label: `nway N=${n}`,
});

async function run(
  mod: Modulation,
  detectors: SimDetector[],
  snrs: number[],
  maxTimeSeconds: number,
): Promise<SimulationResult> {
  const opts: SimulationOptions = {
    nt: 4,
    nr: 4,
    modulation: mod,
    detectors,
    snrs,
    snrType: 'ebn0',
    code: 'wimax:2304:1/2',
    decoder: { algorithm: 'nms', maxIterations: 20 },
    maxErrors: errors,
    maxFrames: frames,
    maxTimeSeconds,
    threads,
    seed,
    onProgress: (ev) => {
      if (ev.type !== 'point') return;
      for (const p of ev.points)
        process.stderr.write(
          `${mod} Eb/N0 ${p.snr} dB ${p.detector}: FER ${p.fer.toPrecision(3)} (${p.frameErrors}/${p.frames}) BER ${p.ber.toExponential(2)} ${p.stoppedBy}\n`,
        );
    },
  };
  return simulate(opts);
}

const all: SimulationResult[] = [];
for (const mod of mods) {
  const snrs = parseSnrList(cl.text(mod === '16qam' ? 'snr16' : 'snr64', mod === '16qam' ? '2:1:6' : '6:1:10'));
  const main = await run(
    mod,
    [1, 2, 3, 4].map(nway).concat([{ detector: 'kbest', k: 64, llrClip: 8, label: 'kbest K=64' }]),
    snrs,
    time,
  );
  let result = main;
  const slow: SimDetector =
    mod === '16qam'
      ? { detector: 'ml', label: 'ml (max-log)' }
      : { detector: 'kbest', k: 256, llrClip: 8, label: 'kbest K=256' };
  const extra = await run(mod, [slow], snrs, slowTime);
  result = {
    ...main,
    detectors: [...main.detectors, ...extra.detectors],
    points: [...main.points, ...extra.points].sort((a, b) => a.snrIndex - b.snrIndex),
  };
  writeFileSync(join(out, `figure3-${mod}.json`), resultToJson(result));
  await writePlot(join(out, `figure3-${mod}.svg`), result, {
    metrics: ['fer'],
    title: `Figure 3 (CPU engine): 4x4 ${mod.toUpperCase()}, WiMAX 2304 rate 1/2, NMS 20 iterations`,
  });
  all.push(result);
}
for (const r of all) {
  console.log(`\n4x4 ${r.modulation}: FER (frame errors / frames) against Eb/N0`);
  const labels = [...new Set(r.points.map((p) => p.detector))];
  console.log(['Eb/N0', ...labels].join(' | '));
  for (const snr of r.snrs) {
    console.log(
      [
        String(snr),
        ...labels.map((l) => {
          const p = r.points.find((q) => q.detector === l && q.snr === snr);
          return p
            ? `${p.fer.toPrecision(2)} (${p.frameErrors}/${p.frames}${p.stoppedBy === 'time' ? ', t' : ''})`
            : '-';
        }),
      ].join(' | '),
    );
  }
}
