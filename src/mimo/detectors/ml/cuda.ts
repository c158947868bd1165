/**
 * Exhaustive ML on the GPU (float32): gram-kernel.cu forms G = H^H H once per channel into the
 * plan's scratch, ml-kernel.cu scores every hypothesis of a vector with ML_GROUP lanes of a warp
 * (the same expanded metric, tree order and tie rule as cpu.ts) and reduces them to the ML symbols
 * and, when asked, max-log or exact log-MAP LLRs (float32-safe: each side's sum is taken relative
 * to its own least metric). Sizes as cpu.ts: M^nt over the node budget is a NodeBudgetError.
 *
 * A-priori LLRs (DetectChunk.prior, IDD): a chunk that carries them runs the kernel's ML_PRIOR build
 * (compiled at the first such chunk): each hypothesis's metric gains its a-priori cost N0 sum_b c_b
 * L_a(b) (cpu.ts's setPrior), so the decision is the MAP vector, and the LLRs are extrinsic; a chunk
 * without runs the prior-free build, as before. The kernel has no float64 counterpart: the engine
 * redoes a prior-carrying batch's flagged vectors on the CPU engine with their priors
 * (detect-batch.ts's FlaggedVectors).
 */
import { UnsupportedError } from '../../../core/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../../gpu/index.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup, DetectChunk } from '../../gpu/cuda-detector.js';
import { checkMlSize } from './cpu.js';

/** Threads of an ml_detect block (whole warps; ML_GROUP lanes a vector). */
export const ML_BLOCK = 128;

/** Largest bits a hypothesis index (nt * bitsPerSymbol) the kernel's int32 indices carry. */
export const ML_MAX_INDEX_BITS = 30;

/** Lanes sharing one vector: the prefixes (hypotheses of streams nt-1 .. 1) up to a warp. */
export function mlGroup(nt: number, bitsPerSymbol: number): number {
  const prefixBits = bitsPerSymbol * (nt - 1);
  return 1 << Math.min(5, prefixBits);
}

/**
 * The -D defines of ml_detect for a setup: sizes, the group and the soft mode (0 none, 1 max-log,
 * 2 log-MAP); `priors`: the ML_PRIOR build, which reads the chunk's a-priori LLRs.
 */
export function mlDefines(
  nt: number,
  nr: number,
  bitsPerSymbol: number,
  soft: 0 | 1 | 2,
  priors = false,
): Record<string, number> {
  return {
    ML_NT: nt,
    ML_NR: nr,
    ML_BPS: bitsPerSymbol,
    ML_GROUP: mlGroup(nt, bitsPerSymbol),
    ML_SOFT: soft,
    ...(priors ? { ML_PRIOR: 1 } : {}),
  };
}

export const cudaDetector: CudaDetector = {
  name: 'ml',
  soft: true,
  create(ctx: CudaContext, setup: CudaDetectorSetup): CudaDetectorPlan {
    const { nt, nr, constellation: con } = setup;
    checkMlSize(nt, con, setup.maxNodes);
    const bps = con.bitsPerSymbol;
    if (nt * bps > ML_MAX_INDEX_BITS) {
      throw new UnsupportedError(
        `ml on the GPU indexes hypotheses in 32 bits: ${con.size}^${nt} = 2^${nt * bps} hypotheses per vector is over 2^${ML_MAX_INDEX_BITS}; use 'sphere' or 'psd' (also exact ML) or the CPU engine`,
        { detector: 'ml', nt, bitsPerSymbol: bps },
      );
    }
    const soft: 0 | 1 | 2 = !setup.soft ? 0 : setup.opts.soft === 'logmap' ? 2 : 1;
    const defines = mlDefines(nt, nr, bps, soft);
    const gram = loadModule(ctx, {
      source: readKernelSource(new URL('./gram-kernel.cu', import.meta.url)),
      name: 'ml/gram-kernel.cu',
      defines: { ML_NT: nt, ML_NR: nr },
    }).kernel('ml_gram', ['ptr', 'ptr', 'i32']);
    const loadDetect = (priors: boolean): Kernel =>
      loadModule(ctx, {
        source: readKernelSource(new URL('./ml-kernel.cu', import.meta.url)),
        name: 'ml/ml-kernel.cu',
        defines: mlDefines(nt, nr, bps, soft, priors),
      }).kernel('ml_detect', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'f32', 'ptr']);
    const detect = loadDetect(false);
    // the ML_PRIOR build, compiled at the first chunk with priors
    let detectPrior: Kernel | null = null;
    const group = defines.ML_GROUP!;
    const llrClip = Math.min(setup.llrClip, 3.0e38);
    const gramStage = (stream: Stream, chunk: DetectChunk): void => {
      gram.launch({ grid: Math.ceil(chunk.channels / 128), block: 128, stream }, [
        chunk.H,
        chunk.scratch[0]!,
        chunk.channels,
      ]);
    };
    const detectStage = (stream: Stream, chunk: DetectChunk): void => {
      const vectors = chunk.channels * chunk.vectorsPerChannel;
      const prior = chunk.prior ?? 0n;
      const kernel = prior !== 0n ? (detectPrior ??= loadDetect(true)) : detect;
      kernel.launch({ grid: Math.ceil((vectors * group) / ML_BLOCK), block: ML_BLOCK, stream }, [
        chunk.scratch[0]!,
        chunk.H,
        chunk.y,
        chunk.noise,
        chunk.symbols,
        soft ? chunk.llr : 0n,
        chunk.status,
        vectors,
        chunk.vectorsPerChannel,
        llrClip,
        prior,
      ]);
    };
    return {
      scratchBytesPerChannel: [2 * nt * nt * 4],
      enqueue(stream: Stream, chunk: DetectChunk): void {
        gramStage(stream, chunk);
        detectStage(stream, chunk);
      },
      stages: [
        { name: 'gram', enqueue: gramStage },
        { name: 'detect', enqueue: detectStage },
      ],
    };
  },
};
