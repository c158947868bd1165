/**
 * Channel estimation from the 5G NR PUSCH DM-RS (type 1, single symbol, mapping type A), CPU, as
 * pure functions on one slot: the pilots (dmrs.ts), least squares with linear interpolation (ls.ts),
 * LMMSE in frequency from a power delay profile (lmmse.ts) and the noise variance (noise.ts).
 * Grids: the received slot is 14 x K x nr complex, (symbol l, subcarrier k, antenna i) at
 * 2 ((l K + k) nr + i); an estimate is 14 x K x (nr x layers matrix in the channels' layout),
 * entry (i, j) of (l, k) at 2 ((l K + k) nr L + i + j nr). docs/ESTIMATION.md describes them.
 */
export {
  type DmrsConfig,
  type DmrsOptions,
  type DmrsPilots,
  type DmrsPort,
  dataMask,
  dmrsCinit,
  dmrsConfig,
  dmrsPilots,
  goldSequence,
  pilotGrid,
  slotsPerFrame,
} from './dmrs.js';
export { lsEstimate, lsPilotEstimates, type PilotEstimates } from './ls.js';
export {
  type LmmseFilter,
  type LmmseNoiseEstimate,
  type LmmseOptions,
  lmmseEstimate,
  lmmseFilter,
  lmmseNoise,
  type PowerDelayProfile,
  residualDofs,
} from './lmmse.js';
export {
  autoNoiseSum,
  estimateNoise,
  freeTermCounts,
  NOISE_SEGMENT,
  type NoiseSum,
  noiseTermCount,
  type NoiseEstimate,
  type NoiseOptions,
  segmentedSum,
} from './noise.js';
export {
  estimateSlot,
  meanErrorVariance,
  type SlotEstimate,
  type SlotEstimator,
  slotLmmseErrorVariance,
} from './slot.js';
export {
  lmmseErrorVariance,
  lsErrorScale,
  type TimeInterpolationTerms,
  timeInterpolationTerms,
} from './time-error.js';
export {
  type DmrsEstimationBuffers,
  type DmrsEstimationCudaPlan,
  type DmrsEstimationSetup,
  dmrsEstimationCudaPlan,
} from './gpu/estimation-plan.js';
