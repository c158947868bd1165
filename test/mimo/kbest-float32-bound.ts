/**
 * How far kbest-search.cu (float32) may lie from the CPU engine's K-best (search.ts, float64) on
 * one received vector, proven node by node (docs/API.md, "K-best on the GPU"). Both engines get the
 * same float32 numbers (H, y, N0) and the same sorted QR: the GPU's float32 Q and R are the CPU's
 * float64 ones rounded (the tests check it). The bound follows the kernel's sums step by step: with
 * u = 2^-24 + 2^-53 (both engines' rounding in one unit), a sum s' = s + p (or s - p) whose term
 * p = A x has A rounded to float32 (Q, R entries) and the product rounded, and whose result is
 * rounded, adds to the bound E on |s_gpu - s_cpu|
 *
 *   E' = E + 2u |p| + u (|s'| + E + 2u |p|)        (|p|, |s'|: the CPU's values)
 *
 * so that E(z_i) follows z = Q^T y over the rows (from 0), E(e) follows e = z_i - sum_j R_ij x_j
 * over j = i+1 .. nd-1 then j = i, and at each node, m = m_parent + e^2,
 *
 *   tau   = E(e) (2 |e| + E(e)) + u (|e| + E(e))^2                      (e^2, rounded)
 *   delta = delta_parent + tau + u (m + delta_parent + tau)               (the sum, rounded)
 *
 * each step times 1 + 2^-20 (terms of order u^2, and this file's own float64 arithmetic). Thus
 * |m_gpu - m_cpu| <= delta at every node, whether the GPU fuses multiply-adds or not (a fused
 * operation rounds once where the bound counts two). Consequences, on the CPU's list sorted by
 * (metric, child index):
 *  - a pruned level whose kept children's m + delta all lie below the cut ones' m - delta keeps the
 *    same children on both engines; with every level so, both lists are the same paths;
 *  - then the best leaf is the same unless another leaf's m - delta reaches its m + delta;
 *  - and each LLR (min_{b=1} - min_{b=0}) / N0 agrees within (D0 + D1) / N0 (1 + 8u) + 4u |LLR|,
 *    D_w the largest delta of the leaves with bit value w that may be that side's least (m - delta
 *    up to the side's least m + delta): the GPU's float32 difference, 1 / N0 and product add the
 *    relative part, its float32 clip value the rest.
 * A vector with an overlapping cut may keep other paths on the GPU: any of its LLRs may then differ
 * by up to twice the clip (a counter-hypothesis in one list only).
 *
 * With a-priori LLRs (the KB_PRIOR build; cpu.ts's LevelPriors) a node of a column with priors adds
 * its level's cost c to m = m_parent + e^2: the cost is a sum over the column's bits of N0 |L_a(b)|
 * (both engines take the same float32 N0 and L_a, in the same bit order), so its bound E(c) follows
 * the sum step by step as above (a product of two exact inputs, rounded, then the sum, rounded),
 * and the node's
 *
 *   delta = (delta_e + E(c) + u (m + delta_e + E(c)))                    (m = (m_parent + e^2) + c)
 *
 * with delta_e the bound above of m_parent + e^2; a column without priors adds nothing on the CPU
 * and exact zeros on the GPU. The LLRs are then extrinsic, the a-posteriori one minus L_a, clipped:
 * the bound above holds for the a-posteriori LLR, whose |LLR| is at most |extrinsic| + |L_a|, and
 * the float32 subtraction adds u (|extrinsic| + |L_a|) (llrTolerance's `prior`).
 */
import { DEFAULT_K, detector as kbestCpu } from '../../src/mimo/detectors/kbest/cpu.js';
import { applyQt } from '../../src/mimo/preprocess/qr.js';
import { realModel, symbolsOfLevels } from '../../src/mimo/soft/real-model.js';
import { LevelPriors } from '../../src/mimo/detectors/ssfe/search.js';
import type { DetectOptions } from '../../src/mimo/types.js';
import { cpuSetup, type Problem } from './kbest-lr-harness.js';

/** float32's unit roundoff plus float64's: one formula bounds both engines' rounding. */
export const U32 = 2 ** -24 + 2 ** -53;
/** Each step's factor (file comment). */
const STEP = 1 + 2 ** -20;

/** The bound after one step s' = s +- p of a sum (file comment): E the bound before, p and s' the CPU's values. */
const sumStep = (E: number, p: number, s: number): number =>
  (E + 2 * U32 * Math.abs(p) + U32 * (Math.abs(s) + E + 2 * U32 * Math.abs(p))) * STEP;

