/**
 * MMSE-PIC on the GPU: mmse-pic-detect.cu, one thread a received vector (the Gram matrix, the soft
 * symbols, the nt x nt inversion and the demapping all per vector: with priors nothing is shared
 * within a channel), float32. No scratch; the priors come as DetectChunk.prior (absent: none).
 */
import type { CudaDetectorSetup } from '../../gpu/cuda-detector.js';
import { vectorThreadDetector } from '../../gpu/vector-thread-detector.js';

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

export const cudaDetector = vectorThreadDetector({
  name: 'mmse-pic',
  url: PIC_KERNEL_URL,
  file: 'mmse-pic/mmse-pic-detect.cu',
  entry: 'mmse_pic_detect',
  maxNt: PIC_GPU_MAX_NT,
  maxNr: PIC_GPU_MAX_NR,
  threads: PIC_THREADS,
  priors: true,
  defines: picDefines,
});
