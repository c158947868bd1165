/**
 * Throughput of the CUDA layered min-sum decoder (src/coding/gpu/layered.cu) on the 802.16e
 * n = 2304 rate-1/2 code: 10 iterations, no early stop, LLRs already on the device (plan.enqueue in
 * a loop, CUDA events after a warm-up; for an NR code the rate-recovered mother-code frames of
 * ldpcDecoderInput(), as the plan reads them), in Gbps of decoded information bits; for each build
 * (frames per block, float32 or int32 input, addresses recomputed or kept) its registers and rate.
 * Then the floors: LLR and decision bytes over the measured device bandwidth; the kernel's SASS
 * (cuobjdump, when the device machine has it) counted per pipe over the issue and ALU rates, with
 * the ALU rate measured by a chain kernel of integer and float min / xor operations. Last,
 * host-to-host through decodeBatchAsync with pinned arrays. A sample of frames is checked against
 * the CPU decoder bit for bit first.
 *
 * Usage: node dist/bench/coding/gpu-ldpc.js [--frames 65536] [--iterations 10] [--reps 10] [--ebn0 2]
 *        [--code wimax:2304] [--fpb 1,2,3,4] [--remat 1,0]   (SASS is written to $OUT when set)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ldpcCode } from '../../src/coding/code.js';
import {
  decodeBatchAsync,
  ldpcCudaPlan,
  ldpcDecoderInput,
  ldpcKernelDefines,
  LDPC_STATUS,
  type LdpcInputFormat,
} from '../../src/coding/gpu/cuda-decoder.js';
import { resolveDecoderOptions } from '../../src/coding/decoder.js';
import type { DecoderOptions } from '../../src/coding/types.js';
import { requireCuda } from '../../src/gpu/context.js';
import { allocPinned } from '../../src/gpu/host-memory.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { loadModule, readKernelSource } from '../../src/gpu/module-cache.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { measureCeilings } from '../gpu/ceilings.js';
import { ldpcRematBuild } from '../kernels/traced.js';

/**
 * Instruction counts of a kernel's main loop from `cuobjdump -sass` text: the span of the backward
 * branch that covers the most instructions, split by pipe (FMA pipe: FADD, FMUL, FFMA, IMAD;
 * shared memory, barriers and branches apart; the rest on the ALU pipe).
 */
export function sassLoopCounts(sass: string): {
  total: number;
  alu: number;
  fma: number;
  mem: number;
  ops: Map<string, number>;
} {
  const ins: Array<{ at: number; op: string; target?: number }> = [];
  for (const line of sass.split('\n')) {
    const m = /^\s+\/\*([0-9a-f]{4,})\*\/\s+(?:@!?U?P[0-9T]\s+)?([A-Z][A-Z0-9_]*)[^;]*?(0x[0-9a-f]+)?\s*;/.exec(line);
    if (m)
      ins.push({
        at: parseInt(m[1]!, 16),
        op: m[2]!,
        ...(m[2] === 'BRA' && m[3] ? { target: parseInt(m[3], 16) } : {}),
      });
  }
  let lo = 0,
    hi = ins.length - 1,
    span = -1;
  for (const [i, x] of ins.entries()) {
    if (x.target !== undefined && x.target < x.at) {
      const j = ins.findIndex((y) => y.at === x.target);
      if (j >= 0 && i - j > span) {
        span = i - j;
        lo = j;
        hi = i;
      }
    }
  }
  const ops = new Map<string, number>();
  for (const x of ins.slice(lo, hi + 1)) ops.set(x.op, (ops.get(x.op) ?? 0) + 1);
  const sum = (names: string[]) => names.reduce((t, op) => t + (ops.get(op) ?? 0), 0);
  const total = hi - lo + 1;
  const fma = sum(['FADD', 'FMUL', 'FFMA', 'IMAD']);
  const mem = sum(['LDS', 'STS', 'BAR', 'BRA', 'BSSY', 'BSYNC', 'NOP']);
  return { total, alu: total - fma - mem, fma, mem, ops };
}

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
}

