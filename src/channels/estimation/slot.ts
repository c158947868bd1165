/**
 * A slot's channel estimate and the noise variance its detectors take, from its received grid:
 * LS (ls.ts, the noise from noise.ts's 'auto' sum) or LMMSE with a filter (lmmse.ts, the noise from
 * its fit's residual). The detectors' noise variance counts the estimate's error as noise: N0^ plus
 * layers times the estimate's mean error variance on the data symbols (unit-energy symbols), the
 * interpolation in time and the channel's change between symbols included (time-error.ts).
 */
import type { DmrsPilots } from './dmrs.js';
import { type LmmseFilter, lmmseSlot } from './lmmse.js';
import { lsEstimate } from './ls.js';
import { estimateNoise } from './noise.js';
import { lmmseErrorVariance, lsErrorScale, type TimeInterpolationTerms, timeInterpolationTerms } from './time-error.js';

/**
 * How estimateSlot() estimates: least squares, or LMMSE with a filter made for the slot's
 * configuration; `time`: the interpolation's terms under the channel's time correlation
 * (timeInterpolationTerms; default: a channel that does not change within the slot).
 */
export type SlotEstimator = ({ readonly csi: 'ls' } | { readonly csi: 'lmmse'; readonly filter: LmmseFilter }) & {
  readonly time?: TimeInterpolationTerms;
};

/** estimateSlot()'s result. */
export interface SlotEstimate {
  /** 14 x K x (nr x layers) complex: the estimate on every resource element (the estimation grids' layout). */
  readonly H: Float64Array;
  /** N0 estimated from the DM-RS. */
  readonly n0: number;
  /** The detectors' noise variance: n0 plus layers times the estimate's mean error variance on the data symbols. */
  readonly noiseVar: number;
}

/** The LMMSE estimate's mean error variance over layers and subcarriers in a DM-RS symbol. */
export function meanErrorVariance(f: LmmseFilter): number {
  return f.errorVariance.reduce((a, b) => a + b, 0) / f.errorVariance.length;
}

const staticTerms = new WeakMap<object, TimeInterpolationTerms>();
const lmmseErrors = new WeakMap<LmmseFilter, WeakMap<TimeInterpolationTerms, number>>();

/** The estimator's terms, or (memoised per configuration) those of a static channel. */
function termsOf(pilots: DmrsPilots, estimator: SlotEstimator): TimeInterpolationTerms {
  if (estimator.time) return estimator.time;
  let t = staticTerms.get(pilots.config);
  if (!t) staticTerms.set(pilots.config, (t = timeInterpolationTerms(pilots.config)));
  return t;
}

/** lmmseErrorVariance(f, t), memoised per filter and terms (it reads every weight). */
export function slotLmmseErrorVariance(f: LmmseFilter, t: TimeInterpolationTerms): number {
  let m = lmmseErrors.get(f);
  if (!m) lmmseErrors.set(f, (m = new WeakMap()));
  let v = m.get(t);
  if (v === undefined) m.set(t, (v = lmmseErrorVariance(f, t)));
  return v;
}

/**
 * The slot's estimate from its received grid `Y` (14 x K x nr complex, the estimation grids'
 * layout) and pilots. InvalidArgumentError (from the estimators) for a grid of the wrong size.
 */
export function estimateSlot(pilots: DmrsPilots, Y: Float64Array, nr: number, estimator: SlotEstimator): SlotEstimate {
  const layers = pilots.config.layers;
  const t = termsOf(pilots, estimator);
  if (estimator.csi === 'ls') {
    const n0 = estimateNoise(pilots, Y, nr).noiseVariance;
    return {
      H: lsEstimate(pilots, Y, nr),
      n0,
      noiseVar: n0 + layers * (n0 / lsErrorScale(pilots.config, t) + t.doppler),
    };
  }
  const f = estimator.filter;
  const { H, noise } = lmmseSlot(f, pilots, Y, nr);
  return { H, n0: noise.noiseVariance, noiseVar: noise.noiseVariance + layers * slotLmmseErrorVariance(f, t) };
}
