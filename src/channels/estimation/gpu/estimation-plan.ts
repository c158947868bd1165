/**
 * The estimation part's device-level plan: a launch of slots' DM-RS estimates on the device, as
 * estimateSlot() computes them on the CPU (LS or LMMSE, the noise variance from the DM-RS), for
 * another part's pipeline that keeps the received grid there (the GPU link, the slot receiver):
 *
 *   const est = dmrsEstimationCudaPlan(ctx, { config, nr, csi: 'lmmse', pdp, maxSlots });
 *   // the caller writes the received DM-RS symbols into Yp (reading est.sequence for the pilots)
 *   est.enqueue(stream, { Yp, H32, noiseIn, slots, slot0, vectorsPerSlot, vectors, n0 });
 *
 * Kernels, one a file beside this one: despread.cu (the LS pair estimates, and for LMMSE the pairs
 * despread with the other OCC), noise-window.cu (LMMSE: each window's fit residual),
 * noise-segments.cu and noise.cu (each slot's noise variance, summed as segmentedSum() does),
 * freq-estimate.cu (the estimate of every DM-RS symbol's subcarriers), time-interpolate.cu (each
 * data vector's channel and noise variance). Every value equals the CPU's in float64 (the same
 * operations in the same order) before the float32 rounding of the detectors' inputs.
 */
import { InvalidArgumentError } from '../../../core/index.js';
import {
  type CudaContext,
  DeviceBuffer,
  type Kernel,
  loadModule,
  type ParamType,
  readKernelSource,
  type Stream,
} from '../../../gpu/index.js';
import { type DmrsConfig, dmrsPilots, slotsPerFrame } from '../dmrs.js';
import { type LmmseFilter, lmmseFilter, type PowerDelayProfile, residualDofs } from '../lmmse.js';
import { autoNoiseSum, freeTermCounts, NOISE_SEGMENT, noiseTermCount } from '../noise.js';
import { slotLmmseErrorVariance } from '../slot.js';
import { lsErrorScale, type TimeInterpolationTerms, timeInterpolationTerms } from '../time-error.js';

const BLOCK = 256;

/** Threads of noise-window.cu a window (a lane a row of the residual projection; 2W <= 16, W = 8 by default). */
export const NOISE_WINDOW_LANES = 16;

/** noise-segments.cu's and noise.cu's method numbers. */
export const NOISE_SUM_METHOD = { free: 0, residual: 1, lmmse: 2 } as const;

/**
 * An LMMSE filter's arrays as the kernels read them, every layer's one after another: starts
 * (NT x K int32, freq-estimate.cu), weights (NT x 2W x K complex doubles, subcarrier innermost, so
 * that a warp's lanes read neighbouring subcarriers' weights) and residual (NT x 2W x 2W complex
 * doubles, noise-window.cu).
 */
export function lmmseDeviceArrays(
  h: LmmseFilter,
  K: number,
): { starts: Int32Array; weights: Float64Array; residual: Float64Array } {
  const nt = h.starts.length,
    W = h.window;
  const starts = new Int32Array(nt * K),
    weights = new Float64Array(nt * 4 * K * W),
    residual = new Float64Array(nt * 8 * W * W);
  for (let j = 0; j < nt; j++) {
    starts.set(h.starts[j]!, j * K);
    const wj = h.weights[j]!;
    for (let k = 0; k < K; k++)
      for (let w = 0; w < 2 * W; w++) {
        weights[2 * ((j * 2 * W + w) * K + k)] = wj[2 * (2 * k * W + w)]!;
        weights[2 * ((j * 2 * W + w) * K + k) + 1] = wj[2 * (2 * k * W + w) + 1]!;
      }
    residual.set(h.residual[j]!, j * 8 * W * W);
  }
  return { starts, weights, residual };
}