const frames = Number(arg('frames', '65536'));
const iterations = Number(arg('iterations', '10'));
const reps = Number(arg('reps', '10'));
const ebn0 = Number(arg('ebn0', '2'));
const spec = arg('code', 'wimax:2304');
const fpbs = arg('fpb', '1,2,3,4').split(',').map(Number);
const remats = arg('remat', '1,0')
  .split(',')
  .map((x) => x === '1');
const outDir = process.env.OUT;

const ctx = requireCuda();
const code = ldpcCode(spec);
const qc = code.qc!;
const n = code.n,
  k = code.k,
  // LLRs a frame on the device: the mother code's columns (for NR more than code.n, punctured and
  // rate-matched bits included), what the kernel reads
  nIn = qc.blockCols * qc.z;
const options: DecoderOptions = { algorithm: 'nms', maxIterations: iterations, earlyStop: false };

// 1024 random codewords over BPSK / AWGN, tiled to `frames` (the decoder's time does not depend on the values without early stop)
const base = 1024;
const llrBase = new Float32Array(base * n);
{
  let s = 12345;
  const u = () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s + 0.5) / 4294967296;
  };
  const sigma2 = 1 / (2 * code.rate * 10 ** (ebn0 / 10));
  const info = new Uint8Array(k);
  for (let f = 0; f < base; f++) {
    for (let i = 0; i < k; i++) info[i] = u() < 0.5 ? 1 : 0;
    const cw = code.encode(info);
    for (let i = 0; i < n; i++) {
      const g = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
      llrBase[f * n + i] = (2 * (1 - 2 * cw[i]! + Math.sqrt(sigma2) * g)) / sigma2;
    }
  }
}
const llr = allocPinned(ctx, Float32Array, frames * n);
for (let f = 0; f < frames; f += base) llr.set(llrBase.subarray(0, Math.min(base, frames - f) * n), f * n);
// the decoder's input of the 1024 frames (NR rate recovery, clip; int32: the CPU's fixed point), tiled on the device
const inBase = {
  float32: ldpcDecoderInput(code, llrBase, base, options, 'float32'),
  int32: ldpcDecoderInput(code, llrBase, base, options, 'int32'),
};

const stream = Stream.create(ctx);
const dLlr = DeviceBuffer.alloc(ctx, frames * nIn * 4);
const dLlrQ = DeviceBuffer.alloc(ctx, frames * nIn * 4);
const dBits = DeviceBuffer.alloc(ctx, frames * k);
const dStatus = DeviceBuffer.alloc(ctx, frames * 4);
for (let f = 0; f < frames; f += base) {
  const m = Math.min(base, frames - f) * nIn;
  dLlr.upload(inBase.float32.subarray(0, m), f * nIn * 4);
  dLlrQ.upload(inBase.int32.subarray(0, m), f * nIn * 4);
}

// the CPU's answer for a sample, to check every build against
const sample = 256;
const cpu = code.decoder(options).decodeBatch(llr.subarray(0, sample * n), sample);

