/**
 * The staged GPU path of coded runs (src/sim/gpu/coded-executor.ts): on the CPU entries of its two
 * stages it gives runChunk's counts exactly (the sequence is right); on a device (skipped here
 * without one) a GPU run and a CPU run of one seed agree within statistical error (float32 LLRs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { cudaAvailable } from '../../src/gpu/context.js';
import { runChunk, type ChunkTask } from '../../src/sim/chunk.js';
import { codeOf, codedUnit, vectorsPerFrame } from '../../src/sim/coded.js';
import { GpuCodedExecutor } from '../../src/sim/gpu/coded-executor.js';
import { simulate } from '../../src/sim/simulate.js';
import type { DetectOptions } from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

test('the staged sequence on the CPU entries gives runChunk\'s counts', async () => {
  const exec = new GpuCodedExecutor('cpu');
  try {
    for (const [nt, modulation, code, vpc] of [[2, 'qpsk', 'wimax:576', 1], [2, '16qam', `nr:bg2:${40 + randomInt(300)}:1/2`, 2], [3, '64qam', 'wimax:672', 3]] as const) {
      const c = codeOf(code, modulation);
      const unit = codedUnit(vectorsPerFrame(c.n, nt, modulation === 'qpsk' ? 2 : modulation === '16qam' ? 4 : 6), vpc);
      const detectors: DetectOptions[] = [{ detector: 'nway', modulation, engine: 'cpu' }, { detector: 'kbest', k: 8, modulation, engine: 'cpu', llrClip: 8 }];
      const task: ChunkTask = {
        nt, nr: nt, modulation, vectorsPerChannel: vpc, seed, detectors, active: [0, 1], snrIndex: randomInt(4), chunkIndex: randomInt(100),
        vectors: 2 * unit, noiseVar: 0.05 + Math.random() * 0.3, coded: { code, decoder: { maxIterations: 6 } }, sliceVectors: unit,
      };
      const want = runChunk(task);
      const got = await exec.run(task);
      const strip = (r: typeof want) => r.counts.map((x) => x && { ...x, timeMs: 0 });
      assert.deepEqual(strip(got), strip(want), msg(`${code} ${nt} ${modulation}`));
      assert.ok(want.counts[0]!.frames! > 0);
    }
  } finally {
    await exec.close();
  }
});

test('GPU and CPU coded runs of one seed agree within statistical error', { skip }, async () => {
  const base = {
    nt: 4, nr: 4, modulation: '16qam' as const, code: 'wimax:2304:1/2', detectors: [{ detector: 'nway' as const }],
    snrs: [3, 3.5], snrType: 'ebn0' as const, maxFrames: 300, maxErrors: 1e6, seed,
  };
  const gpu = await simulate({ ...base, engine: 'cuda' });
  const cpu = await simulate({ ...base, engine: 'cpu', threads: 2 });
  assert.equal(gpu.engine, 'cuda');
  for (let i = 0; i < gpu.points.length; i++) {
    const g = gpu.points[i]!, c = cpu.points[i]!;
    assert.equal(g.frames, c.frames);
    const p = (g.fer + c.fer) / 2;
    const tol = 4 * Math.sqrt((2 * p * (1 - p)) / g.frames) + 2 / g.frames;
    assert.ok(Math.abs(g.fer - c.fer) <= tol, msg(`FER GPU ${g.fer} vs CPU ${c.fer} at ${g.snr} dB`));
    // hard decisions of the detector: float32 moves only near-ties
    assert.ok(Math.abs(g.symbolErrors - c.symbolErrors) <= 0.01 * c.symbols, msg(`symbol errors ${g.symbolErrors} vs ${c.symbolErrors}`));
  }
});
