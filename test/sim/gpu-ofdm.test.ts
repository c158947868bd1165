/**
 * The OFDM link on the GPU (src/sim/gpu/ofdm-kernels.ts, ofdm-data.cu): the data vectors of a
 * launch of slots equal generateLinkChunk's for the OFDM spec (symbol indices bit for bit, the
 * detectors' channels the CPU's rounded to float32, received vectors within the normals' last-ulp
 * differences of float32 rounding, as test/sim/gpu-link.test.ts states for the flat link), in the
 * CUDA emulator here with the CPU's response as the kernel's input (the models' response kernels
 * are checked against the CPU in test/channels). On the device, simulate() with engine cuda gives
 * the CPU engine's counts for a seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  CHANNEL_REGISTRY,
  type ChannelModel,
  channelResponse,
  checkChannel,
  SUBCARRIER_SPACINGS,
  subcarrierFrequencies,
  symbolTimes,
} from '../../src/channels/index.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { Modulation } from '../../src/mimo/types.js';
import { generateLinkChunk, linkChannelSpan } from '../../src/sim/link.js';
import { ofdmDataVectors, ofdmDmrs, type OfdmLinkSpec } from '../../src/sim/ofdm-link.js';
import { ofdmVectorOnCpu } from '../../src/sim/gpu/cpu-vector.js';
import { resolveEngine, simulate } from '../../src/sim/simulate.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;
const MODS: Modulation[] = ['bpsk', 'qpsk', '16qam', '64qam', '256qam'];

interface OfdmCase {
  nt: number;
  nr: number;
  modulation: Modulation;
  channel: ChannelModel;
  channelOptions: Record<string, unknown>;
  ofdm: OfdmLinkSpec;
  seed: number;
  snrIndex: number;
  chunk0: number;
  chunks: number;
  /** Data vectors a chunk: all of the slot's, or (as a coded slot) fewer. */
  chunkVectors: number;
  noiseVar: number;
}

function randomCase(channel: ChannelModel, channelOptions: Record<string, unknown>): OfdmCase {
  const nt = 1 + randomInt(4),
    nr = 1 + randomInt(4);
  const ofdm: OfdmLinkSpec = {
    scs: SUBCARRIER_SPACINGS[randomInt(SUBCARRIER_SPACINGS.length)]!,
    prbs: 1 + randomInt(3),
    csi: 'perfect',
    dmrsAdditional: randomInt(4),
  };
  const data = ofdmDataVectors(ofdm, nt);
  return {
    nt,
    nr,
    modulation: MODS[randomInt(MODS.length)]!,
    channel,
    // with the defaults filled in, as simulate() hands them to the generators
    channelOptions: { ...checkChannel(channel, channelOptions, { nt, nr }, 'test').params },
    ofdm,
    seed: randomInt(2 ** 40),
    snrIndex: randomInt(20),
    chunk0: randomInt(1000),
    chunks: 1 + randomInt(3),
    chunkVectors: randomInt(3) === 0 ? 1 + randomInt(data) : data,
    noiseVar: 10 ** (-randomInt(30) / 10),
  };
}

/** The CPU's chunks, their vectors one after another: symbol indices, channels, received vectors. */
function cpuLaunch(c: OfdmCase): { tx: Int32Array; H: Float64Array; y: Float64Array } {
  const chunks = Array.from({ length: c.chunks }, (_, i) =>
    generateLinkChunk({
      nt: c.nt,
      nr: c.nr,
      modulation: c.modulation,
      vectorsPerChannel: 1,
      seed: c.seed,
      snrIndex: c.snrIndex,
      chunkIndex: c.chunk0 + i,
      vectors: c.chunkVectors,
      noiseVar: c.noiseVar,
      channel: c.channel,
      channelOptions: c.channelOptions,
      ofdm: c.ofdm,
    }),
  );
  const cat = <A extends Float64Array | Int32Array>(parts: A[], make: (n: number) => A): A => {
    const out = make(parts.reduce((t, p) => t + p.length, 0));
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  };
  return {
    tx: cat(
      chunks.map((k) => k.txIndices),
      (n) => new Int32Array(n),
    ),
    H: cat(
      chunks.map((k) => k.H),
      (n) => new Float64Array(n),
    ),
    y: cat(
      chunks.map((k) => k.y),
      (n) => new Float64Array(n),
    ),
  };
}

/** One float32 ulp at x. */
const ulp32 = (x: number) => 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x), 2 ** -126))) - 23);

