/**
 * The simulation part's public API: simulate() and its live-table wrapper, SNR lists and
 * conversions, JSON/CSV output and plots, and the exact merge of a run's shards. The chunk
 * generator and worker pool stay internal.
 */
export {
  simulate,
  detectorLabel,
  DEFAULT_MAX_ERRORS,
  DEFAULT_MAX_VECTORS,
  DEFAULT_CHUNK_VECTORS,
  DEFAULT_UNIT_VECTORS,
  DEFAULT_GPU_CHUNK_VECTORS,
  PROGRESS_INTERVAL_MS,
} from './simulate.js';
export { parseSnrList, toEsN0Db, toEbN0Db } from './snr.js';
export { resultToJson, resultToCsv } from './output.js';
export { resultTable } from './table.js';
export { plotSpec, renderPlotSvg, svgToPng, writePlot, type PlotMetric, type PlotOptions } from './plot.js';
export { simulateWithTable, writeOutputs, type OutputFiles } from './report.js';
export type { TableStream } from './table.js';
export { mergeShards, type MissingUnit, missingUnitsText } from './merge.js';
export type {
  OfdmOptions,
  ShardOptions,
  ShardRecord,
  ShardUnits,
  SimDetector,
  SimPoint,
  SimProgressEvent,
  SimulationOptions,
  SimulationResult,
} from './types.js';

// What other parts of the package use (the package index, src/index.ts, picks what users see).
export { resolveEngine, checkSimulationOptions } from './simulate.js';
export { codedUnit, codeOf, vectorsPerFrame, checkSoftDetectors } from './coded.js';
export { partialResult } from './report.js';
export { MAX_IDD_ITERATIONS, MAX_SHARDS } from './simulation-options.js';
export { optionsOfResult } from './merge.js';
export { CSI_MODES, type CsiMode } from './ofdm-link.js';
