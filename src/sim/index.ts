/** The simulation part's public API (re-exported from the package's index). */
export { simulate, detectorLabel, resolveEngine, DEFAULT_MAX_ERRORS, DEFAULT_MAX_VECTORS, DEFAULT_CHUNK_VECTORS, PROGRESS_INTERVAL_MS } from './simulate.js';
export { parseSnrList, toEsN0Db, toEbN0Db } from './snr.js';
export { resultToJson, resultToCsv } from './output.js';
export { plotSpec, renderPlotSvg, svgToPng, writePlot, type PlotMetric, type PlotOptions } from './plot.js';
export { LiveTable, formatPointRow, tableHeader } from './table.js';
export { simulateWithTable, writeOutputs, type OutputFiles } from './report.js';
export { generateLinkChunk, chunkStream, type LinkChunk, type LinkChunkSpec } from './link.js';
export type { SimDetector, SimPoint, SimProgressEvent, SimulationOptions, SimulationResult, SnrType } from './types.js';
