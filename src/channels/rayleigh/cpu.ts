/**
 * iid Rayleigh flat fading on the CPU: every entry CN(0, 1), drawn as rng.normal() * sqrt(1/2) for
 * the real part then the imaginary part, channels in order and entries column-major within a
 * channel, so a channel reads 4 nr nt words of its stream (a Philox block per entry) and a GPU
 * generator can draw any channel alone (rayleigh.cu).
 */
import { InvalidArgumentError, type Philox } from '../../core/index.js';
import { drawSpan } from '../span.js';
import type { ChannelGenerator, ChannelShape } from '../types.js';

/** Options of rayleighChannels(). */
export interface ChannelOptions {
  /** Exponential correlation R_ij = rho^|i-j| at the receiver and the transmitter, rho in [0, 1). */
  correlation?: { rx: number; tx: number };
}

function checkDim(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got ${v}`);
}

/** Lower Cholesky factor L (row-major n x n) of R_ij = rho^|i-j|, so that L L^T = R. */
function exponentialCorrelationFactor(n: number, rho: number, what: string): Float64Array {
  if (!(rho >= 0 && rho < 1)) throw new InvalidArgumentError(`${what} correlation must be in [0, 1), got ${rho}`);
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = rho ** (i - j);
      for (let k = 0; k < j; k++) s -= L[i * n + k]! * L[j * n + k]!;
      L[i * n + j] = i === j ? Math.sqrt(s) : s / L[j * n + j]!;
    }
  }
  return L;
}

/**
 * `count` channel matrices nr x nt with iid CN(0, 1) entries (column-major, interleaved complex;
 * the arguments give nt before nr, as everywhere in the API), or, with `correlation`,
 * H = Lrx Hw Ltx^T where Lrx Lrx^T = R_rx, Ltx Ltx^T = R_tx (the Kronecker model
 * R_rx^{1/2} Hw R_tx^{1/2}, same distribution).
 */
export function rayleighChannels(
  rng: Philox,
  count: number,
  nt: number,
  nr: number,
  opts: ChannelOptions = {},
): Float64Array {
  checkDim('count', count);
  checkDim('nt', nt);
  checkDim('nr', nr);
  const size = nr * nt;
  const H = new Float64Array(2 * count * size);
  const sd = Math.SQRT1_2;
  for (let i = 0; i < H.length; i++) H[i] = rng.normal() * sd;
  const corr = opts.correlation;
  if (!corr || (corr.rx === 0 && corr.tx === 0)) return H;
  const Lr = exponentialCorrelationFactor(nr, corr.rx, 'rx');
  const Lt = exponentialCorrelationFactor(nt, corr.tx, 'tx');
  const tmp = new Float64Array(2 * size);
  for (let c = 0; c < count; c++) {
    const base = 2 * c * size;
    // tmp = Lr * Hw
    for (let j = 0; j < nt; j++) {
      for (let i = 0; i < nr; i++) {
        let re = 0,
          im = 0;
        for (let k = 0; k <= i; k++) {
          const l = Lr[i * nr + k]!;
          re += l * H[base + 2 * (k + j * nr)]!;
          im += l * H[base + 2 * (k + j * nr) + 1]!;
        }
        tmp[2 * (i + j * nr)] = re;
        tmp[2 * (i + j * nr) + 1] = im;
      }
    }
    // H = tmp * Lt^T: column j of the result = sum_k tmp[:, k] * Lt[j][k]
    for (let j = 0; j < nt; j++) {
      for (let i = 0; i < nr; i++) {
        let re = 0,
          im = 0;
        for (let k = 0; k <= j; k++) {
          const l = Lt[j * nt + k]!;
          re += tmp[2 * (i + k * nr)]! * l;
          im += tmp[2 * (i + k * nr) + 1]! * l;
        }
        H[base + 2 * (i + j * nr)] = re;
        H[base + 2 * (i + j * nr) + 1] = im;
      }
    }
  }
  return H;
}

/** The model's CPU generator: rayleighChannels on each stream of the span, from the first channel's words. */
export function rayleighGenerator(shape: ChannelShape): ChannelGenerator {
  const { nt, nr } = shape;
  return { draw: (span) => drawSpan(span, 4 * nr * nt, 2 * nr * nt, (rng, n) => rayleighChannels(rng, n, nt, nr)) };
}
