/**
 * The linear detectors (zf, mmse: linear.ts; sic: sic/cpu.ts) on their WebAssembly SIMD kernel
 * (linear-lanes.as.ts): a run's preparations (a channel, and for mmse and sic an N0: where the
 * reference prepares once) two at a time in f64x2 lanes (the Gram matrix, its Gauss-Jordan inverse,
 * the filters, sic's order), then its vectors two at a time (the filtering, the slicing, sic's
 * cancellation, the decisions' bits), in float64 with the reference's arithmetic operation for
 * operation: the same decisions bit for bit. It scans and scales its inputs in place (scanRun) and
 * writes the decisions' bits (`bits`).
 *
 * Covers every setup the reference takes (BPSK and square QAM, any nt and nr the detector allows).
 */
import { LatticeMimoError, sharedWasmKernel } from '../../../core/index.js';
import type { Constellation } from '../../modulation.js';
import type { LaneInputs, LaneKernel, LaneOutput } from '../detector.js';
import { RunLayout, type ScanRunExport } from '../lane-memory.js';

const KERNEL_URL = new URL('./linear-lanes.wasm', import.meta.url);

/** The kernel's exports (pointers are byte offsets into its memory). */
interface LinearLanesExports extends ScanRunExport {
  prepareLinear(
    H: number,
    chan: number,
    noise: number,
    vectors: number,
    nr: number,
    nt: number,
    mmse: number,
    group: number,
    gChan: number,
    gNoise: number,
    prep: number,
    work: number,
  ): number;
  prepareSic(
    H: number,
    chan: number,
    noise: number,
    vectors: number,
    nr: number,
    nt: number,
    group: number,
    gChan: number,
    gNoise: number,
    prep: number,
    work: number,
  ): number;
  detectLinear(
    y: number,
    vectors: number,
    group: number,
    prep: number,
    nr: number,
    nt: number,
    q: number,
    scale: number,
    table: number,
    bitTab: number,
    bps: number,
    symOut: number,
    bitOut: number,
    work: number,
  ): void;
  detectSic(
    y: number,
    vectors: number,
    group: number,
    prep: number,
    nr: number,
    nt: number,
    q: number,
    scale: number,
    table: number,
    bitTab: number,
    bps: number,
    symOut: number,
    bitOut: number,
    work: number,
  ): void;
  hypotPairs(xy: number, count: number, out: number): void;
  prepStride(nr: number, nt: number, sic: number): number;
  workBytes(nr: number, nt: number): number;
}

/** Which detector: zf (no regularization), mmse (N0 on the Gram matrix's diagonal), sic (ordered MMSE-SIC). */
export type LinearKind = 'zf' | 'mmse' | 'sic';

export class LinearLanes implements LaneKernel {
  readonly capacity: number;
  readonly unscaled = false;
  readonly bits = true;
  private readonly k: LinearLanesExports;
  private readonly buffer: ArrayBuffer;
  private readonly lay: RunLayout;
  private readonly at: {
    group: number;
    gChan: number;
    gNoise: number;
    table: number;
    bitTab: number;
    prep: number;
    symOut: number;
    bitOut: number;
    work: number;
  };

