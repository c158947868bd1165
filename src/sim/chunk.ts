/**
 * One unit of simulation work: generate a chunk of the link, run the active detectors on the same
 * data, count their errors. A pure function of the task, so the worker threads and the in-thread
 * executor give identical counts.
 */
import {
  CheckFailedError,
  LatticeMimoError,
  errorRecord,
  withContext,
  type ErrorContext,
  type ErrorRecord,
} from '../core/index.js';
import { detect, constellation, type DetectOptions, type Modulation, hardDecisionOptions } from '../mimo/index.js';
import { decodeRange } from './coded.js';
import { generateLinkChunk, type LinkChunkSpec } from './link.js';

/** A chunk of the link (link.ts: what generateLinkChunk draws) and the detectors to run on it. */
export interface ChunkTask extends LinkChunkSpec {
  /** All detectors of the run (indices into this list are stable). */
  detectors: DetectOptions[];
  /** Which of them to run on this chunk (those that had not stopped when it was handed out). */
  active: number[];
  /** Coded link: lcm(vectors per frame, vectorsPerChannel), the smallest piece the chunk is cut into; vectors is a multiple of it. */
  sliceVectors?: number;
}

export interface DetectorCounts {
  bitErrors: number;
  symbolErrors: number;
  /** Vectors with at least one bit error (uncoded: a frame is one vector). */
  frameErrors: number;
  /** Vectors whose search stopped at the node budget under onBudget 'flag' (their best leaf was counted). */
  unproven: number;
  timeMs: number;
  /** Coded link: frames decoded (bit and frame errors are then on their information bits). */
  frames?: number;
  /** Coded link: decoder iterations summed over the frames. */
  iterations?: number;
}

export interface ChunkResult {
  snrIndex: number;
  chunkIndex: number;
  vectors: number;
  /** counts[d] for every active detector d that finished the chunk, null for the others. */
  counts: (DetectorCounts | null)[];
  /**
   * failures[d]: the error of an active detector d that failed on this chunk (at its first failing
   * vector), as data; absent when none failed. simulate() raises it only if d is still active when
   * the chunk merges, so whether a run fails does not depend on how far ahead chunks were computed.
   */
  failures?: (ErrorRecord | null)[];
}

/** Records detector d's failure on the chunk (the library's errors; anything else is a bug and fails the chunk). */
export function recordFailure(result: Pick<ChunkResult, 'failures'>, detectors: number, d: number, err: unknown): void {
  if (!(err instanceof LatticeMimoError)) throw err;
  result.failures ??= new Array<ErrorRecord | null>(detectors).fill(null);
  result.failures[d] = errorRecord(err);
}

