/**
 * CR-AS-LLL (the all-swap LLL of the CR-MB-LLL paper, Algorithm 2) on the GPU: one thread block per
 * basis (the paper's mapping; block-kernel.cu, or column-kernel.cu in its column-owner layout), or,
 * for batches of small bases, one thread per basis (lane-kernel.cu: the reference's serial order,
 * 32 bases per warp in lockstep). Both mirror
 * cpu.ts step for step (double arithmetic, stored values rounded to the working precision,
 * four-way dot products); compiled with -fmad=false they give the same Z, bit for bit.
 * A few large bases go to grid-kernel.cu instead (plan in grid.ts): one basis at a time over every
 * multiprocessor, the same algorithm with its own rounding, each output proven by the check.
 */
import type { AlgoParams } from '../types.js';
import { validateGpuTuning, type AllswapTuning } from '../gpu-tuning.js';
import { type DeviceProperties, loadModule, readKernelSource } from '../../gpu/index.js';
import {
  runLatticeBatch,
  type CudaBatchOutputs,
  type CudaBatchResult,
  type LatticeKernelSpec,
  type LaunchPlan,
  type RealArray,
} from '../gpu/batch.js';
import { precisionReductionBound } from '../lll/gso.js';
import { allswapGridPlan, gridKernel, gridSuitsBatch } from './grid.js';

/** The kernel file of each plan variant: 'lane', column-owner ('block-col-...') or block. */
export function allswapKernelUrl(plan: LaunchPlan): URL {
  const file =
    plan.variant === 'lane'
      ? 'lane-kernel.cu'
      : plan.variant?.startsWith('block-col')
        ? 'column-kernel.cu'
        : 'block-kernel.cu';
  return new URL(`./${file}`, import.meta.url);
}

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/** Bytes of the block kernel's workspace for one basis, in the order allswap-kernel.cuh carves it. */
export function allswapWorkspaceBytes(n: number, m: number, elt: number): number {
  const slots = Math.max(m, 2);
  return align16(
    2 * m * m * 8 + // Zw, Zold
      6 * slots * 8 + // partial sums (12 per pair, 4 per column)
      6 * slots * 8 + // norm0, dX, dMu, dMuNew, dC, cval
      16 + // zstat
      3 * align16((n | 1) * m * elt) + // B, Bs, Bold (leading dimension n | 1)
      align16(slots * elt) + // r
      slots * 4 + // dSwap
      4 * 4, // flags
  );
}

/**
 * The block kernel's column-owner layout (column-kernel.cu): bytes of one basis in the part that
 * goes to global scratch first (Z, step 3's multipliers, their columns, the new Z columns) and in the rest (partial
 * sums and per-pair arrays, B in the working precision, B* as doubles (bsElt 8) or floats (4: float32
 * arithmetic), r, flags), in allswap-kernel.cuh's order.
 */
export function allswapColumnBytes(n: number, m: number, elt: number, bsElt = 8): { z: number; rest: number } {
  const slots = Math.max(m, 2);
  const ld = n | 1;
  return {
    z: 3 * m * m * 8 + align16(m * m * 4),
    rest:
      6 * slots * 8 +
      6 * slots * 8 +
      16 +
      align16(ld * m * elt) +
      align16(ld * m * bsElt) +
      align16(slots * elt) +
      2 * slots * 4 +
      4 * 4,
  };
}

/** Per-thread kernel: bytes one basis keeps in Z (m*m doubles) and in B, B*, r (working precision). */
export function allswapLaneBytes(n: number, m: number, elt: number): { z: number; b: number } {
  return { z: m * m * 8, b: (2 * n * m + m) * elt };
}

/** Largest bytes per thread the per-thread kernel keeps in shared memory (about 7 warps per multiprocessor). */
const LANE_SHARED_PER_THREAD = 1100;

/**
 * Launch plan of the per-thread kernel (allswap_lane): L bases per block of L threads; Z and
 * B, B*, r in shared memory while they fit LANE_SHARED_PER_THREAD per thread (B first: it is read
 * most), the rest in global scratch, interleaved by lane as lane-kernel.cu lays it out.
 */
