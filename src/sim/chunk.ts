/**
 * One unit of simulation work: generate a chunk of the link, run the active detectors on the same
 * data, count their errors. A pure function of the task, so the worker threads and the in-thread
 * executor give identical counts.
 */
import { CheckFailedError } from '../core/errors.js';
import { detect } from '../mimo/detect.js';
import { constellation } from '../mimo/modulation.js';
import type { DetectOptions, Modulation } from '../mimo/types.js';
import { generateLinkChunk } from './link.js';

export interface ChunkTask {
  nt: number;
  nr: number;
  modulation: Modulation;
  vectorsPerChannel: number;
  seed: number;
  /** All detectors of the run (indices into this list are stable). */
  detectors: DetectOptions[];
  /** Which of them to run on this chunk (those that had not stopped when it was handed out). */
  active: number[];
  snrIndex: number;
  chunkIndex: number;
  vectors: number;
  noiseVar: number;
}

export interface DetectorCounts {
  bitErrors: number;
  symbolErrors: number;
  /** Vectors with at least one bit error (uncoded: a frame is one vector). */
  frameErrors: number;
  timeMs: number;
}

export interface ChunkResult {
  snrIndex: number;
  chunkIndex: number;
  vectors: number;
  /** counts[d] for every active detector d, null for the others. */
  counts: (DetectorCounts | null)[];
}

/** Counts the errors of one detector's output against the transmitted symbols. */
export function countErrors(txIndices: Int32Array, rxSymbols: Int32Array, rxBits: Uint8Array, nt: number, modulation: Modulation): Omit<DetectorCounts, 'timeMs'> {
  const c = constellation(modulation);
  const bps = c.bitsPerSymbol;
  const vectors = txIndices.length / nt;
  if (rxSymbols.length !== txIndices.length || rxBits.length !== txIndices.length * bps) {
    throw new CheckFailedError(`detector returned ${rxSymbols.length} symbols and ${rxBits.length} bits for ${vectors} vectors of ${nt} streams (${bps} bits per symbol)`);
  }
  let bitErrors = 0, symbolErrors = 0, frameErrors = 0;
  for (let v = 0; v < vectors; v++) {
    let vectorBitErrors = 0;
    for (let j = 0; j < nt; j++) {
      const s = v * nt + j;
      const tx = txIndices[s]!;
      if (rxSymbols[s] !== tx) symbolErrors++;
      for (let b = 0; b < bps; b++) {
        if (rxBits[s * bps + b] !== c.bitTable[tx * bps + b]) vectorBitErrors++;
      }
    }
    bitErrors += vectorBitErrors;
    if (vectorBitErrors > 0) frameErrors++;
  }
  return { bitErrors, symbolErrors, frameErrors };
}

export function runChunk(task: ChunkTask): ChunkResult {
  const link = generateLinkChunk(task);
  const counts: (DetectorCounts | null)[] = task.detectors.map(() => null);
  for (const d of task.active) {
    // Uncoded links count hard decisions only: the soft detectors skip their LLRs.
    const opts = { ...task.detectors[d]!, soft: 'none' as const };
    const t0 = performance.now();
    const out = detect({ nt: task.nt, nr: task.nr, H: link.H, y: link.y, vectorsPerChannel: task.vectorsPerChannel, noiseVar: task.noiseVar }, opts);
    const timeMs = performance.now() - t0;
    counts[d] = { ...countErrors(link.txIndices, out.symbols, out.bits, task.nt, task.modulation), timeMs };
  }
  return { snrIndex: task.snrIndex, chunkIndex: task.chunkIndex, vectors: task.vectors, counts };
}
