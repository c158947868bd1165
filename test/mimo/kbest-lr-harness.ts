/**
 * What the K-best and lattice-aided GPU tests share: fresh problems in float32-exact numbers,
 * normalized per channel as the engines do (so that the CPU detector in float64 and the GPU one in
 * float32 see the same data), the CPU detector run on them, and a CudaDetector plan run on device
 * buffers, before and without the GPU engine (src/mimo/gpu/detect-batch.ts).
 */
import type { CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream } from '../../src/gpu/stream.js';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { CpuDetector, DetectorSetup } from '../../src/mimo/detectors/detector.js';
import type { CudaDetector, CudaDetectorSetup } from '../../src/mimo/gpu/cuda-detector.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import { DEFAULT_MAX_NODES } from '../../src/mimo/budget.js';

export interface Problem {
  nt: number;
  nr: number;
  modulation: Modulation;
  channels: number;
  vpc: number;
  /** Normalized (largest entry of each channel in [1, 2)), float32-exact unless made otherwise. */
  H: Float64Array;
  y: Float64Array;
  noise: Float64Array;
  /** The transmitted symbol indices, vectors x nt. */
  sent: Int32Array;
}

const exponentOf = (x: number): number => Math.floor(Math.log2(x));

/**
 * Rayleigh channels, uniform symbols, noise at Es/N0 = snrDb; every number rounded to float32
 * (H and y kept in float64 with `float32 = false`: the same draws, unrounded), then normalized by
 * powers of two.
 */
export function makeProblem(
  seed: number,
  nt: number,
  nr: number,
  modulation: Modulation,
  channels: number,
  vpc: number,
  snrDb: number,
  float32 = true,
): Problem {
  const round = float32 ? Math.fround : (x: number): number => x;
  const rng = new Philox(seed, 7);
  const H = rayleighChannels(rng, channels, nt, nr).map(round);
  const vectors = channels * vpc;
  const { indices, symbols } = randomSymbols(rng, vectors * nt, modulation);
  const n0 = snrToNoiseVar(snrDb, 'esn0', constellation(modulation).bitsPerSymbol);
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), n0).map(round);
  const noise = new Float64Array(vectors);
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  for (let c = 0; c < channels; c++) {
    let m = 0;
    for (let e = 0; e < hLen; e++) m = Math.max(m, Math.abs(H[c * hLen + e]!));
    const p = m > 0 ? -exponentOf(m) : 0;
    const f = 2 ** p;
    for (let e = 0; e < hLen; e++) H[c * hLen + e]! *= f;
    for (let v = c * vpc; v < (c + 1) * vpc; v++) {
      for (let e = 0; e < yLen; e++) y[v * yLen + e]! *= f;
      noise[v] = Math.fround(n0) * f * f;
    }
  }
  return { nt, nr, modulation, channels, vpc, H, y, noise, sent: indices };
}

export function cpuSetup(p: Problem, opts: Partial<DetectOptions>, soft: boolean): DetectorSetup {
  const full: DetectOptions = { detector: 'kbest', modulation: p.modulation, ...opts };
  return {
    nr: p.nr,
    nt: p.nt,
    modulation: p.modulation,
    constellation: constellation(p.modulation),
    opts: full,
    soft,
    maxNodes: DEFAULT_MAX_NODES,
  };
}

/** The CPU detector on the problem, prepared per channel (and again when N0 changes), as detect() runs it. */
export function runCpu(
  det: CpuDetector,
  setup: DetectorSetup,
  p: Problem,
): { symbols: Int32Array; llr: Float64Array | null } {
  const inst = det.create(setup);
  const vectors = p.channels * p.vpc;
  const bps = setup.constellation.bitsPerSymbol;
  const out = {
    symbols: new Int32Array(vectors * p.nt),
    llr: setup.soft ? new Float64Array(vectors * p.nt * bps) : null,
    unproven: new Uint8Array(vectors),
  };
  let prep: unknown,
    pc = -1,
    pn = NaN;
  for (let v = 0; v < vectors; v++) {
    const c = Math.floor(v / p.vpc);
    if (c !== pc || p.noise[v] !== pn) {
      prep = inst.prepare(p.H, c * 2 * p.nr * p.nt, p.noise[v]!);
      pc = c;
      pn = p.noise[v]!;
    }
    inst.detect(prep, p.y, v * 2 * p.nr, p.noise[v]!, out, v);
  }
  return { symbols: out.symbols, llr: out.llr };
}

