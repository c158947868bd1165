/**
 * Lattice-reduction-aided detection (ZF, MMSE, MMSE-SIC) on the shifted and scaled lattice of the
 * real-valued system (Wuebben et al., "Lattice reduction", IEEE SP Magazine 2011).
 *
 * In the real model (../../soft/real-model.ts) y = Ha p + n with p odd integers in [-(Q-1), Q-1].
 * Writing p = 2u - (Q-1) 1 with u in {0 .. Q-1}^nd gives the lattice system
 *     y + (Q-1) Ha 1 = B u + n,   B = 2 Ha,
 * whose basis B is LLL-reduced once per channel: B Z = B_red, u = Z v. Detection rounds in the
 * reduced domain (v is an arbitrary integer vector there), maps back u = Z v and quantises u to the
 * constellation by clipping to [0, Q-1].
 *
 * MMSE variants work on the extended system [y; 0] = [Ha; beta I] p + [n; -beta p] with
 * beta^2 = (N0/2) / E[p^2]; shifted the same way, B = 2 [Ha; beta I] and the observation gains the
 * rows beta 1. Zero-forcing on the extended system is the MMSE filter, and SIC on its QR is
 * MMSE-SIC. LLL runs on the extended basis, so the MMSE preparation depends on N0.
 */
import { lllInPlace, type AlgoParams } from '../../../lattice/index.js';
import { qrInto } from '../../preprocess/qr.js';
import { fillRealMatrix, naturalDimOrder, symbolsOfLevels, type RealModel } from '../../soft/real-model.js';

export type LrVariant = 'zf' | 'mmse' | 'sic';

/** LLL parameters for the channel bases: the papers' delta = 0.75, eta = 0.51. */
export const LR_LLL_PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 2, maxIterations: 100_000 };

export interface LrPrep {
  /** Unimodular nd x nd (column-major): u = Z v. */
  readonly Z: Float64Array;
  /** nd x rows: ZF/MMSE: R^-1 Q_top^T (the reduced-domain filter); SIC: Q_top^T. */
  readonly P: Float64Array;
  /** nd: the filter applied to the constant rows (shift and MMSE extension). */
  readonly p0: Float64Array;
  /** nd x nd upper triangular of the reduced basis (SIC only). */
  readonly R: Float64Array;
}

/** Per-channel scratch of one detector instance (the basis is reduced in place). */
export class LrPrepScratch {
  readonly Ha: Float64Array;
  readonly B: Float64Array;
  readonly cst: Float64Array;
  readonly Qb: Float64Array;
  readonly perm: Int32Array;
  readonly natural: Int32Array;
  /** Rows of the lattice basis: the model's for ZF, nd more for the MMSE extension. */
  readonly n: number;
  constructor(
    readonly model: RealModel,
    readonly variant: LrVariant,
  ) {
    const { rows, nd } = model;
    const n = variant === 'zf' ? rows : rows + nd;
    this.n = n;
    this.Ha = new Float64Array(rows * nd);
    this.B = new Float64Array(n * nd);
    this.cst = new Float64Array(n);
    this.Qb = new Float64Array(n * nd);
    this.perm = new Int32Array(nd);
    this.natural = naturalDimOrder(model);
  }
}

/** Per-channel work: shifted/scaled (and MMSE-extended) basis, LLL, QR, reduced-domain filter. */
export function prepareLr(sc: LrPrepScratch, H: Float64Array, hOff: number, noiseVar: number): LrPrep {
  const nd = sc.model.nd;
  fillLrBasis(sc, H, hOff, noiseVar, sc.B, 0, sc.cst, 0);
  const Z = new Float64Array(nd * nd);
  for (let k = 0; k < nd; k++) Z[k + k * nd] = 1;
  lllInPlace(sc.B, Z, sc.n, nd, LR_LLL_PARAMS);
  return finishLr(sc, sc.B, 0, Z, sc.cst);
}

/**
 * The lattice basis of a channel, B = 2 Ha (ZF) or 2 [Ha; beta I] (MMSE, SIC), n x nd column-major
 * into B[bOff ..], and the constant part of its observation, (Q-1) times the same rows summed,
 * n reals into cst[cOff ..] (n = sc.n).
 */
