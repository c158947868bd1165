/**
 * Iterative detection and decoding on the GPU link against the CPU engine: simulate() with mmse-pic
 * on 4x4 16-QAM Rayleigh, `--code` (default wimax:576), at `--esn0` dB Es/N0, for each of `--idd`
 * passes (default 1, 2, 3). Per setting: the CUDA engine's FER and information bits per second (the
 * second of two equal points' wall time: the first compiles), then the CPU engine on `--cpu-frames`
 * frames of the same seed (its FER, its rate on `--threads` threads, and the GPU's speed-up). The
 * two FERs must agree within statistical error (float32 moves only frames decoded near a tie).
 * Usage: node dist/bench/sim/gpu-idd.js [--code SPEC] [--esn0 DB] [--idd LIST] [--frames N] [--cpu-frames N] [--threads N]
 */
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions, SimulationResult } from '../../src/sim/types.js';
import { BenchArgs } from '../args.js';

const cl = BenchArgs.parse(
  'gpu-idd',
  'node dist/bench/sim/gpu-idd.js [--code SPEC] [--esn0 DB] [--idd LIST] [--frames N] [--cpu-frames N] [--threads N]',
  ['code', 'esn0', 'idd', 'frames', 'cpu-frames', 'threads'],
);
const code = cl.text('code', 'wimax:576');
const esn0 = cl.number('esn0', -10, 40, 6);
const passes = cl.numbers('idd', 1, 32, [1, 2, 3], true);
const frames = cl.int('frames', 1, 1e9, 20_000);
const cpuFrames = cl.int('cpu-frames', 1, 1e9, 400);
const threads = cl.int('threads', 1, 256, 2);

/** The second point's result and wall time (ms) of a run of two equal points. */
async function run(o: SimulationOptions): Promise<{ r: SimulationResult; ms: number }> {
  let ms = 0;
  const r = await simulate({
    ...o,
    onProgress: (e) => {
      if (e.type === 'point' && e.snrIndex === 1) ms = e.pointWallMs;
    },
  });
  return { r, ms };
}

const base: SimulationOptions = {
  nt: 4,
  nr: 4,
  modulation: '16qam',
  detectors: [{ detector: 'mmse-pic' }],
  code,
  snrs: [esn0, esn0],
  maxErrors: Number.MAX_SAFE_INTEGER,
  seed: 1,
};
console.log(`IDD, mmse-pic, 4x4 16-QAM Rayleigh, ${code}, Es/N0 ${esn0} dB, seed 1:`);
for (const idd of passes) {
  const gpu = await run({ ...base, idd, engine: 'cuda', maxFrames: frames });
  const cpu = await run({ ...base, idd, engine: 'cpu', maxFrames: cpuFrames, threads });
  const g = gpu.r.points[1]!,
    c = cpu.r.points[1]!;
  // information bits per ms / 1e3: Mbit/s
  const gRate = g.bits / 1e3 / gpu.ms,
    cRate = c.bits / 1e3 / cpu.ms;
  console.log(
    `  idd ${idd}: GPU FER ${g.fer.toExponential(3)} (${g.frames} frames) ${gRate.toFixed(2)} Mbit/s; CPU FER ${c.fer.toExponential(3)} (${c.frames} frames, ${threads} threads) ${cRate.toFixed(3)} Mbit/s; GPU ${(gRate / cRate).toFixed(0)}x`,
  );
}
