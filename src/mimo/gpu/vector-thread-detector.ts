/**
 * A CUDA detector whose kernel gives each received vector its thread and needs no scratch (ep,
 * mmse-pic): the size check, the module with the detector's defines, and the launch over a chunk.
 * The kernel's arguments: H, y, noise, [prior,] symbols, llr (null without soft output), status,
 * vectors, vectorsPerChannel, llrClip.
 */
import { UnsupportedError } from '../../core/index.js';
import { type CudaContext, loadModule, readKernelSource } from '../../gpu/index.js';
import type { Detector } from '../types.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup } from './cuda-detector.js';

/** What a vector-a-thread detector declares. */
export interface VectorThreadKernel {
  /** The detector's name. */
  readonly name: Detector;
  /** Its .cu file. */
  readonly url: URL;
  /** The module's name in the cache and in messages ('ep/ep-detect.cu'). */
  readonly file: string;
  /** The kernel's entry point. */
  readonly entry: string;
  /** Largest nt and nr its local arrays hold. */
  readonly maxNt: number;
  readonly maxNr: number;
  /** Threads a block. */
  readonly threads: number;
  /** Whether the kernel takes the chunk's a-priori LLRs (after noise). */
  readonly priors: boolean;
  /** Its -D defines for a setup. */
  defines(setup: CudaDetectorSetup): Record<string, string | number>;
}

/** The CudaDetector of a vector-a-thread kernel. */
export function vectorThreadDetector(k: VectorThreadKernel): CudaDetector {
  return {
    name: k.name,
    soft: true,
    create(ctx: CudaContext, setup: CudaDetectorSetup): CudaDetectorPlan {
      const { nt, nr } = setup;
      if (nt > k.maxNt || nr > k.maxNr)
        throw new UnsupportedError(
          `${k.name} on the GPU supports nt <= ${k.maxNt} and nr <= ${k.maxNr} (got nt = ${nt}, nr = ${nr}); use engine 'cpu' for larger systems`,
          { detector: k.name, nt, nr },
        );
      const ptrs = k.priors ? 7 : 6;
      const kernel = loadModule(ctx, {
        source: readKernelSource(k.url),
        name: k.file,
        defines: k.defines(setup),
      }).kernel(k.entry, [...Array<'ptr'>(ptrs).fill('ptr'), 'i32', 'i32', 'f32']);
      return {
        scratchBytesPerChannel: [],
        enqueue(stream, chunk): void {
          const vectors = chunk.channels * chunk.vectorsPerChannel;
          if (vectors === 0) return;
          kernel.launch({ grid: Math.ceil(vectors / k.threads), block: k.threads, stream }, [
            chunk.H,
            chunk.y,
            chunk.noise,
            ...(k.priors ? [chunk.prior ?? 0n] : []),
            chunk.symbols,
            setup.soft ? chunk.llr : 0n,
            chunk.status,
            vectors,
            chunk.vectorsPerChannel,
            setup.llrClip,
          ]);
        },
      };
    },
  };
}
