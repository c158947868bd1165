/**
 * Iterative detection and decoding on the GPU link (src/sim/gpu/idd-kernels.ts and the executor's
 * passes). Here, through the CUDA emulator: link-prior.cu turns the emulated decoder's posteriors
 * into the CPU's priors (decodeBatch's extrinsic output put back by framePriors; min-sum exactly);
 * the executor's pass order (runIddPasses) over the emulated kernels (mmse-pic-detect.cu with and
 * without priors, layered.cu with its posteriors, link-prior.cu) gives the CPU engine's counts for
 * a seed (decodeRange with idd N on the same frames; WiMAX and NR codes, 2x2 and 4x4, mmse-pic):
 * raw symbol errors and decoded frames equal but for float32 near-ties, IDD_TOLERANCE; one pass is
 * the link without IDD, and asking the decoder for its posteriors leaves its decisions as they are.
 * The refusal of a detector whose CUDA kernel takes no priors (ml) runs anywhere. On a device (skipped
 * here, saying so): the executor's per-chunk counts and simulate() on cuda against the CPU engine
 * within statistical error, idd 1 against no idd exactly, and frames with vectors to redo.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ldpcCode, type LdpcCode } from '../../src/coding/code.js';
import { resolveDecoderOptions } from '../../src/coding/decoder.js';
import { ldpcKernelDefines } from '../../src/coding/gpu/cuda-decoder.js';
import { nrRateMatchMap } from '../../src/coding/nr.js';
import type { DecoderOptions } from '../../src/coding/types.js';
import { EngineUnavailableError } from '../../src/core/errors.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { snrToNoiseVar } from '../../src/mimo/channel.js';
import { picDefines, PIC_KERNEL_URL } from '../../src/mimo/detectors/mmse-pic/cuda.js';
import { UNANSWERED } from '../../src/mimo/fallback.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import { constellation } from '../../src/mimo/modulation.js';
import { tallyAgainstCpu, unitChunks } from './chunk-tally.js';
import { injectFlags } from './flag-injection.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import {
  codedUnit,
  codeOf,
  countDecoded,
  decodeRange,
  frameLlrs,
  framePriors,
  vectorsPerFrame,
  type CodedSpec,
} from '../../src/sim/coded.js';
import { runIddPasses } from '../../src/sim/gpu/idd-kernels.js';
import { iddGpuUnsupported } from '../../src/sim/gpu/executor.js';
import { DETECTOR_REGISTRY, priorDetectors } from '../../src/mimo/registry.js';
import { generateLinkChunk } from '../../src/sim/link.js';
import { resolveEngine, simulate } from '../../src/sim/simulate.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';
import { cutOutput, stdinOf } from '../mimo/gpu-test-env.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const skipEmu = emu ? `CUDA emulator unavailable: ${emu}` : false;
const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const PRIOR_CU = here('../../src/sim/gpu/link-prior.cu');
const LAYERED_CU = here('../../src/coding/gpu/layered.cu');

/**
 * What float32 may move on the emulated GPU against the CPU engine's float64: decoded frames whose
 * error count differs (a decoding near a tie, which the passes may carry on), at most 5% of the
 * frames (over all cases of a test where each case has few frames); raw symbol errors (mmse-pic's
 * first, prior-free pass) at most 0.5% of the symbols apart, per case.
 */
export const IDD_TOLERANCE = { frames: 0.05, symbols: 0.005 };

// ---------------------------------------------------------------------------------------------
// The emulated stages

const DETECT_MAIN = String.raw`
int main() {
  int h[2];
  if (fread(h, 4, 2, stdin) != 2) return 1;
  const int vectors = h[0], hasPrior = h[1], nt = LIN_NT, nr = LIN_NR, bps = PIC_BPS;
  std::vector<float> H((size_t)vectors * 2 * nr * nt), y((size_t)vectors * 2 * nr), noise(vectors), prior(hasPrior ? (size_t)vectors * nt * bps : 0);
  std::vector<int> st(2 * (size_t)vectors), sym((size_t)vectors * nt, -7);
  std::vector<float> llr((size_t)vectors * nt * bps, std::nanf(""));
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()
      || fread(noise.data(), 4, noise.size(), stdin) != noise.size() || fread(prior.data(), 4, prior.size(), stdin) != prior.size()
      || fread(st.data(), 4, st.size(), stdin) != st.size() || fread(llr.data(), 4, llr.size(), stdin) != llr.size()) return 1;
  if (emu_launch((vectors + 63) / 64, dim3{64, 1, 1}, 0, [&] {
    mmse_pic_detect(H.data(), y.data(), noise.data(), hasPrior ? prior.data() : nullptr, sym.data(), llr.data(), st.data(), vectors, 1, 1e30f);
  })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 4, llr.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  return 0;
}
`;

