/**
 * Exhaustive maximum-likelihood detection (the reference): every one of the M^nt hypotheses is
 * scored by ||y - H s||^2 on the complex model itself (no QR, no real decomposition, so it shares
 * no code with the tree searches it checks).
 *
 * Speed comes from walking the hypotheses as a tree over the streams (nt-1 at the top, 0 at the
 * leaves) on the expanded metric ||y||^2 - 2 Re(s^H z) + s^H G s, with G = H^H H (per channel) and
 * z = H^H y (per vector): fixing stream j to a adds
 *   |a|^2 G_jj - 2 Re(conj(a) T_j),   T_j = z_j - sum_{k>j} G_jk s_k,
 * so every hypothesis (leaf) costs O(1) and an internal node O(j) to update the T of the rows below.
 *
 * Soft output (LLR = ln P(b=0|y)/P(b=1|y), noise CN(0, N0)):
 *  - 'maxlog': (min over b=1 - min over b=0 of the metric) / N0, from per-stream, per-symbol
 *    minima that the tree returns bottom-up (one update per node, not per bit);
 *  - 'logmap': the exact sums of exp(-metric / N0), in a second pass relative to the ML metric so
 *    nothing overflows; a bit whose one side underflows to 0 keeps its max-log value.
 *
 * A-priori LLRs L_a (DetectionInput.priorLlr; iterative detection and decoding): a hypothesis's
 * metric gains N0 sum_b c_b L_a(b) over its bits c_b (that is -N0 ln P(s) up to a constant, the
 * bits independent, exactly), stream by stream as the tree fixes it; the decision is then the MAP
 * vector, and the LLRs are the a-posteriori ones (max-log or exact) minus L_a: extrinsic, as each
 * bit's own prior is the same on both sides of its minimum (or sum). Without priors nothing changes.
 */
import { NodeBudgetError } from '../../../core/index.js';
import { DEFAULT_MAX_NODES } from '../../budget.js';
import type { Constellation } from '../../modulation.js';
import type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from '../detector.js';

/**
 * Largest number of hypotheses M^nt the exhaustive search accepts by default (4x4 64-QAM = 2^24):
 * the default node budget; DetectOptions.maxNodes moves it.
 */
export const ML_MAX_HYPOTHESES = DEFAULT_MAX_NODES;

export interface MlPrep {
  /** The channel, nr x nt complex (a copy). */
  readonly H: Float64Array;
  /** G = H^H H, nt x nt complex, column-major. */
  readonly G: Float64Array;
}

type Mode = 'hard' | 'maxlog' | 'logmap-sum';

export class MlSearch {
  readonly M: number;
  /** Real and imaginary parts of the points, and their energies. */
  readonly pre: Float64Array;
  readonly pim: Float64Array;
  readonly energy: Float64Array;
  /** part[j * 2nt + 2i ..]: T of row i (i <= j) with streams > j fixed (complex). Level nt-1 holds z. */
  readonly part: Float64Array;
  readonly cur: Int32Array;
  readonly best: Int32Array;
  /** ||y||^2 of the current vector: metric = yy + the tree's partial sums. */
  private yy = 0;
  private bestRel = Infinity;
  /** minSym[j * M + a]: least metric (relative to yy) with stream j = a. */
  readonly minSym: Float64Array;
  /** sumSym[j * M + a]: sum of exp(-(metric - ML metric) / N0) with stream j = a. */
  readonly sumSym: Float64Array;
  private mode: Mode = 'hard';
  private invN0 = 0;
  private G: Float64Array = new Float64Array(0);
  /** prior[j * M + a]: N0 sum_b c_b L_a(b) of point a on stream j (all 0 without priors). */
  readonly prior: Float64Array;
  /** Whether prior holds a vector's priors (setPrior). */
  private withPrior = false;

