/**
 * Least-squares channel estimation from the DM-RS of one slot. A port's two pilots of a pair
 * (k' = 0, 1 on subcarriers 4n + delta and 4n + delta + 2) are despread with its OCC, the channel
 * taken flat over the pair: the other port of the CDM group then cancels, and the estimate
 *   h^(n) = (conj(a0) y(k0) + conj(a1) y(k0 + 2)) / (2 Ep)
 * has noise variance N0 / (2 Ep) (Ep = beta^2, |r| = 1). It is placed at the pair's centre,
 * subcarrier 4n + delta + 1, interpolated linearly in frequency between centres (held flat beyond
 * the first and last), then in time: linear between DM-RS symbols, held before the first and after
 * the last.
 */
import { InvalidArgumentError, show } from '../../core/index.js';
import { SYMBOLS_PER_SLOT } from '../ofdm/grid.js';
import type { DmrsConfig, DmrsPilots } from './dmrs.js';

/** The despread LS estimates of a slot's pilot pairs. */
export interface PilotEstimates {
  /** The slot's pilots. */
  readonly pilots: DmrsPilots;
  /** Receive antennas. */
  readonly nr: number;
  /** Pairs of a CDM group in a symbol: N = K/4. */
  readonly pairs: number;
  /**
   * DM-RS symbols x layers x nr x N complex: DM-RS symbol d, layer j, receive antenna i, pair n at
   * 2 (((d L + j) nr + i) N + n). Pair n of layer j covers subcarriers 4n + delta_j and
   * 4n + delta_j + 2; its estimate stands for the centre, 4n + delta_j + 1.
   */
  readonly values: Float64Array;
  /**
   * The same pairs despread with the CDM group's other OCC, s (conj(a0) y(k0) - conj(a1) y(k0 + 2)),
   * in values' layout: half layer j's channel difference over the pair, plus the other port's mean
   * when it carries a layer (then this is that layer's values). LMMSE reads both.
   */
  readonly opposite: Float64Array;
}

/** The most receive antennas the estimators take. */
const MAX_NR = 64;

/**
 * InvalidArgumentError unless `y` holds a slot's received grid for `nr` antennas:
 * 14 x K x nr complex, (symbol l, subcarrier k, antenna i) at 2 ((l K + k) nr + i).
 */
export function checkReceived(pilots: DmrsPilots, y: Float64Array, nr: number, call: string): void {
  if (!Number.isInteger(nr) || nr < 1 || nr > MAX_NR)
    throw new InvalidArgumentError(
      `${call}: the receive antennas must be an integer in [1, ${MAX_NR}], got ${show(nr)}`,
      {
        option: 'nr',
        value: show(nr),
      },
    );
  const want = 2 * SYMBOLS_PER_SLOT * pilots.config.subcarriers * nr;
  if (!(y instanceof Float64Array) || y.length !== want)
    throw new InvalidArgumentError(
      `${call}: the received grid must be a Float64Array of 2 x 14 x ${pilots.config.subcarriers} x ${nr} = ${want} numbers, got ${y instanceof Float64Array ? `${y.length}` : show(y)}`,
      { option: 'y', value: y instanceof Float64Array ? y.length : show(y) },
    );
}

/** `out` when given and of the slot's estimate length (InvalidArgumentError otherwise), else a new array. */
export function outputFor(config: DmrsConfig, nr: number, out: Float64Array | undefined, call: string): Float64Array {
  const want = 2 * SYMBOLS_PER_SLOT * config.subcarriers * nr * config.layers;
  if (out === undefined) return new Float64Array(want);
  if (!(out instanceof Float64Array) || out.length !== want)
    throw new InvalidArgumentError(`${call}: out must be a Float64Array of ${want} numbers`, {
      option: 'out',
      value: out instanceof Float64Array ? out.length : show(out),
    });
  return out;
}

/** The despread LS estimates of every pilot pair (see PilotEstimates for the layout). */
export function lsPilotEstimates(pilots: DmrsPilots, y: Float64Array, nr: number): PilotEstimates {
  checkReceived(pilots, y, nr, 'lsPilotEstimates()');
  return despread(pilots, y, nr);
}

/** lsPilotEstimates without the checks. */
export function despread(pilots: DmrsPilots, y: Float64Array, nr: number): PilotEstimates {
  const { config } = pilots;
  const K = config.subcarriers,
    L = config.layers,
    M = K / 2,
    N = K / 4;
  const D = config.symbols.length;
  const values = new Float64Array(2 * D * L * nr * N);
  const opposite = new Float64Array(2 * D * L * nr * N);
  const s = 1 / (2 * config.pilotPower);
  for (let d = 0; d < D; d++) {
    const row = config.symbols[d]! * K;
    for (let j = 0; j < L; j++) {
      const a = pilots.values[j]!;
      const delta = config.ports[j]!.delta;
      const base = (d * L + j) * nr * N;
      for (let n = 0; n < N; n++) {
        const p = 2 * (d * M + 2 * n);
        const a0r = a[p]!,
          a0i = a[p + 1]!,
          a1r = a[p + 2]!,
          a1i = a[p + 3]!;
        const y0 = 2 * (row + 4 * n + delta) * nr,
          y1 = y0 + 4 * nr;
        for (let i = 0; i < nr; i++) {
          const u0r = y[y0 + 2 * i]!,
            u0i = y[y0 + 2 * i + 1]!,
            u1r = y[y1 + 2 * i]!,
            u1i = y[y1 + 2 * i + 1]!;
          const at = 2 * (base + i * N + n);
          values[at] = s * (a0r * u0r + a0i * u0i + a1r * u1r + a1i * u1i);
          values[at + 1] = s * (a0r * u0i - a0i * u0r + a1r * u1i - a1i * u1r);
          opposite[at] = s * (a0r * u0r + a0i * u0i - a1r * u1r - a1i * u1i);
          opposite[at + 1] = s * (a0r * u0i - a0i * u0r - a1r * u1i + a1i * u1r);
        }
      }
    }
  }
  return { pilots, nr, pairs: N, values, opposite };
}

