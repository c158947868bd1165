/**
 * K-best on the GPU: kbest-prep.cu factors each channel (MRVD, SQRD in double as the CPU does, so
 * the detection order is the CPU engine's), kbest-search.cu searches each received vector with a
 * group of threads (sorting children by the CPU's (metric, child index) rule) and writes the best
 * survivor's symbols and the list's max-log LLRs, in float32.
 * Scratch per channel: Q (rows x nd float32), R (nd x nd float32), [flags, perm[nd]] (int32).
 *
 * Against the CPU engine on the same float32 input, every tree node's metric lies within a bound
 * delta of the CPU's (test/mimo/kbest-float32-bound.ts): where no pruned level keeps a child whose
 * metric + delta reaches a cut child's metric - delta, both lists are the same, the decisions too
 * unless another leaf lies that close to the best, and each LLR is within
 * T = (1 + 8u)(D0 + D1) / N0 + 4u |LLR| (u = 2^-24 + 2^-53; D_w the bound of the leaves that may be
 * the least with bit value w); elsewhere an LLR may differ by up to twice the clip (docs/API.md).
 *
 * A-priori LLRs (DetectChunk.prior, IDD): a chunk that carries them runs the search's KB_PRIOR build
 * (compiled at the first such chunk, its own shared layout and launch shape): each vector's
 * a-priori level costs (cpu.ts's LevelPriors, float32) in every child's metric, so the survivors
 * are ranked on distance plus cost, and extrinsic LLRs; a chunk without runs the prior-free build,
 * as before. The proven bound then also counts the costs' float32 rounding
 * (test/mimo/kbest-float32-bound.ts). There is no float64 kernel: a prior-carrying batch's flagged
 * vectors are redone on the CPU engine with their priors (detect-batch.ts's FlaggedVectors).
 */
import { InvalidArgumentError, NodeBudgetError, UnsupportedError } from '../../../core/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource } from '../../../gpu/index.js';
import type {
  CudaDetector,
  CudaDetectorPlan,
  CudaDetectorSetup,
  DetectChunk,
  PlanStage,
} from '../../gpu/cuda-detector.js';
import { llrClipOf } from '../../soft/maxlog.js';
import { detectorRealModel, type RealModel } from '../../soft/real-model.js';
import { kbestNodes, kOf } from './cpu.js';
import { align16, realModelDefines, withSymbolTable } from './gpu-model.js';

/** Largest real dimension count the kernels take (levels are bytes, per-thread QR arrays). */
const MAX_ND = 32;
/** Largest children per level the search sorts in shared memory. */
const MAX_CHILDREN = 8192;

/** Launch shape of the search: threads per vector (32: a warp each, several per block; more: one vector per block). */
export interface KbestTuning {
  threadsPerVector?: 32 | 64 | 128 | 256 | 512;
}

/** Shared-memory bytes of one vector's group (kbest-search.cu: KB_LAYOUT_BYTES; `priorQ` > 0: the KB_PRIOR build's cost table). */
function groupBytes(cpad: number, tpv: number, k: number, nd: number, nt: number, priorQ = 0): number {
  return align16(cpad * 8 + tpv * 8 + 2 * k * 4 + nd * 4 + nd * priorQ * 4 + 2 * k * nd + k * nt);
}

/** What a plan is made of: the modules' defines and the launch shape (also what the emulator test launches). */
export interface KbestShape {
  readonly model: RealModel;
  readonly k: number;
  readonly scale: number;
  readonly prepDefines: Record<string, string | number>;
  readonly searchDefines: Record<string, string | number>;
  readonly threadsPerVector: number;
  readonly vectorsPerBlock: number;
  readonly sharedBytes: number;
  readonly clip: number;
  readonly scratchBytesPerChannel: readonly number[];
}

/**
 * Checks the setup (the CPU's errors, the GPU's limits) and decides defines and launch shape;
 * `priors`: the search's KB_PRIOR build (reads the chunk's a-priori LLRs; a cost table a group).
 */
