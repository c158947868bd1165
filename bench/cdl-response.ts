/**
 * The CDL models' CPU generator timed on one core: a drop's response on one 273-PRB slot at 30 kHz
 * (3276 subcarriers x 14 symbols), and flat draws (time 0, frequency 0) a second, per model and
 * array setup. Prints a markdown table.
 *
 *   node dist/bench/cdl-response.js [REPS]   (slots timed per row, default 5; the median is shown)
 */
import { CDL_ENTRIES, type CdlModel } from '../src/channels/cdl/index.js';
import { subcarrierFrequencies, symbolTimes } from '../src/channels/ofdm/index.js';
import type { AnyChannelEntry, ChannelSpan } from '../src/channels/index.js';

const reps = Number(process.argv[2] ?? 5);
const grid = { scs: 30e3, prbs: 273 };
const at = { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) };
const setups: { label: string; nt: number; nr: number; params: Record<string, unknown> }[] = [
  { label: '4x4 omni ULA, 30 m/s', nt: 4, nr: 4, params: { speed: 30 } },
  { label: '4x4 omni ULA, static', nt: 4, nr: 4, params: {} },
  {
    label: '4x8 cross-pol 38.901 UPA, 30 m/s',
    nt: 4,
    nr: 8,
    params: { speed: 30, rxArray: 'upa', rxPolarization: 'cross', rxPattern: '38.901', txPolarization: 'cross' },
  },
  { label: '8x16 omni ULA, 30 m/s', nt: 8, nr: 16, params: { speed: 30 } },
];
const span = (first: number, count: number): ChannelSpan => ({
  seed: 1,
  stream0: 0,
  streamStep: 1,
  perStream: 1 << 20,
  first,
  count,
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log('| model | setup | slot response (ms) | flat draws / s |');
console.log('|---|---|---|---|');
for (const model of Object.keys(CDL_ENTRIES) as CdlModel[])
  for (const s of setups) {
    const g = (CDL_ENTRIES[model] as AnyChannelEntry).cpu({ nt: s.nt, nr: s.nr }, s.params);
    g.response!(span(0, 1), at);
    const ms: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t0 = performance.now();
      g.response!(span(r + 1, 1), at);
      ms.push(performance.now() - t0);
    }
    const n = 2000;
    g.draw(span(0, 200));
    const t0 = performance.now();
    g.draw(span(0, n));
    const perSecond = n / ((performance.now() - t0) / 1000);
    console.log(`| ${model} | ${s.label} | ${median(ms).toFixed(1)} | ${perSecond.toFixed(0)} |`);
  }
