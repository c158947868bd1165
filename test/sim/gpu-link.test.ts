/**
 * The uncoded link on the GPU (src/sim/gpu): Philox on the device equals rng.ts (words, uniforms,
 * ints bit for bit; Box-Muller normals within the last-ulp differences of log / sin / cos, measured
 * and bounded), the link kernels generate what generateLinkChunk generates (symbol indices bit for
 * bit, channels and received vectors equal after rounding to float32 but for a bounded few), the
 * GPU executor's per-chunk counts equal runChunk's, and simulate() on the GPU agrees with the CPU
 * engine for the same seed. The kernels also run through the CUDA emulator (test/gpu/cuda-emulator.ts)
 * here, so CI checks them without a GPU; the device tests skip without one, saying so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';
import { constellation } from '../../src/mimo/modulation.js';
import { DETECTOR_REGISTRY, type DetectorEntry } from '../../src/mimo/registry.js';
import type { CudaDetector } from '../../src/mimo/gpu/cuda-detector.js';
import type { Modulation } from '../../src/mimo/types.js';
import { runChunk, unitCounts } from '../../src/sim/chunk.js';
import { unitChunks } from './chunk-tally.js';
import { linkVectorOnCpu } from '../../src/sim/gpu/cpu-vector.js';
import { unitStream, generateLinkChunk, linkChannelSpan } from '../../src/sim/link.js';
import { resolveEngine, simulate } from '../../src/sim/simulate.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const MODS: Modulation[] = ['bpsk', 'qpsk', '16qam', '64qam', '256qam'];

// ---------------------------------------------------------------------------------------------
// Philox

interface ProbeInput {
  seeds: BigUint64Array;
  streams: BigUint64Array;
  blocks: BigUint64Array;
  M: number;
}
interface ProbeOutput {
  words: Uint32Array;
  uniforms: Float64Array;
  normals: Float64Array;
  ints: Uint32Array;
}

/** Fresh (seed, stream, block) triples: small and large seeds, chunk streams and arbitrary ones, blocks far out. */
function probeInput(n: number): ProbeInput {
  const r53 = () => BigInt(randomInt(2 ** 21)) * 2n ** 32n + BigInt(randomInt(2 ** 32));
  const seeds = new BigUint64Array(n),
    streams = new BigUint64Array(n),
    blocks = new BigUint64Array(n);
  for (let i = 0; i < n; i++) {
    seeds[i] = i % 3 === 0 ? BigInt(randomInt(100)) : r53();
    streams[i] = i % 2 === 0 ? BigInt(unitStream(randomInt(2 ** 19), randomInt(2 ** 32), randomInt(3))) : r53();
    blocks[i] = i % 4 === 0 ? BigInt(randomInt(64)) : BigInt(randomInt(2 ** 40));
  }
  return { seeds, streams, blocks, M: 2 ** (1 + randomInt(8)) };
}

/** What rng.ts gives for each triple. */
function probeOnCpu(inp: ProbeInput): ProbeOutput {
  const n = inp.seeds.length;
  const out: ProbeOutput = {
    words: new Uint32Array(4 * n),
    uniforms: new Float64Array(2 * n),
    normals: new Float64Array(2 * n),
    ints: new Uint32Array(n),
  };
  for (let i = 0; i < n; i++) {
    const at = () => new Philox(inp.seeds[i]!, inp.streams[i]!).seek(4 * Number(inp.blocks[i]!));
    const r = at();
    for (let k = 0; k < 4; k++) out.words[4 * i + k] = r.nextUint32();
    const u = at();
    out.uniforms[2 * i] = u.uniform();
    out.uniforms[2 * i + 1] = u.uniform();
    const g = at();
    out.normals[2 * i] = g.normal();
    out.normals[2 * i + 1] = g.normal();
    out.ints[i] = at().int(inp.M);
  }
  return out;
}

