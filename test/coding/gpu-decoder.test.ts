/**
 * The CUDA LDPC decoders (src/coding/gpu/). (1) layered.cu through the CUDA emulator (CI, no GPU):
 * min-sum decisions, iteration counts, verdicts and posteriors equal the CPU decoder's bit for bit on
 * fresh random codewords with AWGN LLRs, with the messages in full (small codes) and compressed
 * (NR base graphs, up to BG1 with Z = 384; forced on a small code); sum-product decisions equal
 * except a few frames. (2) On a CUDA
 * device (skipped with the reason otherwise): decodeBatchAsync on the GPU equals the CPU's
 * decodeBatch bit for bit for nms / oms on WiMAX 576 / 1152 / 2304 and NR codes at several Eb/N0,
 * float32 and float64 input, with and without early stop; spa and flooding-spa (flooding.cu) within
 * their stated tolerance; typed errors as the CPU's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ldpcCode, type LdpcCode } from '../../src/coding/code.js';
import { LdpcDecoder, resolveDecoderOptions } from '../../src/coding/decoder.js';
import {
  decodeBatchAsync,
  ldpcCudaPlan,
  ldpcDecoderInput,
  ldpcKernelDefines,
  LDPC_STATUS,
  type LdpcInputFormat,
} from '../../src/coding/gpu/cuda-decoder.js';
import type { DecoderOptions } from '../../src/coding/types.js';
import { cudaAvailable, requireCuda } from '../../src/gpu/context.js';
import { Stream } from '../../src/gpu/stream.js';
import { InvalidArgumentError, type LatticeMimoError } from '../../src/core/errors.js';
import { tracedSource } from '../../bench/kernels/traced.js';
import { compileEmulated, emulatorUnavailable, runEmulated, writeFileAtomic } from '../gpu/cuda-emulator.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const cuda = cudaAvailable();
const skipGpu = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const KERNEL = (file: string): string => fileURLToPath(new URL(`../../src/coding/gpu/${file}`, import.meta.url));

/** A seeded uniform generator (mulberry32), so that a failure names its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** frames random codewords of `code`, BPSK over AWGN at ebn0 dB: channel LLRs 2y / sigma^2 (frames x n). */
function awgnFrames(code: LdpcCode, frames: number, ebn0: number, seed: number): Float64Array {
  const u = rng(seed);
  const sigma2 = 1 / (2 * code.rate * 10 ** (ebn0 / 10));
  const llr = new Float64Array(frames * code.n);
  const info = new Uint8Array(code.k);
  for (let f = 0; f < frames; f++) {
    for (let i = 0; i < code.k; i++) info[i] = u() < 0.5 ? 1 : 0;
    const cw = code.encode(info);
    for (let i = 0; i < code.n; i++) {
      const g = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
      llr[f * code.n + i] = (2 * (1 - 2 * cw[i]! + Math.sqrt(sigma2) * g)) / sigma2;
    }
  }
  return llr;
}

// ---------------------------------------------------------------- (1) the kernel in the emulator

/**
 * Header ints [frames, maxIter, framesPerBlock, z, int input, posteriors wanted], then frames x n
 * LLRs (float32 or int32); out: decisions, status words, and the posteriors when wanted.
 */
const MAIN = String.raw`
int main() {
  int h[6];
  if (fread(h, 4, 6, stdin) != 6) return 1;
  const int frames = h[0], maxIter = h[1], fpb = h[2], z = h[3], wantPost = h[5];
  std::vector<ldpc_llr_t> llr((size_t)frames * LDPC_NVARS);
  if (fread(llr.data(), 4, llr.size(), stdin) != llr.size()) return 1;
  std::vector<unsigned char> bits((size_t)frames * K_INFO, 0xee);
  std::vector<int> st(frames, -1);
  std::vector<float> post(wantPost ? (size_t)frames * LDPC_NVARS : 0, std::nanf(""));
  const size_t shared = (size_t)fpb * (TEST_ARRAYS * LDPC_NVARS * 4 + 12);
  if (emu_launch((frames + fpb - 1) / fpb, dim3{(unsigned)z, (unsigned)fpb, 1}, shared, [&] { TEST_KERNEL(llr.data(), bits.data(), st.data(), frames, maxIter, wantPost ? post.data() : nullptr); })) return 2;
  fwrite(bits.data(), 1, bits.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  fwrite(post.data(), 4, post.size(), stdout);
  return 0;
}
`;

