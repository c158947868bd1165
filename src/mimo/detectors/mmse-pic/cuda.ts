/**
 * MMSE-PIC on the GPU: mmse-pic-detect.cu, one thread a received vector (the Gram matrix, the soft
 * symbols, the nt x nt inversion and the demapping all per vector: with priors nothing is shared
 * within a channel), float32. No scratch; the priors come as DetectChunk.prior (absent: none).
 */
import { UnsupportedError } from '../../../core/index.js';
import { type CudaContext, loadModule, readKernelSource } from '../../../gpu/index.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup } from '../../gpu/cuda-detector.js';

/** Largest nt and nr on the GPU (the thread's local arrays). */
export const PIC_GPU_MAX_NT = 16;
export const PIC_GPU_MAX_NR = 32;
/** Threads a block. */
const PIC_THREADS = 64;

/** The kernel's -D defines of a setup. */
export function picDefines(
  setup: Pick<CudaDetectorSetup, 'nt' | 'nr' | 'constellation' | 'opts' | 'soft'>,
): Record<string, string | number> {
  const pam = setup.constellation.pam;
  return {
    LIN_NT: setup.nt,
    LIN_NR: setup.nr,
    PAM_Q: pam ? pam.size : 0,
    PAM_SCALE: pam ? `${pam.scale}f` : '1.f',
    PIC_BPS: setup.constellation.bitsPerSymbol,
    PIC_ITER: setup.opts.picIterations ?? 1,
    PIC_LOGMAP: setup.opts.soft === 'logmap' ? 1 : 0,
    PIC_SOFT: setup.soft ? 1 : 0,
  };
}

/** The kernel file (host and emulator tests). */
export const PIC_KERNEL_URL = new URL('./mmse-pic-detect.cu', import.meta.url);

export const cudaDetector: CudaDetector = {
  name: 'mmse-pic',
  soft: true,
  create(ctx: CudaContext, setup: CudaDetectorSetup): CudaDetectorPlan {
    const { nt, nr } = setup;
    if (nt > PIC_GPU_MAX_NT || nr > PIC_GPU_MAX_NR)
      throw new UnsupportedError(
        `mmse-pic on the GPU supports nt <= ${PIC_GPU_MAX_NT} and nr <= ${PIC_GPU_MAX_NR} (got nt = ${nt}, nr = ${nr}); use engine 'cpu' for larger systems`,
        { detector: 'mmse-pic', nt, nr },
      );
    const kernel = loadModule(ctx, {
      source: readKernelSource(PIC_KERNEL_URL),
      name: 'mmse-pic/mmse-pic-detect.cu',
      defines: picDefines(setup),
    }).kernel('mmse_pic_detect', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'f32']);
    return {
      scratchBytesPerChannel: [],
      enqueue(stream, chunk): void {
        const vectors = chunk.channels * chunk.vectorsPerChannel;
        if (vectors === 0) return;
        kernel.launch({ grid: Math.ceil(vectors / PIC_THREADS), block: PIC_THREADS, stream }, [
          chunk.H,
          chunk.y,
          chunk.noise,
          chunk.prior ?? 0n,
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
