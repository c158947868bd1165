/**
 * Parallel Jacobi (chess-tournament ordering, permutation array) on the GPU: one thread block per
 * basis, jacobi-kernel.cu beside this file (and gram-kernel.cu, G = B^T B over many blocks first
 * for a few large bases). The kernel mirrors cpu.ts step for step; compiled with
 * -fmad=false (no fused multiply-add, as JavaScript computes) it gives the same Z, bit for bit.
 */
import type { AlgoParams } from '../types.js';
import { validateGpuTuning, type JacobiRounds, type JacobiTuning } from '../gpu-tuning.js';
import { type CudaContext, type DeviceProperties, loadModule, readKernelSource } from '../../gpu/index.js';
import {
  runLatticeBatch,
  type CudaBatchOutputs,
  type CudaBatchResult,
  type LatticeKernelSpec,
  type LaunchPlan,
  type RealArray,
} from '../gpu/batch.js';

const KERNEL_URL = new URL('./jacobi-kernel.cu', import.meta.url);
const GRAM_URL = new URL('./gram-kernel.cu', import.meta.url);

/** The kernel's define of each way the rounds run ('group-shared-permutation' is its default: none). */
const ROUNDS_DEFINE: Record<JacobiRounds, string | null> = {
  'first-warp': 'ROUNDS_FIRST_WARP',
  'group-shared-permutation': null,
  'group-register-players': 'ROUNDS_GROUP_REGISTER_PLAYERS',
  'group-halo': 'ROUNDS_GROUP_HALO',
};

/** Who runs the rounds in a plan (its defines), by name. */
export function jacobiRoundsOf(plan: LaunchPlan): JacobiRounds {
  const d = plan.defines ?? {};
  return (
    (Object.keys(ROUNDS_DEFINE) as JacobiRounds[]).find(
      (r) => ROUNDS_DEFINE[r] !== null && d[ROUNDS_DEFINE[r]!] === 1,
    ) ?? 'group-shared-permutation'
  );
}

/**
 * Threads per block when a few bases run alone (the host caps it at the kernel's register limit).
 * The rounds run on the first warp or on a group of up to four warps; the other threads help with
 * G = B^T B, B_in Z and the update phases of the rounds with multipliers. 512 rather than 1024: up
 * to 128 registers per thread (launch bounds), so that the rounds' code does not spill; 256 is
 * slower, G = B^T B taking longer.
 */
const SINGLE_THREADS = 512;

/**
 * 'group-halo' (jacobi-kernel.cu): owned pairs per warp (the group has as many warps as that needs; 13 pairs:
 * a halo of 9 lanes either side, 9 rounds per barrier), the most rounds per group barrier and the
 * pairs per lane. Fewer, larger warps' shares (25 pairs, 3 rounds per barrier) and two pairs per
 * lane were both slower on one 200 x 200 basis: the per-round work grows, and the barriers were no
 * longer the cost.
 */
const HALO_PAIRS_PER_WARP = 13;
const HALO_HOPS = 16;
const HALO_LANE_PAIRS = 1;

/** Rows of B that G = B^T B stages through shared memory at a time (fewer where room is short). */
const STAGE_ROWS = 16;

/** The kernel's JacobiShared block at the start of the shared memory (JACOBI_SHARED_BYTES). */
const HEAD_BYTES = 128;

/** jacobi_gram's tile of G (GP x GP entries, one per thread) and its stage of B (GR rows). */
const GRAM_TILE = 16;
const GRAM_ROWS = 32;

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/**
 * Launch plan for jacobi-kernel.cu: [JacobiShared][G (m x (m|1))][working Z (m x m doubles)][stage], G
 * and Z in shared memory where they fit (G first), then the stage of STAGE_ROWS rows of B (fewer
 * where room is short, at least one), then the small arrays in the kernel's order: E, zbound and
 * the logs (m doubles each), mult (half reals, padded to 16 bytes), perm and perm2 (m ints each),
 * lpi and lpj (half ints each). The module is compiled with who runs the rounds (a ROUNDS_* define), a group of up to JG
 * threads that run the rounds, JQ pairs per thread, GT x GT tiles of G per thread and
 * launch bounds JT threads, JB blocks per multiprocessor.
 */