/** What the bound says about one vector. */
export interface KbestVectorBound {
  /** Some pruned level's kept and cut children overlap (m +- delta): the GPU's list may differ. */
  nearCut: boolean;
  /** The best leaf's interval meets another leaf's: the decision may differ (the LLR bound holds). */
  nearBest: boolean;
  /** Per bit (nt x bitsPerSymbol, the LLRs' layout): D0 + D1 of the file comment, in metric units. */
  metricTol: Float64Array;
  /** The least (cut's least m - delta) - (kept's largest m + delta) over the pruned levels (Infinity: none pruned). */
  cutMargin: number;
  /** The CPU's list: leaves' metrics, bounds and symbols (count x nt). */
  leaves: { metric: Float64Array; delta: Float64Array; symbols: Int32Array };
  /** All children of the last level (i = 0), before its cut: metric and e = z_0 - sum_j R_0j x_j. */
  last: { metric: Float64Array; e: Float64Array };
}

/** The CPU's prepared channel of vector v (its Q, R and column order: what the GPU's prep must equal). */
export function kbestPrep(
  p: Problem,
  opts: Partial<DetectOptions>,
  v: number,
): { Q: Float64Array; R: Float64Array; perm: Int32Array } {
  const inst = kbestCpu.create(cpuSetup(p, opts, false));
  const c = Math.floor(v / p.vpc);
  return inst.prepare(p.H, c * 2 * p.nr * p.nt, p.noise[v]!) as { Q: Float64Array; R: Float64Array; perm: Int32Array };
}

/**
 * The CPU engine's K-best on vector v (its expressions, so its metrics bit for bit, sorted by
 * (metric, child index) at each pruned level), carrying each node's delta; and the file comment's
 * conclusions. `prep` may be given when one channel serves several vectors.
 */
