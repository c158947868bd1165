/**
 * Launch plan of the whole-device kernel (grid-kernel.cu): one large basis at a time spread over
 * every multiprocessor, for a few large bases (m >= 96, columns up to GRID_MAX_N) where one thread
 * block per basis would leave the rest of the GPU idle. The same kernel runs CR-AS-LLL (allswap) and,
 * in its block mode, MB-LLL and CR-MB-LLL (block/cuda.ts).
 */
import type { AlgoParams } from '../types.js';
import { type CudaContext, type DeviceProperties, type Kernel, loadModule, readKernelSource } from '../../gpu/index.js';
import type { LaunchPlan } from '../gpu/batch.js';
import { precisionReductionBound } from '../lll/gso.js';

const GRID_KERNEL_URL = new URL('./grid-kernel.cu', import.meta.url);

/** Smallest m for which the whole-device kernel beats one thread block per basis (allswapPlan). */
export const GRID_MIN_M = 96;

/**
 * Whether a batch is few enough large bases for the whole-device kernel, which takes them one
 * after another: at most m / 64 bases (past that the per-basis kernels, which run them at once,
 * finish first).
 */
export function gridSuitsBatch(m: number, batch: number): boolean {
  return m >= GRID_MIN_M && 64 * batch <= m;
}

/** The whole-device kernel of a plan made by allswapGridPlan (its defines pick the mode). */
export function gridKernel(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel {
  const mod = loadModule(ctx, {
    source: readKernelSource(GRID_KERNEL_URL),
    name: 'allswap/grid-kernel.cu',
    defines: { REAL: precision === 'float32' ? 'float' : 'double', ...plan.defines },
  });
  return mod.kernel('allswap_grid', [
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'i32',
    'i32',
    'i32',
    'f64',
    'f64',
    'i32',
    'i64',
    'i32',
  ]);
}

/**
 * Block mode of the kernel: 'cr-block' (CR-MB-LLL) or 'block' (MB-LLL) with sub-bases of `size`
 * columns (grid-kernel.cu: GRID_BLOCK, GRID_BLOCK_SIZE).
 */
export interface GridBlockMode {
  algorithm: 'block' | 'cr-block';
  size: number;
}

/** Largest sub-basis the block mode takes (grid-kernel.cu: GB_MAX_SIZE); larger ones run per basis. */
export const GRID_BLOCK_MAX_SIZE = 64;

/** Control words per basis (grid-kernel.cu: the barrier, the abort flag and three stage slots). */
export const GRID_CTL_BYTES = 512;

const align256 = (x: number): number => Math.ceil(x / 256) * 256;

/**
 * Global scratch of one basis, in the order grid-kernel.cu carves it: Z twice, r, ready flags,
 * B twice, B*, the GS coefficients, per-pair swap records.
 */
export function gridWorkspaceBytes(n: number, m: number, elt: number): number {
  return 3 * m * m * 8 + 2 * align256(m * 8) + 3 * align256(n * m * elt) + 2 * m * 8 + m * 4;
}

/** The block mode's scratch after the all-swap workspace: sub-basis flags and the deferred G's. */
export function gridBlockWorkspaceBytes(n: number, m: number, elt: number, size: number): number {
  const count = Math.ceil(m / size);
  return gridWorkspaceBytes(n, m, elt) - m * 4 + align256(m * 4) + align256(count * 8) + count * size * size * 8;
}

/**
 * Longest column the whole-device kernel takes. A Gram-Schmidt panel lives in registers (8 columns,
 * n / 256 rows per thread; the stage is a call with the register file to itself) and size
 * reduction keeps b_k and z_k in registers (n / 32 each per lane). ptxas, float32: Gram-Schmidt
 * spills nothing up to 1536 and 64 bytes at 2048, size reduction about 800 bytes at 2048; past
 * GRID_MAX_N the spills grow to kilobytes and the block kernel takes the basis instead.
 */
export const GRID_MAX_N = 2048;

/** Dynamic shared memory of a block (doubles): the staged vectors of a Gram-Schmidt chunk and their norms. */
export function gridSharedBytes(n: number, staged: number): number {
  return staged * n * 8 + staged * 8;
}

/**
 * Warps per block and staged vectors: 8 and 8 (grid-kernel.cu's GRID_T = 256 threads and GRID_S);
 * null for columns longer than GRID_MAX_N or shared memory too small (then the block kernel takes
 * the basis).
 */
export function gridShape(n: number, device: DeviceProperties): { warps: number; staged: number } | null {
  if (n > GRID_MAX_N || gridSharedBytes(n, 8) > device.sharedPerBlockOptinBytes) return null;
  return { warps: 8, staged: 8 };
}

/**
 * The plan of the whole-device kernel (all-swap, or the block mode's algorithm), or null where it
 * does not apply: columns it does not take (gridShape), sub-bases larger than GRID_BLOCK_MAX_SIZE.
 */
export function allswapGridPlan(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  device: DeviceProperties,
  block?: GridBlockMode,
): LaunchPlan | null {
  const elt = precision === 'float32' ? 4 : 8;
  const shape = gridShape(n, device);
  // m > n: the columns are dependent (the per-basis kernel reports it); size reduction keeps a
  // GS row of m entries in a warp's n-double share of shared memory
  if (!shape || m > n) return null;
  const size = block ? Math.min(block.size, m) : 0;
  if (block && size > GRID_BLOCK_MAX_SIZE) return null;
  // each basis' workspace starts at a multiple of 256 bytes (a launch of several bases carves them
  // back to back, and the kernel's doubles need their alignment whatever m is)
  const ws = align256(block ? gridBlockWorkspaceBytes(n, m, elt, size) : gridWorkspaceBytes(n, m, elt));
  const bound = precisionReductionBound(p.eta, precision);
  return {
    variant: 'grid',
    defines: {
      GRID_N: n,
      GRID_S: shape.staged,
      ...(block ? { GRID_BLOCK: block.algorithm === 'block' ? 2 : 1, GRID_BLOCK_SIZE: size } : {}),
    },
    threads: 32 * shape.warps,
    sharedBytes: gridSharedBytes(n, shape.staged),
    scratchBytesPerBasis: [GRID_CTL_BYTES, ws],
    extraArgs: [p.maxIterations, p.delta, bound, shape.staged, ws],
    persistent: true,
  };
}
