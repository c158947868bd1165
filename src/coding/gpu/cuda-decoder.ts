/**
 * The CUDA LDPC decoders: layered normalized / offset min-sum in the CPU decoder's fixed point
 * (decisions, iteration counts and verdicts bit for bit the CPU's) and layered sum-product in
 * float32, for any quasi-cyclic code (layered.cu, specialised per code and setting with -D defines).
 *
 * Two ways in:
 * - decodeBatchAsync(code, llr, frames, options): the CPU decodeBatch's shapes and errors, through
 *   the batch runner (chunks, pinned copies); engine 'auto' takes the GPU where it can.
 * - ldpcCudaPlan(ctx, code, options).enqueue(stream, buffers): kernels on device buffers that
 *   already hold the LLRs (a GPU link keeps its frames on the device); see LdpcCudaPlan.
 */
import {
  checkOptions,
  choice,
  inapplicable,
  integer,
  option,
  InvalidArgumentError,
  InvalidInputError,
  UnsupportedError,
} from '../../core/index.js';
import {
  runBatch,
  requireCuda,
  type CudaContext,
  chooseEngine,
  type Kernel,
  loadModule,
  readKernelSource,
  type Stream,
  batchRunOption,
  ENGINE_REQUESTS,
  type BatchRunOptions,
} from '../../gpu/index.js';
import type { LdpcCode } from '../code.js';
import { DECODER_SCHEMA, LDPC_MIN_SUM_SCALE, resolveDecoderOptions, type ResolvedDecoderOptions } from '../decoder.js';
import { nrRateMatchMap, nrRateRecover } from '../nr.js';
import { rateRecoveryCudaPlan } from './rate-recovery.js';
import type { DecodeBatchResult, DecoderOptions, QcParityCheck } from '../types.js';

/** Where a batch is decoded: the GPU when it can ('auto'), or the one named. */
export type DecodeEngine = 'auto' | 'cpu' | 'cuda';

/** Decoder options plus the engine and GPU tuning. */
export interface GpuDecodeOptions extends DecoderOptions {
  /** 'auto' (default): CUDA when a device is present and the code and setting run there, else the CPU. */
  readonly engine?: DecodeEngine;
  /** Frames per thread block (default: about 256 threads a block). */
  readonly framesPerBlock?: number;
  /** How the batch runner cuts the batch (tests, measurements). */
  readonly gpuBatch?: BatchRunOptions;
}

/** decodeBatchAsync()'s options: the decoder's, the engine, and the GPU's launch and batch choices. */
export const DECODE_ASYNC_SCHEMA = {
  ...DECODER_SCHEMA,
  engine: option(
    choice(ENGINE_REQUESTS),
    "the engine: 'cuda' with no device, or for a code it does not run, is an error",
    {
      default: 'auto',
      cli: { flag: 'engine', metavar: 'E' },
    },
  ),
  framesPerBlock: option(integer(1, 1024), 'frames per thread block of the GPU decoder (at most 1024 / z)'),
  gpuBatch: batchRunOption('how the batch runner cuts the batch'),
};

/** A batch result and the engine that produced it. */
export interface GpuDecodeBatchResult extends DecodeBatchResult {
  /** The engine that decoded the batch. */
  readonly engine: 'cpu' | 'cuda';
}

/** The status word of a frame: iterations in the low 16 bits, then flags. */
export const LDPC_STATUS = Object.freeze({
  /** Iterations run. */
  ITERATIONS_MASK: 0xffff,
  /** The final hard decisions satisfy every check. */
  OK: 1 << 16,
  /** A channel LLR was not finite (the frame was decoded with it as 0; the host raises NON_FINITE). */
  NON_FINITE: 1 << 17,
});

const ALGO_ID = { nms: 0, oms: 1, spa: 2, 'flooding-spa': 3 } as const;

/** Whether the algorithm is a min-sum one (the CPU's fixed point, exact in float32 on the device). */
const isMinSum = (o: ResolvedDecoderOptions): boolean => o.algorithm === 'nms' || o.algorithm === 'oms';

/** The kernel of an algorithm: the flooding schedule keeps three posterior arrays a frame, the layered one. */
function kernelOf(o: ResolvedDecoderOptions): { file: string; name: string; arrays: number } {
  return o.algorithm === 'flooding-spa'
    ? { file: 'flooding.cu', name: 'ldpc_flooding', arrays: 3 }
    : { file: 'layered.cu', name: 'ldpc_layered', arrays: 1 };
}

/** Largest |value| the min-sum kernel holds in float32 exactly (integers below 2^24). */
const FLOAT_EXACT = 2 ** 24;