/**
 * The kernel of `options`' schedule (as ldpcCudaPlan picks it) on float32 LLRs in the emulator; `cns`
 * (layered min-sum): 1 or 0 forces the compressed or the full messages (LDPC_CNS), absent: the
 * kernel's own choice (compressed for codes of more than 128 blocks).
 */
function emulate(
  code: LdpcCode,
  options: DecoderOptions,
  llr: Float32Array,
  frames: number,
  fpb: number,
  posteriors = false,
  cns?: 0 | 1,
) {
  const o = resolveDecoderOptions(options);
  const flooding = o.algorithm === 'flooding-spa';
  const defines = [
    ...Object.entries(ldpcKernelDefines(code.qc!, code.k, o, 'float32', fpb)).map(([k, v]) => `-D${k}=${v}`),
    `-DTEST_KERNEL=${flooding ? 'ldpc_flooding' : 'ldpc_layered'}`,
    `-DTEST_ARRAYS=${flooding ? 3 : 1}`,
    ...(cns === undefined ? [] : [`-DLDPC_CNS=${cns}`]),
  ];
  const { exe, error } = compileEmulated(MAIN, KERNEL(flooding ? 'flooding.cu' : 'layered.cu'), defines);
  if (error) throw new Error(error);
  return runDecoder(exe, [frames, o.maxIterations, fpb, code.qc!.z, 0, posteriors ? 1 : 0], llr, frames, code.k);
}

/** Runs an emulated decoder program on its header and input; its bits (frames x k), status words and posteriors (when written). */
function runDecoder(
  exe: string,
  head: number[],
  input: ArrayBufferView,
  frames: number,
  k: number,
): { bits: Uint8Array; status: Int32Array; posteriors: Float32Array } {
  const header = new Int32Array(head);
  const out = runEmulated(
    exe,
    Buffer.concat([Buffer.from(header.buffer), Buffer.from(input.buffer, input.byteOffset, input.byteLength)]),
  );
  const bits = new Uint8Array(out.buffer, out.byteOffset, frames * k).slice();
  const status = new Int32Array(new Uint8Array(out.buffer, out.byteOffset + frames * k, frames * 4).slice().buffer);
  const posteriors = new Float32Array(new Uint8Array(out.subarray(frames * (k + 4))).buffer);
  return { bits, status, posteriors };
}

