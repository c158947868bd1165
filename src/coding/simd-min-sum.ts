/**
 * Layered min-sum on the WebAssembly SIMD kernel (wasm/layered-min-sum.as.ts): 16 frames in i8x16
 * lanes ('int8') or 8 in i16x8 lanes ('int16'), two such vectors a column (32 or 16 frames in
 * flight), each lane computing fixed-point-min-sum.ts's arithmetic bit for bit. With early stop
 * each lane stops on its own frame's zero syndrome and takes the next frame at once (lane refill),
 * so a slow frame holds up no other; without it, frames go in groups of the two vectors' lanes for
 * the full iteration count.
 */
import { InvalidInputError, instantiateWasmKernel } from '../core/index.js';
import type { ResolvedDecoderOptions } from './decoder.js';
import {
  type FixedPointFormat,
  type FixedPointConstants,
  type FrameDone,
  type FrameLoad,
  fixedPointConstants,
} from './fixed-point-min-sum.js';
import { maxRowDegree, type SparseParityCheck } from './types.js';

/**
 * One layered iteration over H's m rows on two groups of frames, two vectors a column: addr the
 * edges' column addresses in group 0's L (row order), group 1's posteriors 16 bytes further (a
 * column's two vectors side by side: {@link COLUMN}), an edge's two message vectors side by side in R.
 */
type WideKernel = (
  rowStart: number,
  addr: number,
  m: number,
  R: number,
  Q: number,
  alphaQ: number,
  betaQ: number,
  satQ: number,
) => void;

/** The kernel's exports (pointers are byte offsets into its memory). */
interface LayeredMinSumKernel {
  wide8: WideKernel;
  wide8ThreeQuarters: WideKernel;
  wide8Offset: WideKernel;
  wide16: WideKernel;
  wide16ThreeQuarters: WideKernel;
  wide16Offset: WideKernel;
  wide8First: WideKernel;
  wide8ThreeQuartersFirst: WideKernel;
  wide8OffsetFirst: WideKernel;
  wide16First: WideKernel;
  wide16ThreeQuartersFirst: WideKernel;
  wide16OffsetFirst: WideKernel;
  syndrome8(rowStart: number, addr: number, m: number): number;
  syndrome16(rowStart: number, addr: number, m: number): number;
  quantize(input: number, n: number, out: number, clip: number, scale: number, bytes: number): number;
  gather(values: number, map: number, runs: number, E: number, out: number): void;
  recover(
    channel: number,
    E: number,
    map: number,
    runs: number,
    input: number,
    n: number,
    fillFrom: number,
    fillTo: number,
    fillValue: number,
  ): number;
  interleave(bytes: number, frames: number, count: number, n: number, L: number): void;
  insertLane(lane: number, bytes: number, frame: number, n: number, L: number): void;
  clearLane(lane: number, bytes: number, R: number, edges: number, step: number): void;
  hardLane(lane: number, bytes: number, L: number, n: number, bits: number): void;
  hardAll(bytes: number, L: number, n: number, cols: number, count: number, bits: number, scratch: number): void;
  extrinsic(lane: number, bytes: number, L: number, n: number, frame: number, inverse: number, out: number): void;
}

const KERNEL_URL = new URL('./wasm/layered-min-sum.wasm', import.meta.url);

/** Byte offsets of the kernel's arrays in its memory (each 16-byte aligned). */
interface Layout {
  rowStart: number;
  rowAddr: number;
  L: number;
  R: number;
  Q: number;
  input: number;
  channel: number;
  map: number;
  frames: number;
  bits: number;
  values: number;
  scratch: number;
  bytes: number;
}

/**
 * Groups of a vector's lanes decoded together, two vectors a column (32 frames for 'int8', 16 for
 * 'int16'): each edge's address load, pointer steps and loop test serve both vectors, and two
 * minimum chains run side by side.
 */
const GROUPS = 2;

/**
 * Bytes from one column's posteriors to the next's in L: its GROUPS vectors side by side (group g's
 * at 16 g), so that an edge's loads share a cache line (the kernel's COLUMN).
 */
const COLUMN = 16 * GROUPS;

/**
 * The passes of a format and setting (`first` for fresh frames, whose messages are all 0: R is
 * written, not read, so it needs no clearing): the kernel has one a normalization of the message
 * magnitude, all computing max(0, m - betaQ) * alphaQ >> 8: 'ThreeQuarters' for alphaQ 192 without
 * offset (nms at alpha 3/4, the default: floor(3 m / 4) in the lanes), 'Offset' for alphaQ 256 (the
 * offset alone), and the plain one (widened multiplies) for any other.
 */
