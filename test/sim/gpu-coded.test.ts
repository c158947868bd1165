/**
 * The coded link on the GPU (src/sim/gpu/coded-kernels.ts, the executor's coded stages): the
 * information bits, codewords (src/coding/gpu/encode.cu) and symbol indices of a launch equal
 * generateLinkChunk's bit for bit, channels and received vectors equal them after rounding to
 * float32 but for a bounded few (as the uncoded link), the decoder-input compaction (the coding
 * part's rate-recovery.cu) equals frameLlrs / nrRateRecover in float32, the count kernel equals countDecoded. These run in the CUDA emulator
 * here (CI) and on the device. On the device, the executor's per-chunk counts and simulate() agree
 * with the CPU engine for a seed within statistical error: the data are the same, float32 LLRs
 * move only frames decoded near a tie. The rule: |FER_gpu - FER_cpu| <= 4 sigma + 2 / frames with
 * sigma^2 = 2 p (1 - p) / frames, p the mean FER (the two-sample bound, which paired data meet
 * with room), and symbol errors within 1% of the symbols.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { LdpcCode } from '../../src/coding/code.js';
import { ldpcEncoderDefines, encoderFramesPerBlock } from '../../src/coding/gpu/cuda-encoder.js';
import { rateRecoveryColumns } from '../../src/coding/gpu/rate-recovery.js';
import { nrRateMatchMap, nrRateRecover } from '../../src/coding/nr.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { snrToNoiseVar } from '../../src/mimo/channel.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import { runChunk, unitCounts } from '../../src/sim/chunk.js';
import type { ChannelModel } from '../../src/channels/index.js';
import { codedUnit, codeOf, countDecoded, frameLlrs, vectorsPerFrame } from '../../src/sim/coded.js';
import { linkChannelSpan } from '../../src/sim/link.js';
import { codedFrameOnCpu, linkVectorOnCpu } from '../../src/sim/gpu/cpu-vector.js';
import { generateLinkChunk, type LinkChunk } from '../../src/sim/link.js';
import { resolveEngine, simulate } from '../../src/sim/simulate.js';
import { tallyAgainstCpu, unitChunks } from './chunk-tally.js';
import { injectFlags } from './flag-injection.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;
const SRC = fileURLToPath(new URL('../../src/sim/gpu/', import.meta.url));
const ENCODER = fileURLToPath(new URL('../../src/coding/gpu/encode.cu', import.meta.url));
const RATE_RECOVERY = fileURLToPath(new URL('../../src/coding/gpu/rate-recovery.cu', import.meta.url));
/** The channel models' kernels (src/channels): rayleigh and awgn. */
const CHANNEL_KERNELS = ['rayleigh/rayleigh.cu', 'awgn/identity.cu'].map((f) =>
  fileURLToPath(new URL(`../../src/channels/${f}`, import.meta.url)),
);

const concat = (parts: ArrayBufferView[]): Uint8Array =>
  Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));

// ---------------------------------------------------------------------------------------------
// Generation: bits, codewords, symbols, channels, received vectors

interface CodedCase {
  code: string;
  nt: number;
  nr: number;
  modulation: Modulation;
  vpc: number;
  channel: ChannelModel;
  seed: number;
  snrIndex: number;
  unit0: number;
  unitVectors: number;
  v0: number;
  vectors: number;
  lastVectors: number;
  noiseVar: number;
}

/**
 * A launch of `chunks` chunks of `unitsPerChunk` units (whole frames and channel groups), or a
 * piece of one chunk; the last chunk is short at times (a point's last chunk).
 */
function codedCase(
  code: string,
  nt: number,
  nr: number,
  modulation: Modulation,
  vpc: number,
  unitsPerChunk: number,
  chunks: number,
  channel: ChannelModel = 'rayleigh',
): CodedCase {
  const c = codeOf(code, modulation);
  const unit = codedUnit(vectorsPerFrame(c.n, nt, constellation(modulation).bitsPerSymbol), vpc);
  const unitVectors = unit * unitsPerChunk;
  const piece = chunks === 1 && unitsPerChunk > 1 && randomInt(2) === 0;
  const short = !piece && randomInt(2) === 0 ? unit * (1 + randomInt(unitsPerChunk)) : unitVectors;
  const v0 = piece ? unit * randomInt(unitsPerChunk) : 0;
  const vectors = piece ? unit * (1 + randomInt(unitsPerChunk - v0 / unit)) : (chunks - 1) * unitVectors + short;
  return {
    code,
    nt,
    nr,
    modulation,
    vpc,
    channel,
    seed: randomInt(2 ** 40),
    snrIndex: randomInt(20),
    unit0: randomInt(1000),
    unitVectors,
    v0,
    vectors,
    lastVectors: piece ? unitVectors : short,
    noiseVar: 10 ** (-randomInt(20) / 10),
  };
}

interface CodedOutput {
  info: Uint8Array;
  cw: Uint8Array;
  tx: Int32Array;
  H32: Float32Array;
  y32: Float32Array;
}