const MAIN = String.raw`
int main() {
  long long h[10]; double d[1];
  if (fread(h, 8, 10, stdin) != 10 || fread(d, 8, 1, stdin) != 1) return 1;
  const unsigned long long seed = h[0], chunk0 = h[2];
  const unsigned snr = (unsigned)h[1];
  const int cv = (int)h[3], vectors = (int)h[4], K = (int)h[5], mask = (int)h[6], flat = (int)h[7], M = (int)h[8];
  const long long gridEntries = h[9];
  std::vector<double> pts(2 * M), H64(2 * gridEntries);
  if (fread(pts.data(), 8, pts.size(), stdin) != pts.size() || fread(H64.data(), 8, H64.size(), stdin) != H64.size()) return 1;
  std::vector<float> H32((size_t)vectors * 2 * NR * NT), y((size_t)vectors * 2 * NR);
  std::vector<int> tx((size_t)vectors * NT);
  if (emu_launch((vectors + 255) / 256, dim3{256, 1, 1}, 0, [&] { ofdm_data(pts.data(), H64.data(), H32.data(), tx.data(), y.data(), seed, snr, chunk0, cv, vectors, K, mask, flat, M, d[0]); })) return 2;
  fwrite(H32.data(), 4, H32.size(), stdout); fwrite(tx.data(), 4, tx.size(), stdout); fwrite(y.data(), 4, y.size(), stdout);
  return 0;
}
`;

function concat(parts: ArrayBufferView[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((t, p) => t + p.byteLength, 0));
  let o = 0;
  for (const p of parts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += p.byteLength;
  }
  return out;
}

/** ofdm-data.cu in the emulator on the CPU's response of the launch's slots (a flat model: its drops). */
function runEmulatedCase(c: OfdmCase): { H32: Float32Array; tx: Int32Array; y32: Float32Array } {
  const src = fileURLToPath(new URL('../../src/sim/gpu/', import.meta.url));
  const { exe, error } = compileEmulated(
    MAIN,
    [`${src}ofdm-data.cu`],
    ['-DLINK_BLOCK=256', `-DNT=${c.nt}`, `-DNR=${c.nr}`],
  );
  assert.equal(error, null);
  const config = ofdmDmrs(c.ofdm, c.nt);
  const shape = { nt: c.nt, nr: c.nr };
  const gen = CHANNEL_REGISTRY[c.channel].cpu(shape, c.channelOptions as never);
  const span = linkChannelSpan({ seed: c.seed, snrIndex: c.snrIndex, chunkIndex: c.chunk0 }, 0, c.chunks, 1);
  const grid = { scs: c.ofdm.scs, prbs: c.ofdm.prbs };
  const flat = gen.response === undefined;
  const H64 = flat
    ? gen.draw(span)
    : channelResponse(gen, shape, span, { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) });
  const vectors = c.chunks * c.chunkVectors;
  const con = constellation(c.modulation);
  const mask = config.symbols.reduce((m, l) => m | (1 << l), 0);
  const head = new BigInt64Array(
    [
      c.seed,
      c.snrIndex,
      c.chunk0,
      c.chunkVectors,
      vectors,
      config.subcarriers,
      mask,
      flat ? 1 : 0,
      con.size,
      H64.length / 2,
    ].map(BigInt),
  );
  const raw = runEmulated(exe, concat([head, Float64Array.of(Math.sqrt(c.noiseVar / 2)), con.points, H64]));
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const hn = vectors * 2 * c.nr * c.nt;
  return {
    H32: new Float32Array(buf, 0, hn),
    tx: new Int32Array(buf, 4 * hn, vectors * c.nt),
    y32: new Float32Array(buf, 4 * hn + 4 * vectors * c.nt, vectors * 2 * c.nr),
  };
}

/** Symbols bit for bit, H the CPU's rounded, y within a float32 ulp where it sits on a rounding boundary; returns y's such entries. */
function check(c: OfdmCase, got: { H32: Float32Array; tx: Int32Array; y32: Float32Array }): number {
  const want = cpuLaunch(c);
  const what = `${c.channel} ${c.nt}x${c.nr} ${JSON.stringify(c.ofdm)} chunkVectors ${c.chunkVectors}`;
  assert.deepEqual(got.tx, want.tx, `${what}: symbol indices`);
  assert.deepEqual(got.H32, Float32Array.from(want.H), `${what}: channels`);
  let off = 0;
  for (let i = 0; i < want.y.length; i++) {
    const w = Math.fround(want.y[i]!);
    if (got.y32[i] === w) continue;
    off++;
    assert.ok(
      Math.abs(got.y32[i]! - want.y[i]!) <= ulp32(want.y[i]!) + 2 ** -44,
      `${what}: y[${i}] ${got.y32[i]} vs ${want.y[i]}`,
    );
  }
  assert.ok(off <= Math.max(2, want.y.length * 1e-3), `${what}: ${off} of ${want.y.length} y entries differ`);
  return off;
}

