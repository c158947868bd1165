/**
 * The GPU detection engine's plumbing (src/mimo/gpu/detect-batch.ts, normalize.cu), through a probe
 * detector (engine-probe.cu) that reports what the engine handed it: per-channel scaling equal to
 * the CPU engine's, chunks and streams, padding of a partial last channel, pinned outputs, and the
 * fallback policy (NON_FINITE errors naming the element, CPU redo, node budget). Also detectAsync's
 * engine choice, which needs no device.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineUnavailableError, InvalidInputError, NodeBudgetError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect, exponentOf, maxAbs, timesPow2, validateDetection } from '../../src/mimo/detect.js';
import { GPU_NOISE_CEIL } from '../../src/mimo/gpu/detect-batch.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import type { CudaDetector } from '../../src/mimo/gpu/cuda-detector.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import { detectorEntry, registerDetector } from '../../src/mimo/registry.js';
import type { DetectionInput, DetectOptions, Detector } from '../../src/mimo/types.js';
import { cudaAvailable, requireCuda } from '../../src/gpu/context.js';
import { allocPinned } from '../../src/gpu/host-memory.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const cudaCtx = () => requireCuda();

function probe(flag: number): CudaDetector {
  return {
    name: 'kbest',
    soft: true,
    create(ctx, setup) {
      const k = loadModule(ctx, {
        source: readKernelSource(new URL('./engine-probe.cu', import.meta.url)),
        name: 'engine-probe.cu',
      }).kernel('engine_probe', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32']);
      const W = setup.nt * setup.constellation.bitsPerSymbol;
      return {
        scratchBytesPerChannel: [16],
        enqueue(stream, c) {
          const vectors = c.channels * c.vectorsPerChannel;
          k.launch({ grid: Math.ceil(vectors / 64), block: 64, stream }, [
            c.y,
            c.noise,
            c.symbols,
            c.llr,
            c.status,
            vectors,
            setup.nt,
            2 * setup.nr,
            W,
            setup.constellation.size,
            flag,
          ]);
        },
      };
    },
  };
}

/** Channels of wildly different scales, vectors through them with noise. */
function batch(
  seed: number,
  channels: number,
  vpc: number,
  vectors: number,
  nt = 4,
  nr = 4,
): DetectionInput & { H: Float64Array; y: Float64Array } {
  const rng = new Philox(seed);
  const H = rayleighChannels(rng, channels, nt, nr);
  const hLen = 2 * nr * nt;
  for (let c = 0; c < channels; c++) {
    const f = 2 ** (Math.floor(rng.uniform() * 120) - 60) * (1 + rng.uniform());
    for (let i = 0; i < hLen; i++) H[c * hLen + i]! *= f;
  }
  const { symbols } = randomSymbols(rng, channels * vpc * nt, '16qam');
  const y = transmit(H, symbols, nt, nr, vpc).subarray(0, vectors * 2 * nr);
  const scale = Float64Array.from({ length: vectors }, (_, v) => maxAbs(H, Math.floor(v / vpc) * hLen, hLen) ** 2);
  addNoise(rng, y, 0);
  for (let i = 0; i < y.length; i++) y[i]! += (rng.normal() * Math.sqrt(scale[Math.floor(i / (2 * nr))]!)) / 100;
  return {
    nt,
    nr,
    H,
    y: Float64Array.from(y),
    vectorsPerChannel: vpc,
    noiseVar: Float64Array.from(scale, (s) => s / 1e4),
  };
}

const OPTS: DetectOptions = { detector: 'kbest', modulation: '16qam', k: 4 };

async function runProbe(
  input: DetectionInput,
  opts: DetectOptions,
  flag = 0,
  out?: { symbols?: Int32Array; llr?: Float32Array },
) {
  const { detectCuda } = await import('../../src/mimo/gpu/detect-batch.js');
  const val = validateDetection(input, opts, input.H instanceof Float32Array ? 'defer' : 'check');
  return detectCuda(input, val, probe(flag), performance.now(), out);
}