/** The CPU engine's values of the launch: from generateLinkChunk of each chunk touched, and the CPU encoder. */
function cpuCoded(c: CodedCase): {
  info: Uint8Array;
  cw: Uint8Array;
  tx: Int32Array;
  H: Float64Array;
  y: Float64Array;
} {
  const code = codeOf(c.code, c.modulation);
  const vpf = vectorsPerFrame(code.n, c.nt, constellation(c.modulation).bitsPerSymbol);
  const nFull = code.H.n,
    hLen = 2 * c.nr * c.nt,
    frames = c.vectors / vpf;
  const out = {
    info: new Uint8Array(frames * code.k),
    cw: new Uint8Array(frames * nFull),
    tx: new Int32Array(c.vectors * c.nt),
    H: new Float64Array((c.vectors / c.vpc) * hLen),
    y: new Float64Array(c.vectors * 2 * c.nr),
  };
  const lastChunk = Math.floor((c.v0 + c.vectors - 1) / c.unitVectors);
  const chunks = new Map<number, LinkChunk>();
  for (let g = 0; g < c.vectors; g++) {
    const p = c.v0 + g,
      kc = Math.floor(p / c.unitVectors),
      v = p % c.unitVectors;
    let ch = chunks.get(kc);
    if (!ch) {
      ch = generateLinkChunk({
        nt: c.nt,
        nr: c.nr,
        modulation: c.modulation,
        vectorsPerChannel: c.vpc,
        seed: c.seed,
        snrIndex: c.snrIndex,
        unitIndex: c.unit0 + kc,
        vectors: kc === lastChunk ? c.lastVectors : c.unitVectors,
        noiseVar: c.noiseVar,
        channel: c.channel,
        coded: { code: c.code, decoder: {} },
      });
      chunks.set(kc, ch);
    }
    out.tx.set(ch.txIndices.subarray(v * c.nt, (v + 1) * c.nt), g * c.nt);
    out.y.set(ch.y.subarray(v * 2 * c.nr, (v + 1) * 2 * c.nr), g * 2 * c.nr);
    if (g % c.vpc === 0) out.H.set(ch.H.subarray((v / c.vpc) * hLen, (v / c.vpc + 1) * hLen), (g / c.vpc) * hLen);
    if (g % vpf === 0) {
      const f = g / vpf,
        fc = v / vpf;
      const info = ch.info!.subarray(fc * code.k, (fc + 1) * code.k);
      out.info.set(info, f * code.k);
      out.cw.set(code.encodeFull(info), f * nFull);
    }
  }
  return out;
}

const ulp32 = (x: number) => 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x), 2 ** -126))) - 23);

/** Bits, codewords and symbols bit for bit; H and y in float32 the CPU's rounded but for a bounded few one float32 ulp off. */
function checkCoded(c: CodedCase, got: CodedOutput): { differ: number; entries: number } {
  const want = cpuCoded(c);
  const what = `${c.code} ${c.nt}x${c.nr} ${c.modulation} vpc ${c.vpc} ${c.channel} seed ${c.seed}`;
  assert.deepEqual(got.info, want.info, `${what}: information bits`);
  assert.deepEqual(got.cw, want.cw, `${what}: codewords`);
  assert.deepEqual(got.tx, want.tx, `${what}: symbol indices`);
  let differ = 0;
  const near = (a: Float32Array, b: Float64Array, name: string, slack: number) => {
    for (let i = 0; i < b.length; i++) {
      if (a[i] === Math.fround(b[i]!)) continue;
      differ++;
      assert.ok(Math.abs(a[i]! - b[i]!) <= ulp32(b[i]!) + slack, `${what}: ${name}[${i}] ${a[i]} vs ${b[i]}`);
    }
  };
  near(got.H32, want.H, 'H', 0);
  near(got.y32, want.y, 'y', 2 ** -44);
  const entries = want.H.length + want.y.length;
  assert.ok(
    differ <= Math.max(2, entries * 1e-3),
    `${what}: ${differ} of ${entries} float32 entries differ from the CPU's`,
  );
  return { differ, entries };
}

/** What the kernels need of a case: sizes of its code, the encoder's defines, the rate-matching map. */
function shape(c: CodedCase) {
  const code = codeOf(c.code, c.modulation);
  const bps = constellation(c.modulation).bitsPerSymbol;
  const vpf = vectorsPerFrame(code.n, c.nt, bps);
  const nFull = code.H.n;
  const padWords = Math.ceil((vpf * c.nt * bps - code.n) / 32);
  const fpb = encoderFramesPerBlock(code.qc!);
  const map = code.nr ? nrRateMatchMap(code.nr, 0) : null;
  return { code, bps, vpf, nFull, padWords, fpb, map, frames: c.vectors / vpf };
}

const GEN_MAIN = String.raw`
int main() {
  long long h[22]; double d[1];
  if (fread(h, 8, 22, stdin) != 22 || fread(d, 8, 1, stdin) != 1) return 1;
  const unsigned long long seed = h[0], unit0 = h[2], v0 = h[3], cv = h[4], lastVectors = h[10];
  const unsigned snr = (unsigned)h[1];
  const int vectors = (int)h[5], vpc = (int)h[6], M = (int)h[7], nt = (int)h[8], nr = (int)h[9];
  const int bps = (int)h[11], vpf = (int)h[12], n = (int)h[13], nFull = (int)h[14], k = (int)h[15], padWords = (int)h[16], hasMap = (int)h[17], identity = (int)h[18];
  // the channels' span (src/sim/link.ts linkChannelSpan): stream0, perStream, first
  const unsigned long long stream0 = h[19], perStream = h[20], first = h[21];
  std::vector<double> pts(2 * M);
  if (fread(pts.data(), 8, pts.size(), stdin) != pts.size()) return 1;
  std::vector<int> map(hasMap ? n : 1);
  if (hasMap && fread(map.data(), 4, n, stdin) != (size_t)n) return 1;
  const int frames = vectors / vpf, channels = vectors / vpc, pairs = nr * nt;
  const unsigned long long lastChunk = (v0 + vectors - 1) / cv - 0;
  std::vector<unsigned char> info((size_t)frames * k), cw((size_t)frames * nFull);
  std::vector<double> H64((size_t)channels * 2 * pairs); std::vector<float> H32(H64.size()), y((size_t)vectors * 2 * nr);
  std::vector<int> tx((size_t)vectors * nt);
  if (emu_launch((frames * k + 255) / 256, dim3{256, 1, 1}, 0, [&] { link_info(info.data(), seed, snr, unit0, v0, cv, frames, vpf, k); })) return 2;
  if (emu_launch((frames + FPB - 1) / FPB, dim3{Z, FPB, 1}, (size_t)FPB * (NCOLS + NLAYERS) * Z, [&] { ldpc_encode(info.data(), cw.data(), frames); })) return 2;
  if (emu_launch((vectors * nt + 255) / 256, dim3{256, 1, 1}, 0, [&] { link_symbols(cw.data(), hasMap ? map.data() : nullptr, tx.data(), seed, snr, unit0, v0, cv, lastChunk, lastVectors, vectors, nt, bps, vpf, n, nFull, k, padWords); })) return 2;
  if (emu_launch((channels * pairs + 255) / 256, dim3{256, 1, 1}, 0, [&] {
        if (identity) identity_channels(H64.data(), H32.data(), channels, pairs, nr);
        else rayleigh_channels(H64.data(), H32.data(), seed, stream0, 4, perStream, first, channels, pairs);
      })) return 2;
  if (emu_launch((vectors + 255) / 256, dim3{256, 1, 1}, 0, [&] { link_vectors(pts.data(), H64.data(), tx.data(), y.data(), seed, snr, unit0, v0, cv, vectors, vpc, M, d[0]); })) return 2;
  fwrite(info.data(), 1, info.size(), stdout); fwrite(cw.data(), 1, cw.size(), stdout); fwrite(tx.data(), 4, tx.size(), stdout);
  fwrite(H32.data(), 4, H32.size(), stdout); fwrite(y.data(), 4, y.size(), stdout);
  return 0;
}
`;

