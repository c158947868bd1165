/**
 * The CUDA runtime (src/gpu): probing, NVRTC, module cache, buffers, launches, streams, events and
 * error mapping. Without a device only the probe is tested (it must answer, never throw); the rest
 * skips, saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CudaError, InvalidArgumentError } from '../../src/core/errors.js';
import { chunksFor } from '../../src/gpu/batch-runner.js';
import { checkBatchRunOptions } from '../../src/gpu/batch-options.js';
import { BatchWorkspace } from '../../src/gpu/workspace.js';
import { Philox } from '../../src/core/rng.js';
import {
  CudaContext,
  CudaEvent,
  DeviceBuffer,
  PinnedBuffer,
  Stream,
  cudaAvailable,
  allocPinned,
  describeCuda,
  loadModule,
  runBatch,
  moduleCacheStats,
  timeOnStream,
} from '../../src/gpu/index.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

// Each launch of this kernel computes out[i] = a * x[i] + y[i] * y[i] for i < len, in REAL.
const AXPY = `
extern "C" __global__ void axpy_sq(const REAL* x, const REAL* y, REAL* out, REAL a, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len) out[i] = a * x[i] + y[i] * y[i];
}
`;

test('cudaAvailable answers without throwing, and describeCuda says what it found', async () => {
  const a = cudaAvailable();
  assert.equal(typeof a.ok, 'boolean');
  if (a.ok) {
    assert.match(a.device.arch, /^sm_\d+$/);
    assert.ok(a.device.multiprocessors > 0 && a.device.totalMemBytes > 0);
  } else {
    assert.ok(a.reason.length > 0);
  }
  const lines = await describeCuda();
  assert.ok(lines.length >= 1);
  if (a.ok)
    assert.ok(
      lines.some((l) => l.includes(a.device.name)),
      lines.join('\n'),
    );
  else assert.match(lines[0]!, /not available/);
});

test('a kernel round trip gives the same numbers as JavaScript (float64 and float32, no FMA)', { skip }, () => {
  const seed = randomInt(2 ** 31);
  const ctx = CudaContext.get();
  for (const precision of ['float64', 'float32'] as const) {
    const A = precision === 'float64' ? Float64Array : Float32Array;
    const mod = loadModule(ctx, {
      source: AXPY,
      name: 'axpy.cu',
      defines: { REAL: precision === 'float64' ? 'double' : 'float' },
      options: ['-fmad=false'],
    });
    const k = mod.kernel('axpy_sq', ['ptr', 'ptr', 'ptr', precision === 'float64' ? 'f64' : 'f32', 'i32']);
    const rng = new Philox(seed, precision === 'float64' ? 1 : 2);
    const len = 1000 + rng.int(5000);
    const x = new A(len),
      y = new A(len);
    rng.fillNormal(x);
    rng.fillNormal(y);
    const a = precision === 'float64' ? rng.normal() : Math.fround(rng.normal());
    const dx = DeviceBuffer.alloc(ctx, x.byteLength),
      dy = DeviceBuffer.alloc(ctx, y.byteLength),
      dout = DeviceBuffer.alloc(ctx, x.byteLength);
    try {
      dx.upload(x);
      dy.upload(y);
      dout.fill(0xff); // NaN everywhere: an element the kernel misses shows
      k.launch({ grid: Math.ceil(len / 128), block: 128 }, [dx, dy, dout, a, len]);
      ctx.synchronize();
      const out = new A(len);
      dout.download(out);
      for (let i = 0; i < len; i++) {
        const want =
          precision === 'float64'
            ? a * x[i]! + y[i]! * y[i]!
            : Math.fround(Math.fround(a * x[i]!) + Math.fround(y[i]! * y[i]!));
        assert.equal(out[i], want, `seed ${seed}, ${precision}, element ${i}`);
      }
    } finally {
      dx.free();
      dy.free();
      dout.free();
    }
  }
});

test('pinned buffers, asynchronous copies on a stream, and event timing', { skip }, async () => {
  const seed = randomInt(2 ** 31);
  const ctx = CudaContext.get();
  const len = 1 << 20;
  const rng = new Philox(seed, 3);
  const src = PinnedBuffer.alloc(ctx, len * 8),
    dst = PinnedBuffer.alloc(ctx, len * 8);
  const dev = DeviceBuffer.alloc(ctx, len * 8);
  const stream = Stream.create(ctx);
  try {
    const values = src.f64();
    rng.fillNormal(values);
    dst.f64().fill(NaN);
    const t = timeOnStream(
      ctx,
      stream,
      () => {
        dev.uploadAsync(src, stream);
        dev.downloadAsync(dst, stream);
      },
      5,
      1,
    );
    await stream.wait();
    assert.deepEqual(dst.f64(), values, `seed ${seed}`);
    assert.ok(t.medianMs > 0 && t.minMs <= t.medianMs && t.medianMs <= t.maxMs, JSON.stringify(t));
    // two 8 MiB copies take well under a second on any device
    assert.ok(t.maxMs < 1000, JSON.stringify(t));
    // an event recorded after the work completes once the stream does
    const e = CudaEvent.create(ctx);
    e.record(stream);
    await e.wait();
    e.destroy();
  } finally {
    stream.destroy();
    dev.free();
    src.free();
    dst.free();
  }
});

test('an NVRTC compile error is a CudaError NVRTC_ERROR carrying the compiler log', { skip }, () => {
  const ctx = CudaContext.get();
  const name = `undeclared_${randomInt(1e9)}`;
  const bad = `extern "C" __global__ void broken(float* p) { p[0] = ${name}; }`;
  assert.throws(
    () => loadModule(ctx, { source: bad, name: 'broken.cu' }),
    (e: unknown) => {
      assert.ok(e instanceof CudaError);
      assert.equal(e.code, 'NVRTC_ERROR');
      assert.equal(e.cudaError, 'NVRTC_ERROR_COMPILATION');
      assert.ok(e.message.includes(name), e.message);
      return true;
    },
  );
});

test('modules are cached in memory and on disk', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lm-cache-test-'));
  const saved = process.env.LATTICE_MIMO_CACHE;
  process.env.LATTICE_MIMO_CACHE = dir;
  try {
    const ctx = CudaContext.get();
    // a source no other test compiles, so the first load compiles
    const source = `${AXPY}\n// ${randomInt(1e12)}\n`;
    const compiles = moduleCacheStats.compiles;
    const m1 = loadModule(ctx, { source, name: 'axpy.cu', defines: { REAL: 'double' } });
    assert.equal(moduleCacheStats.compiles, compiles + 1);
    assert.equal(m1.origin, 'compiled');
    const m2 = loadModule(ctx, { source, name: 'axpy.cu', defines: { REAL: 'double' } });
    assert.equal(m2, m1);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.cubin') || f.endsWith('.ptx')).length, 1);
    // another define is another module
    const m3 = loadModule(ctx, { source, name: 'axpy.cu', defines: { REAL: 'float' } });
    assert.notEqual(m3.key, m1.key);
  } finally {
    if (saved === undefined) delete process.env.LATTICE_MIMO_CACHE;
    else process.env.LATTICE_MIMO_CACHE = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CUDA failures become typed errors: out of memory, bad launches', { skip }, () => {
  const ctx = CudaContext.get();
  // a petabyte: no device has it
  assert.throws(
    () => DeviceBuffer.alloc(ctx, 2 ** 50),
    (e: unknown) => {
      assert.ok(e instanceof CudaError);
      assert.equal(e.code, 'OUT_OF_MEMORY');
      assert.equal(e.cudaError, 'CUDA_ERROR_OUT_OF_MEMORY');
      return true;
    },
  );
  const mod = loadModule(ctx, { source: AXPY, name: 'axpy.cu', defines: { REAL: 'double' }, options: ['-fmad=false'] });
  const k = mod.kernel('axpy_sq', ['ptr', 'ptr', 'ptr', 'f64', 'i32']);
  assert.throws(() => k.launch({ grid: 1, block: 32 }, [0n, 0n]), InvalidArgumentError);
  // more threads per block than the device allows
  assert.throws(
    () => k.launch({ grid: 1, block: 4096 }, [0n, 0n, 0n, 1, 0]),
    (e: unknown) => e instanceof CudaError && e.code === 'CUDA_ERROR',
  );
  // the context still works afterwards
  ctx.synchronize();
  const attrs = k.attributes();
  assert.ok(attrs.registers > 0 && attrs.maxThreadsPerBlock >= 32, JSON.stringify(attrs));
});

test("the runner's options are validated field by field: a typed error naming the field, valid values pass", () => {
  for (const [bad, field] of [
    [{ maxChunk: -1 }, 'maxChunk'],
    [{ maxChunk: 1.5 }, 'maxChunk'],
    [{ chunks: 257 }, 'chunks'],
    [{ chunks: -2 }, 'chunks'],
    [{ streams: 4 }, 'streams'],
    [{ streams: 0.5 }, 'streams'],
  ] as const) {
    assert.throws(
      () => checkBatchRunOptions(bad, 'f() option gpuBatch'),
      (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === `gpuBatch.${field}`,
      JSON.stringify(bad),
    );
  }
  for (const ok of [
    undefined,
    {},
    { maxChunk: 0, chunks: 0, streams: 0 },
    { maxChunk: 7, chunks: 256, streams: 3 },
    { chunks: 1, streams: 1 },
  ]) {
    assert.deepEqual(checkBatchRunOptions(ok), ok ?? {}, JSON.stringify(ok));
  }
});

test('the runner cuts a batch into few chunks when small, many of about 8 MiB when large (at most 8 of at least 2 MiB when items take uneven times), never more than 16', () => {
  const MiB = 2 ** 20;
  let last = 0;
  for (let i = 0; i < 2000; i++) {
    const bytes = i === 0 ? 0 : Math.floor(Math.exp(Math.random() * Math.log(4096 * MiB)));
    const k = chunksFor(bytes);
    assert.ok(Number.isInteger(k) && k >= 1 && k <= 16, `${bytes} bytes: ${k} chunks`);
    // more than one chunk only with at least 2 MiB of copies each; past four, about 8 MiB each
    if (k > 1) assert.ok(bytes / k >= 2 * MiB, `${bytes} bytes: ${k} chunks of ${bytes / k}`);
    if (k > 4)
      assert.ok(
        bytes / k >= 8 * MiB && (k === 16 || bytes / k < (8 * MiB * (k + 1)) / k),
        `${bytes} bytes: ${k} chunks of ${bytes / k}`,
      );
    if (bytes >= 8 * MiB && bytes < 40 * MiB) assert.equal(k, 4, `${bytes} bytes`);
    // items of uneven times: at least 2 MiB a chunk, at most eight chunks
    assert.equal(
      chunksFor(bytes, true),
      Math.min(8, Math.max(1, Math.floor(bytes / (2 * MiB)))),
      `${bytes} bytes, uneven`,
    );
  }
  // never fewer chunks for more bytes
  for (let b = 0; b < 200 * MiB; b += 0.37 * MiB) {
    const k = chunksFor(b);
    assert.ok(k >= last, `${b} bytes: ${k} chunks, fewer than ${last} for fewer bytes`);
    last = k;
  }
});

// pinned: every array copied directly; staged: through the lane's staging buffer, one copy for all
// inputs and one for all outputs and the status; mixed: pinned and staged records in one job
for (const memory of ['pinned', 'staged', 'mixed'] as const)
  test(`a job with ordered kernels over three lanes (${memory} host arrays): each chunk right on fresh data, settle() gets its chunk's buffers`, {
    skip,
  }, async () => {
    const seed = randomInt(2 ** 31);
    const ctx = CudaContext.get();
    const rng = new Philox(seed, 11);
    const items = 3000 + randomInt(3000),
      per = 64; // float32 records of 64 values
    const kernel = loadModule(ctx, { source: AXPY.replaceAll('REAL', 'float'), name: 'axpy-ordered.cu' }).kernel(
      'axpy_sq',
      ['ptr', 'ptr', 'ptr', 'f32', 'i32'],
    );
    const array = (pinned: boolean) =>
      pinned ? allocPinned(ctx, Float32Array, items * per) : new Float32Array(items * per);
    const x = array(memory !== 'staged'),
      y = array(memory === 'pinned');
    const out = array(memory === 'pinned');
    // the chunk count asked for directly (BatchRunOptions.chunks) or through the chunk size
    const run = (a: number, chunks: number, direct: boolean) =>
      runBatch(ctx, {
        name: 'axpy ordered test',
        items,
        statusWords: 1,
        timed: false,
        orderedKernels: true,
        inputs: [
          { array: x, bytesPerItem: per * 4 },
          { array: y, bytesPerItem: per * 4 },
        ],
        outputs: [{ array: out, bytesPerItem: per * 4 }],
        scratch: [],
        options: direct ? { chunks, streams: 3 } : { maxChunk: Math.ceil(items / chunks), streams: 3 },
        enqueue(stream, c) {
          kernel.launch({ grid: Math.ceil((c.count * per) / 128), block: 128, stream }, [
            c.inputs[0]!,
            c.inputs[1]!,
            c.outputs[0]!,
            a,
            c.count * per,
          ]);
        },
        settle(first, count, status, chunk) {
          assert.ok(
            status.subarray(0, count).every((w) => w === 0),
            'status words zeroed by the runner',
          );
          assert.equal(chunk.first, first);
          assert.equal(chunk.count, count);
        },
      });
    for (const [round, a, chunks] of [
      [0, 1.5, 3],
      [1, 1.5, 3],
      [2, -0.25, 5],
      [3, 2, 2],
    ] as const) {
      rng.fillNormal(x);
      rng.fillNormal(y);
      out.fill(NaN);
      const stats = await run(a, chunks, round % 2 === 1);
      assert.equal(stats.chunks, chunks, `round ${round}`);
      for (let i = 0; i < items * per; i++) {
        const want = Math.fround(Math.fround(a) * x[i]! + y[i]! * y[i]!);
        // fma or not: within two float32 rounding steps of the exact value
        assert.ok(
          Math.abs(out[i]! - want) <= 4 * 2 ** -24 * (Math.abs(a * x[i]!) + y[i]! * y[i]!) + 1e-30,
          `round ${round}, element ${i}: ${out[i]} vs ${want} (seed ${seed})`,
        );
      }
    }
  });

test("a small job on one lane between jobs on three keeps the other lanes' memory: the next large job allocates nothing", {
  skip,
}, async () => {
  const ctx = CudaContext.get();
  const kernel = loadModule(ctx, { source: AXPY.replaceAll('REAL', 'float'), name: 'axpy-lanes.cu' }).kernel(
    'axpy_sq',
    ['ptr', 'ptr', 'ptr', 'f32', 'i32'],
  );
  const per = 64;
  const job = (items: number, streams: number) => {
    const x = new Float32Array(items * per).fill(1),
      y = new Float32Array(items * per).fill(2),
      out = new Float32Array(items * per);
    return runBatch(ctx, {
      name: 'lanes test',
      items,
      statusWords: 1,
      timed: false,
      inputs: [
        { array: x, bytesPerItem: per * 4 },
        { array: y, bytesPerItem: per * 4 },
      ],
      outputs: [{ array: out, bytesPerItem: per * 4 }],
      scratch: [],
      options: { chunks: streams, streams },
      enqueue(stream, c) {
        kernel.launch({ grid: Math.ceil((c.count * per) / 128), block: 128, stream }, [
          c.inputs[0]!,
          c.inputs[1]!,
          c.outputs[0]!,
          1,
          c.count * per,
        ]);
      },
      settle() {
        /* nothing to check */
      },
    }).then((s) => {
      assert.ok(out.every((v) => v === 5));
      return s;
    });
  };
  const ws = BatchWorkspace.of(ctx);
  await job(30_000, 3);
  const held = ws.deviceBytes;
  await job(10, 1);
  assert.equal(ws.deviceBytes, held, 'the small job released lanes it did not use');
  await job(30_000, 3);
  assert.equal(ws.deviceBytes, held, 'the large job allocated again');
});