/** What a plan estimates. */
export interface DmrsEstimationSetup {
  /** The DM-RS configuration (one port a layer: config.layers = the detectors' nt). */
  readonly config: DmrsConfig;
  /** Receive antennas. */
  readonly nr: number;
  readonly csi: 'ls' | 'lmmse';
  /** LMMSE: the power delay profile the filter assumes. */
  readonly pdp?: PowerDelayProfile;
  /** LMMSE: W, the pilot pairs a subcarrier's estimate uses (lmmseFilter's window). */
  readonly window?: number;
  /**
   * The time interpolation's error terms under the channel's time correlation (what the noise
   * variance counts; timeInterpolationTerms; default: a channel that does not change within the slot).
   */
  readonly time?: TimeInterpolationTerms;
  /** The most slots a launch holds (the plan's buffers). */
  readonly maxSlots: number;
}

/** Device addresses and sizes of one launch of consecutive slots. */
export interface DmrsEstimationBuffers {
  /** In: slots x D x K x nr complex doubles, the received DM-RS symbols (DM-RS symbol d, subcarrier k, antenna i). */
  readonly Yp: bigint;
  /** Out: vectors x nr x nt complex float32 (column-major, the detectors' layout): each data vector's channel. */
  readonly H32: bigint;
  /** Out: vectors float32, each data vector's noise variance (the detection plan's noiseIn). */
  readonly noiseIn: bigint;
  readonly slots: number;
  /** The first slot's index; slot s of the launch uses the DM-RS of slot number (slot0 + s) % slotsPerFrame. */
  readonly slot0: number;
  /** Data vectors a slot in the vector buffers (slot s's vector v at s vectorsPerSlot + v). */
  readonly vectorsPerSlot: number;
  /** Data vectors to write: a slot's data resource elements in order (data symbol, subcarrier), the first vectorsPerSlot of each slot. */
  readonly vectors: number;
  /** LMMSE: the N0 the filter assumes (one filter a value, made and uploaded once). */
  readonly n0?: number;
}

/** The LMMSE filter of one N0 on the device (shapes in the .cu files). */
interface DeviceFilter {
  readonly starts: DeviceBuffer;
  readonly weights: DeviceBuffer;
  readonly residual: DeviceBuffer;
  readonly W: number;
  readonly errorVar: number;
  readonly dofs: number;
}

/** The plan (see the file comment). */
export interface DmrsEstimationCudaPlan {
  readonly setup: DmrsEstimationSetup;
  /** slotsPerFrame x D x K/2 complex doubles: each slot number's DM-RS sequence (dmrsPilots().sequence). */
  readonly sequence: bigint;
  /** The LMMSE filter the plan uses for `n0` (the CPU's estimateSlot() takes the same). */
  filter(n0: number): LmmseFilter;
  enqueue(stream: Stream, b: DmrsEstimationBuffers): void;
  /** Frees the plan's device memory (after the work enqueued with it is done). */
  free(): void;
}

/**
 * The plan for a configuration, compiled for `ctx`. InvalidArgumentError for a profile missing
 * under LMMSE or a slot count below 1.
 */
export function dmrsEstimationCudaPlan(ctx: CudaContext, setup: DmrsEstimationSetup): DmrsEstimationCudaPlan {
  return new EstimationPlan(ctx, setup);
}

class EstimationPlan implements DmrsEstimationCudaPlan {
  readonly sequence: bigint;
  private readonly despread: Kernel;
  private readonly noiseK: Kernel;
  private readonly noiseWindow: Kernel;
  private readonly noiseSegments: Kernel;
  private readonly freq: Kernel;
  private readonly interpolate: Kernel;
  private readonly held: DeviceBuffer[] = [];
  private readonly seq: DeviceBuffer;
  private readonly P: DeviceBuffer;
  private readonly Q: DeviceBuffer | null;
  private readonly windows: DeviceBuffer | null;
  private readonly segs: DeviceBuffer;
  private readonly Hd: DeviceBuffer;
  private readonly noise: DeviceBuffer;
  private readonly filters = new Map<number, { host: LmmseFilter; device: DeviceFilter }>();
  private readonly dmrsMask: number;
  private readonly terms: TimeInterpolationTerms;

