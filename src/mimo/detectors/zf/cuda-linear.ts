/**
 * The linear detectors on the GPU (zf, mmse: linear-prep.cu, linear-detect.cu; sic: its own two
 * kernels, sic/cuda.ts), float32 mirrors of the CPU engine's zf/linear.ts and sic/cpu.ts: a
 * preprocessing kernel makes each channel's filters once (one thread a channel, up to 64 channels
 * a block: prepLaunch) into the channel's scratch record, then a per-vector kernel filters and slices.
 *
 * N0: the filters of mmse and sic depend on it, the engine passes one N0 per vector. A channel's
 * filters are made with the N0 of its first vector the engine has not flagged; a vector with another
 * N0 is flagged MIMO_STATUS.FLOAT32_UNSAFE, which the engine redoes on the CPU (where prepare runs
 * again for the new N0). Gram breakdowns: RANK_DEFICIENT for a zero pivot, FLOAT32_UNSAFE for one
 * under 2^-16 of the Gram matrix's largest entry (linear.cuh: LIN_PIVOT_TOL).
 */
import { UnsupportedError } from '../../../core/index.js';
import { type CudaContext, loadModule, readKernelSource, type Kernel, type Stream } from '../../../gpu/index.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup, DetectChunk } from '../../gpu/cuda-detector.js';

/** Largest nt on the GPU (the per-channel thread keeps the Gram matrix and its inverse in local arrays). */
export const LINEAR_GPU_MAX_NT = 16;
/** Largest nr on the GPU (the channel, nr x nt, in the same thread's local array). */
export const LINEAR_GPU_MAX_NR = 32;

/** Shared memory a preprocessing block may stage through (no opt-in needed under 48 KiB). */
const PREP_SHARED_LIMIT = 48 * 1024;

/**
 * Launch shape of the preprocessing kernels (one thread a channel, 64 channels a block): staged
 * through shared memory (LIN_STAGE, linear.cuh) when the block's H and records fit
 * PREP_SHARED_LIMIT (up to about 6 x 6, where staging halves the preprocessing time), else reading
 * and writing global memory directly (larger staged blocks leave too few resident warps a
 * multiprocessor; bench/mimo/gpu-linear.ts measures both).
 */
export function prepLaunch(
  kind: 'zf' | 'mmse' | 'sic',
  nt: number,
  nr: number,
): { threads: number; sharedBytes: number; stage: 0 | 1 } {
  const threads = 64,
    bytes = threads * 4 * (2 * nr * nt + 1 + recordFloats(kind, nt, nr) + 1);
  if (bytes <= PREP_SHARED_LIMIT) return { threads, sharedBytes: bytes, stage: 1 };
  return { threads: 64, sharedBytes: 0, stage: 0 };
}
/**
 * The preprocessing block of a chunk: a chunk of few channels (a 5G slot: 3,276) in blocks of 32
 * or 16, so that it reaches more multiprocessors (the staged shared memory shrinks with the block).
 */
export function prepBlock(
  pl: ReturnType<typeof prepLaunch>,
  channels: number,
  multiprocessors: number,
): { threads: number; sharedBytes: number } {
  const threads = channels >= pl.threads * multiprocessors ? pl.threads : channels >= 32 * multiprocessors ? 32 : 16;
  return { threads, sharedBytes: (pl.sharedBytes / pl.threads) * threads };
}

/** Threads a block of the per-vector kernels (linear-detect: whole vectors of nt threads). */
const DETECT_THREADS = 256;

/** Floats of a channel's scratch record (linear.cuh: LIN_STRIDE, SIC_STRIDE). */
export function recordFloats(kind: 'zf' | 'mmse' | 'sic', nt: number, nr: number): number {
  const used = 2 * nt * nr + nt + (kind === 'sic' ? nt : 0) + 2;
  return Math.ceil(used / 4) * 4;
}

/** Checks the sizes the GPU kernels hold (UnsupportedError naming the limit). */
export function checkLinearGpuShape(name: string, nt: number, nr: number): void {
  if (nt > LINEAR_GPU_MAX_NT || nr > LINEAR_GPU_MAX_NR) {
    throw new UnsupportedError(
      `${name} on the GPU supports nt <= ${LINEAR_GPU_MAX_NT} and nr <= ${LINEAR_GPU_MAX_NR} (got nt = ${nt}, nr = ${nr}); use engine 'cpu' for larger systems`,
      { detector: name, nt, nr },
    );
  }
}

