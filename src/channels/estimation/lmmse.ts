/**
 * LMMSE channel estimation in frequency from the DM-RS, with the channel's power delay profile
 * known: the frequency correlation r(df) = sum_l p_l exp(-j 2 pi df tau_l) (H(f) = sum_l g_l
 * exp(-j 2 pi f tau_l), independent g_l ~ CN(0, p_l)). The observations are lsPilotEstimates()'s
 * despread pairs, each modelled exactly: the mean of the channel on the pair's two subcarriers,
 * plus, when the CDM group's other port carries a layer, half the difference of that port's channel
 * over the pair (what the OCC leaves of it when the channel is not flat; the ports' channels are
 * taken independent with the same profile), plus noise of variance N0 / (2 Ep). Each subcarrier is
 * estimated from the W nearest pairs of its CDM group; as the correlation depends on subcarrier
 * differences only, a filter depends on the subcarrier's offset from its window, so a grid needs a
 * few dozen distinct W x W solves, made once by lmmseFilter() and reused for every slot, antenna
 * and layer. Time: as LS (linear between DM-RS symbols, held at the ends).
 */
import { checkOptions, InvalidArgumentError, integer, number, option, type SchemaOf, show } from '../../core/index.js';
import type { PowerDelayProfile as ModelProfile } from '../types.js';
import type { DmrsConfig, DmrsPilots } from './dmrs.js';
import { checkReceived, despread, interpolateTime, outputFor } from './ls.js';

/** A power delay profile as LMMSE reads it (tap l: delays[l] seconds, powers[l] linear, summing to 1): the model's (src/channels/types.ts) or any arrays of numbers. */
export type PowerDelayProfile = { readonly [K in keyof ModelProfile]: ArrayLike<number> };

/** What lmmseFilter() takes. */
export interface LmmseOptions {
  /** The channel's power delay profile (every entry of H the same). */
  pdp: PowerDelayProfile;
  /** N0: the noise variance of a resource element per receive antenna (data REs have unit energy). */
  noiseVariance: number;
  /** W, the pilot pairs each subcarrier's estimate uses, 1 to 64 (default 8; at most K/4). */
  window?: number;
}

/** lmmseFilter()'s filters for one configuration, profile and noise variance. */
export interface LmmseFilter {
  /** The DM-RS configuration the filters serve. */
  readonly config: DmrsConfig;
  /** The profile, copied. */
  readonly pdp: { readonly delays: Float64Array; readonly powers: Float64Array };
  /** N0 the filters assume. */
  readonly noiseVariance: number;
  /** W as used: min(window, K/4). */
  readonly window: number;
  /**
   * layers x K: E|h - h^|^2 of layer j's estimate on subcarrier k in a DM-RS symbol, at j K + k:
   * r(0) - R_hp (R_pp + N0/(2 Ep) I)^{-1} R_ph (the same on every receive antenna). Between DM-RS
   * symbols of a static channel it bounds the interpolated estimate's error from above.
   */
  readonly errorVariance: Float64Array;
  /** For each layer, K window starts: subcarrier k's window is pairs starts[k] .. starts[k] + W - 1. */
  readonly starts: readonly Int32Array[];
  /** For each layer, K x W complex weights: h^(k) = sum_w weights[2 (k W + w)] (re, im) x pair starts[k] + w. */
  readonly weights: readonly Float64Array[];
}

const MAX_TAPS = 10_000;

