/**
 * The OFDM link on the GPU (src/sim/gpu/ofdm-kernels.ts and its kernels): the data vectors of a
 * launch of slots equal generateLinkChunk's for the OFDM spec (symbol indices bit for bit, the
 * detectors' channels the CPU's rounded to float32, received vectors within the normals' last-ulp
 * differences of float32 rounding, as test/sim/gpu-link.test.ts states for the flat link); with LS
 * and LMMSE CSI the estimates likewise and each slot's noise variance within 1e-12 of the CPU's
 * (bit for bit where the normals are). These run in the CUDA emulator here with the CPU's response
 * as the kernels' input (the models' response kernels are checked against the CPU in
 * test/channels). On the device, the executor and simulate() with engine cuda give the CPU
 * engine's counts for a seed but for float32 near-ties (uncoded), within statistical error (coded).
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
  dmrsPilots,
  lsErrorScale,
  slotLmmseErrorVariance,
  autoNoiseSum,
  freeTermCounts,
  noiseTermCount,
  residualDofs,
  slotsPerFrame,
  SUBCARRIER_SPACINGS,
  subcarrierFrequencies,
  symbolTimes,
} from '../../src/channels/index.js';
import { EngineUnavailableError } from '../../src/core/errors.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { Modulation } from '../../src/mimo/types.js';
import { codeOf, type CodedSpec, vectorsPerFrame } from '../../src/sim/coded.js';
import { generateLinkChunk, linkChannelSpan } from '../../src/sim/link.js';
import {
  ofdmDataVectors,
  ofdmDmrs,
  ofdmLmmseFilter,
  type OfdmLinkSpec,
  ofdmTimeTerms,
} from '../../src/sim/ofdm-link.js';
import { ofdmVectorOnCpu } from '../../src/sim/gpu/cpu-vector.js';
import {
  lmmseDeviceArrays,
  NOISE_SUM_METHOD,
  NOISE_WINDOW_LANES,
} from '../../src/channels/estimation/gpu/estimation-plan.js';
import { resolveEngine, simulate } from '../../src/sim/simulate.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';
import { unitChunks } from './chunk-tally.js';

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
  unit0: number;
  chunks: number;
  /** Data vectors a chunk: all of the slot's, or (as a coded slot) fewer. */
  unitVectors: number;
  noiseVar: number;
  /** Coded slots: the frames' symbols (unitVectors whole frames). */
  coded?: CodedSpec;
}

function randomCase(
  channel: ChannelModel,
  channelOptions: Record<string, unknown>,
  csi: OfdmLinkSpec['csi'] = 'perfect',
  nt = 1 + randomInt(4),
): OfdmCase {
  const nr = 1 + randomInt(4);
  const ofdm: OfdmLinkSpec = {
    scs: SUBCARRIER_SPACINGS[randomInt(SUBCARRIER_SPACINGS.length)]!,
    prbs: 1 + randomInt(3),
    csi,
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
    unit0: randomInt(1000),
    chunks: 1 + randomInt(3),
    unitVectors: randomInt(3) === 0 ? 1 + randomInt(data) : data,
    noiseVar: 10 ** (-randomInt(30) / 10),
  };
}

/** The CPU's chunks, their vectors one after another: symbol indices, channels, received vectors; each chunk's noise variance. */
function cpuLaunch(c: OfdmCase): { tx: Int32Array; H: Float64Array; y: Float64Array; noise: number[] } {
  const chunks = Array.from({ length: c.chunks }, (_, i) =>
    generateLinkChunk({
      nt: c.nt,
      nr: c.nr,
      modulation: c.modulation,
      vectorsPerChannel: 1,
      seed: c.seed,
      snrIndex: c.snrIndex,
      unitIndex: c.unit0 + i,
      vectors: c.unitVectors,
      noiseVar: c.noiseVar,
      channel: c.channel,
      channelOptions: c.channelOptions,
      ofdm: c.ofdm,
      ...(c.coded ? { coded: c.coded } : {}),
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
    noise: chunks.map((k) => k.noiseVar ?? c.noiseVar),
  };
}

/** One float32 ulp at x. */
const ulp32 = (x: number) => 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x), 2 ** -126))) - 23);

