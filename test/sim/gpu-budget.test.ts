/**
 * The node budget on the GPU link (src/sim/gpu/executor.ts): under onBudget 'flag' each point
 * counts its unproven vectors as the CPU engine does for the same seed (the per-thread sphere
 * kernel, 2x2 and 4x4 QPSK, searches step for step as cpu.ts); under 'error' the run stops with the
 * NODE_BUDGET error naming the same SNR point, chunk and vector as the CPU engine's, with the same
 * finished points. The tests skip without a CUDA device, saying so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { LatticeMimoError } from '../../src/core/errors.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { partialResult } from '../../src/sim/report.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions } from '../../src/sim/types.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

test("device simulate, onBudget 'flag': the GPU link counts the unproven vectors of each point as the CPU engine does", {
  skip,
}, async (t) => {
  for (const nt of [2, 4]) {
    const opts: SimulationOptions = {
      nt,
      nr: nt,
      modulation: 'qpsk',
      detectors: [{ detector: 'sphere', maxNodes: 4 * nt + 2 + randomInt(8), onBudget: 'flag' }, { detector: 'zf' }],
      snrs: [-3, 3, 9],
      maxErrors: 1e9,
      maxVectors: 8192 * (1 + randomInt(3)),
      chunkVectors: 4096,
      seed: randomInt(2 ** 30),
    };
    const cpu = await simulate({ ...opts, engine: 'cpu', threads: 2 });
    const gpu = await simulate({ ...opts, engine: 'cuda' });
    assert.equal(gpu.engine, 'cuda');
    for (const [i, c] of cpu.points.entries()) {
      const g = gpu.points[i]!;
      t.diagnostic(
        `${nt}x${nt} ${c.detector} ${c.snr} dB: unproven CPU ${c.unproven}, GPU ${g.unproven} of ${c.vectors}`,
      );
      assert.equal(g.vectors, c.vectors);
      if (c.algorithm === 'zf') assert.equal(g.unproven, 0);
      else
        assert.equal(
          g.unproven,
          c.unproven,
          `seed ${opts.seed} ${nt}x${nt} at ${c.snr} dB, budget ${opts.detectors[0]!.maxNodes}`,
        );
    }
    assert.ok(
      cpu.points.some((p) => p.unproven > 0),
      'some vector reached the budget',
    );
  }
});

test("device simulate, onBudget 'error': the GPU link's NODE_BUDGET names the CPU engine's point, chunk and vector, with the same finished points", {
  skip,
}, async () => {
  const opts: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }, { detector: 'sphere', maxNodes: 10 + randomInt(4) }],
    snrs: [40, 30, -4],
    maxErrors: 1e9,
    maxVectors: 16_384,
    chunkVectors: 2048,
    seed: randomInt(2 ** 30),
  };
  const failure = async (engine: 'cpu' | 'cuda') => {
    const e = await simulate({ ...opts, engine, threads: 2 }).then(
      () => null,
      (err: unknown) => err,
    );
    assert.ok(e instanceof LatticeMimoError && e.code === 'NODE_BUDGET', `${engine}: ${String(e)}`);
    return e;
  };
  const [cpu, gpu] = [await failure('cpu'), await failure('cuda')];
  assert.deepEqual({ ...gpu.context }, { ...cpu.context }, `seed ${opts.seed}`);
  assert.equal(gpu.message, cpu.message);
  const strip = (r: ReturnType<typeof partialResult>) => r!.points.map(({ timeMs: _t, ...p }) => p);
  const [pc, pg] = [strip(partialResult(cpu)), strip(partialResult(gpu))];
  assert.equal(pg.length, pc.length);
  // the same finished points (zf's bit errors may move by a float32 near-tie)
  for (const [i, c] of pc.entries()) {
    const g = pg[i]!;
    assert.deepEqual([g.detector, g.snrIndex, g.vectors, g.unproven], [c.detector, c.snrIndex, c.vectors, c.unproven]);
    assert.ok(Math.abs(g.bitErrors - c.bitErrors) <= 2, `${c.detector} ${c.snr} dB: ${g.bitErrors} vs ${c.bitErrors}`);
  }
});
