/**
 * Where a detectAsync() call's host time goes: `calls` calls on the same pinned batch (after a
 * warm-up), the median wall time printed; run under `node --cpu-prof` to see the host's share.
 *
 * Usage: node [--cpu-prof] dist/bench/mimo/host-profile.js [--detector zf] [--mod 16qam] [--nt 4]
 *        [--channels 600[,N...]] [--vpc 14] [--calls 200] [--passes N] [--batch 0:0,1092:3,...] [--rounds R] [--trace N]
 *        [--device N] [--fuse on,off] [--curve W] [--unsafe K] [--redo float64,cpu]
 * --batch: a list of maxChunk:streams pairs (the runner's gpuBatch options, 0 = automatic), each
 * timed in turn: how the chunking changes the call.
 * --rounds R: the variants' calls in R interleaved rounds (calls / R each a round).
 * --unsafe K: K channels made nearly singular (float32 cannot carry them; their vectors are redone).
 * --redo float64,cpu: variants redoing those on the detector's float64 kernel (as shipped) or, with
 * that kernel hidden, on the CPU engine.
 * --curve W: the first variant's calls in the order made, the median of each W of them (from the
 * process's first call): how many calls the host path takes to reach its steady state.
 * --fuse on,off: variants where the detector's plan does the engine's normalize and summary stages in
 * its own kernels where it can (on, as shipped) or, its CudaDetectorPlan.fuses hidden, the engine
 * launches them as kernels of their own (off).
 * --trace N: then N more calls of the first variant with every driver call recorded (driver-trace.ts): the last call's
 * time in each driver function, and its timeline.
 * --device N: then N more calls of the first variant with an event after every enqueued op (driver-trace.ts
 * timelineDriver): when each copy and kernel of the last call finished on the device.
 */
import { parseArgs } from 'node:util';
import { Philox } from '../../src/core/rng.js';
import { requireCuda } from '../../src/gpu/context.js';
import { summarizeCalls, timelineDriver, traceDriver, type DeviceOp, type DriverCall } from '../gpu/driver-trace.js';
import { allocPinned } from '../../src/gpu/host-memory.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import { bitsPerSymbolOf, parseModulation } from '../../src/mimo/modulation.js';
import type { Detector } from '../../src/mimo/types.js';
import type { CudaDetector } from '../../src/mimo/gpu/cuda-detector.js';

const { values } = parseArgs({
  options: {
    detector: { type: 'string', default: 'zf' },
    mod: { type: 'string', default: '16qam' },
    nt: { type: 'string', default: '4' },
    channels: { type: 'string', default: '600' },
    vpc: { type: 'string', default: '14' },
    calls: { type: 'string', default: '200' },
    passes: { type: 'string' },
    batch: { type: 'string', default: '0:0' },
    trace: { type: 'string', default: '0' },
    device: { type: 'string', default: '0' },
    rounds: { type: 'string', default: '1' },
    unsafe: { type: 'string', default: '0' },
    redo: { type: 'string', default: 'float64' },
    fuse: { type: 'string', default: 'on' },
    curve: { type: 'string', default: '0' },
  },
});
const ctx = requireCuda();
let deviceTimeline: ReturnType<typeof timelineDriver> | undefined;
const nt = Number(values.nt),
  vpc = Number(values.vpc),
  calls = Number(values.calls);
const mod = parseModulation(values.mod!);
/** Whether the detector's plans may fuse the engine's stages (--fuse; fuseSwitch). */
let fusing = true;
const wrapped = new WeakSet<object>();

/**
 * Makes the plans `impl` creates report their fuses only while `fusing` (the A/B of --fuse): each
 * plan is wrapped once, before the engine keeps it, in an object that inherits its kernels.
 */
function fuseSwitch(impl: CudaDetector): void {
  if (wrapped.has(impl)) return;
  wrapped.add(impl);
  const create = impl.create.bind(impl);
  const off = { normalize: false, summary: false };
  (impl as { create: CudaDetector['create'] }).create = (ctx, setup) => {
    const plan = create(ctx, setup);
    return Object.create(plan, { fuses: { get: () => (fusing ? plan.fuses : off) } }) as typeof plan;
  };
}

// several channel counts run one after the other in this process (as a table of cases does)
for (const channels of values.channels!.split(',').map(Number)) await profile(channels);

