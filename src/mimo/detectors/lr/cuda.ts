/**
 * The lattice-aided detectors on the GPU (lr-zf, lr-mmse, lr-sic), one factory as on the CPU
 * (detector.ts). Per chunk, four launches on the stream:
 *  1. lr-basis.cu: a thread per channel writes its shifted, scaled (MMSE: extended) real basis in float32;
 *  2. the lattice part's device-level plan of the all-swap LLL (lllCudaPlan: delta 0.75 as
 *     LR_LLL_PARAMS; a thread per basis up to 4x4, a thread block per basis above) gives Z;
 *  3. lr-filter.cu: a thread per channel, in double, the reduced basis B Z, its QR and the
 *     reduced-domain filter, as prepareLr computes them;
 *  4. lr-detect.cu: a thread per vector, in float32, the estimate, rounding, u = Z v, the symbols.
 * The float32 LLL may find another reduced basis than the CPU's float64 LLL (also another
 * algorithm: all-swap rather than sequential), equally LLL-reduced; decisions then legitimately
 * differ on some vectors (test/mimo/gpu-lr.test.ts measures how often and compares the BER).
 */
import { UnsupportedError } from '../../../core/index.js';
import { loadModule, readKernelSource, type CudaContext, type Kernel } from '../../../gpu/index.js';
import { lllCudaPlan, lllLayout, type LllLayout } from '../../../lattice/index.js';
import type {
  CudaDetector,
  CudaDetectorPlan,
  CudaDetectorSetup,
  DetectChunk,
  PlanStage,
} from '../../gpu/cuda-detector.js';
import type { Detector } from '../../types.js';
import { detectorRealModel, type RealModel } from '../../soft/real-model.js';
import { realModelDefines, withSymbolTable } from '../kbest/gpu-model.js';
import { LR_LLL_PARAMS, type LrVariant } from './lattice-aided.js';

/** Largest real dimension count (per-thread arrays of the basis in double). */
const MAX_ND = 32;
const VARIANT_CODE: Record<LrVariant, number> = { zf: 0, mmse: 1, sic: 2 };
const CHANNEL_THREADS = 64,
  VECTOR_THREADS = 128;

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/**
 * Which of the all-swap LLL's kernels reduces the channel bases: 'lane' (a thread per basis) or
 * 'block' (a thread block per basis); by default the lattice half's rule (lane up to LANE_MAX_M
 * columns: 4x4 and smaller; block above: 8x8).
 */
export interface LrTuning {
  lll?: 'lane' | 'block';
}

/** Sizes and defines of one setup (also what the emulator test launches). */
export interface LrShape {
  readonly model: RealModel;
  readonly variant: LrVariant;
  /** Rows of the (extended) basis. */
  readonly nb: number;
  readonly defines: Record<string, string | number>;
  /** The lattice part's LLL for the basis (nb x nd, float32): its workspace, status words and launch. */
  readonly lll: LllLayout;
  /**
   * Scratch regions per channel: Bin, Bout (nb x nd float32), Z (nd x nd double), LLL stats,
   * LLL workspace, P (nd x rows), p0 (nd), R (nd x nd), Zf (nd x nd float32), flags.
   */
  readonly scratchBytesPerChannel: readonly number[];
}

export function lrShape(
  variant: LrVariant,
  setup: Omit<CudaDetectorSetup, 'vectorsPerChannel'>,
  tuning: LrTuning = {},
): LrShape {
  const name = `lr-${variant}` as Detector;
  const model = detectorRealModel(name, setup.constellation, setup.nt, setup.nr);
  const { rows, nd } = model;
  if (nd > MAX_ND) throw new UnsupportedError(`${name} on the GPU takes at most ${MAX_ND} real dimensions, got ${nd}`);
  const nb = variant === 'zf' ? rows : rows + nd;
  const lll = lllLayout(
    { rows: nb, cols: nd, precision: 'float32', params: LR_LLL_PARAMS, ...(tuning.lll ? { kernel: tuning.lll } : {}) },
    setup.device,
  );
  // the lattice part's status words, as the filter kernel reads them
  const defines = {
    ...realModelDefines(model),
    LR_VARIANT: VARIANT_CODE[variant],
    LLL_STATS_WIDTH: lll.status.words,
    LLL_STATUS_WORD: lll.status.statusWord,
    LLL_STATUS_OK: lll.status.ok,
    LLL_STATUS_DEPENDENT: lll.status.dependent,
  };
  const f = (n: number): number => align16(Math.max(n, 1) * 4);
  return {
    model,
    variant,
    nb,
    defines,
    lll,
    scratchBytesPerChannel: [
      f(nb * nd),
      f(nb * nd),
      align16(nd * nd * 8),
      f(lll.status.words),
      lll.scratchBytesPerBasis,
      f(nd * rows),
      f(nd),
      f(nd * nd),
      f(nd * nd),
      f(1),
    ],
  };
}

