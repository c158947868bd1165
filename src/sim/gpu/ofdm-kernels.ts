/**
 * The OFDM link's generation stage on the GPU (src/sim/ofdm-link.ts on the device): a launch is
 * whole slots (chunks) of one SNR point; the channel model's response on each slot's grid (its
 * enqueueResponse at the grid's symbol times and subcarrier frequencies, a drop a chunk from the
 * chunk's channel stream; a flat model's drop stands for every element), then ofdm-data.cu: the
 * data symbols, y = H s + w on the data resource elements (the noise where ofdmChunk draws it) and
 * the detectors' channels, in the buffers and layouts link-kernels.ts fills for the flat link, so
 * that the executor's stages after it do not change.
 */
import {
  type ChannelCudaPlan,
  type DmrsConfig,
  type ResponsePoints,
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
import { ofdmDmrs, type OfdmLinkSpec } from '../ofdm-link.js';
import { type LinkBuffers, type LinkLaunch, launchChunks } from './link-kernels.js';

const BLOCK = 256;

/** The OFDM generation stage for one antenna configuration and grid, with its grid buffers for up to maxChunks slots. */
export class OfdmLinkKernels {
  readonly config: DmrsConfig;
  /** Subcarriers K. */
  readonly K: number;
  /** Whether the model is flat (no enqueueResponse): its drop is every element's channel. */
  readonly flat: boolean;
  private readonly data: Kernel;
  private readonly points: ResponsePoints;
  /** The response: maxChunks x 14 x K x 2 nr nt doubles (flat: maxChunks x 2 nr nt), and its float32 copy. */
  private readonly grid64: DeviceBuffer;
  private readonly grid32: DeviceBuffer;
  private readonly dmrsMask: number;

  /** `coded`: ofdm-data.cu reads the symbols from tx (link-symbols.cu wrote them). */
  constructor(
    readonly ctx: CudaContext,
    readonly nt: number,
    readonly nr: number,
    readonly ofdm: OfdmLinkSpec,
    readonly channels: ChannelCudaPlan,
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
    const entries = maxChunks * (this.flat ? 1 : SYMBOLS_PER_SLOT * this.K) * nr * nt;
    this.grid64 = DeviceBuffer.alloc(ctx, entries * 16);
    try {
      this.grid32 = DeviceBuffer.alloc(ctx, entries * 8);
    } catch (e) {
      this.grid64.free();
      throw e;
    }
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
  }

  /**
   * The launch's slots (l.v0 = 0, whole chunks): the response on their grids, then the data
   * vectors' symbols (coded: read from b.tx), received vectors and channels (b.H32, vectors x 2 nr nt
   * floats; b.H64 unused); `sd` = sqrt(N0 / 2).
   */
  enqueueGenerate(stream: Stream, l: LinkLaunch, b: LinkBuffers, modulationSize: number, sd: number): void {
    const chunks = launchChunks(l);
    const span = linkChannelSpan({ seed: l.seed, snrIndex: l.snrIndex, chunkIndex: l.chunk0 }, 0, chunks, 1);
    const out = { H64: this.grid64.ptr, H32: this.grid32.ptr };
    if (this.channels.enqueueResponse) this.channels.enqueueResponse(stream, span, this.points, out);
    else this.channels.enqueue(stream, span, out);
    this.data.launch({ grid: Math.ceil(l.vectors / BLOCK), block: BLOCK, stream }, [
      b.points,
      this.grid64.ptr,
      b.H32,
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
  }

  free(): void {
    this.grid64.free();
    this.grid32.free();
  }
}