/** Distance in units in the last place between two doubles of the same sign (the bit patterns' distance). */
function ulps(a: number, b: number): number {
  if (a === b) return 0;
  if (Math.sign(a) !== Math.sign(b)) return Number.POSITIVE_INFINITY;
  const f = new Float64Array([a, b]);
  const i = new BigInt64Array(f.buffer);
  const d = i[0]! - i[1]!;
  return Number(d < 0n ? -d : d);
}

/** Checks a device (or emulated) probe against rng.ts; returns how many normals were not bit-equal and the largest ulp distance. */
function checkProbe(inp: ProbeInput, got: ProbeOutput): { inexact: number; maxUlps: number; f32Differ: number } {
  const want = probeOnCpu(inp);
  assert.deepEqual(got.words, want.words, 'Philox words');
  assert.deepEqual(got.uniforms, want.uniforms, 'uniforms');
  assert.deepEqual(got.ints, want.ints, `int(${inp.M})`);
  let inexact = 0,
    maxUlps = 0,
    f32Differ = 0;
  for (let i = 0; i < want.normals.length; i++) {
    const u = ulps(got.normals[i]!, want.normals[i]!);
    if (u > 0) inexact++;
    maxUlps = Math.max(maxUlps, u);
    if (Math.fround(got.normals[i]!) !== Math.fround(want.normals[i]!)) f32Differ++;
  }
  // log, sin and cos are faithful on both sides: a normal is within a few ulps of the CPU's
  assert.ok(maxUlps <= 8, `a normal differs by ${maxUlps} ulps from rng.ts`);
  return { inexact, maxUlps, f32Differ };
}

const PROBE_MAIN = String.raw`
int main() {
  int h[2];
  if (fread(h, 4, 2, stdin) != 2) return 1;
  const int n = h[0]; const unsigned M = (unsigned)h[1];
  std::vector<unsigned long long> s(n), st(n), b(n);
  if (fread(s.data(), 8, n, stdin) != (size_t)n || fread(st.data(), 8, n, stdin) != (size_t)n || fread(b.data(), 8, n, stdin) != (size_t)n) return 1;
  std::vector<unsigned> w(4 * n), ints(n);
  std::vector<double> u(2 * n), g(2 * n);
  if (emu_launch((n + 63) / 64, dim3{64, 1, 1}, 0, [&] { philox_probe(s.data(), st.data(), b.data(), w.data(), u.data(), g.data(), ints.data(), n, M); })) return 2;
  fwrite(w.data(), 4, w.size(), stdout); fwrite(u.data(), 8, u.size(), stdout); fwrite(g.data(), 8, g.size(), stdout); fwrite(ints.data(), 4, ints.size(), stdout);
  return 0;
}
`;

function concat(parts: ArrayBufferView[]): Uint8Array {
  const total = parts.reduce((t, p) => t + p.byteLength, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += p.byteLength;
  }
  return out;
}

test('emulated Philox kernel: words, uniforms and ints equal rng.ts bit for bit, normals within a few ulps', {
  skip: emuSkip,
}, (t) => {
  const { exe, error } = compileEmulated(PROBE_MAIN, here('./philox-probe.cu'), []);
  assert.equal(error, null);
  const inp = probeInput(3000);
  const raw = runEmulated(exe, concat([new Int32Array([3000, inp.M]), inp.seeds, inp.streams, inp.blocks]));
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const n = 3000;
  const got: ProbeOutput = {
    words: new Uint32Array(buf, 0, 4 * n),
    uniforms: new Float64Array(buf, 16 * n, 2 * n),
    normals: new Float64Array(buf, 32 * n, 2 * n),
    ints: new Uint32Array(buf, 48 * n, n),
  };
  const s = checkProbe(inp, got);
  t.diagnostic(
    `emulated (glibc log/sin/cos): ${s.inexact} of ${2 * n} normals not bit-equal to V8's, at most ${s.maxUlps} ulps; ${s.f32Differ} differ after rounding to float32`,
  );
});

// ---------------------------------------------------------------------------------------------
// Link generation

