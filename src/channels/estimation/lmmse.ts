/**
 * LMMSE channel estimation in frequency from the DM-RS, with the channel's power delay profile
 * known: the frequency correlation r(df) = sum_l p_l exp(-j 2 pi df tau_l) (H(f) = sum_l g_l
 * exp(-j 2 pi f tau_l), independent g_l ~ CN(0, p_l)). The observations are lsPilotEstimates()'s
 * pairs despread both ways (values and opposite), together as informative as the pilots
 * themselves, each modelled exactly: with the layer's OCC, the mean of its channel over the pair's
 * two subcarriers plus, when the CDM group's other port carries a layer, half that port's
 * difference over the pair (what the OCC leaves of it where the channel turns over two
 * subcarriers); with the other OCC, half the layer's difference plus the other port's mean; the
 * ports' channels independent with the same profile; noise N0 / (2 Ep) on each. So the other port
 * is estimated away rather than left as an error floor. Each subcarrier is estimated from the W
 * nearest pairs of its CDM group; as the correlation depends on subcarrier differences only, a
 * filter depends on the subcarrier's offset from its window, so a grid needs a few dozen distinct
 * 2W x 2W solves, made once by lmmseFilter() and reused for every slot, antenna and layer. Time: as
 * LS (linear between DM-RS symbols, held at the ends).
 */
import { checkOptions, InvalidArgumentError, integer, number, option, type SchemaOf, show } from '../../core/index.js';
import type { PowerDelayProfile as ModelProfile } from '../types.js';
import type { DmrsConfig, DmrsPilots } from './dmrs.js';
import { checkReceived, despread, interpolateTime, outputFor, type PilotEstimates } from './ls.js';
import { noiseTermCount, segmentedSum } from './noise.js';

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
  /**
   * For each layer, the 2W x 2W complex residual projector Pi = sigma2 (R_s + sigma2 I)^{-1}
   * (row-major, interleaved; sigma2 = N0 / (2 Ep)) of a window of W pairs despread both ways: Pi x
   * is what the LMMSE fit of the window leaves of its observations x, E|Pi x|^2 = sigma2 tr(Pi)
   * (lmmseNoise()).
   */
  readonly residual: readonly Float64Array[];
  /** For each layer, tr(Pi): the noise dimensions a window's residual holds. */
  readonly residualDof: Float64Array;
  /** For each layer, K window starts: subcarrier k's window is pairs starts[k] .. starts[k] + W - 1. */
  readonly starts: readonly Int32Array[];
  /**
   * For each layer, K x 2W complex weights: h^(k) = sum_w weights[2 (2 k W + w)] x values of pair
   * starts[k] + w + sum_w weights[2 (2 k W + W + w)] x opposite of that pair (PilotEstimates).
   */
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
  const groups = new Map<string, GroupFilters>();
  const starts: Int32Array[] = [],
    weights: Float64Array[] = [],
    residual: Float64Array[] = [];
  const residualDof = new Float64Array(config.layers);
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
    residual.push(g.residual);
    residualDof[j] = g.dof;
    errorVariance.set(g.errors, j * K);
  });
  return {
    config,
    pdp: { delays, powers },
    noiseVariance: o.noiseVariance,
    window: W,
    errorVariance,
    residual,
    residualDof,
    starts,
    weights,
  };
}