test('layered.cu and flooding.cu (emulated): min-sum equals the CPU decoder bit for bit, layered and flooding sum-product decide as it', {
  skip: skipEmu,
}, () => {
  const cases: Array<{ spec: string; options: DecoderOptions; ebn0: number; fpb: number; cns?: 0 | 1 }> = [
    { spec: 'wimax:576', options: { algorithm: 'nms', maxIterations: 8 }, ebn0: 1.5, fpb: 2 },
    { spec: 'wimax:576', options: { algorithm: 'oms', maxIterations: 6, earlyStop: false }, ebn0: 2.5, fpb: 3 },
    {
      spec: 'wimax:576',
      options: { algorithm: 'nms', maxIterations: 5, saturation: 6.5, alpha: 0.8 },
      ebn0: 3,
      fpb: 1,
    },
    // the compressed messages (the default of large codes) on a small code: several frames a block,
    // offset min-sum, and magnitudes near the top of their 16-bit fields (saturation 4000: 64000)
    { spec: 'wimax:576', options: { algorithm: 'oms', maxIterations: 7, beta: 0.75 }, ebn0: 2, fpb: 3, cns: 1 },
    {
      spec: 'wimax:576',
      options: { algorithm: 'nms', maxIterations: 12, saturation: 4000, alpha: 0.8, earlyStop: false },
      ebn0: 1,
      fpb: 2,
      cns: 1,
    },
    { spec: 'wimax:576', options: { algorithm: 'nms', maxIterations: 10, alpha: 0.625 }, ebn0: 1.5, fpb: 1, cns: 1 },
    { spec: 'wimax:576', options: { algorithm: 'spa', maxIterations: 6 }, ebn0: 2, fpb: 2 },
    { spec: 'wimax:576', options: { algorithm: 'flooding-spa', maxIterations: 12 }, ebn0: 2.5, fpb: 2 },
    { spec: 'wimax:576', options: { algorithm: 'flooding-spa', maxIterations: 7, earlyStop: false }, ebn0: 3, fpb: 1 },
  ];
  for (const c of cases) {
    const code = ldpcCode(c.spec);
    const sumProduct = c.options.algorithm === 'spa' || c.options.algorithm === 'flooding-spa';
    const seed = randomInt(2 ** 31),
      frames = sumProduct ? 12 : 5;
    // float32 LLRs: the kernel clips and rounds them; the CPU decodes the same float32 values
    const llr = Float32Array.from(awgnFrames(code, frames, c.ebn0, seed));
    const gpu = emulate(code, c.options, llr, frames, c.fpb, false, c.cns);
    const cpu = code.decoder(c.options).decodeBatch(llr, frames);
    const what = `${c.spec} ${JSON.stringify(c.options)}${c.cns === undefined ? '' : ` LDPC_CNS=${c.cns}`} seed ${seed}`;
    if (sumProduct) {
      // float32 against float64: the same iteration count and verdict on all frames but one (a frame
      // near a tie may take one more or fewer); a schedule that differs moves many
      let same = 0;
      for (let f = 0; f < frames; f++)
        if (
          (gpu.status[f]! & LDPC_STATUS.ITERATIONS_MASK) === cpu.iterations[f] &&
          (gpu.status[f]! & LDPC_STATUS.OK ? 1 : 0) === cpu.ok[f]
        )
          same++;
      assert.ok(same >= frames - 1, `${what}: ${same} of ${frames} frames with the CPU's iterations and verdict`);
    }
    for (let f = 0; f < frames; f++) {
      const s = gpu.status[f]!;
      assert.equal(s & LDPC_STATUS.NON_FINITE, 0, what);
      const bitsEqual = gpu.bits.subarray(f * code.k, (f + 1) * code.k).every((b, i) => b === cpu.bits[f * code.k + i]);
      if (sumProduct) {
        // float32 vs float64: a converged frame has the same decisions
        if (cpu.ok[f] && s & LDPC_STATUS.OK) assert.ok(bitsEqual, `${what}: frame ${f} decisions`);
      } else {
        assert.equal(s & LDPC_STATUS.ITERATIONS_MASK, cpu.iterations[f], `${what}: frame ${f} iterations`);
        assert.equal(s & LDPC_STATUS.OK ? 1 : 0, cpu.ok[f], `${what}: frame ${f} verdict`);
        assert.ok(bitsEqual, `${what}: frame ${f} decisions`);
      }
    }
  }
});

test('layered.cu (emulated): NR base graphs (punctured columns, fillers) equal the CPU decoder on full codewords', {
  skip: skipEmu,
}, () => {
  // both base graphs run the compressed messages (197 and 316 blocks); small lifting sizes, one and
  // several frames a block
  for (const [spec, options, fpb] of [
    ['nr:bg2:200:1/3', { algorithm: 'nms', maxIterations: 6 }, 1],
    ['nr:bg1:300:1/2', { algorithm: 'oms', maxIterations: 4, earlyStop: false }, 1],
    ['nr:bg1:1000:1/3', { algorithm: 'nms', maxIterations: 8, alpha: 0.8125 }, 3],
  ] as const) {
    const code = ldpcCode(spec);
    const N = code.H.n,
      frames = 3,
      seed = randomInt(2 ** 31),
      u = rng(seed);
    const sigma2 = 0.6;
    const llr = new Float32Array(frames * N);
    const info = new Uint8Array(code.k);
    for (let f = 0; f < frames; f++) {
      for (let i = 0; i < code.k; i++) info[i] = u() < 0.5 ? 1 : 0;
      const cw = code.encodeFull(info);
      for (let i = 0; i < N; i++) {
        const g = Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
        // the first 2 Zc columns are punctured: LLR 0, as rate recovery leaves them
        llr[f * N + i] = i < 2 * code.nr!.Zc ? 0 : (2 * (1 - 2 * cw[i]! + Math.sqrt(sigma2) * g)) / sigma2;
      }
    }
    const gpu = emulate(code, options, llr, frames, fpb);
    const core = new LdpcDecoder(code.H, options);
    for (let f = 0; f < frames; f++) {
      const it = core.run(llr, f * N);
      const what = `${spec} fpb ${fpb} seed ${seed} frame ${f}`;
      assert.equal(gpu.status[f]! & LDPC_STATUS.ITERATIONS_MASK, Math.abs(it), `${what}: iterations`);
      assert.equal(gpu.status[f]! & LDPC_STATUS.OK ? 1 : 0, it > 0 ? 1 : 0, `${what}: verdict`);
      assert.deepEqual(
        gpu.bits.subarray(f * code.k, (f + 1) * code.k),
        core.decisions.subarray(0, code.k),
        `${what}: decisions`,
      );
    }
  }
});