/** Counts the errors of one detector's output against the transmitted symbols. */
export function countErrors(
  txIndices: Int32Array,
  rxSymbols: Int32Array,
  rxBits: Uint8Array,
  nt: number,
  modulation: Modulation,
): Omit<DetectorCounts, 'timeMs' | 'unproven'> {
  const c = constellation(modulation);
  const bps = c.bitsPerSymbol;
  const vectors = txIndices.length / nt;
  if (rxSymbols.length !== txIndices.length || rxBits.length !== txIndices.length * bps) {
    throw new CheckFailedError(
      `detector returned ${rxSymbols.length} symbols and ${rxBits.length} bits for ${vectors} vectors of ${nt} streams (${bps} bits per symbol)`,
    );
  }
  let bitErrors = 0,
    symbolErrors = 0,
    frameErrors = 0;
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

/**
 * Detection (and, coded, decoding) of vectors [v0, v1) of a chunk (whole channel groups and
 * frames), with their error counts. An error names the place: the SNR point's index, the detector,
 * the chunk, and the vector (or channel) of the chunk; details.detectorIndex is `d`.
 */
function detectRange(
  task: ChunkTask,
  link: ReturnType<typeof generateLinkChunk>,
  d: number,
  v0: number,
  v1: number,
): Omit<DetectorCounts, 'timeMs'> {
  try {
    return detectRangeAt(task, link, d, v0, v1);
  } catch (err) {
    throw inChunk(err, task, d, v0);
  }
}

/**
 * `err` of detect() (or the decoder) on vectors from `v0` at the chunk's place: detect()'s vector
 * and channel numbers are those of its own input, from vector v0 and channel v0 / vectorsPerChannel
 * of the chunk.
 */
function inChunk(err: unknown, task: ChunkTask, d: number, v0: number): unknown {
  const own: ErrorContext = err instanceof LatticeMimoError ? err.context : {};
  const where: ErrorContext = {
    snrIndex: task.snrIndex,
    detector: task.detectors[d]!.detector,
    chunk: task.chunkIndex,
    ...(own.vector !== undefined ? { vector: v0 + own.vector } : {}),
    ...(own.channel !== undefined ? { channel: v0 / task.vectorsPerChannel + own.channel } : {}),
  };
  return withContext(err, where, { detectorIndex: d });
}

function detectRangeAt(
  task: ChunkTask,
  link: ReturnType<typeof generateLinkChunk>,
  d: number,
  v0: number,
  v1: number,
): Omit<DetectorCounts, 'timeMs'> {
  const { nt, nr, vectorsPerChannel: vpc } = task;
  if (task.coded) {
    return decodeRange(
      {
        ...task,
        H: link.H,
        y: link.y,
        txIndices: link.txIndices,
        info: link.info!,
        noiseVar: link.noiseVar ?? task.noiseVar,
      },
      task.coded,
      task.detectors[d]!,
      v0,
      v1,
    );
  }
  // Uncoded links count hard decisions only: the soft detectors skip their LLRs.
  const opts = hardDecisionOptions(task.detectors[d]!);
  const H = link.H.subarray(2 * nr * nt * (v0 / vpc), 2 * nr * nt * (v1 / vpc));
  const y = link.y.subarray(2 * nr * v0, 2 * nr * v1);
  const out = detect({ nt, nr, H, y, vectorsPerChannel: vpc, noiseVar: link.noiseVar ?? task.noiseVar }, opts);
  return {
    ...countErrors(link.txIndices.subarray(nt * v0, nt * v1), out.symbols, out.bits, nt, task.modulation),
    unproven: out.stats.budgetExceeded ?? 0,
  };
}

export function runChunk(task: ChunkTask): ChunkResult {
  const link = generateLinkChunk(task);
  const counts: (DetectorCounts | null)[] = task.detectors.map(() => null);
  const result: ChunkResult = { snrIndex: task.snrIndex, chunkIndex: task.chunkIndex, vectors: task.vectors, counts };
  for (const d of task.active) {
    const t0 = performance.now();
    try {
      const c = detectRange(task, link, d, 0, task.vectors);
      counts[d] = { ...c, timeMs: performance.now() - t0 };
    } catch (err) {
      recordFailure(result, task.detectors.length, d, err);
    }
  }
  return result;
}

/** Longest stretch runChunkSliced computes without giving the event loop a turn. */
const SLICE_MS = 50;

/**
 * runChunk in slices of whole channel groups (and frames), yielding to the event loop between them (timers,
 * signals, the live table keep running when chunks are computed in the main thread). Detection is
 * per vector, so the counts equal runChunk's. `cancelled()` is checked between slices: when it is
 * true the chunk is abandoned (the promise rejects).
 */
export async function runChunkSliced(task: ChunkTask, cancelled: () => boolean): Promise<ChunkResult> {
  const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  await yieldTurn();
  const link = generateLinkChunk(task);
  const counts: (DetectorCounts | null)[] = task.detectors.map(() => null);
  const result: ChunkResult = { snrIndex: task.snrIndex, chunkIndex: task.chunkIndex, vectors: task.vectors, counts };
  const unit = task.coded ? task.sliceVectors! : task.vectorsPerChannel;
  detectors: for (const d of task.active) {
    const c: DetectorCounts = task.coded
      ? { bitErrors: 0, symbolErrors: 0, frameErrors: 0, unproven: 0, timeMs: 0, frames: 0, iterations: 0 }
      : { bitErrors: 0, symbolErrors: 0, frameErrors: 0, unproven: 0, timeMs: 0 };
    let groups = 1;
    for (let v0 = 0; v0 < task.vectors; ) {
      if (cancelled()) throw new Error('chunk cancelled');
      const v1 = Math.min(task.vectors, v0 + groups * unit);
      const t0 = performance.now();
      let part: Omit<DetectorCounts, 'timeMs'>;
      try {
        part = detectRange(task, link, d, v0, v1);
      } catch (err) {
        recordFailure(result, task.detectors.length, d, err);
        continue detectors;
      }
      const ms = performance.now() - t0;
      c.bitErrors += part.bitErrors;
      c.symbolErrors += part.symbolErrors;
      c.frameErrors += part.frameErrors;
      c.unproven += part.unproven;
      c.timeMs += ms;
      if (c.frames !== undefined) {
        c.frames += part.frames!;
        c.iterations! += part.iterations!;
      }
      v0 = v1;
      if (ms < SLICE_MS / 4) groups *= 2;
      else if (ms > SLICE_MS && groups > 1) groups = Math.max(1, groups >> 1);
      await yieldTurn();
    }
    counts[d] = c;
  }
  return result;
}