export function kbestVectorBound(
  p: Problem,
  opts: Partial<DetectOptions>,
  v: number,
  prep = kbestPrep(p, opts, v),
  prior: Float32Array | null = null,
): KbestVectorBound {
  const setup = cpuSetup(p, opts, false);
  const model = realModel(setup.constellation, p.nt, p.nr);
  const { nd, q, rows, nt, bitsPerSymbol: bps } = model;
  const k = Math.min(opts.k ?? DEFAULT_K, q ** nd);
  const half = q - 1;
  const { Q, R, perm } = prep;
  // the a-priori costs by column (cpu.ts: LevelPriors reordered into the QR's columns) and their
  // float32 bounds, following kbest-search.cu's sum over the bits in label order
  const colCost = new Float64Array(nd * q),
    costErr = new Float64Array(nd * q),
    colActive = new Uint8Array(nd);
  if (prior) {
    const lp = new LevelPriors(model);
    const la = Float64Array.from(prior.subarray(v * nt * bps, (v + 1) * nt * bps));
    const n0 = p.noise[v]!;
    if (lp.set(la, 0, n0)) {
      // bitPart and bitAt as LevelPriors finds them, to follow its sums
      const bit = (re: number, im: number, b: number) =>
        model.bitTable[model.symbolOfLevels[model.dimsPerStream === 2 ? re * q + im : re]! * bps + b]!;
      for (let i = 0; i < nd; i++) {
        const d = perm[i]!;
        colActive[i] = lp.active[d]!;
        const j = Math.floor(d / model.dimsPerStream),
          part = d % model.dimsPerStream;
        for (let l = 0; l < q; l++) {
          colCost[i * q + l] = lp.cost[d * q + l]!;
          let c = 0,
            E = 0;
          for (let b = 0; b < bps; b++) {
            // the part whose level fixes bit b: the real one where the bit varies with the real level
            let bp = 0;
            if (model.dimsPerStream === 2) {
              bp = 1;
              for (let re = 1; re < q; re++) if (bit(re, 0, b) !== bit(0, 0, b)) bp = 0;
            }
            if (bp !== part) continue;
            const one = model.dimsPerStream === 2 ? (bp === 0 ? bit(l, 0, b) : bit(0, l, b)) : bit(l, 0, b);
            const L = la[j * bps + b]!;
            if (one === 1 ? L > 0 : L < 0) {
              const t = n0 * Math.abs(L);
              c += t;
              E = sumStep(E, t, c);
            }
          }
          costErr[i * q + l] = E;
        }
      }
    }
  }
  const z = applyQt(Q, rows, nd, p.y, v * rows, new Float64Array(nd));
  // E(z_i), following applyQt's sum (the kernel's order)
  const zErr = new Float64Array(nd);
  for (let i = 0; i < nd; i++) {
    let d = 0,
      E = 0;
    for (let r = 0; r < rows; r++) {
      const t = Q[r + i * rows]! * p.y[v * rows + r]!;
      d += t;
      E = sumStep(E, t, d);
    }
    zErr[i] = E;
  }
  let count = 1;
  let lev = new Int32Array(nd),
    metric = Float64Array.of(0),
    delta = Float64Array.of(0);
  let cutMargin = Infinity;
  let last = { metric: new Float64Array(0), e: new Float64Array(0) };
  for (let i = nd - 1; i >= 0; i--) {
    const rii = R[i + i * nd]!;
    const children = count * q;
    const cm = new Float64Array(children),
      cd = new Float64Array(children),
      ce = new Float64Array(children);
    for (let s = 0; s < count; s++) {
      // search.ts's expressions: its metrics bit for bit
      let b = z[i]!,
        Eb = zErr[i]!;
      for (let j = i + 1; j < nd; j++) {
        const t = R[i + j * nd]! * (2 * lev[s * nd + j]! - half);
        b -= t;
        Eb = sumStep(Eb, t, b);
      }
      for (let c = 0; c < q; c++) {
        const t = rii * (2 * c - half);
        const e = b - t;
        const Ee = sumStep(Eb, t, e);
        const ae = Math.abs(e);
        const tau = (Ee * (2 * ae + Ee) + U32 * (ae + Ee) ** 2) * STEP;
        const m = metric[s]! + e * e;
        ce[s * q + c] = e;
        const dm = (delta[s]! + tau + U32 * (m + delta[s]! + tau)) * STEP;
        if (colActive[i] === 1) {
          const mc = m + colCost[i * q + c]!,
            Ec = costErr[i * q + c]!;
          cm[s * q + c] = mc;
          cd[s * q + c] = (dm + Ec + U32 * (mc + dm + Ec)) * STEP;
        } else {
          cm[s * q + c] = m;
          cd[s * q + c] = dm;
        }
      }
    }
    const keep = Math.min(children, k);
    const order = Int32Array.from({ length: children }, (_, t) => t);
    if (keep < children) {
      order.sort((a, b) => cm[a]! - cm[b]! || a - b);
      let kept = -Infinity,
        cut = Infinity;
      for (let t = 0; t < keep; t++) kept = Math.max(kept, cm[order[t]!]! + cd[order[t]!]!);
      for (let t = keep; t < children; t++) cut = Math.min(cut, cm[order[t]!]! - cd[order[t]!]!);
      cutMargin = Math.min(cutMargin, cut - kept);
    }
    const nl = new Int32Array(keep * nd),
      nm = new Float64Array(keep),
      ndl = new Float64Array(keep);
    for (let t = 0; t < keep; t++) {
      const child = order[t]!,
        parent = Math.floor(child / q);
      for (let j = i + 1; j < nd; j++) nl[t * nd + j] = lev[parent * nd + j]!;
      nl[t * nd + i] = child - parent * q;
      nm[t] = cm[child]!;
      ndl[t] = cd[child]!;
    }
    lev = nl;
    metric = nm;
    delta = ndl;
    count = keep;
    if (i === 0) last = { metric: cm, e: ce };
  }
  const symbols = new Int32Array(count * nt);
  for (let s = 0; s < count; s++) symbolsOfLevels(model, lev, s * nd, perm, symbols, s * nt);
  let best = 0;
  for (let s = 1; s < count; s++) if (metric[s]! < metric[best]!) best = s;
  let nearBest = false;
  for (let s = 0; s < count; s++)
    if (s !== best && metric[s]! - delta[s]! <= metric[best]! + delta[best]!) nearBest = true;
  const metricTol = new Float64Array(nt * bps);
  for (let j = 0; j < nt; j++) {
    for (let b = 0; b < bps; b++) {
      const bitOf = (s: number): number => model.bitTable[symbols[s * nt + j]! * bps + b]!;
      let tol = 0;
      for (const w of [0, 1]) {
        let top = Infinity;
        for (let s = 0; s < count; s++) if (bitOf(s) === w) top = Math.min(top, metric[s]! + delta[s]!);
        let d = 0;
        for (let s = 0; s < count; s++) if (bitOf(s) === w && metric[s]! - delta[s]! <= top) d = Math.max(d, delta[s]!);
        tol += d;
      }
      metricTol[j * bps + b] = tol;
    }
  }
  return { nearCut: cutMargin <= 0, nearBest, metricTol, cutMargin, leaves: { metric, delta, symbols }, last };
}

/**
 * The bound on |LLR_gpu - LLR_cpu| of one bit of a vector without a near cut (file comment); with
 * `prior` (the bit's L_a) llrCpu is the extrinsic LLR and the bound the a-posteriori one's plus the
 * subtraction's rounding.
 */
export function llrTolerance(metricTol: number, noiseVar: number, llrCpu: number, prior = 0): number {
  const post = Math.abs(llrCpu) + Math.abs(prior);
  return ((1 + 8 * U32) * metricTol) / noiseVar + 4 * U32 * post + (prior !== 0 ? U32 * post : 0);
}
