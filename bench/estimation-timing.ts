/**
 * One slot's DM-RS channel estimation on the CPU at the link simulation's largest grid: 273 PRBs
 * (3276 subcarriers) x 14 symbols, 4 receive antennas x 4 layers, for each dmrs-AdditionalPosition:
 * the pilots (dmrsPilots), the despread pairs alone (lsPilotEstimates), LS (lsEstimate), LMMSE (lmmseEstimate, its filters made once by
 * lmmseFilter, timed apart) and the noise estimate; median of the repetitions, one thread, the
 * estimate written into a reused array.
 *
 * Usage: node dist/bench/estimation-timing.js [--reps 30] [--window 8]
 */
import { parseArgs } from 'node:util';
import {
  dmrsConfig,
  dmrsPilots,
  estimateNoise,
  lmmseEstimate,
  lmmseFilter,
  lsEstimate,
  lsPilotEstimates,
} from '../src/channels/estimation/index.js';
import { Philox } from '../src/core/rng.js';

const { values } = parseArgs({ options: { reps: { type: 'string' }, window: { type: 'string' } } });
const reps = Number(values.reps ?? 30),
  window = Number(values.window ?? 8);

/** Median (and, on a shared machine, the minimum) milliseconds of `reps` calls of f (after two warm-up calls). */
function time(f: () => unknown): string {
  f();
  f();
  const t: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return `${t[Math.floor(reps / 2)]!.toFixed(2)} (${t[0]!.toFixed(2)})`;
}

const nr = 4;
const pdp = { delays: [0, 30e-9, 150e-9, 310e-9, 370e-9, 710e-9, 1090e-9, 1730e-9, 2510e-9] }; // EPA/EVA-like taps
const raw = [1, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05];
const sum = raw.reduce((a, b) => a + b, 0);
const profile = { delays: pdp.delays, powers: raw.map((p) => p / sum) };
console.log(`273 PRBs at 30 kHz, ${nr}x4, W ${window}, median (min) of ${reps}, ms`);
console.log('pos  pilots  despread  ls  lmmse  noise  lmmseFilter(once)');
for (const additionalPosition of [0, 1, 2, 3]) {
  const config = dmrsConfig({ scs: 30e3, prbs: 273, layers: 4, additionalPosition });
  const y = new Philox(1, 0).fillNormal(new Float64Array(2 * 14 * config.subcarriers * nr));
  const out = new Float64Array(2 * 14 * config.subcarriers * nr * 4);
  const pilots = dmrsPilots(config, 3);
  const tPilots = time(() => dmrsPilots(config, 3));
  const tDespread = time(() => lsPilotEstimates(pilots, y, nr));
  const tLs = time(() => lsEstimate(pilots, y, nr, out));
  const tFilter = time(() => lmmseFilter(config, { pdp: profile, noiseVariance: 0.1, window }));
  const filter = lmmseFilter(config, { pdp: profile, noiseVariance: 0.1, window });
  const tLmmse = time(() => lmmseEstimate(filter, pilots, y, nr, out));
  const tNoise = time(() => estimateNoise(pilots, y, nr));
  console.log(`pos${additionalPosition} ${[tPilots, tDespread, tLs, tLmmse, tNoise, tFilter].join('  ')}`);
}
