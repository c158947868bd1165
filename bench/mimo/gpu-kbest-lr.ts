/**
 * Throughput of the K-best and lattice-aided CUDA detectors with the data on the GPU: kernel time
 * of plan.enqueue (events, after a warm-up; bench/mimo/gpu-timing.ts), per stage too, as vectors/s
 * and Gbps of detected bits, beside the bytes-over-bandwidth floor and the CPU engine on all cores
 * (a smaller batch of the same kind). Rayleigh channels, 14 vectors per channel (an OFDM slot's
 * symbols on one subcarrier), 4x4 K-best 16- and 64-QAM K = 16, 64, 256; lr-* 4x4 and 8x8 16-QAM.
 * Usage: node dist/bench/mimo/gpu-kbest-lr.js [--quick]
 */
import { availableParallelism } from 'node:os';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Detector, Modulation } from '../../src/mimo/types.js';
import { cudaAvailable, type CudaContext } from '../../src/gpu/context.js';
import type { CudaDetectorSetup } from '../../src/mimo/gpu/cuda-detector.js';
import { createKbestPlan, type KbestTuning } from '../../src/mimo/detectors/kbest/cuda.js';
import { lrCudaDetector, type LrTuning } from '../../src/mimo/detectors/lr/cuda.js';
import type { LrVariant } from '../../src/mimo/detectors/lr/lattice-aided.js';
import { cpuAllCores } from './cpu-workers.js';
import { timeDetectorKernels } from './gpu-timing.js';

const quick = process.argv.includes('--quick');
/** HBM3 bandwidth of the H100 SXM, bytes/s (the floor's denominator). */
const BANDWIDTH = 3.35e12;
const VPC = 14;

function batch(seed: number, n: number, mod: Modulation, channels: number, snrDb: number): DetectionInput {
  const rng = new Philox(seed, 3);
  const H = rayleighChannels(rng, channels, n, n);
  const { symbols } = randomSymbols(rng, channels * VPC * n, mod);
  const y = addNoise(
    rng,
    transmit(H, symbols, n, n, VPC),
    snrToNoiseVar(snrDb, 'esn0', constellation(mod).bitsPerSymbol),
  );
  return {
    nt: n,
    nr: n,
    H: Float32Array.from(H) as unknown as Float64Array,
    y: Float32Array.from(y) as unknown as Float64Array,
    vectorsPerChannel: VPC,
    noiseVar: snrToNoiseVar(snrDb, 'esn0', constellation(mod).bitsPerSymbol),
  };
}

const f64 = (b: DetectionInput): DetectionInput => ({ ...b, H: Float64Array.from(b.H), y: Float64Array.from(b.y) });

interface Case {
  detector: Detector;
  n: number;
  mod: Modulation;
  k?: number;
  channels: number;
  tuning: string;
  kb?: KbestTuning;
  lr?: LrTuning;
}

const cases: Case[] = [];
for (const mod of ['16qam', '64qam'] as Modulation[]) {
  for (const k of [16, 64, 256]) {
    const channels = Math.round((quick ? 2000 : 24000) / Math.sqrt(k / 16));
    cases.push({ detector: 'kbest', n: 4, mod, k, channels, tuning: 'default' });
    for (const tpv of [32, 64, 128, 256] as const) {
      // (at least two keys a thread to sort: tpv <= children / 2)
      let cpad = 2;
      while (cpad < (mod === '16qam' ? 4 : 8) * k) cpad *= 2;
      if (!quick && 2 * tpv <= cpad)
        cases.push({ detector: 'kbest', n: 4, mod, k, channels, tuning: `tpv ${tpv}`, kb: { threadsPerVector: tpv } });
    }
  }
}
for (const detector of ['lr-zf', 'lr-mmse', 'lr-sic'] as Detector[]) {
  for (const n of [4, 8]) {
    const channels = quick ? 2000 : 24000;
    cases.push({ detector, n, mod: '16qam', channels, tuning: 'default' });
    if (!quick)
      cases.push({
        detector,
        n,
        mod: '16qam',
        channels,
        tuning: n === 4 ? 'lll block' : 'lll lane',
        lr: { lll: n === 4 ? 'block' : 'lane' },
      });
  }
}

