/**
 * The 3GPP tapped delay line models on the CPU (TR 38.901 7.7.2 and 7.7.3, TS 38.104 Annex G.2).
 *
 * Tap l (a table row) has delay tau_l and power p_l (normalized so that sum p_l = 1: every entry of
 * H has power 1). A Rayleigh tap's nr x nt gains fade in time as a Gaussian-weighted sum of M
 * sinusoids: G_ij(t) = sum_m g_m exp(j 2 pi f_D cos(alpha_m) t), g_m ~ CN(0, 1/M), alpha_m uniform
 * on [0, 2 pi), independent for every tap, entry and m. So G_ij(t) is exactly CN(0, 1) at every t
 * (a sum of Gaussians), and its time correlation over the model's drops is exactly the Jakes
 * (Clarke) one, E[G(t) conj(G(t + tau))] = E[exp(-j 2 pi f_D cos(alpha) tau)] = J0(2 pi f_D tau),
 * for any M; one drop's spectrum has M lines (M sets how close a single drop comes to the spectrum's
 * shape). Spatial correlation is the Kronecker form on every Rayleigh tap: L_rx G L_tx^H, with 38.104's
 * low / medium / high matrices or the exponential model. The line-of-sight path of TDL-D and -E is
 * the same on every antenna pair (all-ones matrix), with the Doppler shift 0.7 f_D of 38.901 7.7.2
 * and a random phase per drop.
 *
 * H(t, f) = sum_l sqrt(p_l) exp(-j 2 pi f tau_l) A_l(t), A_l = L_rx G_l(t) L_tx^H (Rayleigh taps)
 * or exp(j (2 pi 0.7 f_D t + phi)) 1 (the line of sight).
 *
 * Words of a drop (a fixed count, so any drop can be drawn alone): one block for the line of sight's
 * phase (its first two words; read by every model, so that the layout does not depend on it), then
 * for every Rayleigh tap l, entry e = i + j nr (column-major) and sinusoid m, in that nesting, two
 * blocks: a normal pair (g_m's real and imaginary parts over sqrt(2 M)) and a uniform from the
 * next block's first two words (alpha_m / 2 pi).
 */
import { InvalidArgumentError, type Philox } from '../../core/index.js';
import { type Correlation, choleskyLower, correlate, kroneckerFactors } from '../kronecker/cpu.js';
import { drawSpan } from '../span.js';
import { jakesCorrelation, STATIC_CHANNEL, type TimeCorrelation } from '../time-correlation.js';
import type { ChannelGenerator, ChannelShape, ChannelSpan, ResponsePoints } from '../types.js';
import { TDL_TABLES, type TdlName, type TdlTable } from './tables.js';

/** 38.104 Annex G.2.3's correlation levels. */
export type CorrelationLevel = 'low' | 'medium' | 'high';

/** The parameters of the TDL models (SimulationOptions.channelOptions). */
export interface TdlParams {
  /** The delay spread in seconds, scaling TR 38.901's normalized delays (TDL-A..E only; default 300 ns). */
  delaySpread?: number;
  /** The UE's speed in m/s (default 0: no Doppler). */
  speed?: number;
  /** The carrier frequency in Hz (default 3.5 GHz): with the speed, the Doppler f_D = speed carrier / c. */
  carrier?: number;
  /** TDL-D and -E: the line of sight's K-factor in dB (default the table's: 13.3 dB and 22 dB). */
  kFactorDb?: number;
  /** TS 38.104's antenna correlation: low (none), medium or high. */
  correlation?: CorrelationLevel;
  /** The exponential model's transmit coefficient (instead of `correlation`). */
  rhoTx?: Correlation;
  /** The exponential model's receive coefficient (instead of `correlation`). */
  rhoRx?: Correlation;
  /** Sinusoids a tap and antenna pair (default 16). */
  sinusoids?: number;
}