const MAIN = String.raw`
int main() {
  long long h[10]; double d[1];
  if (fread(h, 8, 10, stdin) != 10 || fread(d, 8, 1, stdin) != 1) return 1;
  const unsigned long long seed = h[0], unit0 = h[2];
  const unsigned snr = (unsigned)h[1];
  const int cv = (int)h[3], vectors = (int)h[4], K = (int)h[5], mask = (int)h[6], flat = (int)h[7], M = (int)h[8];
  const long long gridEntries = h[9];
  std::vector<double> pts(2 * M), H64(2 * gridEntries);
  if (fread(pts.data(), 8, pts.size(), stdin) != pts.size() || fread(H64.data(), 8, H64.size(), stdin) != H64.size()) return 1;
  std::vector<float> H32((size_t)vectors * 2 * NR * NT), y((size_t)vectors * 2 * NR);
  std::vector<int> tx((size_t)vectors * NT);
#if LINK_CODED
  if (fread(tx.data(), 4, tx.size(), stdin) != tx.size()) return 1;
#endif
  if (emu_launch((vectors + 255) / 256, dim3{256, 1, 1}, 0, [&] { ofdm_data(pts.data(), H64.data(), H32.data(), tx.data(), y.data(), seed, snr, unit0, cv, vectors, K, mask, flat, M, d[0]); })) return 2;
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
    ['-DLINK_BLOCK=256', `-DNT=${c.nt}`, `-DNR=${c.nr}`, ...(c.coded ? ['-DLINK_CODED=1'] : [])],
  );
  assert.equal(error, null);
  const config = ofdmDmrs(c.ofdm, c.nt);
  const shape = { nt: c.nt, nr: c.nr };
  const gen = CHANNEL_REGISTRY[c.channel].cpu(shape, c.channelOptions as never);
  const span = linkChannelSpan({ seed: c.seed, snrIndex: c.snrIndex, unitIndex: c.unit0 }, 0, c.chunks, 1);
  const grid = { scs: c.ofdm.scs, prbs: c.ofdm.prbs };
  const flat = gen.response === undefined;
  const H64 = flat
    ? gen.draw(span)
    : channelResponse(gen, shape, span, { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) });
  const vectors = c.chunks * c.unitVectors;
  const con = constellation(c.modulation);
  const mask = config.symbols.reduce((m, l) => m | (1 << l), 0);
  const head = new BigInt64Array(
    [
      c.seed,
      c.snrIndex,
      c.unit0,
      c.unitVectors,
      vectors,
      config.subcarriers,
      mask,
      flat ? 1 : 0,
      con.size,
      H64.length / 2,
    ].map(BigInt),
  );
  // coded: the frames' symbols, as link-symbols.cu writes them (test/sim/gpu-coded.test.ts checks it)
  const tx = c.coded ? [cpuLaunch(c).tx] : [];
  const raw = runEmulated(exe, concat([head, Float64Array.of(Math.sqrt(c.noiseVar / 2)), con.points, H64, ...tx]));
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
  const what = `${c.channel} ${c.nt}x${c.nr} ${JSON.stringify(c.ofdm)} unitVectors ${c.unitVectors}`;
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

const ESTIMATE_MAIN = String.raw`
int main() {
  long long h[17]; double d[7];
  if (fread(h, 8, 17, stdin) != 17 || fread(d, 8, 7, stdin) != 7) return 1;
  const int method = (int)h[14], empty = (int)h[16];
  const long long terms = h[15];
  const int segments = (int)((terms + 63) / 64);
  const unsigned long long seed = h[0], unit0 = h[2];
  const unsigned snr = (unsigned)h[1];
  const int cv = (int)h[3], vectors = (int)h[4], K = (int)h[5], mask = (int)h[6], flat = (int)h[7], M = (int)h[8];
  const long long gridEntries = h[9];
  const int chunks = (int)h[10], D = (int)h[11], slots = (int)h[12], W = (int)h[13];
  const double sd = d[0], beta = d[1], pilotPower = d[2], lsScale = d[3], errorVar = d[4], dofs = d[5], doppler = d[6];
  std::vector<double> pts(2 * M), H64(2 * gridEntries), seq(2 * (size_t)slots * D * (K / 2));
  if (fread(pts.data(), 8, pts.size(), stdin) != pts.size() || fread(H64.data(), 8, H64.size(), stdin) != H64.size()) return 1;
  if (fread(seq.data(), 8, seq.size(), stdin) != seq.size()) return 1;
  std::vector<int> starts(W ? NT * K : 0); std::vector<double> weights(4 * (size_t)NT * K * W), Pi(8 * (size_t)NT * W * W);
  if (W && (fread(starts.data(), 4, starts.size(), stdin) != starts.size() || fread(weights.data(), 8, weights.size(), stdin) != weights.size())) return 1;
  if (W && fread(Pi.data(), 8, Pi.size(), stdin) != Pi.size()) return 1;
  const int per = W ? (K / 4) / W : 0;
  std::vector<double> windows((size_t)chunks * D * NT * NR * per), segs((size_t)chunks * segments);
  std::vector<float> H32((size_t)vectors * 2 * NR * NT), y((size_t)vectors * 2 * NR), noiseIn(vectors);
  std::vector<int> tx((size_t)vectors * NT);
  std::vector<double> Yp(2 * (size_t)chunks * D * K * NR), P(2 * (size_t)chunks * D * NT * NR * (K / 4)), Q(P.size()), noise(chunks);
  auto blocks = [](long long n) { return (unsigned)((n + 255) / 256); };
  if (emu_launch(blocks(vectors), dim3{256, 1, 1}, 0, [&] { ofdm_data(pts.data(), H64.data(), nullptr, tx.data(), y.data(), seed, snr, unit0, cv, vectors, K, mask, flat, M, sd); })) return 2;
  if (emu_launch(blocks((long long)chunks * D * K * NR), dim3{256, 1, 1}, 0, [&] { ofdm_pilots(H64.data(), seq.data(), Yp.data(), seed, snr, unit0, chunks, K, D, mask, slots, flat, beta, sd); })) return 2;
  if (emu_launch(blocks((long long)chunks * D * NT * NR * (K / 4)), dim3{256, 1, 1}, 0, [&] { ofdm_despread(Yp.data(), seq.data(), P.data(), W ? Q.data() : nullptr, unit0, chunks, K, D, slots, beta, 1 / (2 * pilotPower)); })) return 2;
  if (W && emu_launch(blocks((long long)windows.size() * OFDM_WINDOW_LANES), dim3{256, 1, 1}, 0, [&] { ofdm_noise_window(P.data(), Q.data(), Pi.data(), windows.data(), chunks, K, D, W, per); })) return 2;
  if (emu_launch(blocks((long long)chunks * segments), dim3{256, 1, 1}, 0, [&] { ofdm_noise_segments(Yp.data(), P.data(), seq.data(), W ? windows.data() : nullptr, segs.data(), unit0, chunks, K, D, slots, method, terms, empty); })) return 2;
  if (emu_launch(blocks(chunks), dim3{256, 1, 1}, 0, [&] { ofdm_noise(segs.data(), noise.data(), chunks, segments, method, (double)terms, dofs, pilotPower, lsScale, errorVar, doppler); })) return 2;
  std::vector<double> Hd(2 * (size_t)chunks * D * K * NR * NT);
  if (emu_launch(blocks((long long)chunks * D * K * NR * NT), dim3{256, 1, 1}, 0, [&] { ofdm_freq_estimate(P.data(), W ? Q.data() : nullptr, W ? starts.data() : nullptr, weights.data(), Hd.data(), chunks, K, D, W); })) return 2;
  if (emu_launch(blocks((long long)vectors * NR * NT), dim3{256, 1, 1}, 0, [&] { ofdm_estimate(Hd.data(), noise.data(), H32.data(), noiseIn.data(), cv, vectors, K, D, mask); })) return 2;
  // the doubles first: every array starts aligned
  fwrite(noise.data(), 8, noise.size(), stdout);
  fwrite(H32.data(), 4, H32.size(), stdout); fwrite(tx.data(), 4, tx.size(), stdout); fwrite(y.data(), 4, y.size(), stdout);
  fwrite(noiseIn.data(), 4, noiseIn.size(), stdout);
  return 0;
}
`;

/** The estimation chain in the emulator (ofdm-data, -pilots, -despread, -noise, -estimate) on the CPU's response. */
function runEstimateEmulated(c: OfdmCase): {
  H32: Float32Array;
  tx: Int32Array;
  y32: Float32Array;
  noiseIn: Float32Array;
  noise: Float64Array;
} {
  const sim = fileURLToPath(new URL('../../src/sim/gpu/', import.meta.url));
  const est = fileURLToPath(new URL('../../src/channels/estimation/gpu/', import.meta.url));
  const files = [
    `${sim}ofdm-data.cu`,
    `${sim}ofdm-pilots.cu`,
    ...['despread', 'noise-window', 'noise-segments', 'noise', 'freq-estimate', 'time-interpolate'].map(
      (f) => `${est}${f}.cu`,
    ),
  ];
  const { exe, error } = compileEmulated(ESTIMATE_MAIN, files, [
    '-DLINK_BLOCK=256',
    '-DOFDM_BLOCK=256',
    `-DOFDM_WINDOW_LANES=${NOISE_WINDOW_LANES}`,
    `-DNT=${c.nt}`,
    `-DNR=${c.nr}`,
  ]);
  assert.equal(error, null);
  const config = ofdmDmrs(c.ofdm, c.nt);
  const K = config.subcarriers,
    D = config.symbols.length,
    slots = slotsPerFrame(c.ofdm.scs);
  const shape = { nt: c.nt, nr: c.nr };
  const gen = CHANNEL_REGISTRY[c.channel].cpu(shape, c.channelOptions as never);
  const span = linkChannelSpan({ seed: c.seed, snrIndex: c.snrIndex, unitIndex: c.unit0 }, 0, c.chunks, 1);
  const grid = { scs: c.ofdm.scs, prbs: c.ofdm.prbs };
  const flat = gen.response === undefined;
  const H64 = flat
    ? gen.draw(span)
    : channelResponse(gen, shape, span, { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) });
  const seq = new Float64Array(slots * D * K);
  for (let s = 0; s < slots; s++) seq.set(dmrsPilots(config, s).sequence, s * D * K);
  const f = c.ofdm.csi === 'lmmse' ? ofdmLmmseFilter(config, c.channel, c.channelOptions, c.noiseVar) : null;
  const W = f ? f.window : 0;
  const time = ofdmTimeTerms(config, c.channel, c.channelOptions);
  const vectors = c.chunks * c.unitVectors;
  const con = constellation(c.modulation);
  // the noise sum's terms, as ofdm-kernels.ts counts them
  const sum = f ? 'lmmse' : autoNoiseSum(c.nt);
  const method = NOISE_SUM_METHOD[sum];
  const counts = freeTermCounts(D, K, c.nr, c.nt);
  const terms = noiseTermCount(sum, D, K, c.nr, c.nt, W);
  const head = new BigInt64Array(
    [
      c.seed,
      c.snrIndex,
      c.unit0,
      c.unitVectors,
      vectors,
      K,
      config.symbols.reduce((m, l) => m | (1 << l), 0),
      flat ? 1 : 0,
      con.size,
      H64.length / 2,
      c.chunks,
      D,
      slots,
      W,
      method,
      terms,
      counts.empty,
    ].map(BigInt),
  );
  const doubles = Float64Array.of(
    Math.sqrt(c.noiseVar / 2),
    Math.sqrt(config.pilotPower),
    config.pilotPower,
    f ? 0 : lsErrorScale(config, time),
    f ? slotLmmseErrorVariance(f, time) : 0,
    f ? residualDofs(f, D, c.nr) : 0,
    time.doppler,
  );
  const parts: ArrayBufferView[] = [head, doubles, con.points, H64, seq];
  if (f) {
    const { starts, weights, residual } = lmmseDeviceArrays(f, K);
    parts.push(starts, weights, residual);
  }
  const raw = runEmulated(exe, concat(parts));
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const hn = vectors * 2 * c.nr * c.nt;
  let o = 0;
  const take = <A>(Ctor: new (b: ArrayBuffer, o: number, n: number) => A, n: number, bytes: number): A => {
    const a = new Ctor(buf, o, n);
    o += n * bytes;
    return a;
  };
  const noise = take(Float64Array, c.chunks, 8);
  return {
    noise,
    H32: take(Float32Array, hn, 4),
    tx: take(Int32Array, vectors * c.nt, 4),
    y32: take(Float32Array, vectors * 2 * c.nr, 4),
    noiseIn: take(Float32Array, vectors, 4),
  };
}

/**
 * Estimated CSI: symbols bit for bit; each slot's noise variance the CPU's to a relative 1e-12
 * (the DM-RS noise's normals differ from V8's in the last ulp at most), each vector's the slot's
 * rounded; the estimate within a float32 ulp of the CPU's and equal to its rounding but for a few.
 */
function checkEstimate(c: OfdmCase, got: ReturnType<typeof runEstimateEmulated>): { off: number; noiseRel: number } {
  const want = cpuLaunch(c);
  const what = `${c.channel} ${c.ofdm.csi} ${c.nt}x${c.nr} ${JSON.stringify(c.ofdm)} unitVectors ${c.unitVectors}`;
  assert.deepEqual(got.tx, want.tx, `${what}: symbol indices`);
  let noiseRel = 0;
  for (let k = 0; k < c.chunks; k++) {
    noiseRel = Math.max(noiseRel, Math.abs(got.noise[k]! - want.noise[k]!) / want.noise[k]!);
    for (let v = 0; v < c.unitVectors; v++) {
      const n = got.noiseIn[k * c.unitVectors + v]!;
      assert.ok(
        Math.abs(n - want.noise[k]!) <= ulp32(want.noise[k]!),
        `${what}: vector ${v}'s noise ${n} vs ${want.noise[k]}`,
      );
    }
  }
  assert.ok(noiseRel < 1e-12, `${what}: noise variance relative error ${noiseRel}`);
  let off = 0;
  for (let i = 0; i < want.H.length; i++) {
    const w = Math.fround(want.H[i]!);
    if (got.H32[i] === w) continue;
    off++;
    // sums of a few products of entries a few float64 ulps off
    assert.ok(
      Math.abs(got.H32[i]! - want.H[i]!) <= ulp32(want.H[i]!) + 2 ** -40,
      `${what}: H[${i}] ${got.H32[i]} vs ${want.H[i]}`,
    );
  }
  for (let i = 0; i < want.y.length; i++) {
    const w = Math.fround(want.y[i]!);
    if (got.y32[i] === w) continue;
    off++;
    assert.ok(
      Math.abs(got.y32[i]! - want.y[i]!) <= ulp32(want.y[i]!) + 2 ** -44,
      `${what}: y[${i}] ${got.y32[i]} vs ${want.y[i]}`,
    );
  }
  const entries = want.H.length + want.y.length;
  assert.ok(off <= Math.max(2, entries * 1e-3), `${what}: ${off} of ${entries} float32 entries differ`);
  return { off, noiseRel };
}