test("layered.cu (emulated): a non-finite LLR raises the frame's flag, other frames decode", { skip: skipEmu }, () => {
  const code = ldpcCode('wimax:576');
  const frames = 3;
  const llr = Float32Array.from(awgnFrames(code, frames, 4, randomInt(2 ** 31)));
  const at = code.n + randomInt(code.n);
  llr[at] = [Number.NaN, Infinity, -Infinity][randomInt(3)]!;
  const { status } = emulate(code, { maxIterations: 4 }, llr, frames, 2);
  assert.deepEqual(
    [...status].map((s) => (s & LDPC_STATUS.NON_FINITE ? 1 : 0)),
    [0, 1, 0],
  );
});

test("layered.cu and flooding.cu (emulated): the posteriors output is the CPU decoder's posteriors() (min-sum exactly), the decisions as without it", {
  skip: skipEmu,
}, () => {
  const cases: Array<{ spec: string; options: DecoderOptions; ebn0: number; fpb: number; frames?: number }> = [
    { spec: 'wimax:576', options: { algorithm: 'nms', maxIterations: 6 }, ebn0: 1.5, fpb: 2 },
    { spec: 'nr:bg2:200:1/3', options: { algorithm: 'oms', maxIterations: 5, earlyStop: false }, ebn0: 1, fpb: 1 },
    { spec: 'nr:bg1:300:1/2', options: { algorithm: 'nms', maxIterations: 8, saturation: 6.3 }, ebn0: 2, fpb: 1 },
    // the largest code (Z = 384, the compressed messages in a one-frame block), two frames
    { spec: 'nr:bg1:8448:1/3', options: { algorithm: 'oms', maxIterations: 4 }, ebn0: 1.5, fpb: 1, frames: 2 },
    { spec: 'wimax:576', options: { algorithm: 'spa', maxIterations: 6 }, ebn0: 2.5, fpb: 2 },
    { spec: 'wimax:576', options: { algorithm: 'flooding-spa', maxIterations: 10 }, ebn0: 2.5, fpb: 1 },
  ];
  for (const c of cases) {
    const code = ldpcCode(c.spec);
    const N = code.qc!.blockCols * code.qc!.z;
    const seed = randomInt(2 ** 31),
      frames = c.frames ?? 4;
    // the decoder's input from rate-matched channel LLRs (NR: punctured 0, fillers +saturation)
    const channel = Float32Array.from(awgnFrames(code, frames, c.ebn0, seed));
    const input = ldpcDecoderInput(code, channel, frames, c.options, 'float32') as Float32Array;
    const plain = emulate(code, c.options, input, frames, c.fpb);
    const gpu = emulate(code, c.options, input, frames, c.fpb, true);
    const what = `${c.spec} ${JSON.stringify(c.options)} seed ${seed}`;
    assert.deepEqual(gpu.bits, plain.bits, `${what}: decisions with and without the posteriors output`);
    assert.deepEqual(gpu.status, plain.status, `${what}: status with and without the posteriors output`);
    assert.equal(gpu.posteriors.length, frames * N, what);
    const core = new LdpcDecoder(code.H, c.options);
    const minSum = c.options.algorithm === 'nms' || c.options.algorithm === 'oms';
    for (let f = 0; f < frames; f++) {
      const it = core.run(input, f * N);
      const cpu = core.posteriors();
      const got = gpu.posteriors.subarray(f * N, (f + 1) * N);
      // the decisions are the posteriors' signs
      for (let i = 0; i < code.k; i++)
        assert.equal(got[i]! < 0 ? 1 : 0, gpu.bits[f * code.k + i], `${what}: sign ${i}`);
      if (minSum) {
        assert.deepEqual(Array.from(got), Array.from(cpu), `${what}: frame ${f} posteriors`);
      } else if (it > 0 && gpu.status[f]! & LDPC_STATUS.OK) {
        // float32 sum-product: magnitudes part from float64 where tanh saturates; a converged frame has the same signs
        for (let i = 0; i < N; i++) assert.equal(got[i]! < 0, cpu[i]! < 0, `${what}: frame ${f} sign of column ${i}`);
      }
    }
  }
});

