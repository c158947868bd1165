/**
 * Measurement builds of the GPU kernels, kept out of the production files: each is the production
 * source (includes inlined) with a patch of bench/kernels/traced/ applied, so it follows every
 * change of the production kernel and fails loudly (the hunk it cannot place) when the two part.
 *  - 'grid' (grid-kernel.cu.patch): the whole-device kernel's stage trace. -DGRID_TRACE=N: block 0
 *    records the end of each of the first N stages of a basis after its control words, as
 *    kind << 56 | ns since the start (kinds: TRACE_* in grid-kernel.cu), and the cycles of the last
 *    panel's block in Gram-Schmidt by part in the trace's last four words; GRID_TRACE_COUNTS: each
 *    stage's swaps and changes instead of the time; GRID_GS_INLINE: Gram-Schmidt inlined.
 *  - 'column' (column-kernel.cu.patch, allswap-kernel.cuh.patch): the column-owner layout with
 *    COL_PROFILE (block 0 prints the cycles of each section), COL_NO_SUPPORT and COL_NO_FASTDIV (A/B
 *    builds without the zero-entry shortcut, without the reciprocal division).
 *  - 'nway' (nway-detect.cu.patch; ssfe-search.cuh.patch has no hunks): the N-way detector's search
 *    with -DNW_MODE=1 (each level's floor by float-to-integer conversions) or 2 (R read where used
 *    instead of loaded into registers first); bench/mimo/gpu-nway-notes.md has the figures.
 *  - 'ldpc' (layered.cu.patch): the LDPC decoder with REMAT=1 (the shared-memory addresses recomputed
 *    every iteration: fewer registers, more integer operations; measured slower on the H100).
 * Used by grid-trace.ts, grid-race.ts, mimo/gpu-nway.ts and coding/gpu-ldpc.ts; nothing here ships.
 */
import { readFileSync } from 'node:fs';
import type { CudaContext } from '../../src/gpu/context.js';
import type { Kernel } from '../../src/gpu/launch.js';
import type { LaunchPlan } from '../../src/lattice/gpu/batch.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';
import { GRID_CTL_BYTES } from '../../src/lattice/allswap/grid.js';

const SRC = new URL('../../src/', import.meta.url);

/** Each measurement build: its production kernel file (under src/) and the patches applied to it. */
export const TRACED_BUILDS = {
  grid: { file: 'lattice/allswap/grid-kernel.cu', patches: ['grid-kernel.cu.patch'] },
  column: { file: 'lattice/allswap/column-kernel.cu', patches: ['column-kernel.cu.patch', 'allswap-kernel.cuh.patch'] },
  nway: { file: 'mimo/detectors/nway/nway-detect.cu', patches: ['nway-detect.cu.patch', 'ssfe-search.cuh.patch'] },
  ldpc: { file: 'coding/gpu/layered.cu', patches: ['layered.cu.patch'] },
} as const;

/** The production kernel file of a measurement build. */
export function productionUrl(build: keyof typeof TRACED_BUILDS): URL {
  return new URL(TRACED_BUILDS[build].file, SRC);
}

/**
 * `text` with a unified diff applied. Hunks are placed by their content (context and removed lines,
 * which must occur exactly once), not by line numbers, so a patch written against one file applies
 * to the source with its includes inlined. Throws naming the hunk that does not fit.
 */
export function applyPatch(text: string, patch: string, name = 'patch'): string {
  const hunks = patch.split(/^@@[^\n]*@@[^\n]*\n/m).slice(1);
  let out = text;
  hunks.forEach((hunk, h) => {
    const lines = hunk
      .replace(/\n$/, '')
      .split('\n')
      .filter((l) => !l.startsWith('\\'));
    const before = lines
      .filter((l) => l[0] === ' ' || l[0] === '-' || l === '')
      .map((l) => l.slice(1))
      .join('\n');
    const after = lines
      .filter((l) => l[0] === ' ' || l[0] === '+' || l === '')
      .map((l) => l.slice(1))
      .join('\n');
    const at = out.indexOf(before);
    if (at < 0 || out.indexOf(before, at + 1) >= 0) {
      throw new Error(
        `${name}: hunk ${h + 1} ${at < 0 ? 'does not match' : 'matches more than once in'} the production source (starting "${before.split('\n')[0]}")`,
      );
    }
    out = out.slice(0, at) + after + out.slice(at + before.length);
  });
  return out;
}

/** The source of a measurement build: the production kernel, includes inlined, patched. */
export function tracedSource(build: keyof typeof TRACED_BUILDS): string {
  const { file, patches } = TRACED_BUILDS[build];
  let text = readKernelSource(new URL(file, SRC));
  for (const p of patches) text = applyPatch(text, readFileSync(new URL(`./traced/${p}`, import.meta.url), 'utf8'), p);
  return text;
}

/** The plan of the whole-device kernel with `trace` stages recorded (and further -D defines). */
export function tracedGridPlan(
  plan: LaunchPlan,
  trace: number,
  defines: Readonly<Record<string, number>> = {},
): LaunchPlan {
  return {
    ...plan,
    defines: { ...plan.defines, GRID_TRACE: trace, ...defines },
    scratchBytesPerBasis: [GRID_CTL_BYTES + 8 * trace, ...plan.scratchBytesPerBasis.slice(1)],
  };
}

/** The traced whole-device kernel for a plan made by tracedGridPlan. */
export function tracedGridKernel(ctx: CudaContext, precision: 'float32' | 'float64', plan: LaunchPlan): Kernel {
  const mod = loadModule(ctx, {
    source: tracedSource('grid'),
    name: 'bench/kernels/traced: grid-kernel.cu',
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

/** The N-way detector's measurement build with these switches (NW_MODE 1 or 2), as NwayTuning.build takes it. */
export function nwayBuild(switches: { NW_MODE?: 1 | 2 }): {
  source: string;
  name: string;
  defines: Readonly<Record<string, number>>;
} {
  const defines = Object.fromEntries(Object.entries(switches).filter(([, v]) => v !== undefined)) as Record<
    string,
    number
  >;
  return {
    source: tracedSource('nway'),
    name: `bench/kernels/traced: nway-detect.cu ${JSON.stringify(defines)}`,
    defines,
  };
}

/** The LDPC decoder's measurement build with the addresses recomputed every iteration (REMAT=1), as ldpcCudaPlan's `build` takes it. */
export function ldpcRematBuild(): { source: string; name: string; defines: Readonly<Record<string, number>> } {
  return { source: tracedSource('ldpc'), name: 'bench/kernels/traced: layered.cu REMAT=1', defines: { REMAT: 1 } };
}
