/**
 * Real-valued decompositions of the complex model y = H s + w.
 *
 *  - RVD (the PSD paper, eq. 3): x = [Re s; Im s], y_r = [Re y; Im y], H_r = [Re H  -Im H; Im H  Re H].
 *  - MRVD (the N-way paper, eq. 3): real and imaginary part of the same symbol are neighbours:
 *    x = [Re s0, Im s0, Re s1, Im s1, ...], y_r = [Re y0, Im y0, ...], and entry (i, j) of H becomes
 *    the 2 x 2 block [Re h  -Im h; Im h  Re h] at rows 2i, 2i+1 and columns 2j, 2j+1.
 *
 * Complex inputs are interleaved re/im, matrices column-major (nr x nt); real outputs are
 * column-major (2 nr x 2 nt). The offset arguments let callers work inside batches without copies.
 */
import { InvalidArgumentError, InvalidInputError } from '../../core/index.js';

/** Real-valued decomposition of a complex system: `rvd` [Re; Im] stacked, `mrvd` re/im of each entry interleaved. */
export type RealLayout = 'rvd' | 'mrvd';

/** Position in the real vector of the real (part = 0) or imaginary (part = 1) part of complex entry j of n. */
export function realIndex(layout: RealLayout, j: number, part: 0 | 1, n: number): number {
  return layout === 'rvd' ? j + part * n : 2 * j + part;
}

/** Writes the real 2nr x 2nt matrix of the complex nr x nt matrix at Hc[hOff ..] into out[outOff ..]. */
export function realMatrix(
  layout: RealLayout,
  Hc: Float64Array,
  hOff: number,
  nt: number,
  nr: number,
  out: Float64Array,
  outOff = 0,
): Float64Array {
  const m = 2 * nr;
  for (let j = 0; j < nt; j++) {
    const cr = realIndex(layout, j, 0, nt),
      ci = realIndex(layout, j, 1, nt);
    for (let i = 0; i < nr; i++) {
      const re = Hc[hOff + 2 * (i + j * nr)]!,
        im = Hc[hOff + 2 * (i + j * nr) + 1]!;
      const rr = realIndex(layout, i, 0, nr),
        ri = realIndex(layout, i, 1, nr);
      out[outOff + rr + cr * m] = re;
      out[outOff + ri + cr * m] = im;
      out[outOff + rr + ci * m] = -im;
      out[outOff + ri + ci * m] = re;
    }
  }
  return out;
}

/** Writes the real 2n vector of the complex n vector at yc[yOff ..] into out[outOff ..]. */
export function realVector(
  layout: RealLayout,
  yc: Float64Array,
  yOff: number,
  n: number,
  out: Float64Array,
  outOff = 0,
): Float64Array {
  for (let i = 0; i < n; i++) {
    out[outOff + realIndex(layout, i, 0, n)] = yc[yOff + 2 * i]!;
    out[outOff + realIndex(layout, i, 1, n)] = yc[yOff + 2 * i + 1]!;
  }
  return out;
}

/** Inverse of realVector: the complex n vector (interleaved) of a real 2n vector. */
export function complexVector(
  layout: RealLayout,
  x: Float64Array,
  xOff: number,
  n: number,
  out: Float64Array,
  outOff = 0,
): Float64Array {
  for (let i = 0; i < n; i++) {
    out[outOff + 2 * i] = x[xOff + realIndex(layout, i, 0, n)]!;
    out[outOff + 2 * i + 1] = x[xOff + realIndex(layout, i, 1, n)]!;
  }
  return out;
}

function checkBatch(H: Float64Array, channels: number, nt: number, nr: number): void {
  for (const [name, v] of [
    ['channels', channels],
    ['nt', nt],
    ['nr', nr],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got ${v}`);
  }
  if (H.length !== 2 * channels * nr * nt) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `H has ${H.length} reals, expected 2 x channels x nr x nt = 2 x ${channels} x ${nr} x ${nt} = ${2 * channels * nr * nt}`,
    );
  }
}

/** RVD of a batch of complex channels: channels matrices of 2nr x 2nt, back to back. */
export function rvd(H: Float64Array, channels: number, nt: number, nr: number): Float64Array {
  checkBatch(H, channels, nt, nr);
  const out = new Float64Array(4 * channels * nr * nt);
  for (let c = 0; c < channels; c++) realMatrix('rvd', H, 2 * c * nr * nt, nt, nr, out, 4 * c * nr * nt);
  return out;
}

/** MRVD of a batch of complex channels (the N-way paper's interleaved layout): channels matrices of 2nr x 2nt, back to back. */
export function mrvd(H: Float64Array, channels: number, nt: number, nr: number): Float64Array {
  checkBatch(H, channels, nt, nr);
  const out = new Float64Array(4 * channels * nr * nt);
  for (let c = 0; c < channels; c++) realMatrix('mrvd', H, 2 * c * nr * nt, nt, nr, out, 4 * c * nr * nt);
  return out;
}

/** Real vectors (length 2n each) of a batch of complex vectors (n complex, interleaved, each) in the given layout; same length as y. */
export function realVectors(layout: RealLayout, y: Float64Array, n: number): Float64Array {
  if (y.length % (2 * n) !== 0)
    throw new InvalidInputError('SHAPE_MISMATCH', `y has ${y.length} reals, not a multiple of 2n = ${2 * n}`);
  const out = new Float64Array(y.length);
  for (let v = 0; v < y.length / (2 * n); v++) realVector(layout, y, 2 * v * n, n, out, 2 * v * n);
  return out;
}