  constructor(
    private readonly kind: LinearKind,
    private readonly nr: number,
    private readonly nt: number,
    private readonly con: Constellation,
  ) {
    const bps = con.bitsPerSymbol,
      q = con.pam?.size ?? 0;
    const sic = kind === 'sic';
    // a pair of preparations: the filters and unbiasing (sic: also the order and H's columns in it)
    const stride = 16 * (sic ? 4 * nt * nr + 2 * nt : 2 * nt * nr + nt);
    const hLen = 2 * nr * nt;
    // a vector with its own preparation: half a pair's, its group entries, decisions and bits
    const lay = new RunLayout(hLen, 2 * nr, stride / 2 + 16 + nt * (4 + bps));
    this.lay = lay;
    this.capacity = lay.capacity;
    const cap = this.capacity;
    this.at = {
      group: lay.take(cap * 4),
      gChan: lay.take(cap * 4),
      gNoise: lay.take(cap * 8),
      table: lay.take(Math.max(1, q * q) * 4),
      bitTab: lay.take(con.size * 8),
      prep: lay.take(Math.ceil(cap / 2) * stride),
      symOut: lay.take(cap * nt * 4),
      bitOut: lay.take(cap * nt * bps + 8),
      work: lay.bytes,
    };
    // the scratch as the kernel counts it (workBytes), checked once instantiated
    const work = 16 * (4 * nr * nt + 4 * nt * nt + 4 * nr) + 16 * nt + 64;
    const instance = sharedWasmKernel<LinearLanesExports>(KERNEL_URL, this.at.work + work);
    this.k = instance.exports;
    this.buffer = instance.buffer;
    if (this.k.prepStride(nr, nt, sic ? 1 : 0) !== stride || this.k.workBytes(nr, nt) !== work)
      throw new LatticeMimoError('CHECK_FAILED', 'linear-lanes: the host layout disagrees with the kernel');
    if (con.symbolOfLevels) new Int32Array(this.buffer, this.at.table, q * q).set(con.symbolOfLevels);
    // a symbol's bits in eight bytes (bps <= 8): the kernel copies them with one store
    const words = new Uint8Array(this.buffer, this.at.bitTab, con.size * 8).fill(0);
    for (let sym = 0; sym < con.size; sym++) words.set(con.bitTable.subarray(sym * bps, (sym + 1) * bps), sym * 8);
  }

  inputs(channels: number, vectors: number): LaneInputs {
    return this.lay.inputs(this.buffer, channels, vectors);
  }

  scan(channels: number, vectors: number): boolean {
    const { k, lay, nr, nt } = this;
    return k.scanRun(lay.H, channels, 2 * nr * nt, lay.y, lay.channel, vectors, 2 * nr, lay.shift, 1) === 1;
  }

  run(_channels: number, vectors: number, out: LaneOutput, v0: number): number {
    const { k, at, lay, nr, nt, con } = this;
    const bps = con.bitsPerSymbol,
      q = con.pam?.size ?? 0,
      scale = con.pam?.scale ?? 1;
    const failed =
      this.kind === 'sic'
        ? k.prepareSic(lay.H, lay.channel, lay.noise, vectors, nr, nt, at.group, at.gChan, at.gNoise, at.prep, at.work)
        : k.prepareLinear(
            lay.H,
            lay.channel,
            lay.noise,
            vectors,
            nr,
            nt,
            this.kind === 'mmse' ? 1 : 0,
            at.group,
            at.gChan,
            at.gNoise,
            at.prep,
            at.work,
          );
    if (failed >= 0) return -1 - failed;
    (this.kind === 'sic' ? k.detectSic : k.detectLinear)(
      lay.y,
      vectors,
      at.group,
      at.prep,
      nr,
      nt,
      q,
      scale,
      at.table,
      at.bitTab,
      bps,
      at.symOut,
      at.bitOut,
      at.work,
    );
    out.symbols.set(new Int32Array(this.buffer, at.symOut, vectors * nt), v0 * nt);
    out.bits!.set(new Uint8Array(this.buffer, at.bitOut, vectors * nt * bps), v0 * nt * bps);
    return 0;
  }
}

/**
 * The kernel's Math.hypot(x[i], y[i]) (the pivots' magnitudes of its Gauss-Jordan inverse, which
 * choose each lane's pivot rows), for tests against Math.hypot.
 */
export function linearKernelHypot(x: Float64Array, y: Float64Array): Float64Array {
  const count = x.length + (x.length & 1);
  const instance = sharedWasmKernel<LinearLanesExports>(KERNEL_URL, 24 * count + 64);
  const xy = new Float64Array(instance.buffer, 0, 2 * count).fill(0);
  for (let i = 0; i < x.length; i++) {
    xy[2 * i] = x[i]!;
    xy[2 * i + 1] = y[i]!;
  }
  instance.exports.hypotPairs(0, count, 16 * count);
  return new Float64Array(instance.buffer, 16 * count, x.length).slice();
}
