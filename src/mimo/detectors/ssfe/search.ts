/**
 * One SSFE search pass (the N-way paper, section IV-B, Algorithms 2 and 3): the tree of the
 * real-valued system (E = [R | z], z = Q^T y) is searched from the last level up; the first two
 * levels are fully expanded (Q^2 = M paths, one per point of the complex symbol detected first),
 * and every later level keeps only the best child of each path, found by rounding
 * gamma = b_i / R_ii to the nearest PAM level and clipping it (no enumeration, no sorting).
 * The surviving M complete paths are the candidate list.
 *
 * A-priori LLRs L_a (IDD): each candidate's metric gains N0 sum_b max(0, -s_b L_a(b)) over its
 * bits (s_b = +1 for a 0 bit, -1 for a 1), the max-log a-priori term, which for a single bit is
 * also the exact -N0 ln P(b) up to ln(1 + e^-|L_a|), the same for both values of the bit: ml's
 * N0 c_b L_a(b) differs from it by a per-bit constant too, so decisions and LLRs are the same
 * either way; this form keeps the metric a sum of non-negative terms. Square QAM's bits each
 * belong to one real dimension (its Gray PAM label), so the term splits into per-level costs of
 * the real dimensions (LevelPriors): the expanded levels add theirs, and a later level whose bits
 * have priors takes the child of least distance plus cost over all Q levels, where rounding would
 * ignore the cost (Q distances there, not 1). A level whose bits have no priors still rounds, so
 * all-zero priors give the prior-free search exactly.
 */
import { UnsupportedError } from '../../../core/index.js';
import { qrInto, applyQt } from '../../preprocess/qr.js';
import { fillRealMatrix, dimOrderOfStreams, type RealModel } from '../../soft/real-model.js';
import type { BitMetricMinima } from '../../soft/maxlog.js';

/** Candidate paths of one pass: Q^2 (Q when there is a single real level). */
export function ssfePaths(nd: number, q: number): number {
  return nd >= 2 ? q * q : q;
}

/**
 * The search on R (nd x nd upper triangular, column-major; invDiag[i] = 1 / R_ii) and z, into
 * s.levels (each path's level indices in column order, p = 2i - (Q-1), at k * nd ..) and s.metric
 * (|z - R p|^2 of path k, plus its levels' a-priori costs with `withPrior`: s.colCost[i * Q + l]
 * of level l in column i, for the columns whose s.colActive is 1); returns the number of paths.
 */
export function ssfeSearch(
  R: Float64Array,
  invDiag: Float64Array,
  z: Float64Array,
  nd: number,
  q: number,
  s: SsfeScratch,
  withPrior = false,
): number {
  const { levels, metric, p, zTop, rSecond, colCost, colActive } = s;
  const half = q - 1;
  if (nd === 1) {
    const act = withPrior && colActive[0] === 1;
    for (let k = 0; k < q; k++) {
      const e = z[0]! - R[0]! * (2 * k - half);
      metric[k] = act ? e * e + colCost[k]! : e * e;
      levels[k] = k;
    }
    return q;
  }
  const top = nd - 1,
    second = nd - 2;
  // The two fully expanded levels' contributions to every lower level, once per vector:
  // zTop[i q + a] = z_i - R_{i,top} p(a), rSecond[i q + b] = R_{i,second} p(b).
  for (let a = 0; a < q; a++) {
    const pa = 2 * a - half;
    for (let i = 0; i < top; i++) zTop[i * q + a] = z[i]! - R[i + top * nd]! * pa;
    for (let i = 0; i < second; i++) rSecond[i * q + a] = R[i + second * nd]! * pa;
  }
  const rTopTop = R[top + top * nd]!,
    rSecSec = R[second + second * nd]!;
  const paths = q * q;
  for (let k = 0; k < paths; k++) {
    // Levels nd-1 and nd-2: path k takes point (k div Q, k mod Q) (Alg. 2, lines 3-4).
    const i0 = (k / q) | 0,
      i1 = k - i0 * q;
    let e = z[top]! - rTopTop * (2 * i0 - half);
    let d = e * e;
    e = zTop[second * q + i0]! - rSecSec * (2 * i1 - half);
    d += e * e;
    if (withPrior) {
      if (colActive[top] === 1) d += colCost[top * q + i0]!;
      if (colActive[second] === 1) d += colCost[second * q + i1]!;
    }
    // Later levels: the best child only (Alg. 2, lines 5-14): round gamma = b_i / R_ii and clip.
    for (let i = second - 1; i >= 0; i--) {
      let b = zTop[i * q + i0]! - rSecond[i * q + i1]!;
      for (let j = i + 1; j < second; j++) b -= R[i + j * nd]! * p[j]!;
      const rii = R[i + i * nd]!;
      let li: number;
      if (withPrior && colActive[i] === 1) {
        // the prior moves the best child off the nearest level: least distance plus cost over all
        // levels (the first of equals)
        li = 0;
        let best = Infinity;
        for (let l = 0; l < q; l++) {
          const el = b - rii * (2 * l - half);
          const t = el * el + colCost[i * q + l]!;
          if (t < best) {
            best = t;
            li = l;
          }
        }
        const pi = 2 * li - half;
        p[i] = pi;
        levels[k * nd + i] = li;
        d += best;
        continue;
      }
      li = Math.floor((b * invDiag[i]! + half) * 0.5 + 0.5);
      if (li < 0) li = 0;
      else if (li > half) li = half;
      const pi = 2 * li - half;
      p[i] = pi;
      levels[k * nd + i] = li;
      e = b - rii * pi;
      d += e * e;
    }
    levels[k * nd + second] = i1;
    levels[k * nd + top] = i0;
    metric[k] = d;
  }
  return paths;
}

