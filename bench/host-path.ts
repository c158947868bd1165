/**
 * reduce() on host arrays, the check off, against the host-link floor: the time a user who calls
 * reduce() from JavaScript waits per basis, for three ways of holding the data:
 *  - fresh: ordinary arrays, new result arrays each call (what a plain call does);
 *  - reused: ordinary input, results into the same ordinary arrays each call (ReduceOptions.out);
 *  - pinned: input and results on pinned memory from hostBatch() (no staging copy at all).
 * link floor = input bytes / upload rate + output bytes (basis, Z, status words) / download rate,
 * the rates measured here on pinned memory (256 MiB copies); kernel = the engine's event time.
 *
 * Usage: node dist/bench/host-path.js [--reps 5] [--cases 8x8,68x64,1028x1024] [--modes fresh,reused,pinned] [--delta D] [--seed S] [--out FILE.json] [--variants] [--timeline]
 * (--modes pinned alone: only the pinned calls, for a CPU profile of that path: `node --cpu-prof`.)
 * (--timeline: one more pinned call with an event after every enqueued op: when each copy and kernel finished on the device.)
 * (--delta: LLL's delta, reduce()'s default when absent; `bench lattice` times its kernels at 0.75;
 * --seed: the bases' seed, default 1.)
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  blockToeplitzBases,
  gaussianBases,
  hostBatch,
  reduce,
  type MatrixBatch,
  type ReduceOptions,
} from '../src/index.js';
import type { BatchRunOptions } from '../src/gpu/batch-runner.js';
import { requireCuda } from '../src/gpu/context.js';
import { DeviceBuffer, PinnedBuffer } from '../src/gpu/memory.js';
import { Stream, timeOnStream } from '../src/gpu/stream.js';
import { timelineDriver } from './gpu/driver-trace.js';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '5' },
    cases: { type: 'string', default: '8x8,68x64,1028x1024' },
    delta: { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    variants: { type: 'boolean', default: false },
    timeline: { type: 'boolean', default: false },
    modes: { type: 'string', default: 'fresh,reused,pinned' },
  },
});
const modes = new Set(values.modes!.split(','));
for (const m of modes)
  if (!['fresh', 'reused', 'pinned'].includes(m)) throw new Error(`unknown mode '${m}' (fresh, reused, pinned)`);
if (!modes.has('pinned')) throw new Error('--modes must include pinned (the figures compare against it)');
const seed = Number(values.seed);
const reps = Number(values.reps);
const ctx = requireCuda();

function linkRates(): { up: number; down: number } {
  const bytes = 256 * 2 ** 20;
  const stream = Stream.create(ctx);
  const d = DeviceBuffer.alloc(ctx, bytes),
    h = PinnedBuffer.alloc(ctx, bytes);
  h.u8().fill(0x5a);
  const up = timeOnStream(ctx, stream, () => d.uploadAsync(h, stream, bytes), 7, 1).medianMs;
  const down = timeOnStream(ctx, stream, () => d.downloadAsync(h, stream, bytes), 7, 1).medianMs;
  d.free();
  h.free();
  stream.destroy();
  return { up: bytes / (up / 1e3), down: bytes / (down / 1e3) };
}

interface Case {
  name: string;
  bases: MatrixBatch;
  algorithm: 'allswap';
}

function cases(): Case[] {
  const all: Record<string, () => Case> = {
    '8x8': () => ({
      name: '8x8 Gaussian float32 x 131072',
      bases: gaussianBases({ batch: 131072, n: 8, seed, precision: 'float32' }),
      algorithm: 'allswap',
    }),
    '68x64': () => ({
      name: '68x64 block-Toeplitz float32 x 4096',
      bases: blockToeplitzBases({
        batch: 4096,
        blocks: 32,
        blockSize: 1,
        complex: true,
        taps: 3,
        shape: 'full',
        seed,
        precision: 'float32',
      }),
      algorithm: 'allswap',
    }),
    '1028x1024': () => ({
      name: '1028x1024 block-Toeplitz float32 x 1',
      bases: blockToeplitzBases({
        batch: 1,
        blocks: 512,
        blockSize: 1,
        complex: true,
        taps: 3,
        shape: 'full',
        seed,
        precision: 'float32',
      }),
      algorithm: 'allswap',
    }),
  };
  return values.cases!.split(',').map((c) => {
    const make = all[c];
    if (!make) throw new Error(`unknown case '${c}' (${Object.keys(all).join(', ')})`);
    return make();
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeCalls(
  call: () => Promise<{ stats: { gpu?: { kernelMs: number; totalMs: number } } }>,
): Promise<{ wallMs: number; kernelMs: number; engineMs: number }> {
  await call(); // warm-up: compile, workspace
  const wall: number[] = [],
    kernel: number[] = [],
    engine: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    const r = await call();
    wall.push(performance.now() - t);
    kernel.push(r.stats.gpu?.kernelMs ?? NaN);
    engine.push(r.stats.gpu?.totalMs ?? NaN);
  }
  return { wallMs: median(wall), kernelMs: median(kernel), engineMs: median(engine) };
}

let deviceTimeline: ReturnType<typeof timelineDriver> | undefined;
const rates = linkRates();
const rows: Array<Record<string, string | number>> = [];
console.log(
  `host link: ${(rates.up / 1e9).toFixed(1)} GB/s up, ${(rates.down / 1e9).toFixed(1)} GB/s down (pinned, 256 MiB)`,
);
for (const c of cases()) {
  const { batch, rows: n, cols: m } = c.bases;
  const opts: ReduceOptions = {
    algorithm: c.algorithm,
    precision: 'float32',
    engine: 'cuda',
    check: false,
    ...(values.delta ? { delta: Number(values.delta) } : {}),
  };
  const inBytes = n * m * 4,
    outBytes = n * m * 4 + m * m * 8 + 5 * 4;
  const floorMs = ((batch * inBytes) / rates.up + (batch * outBytes) / rates.down) * 1e3;
  const skipped = { wallMs: NaN, kernelMs: NaN, engineMs: NaN };
  const fresh = modes.has('fresh') ? await timeCalls(() => reduce(c.bases, opts)) : skipped;
  const reusedOut = {
    basis: new Float32Array(batch * n * m),
    transform: new Float64Array(batch * m * m),
    counts: new Int32Array(3 * batch),
  };
  const reused = modes.has('reused') ? await timeCalls(() => reduce(c.bases, { ...opts, out: reusedOut })) : skipped;
  const pin = await hostBatch({ batch, rows: n, cols: m, precision: 'float32' });
  pin.data.set(c.bases.data);
  const pinOut = await hostBatch({ batch, rows: n, cols: m, precision: 'float32' });
  const pinZ = await hostBatch({ batch, rows: m, cols: m, precision: 'float64' });
  // every result array reused over the calls (the counts too: fresh memory's page faults cost the host more than the copies)
  const pinnedOut = { basis: pinOut.data, transform: pinZ.data as Float64Array, counts: new Int32Array(3 * batch) };
  const pinned = await timeCalls(() => reduce(pin, { ...opts, out: pinnedOut }));
  // the three ways give the same results
  const a = await reduce(c.bases, opts),
    b = await reduce(pin, { ...opts, out: pinnedOut });
  const same =
    a.transform.data.every((v, i) => Object.is(v, b.transform.data[i])) &&
    a.basis.data.every((v, i) => Object.is(v, b.basis.data[i]));
  const us = (ms: number) => (ms * 1e3) / batch;
  const row = {
    case: c.name,
    kernelUs: us(pinned.kernelMs),
    engineUs: us(pinned.engineMs),
    freshUs: us(fresh.wallMs),
    reusedUs: us(reused.wallMs),
    pinnedUs: us(pinned.wallMs),
    linkFloorUs: us(floorMs),
    pinnedOverFloor: pinned.wallMs / floorMs,
    kernelPlusLinkOverFloor: pinned.wallMs / (floorMs + pinned.kernelMs),
    sameResults: String(same),
  };
  rows.push(row);
  if (values.variants) {
    // the runner's chunking and lanes on the pinned path, interleaved call by call (the device's
    // clocks and the host's load drift over a run): where the time goes
    const variants: BatchRunOptions[] = [
      {},
      { streams: 2 },
      { chunks: 3 },
      { chunks: 4 },
      { chunks: 6 },
      { chunks: 8 },
      { chunks: 12 },
      { chunks: 16 },
      { chunks: 4, streams: 2 },
    ];
    const call = (b: BatchRunOptions) => reduce(pin, { ...opts, gpuTuning: { batch: b }, out: pinnedOut });
    for (const b of variants) await call(b);
    const wall = variants.map(() => [] as number[]),
      kern = variants.map(() => [] as number[]);
    for (let r = 0; r < 3 * reps; r++) {
      for (const [i, b] of variants.entries()) {
        // an untimed call first: a variant of more lanes or larger chunks than the last one
        // reallocates the runner's lanes, which a caller repeating one shape does not pay
        await call(b);
        const t = performance.now();
        const res = await call(b);
        wall[i]!.push(performance.now() - t);
        kern[i]!.push(res.stats.gpu?.kernelMs ?? NaN);
      }
    }
    for (const [i, b] of variants.entries()) {
      const w = median(wall[i]!),
        k = median(kern[i]!);
      console.log(
        `  ${c.name} ${JSON.stringify(b).padEnd(30)} wall ${(us(w) * 1e3).toFixed(1)} ns (min ${(us(Math.min(...wall[i]!)) * 1e3).toFixed(1)}), kernel events ${(us(k) * 1e3).toFixed(1)} ns a basis: ${(w / floorMs).toFixed(2)}x the link floor`,
      );
    }
  }
  if (values.timeline) {
    const timeline = (deviceTimeline ??= timelineDriver(ctx));
    const call = () => reduce(pin, { ...opts, out: pinnedOut });
    await call();
    const t = performance.now();
    timeline.start();
    await call();
    const wall = performance.now() - t;
    const ops = timeline.stop();
    console.log(
      `  ${c.name}: device timeline of one pinned call (${(wall * 1e3).toFixed(1)} us host to host; link floor ${(floorMs * 1e3).toFixed(1)} us; us: enqueued on the host, finished on the device):`,
    );
    for (const o of ops)
      console.log(
        `    lane ${o.lane}  ${o.name.padEnd(22)} ${(o.hostMs * 1e3).toFixed(1).padStart(8)} ${(o.doneMs * 1e3).toFixed(1).padStart(8)}`,
      );
  }
  const f = (x: number) => (x >= 1 ? `${x.toFixed(2)} us` : `${(x * 1e3).toFixed(1)} ns`);
  console.log(
    `${c.name}: kernel ${f(row.kernelUs)} (engine call ${f(row.engineUs)}), fresh ${f(row.freshUs)}, reused ${f(row.reusedUs)}, pinned ${f(row.pinnedUs)} a basis; link floor ${f(row.linkFloorUs)}: pinned ${row.pinnedOverFloor.toFixed(2)}x the link floor, ${row.kernelPlusLinkOverFloor.toFixed(2)}x kernel + link; same results: ${same}`,
  );
}
if (values.out) writeFileSync(values.out, JSON.stringify({ date: new Date().toISOString(), rates, rows }, null, 2));