/** The profile checked and copied: InvalidArgumentError naming pdp.delays / pdp.powers. */
function checkPdp(v: unknown, path: string): { delays: Float64Array; powers: Float64Array } {
  if (v === null || typeof v !== 'object')
    throw new InvalidArgumentError(`${path} must be an object { delays, powers }, got ${show(v)}`, { option: 'pdp' });
  const p = v as Partial<PowerDelayProfile>;
  const list = (key: 'delays' | 'powers'): Float64Array => {
    const a = p[key];
    if (!(Array.isArray(a) || ArrayBuffer.isView(a)) || (a as ArrayLike<number>).length < 1)
      throw new InvalidArgumentError(`${path}.${key} must be a non-empty array of numbers, got ${show(a)}`, {
        option: `pdp.${key}`,
      });
    const out = Float64Array.from(a as ArrayLike<number>);
    if (out.length > MAX_TAPS || out.some((x) => !Number.isFinite(x)) || (a as ArrayLike<number>).length !== out.length)
      throw new InvalidArgumentError(`${path}.${key} must hold 1 to ${MAX_TAPS} finite numbers`, {
        option: `pdp.${key}`,
      });
    return out;
  };
  const delays = list('delays'),
    powers = list('powers');
  if (powers.length !== delays.length)
    throw new InvalidArgumentError(`${path}: ${delays.length} delays but ${powers.length} powers`, {
      option: 'pdp.powers',
    });
  const sum = powers.reduce((a, b) => a + b, 0);
  if (powers.some((x) => x < 0) || Math.abs(sum - 1) > 1e-6)
    throw new InvalidArgumentError(`${path}.powers must be non-negative and sum to 1, got a sum of ${sum}`, {
      option: 'pdp.powers',
      value: sum,
    });
  if (delays.some((x) => Math.abs(x) > 1e-3))
    throw new InvalidArgumentError(`${path}.delays must be seconds within 1 ms`, { option: 'pdp.delays' });
  return { delays, powers };
}

const SCHEMA: SchemaOf<LmmseOptions> = {
  pdp: option({ kind: 'object', check: checkPdp }, 'power delay profile { delays (s), powers (linear) }', {
    required: true,
  }),
  noiseVariance: option(number({ min: 0, minOpen: true }), 'noise variance N0 a resource element', {
    required: true,
  }),
  window: option(integer(1, 64), 'pilot pairs a subcarrier estimate uses', { default: 8 }),
};

/**
 * The filters of every subcarrier for the configuration, the profile and N0 (reuse them for every
 * slot). InvalidArgumentError naming the option for a bad profile, noise variance or window.
 */
