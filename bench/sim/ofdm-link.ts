/**
 * The OFDM link's throughput through simulate(): 4x4 16-QAM over TDL-C (300 ns, 30 km/h at 3.5 GHz)
 * on 273 PRBs at 30 kHz, a slot a chunk, each CSI mode asked for:
 *  - uncoded with `mmse` at Es/N0 20 dB: simulated bits (vectors x 16) per second of wall time;
 *  - coded, 5G NR base graph 1 K = 8448 rate 1/2 (34 frames a slot), `nway` N = 4, 10 decoder
 *    iterations at Eb/N0 4 dB: information bits per second.
 * No error stop: every point runs its --slots slots; each figure is the second of two equal points
 * (the first compiles the kernels). Prints a markdown table; on the CPU engine use fewer slots.
 *
 *   node dist/bench/sim/ofdm-link.js [--engine cuda|cpu] [--csi perfect,ls,lmmse] [--slots N]
 *     [--coded-slots N] [--threads N] [--model tdl-c]
 */
import { CHANNEL_MODELS } from '../../src/channels/index.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions } from '../../src/sim/types.js';
import { BenchArgs } from '../args.js';

const cl = BenchArgs.parse(
  'ofdm-link',
  'node dist/bench/sim/ofdm-link.js [--engine cuda|cpu] [--csi LIST] [--slots N] [--coded-slots N] [--threads N] [--model M]',
  ['engine', 'csi', 'slots', 'coded-slots', 'threads', 'model'],
);
const engine = cl.choices('engine', ['cuda', 'cpu'] as const, ['cuda'])[0]!;
const csis = cl.choices('csi', ['perfect', 'ls', 'lmmse'] as const, ['perfect', 'ls', 'lmmse']);
const slots = cl.int('slots', 1, 1e7, 2000);
const codedSlots = cl.int('coded-slots', 0, 1e7, 400);
const threads = cl.int('threads', 1, 1024, 16);
const model = cl.choices('model', CHANNEL_MODELS, ['tdl-c'])[0]!;

/** Bits per second with its unit, three significant digits. */
const rate = (bps: number): string =>
  bps >= 1e9 ? `${(bps / 1e9).toPrecision(3)} Gbps` : `${(bps / 1e6).toPrecision(3)} Mbps`;

const DATA_VECTORS = 3276 * 11; // 273 PRBs, 3 DM-RS symbols of 14

/** Runs the point twice and returns the second's bits per second from its own timing. */
async function measure(o: Omit<SimulationOptions, 'snrs'>, snr: number, bitsOf: (vectors: number) => number) {
  const starts: number[] = [];
  const ends: number[] = [];
  const r = await simulate({
    ...o,
    snrs: [snr, snr],
    maxErrors: Number.MAX_SAFE_INTEGER,
    engine,
    threads,
    onProgress: (e) => {
      if (starts[e.snrIndex] === undefined) starts[e.snrIndex] = performance.now() - e.pointWallMs;
      if (e.type === 'point') ends[e.snrIndex] = starts[e.snrIndex]! + e.pointWallMs;
    },
  });
  const p = r.points.filter((q) => q.snrIndex === 1);
  const ms = ends[1]! - starts[1]!;
  return { bps: bitsOf(p[0]!.vectors) / (ms / 1000), ms, ber: p[0]!.ber, engine: r.engine };
}

const base = {
  nt: 4,
  nr: 4,
  modulation: '16qam' as const,
  channel: model,
  // the default delay spread (300 ns) and carrier (3.5 GHz)
  channelOptions: { speed: 30 / 3.6 },
  seed: 29,
};
console.log(`${model}, 4x4 16-QAM, 273 PRBs at 30 kHz, 30 km/h at 3.5 GHz; engine ${engine}`);
console.log('| link | CSI | detector | slots | throughput | wall (ms) | BER |');
console.log('|---|---|---|---|---|---|---|');
for (const csi of csis) {
  const u = await measure(
    {
      ...base,
      detectors: [{ detector: 'mmse' }],
      ofdm: { scs: 30e3, prbs: 273, csi },
      maxVectors: slots * DATA_VECTORS,
    },
    20,
    (v) => v * 16,
  );
  console.log(
    `| uncoded, Es/N0 20 dB | ${csi} | mmse | ${slots} | ${rate(u.bps)} | ${u.ms.toFixed(0)} | ${u.ber.toExponential(2)} |`,
  );
  if (codedSlots === 0) continue;
  const framesPerSlot = 34;
  const c = await measure(
    {
      ...base,
      detectors: [{ detector: 'nway', passes: 4 }],
      code: 'nr:bg1:8448:1/2',
      decoder: { algorithm: 'nms', maxIterations: 10 },
      snrType: 'ebn0',
      ofdm: { scs: 30e3, prbs: 273, csi },
      maxFrames: codedSlots * framesPerSlot,
    },
    4,
    (v) => (v / 1056) * 8448,
  );
  console.log(
    `| coded NR BG1 8448 1/2, 10 it, Eb/N0 4 dB | ${csi} | nway N=4 | ${codedSlots} | ${rate(c.bps)} | ${c.ms.toFixed(0)} | ${c.ber.toExponential(2)} |`,
  );
}