/** What the probe must report for vector v: y and N0 scaled by the CPU engine's power of two. */
function expectScaled(
  input: DetectionInput & { H: Float64Array; y: Float64Array },
  llr: Float32Array,
  v: number,
  W: number,
): void {
  const { nr, nt } = input,
    hLen = 2 * nr * nt,
    c = Math.floor(v / (input.vectorsPerChannel ?? 1));
  const p = -exponentOf(maxAbs(input.H, c * hLen, hLen));
  for (let k = 0; k < 2 * nr; k++)
    assert.equal(llr[v * W + k], Math.fround(input.y[v * 2 * nr + k]! * 2 ** p), `vector ${v} entry ${k}`);
  const n0 = (input.noiseVar as Float64Array)[v]! * 2 ** (2 * p);
  assert.ok(Math.abs(llr[v * W + 2 * nr]! - n0) <= n0 * 2 ** -23, `vector ${v} N0 ${llr[v * W + 2 * nr]} vs ${n0}`);
}

test('GPU engine: every channel scaled as the CPU engine scales it, float64 and float32 input, any chunking, partial last channel', {
  skip,
}, async () => {
  for (const [seed, channels, vpc, vectors] of [
    [1, 37, 14, 37 * 14 - 5],
    [2, 300, 1, 300],
    [3, 5, 3, 13],
  ] as const) {
    const input = batch(seed, channels, vpc, vectors);
    const W = 16;
    const f64 = await runProbe(input, OPTS);
    assert.equal(f64.stats.engine, 'cuda');
    assert.equal(f64.symbols.length, vectors * 4);
    assert.equal(f64.llr!.length, vectors * W);
    assert.equal(f64.stats.nodesVisited, 3 * vectors);
    for (let v = 0; v < vectors; v++) expectScaled(input, f64.llr as Float32Array, v, W);
    assert.deepEqual([...f64.symbols.subarray(0, 8)], [0, 1, 2, 3, 0, 1, 2, 3]);
    assert.equal(f64.bits.length, vectors * 16);
    const f32input = {
      ...input,
      H: Float32Array.from(input.H),
      y: Float32Array.from(input.y),
      noiseVar: Float32Array.from(input.noiseVar as Float64Array),
    };
    for (const gpuBatch of [{}, { maxChunk: 2, streams: 1 }, { maxChunk: 3, streams: 3 }]) {
      const f32 = await runProbe(f32input, { ...OPTS, gpuBatch });
      for (let v = 0; v < vectors; v++) {
        // float32 input: H itself was rounded, so the channel's power of two is that of its float32 maximum
        const { nr, nt } = input,
          hLen = 2 * nr * nt,
          c = Math.floor(v / vpc);
        const p = -exponentOf(maxAbs(f32input.H, c * hLen, hLen));
        for (let k = 0; k < 2 * nr; k++)
          assert.equal(f32.llr![v * W + k], Math.fround(f32input.y[v * 2 * nr + k]! * 2 ** p));
      }
    }
  }
});

test("GPU engine: subnormal channels are scaled in steps (2^p past float64's range), as the CPU engine scales them", {
  skip,
}, async () => {
  // channels near 2^-1060: the CPU's power of two 2^p (p about 1060) is past float64's largest
  const rng = new Philox(4);
  const H = rayleighChannels(rng, 40, 4, 4).map((x) => x * 2 ** -1060);
  const { symbols } = randomSymbols(rng, 40 * 14 * 4, '16qam');
  const y = addNoise(rng, transmit(H, symbols, 4, 4, 14), 0).map((x) => x + rng.normal() * 2 ** -1072);
  const input = { nt: 4, nr: 4, H, y, vectorsPerChannel: 14, noiseVar: 0.01 };
  const r = await runProbe(input, OPTS);
  const { nr, nt } = input,
    hLen = 2 * nr * nt,
    W = 16;
  for (let v = 0; v < 40 * 14; v++) {
    const c = Math.floor(v / 14),
      p = -exponentOf(maxAbs(H, c * hLen, hLen));
    assert.ok(p > 1023, `channel ${c}: p ${p}`);
    assert.deepEqual([...r.symbols.subarray(v * nt, v * nt + nt)], [0, 1, 2, 3], `vector ${v} not flagged`);
    for (let k = 0; k < 2 * nr; k++)
      assert.equal(r.llr![v * W + k], Math.fround(timesPow2(y[v * 2 * nr + k]!, p)), `vector ${v} entry ${k}`);
    assert.equal(r.llr![v * W + 2 * nr], Math.fround(GPU_NOISE_CEIL), 'N0 0.01 scaled past 2^100 is clamped');
  }
  const cpu = detect(input, { detector: 'zf', modulation: '16qam' });
  const gpu = await detectAsync(input, { detector: 'zf', modulation: '16qam', engine: 'cuda' });
  assert.deepEqual([...gpu.symbols], [...cpu.symbols]);
});