/** The largest column degree of a QC parity check. */
function maxColumnDegree(qc: QcParityCheck): number {
  const deg = new Int32Array(qc.blockCols);
  for (const c of qc.blockCol) deg[c]++;
  return Math.max(0, ...deg);
}

/**
 * Why the CUDA decoder cannot run this code and setting (null when it can): a code without QC
 * structure, or a min-sum saturation whose fixed-point values reach 2^24.
 */
export function cudaDecoderUnsupported(code: LdpcCode, options: ResolvedDecoderOptions): string | null {
  if (options.arithmetic !== 'float')
    return `the CUDA decoder computes arithmetic 'float'; '${options.arithmetic}' is the CPU engine's (WebAssembly SIMD lanes)`;
  const qc = code.qc;
  if (!qc) return `code '${code.name}' has no quasi-cyclic structure (the CUDA decoder walks base-matrix layers)`;
  for (let r = 0; r < qc.layers; r++) {
    const seen = new Set<number>();
    for (let e = qc.layerStart[r]!; e < qc.layerStart[r + 1]!; e++) {
      if (seen.has(qc.blockCol[e]!))
        return `layer ${r} of code '${code.name}' has two blocks in block column ${qc.blockCol[e]}`;
      seen.add(qc.blockCol[e]!);
    }
  }
  if (isMinSum(options)) {
    const satQ = Math.round(options.saturation * LDPC_MIN_SUM_SCALE);
    if (satQ * 256 >= FLOAT_EXACT || (maxColumnDegree(qc) + 1) * satQ >= FLOAT_EXACT) {
      return `saturation ${options.saturation} is too large for the CUDA min-sum decoder (its fixed-point values must stay below 2^24)`;
    }
  }
  return null;
}

/** What the CUDA kernel reads: float32 channel LLRs (clipped and rounded on the device) or int32 already in the CPU's fixed point. */
export type LdpcInputFormat = 'float32' | 'int32';

/**
 * A compiled decoder for one code and setting. enqueue() is the device-level entry:
 * - `llr`: device address of frames x N LLRs back to back, N = `n` (the mother code's columns,
 *   codeword order: for NR after rate recovery, punctured bits 0 and fillers +saturation), in
 *   `input` format: float32 LLRs ln P(0)/P(1) (clipped to +-saturation and, for min-sum, rounded to
 *   the CPU's 1/16 step on the device, so the CPU decoder given the same float32 values decides
 *   the same), or int32 already round(clip(llr) 16) (min-sum only).
 * - `bits`: frames x k bytes, the hard decisions (0/1) of the first k code bits (the information bits).
 * - `status`: frames int32, written (need not be zeroed): see LDPC_STATUS.
 * - `llrBytes` (optional): the size of the `llr` buffer; when given, a buffer shorter than
 *   frames x n x 4 bytes is an InvalidArgumentError here instead of an out-of-bounds read on the
 *   device (CUDA_ERROR_ILLEGAL_ADDRESS, which ends the context).
 * - `posteriors` (optional): frames x n float32 out, each frame's a-posteriori LLRs after its last
 *   iteration in LLR units (the CPU decoder's posteriors(): min-sum's fixed point / 16, exact), for
 *   iterative detection and decoding, whose extrinsic LLRs are these minus the input as the decoder
 *   took it (clipped to +-saturation; min-sum: rounded to its 1/16 step). Absent: not written.
 * ldpcDecoderInput() builds `llr` from channel LLRs of the code as sent (frames x code.n; for an NR
 * code code.n is the rate-matched E, n the mother code's N + 2 Zc). The kernel runs on `stream` and
 * reads / writes nothing else; the buffers must stay alive until the stream has passed it. Inputs
 * are not modified.
 */
export interface LdpcCudaPlan {
  readonly options: ResolvedDecoderOptions;
  /** LLRs a frame (the mother code's columns). */
  readonly n: number;
  /** Information bits a frame (decisions written). */
  readonly k: number;
  readonly input: LdpcInputFormat;
  readonly framesPerBlock: number;
  readonly sharedBytes: number;
  readonly kernel: Kernel;
  enqueue(stream: Stream, buffers: LdpcCudaBuffers): void;
}

/** Device buffers of one LdpcCudaPlan.enqueue (layouts in LdpcCudaPlan's comment). */
export interface LdpcCudaBuffers {
  /** frames x n LLRs, the plan's input format. */
  readonly llr: bigint;
  /** frames x k bytes out. */
  readonly bits: bigint;
  /** frames int32 out (LDPC_STATUS). */
  readonly status: bigint;
  readonly frames: number;
  /** The size of `llr` in bytes, checked when given. */
  readonly llrBytes?: number;
  /** frames x n float32 a-posteriori LLRs out; absent or 0n: not written. */
  readonly posteriors?: bigint;
}