test("emulated OFDM estimation kernels: LS and LMMSE estimates and noise variances as generateLinkChunk's", {
  skip: emuSkip,
}, (t) => {
  const cases = [
    randomCase('tdl-a', { speed: 30 }, 'ls'),
    randomCase('tdl-c', { speed: 100 }, 'lmmse'),
    randomCase('rayleigh', {}, 'ls', 4),
    randomCase('tdl-d', { speed: 3 }, 'lmmse', 4),
    randomCase('tdl-b100', {}, 'ls', 3),
    randomCase('rician', { kFactorDb: 3 }, 'lmmse', 1 + randomInt(2)),
  ];
  // a wider grid: LMMSE windows that slide along the band (W = 8 of K / 4 = 18 pairs)
  const wide = randomCase('tdl-a', { speed: 10 }, 'lmmse');
  const ofdm = { ...wide.ofdm, prbs: 6 };
  cases.push({ ...wide, ofdm, chunks: 1, unitVectors: ofdmDataVectors(ofdm, wide.nt) });
  let off = 0,
    noiseRel = 0;
  for (const c of cases) {
    const r = checkEstimate(c, runEstimateEmulated(c));
    off += r.off;
    noiseRel = Math.max(noiseRel, r.noiseRel);
  }
  t.diagnostic(
    `emulated: ${off} float32 entries one ulp off the CPU's rounded values; noise variances within ${noiseRel.toExponential(2)} of the CPU's`,
  );
});

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

