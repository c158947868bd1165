/**
 * For the GPU executor's device tests: its per-chunk counts of one detector summed beside the CPU
 * engine's runChunk() on the same tasks (frames asserted equal chunk by chunk).
 */
import assert from 'node:assert/strict';
import { type ChunkResult, type ChunkTask, runChunk } from '../../src/sim/chunk.js';

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

/** Detector 0's counts of `results` (the executor's, task for task) against runChunk's. */
export function tallyAgainstCpu(tasks: readonly ChunkTask[], results: readonly ChunkResult[]): ChunkTally {
  const t: ChunkTally = { gFe: 0, cFe: 0, frames: 0, gSym: 0, cSym: 0, gIt: 0, cIt: 0 };
  for (const [i, task] of tasks.entries()) {
    const g = results[i]!.counts[0]!,
      c = runChunk(task).counts[0]!;
    assert.equal(g.frames, c.frames);
    t.gFe += g.frameErrors;
    t.cFe += c.frameErrors;
    t.frames += c.frames!;
    t.gSym += g.symbolErrors;
    t.cSym += c.symbolErrors;
    t.gIt += g.iterations ?? 0;
    t.cIt += c.iterations ?? 0;
  }
  return t;
}
