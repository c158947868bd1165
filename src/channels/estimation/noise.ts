/**
 * The noise variance N0 (per resource element and receive antenna) estimated from a slot's DM-RS
 * symbols. Two estimators:
 *
 * - 'free': the dimensions that carry no signal. With 1 or 2 layers CDM group 1's comb is empty
 *   (DM-RS symbols carry no data), so each of its REs is noise alone: E|y|^2 = N0 on any channel.
 *   A CDM group with one port (1 or 3 layers) leaves its odd OCC unused: z = (conj(r0) y(k0) -
 *   conj(r1) y(k0 + 2)) / sqrt 2 is noise alone when the channel is flat over the pair (E|z|^2 =
 *   N0), plus beta^2 |h(k0) - h(k0 + 2)|^2 / 2 otherwise. The estimate is the mean of |.|^2 over all
 *   of them.
 * - 'residual': the second differences of the despread LS estimates along each CDM group,
 *   e_n = h^_{n-1} - 2 h^_n + h^_{n+1}: for a channel linear over three pairs (12 subcarriers)
 *   they are noise alone, E|e_n|^2 = 6 N0 / (2 Ep), so N0^ = Ep mean |e_n|^2 / 3; a channel curved
 *   over 12 subcarriers (or not flat over a pair, with both ports of a group) adds to it.
 *
 * 'auto' (the default) takes 'free' where there is a free dimension (1 to 3 layers), else 'residual'.
 * Both are unbiased for a channel flat over the window they span.
 */
import { checkOptions, choice, InvalidArgumentError, option, type SchemaOf } from '../../core/index.js';
import type { DmrsPilots } from './dmrs.js';
import { checkReceived, despread } from './ls.js';

/** What estimateNoise() takes. */
export interface NoiseOptions {
  /** 'auto' (default), 'free' or 'residual' (see the module's comment). */
  method?: 'auto' | 'free' | 'residual';
}

/** estimateNoise()'s result. */
export interface NoiseEstimate {
  /** N0^, the noise variance of a resource element per receive antenna. */
  readonly noiseVariance: number;
  /** The estimator used. */
  readonly method: 'free' | 'residual';
  /** How many squared magnitudes it averaged. */
  readonly samples: number;
}

const SCHEMA: SchemaOf<NoiseOptions> = {
  method: option(choice(['auto', 'free', 'residual'] as const), 'noise estimator', { default: 'auto' }),
};

/**
 * N0 from the slot's received grid `y` (14 x K x nr complex at 2 ((l K + k) nr + i); only the DM-RS
 * symbols are read). InvalidArgumentError for a bad grid, or method 'free' with 4 layers (no free
 * dimension).
 */
export function estimateNoise(pilots: DmrsPilots, y: Float64Array, nr: number, options?: NoiseOptions): NoiseEstimate {
  const call = 'estimateNoise()';
  const o = checkOptions(options, SCHEMA, call);
  checkReceived(pilots, y, nr, call);
  const { config } = pilots;
  const hasFree = autoNoiseSum(config.layers) === 'free';
  const method = o.method ?? 'auto';
  if (method === 'free' && !hasFree)
    throw new InvalidArgumentError(`${call}: 4 layers leave no free DM-RS dimension; use method 'residual'`, {
      option: 'method',
      value: method,
    });
  return method === 'residual' || !hasFree ? residual(pilots, y, nr) : free(pilots, y, nr);
}

/** Terms a segment of a noise sum adds before its total joins the others (the GPU sums segments in parallel). */
export const NOISE_SEGMENT = 64;

/**
 * sum_t term(t) for t = 0 .. count - 1, in segments of NOISE_SEGMENT terms: each segment summed in
 * order from 0, then the segments' sums in order. The CUDA link sums the same way (a thread a
 * segment, then a thread a slot), so the two agree bit for bit.
 */
export function segmentedSum(count: number, term: (t: number) => number): number {
  let sum = 0;
  for (let t0 = 0; t0 < count; t0 += NOISE_SEGMENT) {
    const t1 = Math.min(count, t0 + NOISE_SEGMENT);
    let part = 0;
    for (let t = t0; t < t1; t++) part += term(t);
    sum += part;
  }
  return sum;
}

