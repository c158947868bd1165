/**
 * A slot's channel estimate and the noise variance its detectors take, from its received grid:
 * LS (ls.ts, the noise from noise.ts's 'auto' sum) or LMMSE with a filter (lmmse.ts, the noise from
 * its fit's residual). The detectors' noise variance counts the estimate's error as noise: N0^ plus
 * layers times the estimate's mean error variance (unit-energy symbols): N0^ / (2 Ep) for LS, the
 * filter's mean errorVariance for LMMSE.
 */
import type { DmrsPilots } from './dmrs.js';
import { type LmmseFilter, lmmseSlot } from './lmmse.js';
import { lsEstimate } from './ls.js';
import { estimateNoise } from './noise.js';

/** How estimateSlot() estimates: least squares, or LMMSE with a filter made for the slot's configuration. */
export type SlotEstimator = { readonly csi: 'ls' } | { readonly csi: 'lmmse'; readonly filter: LmmseFilter };

/** estimateSlot()'s result. */
export interface SlotEstimate {
  /** 14 x K x (nr x layers) complex: the estimate on every resource element (the estimation grids' layout). */
  readonly H: Float64Array;
  /** N0 estimated from the DM-RS. */
  readonly n0: number;
  /** The detectors' noise variance: n0 plus layers times the estimate's mean error variance. */
  readonly noiseVar: number;
}

/** The LMMSE estimate's mean error variance over layers and subcarriers (what the detectors' noise variance counts). */
export function meanErrorVariance(f: LmmseFilter): number {
  return f.errorVariance.reduce((a, b) => a + b, 0) / f.errorVariance.length;
}

/**
 * The slot's estimate from its received grid `Y` (14 x K x nr complex, the estimation grids'
 * layout) and pilots. InvalidArgumentError (from the estimators) for a grid of the wrong size.
 */
export function estimateSlot(pilots: DmrsPilots, Y: Float64Array, nr: number, estimator: SlotEstimator): SlotEstimate {
  const layers = pilots.config.layers;
  if (estimator.csi === 'ls') {
    const n0 = estimateNoise(pilots, Y, nr).noiseVariance;
    return { H: lsEstimate(pilots, Y, nr), n0, noiseVar: n0 + layers * (n0 / (2 * pilots.config.pilotPower)) };
  }
  const f = estimator.filter;
  const { H, noise } = lmmseSlot(f, pilots, Y, nr);
  return { H, n0: noise.noiseVariance, noiseVar: noise.noiseVariance + layers * meanErrorVariance(f) };
}