export function allswapLanePlan(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  device: DeviceProperties,
): LaunchPlan {
  const elt = precision === 'float32' ? 4 : 8;
  const { z, b } = allswapLaneBytes(n, m, elt);
  const t: AllswapTuning = p.gpuTuning?.allswap ?? {};
  const L = t.laneThreads ?? 32;
  let mem = t.laneMemory ?? 'auto';
  if (mem === 'auto')
    mem = z + b <= LANE_SHARED_PER_THREAD ? 'shared' : b <= LANE_SHARED_PER_THREAD ? 'z-global' : 'global';
  const zInShared = mem === 'shared',
    bInShared = mem !== 'global';
  const shared = L * ((zInShared ? z : 0) + (bInShared ? b : 0));
  if (shared > device.sharedPerBlockOptinBytes) mem = 'global';
  const zs = mem === 'shared',
    bs = mem !== 'global';
  const bound = precisionReductionBound(p.eta, precision);
  return {
    variant: 'lane',
    // a module specialised to the size (compile-time loops and offsets), unless a test asks for the generic one
    defines: (t.laneSpecialise ?? true) ? { LANE_N: n, LANE_M: m, LANE_L: L } : undefined,
    threads: L,
    basesPerBlock: L,
    sharedBytes: L * ((zs ? z : 0) + (bs ? b : 0)),
    scratchBytesPerBasis: [(zs ? 0 : z) + (bs ? 0 : b)],
    extraArgs: [p.maxIterations, p.delta, bound, zs ? 1 : 0, bs ? 1 : 0],
  };
}

/**
 * Block kernel: where its workspace lives ('shared': all of it in shared memory; 'z-global': Z and
 * its snapshot in global scratch, the rest in shared memory; 'global': all in global scratch), the
 * block size and the resident blocks per multiprocessor the module is built for (minBlocks: the
 * registers are capped so that this many blocks fit; 0: no cap), each as AlgoParams.gpuTuning
 * .allswap says or else the plan's choice: Z alone in global scratch when only that makes room for
 * several blocks per multiprocessor, else everything in shared memory when it fits, else everything
 * in global scratch ('z-global' for larger bases, e.g. 128 x 128 float32, is not measured yet).
 */
export function allswapBlockPlan(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  device: DeviceProperties,
): LaunchPlan {
  const t: AllswapTuning = p.gpuTuning?.allswap ?? {};
  if (t.columnLayout ?? (m > LANE_MAX_M && n <= COLUMN_MAX_N)) {
    const plan = allswapColumnPlan(n, m, precision, p, device);
    if (plan) return plan;
  }
  const elt = precision === 'float32' ? 4 : 8;
  const ws = allswapWorkspaceBytes(n, m, elt);
  const zBytes = 2 * m * m * 8;
  const rest = ws - zBytes;
  const limit = device.sharedPerBlockOptinBytes;
  let mem = t.blockMemory ?? 'auto';
  if (mem === 'shared' && ws > limit) mem = 'auto';
  if (mem === 'z-global' && rest > limit) mem = 'auto';
  // resident blocks per multiprocessor that shared memory allows (1 KB reserved per block)
  const perSM = (bytes: number): number => Math.floor(device.sharedPerMultiprocessorBytes / (bytes + 1024));
  // several bases per multiprocessor: when the whole workspace allows one block and the workspace
  // without Z allows more (64 x 64 float32: 3 or 4, float64: 2), Z goes to global scratch (it stays
  // in L2) and the module is built for that many blocks (several bases per multiprocessor hide
  // each other's latency)
  const several = t.blockMemory === undefined && ws <= limit && perSM(ws) <= 1 && rest <= limit && perSM(rest) >= 2;
  if (mem === 'auto') mem = several ? 'z-global' : ws <= limit ? 'shared' : 'global';
  const mode = mem === 'shared' ? 1 : mem === 'z-global' ? 2 : 0;
  const shared = mode === 1 ? ws : mode === 2 ? rest : 0;
  const scratch = mode === 1 ? 0 : mode === 2 ? zBytes : ws;
  const blocks = several ? Math.min(3, perSM(rest)) : 0;
  const auto = blocks >= 3 ? 256 : Math.min(1024, Math.max(32, Math.ceil((6 * m) / 32) * 32));
  const threads = t.threads ?? auto;
  const minBlocks = t.minBlocks ?? blocks;
  const bound = precisionReductionBound(p.eta, precision);
  return {
    variant: minBlocks > 0 ? `block-${mem}-${minBlocks}` : `block-${mem}`,
    defines: minBlocks > 0 ? { ALLSWAP_THREADS: threads, ALLSWAP_MIN_BLOCKS: minBlocks } : undefined,
    threads,
    sharedBytes: shared,
    scratchBytesPerBasis: [scratch],
    extraArgs: [p.maxIterations, p.delta, bound, mode, scratch],
  };
}

/** Largest n for which the block kernel takes the column-owner layout ('auto'): n / 4 doubles per thread in registers. */
export const COLUMN_MAX_N = 96;

/**
 * Block kernel, column-owner layout (-DCOL_N = n, a module per n; column-kernel.cu): 4
 * threads per column (4 m rounded up to a warp multiple, unless gpuTuning.allswap.threads asks for
 * more), Z and step 3's lists in global scratch ('auto', 'z-global'), in shared memory ('shared')
 * or everything in global scratch ('global'); registers capped for as many resident blocks as shared
 * memory, threads and about 2 n / 4 + 40 registers per thread allow. Null when the block size cannot
 * hold 4 m threads.
 */
