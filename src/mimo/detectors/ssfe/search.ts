/**
 * One SSFE search pass (the N-way paper, section IV-B, Algorithms 2 and 3): the tree of the
 * real-valued system (E = [R | z], z = Q^T y) is searched from the last level up; the first two
 * levels are fully expanded (Q^2 = M paths, one per point of the complex symbol detected first),
 * and every later level keeps only the best child of each path, found by rounding
 * gamma = b_i / R_ii to the nearest PAM level and clipping it (no enumeration, no sorting).
 * The surviving M complete paths are the candidate list.
 */
import { qrInto, applyQt } from '../../preprocess/qr.js';
import { fillRealMatrix, dimOrderOfStreams, symbolsOfLevels, type RealModel } from '../../soft/real-model.js';
import type { BitMetricMinima } from '../../soft/maxlog.js';

/** Candidate paths of one pass: Q^2 (Q when there is a single real level). */
export function ssfePaths(nd: number, q: number): number {
  return nd >= 2 ? q * q : q;
}

/**
 * The search on R (nd x nd upper triangular, column-major; invDiag[i] = 1 / R_ii) and z. Writes
 * each path's level indices (column order, p = 2i - (Q-1)) to levels[k * nd ..] and its metric
 * |z - R p|^2 to metric[k]; returns the number of paths. `p` is nd scratch.
 */
export function ssfeSearch(
  R: Float64Array, invDiag: Float64Array, z: Float64Array, nd: number, q: number,
  levels: Int32Array, metric: Float64Array, p: Float64Array,
): number {
  const top = nd - 1;
  const expanded = nd >= 2 ? 2 : 1;
  const paths = ssfePaths(nd, q);
  const half = q - 1;
  for (let k = 0; k < paths; k++) {
    // Levels nd-1 and nd-2: path k takes point (k div Q, k mod Q) (Alg. 2, lines 3-4).
    const i0 = expanded === 2 ? (k / q) | 0 : k;
    p[top] = 2 * i0 - half;
    let e = z[top]! - R[top + top * nd]! * p[top]!;
    let d = e * e;
    if (expanded === 2) {
      p[top - 1] = 2 * (k - i0 * q) - half;
      e = z[top - 1]! - R[top - 1 + top * nd]! * p[top]! - R[top - 1 + (top - 1) * nd]! * p[top - 1]!;
      d += e * e;
    }
    // Later levels: the best child only (Alg. 2, lines 5-14): round gamma = b_i / R_ii and clip.
    for (let i = nd - 1 - expanded; i >= 0; i--) {
      let b = z[i]!;
      for (let j = i + 1; j < nd; j++) b -= R[i + j * nd]! * p[j]!;
      let li = Math.round((b * invDiag[i]! + half) * 0.5);
      if (li < 0) li = 0; else if (li > half) li = half;
      const pi = 2 * li - half;
      p[i] = pi;
      e = b - R[i + i * nd]! * pi;
      d += e * e;
    }
    metric[k] = d;
    const base = k * nd;
    for (let i = 0; i < nd; i++) levels[base + i] = (p[i]! + half) >> 1;
  }
  return paths;
}

/** One pass's per-channel preprocessing: the column order and the QR of the permuted real channel. */
export interface SsfePass {
  /** dimOrder[k]: the real dimension in column k. */
  readonly dimOrder: Int32Array;
  /** rows x nd, orthonormal columns. */
  readonly Q: Float64Array;
  /** nd x nd upper triangular, and the inverses of its diagonal. */
  readonly R: Float64Array;
  readonly invDiag: Float64Array;
}

/** The real dimension order of pass `rotation`: column c holds stream (c + rotation) mod nt. */
export function rotatedDimOrder(m: RealModel, rotation: number): Int32Array {
  const streams = new Int32Array(m.nt);
  for (let c = 0; c < m.nt; c++) streams[c] = (c + rotation) % m.nt;
  return dimOrderOfStreams(m, streams);
}

/**
 * A pass's preprocessing for one channel: the MRVD channel with its columns in `dimOrder`
 * (from rotatedDimOrder; rotation 0 is the channel as given) factored by MGS QR (the paper's
 * Alg. 1). `scratch` holds rows x nd reals, `perm` nd integers.
 */
export function prepareSsfePass(m: RealModel, H: Float64Array, hOff: number, dimOrder: Int32Array, scratch: Float64Array, perm: Int32Array): SsfePass {
  fillRealMatrix(m, H, hOff, dimOrder, scratch);
  const Q = new Float64Array(m.rows * m.nd), R = new Float64Array(m.nd * m.nd), invDiag = new Float64Array(m.nd);
  qrInto(scratch, 0, m.rows, m.nd, 'none', Q, R, perm);
  for (let i = 0; i < m.nd; i++) invDiag[i] = 1 / R[i + i * m.nd]!;
  return { dimOrder, Q, R, invDiag };
}

/** Scratch for running passes on one vector (allocated once per detector instance). */
export class SsfeScratch {
  readonly z: Float64Array;
  readonly levels: Int32Array;
  readonly metric: Float64Array;
  readonly symbols: Int32Array;
  readonly p: Float64Array;
  constructor(readonly model: RealModel) {
    const paths = ssfePaths(model.nd, model.q);
    this.z = new Float64Array(model.nd);
    this.levels = new Int32Array(paths * model.nd);
    this.metric = new Float64Array(paths);
    this.symbols = new Int32Array(model.nt);
    this.p = new Float64Array(model.nd);
  }
}

/**
 * Runs one pass on the vector at y[yOff ..] (interleaved complex = the MRVD real vector) and adds
 * its candidates to `minima` (hypothesis and counter-hypothesis per bit, Alg. 3). Returns the
 * number of tree nodes visited (distances computed).
 */
export function runSsfePass(pass: SsfePass, y: Float64Array, yOff: number, s: SsfeScratch, minima: BitMetricMinima): number {
  const m = s.model;
  applyQt(pass.Q, m.rows, m.nd, y, yOff, s.z);
  const paths = ssfeSearch(pass.R, pass.invDiag, s.z, m.nd, m.q, s.levels, s.metric, s.p);
  for (let k = 0; k < paths; k++) {
    symbolsOfLevels(m, s.levels, k * m.nd, pass.dimOrder, s.symbols, 0);
    minima.add(s.symbols, 0, s.metric[k]!);
  }
  const expanded = m.nd >= 2 ? 2 : 1;
  return (expanded === 2 ? m.q : 0) + paths * (m.nd - expanded + 1);
}