export function jacobiParallelPlan(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  device: DeviceProperties,
  batch = 1 << 20,
): LaunchPlan {
  const elt = precision === 'float32' ? 4 : 8;
  const ldg = m | 1;
  const half = (m + (m & 1)) / 2;
  const single = batch < device.multiprocessors;
  // the update phases run a group of up to 32 lanes per pair: half * lanes threads keep every pair
  // busy. Many bases: a quarter of that (at least a warp, at most 256; measured best on the H100
  // for 16 x 16 and 64 x 64 batches) leaves room for more blocks per multiprocessor. Fewer bases
  // than multiprocessors: as many threads as help one basis (SINGLE_THREADS at most).
  const lanes = Math.min(32, 2 ** Math.ceil(Math.log2(Math.max(m, 1))));
  const full = half * lanes;
  const auto = single
    ? Math.min(SINGLE_THREADS, Math.max(32, Math.ceil(full / 32) * 32))
    : Math.min(256, Math.max(32, Math.ceil(full / 4 / 32) * 32));
  const t: JacobiTuning = validateGpuTuning(p.gpuTuning).jacobi ?? {};
  const threads = t.threads ?? auto;
  // launch bounds: one block of up to 128 registers per thread for a single basis, else at most
  // 64 per thread (several blocks per multiprocessor)
  const minBlocks = single ? 1 : Math.max(1, Math.floor(1024 / threads));
  const regs = Math.min(255, Math.floor(65536 / (threads * minBlocks) / 8) * 8);
  // G's tiles (GT x GT sums per thread): the smallest that gives every tile a thread, within
  // what the registers hold
  const maxTile = regs >= 128 ? (elt === 4 ? 7 : 5) : elt === 4 ? 5 : 3;
  let tile = 1;
  while (tile < maxTile && (Math.ceil(m / tile) * (Math.ceil(m / tile) + 1)) / 2 > threads) tile++;
  const stageRow = ((Math.ceil(m / tile) * tile) | 1) * elt;
  const gBytes = align16(m * ldg * elt);
  const zBytes = m * m * 8;
  // who runs the rounds (ROUNDS_* in jacobi-kernel.cu): up to 64 pairs the first warp alone ('first-warp', pairs
  // in registers, shuffles); more, a group of whole warps, up to four (a warp per scheduler), no
  // more than the pairs need: 'group-register-players' (the players in registers, one pair per thread; 'group-shared-permutation', the
  // permutation in shared memory, where the group cannot give every pair a thread). Pairs per
  // thread a power of two (fewer modules).
  // 'group-halo' (several rounds per group barrier): the host's choice for a few bases of 33 to 128
  // pairs, where 'first-warp' or 'group-register-players' ran before (larger bases keep 'group-shared-permutation', with G in global memory; not
  // measured). Faster than 'first-warp' at 25 pairs too, not the
  // default there yet: the GPU tests have not run it at that size. W = ceil(half /
  // HALO_PAIRS_PER_WARP) warps (or the tuned group), JL pairs per lane (HALO_LANE_PAIRS unless
  // tuned), JOL = ceil(half / W / JL) owned lanes per warp, JHL = (32 - JOL) / 2 halo lanes either
  // side and JH = JHL JL rounds per barrier (at most HALO_HOPS or the tuned hops), at least one.
  const haloWarps =
    t.group !== undefined ? Math.max(1, Math.floor(t.group / 32)) : Math.ceil(half / HALO_PAIRS_PER_WARP);
  const lanePairs = t.lanePairs ?? HALO_LANE_PAIRS;
  const ownLanes = Math.ceil(Math.ceil(half / haloWarps) / lanePairs);
  const haloLanes = Math.floor((32 - ownLanes) / 2);
  const haloHops = Math.min(t.hops ?? HALO_HOPS, haloLanes * lanePairs, 32);
  const haloOk = haloHops >= 1 && threads >= 32 * haloWarps;
  // ('group-halo' is the default for a few bases, where the rounds' latency is the time; batches keep
  // the choices measured before it)
  const groupMax = t.group ?? Math.min(128, Math.ceil(half / 32) * 32);
  const regsOk = threads >= 32 && Math.min(Math.floor(threads / 32) * 32, groupMax) >= half;
  let rounds: JacobiRounds =
    t.rounds ??
    (single && haloOk && half > 32 && half <= 128
      ? 'group-halo'
      : half <= 64
        ? 'first-warp'
        : regsOk
          ? 'group-register-players'
          : 'group-shared-permutation');
  if (rounds === 'group-halo' && !haloOk) rounds = 'group-register-players';
  if (rounds === 'group-register-players' && !regsOk) rounds = 'group-shared-permutation';
  const halo = rounds === 'group-halo',
    inRegisters = halo || rounds === 'group-register-players';
  const groupThreads = halo ? 32 * haloWarps : groupMax;
  const group =
    threads < 32 ? threads : rounds === 'first-warp' ? 32 : Math.min(Math.floor(threads / 32) * 32, groupThreads);
  const slots = inRegisters ? 1 : 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(half / group))));
  // the register modes' exchange slots (jacobi-kernel.cu): [parity][arr1, arr2][JG] words and as many reals
  const xchBytes = inRegisters ? 16 * groupThreads + 4 * groupThreads * elt : 0;
  const small = HEAD_BYTES + 3 * m * 8 + align16(half * elt) + align16(2 * m * 4 + 2 * half * 4) + 16 + xchBytes;
  const limit = device.sharedPerBlockOptinBytes;
  const stage1 = align16(stageRow);
  const gInShared = small + stage1 + gBytes <= limit;
  const zInShared = gInShared && small + stage1 + gBytes + zBytes <= limit;
  const fixed = small + (gInShared ? gBytes : 0) + (zInShared ? zBytes : 0);
  let rows = Math.max(1, Math.min(STAGE_ROWS, n));
  while (rows > 1 && fixed + align16(rows * stageRow) > limit) rows--;
  const sharedBytes = fixed + align16(rows * stageRow);
  // G = B^T B by jacobi_gram over the device (many blocks) for a few large bases; the block's own
  // gram() otherwise (many bases keep the device busy anyway)
  const preGram = t.preGram ?? (single && m >= 64);
  const gTiles = Math.ceil(m / GRAM_TILE);
  return {
    threads,
    sharedBytes,
    scratchBytesPerBasis: [zInShared ? 0 : zBytes, gInShared && !preGram ? 0 : m * ldg * elt],
    extraArgs: [p.maxIterations, gInShared ? 1 : 0, zInShared ? 1 : 0, rows, preGram ? 1 : 0],
    defines: {
      ...(ROUNDS_DEFINE[rounds] ? { [ROUNDS_DEFINE[rounds]!]: 1 } : {}),
      JG: groupThreads,
      JQ: slots,
      GT: tile,
      JT: threads,
      JB: minBlocks,
      ...(halo ? { JL: lanePairs, JOL: ownLanes, JHL: haloLanes, JH: haloHops } : {}),
    },
    ...(preGram
      ? {
          pre: {
            blocksPerBasis: gTiles * gTiles,
            threads: GRAM_TILE * GRAM_TILE,
            sharedBytes: 2 * GRAM_ROWS * GRAM_TILE * elt,
            scratchIndex: 1,
          },
        }
      : {}),
  };
}