  constructor(
    readonly nt: number,
    readonly nr: number,
    readonly con: Constellation,
  ) {
    const M = con.size;
    this.M = M;
    this.pre = new Float64Array(M);
    this.pim = new Float64Array(M);
    this.energy = new Float64Array(M);
    for (let a = 0; a < M; a++) {
      this.pre[a] = con.points[2 * a]!;
      this.pim[a] = con.points[2 * a + 1]!;
      this.energy[a] = this.pre[a]! ** 2 + this.pim[a]! ** 2;
    }
    this.part = new Float64Array(2 * nt * nt);
    this.cur = new Int32Array(nt);
    this.best = new Int32Array(nt);
    this.minSym = new Float64Array(nt * M);
    this.sumSym = new Float64Array(nt * M);
    this.prior = new Float64Array(nt * M);
  }

  /**
   * The a-priori LLRs of the next run (nt x bitsPerSymbol at la[off ..], stream-major), in the
   * metric's units with noise variance noiseVar; null: none (the plain ML search).
   */
  setPrior(la: ArrayLike<number> | null, off: number, noiseVar: number): void {
    const { nt, M, con, prior } = this;
    if (la === null) {
      if (this.withPrior) prior.fill(0);
      this.withPrior = false;
      return;
    }
    const bps = con.bitsPerSymbol,
      bits = con.bitTable;
    for (let j = 0; j < nt; j++) {
      for (let a = 0; a < M; a++) {
        let c = 0;
        for (let b = 0; b < bps; b++) if (bits[a * bps + b] === 1) c += la[off + j * bps + b]!;
        prior[j * M + a] = noiseVar * c;
      }
    }
    this.withPrior = true;
  }

  /** The ML metric ||y - H s_ML||^2 of the last run. */
  get bestMetric(): number {
    return this.yy + this.bestRel;
  }

  /** Runs the hard (or max-log) search for y at y[yOff]; returns the ML metric. */
  run(p: MlPrep, y: Float64Array, yOff: number, soft: boolean): number {
    const { nr, nt } = this,
      H = p.H,
      part = this.part,
      top = 2 * nt * (nt - 1);
    let yy = 0;
    for (let i = 0; i < 2 * nr; i++) yy += y[yOff + i]! * y[yOff + i]!;
    this.yy = yy;
    for (let j = 0; j < nt; j++) {
      let re = 0,
        im = 0;
      for (let i = 0; i < nr; i++) {
        const hr = H[2 * (i + j * nr)]!,
          hi = H[2 * (i + j * nr) + 1]!,
          yr = y[yOff + 2 * i]!,
          yi = y[yOff + 2 * i + 1]!;
        re += hr * yr + hi * yi;
        im += hr * yi - hi * yr;
      }
      part[top + 2 * j] = re;
      part[top + 2 * j + 1] = im;
    }
    this.G = p.G;
    this.bestRel = Infinity;
    this.mode = soft ? 'maxlog' : 'hard';
    if (soft) this.minSym.fill(Infinity);
    this.visit(nt - 1, 0);
    return this.bestMetric;
  }

  /** Second pass of 'logmap' (after run(.., true)): fills sumSym. */
  runSums(noiseVar: number): void {
    this.mode = 'logmap-sum';
    this.invN0 = 1 / noiseVar;
    this.sumSym.fill(0);
    this.visit(this.nt - 1, 0);
  }

