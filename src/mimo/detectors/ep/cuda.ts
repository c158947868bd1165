/**
 * EP on the GPU: ep-detect.cu, one thread a received vector (the real Gram matrix, every
 * iteration's Cholesky factorisation and cavity, the output), float32. No scratch; the priors come
 * as DetectChunk.prior (absent: none).
 */
import type { CudaDetectorSetup } from '../../gpu/cuda-detector.js';
import { vectorThreadDetector } from '../../gpu/vector-thread-detector.js';
import { DEFAULT_EP_BETA, DEFAULT_EP_EPSILON, DEFAULT_EP_ITERATIONS } from './cpu.js';

/** Largest nt and nr on the GPU (the thread's local arrays: the 2nt x 2nt Gram matrix and its factor). */
export const EP_GPU_MAX_NT = 16;
export const EP_GPU_MAX_NR = 32;
/** Threads a block. */
const EP_THREADS = 64;

/** A float literal of CUDA C for x (exact decimal of the double; the compiler rounds it to float). */
const floatLiteral = (x: number): string => {
  const t = String(x);
  return /[.e]/.test(t) ? `${t}f` : `${t}.f`;
};

/** The kernel's -D defines of a setup. */
export function epDefines(
  setup: Pick<CudaDetectorSetup, 'nt' | 'nr' | 'constellation' | 'opts' | 'soft'>,
): Record<string, string | number> {
  const pam = setup.constellation.pam;
  const o = setup.opts;
  return {
    EP_NT: setup.nt,
    EP_NR: setup.nr,
    PAM_Q: pam ? pam.size : 0,
    PAM_SCALE: pam ? `${pam.scale}f` : '1.f',
    EP_ITER: o.iterations ?? DEFAULT_EP_ITERATIONS,
    EP_BETA: floatLiteral(o.beta ?? DEFAULT_EP_BETA),
    EP_EPS: floatLiteral(o.epsilon ?? DEFAULT_EP_EPSILON),
    EP_LOGMAP: o.soft === 'logmap' ? 1 : 0,
    EP_SOFT: setup.soft ? 1 : 0,
  };
}

/** The kernel file (host and emulator tests). */
export const EP_KERNEL_URL = new URL('./ep-detect.cu', import.meta.url);

export const cudaDetector = vectorThreadDetector({
  name: 'ep',
  url: EP_KERNEL_URL,
  file: 'ep/ep-detect.cu',
  entry: 'ep_detect',
  maxNt: EP_GPU_MAX_NT,
  maxNr: EP_GPU_MAX_NR,
  threads: EP_THREADS,
  priors: true,
  defines: epDefines,
});