interface LinkCase {
  nt: number;
  nr: number;
  modulation: Modulation;
  vpc: number;
  unitVectors: number;
  seed: number;
  snrIndex: number;
  unit0: number;
  v0: number;
  vectors: number;
  noiseVar: number;
}

function randomCase(nt: number, nr: number, vpc: number): LinkCase {
  const unitVectors = vpc * (1 + randomInt(40));
  const total = vpc * (1 + randomInt(Math.max(1, Math.floor(300 / vpc))));
  return {
    nt,
    nr,
    modulation: MODS[randomInt(MODS.length)]!,
    vpc,
    unitVectors,
    seed: randomInt(2 ** 40),
    snrIndex: randomInt(20),
    unit0: randomInt(1000),
    v0: vpc * randomInt(unitVectors / vpc),
    vectors: total,
    noiseVar: 10 ** (-randomInt(30) / 10),
  };
}

interface LinkOutput {
  H64: Float64Array | null;
  H32: Float32Array;
  tx: Int32Array;
  y32: Float32Array;
}

/** The CPU's values for launch vector g (and its channel), from generateLinkChunk of each chunk touched. */
function cpuLaunch(c: LinkCase): { H: Float64Array; y: Float64Array; tx: Int32Array } {
  const hLen = 2 * c.nr * c.nt;
  const H = new Float64Array((c.vectors / c.vpc) * hLen),
    y = new Float64Array(c.vectors * 2 * c.nr),
    tx = new Int32Array(c.vectors * c.nt);
  const chunks = new Map<number, ReturnType<typeof generateLinkChunk>>();
  for (let g = 0; g < c.vectors; g++) {
    const p = c.v0 + g,
      k = c.unit0 + Math.floor(p / c.unitVectors),
      v = p % c.unitVectors;
    let ch = chunks.get(k);
    if (!ch) {
      ch = generateLinkChunk({
        nt: c.nt,
        nr: c.nr,
        modulation: c.modulation,
        vectorsPerChannel: c.vpc,
        seed: c.seed,
        snrIndex: c.snrIndex,
        unitIndex: k,
        vectors: c.unitVectors,
        noiseVar: c.noiseVar,
      });
      chunks.set(k, ch);
    }
    tx.set(ch.txIndices.subarray(v * c.nt, (v + 1) * c.nt), g * c.nt);
    y.set(ch.y.subarray(v * 2 * c.nr, (v + 1) * 2 * c.nr), g * 2 * c.nr);
    if (g % c.vpc === 0) H.set(ch.H.subarray((v / c.vpc) * hLen, (v / c.vpc + 1) * hLen), (g / c.vpc) * hLen);
  }
  return { H, y, tx };
}

/** One float32 ulp at x. */
const ulp32 = (x: number) => 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x), 2 ** -126))) - 23);

/**
 * Symbols bit for bit; H (float64 where given) within a few ulps; H and y in float32 equal to the
 * CPU's values rounded, but for entries within the normals' last-ulp differences of a float32
 * rounding boundary (one float32 ulp apart). Returns the counts of such entries.
 */
function checkLink(c: LinkCase, got: LinkOutput): { h32: number; y32: number; hUlps: number; entries: number } {
  const want = cpuLaunch(c);
  assert.deepEqual(got.tx, want.tx, 'symbol indices');
  let hUlps = 0,
    h32 = 0,
    y32 = 0;
  for (let i = 0; i < want.H.length; i++) {
    if (got.H64) hUlps = Math.max(hUlps, ulps(got.H64[i]!, want.H[i]!));
    const w = Math.fround(want.H[i]!);
    if (got.H32[i] !== w) {
      h32++;
      assert.ok(Math.abs(got.H32[i]! - w) <= ulp32(w), `H[${i}] ${got.H32[i]} vs ${want.H[i]}`);
    }
  }
  assert.ok(hUlps <= 8, `H differs by ${hUlps} ulps`);
  for (let i = 0; i < want.y.length; i++) {
    const w = Math.fround(want.y[i]!);
    if (got.y32[i] !== w) {
      y32++;
      // y sums products of entries a few float64 ulps off: its error is tiny against the terms' size
      assert.ok(
        Math.abs(got.y32[i]! - want.y[i]!) <= ulp32(want.y[i]!) + 2 ** -44,
        `y[${i}] ${got.y32[i]} vs ${want.y[i]}`,
      );
    }
  }
  const entries = want.H.length + want.y.length;
  assert.ok(
    h32 + y32 <= Math.max(2, entries * 1e-3),
    `${h32 + y32} of ${entries} float32 entries differ from the CPU's`,
  );
  return { h32, y32, hUlps, entries };
}

