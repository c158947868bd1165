/**
 * The K-best detector on its WebAssembly SIMD kernel (kbest-lanes.as.ts): two problems a lane
 * group in float64 (f64x2), channels paired in the sorted QR, received vectors paired in Q^T y,
 * every level's expansion and gather and the max-log LLRs; each lane selects its K best by
 * (metric, index) among the children at or under a bound that leaves out none of them, with
 * search.ts's tie checks and ordered second pass. Float64 arithmetic in the reference's order with
 * no fused multiply-add: the kernel's lists, decisions, LLRs and node counts equal the TypeScript
 * reference's bit for bit.
 *
 * Covers square QAM without a-priori LLRs, K x Q up to MAX_CHILDREN; the rest runs the TypeScript
 * reference (lanes() says why).
 */
import { LatticeMimoError, sharedWasmKernel } from '../../../core/index.js';
import { BitMetricMinima } from '../../soft/maxlog.js';
import type { RealModel } from '../../soft/real-model.js';
import type { DetectorOutput, DetectorSetup, LaneInputs, LaneKernel } from '../detector.js';
import { RunLayout, type ScanRunExport } from '../lane-memory.js';

const KERNEL_URL = new URL('./kbest-lanes.wasm', import.meta.url);

/** Most children (K x Q) a level of the kernel's search holds: its scratch stays within a core's cache. */
export const MAX_CHILDREN = 1 << 14;

/** The kernel's exports (pointers are byte offsets into its memory). */
interface KBestLanesExports extends ScanRunExport {
  prepare(H: number, channels: number, nr: number, nt: number, scale: number, prep: number, work: number): number;
  detect(
    y: number,
    chan: number,
    noise: number,
    vectors: number,
    prep: number,
    nr: number,
    nt: number,
    q: number,
    bps: number,
    k: number,
    clip: number,
    soft: number,
    sym: number,
    zero: number,
    one: number,
    symOut: number,
    llrOut: number,
    work: number,
  ): void;
  prepStride(rows: number, nd: number): number;
  workBytes(rows: number, nd: number, q: number, nt: number, k: number): number;
}

/** Why the kernel does not take this setup (K already capped at Q^nd), or null where it does. */
export function kbestLanesRefusal(model: RealModel, setup: DetectorSetup, k: number): string | null {
  if (model.dimsPerStream !== 2) return `the WebAssembly kernel takes square QAM, not ${setup.modulation}`;
  if (setup.priorLlr) return 'the WebAssembly kernel takes no a-priori LLRs (priorLlr; the TypeScript reference does)';
  if (k * model.q > MAX_CHILDREN)
    return `the WebAssembly kernel takes K x Q up to ${MAX_CHILDREN}, not K = ${k} of ${model.q} levels`;
  return null;
}

/** K-best with K survivors a level (at most Q^nd), max-log LLRs clipped at `clip` when `soft`; nodes `nodesPerVector` a vector. */
export class KBestLanes implements LaneKernel {
  readonly capacity: number;
  readonly unscaled = false;
  readonly bits = false;
  private readonly x: KBestLanesExports;
  private readonly buffer: ArrayBuffer;
  private readonly lay: RunLayout;
  private readonly at: {
    prep: number;
    symOut: number;
    llrOut: number;
    work: number;
    sym: number;
    zero: number;
    one: number;
  };

  constructor(
    private readonly model: RealModel,
    private readonly k: number,
    private readonly nodesPerVector: number,
    private readonly clip: number,
    private readonly soft: boolean,
  ) {
    const { nr, nt, rows, nd, q, bitsPerSymbol: bps } = model;
    // a pair of channels' prep (the kernel's prepStride)
    const stride = (rows * nd + nd * nd) * 16 + Math.ceil((2 * nd * 4) / 16) * 16;
    const hLen = 2 * nr * nt,
      nbits = nt * bps;
    // a vector with its own channel: the channel's prep, the decisions, the LLRs
    const lay = new RunLayout(hLen, rows, stride / 2 + nt * 4 + nbits * 8 + 48);
    this.lay = lay;
    this.capacity = lay.capacity;
    const cap = this.capacity;
    const minima = new BitMetricMinima(nt, bps, model.bitTable);
    this.at = {
      sym: lay.take(q * q * 4),
      zero: lay.take(minima.withZero.length * 4),
      one: lay.take(minima.withOne.length * 4),
      prep: lay.take(Math.ceil(cap / 2) * stride),
      symOut: lay.take(cap * nt * 4),
      llrOut: lay.take(cap * nbits * 8),
      work: lay.bytes,
    };
    // the scratch as the kernel counts it (workBytes), checked once instantiated
    const v = nd * nd + nd + 2 * k * nd + 2 * k + k * q + nt * q * q + 1;
    const work = 16 * v + 4 * (2 * k * q + 4 * nt + 2 * nd) + 64;
    const instance = sharedWasmKernel<KBestLanesExports>(KERNEL_URL, this.at.work + work);
    this.x = instance.exports;
    this.buffer = instance.buffer;
    if (this.x.prepStride(rows, nd) !== stride || this.x.workBytes(rows, nd, q, nt, k) !== work)
      throw new LatticeMimoError('CHECK_FAILED', 'kbest-lanes: the host layout disagrees with the kernel');
    new Int32Array(this.buffer, this.at.sym, q * q).set(model.symbolOfLevels);
    // the kernel keeps its minima by level indices (Re Q + Im), not symbols
    const levelsOf = new Int32Array(q * q);
    for (let l = 0; l < q * q; l++) levelsOf[model.symbolOfLevels[l]!] = l;
    new Int32Array(this.buffer, this.at.zero, minima.withZero.length).set(minima.withZero.map((s) => levelsOf[s]!));
    new Int32Array(this.buffer, this.at.one, minima.withOne.length).set(minima.withOne.map((s) => levelsOf[s]!));
  }

  inputs(channels: number, vectors: number): LaneInputs {
    return this.lay.inputs(this.buffer, channels, vectors);
  }

  scan(channels: number, vectors: number): boolean {
    const { x, lay, model } = this;
    const { nr, nt, rows } = model;
    return x.scanRun(lay.H, channels, 2 * nr * nt, lay.y, lay.channel, vectors, rows, lay.shift, 1) === 1;
  }

  run(channels: number, vectors: number, out: DetectorOutput, v0: number): number {
    const { x, at, lay, model } = this;
    const { nr, nt, q, bitsPerSymbol: bps } = model;
    const failed = x.prepare(lay.H, channels, nr, nt, model.scale, at.prep, at.work);
    if (failed >= 0) return -1 - failed;
    const soft = this.soft && out.llr !== null;
    x.detect(
      lay.y,
      lay.channel,
      lay.noise,
      vectors,
      at.prep,
      nr,
      nt,
      q,
      bps,
      this.k,
      this.clip,
      soft ? 1 : 0,
      at.sym,
      at.zero,
      at.one,
      at.symOut,
      at.llrOut,
      at.work,
    );
    out.symbols.set(new Int32Array(this.buffer, at.symOut, vectors * nt), v0 * nt);
    if (soft) out.llr!.set(new Float64Array(this.buffer, at.llrOut, vectors * nt * bps), v0 * nt * bps);
    return vectors * this.nodesPerVector;
  }
}
