/**
 * The memory layout of a detector's WebAssembly kernel (LaneKernel): arrays taken in order, each
 * 16-byte aligned, the run's inputs (LaneInputs) first, for as many vectors (and channels) as fit
 * RUN_BYTES.
 */
import type { LaneInputs } from './detector.js';

/** Bytes a run's arrays may take (its vectors are cut to fit): small enough to stay in a core's cache between the kernel's preparation and its searches. */
const RUN_BYTES = 1 << 18;

/**
 * The input scan a lane kernel exports (input-scan.lib.as.ts's scanRun; pointers are byte offsets
 * into its memory): each channel's power of two to `shift`, 1 where the run passes detect()'s
 * checks, 0 where one fails.
 */
export interface ScanRunExport {
  scanRun(
    H: number,
    channels: number,
    hLen: number,
    y: number,
    chan: number,
    vectors: number,
    yLen: number,
    shift: number,
    scaled: number,
  ): number;
}

export class RunLayout {
  /** Vectors (and channels: at most as many) a run holds, at least 2. */
  readonly capacity: number;
  /** Bytes taken so far: the offset of the next array. */
  bytes = 0;
  /** Offsets of the inputs: H f64[capacity][hLen], y f64[capacity][yLen], noise f64[capacity], channel i32[capacity], shift i32[capacity]. */
  readonly H: number;
  readonly y: number;
  readonly noise: number;
  readonly channel: number;
  readonly shift: number;

  /** `hLen` / `yLen`: reals of a channel / a vector; `perVector`: the host's own bytes a vector (its channel's included). */
  constructor(
    private readonly hLen: number,
    private readonly yLen: number,
    perVector: number,
  ) {
    this.capacity = Math.max(2, Math.floor(RUN_BYTES / (8 * (hLen + yLen) + 16 + 48 + perVector)));
    const cap = this.capacity;
    this.H = this.take(cap * hLen * 8);
    this.y = this.take(cap * yLen * 8);
    this.noise = this.take(cap * 8);
    this.channel = this.take(cap * 4);
    this.shift = this.take(cap * 4);
  }

  /** The offset of a new array of `bytes` bytes. */
  take(bytes: number): number {
    const at = this.bytes;
    this.bytes += Math.ceil(bytes / 16) * 16;
    return at;
  }

  /** The inputs of a run of `channels` channels and `vectors` vectors, as views of `buffer`. */
  inputs(buffer: ArrayBuffer, channels: number, vectors: number): LaneInputs {
    return {
      H: new Float64Array(buffer, this.H, channels * this.hLen),
      y: new Float64Array(buffer, this.y, vectors * this.yLen),
      noise: new Float64Array(buffer, this.noise, vectors),
      channel: new Int32Array(buffer, this.channel, vectors),
      shift: new Int32Array(buffer, this.shift, channels),
    };
  }
}
