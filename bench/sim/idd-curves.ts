/**
 * What iterative detection and decoding gains: FER (and BER) against SNR of the coded OFDM link
 * for each detector at each number of outer passes (`--idd 1,2,4`: 1 is the link without IDD),
 * and the gain in dB of each against one pass at a target FER (interpolated in log FER). Writes
 * one JSON per pass count and one plot of every curve, and prints the table.
 *
 *   node dist/bench/sim/idd-curves.js [--detectors mmse-pic,ep] [--idd 1,2,4] [--model tdl-c]
 *     [--csi lmmse] [--mimo 4x4] [--mod 16qam] [--code nr:bg1:8448:1/2] [--prbs 24] [--speed 8.33]
 *     [--snr 4:1:12] [--frames N] [--errors N] [--target 1e-1] [--engine auto|cpu|cuda] [--seed S]
 *     [--out DIR]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHANNEL_MODELS } from '../../src/channels/index.js';
import { parseMimo } from '../../src/cli/mimo-values.js';
import { type Detector, priorDetectors } from '../../src/mimo/index.js';
import type { Modulation } from '../../src/mimo/types.js';
import { resultToJson } from '../../src/sim/output.js';
import { writePlot } from '../../src/sim/plot.js';
import { simulate } from '../../src/sim/simulate.js';
import { parseSnrList } from '../../src/sim/snr.js';
import type { SimulationResult } from '../../src/sim/types.js';
import { BenchArgs } from '../args.js';
import { crossing } from './crossing.js';

const cl = BenchArgs.parse(
  'idd-curves',
  'node dist/bench/sim/idd-curves.js [--detectors LIST] [--idd LIST] [--model M] [--csi C] [--mimo NTxNR] [--mod MOD] [--code SPEC] [--prbs N] [--speed M_PER_S] [--snr LIST] [--frames N] [--errors N] [--target FER] [--engine E] [--seed S] [--out DIR]',
  [
    'detectors',
    'idd',
    'model',
    'csi',
    'mimo',
    'mod',
    'code',
    'prbs',
    'speed',
    'snr',
    'frames',
    'errors',
    'target',
    'engine',
    'seed',
    'out',
  ],
);
const detectors = cl.choices<Detector>('detectors', priorDetectors(), ['mmse-pic', 'ep']);
const passes = cl.numbers('idd', 1, 32, [1, 2, 4], true);
const model = cl.choices('model', CHANNEL_MODELS, ['tdl-c'])[0]!;
const csi = cl.choices('csi', ['perfect', 'ls', 'lmmse'] as const, ['lmmse'])[0]!;
const { nt, nr } = parseMimo(cl.text('mimo', '4x4'));
const modulation = cl.choices<Modulation>('mod', ['qpsk', '16qam', '64qam', '256qam'], ['16qam'])[0]!;
const code = cl.text('code', 'nr:bg1:8448:1/2');
const prbs = cl.int('prbs', 1, 273, 24);
const speed = cl.number('speed', 0, 1000, 8.33);
const snrs = parseSnrList(cl.text('snr', '4:1:12'));
const frames = cl.int('frames', 1, 1e12, 4000);
const errors = cl.int('errors', 1, 1e12, 200);
const target = cl.number('target', 1e-6, 0.9, 1e-1);
const engine = cl.choices('engine', ['auto', 'cpu', 'cuda'] as const, ['auto'])[0]!;
const seed = cl.int('seed', 0, 2 ** 47, 30);
const out = cl.text('out', 'bench/sim/idd-curves');
mkdirSync(out, { recursive: true });

const runs: { idd: number; result: SimulationResult }[] = [];
for (const idd of passes) {
  const t0 = performance.now();
  const result = await simulate({
    nt,
    nr,
    modulation,
    detectors: detectors.map((d) => ({ detector: d })),
    snrs,
    snrType: 'ebn0',
    code,
    idd,
    decoder: { maxIterations: 10 },
    channel: model,
    channelOptions: { speed },
    ofdm: { scs: 30e3, prbs, csi },
    maxFrames: frames,
    maxErrors: errors,
    maxVectors: Number.MAX_SAFE_INTEGER,
    engine,
    seed,
  });
  runs.push({ idd, result });
  writeFileSync(join(out, `${model}-${csi}-idd${idd}.json`), resultToJson(result));
  console.error(`idd ${idd}: ${((performance.now() - t0) / 1000).toFixed(1)} s on ${result.engine}`);
}
// one plot: every detector's curve at every pass count
const merged: SimulationResult = {
  ...runs[0]!.result,
  points: runs.flatMap(({ idd, result }) => result.points.map((p) => ({ ...p, detector: `${p.detector} idd ${idd}` }))),
};
await writePlot(join(out, `${model}-${csi}.svg`), merged, {
  title: `${nt}x${nr} ${modulation}, ${code}, ${model} ${speed} m/s, ${csi} CSI: IDD passes`,
  metrics: ['fer', 'ber'],
});
const first = runs[0]!;
console.log(
  `Eb/N0 (dB) at FER ${target}, ${nt}x${nr} ${modulation}, ${code} (rate-matched onto the slot), ${prbs} PRBs at 30 kHz, ${model} ${speed} m/s, ${csi} CSI, 10 decoder iterations, seed ${seed}, engine ${first.result.engine}; in brackets the gain against ${first.idd} pass`,
);
console.log(`| detector | ${runs.map((r) => `idd ${r.idd}`).join(' | ')} |`);
console.log(`|---|${runs.map(() => '---').join('|')}|`);
for (const d of detectors) {
  const at = (r: SimulationResult) =>
    crossing(
      r.points.filter((p) => p.algorithm === d).map((p) => ({ snr: p.snr, rate: p.fer })),
      target,
    );
  const base = at(first.result);
  const cells = runs.map(({ result }, i) => {
    const x = at(result);
    if (x === null) return '-';
    return i === 0 || base === null ? x.toFixed(2) : `${x.toFixed(2)} (${(base - x).toFixed(2)})`;
  });
  console.log(`| ${d} | ${cells.join(' | ')} |`);
}