function runCodedEmulated(c: CodedCase): CodedOutput {
  const s = shape(c);
  const defines = Object.entries({
    ...ldpcEncoderDefines(s.code.qc!, s.code.k, s.fpb),
    LINK_BLOCK: 256,
    NT: c.nt,
    NR: c.nr,
    LINK_CODED: 1,
  }).map(([k, v]) => `-D${k}=${v}`);
  const files = ['link-info.cu', 'link-symbols.cu', 'link-vectors.cu'].map((f) => SRC + f);
  const { exe, error } = compileEmulated(GEN_MAIN, [ENCODER, ...CHANNEL_KERNELS, ...files], defines);
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
      c.lastVectors,
      s.bps,
      s.vpf,
      s.code.n,
      s.nFull,
      s.code.k,
      s.padWords,
      s.map ? 1 : 0,
      c.channel === 'awgn' ? 1 : 0,
      span.stream0,
      span.perStream,
      span.first,
    ].map(BigInt),
  );
  const raw = runEmulated(
    exe,
    concat([head, new Float64Array([Math.sqrt(c.noiseVar / 2)]), con.points, ...(s.map ? [s.map] : [])]),
  );
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const hn = (c.vectors / c.vpc) * 2 * c.nr * c.nt;
  let o = 0;
  // copies: the byte arrays leave later arrays off their alignment
  const take = <A>(Ctor: new (b: ArrayBuffer, o: number, n: number) => A, n: number, bytes: number): A => {
    const a = new Ctor(buf.slice(o, o + n * bytes), 0, n);
    o += n * bytes;
    return a;
  };
  return {
    info: take(Uint8Array, s.frames * s.code.k, 1),
    cw: take(Uint8Array, s.frames * s.nFull, 1),
    tx: take(Int32Array, c.vectors * c.nt, 4),
    H32: take(Float32Array, hn, 4),
    y32: take(Float32Array, c.vectors * 2 * c.nr, 4),
  };
}

/** Small cases the emulator runs in seconds: codes sent whole without and with pad bits, NR (rate matching, fillers), AWGN. */
function smallCases(): CodedCase[] {
  return [
    codedCase('wimax:576', 2, 2, '16qam', 1, 2, 2),
    codedCase('wimax:672', 3, 3, '64qam', 2, 1, 2),
    codedCase(`nr:bg2:${40 + randomInt(200)}:1/2`, 2, 3, 'qpsk', 1, 2, 1),
    codedCase('wimax:576', 2, 2, 'qpsk', 1, 1, 2, 'awgn'),
  ];
}

test('emulated coded link kernels: information bits, codewords, symbols as generateLinkChunk makes them', {
  skip: emuSkip,
}, (t) => {
  let differ = 0,
    entries = 0;
  for (const c of smallCases()) {
    const s = checkCoded(c, runCodedEmulated(c));
    differ += s.differ;
    entries += s.entries;
  }
  t.diagnostic(`emulated: ${differ} of ${entries} float32 H and y entries one ulp off the CPU's rounded values`);
});

// ---------------------------------------------------------------------------------------------
// Decoder input and counts

/**
 * Random detector LLRs of `frames` frames and the decoder input the CPU makes of them in float32
 * (frameLlrs, or NR rate recovery into a Float32Array: the kernel's additions in the same order).
 */
function llrCase(code: LdpcCode, nt: number, bps: number, frames: number, saturation: number) {
  const vpf = vectorsPerFrame(code.n, nt, bps),
    per = vpf * nt * bps,
    nFull = code.H.n;
  const llr = new Float32Array(frames * per);
  for (let i = 0; i < llr.length; i++) llr[i] = (Math.random() - 0.5) * 40;
  let want: Float32Array;
  if (code.nr) {
    const map = nrRateMatchMap(code.nr, 0);
    want = new Float32Array(frames * nFull);
    for (let f = 0; f < frames; f++)
      nrRateRecover(code.nr, map, llr, want.subarray(f * nFull, (f + 1) * nFull), true, saturation, f * per);
  } else {
    want = frameLlrs(llr, frames, code.n, per, true) as Float32Array;
  }
  return { llr, want, per, nFull };
}