/**
 * LS's linear interpolation in frequency, per CDM group delta (0, 1): subcarrier k lies between pair
 * centres below[delta][k] and that + 1 (K/4 >= 3 pairs), at frac[delta][k] in [0, 1]; held beyond
 * the ends.
 */
export function frequencyInterpolation(K: number): { below: Int32Array[]; frac: Float64Array[] } {
  const N = K / 4;
  const below: Int32Array[] = [],
    frac: Float64Array[] = [];
  for (const delta of [0, 1]) {
    const nk = new Int32Array(K),
      tk = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      const x = (k - delta - 1) / 4;
      const n = Math.floor(x);
      if (n < 0) nk[k] = 0;
      else if (n >= N - 1) {
        nk[k] = N - 2;
        tk[k] = 1;
      } else {
        nk[k] = n;
        tk[k] = x - n;
      }
    }
    below.push(nk);
    frac.push(tk);
  }
  return { below, frac };
}

/**
 * The mean over layers and subcarriers of (1 - t)^2 + t^2, t = frac: the factor by which LS's
 * interpolation in frequency scales the pairs' noise variance N0 / (2 Ep) (neighbouring pairs'
 * noises are independent).
 */
export function frequencyNoiseGain(config: DmrsConfig): number {
  let g = noiseGains.get(config);
  if (g === undefined) {
    const K = config.subcarriers;
    const { frac } = frequencyInterpolation(K);
    g = 0;
    for (const port of config.ports) for (const t of frac[port.delta]!) g += (1 - t) * (1 - t) + t * t;
    g /= K * config.ports.length;
    noiseGains.set(config, g);
  }
  return g;
}

/** frequencyNoiseGain per configuration (estimateSlot asks it every slot). */
const noiseGains = new WeakMap<DmrsConfig, number>();

/**
 * The LS estimate on every resource element of the slot: 14 x K x (nr x layers complex matrix,
 * column-major, interleaved re/im), entry (receive i, layer j) of (symbol l, subcarrier k) at
 * 2 ((l K + k) nr L + i + j nr): the channels' layout (src/channels/types.ts) with nt = layers.
 * `y` is the slot's received grid, 14 x K x nr complex at 2 ((l K + k) nr + i) (only the DM-RS
 * symbols are read); `out` may take the result.
 */
export function lsEstimate(pilots: DmrsPilots, y: Float64Array, nr: number, out?: Float64Array): Float64Array {
  const call = 'lsEstimate()';
  checkReceived(pilots, y, nr, call);
  const H = outputFor(pilots.config, nr, out, call);
  const est = despread(pilots, y, nr);
  const { config } = pilots;
  const K = config.subcarriers,
    L = config.layers,
    N = K / 4;
  const { below, frac } = frequencyInterpolation(K);
  const v = est.values;
  // subcarrier outermost: the writes run through the output in order
  config.symbols.forEach((l, d) => {
    let at = 2 * l * K * nr * L;
    for (let k = 0; k < K; k++)
      for (let j = 0; j < L; j++) {
        const delta = config.ports[j]!.delta;
        const n = below[delta]![k]!,
          t = frac[delta]![k]!,
          u = 1 - t;
        let p = 2 * ((d * L + j) * nr * N + n);
        for (let i = 0; i < nr; i++, p += 2 * N, at += 2) {
          H[at] = u * v[p]! + t * v[p + 2]!;
          H[at + 1] = u * v[p + 1]! + t * v[p + 3]!;
        }
      }
  });
  interpolateTime(config, nr, H);
  return H;
}

/**
 * Fills the slot's other symbols of `H` (the estimate layout) from its DM-RS symbols, which must
 * hold their estimates: linear between neighbouring DM-RS symbols, held before the first and after
 * the last.
 */
export function interpolateTime(config: DmrsConfig, nr: number, H: Float64Array): void {
  const sym = config.symbols;
  const size = 2 * config.subcarriers * nr * config.layers;
  const first = sym[0]!,
    last = sym[sym.length - 1]!;
  const block = (l: number) => H.subarray(l * size, (l + 1) * size);
  for (let l = 0; l < first; l++) H.copyWithin(l * size, first * size, (first + 1) * size);
  for (let l = last + 1; l < SYMBOLS_PER_SLOT; l++) H.copyWithin(l * size, last * size, (last + 1) * size);
  for (let d = 0; d + 1 < sym.length; d++) {
    const a = sym[d]!,
      b = sym[d + 1]!;
    const A = block(a),
      B = block(b);
    for (let l = a + 1; l < b; l++) {
      const t = (l - a) / (b - a);
      const C = block(l);
      for (let q = 0; q < size; q++) C[q] = A[q]! + t * (B[q]! - A[q]!);
    }
  }
}
