/**
 * The real-valued tree-search model shared by the sphere decoder and the PSD: y_r = H_r x + w_r
 * with every x_d drawn from one equally spaced real alphabet, and its (sorted) QR H_r P = Q R, so
 * that ||y_r - H_r x||^2 = ||Q^T y_r - R x_P||^2 + const.
 *
 *  - Square QAM: the RVD of the PSD paper, x = [Re s; Im s] (2 nt dims), alphabet = the PAM levels.
 *  - BPSK: s = a (1 + j)/sqrt2 with a = +-1, so x = a (nt dims) and H_r = [Re H'; Im H'] with
 *    H' = H (1 + j)/sqrt2; alphabet {-1, +1} (level 0 = -1 is symbol 1, level 1 = +1 is symbol 0).
 *
 * Levels are indexed 0 .. q-1 in ascending amplitude: amplitude(i) = (2 i - (q - 1)) * scale.
 */
import type { Constellation } from '../modulation.js';
import { realMatrix, realVector } from './rvd.js';
import { applyQt, qrInto, type QrOrdering } from './qr.js';
import { complexSortedQrInto } from './complex.js';

export interface RealModel {
  readonly nr: number;
  readonly nt: number;
  /** Rows of H_r (2 nr). */
  readonly m: number;
  /** Real dimensions (2 nt, or nt for BPSK). */
  readonly n: number;
  /** Alphabet size per dimension. */
  readonly q: number;
  /** Half the spacing of the alphabet. */
  readonly scale: number;
  readonly constellation: Constellation;
}

export function realModel(c: Constellation, nt: number, nr: number): RealModel {
  if (c.pam === null) return { nr, nt, m: 2 * nr, n: nt, q: 2, scale: 1, constellation: c };
  return { nr, nt, m: 2 * nr, n: 2 * nt, q: c.pam.size, scale: c.pam.scale, constellation: c };
}

/** Writes H_r (m x n column-major) of the complex channel at H[hOff] into out. */
export function realChannelInto(model: RealModel, H: Float64Array, hOff: number, out: Float64Array): void {
  const { nr, nt, m } = model;
  if (model.constellation.pam !== null) {
    realMatrix('rvd', H, hOff, nt, nr, out, 0);
    return;
  }
  const a = Math.SQRT1_2;
  for (let j = 0; j < nt; j++) {
    for (let i = 0; i < nr; i++) {
      const hr = H[hOff + 2 * (i + j * nr)]!,
        hi = H[hOff + 2 * (i + j * nr) + 1]!;
      out[i + j * m] = a * (hr - hi); // Re(h (1 + j)/sqrt2)
      out[nr + i + j * m] = a * (hr + hi); // Im(h (1 + j)/sqrt2)
    }
  }
}

/** Writes y_r (length m) of the complex received vector at y[yOff] into out. */
export function realReceivedInto(model: RealModel, y: Float64Array, yOff: number, out: Float64Array): void {
  realVector('rvd', y, yOff, model.nr, out, 0);
}

/**
 * Per-channel triangular form: H_r[:, perm] = Q R (real R, n x n). With the 'real' method Q is the
 * real m x n factor of H_r; with 'complex' (square QAM) Q holds the complex nr x nt factor of H
 * and tree positions 2k, 2k+1 are Re and Im of stream perm[2k] (the MRVD of the complex QR).
 */
export interface TriangularChannel {
  readonly Hr: Float64Array;
  /** Which factorisation filled Q (set by triangularizeInto). */
  complex: boolean;
  readonly Q: Float64Array;
  /** Complex R (nt x nt) for the 'complex' method. */
  readonly Rc: Float64Array;
  readonly R: Float64Array;
  readonly perm: Int32Array;
  /** QR scratch (column norms, residual norms). */
  readonly norms: Float64Array;
  readonly resid: Float64Array;
}

export function allocTriangular(model: RealModel): TriangularChannel {
  const { m, n } = model;
  return {
    Hr: new Float64Array(m * n),
    complex: false,
    Q: new Float64Array(m * n),
    Rc: new Float64Array(2 * model.nt * model.nt),
    R: new Float64Array(n * n),
    perm: new Int32Array(n),
    norms: new Float64Array(n),
    resid: new Float64Array(n),
  };
}

