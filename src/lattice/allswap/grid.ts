/**
 * Launch plan of the whole-device all-swap kernel (grid-kernel.cu): one large basis at a time spread
 * over every multiprocessor, for a few large bases (m >= 96, columns up to GRID_MAX_N) where one
 * thread block per basis would leave the rest of the GPU idle.
 */
import type { AlgoParams } from '../types.js';
import type { DeviceProperties } from '../../gpu/context.js';
import type { LaunchPlan } from '../../gpu/lattice-batch.js';
import { reductionBound } from '../lll/gso.js';

/** Control words per basis (grid-kernel.cu: the barrier, the abort flag and three stage slots). */
export const GRID_CTL_BYTES = 512;

/**
 * Measurement knob (leave at 0): trace the first `trace` stages of each basis (grid-kernel.cu:
 * GRID_TRACE; bench/grid-trace.ts reads them back after the control words).
 */
export const gridTuning = { trace: 0 };

const align256 = (x: number): number => Math.ceil(x / 256) * 256;

/**
 * Global scratch of one basis, in the order grid-kernel.cu carves it: Z twice, r, ready flags,
 * B twice, B*, the GS coefficients and the reducing rows' copies, per-pair swap records.
 */
export function gridWorkspaceBytes(n: number, m: number, elt: number): number {
  return 4 * m * m * 8 + 2 * align256(m * 8) + 3 * align256(n * m * elt) + 2 * m * 8 + m * 4;
}

/**
 * Longest column the whole-device kernel takes: a Gram-Schmidt panel lives in registers (8 columns,
 * n / 256 rows per thread); past this it spills (ptxas: 60 bytes at n = 1028, 28 at 1280), and the
 * block kernel takes the basis instead.
 */
export const GRID_MAX_N = 1280;

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

/** The plan of the whole-device kernel, or null for columns it does not take (gridShape). */
export function allswapGridPlan(n: number, m: number, precision: 'float32' | 'float64', p: AlgoParams, device: DeviceProperties): LaunchPlan | null {
  const elt = precision === 'float32' ? 4 : 8;
  const shape = gridShape(n, device);
  if (!shape) return null;
  const ws = gridWorkspaceBytes(n, m, elt);
  const bound = reductionBound(p.eta, precision === 'float32' ? new Float32Array(0) : new Float64Array(0));
  const trace = gridTuning.trace;
  return {
    variant: 'grid',
    defines: { GRID_N: n, GRID_S: shape.staged, ...(trace > 0 ? { GRID_TRACE: trace } : {}) },
    threads: 32 * shape.warps,
    sharedBytes: gridSharedBytes(n, shape.staged),
    scratchBytesPerBasis: [GRID_CTL_BYTES + 8 * trace, ws],
    extraArgs: [p.maxIterations, p.delta, bound, shape.staged, ws],
    persistent: true,
  };
}
