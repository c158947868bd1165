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

/**
 * The fields of a unit's counts in ChunkResult.counts rows, in this order: COUNT_FIELDS numbers a
 * unit. Rows of numbers rather than an object a unit: a GPU launch settles hundreds of units, and
 * simulate() merges them at the device's rate.
 */
export const COUNT = { bitErrors: 0, symbolErrors: 1, frameErrors: 2, unproven: 3, timeMs: 4, iterations: 5 } as const;
/** Numbers a unit in ChunkResult.counts[d]. */
export const COUNT_FIELDS = 6;

/**
 * A chunk's counts, unit by unit: what the stop rules see.
 * - `counts[d]`: detector d's counts, [units x COUNT_FIELDS] (row i: unit unit0 + i, fields in
 *   COUNT order; `iterations` is 0 on an uncoded link), or null for a detector not in the task's
 *   `active` list.
 * - `failures[d]`: the first unit of the chunk (its row) on which active detector d failed, at its
 *   first failing vector, and the error as data; absent or null where none failed. Rows from that
 *   unit on are not counts (a detector that failed is not run on the chunk's later units).
 *   simulate() raises the error only if d is still active when the unit merges, so whether a run
 *   fails does not depend on how far ahead units were computed.
 */
export interface ChunkResult {
  snrIndex: number;
  unit0: number;
  /** Vectors of each of the chunk's units, in order (the task's unitSizes). */
  vectors: number[];
  counts: (Float64Array | null)[];
  failures?: (ChunkFailure | null)[];
}

/** Where a detector failed on a chunk (ChunkResult.failures). */
export interface ChunkFailure {
  /** The unit's row in the chunk. */
  unit: number;
  error: ErrorRecord;
}

/** A unit of a chunk with the chunk's detectors: what detectRange reads. */
export type UnitTask = LinkChunkSpec & Pick<ChunkTask, 'detectors' | 'active' | 'sliceVectors'>;

/** Unit i of a chunk: its link spec (its index at the point, its vectors) and the chunk's detectors. */
export function unitOf(task: ChunkTask, i: number): UnitTask {
  const { unit0: _u, unitSizes, ...rest } = task;
  return { ...rest, unitIndex: task.unit0 + i, vectors: unitSizes[i]! };
}

/** A chunk's result with every count zero (rows for the task's active detectors), for an executor to fill. */
export function emptyChunkResult(
  task: Pick<ChunkTask, 'snrIndex' | 'unit0' | 'unitSizes' | 'detectors' | 'active'>,
): ChunkResult {
  const counts: (Float64Array | null)[] = task.detectors.map(() => null);
  for (const d of task.active) counts[d] = new Float64Array(task.unitSizes.length * COUNT_FIELDS);
  return { snrIndex: task.snrIndex, unit0: task.unit0, vectors: task.unitSizes, counts };
}

/** Adds `c` to unit i's row of detector d (a row of ChunkResult.counts). */
export function addCounts(result: ChunkResult, d: number, i: number, c: Partial<Omit<DetectorCounts, 'frames'>>): void {
  const row = result.counts[d];
  if (!row || i < 0 || i * COUNT_FIELDS >= row.length)
    throw new CheckFailedError(`internal: no counts of detector ${d} at unit ${i} of the chunk`);
  const o = i * COUNT_FIELDS;
  row[o + COUNT.bitErrors] += c.bitErrors ?? 0;
  row[o + COUNT.symbolErrors] += c.symbolErrors ?? 0;
  row[o + COUNT.frameErrors] += c.frameErrors ?? 0;
  row[o + COUNT.unproven] += c.unproven ?? 0;
  row[o + COUNT.timeMs] += c.timeMs ?? 0;
  row[o + COUNT.iterations] += c.iterations ?? 0;
}

/** Unit i's counts of detector d as an object (null where d has no counts in the chunk). */
export function unitCounts(result: ChunkResult, d: number, i: number): Required<Omit<DetectorCounts, 'frames'>> | null {
  const row = result.counts[d];
  if (!row) return null;
  const o = i * COUNT_FIELDS;
  return {
    bitErrors: row[o + COUNT.bitErrors]!,
    symbolErrors: row[o + COUNT.symbolErrors]!,
    frameErrors: row[o + COUNT.frameErrors]!,
    unproven: row[o + COUNT.unproven]!,
    timeMs: row[o + COUNT.timeMs]!,
    iterations: row[o + COUNT.iterations]!,
  };
}

/**
 * Records detector d's failure `err` at unit i of the chunk, keeping the earliest unit's (the
 * library's errors; anything else is a bug and fails the chunk).
 */
export function recordFailure(result: ChunkResult, d: number, i: number, err: unknown): void {
  if (!(err instanceof LatticeMimoError)) throw err;
  failureAt(result, d, i, errorRecord(err));
}

/** Records detector d's failure (as data) at unit i of the chunk, keeping the earliest unit's. */
export function failureAt(result: ChunkResult, d: number, i: number, error: ErrorRecord): void {
  result.failures ??= result.counts.map(() => null);
  const was = result.failures[d];
  if (!was || i < was.unit) result.failures[d] = { unit: i, error };
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
  for (let i = 0; i < task.unitSizes.length; i++) {
    const spec = unitOf(task, i);
    const link = generateLinkChunk(spec);
    const grain = task.coded ? task.sliceVectors! : task.vectorsPerChannel;
    for (const d of task.active) {
      if (failed.has(d)) continue;
      let groups = 1;
      for (let v0 = 0; v0 < spec.vectors; ) {
        const v1 = Math.min(spec.vectors, v0 + groups * grain);
        const t0 = performance.now();
        let part: Omit<DetectorCounts, 'timeMs'>;
        try {
          part = detectRange(spec, link, d, v0, v1);
        } catch (err) {
          recordFailure(result, d, i, err);
          failed.add(d);
          break;
        }
        const ms = performance.now() - t0;
        addCounts(result, d, i, { ...part, timeMs: ms });
        v0 = v1;
        if (ms < SLICE_MS / 4) groups *= 2;
        else if (ms > SLICE_MS && groups > 1) groups = Math.max(1, groups >> 1);
        yield;
      }
    }
  }
}

/** The counts of a chunk's units, computed in this thread without a break (a worker's). */
export function runChunk(task: ChunkTask): ChunkResult {
  const result = emptyChunkResult(task);
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
  const result = emptyChunkResult(task);
  for (const _ of chunkSteps(task, result)) {
    await yieldTurn();
    if (cancelled()) throw new Error('chunk cancelled');
  }
  return result;
}
