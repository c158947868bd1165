/**
 * Shared by the exact GPU detectors' tests and bench/mimo/gpu-ml-sphere.ts: fresh random problems
 * (Rayleigh channels, random symbols, CN(0, N0) noise), the float64 CPU reference, the ML check
 * with its float32 near-tie rule, and a device harness that runs a CudaDetector plan on one chunk.
 *
 * Near-tie rule: the GPU scores hypotheses in float32, whose metric carries an absolute error up to
 * about nt nr 2^-24 (||y||^2 + ||H s||^2) (sums of nt nr terms of that size, each rounded). A GPU
 * decision that differs from float64 ML is accepted only when its float64 metric lies within
 * nearTieTolerance of the ML metric: the two best metrics are within float32 rounding.
 */
import type { Constellation } from '../../src/mimo/modulation.js';
import { constellation } from '../../src/mimo/modulation.js';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import type { CpuDetector, DetectorOutput } from '../../src/mimo/detectors/detector.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import { DEFAULT_MAX_NODES } from '../../src/mimo/budget.js';
import type { CudaDetector, CudaDetectorSetup } from '../../src/mimo/gpu/cuda-detector.js';
import { STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import type { CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream } from '../../src/gpu/stream.js';

export interface Problem {
  readonly nr: number;
  readonly nt: number;
  readonly mod: Modulation;
  readonly channels: number;
  readonly vpc: number;
  readonly vectors: number;
  readonly H: Float64Array;
  readonly y: Float64Array;
  readonly noiseVar: number;
  /** The transmitted symbol indices (vectors x nt). */
  readonly sent: Int32Array;
}

/** channels x vpc fresh vectors at Es/N0 = snrDb. */
export function makeProblem(
  rng: Philox,
  channels: number,
  vpc: number,
  nr: number,
  nt: number,
  mod: Modulation,
  snrDb: number,
): Problem {
  const vectors = channels * vpc;
  const H = rayleighChannels(rng, channels, nt, nr);
  const { indices, symbols } = randomSymbols(rng, vectors * nt, mod);
  const noiseVar = snrToNoiseVar(snrDb, 'esn0', 1);
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), noiseVar);
  return { nr, nt, mod, channels, vpc, vectors, H, y, noiseVar, sent: indices };
}

/** The float64 CPU detector on every vector: symbols, LLRs (when soft), unproven flags, nodes. */
export function cpuRun(
  det: CpuDetector,
  p: Problem,
  opts: Partial<DetectOptions> = {},
  soft = false,
): DetectorOutput & { nodes: Int32Array } {
  const con = constellation(p.mod);
  const maxNodes = opts.maxNodes ?? DEFAULT_MAX_NODES;
  const inst = det.create({
    nr: p.nr,
    nt: p.nt,
    modulation: p.mod,
    constellation: con,
    opts: { detector: det.name, modulation: p.mod, ...opts },
    soft,
    maxNodes,
  });
  const out: DetectorOutput = {
    symbols: new Int32Array(p.vectors * p.nt),
    llr: soft ? new Float64Array(p.vectors * p.nt * con.bitsPerSymbol) : null,
    unproven: new Uint8Array(p.vectors),
  };
  const nodes = new Int32Array(p.vectors);
  for (let c = 0; c < p.channels; c++) {
    const prep = inst.prepare(p.H, 2 * c * p.nr * p.nt, p.noiseVar);
    for (let v = c * p.vpc; v < (c + 1) * p.vpc; v++)
      nodes[v] = inst.detect(prep, p.y, 2 * v * p.nr, p.noiseVar, out, v);
  }
  return { ...out, nodes };
}

/** ||y_v - H s||^2 in float64 (complex model, written independently of the detectors), and ||H s||^2. */
export function metric64(p: Problem, con: Constellation, sym: ArrayLike<number>, v: number): { d: number; hs: number } {
  const { nr, nt } = p,
    hb = 2 * Math.floor(v / p.vpc) * nr * nt;
  let d = 0,
    hs = 0;
  for (let i = 0; i < nr; i++) {
    let re = 0,
      im = 0;
    for (let j = 0; j < nt; j++) {
      const hr = p.H[hb + 2 * (i + j * nr)]!,
        hi = p.H[hb + 2 * (i + j * nr) + 1]!;
      const sr = con.points[2 * sym[j]!]!,
        si = con.points[2 * sym[j]! + 1]!;
      re += hr * sr - hi * si;
      im += hr * si + hi * sr;
    }
    const yr = p.y[2 * (v * nr + i)]!,
      yi = p.y[2 * (v * nr + i) + 1]!;
    d += (yr - re) ** 2 + (yi - im) ** 2;
    hs += re * re + im * im;
  }
  return { d, hs };
}

/** The float32 rounding bound of a vector's metrics (file comment). */
export function nearTieTolerance(p: Problem, con: Constellation, sym: ArrayLike<number>, v: number): number {
  const { hs } = metric64(p, con, sym, v);
  let yy = 0;
  for (let i = 0; i < 2 * p.nr; i++) yy += p.y[2 * v * p.nr + i]! ** 2;
  return p.nt * p.nr * 2 ** -22 * (yy + hs);
}

export interface ExactCheck {
  /** Vectors where the GPU's symbols differ from the reference's (each a proven near-tie). */
  nearTies: number;
  /** The largest (metric gap) / tolerance among them (< 1). */
  worstRatio: number;
  /** The first offending vector, when a mismatch is no near-tie. */
  failure: string | null;
}

/**
 * Compares GPU symbols with the float64 ML symbols `ref` (exhaustive ML or a proven-exact float64
 * search), vector by vector; `skip[v]` leaves vectors out (flagged by the GPU for a CPU redo).
 */
