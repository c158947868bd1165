/**
 * The lattice part's device-level plan, for another part's kernels that need bases reduced on the
 * device in the middle of their own stream (the lattice-aided detectors reduce one basis per
 * channel between their basis and filter kernels). As coding's ldpcCudaPlan, it is made once for a
 * shape and enqueued per chunk on the caller's stream and buffers:
 *
 *   const lll = lllCudaPlan(ctx, { rows: nb, cols: nd, precision: 'float32', params });
 *   // per channel of a chunk: lll.scratchBytesPerBasis of workspace, lll.status.words int32 of status
 *   lll.enqueue(stream, { count, input, output, transform, workspace, status });
 *
 * It runs the all-swap LLL (CR-AS-LLL): one thread per basis up to LANE_MAX_M columns (lane-kernel.cu,
 * 32 bases a warp), a thread block per basis above (block-kernel.cu or column-kernel.cu). Device
 * layouts, per basis b of a chunk (column-major):
 *  - input:     rows x cols in the working precision, read only;
 *  - output:    rows x cols, the kernel's reduced working basis;
 *  - transform: cols x cols doubles, the unimodular Z with output = input Z (up to rounding);
 *  - workspace: scratchBytesPerBasis bytes, device only;
 *  - status:    status.words int32: [iterations, swaps, sizeReductions, status, detail]; a status
 *               word other than status.ok means the basis is not reduced (status.dependent: its
 *               columns were found dependent).
 */
import type { CudaContext, DeviceProperties, Kernel, Stream } from '../../gpu/index.js';
import type { AlgoParams } from '../types.js';
import { allswapBlockPlan, allswapLanePlan, allswapSpec, LANE_MAX_M } from '../allswap/cuda.js';
import { STATS_WIDTH, STATUS } from './status.js';
import type { LaunchPlan } from './batch.js';

/** The shape a plan reduces and how. */
export interface LllPlanShape {
  /** Rows n of each basis. */
  readonly rows: number;
  /** Columns m <= rows of each basis. */
  readonly cols: number;
  /** The working precision of input and output. */
  readonly precision: 'float32' | 'float64';
  /** delta, eta, maxIterations (blockSize is not used). */
  readonly params: AlgoParams;
  /** 'lane' (a thread per basis) or 'block' (a block per basis); default: lane up to LANE_MAX_M columns. */
  readonly kernel?: 'lane' | 'block';
}

/** Device addresses of one chunk of `count` bases (layouts in the file comment). */
export interface LllChunk {
  readonly count: number;
  readonly input: bigint;
  readonly output: bigint;
  readonly transform: bigint;
  readonly workspace: bigint;
  readonly status: bigint;
}

/** What the status words of a basis mean, for the caller's kernels that read them. */
export interface LllStatusLayout {
  /** int32 words a basis. */
  readonly words: number;
  /** Index of the status word among them. */
  readonly statusWord: number;
  /** Its value for a reduced basis. */
  readonly ok: number;
  /** Its value for a basis whose columns are dependent (a zero vector appeared). */
  readonly dependent: number;
}

/** What a plan needs of the device and gives its caller, before anything is compiled. */
export interface LllLayout {
  /** Device workspace a basis needs, in bytes (a multiple of 16). */
  readonly scratchBytesPerBasis: number;
  readonly status: LllStatusLayout;
  /** The launch plan (the kernel's variant and arguments), for tests that replay it. */
  readonly launch: LaunchPlan;
}

/** A compiled all-swap LLL for one shape, enqueued on the caller's stream. */
export interface LllCudaPlan extends LllLayout {
  /** Enqueues the reduction of the chunk's bases on `stream`; no host synchronisation. */
  enqueue(stream: Stream, chunk: LllChunk): void;
}

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/** The layout of `shape`'s plan on a device with these properties (nothing compiled: callers size their buffers with it). */
export function lllLayout(shape: LllPlanShape, device: DeviceProperties): LllLayout {
  const { rows: n, cols: m, precision, params } = shape;
  const kind = shape.kernel ?? (m <= LANE_MAX_M ? 'lane' : 'block');
  const launch =
    kind === 'lane'
      ? allswapLanePlan(n, m, precision, params, device)
      : allswapBlockPlan(n, m, precision, params, device);
  return {
    scratchBytesPerBasis: align16(Math.max(16, launch.scratchBytesPerBasis[0] ?? 0)),
    status: { words: STATS_WIDTH, statusWord: 3, ok: STATUS.OK, dependent: STATUS.ZERO_VECTOR },
    launch,
  };
}

/** The all-swap LLL's device-level plan for `shape` (see the file comment). */
export function lllCudaPlan(ctx: CudaContext, shape: LllPlanShape): LllCudaPlan {
  const { rows: n, cols: m, precision } = shape;
  const layout = lllLayout(shape, ctx.props);
  const plan = layout.launch;
  const lane = plan.variant === 'lane';
  const L = lane ? (plan.basesPerBlock ?? 1) : 1;
  const kernel: Kernel = allswapSpec.kernel(ctx, precision, plan);
  if (plan.sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(plan.sharedBytes);
  const wsPerBasis = plan.scratchBytesPerBasis[0] ?? 0;
  // the specialised lane module runs whole blocks of L bases; when its workspace lies in global
  // scratch (interleaved per block of L), a last partial block goes to the generic module with a
  // block of just the remaining bases, so that no block reaches past the chunk's scratch
  const generic = lane && wsPerBasis > 0 ? allswapSpec.kernel(ctx, precision, { ...plan, defines: undefined }) : null;
  if (generic && plan.sharedBytes > 48 * 1024) generic.setMaxDynamicShared(plan.sharedBytes);
  const sharedPerBasis = plan.sharedBytes / L;
  const elt = BigInt(n * m * (precision === 'float32' ? 4 : 8));
  const zBytes = BigInt(m * m * 8);
  const statusBytes = BigInt(STATS_WIDTH * 4);
  return {
    ...layout,
    enqueue(stream, c) {
      if (c.count === 0) return;
      if (!lane) {
        // the block kernel expects its status words zeroed
        stream.fill(c.status, c.count * STATS_WIDTH * 4);
        kernel.launch({ grid: c.count, block: plan.threads as number, sharedBytes: plan.sharedBytes, stream }, [
          c.input,
          c.output,
          c.transform,
          c.workspace,
          c.status,
          n,
          m,
          ...plan.extraArgs,
        ]);
        return;
      }
      const full = generic ? Math.floor(c.count / L) * L : c.count;
      if (full > 0) {
        kernel.launch({ grid: Math.ceil(full / L), block: L, sharedBytes: plan.sharedBytes, stream }, [
          c.input,
          c.output,
          c.transform,
          c.workspace,
          c.status,
          n,
          m,
          ...plan.extraArgs,
          full,
        ]);
      }
      const rest = c.count - full;
      if (generic && rest > 0) {
        const b = BigInt(full);
        generic.launch({ grid: 1, block: rest, sharedBytes: sharedPerBasis * rest, stream }, [
          c.input + b * elt,
          c.output + b * elt,
          c.transform + b * zBytes,
          // the lane kernel lays a block's workspace out as L bases of wsPerBasis bytes
          c.workspace + b * BigInt(wsPerBasis),
          c.status + b * statusBytes,
          n,
          m,
          ...plan.extraArgs,
          rest,
        ]);
      }
    },
  };
}