async function profile(channels: number): Promise<void> {
  const rng = new Philox(1);
  const H64 = rayleighChannels(rng, channels, nt, nt);
  // --unsafe K: K channels spread over the batch made nearly singular (column 1 = 0.8 column 0 plus
  // 2^-16 of noise), which float32 cannot carry: their vectors are redone in float64
  const unsafe = Number(values.unsafe);
  for (let u = 0; u < unsafe; u++) {
    const o = Math.floor(((u + 0.5) * channels) / unsafe) * 2 * nt * nt;
    for (let i = 0; i < 2 * nt; i++) H64[o + 2 * nt + i] = 0.8 * H64[o + i]! + 2 ** -16 * rng.normal();
  }
  const { symbols } = randomSymbols(rng, channels * vpc * nt, mod);
  const noiseVar = snrToNoiseVar(20, 'esn0', bitsPerSymbolOf(mod));
  const y64 = addNoise(rng, transmit(H64, symbols, nt, nt, vpc), noiseVar);
  const H = allocPinned(ctx, Float32Array, H64.length),
    y = allocPinned(ctx, Float32Array, y64.length);
  H.set(H64);
  y.set(y64);
  const out = {
    symbols: allocPinned(ctx, Int32Array, channels * vpc * nt),
    llr: allocPinned(ctx, Float32Array, channels * vpc * nt * bitsPerSymbolOf(mod)),
  };
  const input = { nt, nr: nt, H, y, vectorsPerChannel: vpc, noiseVar };
  const trace = Number(values.trace) > 0 ? traceDriver(ctx) : null;
  // variants: each --batch pair with each --redo choice (float64: the detector's float64 kernel, as
  // shipped; cpu: that kernel hidden, so flagged vectors go to the CPU engine as without one)
  const impl = await DETECTOR_REGISTRY[values.detector as Detector].cuda!();
  const float64 = impl.float64;
  fuseSwitch(impl);
  const variants = values.batch!.split(',').flatMap((pair) =>
    values.fuse!.split(',').flatMap((fuse) =>
      values.redo!.split(',').map((redo) => {
        const [maxChunk, streams] = pair.split(':').map(Number) as [number, number];
        const opts = {
          detector: values.detector as Detector,
          modulation: mod,
          engine: 'cuda' as const,
          gpuBatch: { maxChunk, streams },
          ...(values.passes ? { passes: Number(values.passes) } : {}),
        };
        return { opts, redo, fuse, ms: [] as number[] };
      }),
    ),
  );
  const redoBy = (redo: string): void => {
    (impl as { float64?: typeof float64 }).float64 = redo === 'cpu' ? undefined : float64;
  };
  // rounds interleave the variants, so that a drift of the machine (clocks, other tenants) falls on all alike
  const rounds = Math.max(1, Number(values.rounds));
  for (let r = 0; r < rounds; r++) {
    for (const { opts, redo, fuse, ms } of variants) {
      redoBy(redo);
      fusing = fuse !== 'off';
      for (let i = 0; i < 5; i++) await detectAsync(input, opts, out);
      for (let i = 0; i < Math.ceil(calls / rounds); i++) {
        const t = performance.now();
        await detectAsync(input, opts, out);
        ms.push(performance.now() - t);
      }
    }
  }
  redoBy('float64');
  fusing = true;
  const w = Number(values.curve);
  if (w > 0) {
    const first = variants[0]!.ms,
      medians: string[] = [];
    for (let i = 0; i + w <= first.length; i += w)
      medians.push(
        first
          .slice(i, i + w)
          .sort((a, b) => a - b)
          [w >> 1]!.toFixed(3),
      );
    console.log(`  the first variant's calls, median of each ${w} in order (ms): ${medians.join(' ')}`);
  }
  for (const { opts, redo, fuse, ms } of variants) {
    ms.sort((a, b) => a - b);
    const q = (f: number) => ms[Math.floor(f * (ms.length - 1))]!.toFixed(3);
    console.log(
      `${values.detector} ${nt}x${nt} ${mod}, ${channels} x ${vpc} vectors${unsafe > 0 ? ` (${unsafe} nearly singular, redone: ${redo})` : ''}, gpuBatch ${JSON.stringify(opts.gpuBatch)}${values.fuse === 'on' ? '' : `, fused stages ${fuse}`}: median ${q(0.5)} ms, min ${q(0)}, quartiles ${q(0.25)} .. ${q(0.75)} ms a call (${ms.length} calls${rounds > 1 ? ` in ${rounds} rounds` : ''})`,
    );
  }
  {
    const { opts } = variants[0]!;
    if (trace) {
      const traced = Number(values.trace);
      let calls: DriverCall[] = [],
        wall = 0,
        first = 0;
      for (let i = 0; i < traced; i++) {
        const t = performance.now();
        trace.start();
        await detectAsync(input, opts, out);
        calls = trace.stop();
        wall += performance.now() - t;
        first = t;
      }
      const us = (ms: number) => `${(ms * 1e3).toFixed(1)} us`;
      const inDriver = calls.reduce((t, c) => t + c.ms, 0);
      console.log(
        `  traced: ${traced} calls, ${us(wall / traced)} a call; the last one made ${calls.length} driver calls, ${us(inDriver)} in the driver:`,
      );
      for (const c of summarizeCalls(calls))
        console.log(`    ${c.name.padEnd(28)} ${String(c.count).padStart(4)} calls ${us(c.ms).padStart(10)}`);
      console.log('  its timeline (us from its start, driver call, us in it, result):');
      for (const c of calls)
        console.log(
          `    ${((c.startMs - first) * 1e3).toFixed(1).padStart(8)}  ${c.name.padEnd(28)} ${(c.ms * 1e3).toFixed(1).padStart(7)}  ${String(c.result)}`,
        );
    }
    if (Number(values.device) > 0) {
      const timeline = (deviceTimeline ??= timelineDriver(ctx));
      let ops: DeviceOp[] = [],
        wall = 0;
      for (let i = 0; i < Number(values.device); i++) {
        const t = performance.now();
        timeline.start();
        await detectAsync(input, opts, out);
        wall = performance.now() - t;
        ops = timeline.stop();
      }
      console.log(
        `  device timeline of the last of ${values.device} calls (${(wall * 1e3).toFixed(1)} us host to host; us: enqueued on the host, finished on the device):`,
      );
      for (const o of ops)
        console.log(
          `    lane ${o.lane}  ${o.name.padEnd(22)} ${(o.hostMs * 1e3).toFixed(1).padStart(8)} ${(o.doneMs * 1e3).toFixed(1).padStart(8)}`,
        );
    }
  }
}
