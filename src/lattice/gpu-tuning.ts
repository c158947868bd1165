/**
 * Launch choices of the lattice GPU kernels that a caller may fix instead of leaving them to the
 * plans (AlgoParams.gpuTuning): which kernel, block sizes, where the workspace lives. Every field
 * is optional; absent means the plan's own choice from the size and the device, which is what the
 * measured defaults are. Tests use them to reach every layout; benchmarks to compare layouts.
 * One object, validated once (validateGpuTuning), passed explicitly to the plans.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { MAX_TUNED_CHUNKS, type BatchRunOptions } from '../gpu/batch-runner.js';

/** Where a kernel keeps its per-basis workspace: all in shared memory, Z alone in global scratch, all in global scratch. */
export type WorkspaceMemory = 'shared' | 'z-global' | 'global';

/**
 * Who runs the rounds of parallel Jacobi (jacobi-parallel/jacobi-kernel.cu):
 * - 'first-warp': the first warp alone, pairs in registers, the tournament turned by shuffles;
 * - 'group-shared-permutation': a group of up to four warps, the permutation in shared memory;
 * - 'group-register-players': the group, each thread holding its pair's two players in registers;
 * - 'group-halo': as 'group-register-players', each warp also holding its neighbours' pairs (a halo)
 *   so that several rounds run between group barriers.
 */
export type JacobiRounds = 'first-warp' | 'group-shared-permutation' | 'group-register-players' | 'group-halo';

export const JACOBI_ROUNDS: readonly JacobiRounds[] = [
  'first-warp',
  'group-shared-permutation',
  'group-register-players',
  'group-halo',
];

/** The all-swap (CR-AS-LLL) kernels' choices (allswap/cuda.ts). */
export interface AllswapTuning {
  /** 'block': a thread block per basis; 'lane': a thread per basis; 'grid': one basis over the whole device. */
  readonly kernel?: 'block' | 'lane' | 'grid';
  /** Threads per block of the block kernel (1..1024). */
  readonly threads?: number;
  /** Where the block kernel keeps its workspace. */
  readonly blockMemory?: WorkspaceMemory;
  /** Resident blocks per multiprocessor the block kernel's registers are capped for (0: no cap). */
  readonly minBlocks?: number;
  /** Whether the block kernel takes its column-owner layout (true needs 4 m threads per block). */
  readonly columnLayout?: boolean;
  /** Bases (threads) per block of the per-thread kernel (1..1024). */
  readonly laneThreads?: number;
  /** Where the per-thread kernel keeps its arrays. */
  readonly laneMemory?: WorkspaceMemory;
  /** false: the per-thread kernel's generic module instead of one specialised to the size. */
  readonly laneSpecialise?: boolean;
}

/** Parallel Jacobi's choices (jacobi-parallel/cuda.ts). */
export interface JacobiTuning {
  /** Threads per block (1..1024). */
  readonly threads?: number;
  /** Threads of the group that runs the rounds (a multiple of 32, 32..1024). */
  readonly group?: number;
  /** Who runs the rounds (a choice the basis cannot take falls back as the plan says). */
  readonly rounds?: JacobiRounds;
  /** G = B^T B by the many-block jacobi_gram kernel first (true) or by the block itself (false). */
  readonly preGram?: boolean;
  /** 'group-halo': at most this many rounds per group barrier (1..32). */
  readonly hops?: number;
  /** 'group-halo': pairs per lane (1..16). */
  readonly lanePairs?: number;
}

/** MB-LLL and CR-MB-LLL's choices (block/cuda.ts). */
export interface BlockTuning {
  /** 'persistent': one kernel looping on the device; 'host-streams': the paper's host loop over streams. */
  readonly scheduling?: 'persistent' | 'host-streams';
  /** 'basis': a thread block per basis; 'grid': the whole-device kernel's block mode where it applies. */
  readonly kernel?: 'basis' | 'grid';
  /** 'host-streams': CUDA streams (1..64). */
  readonly streams?: number;
  /** Threads per block of the per-basis kernels (1..1024). */
  readonly threads?: number;
  /** Threads per block of the per-sub-basis kernel of 'host-streams' (1..1024). */
  readonly subThreads?: number;
}

