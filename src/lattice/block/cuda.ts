/**
 * MB-LLL and CR-MB-LLL (the block reducers of the CR-MB-LLL paper, Section 3.2) on the GPU, the
 * *-kernel.cu files beside this one (device code in block-device.cuh), equal bit for bit to
 * blockCpu / crBlockCpu (-fmad=false). Two schedulings (AlgoParams.gpuTuning.block.scheduling):
 *  - 'persistent' (default): one kernel, one thread block per basis looping over its block rounds
 *    on the device (the paper's dynamic-parallelism scheduling of Fig. 1 without child launches);
 *    runs through the shared batch runner (chunks, pinned staging, streams). A few large bases
 *    (allswap/grid.ts: gridSuitsBatch, sub-bases of at most GRID_BLOCK_MAX_SIZE columns) go to the
 *    whole-device kernel's block mode instead (allswap/grid-kernel.cu): every sub-basis on its own
 *    multiprocessor, the boundaries over the grid. That one is not bit-identical to the CPU
 *    reference (its sums run over warps); its outputs are proven by the checks instead.
 *  - 'host-streams': Algorithm 3 / Fig. 2, a host loop over CUDA streams (gpu-host-streams.ts).
 */
import type { AlgoParams } from '../types.js';
import { type DeviceProperties, loadModule, readKernelSource, type CudaContext, type Kernel } from '../../gpu/index.js';
import {
  runLatticeBatch,
  type CudaBatchOutputs,
  type CudaBatchResult,
  type LatticeKernelSpec,
  type LaunchPlan,
  type RealArray,
} from '../gpu/batch.js';
import { InvalidArgumentError } from '../../core/index.js';
import { validateGpuTuning } from '../gpu-tuning.js';
import { precisionReductionBound } from '../lll/gso.js';
import { runHostStreams } from './gpu-host-streams.js';
import { allswapGridPlan, gridKernel, gridSuitsBatch } from '../allswap/grid.js';

/** The kernels, one per file: block_persistent in persistent-kernel.cu, block_init in init-kernel.cu, ... */
export type BlockKernelName = 'block_persistent' | 'block_init' | 'block_sub' | 'block_rest';

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/** Bytes of one scratch region (per sub-basis), as block-device.cuh's region_bytes. */
export function blockRegionBytes(m: number): number {
  const slots = Math.max(m, 2);
  return align16(18 * slots * 8 + 16 + 16 + slots * 4);
}

/** Columns per sub-basis and their number, as blockCpu's setup. */
export function subBases(m: number, blockSize: number): { size: number; count: number } {
  const size = Math.min(blockSize, m);
  return { size, count: Math.ceil(m / size) };
}

/** Global scratch of one basis, in the order block-device.cuh's carve lays it out (256-byte multiple). */
export function blockWorkspaceBytes(n: number, m: number, elt: number, blockSize: number): number {
  const { count } = subBases(m, blockSize);
  const slots = Math.max(m, 2);
  const bytes =
    3 * m * m * 8 +
    16 +
    count * 8 +
    count * blockRegionBytes(m) +
    5 * align16(n * m * elt) +
    align16(m * m * elt) +
    align16(slots * elt) +
    (10 + 6 * count) * 4;
  return Math.ceil(bytes / 256) * 256;
}

/** Typed errors for parameters the kernels rely on (the CPU reference throws the same). */
export function checkBlockParams(name: string, p: AlgoParams): void {
  if (!Number.isInteger(p.blockSize) || p.blockSize < 2) {
    throw new InvalidArgumentError(`${name}: blockSize must be an integer >= 2, got ${p.blockSize}`);
  }
  if (!(p.delta > 0.25 && p.delta < 1))
    throw new InvalidArgumentError(`${name}: delta must be in (0.25, 1), got ${p.delta}`);
  if (!(p.eta >= 0.5 && p.eta < Math.sqrt(p.delta)))
    throw new InvalidArgumentError(`${name}: eta must be in [0.5, sqrt(delta)), got ${p.eta}`);
}

/** Threads of a per-basis block (m columns) or of a per-sub-basis block (size columns), unless tuned. */
export function blockThreads(cols: number, tuned?: number): number {
  return tuned ?? Math.min(1024, Math.max(32, Math.ceil((6 * cols) / 32) * 32));
}

