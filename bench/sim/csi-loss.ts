/**
 * What channel estimation costs: BER and FER against SNR of several detectors on the OFDM link,
 * per channel model and CSI mode (perfect, LS, LMMSE), and the loss in dB of each estimate against
 * perfect CSI at a target BER (interpolated in log BER between the points that bracket it). Writes
 * one JSON and one plot per (model, CSI) and prints a markdown table of the losses. A slot is one
 * drop: `--slots N` runs N slots at every point whatever the errors (a curve averaged over N drops),
 * in place of the --vectors / --errors stop.
 *
 *   node dist/bench/sim/csi-loss.js [--models tdl-a,tdl-c,cdl-c] [--csi perfect,ls,lmmse]
 *     [--detectors zf,mmse,sphere,nway,lr-mmse] [--mimo 4x4] [--mod 16qam] [--snr 0:4:32]
 *     [--prbs 24] [--speed 8.33] [--vectors N] [--errors N] [--slots N] [--target 1e-2] [--threads N]
 *     [--engine auto|cpu|cuda] [--seed S] [--out DIR]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHANNEL_MODELS } from '../../src/channels/index.js';
import { parseMimo } from '../../src/cli/mimo-values.js';
import { type Detector, DETECTORS } from '../../src/mimo/index.js';
import type { Modulation } from '../../src/mimo/types.js';
import { resultToJson } from '../../src/sim/output.js';
import { writePlot } from '../../src/sim/plot.js';
import { ofdmDataVectors } from '../../src/sim/ofdm-link.js';
import { simulate } from '../../src/sim/simulate.js';
import { parseSnrList } from '../../src/sim/snr.js';
import type { SimulationResult } from '../../src/sim/types.js';
import { BenchArgs } from '../args.js';
import { crossing } from './crossing.js';

const cl = BenchArgs.parse(
  'csi-loss',
  'node dist/bench/sim/csi-loss.js [--models LIST] [--csi LIST] [--detectors LIST] [--mimo NTxNR] [--mod MOD] [--snr LIST] [--prbs N] [--speed M_PER_S] [--vectors N] [--errors N] [--slots N] [--target BER] [--threads N] [--engine E] [--seed S] [--out DIR]',
  [
    'models',
    'csi',
    'detectors',
    'mimo',
    'mod',
    'snr',
    'prbs',
    'speed',
    'vectors',
    'errors',
    'slots',
    'target',
    'threads',
    'engine',
    'seed',
    'out',
  ],
);
const models = cl.choices('models', CHANNEL_MODELS, ['tdl-a', 'tdl-c', 'cdl-c']);
const csis = cl.choices('csi', ['perfect', 'ls', 'lmmse'] as const, ['perfect', 'ls', 'lmmse']);
const detectors = cl.choices<Detector>('detectors', DETECTORS, ['zf', 'mmse', 'sphere', 'nway', 'lr-mmse']);
const { nt, nr } = parseMimo(cl.text('mimo', '4x4'));
const modulation = cl.choices<Modulation>('mod', ['bpsk', 'qpsk', '16qam', '64qam', '256qam'], ['16qam'])[0]!;
const snrs = parseSnrList(cl.text('snr', '0:4:32'));
const prbs = cl.int('prbs', 1, 273, 24);
const speed = cl.number('speed', 0, 1000, 8.33);
const vectors = cl.int('vectors', 1, 1e12, 200_000);
const errors = cl.int('errors', 1, 1e12, 500);
const slots = cl.int('slots', 0, 1e9, 0);
const target = cl.number('target', 1e-9, 0.5, 1e-2);
const threads = cl.int('threads', 1, 1024, 2);
const engine = cl.choices('engine', ['auto', 'cpu', 'cuda'] as const, ['auto'])[0]!;
const seed = cl.int('seed', 0, 2 ** 47, 29);
const out = cl.text('out', 'bench/sim/csi-loss');
mkdirSync(out, { recursive: true });

const rows: string[] = [];
for (const model of models) {
  const runs = new Map<string, SimulationResult>();
  for (const csi of csis) {
    const t0 = performance.now();
    const r = await simulate({
      nt,
      nr,
      modulation,
      detectors: detectors.map((d) => ({ detector: d })),
      snrs,
      channel: model,
      channelOptions: { speed },
      ofdm: { scs: 30e3, prbs, csi },
      maxVectors: slots > 0 ? slots * ofdmDataVectors({ scs: 30e3, prbs, csi, dmrsAdditional: 2 }, nt) : vectors,
      maxErrors: slots > 0 ? Number.MAX_SAFE_INTEGER : errors,
      threads,
      engine,
      seed,
    });
    runs.set(csi, r);
    const base = join(out, `${model}-${csi}`);
    writeFileSync(`${base}.json`, resultToJson(r));
    await writePlot(`${base}.svg`, r, { title: `${nt}x${nr} ${modulation}, ${model} ${speed} m/s, ${csi} CSI` });
    console.error(`${model} ${csi}: ${((performance.now() - t0) / 1000).toFixed(1)} s on ${r.engine}`);
  }
  for (const d of detectors) {
    const at = (csi: string) =>
      crossing(
        runs
          .get(csi)!
          .points.filter((p) => p.algorithm === d)
          .map((p) => ({ snr: p.snr, rate: p.ber })),
        target,
      );
    const perfect = at('perfect');
    const cells = csis.map((csi) => {
      const x = at(csi);
      if (x === null) return '-';
      return csi === 'perfect' || perfect === null ? x.toFixed(2) : `${x.toFixed(2)} (+${(x - perfect).toFixed(2)})`;
    });
    rows.push(`| ${model} | ${d} | ${cells.join(' | ')} |`);
  }
}
console.log(
  `Es/N0 (dB) at BER ${target}, ${nt}x${nr} ${modulation}, ${prbs} PRBs at 30 kHz, ${speed} m/s, seed ${seed}; in brackets the loss against perfect CSI`,
);
console.log(`| model | detector | ${csis.join(' | ')} |`);
console.log(`|---|---|${csis.map(() => '---').join('|')}|`);
for (const r of rows) console.log(r);
