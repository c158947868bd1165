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
import { addNoise, randomSymbols, rayleighChannels, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { detect } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Detector, Modulation } from '../../src/mimo/types.js';
import { cudaAvailable, requireCuda, type CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { CudaEvent, Stream } from '../../src/gpu/stream.js';
import { validateDetection } from '../../src/mimo/detect.js';
import { cudaSetup, enqueueNormalize } from '../../src/mimo/gpu/detect-batch.js';
import type { CudaDetectorPlan, CudaDetectorSetup, DetectChunk } from '../../src/mimo/gpu/cuda-detector.js';
import { STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import { createKbestPlan, type KbestTuning } from '../../src/mimo/detectors/kbest/cuda.js';
import { lrCudaDetector, type LrTuning } from '../../src/mimo/detectors/lr/cuda.js';
import type { LrVariant } from '../../src/mimo/detectors/lr/lattice-aided.js';
import { cpuAllCores } from './cpu-workers.js';

const quick = process.argv.includes('--quick');
/** HBM3 bandwidth of the H100 SXM, bytes/s (the floor's denominator). */
const BANDWIDTH = 3.35e12;
const VPC = 14;

function batch(seed: number, n: number, mod: Modulation, channels: number, snrDb: number): DetectionInput {
  const rng = new Philox(seed, 3);
  const H = rayleighChannels(rng, channels, n, n);
  const { symbols } = randomSymbols(rng, channels * VPC * n, mod);
  const y = addNoise(rng, transmit(H, symbols, n, n, VPC), snrToNoiseVar(snrDb, 'esn0', constellation(mod).bitsPerSymbol));
  return { nt: n, nr: n, H: Float32Array.from(H) as unknown as Float64Array, y: Float32Array.from(y) as unknown as Float64Array, vectorsPerChannel: VPC, noiseVar: snrToNoiseVar(snrDb, 'esn0', constellation(mod).bitsPerSymbol) };
}

const median = (xs: number[]): number => { const t = [...xs].sort((a, b) => a - b); const m = t.length >> 1; return t.length % 2 ? t[m]! : (t[m - 1]! + t[m]!) / 2; };
const align = (x: number): number => Math.ceil(x / 256) * 256;

/**
 * bench/mimo/gpu-timing.ts's timeDetectorKernels with the plan made by `create` (a tuning of the
 * launch shape): data uploaded and normalized once, then reps runs of the plan's kernels (and of
 * each stage alone) between events, after a warm-up.
 */
function timePlan(input: DetectionInput, opts: DetectOptions, reps: number, create: (ctx: CudaContext, setup: CudaDetectorSetup) => CudaDetectorPlan) {
  const ctx = requireCuda();
  const val = validateDetection(input, opts);
  const setup = cudaSetup(ctx, val, { name: opts.detector, soft: opts.detector === 'kbest', create: () => { throw new Error('unused'); } });
  const plan = create(ctx, setup);
  const { nr, nt, channels, vectorsPerChannel: vpc } = val;
  const vectors = channels * vpc, bps = setup.constellation.bitsPerSymbol;
  const H = Float32Array.from(input.H), y = Float32Array.from(input.y);
  const noise = new Float32Array(vectors).fill(input.noiseVar as number);
  const sizes = [H.byteLength, y.byteLength, noise.byteLength, vectors * 4, vectors * nt * 4, setup.soft ? vectors * nt * bps * 4 : 0, vectors * STATUS_WORDS * 4,
    ...plan.scratchBytesPerChannel.map((b) => b * channels)];
  const offsets: number[] = [];
  let total = 0;
  for (const b of sizes) { offsets.push(total); total += align(Math.max(b, 1)); }
  const arena = DeviceBuffer.alloc(ctx, total);
  const stream = Stream.create(ctx);
  const at = (i: number): bigint => arena.ptr + BigInt(offsets[i]!);
  const events = Array.from({ length: 2 * reps }, () => CudaEvent.create(ctx));
  try {
    arena.upload(H, offsets[0]); arena.upload(y, offsets[1]); arena.upload(noise, offsets[2]);
    const statusBytes = vectors * STATUS_WORDS * 4;
    arena.fillRange(offsets[6]!, statusBytes, 0, stream);
    enqueueNormalize(ctx, stream, { H: at(0), y: at(1), noiseIn: at(2), noiseScalar: 0, noiseOut: at(3), status: at(6) }, channels, vpc, nr, nt);
    const chunk: DetectChunk = {
      channels, vectorsPerChannel: vpc, H: at(0), y: at(1), noise: at(3), symbols: at(4), llr: setup.soft ? at(5) : 0n, status: at(6),
      scratch: plan.scratchBytesPerChannel.map((_, k) => at(7 + k)),
    };
    const timeRuns = (work: () => void): number[] => {
      arena.fillRange(offsets[6]!, statusBytes, 0, stream);
      work();
      stream.synchronize();
      for (let r = 0; r < reps; r++) {
        arena.fillRange(offsets[6]!, statusBytes, 0, stream);
        events[2 * r]!.record(stream);
        work();
        events[2 * r + 1]!.record(stream);
      }
      stream.synchronize();
      return Array.from({ length: reps }, (_, r) => events[2 * r + 1]!.elapsedSince(events[2 * r]!));
    };
    const stagesMs: Record<string, number> = {};
    for (const st of plan.stages ?? []) {
      for (const b of plan.stages!.slice(0, plan.stages!.indexOf(st))) b.enqueue(stream, chunk);
      stagesMs[st.name] = median(timeRuns(() => st.enqueue(stream, chunk)));
    }
    const ms = median(timeRuns(() => plan.enqueue(stream, chunk)));
    const symbols = new Int32Array(vectors * nt), status = new Int32Array(vectors * STATUS_WORDS);
    arena.download(symbols, offsets[4]);
    arena.download(status, offsets[6]);
    return { medianMs: ms, stagesMs, symbols, status };
  } finally {
    for (const e of events) e.destroy();
    stream.destroy();
    arena.free();
  }
}

const f64 = (b: DetectionInput): DetectionInput => ({ ...b, H: Float64Array.from(b.H), y: Float64Array.from(b.y) });

interface Case { detector: Detector; n: number; mod: Modulation; k?: number; channels: number; tuning: string; kb?: KbestTuning; lr?: LrTuning }

const cases: Case[] = [];
for (const mod of ['16qam', '64qam'] as Modulation[]) {
  for (const k of [16, 64, 256]) {
    const channels = Math.round((quick ? 2000 : 24000) / Math.sqrt(k / 16));
    cases.push({ detector: 'kbest', n: 4, mod, k, channels, tuning: 'default' });
    for (const tpv of [32, 64, 128, 256] as const) {
      // (at least two keys a thread to sort: tpv <= children / 2)
      let cpad = 2;
      while (cpad < (mod === '16qam' ? 4 : 8) * k) cpad *= 2;
      if (!quick && 2 * tpv <= cpad) cases.push({ detector: 'kbest', n: 4, mod, k, channels, tuning: `tpv ${tpv}`, kb: { threadsPerVector: tpv } });
    }
  }
}
for (const detector of ['lr-zf', 'lr-mmse', 'lr-sic'] as Detector[]) {
  for (const n of [4, 8]) {
    const channels = quick ? 2000 : 24000;
    cases.push({ detector, n, mod: '16qam', channels, tuning: 'default' });
    if (!quick) cases.push({ detector, n, mod: '16qam', channels, tuning: n === 4 ? 'lll block' : 'lll lane', lr: { lll: n === 4 ? 'block' : 'lane' } });
  }
}

async function main(): Promise<void> {
  const a = cudaAvailable();
  if (!a.ok) { console.log(`no CUDA device: ${a.reason}`); return; }
  console.log(`device: ${a.device.name}; CPU engine on ${availableParallelism()} threads; ${new Date().toISOString()}`);
  console.log('detector       tuning     size  mod    K    vectors   GPU ms   Mvec/s    Gbps  stages (ms)                                         floor ms  CPU Mvec/s  agree');
  let seed = 1;
  for (const c of cases) {
    const bps = constellation(c.mod).bitsPerSymbol;
    const opts: DetectOptions = { detector: c.detector, modulation: c.mod, ...(c.k ? { k: c.k } : {}) };
    const input = batch(seed++, c.n, c.mod, c.channels, 20);
    const create = c.detector === 'kbest'
      ? (ctx: CudaContext, setup: CudaDetectorSetup) => createKbestPlan(ctx, setup, c.kb)
      : (ctx: CudaContext, setup: CudaDetectorSetup) => lrCudaDetector(c.detector.slice(3) as LrVariant, c.lr).create(ctx, setup);
    const t = timePlan(input, opts, quick ? 3 : 10, create);
    if (t.status.some((s, i) => i % 2 === 0 && s !== 0)) console.log(`  (${t.status.filter((s, i) => i % 2 === 0 && s !== 0).length} vectors flagged for the CPU)`);
    const vectors = c.channels * VPC;
    const soft = c.detector === 'kbest';
    // floor: y, N0 in; symbols, status (and LLRs) out; the channel once per VPC vectors
    const bytes = vectors * (2 * c.n * 4 + 4 + c.n * 4 + 8 + (soft ? c.n * bps * 4 : 0)) + c.channels * 2 * c.n * c.n * 4;
    // the CPU engine on a smaller batch of the same kind, and how many of its vectors the GPU decided alike
    const small = Math.max(8, Math.round(c.channels / (quick ? 10 : 40)));
    const hLen = 2 * c.n * c.n, yLen = 2 * c.n;
    const cpuIn = f64({ ...input, H: input.H.slice(0, small * hLen), y: input.y.slice(0, small * VPC * yLen) });
    const cpu = c.tuning === 'default' ? await cpuAllCores(cpuIn, opts, quick ? 1 : 3) : { ms: NaN };
    const ref = detect(cpuIn, opts);
    let same = 0;
    for (let v = 0; v < small * VPC; v++) {
      let eq = true;
      for (let j = 0; j < c.n; j++) if (ref.symbols[v * c.n + j] !== t.symbols[v * c.n + j]) { eq = false; break; }
      if (eq) same++;
    }
    const stages = Object.entries(t.stagesMs).map(([k, ms]) => `${k} ${ms.toFixed(3)}`).join(', ');
    console.log([
      c.detector.padEnd(14), c.tuning.padEnd(9), `${c.n}x${c.n}`.padStart(5), c.mod.padEnd(6), String(c.k ?? '-').padStart(4), String(vectors).padStart(9),
      t.medianMs.toFixed(3).padStart(8), (vectors / t.medianMs / 1e3).toFixed(2).padStart(8), ((vectors * c.n * bps) / t.medianMs / 1e6).toFixed(2).padStart(7),
      `  ${stages}`.padEnd(52), ((bytes / BANDWIDTH) * 1e3).toFixed(4).padStart(8), ((small * VPC) / cpu.ms / 1e3).toFixed(3).padStart(11),
      `${((100 * same) / (small * VPC)).toFixed(2)}%`.padStart(7),
    ].join(' '));
  }
}

await main();