/** The -D defines of a setup (linear.cuh). */
export function linearDefines(
  setup: Pick<CudaDetectorSetup, 'nt' | 'nr' | 'constellation'>,
): Record<string, string | number> {
  const pam = setup.constellation.pam;
  return { LIN_NT: setup.nt, LIN_NR: setup.nr, PAM_Q: pam ? pam.size : 0, PAM_SCALE: pam ? `${pam.scale}f` : '1.f' };
}

/** The kernel files of a detector kind, for the host and the emulator tests. */
export function linearKernelUrls(kind: 'zf' | 'mmse' | 'sic'): { prep: URL; detect: URL } {
  return kind === 'sic'
    ? { prep: new URL('../sic/sic-prep.cu', import.meta.url), detect: new URL('../sic/sic-detect.cu', import.meta.url) }
    : { prep: new URL('./linear-prep.cu', import.meta.url), detect: new URL('./linear-detect.cu', import.meta.url) };
}

/** All -D defines of a kind's kernels. */
export function kindDefines(
  kind: 'zf' | 'mmse' | 'sic',
  setup: Pick<CudaDetectorSetup, 'nt' | 'nr' | 'constellation'>,
): Record<string, string | number> {
  return {
    ...linearDefines(setup),
    LIN_STAGE: prepLaunch(kind, setup.nt, setup.nr).stage,
    ...(kind === 'sic' ? {} : { LIN_MMSE: kind === 'mmse' ? 1 : 0 }),
  };
}

function kernelOf(
  ctx: CudaContext,
  url: URL,
  name: string,
  defines: Record<string, string | number>,
  params: Parameters<ReturnType<typeof loadModule>['kernel']>[1],
): Kernel {
  const mod = loadModule(ctx, { source: readKernelSource(url), name: `${name}.cu`, defines });
  return mod.kernel(name, params);
}

/** The plan of zf, mmse or sic for one setup; `parts` (benchmarks) enqueues one of its two kernels only. */
export function createLinearPlan(
  kind: 'zf' | 'mmse' | 'sic',
  ctx: CudaContext,
  setup: CudaDetectorSetup,
  parts: 'both' | 'prep' | 'detect' = 'both',
): CudaDetectorPlan {
  const { nt, nr } = setup;
  if (kind === 'zf' && nr < nt)
    throw new UnsupportedError(
      `zf needs nr >= nt (got nt = ${nt}, nr = ${nr}): H has no left inverse; for nr < nt use ml, mmse or sic`,
      { detector: 'zf', nt, nr },
    );
  checkLinearGpuShape(kind, nt, nr);
  const defines = kindDefines(kind, setup);
  const urls = linearKernelUrls(kind);
  const prepName = kind === 'sic' ? 'sic_prep' : 'linear_prep';
  const prep = kernelOf(ctx, urls.prep, prepName, defines, ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32']);
  const detect =
    kind === 'sic'
      ? kernelOf(ctx, urls.detect, 'sic_detect', defines, ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32'])
      : kernelOf(ctx, urls.detect, 'linear_detect', defines, ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32']);
  const vectorsPerBlock = Math.floor(DETECT_THREADS / nt);
  const pl = prepLaunch(kind, nt, nr);
  return {
    scratchBytesPerChannel: [4 * recordFloats(kind, nt, nr)],
    enqueue(stream: Stream, chunk: DetectChunk): void {
      const channels = chunk.channels,
        vpc = chunk.vectorsPerChannel,
        vectors = channels * vpc;
      if (channels === 0) return;
      const rec = chunk.scratch[0]!;
      const { threads, sharedBytes } = prepBlock(pl, channels, ctx.props.multiprocessors);
      if (parts !== 'detect')
        prep.launch({ grid: Math.ceil(channels / threads), block: threads, sharedBytes, stream }, [
          chunk.H,
          chunk.noise,
          chunk.status,
          rec,
          channels,
          vpc,
        ]);
      if (parts === 'prep') return;
      if (kind === 'sic') {
        detect.launch({ grid: Math.ceil(vectors / 128), block: 128, stream }, [
          chunk.H,
          chunk.y,
          chunk.noise,
          rec,
          chunk.symbols,
          chunk.status,
          vectors,
          vpc,
        ]);
      } else {
        detect.launch({ grid: Math.ceil(vectors / vectorsPerBlock), block: vectorsPerBlock * nt, stream }, [
          chunk.y,
          chunk.noise,
          rec,
          chunk.symbols,
          chunk.status,
          vectors,
          vpc,
        ]);
      }
    },
  };
}

/** zf, mmse or sic as a CudaDetector. */
export function linearCudaDetector(kind: 'zf' | 'mmse' | 'sic'): CudaDetector {
  return { name: kind, soft: false, create: (ctx, setup) => createLinearPlan(kind, ctx, setup) };
}
