/**
 * Where a detectAsync() call's host time goes: `calls` calls on the same pinned batch (after a
 * warm-up), the median wall time printed; run under `node --cpu-prof` to see the host's share.
 *
 * Usage: node [--cpu-prof] dist/bench/mimo/host-profile.js [--detector zf] [--mod 16qam] [--nt 4]
 *        [--channels 600] [--vpc 14] [--calls 200] [--passes N] [--batch 0:0,1092:3,...]
 * --batch: a list of maxChunk:streams pairs (the runner's gpuBatch options, 0 = automatic), each
 * timed in turn: how the chunking changes the call.
 */
import { parseArgs } from 'node:util';
import { Philox } from '../../src/core/rng.js';
import { requireCuda } from '../../src/gpu/context.js';
import { allocPinned } from '../../src/gpu/host-memory.js';
import { addNoise, randomSymbols, rayleighChannels, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { bitsPerSymbolOf, parseModulation } from '../../src/mimo/modulation.js';
import type { Detector } from '../../src/mimo/types.js';

const { values } = parseArgs({ options: {
  detector: { type: 'string', default: 'zf' }, mod: { type: 'string', default: '16qam' }, nt: { type: 'string', default: '4' },
  channels: { type: 'string', default: '600' }, vpc: { type: 'string', default: '14' }, calls: { type: 'string', default: '200' },
  passes: { type: 'string' }, batch: { type: 'string', default: '0:0' },
} });
const ctx = requireCuda();
const nt = Number(values.nt), channels = Number(values.channels), vpc = Number(values.vpc), calls = Number(values.calls);
const mod = parseModulation(values.mod!);
const rng = new Philox(1);
const H64 = rayleighChannels(rng, channels, nt, nt);
const { symbols } = randomSymbols(rng, channels * vpc * nt, mod);
const noiseVar = snrToNoiseVar(20, 'esn0', bitsPerSymbolOf(mod));
const y64 = addNoise(rng, transmit(H64, symbols, nt, nt, vpc), noiseVar);
const H = allocPinned(ctx, Float32Array, H64.length), y = allocPinned(ctx, Float32Array, y64.length);
H.set(H64); y.set(y64);
const out = { symbols: allocPinned(ctx, Int32Array, channels * vpc * nt), llr: allocPinned(ctx, Float32Array, channels * vpc * nt * bitsPerSymbolOf(mod)) };
const input = { nt, nr: nt, H, y, vectorsPerChannel: vpc, noiseVar };
for (const pair of values.batch!.split(',')) {
  const [maxChunk, streams] = pair.split(':').map(Number) as [number, number];
  const opts = {
    detector: values.detector as Detector, modulation: mod, engine: 'cuda' as const, gpuBatch: { maxChunk, streams },
    ...(values.passes ? { passes: Number(values.passes) } : {}),
  };
  for (let i = 0; i < 5; i++) await detectAsync(input, opts, out);
  const ms: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await detectAsync(input, opts, out);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  console.log(`${values.detector} ${nt}x${nt} ${mod}, ${channels} x ${vpc} vectors, gpuBatch ${JSON.stringify(opts.gpuBatch)}: median ${ms[ms.length >> 1]!.toFixed(3)} ms, min ${ms[0]!.toFixed(3)} ms a call (${calls} calls)`);
}