/** The -D defines of layered.cu for a code and setting (the table as '_'-separated numbers). */
export function ldpcKernelDefines(
  qc: QcParityCheck,
  k: number,
  o: ResolvedDecoderOptions,
  input: LdpcInputFormat,
  framesPerBlock: number,
): Record<string, string | number> {
  if (input === 'int32' && !isMinSum(o))
    throw new InvalidArgumentError('int32 (fixed-point) input is for the min-sum decoders only');
  const table: number[] = [];
  let maxDeg = 1;
  for (let r = 0; r < qc.layers; r++) {
    maxDeg = Math.max(maxDeg, qc.layerStart[r + 1]! - qc.layerStart[r]!);
    for (let e = qc.layerStart[r]!; e < qc.layerStart[r + 1]!; e++) table.push(qc.blockCol[e]!, qc.shift[e]! % qc.z);
  }
  const sat = o.saturation;
  return {
    Z: qc.z,
    NCOLS: qc.blockCols,
    NLAYERS: qc.layers,
    NEDGES: qc.blockCol.length,
    MAXDEG: maxDeg,
    QC_TABLE: table.join('_'),
    QC_START: Array.from(qc.layerStart).join('_'),
    K_INFO: k,
    FPB: framesPerBlock,
    ALGO: ALGO_ID[o.algorithm],
    ALPHA_Q: o.algorithm === 'nms' ? Math.round(o.alpha * 256) : 256,
    BETA_Q: o.algorithm === 'oms' ? Math.round(o.beta * LDPC_MIN_SUM_SCALE) : 0,
    SAT_Q: Math.round(sat * LDPC_MIN_SUM_SCALE),
    SAT: Number.isInteger(sat) ? `${sat}.0` : String(sat),
    LLR_INT: input === 'int32' ? 1 : 0,
    EARLY_STOP: o.earlyStop ? 1 : 0,
  };
}

/**
 * Frames per block: about 128 threads, within 48 KiB of shared memory where one frame fits (small
 * blocks: with about 165 registers a thread, more blocks fit a multiprocessor).
 */
export function defaultFramesPerBlock(qc: QcParityCheck, arrays = 1): number {
  const perFrame = arrays * qc.blockCols * qc.z * 4 + 12;
  return Math.max(1, Math.min(Math.round(128 / qc.z), Math.floor(1024 / qc.z), Math.floor((48 * 1024) / perFrame)));
}

/** A measurement build's source in place of layered.cu, and its further -D defines (bench/kernels/traced.ts). */
export interface LdpcKernelBuild {
  readonly source: string;
  readonly name: string;
  readonly defines: Readonly<Record<string, number>>;
}

/**
 * Compiles (or finds cached) the decoder of `code` with `options` for device buffers; typed
 * errors for bad options and for codes or settings the GPU does not run (cudaDecoderUnsupported).
 */
export function ldpcCudaPlan(
  ctx: CudaContext,
  code: LdpcCode,
  options: DecoderOptions = {},
  how: { input?: LdpcInputFormat; framesPerBlock?: number; build?: LdpcKernelBuild } = {},
): LdpcCudaPlan {
  const o = resolveDecoderOptions(options);
  const why = cudaDecoderUnsupported(code, o);
  if (why) throw new UnsupportedError(why);
  const qc = code.qc!;
  const input = how.input ?? 'float32';
  const k = kernelOf(o);
  const fpb = how.framesPerBlock ?? defaultFramesPerBlock(qc, k.arrays);
  if (!Number.isInteger(fpb) || fpb < 1 || fpb * qc.z > 1024)
    throw new InvalidArgumentError(
      `framesPerBlock must be an integer from 1 to ${Math.floor(1024 / qc.z)} (z = ${qc.z}), got ${fpb}`,
    );
  const n = qc.blockCols * qc.z;
  const sharedBytes = fpb * (k.arrays * n * 4 + 12);
  const kernel = loadModule(ctx, {
    source: how.build?.source ?? readKernelSource(new URL(`./${k.file}`, import.meta.url)),
    name: how.build?.name ?? `coding/gpu/${k.file}`,
    defines: { ...ldpcKernelDefines(qc, code.k, o, input, fpb), ...how.build?.defines },
  }).kernel(k.name, ['ptr', 'ptr', 'ptr', 'i32', 'i32', 'ptr']);
  if (sharedBytes > 48 * 1024) kernel.setMaxDynamicShared(sharedBytes);
  return {
    options: o,
    n,
    k: code.k,
    input,
    framesPerBlock: fpb,
    sharedBytes,
    kernel,
    enqueue(stream, b) {
      if (!Number.isInteger(b.frames) || b.frames < 0)
        throw new InvalidArgumentError(`frames must be a non-negative integer, got ${b.frames}`);
      if (b.llrBytes !== undefined && b.llrBytes < b.frames * n * 4)
        throw new InvalidArgumentError(
          `the LLR buffer holds ${b.llrBytes} bytes, the decoder reads ${b.frames} frames x ${n} LLRs x 4 bytes (n = the mother code's columns: ldpcDecoderInput() makes them from code.n = ${code.n} a frame)`,
        );
      if (b.frames === 0) return;
      kernel.launch({ grid: Math.ceil(b.frames / fpb), block: [qc.z, fpb], sharedBytes, stream }, [
        b.llr,
        b.bits,
        b.status,
        b.frames,
        o.maxIterations,
        b.posteriors ?? 0n,
      ]);
    },
  };
}