export function allswapColumnPlan(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  device: DeviceProperties,
): LaunchPlan | null {
  const elt = precision === 'float32' ? 4 : 8;
  // (float32 arithmetic, AlgoParams.float32Arithmetic: B* and a lane's entries as floats, half the
  // shared memory and registers for them)
  const f32 = precision === 'float32' && p.float32Arithmetic === 'float32';
  const { z, rest } = allswapColumnBytes(n, m, elt, f32 ? 4 : 8);
  const t: AllswapTuning = p.gpuTuning?.allswap ?? {};
  const threads = t.threads ?? Math.max(32, Math.ceil((4 * m) / 32) * 32);
  if (threads < 4 * m || threads % 32 !== 0 || threads > 1024) return null;
  const limit = device.sharedPerBlockOptinBytes;
  let mem = t.blockMemory ?? 'z-global';
  if (mem === 'shared' && z + rest > limit) mem = 'z-global';
  if (mem === 'z-global' && rest > limit) mem = 'global';
  const mode = mem === 'shared' ? 1 : mem === 'z-global' ? 2 : 0;
  const shared = mode === 1 ? z + rest : mode === 2 ? rest : 0;
  const scratch = mode === 1 ? 0 : mode === 2 ? z : z + rest;
  const regs = (f32 ? 1 : 2) * (Math.floor(n / 4) + (n % 4)) + 40;
  const byShared = shared > 0 ? Math.floor(device.sharedPerMultiprocessorBytes / (shared + 1024)) : 32;
  const blocks = Math.max(1, Math.min(byShared, Math.floor(2048 / threads), Math.floor(65536 / (threads * regs)), 32));
  const minBlocks = t.minBlocks ?? blocks;
  const bound = precisionReductionBound(p.eta, precision);
  return {
    variant: `block-col-${mem}-${minBlocks}${f32 ? '-f32arith' : ''}`,
    defines: {
      COL_N: n,
      ...(f32 ? { COL_F32_ARITH: 1 } : {}),
      ...(minBlocks > 0 ? { ALLSWAP_THREADS: threads, ALLSWAP_MIN_BLOCKS: minBlocks } : {}),
      ...(mode >= 1 ? { COL_SMEM: 1 } : {}), // (the small arrays, B and B* in shared memory: no generic accesses)
    },
    threads,
    sharedBytes: shared,
    scratchBytesPerBasis: [scratch],
    extraArgs: [p.maxIterations, p.delta, bound, mode, scratch],
  };
}

/**
 * Largest m for which the per-thread kernel is chosen ('auto'): it beats the block kernel at 8 x 8
 * and loses to it at 16 x 16.
 */
export const LANE_MAX_M = 12;

/**
 * The per-thread kernel for small bases (m <= LANE_MAX_M) in batches that fill the device; the
 * whole-device kernel for a few large bases (grid.ts: gridSuitsBatch); else the block kernel.
 */
export function allswapPlan(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  device: DeviceProperties,
  batch = 1 << 20,
): LaunchPlan {
  validateGpuTuning(p.gpuTuning);
  const auto =
    m <= LANE_MAX_M && batch >= 4 * device.multiprocessors ? 'lane' : gridSuitsBatch(m, batch) ? 'grid' : 'block';
  const choice = p.gpuTuning?.allswap?.kernel ?? auto;
  if (choice === 'grid') {
    const grid = allswapGridPlan(n, m, precision, p, device);
    if (grid) return grid;
  }
  return choice === 'lane' ? allswapLanePlan(n, m, precision, p, device) : allswapBlockPlan(n, m, precision, p, device);
}

export const allswapSpec: LatticeKernelSpec = {
  name: 'allswap',
  kernel(ctx, precision, plan) {
    if (plan.variant === 'grid') return gridKernel(ctx, precision, plan);
    const url = allswapKernelUrl(plan);
    const mod = loadModule(ctx, {
      source: readKernelSource(url),
      name: `allswap/${url.pathname.split('/').pop()}`,
      defines: { REAL: precision === 'float32' ? 'float' : 'double', ...plan.defines },
      options: ['-fmad=false'],
    });
    if (plan.variant === 'lane')
      return mod.kernel('allswap_lane', [
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
        'i32',
        'i32',
      ]);
    return mod.kernel('allswap', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'f64', 'f64', 'i32', 'i32']);
  },
  plan: allswapPlan,
};

/**
 * Reduces `batch` bases (column-major n x m each, back to back in `data`) with CR-AS-LLL on the
 * GPU. Returns the reduced bases (same precision as `data`), the transforms Z (batch m x m,
 * B' = B Z) and per-basis counts (iterations = phases) with kernel and total times. Throws the
 * CPU reducer's typed errors naming the basis, and EngineUnavailableError without a device.
 * `out`: arrays for the outputs, reused over calls (CudaBatchOutputs).
 */
export function reduceBatchCuda<A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  return runLatticeBatch(allswapSpec, data, batch, n, m, params, out);
}