/**
 * The filters of one CDM group (comb offset delta; `shared`: its two ports both carry layers) for
 * W pairs despread both ways: with the layer's OCC, own_n = u_n / 2 + [shared] v'_n / 2, and with
 * the other, opp_n = v_n / 2 + [shared] u'_n / 2, where u_n, v_n are the sum and the difference of
 * the layer's channel over pair n and u', v' the other port's (independent, the same profile),
 * each plus noise of variance sigma2, the two noises uncorrelated. Over the 2W observations
 * [own, opp]: E[own_n own_m^*] = (U + [shared] V) / 4, E[opp_n opp_m^*] = (V + [shared] U) / 4,
 * E[own_n opp_m^*] = (1 - [shared]) X / 4, with D = a_n - a_m subcarriers, U = 2 r(D) + r(D - 2)
 * + r(D + 2), V = 2 r(D) - r(D - 2) - r(D + 2), X = r(D + 2) - r(D - 2); and E[own_n h(k)^*] =
 * (r(a_n - k) + r(a_n + 2 - k)) / 2, E[opp_n h(k)^*] = (r(a_n - k) - r(a_n + 2 - k)) / 2. The
 * other port's channel in own is then estimated and removed rather than left as noise.
 */
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
): GroupFilters {
  const N = K / 4;
  const W2 = 2 * W;
  const starts = new Int32Array(K);
  const weights = new Float64Array(2 * K * W2);
  const errors = new Float64Array(K);
  const sh = shared ? 1 : 0;
  const A0 = new Float64Array(2 * W2 * W2);
  const put = (n: number, m: number, re: number, im: number) => {
    A0[2 * (n * W2 + m)] = re;
    A0[2 * (n * W2 + m) + 1] = im;
  };
  for (let n = 0; n < W; n++)
    for (let m = 0; m < W; m++) {
      const D = 4 * (n - m) + R;
      const uRe = 2 * rRe[D]! + rRe[D - 2]! + rRe[D + 2]!,
        uIm = 2 * rIm[D]! + rIm[D - 2]! + rIm[D + 2]!;
      const vRe = 2 * rRe[D]! - rRe[D - 2]! - rRe[D + 2]!,
        vIm = 2 * rIm[D]! - rIm[D - 2]! - rIm[D + 2]!;
      const xRe = (1 - sh) * (rRe[D + 2]! - rRe[D - 2]!),
        xIm = (1 - sh) * (rIm[D + 2]! - rIm[D - 2]!);
      const noise = n === m ? sigma2 : 0;
      put(n, m, (uRe + sh * vRe) / 4 + noise, n === m ? 0 : (uIm + sh * vIm) / 4);
      put(W + n, W + m, (vRe + sh * uRe) / 4 + noise, n === m ? 0 : (vIm + sh * uIm) / 4);
      // E[own_n opp_m^*] = X(D) / 4, and E[opp_m own_n^*] its conjugate
      put(n, W + m, xRe / 4, xIm / 4);
      put(W + m, n, xRe / 4, -xIm / 4);
    }
  const chol = choleskyLower(A0, W2);
  const cache = new Map<number, { w: Float64Array; e: number }>();
  const c = new Float64Array(2 * W2);
  for (let k = 0; k < K; k++) {
    const s = Math.min(Math.max(Math.round((k - delta - 1) / 4 - (W - 1) / 2), 0), N - W);
    starts[k] = s;
    const off = k - 4 * s - delta; // k minus the window's first pilot subcarrier
    let f = cache.get(off);
    if (f === undefined) {
      // c = E[obs h(k)^*]: r(a_w - k) = conj(r(m)), m = k - a_w
      for (let w = 0; w < W; w++) {
        const m = off - 4 * w + R;
        c[2 * w] = (rRe[m]! + rRe[m - 2]!) / 2;
        c[2 * w + 1] = -(rIm[m]! + rIm[m - 2]!) / 2;
        c[2 * (W + w)] = (rRe[m]! - rRe[m - 2]!) / 2;
        c[2 * (W + w) + 1] = -(rIm[m]! - rIm[m - 2]!) / 2;
      }
      const x = choleskySolve(chol, W2, c);
      const w8 = new Float64Array(2 * W2);
      let gain = 0;
      for (let w = 0; w < W2; w++) {
        w8[2 * w] = x[2 * w]!; // f_w = conj(x_w)
        w8[2 * w + 1] = -x[2 * w + 1]!;
        gain += c[2 * w]! * x[2 * w]! + c[2 * w + 1]! * x[2 * w + 1]!; // Re(c^H x)
      }
      f = { w: w8, e: Math.max(r0 - gain, 0) };
      cache.set(off, f);
    }
    weights.set(f.w, 2 * k * W2);
    errors[k] = f.e;
  }
  // Pi = sigma2 A^{-1}, a column per unit vector
  const residual = new Float64Array(2 * W2 * W2);
  const unit = new Float64Array(2 * W2);
  let dof = 0;
  for (let b = 0; b < W2; b++) {
    unit.fill(0);
    unit[2 * b] = 1;
    const col = choleskySolve(chol, W2, unit);
    for (let a = 0; a < W2; a++) {
      residual[2 * (a * W2 + b)] = sigma2 * col[2 * a]!;
      residual[2 * (a * W2 + b) + 1] = sigma2 * col[2 * a + 1]!;
    }
    dof += sigma2 * col[2 * b]!;
  }
  return { starts, weights, errors, residual, dof };
}