export function kbestShape(
  setup: Omit<CudaDetectorSetup, 'vectorsPerChannel'>,
  tuning: KbestTuning = {},
  priors = false,
): KbestShape {
  const model = detectorRealModel('kbest', setup.constellation, setup.nt, setup.nr);
  const { rows, nd, q } = model;
  const k = Math.min(kOf(setup.opts.k), q ** nd);
  const work = kbestNodes(k, nd, q);
  if (work > setup.maxNodes) {
    throw new NodeBudgetError(
      `kbest with K = ${k} visits ${work} nodes per vector, over the node budget maxNodes = ${setup.maxNodes}; lower k or raise maxNodes`,
      { detector: 'kbest', maxNodes: setup.maxNodes, nodes: work },
    );
  }
  if (nd > MAX_ND) throw new UnsupportedError(`kbest on the GPU takes at most ${MAX_ND} real dimensions, got ${nd}`);
  // Most children of a level: every survivor's q children.
  let maxChildren = 0,
    survivors = 1;
  for (let i = 0; i < nd; i++) {
    maxChildren = Math.max(maxChildren, survivors * q);
    survivors = Math.min(k, survivors * q);
  }
  if (maxChildren > MAX_CHILDREN)
    throw new UnsupportedError(
      `kbest on the GPU sorts at most ${MAX_CHILDREN} children per level (K x Q), got K = ${k} x Q = ${q}`,
    );
  let cpad = 2;
  while (cpad < maxChildren) cpad *= 2;
  const tpv = tuning.threadsPerVector ?? Math.min(256, Math.max(32, 2 ** Math.ceil(Math.log2(cpad / 8))));
  if (![32, 64, 128, 256, 512].includes(tpv))
    throw new InvalidArgumentError(`threadsPerVector must be 32, 64, 128, 256 or 512, got ${tpv}`);
  const gb = groupBytes(cpad, tpv, k, nd, setup.nt, priors ? q : 0);
  const limit = setup.device.sharedPerBlockOptinBytes;
  if (gb > limit)
    throw new UnsupportedError(
      `kbest with K = ${k} needs ${gb} bytes of shared memory per vector, the device allows ${limit} per block`,
    );
  // Warps of one vector each: as many per block as fit 48 KiB (up to 8).
  const vpb = tpv > 32 ? 1 : Math.max(1, Math.min(8, Math.floor((48 * 1024) / gb)));
  const clip = Math.min(llrClipOf(setup.opts.llrClip), setup.llrClip);
  const prepDefines = { ...realModelDefines(model), PREP_LANES: prepLanes(nd) };
  return {
    model,
    k,
    scale: model.scale,
    prepDefines,
    searchDefines: {
      ...prepDefines,
      KB: k,
      CPAD: cpad,
      TPV: tpv,
      VPB: vpb,
      GROUP_BYTES: gb,
      ...(priors ? { KB_PRIOR: 1 } : {}),
    },
    threadsPerVector: tpv,
    vectorsPerBlock: vpb,
    sharedBytes: vpb * gb,
    clip,
    scratchBytesPerChannel: [rows * nd * 4, nd * nd * 4, (1 + nd) * 4],
  };
}

/** Threads per block of kbest-prep.cu. */
export const KBEST_PREP_THREADS = 128;

/** Lanes of kbest-prep.cu a channel: a lane a real dimension, rounded up to a power of two (nd <= 32). */
const prepLanes = (nd: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, nd)));

/** kbest-prep.cu's launch for `channels` channels of `nd` real dimensions. */
export function kbestPrepLaunch(channels: number, nd: number): { grid: number; block: number } {
  return { grid: Math.ceil((channels * prepLanes(nd)) / KBEST_PREP_THREADS), block: KBEST_PREP_THREADS };
}

/** The plan with an explicit tuning (the bench compares launch shapes; cudaDetector uses the default). */
export function createKbestPlan(
  ctx: CudaContext,
  setup: CudaDetectorSetup,
  tuning: KbestTuning = {},
): CudaDetectorPlan {
  const sh = kbestShape(setup, tuning);
  const prepMod = loadModule(ctx, {
    source: withSymbolTable(sh.model, readKernelSource(new URL('./kbest-prep.cu', import.meta.url))),
    name: 'kbest/kbest-prep.cu',
    defines: sh.prepDefines,
    options: ['-fmad=false'],
  });
  const prep: Kernel = prepMod.kernel('kbest_prep', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'f64']);
  const loadSearch = (shape: KbestShape): Kernel => {
    const searchMod = loadModule(ctx, {
      source: withSymbolTable(shape.model, readKernelSource(new URL('./kbest-search.cu', import.meta.url))),
      name: 'kbest/kbest-search.cu',
      defines: shape.searchDefines,
    });
    const kernel = searchMod.kernel('kbest_search', [
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
      'f32',
      'ptr',
    ]);
    if (shape.sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(shape.sharedBytes);
    return kernel;
  };
  const search = loadSearch(sh);
  // the KB_PRIOR build and its launch shape, made at the first chunk with priors
  let priorSearch: { kernel: Kernel; shape: KbestShape } | null = null;
  const scratchOf = (chunk: DetectChunk): [bigint, bigint, bigint] => chunk.scratch as [bigint, bigint, bigint];
  const stages: PlanStage[] = [
    {
      name: 'qr',
      enqueue(stream, chunk) {
        if (chunk.channels === 0) return;
        const [Q, R, info] = scratchOf(chunk);
        prep.launch({ ...kbestPrepLaunch(chunk.channels, sh.model.nd), stream }, [
          chunk.H,
          Q,
          R,
          info,
          chunk.channels,
          sh.scale,
        ]);
      },
    },
    {
      name: 'detect',
      enqueue(stream, chunk) {
        const vectors = chunk.channels * chunk.vectorsPerChannel;
        if (vectors === 0) return;
        const [Q, R, info] = scratchOf(chunk);
        const prior = chunk.prior ?? 0n;
        if (prior !== 0n && !priorSearch) {
          const shape = kbestShape(setup, tuning, true);
          priorSearch = { kernel: loadSearch(shape), shape };
        }
        const { kernel, shape } = prior !== 0n && priorSearch ? priorSearch : { kernel: search, shape: sh };
        const vpb = shape.vectorsPerBlock;
        kernel.launch(
          {
            grid: Math.ceil(vectors / vpb),
            block: shape.threadsPerVector * vpb,
            sharedBytes: shape.sharedBytes,
            stream,
          },
          [
            chunk.y,
            chunk.noise,
            Q,
            R,
            info,
            chunk.symbols,
            setup.soft ? chunk.llr : 0n,
            chunk.status,
            vectors,
            chunk.vectorsPerChannel,
            sh.clip,
            prior,
          ],
        );
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

export const cudaDetector: CudaDetector = {
  name: 'kbest',
  soft: true,
  create: (ctx, setup) => createKbestPlan(ctx, setup),
};