const LINK_MAIN = String.raw`
int main() {
  long long h[13]; double d[1];
  if (fread(h, 8, 13, stdin) != 13 || fread(d, 8, 1, stdin) != 1) return 1;
  // the channels' span (src/sim/link.ts linkChannelSpan): stream0, perStream, first
  const unsigned long long stream0 = h[10], perStream = h[11], first = h[12];
  const unsigned long long seed = h[0], unit0 = h[2], v0 = h[3], cv = h[4];
  const unsigned snr = (unsigned)h[1];
  const int vectors = (int)h[5], vpc = (int)h[6], M = (int)h[7], nt = (int)h[8], nr = (int)h[9];
  std::vector<double> pts(2 * M);
  if (fread(pts.data(), 8, pts.size(), stdin) != pts.size()) return 1;
  const int channels = vectors / vpc, pairs = nr * nt;
  std::vector<double> H64((size_t)channels * 2 * pairs); std::vector<float> H32(H64.size()), y((size_t)vectors * 2 * nr);
  std::vector<int> tx((size_t)vectors * nt);
  if (emu_launch((channels * pairs + 255) / 256, dim3{256, 1, 1}, 0, [&] { rayleigh_channels(H64.data(), H32.data(), seed, stream0, 4, perStream, first, channels, pairs); })) return 2;
  if (emu_launch((vectors + 255) / 256, dim3{256, 1, 1}, 0, [&] { link_vectors(pts.data(), H64.data(), tx.data(), y.data(), seed, snr, unit0, v0, cv, vectors, vpc, M, d[0]); })) return 2;
  fwrite(H64.data(), 8, H64.size(), stdout); fwrite(H32.data(), 4, H32.size(), stdout); fwrite(tx.data(), 4, tx.size(), stdout); fwrite(y.data(), 4, y.size(), stdout);
  return 0;
}
`;

function runLinkEmulated(c: LinkCase): LinkOutput {
  const src = fileURLToPath(new URL('../../src/', import.meta.url));
  const { exe, error } = compileEmulated(
    LINK_MAIN,
    [`${src}channels/rayleigh/rayleigh.cu`, `${src}sim/gpu/link-vectors.cu`],
    ['-DLINK_BLOCK=256', `-DNT=${c.nt}`, `-DNR=${c.nr}`],
  );
  const span = linkChannelSpan(
    { seed: c.seed, snrIndex: c.snrIndex, unitIndex: c.unit0 },
    c.v0 / c.vpc,
    c.vectors / c.vpc,
    c.unitVectors / c.vpc,
  );
  assert.equal(error, null);
  const con = constellation(c.modulation);
  const head = new BigInt64Array(
    [
      c.seed,
      c.snrIndex,
      c.unit0,
      c.v0,
      c.unitVectors,
      c.vectors,
      c.vpc,
      con.size,
      c.nt,
      c.nr,
      span.stream0,
      span.perStream,
      span.first,
    ].map(BigInt),
  );
  const raw = runEmulated(exe, concat([head, new Float64Array([Math.sqrt(c.noiseVar / 2)]), con.points]));
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const hn = (c.vectors / c.vpc) * 2 * c.nr * c.nt;
  let o = 0;
  const take = <A>(Ctor: new (b: ArrayBuffer, o: number, n: number) => A, n: number, bytes: number): A => {
    const a = new Ctor(buf, o, n);
    o += n * bytes;
    return a;
  };
  return {
    H64: take(Float64Array, hn, 8),
    H32: take(Float32Array, hn, 4),
    tx: take(Int32Array, c.vectors * c.nt, 4),
    y32: take(Float32Array, c.vectors * 2 * c.nr, 4),
  };
}