const LLR_MAIN = String.raw`
int main() {
  int h[6]; float sat;
  if (fread(h, 4, 6, stdin) != 6 || fread(&sat, 4, 1, stdin) != 1) return 1;
  const int frames = h[0], per = h[1], nFull = h[2], n = h[3], fill0 = h[4], fill1 = h[5];
  std::vector<float> llr((size_t)frames * per), out((size_t)frames * nFull);
  std::vector<int> start(nFull + 1), col(n);
  if (fread(llr.data(), 4, llr.size(), stdin) != llr.size() || fread(start.data(), 4, start.size(), stdin) != start.size() || fread(col.data(), 4, n, stdin) != (size_t)n) return 1;
  if (emu_launch((frames * nFull + 255) / 256, dim3{256, 1, 1}, 0, [&] { rate_recovery(llr.data(), start.data(), col.data(), out.data(), frames, per, nFull, fill0, fill1, sat, nullptr, 1, (long long)per); })) return 2;
  fwrite(out.data(), 4, out.size(), stdout);
  return 0;
}
`;

test('emulated decoder input (src/coding/gpu/rate-recovery.cu): frameLlrs for padded frames, NR rate recovery (repeats, fillers, punctured), bit for bit', {
  skip: emuSkip,
}, () => {
  const { exe, error } = compileEmulated(LLR_MAIN, RATE_RECOVERY, ['-DRR_BLOCK=256']);
  assert.equal(error, null);
  for (const [spec, nt, mod] of [
    ['wimax:672', 3, '64qam'],
    [`nr:bg2:${40 + randomInt(200)}:1/3`, 2, 'qpsk'],
    [`nr:bg1:${300 + randomInt(200)}:1/2`, 1, '16qam'],
  ] as const) {
    const code = codeOf(spec, mod),
      bps = constellation(mod).bitsPerSymbol,
      frames = 3,
      sat = 20;
    const c = llrCase(code, nt, bps, frames, sat);
    // the column table CodedLinkKernels' rate recovery plan uploads
    const { start, col, fill } = rateRecoveryColumns(code);
    const raw = runEmulated(
      exe,
      concat([
        new Int32Array([frames, c.per, c.nFull, code.n, fill[0], fill[1]]),
        new Float32Array([sat]),
        c.llr,
        start,
        col,
      ]),
    );
    const got = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    assert.equal(got.length, c.want.length);
    for (let i = 0; i < c.want.length; i++) assert.equal(got[i], c.want[i], `${spec} entry ${i}`);
  }
});

const COUNT_MAIN = String.raw`
int main() {
  long long h[10];
  if (fread(h, 8, 10, stdin) != 10) return 1;
  const int frames = (int)h[0], vpf = (int)h[1], nt = (int)h[2], k = (int)h[3], listCap = (int)h[6], chunks = (int)h[7], perFrame = (int)h[8], frameCap = (int)h[9];
  const unsigned long long v0 = h[4], cv = h[5];
  const int vectors = frames * vpf;
  std::vector<unsigned char> info((size_t)frames * k), bits(info.size());
  std::vector<int> dec(frames), tx((size_t)vectors * nt), rx(tx.size()), status((size_t)vectors * 2), list(1 + 2 * listCap), skipped(1 + frameCap);
  std::vector<float> llr((size_t)frames * perFrame), side((size_t)frameCap * perFrame);
  std::vector<unsigned long long> counts((size_t)chunks * 4);
  if (fread(info.data(), 1, info.size(), stdin) != info.size() || fread(bits.data(), 1, bits.size(), stdin) != bits.size() ||
      fread(dec.data(), 4, frames, stdin) != (size_t)frames || fread(tx.data(), 4, tx.size(), stdin) != tx.size() ||
      fread(rx.data(), 4, rx.size(), stdin) != rx.size() || fread(status.data(), 4, status.size(), stdin) != status.size() ||
      fread(llr.data(), 4, llr.size(), stdin) != llr.size()) return 1;
  if (emu_launch(frames, dim3{128, 1, 1}, 0, [&] { link_coded_count(info.data(), bits.data(), dec.data(), tx.data(), rx.data(), status.data(), llr.data(), counts.data(), list.data(), listCap, 16 | 1, 16, skipped.data(), side.data(), frameCap, perFrame, frames, vpf, nt, k, v0, cv); })) return 2;
  fwrite(counts.data(), 8, counts.size(), stdout); fwrite(list.data(), 4, list.size(), stdout); fwrite(skipped.data(), 4, skipped.size(), stdout); fwrite(side.data(), 4, side.size(), stdout);
  return 0;
}
`;