  /**
   * Visits the subtree of stream j whose parent has partial metric pm; returns the subtree's least
   * metric (relative to ||y||^2), or its sum of weights in 'logmap-sum'.
   */
  private visit(j: number, pm: number): number {
    const { nt, M, part, G, cur } = this;
    const pb = 2 * nt * j;
    const tr = part[pb + 2 * j]!,
      ti = part[pb + 2 * j + 1]!;
    const gjj = G[2 * (j + j * nt)]!;
    if (j === 0) {
      if (this.mode === 'hard') return this.leavesHard(pm, tr, ti, gjj);
      if (this.mode === 'maxlog') return this.leavesMaxlog(pm, tr, ti, gjj);
      return this.leavesSum(pm, tr, ti, gjj);
    }
    const pre = this.pre,
      pim = this.pim,
      en = this.energy;
    const cb = 2 * nt * (j - 1);
    const pj = this.prior.subarray(j * M, (j + 1) * M);
    const sumMode = this.mode === 'logmap-sum',
      maxlog = this.mode === 'maxlog';
    let acc = sumMode ? 0 : Infinity;
    for (let a = 0; a < M; a++) {
      const ar = pre[a]!,
        ai = pim[a]!;
      const m = pm + en[a]! * gjj - 2 * (ar * tr + ai * ti) + pj[a]!;
      // T of rows i < j with stream j fixed: T_i -= G_ij a.
      for (let i = 0; i < j; i++) {
        const gr = G[2 * (i + j * nt)]!,
          gi = G[2 * (i + j * nt) + 1]!;
        part[cb + 2 * i] = part[pb + 2 * i]! - (gr * ar - gi * ai);
        part[cb + 2 * i + 1] = part[pb + 2 * i + 1]! - (gr * ai + gi * ar);
      }
      cur[j] = a;
      const sub = this.visit(j - 1, m);
      if (sumMode) {
        this.sumSym[j * M + a] = this.sumSym[j * M + a]! + sub;
        acc += sub;
      } else {
        if (maxlog && sub < this.minSym[j * M + a]!) this.minSym[j * M + a] = sub;
        if (sub < acc) acc = sub;
      }
    }
    return acc;
  }

  private leavesHard(pm: number, tr: number, ti: number, g: number): number {
    const M = this.M,
      pre = this.pre,
      pim = this.pim,
      en = this.energy;
    const tr2 = 2 * tr,
      ti2 = 2 * ti;
    let min = Infinity,
      arg = 0;
    const pc = this.withPrior ? this.prior : null;
    for (let a = 0; a < M; a++) {
      let m = en[a]! * g - (pre[a]! * tr2 + pim[a]! * ti2);
      if (pc) m += pc[a]!;
      if (m < min) {
        min = m;
        arg = a;
      }
    }
    min += pm;
    if (min < this.bestRel) {
      this.bestRel = min;
      this.cur[0] = arg;
      this.best.set(this.cur);
    }
    return min;
  }

  private leavesMaxlog(pm: number, tr: number, ti: number, g: number): number {
    const M = this.M,
      pre = this.pre,
      pim = this.pim,
      en = this.energy,
      minSym = this.minSym;
    const tr2 = 2 * tr,
      ti2 = 2 * ti;
    let min = Infinity,
      arg = 0;
    const pc = this.withPrior ? this.prior : null;
    for (let a = 0; a < M; a++) {
      let m = pm + en[a]! * g - (pre[a]! * tr2 + pim[a]! * ti2);
      if (pc) m += pc[a]!;
      if (m < minSym[a]!) minSym[a] = m;
      if (m < min) {
        min = m;
        arg = a;
      }
    }
    if (min < this.bestRel) {
      this.bestRel = min;
      this.cur[0] = arg;
      this.best.set(this.cur);
    }
    return min;
  }

  private leavesSum(pm: number, tr: number, ti: number, g: number): number {
    const M = this.M,
      pre = this.pre,
      pim = this.pim,
      en = this.energy,
      sumSym = this.sumSym;
    const ref = this.bestRel,
      invN0 = this.invN0;
    let acc = 0;
    const pc = this.withPrior ? this.prior : null;
    for (let a = 0; a < M; a++) {
      let m = pm + en[a]! * g - 2 * (pre[a]! * tr + pim[a]! * ti);
      if (pc) m += pc[a]!;
      const w = Math.exp((ref - m) * invN0);
      sumSym[a] = sumSym[a]! + w;
      acc += w;
    }
    return acc;
  }

