/**
 * The lattice part's public API: reduce() and its options and results, the checks and quality
 * metrics on their own, generators, fplll's format, and the GPU engine calls for repeated batches.
 * Per-algorithm reducers, kernel plans and tuning objects stay internal.
 */
export { reduce, reduceSync, reduceEngine, type ReduceResult, type ReduceStats, type BasisCheck } from './reduce.js';
export {
  ALGORITHMS,
  type Algorithm,
  type AlgoParams,
  type BasisStats,
  type ReduceOptions,
  type Engine,
} from './types.js';
export {
  checkLLL,
  checkLagrangePairs,
  checkUnimodular,
  applyTransform,
  qualityMetrics,
  gramSchmidt,
  type LLLCheck,
  type LagrangeCheck,
  type UnimodularCheck,
  type QualityMetrics,
  type GramSchmidt,
} from './check.js';
export { checkLLLExact, type ExactLLLCheck } from './exact-lll.js';
export { rebuildTransform, type ExactTransform } from './exact-transform.js';
export { allswapBatchCuda, jacobiParallelBatchCuda } from './engine-calls.js';
export { REDUCE_SCHEMA, ENGINE_CALL_SCHEMA, type EngineCallParams } from './validate.js';
export { GPU_TUNING_SCHEMA } from './gpu-tuning.js';
export { ALGORITHM_REGISTRY, type AlgorithmTraits, type AlgorithmParam } from './registry.js';
export type { CountTotals, CudaBatchOutputs, CudaBatchResult, CudaBatchStats } from './gpu/batch.js';
export { hostBatch, type HostBatchShape } from './host-batch.js';
export {
  lllIntegral,
  INTEGRAL_LLL_SCHEMA,
  RUNGS,
  type Rung,
  type IntegralLLLOptions,
  type IntegralLLLResult,
  type RungOutcome,
  type LadderProgress,
} from './precision/ladder.js';
export type {
  GpuTuning,
  AllswapTuning,
  JacobiTuning,
  BlockTuning,
  BatchTuning,
  WorkspaceMemory,
  JacobiRounds,
} from './gpu-tuning.js';
export {
  gaussianBases,
  blockToeplitzBases,
  integerScale,
  type GaussianBasesOptions,
  type BlockToeplitzOptions,
} from './generators.js';
export {
  parseFplll,
  parseFplllBasis,
  formatFplll,
  parseBasisJson,
  formatBasisJson,
  type ParsedMatrix,
  type BasisLike,
  type FormatOptions,
} from './fplll-format.js';
// For other parts' kernels and loops: the device-level plan of the all-swap LLL (enqueued on the
// caller's stream and buffers) and the sequential LLL on one basis in place (no proof: reduce() proves).
export {
  lllCudaPlan,
  lllLayout,
  type LllCudaPlan,
  type LllLayout,
  type LllPlanShape,
  type LllChunk,
  type LllStatusLayout,
} from './gpu/lll-plan.js';
export { lllCpu as lllInPlace } from './lll/cpu.js';
// The same LLL on many small float64 bases at once (count x n x m in, count x m x m transforms out),
// on the WebAssembly kernel where the runtime has SIMD and the reference elsewhere: equal bit for bit.
export { lllBatchInPlace } from './lll/wasm.js';
export type { CpuReducer } from './types.js';

// What other parts of the package use (the package index, src/index.ts, picks what users see).
export { assertExactDoubles, formatIntegerRows } from './fplll-format.js';
export { formatIntegralResult } from './precision/output.js';
export {
  recursiveReduce,
  rhfOf,
  maxDropOf,
  type RecursiveResult,
  type RecursiveGoal,
  type RecursiveStats,
} from './recursive/integral.js';
export { RECURSIVE_SCHEMA, checkRecursiveOptions, type RecursiveOptions } from './recursive/options.js';
export { formatRecursiveResult } from './recursive/output.js';
export { unitScale } from './validate.js';
