/**
 * A block worker of parallel.ts: reduces each compressed block it is sent by reduceLevel (one level
 * down) and answers with its transform, then raises the shared flag the caller waits on.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import { LatticeMimoError } from '../../core/index.js';
import type { BigBasis } from '../precision/exact.js';
import { identity, type IterateStats, reduceLevel } from './iterate.js';
import { type BlockAnswer, type BlockJob, FLAG } from './parallel.js';

const { port, flag } = workerData as { port: MessagePort; flag: Int32Array };

port.on('message', (job: BlockJob) => {
  let answer: BlockAnswer;
  try {
    const stats: IterateStats = { rounds: 0, leaves: 0, swaps: 0, factorisations: 0, depth: 0, workerBlocks: 0 };
    const Z: BigBasis = identity(job.block.length);
    const changed = reduceLevel(
      job.block,
      Z,
      {
        delta: job.delta,
        ...(job.innerDelta !== undefined ? { innerDelta: job.innerDelta } : {}),
        eta: job.eta,
        guard: job.guard,
        leafBits: job.leafBits,
        maxRounds: job.maxRounds,
        stats,
      },
      job.depth,
    );
    answer = { Z: changed ? Z : null, stats };
  } catch (err) {
    const e = err as Error;
    answer = {
      error: {
        code: err instanceof LatticeMimoError ? err.code : 'INTERNAL',
        message: e?.message ?? String(err),
        ...(err instanceof LatticeMimoError && err.details ? { details: err.details } : {}),
      },
    };
  }
  port.postMessage(answer);
  Atomics.store(flag, 0, FLAG.IDLE);
  Atomics.notify(flag, 0);
});