test('emulated coded count (link-coded-count.cu): countDecoded and symbol errors per chunk; flagged vectors listed, their frames left out with their LLRs', {
  skip: emuSkip,
}, () => {
  const { exe, error } = compileEmulated(COUNT_MAIN, [`${SRC}link-coded-count.cu`], ['-DCOUNT_BLOCK=128']);
  assert.equal(error, null);
  for (let trial = 0; trial < 4; trial++) {
    const vpf = 1 + randomInt(40),
      nt = 1 + randomInt(4),
      // a multiple of 16 (the kernel's 16-byte loads) on even trials, any length on odd ones
      k = trial % 2 === 0 ? 16 * (3 + randomInt(20)) : 50 + randomInt(300),
      framesPerChunk = 1 + randomInt(4),
      perFrame = vpf * nt * 2;
    const cv = vpf * framesPerChunk,
      f0 = randomInt(framesPerChunk),
      frames = 3 + randomInt(12),
      v0 = f0 * vpf;
    const chunks = Math.floor((v0 + frames * vpf - 1) / cv) + 1,
      vectors = frames * vpf;
    const info = new Uint8Array(frames * k).map(() => randomInt(2)),
      bits = info.map((b) => (Math.random() < 0.3 ? b ^ (Math.random() < 0.05 ? 1 : 0) : b));
    const dec = Int32Array.from({ length: frames }, () => (1 + randomInt(20)) | (randomInt(2) << 16));
    const tx = Int32Array.from({ length: vectors * nt }, () => randomInt(16)),
      rx = tx.map((s) => (Math.random() < 0.1 ? randomInt(16) : s));
    const llr = Float32Array.from({ length: frames * perFrame }, () => Math.random() * 10 - 5);
    const status = new Int32Array(vectors * 2);
    // a few vectors to redo (16), one at the node budget (1, listed only); the frame cap is sometimes exceeded
    const redo = new Set<number>();
    for (let i = 0; i < 1 + randomInt(4); i++) {
      const g = randomInt(vectors);
      status[2 * g] = 16;
      redo.add(g);
    }
    const g1 = randomInt(vectors);
    status[2 * g1] |= 1;
    const skippedFrames = new Set([...redo].map((g) => Math.floor(g / vpf)));
    const listCap = 8,
      frameCap = 1 + randomInt(3);
    const raw = runEmulated(
      exe,
      concat([
        new BigInt64Array([frames, vpf, nt, k, v0, cv, listCap, chunks, perFrame, frameCap].map(BigInt)),
        info,
        bits,
        dec,
        tx,
        rx,
        status,
        llr,
      ]),
    );
    const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
    let o = 0;
    const counts = new BigUint64Array(buf, o, chunks * 4);
    o += chunks * 32;
    const list = new Int32Array(buf, o, 1 + 2 * listCap);
    o += (1 + 2 * listCap) * 4;
    const skipped = new Int32Array(buf, o, 1 + frameCap);
    o += (1 + frameCap) * 4;
    const side = new Float32Array(buf.slice(o, o + frameCap * perFrame * 4));
    const want = new Array(chunks * 4).fill(0);
    for (let f = 0; f < frames; f++) {
      const slot = Math.floor((v0 + f * vpf) / cv);
      for (let g = f * vpf; g < (f + 1) * vpf; g++) {
        if (redo.has(g)) continue;
        for (let j = 0; j < nt; j++) want[4 * slot + 1] += tx[g * nt + j] !== rx[g * nt + j] ? 1 : 0;
      }
      if (skippedFrames.has(f)) continue;
      const d = countDecoded(
        bits.subarray(f * k, (f + 1) * k),
        dec.subarray(f, f + 1).map((x) => x & 0xffff),
        info.subarray(f * k, (f + 1) * k),
        0,
        1,
        k,
      );
      want[4 * slot] += d.bitErrors;
      want[4 * slot + 2] += d.frameErrors;
      want[4 * slot + 3] += d.iterations;
    }
    assert.deepEqual(Array.from(counts, Number), want);
    const listed = new Set<number>();
    for (let i = 0; i < Math.min(list[0]!, listCap); i++) listed.add(list[1 + 2 * i]!);
    const flaggedAll = Array.from({ length: vectors }, (_, g) => g).filter((g) => status[2 * g]! & 17);
    assert.equal(list[0], flaggedAll.length);
    if (flaggedAll.length <= listCap)
      assert.deepEqual(
        [...listed].sort((a, b) => a - b),
        flaggedAll,
      );
    assert.equal(skipped[0], skippedFrames.size);
    const kept = Array.from(skipped.subarray(1, 1 + Math.min(skipped[0]!, frameCap)));
    assert.equal(new Set(kept).size, kept.length);
    for (const [i, f] of kept.entries()) {
      assert.ok(skippedFrames.has(f));
      assert.deepEqual(side.subarray(i * perFrame, (i + 1) * perFrame), llr.subarray(f * perFrame, (f + 1) * perFrame));
    }
  }
});

test("a coded frame regenerated alone (the GPU executor's CPU redo) equals generateLinkChunk's: bits, symbols, channels, received vectors", () => {
  const specs: [string, number, number, Modulation, number, ChannelModel][] = [
    ['wimax:576', 2, 2, '16qam', 1, 'rayleigh'],
    ['wimax:672', 3, 4, '64qam', 2, 'rayleigh'],
    [`nr:bg2:${40 + randomInt(300)}:1/3`, 2, 2, 'qpsk', 3, 'rayleigh'],
    ['wimax:960', 2, 3, 'qpsk', 1, 'awgn'],
  ];
  for (const [codeSpec, nt, nr, modulation, vpc, channel] of specs) {
    const code = codeOf(codeSpec, modulation);
    const unit = codedUnit(vectorsPerFrame(code.n, nt, constellation(modulation).bitsPerSymbol), vpc);
    const vectors = unit * (1 + randomInt(3));
    const spec = {
      nt,
      nr,
      modulation,
      vectorsPerChannel: vpc,
      seed: randomInt(2 ** 40),
      snrIndex: randomInt(30),
      unitIndex: randomInt(2 ** 32),
      noiseVar: 10 ** (-randomInt(30) / 10),
      channel,
    };
    const coded = { code: codeSpec, decoder: {} };
    const chunk = generateLinkChunk({ ...spec, vectors, coded });
    const vpf = vectorsPerFrame(code.n, nt, constellation(modulation).bitsPerSymbol),
      frames = vectors / vpf;
    const f = randomInt(frames);
    const one = codedFrameOnCpu({ ...spec, coded, unitVectors: vectors }, f);
    const what = `${codeSpec} ${channel} frame ${f} of ${frames}`;
    assert.deepEqual(one.info, chunk.info!.subarray(f * code.k, (f + 1) * code.k), what);
    assert.deepEqual(one.txIndices, chunk.txIndices.subarray(f * vpf * nt, (f + 1) * vpf * nt), what);
    const hLen = 2 * nr * nt;
    for (const u of [0, randomInt(vpf), vpf - 1]) {
      const v = f * vpf + u,
        c = Math.floor(v / vpc);
      const got = one.vector(u);
      assert.deepEqual(got.H, chunk.H.subarray(c * hLen, (c + 1) * hLen), `${what} vector ${u}: H`);
      assert.deepEqual(got.y, chunk.y.subarray(v * 2 * nr, (v + 1) * 2 * nr), `${what} vector ${u}: y`);
    }
  }
  // an uncoded vector of an AWGN chunk (H = I), as the uncoded executor redoes it
  const spec = {
    nt: 2,
    nr: 3,
    modulation: '16qam' as const,
    vectorsPerChannel: 2,
    seed: randomInt(2 ** 40),
    snrIndex: 1,
    unitIndex: randomInt(1000),
    noiseVar: 0.1,
    channel: 'awgn' as const,
  };
  const chunk = generateLinkChunk({ ...spec, vectors: 8 });
  const v = randomInt(8),
    one = linkVectorOnCpu(spec, v);
  assert.deepEqual(one.H, chunk.H.subarray(Math.floor(v / 2) * 12, (Math.floor(v / 2) + 1) * 12));
  assert.deepEqual(one.y, chunk.y.subarray(v * 6, (v + 1) * 6));
});