/**
 * Builds the triangular form of the channel at H[hOff] into t (no allocation).
 *  - 'real': H_r by RVD and its real QR sorted by `ordering` (the PSD paper's model);
 *  - 'complex': the complex SQRD of H, expanded to the real R by MRVD (square QAM only; BPSK falls
 *    back to 'real'). Same search tree up to the order of the real positions, a third of the work.
 */
export function triangularizeInto(
  model: RealModel,
  H: Float64Array,
  hOff: number,
  ordering: QrOrdering,
  t: TriangularChannel,
  method: 'real' | 'complex' = 'real',
): void {
  if (method === 'complex' && model.constellation.pam !== null) {
    const { nr, nt, n } = model;
    complexSortedQrInto(H, hOff, nt, nr, t.Q, t.Rc, t.perm, t.resid);
    // perm holds the stream order in its first nt entries: spread it to the 2nt real positions.
    for (let k = nt - 1; k >= 0; k--) {
      const s = t.perm[k]!;
      t.perm[2 * k] = s;
      t.perm[2 * k + 1] = nt + s; // RVD numbering: Re s -> s, Im s -> nt + s
    }
    const R = t.R,
      Rc = t.Rc;
    R.fill(0);
    for (let j = 0; j < nt; j++) {
      for (let i = 0; i <= j; i++) {
        const re = Rc[2 * (i + j * nt)]!,
          im = Rc[2 * (i + j * nt) + 1]!;
        R[2 * i + 2 * j * n] = re;
        R[2 * i + (2 * j + 1) * n] = -im;
        R[2 * i + 1 + 2 * j * n] = im;
        R[2 * i + 1 + (2 * j + 1) * n] = re;
      }
    }
    t.complex = true;
    return;
  }
  realChannelInto(model, H, hOff, t.Hr);
  qrInto(t.Hr, 0, model.m, model.n, ordering, t.Q, t.R, t.perm, t.norms, t.resid);
  t.complex = false;
}

/** yHat = Q^T y_r for the vector at y[yOff] (interleaved Q^H y for the complex method); yr is scratch of length m. */
export function rotateReceived(
  model: RealModel,
  t: TriangularChannel,
  y: Float64Array,
  yOff: number,
  yr: Float64Array,
  yHat: Float64Array,
): void {
  if (t.complex) {
    const { nr, nt } = model,
      Q = t.Q;
    for (let k = 0; k < nt; k++) {
      let re = 0,
        im = 0;
      const c = 2 * k * nr;
      for (let i = 0; i < nr; i++) {
        const qr = Q[c + 2 * i]!,
          qi = Q[c + 2 * i + 1]!,
          a = y[yOff + 2 * i]!,
          b = y[yOff + 2 * i + 1]!;
        re += qr * a + qi * b;
        im += qr * b - qi * a;
      }
      yHat[2 * k] = re;
      yHat[2 * k + 1] = im;
    }
    return;
  }
  realReceivedInto(model, y, yOff, yr);
  applyQt(t.Q, model.m, model.n, yr, 0, yHat, 0);
}

/**
 * Symbol indices of a real solution: levelAt[k] is the level index of tree position k (column
 * perm[k] of H_r). Writes nt symbols to out[off ..].
 */
export function symbolsFromLevels(
  model: RealModel,
  perm: Int32Array,
  levelAt: Int32Array,
  out: Int32Array,
  off: number,
  scratch: Int32Array,
): void {
  const { nt, n, q } = model;
  for (let k = 0; k < n; k++) scratch[perm[k]!] = levelAt[k]!;
  const c = model.constellation;
  if (c.pam === null) {
    for (let j = 0; j < nt; j++) out[off + j] = scratch[j] === 1 ? 0 : 1;
    return;
  }
  const table = c.symbolOfLevels!;
  for (let j = 0; j < nt; j++) out[off + j] = table[scratch[j]! * q + scratch[nt + j]!]!;
}