test('emulated OFDM data kernel, coded slots: the frames fill the first data vectors of each slot', {
  skip: emuSkip,
}, () => {
  for (const channel of ['tdl-e', 'rayleigh'] as const) {
    const c = randomCase(channel, {}, 'perfect', 4);
    const coded = { code: 'wimax:576', decoder: {} };
    const vpf = vectorsPerFrame(codeOf(coded.code, c.modulation).n, c.nt, constellation(c.modulation).bitsPerSymbol);
    const ofdm = { ...c.ofdm, prbs: 4 + randomInt(3) };
    const cc = { ...c, ofdm, coded, unitVectors: Math.floor(ofdmDataVectors(ofdm, c.nt) / vpf) * vpf };
    check(cc, runEmulatedCase(cc));
  }
});

test("an OFDM vector regenerated for the GPU executor's CPU redo equals generateLinkChunk's", () => {
  const c = randomCase('tdl-b100', {});
  const want = cpuLaunch({ ...c, chunks: 1 });
  const cache = new Map();
  const { nt, nr } = c;
  for (let trial = 0; trial < 5; trial++) {
    const v = randomInt(c.unitVectors);
    const one = ofdmVectorOnCpu({ ...c, vectorsPerChannel: 1, unitIndex: c.unit0, vectors: c.unitVectors }, v, cache);
    assert.deepEqual(one.txIndices, want.tx.subarray(v * nt, (v + 1) * nt));
    assert.deepEqual(one.H, want.H.subarray(2 * v * nr * nt, 2 * (v + 1) * nr * nt));
    assert.deepEqual(one.y, want.y.subarray(2 * v * nr, 2 * (v + 1) * nr));
    assert.equal(one.noiseVar, c.noiseVar);
  }
  assert.equal(cache.size, 1, 'a slot is generated once');
});