/** One CDM group's filters (groupFilters). */
interface GroupFilters {
  starts: Int32Array;
  weights: Float64Array;
  errors: Float64Array;
  residual: Float64Array;
  dof: number;
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

/** acc += sum_w f_w x_w over W complex weights from f[q] and values from x[p] (re, im interleaved), in order. */
function accumulate(acc: Float64Array, f: Float64Array, q: number, x: Float64Array, p: number, W: number): void {
  let re = acc[0]!,
    im = acc[1]!;
  for (let w = 0; w < W; w++, p += 2, q += 2) {
    const fr = f[q]!,
      fi = f[q + 1]!,
      xr = x[p]!,
      xi = x[p + 1]!;
    re += fr * xr - fi * xi;
    im += fr * xi + fi * xr;
  }
  acc[0] = re;
  acc[1] = im;
}

/** InvalidArgumentError unless `filter` was made for `config`'s grid, layers and pilot power. */
function checkFilter(filter: LmmseFilter, config: DmrsConfig, call: string): void {
  const fc = filter?.config;
  if (
    fc === undefined ||
    fc.subcarriers !== config.subcarriers ||
    fc.layers !== config.layers ||
    fc.pilotPower !== config.pilotPower ||
    fc.scs !== config.scs
  )
    throw new InvalidArgumentError(`${call}: the filter was made for another DM-RS configuration`, {
      option: 'filter',
    });
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
  checkFilter(filter, pilots.config, call);
  checkReceived(pilots, y, nr, call);
  return lmmseFromPairs(filter, pilots, despread(pilots, y, nr), nr, outputFor(pilots.config, nr, out, call));
}

/**
 * lmmseEstimate() and lmmseNoise() of one slot with its pairs despread once (both would despread
 * them); the same checks and errors.
 */
export function lmmseSlot(
  filter: LmmseFilter,
  pilots: DmrsPilots,
  y: Float64Array,
  nr: number,
): { H: Float64Array; noise: LmmseNoiseEstimate } {
  const call = 'lmmseSlot()';
  checkFilter(filter, pilots.config, call);
  checkReceived(pilots, y, nr, call);
  const pairs = despread(pilots, y, nr);
  return {
    H: lmmseFromPairs(filter, pilots, pairs, nr, outputFor(pilots.config, nr, undefined, call)),
    noise: lmmseNoiseFromPairs(filter, pilots, pairs, nr),
  };
}

/** lmmseEstimate() on the slot's pairs despread already (checked by the caller), into H. */
function lmmseFromPairs(
  filter: LmmseFilter,
  pilots: DmrsPilots,
  pairs: PilotEstimates,
  nr: number,
  H: Float64Array,
): Float64Array {
  const config = pilots.config;
  const { values: est, opposite } = pairs;
  const K = config.subcarriers,
    L = config.layers,
    N = K / 4,
    W = filter.window;
  const acc = new Float64Array(2);
  // subcarrier outermost: the writes run through the output in order
  config.symbols.forEach((l, d) => {
    let at = 2 * l * K * nr * L;
    for (let k = 0; k < K; k++)
      for (let j = 0; j < L; j++) {
        const wts = filter.weights[j]!;
        const q0 = 4 * k * W;
        let src = 2 * ((d * L + j) * nr * N + filter.starts[j]![k]!);
        for (let i = 0; i < nr; i++, src += 2 * N, at += 2) {
          acc[0] = 0;
          acc[1] = 0;
          accumulate(acc, wts, q0, est, src, W);
          accumulate(acc, wts, q0 + 2 * W, opposite, src, W);
          H[at] = acc[0];
          H[at + 1] = acc[1];
        }
      }
  });
  interpolateTime(config, nr, H);
  return H;
}

/** lmmseNoise()'s result: N0^ and what it averaged. */
export interface LmmseNoiseEstimate {
  /** N0^, the noise variance of a resource element per receive antenna. */
  readonly noiseVariance: number;
  /** Windows of W pairs whose residual it summed (DM-RS symbols x layers x nr x floor(K/4 / W)). */
  readonly windows: number;
}

/**
 * N0 estimated from what the LMMSE fit leaves of the DM-RS: on disjoint windows of W pairs
 * despread both ways (x, 2W values), the residual Pi x (LmmseFilter.residual) has E|Pi x|^2 =
 * sigma2 tr(Pi) whatever the channel (drawn from the profile) and the other port of its CDM group,
 * so N0^ = 2 Ep sum |Pi x|^2 / (windows tr(Pi)); exact in expectation where the filter's N0 is the
 * true one, and free of the channel's curvature and the OCC's leakage, which bias estimateNoise()'s
 * 'residual' and 'free' at high SNR. The windows in the order symbol, layer, antenna, window,
 * summed as segmentedSum() does.
 */
export function lmmseNoise(filter: LmmseFilter, pilots: DmrsPilots, y: Float64Array, nr: number): LmmseNoiseEstimate {
  const call = 'lmmseNoise()';
  checkFilter(filter, pilots.config, call);
  checkReceived(pilots, y, nr, call);
  return lmmseNoiseFromPairs(filter, pilots, despread(pilots, y, nr), nr);
}

/** lmmseNoise() on the slot's pairs despread already (checked by the caller). */
function lmmseNoiseFromPairs(
  filter: LmmseFilter,
  pilots: DmrsPilots,
  pairs: PilotEstimates,
  nr: number,
): LmmseNoiseEstimate {
  const { values, opposite } = pairs;
  const config = pilots.config;
  const N = config.subcarriers / 4,
    L = config.layers,
    W = filter.window;
  const per = Math.floor(N / W);
  const windows = noiseTermCount('lmmse', config.symbols.length, config.subcarriers, nr, L, W);
  // window t: row q = (d L + j) nr + i of the pairs, its pairs w W .. w W + W - 1
  const sum = segmentedSum(windows, (t) => {
    const q = Math.floor(t / per),
      w = t % per;
    const j = Math.floor(q / nr) % L;
    return windowResidual(filter.residual[j]!, W, values, opposite, 2 * (q * N + w * W));
  });
  return { noiseVariance: (2 * config.pilotPower * sum) / residualDofs(filter, config.symbols.length, nr), windows };
}

/** The noise dimensions of a slot's windows (D DM-RS symbols, nr antennas): sum of tr(Pi_j), in lmmseNoise's window order. */
export function residualDofs(filter: LmmseFilter, D: number, nr: number): number {
  const per = Math.floor(filter.config.subcarriers / 4 / filter.window);
  let dofs = 0;
  for (let d = 0; d < D; d++)
    for (let j = 0; j < filter.config.layers; j++)
      for (let i = 0; i < nr; i++) for (let w = 0; w < per; w++) dofs += filter.residualDof[j]!;
  return dofs;
}

/** |Pi x|^2 of the window at `at` (x: W values then W opposite, from `at`). */
export function windowResidual(
  P: Float64Array,
  W: number,
  values: Float64Array,
  opposite: Float64Array,
  at: number,
): number {
  const W2 = 2 * W;
  let s = 0;
  for (let a = 0; a < W2; a++) {
    let re = 0,
      im = 0;
    for (let b = 0; b < W2; b++) {
      const x = b < W ? values : opposite;
      const p = at + 2 * (b < W ? b : b - W);
      const pr = P[2 * (a * W2 + b)]!,
        pi = P[2 * (a * W2 + b) + 1]!,
        xr = x[p]!,
        xi = x[p + 1]!;
      re += pr * xr - pi * xi;
      im += pr * xi + pi * xr;
    }
    s += re * re + im * im;
  }
  return s;
}