/** The module of jacobi-kernel.cu (defines: the plan's) or gram-kernel.cu (the element type only) for this precision. */
function jacobiModule(
  ctx: CudaContext,
  precision: 'float32' | 'float64',
  url: URL,
  defines: Readonly<Record<string, number>> = {},
) {
  return loadModule(ctx, {
    source: readKernelSource(url),
    name: `jacobi-parallel/${url.pathname.split('/').pop()}`,
    defines: { REAL: precision === 'float32' ? 'float' : 'double', ...defines },
    options: ['-fmad=false'],
  });
}

export const jacobiParallelSpec: LatticeKernelSpec = {
  name: 'jacobi-parallel',
  kernel(ctx, precision, plan) {
    return jacobiModule(ctx, precision, KERNEL_URL, plan.defines).kernel('jacobi_parallel', [
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'ptr',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
      'i32',
    ]);
  },
  preKernel(ctx, precision, _plan) {
    return jacobiModule(ctx, precision, GRAM_URL).kernel('jacobi_gram', ['ptr', 'ptr', 'i32', 'i32']);
  },
  plan: jacobiParallelPlan,
};

/**
 * Reduces `batch` bases (column-major n x m each, back to back in `data`) on the GPU. Returns the
 * reduced bases (same precision as `data`), the transforms Z (batch m x m, B' = B Z) and per-basis
 * counts with kernel and total times. Throws the CPU reducer's typed errors (NON_FINITE,
 * ZERO_VECTOR, ITERATION_LIMIT) naming the basis, and EngineUnavailableError without a device.
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
  return runLatticeBatch(jacobiParallelSpec, data, batch, n, m, params, out);
}
