/**
 * The real-valued integer model shared by the tree searches (K-best, SSFE, N-way) and the
 * lattice-reduction-aided detectors.
 *
 *  - Square QAM: MRVD (the N-way paper, eq. 3): real dimension 2j is Re s_j, 2j+1 is Im s_j, and
 *    real row 2i is Re y_i, 2i+1 is Im y_i, so our interleaved y already is the real vector. Each
 *    real dimension is a Q-PAM (Q = sqrt M) with amplitudes scale * p, p odd in [-(Q-1), Q-1].
 *  - BPSK, s_j = x_j (1+j)/sqrt2 with x_j = +1 for bit 0 and -1 for bit 1: one real dimension per
 *    stream (Q = 2), its column the MRVD image of h_j (1+j)/sqrt2.
 *
 * The real matrix is built with its columns multiplied by `scale`, so the unknowns are the odd
 * integers p; a level index i in [0, Q) stands for p = 2i - (Q-1). Squared distances in this model
 * are exactly |y - H s|^2 of the complex model.
 */
import { UnsupportedError } from '../../core/index.js';
import type { Constellation } from '../modulation.js';

export interface RealModel {
  readonly nr: number;
  readonly nt: number;
  /** Real rows, 2 nr. */
  readonly rows: number;
  /** Real unknowns: 2 nt (QAM) or nt (BPSK). */
  readonly nd: number;
  /** Real dimensions per stream: 2 (QAM) or 1 (BPSK). */
  readonly dimsPerStream: 1 | 2;
  /** PAM levels per real dimension, Q. */
  readonly q: number;
  /** Amplitude of p = 1: a real dimension's amplitude is scale * p. */
  readonly scale: number;
  /** E[p^2] over the Q levels, (Q^2 - 1) / 3: the per-dimension prior energy in integer units. */
  readonly levelEnergy: number;
  readonly bitsPerSymbol: number;
  /** bitTable[symbol * bitsPerSymbol + b]: bit b of a symbol's label. */
  readonly bitTable: Uint8Array;
  /** Symbol index of a stream's level indices: [iRe * Q + iIm] (QAM) or [i] (BPSK). */
  readonly symbolOfLevels: Int32Array;
}

export function realModel(c: Constellation, nt: number, nr: number): RealModel {
  const common = { nr, nt, rows: 2 * nr, bitsPerSymbol: c.bitsPerSymbol, bitTable: c.bitTable };
  if (c.pam === null) {
    if (c.size !== 2) throw new UnsupportedError(`${c.modulation} has no PAM structure for a real-valued model`);
    // x = +1 (level index 1) is point 0 (bit 0), x = -1 (level index 0) is point 1.
    return { ...common, nd: nt, dimsPerStream: 1, q: 2, scale: 1, levelEnergy: 1, symbolOfLevels: Int32Array.of(1, 0) };
  }
  const q = c.pam.size;
  return {
    ...common,
    nd: 2 * nt,
    dimsPerStream: 2,
    q,
    scale: c.pam.scale,
    levelEnergy: (q * q - 1) / 3,
    symbolOfLevels: c.symbolOfLevels!,
  };
}

/** The real dimension order that puts streams in `streamOrder` (column c holds stream streamOrder[c]). */
export function dimOrderOfStreams(
  m: RealModel,
  streamOrder: ArrayLike<number>,
  out = new Int32Array(m.nd),
): Int32Array {
  const dps = m.dimsPerStream;
  for (let c = 0; c < m.nt; c++)
    for (let part = 0; part < dps; part++) out[c * dps + part] = streamOrder[c]! * dps + part;
  return out;
}

/** The identity dimension order. */
export function naturalDimOrder(m: RealModel): Int32Array {
  const o = new Int32Array(m.nd);
  for (let k = 0; k < m.nd; k++) o[k] = k;
  return o;
}

/**
 * Writes the rows x nd real matrix (column-major) of the complex nr x nt channel at H[hOff ..],
 * column k being real dimension dimOrder[k], scaled so that the unknowns are the odd integers p.
 */
export function fillRealMatrix(
  m: RealModel,
  H: Float64Array,
  hOff: number,
  dimOrder: ArrayLike<number>,
  out: Float64Array,
): Float64Array {
  const { nr, rows, scale } = m;
  for (let k = 0; k < m.nd; k++) {
    const d = dimOrder[k]!;
    const col = k * rows;
    if (m.dimsPerStream === 1) {
      // h (1 + j) / sqrt2 = ((hr - hi) + j (hr + hi)) / sqrt2
      const base = hOff + 2 * d * nr;
      for (let i = 0; i < nr; i++) {
        const hr = H[base + 2 * i]!,
          hi = H[base + 2 * i + 1]!;
        out[col + 2 * i] = (hr - hi) * Math.SQRT1_2;
        out[col + 2 * i + 1] = (hr + hi) * Math.SQRT1_2;
      }
    } else {
      const j = d >> 1,
        imagPart = d & 1;
      const base = hOff + 2 * j * nr;
      for (let i = 0; i < nr; i++) {
        const hr = H[base + 2 * i]! * scale,
          hi = H[base + 2 * i + 1]! * scale;
        // Column of Re s_j: (Re h, Im h); column of Im s_j: (-Im h, Re h).
        out[col + 2 * i] = imagPart ? -hi : hr;
        out[col + 2 * i + 1] = imagPart ? hr : hi;
      }
    }
  }
  return out;
}

/**
 * Stream symbols of one candidate: levels[lOff + k] is the level index of column k, which is real
 * dimension dimOrder[k]; writes the nt symbol indices to out[oOff ..].
 */
export function symbolsOfLevels(
  m: RealModel,
  levels: ArrayLike<number>,
  lOff: number,
  dimOrder: ArrayLike<number>,
  out: Int32Array,
  oOff: number,
): void {
  const { nt, q } = m;
  for (let j = 0; j < nt; j++) out[oOff + j] = 0;
  if (m.dimsPerStream === 1) {
    for (let k = 0; k < m.nd; k++) out[oOff + dimOrder[k]!] = levels[lOff + k]!;
  } else {
    for (let k = 0; k < m.nd; k++) {
      const d = dimOrder[k]!;
      out[oOff + (d >> 1)] += d & 1 ? levels[lOff + k]! : levels[lOff + k]! * q;
    }
  }
  for (let j = 0; j < nt; j++) out[oOff + j] = m.symbolOfLevels[out[oOff + j]!]!;
}

/**
 * The real model of a tree-search or lattice detector, which needs at least as many real receive
 * dimensions as real unknowns (its QR would be rank deficient otherwise).
 */
export function detectorRealModel(detector: string, c: Constellation, nt: number, nr: number): RealModel {
  const model = realModel(c, nt, nr);
  if (model.rows < model.nd) {
    throw new UnsupportedError(
      `${detector} needs at least as many real receive dimensions (2 nr = ${model.rows}) as real unknowns (${model.nd})`,
    );
  }
  return model;
}
