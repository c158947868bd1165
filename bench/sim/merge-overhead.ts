/**
 * simulate()'s own host work a unit, apart from any engine: an executor that answers every chunk at
 * once with fixed counts (1 bit, symbol and frame error a unit, never a stop) stands in for the GPU
 * link, so the wall time of a point is simulate()'s side alone (dispatch, the chunks' results, the
 * merge and the stop rules) plus the stand-in's filling of its rows. `--units` units of
 * `--unit-vectors` vectors a point, chunks of `--chunk` vectors (whole units), four equal points
 * (the first warms up); prints microseconds a unit of each point. With units as large as the chunk
 * the per-unit part vanishes and what is left is the per-chunk cost.
 *
 *   node dist/bench/sim/merge-overhead.js [--units N] [--unit-vectors N] [--chunk N] [--detectors N]
 */
import { addCounts, emptyChunkResult, type ChunkResult, type ChunkTask } from '../../src/sim/chunk.js';
import { simulateWith } from '../../src/sim/simulate.js';
import type { ChunkExecutor } from '../../src/sim/worker-pool.js';
import { BenchArgs } from '../args.js';

const cl = BenchArgs.parse(
  'merge-overhead',
  'node dist/bench/sim/merge-overhead.js [--units N] [--unit-vectors N] [--chunk N] [--detectors N]',
  ['units', 'unit-vectors', 'chunk', 'detectors'],
);
const units = cl.number('units', 1, 2 ** 24, 131072, true);
const unitVectors = cl.number('unit-vectors', 1, 2 ** 20, 1024, true);
const chunk = cl.number('chunk', unitVectors, 2 ** 24, 65536, true);
const detectors = cl.number('detectors', 1, 4, 1, true);
if (chunk % unitVectors !== 0) cl.fail('--chunk must be a multiple of --unit-vectors');

/** Answers a chunk at once: every unit 1 bit, symbol and frame error for each active detector. */
const instant: ChunkExecutor<ChunkTask, ChunkResult> = {
  parallelism: 4 * (chunk / unitVectors),
  run(task: ChunkTask): Promise<ChunkResult> {
    const r = emptyChunkResult(task);
    for (const d of task.active)
      for (let i = 0; i < task.unitSizes.length; i++)
        addCounts(r, d, i, { bitErrors: 1, symbolErrors: 1, frameErrors: 1, timeMs: 0.001 });
    return Promise.resolve(r);
  },
  close: async () => {},
};

const walls: number[] = [];
await simulateWith(
  {
    nt: 4,
    nr: 4,
    modulation: '16qam',
    detectors: Array.from({ length: detectors }, () => ({ detector: 'zf' as const })),
    snrs: [20, 20, 20, 20],
    maxErrors: Number.MAX_SAFE_INTEGER,
    maxVectors: units * unitVectors,
    unitVectors,
    chunkVectors: chunk,
    seed: 1,
    engine: 'cpu',
    onProgress: (e) => {
      if (e.type === 'point') walls.push(e.pointWallMs);
    },
  },
  async () => instant,
);
console.log(
  `${units} units of ${unitVectors} vectors a point, chunks of ${chunk}, ${detectors} detector(s): ` +
    walls.map((w) => `${((w * 1000) / units).toFixed(3)}`).join(' / ') +
    ' us a unit (points 1-4; the first warms up)',
);