test('emulated link kernels: symbols, channels and received vectors as generateLinkChunk makes them', {
  skip: emuSkip,
}, (t) => {
  const cases = [randomCase(4, 4, 1), randomCase(2, 3, 3), randomCase(1, 1, 1), randomCase(3, 2, 2)];
  let h32 = 0,
    y32 = 0,
    entries = 0,
    hUlps = 0;
  for (const c of cases) {
    const s = checkLink(c, runLinkEmulated(c));
    h32 += s.h32;
    y32 += s.y32;
    entries += s.entries;
    hUlps = Math.max(hUlps, s.hUlps);
  }
  t.diagnostic(
    `emulated: H at most ${hUlps} float64 ulps from the CPU's; ${h32} H and ${y32} y float32 entries of ${entries} one float32 ulp off`,
  );
});

test("one vector of a chunk regenerated alone (the GPU executor's CPU redo) equals generateLinkChunk's", () => {
  for (let trial = 0; trial < 20; trial++) {
    const nt = 1 + randomInt(4),
      nr = nt + randomInt(3),
      vpc = 1 + randomInt(4);
    const spec = {
      nt,
      nr,
      modulation: MODS[randomInt(MODS.length)]!,
      vectorsPerChannel: vpc,
      seed: randomInt(2 ** 40),
      snrIndex: randomInt(30),
      unitIndex: randomInt(2 ** 32),
      noiseVar: 10 ** (-randomInt(30) / 10),
    };
    const vectors = vpc * (1 + randomInt(20));
    const chunk = generateLinkChunk({ ...spec, vectors });
    const v = randomInt(vectors),
      c = Math.floor(v / vpc),
      hLen = 2 * nr * nt;
    const one = linkVectorOnCpu(spec, v);
    assert.deepEqual(one.txIndices, chunk.txIndices.subarray(v * nt, (v + 1) * nt));
    assert.deepEqual(one.H, chunk.H.subarray(c * hLen, (c + 1) * hLen));
    assert.deepEqual(one.y, chunk.y.subarray(v * 2 * nr, (v + 1) * 2 * nr));
  }
});

test('engine choice: cpu as asked; auto falls back to the CPU, saying why, where the GPU link cannot run', async () => {
  assert.deepEqual(await resolveEngine('cpu', [{ detector: 'zf' }]), { engine: 'cpu', reason: 'asked for' });
  const auto = await resolveEngine('auto', [{ detector: 'lr-sic' }]);
  if (!cuda.ok || !DETECTOR_REGISTRY['lr-sic'].cuda) {
    assert.equal(auto.engine, 'cpu');
    assert.match(auto.reason, /^auto: no CUDA/);
    await assert.rejects(
      resolveEngine('cuda', [{ detector: 'lr-sic' }]),
      (e: Error & { code?: string }) => e.code === 'ENGINE_UNAVAILABLE' && /CUDA/.test(e.message),
    );
  }
  await assert.rejects(
    resolveEngine('gpu' as 'cuda', [{ detector: 'zf' }]),
    (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT',
  );
});

// ---------------------------------------------------------------------------------------------
// On the device

test('device Philox: words, uniforms and ints equal rng.ts bit for bit; normals within a few ulps (measured)', {
  skip,
}, async (t) => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { loadModule, readKernelSource } = await import('../../src/gpu/module-cache.js');
  const ctx = requireCuda();
  const k = loadModule(ctx, {
    source: readKernelSource(new URL('./philox-probe.cu', import.meta.url)),
    name: 'philox-probe.cu',
  }).kernel('philox_probe', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'u32']);
  let inexact = 0,
    maxUlps = 0,
    f32Differ = 0,
    total = 0;
  for (let round = 0; round < 4; round++) {
    const n = 50_000;
    const inp = probeInput(n);
    const bufs = [inp.seeds, inp.streams, inp.blocks].map((a) => {
      const b = DeviceBuffer.alloc(ctx, a.byteLength);
      b.upload(a);
      return b;
    });
    const out: ProbeOutput = {
      words: new Uint32Array(4 * n),
      uniforms: new Float64Array(2 * n),
      normals: new Float64Array(2 * n),
      ints: new Uint32Array(n),
    };
    const obufs = [out.words, out.uniforms, out.normals, out.ints].map((a) => DeviceBuffer.alloc(ctx, a.byteLength));
    k.launch({ grid: Math.ceil(n / 128), block: 128 }, [...bufs, ...obufs, n, inp.M]);
    obufs[0]!.download(out.words);
    obufs[1]!.download(out.uniforms);
    obufs[2]!.download(out.normals);
    obufs[3]!.download(out.ints);
    for (const b of [...bufs, ...obufs]) b.free();
    const s = checkProbe(inp, out);
    inexact += s.inexact;
    maxUlps = Math.max(maxUlps, s.maxUlps);
    f32Differ += s.f32Differ;
    total += 2 * n;
  }
  t.diagnostic(
    `device (CUDA log/sqrt/sincos against V8): ${inexact} of ${total} normals (${((100 * inexact) / total).toFixed(2)}%) not bit-equal, at most ${maxUlps} ulps apart; ${f32Differ} differ after rounding to float32`,
  );
});

