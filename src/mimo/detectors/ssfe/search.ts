/**
 * One SSFE search pass (the N-way paper, section IV-B, Algorithms 2 and 3): the tree of the
 * real-valued system (E = [R | z], z = Q^T y) is searched from the last level up; the first two
 * levels are fully expanded (Q^2 = M paths, one per point of the complex symbol detected first),
 * and every later level keeps only the best child of each path, found by rounding
 * gamma = b_i / R_ii to the nearest PAM level and clipping it (no enumeration, no sorting).
 * The surviving M complete paths are the candidate list.
 */
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
 * (|z - R p|^2 of path k); returns the number of paths.
 */
export function ssfeSearch(
  R: Float64Array,
  invDiag: Float64Array,
  z: Float64Array,
  nd: number,
  q: number,
  s: SsfeScratch,
): number {
  const { levels, metric, p, zTop, rSecond } = s;
  const half = q - 1;
  if (nd === 1) {
    for (let k = 0; k < q; k++) {
      const e = z[0]! - R[0]! * (2 * k - half);
      metric[k] = e * e;
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
    // Later levels: the best child only (Alg. 2, lines 5-14): round gamma = b_i / R_ii and clip.
    for (let i = second - 1; i >= 0; i--) {
      let b = zTop[i * q + i0]! - rSecond[i * q + i1]!;
      for (let j = i + 1; j < second; j++) b -= R[i + j * nd]! * p[j]!;
      let li = Math.floor((b * invDiag[i]! + half) * 0.5 + 0.5);
      if (li < 0) li = 0;
      else if (li > half) li = half;
      const pi = 2 * li - half;
      p[i] = pi;
      levels[k * nd + i] = li;
      e = b - R[i + i * nd]! * pi;
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
  constructor(readonly model: RealModel) {
    const paths = ssfePaths(model.nd, model.q);
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
 * its candidates to `minima` (hypothesis and counter-hypothesis per bit, Alg. 3). Returns the
 * number of tree nodes visited (distances computed).
 */
export function runSsfePass(
  pass: SsfePass,
  y: Float64Array,
  yOff: number,
  s: SsfeScratch,
  minima: BitMetricMinima,
): number {
  const m = s.model;
  applyQt(pass.Q, m.rows, m.nd, y, yOff, s.z);
  const paths = ssfeSearch(pass.R, pass.invDiag, s.z, m.nd, m.q, s);
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
  return (expanded === 2 ? m.q : 0) + paths * (m.nd - expanded + 1);
}