export function fillLrBasis(
  sc: LrPrepScratch,
  H: Float64Array,
  hOff: number,
  noiseVar: number,
  B: Float64Array,
  bOff: number,
  cst: Float64Array,
  cOff: number,
): void {
  const m = sc.model,
    variant = sc.variant;
  const { rows, nd, q } = m;
  const ext = variant !== 'zf';
  const n = sc.n;
  const Ha = sc.Ha;
  fillRealMatrix(m, H, hOff, sc.natural, Ha);
  const beta = ext ? Math.sqrt(noiseVar / 2 / m.levelEnergy) : 0;
  B.fill(0, bOff, bOff + n * nd);
  cst.fill(0, cOff, cOff + n);
  for (let k = 0; k < nd; k++) {
    const col = bOff + k * n;
    for (let r = 0; r < rows; r++) {
      const h = Ha[r + k * rows]!;
      B[col + r] = 2 * h;
      cst[cOff + r] += (q - 1) * h;
    }
    if (ext) {
      B[col + rows + k] = 2 * beta;
      cst[cOff + rows + k] = (q - 1) * beta;
    }
  }
}

/**
 * A channel's preparation from its LLL-reduced basis (n x nd at B[bOff ..]), its transform Z
 * (nd x nd, kept as the prep's) and its constant rows cst (n): the QR of the reduced basis and the
 * reduced-domain filter.
 */
export function finishLr(sc: LrPrepScratch, B: Float64Array, bOff: number, Z: Float64Array, cst: Float64Array): LrPrep {
  const { rows, nd } = sc.model;
  const R = new Float64Array(nd * nd);
  qrInto(B, bOff, sc.n, nd, 'none', sc.Qb, R, sc.perm);
  const { P, p0 } = reducedFilter(sc.Qb, R, cst, sc.n, nd, rows, sc.variant);
  return { Z, P, p0, R };
}

/**
 * The reduced-domain filter of a channel from the QR B Z = Q R of its (n x nd) reduced basis:
 * P = Q_top^T (nd x rows) and p0 = Q^T cst, both multiplied by R^-1 (back substitution) except
 * for 'sic', which substitutes per vector.
 */
export function reducedFilter(
  Qb: Float64Array,
  R: Float64Array,
  cst: Float64Array,
  n: number,
  nd: number,
  rows: number,
  variant: LrVariant,
): { P: Float64Array; p0: Float64Array } {
  const P = new Float64Array(nd * rows),
    p0 = new Float64Array(nd);
  for (let k = 0; k < nd; k++) {
    let s = 0;
    for (let r = 0; r < n; r++) s += Qb[r + k * n]! * cst[r]!;
    p0[k] = s;
    for (let r = 0; r < rows; r++) P[k + r * nd] = Qb[r + k * n]!;
  }
  if (variant !== 'sic') {
    for (let r = 0; r <= rows; r++) {
      const col = r < rows ? P : p0,
        o = r < rows ? r * nd : 0;
      for (let i = nd - 1; i >= 0; i--) {
        let s = col[o + i]!;
        for (let j = i + 1; j < nd; j++) s -= R[i + j * nd]! * col[o + j]!;
        col[o + i] = s / R[i + i * nd]!;
      }
    }
  }
  return { P, p0 };
}

/** Scratch for one vector. */
export class LrScratch {
  readonly t: Float64Array;
  readonly v: Float64Array;
  readonly u: Int32Array;
  readonly natural: Int32Array;
  constructor(readonly model: RealModel) {
    this.t = new Float64Array(model.nd);
    this.v = new Float64Array(model.nd);
    this.u = new Int32Array(model.nd);
    this.natural = naturalDimOrder(model);
  }
}

/** Detects the vector at y[yOff ..]; writes its nt symbols to out[oOff ..]. */
export function detectLr(
  prep: LrPrep,
  variant: LrVariant,
  y: Float64Array,
  yOff: number,
  s: LrScratch,
  out: Int32Array,
  oOff: number,
): void {
  const { rows, nd, q } = s.model;
  const { P, p0, R, Z } = prep;
  const { t, v, u } = s;
  for (let k = 0; k < nd; k++) t[k] = p0[k]!;
  for (let r = 0; r < rows; r++) {
    const yr = y[yOff + r]!;
    for (let k = 0; k < nd; k++) t[k] += P[k + r * nd]! * yr;
  }
  if (variant === 'sic') {
    // Successive interference cancellation from the last reduced dimension, rounding each.
    for (let i = nd - 1; i >= 0; i--) {
      let b = t[i]!;
      for (let j = i + 1; j < nd; j++) b -= R[i + j * nd]! * v[j]!;
      v[i] = Math.round(b / R[i + i * nd]!);
    }
  } else {
    for (let k = 0; k < nd; k++) v[k] = Math.round(t[k]!);
  }
  // Back to the symbol lattice, u = Z v, and quantise to the constellation.
  for (let i = 0; i < nd; i++) {
    let x = 0;
    for (let k = 0; k < nd; k++) x += Z[i + k * nd]! * v[k]!;
    u[i] = x < 0 ? 0 : x > q - 1 ? q - 1 : x;
  }
  symbolsOfLevels(s.model, u, 0, s.natural, out, oOff);
}