test("engine choice: the GPU link takes OFDM slots, coded or not, with any CSI, and CDL channels; 'auto' takes the device where one answers", async () => {
  const ofdm = { scs: 30e3, prbs: 4, csi: 'lmmse' as const };
  for (const [code, channel] of [
    [undefined, 'tdl-a'],
    ['wimax:576', 'tdl-a'],
    ['nr:bg2:500:1/2', 'cdl-c'],
  ] as const) {
    const auto = await resolveEngine('auto', [{ detector: 'mmse' }], { ofdm, channel, code });
    assert.equal(auto.engine, cuda.ok ? 'cuda' : 'cpu', auto.reason);
    if (!cuda.ok) assert.match(auto.reason, /^auto: no CUDA device/);
    if (cuda.ok)
      assert.equal((await resolveEngine('cuda', [{ detector: 'mmse' }], { ofdm, channel, code })).engine, 'cuda');
    else
      await assert.rejects(
        resolveEngine('cuda', [{ detector: 'mmse' }], { ofdm, channel, code }),
        (e: unknown) => e instanceof EngineUnavailableError && (e.details as { cause?: string }).cause === 'no-device',
      );
  }
});

/** engine cuda and engine cpu on one seed: the same counts but for float32 near-ties. */
async function agree(
  t: { diagnostic(s: string): void },
  channel: ChannelModel,
  channelOptions: Record<string, unknown>,
  csi: OfdmLinkSpec['csi'] = 'perfect',
): Promise<void> {
  const opts = {
    nt: 4,
    nr: 4,
    modulation: '16qam' as const,
    detectors: [{ detector: 'zf' as const }, { detector: 'mmse' as const }, { detector: 'sphere' as const }],
    snrs: [6, 14, 22],
    maxErrors: 10_000,
    maxVectors: 100_000,
    seed: 1 + randomInt(10_000),
    channel,
    channelOptions,
    ofdm: { scs: 30e3, prbs: 8, csi },
  };
  const cpu = await simulate({ ...opts, engine: 'cpu', threads: 4 });
  const gpu = await simulate({ ...opts, engine: 'cuda' });
  assert.equal(gpu.engine, 'cuda');
  for (const [i, c] of cpu.points.entries()) {
    const g = gpu.points[i]!;
    const counts = (p: typeof c) => [p.bitErrors, p.symbolErrors, p.frameErrors, p.vectors];
    t.diagnostic(
      `${channel} csi ${csi} ${c.detector} SNR ${c.snr}: CPU ${counts(c).join('/')} GPU ${counts(g).join('/')}`,
    );
    assert.equal(g.stoppedBy, c.stoppedBy);
    // the same data: the detectors' float32 decisions (the CUDA linear detectors slice in float32,
    // without a tie margin) move only the rare vector near a tie, gpu-link.test.ts's rules: within
    // 0.2 % on the same vectors, 3 sigma where a tie moved the stop across a slot
    const what = `${channel} csi ${csi} ${c.detector} SNR ${c.snr}: GPU ${g.bitErrors} vs CPU ${c.bitErrors}`;
    const d = Math.abs(g.bitErrors - c.bitErrors);
    if (g.vectors === c.vectors) assert.ok(d <= Math.max(2, 0.002 * c.bitErrors), what);
    else assert.ok(d <= 3 * Math.sqrt(c.bitErrors + 1), what);
  }
}

