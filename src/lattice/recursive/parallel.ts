/**
 * Worker threads for the recursion's independent blocks. The two halves of a round, [0, h) and
 * [h, m), are independent given the round's factor: the first half's reduction keeps the span of
 * its columns, so the second half's projected sublattice (its compressed copy) is the same before
 * and after it. A pool of `threads - 1` workers takes one half while the calling thread reduces the
 * other; the calling thread waits for a result synchronously (Atomics.wait on a shared flag, then
 * receiveMessageOnPort), so the recursion stays one synchronous function and its output is the
 * one-thread output, operation for operation.
 *
 * Shapes: a block is k columns of k BigInts (a compressed copy, compress.ts); its result is the
 * transform Z (k columns of k BigInts) with the block's reduction = block Z, or null (unchanged).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { InternalError, IterationLimitError, RankDeficientError } from '../../core/index.js';
import type { BigBasis } from '../precision/exact.js';
import type { IterateStats } from './iterate.js';

/** What a worker is sent: the block and the parameters of the level it is reduced at. */
export interface BlockJob {
  block: BigBasis;
  depth: number;
  delta: number;
  innerDelta: number | undefined;
  eta: number;
  guard: number;
  leafBits: number;
  maxRounds: number;
}

/** What a worker answers: the block's transform (null: unchanged) and its counts, or its error. */
export type BlockAnswer =
  | { Z: BigBasis | null; stats: IterateStats }
  | { error: { code: string; message: string; details?: Record<string, unknown> } };

interface Slot {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  busy: boolean;
}

/** A pool of block workers; close() ends them (the caller's finally). */
export class BlockPool {
  private readonly slots: Slot[] = [];

  constructor(workers: number) {
    for (let i = 0; i < workers; i++) {
      const flag = new Int32Array(new SharedArrayBuffer(4));
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(new URL('./worker.js', import.meta.url), {
        workerData: { port: port2, flag },
        transferList: [port2],
      });
      worker.unref();
      this.slots.push({ worker, port: port1, flag, busy: false });
    }
  }

  /** A free worker's index, or -1. */
  free(): number {
    return this.slots.findIndex((s) => !s.busy);
  }

  /** Sends a block to worker `i` (free()). */
  start(i: number, job: BlockJob): void {
    const s = this.slots[i]!;
    s.busy = true;
    Atomics.store(s.flag, 0, 0);
    s.port.postMessage(job);
  }

  /** Waits for worker `i`'s answer; its counts added to `stats`; its error rethrown, typed. */
  wait(i: number, stats: IterateStats): BigBasis | null {
    const s = this.slots[i]!;
    Atomics.wait(s.flag, 0, 0);
    const got = receiveMessageOnPort(s.port);
    s.busy = false;
    if (!got) throw new InternalError('recursive: a block worker signalled without an answer');
    const a = got.message as BlockAnswer;
    if ('error' in a) {
      const { code, message, details } = a.error;
      if (code === 'ITERATION_LIMIT') throw new IterationLimitError(message, details);
      if (code === 'RANK_DEFICIENT' || code === 'ZERO_VECTOR') throw new RankDeficientError(code, message, details);
      throw new InternalError(`recursive: a block worker failed: ${message}`, undefined, details);
    }
    stats.rounds += a.stats.rounds;
    stats.leaves += a.stats.leaves;
    stats.swaps += a.stats.swaps;
    stats.factorisations += a.stats.factorisations;
    stats.depth = Math.max(stats.depth, a.stats.depth);
    stats.workerBlocks += a.stats.workerBlocks;
    return a.Z;
  }

  /** Ends the workers. */
  close(): void {
    for (const s of this.slots) {
      s.port.close();
      void s.worker.terminate();
    }
    this.slots.length = 0;
  }
}