console.log(
  `device: ${ctx.props.name}, ${ctx.props.multiprocessors} SMs, ${(ctx.props.clockKHz / 1e6).toFixed(2)} GHz; code ${spec} (n ${n}, k ${k}, z ${qc.z}, ${qc.blockCol.length} blocks); nms ${iterations} iterations, no early stop; ${frames} frames, Eb/N0 ${ebn0} dB`,
);
console.log('input    fpb remat regs  ms       Gbps   check');
let best = { gbps: 0, fpb: 1, remat: true, input: 'float32' as LdpcInputFormat, ms: 0 };
for (const input of ['float32', 'int32'] as LdpcInputFormat[]) {
  for (const remat of remats) {
    for (const fpb of fpbs) {
      if (fpb * qc.z > 1024) continue;
      const plan = ldpcCudaPlan(ctx, code, options, {
        input,
        framesPerBlock: fpb,
        build: remat ? ldpcRematBuild() : undefined,
      });
      const src = input === 'int32' ? dLlrQ : dLlr;
      const t = timeOnStream(
        ctx,
        stream,
        () => plan.enqueue(stream, { llr: src.ptr, bits: dBits.ptr, status: dStatus.ptr, frames, llrBytes: src.bytes }),
        reps,
        2,
      );
      const bits = new Uint8Array(sample * k),
        status = new Int32Array(sample);
      dBits.download(bits);
      dStatus.download(status);
      let bad = 0;
      for (let f = 0; f < sample; f++) {
        const s = status[f]!;
        if ((s & LDPC_STATUS.ITERATIONS_MASK) !== cpu.iterations[f] || (s & LDPC_STATUS.OK ? 1 : 0) !== cpu.ok[f])
          bad++;
        else
          for (let i = 0; i < k; i++)
            if (bits[f * k + i] !== cpu.bits[f * k + i]) {
              bad++;
              break;
            }
      }
      const gbps = (frames * k) / (t.medianMs / 1000) / 1e9;
      const regs = plan.kernel.attributes().registers;
      console.log(
        `${input.padEnd(8)} ${String(fpb).padStart(3)} ${remat ? '  1  ' : '  0  '} ${String(regs).padStart(4)}  ${t.medianMs.toFixed(3).padStart(7)}  ${gbps.toFixed(2).padStart(6)}  ${bad === 0 ? `= CPU on ${sample} frames` : `${bad} of ${sample} frames differ from the CPU`}`,
      );
      if (bad === 0 && gbps > best.gbps) best = { gbps, fpb, remat, input, ms: t.medianMs };
    }
  }
}
console.log(
  `best: ${best.gbps.toFixed(2)} Gbps of information bits (${best.input}, ${best.fpb} frames a block, remat ${best.remat ? 1 : 0}), ${(frames / (best.ms / 1000) / 1e6).toFixed(2)} M frames/s`,
);

// ---- floors
const ceil = measureCeilings(ctx, { reps: 5 });
const bytesPerFrame = nIn * 4 + k + 4;
const bwMs = ((frames * bytesPerFrame) / ceil.deviceBytesPerS) * 1000;
console.log(
  `device bandwidth ${(ceil.deviceBytesPerS / 1e9).toFixed(0)} GB/s (copy, read + write): memory floor ${bwMs.toFixed(3)} ms = ${((frames * k) / (bwMs / 1000) / 1e9).toFixed(0)} Gbps (${bytesPerFrame} bytes a frame)`,
);

// ALU rate: 8 independent chains of (xor, min) in int32, of (max, min) in float32
const RATE_SRC = String.raw`
extern "C" __global__ void alu_chains(int* out, int a, int b, int iters) {
  int x[8]; float y[8];
  for (int c = 0; c < 8; c++) { x[c] = threadIdx.x * 7 + c; y[c] = (float)x[c]; }
  const float fa = (float)a, fb = (float)b;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int c = 0; c < 8; c++) {
#if FLOAT_OPS
      y[c] = fminf(fmaxf(y[c], fa) + 0.f, fb - (float)c);
#else
      x[c] = min(x[c] ^ a, b + c);
#endif
    }
  }
  int s = 0;
  for (int c = 0; c < 8; c++) s += x[c] + (int)y[c];
  if (s == -1) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}`;
const rates: Record<string, number> = {};
for (const fl of [0, 1]) {
  const kern = loadModule(ctx, {
    source: RATE_SRC,
    name: 'bench/coding/alu-chains',
    defines: { FLOAT_OPS: fl },
  }).kernel('alu_chains', ['ptr', 'i32', 'i32', 'i32']);
  const threads = 256,
    blocks = ctx.props.multiprocessors * 8 * 4,
    it = 4096;
  const ms = timeOnStream(
    ctx,
    stream,
    () => kern.launch({ grid: blocks, block: threads, stream }, [dStatus.ptr, 0x55, 1 << 30, it]),
    5,
    1,
  ).medianMs;
  rates[fl ? 'float min/max' : 'int xor/min'] = (blocks * threads * it * 8 * 2) / (ms / 1000);
}
for (const [name, r] of Object.entries(rates))
  console.log(
    `ALU rate (${name} chains): ${(r / 1e12).toFixed(2)} T ops/s = ${(r / 32 / ctx.props.multiprocessors / (ctx.props.clockKHz * 1e3)).toFixed(2)} warp instructions a clock per SM`,
  );

