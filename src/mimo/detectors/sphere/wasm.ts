/**
 * The sphere decoder on its WebAssembly kernel (sphere-kernel.as.ts): the scaling, the per-channel
 * sorted complex QR and the per-vector depth-first search of a whole run in one call each, in
 * float64 with the reference's arithmetic operation for operation (cpu.ts): the same decisions,
 * node counts and budget stops. A depth-first search branches on every node, differently in every
 * vector, but most searches at a useful SNR end after their first descent and its first siblings:
 * the kernel runs those for four vectors at a time in f64x2 lanes and the rest of a search on its
 * own. It takes the caller's unscaled H and y (`unscaled`) and writes the decisions' bits (`bits`).
 *
 * Covers square QAM (the complex QR); BPSK runs the TypeScript reference (lanes() says why).
 */
import { LatticeMimoError, sharedWasmKernel } from '../../../core/index.js';
import type { RealModel } from '../../preprocess/real-system.js';
import type { LaneInputs, LaneKernel, LaneOutput } from '../detector.js';
import { RunLayout, type ScanRunExport } from '../lane-memory.js';

const KERNEL_URL = new URL('./sphere-kernel.wasm', import.meta.url);

/** The kernel's exports (pointers are byte offsets into its memory). */
interface SphereKernelExports extends ScanRunExport {
  prepare(
    H: number,
    factor: number,
    channels: number,
    nr: number,
    nt: number,
    scale: number,
    prep: number,
    work: number,
  ): number;
  scale(
    H: number,
    channels: number,
    y: number,
    chan: number,
    vectors: number,
    nr: number,
    nt: number,
    shift: number,
    factor: number,
  ): void;
  detect(
    y: number,
    factor: number,
    chan: number,
    vectors: number,
    prep: number,
    nr: number,
    nt: number,
    q: number,
    scale: number,
    babai: number,
    maxNodes: number,
    table: number,
    bitTab: number,
    bps: number,
    symOut: number,
    bitOut: number,
    stop: number,
    work: number,
  ): number;
  prepStride(nr: number, nt: number): number;
  workBytes(nr: number, nt: number): number;
}

/** Why the kernel does not take this model, or null where it does. */
export function sphereKernelRefusal(model: RealModel): string | null {
  return model.constellation.pam === null
    ? `the WebAssembly kernel takes square QAM, not ${model.constellation.modulation}`
    : null;
}

/** The search of cpu.ts's detector on the kernel: initial radius `babai` or infinity, `maxNodes` nodes a vector. */
export class SphereKernel implements LaneKernel {
  readonly capacity: number;
  readonly unscaled = true;
  readonly bits = true;
  private readonly k: SphereKernelExports;
  private readonly buffer: ArrayBuffer;
  private readonly lay: RunLayout;
  private readonly at: {
    table: number;
    factor: number;
    bitTab: number;
    prep: number;
    symOut: number;
    bitOut: number;
    stop: number;
    work: number;
  };

  constructor(
    private readonly model: RealModel,
    private readonly babai: boolean,
    private readonly maxNodes: number,
  ) {
    const { nr, nt, q } = model;
    const bps = model.constellation.bitsPerSymbol;
    const n = 2 * nt,
      hLen = 2 * nr * nt;
    // a pair of channels' prep (the kernel's prepStride): Q, rows, 1 / R_kk, weights (an entry of
    // both in 16 bytes), their two orders
    const stride = Math.ceil((16 * (hLen + n * n + 2 * n) + 8 * n) / 16) * 16;
    // a vector with its own channel: half a pair's prep, the decisions and their bits, the budget flag
    const lay = new RunLayout(hLen, 2 * nr, stride / 2 + nt * (4 + bps) + 8 + 1 + 48);
    this.lay = lay;
    this.capacity = lay.capacity;
    const cap = this.capacity;
    this.at = {
      table: lay.take(q * q * 4),
      factor: lay.take(cap * 8),
      bitTab: lay.take(q * q * 8),
      prep: lay.take(Math.ceil(cap / 2) * stride),
      symOut: lay.take(cap * nt * 4),
      bitOut: lay.take(cap * nt * bps + 8),
      stop: lay.take(cap),
      work: lay.bytes,
    };
    // the scratch as the kernel counts it (workBytes), checked once instantiated
    const work =
      8 * (2 * nt * nt + nt + n * n + 7 * n + 1 + 2 * nr) +
      4 * (8 * n + 1 + nt) +
      16 * (2 + 2 * (5 * n + 1 + 2 * nr)) +
      16 * (2 * nr * nt + 2 * nt * nt + nt) +
      64;
    const instance = sharedWasmKernel<SphereKernelExports>(KERNEL_URL, this.at.work + work);
    this.k = instance.exports;
    this.buffer = instance.buffer;
    if (this.k.prepStride(nr, nt) !== stride || this.k.workBytes(nr, nt) !== work)
      throw new LatticeMimoError('CHECK_FAILED', 'sphere-kernel: the host layout disagrees with the kernel');
    new Int32Array(this.buffer, this.at.table, q * q).set(model.constellation.symbolOfLevels!);
    // a symbol's bits in eight bytes (bps <= 8): the kernel copies them with one store
    const words = new Uint8Array(this.buffer, this.at.bitTab, q * q * 8).fill(0),
      bitTable = model.constellation.bitTable;
    for (let sym = 0; sym < q * q; sym++) words.set(bitTable.subarray(sym * bps, (sym + 1) * bps), sym * 8);
  }

  inputs(channels: number, vectors: number): LaneInputs {
    return this.lay.inputs(this.buffer, channels, vectors);
  }

  scan(channels: number, vectors: number): boolean {
    const { k, lay, model } = this;
    const { nr, nt } = model;
    return k.scanRun(lay.H, channels, 2 * nr * nt, lay.y, lay.channel, vectors, 2 * nr, lay.shift, 0) === 1;
  }

  run(channels: number, vectors: number, out: LaneOutput, v0: number): number {
    const { k, at, lay, model } = this;
    const { nr, nt, q, scale } = model;
    const bps = model.constellation.bitsPerSymbol;
    k.scale(lay.H, channels, lay.y, lay.channel, vectors, nr, nt, lay.shift, at.factor);
    const failed = k.prepare(lay.H, at.factor, channels, nr, nt, scale, at.prep, at.work);
    if (failed >= 0) return -1 - failed;
    const nodes = k.detect(
      lay.y,
      at.factor,
      lay.channel,
      vectors,
      at.prep,
      nr,
      nt,
      q,
      scale,
      this.babai ? 1 : 0,
      this.maxNodes,
      at.table,
      at.bitTab,
      bps,
      at.symOut,
      at.bitOut,
      at.stop,
      at.work,
    );
    out.symbols.set(new Int32Array(this.buffer, at.symOut, vectors * nt), v0 * nt);
    out.bits!.set(new Uint8Array(this.buffer, at.bitOut, vectors * nt * bps), v0 * nt * bps);
    out.unproven.set(new Uint8Array(this.buffer, at.stop, vectors), v0);
    return nodes;
  }
}
