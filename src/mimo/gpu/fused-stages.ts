/**
 * The kernel arguments of the engine's stages that a plan does in its own kernels
 * (CudaDetectorPlan.fuses): the tails that qr-batch.cu, psd-prep.cu (normalize.cuh's stage) and
 * the search kernels (their summary additions) take, read off a chunk, zero where the chunk does
 * not ask for the stage.
 */
import type { DetectChunk } from './cuda-detector.js';

/**
 * normalize.cuh's arguments after H and y, in its order; a null status (0n) means the chunk is
 * normalized already and the kernel does not normalize.
 */
export type NormalizeArgs = readonly [
  noiseIn: bigint,
  noiseScalar: number,
  noiseOut: bigint,
  status: bigint,
  summary: bigint,
  vpc: number,
  valid: number,
];

/** The normalize stage not asked for. */
export const NO_NORMALIZE: NormalizeArgs = [0n, 0, 0n, 0n, 0n, 0, 0];

/** The normalize stage's arguments of a chunk (NO_NORMALIZE unless chunk.normalize is given; the summary heads where chunk.summary is). */
export function normalizeArgs(chunk: DetectChunk): NormalizeArgs {
  const n = chunk.normalize,
    s = chunk.summary;
  if (!n) return NO_NORMALIZE;
  return [
    n.noiseIn,
    n.noiseScalar,
    chunk.noise,
    chunk.status,
    s?.address ?? 0n,
    chunk.vectorsPerChannel,
    s?.realVectors ?? chunk.channels * chunk.vectorsPerChannel,
  ];
}

/** Whether these arguments ask the kernel to normalize. */
export const asksNormalize = (a: NormalizeArgs): boolean => a[3] !== 0n;

/** The summary additions' arguments of a chunk: [summary, real vectors], [0n, 0] unless chunk.summary is given. */
export function summaryArgs(chunk: DetectChunk): readonly [summary: bigint, real: number] {
  return [chunk.summary?.address ?? 0n, chunk.summary?.realVectors ?? 0];
}