/** The detector of one variant. */
export function lrCudaDetector(variant: LrVariant, tuning: LrTuning = {}): CudaDetector {
  return {
    name: `lr-${variant}` as Detector,
    soft: false,
    create: (ctx, setup) => createLrPlan(ctx, variant, setup, tuning),
  };
}

function module(ctx: CudaContext, sh: LrShape, file: string, fmad: boolean) {
  return loadModule(ctx, {
    source: withSymbolTable(sh.model, readKernelSource(new URL(`./${file}`, import.meta.url))),
    name: `lr/${file}`,
    defines: sh.defines,
    options: fmad ? [] : ['-fmad=false'],
  });
}

export function createLrPlan(
  ctx: CudaContext,
  variant: LrVariant,
  setup: CudaDetectorSetup,
  tuning: LrTuning = {},
): CudaDetectorPlan {
  const sh = lrShape(variant, setup, tuning);
  const { nd } = sh.model;
  const basis: Kernel = module(ctx, sh, 'lr-basis.cu', false).kernel('lr_basis', [
    'ptr',
    'ptr',
    'ptr',
    'i32',
    'i32',
    'f64',
  ]);
  const filter: Kernel = module(ctx, sh, 'lr-filter.cu', false).kernel('lr_filter', [
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'i32',
    'i32',
    'f64',
  ]);
  const detect: Kernel = module(ctx, sh, 'lr-detect.cu', true).kernel('lr_detect', [
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'i32',
    'i32',
  ]);
  const lll = lllCudaPlan(ctx, {
    rows: sh.nb,
    cols: nd,
    precision: 'float32',
    params: LR_LLL_PARAMS,
    ...(tuning.lll ? { kernel: tuning.lll } : {}),
  });
  type Scratch = [bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint];
  const scratchOf = (chunk: DetectChunk): Scratch => chunk.scratch as Scratch;
  const channelGrid = (chunk: DetectChunk): number => Math.ceil(chunk.channels / CHANNEL_THREADS);
  const stages: PlanStage[] = [
    {
      name: 'basis',
      enqueue(stream, chunk) {
        if (chunk.channels === 0) return;
        const [bin] = scratchOf(chunk);
        basis.launch({ grid: channelGrid(chunk), block: CHANNEL_THREADS, stream }, [
          chunk.H,
          chunk.noise,
          bin,
          chunk.channels,
          chunk.vectorsPerChannel,
          sh.model.scale,
        ]);
      },
    },
    {
      name: 'lll',
      enqueue(stream, chunk) {
        const [bin, bout, z, stats, ws] = scratchOf(chunk);
        lll.enqueue(stream, {
          count: chunk.channels,
          input: bin,
          output: bout,
          transform: z,
          workspace: ws,
          status: stats,
        });
      },
    },
    {
      name: 'filter',
      enqueue(stream, chunk) {
        if (chunk.channels === 0) return;
        const [, , z, stats, , P, p0, R, zf, flags] = scratchOf(chunk);
        filter.launch({ grid: channelGrid(chunk), block: CHANNEL_THREADS, stream }, [
          chunk.H,
          chunk.noise,
          z,
          stats,
          P,
          p0,
          R,
          zf,
          flags,
          chunk.channels,
          chunk.vectorsPerChannel,
          sh.model.scale,
        ]);
      },
    },
    {
      name: 'detect',
      enqueue(stream, chunk) {
        const vectors = chunk.channels * chunk.vectorsPerChannel;
        if (vectors === 0) return;
        const [, , , , , P, p0, R, zf, flags] = scratchOf(chunk);
        detect.launch({ grid: Math.ceil(vectors / VECTOR_THREADS), block: VECTOR_THREADS, stream }, [
          chunk.y,
          chunk.noise,
          P,
          p0,
          R,
          zf,
          flags,
          chunk.symbols,
          chunk.status,
          vectors,
          chunk.vectorsPerChannel,
        ]);
      },
    },
  ];
  return {
    scratchBytesPerChannel: sh.scratchBytesPerChannel,
    stages,
    enqueue(stream, chunk) {
      for (const st of stages) st.enqueue(stream, chunk);
    },
  };
}
