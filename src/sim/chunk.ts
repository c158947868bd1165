/**
 * A chunk of simulation work: consecutive units of the link (link.ts), each generated from its own
 * streams, the active detectors run on the same data, their errors counted unit by unit (the stop
 * rules are applied per unit, so how units are grouped into chunks cannot change a count). A pure
 * function of the task, so the worker threads and the in-thread executor give identical counts.
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

/**
 * A chunk: `unitSizes.length` consecutive units of one SNR point from unit `unit0` (each drawn from
 * its own streams, link.ts), and the detectors to run on them.
 */
export interface ChunkTask extends Omit<LinkChunkSpec, 'unitIndex' | 'vectors'> {
  /** All detectors of the run (indices into this list are stable). */
  detectors: DetectOptions[];
  /** Which of them to run on this chunk (those that had not stopped when it was handed out). */
  active: number[];
  /** The chunk's first unit at its SNR point. */
  unit0: number;
  /** Vectors of each unit of the chunk: the run's unitVectors, but for a point's last unit (maxVectors need not end on one). */
  unitSizes: number[];
  /** Coded link: lcm(vectors per frame, vectorsPerChannel), the smallest piece a unit is cut into; units are multiples of it. */
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

/** One unit's counts: what the stop rules see, unit by unit. */
export interface UnitResult {
  vectors: number;
  /** counts[d] for every active detector d that finished the unit, null for the others. */
  counts: (DetectorCounts | null)[];
  /**
   * failures[d]: the error of an active detector d that failed on this unit (at its first failing
   * vector), as data; absent when none failed. simulate() raises it only if d is still active when
   * the unit merges, so whether a run fails does not depend on how far ahead units were computed.
   * A detector that failed on a unit is not run on the chunk's later units (their counts[d] null).
   */
  failures?: (ErrorRecord | null)[];
}

export interface ChunkResult {
  snrIndex: number;
  unit0: number;
  /** The chunk's units in order. */
  units: UnitResult[];
}

/** A unit of a chunk with the chunk's detectors: what detectRange reads. */
export type UnitTask = LinkChunkSpec & Pick<ChunkTask, 'detectors' | 'active' | 'sliceVectors'>;

/** Unit i of a chunk: its link spec (its index at the point, its vectors) and the chunk's detectors. */
export function unitOf(task: ChunkTask, i: number): UnitTask {
  const { unit0: _u, unitSizes, ...rest } = task;
  return { ...rest, unitIndex: task.unit0 + i, vectors: unitSizes[i]! };
}

/** Empty per-unit results of a chunk (every count null), for an executor to fill. */
export function emptyUnits(task: Pick<ChunkTask, 'unitSizes' | 'detectors'>): UnitResult[] {
  return task.unitSizes.map((vectors) => ({ vectors, counts: task.detectors.map(() => null) }));
}

/** Records detector d's failure on the chunk (the library's errors; anything else is a bug and fails the chunk). */
export function recordFailure(result: Pick<UnitResult, 'failures'>, detectors: number, d: number, err: unknown): void {
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
  task: UnitTask,
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
function inChunk(err: unknown, task: UnitTask, d: number, v0: number): unknown {
  const own: ErrorContext = err instanceof LatticeMimoError ? err.context : {};
  const where: ErrorContext = {
    snrIndex: task.snrIndex,
    detector: task.detectors[d]!.detector,
    chunk: task.unitIndex,
    ...(own.vector !== undefined ? { vector: v0 + own.vector } : {}),
    ...(own.channel !== undefined ? { channel: v0 / task.vectorsPerChannel + own.channel } : {}),
  };
  return withContext(err, where, { detectorIndex: d });
}

function detectRangeAt(
  task: UnitTask,
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

/** Longest stretch runChunkSliced computes without giving the event loop a turn. */
const SLICE_MS = 50;

/**
 * The work of a chunk, unit by unit (each generated once, every active detector run on it), in
 * slices of whole channel groups (and frames) that double while they take under SLICE_MS / 4 and
 * halve past SLICE_MS; it yields between slices. Detection is per vector, so the counts do not
 * depend on the slices. A detector that fails on a unit records it there and skips the later units.
 */
function* chunkSteps(task: ChunkTask, result: ChunkResult): Generator<void, void, void> {
  const failed = new Set<number>();
  const nDet = task.detectors.length;
  for (const [i, unit] of result.units.entries()) {
    const spec = unitOf(task, i);
    const link = generateLinkChunk(spec);
    const grain = task.coded ? task.sliceVectors! : task.vectorsPerChannel;
    for (const d of task.active) {
      if (failed.has(d)) continue;
      const c: DetectorCounts = task.coded
        ? { bitErrors: 0, symbolErrors: 0, frameErrors: 0, unproven: 0, timeMs: 0, frames: 0, iterations: 0 }
        : { bitErrors: 0, symbolErrors: 0, frameErrors: 0, unproven: 0, timeMs: 0 };
      let groups = 1;
      let ok = true;
      for (let v0 = 0; v0 < spec.vectors; ) {
        const v1 = Math.min(spec.vectors, v0 + groups * grain);
        const t0 = performance.now();
        let part: Omit<DetectorCounts, 'timeMs'>;
        try {
          part = detectRange(spec, link, d, v0, v1);
        } catch (err) {
          recordFailure(unit, nDet, d, err);
          failed.add(d);
          ok = false;
          break;
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
        yield;
      }
      if (ok) unit.counts[d] = c;
    }
  }
}

/** The counts of a chunk's units, computed in this thread without a break (a worker's). */
export function runChunk(task: ChunkTask): ChunkResult {
  const result: ChunkResult = { snrIndex: task.snrIndex, unit0: task.unit0, units: emptyUnits(task) };
  for (const _ of chunkSteps(task, result));
  return result;
}

/**
 * runChunk yielding to the event loop between slices (timers, signals, the live table keep
 * running when chunks are computed in the main thread); the counts equal runChunk's.
 * `cancelled()` is checked between slices: when it is true the chunk is abandoned (the promise rejects).
 */
export async function runChunkSliced(task: ChunkTask, cancelled: () => boolean): Promise<ChunkResult> {
  const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  await yieldTurn();
  const result: ChunkResult = { snrIndex: task.snrIndex, unit0: task.unit0, units: emptyUnits(task) };
  for (const _ of chunkSteps(task, result)) {
    await yieldTurn();
    if (cancelled()) throw new Error('chunk cancelled');
  }
  return result;
}