test('engine choice: a coded run asking for soft logmap stays on the CPU (auto) or is refused (cuda)', async () => {
  const coded = { code: 'wimax:576', decoder: {}, modulation: 'qpsk' as const };
  const auto = await resolveEngine('auto', [{ detector: 'ml', soft: 'logmap' } as DetectOptions], coded);
  assert.equal(auto.engine, 'cpu');
  if (cuda.ok)
    await assert.rejects(resolveEngine('cuda', [{ detector: 'ml', soft: 'logmap' } as DetectOptions], coded), /logmap/);
});

// ---------------------------------------------------------------------------------------------
// On the device

test('device coded link kernels: information bits, codewords, symbols bit for bit; H, y within rounding', {
  skip,
}, async (t) => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { Stream } = await import('../../src/gpu/stream.js');
  const { LinkKernels } = await import('../../src/sim/gpu/link-kernels.js');
  const { CodedLinkKernels } = await import('../../src/sim/gpu/coded-kernels.js');
  const { CHANNEL_REGISTRY } = await import('../../src/channels/index.js');
  const ctx = requireCuda();
  const stream = Stream.create(ctx);
  let differ = 0,
    entries = 0;
  const cases = [
    ...smallCases(),
    codedCase('wimax:2304:1/2', 4, 4, '16qam', 1, 7, 5),
    codedCase('wimax:2304:1/2', 4, 4, '16qam', 14, 3, 3),
    codedCase('wimax:1152', 4, 4, '64qam', 1, 6, 1),
    codedCase(`nr:bg1:${1000 + randomInt(3000)}:1/2`, 4, 4, '16qam', 2, 2, 3),
    codedCase('wimax:2304', 8, 8, '16qam', 1, 4, 2),
  ];
  for (const c of cases) {
    const s = shape(c);
    const kernels = new CodedLinkKernels(ctx, s.code, {}, c.nt, s.bps);
    const model = await CHANNEL_REGISTRY[c.channel].cuda!();
    const link = new LinkKernels(ctx, c.nt, c.nr, { coded: true, channels: model.plan(ctx, c, {}) });
    const con = constellation(c.modulation),
      hn = (c.vectors / c.vpc) * 2 * c.nr * c.nt;
    const b = {
      points: DeviceBuffer.alloc(ctx, con.points.byteLength),
      H64: DeviceBuffer.alloc(ctx, hn * 8),
      H32: DeviceBuffer.alloc(ctx, hn * 4),
      tx: DeviceBuffer.alloc(ctx, c.vectors * c.nt * 4),
      y32: DeviceBuffer.alloc(ctx, c.vectors * 2 * c.nr * 4),
      info: DeviceBuffer.alloc(ctx, s.frames * s.code.k),
      cw: DeviceBuffer.alloc(ctx, s.frames * s.nFull),
    };
    b.points.upload(con.points);
    const l = {
      seed: c.seed,
      snrIndex: c.snrIndex,
      unit0: c.unit0,
      v0: c.v0,
      unitVectors: c.unitVectors,
      vectors: c.vectors,
      vpc: c.vpc,
      lastVectors: c.lastVectors,
    };
    kernels.enqueueFrames(stream, l, { info: b.info.ptr, cw: b.cw.ptr, tx: b.tx.ptr });
    link.enqueueGenerate(
      stream,
      l,
      { points: b.points.ptr, H64: b.H64.ptr, H32: b.H32.ptr, tx: b.tx.ptr, y32: b.y32.ptr },
      con.size,
      Math.sqrt(c.noiseVar / 2),
    );
    stream.synchronize();
    const got: CodedOutput = {
      info: new Uint8Array(s.frames * s.code.k),
      cw: new Uint8Array(s.frames * s.nFull),
      tx: new Int32Array(c.vectors * c.nt),
      H32: new Float32Array(hn),
      y32: new Float32Array(c.vectors * 2 * c.nr),
    };
    b.info.download(got.info);
    b.cw.download(got.cw);
    b.tx.download(got.tx);
    b.H32.download(got.H32);
    b.y32.download(got.y32);
    for (const x of Object.values(b)) x.free();
    kernels.free();
    const r = checkCoded(c, got);
    differ += r.differ;
    entries += r.entries;
  }
  stream.destroy();
  t.diagnostic(
    `device: ${differ} of ${entries} float32 H and y entries one ulp off the CPU's rounded values; bits, codewords, symbols equal`,
  );
});