test('device link kernels: symbols bit for bit, channels and received vectors within rounding, across chunks and channel groups', {
  skip,
}, async (t) => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { Stream } = await import('../../src/gpu/stream.js');
  const { LinkKernels } = await import('../../src/sim/gpu/link-kernels.js');
  const { CHANNEL_REGISTRY } = await import('../../src/channels/index.js');
  const rayleigh = await CHANNEL_REGISTRY.rayleigh.cuda!();
  const ctx = requireCuda();
  const stream = Stream.create(ctx);
  let h32 = 0,
    y32 = 0,
    entries = 0;
  const shapes: [number, number, number][] = [
    [4, 4, 1],
    [4, 4, 14],
    [2, 2, 1],
    [8, 8, 1],
    [1, 1, 1],
    [2, 4, 3],
    [3, 3, 5],
  ];
  for (const [nt, nr, vpc] of shapes) {
    const c = randomCase(nt, nr, vpc);
    const big = { ...c, vectors: vpc * Math.ceil(20_000 / vpc) };
    for (const cs of [c, big]) {
      const con = constellation(cs.modulation);
      const hn = (cs.vectors / cs.vpc) * 2 * nr * nt;
      const b = {
        points: DeviceBuffer.alloc(ctx, con.points.byteLength),
        H64: DeviceBuffer.alloc(ctx, hn * 8),
        H32: DeviceBuffer.alloc(ctx, hn * 4),
        tx: DeviceBuffer.alloc(ctx, cs.vectors * nt * 4),
        y32: DeviceBuffer.alloc(ctx, cs.vectors * 2 * nr * 4),
      };
      b.points.upload(con.points);
      new LinkKernels(ctx, nt, nr, { channels: rayleigh.plan(ctx, { nt, nr }, {}) }).enqueueGenerate(
        stream,
        {
          seed: cs.seed,
          snrIndex: cs.snrIndex,
          unit0: cs.unit0,
          v0: cs.v0,
          unitVectors: cs.unitVectors,
          vectors: cs.vectors,
          vpc,
        },
        { points: b.points.ptr, H64: b.H64.ptr, H32: b.H32.ptr, tx: b.tx.ptr, y32: b.y32.ptr },
        con.size,
        Math.sqrt(cs.noiseVar / 2),
      );
      stream.synchronize();
      const got: LinkOutput = {
        H64: new Float64Array(hn),
        H32: new Float32Array(hn),
        tx: new Int32Array(cs.vectors * nt),
        y32: new Float32Array(cs.vectors * 2 * nr),
      };
      b.H64.download(got.H64!);
      b.H32.download(got.H32);
      b.tx.download(got.tx);
      b.y32.download(got.y32);
      for (const x of Object.values(b)) x.free();
      const s = checkLink(cs, got);
      h32 += s.h32;
      y32 += s.y32;
      entries += s.entries;
    }
  }
  stream.destroy();
  t.diagnostic(
    `device: ${h32} H and ${y32} y float32 entries of ${entries} one float32 ulp off the CPU's rounded values; the rest equal`,
  );
});

