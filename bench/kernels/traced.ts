/**
 * Measurement builds of the whole-device kernel: bench/kernels/traced/grid-kernel.cu is the
 * production allswap/grid-kernel.cu with its stage trace (-DGRID_TRACE=N: block 0 records the end of
 * each of the first N stages after the control words, kind << 56 | ns since the start;
 * GRID_TRACE_COUNTS: swaps and changes instead of the time; GRID_GS_INLINE: Gram-Schmidt inlined).
 * bench/kernels/traced/allswap-kernel.cu is the block kernel's file as it was with its switches
 * (COL_PROFILE: cycles per section printed by block 0; COL_NO_SUPPORT, COL_NO_FASTDIV: A/B builds
 * of the column-owner layout's shortcuts). Used by grid-trace.ts and grid-race.ts; not shipped.
 */
import type { CudaContext } from '../../src/gpu/context.js';
import type { Kernel } from '../../src/gpu/launch.js';
import type { LaunchPlan } from '../../src/gpu/lattice-batch.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';
import { GRID_CTL_BYTES } from '../../src/lattice/allswap/grid.js';

const TRACED_GRID_URL = new URL('./traced/grid-kernel.cu', import.meta.url);

/** The plan of the whole-device kernel with `trace` stages recorded (and further -D defines). */
export function tracedGridPlan(plan: LaunchPlan, trace: number, defines: Readonly<Record<string, number>> = {}): LaunchPlan {
  return {
    ...plan,
    defines: { ...plan.defines, GRID_TRACE: trace, ...defines },
    scratchBytesPerBasis: [GRID_CTL_BYTES + 8 * trace, ...plan.scratchBytesPerBasis.slice(1)],
  };
}

/** The traced whole-device kernel for a plan made by tracedGridPlan. */
export function tracedGridKernel(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel {
  const mod = loadModule(ctx, {
    source: readKernelSource(TRACED_GRID_URL),
    name: 'bench/kernels/traced/grid-kernel.cu',
    defines: { REAL: precision === 'float32' ? 'float' : 'double', ...plan.defines },
  });
  return mod.kernel('allswap_grid', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'f64', 'f64', 'i32', 'i64', 'i32']);
}