/** One pass's per-channel preprocessing: the column order and the QR of the permuted real channel. */
export interface SsfePass {
  /** dimOrder[k]: the real dimension in column k. */
  readonly dimOrder: Int32Array;
  /** streamOrder[c]: the stream whose real dimension(s) are column c (QAM: columns 2c, 2c+1). */
  readonly streamOrder: Int32Array;
  /** rows x nd, orthonormal columns. */
  readonly Q: Float64Array;
  /** nd x nd upper triangular, and the inverses of its diagonal. */
  readonly R: Float64Array;
  readonly invDiag: Float64Array;
}

/** The stream order of pass `rotation`: column c holds stream (c + rotation) mod nt. */
export function rotatedStreams(nt: number, rotation: number): Int32Array {
  const streams = new Int32Array(nt);
  for (let c = 0; c < nt; c++) streams[c] = (c + rotation) % nt;
  return streams;
}

/**
 * A pass's preprocessing for one channel: the MRVD channel with its streams in `streamOrder`
 * (from rotatedStreams; rotation 0 is the channel as given) factored by MGS QR (the paper's
 * Alg. 1). `scratch` holds rows x nd reals, `perm` nd integers.
 */
export function prepareSsfePass(
  m: RealModel,
  H: Float64Array,
  hOff: number,
  streamOrder: Int32Array,
  scratch: Float64Array,
  perm: Int32Array,
): SsfePass {
  const dimOrder = dimOrderOfStreams(m, streamOrder);
  fillRealMatrix(m, H, hOff, dimOrder, scratch);
  const Q = new Float64Array(m.rows * m.nd),
    R = new Float64Array(m.nd * m.nd),
    invDiag = new Float64Array(m.nd);
  qrInto(scratch, 0, m.rows, m.nd, 'none', Q, R, perm);
  for (let i = 0; i < m.nd; i++) invDiag[i] = 1 / R[i + i * m.nd]!;
  return { dimOrder, streamOrder, Q, R, invDiag };
}

/** Scratch for running passes on one vector (allocated once per detector instance). */
export class SsfeScratch {
  readonly z: Float64Array;
  readonly levels: Int32Array;
  readonly metric: Float64Array;
  readonly symbols: Int32Array;
  readonly p: Float64Array;
  readonly zTop: Float64Array;
  readonly rSecond: Float64Array;
  /** A pass's a-priori costs by column: colCost[i * Q + l] of level l in column i (runSsfePass fills them from LevelPriors). */
  readonly colCost: Float64Array;
  /** colActive[i] = 1 where column i's bits have priors. */
  readonly colActive: Uint8Array;
  constructor(readonly model: RealModel) {
    const paths = ssfePaths(model.nd, model.q);
    this.colCost = new Float64Array(model.nd * model.q);
    this.colActive = new Uint8Array(model.nd);
    this.z = new Float64Array(model.nd);
    this.levels = new Int32Array(paths * model.nd);
    this.metric = new Float64Array(paths);
    this.symbols = new Int32Array(model.nt);
    this.p = new Float64Array(model.nd);
    this.zTop = new Float64Array(model.nd * model.q);
    this.rSecond = new Float64Array(model.nd * model.q);
  }
}

/**
 * Runs one pass on the vector at y[yOff ..] (interleaved complex = the MRVD real vector) and adds
 * its candidates to `minima` (hypothesis and counter-hypothesis per bit, Alg. 3), their metrics
 * with the a-priori costs of `prior` (the vector's, from LevelPriors.set; null or none active: no
 * priors). Returns the number of tree nodes visited (distances computed).
 */