test("emulated OFDM data kernel: symbols, channels and received vectors as generateLinkChunk's OFDM slots", {
  skip: emuSkip,
}, (t) => {
  const cases = [
    randomCase('tdl-a', { speed: 30 }),
    randomCase('tdl-c', { speed: 3, correlation: 'medium' }),
    randomCase('tdl-d', {}),
    randomCase('rayleigh', {}),
    randomCase('rician', { kFactorDb: 3 }),
  ];
  let off = 0;
  for (const c of cases) off += check(c, runEmulatedCase(c));
  t.diagnostic(`emulated: ${off} received entries one float32 ulp off the CPU's rounded values; the rest equal`);
});

test("an OFDM vector regenerated for the GPU executor's CPU redo equals generateLinkChunk's", () => {
  const c = randomCase('tdl-b100', {});
  const want = cpuLaunch({ ...c, chunks: 1 });
  const cache = new Map();
  const { nt, nr } = c;
  for (let trial = 0; trial < 5; trial++) {
    const v = randomInt(c.chunkVectors);
    const one = ofdmVectorOnCpu(
      { ...c, vectorsPerChannel: 1, chunkIndex: c.chunk0, vectors: c.chunkVectors },
      v,
      cache,
    );
    assert.deepEqual(one.txIndices, want.tx.subarray(v * nt, (v + 1) * nt));
    assert.deepEqual(one.H, want.H.subarray(2 * v * nr * nt, 2 * (v + 1) * nr * nt));
    assert.deepEqual(one.y, want.y.subarray(2 * v * nr, 2 * (v + 1) * nr));
    assert.equal(one.noiseVar, c.noiseVar);
  }
  assert.equal(cache.size, 1, 'a slot is generated once');
});

test('engine choice: the GPU link takes uncoded OFDM with perfect CSI; auto falls back to the CPU for estimated CSI', async () => {
  const ofdm = { scs: 30e3, prbs: 4, csi: 'ls' as const };
  const auto = await resolveEngine('auto', [{ detector: 'mmse' }], { ofdm, channel: 'tdl-a' });
  assert.equal(auto.engine, 'cpu');
  if (cuda.ok) assert.match(auto.reason, /estimate the OFDM channel/);
});

/** engine cuda and engine cpu on one seed: equal counts for the linear detectors, the tree searches within float32 near-ties. */
async function agree(
  t: { diagnostic(s: string): void },
  channel: ChannelModel,
  channelOptions: Record<string, unknown>,
): Promise<void> {
  const opts = {
    nt: 4,
    nr: 4,
    modulation: '16qam' as const,
    detectors: [{ detector: 'zf' as const }, { detector: 'mmse' as const }, { detector: 'sphere' as const }],
    snrs: [6, 14, 22],
    maxErrors: 2000,
    maxVectors: 100_000,
    seed: 1 + randomInt(10_000),
    channel,
    channelOptions,
    ofdm: { scs: 30e3, prbs: 8 },
  };
  const cpu = await simulate({ ...opts, engine: 'cpu', threads: 4 });
  const gpu = await simulate({ ...opts, engine: 'cuda' });
  assert.equal(gpu.engine, 'cuda');
  for (const [i, c] of cpu.points.entries()) {
    const g = gpu.points[i]!;
    const counts = (p: typeof c) => [p.bitErrors, p.symbolErrors, p.frameErrors, p.vectors];
    t.diagnostic(`${channel} ${c.detector} SNR ${c.snr}: CPU ${counts(c).join('/')} GPU ${counts(g).join('/')}`);
    if (c.detector === 'sphere') {
      // float32 decisions move the rare vector near a tie (gpu-link.test.ts's rule)
      assert.ok(Math.abs(g.bitErrors - c.bitErrors) <= 3 * Math.sqrt(c.bitErrors + 1), `${c.detector} SNR ${c.snr}`);
    } else {
      assert.deepEqual(counts(g), counts(c), `${channel} ${c.detector} SNR ${c.snr}`);
    }
  }
}

test('device simulate OFDM, perfect CSI: engine cuda gives engine cpu counts on a TDL model and on rayleigh', {
  skip,
}, async (t) => {
  await agree(t, 'tdl-c', { speed: 30 });
  await agree(t, 'rayleigh', {});
});
