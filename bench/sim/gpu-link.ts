/**
 * The uncoded link on the GPU (simulate --engine cuda), measured on the device:
 *  1. the link generation kernels alone (channels/rayleigh/rayleigh.cu + link-vectors.cu: Philox, Box-Muller in
 *     float64, y = H s + w) on 2^20 vectors of 4x4 16-QAM, one channel a vector, data on the GPU,
 *     CUDA events after a warm-up; against their memory floor (bytes over the H100's 3.35 TB/s)
 *     and in Box-Muller pairs per second (20 a vector);
 *  2. simulate() with engine cuda: uncoded 4x4 16-QAM at Es/N0 20 dB through one detector (default
 *     psd; the first of psd, sphere, kbest, mmse, zf with a CUDA implementation when it has none),
 *     no error stop, `--vectors` vectors per point, chunks of `--chunk` vectors; simulated bits per
 *     second of the point's wall time (the second of two equal points: the first compiles); then
 *     the same point with the default chunk of 1024 vectors, and on the CPU engine (all cores) for
 *     the ratio and a check of the BER.
 *  3. the other detectors (--also, default zf, mmse, kbest, nway) through the same link.
 * Usage: node dist/bench/sim/gpu-link.js [--detector NAME] [--vectors N] [--chunk N] [--cpu-vectors N] [--also LIST]
 */
import { availableParallelism } from 'node:os';
import { requireCuda } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { constellation } from '../../src/mimo/modulation.js';
import { DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import type { Detector } from '../../src/mimo/types.js';
import { CHANNEL_REGISTRY } from '../../src/channels/index.js';
import { LinkKernels } from '../../src/sim/gpu/link-kernels.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions } from '../../src/sim/types.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
};
const HBM_BYTES_PER_S = 3.35e12;

async function generationTiming(): Promise<void> {
  const ctx = requireCuda();
  const nt = 4,
    nr = 4,
    vectors = 1 << 20,
    con = constellation('16qam');
  const hLen = 2 * nr * nt;
  const b = {
    points: DeviceBuffer.alloc(ctx, con.points.byteLength),
    H64: DeviceBuffer.alloc(ctx, vectors * hLen * 8),
    H32: DeviceBuffer.alloc(ctx, vectors * hLen * 4),
    tx: DeviceBuffer.alloc(ctx, vectors * nt * 4),
    y32: DeviceBuffer.alloc(ctx, vectors * 2 * nr * 4),
  };
  b.points.upload(con.points);
  const stream = Stream.create(ctx);
  const channels = (await CHANNEL_REGISTRY.rayleigh.cuda!()).plan(ctx, { nt, nr }, {});
  const k = new LinkKernels(ctx, nt, nr, { channels });
  const launch = { seed: 7, snrIndex: 0, unit0: 0, v0: 0, unitVectors: vectors, vectors, vpc: 1 };
  {
    const t = timeOnStream(
      ctx,
      stream,
      () =>
        k.enqueueGenerate(
          stream,
          launch,
          { points: b.points.ptr, H64: b.H64.ptr, H32: b.H32.ptr, tx: b.tx.ptr, y32: b.y32.ptr },
          con.size,
          0.07,
        ),
      20,
      3,
    );
    // H32, tx and y32 written; the float64 channels written and read back
    const bytes = vectors * (hLen * 4 + nt * 4 + 2 * nr * 4 + hLen * 8 * 2);
    const floorMs = (bytes / HBM_BYTES_PER_S) * 1e3;
    const perVector = (t.medianMs * 1e6) / vectors;
    console.log(
      `generation (4x4 16-QAM, 1 channel a vector, 2^20 vectors): ${t.medianMs.toFixed(3)} ms median (min ${t.minMs.toFixed(3)}), ` +
        `${perVector.toFixed(3)} ns a vector, ${((vectors * 16) / (t.medianMs * 1e-3) / 1e9).toFixed(1)} Gbps of simulated bits; ` +
        `${(bytes / 2 ** 20).toFixed(0)} MiB moved = ${(bytes / (t.medianMs * 1e-3) / 1e9).toFixed(0)} GB/s, memory floor ${floorMs.toFixed(3)} ms (${(t.medianMs / floorMs).toFixed(2)}x); ` +
        `${((20 * vectors) / (t.medianMs * 1e-3) / 1e9).toFixed(1)} G Box-Muller pairs/s (float64 log, sqrt, sincos)`,
    );
  }
  for (const x of Object.values(b)) x.free();
  stream.destroy();
}