test('device simulate OFDM, perfect CSI: engine cuda gives engine cpu counts (but for float32 near-ties) on a TDL model and on rayleigh', {
  skip,
}, async (t) => {
  await agree(t, 'tdl-c', { speed: 30 });
  await agree(t, 'rayleigh', {});
});

test('device simulate OFDM, LS and LMMSE CSI: engine cuda gives engine cpu counts (but for float32 near-ties)', {
  skip,
}, async (t) => {
  await agree(t, 'tdl-a', { speed: 30 }, 'ls');
  await agree(t, 'tdl-c', { speed: 100 }, 'lmmse');
  await agree(t, 'rayleigh', {}, 'lmmse');
});

/** gpu-coded.test.ts's rule: |FER_gpu - FER_cpu| <= 4 sigma + 2 / frames, sigma^2 = 2 p (1 - p) / frames. */
function ferAgrees(a: number, b: number, frames: number): boolean {
  const p = (a + b) / (2 * frames);
  return Math.abs(a - b) / frames <= 4 * Math.sqrt((2 * p * (1 - p)) / frames) + 2 / frames;
}

test('device simulate coded OFDM (perfect and LMMSE CSI): engine cuda and engine cpu agree within statistical error', {
  skip,
}, async (t) => {
  for (const csi of ['perfect', 'lmmse'] as const) {
    const base = {
      nt: 2,
      nr: 4,
      modulation: '16qam' as const,
      code: 'nr:bg2:498:1/3',
      detectors: [{ detector: 'kbest' as const, k: 8 }],
      snrs: [0, 1],
      snrType: 'ebn0' as const,
      maxFrames: 300,
      maxErrors: 1e6,
      seed: 1 + randomInt(10_000),
      channel: 'tdl-c' as const,
      channelOptions: { speed: 30 },
      ofdm: { scs: 30e3, prbs: 24, csi },
    };
    const gpu = await simulate({ ...base, engine: 'cuda' });
    const cpu = await simulate({ ...base, engine: 'cpu', threads: 4 });
    assert.equal(gpu.engine, 'cuda');
    for (const [i, c] of cpu.points.entries()) {
      const g = gpu.points[i]!;
      assert.equal(g.frames, c.frames);
      assert.ok(ferAgrees(g.frameErrors, c.frameErrors, g.frames), `csi ${csi}: FER GPU ${g.fer} vs CPU ${c.fer}`);
      t.diagnostic(`csi ${csi} Eb/N0 ${c.snr}: FER GPU ${g.fer} CPU ${c.fer} (${g.frames} frames)`);
    }
  }
});