/** The speed of light, m/s. */
const C = 299_792_458;
/** The default delay spread of the 38.901 models: 300 ns, the "long" value of TR 38.901 Table 7.7.3-1. */
export const DEFAULT_DELAY_SPREAD = 300e-9;
/** The default carrier, Hz. */
export const DEFAULT_CARRIER = 3.5e9;
/** The default sinusoids a tap and antenna pair. */
export const DEFAULT_SINUSOIDS = 16;
/** The line of sight's Doppler shift over f_D (TR 38.901 7.7.2). */
const LOS_DOPPLER = 0.7;

/** 38.104 Table G.2.3.1.2-1 (and its predecessors'): alpha at the base station, beta at the UE. */
const LEVELS: Record<CorrelationLevel, { gnb: number; ue: number }> = {
  low: { gnb: 0, ue: 0 },
  medium: { gnb: 0.9, ue: 0.3 },
  high: { gnb: 0.9, ue: 0.9 },
};

/** A table's taps in seconds and linear powers summing to 1, the specular path first in LOS models. */
export interface Taps {
  /** Delays, seconds. */
  readonly delays: Float64Array;
  /** Powers, linear, summing to 1. */
  readonly powers: Float64Array;
  /** Whether tap 0 is the specular line of sight. */
  readonly los: boolean;
}

/** The table's K-factor in dB (LOS models): its specular row over the next (the first tap's Rayleigh part). */
export function tableKFactorDb(table: TdlTable): number {
  return table.powersDb[0]! - table.powersDb[1]!;
}

/**
 * The taps of a model with these parameters: delays scaled by the delay spread (38.901 7.7.3) or in
 * nanoseconds as 38.104 gives them; in LOS models the specular path's power set to K times the first
 * tap's Rayleigh part (the table's own convention for its K-factor); then every power over their sum.
 */
export function tdlTaps(name: TdlName, params: TdlParams): Taps {
  const table: TdlTable = TDL_TABLES[name];
  const n = table.delays.length;
  const scale = table.normalized ? (params.delaySpread ?? DEFAULT_DELAY_SPREAD) : 1e-9;
  const delays = Float64Array.from(table.delays, (d) => d * scale);
  const powers = Float64Array.from(table.powersDb, (p) => 10 ** (p / 10));
  if (table.los && params.kFactorDb !== undefined) powers[0] = powers[1]! * 10 ** (params.kFactorDb / 10);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += powers[i]!;
  for (let i = 0; i < n; i++) powers[i]! /= sum;
  return { delays, powers, los: table.los };
}

/**
 * The entries' time correlation (time-correlation.ts): the Rayleigh taps' Jakes J0(2 pi f_D lag)
 * weighted by their power, the line of sight's cos(2 pi 0.7 f_D lag) by its own; antenna
 * correlation does not change it (every entry keeps its power).
 */
export function tdlTimeCorrelation(name: TdlName, params: TdlParams): TimeCorrelation {
  const fD = dopplerOf(params);
  if (fD === 0) return STATIC_CHANNEL;
  const taps = tdlTaps(name, params);
  const los = taps.los ? taps.powers[0]! : 0;
  const rayleigh = jakesCorrelation(fD);
  return (lag) => (1 - los) * rayleigh(lag) + los * Math.cos(losRate(fD) * lag);
}

/**
 * 38.104's correlation matrix of n antennas with coefficient a (real, row-major interleaved):
 * R_ij = a^(((i - j) / (n - 1))^2), the Annex's matrices for 1, 2, 4 and 8 antennas and the same rule
 * for other counts.
 */
export function nrCorrelation(n: number, a: number): Float64Array {
  const R = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) R[2 * (i * n + j)] = n === 1 || i === j ? 1 : a ** (((i - j) / (n - 1)) ** 2);
  return R;
}