/**
 * A CUDA detector for nr = nt = 1 that is zf's answer there (x = y conj(h) / |h|^2 sliced to the
 * nearest point; slicer-probe.cu), for the executor and simulate tests while no CUDA zf is on this
 * branch.
 */
const slicerProbe: CudaDetector = {
  name: 'zf',
  soft: false,
  create(ctx, setup) {
    if (setup.nt !== 1 || setup.nr !== 1) throw new Error('the slicer probe is 1x1 only');
    const k = loadModule(ctx, {
      source: readKernelSource(new URL('./slicer-probe.cu', import.meta.url)),
      name: 'slicer-probe.cu',
    }).kernel('slicer_probe', ['ptr', 'ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32']);
    const points = Float32Array.from(setup.constellation.points);
    const pts = DeviceBuffer.alloc(ctx, points.byteLength);
    pts.upload(points);
    return {
      scratchBytesPerChannel: [],
      enqueue(stream, c) {
        const vectors = c.channels * c.vectorsPerChannel;
        k.launch({ grid: Math.ceil(vectors / 128), block: 128, stream }, [
          c.H,
          c.y,
          c.symbols,
          c.status,
          pts,
          vectors,
          c.vectorsPerChannel,
          setup.constellation.size,
        ]);
      },
    };
  },
};

/** The CUDA detector the GPU tests use for 'zf': main's (4x4), or the 1x1 slicer probe put into the registry meanwhile. */
function zfOnGpu(): { nt: number; restore: () => void; real: boolean } {
  const reg = DETECTOR_REGISTRY as Record<string, DetectorEntry>;
  const entry = reg.zf!;
  if (entry.cuda) return { nt: 4, restore: () => {}, real: true };
  reg.zf = { ...entry, cuda: async () => slicerProbe };
  return {
    nt: 1,
    restore: () => {
      reg.zf = entry;
    },
    real: false,
  };
}

test("device GPU executor: per-unit counts equal runChunk's (but for float32 near-ties), across launches, chunks of several units, pieces of large units and detector sets", {
  skip,
}, async (t) => {
  const zf = zfOnGpu();
  const { GpuLinkExecutor } = await import('../../src/sim/gpu/executor.js');
  try {
    const nt = zf.nt,
      nr = zf.nt;
    for (const [modulation, vpc, unitVectors, launchVectors, snrDb] of [
      ['16qam', 1, 1000, 4096, 6],
      ['qpsk', 2, 512, 300, 2],
      ['64qam', 1, 5000, 1024, 14],
    ] as const) {
      const noiseVar = 10 ** (-snrDb / 10);
      const detectors = [
        { detector: 'zf' as const, modulation, engine: 'cpu' as const },
        { detector: 'zf' as const, modulation, engine: 'cpu' as const },
      ];
      const exec = await GpuLinkExecutor.create({
        nt,
        nr,
        modulation,
        vectorsPerChannel: vpc,
        unitVectors,
        seed: 1 + randomInt(1000),
        detectors,
        launchVectors,
      });
      try {
        const seed = exec.setup.seed;
        // chunks of 1 to 4 units, the point's last unit half a unit
        const tasks = unitChunks(
          { nt, nr, modulation, vectorsPerChannel: vpc, seed, detectors, snrIndex: 3, noiseVar },
          10,
          unitVectors,
          [1, 3, 2, 1, 4, 1, 2],
          (i) => (i < 4 ? [0, 1] : [1]),
          unitVectors / 2,
        );
        const results = await Promise.all(tasks.map((task) => exec.run(task)));
        let differ = 0,
          bits = 0;
        for (const [i, task] of tasks.entries()) {
          const cpu = runChunk(task);
          assert.equal(results[i]!.unit0, task.unit0);
          assert.deepEqual(results[i]!.vectors, task.unitSizes);
          for (let u = 0; u < cpu.vectors.length; u++) {
            const gu = [0, 1].map((d) => unitCounts(results[i]!, d, u));
            for (let d = 0; d < 2; d++) {
              const g = gu[d]!,
                c = unitCounts(cpu, d, u);
              if (!task.active.includes(d)) {
                assert.equal(g, null);
                continue;
              }
              assert.ok(g && c);
              differ += Math.abs(g.bitErrors - c.bitErrors);
              bits += c.bitErrors;
              assert.ok(g.frameErrors <= g.symbolErrors && g.symbolErrors <= g.bitErrors);
            }
            // both detector rows of a unit are the same detector on the same data
            if (task.active.length === 2) assert.deepEqual({ ...gu[0], timeMs: 0 }, { ...gu[1], timeMs: 0 });
          }
        }
        assert.ok(differ <= Math.max(2, bits * 0.002), `${differ} bit errors differ of ${bits}`);
        t.diagnostic(
          `${zf.real ? 'CUDA zf' : '1x1 slicer probe'} ${modulation} vpc ${vpc}: bit-error counts differ by ${differ} of ${bits}`,
        );
      } finally {
        await exec.close();
      }
    }
  } finally {
    zf.restore();
  }
});