/**
 * Header ints [frames, maxIter, fpb, z, llr entries], then the LLRs; every buffer of the kernel
 * (LLRs in, decisions and status out) ends at an inaccessible page, so a kernel that reads or
 * writes past the buffer the host made faults here (SIGSEGV) as on the device
 * (CUDA_ERROR_ILLEGAL_ADDRESS).
 */
const GUARDED_MAIN = String.raw`
template <class T> T* guarded(size_t count) {
  const size_t page = 4096, body = (count * sizeof(T) + page - 1) / page * page;
  unsigned char* base = (unsigned char*)mmap(nullptr, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED || mprotect(base + body, page, PROT_NONE) != 0) std::abort();
  return (T*)(base + body) - count;
}
int main() {
  int h[5];
  if (fread(h, 4, 5, stdin) != 5) return 1;
  const int frames = h[0], maxIter = h[1], fpb = h[2], z = h[3];
  const size_t count = (size_t)h[4];
  ldpc_llr_t* llr = guarded<ldpc_llr_t>(count);
  if (fread(llr, 4, count, stdin) != count) return 1;
  unsigned char* bits = guarded<unsigned char>((size_t)frames * K_INFO);
  int* st = guarded<int>(frames);
  const size_t shared = (size_t)fpb * (LDPC_NVARS * 4 + 12);
  if (emu_launch((frames + fpb - 1) / fpb, dim3{(unsigned)z, (unsigned)fpb, 1}, shared, [&] { ldpc_layered(llr, bits, st, frames, maxIter, nullptr); })) return 2;
  fwrite(bits, 1, (size_t)frames * K_INFO, stdout);
  fwrite(st, 4, frames, stdout);
  return 0;
}
`;

/** layered.cu (remat false) or the bench's REMAT=1 measurement build on `input` as given, in guarded buffers. */
function emulateLayered(
  code: LdpcCode,
  options: DecoderOptions,
  format: LdpcInputFormat,
  input: Float32Array | Int32Array,
  frames: number,
  fpb: number,
  remat: boolean,
) {
  const o = resolveDecoderOptions(options);
  const defines = Object.entries(ldpcKernelDefines(code.qc!, code.k, o, format, fpb)).map(([k, v]) => `-D${k}=${v}`);
  let source = KERNEL('layered.cu');
  if (remat) {
    const dir = join(tmpdir(), 'lattice-mimo-emu');
    mkdirSync(dir, { recursive: true });
    source = join(dir, 'bench-layered-remat.cu');
    writeFileAtomic(source, tracedSource('ldpc'));
    defines.push('-DREMAT=1');
  }
  const { exe, error } = compileEmulated(GUARDED_MAIN, source, defines);
  if (error) throw new Error(error);
  return runDecoder(exe, [frames, o.maxIterations, fpb, code.qc!.z, input.length], input, frames, code.k);
}

