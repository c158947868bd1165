/**
 * The coded stages of the GPU link (src/sim/coded.ts on the device): a launch's information bits
 * (link-info.cu), their codewords (the CUDA encoder, src/coding/gpu/encode.cu), the frames'
 * symbols (link-symbols.cu, then link-vectors.cu with LINK_CODED), and after a detector's soft
 * output the decoder's input (src/coding/gpu rateRecoveryCudaPlan, only when a frame's LLRs are
 * not already its codeword's: pad bits or NR rate matching), the layered decoder (ldpcCudaPlan) and the counts
 * over decoded information bits per unit (link-coded-count.cu). Shared by the GPU executor, the
 * tests and the benchmark.
 */
import { InvalidArgumentError } from '../../core/index.js';
import {
  type LdpcCode,
  ldpcCudaEncoder,
  type LdpcCudaEncoder,
  ldpcCudaPlan,
  type LdpcCudaPlan,
  nrRateMatchMap,
  rateRecoveryCudaPlan,
  type RateRecoveryCudaPlan,
  type DecoderOptions,
} from '../../coding/index.js';
import {
  type CudaContext,
  type Kernel,
  DeviceBuffer,
  loadModule,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';
import { vectorsPerFrame } from '../coded.js';
import { launchUnits, type LinkLaunch } from './link-kernels.js';

const BLOCK = 256;
const COUNT_BLOCK = 256;

/** u64 counts per unit of a coded launch: bit, symbol, frame errors, iterations. */
export const CODED_COUNT_WORDS = 4;

/** A coded launch: whole frames; `lastVectors` = the vectors of its last unit (a point's last unit may be short). */
export interface CodedLaunch extends LinkLaunch {
  readonly lastVectors: number;
}

/** Device buffers of a coded launch's frames (sizes: launch frames x k, x nFull; vectors x nt). */
export interface CodedFrameBuffers {
  readonly info: bigint;
  readonly cw: bigint;
  readonly tx: bigint;
}

/** Device buffers of one detector's decoding: its LLRs (frames x perFrame), the decoder's input when compacted, its outputs. */
export interface CodedDecodeBuffers {
  readonly llr: bigint;
  /** frames x nFull float32 (used when `compacts`). */
  readonly input: bigint;
  /** frames x k decisions. */
  readonly bits: bigint;
  /** frames int32 decoder status. */
  readonly dec: bigint;
  /** frames x nFull float32 posterior LLRs out (iterative detection and decoding); absent: not written. */
  readonly posteriors?: bigint;
}

/** Device buffers of a coded count launch. */
export interface CodedCountBuffers {
  readonly info: bigint;
  readonly bits: bigint;
  readonly dec: bigint;
  readonly tx: bigint;
  readonly rx: bigint;
  readonly status: bigint;
  /** The detector's LLRs (launch frames x perFrame float32). */
  readonly llr: bigint;
  /** CODED_COUNT_WORDS u64 per unit of the launch, zeroed by the caller. */
  readonly counts: bigint;
  /** int32 [count, (vector, flags) x listCap], count zeroed by the caller. */
  readonly list: bigint;
  /** int32 [count, frames x frameCap]: frames left out of the counts (a vector to redo), count zeroed by the caller. */
  readonly skipped: bigint;
  /** float32, frameCap x perFrame: the LLRs of the first frameCap of them. */
  readonly side: bigint;
}

/** The coded stages for one code, decoder setting and antenna / modulation shape, compiled for `ctx`. */
export class CodedLinkKernels {
  /** Vectors a frame. */
  readonly vpf: number;
  /** Detector LLRs a frame (vpf x nt x bitsPerSymbol; the first n are the channel bits'). */
  readonly perFrame: number;
  /** The decoder's LLRs a frame (the mother code's columns). */
  readonly nFull: number;
  /** Whether the decoder reads a compacted copy (pad bits or rate matching) rather than the detector's LLRs. */
  readonly compacts: boolean;
  readonly encoder: LdpcCudaEncoder;
  readonly decoder: LdpcCudaPlan;
  private readonly padWords: number;
  private readonly info: Kernel;
  private readonly symbols: Kernel;
  private readonly count: Kernel;
  private readonly map: DeviceBuffer | null;
  /** The decoder's input from the detector's LLRs, when `compacts`. */
  private readonly recovery: RateRecoveryCudaPlan | null;

  constructor(
    readonly ctx: CudaContext,
    readonly code: LdpcCode,
    decoder: DecoderOptions,
    readonly nt: number,
    readonly bitsPerSymbol: number,
  ) {
    const qc = code.qc;
    if (!qc)
      throw new InvalidArgumentError(
        `code '${code.name}' has no quasi-cyclic structure: the GPU link encodes and decodes QC codes only`,
      );
    this.vpf = vectorsPerFrame(code.n, nt, bitsPerSymbol);
    this.perFrame = this.vpf * nt * bitsPerSymbol;
    this.nFull = qc.blockCols * qc.z;
    this.padWords = Math.ceil((this.perFrame - code.n) / 32);
    this.encoder = ldpcCudaEncoder(ctx, code);
    this.decoder = ldpcCudaPlan(ctx, code, decoder, { input: 'float32' });
    const src = (f: string) => readKernelSource(new URL(`./${f}`, import.meta.url));
    this.info = loadModule(ctx, {
      source: src('link-info.cu'),
      name: 'sim/gpu/link-info.cu',
      defines: { LINK_BLOCK: BLOCK },
    }).kernel('link_info', ['ptr', 'i64', 'u32', 'i64', 'i64', 'i64', 'i32', 'i32', 'i32']);
    this.symbols = loadModule(ctx, {
      source: src('link-symbols.cu'),
      name: 'sim/gpu/link-symbols.cu',
      defines: { LINK_BLOCK: BLOCK },
    }).kernel('link_symbols', [
      'ptr',
      'ptr',
      'ptr',
      'i64',
      'u32',
      'i64',
      'i64',
      'i64',
      'i64',
      'i64',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
    ]);
    this.count = loadModule(ctx, {
      source: src('link-coded-count.cu'),
      name: 'sim/gpu/link-coded-count.cu',
      defines: { COUNT_BLOCK },
    }).kernel('link_coded_count', [
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'i32',
      'i32',
      'i32',
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
    const map = code.nr ? nrRateMatchMap(code.nr, 0) : null;
    this.compacts = map !== null || this.perFrame !== this.nFull || code.n !== this.nFull;
    this.recovery = this.compacts
      ? rateRecoveryCudaPlan(ctx, code, { perFrame: this.perFrame, saturation: this.decoder.options.saturation })
      : null;
    if (map) {
      this.map = DeviceBuffer.alloc(ctx, Math.max(4, map.byteLength));
      this.map.upload(map);
    } else this.map = null;
  }

  /** Information bits, codewords and symbol indices of a launch (whole frames). */
  enqueueFrames(stream: Stream, l: CodedLaunch, b: CodedFrameBuffers): void {
    if (l.v0 % this.vpf !== 0 || l.vectors % this.vpf !== 0 || l.unitVectors % this.vpf !== 0) {
      throw new InvalidArgumentError(
        `a coded launch holds whole frames of ${this.vpf} vectors (v0 ${l.v0}, ${l.vectors} vectors, units of ${l.unitVectors})`,
      );
    }
    const frames = l.vectors / this.vpf,
      k = this.code.k;
    this.info.launch({ grid: Math.ceil((frames * k) / BLOCK), block: BLOCK, stream }, [
      b.info,
      l.seed,
      l.snrIndex,
      l.unit0,
      l.v0,
      l.unitVectors,
      frames,
      this.vpf,
      k,
    ]);
    this.encoder.enqueue(stream, { info: b.info, cw: b.cw, frames });
    this.symbols.launch({ grid: Math.ceil((l.vectors * this.nt) / BLOCK), block: BLOCK, stream }, [
      b.cw,
      this.map?.ptr ?? 0n,
      b.tx,
      l.seed,
      l.snrIndex,
      l.unit0,
      l.v0,
      l.unitVectors,
      launchUnits(l) - 1,
      l.lastVectors,
      l.vectors,
      this.nt,
      this.bitsPerSymbol,
      this.vpf,
      this.code.n,
      this.nFull,
      k,
      this.padWords,
    ]);
  }

  /** The decoder over `frames` frames of a detector's LLRs (compacted first when needed). */
  enqueueDecode(stream: Stream, frames: number, b: CodedDecodeBuffers): void {
    let input = b.llr;
    if (this.recovery) {
      this.recovery.enqueue(stream, { llr: b.llr, input: b.input, frames });
      input = b.input;
    }
    this.decoder.enqueue(stream, { llr: input, bits: b.bits, status: b.dec, frames, posteriors: b.posteriors ?? 0n });
  }

  /**
   * One detector's counts per unit of a launch (CODED_COUNT_WORDS each), its flagged vectors, and
   * the frames left out for a redo with their LLRs (link-coded-count.cu).
   */
  enqueueCount(
    stream: Stream,
    l: LinkLaunch,
    b: CodedCountBuffers,
    listCap: number,
    listMask: number,
    skipMask: number,
    frameCap: number,
  ): void {
    const frames = l.vectors / this.vpf;
    this.count.launch({ grid: frames, block: COUNT_BLOCK, stream }, [
      b.info,
      b.bits,
      b.dec,
      b.tx,
      b.rx,
      b.status,
      b.llr,
      b.counts,
      b.list,
      listCap,
      listMask,
      skipMask,
      b.skipped,
      b.side,
      frameCap,
      this.perFrame,
      frames,
      this.vpf,
      this.nt,
      this.code.k,
      l.v0,
      l.unitVectors,
    ]);
  }

  /** Frees the code's device tables (the kernels stay in the module cache). */
  free(): void {
    this.map?.free();
    this.recovery?.free();
  }
}
