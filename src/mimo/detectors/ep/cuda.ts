/**
 * EP on the GPU: ep-detect.cu, one thread a received vector (the real Gram matrix, every
 * iteration's Cholesky factorisation and cavity, the output), float32. No scratch.
 */
import { UnsupportedError } from '../../../core/index.js';
import { type CudaContext, loadModule, readKernelSource } from '../../../gpu/index.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup } from '../../gpu/cuda-detector.js';
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

export const cudaDetector: CudaDetector = {
  name: 'ep',
  soft: true,
  create(ctx: CudaContext, setup: CudaDetectorSetup): CudaDetectorPlan {
    const { nt, nr } = setup;
    if (nt > EP_GPU_MAX_NT || nr > EP_GPU_MAX_NR)
      throw new UnsupportedError(
        `ep on the GPU supports nt <= ${EP_GPU_MAX_NT} and nr <= ${EP_GPU_MAX_NR} (got nt = ${nt}, nr = ${nr}); use engine 'cpu' for larger systems`,
        { detector: 'ep', nt, nr },
      );
    const kernel = loadModule(ctx, {
      source: readKernelSource(EP_KERNEL_URL),
      name: 'ep/ep-detect.cu',
      defines: epDefines(setup),
    }).kernel('ep_detect', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'f32']);
    return {
      scratchBytesPerChannel: [],
      enqueue(stream, chunk): void {
        const vectors = chunk.channels * chunk.vectorsPerChannel;
        if (vectors === 0) return;
        kernel.launch({ grid: Math.ceil(vectors / EP_THREADS), block: EP_THREADS, stream }, [
          chunk.H,
          chunk.y,
          chunk.noise,
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