export function checkAgainstMl(
  p: Problem,
  ref: Int32Array,
  got: Int32Array,
  skip?: (v: number) => boolean,
): ExactCheck {
  const con = constellation(p.mod),
    nt = p.nt;
  let nearTies = 0,
    worstRatio = 0;
  for (let v = 0; v < p.vectors; v++) {
    if (skip?.(v)) continue;
    let same = true;
    for (let j = 0; j < nt; j++) if (ref[v * nt + j] !== got[v * nt + j]) same = false;
    if (same) continue;
    const a = ref.subarray(v * nt, (v + 1) * nt),
      b = got.subarray(v * nt, (v + 1) * nt);
    for (let j = 0; j < nt; j++) {
      if (!(b[j]! >= 0 && b[j]! < con.size))
        return { nearTies, worstRatio, failure: `vector ${v}: GPU symbol ${b[j]} out of range` };
    }
    const ma = metric64(p, con, a, v).d,
      mb = metric64(p, con, b, v).d;
    const tol = nearTieTolerance(p, con, a, v);
    const ratio = (mb - ma) / tol;
    if (!(ratio <= 1))
      return {
        nearTies,
        worstRatio,
        failure: `vector ${v}: GPU [${[...b]}] metric ${mb}, ML [${[...a]}] metric ${ma}, gap ${mb - ma} over the float32 tolerance ${tol}`,
      };
    nearTies++;
    if (ratio > worstRatio) worstRatio = ratio;
  }
  return { nearTies, worstRatio, failure: null };
}

export interface GpuRun {
  symbols: Int32Array;
  llr: Float32Array | null;
  status: Int32Array;
}

/** Device copies of a problem in the chunk layouts of cuda-detector.ts (float32), and its outputs. */
export class DeviceProblem {
  readonly H: DeviceBuffer;
  readonly y: DeviceBuffer;
  readonly noise: DeviceBuffer;
  readonly symbols: DeviceBuffer;
  readonly llr: DeviceBuffer | null;
  readonly status: DeviceBuffer;
  readonly scratch: DeviceBuffer[];

  constructor(
    readonly ctx: CudaContext,
    readonly p: Problem,
    bps: number,
    soft: boolean,
    scratchBytesPerChannel: readonly number[],
    statusIn?: Int32Array,
  ) {
    const { vectors, nt } = p;
    this.H = DeviceBuffer.alloc(ctx, p.H.length * 4);
    this.H.upload(Float32Array.from(p.H));
    this.y = DeviceBuffer.alloc(ctx, p.y.length * 4);
    this.y.upload(Float32Array.from(p.y));
    this.noise = DeviceBuffer.alloc(ctx, vectors * 4);
    this.noise.upload(new Float32Array(vectors).fill(p.noiseVar));
    this.symbols = DeviceBuffer.alloc(ctx, vectors * nt * 4);
    this.llr = soft ? DeviceBuffer.alloc(ctx, vectors * nt * bps * 4) : null;
    this.status = DeviceBuffer.alloc(ctx, vectors * STATUS_WORDS * 4);
    this.status.upload(statusIn ?? new Int32Array(vectors * STATUS_WORDS));
    this.scratch = scratchBytesPerChannel.map((b) => DeviceBuffer.alloc(ctx, Math.max(4, b * p.channels)));
  }

  chunk() {
    return {
      channels: this.p.channels,
      vectorsPerChannel: this.p.vpc,
      H: this.H.ptr,
      y: this.y.ptr,
      noise: this.noise.ptr,
      symbols: this.symbols.ptr,
      llr: this.llr?.ptr ?? 0n,
      status: this.status.ptr,
      scratch: this.scratch.map((s) => s.ptr),
    };
  }

  read(): GpuRun {
    const { vectors, nt } = this.p;
    const symbols = new Int32Array(vectors * nt);
    this.symbols.download(symbols);
    const status = new Int32Array(vectors * STATUS_WORDS);
    this.status.download(status);
    let llr: Float32Array | null = null;
    if (this.llr) {
      llr = new Float32Array(this.llr.bytes / 4);
      this.llr.download(llr);
    }
    return { symbols, llr, status };
  }

  free(): void {
    for (const b of [this.H, this.y, this.noise, this.symbols, this.llr, this.status, ...this.scratch]) b?.free();
  }
}

/** The setup the GPU engine would give a detector for this problem. */
export function gpuSetup(ctx: CudaContext, p: Problem, opts: Partial<DetectOptions>, soft: boolean): CudaDetectorSetup {
  const con = constellation(p.mod);
  return {
    nr: p.nr,
    nt: p.nt,
    modulation: p.mod,
    constellation: con,
    opts: { detector: 'ml', modulation: p.mod, ...opts } as DetectOptions,
    soft,
    maxNodes: opts.maxNodes ?? DEFAULT_MAX_NODES,
    llrClip: Math.min(opts.llrClip ?? 1e100, 3e38),
    vectorsPerChannel: p.vpc,
    device: ctx.props,
  };
}

/** Runs a CUDA detector on one chunk holding the whole problem; returns its outputs. */
export function gpuRun(
  ctx: CudaContext,
  det: CudaDetector,
  p: Problem,
  opts: Partial<DetectOptions> = {},
  soft = false,
  statusIn?: Int32Array,
): GpuRun {
  const setup = gpuSetup(ctx, p, { detector: det.name, ...opts }, soft);
  const plan = det.create(ctx, setup);
  const dp = new DeviceProblem(ctx, p, setup.constellation.bitsPerSymbol, soft, plan.scratchBytesPerChannel, statusIn);
  const stream = Stream.create(ctx);
  try {
    plan.enqueue(stream, dp.chunk());
    stream.synchronize();
    return dp.read();
  } finally {
    stream.destroy();
    dp.free();
  }
}

export { Philox };
