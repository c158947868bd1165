/** The MIMO part's public API. */
export * from './types.js';
export * from './modulation.js';
export * from './channel.js';
export * from './preprocess/rvd.js';
export * from './preprocess/qr.js';
export { detect, validateDetection, CPU_DETECTORS, MAX_ANTENNAS } from './detect.js';
export type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from './detectors/detector.js';
export { ML_MAX_HYPOTHESES } from './detectors/ml/cpu.js';
export { psdConfig, defaultPsdLevels, type PsdConfig } from './detectors/psd/config.js';