  constructor(
    private readonly ctx: CudaContext,
    readonly setup: DmrsEstimationSetup,
  ) {
    const { config, nr, csi, maxSlots } = setup;
    if (!Number.isInteger(maxSlots) || maxSlots < 1)
      throw new InvalidArgumentError(`maxSlots must be a positive integer, got ${maxSlots}`, { option: 'maxSlots' });
    if (csi === 'lmmse' && !setup.pdp)
      throw new InvalidArgumentError("csi 'lmmse' needs the power delay profile its filter assumes (pdp)", {
        option: 'pdp',
      });
    const nt = config.layers,
      K = config.subcarriers,
      D = config.symbols.length;
    this.dmrsMask = config.symbols.reduce((m, l) => m | (1 << l), 0);
    this.terms = setup.time ?? timeInterpolationTerms(config);
    const load = (file: string, name: string, params: readonly ParamType[]) =>
      loadModule(ctx, {
        source: readKernelSource(new URL(`./${file}`, import.meta.url)),
        name: `channels/estimation/gpu/${file}`,
        defines: { OFDM_BLOCK: BLOCK, NT: nt, NR: nr, OFDM_WINDOW_LANES: NOISE_WINDOW_LANES },
      }).kernel(name, [...params]);
    const ptr = 'ptr' as const,
      i32 = 'i32' as const,
      i64 = 'i64' as const,
      f64 = 'f64' as const;
    // compiled before any allocation, so that a failed compile leaves nothing behind
    this.despread = load('despread.cu', 'ofdm_despread', [ptr, ptr, ptr, ptr, i64, i32, i32, i32, i32, f64, f64]);
    this.noiseK = load('noise.cu', 'ofdm_noise', [ptr, ptr, i32, i32, i32, f64, f64, f64, f64, f64, f64]);
    this.noiseSegments = load('noise-segments.cu', 'ofdm_noise_segments', [
      ...[ptr, ptr, ptr, ptr, ptr],
      ...[i64, i32, i32, i32, i32, i32, i64, i32],
    ]);
    this.noiseWindow = load('noise-window.cu', 'ofdm_noise_window', [ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32]);
    this.freq = load('freq-estimate.cu', 'ofdm_freq_estimate', [ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32]);
    this.interpolate = load('time-interpolate.cu', 'ofdm_estimate', [ptr, ptr, ptr, ptr, i32, i64, i32, i32, i32]);
    const alloc = (bytes: number) => {
      const b = DeviceBuffer.alloc(ctx, Math.max(bytes, 8));
      this.held.push(b);
      return b;
    };
    try {
      const frame = slotsPerFrame(config.scs);
      const seq = new Float64Array(frame * D * K);
      for (let s = 0; s < frame; s++) seq.set(dmrsPilots(config, s).sequence, s * D * K);
      this.seq = alloc(seq.byteLength);
      this.seq.upload(seq);
      this.sequence = this.seq.ptr;
      const pairs = maxSlots * D * nt * nr * (K / 4);
      this.Hd = alloc(maxSlots * D * K * nr * nt * 16);
      this.P = alloc(pairs * 16);
      this.Q = csi === 'lmmse' ? alloc(pairs * 16) : null;
      // W <= 8 pairs: at most K/4 windows of one pair a row
      this.windows = csi === 'lmmse' ? alloc(pairs * 8) : null;
      this.segs = alloc(maxSlots * Math.ceil((D * K * nr) / NOISE_SEGMENT) * 8);
      this.noise = alloc(maxSlots * 8);
    } catch (e) {
      this.free();
      throw e;
    }
  }

  filter(n0: number): LmmseFilter {
    return this.deviceFilter(n0).host;
  }

  /** The LMMSE filter of N0 on the device (uploaded once; kept while the plan lives). */
  private deviceFilter(n0: number): { host: LmmseFilter; device: DeviceFilter } {
    let f = this.filters.get(n0);
    if (!f) {
      const { config, nr } = this.setup;
      const K = config.subcarriers;
      const h = lmmseFilter(config, {
        pdp: this.setup.pdp!,
        noiseVariance: n0,
        ...(this.setup.window !== undefined ? { window: this.setup.window } : {}),
      });
      const W = h.window;
      const { starts, weights, residual } = lmmseDeviceArrays(h, K);
      const upload = (a: Int32Array | Float64Array) => {
        const b = DeviceBuffer.alloc(this.ctx, a.byteLength);
        this.held.push(b);
        b.upload(a);
        return b;
      };
      f = {
        host: h,
        device: {
          starts: upload(starts),
          weights: upload(weights),
          residual: upload(residual),
          W,
          errorVar: slotLmmseErrorVariance(h, this.terms),
          dofs: residualDofs(h, config.symbols.length, nr),
        },
      };
      this.filters.set(n0, f);
    }
    return f;
  }

