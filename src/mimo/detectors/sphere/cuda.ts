/**
 * The sphere decoder on the GPU (float32): prep-kernel.cu factors each channel once (cpu.ts's
 * sorted QR and real model) into the plan's scratch; then every vector is searched depth-first in
 * Schnorr-Euchner order, exact ML within the node budget, by one of two kernels:
 *  - 'thread' (thread-kernel.cu): one thread a vector, cpu.ts's search step for step;
 *  - 'warp' (warp-kernel.cu): SP_LANES lanes a vector, each searching its share of the top
 *    levels' subtrees, the radius shared among them after every node;
 *  - 'auto' (default): the faster of the two for the size, as measured (defaultSphereKernel).
 * Past the budget a vector gets MIMO_STATUS.NODE_BUDGET and the best leaf found; a channel float32
 * cannot factor safely flags its vectors FLOAT32_UNSAFE (redone on the CPU in float64).
 */
import { InvalidArgumentError, UnsupportedError, show } from '../../../core/index.js';
import { type CudaContext, loadModule, readKernelSource, type Stream } from '../../../gpu/index.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup, DetectChunk } from '../../gpu/cuda-detector.js';

export type SphereVariant = 'thread' | 'warp';

/**
 * The faster kernel on the H100 for a size, from bench/mimo/gpu-ml-sphere.ts --sweep (Gbps at 10
 * and 20 dB): one thread a vector for small trees (at most 8 bits a vector: 2x2 and 4x4 QPSK, 2x2
 * 16-QAM), where a vector's search is short; else the warp kernel, with more lanes the larger the
 * tree, since one vector's long search (the heavy tail at low SNR) otherwise holds its whole warp:
 * 4 lanes up to 12 bits and for QPSK (2x2 64-QAM, 8x8 QPSK), 8 up to 16 (4x4 16-QAM), 16 above
 * (4x4 64-QAM: 3.4 Gbps against 0.25 for one thread a vector at 20 dB).
 */
export function defaultSphereKernel(nt: number, bitsPerSymbol: number): { variant: SphereVariant; lanes: number } {
  const bits = nt * bitsPerSymbol;
  if (bits <= 8) return { variant: 'thread', lanes: 1 };
  if (bits <= 12 || bitsPerSymbol <= 2) return { variant: 'warp', lanes: 4 };
  return { variant: 'warp', lanes: bits <= 16 ? 8 : 16 };
}

/** Threads of a search block. */
export const SPHERE_BLOCK = 128;

/** Lanes a vector in the warp kernel (default). */
export const SPHERE_LANES = 8;

/** Real unknowns n and floats / ints of the per-channel scratch (sphere.cuh's layout). */
export function sphereScratch(nt: number, nr: number, bps: number): { n: number; floats: number; ints: number } {
  const n = bps === 1 ? nt : 2 * nt;
  return { n, floats: 2 * nr * nt + n * n + 2 * n, ints: n + 1 };
}

/** The -D defines of the sphere kernels. */
export function sphereDefines(
  nt: number,
  nr: number,
  bps: number,
  babai: boolean,
  lanes = SPHERE_LANES,
): Record<string, number> {
  return { SP_NT: nt, SP_NR: nr, SP_BPS: bps, SP_BABAI: babai ? 1 : 0, SP_LANES: lanes };
}

/**
 * The sphere CudaDetector with a given search kernel and lanes a vector (warp kernel); 'auto'
 * (default) takes both from defaultSphereKernel.
 */
export function sphereCudaDetector(kernel: SphereVariant | 'auto' = 'auto', lanes = SPHERE_LANES): CudaDetector {
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > 32 || (lanes & (lanes - 1)) !== 0)
    throw new InvalidArgumentError(`sphere lanes a vector must be a power of two up to 32, got ${show(lanes)}`);
  return {
    name: 'sphere',
    soft: false,
    create(ctx: CudaContext, setup: CudaDetectorSetup): CudaDetectorPlan {
      const { nt, nr, constellation: con, opts } = setup;
      const initial = opts.initialRadius ?? 'infinity';
      if (initial !== 'infinity' && initial !== 'babai')
        throw new InvalidArgumentError(`initialRadius must be 'infinity' or 'babai', got ${show(initial)}`);
      const bps = con.bitsPerSymbol;
      const { n, floats, ints } = sphereScratch(nt, nr, bps);
      if (2 * nr < n)
        throw new UnsupportedError(
          `sphere needs as many real receive dimensions as real unknowns (got nt = ${nt}, nr = ${nr})`,
          { detector: 'sphere', nt, nr },
        );
      const chosen = kernel === 'auto' ? defaultSphereKernel(nt, bps) : { variant: kernel, lanes };
      const variant = chosen.variant,
        groupLanes = variant === 'warp' ? chosen.lanes : SPHERE_LANES;
      const defines = sphereDefines(nt, nr, bps, initial === 'babai', groupLanes);
      const prep = loadModule(ctx, {
        source: readKernelSource(new URL('./prep-kernel.cu', import.meta.url)),
        name: 'sphere/prep-kernel.cu',
        defines: { SP_NT: nt, SP_NR: nr, SP_BPS: bps },
      }).kernel('sphere_prep', ['ptr', 'ptr', 'ptr', 'i32']);
      const file = variant === 'warp' ? 'warp-kernel.cu' : 'thread-kernel.cu';
      const search = loadModule(ctx, {
        source: readKernelSource(new URL(`./${file}`, import.meta.url)),
        name: `sphere/${file}`,
        defines,
      }).kernel(variant === 'warp' ? 'sphere_warp' : 'sphere_thread', [
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'i32',
        'i32',
        'i32',
      ]);
      const perVector = variant === 'warp' ? groupLanes : 1;
      const maxNodes = Math.min(setup.maxNodes, 0x7fffffff);
      const qrStage = (stream: Stream, chunk: DetectChunk): void => {
        const [F, I] = chunk.scratch as [bigint, bigint];
        prep.launch({ grid: Math.ceil(chunk.channels / 64), block: 64, stream }, [chunk.H, F, I, chunk.channels]);
      };
      const detectStage = (stream: Stream, chunk: DetectChunk): void => {
        const [F, I] = chunk.scratch as [bigint, bigint];
        const vectors = chunk.channels * chunk.vectorsPerChannel;
        search.launch(
          { grid: Math.max(1, Math.ceil((vectors * perVector) / SPHERE_BLOCK)), block: SPHERE_BLOCK, stream },
          [F, I, chunk.y, chunk.symbols, chunk.status, vectors, chunk.vectorsPerChannel, maxNodes],
        );
      };
      return {
        scratchBytesPerChannel: [floats * 4, ints * 4],
        enqueue(stream: Stream, chunk: DetectChunk): void {
          qrStage(stream, chunk);
          detectStage(stream, chunk);
        },
        stages: [
          { name: 'qr', enqueue: qrStage },
          { name: 'detect', enqueue: detectStage },
        ],
      };
    },
  };
}

export const cudaDetector: CudaDetector = sphereCudaDetector();