test("layered.cu (emulated): nr:bg1:8448:1/3 (Z = 384) in the GPU bench's default builds, its input from ldpcDecoderInput, equals the CPU decoder", {
  skip: skipEmu,
}, () => {
  // bench/coding/gpu-ldpc.ts --code nr:bg1:8448:1/3 --iterations 5: nms, no early stop; float32 and
  // int32 input, 1 and 2 frames a block (3 x 384 threads is over 1024), REMAT 1 and 0. It once
  // uploaded the code.n = 25344 rate-matched LLRs a frame, where the kernel reads the mother code's
  // 68 x 384 = 26112: past the buffer's end (CUDA_ERROR_ILLEGAL_ADDRESS on the H100), and the wrong values.
  const code = ldpcCode('nr:bg1:8448:1/3');
  const qc = code.qc!;
  const options: DecoderOptions = { algorithm: 'nms', maxIterations: 5, earlyStop: false };
  const frames = 3,
    seed = randomInt(2 ** 31);
  const llr = new Float32Array(frames * code.n);
  // frames at 1, 2.5 and 4 dB: some fail, some converge within 5 iterations
  for (const [f, ebn0] of [1, 2.5, 4].entries())
    llr.set(Float32Array.from(awgnFrames(code, 1, ebn0, seed + f)), f * code.n);
  const cpu = code.decoder(options).decodeBatch(llr, frames);
  for (const format of ['float32', 'int32'] as const) {
    const input = ldpcDecoderInput(code, llr, frames, options, format);
    assert.equal(
      input.length,
      frames * qc.blockCols * qc.z,
      "the decoder input holds the mother code's columns a frame",
    );
    assert.equal(input instanceof Int32Array, format === 'int32');
    for (const remat of [true, false]) {
      for (const fpb of [1, 2]) {
        const gpu = emulateLayered(code, options, format, input, frames, fpb, remat);
        for (let f = 0; f < frames; f++) {
          const what = `${format} fpb ${fpb} remat ${remat ? 1 : 0} seed ${seed} frame ${f}`;
          const s = gpu.status[f]!;
          assert.equal(s & LDPC_STATUS.NON_FINITE, 0, what);
          assert.equal(s & LDPC_STATUS.ITERATIONS_MASK, cpu.iterations[f], `${what}: iterations`);
          assert.equal(s & LDPC_STATUS.OK ? 1 : 0, cpu.ok[f], `${what}: verdict`);
          assert.ok(
            gpu.bits.subarray(f * code.k, (f + 1) * code.k).every((b, i) => b === cpu.bits[f * code.k + i]),
            `${what}: decisions`,
          );
        }
      }
    }
  }
  // the guard catches the old bench input: code.n LLRs a frame, read as 26112 a frame, faults
  assert.throws(() => emulateLayered(code, options, 'float32', llr, frames, 1, false));
});

// ---------------------------------------------------------------- (2) on a device

test('CUDA decodeBatchAsync: nms / oms equal the CPU bit for bit (WiMAX, NR; float32 and float64 input)', {
  skip: skipGpu,
}, async () => {
  const specs = ['wimax:576', 'wimax:1152', 'wimax:2304', 'nr:bg2:500:1/3', 'nr:bg1:2000:1/2', 'nr:bg1:8448:2/3'];
  const settings: DecoderOptions[] = [
    { algorithm: 'nms', maxIterations: 20 },
    { algorithm: 'oms', maxIterations: 12, earlyStop: false },
    { algorithm: 'nms', maxIterations: 10, earlyStop: false, saturation: 12, alpha: 0.625 },
  ];
  for (const spec of specs) {
    const code = ldpcCode(spec);
    for (const ebn0 of [0.5, 1.5, 2.5, 4]) {
      const seed = randomInt(2 ** 31),
        frames = spec.includes('8448') ? 24 : 100;
      const llr64 = awgnFrames(code, frames, ebn0, seed);
      for (const [i, options] of settings.entries()) {
        const llr = i === 1 ? llr64 : Float32Array.from(llr64);
        const cpu = code.decoder(options).decodeBatch(llr, frames);
        const gpu = await decodeBatchAsync(code, llr, frames, { ...options, engine: 'cuda' });
        const what = `${spec} ${ebn0} dB ${JSON.stringify(options)} ${llr.constructor.name} seed ${seed}`;
        assert.equal(gpu.engine, 'cuda');
        assert.deepEqual(gpu.iterations, cpu.iterations, `${what}: iterations`);
        assert.deepEqual(gpu.ok, cpu.ok, `${what}: verdicts`);
        assert.ok(Buffer.from(gpu.bits).equals(Buffer.from(cpu.bits)), `${what}: decisions`);
      }
    }
  }
});

