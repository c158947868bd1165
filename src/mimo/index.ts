/**
 * The MIMO part's public API: modulation, channels and noise, real-valued decompositions, QR, and
 * detect(). The detector registry and per-detector code stay internal.
 */
export {
  MODULATIONS,
  DETECTORS,
  type Modulation,
  type Detector,
  type DetectionInput,
  type DetectOptions,
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
  rayleighChannels,
  randomSymbols,
  transmit,
  addNoise,
  snrToNoiseVar,
  esn0Db,
  type ChannelOptions,
  type SnrType,
} from './channel.js';
export { rvd, mrvd, realVectors, type RealLayout } from './preprocess/rvd.js';
export { qrMgs, sortedQr, qrBatch, applyQt, type QrResult, type QrOrdering } from './preprocess/qr.js';
export { detect, checkDetectorShape, MAX_ANTENNAS, LLR_LIMIT } from './detect.js';
export { SOFT_DETECTORS, WIDE_DETECTORS, cudaDetectors } from './registry.js';
export { detectAsync } from './detect-async.js';
export type { DetectOutputs } from './gpu/detect-batch.js';
export { DEFAULT_MAX_NODES, ON_BUDGET, type OnBudget } from './budget.js';
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
