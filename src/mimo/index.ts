/** The MIMO part's public API. */
export * from './types.js';
export * from './modulation.js';
export * from './channel.js';
export * from './preprocess/rvd.js';
export * from './preprocess/qr.js';
export { detect, validateDetection, checkDetectorShape, CPU_DETECTORS, MAX_ANTENNAS, LLR_LIMIT, WIDE_DETECTORS } from './detect.js';
export { DEFAULT_MAX_NODES, ON_BUDGET, type OnBudget } from './budget.js';
export { DEFAULT_K } from './detectors/kbest/cpu.js';
export { DEFAULT_LLR_CLIP } from './soft/maxlog.js';
export type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from './detectors/detector.js';
export { ML_MAX_HYPOTHESES } from './detectors/ml/cpu.js';
export { psdConfig, defaultPsdLevels, type PsdConfig } from './detectors/psd/config.js';
