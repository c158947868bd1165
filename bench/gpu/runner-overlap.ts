/**
 * Does the batch runner (src/gpu/batch-runner.ts) overlap one chunk's copies with another's
 * kernels? A synthetic job with the host traffic of the 8x8 float32 lattice batch (256 B in,
 * 256 + 512 B out and a status word an item, on pinned memory) and a memory-bound kernel whose time
 * grows with the chunk (runner-overlap.cu), run with each chunking and lane count; beside it the
 * three parts alone: uploads, kernels (one launch of the whole batch) and downloads. Overlap is
 * working when a run takes well under their sum.
 *
 * Usage: node dist/bench/gpu/runner-overlap.js [--items 131072] [--scratch-words 1536] [--passes 1] [--reps 5]
 */
import { parseArgs } from 'node:util';
import { requireCuda } from '../../src/gpu/context.js';
import { runBatch, type BatchRunOptions } from '../../src/gpu/batch-runner.js';
import { allocPinned } from '../../src/gpu/host-memory.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '131072' },
    'scratch-words': { type: 'string', default: '1536' },
    passes: { type: 'string', default: '1' },
    reps: { type: 'string', default: '5' },
  },
});
const items = Number(values.items),
  scratchWords = Number(values['scratch-words']),
  passes = Number(values.passes),
  reps = Number(values.reps);
const inWords = 64,
  out1Words = 128;
const ctx = requireCuda();
ctx.makeCurrent();
const kernel = loadModule(ctx, {
  source: readKernelSource(new URL('./runner-overlap.cu', import.meta.url)),
  name: 'bench/runner-overlap.cu',
}).kernel('runner_overlap', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'i32']);
const GRID = 132 * 8,
  BLOCK = 256;

const input = allocPinned(ctx, Float32Array, items * inWords).fill(1);
const out0 = allocPinned(ctx, Float32Array, items * inWords),
  out1 = allocPinned(ctx, Float32Array, items * out1Words);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// the parts alone, on one stream
const stream = Stream.create(ctx);
const dIn = DeviceBuffer.alloc(ctx, input.byteLength),
  d0 = DeviceBuffer.alloc(ctx, out0.byteLength),
  d1 = DeviceBuffer.alloc(ctx, out1.byteLength);
const dScratch = DeviceBuffer.alloc(ctx, items * scratchWords * 4),
  dStatus = DeviceBuffer.alloc(ctx, items * 4);
const { pinnedAddress } = await import('../../src/gpu/host-memory.js');
const up = timeOnStream(
  ctx,
  stream,
  () => dIn.uploadFromAsync(pinnedAddress(input)!, stream, input.byteLength),
  reps,
  1,
).medianMs;
const down = timeOnStream(
  ctx,
  stream,
  () => {
    d0.downloadToAsync(pinnedAddress(out0)!, stream, out0.byteLength);
    d1.downloadToAsync(pinnedAddress(out1)!, stream, out1.byteLength);
  },
  reps,
  1,
).medianMs;
const kern = timeOnStream(
  ctx,
  stream,
  () =>
    kernel.launch({ grid: GRID, block: BLOCK, stream }, [
      dIn.ptr,
      d0.ptr,
      d1.ptr,
      dScratch.ptr,
      dStatus.ptr,
      items,
      inWords,
      out1Words,
      scratchWords,
      passes,
    ]),
  reps,
  1,
).medianMs;
for (const b of [dIn, d0, d1, dScratch, dStatus]) b.free();
stream.destroy();
console.log(
  `${items} items: uploads ${up.toFixed(3)} ms, kernel (one launch) ${kern.toFixed(3)} ms, downloads ${down.toFixed(3)} ms; sum ${(up + kern + down).toFixed(3)} ms, max ${Math.max(up, kern, down).toFixed(3)} ms`,
);

async function run(
  options: BatchRunOptions,
): Promise<{ ms: number; kernelMs: number; chunks: number; streams: number }> {
  const job = {
    name: 'runner-overlap',
    items,
    inputs: [{ array: input, bytesPerItem: inWords * 4 }],
    outputs: [
      { array: out0, bytesPerItem: inWords * 4 },
      { array: out1, bytesPerItem: out1Words * 4 },
    ],
    scratch: [{ bytesPerItem: scratchWords * 4 }],
    statusWords: 1,
    options,
    enqueue(
      s: Stream,
      c: {
        count: number;
        inputs: readonly bigint[];
        outputs: readonly bigint[];
        scratch: readonly bigint[];
        status: bigint;
      },
    ) {
      kernel.launch({ grid: GRID, block: BLOCK, stream: s }, [
        c.inputs[0]!,
        c.outputs[0]!,
        c.outputs[1]!,
        c.scratch[0]!,
        c.status,
        c.count,
        inWords,
        out1Words,
        scratchWords,
        passes,
      ]);
    },
    settle() {},
  };
  await runBatch(ctx, job);
  const ms: number[] = [];
  let last = { kernelMs: 0, chunks: 0, streams: 0 };
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    last = await runBatch(ctx, job);
    ms.push(performance.now() - t);
  }
  return { ms: median(ms), ...last };
}

for (const options of [
  {},
  { streams: 1 },
  { streams: 2 },
  { streams: 3 },
  { maxChunk: items / 4, streams: 2 },
  { maxChunk: items / 4, streams: 3 },
  { maxChunk: items / 16, streams: 3 },
  { maxChunk: items / 2, streams: 2 },
]) {
  const r = await run(options);
  console.log(
    `${JSON.stringify(options).padEnd(32)} ${r.ms.toFixed(3)} ms wall (${r.chunks} chunks, ${r.streams} streams, kernel events ${r.kernelMs.toFixed(3)} ms): ${(r.ms / (up + kern + down)).toFixed(2)} of the sum, ${(r.ms / Math.max(up, kern, down)).toFixed(2)} of the max`,
  );
}