const DECODE_MAIN = String.raw`
int main() {
  int h[4];
  if (fread(h, 4, 4, stdin) != 4) return 1;
  const int frames = h[0], maxIter = h[1], fpb = h[2], wantPost = h[3];
  std::vector<float> llr((size_t)frames * LDPC_NVARS);
  if (fread(llr.data(), 4, llr.size(), stdin) != llr.size()) return 1;
  std::vector<unsigned char> bits((size_t)frames * K_INFO, 0xee);
  std::vector<int> st(frames, -1);
  std::vector<float> post(wantPost ? (size_t)frames * LDPC_NVARS : 0, std::nanf(""));
  const size_t shared = (size_t)fpb * (LDPC_NVARS * 4 + 12);
  if (emu_launch((frames + fpb - 1) / fpb, dim3{(unsigned)Z, (unsigned)fpb, 1}, shared, [&] {
    ldpc_layered(llr.data(), bits.data(), st.data(), frames, maxIter, wantPost ? post.data() : nullptr);
  })) return 2;
  fwrite(bits.data(), 1, bits.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  fwrite(post.data(), 4, post.size(), stdout);
  return 0;
}
`;

const PRIOR_MAIN = String.raw`
int main() {
  int h[6]; double sat;
  if (fread(h, 4, 6, stdin) != 6 || fread(&sat, 8, 1, stdin) != 1) return 1;
  const int frames = h[0], per = h[1], n = h[2], nFull = h[3], minSum = h[4], hasMap = h[5];
  std::vector<float> post((size_t)frames * nFull), input((size_t)frames * nFull), prior((size_t)frames * per, std::nanf(""));
  std::vector<int> map(hasMap ? n : 0);
  if (fread(post.data(), 4, post.size(), stdin) != post.size() || fread(input.data(), 4, input.size(), stdin) != input.size()
      || fread(map.data(), 4, map.size(), stdin) != map.size()) return 1;
  if (emu_launch((frames * per + 255) / 256, dim3{256, 1, 1}, 0, [&] {
    link_prior(post.data(), input.data(), hasMap ? map.data() : nullptr, prior.data(), frames, per, n, nFull, sat, minSum);
  })) return 2;
  fwrite(prior.data(), 4, prior.size(), stdout);
  return 0;
}
`;

const defines = (d: Record<string, string | number>) => Object.entries(d).map(([k, v]) => `-D${k}=${v}`);

function exeOf(main: string, path: string, defs: string[]): string {
  const { exe, error } = compileEmulated(main, path, defs);
  if (error) throw new Error(error);
  return exe;
}

/** The layered decoder (float32 input) of a code and setting: decisions, status words, posteriors when asked. */
function emulatedDecoder(code: LdpcCode, options: DecoderOptions) {
  const o = resolveDecoderOptions(options);
  const fpb = 1;
  const exe = exeOf(DECODE_MAIN, LAYERED_CU, defines(ldpcKernelDefines(code.qc!, code.k, o, 'float32', fpb)));
  const N = code.qc!.blockCols * code.qc!.z;
  return (input: Float32Array, frames: number, posteriors: boolean) => {
    const out = runEmulated(exe, stdinOf([Int32Array.of(frames, o.maxIterations, fpb, posteriors ? 1 : 0), input]));
    const bits = new Uint8Array(out.subarray(0, frames * code.k));
    const [status, post] = cutOutput(out.subarray(frames * code.k), [
      ['i32', frames],
      ['f32', posteriors ? frames * N : 0],
    ]);
    return { bits, status, posteriors: post };
  };
}

/** link-prior.cu for a code, frame layout and decoder setting. */
function emulatedPriors(code: LdpcCode, per: number, options: DecoderOptions) {
  const o = resolveDecoderOptions(options);
  const exe = exeOf(PRIOR_MAIN, PRIOR_CU, ['-DLINK_BLOCK=256']);
  const nFull = code.qc!.blockCols * code.qc!.z;
  const map = code.nr ? nrRateMatchMap(code.nr, 0) : new Int32Array(0);
  const minSum = o.algorithm === 'nms' || o.algorithm === 'oms';
  return (posteriors: Float32Array, input: Float32Array, frames: number): Float32Array => {
    const head = Int32Array.of(frames, per, code.n, nFull, minSum ? 1 : 0, code.nr ? 1 : 0);
    const out = runEmulated(exe, stdinOf([head, Float64Array.of(o.saturation), posteriors, input, map]));
    return cutOutput(out, [['f32', frames * per]])[0];
  };
}

