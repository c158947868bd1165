/**
 * The interface every CPU detector implements (src/mimo/detectors/<name>/cpu.ts exports
 * `export const detector: CpuDetector<...>`), so detect() can dispatch to any of them.
 *
 * Life cycle, per detect() call (one batch):
 *   1. `create(setup)` once: allocate every scratch buffer the detector needs (no allocation per
 *      vector afterwards).
 *   2. `prepare(H, hOff, noiseVar)` once per channel (QR, filters, LLL, ...): H is the whole
 *      complex channel batch (interleaved re/im), the channel's nr x nt column-major matrix starts
 *      at H[hOff]. detect() calls prepare again if the noise variance changes inside a channel's
 *      group of vectors (per-vector noise), so a prepared state may depend on noiseVar. A prepared
 *      state is used only until the next prepare() on the same instance, so an instance may return
 *      the same (reused) buffers every time: no allocation per channel either.
 *   3. `detect(prep, y, yOff, noiseVar, out, v)` once per received vector: y is the whole complex
 *      vector batch, this vector's nr entries start at y[yOff]. Write the nt symbol indices to
 *      out.symbols[v * nt ..] and, when out.llr is non-null, the nt * bitsPerSymbol LLRs to
 *      out.llr[v * nt * bps ..] (stream-major, LLR = ln P(b=0|y)/P(b=1|y), positive means 0,
 *      scaled by 1/N0 with N0 the complex noise variance). Return the number of tree nodes visited
 *      (0 for detectors without a tree search). A search that stops at its node budget
 *      (setup.maxNodes) sets out.unproven[v] = 1 and writes the best symbols it found.
 *
 * detect() derives the hard bits from the symbols, applies opts.llrClip (|LLR| <= clip) and the
 * LLR_LIMIT saturation after the detector, and validates all input before any of this runs: a
 * detector may assume finite data, noiseVar >= 0 (> 0 where setup.soft) and in [2^-1000, 2^1000]
 * when > 0, a channel whose largest entry is in [1, 2) (or zero), vectors no larger than 2^500 times
 * it, shapes that match and the nr / nt rule of checkDetectorShape.
 */
import type { Constellation } from '../modulation.js';
import type { DetectOptions, Detector, Modulation } from '../types.js';

export interface DetectorSetup {
  readonly nr: number;
  readonly nt: number;
  readonly modulation: Modulation;
  readonly constellation: Constellation;
  readonly opts: DetectOptions;
  /** True when the caller wants LLRs (only asked of detectors with `soft: true`). */
  readonly soft: boolean;
  /** Node budget per received vector (validated opts.maxNodes or its default). */
  readonly maxNodes: number;
  /**
   * The batch's a-priori LLRs (DetectionInput.priorLlr, validated: vectors x nt x bitsPerSymbol,
   * vector v's at v * nt * bitsPerSymbol), given only to detectors whose traits say `priors`;
   * absent when the caller gave none.
   */
  readonly priorLlr?: Float64Array;
}

export interface DetectorOutput {
  /** vectors x nt symbol indices. */
  readonly symbols: Int32Array;
  /** vectors x nt x bitsPerSymbol LLRs, or null when no soft output is wanted. */
  readonly llr: Float64Array | null;
  /** unproven[v] = 1 when vector v's search stopped at the node budget (its symbols not proven ML). */
  readonly unproven: Uint8Array;
}

export interface DetectorInstance<P = unknown> {
  prepare(H: Float64Array, hOff: number, noiseVar: number): P;
  detect(prep: P, y: Float64Array, yOff: number, noiseVar: number, out: DetectorOutput, v: number): number;
}

/**
 * A run's input arrays in a lane kernel's memory (detect() fills them): `channels` scaled complex
 * channels (2 nr nt reals each), `vectors` scaled received vectors (2 nr reals each), each vector's
 * scaled N0 and the index of its channel among the run's.
 */
export interface LaneInputs {
  readonly H: Float64Array;
  readonly y: Float64Array;
  readonly noise: Float64Array;
  readonly channel: Int32Array;
  /** Each channel's power of two (detect()'s channelShift), for a kernel that scales its inputs itself (`unscaled`). */
  readonly shift: Int32Array;
}

/** What a lane kernel's run() writes: the detector's outputs and, where the kernel says `bits`, the decisions' bits. */
export interface LaneOutput extends DetectorOutput {
  /** vectors x nt x bitsPerSymbol bits of the symbols (null where the kernel does not write them). */
  readonly bits: Uint8Array | null;
}

/**
 * A detector's batch kernel on the CPU engine: WebAssembly SIMD, lanes over vectors, the same
 * decisions and LLRs as the detector's per-vector reference. detect() runs the batch in runs of at
 * most `capacity` vectors (and as many channels): it writes a run into inputs(), then calls run().
 */
export interface LaneKernel {
  /** Vectors a run holds. */
  readonly capacity: number;
  /**
   * true: run() takes the caller's H and y unscaled (as scan() leaves them, or as detect() copies
   * them), with each channel's power of two in `shift`, and scales them itself, exactly as detect()
   * scales (the same products), and takes no N0 (a search that ignores it); false: H and y come
   * scaled (by scan(), or by detect() for a kernel without one), with the scaled N0 (detect()'s).
   */
  readonly unscaled: boolean;
  /** Whether run() writes the bits of its decisions (out.bits); detect() otherwise derives them from the symbols. */
  readonly bits: boolean;
  /** The input arrays of a run of `channels` channels and `vectors` vectors (views of the kernel's memory). */
  inputs(channels: number, vectors: number): LaneInputs;
  /**
   * The checks and scale of a run whose inputs() hold the caller's H and y as they are and each
   * vector's channel: writes each channel's power of two (channelShift's) to `shift` and, unless
   * `unscaled`, scales H and y by it in place (scaleInto's products); false where an entry is NaN
   * or infinite or a vector is too large (firstTooLarge's bound), and detect() then names the problem.
   * Without it detect() checks the whole batch first, then writes each run (scaled unless `unscaled`).
   */
  scan?(channels: number, vectors: number): boolean;
  /**
   * Detects a run's vectors into `out` at vectors v0 ..; returns the nodes visited, or -1 - c when
   * the run's channel c cannot be prepared (detect() then lets the reference's prepare throw its error).
   */
  run(channels: number, vectors: number, out: LaneOutput, v0: number): number;
}

export interface CpuDetector<P = unknown> {
  readonly name: Detector;
  /** Whether it can produce LLRs. */
  readonly soft: boolean;
  /**
   * Its WebAssembly SIMD kernel for this setup (detect() asks where the one policy,
   * core pickCpuKernel, says 'wasm-simd'), or why the kernel does not cover the setup (a clause).
   * Absent: the detector has no kernel (its traits then have no `wasmKernel`).
   */
  lanes?(setup: DetectorSetup): LaneKernel | string;
  /**
   * Checks the sizes and options it supports (throwing UnsupportedError / InvalidArgumentError with
   * a clear message) and returns an instance holding its scratch buffers.
   */
  create(setup: DetectorSetup): DetectorInstance<P>;
}
