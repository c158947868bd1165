/**
 * The fixed-point arithmetics of the layered min-sum decoders ('int8', 'int16'), and the TypeScript
 * reference decoder of that arithmetic: one frame at a time, bit for bit what the WebAssembly SIMD
 * kernel (wasm/layered-min-sum.as.ts) computes in each of its lanes, and the fallback where the
 * runtime has no WebAssembly SIMD.
 *
 * The arithmetic, for a format of `bits` bits (max = 2^(bits-1) - 1) and LSB 1/scale LLR:
 * - channel LLR v -> floor(clamp(v, -clip, clip) * scale + 0.5) in float64 (Math.round but for
 *   the one double below 0.5 whose sum with 0.5 rounds to 1), clip = min(saturation, max / scale);
 * - every addition and subtraction saturates to [-max - 1, max] (the lanes' saturating ops);
 * - a row's extrinsic inputs q_e = sat(L - R_e); the two smallest |q| (min1, min2) start at satQ =
 *   min(round(saturation * scale), max); message magnitude max(0, min - betaQ) * alphaQ >> 8 (alphaQ
 *   = round(alpha * 256) for 'nms', 256 for 'oms'; betaQ = round(beta * scale) for 'oms', 0 for
 *   'nms'), min2's on the edge whose |q| equals min1; sign the product of the others' signs;
 *   L = sat(q + R_e);
 * - hard decision 1 where L < 0; a frame is done when every check is satisfied.
 * 'int16' uses the reference decoder's scale (16) and clip: while (column degree + 1) x satQ stays
 * within 32767 no sum saturates, and its decisions and posteriors are the 'float' decoder's exactly
 * (every WiMAX and NR code at the default saturation 64: NR's largest column degree is 30).
 * 'int8' uses LSB 1/4 LLR (posteriors to +-31.75): 16 frames a vector, FER within statistical error
 * of 'float' (test/coding/fixed-point-min-sum.test.ts; docs/WASM-KERNELS.md).
 */
import { InvalidInputError } from '../core/index.js';
import type { ResolvedDecoderOptions } from './decoder.js';
import { maxRowDegree, type SparseParityCheck } from './types.js';

/** Fills `into` (n entries) with frame f's channel LLRs on the code's columns. */
export type FrameLoad = (frame: number, into: Float64Array) => void;

/**
 * What a fixed-point batch decoder hands back for each frame: its index, the iterations run
 * (negated when the final syndrome is not zero), its hard decisions (at least the columns the
 * caller asked decodeFrames for, from column 0), and a getter of its n extrinsic LLRs (the
 * posterior less the input as quantized, over the format's scale: the float decoder's rule), both
 * valid during the call only.
 */
export type FrameDone = (
  frame: number,
  iterations: number,
  decisions: Uint8Array,
  extrinsic: () => Float64Array,
) => void;

/** The min-sum decoders' arithmetics: the reference ('float': int32 at 1/16 LLR), and saturating 16- and 8-bit lanes. */
export type MinSumArithmetic = 'float' | 'int16' | 'int8';

/** Every {@link MinSumArithmetic}, the reference first. */
export const MIN_SUM_ARITHMETICS: readonly MinSumArithmetic[] = ['float', 'int16', 'int8'];

/** A fixed-point arithmetic: lane width, frames a 128-bit vector, LSB (1/scale LLR), largest value. */
export interface FixedPointFormat {
  /** 'int8' or 'int16'. */
  readonly arithmetic: 'int8' | 'int16';
  /** Bytes a lane (1 or 2). */
  readonly bytes: 1 | 2;
  /** Frames a v128 (16 or 8). */
  readonly lanes: 16 | 8;
  /** Fixed-point units per LLR unit. */
  readonly scale: number;
  /** Largest value, 2^(bits-1) - 1 (saturating ops give -max - 1 .. max). */
  readonly max: number;
}

/** LSB of 'int8': 1/4 LLR (2 fractional bits; posteriors saturate at +-31.75). */
export const LDPC_INT8_SCALE = 4;
/** LSB of 'int16': 1/16 LLR, the reference decoder's LDPC_MIN_SUM_SCALE. */
export const LDPC_INT16_SCALE = 16;

/** The format of a fixed-point arithmetic. */
export function fixedPointFormat(arithmetic: 'int8' | 'int16'): FixedPointFormat {
  return arithmetic === 'int8'
    ? { arithmetic, bytes: 1, lanes: 16, scale: LDPC_INT8_SCALE, max: 127 }
    : { arithmetic, bytes: 2, lanes: 8, scale: LDPC_INT16_SCALE, max: 32767 };
}

/** The integer constants of one setting in one format (see the module comment). */
export interface FixedPointConstants {
  /** Channel clip in LLR units. */
  readonly clip: number;
  /** Message clip (the minima's start), in fixed point. */
  readonly satQ: number;
  /** Normalization numerator over 256. */
  readonly alphaQ: number;
  /** Offset, in fixed point (at most 2 max + 1: any larger zeroes every message alike). */
  readonly betaQ: number;
}

/** The constants of a min-sum setting in a format. */
export function fixedPointConstants(format: FixedPointFormat, o: ResolvedDecoderOptions): FixedPointConstants {
  const { scale, max } = format;
  return {
    clip: Math.min(o.saturation, max / scale),
    satQ: Math.min(Math.round(o.saturation * scale), max),
    alphaQ: o.algorithm === 'nms' ? Math.round(o.alpha * 256) : 256,
    betaQ: o.algorithm === 'oms' ? Math.min(Math.round(o.beta * scale), 2 * max + 1) : 0,
  };
}

/**
 * Layered min-sum in a fixed-point format, one frame at a time, in TypeScript: the reference of the
 * SIMD kernel and its fallback. run() has LdpcDecoder.run's contract.
 */
