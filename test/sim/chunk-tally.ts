/**
 * For the GPU executor's device tests: its per-unit counts of one detector summed beside the CPU
 * engine's runChunk() on the same tasks (frames asserted equal unit by unit).
 */
import assert from 'node:assert/strict';
import { type ChunkResult, type ChunkTask, runChunk, unitCounts } from '../../src/sim/chunk.js';

/** GPU and CPU sums of frame errors, symbol errors and decoder iterations, and the frames. */
export interface ChunkTally {
  gFe: number;
  cFe: number;
  frames: number;
  gSym: number;
  cSym: number;
  gIt: number;
  cIt: number;
}

/** Detector 0's counts of `results` (the executor's, task for task) against runChunk's; frames of `vectorsPerFrame` vectors. */
export function tallyAgainstCpu(
  tasks: readonly ChunkTask[],
  results: readonly ChunkResult[],
  vectorsPerFrame: number,
): ChunkTally {
  const t: ChunkTally = { gFe: 0, cFe: 0, frames: 0, gSym: 0, cSym: 0, gIt: 0, cIt: 0 };
  for (const [i, task] of tasks.entries()) {
    const cpu = runChunk(task);
    assert.equal(results[i]!.unit0, task.unit0);
    assert.deepEqual(results[i]!.vectors, task.unitSizes);
    for (const [u, vectors] of cpu.vectors.entries()) {
      const g = unitCounts(results[i]!, 0, u)!,
        c = unitCounts(cpu, 0, u)!;
      t.gFe += g.frameErrors;
      t.cFe += c.frameErrors;
      t.frames += vectors / vectorsPerFrame;
      t.gSym += g.symbolErrors;
      t.cSym += c.symbolErrors;
      t.gIt += g.iterations;
      t.cIt += c.iterations;
    }
  }
  return t;
}

/**
 * Chunks of consecutive units for the executor tests: task i holds perTask[i] units of
 * `unitVectors` from unit `first` on, detectors active(i); the very last unit holds `last` vectors
 * when given (a point's short last unit).
 */
export function unitChunks(
  base: Omit<ChunkTask, 'unit0' | 'unitSizes' | 'active'>,
  first: number,
  unitVectors: number,
  perTask: readonly number[],
  active: (i: number) => number[],
  last?: number,
): ChunkTask[] {
  let unit0 = first;
  return perTask.map((n, i) => {
    const unitSizes = Array.from({ length: n }, () => unitVectors);
    if (i === perTask.length - 1 && last !== undefined) unitSizes[n - 1] = last;
    const task: ChunkTask = { ...base, unit0, unitSizes, active: active(i) };
    unit0 += n;
    return task;
  });
}