function passKernels(
  k: LayeredMinSumKernel,
  format: FixedPointFormat,
  c: FixedPointConstants,
): { pass: WideKernel; first: WideKernel } {
  const norm = c.alphaQ === 192 && c.betaQ === 0 ? 'ThreeQuarters' : c.alphaQ === 256 ? 'Offset' : '';
  const name = `wide${format.bytes === 1 ? 8 : 16}${norm}` as 'wide8' | 'wide16';
  return { pass: k[name], first: k[`${name}First`] };
}

/**
 * How a frame's channel LLRs become the decoder's inputs, where its channel bits are not the code's
 * columns (NR's rate matching): every input 0 but columns fillFrom .. fillTo - 1 (known bits, at
 * fillValue), then input[map[k]] += llr[k] for each of the E = map.length channel LLRs in order.
 */
export interface ChannelMap {
  readonly map: Int32Array;
  readonly fillFrom: number;
  readonly fillTo: number;
  readonly fillValue: number;
}

/**
 * A channel map's runs of consecutive columns, in channel order: (first channel bit, first column,
 * length) triples.
 */
function columnRuns(map: Int32Array): Int32Array {
  const runs: number[] = [];
  for (let k = 0; k < map.length; ) {
    let end = k + 1;
    while (end < map.length && map[end] === map[end - 1]! + 1) end++;
    runs.push(k, map[k]!, end - k);
    k = end;
  }
  return Int32Array.from(runs);
}

/** The kernel's memory for H (and a channel map's E LLRs and columns): L and R hold GROUPS vectors a column and an edge. */
function layout(H: SparseParityCheck, dmax: number, E: number): Layout {
  let at = 0;
  const take = (bytes: number): number => {
    const p = at;
    at += Math.ceil(bytes / 16) * 16;
    return p;
  };
  const edges = H.col.length;
  return {
    rowStart: take(4 * (H.m + 1)),
    rowAddr: take(4 * edges),
    L: take(COLUMN * H.n),
    R: take(16 * edges * GROUPS),
    Q: take(16 * GROUPS * dmax),
    input: take(8 * H.n),
    channel: take(8 * E),
    // The map, or its runs: 3 i32 a run, fewer than E / 4 runs.
    map: take(4 * E),
    // Quantized frames at the lanes' width: 16 bytes a column either way.
    frames: take(16 * H.n * GROUPS),
    bits: take(16 * H.n * GROUPS),
    values: take(8 * H.n),
    scratch: take(256),
    get bytes() {
      return at;
    },
  };
}

/** The SIMD decoder of one parity check, setting and format; its memory is allocated once. */
export class SimdMinSumDecoder {
  /** Code length n. */
  readonly n: number;
  /** The format (lanes a vector). */
  readonly format: FixedPointFormat;
  /** The setting's integer constants. */
  readonly constants: FixedPointConstants;
  private readonly H: SparseParityCheck;
  private readonly options: ResolvedDecoderOptions;
  private readonly k: LayeredMinSumKernel;
  private readonly at: Layout;
  private readonly buffer: ArrayBuffer;
  private readonly input: Float64Array;
  /** Lane l's hard decisions on the decode's `columns` columns (lane 0's are also hardLane's output). */
  private laneBits: Uint8Array[] = [];
  private readonly values: Float64Array;
  /** Frames in flight: format.lanes * GROUPS. */
  private readonly lanes: number;
  /** Bytes of L: every column's GROUPS vectors. */
  private readonly lBytes: number;
  /** The passes of this format and setting ({@link passKernels}). */
  private readonly passes: { pass: WideKernel; first: WideKernel };
  /** Bytes of R: a vector an edge and group. */
  private readonly rBytes: number;

  /** The channel map, when the kernel rate-recovers ({@link channelLoad}). */
  private readonly channel?: ChannelMap;
  private readonly channelLlrs?: Float64Array;
  /** Runs of the channel map in the kernel's memory (0: the map itself). */
  private readonly runs: number = 0;