/** |FER difference| within the rule of the file comment. */
function ferAgrees(gFe: number, cFe: number, frames: number): boolean {
  const p = (gFe + cFe) / (2 * frames);
  return Math.abs(gFe - cFe) / frames <= 4 * Math.sqrt((2 * p * (1 - p)) / frames) + 2 / frames;
}

test("device GPU executor, coded: per-unit counts agree with runChunk's (same data, float32 LLRs), across launches, chunks of several units and pieces of large units", {
  skip,
}, async (t) => {
  const { GpuLinkExecutor } = await import('../../src/sim/gpu/executor.js');
  const cases = [
    {
      code: 'wimax:2304:1/2',
      nt: 4,
      modulation: '16qam' as const,
      vpc: 1,
      chunkVectors: 144 * 7,
      launchVectors: 144 * 7 * 3,
      ebn0: 3.2,
      passes: 4,
    },
    {
      code: 'wimax:576',
      nt: 2,
      modulation: 'qpsk' as const,
      vpc: 2,
      chunkVectors: 144 * 8,
      launchVectors: 144 * 3,
      ebn0: 2.5,
      passes: 2,
    },
    {
      code: `nr:bg2:${400 + randomInt(500)}:1/2`,
      nt: 4,
      modulation: '16qam' as const,
      vpc: 1,
      chunkVectors: 0,
      launchVectors: 1 << 14,
      ebn0: 3,
      passes: 4,
    },
  ];
  for (const c of cases) {
    const code = codeOf(c.code, c.modulation),
      bps = constellation(c.modulation).bitsPerSymbol;
    const unit = codedUnit(vectorsPerFrame(code.n, c.nt, bps), c.vpc);
    // units of the old chunk size; chunks of 1 to 3 units, the point's last unit short
    const unitVectors = c.chunkVectors || unit * 20;
    const noiseVar = snrToNoiseVar(c.ebn0, 'ebn0', bps, code.rate);
    const detectors: DetectOptions[] = [
      { detector: 'nway', passes: c.passes, modulation: c.modulation, engine: 'cpu' },
      { detector: 'nway', passes: 1, llrClip: 8, modulation: c.modulation, engine: 'cpu' },
    ];
    const decoder = { maxIterations: 10 };
    const exec = await GpuLinkExecutor.create({
      nt: c.nt,
      nr: c.nt,
      modulation: c.modulation,
      vectorsPerChannel: c.vpc,
      unitVectors,
      seed: 1 + randomInt(1000),
      detectors,
      launchVectors: c.launchVectors,
      coded: { code: c.code, decoder },
    });
    try {
      const seed = exec.setup.seed;
      const tasks = unitChunks(
        {
          nt: c.nt,
          nr: c.nt,
          modulation: c.modulation,
          vectorsPerChannel: c.vpc,
          seed,
          detectors,
          snrIndex: 2,
          noiseVar,
          coded: { code: c.code, decoder },
          sliceVectors: unit,
        },
        5,
        unitVectors,
        [1, 2, 1, 3, 1, 2],
        (i) => (i < 4 ? [0, 1] : [1]),
        unitVectors - unit,
      );
      const results = await Promise.all(tasks.map((task) => exec.run(task)));
      let gFe = 0,
        cFe = 0,
        frames = 0,
        gSym = 0,
        cSym = 0,
        symbols = 0;
      for (const [i, task] of tasks.entries()) {
        const cpu = runChunk(task),
          gpu = results[i]!;
        assert.equal(gpu.unit0, task.unit0);
        assert.deepEqual(gpu.vectors, task.unitSizes);
        for (const [u, vectors] of cpu.vectors.entries())
          for (let d = 0; d < 2; d++) {
            const g = unitCounts(gpu, d, u),
              cc = unitCounts(cpu, d, u);
            if (!task.active.includes(d)) {
              assert.equal(g, null);
              continue;
            }
            assert.ok(g && cc);
            const unitFrames = vectors / unit;
            assert.ok(
              g.frameErrors <= unitFrames &&
                g.bitErrors >= g.frameErrors &&
                g.iterations >= unitFrames &&
                g.iterations <= unitFrames * 10,
            );
            gFe += g.frameErrors;
            cFe += cc.frameErrors;
            frames += unitFrames;
            gSym += g.symbolErrors;
            cSym += cc.symbolErrors;
            symbols += vectors * c.nt;
          }
      }
      assert.ok(ferAgrees(gFe, cFe, frames), `${c.code}: GPU ${gFe} vs CPU ${cFe} frame errors of ${frames}`);
      assert.ok(Math.abs(gSym - cSym) <= 0.01 * symbols, `${c.code}: symbol errors GPU ${gSym} vs CPU ${cSym}`);
      t.diagnostic(
        `${c.code} ${c.nt}x${c.nt} ${c.modulation} vpc ${c.vpc}: frame errors GPU ${gFe} CPU ${cFe} of ${frames}; symbol errors GPU ${gSym} CPU ${cSym}`,
      );
    } finally {
      await exec.close();
    }
  }
});

