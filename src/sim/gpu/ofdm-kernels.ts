/**
 * The OFDM link's generation stage on the GPU (src/sim/ofdm-link.ts on the device): a launch is
 * whole slots (units) of one SNR point; the channel model's response on each slot's grid (its
 * enqueueResponse at the grid's symbol times and subcarrier frequencies, a drop a unit from the
 * unit's channel stream; a flat model's drop stands for every element), then ofdm-data.cu: the
 * data symbols, y = H s + w on the data resource elements (the noise where ofdmChunk draws it) and
 * the detectors' channels, in the buffers and layouts link-kernels.ts fills for the flat link, so
 * that the executor's stages after it do not change. Estimated CSI (ls, lmmse) adds ofdm-pilots.cu
 * (the received DM-RS symbols), then the estimation part's plan (dmrsEstimationCudaPlan): the
 * detectors' channels, and each vector's noise variance (the normalize stage's per-vector noiseIn,
 * which it takes as it is).
 */
import {
  type ChannelCudaPlan,
  type ChannelModel,
  channelEntry,
  type DmrsConfig,
  type DmrsEstimationCudaPlan,
  dmrsEstimationCudaPlan,
  type ResponsePoints,
  slotsPerFrame,
  SYMBOLS_PER_SLOT,
  subcarrierFrequencies,
  symbolTimes,
} from '../../channels/index.js';
import {
  type CudaContext,
  DeviceBuffer,
  type Kernel,
  loadModule,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';
import { linkChannelSpan } from '../link.js';
import { ofdmDmrs, type OfdmLinkSpec, ofdmTimeTerms } from '../ofdm-link.js';
import { type LinkBuffers, type LinkLaunch, launchUnits } from './link-kernels.js';

const BLOCK = 256;

/**
 * Estimated CSI's side: ofdm-pilots.cu's received DM-RS symbols (maxUnits x D x K x nr complex
 * doubles), each vector's noise variance (maxUnits x data vectors floats), the estimation part's plan.
 */
interface Estimation {
  pilots: Kernel;
  Yp: DeviceBuffer;
  noiseIn: DeviceBuffer;
  plan: DmrsEstimationCudaPlan;
}

/** The OFDM generation stage for one antenna configuration and grid, with its grid buffers for up to maxUnits slots. */
export class OfdmLinkKernels {
  readonly config: DmrsConfig;
  /** Subcarriers K. */
  readonly K: number;
  /** Whether the model is flat (no enqueueResponse): its drop is every element's channel. */
  readonly flat: boolean;
  private readonly data: Kernel;
  private readonly points: ResponsePoints;
  /**
   * The response: maxUnits x 14 x K x 2 nr nt doubles (flat: maxUnits x 2 nr nt); a flat model's
   * float32 copy too (its generators write both; a selective model's response skips it).
   */
  private readonly grid64!: DeviceBuffer;
  private readonly grid32: DeviceBuffer | null = null;
  private readonly dmrsMask: number;
  private readonly est: Estimation | null = null;
  private readonly held: DeviceBuffer[] = [];

  /**
   * `model`: the channel model and its parameters (the LMMSE filter's profile); `coded`:
   * ofdm-data.cu reads the symbols from tx (link-symbols.cu wrote them).
   */
  constructor(
    readonly ctx: CudaContext,
    readonly nt: number,
    readonly nr: number,
    readonly ofdm: OfdmLinkSpec,
    readonly channels: ChannelCudaPlan,
    readonly model: { channel: ChannelModel; params: Readonly<Record<string, unknown>> },
    readonly maxUnits: number,
    coded = false,
  ) {
    this.config = ofdmDmrs(ofdm, nt);
    this.K = this.config.subcarriers;
    this.flat = channels.enqueueResponse === undefined;
    const grid = { scs: ofdm.scs, prbs: ofdm.prbs };
    // one object for the plan's upload cache
    this.points = { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) };
    this.dmrsMask = this.config.symbols.reduce((m, l) => m | (1 << l), 0);
    // compiled before any allocation, so that a failed compile leaves nothing behind
    this.data = loadModule(ctx, {
      source: readKernelSource(new URL('./ofdm-data.cu', import.meta.url)),
      name: 'sim/gpu/ofdm-data.cu',
      defines: { LINK_BLOCK: BLOCK, NT: nt, NR: nr, ...(coded ? { LINK_CODED: 1 } : {}) },
    }).kernel('ofdm_data', [
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'i64',
      'u32',
      'i64',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'u32',
      'f64',
    ]);
    const entries = maxUnits * (this.flat ? 1 : SYMBOLS_PER_SLOT * this.K) * nr * nt;
    const alloc = (bytes: number) => {
      const b = DeviceBuffer.alloc(ctx, Math.max(bytes, 8));
      this.held.push(b);
      return b;
    };
    try {
      this.grid64 = alloc(entries * 16);
      if (this.flat) this.grid32 = alloc(entries * 8);
      if (ofdm.csi !== 'perfect') this.est = this.estimation(alloc);
    } catch (e) {
      this.free();
      throw e;
    }
  }

  /** The pilots kernel, the estimation plan, and buffers for maxUnits slots. */
  private estimation(alloc: (bytes: number) => DeviceBuffer): Estimation {
    const { nt, nr, K, config, maxUnits } = this;
    const D = config.symbols.length;
    const pilots = loadModule(this.ctx, {
      source: readKernelSource(new URL('./ofdm-pilots.cu', import.meta.url)),
      name: 'sim/gpu/ofdm-pilots.cu',
      defines: { OFDM_BLOCK: BLOCK, NT: nt, NR: nr },
    }).kernel('ofdm_pilots', [
      ...(['ptr', 'ptr', 'ptr', 'i64', 'u32', 'i64'] as const),
      ...(['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'f64', 'f64'] as const),
    ]);
    const csi = this.ofdm.csi === 'lmmse' ? 'lmmse' : 'ls';
    const pdp =
      csi === 'lmmse'
        ? (channelEntry(this.model.channel)!.powerDelayProfile?.(this.model.params) ?? { delays: [0], powers: [1] })
        : undefined;
    const Yp = alloc(maxUnits * D * K * nr * 16),
      noiseIn = alloc(maxUnits * config.dataSymbols.length * K * 4);
    const time = ofdmTimeTerms(config, this.model.channel, this.model.params);
    const plan = dmrsEstimationCudaPlan(this.ctx, {
      config,
      nr,
      csi,
      ...(pdp ? { pdp } : {}),
      time,
      maxSlots: maxUnits,
    });
    return { pilots, Yp, noiseIn, plan };
  }

  /**
   * Per-vector noise variances (floats) the normalize stage must read instead of the launch's N0
   * (estimated CSI: each slot's own), or null (perfect CSI).
   */
  get noiseIn(): bigint | null {
    return this.est?.noiseIn.ptr ?? null;
  }

  /**
   * The launch's slots (l.v0 = 0, whole units): the response on their grids, then the data
   * vectors' symbols (coded: read from b.tx), received vectors and channels (b.H32, vectors x 2 nr nt
   * floats; b.H64 unused), and with estimated CSI the estimate in H32 and each vector's noise
   * variance in noiseIn; `noiseVar` = N0 of the point.
   */
  enqueueGenerate(stream: Stream, l: LinkLaunch, b: LinkBuffers, modulationSize: number, noiseVar: number): void {
    const units = launchUnits(l);
    const span = linkChannelSpan({ seed: l.seed, snrIndex: l.snrIndex, unitIndex: l.unit0 }, 0, units, 1);
    const out = { H64: this.grid64.ptr, H32: this.grid32?.ptr ?? 0n };
    if (this.channels.enqueueResponse) this.channels.enqueueResponse(stream, span, this.points, out);
    else this.channels.enqueue(stream, span, out);
    // as addNoise computes it
    const sd = Math.sqrt(noiseVar / 2);
    const est = this.est;
    this.data.launch({ grid: Math.ceil(l.vectors / BLOCK), block: BLOCK, stream }, [
      b.points,
      this.grid64.ptr,
      est ? 0n : b.H32,
      b.tx,
      b.y32,
      l.seed,
      l.snrIndex,
      l.unit0,
      l.unitVectors,
      l.vectors,
      this.K,
      this.dmrsMask,
      this.flat ? 1 : 0,
      modulationSize,
      sd,
    ]);
    if (est) this.enqueueEstimate(stream, l, units, b.H32, noiseVar, sd);
  }

  /** Estimated CSI: the DM-RS symbols received, then the estimation plan (the detectors' channels and noise). */
  private enqueueEstimate(
    stream: Stream,
    l: LinkLaunch,
    units: number,
    H32: bigint,
    noiseVar: number,
    sd: number,
  ): void {
    const est = this.est!,
      { nr, K, config } = this;
    const D = config.symbols.length;
    est.pilots.launch({ grid: Math.max(1, Math.ceil((units * D * K * nr) / BLOCK)), block: BLOCK, stream }, [
      this.grid64.ptr,
      est.plan.sequence,
      est.Yp.ptr,
      l.seed,
      l.snrIndex,
      l.unit0,
      units,
      K,
      D,
      this.dmrsMask,
      slotsPerFrame(this.ofdm.scs),
      this.flat ? 1 : 0,
      Math.sqrt(config.pilotPower),
      sd,
    ]);
    est.plan.enqueue(stream, {
      Yp: est.Yp.ptr,
      H32,
      noiseIn: est.noiseIn.ptr,
      slots: units,
      slot0: l.unit0,
      vectorsPerSlot: l.unitVectors,
      vectors: l.vectors,
      n0: noiseVar,
    });
  }

  /** Frees the stage's device memory (after the work enqueued with it is done). */
  free(): void {
    this.est?.plan.free();
    for (const b of this.held.splice(0)) b.free();
  }
}