async function pointRate(
  opts: SimulationOptions,
): Promise<{ bitsPerS: number; ber: number; vectors: number; wallMs: number; engine: string }> {
  let wallMs = 0;
  const r = await simulate({
    ...opts,
    snrs: [opts.snrs[0]!, opts.snrs[0]!],
    onProgress: (e) => {
      if (e.type === 'point' && e.snrIndex === 1) wallMs = e.pointWallMs;
    },
  });
  const p = r.points[r.points.length - 1]!;
  return { bitsPerS: p.bits / (wallMs * 1e-3), ber: p.ber, vectors: p.vectors, wallMs, engine: r.engine };
}

async function main(): Promise<void> {
  const dev = requireCuda().props;
  console.log(`device: ${dev.name}, ${dev.multiprocessors} SMs; ${new Date().toISOString()}`);
  await generationTiming();
  const asked = arg('detector', 'psd') as Detector;
  const order: Detector[] = [asked, 'psd', 'sphere', 'kbest', 'mmse', 'zf'];
  const detector = order.find((d) => DETECTOR_REGISTRY[d]?.cuda);
  if (!detector) {
    console.log('simulate --engine cuda: no CUDA detector on this build; not measured');
    return;
  }
  if (detector !== asked) console.log(`${asked} has no CUDA implementation here: measuring ${detector}`);
  const vectors = Number(arg('vectors', String(1 << 24))),
    chunk = Number(arg('chunk', String(1 << 16)));
  const base: SimulationOptions = {
    nt: 4,
    nr: 4,
    modulation: '16qam',
    detectors: [{ detector, ...(detector === 'psd' || detector === 'sphere' ? { onBudget: 'flag' as const } : {}) }],
    snrs: [20],
    maxErrors: Number.MAX_SAFE_INTEGER,
    maxVectors: vectors,
    seed: 1,
  };
  const g = await pointRate({ ...base, engine: 'cuda', chunkVectors: chunk });
  console.log(
    `simulate --engine ${g.engine}, ${detector}, 4x4 16-QAM, 20 dB, ${g.vectors} vectors in chunks of ${chunk}: ${(g.bitsPerS / 1e9).toFixed(2)} Gbps of simulated bits (${g.wallMs.toFixed(0)} ms), BER ${g.ber.toExponential(3)}`,
  );
  const small = await pointRate({ ...base, engine: 'cuda', maxVectors: Math.min(vectors, 1 << 22) });
  console.log(
    `  same with the default chunk of 1024 vectors (${small.vectors} vectors): ${(small.bitsPerS / 1e9).toFixed(2)} Gbps, BER ${small.ber.toExponential(3)}`,
  );
  const cpuVectors = Number(arg('cpu-vectors', String(1 << 16)));
  const c = await pointRate({ ...base, engine: 'cpu', maxVectors: cpuVectors, threads: availableParallelism() });
  console.log(
    `  CPU engine, ${availableParallelism()} threads (${c.vectors} vectors): ${(c.bitsPerS / 1e6).toFixed(2)} Mbps, BER ${c.ber.toExponential(3)}; GPU/CPU ${(g.bitsPerS / c.bitsPerS).toFixed(0)}x`,
  );
  // the other detectors through the same link, for comparison
  for (const other of arg('also', 'zf,mmse,kbest,nway')
    .split(',')
    .filter((d) => d && d !== detector) as Detector[]) {
    if (!DETECTOR_REGISTRY[other]?.cuda) continue;
    const o = await pointRate({
      ...base,
      detectors: [{ detector: other }],
      engine: 'cuda',
      chunkVectors: chunk,
      maxVectors: Math.min(vectors, 1 << 23),
    });
    console.log(
      `  ${other}: ${(o.bitsPerS / 1e9).toFixed(2)} Gbps (${o.vectors} vectors, ${o.wallMs.toFixed(0)} ms), BER ${o.ber.toExponential(3)}`,
    );
  }
}

await main();
