/**
 * The lattice-aided detectors' batch path (a LaneKernel of detect()'s CPU engine): the bases of a
 * run's channels reduced together by the lattice part's WebAssembly LLL kernel (lllBatchInPlace, one
 * call a run), then per channel the QR and reduced-domain filter and per vector the variant's
 * estimate, with lattice-aided.ts's code. The kernel's reduced bases and transforms are the
 * TypeScript LLL's bit for bit, so the decisions are the per-channel reference's.
 *
 * A run's vectors are cut into groups the reference prepares once: consecutive vectors of one
 * channel and, for the MMSE variants (whose basis holds beta of N0), of one N0.
 */
import { lllBatchInPlace } from '../../../lattice/index.js';
import type { RealModel } from '../../soft/real-model.js';
import type { LaneInputs, LaneKernel, LaneOutput } from '../detector.js';
import {
  detectLr,
  fillLrBasis,
  finishLr,
  LR_LLL_PARAMS,
  LrPrepScratch,
  LrScratch,
  type LrVariant,
} from './lattice-aided.js';

/** Reals a run's arrays may hold (its vectors are cut to fit): the bases stay in a core's cache between the LLL and the filters. */
const RUN_REALS = 1 << 15;

/** Why the lattice part's LLL kernel does not take this variant's bases, or null where it does. */
export function lrLanesRefusal(model: RealModel, variant: LrVariant): string | null {
  const n = variant === 'zf' ? model.rows : model.rows + model.nd;
  const probe = lllBatchInPlace(new Float64Array(0), new Float64Array(0), 0, n, model.nd, LR_LLL_PARAMS);
  return probe.kernel === 'wasm-simd' ? null : `the WebAssembly LLL kernel does not take ${n} x ${model.nd} bases`;
}

export class LrLanes implements LaneKernel {
  readonly capacity: number;
  readonly unscaled = false;
  readonly bits = false;
  private readonly sc: LrPrepScratch;
  private readonly scratch: LrScratch;
  private readonly hLen: number;
  private readonly yLen: number;
  private readonly H: Float64Array;
  private readonly y: Float64Array;
  private readonly noise: Float64Array;
  private readonly channel: Int32Array;
  private readonly shift: Int32Array;
  /** The groups' bases (n x nd each), transforms (nd x nd), constant rows (n) and first vectors. */
  private readonly B: Float64Array;
  private readonly Z: Float64Array;
  private readonly cst: Float64Array;
  private readonly first: Int32Array;

  constructor(
    private readonly model: RealModel,
    private readonly variant: LrVariant,
  ) {
    const { nr, nt, nd } = model;
    this.sc = new LrPrepScratch(model, variant);
    this.scratch = new LrScratch(model);
    const n = this.sc.n;
    this.hLen = 2 * nr * nt;
    this.yLen = 2 * nr;
    const cap = Math.max(2, Math.floor(RUN_REALS / (this.hLen + this.yLen + n * nd + nd * nd + n + 3)));
    this.capacity = cap;
    this.H = new Float64Array(cap * this.hLen);
    this.y = new Float64Array(cap * this.yLen);
    this.noise = new Float64Array(cap);
    this.channel = new Int32Array(cap);
    this.shift = new Int32Array(cap);
    this.B = new Float64Array(cap * n * nd);
    this.Z = new Float64Array(cap * nd * nd);
    this.cst = new Float64Array(cap * n);
    this.first = new Int32Array(cap + 1);
  }

  inputs(channels: number, vectors: number): LaneInputs {
    return {
      H: this.H.subarray(0, channels * this.hLen),
      y: this.y.subarray(0, vectors * this.yLen),
      noise: this.noise.subarray(0, vectors),
      channel: this.channel.subarray(0, vectors),
      shift: this.shift.subarray(0, channels),
    };
  }

  run(_channels: number, vectors: number, out: LaneOutput, v0: number): number {
    const { sc, B, Z, cst, first, channel, noise, hLen, yLen, variant } = this;
    const { nd, nt } = this.model;
    const n = sc.n,
      size = n * nd,
      mm = nd * nd;
    const byNoise = variant !== 'zf';
    let groups = 0;
    for (let v = 0; v < vectors; v++) {
      if (v > 0 && channel[v] === channel[v - 1] && (!byNoise || noise[v] === noise[v - 1])) continue;
      fillLrBasis(sc, this.H, channel[v]! * hLen, noise[v]!, B, groups * size, cst, groups * n);
      first[groups++] = v;
    }
    first[groups] = vectors;
    let g = 0;
    try {
      lllBatchInPlace(B, Z, groups, n, nd, LR_LLL_PARAMS);
      for (; g < groups; g++) {
        const prep = finishLr(sc, B, g * size, Z.subarray(g * mm, (g + 1) * mm), cst.subarray(g * n, (g + 1) * n));
        for (let v = first[g]!; v < first[g + 1]!; v++)
          detectLr(prep, variant, this.y, v * yLen, this.scratch, out.symbols, (v0 + v) * nt);
      }
    } catch (e) {
      // detect() lets the reference meet the error on the run; the failing group names the channel
      const basis = (e as { context?: { basis?: number } }).context?.basis;
      return -1 - channel[first[basis ?? g] ?? 0]!;
    }
    return 0;
  }
}
