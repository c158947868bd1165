/**
 * The error of an estimate interpolated in time (interpolateTime: linear between neighbouring DM-RS
 * symbols a < b, held before the first and after the last) on the data symbols, for a channel of
 * unit power per entry whose time correlation is rho (time-correlation.ts) and whose DM-RS symbol
 * estimates have error e of variance s2. At data symbol l the estimate is w1 h^(a) + w2 h^(b)
 * (held: w1 = 1, w2 = 0), and with rho_xy = rho((x - y) T), T the symbol duration,
 *
 *   E|h(l) - h^(l)|^2 = D(l) + s2 A(l) + c B(l) + s C(l),
 *   D = 1 + w1^2 + w2^2 - 2 w1 rho_la - 2 w2 rho_lb + 2 w1 w2 rho_ab   (the Doppler's part)
 *   A = w1^2 + w2^2,   B = 2 w1 w2 rho_ab,
 *   C = 2 (w1 rho_la + w2 rho_lb - w1^2 - w2^2 - 2 w1 w2 rho_ab),
 *
 * computed with w1 + w2 = 1 as D = 2 (u_la + u_lb - u_ab), C = -2 (u_la + u_lb - 2 u_ab), u_la =
 * w1 (1 - rho_la), u_lb = w2 (1 - rho_lb), u_ab = w1 w2 (1 - rho_ab): exactly 0 for a static channel.
 *
 * where c = E[e_a conj(e_b)] / rho_ab is the part of s2 the channel leaves (the estimates' errors at
 * two symbols correlate through it) and s = E[h_a conj(e_a)]: for LS both are 0 (its error is the
 * pilots' noise), for LMMSE s = s2 (the error is orthogonal to the estimate) and c is s2 less the
 * filter's noise gain. The cross terms take the time correlation as separable from the frequency
 * one (exact for the TDL models, whose taps share one Doppler spectrum).
 */
import { SYMBOLS_PER_SLOT, slotDuration } from '../ofdm/grid.js';
import { STATIC_CHANNEL, type TimeCorrelation } from '../time-correlation.js';
import type { DmrsConfig } from './dmrs.js';
import type { LmmseFilter } from './lmmse.js';
import { frequencyNoiseGain } from './ls.js';

/** The means of D, A, B and C (above) over a slot's data symbols. */
export interface TimeInterpolationTerms {
  /** Mean D: what the channel's change between symbols adds (0 for a static channel). */
  readonly doppler: number;
  /** Mean A: the factor on the DM-RS estimates' error variance. */
  readonly own: number;
  /** Mean B: the factor on the channel's part of that variance (LMMSE). */
  readonly shared: number;
  /** Mean C: the factor on E[h conj(e)] (LMMSE). */
  readonly cross: number;
}

/**
 * The terms of `config`'s DM-RS symbols and data symbols under the time correlation `rho` (default:
 * a channel that does not change within the slot).
 */
export function timeInterpolationTerms(
  config: DmrsConfig,
  rho: TimeCorrelation = STATIC_CHANNEL,
): TimeInterpolationTerms {
  const T = slotDuration(config) / SYMBOLS_PER_SLOT;
  const r = (x: number, y: number) => rho(Math.abs(x - y) * T);
  const sym = config.symbols;
  let doppler = 0,
    own = 0,
    shared = 0,
    cross = 0;
  for (const l of config.dataSymbols) {
    let a = sym[0]!,
      b = a,
      w2 = 0;
    if (l > sym[sym.length - 1]!) a = b = sym[sym.length - 1]!;
    else if (l > a) {
      let d = 0;
      while (sym[d + 1]! < l) d++;
      a = sym[d]!;
      b = sym[d + 1]!;
      w2 = (l - a) / (b - a);
    }
    const w1 = 1 - w2;
    const ra = r(l, a),
      rb = r(l, b),
      rab = r(a, b);
    const ula = w1 * (1 - ra),
      ulb = w2 * (1 - rb),
      uab = w1 * w2 * (1 - rab);
    doppler += 2 * (ula + ulb - uab);
    own += w1 * w1 + w2 * w2;
    shared += 2 * w1 * w2 * rab;
    cross += -2 * (ula + ulb - 2 * uab);
  }
  const n = config.dataSymbols.length;
  return { doppler: doppler / n, own: own / n, shared: shared / n, cross: cross / n };
}

/**
 * The LS estimate's mean error variance on the data symbols is n0 / lsScale + doppler: lsScale =
 * 2 Ep / (own g), the despread pilot pairs' noise N0 / (2 Ep) averaged down by the interpolation in
 * time (own) and in frequency (g, frequencyNoiseGain). Its error from the channel's change in
 * frequency between pair centres is left out (small where the channel is flat over 4 subcarriers).
 */
export function lsErrorScale(config: DmrsConfig, t: TimeInterpolationTerms): number {
  return (2 * config.pilotPower) / (t.own * frequencyNoiseGain(config));
}

/**
 * The LMMSE estimate's mean error variance on the data symbols (what the detectors' noise variance
 * counts): doppler + (own + cross) s2 + shared c, with s2 the filter's error variance and c its
 * channel part (s2 less the noise gain N0 / (2 Ep) sum |f|^2), both averaged over layers and
 * subcarriers.
 */
export function lmmseErrorVariance(f: LmmseFilter, t: TimeInterpolationTerms): number {
  const sigma2 = f.noiseVariance / (2 * f.config.pilotPower);
  const K = f.config.subcarriers,
    W2 = 2 * f.window;
  let s2 = 0,
    c = 0;
  f.weights.forEach((w, j) => {
    for (let k = 0; k < K; k++) {
      let gain = 0; // sum |f_w|^2 over the 2W weights of subcarrier k
      for (let q = 2 * k * W2; q < 2 * (k + 1) * W2; q++) gain += w[q]! * w[q]!;
      const e = f.errorVariance[j * K + k]!;
      s2 += e;
      c += Math.max(e - sigma2 * gain, 0);
    }
  });
  const n = f.weights.length * K;
  return t.doppler + (t.own + t.cross) * (s2 / n) + t.shared * (c / n);
}