test('GPU engine: results land in pinned output arrays given by the caller', { skip }, async () => {
  if (!cuda.ok) return;
  const { requireCuda } = await import('../../src/gpu/context.js');
  const ctx = requireCuda();
  const input = batch(7, 64, 14, 64 * 14);
  const symbols = allocPinned(ctx, Int32Array, 64 * 14 * 4),
    llr = allocPinned(ctx, Float32Array, 64 * 14 * 16);
  const r = await runProbe(input, OPTS, 0, { symbols, llr });
  assert.equal(r.symbols, symbols);
  assert.equal(r.llr, llr);
  for (let v = 0; v < 64 * 14; v += 97) expectScaled(input, llr, v, 16);
});

test("GPU engine: a NaN or an infinity is the CPU engine's NON_FINITE error naming the element", { skip }, async () => {
  const input = batch(11, 20, 4, 80);
  for (const [where, at] of [
    ['y', 7 * 8 + 3],
    ['H', 5 * 32 + 9],
  ] as const) {
    const f32 = { ...input, H: Float32Array.from(input.H), y: Float32Array.from(input.y), noiseVar: 0.1 };
    f32[where][at] = where === 'y' ? Number.NaN : Number.POSITIVE_INFINITY;
    await assert.rejects(runProbe(f32, OPTS), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError, String(e));
      assert.equal(e.code, 'NON_FINITE');
      assert.match(e.message, new RegExp(`^${where} contains .* at element ${at}$`));
      return true;
    });
  }
});

test('GPU engine: flagged vectors are redone on the CPU (float32 unsafe, singular) or follow onBudget', {
  skip,
}, async () => {
  const input = batch(13, 30, 2, 60);
  const f32 = { ...input, H: Float32Array.from(input.H), y: Float32Array.from(input.y), noiseVar: 0.01 };
  const marked = [3, 17, 42];
  // a channel of scale 1 (largest entry in [1, 2)) keeps y exact: its vector's first entry 0.5 marks it
  const hLen = 32;
  for (const v of marked) {
    const c = Math.floor(v / 2);
    const m = maxAbs(f32.H, c * hLen, hLen);
    for (let i = 0; i < hLen; i++) f32.H[c * hLen + i] = f32.H[c * hLen + i]! / m;
    f32.H[c * hLen] = 1.5;
    f32.y[v * 8] = 0.5;
  }
  const cpu = detect({ ...f32, H: Float64Array.from(f32.H), y: Float64Array.from(f32.y) }, OPTS);
  for (const flag of [MIMO_STATUS.FLOAT32_UNSAFE, MIMO_STATUS.RANK_DEFICIENT]) {
    const r = await runProbe(f32, OPTS, flag);
    assert.equal(r.stats.redoneOnCpu, marked.length);
    for (const v of marked)
      assert.deepEqual([...r.symbols.subarray(v * 4, v * 4 + 4)], [...cpu.symbols.subarray(v * 4, v * 4 + 4)]);
    assert.deepEqual([...r.symbols.subarray(0, 4)], [0, 1, 2, 3]);
  }
  await assert.rejects(
    runProbe(f32, OPTS, MIMO_STATUS.NODE_BUDGET),
    (e: unknown) =>
      e instanceof NodeBudgetError &&
      e.context.vector === 3 &&
      e.message.startsWith(`detector ${OPTS.detector}, vector 3: `),
  );
  // onBudget applies to searches that stop at the node budget: kbest with that trait, registered for the test
  const kbest = detectorEntry('kbest')!;
  const unregister = registerDetector({
    ...kbest,
    name: 'kbest-search',
    traits: { ...kbest.traits, nodeBudget: 'search' },
  });
  try {
    const opts = { ...OPTS, detector: 'kbest-search' as Detector, onBudget: 'flag' as const };
    const flagged = await runProbe(f32, opts, MIMO_STATUS.NODE_BUDGET);
    assert.deepEqual(
      [...flagged.unproven!.keys()].filter((v) => flagged.unproven![v]),
      marked,
    );
  } finally {
    unregister();
  }
});

