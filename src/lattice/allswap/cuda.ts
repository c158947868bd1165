/**
 * CR-AS-LLL (the all-swap LLL of the CR-MB-LLL paper, Algorithm 2) on the GPU: one thread block per
 * basis, kernel.cu beside this file. The kernel mirrors cpu.ts step for step (double arithmetic,
 * stored values rounded to the working precision, four-way dot products); compiled with
 * -fmad=false it gives the same Z, bit for bit.
 */
import type { AlgoParams } from '../types.js';
import type { DeviceProperties } from '../../gpu/context.js';
import { loadModule, readKernelSource } from '../../gpu/module-cache.js';
import { runLatticeBatch, type CudaBatchResult, type LatticeKernelSpec, type LaunchPlan, type RealArray } from '../../gpu/lattice-batch.js';
import { reductionBound } from '../lll/gso.js';

const KERNEL_URL = new URL('./kernel.cu', import.meta.url);

/** Threads per block; 0 picks from the size (for measurements; leave at 0). */
export const allswapTuning = { threads: 0 };

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/** Bytes of the kernel's workspace for one basis, in the order kernel.cu carves it. */
export function allswapWorkspaceBytes(n: number, m: number, elt: number): number {
  const slots = Math.max(m, 2);
  return align16(
    2 * m * m * 8 +             // Zw, Zold
    12 * slots * 8 +            // partial sums
    6 * slots * 8 +             // norm0, dX, dMu, dMuNew, dC, cval
    16 +                        // zstat
    3 * align16(n * m * elt) +  // B, Bs, Bold
    align16(slots * elt) +      // r
    slots * 4 +                 // dSwap
    4 * 4,                      // flags
  );
}

/** The workspace goes to shared memory when it fits there, else to global scratch. */
export function allswapPlan(n: number, m: number, precision: 'float32' | 'float64', p: AlgoParams, device: DeviceProperties): LaunchPlan {
  const elt = precision === 'float32' ? 4 : 8;
  const ws = allswapWorkspaceBytes(n, m, elt);
  const inShared = ws <= device.sharedPerBlockOptinBytes;
  const auto = Math.min(1024, Math.max(32, Math.ceil((6 * m) / 32) * 32));
  const bound = reductionBound(p.eta, precision === 'float32' ? new Float32Array(0) : new Float64Array(0));
  return {
    threads: allswapTuning.threads > 0 ? allswapTuning.threads : auto,
    sharedBytes: inShared ? ws : 0,
    scratchBytesPerBasis: [inShared ? 0 : ws],
    extraArgs: [p.maxIterations, p.delta, bound, inShared ? 1 : 0, ws],
  };
}

const spec: LatticeKernelSpec = {
  name: 'allswap',
  kernel(ctx, precision) {
    const mod = loadModule(ctx, {
      source: readKernelSource(KERNEL_URL),
      name: 'allswap/kernel.cu',
      defines: { REAL: precision === 'float32' ? 'float' : 'double' },
      options: ['-fmad=false'],
    });
    return mod.kernel('allswap', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'f64', 'f64', 'i32', 'i32']);
  },
  plan: allswapPlan,
};

/**
 * Reduces `batch` bases (column-major n x m each, back to back in `data`) with CR-AS-LLL on the
 * GPU. Returns the reduced bases (same precision as `data`), the transforms Z (batch m x m,
 * B' = B Z) and per-basis counts (iterations = phases) with kernel and total times. Throws the
 * CPU reducer's typed errors naming the basis, and EngineUnavailableError without a device.
 */
export function reduceBatchCuda<A extends RealArray>(data: A, batch: number, n: number, m: number, params: AlgoParams): Promise<CudaBatchResult<A>> {
  return runLatticeBatch(spec, data, batch, n, m, params);
}