  /**
   * Writes the LLRs of all streams to out[off ..] (max-log, or exact when logmap and runSums ran);
   * with priors (setPrior) the extrinsic ones: a-posteriori minus la[laOff ..].
   */
  writeLlr(
    noiseVar: number,
    logmap: boolean,
    out: Float64Array,
    off: number,
    la: ArrayLike<number> | null = null,
    laOff = 0,
  ): void {
    const { nt, M, con, minSym, sumSym } = this;
    const bps = con.bitsPerSymbol,
      bits = con.bitTable;
    for (let j = 0; j < nt; j++) {
      for (let b = 0; b < bps; b++) {
        let min0 = Infinity,
          min1 = Infinity,
          sum0 = 0,
          sum1 = 0;
        for (let a = 0; a < M; a++) {
          if (bits[a * bps + b] === 0) {
            if (minSym[j * M + a]! < min0) min0 = minSym[j * M + a]!;
            sum0 += sumSym[j * M + a]!;
          } else {
            if (minSym[j * M + a]! < min1) min1 = minSym[j * M + a]!;
            sum1 += sumSym[j * M + a]!;
          }
        }
        const maxlog = (min1 - min0) / noiseVar;
        const post = logmap && sum0 > 0 && sum1 > 0 ? Math.log(sum0) - Math.log(sum1) : maxlog;
        out[off + j * bps + b] = la === null ? post : post - la[laOff + j * bps + b]!;
      }
    }
  }
}

export function prepareMl(H: Float64Array, hOff: number, nt: number, nr: number, into?: MlPrep): MlPrep {
  const copy = into ? into.H : new Float64Array(2 * nr * nt);
  copy.set(H.subarray(hOff, hOff + 2 * nr * nt));
  const G = into ? into.G : new Float64Array(2 * nt * nt);
  for (let a = 0; a < nt; a++) {
    for (let b = 0; b < nt; b++) {
      let re = 0,
        im = 0;
      for (let i = 0; i < nr; i++) {
        const ar = copy[2 * (i + a * nr)]!,
          ai = copy[2 * (i + a * nr) + 1]!,
          br = copy[2 * (i + b * nr)]!,
          bi = copy[2 * (i + b * nr) + 1]!;
        re += ar * br + ai * bi;
        im += ar * bi - ai * br;
      }
      G[2 * (a + b * nt)] = re;
      G[2 * (a + b * nt) + 1] = im;
    }
  }
  return into ?? { H: copy, G };
}

/** Refuses a size whose M^nt hypotheses per vector exceed the node budget (NodeBudgetError). */
export function checkMlSize(nt: number, con: Constellation, maxNodes = ML_MAX_HYPOTHESES): void {
  const hyp = con.size ** nt;
  if (hyp > maxNodes) {
    throw new NodeBudgetError(
      `exhaustive ML would score ${con.size}^${nt} = ${hyp} hypotheses per vector, over the node budget maxNodes = ${maxNodes}; use 'sphere' or 'psd' (also exact ML) or raise maxNodes`,
      { detector: 'ml', maxNodes, hypotheses: hyp },
    );
  }
}

export const detector: CpuDetector<MlPrep> = {
  name: 'ml',
  soft: true,
  create(setup: DetectorSetup): DetectorInstance<MlPrep> & { readonly searcher: MlSearch } {
    const { nr, nt, constellation: con, opts, soft } = setup;
    checkMlSize(nt, con, setup.maxNodes);
    const logmap = opts.soft === 'logmap';
    const searcher = new MlSearch(nt, nr, con);
    const bps = con.bitsPerSymbol;
    const prior = setup.priorLlr ?? null;
    const prep: MlPrep = { H: new Float64Array(2 * nr * nt), G: new Float64Array(2 * nt * nt) };
    return {
      searcher,
      prepare: (H, hOff) => prepareMl(H, hOff, nt, nr, prep),
      detect(p: MlPrep, y: Float64Array, yOff: number, noiseVar: number, out: DetectorOutput, v: number): number {
        const wantLlr = soft && out.llr !== null;
        if (prior) searcher.setPrior(prior, v * nt * bps, noiseVar);
        searcher.run(p, y, yOff, wantLlr);
        for (let j = 0; j < nt; j++) out.symbols[v * nt + j] = searcher.best[j]!;
        if (wantLlr) {
          if (logmap) searcher.runSums(noiseVar);
          searcher.writeLlr(noiseVar, logmap, out.llr!, v * nt * bps, prior, v * nt * bps);
        }
        return 0;
      },
    };
  },
};