  /**
   * Compiles (once a process) and instantiates the kernel, and lays H out in its memory (and
   * `channel`'s map, for {@link channelLoad}).
   */
  constructor(H: SparseParityCheck, options: ResolvedDecoderOptions, format: FixedPointFormat, channel?: ChannelMap) {
    this.H = H;
    this.n = H.n;
    this.options = options;
    this.format = format;
    this.constants = fixedPointConstants(format, options);
    const dmax = maxRowDegree(H);
    this.lanes = format.lanes * GROUPS;
    this.lBytes = COLUMN * H.n;
    this.rBytes = 16 * H.col.length * GROUPS;
    this.at = layout(H, dmax, channel?.map.length ?? 0);
    const instance = instantiateWasmKernel<LayeredMinSumKernel>(KERNEL_URL, this.at.bytes);
    this.k = instance.exports;
    this.passes = passKernels(this.k, format, this.constants);
    this.buffer = instance.buffer;
    const buf = this.buffer;
    new Int32Array(buf, this.at.rowStart, H.m + 1).set(H.rowStart);
    // Byte addresses of the edges' columns in group 0's L, in row order (the pass's and the syndrome's).
    const rowAddr = new Int32Array(buf, this.at.rowAddr, H.col.length);
    for (let e = 0; e < H.col.length; e++) rowAddr[e] = this.at.L + H.col[e]! * COLUMN;
    this.input = new Float64Array(buf, this.at.input, H.n);
    this.values = new Float64Array(buf, this.at.values, H.n);
    if (channel) {
      this.channel = channel;
      const runs = columnRuns(channel.map);
      // Runs where they are long (NR without a bit interleaver: a few runs a frame), else the map.
      if (runs.length / 3 < channel.map.length / 4) {
        new Int32Array(buf, this.at.map, runs.length).set(runs);
        this.runs = runs.length / 3;
      } else new Int32Array(buf, this.at.map, channel.map.length).set(channel.map);
      this.channelLlrs = new Float64Array(buf, this.at.channel, channel.map.length);
    }
  }

  /**
   * A FrameLoad of frame f's E channel LLRs in `llr` (E = the channel map's length, frame after
   * frame) that rate-recovers in the kernel: the LLRs copied in, then the channel map's sums in the
   * same order and float64 arithmetic as the host's, into the kernel's input (copied out to any
   * other target: between decodeFrames's loads that input is free). A frame with an LLR that is not
   * finite goes to `fallback`, which names it; `fallback` must fill `into` as the channel map says.
   */
  channelLoad(llr: Float64Array, fallback: FrameLoad): FrameLoad {
    const { channel, channelLlrs, at } = this;
    if (!channel || !channelLlrs) return fallback;
    const E = channel.map.length;
    const { fillFrom, fillTo, fillValue } = channel;
    return (f, into) => {
      if ((f + 1) * E > llr.length || into.length !== this.n) return fallback(f, into);
      channelLlrs.set(llr.subarray(f * E, (f + 1) * E));
      if (!this.k.recover(at.channel, E, at.map, this.runs, at.input, this.n, fillFrom, fillTo, fillValue))
        return fallback(f, into);
      if (into !== this.input) into.set(this.input);
    };
  }

  /**
   * The extrinsic LLRs the frame's getter gave last (decodeFrames's done()), on the E channel bits
   * of the channel map (out[at + k] = value of column map[k]: a rate-matched code's channel LLRs),
   * gathered in the kernel; false, nothing written, without a channel map.
   */
  extrinsicToChannel(out: Float64Array, at: number): boolean {
    const { channel, channelLlrs } = this;
    if (!channel || !channelLlrs) return false;
    this.k.gather(this.at.values, this.at.map, this.runs, channelLlrs.length, this.at.channel);
    out.set(channelLlrs, at);
    return true;
  }

  /**
   * Decodes `frames` frames: load(f, into) gives frame f's LLRs, done(f, ...) takes its results,
   * frames in any order (each when its lane finishes); its decisions cover columns 0 .. columns - 1
   * (those the caller reads: the rest are not computed).
   */
  decodeFrames(frames: number, load: FrameLoad, done: FrameDone, columns = this.n): void {
    if (this.laneBits[0]?.length !== columns) {
      const buf = this.buffer;
      this.laneBits = Array.from(
        { length: this.lanes },
        (_, l) => new Uint8Array(buf, this.at.bits + l * this.n, columns),
      );
    }
    if (this.options.earlyStop) this.refilling(frames, load, done);
    else this.grouped(frames, load, done);
  }

  /** One layered iteration; `first` when every message is 0 (fresh frames in every lane). */
  private pass(first = false): void {
    const { at, H } = this;
    const { alphaQ, betaQ, satQ } = this.constants;
    (first ? this.passes.first : this.passes.pass)(at.rowStart, at.rowAddr, H.m, at.R, at.Q, alphaQ, betaQ, satQ);
  }

  /** Bit l set where lane l's decisions break a check (lane l: lane l % format.lanes of group l / format.lanes). */
  private syndrome(): number {
    const { k, at, H } = this;
    return (this.format.bytes === 1 ? k.syndrome8 : k.syndrome16)(at.rowStart, at.rowAddr, H.m);
  }

  /**
   * Group g's posteriors, COLUMN bytes a column (lane l of the decoder is lane l % format.lanes of
   * group l / format.lanes).
   */
  private groupL(g: number): number {
    return this.at.L + 16 * g;
  }

  /** Frame `frame`'s LLRs, loaded and quantized into slot `slot` of the frames area. */
  private quantize(frame: number, slot: number, load: FrameLoad): void {
    load(frame, this.input);
    const bad = this.k.quantize(
      this.at.input,
      this.n,
      this.at.frames + this.format.bytes * this.n * slot,
      this.constants.clip,
      this.format.scale,
      this.format.bytes,
    );
    if (bad >= 0)
      throw new InvalidInputError('NON_FINITE', `LLR ${bad} of frame ${frame} is ${this.input[bad]}`, {
        frame,
        index: bad,
      });
  }