test("device GPU executor, OFDM: per-slot counts equal runChunk's (but for float32 near-ties) across launches of several slots, for every CSI", {
  skip,
}, async (t) => {
  const { GpuLinkExecutor } = await import('../../src/sim/gpu/executor.js');
  const { runChunk, unitCounts } = await import('../../src/sim/chunk.js');
  const nt = 2,
    nr = 4,
    modulation = '16qam' as const;
  for (const csi of ['perfect', 'ls', 'lmmse'] as const) {
    const ofdm: OfdmLinkSpec = { scs: 30e3, prbs: 6, csi, dmrsAdditional: 2 };
    const slot = ofdmDataVectors(ofdm, nt);
    const channelOptions = { ...checkChannel('tdl-a', { speed: 50 }, { nt, nr }, 'test').params };
    const detectors = [
      { detector: 'zf' as const, modulation, engine: 'cpu' as const },
      { detector: 'mmse' as const, modulation, engine: 'cpu' as const },
    ];
    const exec = await GpuLinkExecutor.create({
      nt,
      nr,
      modulation,
      vectorsPerChannel: 1,
      unitVectors: slot,
      seed: 1 + randomInt(1000),
      detectors,
      channel: 'tdl-a',
      channelOptions,
      ofdm,
      // two slots a launch, and a launch of one
      launchVectors: 2 * slot + 1,
    });
    try {
      // chunks of one slot and of three (a launch then takes part of a chunk)
      const tasks = unitChunks(
        {
          nt,
          nr,
          modulation,
          vectorsPerChannel: 1,
          seed: exec.setup.seed,
          detectors,
          snrIndex: 2,
          noiseVar: 10 ** (-12 / 10),
          channel: 'tdl-a' as const,
          channelOptions,
          ofdm,
        },
        17,
        slot,
        [1, 3, 1],
        () => [0, 1],
      );
      const results = await Promise.all(tasks.map((task) => exec.run(task)));
      let differ = 0,
        bits = 0;
      for (const [i, task] of tasks.entries()) {
        const cpu = runChunk(task);
        assert.equal(results[i]!.unit0, task.unit0);
        for (let u = 0; u < cpu.vectors.length; u++)
          for (let d = 0; d < 2; d++) {
            const g = unitCounts(results[i]!, d, u)!,
              c = unitCounts(cpu, d, u)!;
            differ += Math.abs(g.bitErrors - c.bitErrors);
            bits += c.bitErrors;
          }
      }
      // float32 decisions near a tie (gpu-link.test.ts's executor rule)
      assert.ok(differ <= Math.max(2, bits * 0.002), `csi ${csi}: ${differ} bit errors differ of ${bits}`);
      t.diagnostic(`csi ${csi}: 5 slots of ${slot} vectors, bit errors differ by ${differ} of ${bits}`);
    } finally {
      await exec.close();
    }
  }
});