/**
 * The 'free' terms of a slot (D DM-RS symbols, K subcarriers, nr antennas, L layers), in their
 * order: first, with 1 or 2 layers, |y|^2 of CDM group 1's empty comb, t = (d K/2 + m) nr + i on
 * subcarrier 2m + 1; then, with 1 or 3 layers, |z|^2 / 2 of the single-port group's unused OCC,
 * t = A + (d K/4 + n) nr + i for pair n (A the first part's count). Returns the count of each part.
 */
export function freeTermCounts(D: number, K: number, nr: number, L: number): { empty: number; occ: number } {
  return { empty: L <= 2 ? D * (K / 2) * nr : 0, occ: L % 2 === 1 ? D * (K / 4) * nr : 0 };
}

/** The noise sums: estimateNoise()'s two methods and lmmseNoise()'s windows. */
export type NoiseSum = 'free' | 'residual' | 'lmmse';

/** The sum estimateNoise()'s 'auto' takes for L layers: 'free' while a DM-RS dimension is free (L < 4). */
export function autoNoiseSum(layers: number): 'free' | 'residual' {
  return layers < 4 ? 'free' : 'residual';
}

/**
 * The terms of a slot's noise sum (D DM-RS symbols, K subcarriers, nr antennas, L layers; W the
 * LMMSE window): what segmentedSum() adds, and the GPU's segments are counted from.
 */
export function noiseTermCount(sum: NoiseSum, D: number, K: number, nr: number, L: number, W = 1): number {
  if (sum === 'free') {
    const { empty, occ } = freeTermCounts(D, K, nr, L);
    return empty + occ;
  }
  return sum === 'residual' ? D * L * nr * (K / 4 - 2) : D * L * nr * Math.floor(K / 4 / W);
}

function free(pilots: DmrsPilots, y: Float64Array, nr: number): NoiseEstimate {
  const { config } = pilots;
  const K = config.subcarriers,
    M = K / 2,
    N = K / 4,
    D = config.symbols.length;
  const { empty } = freeTermCounts(D, K, nr, config.layers);
  // the group whose port 2g + 1 is unused: g = 0 for 1 layer, 1 for 3 layers
  const delta = config.layers >> 1;
  const r = pilots.sequence;
  const term = (t: number): number => {
    if (t < empty) {
      const i = t % nr,
        m = Math.floor(t / nr) % M,
        d = Math.floor(t / (nr * M));
      const at = 2 * ((config.symbols[d]! * K + 2 * m + 1) * nr + i);
      return y[at]! ** 2 + y[at + 1]! ** 2;
    }
    const u = t - empty;
    const i = u % nr,
      n = Math.floor(u / nr) % N,
      d = Math.floor(u / (nr * N));
    const p = 2 * (d * M + 2 * n);
    const r0r = r[p]!,
      r0i = r[p + 1]!,
      r1r = r[p + 2]!,
      r1i = r[p + 3]!;
    const y0 = 2 * ((config.symbols[d]! * K + 4 * n + delta) * nr + i),
      y1 = y0 + 4 * nr;
    const u0r = y[y0]!,
      u0i = y[y0 + 1]!,
      u1r = y[y1]!,
      u1i = y[y1 + 1]!;
    // conj(r0) y0 - conj(r1) y1 (|r| = 1); the 1/sqrt 2 is the halving
    const zr = r0r * u0r + r0i * u0i - (r1r * u1r + r1i * u1i);
    const zi = r0r * u0i - r0i * u0r - (r1r * u1i - r1i * u1r);
    return (zr * zr + zi * zi) / 2;
  };
  const count = noiseTermCount('free', D, K, nr, config.layers);
  return { noiseVariance: segmentedSum(count, term) / count, method: 'free', samples: count };
}

function residual(pilots: DmrsPilots, y: Float64Array, nr: number): NoiseEstimate {
  const { config } = pilots;
  const est = despread(pilots, y, nr);
  const N = est.pairs,
    v = est.values;
  // row q = (d L + j) nr + i of the pairs, its second differences at n = 1 .. N - 2
  const count = noiseTermCount('residual', config.symbols.length, config.subcarriers, nr, config.layers);
  const sum = segmentedSum(count, (t) => {
    const q = Math.floor(t / (N - 2)),
      n = 1 + (t % (N - 2));
    const a = 2 * (q * N + n);
    const er = v[a - 2]! - 2 * v[a]! + v[a + 2]!,
      ei = v[a - 1]! - 2 * v[a + 1]! + v[a + 3]!;
    return er * er + ei * ei;
  });
  return { noiseVariance: (config.pilotPower * sum) / count / 3, method: 'residual', samples: count };
}
