/**
 * Launch choices of the lattice GPU kernels that a caller may fix instead of leaving them to the
 * plans (AlgoParams.gpuTuning): which kernel, block sizes, where the workspace lives. Every field
 * is optional; absent means the plan's own choice from the size and the device, which is what the
 * measured defaults are. Tests use them to reach every layout; benchmarks to compare layouts.
 * One object, declared by its schema (GPU_TUNING_SCHEMA) and checked by it, passed explicitly to
 * the plans.
 */
import { boolean, choice, integer, object, option, satisfying } from '../core/index.js';
import { batchRunOption, type BatchRunOptions } from '../gpu/index.js';

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

export const JACOBI_ROUNDS = [
  'first-warp',
  'group-shared-permutation',
  'group-register-players',
  'group-halo',
] as const satisfies readonly JacobiRounds[];

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

const MEMORY = ['shared', 'z-global', 'global'] as const satisfies readonly WorkspaceMemory[];
const threadsPerBlock = integer(1, 1024);

/** The all-swap kernels' keys (AllswapTuning). */
export const ALLSWAP_TUNING_SCHEMA = {
  kernel: option(
    choice(['block', 'lane', 'grid']),
    "'block': a thread block per basis; 'lane': a thread per basis; 'grid': one basis over the whole device",
  ),
  threads: option(threadsPerBlock, 'threads per block of the block kernel'),
  blockMemory: option(choice(MEMORY), 'where the block kernel keeps its workspace'),
  minBlocks: option(
    integer(0, 32),
    "resident blocks per multiprocessor the block kernel's registers are capped for (0: no cap)",
  ),
  columnLayout: option(
    boolean(),
    'whether the block kernel takes its column-owner layout (needs 4 m threads per block)',
  ),
  laneThreads: option(threadsPerBlock, 'bases (threads) per block of the per-thread kernel'),
  laneMemory: option(choice(MEMORY), 'where the per-thread kernel keeps its arrays'),
  laneSpecialise: option(
    boolean(),
    "false: the per-thread kernel's generic module instead of one specialised to the size",
  ),
};

/** Parallel Jacobi's keys (JacobiTuning). */
export const JACOBI_TUNING_SCHEMA = {
  threads: option(threadsPerBlock, 'threads per block'),
  group: option(
    satisfying<number>(
      'a multiple of 32 in [32, 1024]',
      (v) => typeof v === 'number' && Number.isInteger(v) && v >= 32 && v <= 1024 && v % 32 === 0,
      'integer',
    ),
    'threads of the group that runs the rounds (a multiple of 32)',
  ),
  rounds: option(choice(JACOBI_ROUNDS), 'who runs the rounds'),
  preGram: option(
    boolean(),
    'G = B^T B by the many-block jacobi_gram kernel first (true) or by the block itself (false)',
  ),
  hops: option(integer(1, 32), "'group-halo': at most this many rounds per group barrier"),
  lanePairs: option(integer(1, 16), "'group-halo': pairs per lane"),
};

/** MB-LLL and CR-MB-LLL's keys (BlockTuning). */
export const BLOCK_TUNING_SCHEMA = {
  scheduling: option(
    choice(['persistent', 'host-streams']),
    "'persistent': one kernel looping on the device; 'host-streams': the paper's host loop over streams",
  ),
  kernel: option(
    choice(['basis', 'grid']),
    "'basis': a thread block per basis; 'grid': the whole-device kernel's block mode where it applies",
  ),
  streams: option(integer(1, 64), "'host-streams': CUDA streams"),
  threads: option(threadsPerBlock, 'threads per block of the per-basis kernels'),
  subThreads: option(threadsPerBlock, "threads per block of the per-sub-basis kernel of 'host-streams'"),
};

/** The tuning groups of the lattice GPU engine (GpuTuning); which algorithm reads which is in its registry traits. */
export const GPU_TUNING_SCHEMA = {
  allswap: option(object(ALLSWAP_TUNING_SCHEMA), "CR-AS-LLL's kernels"),
  jacobi: option(object(JACOBI_TUNING_SCHEMA), "parallel Jacobi's kernel"),
  block: option(object(BLOCK_TUNING_SCHEMA), "MB-LLL's and CR-MB-LLL's kernels"),
  batch: batchRunOption('how the batch runner cuts the batch'),
};

/** A kernel tuning group (every key of GpuTuning but the batch runner's). */
export type TuningGroup = Exclude<keyof GpuTuning, 'batch'>;

/**
 * The tuning checked by its schema (GPU_TUNING_SCHEMA): an unknown group or key (the nearest one
 * suggested), a value of the wrong type or range, each an InvalidArgumentError naming it
 * (details.option 'gpuTuning.allswap.threads'). `call` names the call in messages. Returns the
 * checked copy.
 */
export function validateGpuTuning(t: unknown, call = 'lattice GPU engine'): GpuTuning {
  return t === undefined ? {} : (object(GPU_TUNING_SCHEMA).check(t, `${call} option gpuTuning`) as GpuTuning);
}