/** The CPU decoder's NON_FINITE error for frame f (channel LLRs as given). */
function nonFinite(llr: ArrayLike<number>, n: number, f: number): InvalidInputError {
  for (let i = 0; i < n; i++) {
    const v = llr[f * n + i]!;
    if (!Number.isFinite(v))
      return new InvalidInputError('NON_FINITE', `LLR ${i} of the frame at offset ${f * n} is ${v}`, {
        index: f * n + i,
      });
  }
  return new InvalidInputError('NON_FINITE', `frame ${f} has a non-finite LLR`, { frame: f });
}

/**
 * The CUDA decoder's input (LdpcCudaPlan's `llr`) for frames x code.n channel LLRs of the code as
 * sent: frames x n values, n = the mother code's columns (LdpcCudaPlan.n), each frame as the CPU
 * decoder takes it in: NR rate recovery (punctured bits 0, fillers +saturation, repeated bits
 * summed), clipped to +-saturation; in the CPU's fixed point round(llr 16) for 'int32' (min-sum
 * only, and the default for it), as float32 values for 'float32' (the kernel rounds them as the
 * CPU does; exact where each bit is sent once, a sum of repeated float32 LLRs is rounded to float32
 * first). Typed errors as the CPU's decodeBatch (SHAPE_MISMATCH, NON_FINITE).
 */
export function ldpcDecoderInput(
  code: LdpcCode,
  llr: ArrayLike<number>,
  frames: number,
  options: DecoderOptions = {},
  format?: LdpcInputFormat,
): Float32Array | Int32Array {
  const o = resolveDecoderOptions(options, 'ldpcDecoderInput()');
  const qc = code.qc;
  if (!qc)
    throw new UnsupportedError(
      `code '${code.name}' has no quasi-cyclic structure (the CUDA decoder walks base-matrix layers)`,
    );
  if (!Number.isInteger(frames) || frames < 0)
    throw new InvalidArgumentError(`frames must be a non-negative integer, got ${frames}`);
  if (llr.length !== frames * code.n)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `LLR input has ${llr.length} entries, expected ${frames} frames x ${code.n}`,
    );
  const minSum = isMinSum(o);
  const fmt = format ?? (minSum ? 'int32' : 'float32');
  if (fmt === 'int32' && !minSum)
    throw new InvalidArgumentError('int32 (fixed-point) input is for the min-sum decoders only');
  const nFull = qc.blockCols * qc.z;
  const out = fmt === 'int32' ? new Int32Array(frames * nFull) : new Float32Array(frames * nFull);
  const q = fmt === 'int32' ? LDPC_MIN_SUM_SCALE : 0;
  const sat = o.saturation;
  const acc = new Float64Array(nFull);
  const map = code.nr ? nrRateMatchMap(code.nr, 0) : null;
  for (let f = 0; f < frames; f++) {
    if (map) nrRateRecover(code.nr!, map, llr, acc, true, sat, f * code.n);
    else for (let i = 0; i < nFull; i++) acc[i] = llr[f * nFull + i]!;
    for (let i = 0; i < nFull; i++) {
      const v = acc[i]!;
      if (!Number.isFinite(v))
        throw new InvalidInputError('NON_FINITE', `LLR ${i} of the frame at offset ${f * code.n} is ${v}`, {
          index: f * code.n + i,
        });
      const c = v > sat ? sat : v < -sat ? -sat : v;
      out[f * nFull + i] = q ? Math.round(c * q) : c;
    }
  }
  return out;
}