async function main(): Promise<void> {
  const a = cudaAvailable();
  if (!a.ok) {
    console.log(`no CUDA device: ${a.reason}`);
    return;
  }
  console.log(`device: ${a.device.name}; CPU engine on ${availableParallelism()} threads; ${new Date().toISOString()}`);
  console.log(
    'detector       tuning     size  mod    K    vectors   GPU ms   Mvec/s    Gbps  stages (ms)                                         floor ms  CPU Mvec/s  agree',
  );
  let seed = 1;
  for (const c of cases) {
    const bps = constellation(c.mod).bitsPerSymbol;
    const opts: DetectOptions = { detector: c.detector, modulation: c.mod, ...(c.k ? { k: c.k } : {}) };
    const input = batch(seed++, c.n, c.mod, c.channels, 20);
    const create =
      c.detector === 'kbest'
        ? (ctx: CudaContext, setup: CudaDetectorSetup) => createKbestPlan(ctx, setup, c.kb)
        : (ctx: CudaContext, setup: CudaDetectorSetup) =>
            lrCudaDetector(c.detector.slice(3) as LrVariant, c.lr).create(ctx, setup);
    const t = await timeDetectorKernels(input, opts, quick ? 3 : 10, create);
    if (t.status.some((s, i) => i % 2 === 0 && s !== 0))
      console.log(`  (${t.status.filter((s, i) => i % 2 === 0 && s !== 0).length} vectors flagged for the CPU)`);
    const vectors = c.channels * VPC;
    const soft = c.detector === 'kbest';
    // floor: y, N0 in; symbols, status (and LLRs) out; the channel once per VPC vectors
    const bytes =
      vectors * (2 * c.n * 4 + 4 + c.n * 4 + 8 + (soft ? c.n * bps * 4 : 0)) + c.channels * 2 * c.n * c.n * 4;
    // the CPU engine on a smaller batch of the same kind, and how many of its vectors the GPU decided alike
    const small = Math.max(8, Math.round(c.channels / (quick ? 10 : 40)));
    const hLen = 2 * c.n * c.n,
      yLen = 2 * c.n;
    const cpuIn = f64({ ...input, H: input.H.slice(0, small * hLen), y: input.y.slice(0, small * VPC * yLen) });
    const cpu = c.tuning === 'default' ? await cpuAllCores(cpuIn, opts, quick ? 1 : 3) : { ms: NaN };
    const ref = detect(cpuIn, opts);
    let same = 0;
    for (let v = 0; v < small * VPC; v++) {
      let eq = true;
      for (let j = 0; j < c.n; j++)
        if (ref.symbols[v * c.n + j] !== t.symbols[v * c.n + j]) {
          eq = false;
          break;
        }
      if (eq) same++;
    }
    const stages = Object.entries(t.stagesMs)
      .map(([k, ms]) => `${k} ${ms.toFixed(3)}`)
      .join(', ');
    console.log(
      [
        c.detector.padEnd(14),
        c.tuning.padEnd(9),
        `${c.n}x${c.n}`.padStart(5),
        c.mod.padEnd(6),
        String(c.k ?? '-').padStart(4),
        String(vectors).padStart(9),
        t.medianMs.toFixed(3).padStart(8),
        (vectors / t.medianMs / 1e3).toFixed(2).padStart(8),
        ((vectors * c.n * bps) / t.medianMs / 1e6).toFixed(2).padStart(7),
        `  ${stages}`.padEnd(52),
        ((bytes / BANDWIDTH) * 1e3).toFixed(4).padStart(8),
        ((small * VPC) / cpu.ms / 1e3).toFixed(3).padStart(11),
        `${((100 * same) / (small * VPC)).toFixed(2)}%`.padStart(7),
      ].join(' '),
    );
  }
}

await main();