test('device simulate: engine cuda and engine cpu agree for a seed (counts, stop rules); auto takes the GPU', {
  skip,
}, async (t) => {
  const zf = zfOnGpu();
  try {
    const nt = zf.nt;
    // with main's CUDA detectors: zf and mmse 4x4 (near-ties may differ); else the 1x1 slicer probe
    const detectors =
      zf.real && DETECTOR_REGISTRY.mmse.cuda
        ? [{ detector: 'zf' as const }, { detector: 'mmse' as const }]
        : [{ detector: 'zf' as const }];
    const opts = {
      nt,
      nr: nt,
      modulation: '16qam' as const,
      detectors,
      snrs: [0, 8, 16, 24],
      maxErrors: 500,
      maxVectors: 200_000,
      seed: 1 + randomInt(10_000),
      chunkVectors: 2048,
    };
    const cpu = await simulate({ ...opts, engine: 'cpu', threads: 2 });
    const gpu = await simulate({ ...opts, engine: 'cuda' });
    const auto = await simulate({ ...opts, engine: 'auto', snrs: [8] });
    assert.equal(gpu.engine, 'cuda');
    assert.equal(auto.engine, 'cuda');
    for (const [i, c] of cpu.points.entries()) {
      const g = gpu.points[i]!;
      assert.equal(g.snr, c.snr);
      assert.equal(g.stoppedBy, c.stoppedBy);
      // the same chunks merged: equal vectors unless a near-tie moves the stop across a chunk
      const sigma = Math.sqrt(c.bitErrors + 1);
      assert.ok(
        Math.abs(g.bitErrors - c.bitErrors) <= 3 * sigma,
        `SNR ${c.snr}: GPU ${g.bitErrors} vs CPU ${c.bitErrors} bit errors`,
      );
      t.diagnostic(
        `${c.detector} SNR ${c.snr}: CPU ${c.bitErrors}/${c.vectors} GPU ${g.bitErrors}/${g.vectors} bit errors/vectors, symbol errors ${c.symbolErrors}/${g.symbolErrors}, frame errors ${c.frameErrors}/${g.frameErrors}`,
      );
    }
    const same = await simulate({ ...opts, engine: 'cuda' });
    assert.deepEqual(
      same.points.map((p) => [p.bitErrors, p.symbolErrors, p.frameErrors, p.vectors]),
      gpu.points.map((p) => [p.bitErrors, p.symbolErrors, p.frameErrors, p.vectors]),
      'a seed gives the same GPU counts twice',
    );
  } finally {
    zf.restore();
  }
});
