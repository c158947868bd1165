/**
 * The MIMO part's public API: modulation, symbols and noise, real-valued decompositions, QR,
 * detect(), and the detector registry's read side (entries, traits, option schemas, labels) that
 * the simulation and the command line build on. Per-detector code stays internal; the package
 * index decides which of these users see.
 */
export {
  MODULATIONS,
  type Modulation,
  type Detector,
  type DetectionInput,
  type DetectOptions,
  type CommonDetectOptions,
  type DetectionResult,
  type PsdOptions,
  type InitialRadius,
} from './types.js';
export {
  constellation,
  bitsPerSymbolOf,
  parseModulation,
  bitsOf,
  symbolsToBits,
  bitsToSymbols,
  modulate,
  hardDemap,
  softDemap,
  type Constellation,
  type PamInfo,
  type SoftMethod,
} from './modulation.js';
export {
  randomSymbols,
  transmit,
  addNoise,
  snrToNoiseVar,
  esn0Db,
  type SnrType,
} from './channel.js';
export { rvd, mrvd, realVectors, type RealLayout } from './preprocess/rvd.js';
export { qrMgs, sortedQr, qrBatch, applyQt, type QrResult, type QrOrdering } from './preprocess/qr.js';
export { detect, checkDetectorShape, MAX_ANTENNAS, LLR_LIMIT } from './detect.js';
export {
  DETECTORS,
  SOFT_DETECTORS,
  WIDE_DETECTORS,
  detectorEntry,
  detectorsWhere,
  cudaDetectors,
  priorDetectors,
  registerDetector,
  type AnyDetectorEntry,
  type DetectorEntry,
  type DetectorOwnOptions,
  type DetectorTraits,
  type ListArgument,
  type NodeBudgetKind,
  type WideChannels,
} from './registry.js';
export {
  COMMON_DETECT_OPTIONS,
  checkDetectOptions,
  inapplicableReason,
  optionOwners,
  hardDecisionOptions,
  detectorOptionsLabel,
  type Applicability,
  type CommonOptionSpec,
  type DetectOptionsUse,
} from './options.js';
export type { KbestOptions } from './detectors/kbest/entry.js';
export type { NwayOptions } from './detectors/nway/entry.js';
export type { SphereOptions } from './detectors/sphere/entry.js';
export type { PsdDetectorOptions } from './detectors/psd/entry.js';
export { detectAsync } from './detect-async.js';
export type { DetectOutputs } from './gpu/detect-batch.js';
export { DEFAULT_MAX_NODES, nodeBudgetError, ON_BUDGET, type OnBudget } from './budget.js';
export { DEFAULT_K } from './detectors/kbest/cpu.js';
export { DEFAULT_LLR_CLIP } from './soft/maxlog.js';
export { ML_MAX_HYPOTHESES } from './detectors/ml/cpu.js';
export { psdConfig, defaultPsdLevels, type PsdConfig } from './detectors/psd/config.js';
// For another part's device pipeline (the GPU link): one detector as a device-level plan.
export {
  detectionCudaPlan,
  type DetectionCudaPlan,
  type DetectionPlanSetup,
  type DetectionLaunch,
  type NormalizeBuffers,
  type VectorsToRedo,
  type RedoneVectors,
} from './gpu/device-plan.js';
export type { VectorRemedy } from './fallback.js';
