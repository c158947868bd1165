/**
 * Iterative detection and decoding on the GPU link: src/sim/coded.ts decodeRange's outer passes with
 * every value on the device. A coded launch's detector runs
 *   pass 0:      detect (no priors; its symbols are the ones counted), decoder input, decode
 *   pass p > 0:  link-prior.cu (the last decoding's extrinsic LLRs into the detector's prior layout),
 *                detect with those priors (the detector's LLRs are then extrinsic), decoder input, decode
 * and the counts come from the last decoding, as on the CPU. The decoder writes its posterior LLRs
 * (LdpcCudaPlan's `posteriors`) on every pass but the last; link-prior.cu subtracts the decoder's
 * input as the decoder took it and maps the codeword columns back onto the frame's channel bits
 * (the inverse of the rate matching: a repeated column's extrinsic on each of its positions, pad
 * bits 0). runIddPasses() is the order both the executor and the emulated tests follow.
 */
import { InvalidArgumentError } from '../../core/index.js';
import { nrRateMatchMap, type LdpcCode, type ResolvedDecoderOptions } from '../../coding/index.js';
import {
  type CudaContext,
  DeviceBuffer,
  type Kernel,
  loadModule,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';

const BLOCK = 256;

/** The stages of one detector's passes over a launch (each enqueues its kernels). */
export interface IddPassStages {
  /** Detection of pass `pass`: pass 0 without priors, later passes with the priors priors() wrote. */
  detect(pass: number): void;
  /** Decoding of the pass's LLRs (with the decoder's input made first); `posteriors`: write them too. */
  decode(pass: number, posteriors: boolean): void;
  /** The next pass's priors from pass `pass`'s decoding (link-prior.cu). */
  priors(pass: number): void;
}

/**
 * The passes in order (decodeRange's loop): detect, decode; between passes, the priors; the last
 * decoding writes no posteriors. One pass is the coded link without IDD, stage for stage.
 */
export function runIddPasses(passes: number, stages: IddPassStages): void {
  if (!Number.isInteger(passes) || passes < 1)
    throw new InvalidArgumentError(`idd passes must be a positive integer, got ${passes}`, { option: 'idd' });
  for (let pass = 0; pass < passes; pass++) {
    stages.detect(pass);
    const last = pass === passes - 1;
    stages.decode(pass, !last);
    if (!last) stages.priors(pass);
  }
}

/** Device buffers of link-prior.cu. */
export interface IddPriorBuffers {
  /** float32, frames x nFull: the decoder's posterior LLRs. */
  readonly posteriors: bigint;
  /** float32, frames x nFull: the decoder's input. */
  readonly input: bigint;
  /** float32 out, frames x perFrame: the next detection's a-priori LLRs. */
  readonly prior: bigint;
}

/** link-prior.cu for one code and frame layout, compiled for `ctx`, with the code's column map on the device. */
export class IddKernels {
  private readonly kernel: Kernel;
  /** Channel position -> codeword column (NR rate matching); null: the identity. */
  private readonly map: DeviceBuffer | null;
  private readonly minSum: boolean;

  constructor(
    ctx: CudaContext,
    readonly code: LdpcCode,
    /** The decoder's columns a frame (the mother code's). */
    readonly nFull: number,
    /** Detector LLRs a frame (vectorsPerFrame x nt x bitsPerSymbol). */
    readonly perFrame: number,
    readonly decoder: ResolvedDecoderOptions,
  ) {
    if (!code.nr && code.n !== nFull)
      throw new InvalidArgumentError(
        `internal: code '${code.name}' sends ${code.n} of its ${nFull} columns without a rate-matching map`,
      );
    this.minSum = decoder.algorithm === 'nms' || decoder.algorithm === 'oms';
    this.kernel = loadModule(ctx, {
      source: readKernelSource(new URL('./link-prior.cu', import.meta.url)),
      name: 'sim/gpu/link-prior.cu',
      defines: { LINK_BLOCK: BLOCK },
    }).kernel('link_prior', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'f64', 'i32']);
    if (code.nr) {
      const m = nrRateMatchMap(code.nr, 0);
      this.map = DeviceBuffer.alloc(ctx, Math.max(4, m.byteLength));
      this.map.upload(m);
    } else {
      this.map = null;
    }
  }

  /** The next detection's priors of `frames` frames from their decoding (IddPriorBuffers). */
  enqueuePriors(stream: Stream, frames: number, b: IddPriorBuffers): void {
    if (frames === 0) return;
    this.kernel.launch({ grid: Math.ceil((frames * this.perFrame) / BLOCK), block: BLOCK, stream }, [
      b.posteriors,
      b.input,
      this.map?.ptr ?? 0n,
      b.prior,
      frames,
      this.perFrame,
      this.code.n,
      this.nFull,
      this.decoder.saturation,
      this.minSum ? 1 : 0,
    ]);
  }

  /** Frees the column map (the kernel stays in the module cache). */
  free(): void {
    this.map?.free();
  }
}