/**
 * The decoder's input from detector LLRs (frames x per), as link-llr.cu makes it: column c the
 * float32 sum, in channel order, of the LLRs sent as c, from +saturation on NR's filler columns;
 * the LLRs as they are where the frame is the codeword.
 */
function decoderInput(
  code: LdpcCode,
  llr: Float32Array,
  frames: number,
  per: number,
  saturation: number,
): Float32Array {
  const nFull = code.qc!.blockCols * code.qc!.z;
  if (!code.nr && per === nFull) return llr;
  const map = code.nr ? nrRateMatchMap(code.nr, 0) : null;
  const out = new Float32Array(frames * nFull);
  for (let f = 0; f < frames; f++) {
    if (code.nr) out.fill(Math.fround(saturation), f * nFull + code.nr.K, f * nFull + code.nr.Kldpc);
    for (let j = 0; j < code.n; j++) {
      const c = f * nFull + (map ? map[j]! : j);
      out[c] = Math.fround(out[c]! + llr[f * per + j]!);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// link-prior.cu against the CPU decoder's extrinsic output

test("emulated link-prior.cu: the decoder's posteriors into the next detection's priors, the CPU's extrinsic output put back by framePriors (min-sum exactly)", {
  skip: skipEmu,
}, () => {
  // codes sent whole with and without pad bits, NR punctured and shortened, NR with repeated bits
  const cases: Array<{ code: LdpcCode; nt: number; mod: Modulation; options: DecoderOptions }> = [
    { code: ldpcCode('wimax:576'), nt: 2, mod: '16qam', options: { maxIterations: 6 } },
    { code: ldpcCode('wimax:672'), nt: 3, mod: '64qam', options: { algorithm: 'oms', maxIterations: 4 } },
    { code: ldpcCode('nr:bg2:200:1/2', { Qm: 4 }), nt: 2, mod: '16qam', options: { saturation: 6.3 } },
    { code: ldpcCode('nr:bg2:120:1/5', { Qm: 2, E: 1400 }), nt: 2, mod: 'qpsk', options: { maxIterations: 5 } },
    { code: ldpcCode('wimax:576'), nt: 2, mod: '16qam', options: { algorithm: 'spa', maxIterations: 5 } },
  ];
  for (const c of cases) {
    const bps = constellation(c.mod).bitsPerSymbol,
      per = vectorsPerFrame(c.code.n, c.nt, bps) * c.nt * bps,
      frames = 3;
    const sat = resolveDecoderOptions(c.options).saturation;
    // detector-like LLRs: a codeword's signs with noise, some past the saturation
    const llr = new Float32Array(frames * per);
    for (let f = 0; f < frames; f++) {
      const cw = c.code.encode(Uint8Array.from({ length: c.code.k }, () => randomInt(2)));
      for (let j = 0; j < per; j++)
        llr[f * per + j] = (j < c.code.n ? 1 - 2 * cw[j]! : 0) * 3 + (Math.random() - 0.5) * 10;
    }
    const input = decoderInput(c.code, llr, frames, per, sat);
    const dec = emulatedDecoder(c.code, c.options)(input, frames, true);
    const got = emulatedPriors(c.code, per, c.options)(dec.posteriors, input, frames);
    const ext = new Float64Array(frames * c.code.n);
    c.code.decoder(c.options).decodeBatch(frameLlrs(llr, frames, c.code.n, per, true), frames, undefined, ext);
    const want = new Float64Array(frames * per);
    framePriors(ext, frames, c.code.n, per, want);
    const what = `${c.code.name} ${c.nt} x ${c.mod} ${JSON.stringify(c.options)}`;
    // min-sum is exact where the decoder's inputs are single float32 LLRs (no column sent twice)
    const repeats = c.code.nr !== undefined && c.code.n > c.code.nr.N - c.code.nr.fillers;
    const exact = c.options.algorithm !== 'spa' && !repeats;
    for (let i = 0; i < want.length; i++) {
      if (i % per >= c.code.n) assert.equal(got[i], 0, `${what}: pad bit ${i} gets no prior`);
      else if (exact) assert.equal(got[i], want[i], `${what}: prior ${i}`);
      else
        assert.ok(
          Math.abs(got[i]! - want[i]!) <= 1e-3 * (1 + Math.abs(want[i]!)) ||
            (c.options.algorithm === 'spa' && Math.sign(got[i]!) === Math.sign(want[i]!)),
          `${what}: prior ${i} ${got[i]} vs ${want[i]}`,
        );
    }
  }
});

// ---------------------------------------------------------------------------------------------
// The passes over the emulated kernels against the CPU engine

interface IddCase {
  code: string;
  nt: number;
  modulation: Modulation;
  esn0: number;
  frames: number;
  idd: number;
  decoder: DecoderOptions;
  /** A vector flagged float32-unsafe after the second pass's detection (as a kernel would flag it): its frame is redone. */
  flag?: number;
}

interface Counts {
  bitErrors: number;
  frameErrors: number;
  symbolErrors: number;
  iterations: number;
}

/**
 * A chunk of `frames` frames through the GPU link's IDD stages as the executor orders them
 * (runIddPasses), each kernel emulated; H and y are the chunk's, rounded to float32 and scaled per
 * channel as the engine's normalize kernel leaves them. A frame with a vector flagged in any pass
 * is redone by decodeRange, as the executor redoes it. Per frame: the counts, and the stages run.
 */
function gpuFrames(c: IddCase, passes: number, task: ReturnType<typeof chunkOf>) {
  const { nt, modulation } = c,
    nr = nt;
  const con = constellation(modulation),
    bps = con.bitsPerSymbol;
  const code = codeOf(c.code, modulation);
  const vpf = vectorsPerFrame(code.n, nt, bps),
    per = vpf * nt * bps,
    vectors = c.frames * vpf;
  const link = task.link;
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  const H = new Float32Array(vectors * hLen),
    y = new Float32Array(vectors * yLen),
    noise = new Float32Array(vectors);
  for (let v = 0; v < vectors; v++) {
    let m = 0;
    for (let e = 0; e < hLen; e++) m = Math.max(m, Math.abs(Math.fround(link.H[v * hLen + e]!)));
    const s = 2 ** -Math.floor(Math.log2(m));
    for (let e = 0; e < hLen; e++) H[v * hLen + e] = Math.fround(link.H[v * hLen + e]!) * s;
    for (let e = 0; e < yLen; e++) y[v * yLen + e] = Math.fround(link.y[v * yLen + e]!) * s;
    noise[v] = Math.fround(task.noiseVar * s * s);
  }
  const opts = { detector: 'mmse-pic' as const, modulation };
  const detectExe = exeOf(
    DETECT_MAIN,
    fileURLToPath(PIC_KERNEL_URL),
    defines(picDefines({ nt, nr, constellation: con, opts, soft: true })),
  );
  const decode = emulatedDecoder(code, c.decoder);
  const toPriors = emulatedPriors(code, per, c.decoder);
  const sat = resolveDecoderOptions(c.decoder).saturation;
  let status: Int32Array = new Int32Array(2 * vectors),
    llr: Float32Array = new Float32Array(vectors * nt * bps),
    symbols0: Int32Array = new Int32Array(0),
    prior: Float32Array = new Float32Array(0),
    input: Float32Array = new Float32Array(0),
    dec: ReturnType<ReturnType<typeof emulatedDecoder>> | null = null;
  const ran: string[] = [];
  runIddPasses(passes, {
    detect(pass) {
      ran.push(`detect ${pass}${pass > 0 ? ' with priors' : ''}`);
      const out = runEmulated(
        detectExe,
        stdinOf([
          Int32Array.of(vectors, pass > 0 ? 1 : 0),
          H,
          y,
          noise,
          pass > 0 ? prior : new Float32Array(0),
          status,
          llr,
        ]),
      );
      const [sym, l, st] = cutOutput(out, [
        ['i32', vectors * nt],
        ['f32', vectors * nt * bps],
        ['i32', 2 * vectors],
      ]);
      if (pass === 0) symbols0 = sym;
      llr = l;
      status = st;
      if (pass === 1 && c.flag !== undefined) status[2 * c.flag] |= MIMO_STATUS.FLOAT32_UNSAFE;
    },
    decode(pass, posteriors) {
      ran.push(`decode ${pass}${posteriors ? ' with posteriors' : ''}`);
      input = decoderInput(code, llr, c.frames, per, sat);
      dec = decode(input, c.frames, posteriors);
    },
    priors(pass) {
      ran.push(`priors ${pass}`);
      prior = toPriors(dec!.posteriors, input, c.frames);
    },
  });
  const frames: Counts[] = [];
  let redone = 0;
  for (let f = 0; f < c.frames; f++) {
    const flagged = new Set<number>();
    for (let u = 0; u < vpf; u++) if (status[2 * (f * vpf + u)]! & UNANSWERED) flagged.add(u);
    if (flagged.size > 0) {
      redone++;
      const r = decodeRange(task.args, { ...task.spec, idd: passes }, opts, f * vpf, (f + 1) * vpf, (u) =>
        flagged.has(u),
      );
      let symbolErrors = r.symbolErrors;
      for (let g = f * vpf * nt; g < (f + 1) * vpf * nt; g++)
        if (!flagged.has(Math.floor(g / nt) - f * vpf) && symbols0[g] !== link.txIndices[g]) symbolErrors++;
      frames.push({ ...r, symbolErrors });
      continue;
    }
    const d = countDecoded(
      dec!.bits.subarray(f * code.k, (f + 1) * code.k),
      Int32Array.of(dec!.status[f]! & 0xffff),
      link.info!,
      f,
      1,
      code.k,
    );
    let symbolErrors = 0;
    for (let g = f * vpf * nt; g < (f + 1) * vpf * nt; g++) if (symbols0[g] !== link.txIndices[g]) symbolErrors++;
    frames.push({ ...d, symbolErrors });
  }
  return { frames, ran, redone };
}

/** The chunk of a case: the CPU link's data and decodeRange's arguments. */
function chunkOf(c: IddCase, chunkSeed: number) {
  const code = codeOf(c.code, c.modulation);
  const bps = constellation(c.modulation).bitsPerSymbol;
  const vpf = vectorsPerFrame(code.n, c.nt, bps);
  const noiseVar = snrToNoiseVar(c.esn0, 'esn0', bps, code.rate);
  const spec: CodedSpec = { code: c.code, decoder: c.decoder };
  const t = {
    nt: c.nt,
    nr: c.nt,
    modulation: c.modulation,
    vectorsPerChannel: 1,
    seed: chunkSeed,
    snrIndex: 0,
    unitIndex: 0,
    vectors: c.frames * vpf,
    noiseVar,
    coded: spec,
  };
  const link = generateLinkChunk(t);
  const args = { ...t, H: link.H, y: link.y, txIndices: link.txIndices, info: link.info! };
  return { link, args, spec, noiseVar, vpf };
}

/** The CPU engine's counts of each frame (decodeRange on the frame alone, idd passes). */
function cpuFrames(c: IddCase, passes: number, task: ReturnType<typeof chunkOf>): Counts[] {
  const out: Counts[] = [];
  for (let f = 0; f < c.frames; f++)
    out.push(
      decodeRange(
        task.args,
        { ...task.spec, idd: passes },
        { detector: 'mmse-pic', modulation: c.modulation },
        f * task.vpf,
        (f + 1) * task.vpf,
      ),
    );
  return out;
}

/** In the waterfall of one pass (CPU, 48 frames: FER 0.3 to 0.9 for one pass, fewer errors with the passes). */
const IDD_CASES: IddCase[] = [
  { code: 'wimax:576', nt: 4, modulation: '16qam', esn0: 5.5, frames: 16, idd: 3, decoder: { maxIterations: 10 } },
  { code: 'wimax:576', nt: 2, modulation: 'qpsk', esn0: 0.5, frames: 12, idd: 2, decoder: { algorithm: 'oms' } },
  {
    code: 'nr:bg2:200:1/2',
    nt: 2,
    modulation: '16qam',
    esn0: 6.5,
    frames: 12,
    idd: 3,
    decoder: { maxIterations: 8 },
    flag: 50 * 4 + 7,
  },
  { code: 'nr:bg2:300:1/3', nt: 4, modulation: 'qpsk', esn0: -4, frames: 10, idd: 2, decoder: { maxIterations: 8 } },
];

test('emulated IDD passes (mmse-pic-detect.cu, layered.cu, link-prior.cu in the executor order) give the CPU engine counts for a seed: WiMAX and NR, 2x2 and 4x4', {
  skip: skipEmu,
}, (t) => {
  // frames the passes decode otherwise than one pass on the CPU: the cases must exercise the priors
  let moved = 0,
    differTotal = 0,
    framesTotal = 0;
  for (const c of IDD_CASES) {
    const task = chunkOf(c, seed + c.nt);
    const gpu = gpuFrames(c, c.idd, task);
    const cpu = cpuFrames(c, c.idd, task);
    const cpuOne = cpuFrames(c, 1, task);
    for (let f = 0; f < c.frames; f++) if (cpu[f]!.bitErrors !== cpuOne[f]!.bitErrors) moved++;
    const what = `${c.code} ${c.nt}x${c.nt} ${c.modulation} Es/N0 ${c.esn0} dB idd ${c.idd}`;
    // decodeRange's loop: detect (with priors after the first), decode, and between passes the priors
    const expected: string[] = [];
    for (let p = 0; p < c.idd; p++) {
      expected.push(p === 0 ? 'detect 0' : `detect ${p} with priors`);
      if (p === c.idd - 1) expected.push(`decode ${p}`);
      else expected.push(`decode ${p} with posteriors`, `priors ${p}`);
    }
    assert.deepEqual(gpu.ran, expected, msg(`${what}: the stages in order`));
    let differ = 0,
      gSym = 0,
      cSym = 0,
      gFe = 0,
      cFe = 0;
    for (let f = 0; f < c.frames; f++) {
      const g = gpu.frames[f]!,
        cc = cpu[f]!;
      if (g.bitErrors !== cc.bitErrors) differ++;
      gSym += g.symbolErrors;
      cSym += cc.symbolErrors;
      gFe += g.frameErrors;
      cFe += cc.frameErrors;
    }
    const symbols = c.frames * task.vpf * c.nt;
    t.diagnostic(
      `${what}: frame errors GPU ${gFe} CPU ${cFe} of ${c.frames}, ${differ} frames decoded otherwise, symbol errors ${gSym} / ${cSym} of ${symbols}, ${gpu.redone} frames redone`,
    );
    assert.equal(gpu.redone, c.flag === undefined ? 0 : 1, msg(`${what}: frames redone`));
    differTotal += differ;
    framesTotal += c.frames;
    assert.ok(
      Math.abs(gSym - cSym) <= IDD_TOLERANCE.symbols * symbols,
      msg(`${what}: symbol errors GPU ${gSym} CPU ${cSym}`),
    );
  }
  // near-ties are rare (about 1 frame in 400 here), so they are counted over all cases together
  assert.ok(
    differTotal <= Math.max(2, Math.ceil(IDD_TOLERANCE.frames * framesTotal)),
    msg(`${differTotal} of ${framesTotal} frames decoded otherwise by the GPU passes`),
  );
  t.diagnostic(`${moved} frames decoded otherwise by the passes than by one pass (CPU)`);
  assert.ok(
    moved > 0,
    msg('no frame decoded otherwise with IDD than with one pass: the cases test nothing of the priors'),
  );
});

test('emulated: one IDD pass is the coded link without IDD (detect, decode without posteriors), count for count', {
  skip: skipEmu,
}, () => {
  const c = IDD_CASES[0]!;
  const task = chunkOf(c, seed + 1);
  const one = gpuFrames({ ...c, frames: 6 }, 1, task);
  assert.deepEqual(one.ran, ['detect 0', 'decode 0'], msg('one pass'));
  // the same frames through the passes and through the CPU with idd 1 and without it
  const cpuOne = cpuFrames({ ...c, frames: 6 }, 1, task);
  const cpuNone = Array.from({ length: 6 }, (_, f) =>
    decodeRange(
      task.args,
      task.spec,
      { detector: 'mmse-pic', modulation: c.modulation },
      f * task.vpf,
      (f + 1) * task.vpf,
    ),
  );
  assert.deepEqual(cpuOne, cpuNone, msg('CPU idd 1 and none'));
  let differ = 0;
  for (let f = 0; f < 6; f++) if (one.frames[f]!.bitErrors !== cpuOne[f]!.bitErrors) differ++;
  assert.ok(differ <= 1, msg(`${differ} of 6 frames decoded otherwise`));
});

// ---------------------------------------------------------------------------------------------
// Engine choice

test('engine choice: every detector that takes priors (mmse-pic, ep, ml, kbest, nway, ssfe) takes them on the GPU, so idd refuses none of them; the refusal of a detector whose CUDA kernel takes none still names idd, it and those that do', async () => {
  const base = { code: 'wimax:576' };
  assert.deepEqual([...priorDetectors()].sort(), ['ep', 'kbest', 'ml', 'mmse-pic', 'nway', 'ssfe']);
  for (const detector of priorDetectors()) {
    assert.equal(DETECTOR_REGISTRY[detector].traits.priors, true, detector);
    assert.equal(iddGpuUnsupported([{ detector }], 3), null, detector);
    const r = await resolveEngine('auto', [{ detector }], { code: base.code, idd: 3 });
    assert.doesNotMatch(r.reason, /idd/, detector);
  }
  // one pass is any detector's; a detector without priors on the GPU (none that takes them now: a
  // hard one, which simulate refuses for idd before the engine is chosen) is named with the others
  assert.equal(iddGpuUnsupported([{ detector: 'sphere' }], 1), null);
  const why = iddGpuUnsupported([{ detector: 'kbest' }, { detector: 'sphere' }], 2);
  assert.ok(why !== null && /option 'idd'/.test(why) && /'sphere'/.test(why), String(why));
  for (const d of priorDetectors()) assert.ok(why.includes(d), `${why} names ${d}`);
  if (!cuda.ok) {
    // without a device 'cuda' fails for want of one, not for IDD
    await assert.rejects(
      () => resolveEngine('cuda', [{ detector: 'mmse-pic' }], { code: base.code, idd: 3 }),
      (e: unknown) => e instanceof EngineUnavailableError && e.details?.cause === 'no-device',
    );
  }
});

// ---------------------------------------------------------------------------------------------
// On a device

/** The two-sample bound of gpu-coded.test.ts: |FER_gpu - FER_cpu| <= 4 sigma + 2 / frames. */
function ferAgrees(gFe: number, cFe: number, frames: number): boolean {
  const p = (gFe + cFe) / (2 * frames);
  return Math.abs(gFe - cFe) / frames <= 4 * Math.sqrt((2 * p * (1 - p)) / frames) + 2 / frames;
}

test("device GPU executor, IDD: per-unit counts agree with runChunk's across chunks of several units; frames with vectors to redo (forced) go through the CPU's passes", {
  skip,
}, async (t) => {
  const { GpuLinkExecutor } = await import('../../src/sim/gpu/executor.js');
  // every `every`-th vector flagged FLOAT32_UNSAFE after each detection (0: none)
  let every = 0;
  const restore = injectFlags('mmse-pic', () => every);
  try {
    for (const c of [
      { code: 'wimax:576', nt: 4, modulation: '16qam' as const, esn0: 6, every: 0 },
      { code: 'nr:bg2:400:1/2', nt: 2, modulation: '16qam' as const, esn0: 6.5, every: 0 },
      { code: 'wimax:576', nt: 4, modulation: '16qam' as const, esn0: 6, every: 131 },
    ]) {
      every = c.every;
      const code = codeOf(c.code, c.modulation),
        bps = constellation(c.modulation).bitsPerSymbol;
      const unit = codedUnit(vectorsPerFrame(code.n, c.nt, bps), 1);
      const unitVectors = unit * 8;
      const noiseVar = snrToNoiseVar(c.esn0, 'esn0', bps, code.rate);
      const detectors: DetectOptions[] = [{ detector: 'mmse-pic', modulation: c.modulation, engine: 'cpu' }];
      const coded = { code: c.code, decoder: { maxIterations: 10 }, idd: 3 };
      const exec = await GpuLinkExecutor.create({
        nt: c.nt,
        nr: c.nt,
        modulation: c.modulation,
        vectorsPerChannel: 1,
        unitVectors,
        seed: 1 + randomInt(1000),
        detectors,
        launchVectors: unitVectors * 6,
        coded,
      });
      try {
        // chunks of 1 to 5 units: launches of 6 units take whole chunks and parts of chunks
        const tasks = unitChunks(
          {
            nt: c.nt,
            nr: c.nt,
            modulation: c.modulation,
            vectorsPerChannel: 1,
            seed: exec.setup.seed,
            detectors,
            snrIndex: 1,
            noiseVar,
            coded,
            sliceVectors: unit,
          },
          0,
          unitVectors,
          [3, 1, 5, 2, 4, 3],
          () => [0],
        );
        const results = await Promise.all(tasks.map((task) => exec.run(task)));
        const { gFe, cFe, frames, gSym, cSym } = tallyAgainstCpu(tasks, results, unit);
        const symbols = frames * unit * c.nt;
        assert.ok(ferAgrees(gFe, cFe, frames), msg(`${c.code}: GPU ${gFe} vs CPU ${cFe} frame errors of ${frames}`));
        assert.ok(
          Math.abs(gSym - cSym) <= IDD_TOLERANCE.symbols * symbols,
          msg(`symbol errors GPU ${gSym} vs CPU ${cSym}`),
        );
        t.diagnostic(
          `${c.code} ${c.nt}x${c.nt} ${c.modulation} idd 3${c.every ? `, every ${c.every}th vector redone` : ''}: frame errors GPU ${gFe} CPU ${cFe} of ${frames}, symbol errors ${gSym} / ${cSym}`,
        );
      } finally {
        await exec.close();
      }
    }
  } finally {
    restore();
  }
});

test('device simulate, IDD with ml, kbest, nway and ssfe (their CUDA kernels with priors): engine cuda and engine cpu agree for a seed within statistical error', {
  skip,
}, async (t) => {
  const s = 1 + randomInt(10_000);
  const base = {
    nt: 2,
    nr: 2,
    modulation: '16qam' as const,
    code: 'wimax:576',
    detectors: [
      { detector: 'ml' as const },
      { detector: 'kbest' as const },
      { detector: 'nway' as const },
      { detector: 'ssfe' as const },
    ],
    snrs: [6, 7],
    maxFrames: 300,
    maxErrors: 1e6,
    seed: s,
    idd: 3,
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
      `${g.detector}: FER GPU ${g.fer} vs CPU ${c.fer} at ${g.snr} dB (seed ${s})`,
    );
    t.diagnostic(
      `${g.detector} Es/N0 ${g.snr} dB idd 3: FER GPU ${g.fer.toExponential(2)} CPU ${c.fer.toExponential(2)} (${g.frames} frames)`,
    );
  }
});

test('device simulate, IDD: engine cuda and engine cpu agree for a seed within statistical error; idd 1 on cuda is the run without idd exactly', {
  skip,
}, async (t) => {
  const s = 1 + randomInt(10_000);
  const base = {
    nt: 4,
    nr: 4,
    modulation: '16qam' as const,
    code: 'wimax:576',
    detectors: [{ detector: 'mmse-pic' as const }],
    snrs: [5, 6, 7],
    maxFrames: 400,
    maxErrors: 1e6,
    seed: s,
  };
  const gpu = await simulate({ ...base, engine: 'cuda', idd: 3 });
  const cpu = await simulate({ ...base, engine: 'cpu', threads: 2, idd: 3 });
  assert.equal(gpu.engine, 'cuda');
  assert.equal(gpu.idd, 3);
  for (let i = 0; i < gpu.points.length; i++) {
    const g = gpu.points[i]!,
      c = cpu.points[i]!;
    assert.equal(g.frames, c.frames);
    assert.ok(
      ferAgrees(g.frameErrors, c.frameErrors, g.frames),
      `FER GPU ${g.fer} vs CPU ${c.fer} at ${g.snr} dB (seed ${s})`,
    );
    assert.ok(
      Math.abs(g.symbolErrors - c.symbolErrors) <= IDD_TOLERANCE.symbols * c.symbols,
      `symbol errors ${g.symbolErrors} vs ${c.symbolErrors}`,
    );
    t.diagnostic(
      `Es/N0 ${g.snr} dB idd 3: FER GPU ${g.fer.toExponential(2)} CPU ${c.fer.toExponential(2)} (${g.frames} frames)`,
    );
  }
  const none = await simulate({ ...base, engine: 'cuda', maxFrames: 200 });
  const one = await simulate({ ...base, engine: 'cuda', maxFrames: 200, idd: 1 });
  const counts = (r: typeof none) =>
    r.points.map((p) => [p.frameErrors, p.bitErrors, p.symbolErrors, p.frames, p.meanIterations]);
  assert.deepEqual(counts(one), counts(none), `idd 1 on cuda (seed ${s})`);
  // NR with pad bits, 2x2
  const nr = { ...base, nt: 2, nr: 2, code: 'nr:bg2:498:1/2', snrs: [6, 7], maxFrames: 300 };
  const gn = await simulate({ ...nr, engine: 'cuda', idd: 2 }),
    cn = await simulate({ ...nr, engine: 'cpu', threads: 2, idd: 2 });
  for (let i = 0; i < gn.points.length; i++) {
    const g = gn.points[i]!,
      c = cn.points[i]!;
    assert.ok(
      ferAgrees(g.frameErrors, c.frameErrors, g.frames),
      `NR: FER GPU ${g.fer} vs CPU ${c.fer} at ${g.snr} dB (seed ${s})`,
    );
  }
});
