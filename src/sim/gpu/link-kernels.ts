/**
 * The link's kernels (the channel model's plan, link-vectors.cu, link-count.cu) and their launches:
 * a launch generates `vectors` consecutive vectors of one SNR point into device buffers laid out as
 * the CUDA detectors read them (src/mimo/gpu/cuda-detector.ts), and counts a detector's errors per
 * unit. Shared by the GPU executor (executor.ts), the tests and the benchmark.
 */
import type { ChannelCudaPlan } from '../../channels/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../gpu/index.js';
import { linkChannelSpan } from '../link.js';

const BLOCK = 256;

/**
 * Where a launch starts and how long it is: vector v0 (a multiple of vpc) of unit unit0 of SNR
 * point snrIndex, `vectors` vectors on (a multiple of vpc), in units of unitVectors.
 */
export interface LinkLaunch {
  readonly seed: number;
  readonly snrIndex: number;
  readonly unit0: number;
  readonly v0: number;
  readonly unitVectors: number;
  readonly vectors: number;
  readonly vpc: number;
}

/** Device buffers of a generated launch (layouts in the .cu files). */
export interface LinkBuffers {
  /** M x 2 doubles: the constellation's points. */
  readonly points: bigint;
  /** channels x 2 nr nt doubles (generation only). */
  readonly H64: bigint;
  /** channels x 2 nr nt floats, the detectors' H. */
  readonly H32: bigint;
  /** vectors x nt int32, the sent symbol indices. */
  readonly tx: bigint;
  /** vectors x 2 nr floats, the detectors' y. */
  readonly y32: bigint;
}

/** Device buffers of a count launch. */
export interface CountBuffers {
  readonly tx: bigint;
  readonly rx: bigint;
  readonly status: bigint;
  /** u64 x 3 per unit of the launch, zeroed by the caller. */
  readonly counts: bigint;
  /** int32 [count, (vector, flags) x listCap], count zeroed by the caller. */
  readonly list: bigint;
}

/** The link kernels for one antenna configuration, compiled (or taken from the cache) for `ctx`. */
export class LinkKernels {
  private readonly vectorsK: Kernel;
  private readonly count: Kernel;

  /**
   * `channels`: the channel model's plan for this shape (src/channels; it writes H64 and H32);
   * `coded`: link-vectors.cu reads the symbols from tx (link-symbols.cu wrote them) instead of
   * drawing them.
   */
  constructor(
    readonly ctx: CudaContext,
    readonly nt: number,
    readonly nr: number,
    readonly how: { channels: ChannelCudaPlan; coded?: boolean },
  ) {
    const src = (f: string) => readKernelSource(new URL(`./${f}`, import.meta.url));
    this.vectorsK = loadModule(ctx, {
      source: src('link-vectors.cu'),
      name: 'sim/gpu/link-vectors.cu',
      defines: { LINK_BLOCK: BLOCK, NT: nt, NR: nr, ...(how.coded ? { LINK_CODED: 1 } : {}) },
    }).kernel('link_vectors', [
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'i64',
      'u32',
      'i64',
      'i64',
      'i64',
      'i32',
      'i32',
      'u32',
      'f64',
    ]);
    this.count = loadModule(ctx, {
      source: src('link-count.cu'),
      name: 'sim/gpu/link-count.cu',
      defines: { COUNT_BLOCK: BLOCK },
    }).kernel('link_count', [
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i64',
      'i64',
    ]);
  }

  /**
   * Channels, symbols (coded: read from b.tx) and received vectors of a launch; `sd` = sqrt(N0 / 2) as channel.ts addNoise
   * computes it. The model's kernels (a thread a channel entry, for rayleigh), then a thread a vector: a
   * fused kernel with a thread a vector and its channel in registers measured 1.5x slower on the H100
   * (16 entries a thread in sequence against 16 threads), though it skips the float64 channels' round trip.
   */
  enqueueGenerate(stream: Stream, l: LinkLaunch, b: LinkBuffers, modulationSize: number, sd: number): void {
    // the launch's channels: from channel v0 / vpc of unit unit0, unitVectors / vpc a unit
    const span = linkChannelSpan(
      { seed: l.seed, snrIndex: l.snrIndex, unitIndex: l.unit0 },
      l.v0 / l.vpc,
      l.vectors / l.vpc,
      l.unitVectors / l.vpc,
    );
    this.how.channels.enqueue(stream, span, { H64: b.H64, H32: b.H32 });
    this.vectorsK.launch({ grid: Math.ceil(l.vectors / BLOCK), block: BLOCK, stream }, [
      b.points,
      b.H64,
      b.tx,
      b.y32,
      l.seed,
      l.snrIndex,
      l.unit0,
      l.v0,
      l.unitVectors,
      l.vectors,
      l.vpc,
      modulationSize,
      sd,
    ]);
  }

  /** One detector's error counts per unit of the launch, and the list of flagged vectors. */
  enqueueCount(
    stream: Stream,
    l: LinkLaunch,
    b: CountBuffers,
    bitsPerSymbol: number,
    listCap: number,
    listMask: number,
    skipMask: number,
  ): void {
    this.count.launch({ grid: Math.ceil(l.vectors / BLOCK), block: BLOCK, stream }, [
      b.tx,
      b.rx,
      b.status,
      b.counts,
      b.list,
      listCap,
      listMask,
      skipMask,
      l.vectors,
      this.nt,
      bitsPerSymbol,
      l.v0,
      l.unitVectors,
    ]);
  }
}

/** Units a launch touches: from unit0 to the unit of its last vector. */
export function launchUnits(l: Pick<LinkLaunch, 'v0' | 'vectors' | 'unitVectors'>): number {
  return Math.floor((l.v0 + l.vectors - 1) / l.unitVectors) + 1;
}