test('device GPU executor, coded: frames with vectors to redo (forced) are decoded again with CPU LLRs for them, within and past the kept frames and the listed vectors', {
  skip,
}, async (t) => {
  const { GpuLinkExecutor } = await import('../../src/sim/gpu/executor.js');
  let every = 97;
  const restore = injectFlags('nway', () => every);
  // 3 chunks of 1728 vectors a launch: every 97th vector flags 53 (within the 64 listed with the
  // counts), every 41st 126 (the full list read back); both past the 16 frames whose LLRs are kept
  try {
    for (const e of [97, 41]) {
      every = e;
      const modulation = '16qam' as const,
        nt = 4,
        code = codeOf('wimax:2304:1/2', modulation),
        unit = 144;
      const noiseVar = snrToNoiseVar(3.3, 'ebn0', 4, code.rate);
      const detectors: DetectOptions[] = [{ detector: 'nway', passes: 4, modulation, engine: 'cpu' }];
      const decoder = { maxIterations: 10 };
      const chunkVectors = unit * 12,
        unitVectors = unit * 4;
      const exec = await GpuLinkExecutor.create({
        nt,
        nr: nt,
        modulation,
        vectorsPerChannel: 1,
        unitVectors,
        seed: 1 + randomInt(1000),
        detectors,
        launchVectors: chunkVectors * 3,
        coded: { code: 'wimax:2304:1/2', decoder },
      });
      try {
        const tasks = unitChunks(
          {
            nt,
            nr: nt,
            modulation,
            vectorsPerChannel: 1,
            seed: exec.setup.seed,
            detectors,
            snrIndex: 1,
            noiseVar,
            coded: { code: 'wimax:2304:1/2', decoder },
            sliceVectors: unit,
          },
          0,
          unitVectors,
          [3, 3, 3, 3, 3, 3],
          () => [0],
        );
        const results = await Promise.all(tasks.map((task) => exec.run(task)));
        const { gFe, cFe, frames, gSym, cSym, gIt, cIt } = tallyAgainstCpu(tasks, results, unit);
        assert.ok(ferAgrees(gFe, cFe, frames), `GPU ${gFe} vs CPU ${cFe} frame errors of ${frames}`);
        assert.ok(Math.abs(gSym - cSym) <= 0.01 * frames * unit * nt, `symbol errors GPU ${gSym} vs CPU ${cSym}`);
        assert.ok(Math.abs(gIt - cIt) <= 0.05 * cIt, `iterations GPU ${gIt} vs CPU ${cIt}`);
        t.diagnostic(
          `every ${every}th vector redone (${Math.ceil((chunkVectors * 3) / every)} a launch of ${(chunkVectors * 3) / unit} frames; 16 frames' LLRs kept, the rest redone wholly): frame errors GPU ${gFe} CPU ${cFe} of ${frames}, symbol errors GPU ${gSym} CPU ${cSym}, iterations ${gIt} / ${cIt}`,
        );
      } finally {
        await exec.close();
      }
    }
  } finally {
    restore();
  }
});

test('device simulate, coded: engine cuda and engine cpu agree for a seed within statistical error; auto takes the GPU; a seed repeats', {
  skip,
}, async (t) => {
  const seed = 1 + randomInt(10_000);
  const base = {
    nt: 4,
    nr: 4,
    modulation: '16qam' as const,
    code: 'wimax:2304:1/2',
    detectors: [{ detector: 'nway' as const, passes: 4 }],
    snrs: [2.5, 3.5],
    snrType: 'ebn0' as const,
    maxFrames: 400,
    maxErrors: 1e6,
    seed,
    decoder: { maxIterations: 10 },
  };
  const gpu = await simulate({ ...base, engine: 'cuda' });
  const cpu = await simulate({ ...base, engine: 'cpu', threads: 2 });
  assert.equal(gpu.engine, 'cuda');
  for (let i = 0; i < gpu.points.length; i++) {
    const g = gpu.points[i]!,
      c = cpu.points[i]!;
    assert.equal(g.frames, c.frames);
    assert.ok(
      ferAgrees(g.frameErrors, c.frameErrors, g.frames),
      `FER GPU ${g.fer} vs CPU ${c.fer} at ${g.snr} dB (seed ${seed})`,
    );
    assert.ok(
      Math.abs(g.symbolErrors - c.symbolErrors) <= 0.01 * c.symbols,
      `symbol errors ${g.symbolErrors} vs ${c.symbolErrors}`,
    );
    t.diagnostic(
      `Eb/N0 ${g.snr} dB: FER GPU ${g.fer.toExponential(2)} CPU ${c.fer.toExponential(2)} (${g.frames} frames), mean iterations ${g.meanIterations?.toFixed(2)} / ${c.meanIterations?.toFixed(2)}`,
    );
  }
  const again = await simulate({ ...base, engine: 'auto', maxErrors: 20 });
  assert.equal(again.engine, 'cuda');
  const stop = await simulate({ ...base, engine: 'cuda', maxErrors: 20 });
  assert.deepEqual(
    again.points.map((p) => [p.frameErrors, p.bitErrors, p.symbolErrors, p.frames]),
    stop.points.map((p) => [p.frameErrors, p.bitErrors, p.symbolErrors, p.frames]),
    'a seed gives the same GPU counts twice',
  );
  for (const p of stop.points) assert.ok(p.stoppedBy === 'errors' ? p.frameErrors >= 20 : p.frames >= 400);
  // the AWGN channel (H = I) and an NR code with pad bits on both engines
  const awgn = {
    ...base,
    nt: 2,
    nr: 2,
    modulation: 'qpsk' as const,
    code: 'nr:bg2:498:1/3',
    detectors: [{ detector: 'nway' as const, passes: 2 }],
    channel: 'awgn' as const,
    snrs: [0.5, 1.5],
    maxFrames: 300,
  };
  const ga = await simulate({ ...awgn, engine: 'cuda' }),
    ca = await simulate({ ...awgn, engine: 'cpu', threads: 2 });
  for (let i = 0; i < ga.points.length; i++) {
    const g = ga.points[i]!,
      c = ca.points[i]!;
    assert.ok(
      ferAgrees(g.frameErrors, c.frameErrors, g.frames),
      `AWGN: FER GPU ${g.fer} vs CPU ${c.fer} at ${g.snr} dB (seed ${seed})`,
    );
    t.diagnostic(
      `AWGN ${awgn.code} 2x2 QPSK Eb/N0 ${g.snr} dB: FER GPU ${g.fer.toExponential(2)} CPU ${c.fer.toExponential(2)} (${g.frames} frames)`,
    );
  }
});
