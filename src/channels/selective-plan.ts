/**
 * What the CUDA generators of the time-varying, frequency-selective models (TDL, CDL) share: the
 * last stage, tdl/tdl-grid.cu (each (time, frequency) entry as the sum over delay slots of the slot
 * matrices times the host's per-frequency rotations), the host tables they upload, and the plan's
 * shape (draw() is the response at time and frequency 0).
 */
import { type CudaContext, DeviceBuffer, loadModule, readKernelSource, type Stream } from '../gpu/index.js';
import type { ChannelBuffers, ChannelCudaPlan, ChannelSpan, ResponsePoints } from './types.js';

const GRID_BLOCK = 256;
/** Frequencies a thread of tdl-grid.cu computes (its TDL_KB). */
const GRID_FREQUENCIES = 4;

/** The slot matrices' and rotations' sizes: count x T drops and times, F frequencies, E entries. */
export interface TapSumShape {
  readonly count: number;
  readonly T: number;
  readonly F: number;
  /** Delay slots (taps, or CDL's clusters and line of sight). */
  readonly slots: number;
  /** nr nt. */
  readonly E: number;
}

/**
 * tdl-grid.cu compiled for `ctx`: enqueue(stream, b, A, rot, shape) writes H64 and H32 (count x T x F
 * x E complex) from A (count x T x slots x E complex doubles) and rot (F x slots complex doubles).
 */
export function tapSumStage(ctx: CudaContext) {
  const kernel = loadModule(ctx, {
    source: readKernelSource(new URL('./tdl/tdl-grid.cu', import.meta.url)),
    name: 'channels/tdl/tdl-grid.cu',
    defines: { TDL_BLOCK: GRID_BLOCK },
  }).kernel('tdl_grid', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'i32']);
  return {
    enqueue(stream: Stream, b: ChannelBuffers, A: bigint, rot: bigint, s: TapSumShape): void {
      const threads = s.count * s.T * Math.ceil(s.F / GRID_FREQUENCIES) * s.E;
      kernel.launch({ grid: Math.ceil(threads / GRID_BLOCK), block: GRID_BLOCK, stream }, [
        b.H64,
        b.H32,
        A,
        rot,
        s.count,
        s.T,
        s.F,
        s.slots,
        s.E,
      ]);
    },
  };
}

/** Host tables copied to the device, held until free(). */
export class DeviceUploads {
  private readonly held: DeviceBuffer[] = [];
  constructor(private readonly ctx: CudaContext) {}
  /** A device copy of `a` (at least 8 bytes, so an empty table has an address). */
  upload(a: Float64Array | Int32Array): DeviceBuffer {
    const b = DeviceBuffer.alloc(this.ctx, Math.max(a.byteLength, 8));
    if (a.length > 0) b.upload(a);
    this.held.push(b);
    return b;
  }
  free(): void {
    for (const b of this.held.splice(0)) b.free();
  }
}

/**
 * The device tables a plan makes for a ResponsePoints, made once per points object (by its
 * identity: a link passes the same one for every launch) and held until the plan's free().
 */
export function pointTables<T>(make: (at: ResponsePoints) => T): (at: ResponsePoints) => T {
  const made = new WeakMap<ResponsePoints, T>();
  return (at) => {
    let t = made.get(at);
    if (t === undefined) {
      t = make(at);
      made.set(at, t);
    }
    return t;
  };
}

/** The plan of a selective model from its response: draw() is the response at time and frequency 0. */
export function selectivePlan(
  response: (stream: Stream, span: ChannelSpan, at: ResponsePoints, b: ChannelBuffers) => void,
  free: () => void,
): ChannelCudaPlan {
  // one object, so that a plan's per-points tables are made once for it
  const origin: ResponsePoints = { times: new Float64Array(1), freqs: new Float64Array(1) };
  return { enqueue: (stream, span, b) => response(stream, span, origin, b), enqueueResponse: response, free };
}
