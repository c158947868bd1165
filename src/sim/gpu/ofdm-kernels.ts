/**
 * The OFDM link's generation stage on the GPU (src/sim/ofdm-link.ts on the device): a launch is
 * whole slots (chunks) of one SNR point; the channel model's response on each slot's grid (its
 * enqueueResponse at the grid's symbol times and subcarrier frequencies, a drop a chunk from the
 * chunk's channel stream; a flat model's drop stands for every element), then ofdm-data.cu: the
 * data symbols, y = H s + w on the data resource elements (the noise where ofdmChunk draws it) and
 * the detectors' channels, in the buffers and layouts link-kernels.ts fills for the flat link, so
 * that the executor's stages after it do not change. Estimated CSI (ls, lmmse) adds ofdm-pilots.cu
 * (the received DM-RS symbols), ofdm-despread.cu (the LS pair estimates), ofdm-noise.cu (each
 * slot's noise variance for the detectors) and ofdm-estimate.cu (the detectors' channels, and each
 * vector's noise variance: the normalize stage's per-vector noiseIn, which it takes as it is).
 */
import {
  type ChannelCudaPlan,
  type ChannelModel,
  type DmrsConfig,
  dmrsPilots,
  autoNoiseSum,
  freeTermCounts,
  NOISE_SEGMENT,
  noiseTermCount,
  residualDofs,
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
  type ParamType,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';
import { linkChannelSpan } from '../link.js';
import { lmmseErrorVariance, ofdmDmrs, ofdmLmmseFilter, type OfdmLinkSpec } from '../ofdm-link.js';
import { type LinkBuffers, type LinkLaunch, launchChunks } from './link-kernels.js';

const BLOCK = 256;

/** The device side of estimated CSI: its kernels and buffers (shapes in the .cu files). */
/** ofdm-noise-segments.cu's and ofdm-noise.cu's method numbers. */
export const NOISE_SUM_METHOD = { free: 0, residual: 1, lmmse: 2 } as const;

interface Estimation {
  pilots: Kernel;
  despread: Kernel;
  noiseK: Kernel;
  noiseWindow: Kernel;
  noiseSegments: Kernel;
  freq: Kernel;
  estimate: Kernel;
  /** slotsPerFrame x D x K/2 complex doubles: each slot number's DM-RS sequence. */
  seq: DeviceBuffer;
  /** maxChunks x D x K x nr complex doubles: the received DM-RS symbols. */
  Yp: DeviceBuffer;
  /** maxChunks x D x nt x nr x K/4 complex doubles: the despread pairs. */
  P: DeviceBuffer;
  /** LMMSE: P's layout, the pairs despread with the other OCC; null for LS. */
  Q: DeviceBuffer | null;
  /** LMMSE: maxChunks x D x nt x nr x floor(K/4 / W) doubles, the windows' residuals; null for LS. */
  windows: DeviceBuffer | null;
  /** maxChunks x ceil(D K nr / NOISE_SEGMENT) doubles: the noise sums' segments (at most D K nr terms a slot). */
  segs: DeviceBuffer;
  /** maxChunks x D x K x nr nt complex doubles: the frequency estimate of the DM-RS symbols. */
  Hd: DeviceBuffer;
  /** maxChunks doubles: each slot's noise variance for the detectors. */
  noise: DeviceBuffer;
  /** maxChunks x data vectors floats: each vector's noise variance. */
  noiseIn: DeviceBuffer;
  /** LMMSE: the filters uploaded, by N0 (starts nt x K int32, weights nt x K x 2W complex doubles). */
  filters: Map<number, DeviceFilter>;
}

/**
 * An LMMSE filter on the device: its window starts and weights, W, its mean error variance, and
 * for the noise estimate its residual projectors (nt x 2W x 2W complex doubles) and their noise
 * dimensions summed over a slot's windows in the CPU's order.
 */
interface DeviceFilter {
  starts: DeviceBuffer;
  weights: DeviceBuffer;
  residual: DeviceBuffer;
  W: number;
  errorVar: number;
  dofs: number;
}

/** The OFDM generation stage for one antenna configuration and grid, with its grid buffers for up to maxChunks slots. */
export class OfdmLinkKernels {
  readonly config: DmrsConfig;
  /** Subcarriers K. */
  readonly K: number;
  /** Whether the model is flat (no enqueueResponse): its drop is every element's channel. */
  readonly flat: boolean;
  private readonly data: Kernel;
  private readonly points: ResponsePoints;
  /**
   * The response: maxChunks x 14 x K x 2 nr nt doubles (flat: maxChunks x 2 nr nt); a flat model's
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
    readonly maxChunks: number,
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
    const entries = maxChunks * (this.flat ? 1 : SYMBOLS_PER_SLOT * this.K) * nr * nt;
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

  /** The estimation kernels, and buffers for maxChunks slots. */
  private estimation(alloc: (bytes: number) => DeviceBuffer): Estimation {
    const { nt, nr, K, config, maxChunks } = this;
    const D = config.symbols.length;
    const load = (file: string, name: string, params: readonly ParamType[]) =>
      loadModule(this.ctx, {
        source: readKernelSource(new URL(`./${file}`, import.meta.url)),
        name: `sim/gpu/${file}`,
        defines: { OFDM_BLOCK: BLOCK, NT: nt, NR: nr },
      }).kernel(name, [...params]);
    const slots = slotsPerFrame(this.ofdm.scs);
    const seq = new Float64Array(slots * D * K);
    for (let s = 0; s < slots; s++) seq.set(dmrsPilots(config, s).sequence, s * D * K);
    const seqBuf = alloc(seq.byteLength);
    seqBuf.upload(seq);
    const ptr = 'ptr' as const,
      i32 = 'i32' as const,
      i64 = 'i64' as const,
      f64 = 'f64' as const;
    return {
      pilots: load('ofdm-pilots.cu', 'ofdm_pilots', [
        ptr,
        ptr,
        ptr,
        i64,
        'u32',
        i64,
        i32,
        i32,
        i32,
        i32,
        i32,
        i32,
        f64,
        f64,
      ]),
      despread: load('ofdm-despread.cu', 'ofdm_despread', [ptr, ptr, ptr, ptr, i64, i32, i32, i32, i32, f64, f64]),
      noiseK: load('ofdm-noise.cu', 'ofdm_noise', [ptr, ptr, i32, i32, i32, f64, f64, f64, f64, f64]),
      noiseSegments: load('ofdm-noise-segments.cu', 'ofdm_noise_segments', [
        ptr,
        ptr,
        ptr,
        ptr,
        ptr,
        i64,
        i32,
        i32,
        i32,
        i32,
        i32,
        i64,
        i32,
      ]),
      noiseWindow: load('ofdm-noise-window.cu', 'ofdm_noise_window', [ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32]),
      freq: load('ofdm-freq-estimate.cu', 'ofdm_freq_estimate', [ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32]),
      estimate: load('ofdm-estimate.cu', 'ofdm_estimate', [ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32]),
      Hd: alloc(maxChunks * D * K * nr * nt * 16),
      seq: seqBuf,
      Yp: alloc(maxChunks * D * K * nr * 16),
      P: alloc(maxChunks * D * nt * nr * (K / 4) * 16),
      Q: this.ofdm.csi === 'lmmse' ? alloc(maxChunks * D * nt * nr * (K / 4) * 16) : null,
      // W <= 8 pairs: at most K/4 windows of one pair a row
      windows: this.ofdm.csi === 'lmmse' ? alloc(maxChunks * D * nt * nr * (K / 4) * 8) : null,
      segs: alloc(maxChunks * Math.ceil((D * K * nr) / NOISE_SEGMENT) * 8),
      noise: alloc(maxChunks * 8),
      noiseIn: alloc(maxChunks * config.dataSymbols.length * K * 4),
      filters: new Map(),
    };
  }

  /**
   * Per-vector noise variances (floats) the normalize stage must read instead of the launch's N0
   * (estimated CSI: each slot's own), or null (perfect CSI).
   */
  get noiseIn(): bigint | null {
    return this.est?.noiseIn.ptr ?? null;
  }

  /** The LMMSE filter of the point's N0 on the device (uploaded once a point; kept while the stage lives). */
  private filterFor(noiseVar: number): DeviceFilter {
    const est = this.est!;
    let f = est.filters.get(noiseVar);
    if (!f) {
      const h = ofdmLmmseFilter(this.config, this.model.channel, this.model.params, noiseVar);
      const K = this.K,
        W = h.window;
      const starts = new Int32Array(this.nt * K),
        weights = new Float64Array(this.nt * 4 * K * W);
      for (let j = 0; j < this.nt; j++) {
        starts.set(h.starts[j]!, j * K);
        weights.set(h.weights[j]!, j * 4 * K * W);
      }
      const residual = new Float64Array(this.nt * 8 * W * W);
      for (let j = 0; j < this.nt; j++) residual.set(h.residual[j]!, j * 8 * W * W);
      const dofs = residualDofs(h, this.config.symbols.length, this.nr);
      const upload = (a: Int32Array | Float64Array) => {
        const b = DeviceBuffer.alloc(this.ctx, a.byteLength);
        this.held.push(b);
        b.upload(a);
        return b;
      };
      f = {
        starts: upload(starts),
        weights: upload(weights),
        residual: upload(residual),
        W,
        errorVar: lmmseErrorVariance(h),
        dofs,
      };
      est.filters.set(noiseVar, f);
    }
    return f;
  }

  /**
   * The launch's slots (l.v0 = 0, whole chunks): the response on their grids, then the data
   * vectors' symbols (coded: read from b.tx), received vectors and channels (b.H32, vectors x 2 nr nt
   * floats; b.H64 unused), and with estimated CSI the estimate in H32 and each vector's noise
   * variance in noiseIn; `noiseVar` = N0 of the point.
   */
  enqueueGenerate(stream: Stream, l: LinkLaunch, b: LinkBuffers, modulationSize: number, noiseVar: number): void {
    const chunks = launchChunks(l);
    const span = linkChannelSpan({ seed: l.seed, snrIndex: l.snrIndex, chunkIndex: l.chunk0 }, 0, chunks, 1);
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
      l.chunk0,
      l.chunkVectors,
      l.vectors,
      this.K,
      this.dmrsMask,
      this.flat ? 1 : 0,
      modulationSize,
      sd,
    ]);
    if (est) this.enqueueEstimate(stream, l, chunks, b.H32, noiseVar, sd);
  }

  /** Estimated CSI: the DM-RS symbols received, despread, each slot's noise variance, the data vectors' channels. */
  private enqueueEstimate(
    stream: Stream,
    l: LinkLaunch,
    chunks: number,
    H32: bigint,
    noiseVar: number,
    sd: number,
  ): void {
    const est = this.est!,
      { nt, nr, K, config } = this;
    const D = config.symbols.length,
      slots = slotsPerFrame(this.ofdm.scs),
      beta = Math.sqrt(config.pilotPower);
    const grid = (n: number) => ({ grid: Math.max(1, Math.ceil(n / BLOCK)), block: BLOCK, stream });
    const flat = this.flat ? 1 : 0;
    est.pilots.launch(grid(chunks * D * K * nr), [
      this.grid64.ptr,
      est.seq.ptr,
      est.Yp.ptr,
      l.seed,
      l.snrIndex,
      l.chunk0,
      chunks,
      K,
      D,
      this.dmrsMask,
      slots,
      flat,
      beta,
      sd,
    ]);
    est.despread.launch(grid(chunks * D * nt * nr * (K / 4)), [
      est.Yp.ptr,
      est.seq.ptr,
      est.P.ptr,
      est.Q?.ptr ?? 0n,
      l.chunk0,
      chunks,
      K,
      D,
      slots,
      beta,
      1 / (2 * config.pilotPower),
    ]);
    const f = this.ofdm.csi === 'lmmse' ? this.filterFor(noiseVar) : null;
    // the noise sum's terms (noise.ts / lmmse.ts order), summed in segments, then a slot's segments
    const per = f ? Math.floor(K / 4 / f.W) : 0;
    const sum = f ? 'lmmse' : autoNoiseSum(nt);
    const method = NOISE_SUM_METHOD[sum];
    const terms = noiseTermCount(sum, D, K, nr, nt, f?.W);
    const segments = Math.ceil(terms / NOISE_SEGMENT);
    if (f)
      est.noiseWindow.launch(grid(chunks * terms), [
        est.P.ptr,
        est.Q!.ptr,
        f.residual.ptr,
        est.windows!.ptr,
        chunks,
        K,
        D,
        f.W,
        per,
      ]);
    est.noiseSegments.launch(grid(chunks * segments), [
      est.Yp.ptr,
      est.P.ptr,
      est.seq.ptr,
      f ? est.windows!.ptr : 0n,
      est.segs.ptr,
      l.chunk0,
      chunks,
      K,
      D,
      slots,
      method,
      terms,
      freeTermCounts(D, K, nr, nt).empty,
    ]);
    est.noiseK.launch(grid(chunks), [
      est.segs.ptr,
      est.noise.ptr,
      chunks,
      segments,
      method,
      terms,
      f ? f.dofs : 0,
      config.pilotPower,
      f ? 0 : 2 * config.pilotPower,
      f ? f.errorVar : 0,
    ]);
    est.freq.launch(grid(chunks * D * K * nr * nt), [
      est.P.ptr,
      est.Q?.ptr ?? 0n,
      f ? f.starts.ptr : 0n,
      f ? f.weights.ptr : 0n,
      est.Hd.ptr,
      chunks,
      K,
      D,
      f ? f.W : 0,
    ]);
    est.estimate.launch(grid(l.vectors * nr * nt), [
      est.Hd.ptr,
      est.noise.ptr,
      H32,
      est.noiseIn.ptr,
      l.chunkVectors,
      l.vectors,
      K,
      D,
      this.dmrsMask,
    ]);
  }

  /** Frees the stage's device memory (after the work enqueued with it is done). */
  free(): void {
    for (const b of this.held.splice(0)) b.free();
  }
}
