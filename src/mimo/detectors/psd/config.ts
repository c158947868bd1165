/**
 * PSD configurations (levels lvl_x and paths paths_lvl_x), Jozsa et al. ICCS 2013, section 5.1.
 *
 * The tree of the real model has n = 2 nt real positions (nt for BPSK). Paper level l (1-indexed)
 * holds the nodes whose positions l-1 .. n-1 are fixed: the root is lvl_0 = n + 1, the leaves are
 * level 1. Stage x (x = 1 .. lvl_nr) expands paths_lvl_{x-1} nodes of level lvl_{x-1} into all
 * their children at level lvl_x: exp_lvl_x = paths_lvl_{x-1} * q^(lvl_{x-1} - lvl_x) nodes.
 */
import { InvalidArgumentError, UnsupportedError, show } from '../../../core/index.js';

/** The PSD's search shape: the tree levels where it sorts and prunes, and the paths kept at each. */
export interface PsdConfig {
  /** lvl_0 = n + 1 > lvl_1 > ... > lvl_S = 1. */
  readonly levels: readonly number[];
  /** paths_lvl_0 = 1, paths_lvl_1 .. paths_lvl_{S-1} (length S). */
  readonly paths: readonly number[];
  /** exp_lvl_x for x = 0 .. S (exp_lvl_0 = 1, the root). */
  readonly expanded: readonly number[];
}

/** Largest buffer a stage may need (the GPU version holds it in shared memory). */
export const PSD_MAX_EXPANDED = 1 << 16;

/** Table 1b of the paper (the configurations it measured), keyed by tree depth n and alphabet size q. */
const TABLE_1B: Record<string, { levels: number[]; paths: number[] }> = {
  '4,2': { levels: [5, 2, 1], paths: [1, 4] }, // 2x2 QPSK
  '4,4': { levels: [5, 3, 1], paths: [1, 1] }, // 2x2 16-QAM
  '4,8': { levels: [5, 3, 1], paths: [1, 1] }, // 2x2 64-QAM
  '8,2': { levels: [9, 4, 1], paths: [1, 4] }, // 4x4 QPSK
  '8,4': { levels: [9, 6, 4, 1], paths: [1, 4, 1] }, // 4x4 16-QAM
  '8,8': { levels: [9, 7, 5, 3, 1], paths: [1, 1, 1, 1] }, // 4x4 64-QAM
};

/**
 * Default `levels` (boundaries, n + 1 down to 1) and `paths` (kept at each boundary but the last)
 * for tree depth n and alphabet q: Table 1b where it has the size, else stages of about 64
 * expanded nodes (paths 1).
 */
export function defaultPsdLevels(n: number, q: number): { levels: number[]; paths: number[] } {
  const t = TABLE_1B[`${n},${q}`];
  if (t) return { levels: [...t.levels], paths: [...t.paths] };
  const step = Math.max(1, Math.floor(Math.log(64) / Math.log(q) + 1e-9));
  const levels = [n + 1];
  while (levels[levels.length - 1]! > 1) levels.push(Math.max(1, levels[levels.length - 1]! - step));
  return { levels, paths: levels.slice(0, -1).map(() => 1) };
}

/**
 * Validates a user configuration (or builds the default). `levels` may omit lvl_0 = n + 1 and
 * `paths` may omit paths_lvl_0 = 1.
 */
export function psdConfig(
  n: number,
  q: number,
  user?: { levels?: number[]; paths?: number[]; gpuMapping?: unknown },
): PsdConfig {
  if (user !== undefined && (user === null || typeof user !== 'object' || Array.isArray(user))) {
    throw new InvalidArgumentError(`psd must be an object { levels?: number[], paths?: number[] }, got ${show(user)}`);
  }
  psdGpuMapping(user);
  const userLevels = intList(user?.levels, 'psd.levels');
  const userPaths = intList(user?.paths, 'psd.paths');
  const def = defaultPsdLevels(n, q);
  let levels = userLevels ?? def.levels;
  if (userLevels && !userPaths)
    throw new InvalidArgumentError('psd.levels given without psd.paths (one path count per stage)');
  if (levels[0] !== n + 1) levels = [n + 1, ...levels];
  for (let x = 1; x < levels.length; x++) {
    if (!(levels[x]! < levels[x - 1]!))
      throw new InvalidArgumentError(
        `psd.levels must decrease strictly from lvl_0 = ${n + 1} to 1, got ${JSON.stringify(levels)}`,
      );
  }
  if (levels.length < 2 || levels[levels.length - 1] !== 1)
    throw new InvalidArgumentError(`psd.levels must end at the leaf level 1, got ${JSON.stringify(levels)}`);
  const stages = levels.length - 1;
  // Paths given without levels apply to the default levels.
  let paths = userPaths ?? def.paths;
  if (paths.length === stages - 1) paths = [1, ...paths];
  if (paths.length !== stages) {
    throw new InvalidArgumentError(
      `psd.paths needs ${stages} entries (paths_lvl_0 .. paths_lvl_${stages - 1}) for levels ${JSON.stringify(levels)}, got ${JSON.stringify(paths)}`,
    );
  }
  if (paths[0] !== 1)
    throw new InvalidArgumentError(`paths_lvl_0 must be 1 (the root is always expanded), got ${paths[0]}`);
  const expanded = [1];
  for (let x = 1; x <= stages; x++) {
    const p = paths[x - 1]!;
    if (!Number.isInteger(p) || p < 1)
      throw new InvalidArgumentError(`psd.paths must be positive integers, got ${JSON.stringify(paths)}`);
    if (p > expanded[x - 1]!)
      throw new InvalidArgumentError(
        `paths_lvl_${x - 1} = ${p} exceeds the ${expanded[x - 1]} nodes expanded at level ${levels[x - 1]}`,
      );
    const e = p * q ** (levels[x - 1]! - levels[x]!);
    if (e > PSD_MAX_EXPANDED)
      throw new UnsupportedError(
        `PSD stage ${x} would expand ${e} nodes (limit ${PSD_MAX_EXPANDED}); choose closer levels or fewer paths`,
      );
    expanded.push(e);
  }
  return { levels, paths, expanded };
}

/** How the CUDA engine maps the search: a warp a vector ('warp', measured fastest) or the paper's block a vector ('block'). */
export type PsdGpuMapping = 'warp' | 'block';
export const PSD_GPU_MAPPINGS: readonly PsdGpuMapping[] = ['warp', 'block'];

/** opts.psd.gpuMapping validated, or the default 'warp'. */
export function psdGpuMapping(user?: { gpuMapping?: unknown }): PsdGpuMapping {
  const v = user?.gpuMapping;
  if (v === undefined) return 'warp';
  if (typeof v !== 'string' || !(PSD_GPU_MAPPINGS as readonly string[]).includes(v)) {
    throw new InvalidArgumentError(`psd.gpuMapping must be one of ${PSD_GPU_MAPPINGS.join(', ')}, got ${show(v)}`);
  }
  return v as PsdGpuMapping;
}

/** A user's level or path list: undefined, or an array of integers (InvalidArgumentError otherwise). */
function intList(v: unknown, name: string): number[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new InvalidArgumentError(`${name} must be an array of integers, got ${show(v)}`);
  for (const x of v) {
    if (typeof x !== 'number' || !Number.isInteger(x))
      throw new InvalidArgumentError(`${name} must be an array of integers, got ${show(v)}`);
  }
  return [...v] as number[];
}
