/**
 * Rate recovery on the GPU (rate-recovery.cu): a frame's channel LLRs -> the decoder's input of
 * the mother code's columns, for frames already on the device (a GPU link's detector output, a
 * slot receiver's demapped LLRs). NR codes: repeated positions summed, filler columns saturated,
 * punctured columns 0 (the CPU's nrRateRecover); other codes: the first n LLRs of a longer frame
 * (padding dropped). The sums run in the CPU's order, so the output equals nrRateRecover into a
 * Float32Array given the same float32 LLRs, bit for bit.
 */
import { checkOptions, integer, number, option, InvalidArgumentError } from '../../core/index.js';
import {
  type CudaContext,
  DeviceBuffer,
  type Kernel,
  loadModule,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';
import type { LdpcCode } from '../code.js';
import { LDPC_DECODER_DEFAULTS } from '../decoder.js';
import { nrRateMatchMap } from '../nr.js';

const RR_BLOCK = 256;

/** For each column of the mother code, the channel positions that carry it, in channel order. */
export interface RateRecoveryColumns {
  /** int32, nFull + 1: column c's positions are col[start[c]] .. col[start[c + 1] - 1]. */
  readonly start: Int32Array;
  /** int32, the code's n channel positions, column by column. */
  readonly col: Int32Array;
  /** The filler columns [fillStart, fillEnd) (known zeros; empty but for NR). */
  readonly fill: readonly [number, number];
}

/**
 * The column table of a code (redundancy version 0): for NR from nrRateMatchMap, for any other
 * code channel position j is column j.
 */
export function rateRecoveryColumns(code: LdpcCode): RateRecoveryColumns {
  const nFull = code.H.n,
    map = code.nr ? nrRateMatchMap(code.nr, 0) : null;
  if (!map && code.n > nFull)
    throw new InvalidArgumentError(`code '${code.name}' sends ${code.n} bits but has only ${nFull} columns`);
  const start = new Int32Array(nFull + 1);
  for (let j = 0; j < code.n; j++) start[(map ? map[j]! : j) + 1]++;
  for (let c = 0; c < nFull; c++) start[c + 1] += start[c]!;
  const col = new Int32Array(code.n),
    at = start.slice(0, nFull);
  for (let j = 0; j < code.n; j++) col[at[map ? map[j]! : j]!++] = j;
  return { start, col, fill: code.nr ? [code.nr.K, code.nr.Kldpc] : [0, 0] };
}

/** rateRecoveryCudaPlan()'s options. */
export interface RateRecoveryOptions {
  /** LLRs from one frame's start to the next in the input buffer (>= the code's n; default n). */
  readonly perFrame?: number;
  /** The value of the filler columns: the decoder's saturation (default 64, the decoder's default). */
  readonly saturation?: number;
}

const RATE_RECOVERY_SCHEMA = {
  perFrame: option(integer(1), "LLRs a frame in the input buffer (at least the code's n)"),
  saturation: option(number({ min: 0 }), 'the value of the filler columns (the decoder saturation)', {
    default: LDPC_DECODER_DEFAULTS.saturation,
  }),
};

/** The device buffers of one recovery. */
export interface RateRecoveryBuffers {
  /** float32, frames x perFrame channel LLRs ln P(0)/P(1); a frame's first n are read. */
  readonly llr: bigint;
  /** float32 out, frames x nFull: the decoder's input (LdpcCudaPlan's `llr`, float32 format). */
  readonly input: bigint;
  /** Frames. */
  readonly frames: number;
  /**
   * Optional uint8, groupFrames x perFrame, 0/1: a 1 flips the sign of the LLR at that place of a
   * frame (descrambling, 38.211 6.3.1.1), the same for every group; 0n or absent: none.
   */
  readonly signs?: bigint;
  /**
   * Frames laid out in groups (a slot's code blocks): frame f = q groupFrames + r starts at
   * q groupStride + r perFrame. Absent: one frame a group, frames perFrame apart.
   */
  readonly groups?: { readonly groupFrames: number; readonly groupStride: number };
}

/**
 * A compiled recovery for one code. enqueue() runs on `stream`, reads `llr` (and `signs`) and the
 * plan's tables and writes `input` (need not be zeroed), nothing else; the buffers must stay alive
 * until the stream has passed it. Output: column c of a frame = (saturation on the filler columns,
 * else 0) plus the frame's LLRs sent as c (sign-flipped where `signs` has a 1), added in channel
 * order in float32.
 */
export interface RateRecoveryCudaPlan {
  /** Channel LLRs a frame used (the code's n). */
  readonly n: number;
  /** LLRs from one frame's start to the next in `llr`. */
  readonly perFrame: number;
  /** Decoder inputs a frame written (the mother code's columns). */
  readonly nFull: number;
  /** The filler columns' value. */
  readonly saturation: number;
  /** The kernel (rate_recovery). */
  readonly kernel: Kernel;
  /** Queues the recovery of `frames` frames. */
  enqueue(stream: Stream, buffers: RateRecoveryBuffers): void;
  /** Frees the plan's column tables on the device (the kernel stays in the module cache). */
  free(): void;
}

/**
 * Compiles (or finds cached) the recovery of `code` and uploads its column table; typed errors for
 * bad options (a perFrame below n).
 */
export function rateRecoveryCudaPlan(
  ctx: CudaContext,
  code: LdpcCode,
  options: RateRecoveryOptions = {},
): RateRecoveryCudaPlan {
  const o = checkOptions(options, RATE_RECOVERY_SCHEMA, 'rateRecoveryCudaPlan()');
  const perFrame = o.perFrame ?? code.n;
  const saturation = o.saturation ?? LDPC_DECODER_DEFAULTS.saturation;
  if (perFrame < code.n)
    throw new InvalidArgumentError(
      `rateRecoveryCudaPlan(): perFrame = ${perFrame} is below the code's ${code.n} channel LLRs a frame`,
      { option: 'perFrame' },
    );
  const { start, col, fill } = rateRecoveryColumns(code);
  const nFull = code.H.n;
  const kernel = loadModule(ctx, {
    source: readKernelSource(new URL('./rate-recovery.cu', import.meta.url)),
    name: 'coding/gpu/rate-recovery.cu',
    defines: { RR_BLOCK },
  }).kernel('rate_recovery', [
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'i32',
    'i32',
    'i32',
    'i32',
    'i32',
    'f32',
    'ptr',
    'i32',
    'i64',
  ]);
  const tables: DeviceBuffer[] = [];
  const upload = (a: Int32Array): DeviceBuffer => {
    const b = DeviceBuffer.alloc(ctx, Math.max(4, a.byteLength));
    tables.push(b);
    b.upload(a);
    return b;
  };
  let startBuf: DeviceBuffer, colBuf: DeviceBuffer;
  try {
    startBuf = upload(start);
    colBuf = upload(col);
  } catch (e) {
    for (const b of tables) b.free();
    throw e;
  }
  return {
    n: code.n,
    perFrame,
    nFull,
    saturation,
    kernel,
    enqueue(stream, b) {
      if (!Number.isInteger(b.frames) || b.frames < 0 || b.frames > 2 ** 31 - 1)
        throw new InvalidArgumentError(`frames must be a non-negative integer below 2^31, got ${b.frames}`);
      if (b.frames === 0) return;
      const groupFrames = b.groups?.groupFrames ?? 1,
        groupStride = b.groups?.groupStride ?? perFrame;
      if (!Number.isInteger(groupFrames) || groupFrames < 1 || groupFrames > 2 ** 31 - 1)
        throw new InvalidArgumentError(`groups.groupFrames must be a positive integer, got ${groupFrames}`);
      if (!Number.isSafeInteger(groupStride) || groupStride < groupFrames * perFrame)
        throw new InvalidArgumentError(
          `groups.groupStride must be an integer of at least groupFrames x perFrame = ${groupFrames * perFrame}, got ${groupStride}`,
        );
      const grid = Math.ceil((b.frames * nFull) / RR_BLOCK);
      if (grid > 2 ** 31 - 1)
        throw new InvalidArgumentError(`${b.frames} frames x ${nFull} columns need more than 2^31 - 1 blocks`);
      kernel.launch({ grid, block: RR_BLOCK, stream }, [
        b.llr,
        startBuf.ptr,
        colBuf.ptr,
        b.input,
        b.frames,
        perFrame,
        nFull,
        fill[0],
        fill[1],
        saturation,
        b.signs ?? 0n,
        groupFrames,
        groupStride,
      ]);
    },
    free() {
      for (const b of tables.splice(0)) b.free();
    },
  };
}
