/**
 * The SSFE / N-way detectors on the WebAssembly SIMD kernel (ssfe-lanes.as.ts): two problems a
 * lane group in float64 (f64x2), channels paired in the per-channel QR, received vectors paired in
 * the searches and the max-log merge. Float64 and not float32 x 4: the kernel then repeats the
 * reference's arithmetic operation for operation (WebAssembly has no fused multiply-add), so its
 * decisions and LLRs equal search.ts's bit for bit, with no tolerance to state and no tie to break
 * differently.
 *
 * Covers square QAM without a-priori LLRs; the rest runs the TypeScript reference (lanes() says why).
 */
import { LatticeMimoError, sharedWasmKernel } from '../../../core/index.js';
import { BitMetricMinima } from '../../soft/maxlog.js';
import type { RealModel } from '../../soft/real-model.js';
import type { DetectorOutput, DetectorSetup, LaneInputs, LaneKernel } from '../detector.js';
import { RunLayout, type ScanRunExport } from '../lane-memory.js';
import { ssfePaths } from './search.js';

const KERNEL_URL = new URL('./ssfe-lanes.wasm', import.meta.url);

/** The kernel's exports (pointers are byte offsets into its memory). */
interface SsfeLanesExports extends ScanRunExport {
  prepare(
    H: number,
    channels: number,
    nr: number,
    nt: number,
    scale: number,
    passes: number,
    prep: number,
    work: number,
  ): number;
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
    passes: number,
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
  workBytes(rows: number, nd: number, q: number, nt: number, m: number): number;
}

/** Why the kernel does not take this setup, or null where it does. */
export function ssfeLanesRefusal(model: RealModel, setup: DetectorSetup): string | null {
  if (model.dimsPerStream !== 2) return `the WebAssembly kernel takes square QAM, not ${setup.modulation}`;
  if (setup.priorLlr) return 'the WebAssembly kernel takes no a-priori LLRs (priorLlr)';
  return null;
}

/**
 * `passes` SSFE passes over rotated stream orders per vector, merged (passes 1: ssfe; nt: nway's
 * default), max-log LLRs clipped at `clip` when `soft`. Nodes counted as runSsfePass counts them.
 */
export class SsfeLanes implements LaneKernel {
  readonly capacity: number;
  readonly unscaled = false;
  readonly bits = false;
  private readonly k: SsfeLanesExports;
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
  private readonly nodesPerVector: number;

  constructor(
    private readonly model: RealModel,
    private readonly passes: number,
    private readonly clip: number,
    private readonly soft: boolean,
  ) {
    const { nr, nt, rows, nd, q, bitsPerSymbol: bps } = model;
    const m = 1 << bps;
    // one pass's prep of a pair of channels (the kernel's prepStride)
    const stride = (rows * nd + nd * nd + nd) * 16;
    const hLen = 2 * nr * nt,
      nbits = nt * bps;
    // a vector with its own channel: the channel's prep, the decisions, the LLRs
    const lay = new RunLayout(hLen, rows, (passes * stride) / 2 + nt * 4 + nbits * 8 + 48);
    this.lay = lay;
    this.capacity = lay.capacity;
    const cap = this.capacity;
    const minima = new BitMetricMinima(nt, bps, model.bitTable);
    this.at = {
      sym: lay.take(q * q * 4),
      zero: lay.take(minima.withZero.length * 4),
      one: lay.take(minima.withOne.length * 4),
      prep: lay.take(Math.ceil(cap / 2) * passes * stride),
      symOut: lay.take(cap * nt * 4),
      llrOut: lay.take(cap * nbits * 8),
      work: lay.bytes,
    };
    // the scratch as the kernel counts it (workBytes), checked once instantiated
    const work = 16 * (rows * nd + nd * nd + 2 * nd * q + 8 * nd + rows) + 8 * 2 * nt * m + 4 * 4 * nt + 64;
    const instance = sharedWasmKernel<SsfeLanesExports>(KERNEL_URL, this.at.work + work);
    this.k = instance.exports;
    this.buffer = instance.buffer;
    if (this.k.prepStride(rows, nd) !== stride || this.k.workBytes(rows, nd, q, nt, m) !== work)
      throw new LatticeMimoError('CHECK_FAILED', 'ssfe-lanes: the host layout disagrees with the kernel');
    new Int32Array(this.buffer, this.at.sym, q * q).set(model.symbolOfLevels);
    // the kernel keeps its minima by level indices (Re Q + Im), not symbols
    const levelsOf = new Int32Array(q * q);
    for (let l = 0; l < q * q; l++) levelsOf[model.symbolOfLevels[l]!] = l;
    new Int32Array(this.buffer, this.at.zero, minima.withZero.length).set(minima.withZero.map((s) => levelsOf[s]!));
    new Int32Array(this.buffer, this.at.one, minima.withOne.length).set(minima.withOne.map((s) => levelsOf[s]!));
    const expanded = q + ssfePaths(nd, q) * (nd - 1);
    this.nodesPerVector = passes * expanded;
  }

  inputs(channels: number, vectors: number): LaneInputs {
    return this.lay.inputs(this.buffer, channels, vectors);
  }

  scan(channels: number, vectors: number): boolean {
    const { k, lay, model } = this;
    const { nr, nt, rows } = model;
    return k.scanRun(lay.H, channels, 2 * nr * nt, lay.y, lay.channel, vectors, rows, lay.shift, 1) === 1;
  }

  run(channels: number, vectors: number, out: DetectorOutput, v0: number): number {
    const { k, at, lay, model } = this;
    const { nr, nt, q, bitsPerSymbol: bps } = model;
    const failed = k.prepare(lay.H, channels, nr, nt, model.scale, this.passes, at.prep, at.work);
    if (failed >= 0) return -1 - failed;
    const soft = this.soft && out.llr !== null;
    k.detect(
      lay.y,
      lay.channel,
      lay.noise,
      vectors,
      at.prep,
      nr,
      nt,
      q,
      bps,
      this.passes,
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