test('CUDA decodeBatchAsync: layered and flooding sum-product in float32 decide as the CPU except near-ties', {
  skip: skipGpu,
}, async () => {
  for (const [spec, algorithm] of [
    ['wimax:2304', 'spa'],
    ['nr:bg2:1000:1/3', 'spa'],
    ['wimax:2304', 'flooding-spa'],
    ['nr:bg1:2000:1/2', 'flooding-spa'],
  ] as const) {
    const code = ldpcCode(spec);
    for (const ebn0 of [1, 2, 3]) {
      const seed = randomInt(2 ** 31),
        frames = 200;
      const llr = Float32Array.from(awgnFrames(code, frames, ebn0, seed));
      const options: DecoderOptions = { algorithm, maxIterations: 20 };
      const cpu = code.decoder(options).decodeBatch(llr, frames);
      const gpu = await decodeBatchAsync(code, llr, frames, { ...options, engine: 'cuda' });
      let differ = 0,
        itDiff = 0;
      for (let f = 0; f < frames; f++) {
        const same = gpu.bits.subarray(f * code.k, (f + 1) * code.k).every((b, i) => b === cpu.bits[f * code.k + i]);
        if (!same || gpu.ok[f] !== cpu.ok[f]) differ++;
        itDiff = Math.max(itDiff, Math.abs(gpu.iterations[f]! - cpu.iterations[f]!));
      }
      // stated tolerance: at most 2% of frames decided differently (float32 vs float64 near a tie)
      const what = `${spec} ${algorithm} ${ebn0} dB seed ${seed}: ${differ} frames differ, iterations up to ${itDiff} apart`;
      assert.ok(differ <= Math.max(1, frames * 0.02), what);
    }
  }
});

test("CUDA decodeBatchAsync: typed errors as the CPU's; auto and cpu engines", { skip: skipGpu }, async () => {
  const code = ldpcCode('wimax:1152');
  const frames = 4;
  const llr = Float32Array.from(awgnFrames(code, frames, 3, randomInt(2 ** 31)));
  const at = 2 * code.n + randomInt(code.n);
  const bad = llr.slice();
  bad[at] = Number.NaN;
  const cpuErr = (() => {
    try {
      code.decodeBatch(bad, frames);
    } catch (e) {
      return e as LatticeMimoError;
    }
    return null;
  })();
  await assert.rejects(
    decodeBatchAsync(code, bad, frames, { engine: 'cuda' }),
    (e: LatticeMimoError) => e.code === 'NON_FINITE' && e.message === cpuErr?.message,
  );
  await assert.rejects(
    decodeBatchAsync(code, llr.subarray(1), frames, { engine: 'cuda' }),
    (e: LatticeMimoError) => e.code === 'SHAPE_MISMATCH',
  );
  // a min-sum saturation whose fixed-point values would pass float32's exact integers: the CPU's
  await assert.rejects(
    decodeBatchAsync(code, llr, frames, { engine: 'cuda', algorithm: 'nms', saturation: 5000 }),
    (e: LatticeMimoError) => e.code === 'ENGINE_UNAVAILABLE' && e.details?.cause === 'no-gpu-implementation',
  );
  await assert.rejects(
    decodeBatchAsync(code, llr, frames, { engine: 'cuda', maxIterations: 0 }),
    (e: LatticeMimoError) => e.code === 'INVALID_ARGUMENT',
  );
  // a buffer of code.n LLRs a frame for an NR code, whose decoder reads the mother code's columns
  const nr = ldpcCode('nr:bg1:8448:1/3');
  const plan = ldpcCudaPlan(requireCuda(), nr, { algorithm: 'nms' });
  const stream = Stream.create(requireCuda());
  assert.throws(
    () => plan.enqueue(stream, { llr: 0n, bits: 0n, status: 0n, frames: 2, llrBytes: 2 * nr.n * 4 }),
    InvalidArgumentError,
  );
  stream.destroy();
  const auto = await decodeBatchAsync(code, llr, frames, { algorithm: 'nms', saturation: 5000 });
  assert.equal(auto.engine, 'cpu');
  assert.equal((await decodeBatchAsync(code, llr, frames)).engine, 'cuda');
});

test('decodeBatchAsync without a device: engine cuda is a typed error, auto decodes on the CPU', {
  skip: cuda.ok ? 'a CUDA device is present' : false,
}, async () => {
  const code = ldpcCode('wimax:576');
  const frames = 3;
  const llr = awgnFrames(code, frames, 2, randomInt(2 ** 31));
  await assert.rejects(
    decodeBatchAsync(code, llr, frames, { engine: 'cuda' }),
    (e: LatticeMimoError) => e.code === 'ENGINE_UNAVAILABLE',
  );
  const got = await decodeBatchAsync(code, llr, frames);
  const want = code.decodeBatch(llr, frames);
  assert.equal(got.engine, 'cpu');
  assert.deepEqual([got.bits, got.iterations, got.ok], [want.bits, want.iterations, want.ok]);
});