  /** Frame `frame` into lane `lane` of L (its messages left as they are). */
  private loadLane(lane: number, frame: number, load: FrameLoad): void {
    const v = this.format.lanes;
    this.quantize(frame, lane, load);
    this.k.insertLane(lane % v, this.format.bytes, this.slot(lane), this.n, this.groupL(Math.floor(lane / v)));
  }

  /** The lane whose extrinsic LLRs {@link extrinsic} computes: finish()'s, during its done() call. */
  private doneLane = 0;

  /**
   * The extrinsic LLRs of lane doneLane, from its posteriors and its quantized input (the frames
   * area's slot of the lane), one getter for every frame (no closure a frame).
   */
  private readonly extrinsic = (): Float64Array => {
    const { bytes, lanes: v, scale } = this.format;
    const lane = this.doneLane;
    const L = this.groupL(Math.floor(lane / v));
    // The formats' scales are powers of two: d x (1 / scale) is d / scale exactly.
    this.k.extrinsic(lane % v, bytes, L, this.n, this.slot(lane), 1 / scale, this.at.values);
    return this.values;
  };

  /** Where lane `lane`'s quantized input lies in the frames area. */
  private slot(lane: number): number {
    return this.at.frames + this.format.bytes * this.n * lane;
  }

  /** Lane `lane`'s results to done(); its decisions already at laneBits[at] unless `at` is omitted. */
  private finish(lane: number, frame: number, iterations: number, done: FrameDone, at?: number): void {
    const v = this.format.lanes;
    if (at === undefined)
      this.k.hardLane(
        lane % v,
        this.format.bytes,
        this.groupL(Math.floor(lane / v)),
        this.laneBits[0]!.length,
        this.at.bits,
      );
    this.doneLane = lane;
    done(frame, iterations, this.laneBits[at ?? 0]!, this.extrinsic);
  }

  private clearState(): void {
    const buf = new Uint8Array(this.buffer);
    buf.fill(0, this.at.L, this.at.L + this.lBytes);
    buf.fill(0, this.at.R, this.at.R + this.rBytes);
  }

  private grouped(frames: number, load: FrameLoad, done: FrameDone): void {
    const { lanes, n } = this;
    const { bytes, lanes: v } = this.format;
    const its = this.options.maxIterations;
    for (let f0 = 0; f0 < frames; f0 += lanes) {
      const count = Math.min(lanes, frames - f0);
      for (let l = 0; l < count; l++) this.quantize(f0 + l, l, load);
      // Group g takes lanes g v .. g v + v - 1 (a group past the frames gets zeros).
      for (let g = 0; g < GROUPS; g++) {
        const c = Math.max(0, Math.min(v, count - g * v));
        this.k.interleave(bytes, this.at.frames + bytes * n * g * v, c, n, this.groupL(g));
      }
      // Fresh frames in every lane: the first pass takes every message as 0 (R not cleared, not read).
      for (let it = 0; it < its; it++) this.pass(it === 0);
      const bad = this.syndrome();
      this.k.hardAll(bytes, this.at.L, n, this.laneBits[0]!.length, count, this.at.bits, this.at.scratch);
      for (let l = 0; l < count; l++) this.finish(l, f0 + l, (bad >> l) & 1 ? -its : its, done, l);
    }
  }

  private refilling(frames: number, load: FrameLoad, done: FrameDone): void {
    const lanes = this.lanes;
    const v = this.format.lanes;
    const its = this.options.maxIterations;
    const edges = this.H.col.length;
    const frameOf = new Int32Array(lanes).fill(-1);
    const itOf = new Int32Array(lanes);
    this.clearState();
    let next = 0,
      active = 0;
    for (let l = 0; l < lanes && next < frames; l++, next++, active++) {
      frameOf[l] = next;
      this.loadLane(l, next, load);
    }
    while (active > 0) {
      this.pass();
      const bad = this.syndrome();
      for (let l = 0; l < lanes; l++) {
        const f = frameOf[l]!;
        if (f < 0) continue;
        const it = ++itOf[l]!;
        const ok = ((bad >> l) & 1) === 0;
        if (!ok && it < its) continue;
        this.finish(l, f, ok ? it : -it, done);
        if (next < frames) {
          frameOf[l] = next;
          itOf[l] = 0;
          this.loadLane(l, next++, load);
          this.k.clearLane(l % v, this.format.bytes, this.at.R + 16 * Math.floor(l / v), edges, 16 * GROUPS);
        } else {
          frameOf[l] = -1;
          active--;
        }
      }
    }
  }
}