/**
 * The Cholesky factor of 38.104's matrix; where it is not numerically positive definite (high
 * correlation, many antennas), (R + a I) / (1 + a) with the smallest a of 1e-6, 1e-5, ... that is,
 * as the Annex does for its rounded 4 x 4 matrices (a = 0.00012).
 */
function nrFactor(n: number, a: number, what: string): Float64Array | null {
  if (a === 0 || n === 1) return null;
  const R = nrCorrelation(n, a);
  for (let reg = 0; ; reg = reg === 0 ? 1e-6 : reg * 10) {
    const Rr = R.map((x, k) => {
      const i = Math.floor(k / (2 * n)),
        j = (k >> 1) % n;
      return k % 2 === 0 ? (x + (i === j ? reg : 0)) / (1 + reg) : x;
    });
    try {
      return choleskyLower(Rr, n, what);
    } catch (err) {
      if (reg >= 1e-2) throw err;
    }
  }
}

/** The receive and transmit factors (null: uncorrelated side) of the parameters. */
export function tdlFactors(
  shape: ChannelShape,
  params: TdlParams,
): { Lr: Float64Array | null; Lt: Float64Array | null } {
  if (params.correlation !== undefined) {
    const level = LEVELS[params.correlation];
    return {
      Lr: nrFactor(shape.nr, level.gnb, 'channelOptions.correlation'),
      Lt: nrFactor(shape.nt, level.ue, 'channelOptions.correlation'),
    };
  }
  // the exponential model, as the kronecker model builds it
  return kroneckerFactors(shape, { rhoTx: params.rhoTx, rhoRx: params.rhoRx });
}

/** The maximum Doppler shift f_D = v f_c / c, Hz. */
export function dopplerOf(params: TdlParams): number {
  return ((params.speed ?? 0) * (params.carrier ?? DEFAULT_CARRIER)) / C;
}

/**
 * sqrt(p_l) exp(-j 2 pi f tau_l) for every frequency and tap (F x taps complex, interleaved): the
 * same for every drop and time.
 */
export function tapRotations(taps: Taps, freqs: Float64Array): Float64Array {
  const n = taps.delays.length;
  const rot = new Float64Array(2 * freqs.length * n);
  for (let k = 0; k < freqs.length; k++)
    for (let l = 0; l < n; l++) {
      const a = -2 * Math.PI * freqs[k]! * taps.delays[l]!,
        s = Math.sqrt(taps.powers[l]!);
      rot[2 * (k * n + l)] = s * Math.cos(a);
      rot[2 * (k * n + l) + 1] = s * Math.sin(a);
    }
  return rot;
}

/** What the CPU and CUDA generators share: the taps, factors, Doppler and the words of a drop. */
export interface TdlSetup {
  readonly taps: Taps;
  /** Rayleigh taps (the table's rows less the specular one). */
  readonly L: number;
  /** Sinusoids a tap and entry. */
  readonly M: number;
  readonly Lr: Float64Array | null;
  readonly Lt: Float64Array | null;
  /** The maximum Doppler shift f_D, Hz. */
  readonly fD: number;
  /** Philox words a drop reads. */
  readonly words: number;
}

/** The setup of a model, shape and parameters. */
export function tdlSetup(name: TdlName, shape: ChannelShape, params: TdlParams): TdlSetup {
  const taps = tdlTaps(name, params);
  const M = params.sinusoids ?? DEFAULT_SINUSOIDS;
  if (!Number.isInteger(M) || M < 1) throw new InvalidArgumentError(`sinusoids must be a positive integer, got ${M}`);
  const L = taps.delays.length - (taps.los ? 1 : 0);
  const { Lr, Lt } = tdlFactors(shape, params);
  return { taps, L, M, Lr, Lt, fD: dopplerOf(params), words: 4 * (1 + 2 * L * shape.nr * shape.nt * M) };
}

/** The line of sight's phase rate over f_D's: 2 pi 0.7 f_D, as the CPU computes it. */
export function losRate(fD: number): number {
  return 2 * Math.PI * LOS_DOPPLER * fD;
}