/**
 * frames x code.n channel LLRs -> frames x k bits, iterations and verdicts, as the CPU's
 * decodeBatch (same shapes, same typed errors), on the engine asked for: 'cuda' (EngineUnavailable
 * without a device, UnsupportedError for a code or setting the GPU does not run), 'cpu', or 'auto'.
 * A float32 batch of a code sent whole goes up as it is (pinned arrays without a staging copy);
 * anything else is brought to the decoder's input on the host first (NR rate recovery; for
 * min-sum, the CPU's fixed-point rounding, so float64 LLRs decode exactly as on the CPU).
 * `out` (optional) receives the results (its bits array may be pinned: allocPinned, copied straight).
 */
export async function decodeBatchAsync(
  code: LdpcCode,
  llr: ArrayLike<number>,
  frames: number,
  options: GpuDecodeOptions = {},
  out?: DecodeBatchResult,
): Promise<GpuDecodeBatchResult> {
  const call = 'decodeBatchAsync()';
  const { engine, framesPerBlock, gpuBatch, ...decoderOptions } = checkOptions(options, DECODE_ASYNC_SCHEMA, call);
  if (engine === 'cpu') {
    for (const key of ['framesPerBlock', 'gpuBatch'] as const)
      if (options[key] !== undefined) throw inapplicable(call, key, "it is the GPU decoder's, and the engine is 'cpu'");
  }
  const o = resolveDecoderOptions(decoderOptions, call);
  if (!Number.isInteger(frames) || frames < 0)
    throw new InvalidArgumentError(`frames must be a non-negative integer, got ${frames}`);
  if (!llr || typeof llr.length !== 'number') throw new InvalidArgumentError('llr must be an array of numbers');
  if (llr.length !== frames * code.n)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `LLR input has ${llr.length} entries, expected ${frames} frames x ${code.n}`,
    );
  const chosen = await chooseEngine({
    asked: engine,
    call: `decode (${o.algorithm})`,
    gpuGap: () => cudaDecoderUnsupported(code, o),
  });
  const useCuda = chosen.engine === 'cuda';
  if (out && (out.bits.length < frames * code.k || out.iterations.length < frames || out.ok.length < frames)) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `batch output arrays are too short for ${frames} frames of k = ${code.k}`,
    );
  }
  if (!useCuda) return { ...code.decoder(o).decodeBatch(llr, frames, out), engine: 'cpu' };

  const ctx = requireCuda();
  const qc = code.qc!;
  const nFull = qc.blockCols * qc.z;
  // float32 channel LLRs go to the device as they are: a code not sent whole (NR rate matching,
  // shortening) is recovered there (rateRecoveryCudaPlan), not in a host loop over every value
  const onDevice = llr instanceof Float32Array;
  const recovery =
    onDevice && (code.nr || nFull !== code.n) ? rateRecoveryCudaPlan(ctx, code, { saturation: o.saturation }) : null;
  const input = onDevice ? llr : ldpcDecoderInput(code, llr, frames, o);
  const perFrame = onDevice ? code.n : nFull;
  const plan = ldpcCudaPlan(ctx, code, o, { input: input instanceof Int32Array ? 'int32' : 'float32', framesPerBlock });
  const bits = out?.bits ?? new Uint8Array(frames * code.k);
  const iterations = out?.iterations ?? new Int32Array(frames);
  const ok = out?.ok ?? new Uint8Array(frames);
  try {
    await runBatch(ctx, {
      name: `ldpc ${o.algorithm}`,
      items: frames,
      inputs: [{ array: input, bytesPerItem: perFrame * 4 }],
      outputs: [{ array: bits, bytesPerItem: code.k }],
      scratch: recovery ? [{ bytesPerItem: nFull * 4 }] : [],
      statusWords: 1,
      options: gpuBatch,
      enqueue(stream, chunk) {
        let llrIn = chunk.inputs[0]!;
        if (recovery) {
          recovery.enqueue(stream, { llr: llrIn, input: chunk.scratch[0]!, frames: chunk.count });
          llrIn = chunk.scratch[0]!;
        }
        plan.enqueue(stream, {
          llr: llrIn,
          bits: chunk.outputs[0]!,
          status: chunk.status,
          frames: chunk.count,
        });
      },
      settle(first, count, status) {
        for (let i = 0; i < count; i++) {
          const s = status[i]!;
          if (s & LDPC_STATUS.NON_FINITE) throw nonFinite(llr, code.n, first + i);
          iterations[first + i] = s & LDPC_STATUS.ITERATIONS_MASK;
          ok[first + i] = s & LDPC_STATUS.OK ? 1 : 0;
        }
      },
    });
  } finally {
    recovery?.free();
  }
  return { bits, iterations, ok, engine: 'cuda' };
}
