/**
 * The OFDM link on the GPU (simulate --ofdm --engine cuda), measured on the device:
 *  1. the generation stage alone (src/sim/gpu/ofdm-kernels.ts: the TDL-C response on each slot's
 *     grid, ofdm-data.cu, and with LS / LMMSE CSI the DM-RS estimators' kernels) on `--slots` slots
 *     of 4x4 16-QAM, 30 kHz, `--prbs` resource blocks, for each CSI mode: CUDA events after a
 *     warm-up, per slot and per data vector;
 *  2. simulate() with engine cuda and engine cpu (all cores) at Es/N0 20 dB through mmse, no error
 *     stop, for each CSI mode: simulated bits per second of the point's wall time (the second of two
 *     equal points: the first compiles), and the BERs side by side.
 * Usage: node dist/bench/sim/gpu-ofdm-link.js [--prbs N] [--slots N] [--vectors N] [--cpu-vectors N]
 */
import { availableParallelism } from 'node:os';
import { CHANNEL_REGISTRY, checkChannel } from '../../src/channels/index.js';
import { requireCuda } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { constellation } from '../../src/mimo/modulation.js';
import { OfdmLinkKernels } from '../../src/sim/gpu/ofdm-kernels.js';
import { CSI_MODES, ofdmDataVectors, type OfdmLinkSpec } from '../../src/sim/ofdm-link.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions } from '../../src/sim/types.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};

const nt = 4,
  nr = 4,
  channel = 'tdl-c' as const,
  channelOptions = { speed: 30 };

async function stageTiming(prbs: number, slots: number): Promise<void> {
  const ctx = requireCuda();
  const con = constellation('16qam');
  const params = { ...checkChannel(channel, channelOptions, { nt, nr }, 'bench').params };
  const plan = (await CHANNEL_REGISTRY[channel].cuda!()).plan(ctx, { nt, nr }, params as never);
  const stream = Stream.create(ctx);
  for (const csi of CSI_MODES) {
    const ofdm: OfdmLinkSpec = { scs: 30e3, prbs, csi, dmrsAdditional: 2 };
    const slot = ofdmDataVectors(ofdm, nt),
      vectors = slot * slots;
    const stage = new OfdmLinkKernels(ctx, nt, nr, ofdm, plan, { channel, params }, slots);
    const b = {
      points: DeviceBuffer.alloc(ctx, con.points.byteLength),
      H64: DeviceBuffer.alloc(ctx, 8),
      H32: DeviceBuffer.alloc(ctx, vectors * 2 * nr * nt * 4),
      tx: DeviceBuffer.alloc(ctx, vectors * nt * 4),
      y32: DeviceBuffer.alloc(ctx, vectors * 2 * nr * 4),
    };
    b.points.upload(con.points);
    const launch = { seed: 7, snrIndex: 0, unit0: 0, v0: 0, unitVectors: slot, vectors, vpc: 1 };
    const ptrs = { points: b.points.ptr, H64: b.H64.ptr, H32: b.H32.ptr, tx: b.tx.ptr, y32: b.y32.ptr };
    const t = timeOnStream(ctx, stream, () => stage.enqueueGenerate(stream, launch, ptrs, con.size, 0.01), 20, 3);
    console.log(
      `generation, csi ${csi} (${channel} 4x4 16-QAM, ${prbs} prbs, ${slots} slots of ${slot} data vectors): ` +
        `${t.medianMs.toFixed(3)} ms median (min ${t.minMs.toFixed(3)}), ${((t.medianMs * 1e3) / slots).toFixed(1)} us a slot, ` +
        `${((t.medianMs * 1e6) / vectors).toFixed(2)} ns a data vector`,
    );
    stream.synchronize();
    for (const x of Object.values(b)) x.free();
    stage.free();
  }
  plan.free?.();
  stream.destroy();
}

async function pointRate(opts: SimulationOptions): Promise<{ bitsPerS: number; ber: number; vectors: number }> {
  let wallMs = 0;
  const r = await simulate({
    ...opts,
    snrs: [opts.snrs[0]!, opts.snrs[0]!],
    onProgress: (e) => {
      if (e.type === 'point' && e.snrIndex === 1) wallMs = e.pointWallMs;
    },
  });
  const p = r.points[r.points.length - 1]!;
  return { bitsPerS: p.bits / (wallMs * 1e-3), ber: p.ber, vectors: p.vectors };
}

async function main(): Promise<void> {
  const dev = requireCuda().props;
  console.log(`device: ${dev.name}, ${dev.multiprocessors} SMs; ${new Date().toISOString()}`);
  const prbs = Number(arg('prbs', '273')),
    slots = Number(arg('slots', '8'));
  await stageTiming(prbs, slots);
  const vectors = Number(arg('vectors', String(1 << 22))),
    cpuVectors = Number(arg('cpu-vectors', String(1 << 16)));
  for (const csi of CSI_MODES) {
    const base: SimulationOptions = {
      nt,
      nr,
      modulation: '16qam',
      detectors: [{ detector: 'mmse' }],
      snrs: [20],
      maxErrors: Number.MAX_SAFE_INTEGER,
      maxVectors: vectors,
      seed: 1,
      channel,
      channelOptions,
      ofdm: { scs: 30e3, prbs, csi },
    };
    const g = await pointRate({ ...base, engine: 'cuda' });
    const c = await pointRate({ ...base, engine: 'cpu', maxVectors: cpuVectors, threads: availableParallelism() });
    console.log(
      `simulate csi ${csi}, mmse, ${prbs} prbs: GPU ${(g.bitsPerS / 1e9).toFixed(2)} Gbps (${g.vectors} vectors, BER ${g.ber.toExponential(3)}), ` +
        `CPU ${availableParallelism()} threads ${(c.bitsPerS / 1e6).toFixed(2)} Mbps (${c.vectors} vectors, BER ${c.ber.toExponential(3)}); ` +
        `GPU/CPU ${(g.bitsPerS / c.bitsPerS).toFixed(0)}x`,
    );
  }
}

await main();
