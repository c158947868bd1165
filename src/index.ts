/**
 * lattice-mimo: lattice basis reduction and MIMO detection, on a pure-TypeScript CPU engine and a
 * CUDA engine. This is the package's whole public surface; every name is re-exported from its
 * part's index (core, lattice, mimo, coding, sim, gpu).
 *
 * Conventions: matrices are column-major and a basis is its columns; a batch is one typed array of
 * `batch` matrices back to back with `{batch, rows, cols}` beside it; complex data is interleaved
 * (re, im); the array kind (Float32Array / Float64Array) is the precision.
 *
 * @packageDocumentation
 */
export {
  LatticeMimoError, InvalidArgumentError, InvalidInputError, RankDeficientError, IterationLimitError,
  CheckFailedError, EngineUnavailableError, UnsupportedError, CudaError, ExternalToolError, NodeBudgetError,
  makeBatch, zerosBatch, matrixAt, fromRows, toRows, matMul, identity, precisionOf, toPrecision,
  Philox, philox4x32,
  type ErrorCode, type MatrixBatch, type Precision, type RealArray,
} from './core/index.js';
export {
  reduce, reduceSync, ALGORITHMS,
  checkLLL, checkLagrangePairs, checkUnimodular, applyTransform, qualityMetrics, gramSchmidt,
  checkLLLExact, rebuildTransform, allswapBatchCuda, jacobiParallelBatchCuda, hostBatch, lllIntegral, RUNGS,
  type Rung, type IntegralLLLOptions, type IntegralLLLResult, type RungOutcome, type LadderProgress,
  gaussianBases, blockToeplitzBases, integerScale,
  parseFplll, parseFplllBasis, formatFplll, parseBasisJson, formatBasisJson,
  type ReduceResult, type ReduceStats, type BasisCheck, type Algorithm, type AlgoParams, type BasisStats,
  type ReduceOptions, type Engine, type LLLCheck, type LagrangeCheck, type UnimodularCheck,
  type QualityMetrics, type GramSchmidt, type ExactLLLCheck, type ExactTransform,
  type CountTotals, type CudaBatchOutputs, type CudaBatchResult, type CudaBatchStats,
  type GpuTuning, type AllswapTuning, type JacobiTuning, type BlockTuning, type BatchTuning, type WorkspaceMemory, type JacobiRounds,
  type GaussianBasesOptions, type BlockToeplitzOptions, type ParsedMatrix, type BasisLike, type FormatOptions,
} from './lattice/index.js';
export {
  MODULATIONS, DETECTORS, SOFT_DETECTORS,
  constellation, bitsPerSymbolOf, parseModulation, bitsOf, symbolsToBits, bitsToSymbols, modulate,
  hardDemap, softDemap, rayleighChannels, randomSymbols, transmit, addNoise, snrToNoiseVar, esn0Db,
  rvd, mrvd, realVectors, qrMgs, sortedQr, qrBatch, applyQt,
  detect, detectAsync, checkDetectorShape, MAX_ANTENNAS, ML_MAX_HYPOTHESES, LLR_LIMIT, WIDE_DETECTORS, DEFAULT_MAX_NODES, ON_BUDGET, DEFAULT_K, DEFAULT_LLR_CLIP,
  psdConfig, defaultPsdLevels, type OnBudget, type PsdOptions, type InitialRadius,
  type Modulation, type Detector, type DetectionInput, type DetectOptions, type DetectionResult, type DetectOutputs,
  type Constellation, type PamInfo, type SoftMethod, type ChannelOptions, type SnrType,
  type RealLayout, type QrResult, type QrOrdering, type PsdConfig,
} from './mimo/index.js';
export {
  ldpcCode, wimaxCode, nrCode, qcCode, sparseCode, LdpcDecoder, QcEncoder, GenericEncoder,
  parseBaseMatrix, formatBaseMatrix, parseAlist, formatAlist, readBaseMatrixFile, readAlistFile, liftBaseMatrix, expandQc, syndromeWeight,
  resolveDecoderOptions, LDPC_DECODER_ALGORITHMS, LDPC_DECODER_DEFAULTS, LDPC_MAX_SATURATION, LDPC_MIN_SUM_SCALE,
  WIMAX_LENGTHS, WIMAX_Z0, wimaxBaseMatrix, wimaxRateHalfBase, wimaxExpansion,
  NR_LIFTING_SETS, NR_MAX_K, NR_MAX_RATE, NR_MIN_RATE, NR_MODULATION_ORDERS,
  nrSelectBaseGraph, nrLiftingSize, nrCodeParams, nrBaseGraphTable, nrBaseMatrix, nrK0, nrRateMatchMap, nrRateMatch, nrRateRecover,
  type LdpcCode, type FrameDecoder, type BaseMatrix, type BaseMatrixTable, type QcParityCheck, type SparseParityCheck,
  type DecoderAlgorithm, type DecoderOptions, type ResolvedDecoderOptions, type DecodeResult, type DecodeBatchResult,
  type NrBaseGraph, type NrCodeParams, type NrCodeRequest, type NrLiftingSize,
  decodeBatchAsync, LDPC_STATUS, type DecodeEngine, type GpuDecodeOptions, type GpuDecodeBatchResult,
} from './coding/index.js';
export {
  simulate, simulateWithTable, writeOutputs, detectorLabel,
  DEFAULT_MAX_ERRORS, DEFAULT_MAX_VECTORS, DEFAULT_CHUNK_VECTORS,
  parseSnrList, toEsN0Db, toEbN0Db, resultToJson, resultToCsv, plotSpec, renderPlotSvg, svgToPng, writePlot,
  type PlotMetric, type PlotOptions, type OutputFiles, type TableStream,
  type SimDetector, type SimPoint, type SimProgressEvent, type SimulationOptions, type SimulationResult,
} from './sim/index.js';
export { cudaAvailable, type CudaAvailability, type DeviceProperties, type BatchRunOptions } from './gpu/index.js';