export function lmmseFilter(config: DmrsConfig, options: LmmseOptions): LmmseFilter {
  const call = 'lmmseFilter()';
  const o = checkOptions(options, SCHEMA, call) as LmmseOptions & {
    pdp: { delays: Float64Array; powers: Float64Array };
  };
  const K = config.subcarriers,
    N = K / 4;
  const W = Math.min(o.window ?? 8, N);
  const sigma2 = o.noiseVariance / (2 * config.pilotPower);
  // r(m) for m = -R..R subcarriers: every offset a window's filter needs (|offsets| < 4W + 3)
  const R = 4 * W + 4;
  const rRe = new Float64Array(2 * R + 1),
    rIm = new Float64Array(2 * R + 1);
  const { delays, powers } = o.pdp;
  for (let m = -R; m <= R; m++) {
    let re = 0,
      im = 0;
    for (let t = 0; t < delays.length; t++) {
      const ph = -2 * Math.PI * m * config.scs * delays[t]!;
      re += powers[t]! * Math.cos(ph);
      im += powers[t]! * Math.sin(ph);
    }
    rRe[m + R] = re;
    rIm[m + R] = im;
  }
  const r0 = rRe[R]!;
  const groups = new Map<string, { starts: Int32Array; weights: Float64Array; errors: Float64Array }>();
  const starts: Int32Array[] = [],
    weights: Float64Array[] = [];
  const errorVariance = new Float64Array(config.layers * K);
  config.ports.forEach((port, j) => {
    const key = `${port.delta}:${port.shared}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = groupFilters(K, W, port.delta, port.shared, sigma2, rRe, rIm, R, r0);
      groups.set(key, g);
    }
    starts.push(g.starts);
    weights.push(g.weights);
    errorVariance.set(g.errors, j * K);
  });
  return {
    config,
    pdp: { delays, powers },
    noiseVariance: o.noiseVariance,
    window: W,
    errorVariance,
    starts,
    weights,
  };
}

/** The filters of one CDM group (comb offset delta; `shared`: its two ports both carry layers). */
function groupFilters(
  K: number,
  W: number,
  delta: number,
  shared: boolean,
  sigma2: number,
  rRe: Float64Array,
  rIm: Float64Array,
  R: number,
  r0: number,
): { starts: Int32Array; weights: Float64Array; errors: Float64Array } {
  const N = K / 4;
  const starts = new Int32Array(K);
  const weights = new Float64Array(2 * K * W);
  const errors = new Float64Array(K);
  // E[obs_n obs_m^*] for pairs D = a_n - a_m subcarriers apart, without the noise
  const A0 = new Float64Array(2 * W * W);
  for (let n = 0; n < W; n++)
    for (let m = 0; m < W; m++) {
      const D = 4 * (n - m) + R;
      let re: number, im: number;
      if (shared) {
        // mean of this port's channel plus half the other's difference: the +-2 terms cancel
        re = rRe[D]!;
        im = rIm[D]!;
      } else {
        re = (2 * rRe[D]! + rRe[D + 2]! + rRe[D - 2]!) / 4;
        im = (2 * rIm[D]! + rIm[D + 2]! + rIm[D - 2]!) / 4;
      }
      A0[2 * (n * W + m)] = re + (n === m ? sigma2 : 0);
      A0[2 * (n * W + m) + 1] = n === m ? 0 : im;
    }
  const chol = choleskyLower(A0, W);
  const cache = new Map<number, { w: Float64Array; e: number }>();
  const c = new Float64Array(2 * W);
  for (let k = 0; k < K; k++) {
    const s = Math.min(Math.max(Math.round((k - delta - 1) / 4 - (W - 1) / 2), 0), N - W);
    starts[k] = s;
    const off = k - 4 * s - delta; // k minus the window's first pilot subcarrier
    let f = cache.get(off);
    if (f === undefined) {
      // c_w = E[obs_w h(k)^*] = conj(R_hp(k, w)), R_hp(k, w) = (r(k - a_w) + r(k - a_w - 2)) / 2
      for (let w = 0; w < W; w++) {
        const m = off - 4 * w + R;
        c[2 * w] = (rRe[m]! + rRe[m - 2]!) / 2;
        c[2 * w + 1] = -(rIm[m]! + rIm[m - 2]!) / 2;
      }
      const x = choleskySolve(chol, W, c);
      const w8 = new Float64Array(2 * W);
      let gain = 0;
      for (let w = 0; w < W; w++) {
        w8[2 * w] = x[2 * w]!; // f_w = conj(x_w)
        w8[2 * w + 1] = -x[2 * w + 1]!;
        gain += c[2 * w]! * x[2 * w]! + c[2 * w + 1]! * x[2 * w + 1]!; // Re(c^H x)
      }
      f = { w: w8, e: Math.max(r0 - gain, 0) };
      cache.set(off, f);
    }
    weights.set(f.w, 2 * k * W);
    errors[k] = f.e;
  }
  return { starts, weights, errors };
}

/** The lower Cholesky factor of a Hermitian positive definite n x n matrix (row-major, interleaved). */
function choleskyLower(A: Float64Array, n: number): Float64Array {
  const L = new Float64Array(2 * n * n);
  for (let j = 0; j < n; j++) {
    let d = A[2 * (j * n + j)]!;
    for (let k = 0; k < j; k++) d -= L[2 * (j * n + k)]! ** 2 + L[2 * (j * n + k) + 1]! ** 2;
    if (!(d > 0))
      throw new InvalidArgumentError('lmmseFilter(): the pilots covariance is not positive definite', {
        option: 'noiseVariance',
      });
    const ljj = Math.sqrt(d);
    L[2 * (j * n + j)] = ljj;
    for (let i = j + 1; i < n; i++) {
      let re = A[2 * (i * n + j)]!,
        im = A[2 * (i * n + j) + 1]!;
      for (let k = 0; k < j; k++) {
        // - L[i][k] conj(L[j][k])
        const ar = L[2 * (i * n + k)]!,
          ai = L[2 * (i * n + k) + 1]!,
          br = L[2 * (j * n + k)]!,
          bi = L[2 * (j * n + k) + 1]!;
        re -= ar * br + ai * bi;
        im -= ai * br - ar * bi;
      }
      L[2 * (i * n + j)] = re / ljj;
      L[2 * (i * n + j) + 1] = im / ljj;
    }
  }
  return L;
}

/** x with L L^H x = b. */
function choleskySolve(L: Float64Array, n: number, b: Float64Array): Float64Array {
  const z = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    let re = b[2 * i]!,
      im = b[2 * i + 1]!;
    for (let k = 0; k < i; k++) {
      const lr = L[2 * (i * n + k)]!,
        li = L[2 * (i * n + k) + 1]!;
      re -= lr * z[2 * k]! - li * z[2 * k + 1]!;
      im -= lr * z[2 * k + 1]! + li * z[2 * k]!;
    }
    const d = L[2 * (i * n + i)]!;
    z[2 * i] = re / d;
    z[2 * i + 1] = im / d;
  }
  for (let i = n - 1; i >= 0; i--) {
    let re = z[2 * i]!,
      im = z[2 * i + 1]!;
    for (let k = i + 1; k < n; k++) {
      // - conj(L[k][i]) x_k
      const lr = L[2 * (k * n + i)]!,
        li = L[2 * (k * n + i) + 1]!;
      re -= lr * z[2 * k]! + li * z[2 * k + 1]!;
      im -= lr * z[2 * k + 1]! - li * z[2 * k]!;
    }
    const d = L[2 * (i * n + i)]!;
    z[2 * i] = re / d;
    z[2 * i + 1] = im / d;
  }
  return z;
}

/**
 * The LMMSE estimate on every resource element of the slot, in lsEstimate()'s layout
 * (14 x K x nr x layers complex, entry (i, j) of (l, k) at 2 ((l K + k) nr L + i + j nr)), from the
 * received grid `y` (14 x K x nr complex at 2 ((l K + k) nr + i)); `filter` must be of the pilots'
 * configuration. `out` may take the result.
 */
export function lmmseEstimate(
  filter: LmmseFilter,
  pilots: DmrsPilots,
  y: Float64Array,
  nr: number,
  out?: Float64Array,
): Float64Array {
  const call = 'lmmseEstimate()';
  const config = pilots.config;
  const fc = filter.config;
  if (
    fc.subcarriers !== config.subcarriers ||
    fc.layers !== config.layers ||
    fc.pilotPower !== config.pilotPower ||
    fc.scs !== config.scs
  )
    throw new InvalidArgumentError(`${call}: the filter was made for another DM-RS configuration`, {
      option: 'filter',
    });
  checkReceived(pilots, y, nr, call);
  const H = outputFor(config, nr, out, call);
  const est = despread(pilots, y, nr).values;
  const K = config.subcarriers,
    L = config.layers,
    N = K / 4,
    W = filter.window;
  // subcarrier outermost: the writes run through the output in order
  config.symbols.forEach((l, d) => {
    let at = 2 * l * K * nr * L;
    for (let k = 0; k < K; k++)
      for (let j = 0; j < L; j++) {
        const wts = filter.weights[j]!;
        const q0 = 2 * k * W;
        let src = 2 * ((d * L + j) * nr * N + filter.starts[j]![k]!);
        for (let i = 0; i < nr; i++, src += 2 * N, at += 2) {
          let re = 0,
            im = 0;
          for (let w = 0, p = src, q = q0; w < W; w++, p += 2, q += 2) {
            const fr = wts[q]!,
              fi = wts[q + 1]!,
              xr = est[p]!,
              xi = est[p + 1]!;
            re += fr * xr - fi * xi;
            im += fr * xi + fi * xr;
          }
          H[at] = re;
          H[at + 1] = im;
        }
      }
  });
  interpolateTime(config, nr, H);
  return H;
}