/** The generator of one TDL model, shape and parameter set. */
export function tdlGenerator(name: TdlName, shape: ChannelShape, params: TdlParams): ChannelGenerator {
  const { nt, nr } = shape;
  const E = nr * nt;
  const { taps, L, M, Lr, Lt, fD, words } = tdlSetup(name, shape, params);
  const first = taps.los ? 1 : 0; // the first Rayleigh tap
  // A drop's numbers: phi, then (g re, g im, cos alpha) for every tap, entry and sinusoid.
  const reals = 1 + 3 * L * E * M;
  const gScale = 1 / Math.sqrt(2 * M);
  const readDrops = (rng: Philox, n: number): Float64Array => {
    const out = new Float64Array(n * reals);
    let o = 0;
    for (let d = 0; d < n; d++) {
      out[o++] = 2 * Math.PI * rng.uniform();
      rng.uniform();
      for (let q = 0; q < L * E * M; q++) {
        out[o++] = rng.normal() * gScale;
        out[o++] = rng.normal() * gScale;
        out[o++] = Math.cos(2 * Math.PI * rng.uniform());
        rng.uniform();
      }
    }
    return out;
  };

  /** Every drop of the span at every point of `at`. */
  const response = (span: ChannelSpan, at: ResponsePoints): Float64Array => {
    const drops = drawSpan(span, words, reals, readDrops);
    const T = at.times.length,
      F = at.freqs.length,
      per = 2 * E;
    const taps2 = L + first;
    const rot = tapRotations(taps, at.freqs);
    const out = new Float64Array(span.count * T * F * per);
    const A = new Float64Array(taps2 * per); // the taps' matrices at one time
    for (let d = 0; d < span.count; d++) {
      const base = d * reals;
      const phi = drops[base]!;
      for (let ti = 0; ti < T; ti++) {
        const t = at.times[ti]!;
        A.fill(0);
        if (taps.los) {
          const a = losRate(fD) * t + phi,
            c = Math.cos(a),
            s = Math.sin(a);
          for (let e = 0; e < E; e++) {
            A[2 * e] = c;
            A[2 * e + 1] = s;
          }
        }
        const w = 2 * Math.PI * fD * t;
        for (let l = 0; l < L; l++) {
          const at0 = (first + l) * per;
          for (let e = 0; e < E; e++) {
            let re = 0,
              im = 0;
            let q = base + 1 + 3 * ((l * E + e) * M);
            for (let m = 0; m < M; m++, q += 3) {
              const gr = drops[q]!,
                gi = drops[q + 1]!,
                ph = w * drops[q + 2]!;
              const c = Math.cos(ph),
                s = Math.sin(ph);
              re += gr * c - gi * s;
              im += gr * s + gi * c;
            }
            A[at0 + 2 * e] = re;
            A[at0 + 2 * e + 1] = im;
          }
          if (Lr || Lt) correlate(A.subarray(at0, at0 + per), 1, nt, nr, Lr, Lt);
        }
        const o0 = (d * T + ti) * F * per;
        for (let k = 0; k < F; k++) {
          const o = o0 + k * per,
            r0 = 2 * k * taps2;
          for (let l = 0; l < taps2; l++) {
            const cr = rot[r0 + 2 * l]!,
              ci = rot[r0 + 2 * l + 1]!,
              a0 = l * per;
            for (let e = 0; e < per; e += 2) {
              const ar = A[a0 + e]!,
                ai = A[a0 + e + 1]!;
              out[o + e]! += ar * cr - ai * ci;
              out[o + e + 1]! += ar * ci + ai * cr;
            }
          }
        }
      }
    }
    return out;
  };
  const origin: ResponsePoints = { times: new Float64Array(1), freqs: new Float64Array(1) };
  return { draw: (span) => response(span, origin), response };
}