/** Kernel arguments after (n, m): maxIterations, delta, bound, size, mb, wsBytes. */
export function blockExtraArgs(
  n: number,
  m: number,
  precision: 'float32' | 'float64',
  p: AlgoParams,
  mb: boolean,
): [number, number, number, number, number, number] {
  const elt = precision === 'float32' ? 4 : 8;
  const bound = precisionReductionBound(p.eta, precision);
  return [
    p.maxIterations,
    p.delta,
    bound,
    subBases(m, p.blockSize).size,
    mb ? 1 : 0,
    blockWorkspaceBytes(n, m, elt, p.blockSize),
  ];
}

/** The module of one kernel (its file, e.g. block_sub: sub-kernel.cu) for this precision. */
export function blockModule(ctx: CudaContext, precision: 'float32' | 'float64', kernel: BlockKernelName) {
  const file = `${kernel.slice('block_'.length)}-kernel.cu`;
  return loadModule(ctx, {
    source: readKernelSource(new URL(`./${file}`, import.meta.url)),
    name: `block/${file}`,
    defines: { REAL: precision === 'float32' ? 'float' : 'double' },
    options: ['-fmad=false'],
  });
}

const TAIL = ['i32', 'i32', 'i32', 'f64', 'f64', 'i32', 'i32', 'i32'] as const;

/** The host-stream kernels (block_init, block_sub, block_rest): Bin, Bout, Zout, ws, stats, active, exch, n, m, ... */
export function hostStreamKernel(
  ctx: CudaContext,
  precision: 'float32' | 'float64',
  name: 'block_init' | 'block_sub' | 'block_rest',
): Kernel {
  return blockModule(ctx, precision, name).kernel(name, ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', ...TAIL]);
}

function persistentSpec(name: 'block' | 'cr-block', mb: boolean): LatticeKernelSpec {
  return {
    name,
    kernel: (ctx, precision, plan) =>
      plan.variant === 'grid'
        ? gridKernel(ctx, precision, plan)
        : blockModule(ctx, precision, 'block_persistent').kernel('block_persistent', [
            'ptr',
            'ptr',
            'ptr',
            'ptr',
            'ptr',
            ...TAIL,
          ]),
    plan(
      n: number,
      m: number,
      precision: 'float32' | 'float64',
      p: AlgoParams,
      device: DeviceProperties,
      batch: number,
    ): LaunchPlan {
      const tuned = p.gpuTuning?.block?.kernel;
      if (tuned === 'grid' || (tuned === undefined && gridSuitsBatch(m, batch))) {
        const grid = allswapGridPlan(n, m, precision, p, device, { algorithm: name, size: p.blockSize });
        if (grid) return grid;
      }
      const extra = blockExtraArgs(n, m, precision, p, mb);
      return {
        variant: 'persistent',
        threads: blockThreads(m, p.gpuTuning?.block?.threads),
        sharedBytes: 0,
        scratchBytesPerBasis: [extra[5]],
        extraArgs: extra,
      };
    },
  };
}

const SPECS = { block: persistentSpec('block', true), 'cr-block': persistentSpec('cr-block', false) };

async function reduce<A extends RealArray>(
  name: 'block' | 'cr-block',
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  checkBlockParams(name, params);
  validateGpuTuning(params.gpuTuning);
  if (params.gpuTuning?.block?.scheduling === 'host-streams')
    return runHostStreams(name, name === 'block', data, batch, n, m, params, out);
  return runLatticeBatch(SPECS[name], data, batch, n, m, params, out);
}

/**
 * Reduces `batch` bases (column-major n x m each, back to back) with CR-MB-LLL on the GPU: the
 * reduced bases, the transforms Z (B' = B Z) and per-basis counts (iterations = block rounds),
 * equal to crBlockCpu's. Throws crBlockCpu's typed errors naming the basis, and
 * EngineUnavailableError without a device.
 */
export function reduceBatchCudaCrBlock<A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  return reduce('cr-block', data, batch, n, m, params, out);
}

/** MB-LLL on the GPU, equal to blockCpu's result; as reduceBatchCudaCrBlock otherwise. */
export function reduceBatchCudaBlock<A extends RealArray>(
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  return reduce('block', data, batch, n, m, params, out);
}