export interface GpuOutput {
  symbols: Int32Array;
  llr: Float32Array | null;
  status: Int32Array;
  scratch: Uint8Array[];
  kernelMs: number;
}

/** One chunk of the whole problem through the detector's plan on device buffers; scratch regions are read back too. */
export function runGpu(
  ctx: CudaContext,
  det: CudaDetector,
  setup: CudaDetectorSetup,
  p: Problem,
  statusIn?: Int32Array,
): GpuOutput {
  const plan = det.create(ctx, setup);
  const vectors = p.channels * p.vpc;
  const bps = setup.constellation.bitsPerSymbol;
  const nll = vectors * p.nt * bps;
  const bufs: DeviceBuffer[] = [];
  const up = (a: Float32Array | Int32Array): DeviceBuffer => {
    const b = DeviceBuffer.alloc(ctx, Math.max(4, a.byteLength));
    b.upload(a);
    bufs.push(b);
    return b;
  };
  const alloc = (bytes: number): DeviceBuffer => {
    const b = DeviceBuffer.alloc(ctx, Math.max(16, bytes));
    bufs.push(b);
    return b;
  };
  try {
    const H = up(Float32Array.from(p.H)),
      y = up(Float32Array.from(p.y)),
      noise = up(Float32Array.from(p.noise));
    const symbols = alloc(vectors * p.nt * 4),
      llr = alloc(nll * 4);
    const status = up(statusIn ?? new Int32Array(2 * vectors));
    const scratch = plan.scratchBytesPerChannel.map((b) => alloc(b * p.channels));
    const stream = Stream.create(ctx);
    const t0 = performance.now();
    plan.enqueue(stream, {
      channels: p.channels,
      vectorsPerChannel: p.vpc,
      H: H.ptr,
      y: y.ptr,
      noise: noise.ptr,
      symbols: symbols.ptr,
      llr: setup.soft ? llr.ptr : 0n,
      status: status.ptr,
      scratch: scratch.map((s) => s.ptr),
    });
    stream.synchronize();
    const kernelMs = performance.now() - t0;
    stream.destroy();
    const out: GpuOutput = {
      symbols: new Int32Array(vectors * p.nt),
      llr: setup.soft ? new Float32Array(nll) : null,
      status: new Int32Array(2 * vectors),
      scratch: [],
      kernelMs,
    };
    symbols.download(out.symbols);
    if (out.llr) llr.download(out.llr);
    status.download(out.status);
    out.scratch = plan.scratchBytesPerChannel.map((b, i) => {
      const u = new Uint8Array(b * p.channels);
      if (u.length > 0) scratch[i]!.download(u);
      return u;
    });
    return out;
  } finally {
    for (const b of bufs) b.free();
  }
}

export function gpuSetup(ctx: CudaContext, p: Problem, opts: Partial<DetectOptions>, soft: boolean): CudaDetectorSetup {
  const s = cpuSetup(p, opts, soft);
  return { ...s, llrClip: 3.0e38, vectorsPerChannel: p.vpc, device: ctx.props };
}

/** Symbol errors between two decisions, per vector (1 when any stream differs). */
export function differingVectors(a: Int32Array, b: Int32Array, nt: number): number[] {
  const out: number[] = [];
  for (let v = 0; v < a.length / nt; v++) {
    for (let j = 0; j < nt; j++)
      if (a[v * nt + j] !== b[v * nt + j]) {
        out.push(v);
        break;
      }
  }
  return out;
}

/** Bit errors of decided symbols against the sent ones. */
export function bitErrors(decided: Int32Array, sent: Int32Array, _bps: number): number {
  let e = 0;
  for (let i = 0; i < decided.length; i++) {
    let x = decided[i]! ^ sent[i]!;
    while (x) {
      e += x & 1;
      x >>= 1;
    }
  }
  return e;
}
