/**
 * Worker threads for the recursion's independent blocks. The two halves of a round, [0, h) and
 * [h, m), are independent given the round's factor: the first half's reduction keeps the span of
 * its columns, so the second half's projected sublattice (its compressed copy) is the same before
 * and after it. A pool of `threads - 1` workers takes one half while the calling thread reduces the
 * other; the calling thread waits for a result synchronously (Atomics.wait on a shared flag, then
 * receiveMessageOnPort), so the recursion stays one synchronous function and its output is the
 * one-thread output, operation for operation. The workers are started and watched by a supervisor
 * thread (supervisor.ts), whose event loop sees a worker end without answering (out of memory, a
 * crash) while the calling thread is blocked: it raises the worker's flag as DIED, and the caller
 * wakes with a typed error instead of waiting forever.
 *
 * Shapes: a block is k columns of k BigInts (a compressed copy, compress.ts); its result is the
 * transform Z (k columns of k BigInts) with the block's reduction = block Z, or null (unchanged).
 */
import {
  MessageChannel,
  type MessagePort,
  type ResourceLimits,
  receiveMessageOnPort,
  Worker,
} from 'node:worker_threads';
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

/**
 * A worker's shared flag: [state, exit code, out of memory (1 or 0)]; state WORKING while it has a
 * block, IDLE once it answered, DIED once it ended (the supervisor's word, with its exit code).
 */
export const FLAG = { WORKING: 0, IDLE: 1, DIED: 2 } as const;

interface Slot {
  port: MessagePort;
  flag: Int32Array;
  busy: boolean;
}

/** A pool of block workers; close() ends them (the caller's finally). */
export class BlockPool {
  private readonly slots: Slot[] = [];
  private readonly supervisor: Worker;

  /** `limits`: each block worker's V8 resource limits (Node's defaults when absent). */
  constructor(workers: number, limits?: ResourceLimits) {
    const ports: MessagePort[] = [];
    for (let i = 0; i < workers; i++) {
      const flag = new Int32Array(new SharedArrayBuffer(12));
      flag[0] = FLAG.IDLE;
      const { port1, port2 } = new MessageChannel();
      ports.push(port2);
      this.slots.push({ port: port1, flag, busy: false });
    }
    this.supervisor = new Worker(new URL('./supervisor.js', import.meta.url), {
      workerData: { ports, flags: this.slots.map((s) => s.flag), ...(limits ? { limits } : {}) },
      transferList: ports,
    });
    this.supervisor.unref();
  }

  /** A free worker's index, or -1. */
  free(): number {
    return this.slots.findIndex((s) => !s.busy);
  }

  /** Sends a block to worker `i` (free()); a worker that has ended is an InternalError. */
  start(i: number, job: BlockJob): void {
    const s = this.slots[i]!;
    if (Atomics.compareExchange(s.flag, 0, FLAG.IDLE, FLAG.WORKING) !== FLAG.IDLE) throw this.died(i);
    s.busy = true;
    s.port.postMessage(job);
  }

  /** Waits for worker `i`'s answer; its counts added to `stats`; its error rethrown, typed. */
  wait(i: number, stats: IterateStats): BigBasis | null {
    const s = this.slots[i]!;
    Atomics.wait(s.flag, 0, FLAG.WORKING);
    const got = receiveMessageOnPort(s.port);
    s.busy = false;
    if (!got) {
      if (Atomics.load(s.flag, 0) === FLAG.DIED) throw this.died(i);
      throw new InternalError('recursive: a block worker signalled without an answer');
    }
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

  /** The error of worker `i` having ended: its exit code, and whether it ran out of memory. */
  private died(i: number): InternalError {
    const f = this.slots[i]!.flag;
    const exitCode = Atomics.load(f, 1),
      outOfMemory = Atomics.load(f, 2) === 1;
    return new InternalError(
      `recursive: block worker ${i} ended without answering (exit code ${exitCode}${outOfMemory ? ', out of memory' : ''})`,
      undefined,
      { worker: i, exitCode, outOfMemory },
    );
  }

  /** Ends the workers (the supervisor's end ends them). */
  close(): void {
    for (const s of this.slots) s.port.close();
    void this.supervisor.terminate();
    this.slots.length = 0;
  }
}