  enqueue(stream: Stream, b: DmrsEstimationBuffers): void {
    const { config, nr, maxSlots } = this.setup;
    const nt = config.layers,
      K = config.subcarriers,
      D = config.symbols.length;
    if (b.slots < 1 || b.slots > maxSlots)
      throw new InvalidArgumentError(`a launch holds 1 to ${maxSlots} slots (the plan's maxSlots), got ${b.slots}`, {
        option: 'slots',
      });
    const frame = slotsPerFrame(config.scs),
      beta = Math.sqrt(config.pilotPower);
    const grid = (n: number, block = BLOCK) => ({ grid: Math.max(1, Math.ceil(n / block)), block, stream });
    const chunks = b.slots;
    this.despread.launch(grid(chunks * D * nt * nr * (K / 4)), [
      b.Yp,
      this.seq.ptr,
      this.P.ptr,
      this.Q?.ptr ?? 0n,
      b.slot0,
      chunks,
      K,
      D,
      frame,
      beta,
      1 / (2 * config.pilotPower),
    ]);
    let f: DeviceFilter | null = null;
    if (this.setup.csi === 'lmmse') {
      if (b.n0 === undefined || !(b.n0 > 0))
        throw new InvalidArgumentError(`csi 'lmmse' needs the N0 its filter assumes (n0 > 0), got ${b.n0}`, {
          option: 'n0',
        });
      f = this.deviceFilter(b.n0).device;
    }
    // the noise sum's terms (noise.ts / lmmse.ts order), summed in segments, then a slot's segments
    const per = f ? Math.floor(K / 4 / f.W) : 0;
    const sum = f ? 'lmmse' : autoNoiseSum(nt);
    const method = NOISE_SUM_METHOD[sum];
    const terms = noiseTermCount(sum, D, K, nr, nt, f?.W);
    const segments = Math.ceil(terms / NOISE_SEGMENT);
    if (f)
      this.noiseWindow.launch(grid(chunks * terms * NOISE_WINDOW_LANES, 128), [
        this.P.ptr,
        this.Q!.ptr,
        f.residual.ptr,
        this.windows!.ptr,
        chunks,
        K,
        D,
        f.W,
        per,
      ]);
    this.noiseSegments.launch(grid(chunks * segments), [
      b.Yp,
      this.P.ptr,
      this.seq.ptr,
      f ? this.windows!.ptr : 0n,
      this.segs.ptr,
      b.slot0,
      chunks,
      K,
      D,
      frame,
      method,
      terms,
      freeTermCounts(D, K, nr, nt).empty,
    ]);
    this.noiseK.launch(grid(chunks), [
      this.segs.ptr,
      this.noise.ptr,
      chunks,
      segments,
      method,
      terms,
      f ? f.dofs : 0,
      config.pilotPower,
      f ? 0 : lsErrorScale(config, this.terms),
      f ? f.errorVar : 0,
      this.terms.doppler,
    ]);
    this.freq.launch(grid(chunks * D * K * nr * nt), [
      this.P.ptr,
      this.Q?.ptr ?? 0n,
      f ? f.starts.ptr : 0n,
      f ? f.weights.ptr : 0n,
      this.Hd.ptr,
      chunks,
      K,
      D,
      f ? f.W : 0,
    ]);
    this.interpolate.launch(grid(Math.ceil(b.vectors / b.vectorsPerSlot) * K * nr * nt), [
      this.Hd.ptr,
      this.noise.ptr,
      b.H32,
      b.noiseIn,
      b.vectorsPerSlot,
      b.vectors,
      K,
      D,
      this.dmrsMask,
    ]);
  }

  free(): void {
    for (const b of this.held.splice(0)) b.free();
    this.filters.clear();
  }
}