export function runSsfePass(
  pass: SsfePass,
  y: Float64Array,
  yOff: number,
  s: SsfeScratch,
  minima: BitMetricMinima,
  prior: LevelPriors | null = null,
): number {
  const m = s.model;
  applyQt(pass.Q, m.rows, m.nd, y, yOff, s.z);
  const withPrior = prior?.any === true;
  let searched = 0;
  if (withPrior) {
    const q = m.q;
    for (let i = 0; i < m.nd; i++) {
      const d = pass.dimOrder[i]!;
      s.colActive[i] = prior.active[d]!;
      s.colCost.set(prior.cost.subarray(d * q, (d + 1) * q), i * q);
      // a lower level with priors computes Q distances a path, not 1
      if (i < m.nd - 2 && prior.active[d] === 1) searched++;
    }
  }
  const paths = ssfeSearch(pass.R, pass.invDiag, s.z, m.nd, m.q, s, withPrior);
  const { levels, symbols } = s,
    { streamOrder } = pass,
    table = m.symbolOfLevels,
    q = m.q,
    nd = m.nd;
  for (let k = 0; k < paths; k++) {
    // Column pair (2c, 2c+1) holds (Re, Im) of stream streamOrder[c] (one column per stream for BPSK).
    if (m.dimsPerStream === 2) {
      for (let c = 0; c < m.nt; c++)
        symbols[streamOrder[c]!] = table[levels[k * nd + 2 * c]! * q + levels[k * nd + 2 * c + 1]!]!;
    } else {
      for (let c = 0; c < m.nt; c++) symbols[streamOrder[c]!] = table[levels[k * nd + c]!]!;
    }
    minima.add(symbols, 0, s.metric[k]!);
  }
  const expanded = m.nd >= 2 ? 2 : 1;
  return (expanded === 2 ? m.q : 0) + paths * (m.nd - expanded + 1) + paths * searched * (m.q - 1);
}

/**
 * The a-priori costs of one vector's real-dimension levels, in the metric's units (|y - H s|^2):
 * cost[d * Q + l] = N0 sum over the bits of dimension d (d = stream * dimsPerStream + part) of
 * max(0, -s_b L_a(b)), s_b = +1 where level l's label has the bit 0, -1 where 1. A candidate's cost
 * is the sum over its dimensions, N0 sum over its bits. active[d] = 1 where some bit of d has a
 * non-zero L_a.
 */
export class LevelPriors {
  readonly cost: Float64Array;
  readonly active: Uint8Array;
  /** Whether any dimension is active (set's result). */
  any = false;
  /** bitPart[b]: the part (0: real, 1: imaginary) whose level fixes bit b of a stream's label. */
  private readonly bitPart: Int32Array;
  /** bitAt[b * Q + l]: bit b's value at level l of its part. */
  private readonly bitAt: Uint8Array;

  constructor(readonly model: RealModel) {
    const { q, bitsPerSymbol: bps, bitTable, symbolOfLevels, dimsPerStream } = model;
    this.cost = new Float64Array(model.nd * q);
    this.active = new Uint8Array(model.nd);
    this.bitPart = new Int32Array(bps);
    this.bitAt = new Uint8Array(bps * q);
    const bit = (re: number, im: number, b: number) =>
      bitTable[symbolOfLevels[dimsPerStream === 2 ? re * q + im : re]! * bps + b]!;
    for (let b = 0; b < bps; b++) {
      // the part whose level alone fixes the bit: Gray square QAM labels each PAM separately
      let reOnly = true,
        imOnly = dimsPerStream === 2;
      for (let re = 0; re < q; re++)
        for (let im = 0; im < (dimsPerStream === 2 ? q : 1); im++) {
          if (bit(re, im, b) !== bit(re, 0, b)) reOnly = false;
          if (bit(re, im, b) !== bit(0, im, b)) imOnly = false;
        }
      if (!reOnly && !imOnly)
        throw new UnsupportedError(`bit ${b} of the labels depends on both real dimensions of a symbol`);
      this.bitPart[b] = reOnly ? 0 : 1;
      for (let l = 0; l < q; l++) this.bitAt[b * q + l] = reOnly ? bit(l, 0, b) : bit(0, l, b);
    }
  }

  /** The costs of the a-priori LLRs la[off ..] (nt x bitsPerSymbol, stream-major) at noise variance N0; returns `any`. */
  set(la: ArrayLike<number>, off: number, noiseVar: number): boolean {
    const { nt, q, bitsPerSymbol: bps, dimsPerStream: dps } = this.model;
    const { cost, active, bitPart, bitAt } = this;
    cost.fill(0);
    active.fill(0);
    this.any = false;
    for (let j = 0; j < nt; j++) {
      for (let b = 0; b < bps; b++) {
        const L = la[off + j * bps + b]!;
        if (L === 0) continue;
        const d = j * dps + bitPart[b]!;
        active[d] = 1;
        this.any = true;
        // max(0, -s L): L for a 1 bit when L > 0, -L for a 0 bit when L < 0
        for (let l = 0; l < q; l++) {
          const one = bitAt[b * q + l] === 1;
          if (one ? L > 0 : L < 0) cost[d * q + l] = cost[d * q + l]! + noiseVar * Math.abs(L);
        }
      }
    }
    return this.any;
  }
}
