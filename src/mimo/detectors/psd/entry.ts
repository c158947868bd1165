import { arrayOf, choice, integer, object, option } from '../../../core/index.js';
import type { DetectorEntry } from '../../registry.js';
import { PSD_GPU_MAPPINGS, PSD_MAX_EXPANDED, type PsdGpuMapping } from './config.js';
import { detector } from './cpu.js';

/**
 * PSD configuration (Jozsa et al., Table 1): `levels` lvl_1 > ... > lvl_S = 1 (lvl_0 = n + 1 may be
 * omitted; n = 2 nt real positions, nt for BPSK) and `paths` paths_lvl_1 .. (paths_lvl_0 = 1 may
 * be omitted). `paths` alone applies to the default levels. See psdConfig().
 */
export interface PsdOptions {
  /** Tree level boundaries lvl_1 > ... > lvl_S = 1 (depth + 1 first may be omitted). */
  levels?: number[];
  /** Paths kept at each boundary but the last (paths_lvl_0 = 1 may be omitted). */
  paths?: number[];
  /** CUDA engine only: 'warp' (default, one warp a vector) or 'block' (the paper's block a vector). */
  gpuMapping?: 'warp' | 'block';
}

/** Options of the parallel sphere detector. */
export interface PsdDetectorOptions {
  /** PSD configuration: `levels` (tree level boundaries, depth + 1 down to 1) and `paths` (kept at each boundary but the last); defaults from the paper's Table 1. */
  psd?: PsdOptions;
}

/** Longest level or path list: a tree of 2 x 64 real positions has 129 levels. */
const MAX_LEVELS = 129;

/** The Parallel Sphere Detector (Jozsa et al.): exact ML within its node budget. */
export const psdEntry: DetectorEntry<'psd', PsdDetectorOptions> = {
  name: 'psd',
  description: 'the parallel sphere detector: levels and paths, a shared radius; exact ML within its node budget',
  traits: { soft: false, exact: true, nodeBudget: 'search', model: 'real', wideChannels: 'no' },
  options: {
    psd: option(
      object({
        levels: option(
          arrayOf(integer(1, MAX_LEVELS), 1, MAX_LEVELS),
          'the tree level boundaries, depth + 1 (may be omitted) down to 1',
          { cli: { flag: 'psd-levels', metavar: 'LIST' } },
        ),
        paths: option(
          arrayOf(integer(1, PSD_MAX_EXPANDED), 1, MAX_LEVELS),
          'the paths kept at each level boundary but the last',
          { cli: { flag: 'psd-paths', metavar: 'LIST' } },
        ),
        gpuMapping: option<PsdGpuMapping>(
          choice(PSD_GPU_MAPPINGS),
          "CUDA engine: warp (a warp a vector) or block (the paper's block a vector)",
          { default: 'warp' },
        ),
      }),
      "the PSD configuration (defaults from the paper's Table 1)",
    ),
  },
  cpu: detector,
  cuda: () => import('./cuda.js').then((m) => m.cudaDetector),
};
