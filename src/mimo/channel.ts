/**
 * The flat-fading link around a channel (the channels themselves: src/channels, rayleighChannels and
 * the models): random symbols, y = H s + w with w ~ CN(0, N0 I), and the SNR <-> N0 conversion of
 * DESIGN.md.
 *
 * Draw order (fixed, so a GPU generator can reproduce it from the same Philox stream): noise in the
 * order of the y array (vector, antenna, re, im). All complex Gaussians use rng.normal() * sqrt(var/2).
 */
import { InvalidArgumentError, InvalidInputError, type Philox } from '../core/index.js';
import { constellation } from './modulation.js';
import type { Modulation } from './types.js';

function checkDim(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got ${v}`);
}

/** Adds CN(0, noiseVar) to every complex sample of `y` (in place); returns y. */
export function addNoise(rng: Philox, y: Float64Array, noiseVar: number): Float64Array {
  if (!(noiseVar >= 0) || !Number.isFinite(noiseVar))
    throw new InvalidArgumentError(`noise variance must be finite and >= 0, got ${noiseVar}`);
  const sd = Math.sqrt(noiseVar / 2);
  for (let i = 0; i < y.length; i++) y[i] = y[i]! + rng.normal() * sd;
  return y;
}

/**
 * Noise-free received vectors y_v = H_c s_v, c = floor(v / vectorsPerChannel).
 * H: channels x (nr x nt) complex; s: vectors x nt complex. Returns vectors x nr complex.
 */
export function transmit(
  H: Float64Array,
  s: Float64Array,
  nt: number,
  nr: number,
  vectorsPerChannel = 1,
): Float64Array {
  checkDim('nt', nt);
  checkDim('nr', nr);
  checkDim('vectorsPerChannel', vectorsPerChannel);
  if (s.length % (2 * nt) !== 0)
    throw new InvalidInputError('SHAPE_MISMATCH', `s has ${s.length} reals, not a multiple of 2 nt = ${2 * nt}`);
  const vectors = s.length / (2 * nt);
  const channels = Math.ceil(vectors / vectorsPerChannel);
  if (H.length !== 2 * channels * nr * nt) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `H has ${H.length} reals, expected ${2 * channels * nr * nt} for ${vectors} vectors at ${vectorsPerChannel} per channel`,
    );
  }
  const y = new Float64Array(2 * vectors * nr);
  for (let v = 0; v < vectors; v++) {
    const hb = 2 * Math.floor(v / vectorsPerChannel) * nr * nt;
    for (let i = 0; i < nr; i++) {
      let re = 0,
        im = 0;
      for (let j = 0; j < nt; j++) {
        const hr = H[hb + 2 * (i + j * nr)]!,
          hi = H[hb + 2 * (i + j * nr) + 1]!;
        const sr = s[2 * (v * nt + j)]!,
          si = s[2 * (v * nt + j) + 1]!;
        re += hr * sr - hi * si;
        im += hr * si + hi * sr;
      }
      y[2 * (v * nr + i)] = re;
      y[2 * (v * nr + i) + 1] = im;
    }
  }
  return y;
}

/** `count` uniformly random symbol indices (count) and their symbols (count complex, interleaved: 2 * count numbers). */
export function randomSymbols(
  rng: Philox,
  count: number,
  mod: Modulation,
): { indices: Int32Array; symbols: Float64Array } {
  checkDim('count', count);
  const c = constellation(mod);
  const indices = new Int32Array(count);
  const symbols = new Float64Array(2 * count);
  for (let i = 0; i < count; i++) {
    const k = rng.int(c.size);
    indices[i] = k;
    symbols[2 * i] = c.points[2 * k]!;
    symbols[2 * i + 1] = c.points[2 * k + 1]!;
  }
  return { indices, symbols };
}

/** Which SNR a figure is: Es/N0 (energy per symbol) or Eb/N0 (per information bit). */
export type SnrType = 'esn0' | 'ebn0';

/** Es/N0 in dB of an SNR given as Es/N0 or Eb/N0 (Eb/N0 = Es/N0 - 10 log10(bps * codeRate)). */
export function esn0Db(snrDb: number, snrType: SnrType, bitsPerSymbol: number, codeRate = 1): number {
  if (!Number.isFinite(snrDb)) throw new InvalidArgumentError(`SNR must be finite, got ${snrDb}`);
  if (snrType === 'esn0') return snrDb;
  if (snrType !== 'ebn0') throw new InvalidArgumentError(`SNR type must be 'esn0' or 'ebn0', got '${String(snrType)}'`);
  if (!Number.isInteger(bitsPerSymbol) || bitsPerSymbol < 1)
    throw new InvalidArgumentError(`bitsPerSymbol must be a positive integer, got ${bitsPerSymbol}`);
  if (!(codeRate > 0 && codeRate <= 1)) throw new InvalidArgumentError(`code rate must be in (0, 1], got ${codeRate}`);
  return snrDb + 10 * Math.log10(bitsPerSymbol * codeRate);
}

/** N0, the complex noise variance per receive antenna, for unit symbol energy (Es = 1). */
export function snrToNoiseVar(snrDb: number, snrType: SnrType, bitsPerSymbol: number, codeRate = 1): number {
  return 10 ** (-esn0Db(snrDb, snrType, bitsPerSymbol, codeRate) / 10);
}