export class FixedPointMinSumDecoder {
  /** Code length n. */
  readonly n: number;
  /** The format. */
  readonly format: FixedPointFormat;
  /** The setting's integer constants. */
  readonly constants: FixedPointConstants;
  private readonly H: SparseParityCheck;
  private readonly options: ResolvedDecoderOptions;
  private readonly L: Int32Array;
  private readonly L0: Int32Array;
  private readonly R: Int32Array;
  private readonly q: Int32Array;
  private readonly hard: Uint8Array;

  /** State for H (already checked by the caller) and a min-sum setting. */
  constructor(H: SparseParityCheck, options: ResolvedDecoderOptions, format: FixedPointFormat) {
    this.H = H;
    this.n = H.n;
    this.options = options;
    this.format = format;
    this.constants = fixedPointConstants(format, options);
    const dmax = maxRowDegree(H);
    this.L = new Int32Array(H.n);
    this.L0 = new Int32Array(H.n);
    this.R = new Int32Array(H.col.length);
    this.q = new Int32Array(dmax);
    this.hard = new Uint8Array(H.n);
  }

  /** The frame's channel LLRs in fixed point, as the decoder takes them (into `out`, n entries). */
  quantize(llr: ArrayLike<number>, offset: number, out: Int32Array): void {
    const { clip } = this.constants;
    const { scale } = this.format;
    for (let i = 0; i < this.n; i++) {
      const v = llr[offset + i]!;
      if (!Number.isFinite(v))
        throw new InvalidInputError('NON_FINITE', `LLR ${i} of the frame at offset ${offset} is ${v}`, {
          index: offset + i,
        });
      out[i] = Math.floor((v > clip ? clip : v < -clip ? -clip : v) * scale + 0.5);
    }
  }

  /**
   * Decodes `frames` frames one after another, as SimdMinSumDecoder.decodeFrames does in lanes:
   * load(f, into) gives frame f's n LLRs, done(f, iterations, decisions, extrinsic) takes its results
   * (all n decisions, whatever `_columns` asks).
   */
  decodeFrames(frames: number, load: FrameLoad, done: FrameDone, _columns = this.n): void {
    const input = (this.staging ??= new Float64Array(this.n));
    for (let f = 0; f < frames; f++) {
      load(f, input);
      const it = this.run(input, 0);
      done(f, it, this.hard, this.extrinsic);
    }
  }

  private staging?: Float64Array;

  /** The last run()'s extrinsic LLRs: (posterior - quantized input) / scale. */
  private readonly extrinsic = (): Float64Array => {
    const ext = (this.ext ??= new Float64Array(this.n));
    const { L, L0 } = this;
    const { scale } = this.format;
    for (let i = 0; i < this.n; i++) ext[i] = (L[i]! - L0[i]!) / scale;
    return ext;
  };

  private ext?: Float64Array;

  /** Decodes llr[offset .. offset + n); iterations run, negated when the final syndrome is not zero. */
  run(llr: ArrayLike<number>, offset: number): number {
    const { maxIterations, earlyStop } = this.options;
    this.quantize(llr, offset, this.L);
    this.L0.set(this.L);
    this.R.fill(0);
    let it = 0,
      ok = false;
    while (it < maxIterations) {
      it++;
      this.pass();
      if (earlyStop || it === maxIterations) {
        ok = this.syndromeZero();
        if (ok && earlyStop) break;
      }
    }
    const { L, hard } = this;
    for (let i = 0; i < this.n; i++) hard[i] = L[i]! < 0 ? 1 : 0;
    return ok ? it : -it;
  }

  /** The hard decisions of the last run() (n entries, 0/1). */
  get decisions(): Uint8Array {
    return this.hard;
  }

  /** The posteriors of the last run(), in fixed point (n entries; LLR = value / format.scale). */
  get posteriors(): Int32Array {
    return this.L;
  }

  /** The input of the last run() as quantized (n entries, fixed point). */
  get input(): Int32Array {
    return this.L0;
  }

  private syndromeZero(): boolean {
    const { rowStart, col, m } = this.H;
    const L = this.L;
    for (let r = 0; r < m; r++) {
      let x = 0;
      for (let e = rowStart[r]!; e < rowStart[r + 1]!; e++) x ^= L[col[e]!]! >>> 31;
      if (x) return false;
    }
    return true;
  }

  private pass(): void {
    const { rowStart, col, m } = this.H;
    const { L, R, q } = this;
    const { satQ, alphaQ, betaQ } = this.constants;
    const hi = this.format.max,
      lo = -hi - 1;
    for (let r = 0; r < m; r++) {
      const a = rowStart[r]!,
        b = rowStart[r + 1]!;
      let min1 = satQ,
        min2 = satQ,
        sgn = 0;
      for (let e = a; e < b; e++) {
        let v = L[col[e]!]! - R[e]!;
        v = v > hi ? hi : v < lo ? lo : v;
        q[e - a] = v;
        const mag = v < 0 ? -v : v;
        if (v < 0) sgn ^= 1;
        if (mag < min1) {
          min2 = min1;
          min1 = mag;
        } else if (mag < min2) min2 = mag;
      }
      const m1 = (Math.max(0, min1 - betaQ) * alphaQ) >> 8;
      const m2 = (Math.max(0, min2 - betaQ) * alphaQ) >> 8;
      for (let e = a; e < b; e++) {
        const v = q[e - a]!;
        const t = (v < 0 ? -v : v) === min1 ? m2 : m1;
        const rn = sgn ^ (v < 0 ? 1 : 0) ? -t : t;
        R[e] = rn;
        const w = v + rn;
        L[col[e]!] = w > hi ? hi : w < lo ? lo : w;
      }
    }
  }
}
