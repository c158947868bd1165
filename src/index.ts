/** lattice-mimo: the public API. */
export * from './core/errors.js';
export * from './core/matrix.js';
export { Philox, philox4x32 } from './core/rng.js';
export { reduce, reduceSync, checkBasis, type ReduceResult, type ReduceStats, type BasisCheck } from './lattice/reduce.js';
export { ALGORITHMS, type Algorithm, type AlgoParams, type BasisStats, type ReduceOptions, type Engine } from './lattice/types.js';
export {
  checkLLL, checkLagrangePairs, checkUnimodular, applyTransform, qualityMetrics, gramSchmidt,
  type LLLCheck, type LagrangeCheck, type UnimodularCheck, type QualityMetrics,
} from './lattice/check.js';
export { checkLLLExact, type ExactLLLCheck } from './lattice/exact-lll.js';
// The GPU engine calls behind reduce(), for repeated batches of one shape: raw transforms, no check,
// outputs into the caller's reused arrays (CudaBatchOutputs)
export { reduceBatchCuda as allswapBatchCuda } from './lattice/allswap/cuda.js';
export { reduceBatchCuda as jacobiParallelBatchCuda } from './lattice/jacobi-parallel/cuda.js';
export type { CudaBatchOutputs, CudaBatchResult, CudaBatchStats } from './lattice/gpu/batch.js';
export { hostBatch } from './lattice/host-batch.js';
export { gaussianBases, blockToeplitzBases, integerScale } from './lattice/generators.js';
export { parseFplll, parseFplllBasis, formatFplll, parseBasisJson, formatBasisJson } from './lattice/fplll-format.js';
export * from './sim/index.js';
export * from './mimo/index.js';