test("detectAsync: engine cpu and auto without a CUDA detector give detect()'s answer; cuda without one is EngineUnavailableError", async () => {
  const input = batch(17, 6, 3, 18);
  const cpu = detect(input, { detector: 'lr-sic', modulation: '16qam' });
  for (const engine of ['cpu', 'auto'] as const) {
    const r = await detectAsync(input, { detector: 'lr-sic', modulation: '16qam', engine });
    if (r.stats.engine === 'cpu') assert.deepEqual(r.symbols, cpu.symbols);
  }
  const f32 = { ...input, H: Float32Array.from(input.H), y: Float32Array.from(input.y) };
  const r32 = await detectAsync(f32, { detector: 'zf', modulation: '16qam', engine: 'cpu' });
  assert.equal(r32.symbols.length, 18 * 4);
  const bad = { ...f32, y: Float32Array.from(f32.y) };
  bad.y[5] = Number.NaN;
  await assert.rejects(
    detectAsync(bad, { detector: 'zf', modulation: '16qam', engine: 'cpu' }),
    /y contains NaN at element 5/,
  );
  if (!cuda.ok) {
    await assert.rejects(
      detectAsync(input, { detector: 'zf', modulation: '16qam', engine: 'cuda' }),
      EngineUnavailableError,
    );
    await assert.rejects(
      detectAsync(bad, { detector: 'zf', modulation: '16qam', engine: 'auto' }),
      /y contains NaN at element 5/,
    );
  }
});

test('GPU engine: calls on the same pinned arrays, refilled, equal calls on ordinary copies cut into other chunks, per detector', {
  skip,
}, async () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const rng = new Philox(seed, 19);
  for (const [d, [detector, modulation]] of (
    [
      ['nway', '16qam'],
      ['mmse', '64qam'],
      ['psd', 'qpsk'],
    ] as const
  ).entries()) {
    const nt = 4,
      channels = 400 + Math.floor(Math.random() * 400),
      vpc = 14,
      vectors = channels * vpc;
    const bps = modulation === 'qpsk' ? 2 : modulation === '16qam' ? 4 : 6;
    const H = allocPinned(cudaCtx(), Float32Array, channels * 2 * nt * nt),
      y = allocPinned(cudaCtx(), Float32Array, vectors * 2 * nt);
    const out = {
      symbols: allocPinned(cudaCtx(), Int32Array, vectors * nt),
      llr: allocPinned(cudaCtx(), Float32Array, vectors * nt * bps),
    };
    for (let round = 0; round < 5; round++) {
      // fresh data in the same arrays, and a noise level that changes at round 3 (a new graph key)
      const H64 = rayleighChannels(rng, channels, nt, nt);
      const { symbols } = randomSymbols(rng, vectors * nt, modulation);
      const noiseVar = round < 3 ? 0.05 : 0.2;
      H.set(H64);
      y.set(addNoise(rng, transmit(H64, symbols, nt, nt, vpc), noiseVar));
      const search = detectorEntry(detector)!.traits.nodeBudget === 'search';
      const opts: DetectOptions = { detector, modulation, engine: 'cuda', ...(search ? { onBudget: 'flag' } : {}) };
      const replayed = await detectAsync({ nt, nr: nt, H, y, vectorsPerChannel: vpc, noiseVar }, opts, out);
      // ordinary arrays (staged) and another chunking: the same kernels must give the same numbers
      const direct = await detectAsync(
        { nt, nr: nt, H: H.slice(), y: y.slice(), vectorsPerChannel: vpc, noiseVar },
        { ...opts, gpuBatch: { maxChunk: 61 + 7 * round + 50 * d } },
      );
      const msg = `${detector} ${modulation}, round ${round} (seed ${seed})`;
      assert.deepEqual(replayed.symbols, direct.symbols, msg);
      if (direct.llr) assert.deepEqual(replayed.llr, direct.llr, msg);
      assert.equal(replayed.stats.redoneOnCpu ?? 0, direct.stats.redoneOnCpu ?? 0, msg);
    }
  }
});