/** How the batch runner cuts a batch (src/gpu/batch-runner.ts). */
export type BatchTuning = BatchRunOptions;

/** Every tunable launch choice of the lattice GPU engine, by algorithm. */
export interface GpuTuning {
  /** CR-AS-LLL's kernels. */
  readonly allswap?: AllswapTuning;
  /** Parallel Jacobi's kernel. */
  readonly jacobi?: JacobiTuning;
  /** MB-LLL's and CR-MB-LLL's kernels. */
  readonly block?: BlockTuning;
  /** How the batch runner cuts the batch. */
  readonly batch?: BatchTuning;
}

const MEMORY: readonly WorkspaceMemory[] = ['shared', 'z-global', 'global'];

type Check = (v: unknown) => string | null;
const int =
  (lo: number, hi: number, extra?: (v: number) => string | null): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi
      ? extra
        ? extra(v)
        : null
      : `an integer in [${lo}, ${hi}]`;
const oneOf =
  (values: readonly unknown[]): Check =>
  (v) =>
    values.includes(v) ? null : `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`;
const bool: Check = (v) => (typeof v === 'boolean' ? null : 'a boolean');

const FIELDS: Record<keyof GpuTuning, Record<string, Check>> = {
  allswap: {
    kernel: oneOf(['block', 'lane', 'grid']),
    threads: int(1, 1024),
    blockMemory: oneOf(MEMORY),
    minBlocks: int(0, 32),
    columnLayout: bool,
    laneThreads: int(1, 1024),
    laneMemory: oneOf(MEMORY),
    laneSpecialise: bool,
  },
  jacobi: {
    threads: int(1, 1024),
    group: int(32, 1024, (v) => (v % 32 === 0 ? null : 'a multiple of 32')),
    rounds: oneOf(JACOBI_ROUNDS),
    preGram: bool,
    hops: int(1, 32),
    lanePairs: int(1, 16),
  },
  block: {
    scheduling: oneOf(['persistent', 'host-streams']),
    kernel: oneOf(['basis', 'grid']),
    streams: int(1, 64),
    threads: int(1, 1024),
    subThreads: int(1, 1024),
  },
  batch: { maxChunk: int(1, 2 ** 31 - 1), streams: int(1, 3), chunks: int(1, MAX_TUNED_CHUNKS) },
};

/**
 * Throws InvalidArgumentError naming the first bad field (e.g. `gpuTuning.allswap.threads`): an
 * unknown group or field, or a value of the wrong type or range. Returns the object unchanged.
 */
export function validateGpuTuning(t: unknown): GpuTuning {
  if (t === undefined) return {};
  if (typeof t !== 'object' || t === null || Array.isArray(t))
    throw new InvalidArgumentError('gpuTuning must be an object', { field: 'gpuTuning' });
  for (const [group, fields] of Object.entries(t)) {
    const spec = (FIELDS as Record<string, Record<string, Check>>)[group];
    if (!spec)
      throw new InvalidArgumentError(`gpuTuning.${group} is not a tuning group (${Object.keys(FIELDS).join(', ')})`, {
        field: `gpuTuning.${group}`,
      });
    if (fields === undefined) continue;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
      throw new InvalidArgumentError(`gpuTuning.${group} must be an object`, { field: `gpuTuning.${group}` });
    for (const [name, value] of Object.entries(fields)) {
      const field = `gpuTuning.${group}.${name}`;
      const check = spec[name];
      if (!check)
        throw new InvalidArgumentError(`${field} is not a tuning field (${Object.keys(spec).join(', ')})`, { field });
      if (value === undefined) continue;
      const want = check(value);
      if (want)
        throw new InvalidArgumentError(`${field} must be ${want}, got ${JSON.stringify(value)}`, { field, value });
    }
  }
  return t as GpuTuning;
}