// the best build's SASS, counted by pipe (static counts: one unrolled iteration dominates)
const o = resolveDecoderOptions(options);
const rematBuild = best.remat ? ldpcRematBuild() : undefined;
const mod = loadModule(ctx, {
  source: rematBuild?.source ?? readKernelSource(new URL('../../src/coding/gpu/layered.cu', import.meta.url)),
  name: rematBuild?.name ?? 'coding/gpu/layered.cu',
  defines: { ...ldpcKernelDefines(qc, k, o, best.input, best.fpb), ...rematBuild?.defines },
});
const cacheDir = process.env.LATTICE_MIMO_CACHE || join(tmpdir(), 'lattice-mimo-cubin');
const cubin = join(cacheDir, `${mod.key}.cubin`);
const cuobjdump = ['/usr/local/cuda/bin/cuobjdump', 'cuobjdump'].find((p) => spawnSync(p, ['--version']).status === 0);
if (cuobjdump && existsSync(cubin)) {
  const sass = spawnSync(cuobjdump, ['-sass', cubin], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  if (outDir) writeFileSync(join(outDir, 'layered-best.sass'), sass);
  const c = sassLoopCounts(sass);
  const fmt = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 14)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ');
  console.log(
    `SASS of the iteration loop (static, best build; includes the syndrome block run once a frame): ${c.total} instructions, ${c.alu} on the ALU pipe, ${c.fma} on the FMA pipe, ${c.mem} shared-memory / barrier / branch; ${fmt(c.ops)}`,
  );
  const warps = Math.ceil(qc.z / 32) * frames * iterations; // warp-iterations
  const clk = ctx.props.clockKHz * 1e3,
    sms = ctx.props.multiprocessors;
  const issueMs = ((warps * c.total) / (4 * sms * clk)) * 1000;
  const aluRate = rates['int xor/min']! / 32; // warp instructions per second on the ALU pipe (measured)
  const aluMs = ((warps * c.alu) / aluRate) * 1000;
  console.log(
    `floors (${frames} frames): issue ${issueMs.toFixed(3)} ms (4 warp instructions a clock per SM) = ${((frames * k) / (issueMs / 1000) / 1e9).toFixed(1)} Gbps; ALU pipe ${aluMs.toFixed(3)} ms (over the measured integer rate) = ${((frames * k) / (aluMs / 1000) / 1e9).toFixed(1)} Gbps; measured ${best.ms.toFixed(3)} ms`,
  );
} else {
  console.log(`SASS floor skipped: ${cuobjdump ? `no cubin at ${cubin}` : 'no cuobjdump on this machine'}`);
}

// ---- host to host: decodeBatchAsync with pinned arrays (pinned input and bits, copies overlapped with kernels)
{
  const out = {
    bits: allocPinned(ctx, Uint8Array, frames * k),
    iterations: new Int32Array(frames),
    ok: new Uint8Array(frames),
  };
  const times: number[] = [];
  for (let r = 0; r < 4; r++) {
    const t0 = performance.now();
    const res = await decodeBatchAsync(
      code,
      llr,
      frames,
      { ...options, engine: 'cuda', framesPerBlock: best.fpb },
      out,
    );
    times.push(performance.now() - t0);
    if (res.engine !== 'cuda') throw new Error('host-to-host run did not use the GPU');
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)]!;
  const linkMs =
    ((frames * nIn * 4) / ceil.hostToDeviceBytesPerS) * 1000 + ((frames * (k + 4)) / ceil.deviceToHostBytesPerS) * 1000;
  console.log(
    `host to host (pinned float32 LLRs in, pinned bits out, decodeBatchAsync): ${ms.toFixed(1)} ms = ${((frames * k) / (ms / 1000) / 1e9).toFixed(2)} Gbps; link floor ${linkMs.toFixed(1)} ms = ${((frames * k) / (linkMs / 1000) / 1e9).toFixed(2)} Gbps (H2D ${(ceil.hostToDeviceBytesPerS / 1e9).toFixed(1)} GB/s, D2H ${(ceil.deviceToHostBytesPerS / 1e9).toFixed(1)} GB/s)`,
  );
}
for (const b of [dLlr, dLlrQ, dBits, dStatus]) b.free();
stream.destroy();
