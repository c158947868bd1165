/**
 * The channel models part: a registry of models (rayleigh, awgn, rician, kronecker, TDL, CDL), each with its
 * parameters, shape rule, a CPU generator and, where it has one, a CUDA generator that draws the same
 * Philox streams (the CUDA side loaded only when asked for); the OFDM grid; channel estimation from
 * the PUSCH DM-RS (estimation/). The simulation uses this part through this index only.
 */
export {
  CHANNEL_MODELS,
  CHANNEL_REGISTRY,
  DEFAULT_CHANNEL_MODEL,
  channelEntry,
  checkChannel,
  registerChannelModel,
  type AnyChannelEntry,
  type ChannelModel,
  type CheckedChannel,
} from './registry.js';
export type {
  ChannelBuffers,
  ChannelCuda,
  ChannelCudaPlan,
  ChannelEntry,
  ChannelGenerator,
  ChannelShape,
  ChannelSpan,
  PowerDelayProfile,
  ResponsePoints,
} from './types.js';
export * from './ofdm/index.js';
export {
  type DmrsConfig,
  type DmrsOptions,
  type DmrsPilots,
  type DmrsPort,
  dmrsConfig,
  dmrsPilots,
  autoNoiseSum,
  estimateNoise,
  freeTermCounts,
  type LmmseFilter,
  type LmmseOptions,
  lmmseEstimate,
  lmmseNoise,
  type LmmseNoiseEstimate,
  lmmseFilter,
  lsEstimate,
  NOISE_SEGMENT,
  type NoiseEstimate,
  noiseTermCount,
  residualDofs,
  segmentedSum,
  pilotGrid,
  goldSequence,
  slotsPerFrame,
  estimateSlot,
  meanErrorVariance,
  type SlotEstimate,
  type SlotEstimator,
  slotLmmseErrorVariance,
  lmmseErrorVariance,
  lsErrorScale,
  type TimeInterpolationTerms,
  timeInterpolationTerms,
  type DmrsEstimationBuffers,
  type DmrsEstimationCudaPlan,
  type DmrsEstimationSetup,
  dmrsEstimationCudaPlan,
} from './estimation/index.js';
export { checkSpan, drawSpan } from './span.js';
export { besselJ0, jakesCorrelation, STATIC_CHANNEL, type TimeCorrelation } from './time-correlation.js';
export { rayleighChannels, type ChannelOptions } from './rayleigh/cpu.js';
export { identityChannels } from './awgn/cpu.js';
export { type RicianParams, losMatrix, ricianGains } from './rician/cpu.js';
export {
  type Correlation,
  type CorrelationMatrix,
  type KroneckerParams,
  choleskyLower,
  exponentialCorrelation,
} from './kronecker/cpu.js';
