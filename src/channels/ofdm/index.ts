/** The OFDM grid, a model's response on it, and channel realisations on their own. */
export {
  checkGrid,
  MAX_PRBS,
  type OfdmGrid,
  SUBCARRIER_SPACINGS,
  SUBCARRIERS_PER_PRB,
  SYMBOLS_PER_SLOT,
  slotDuration,
  subcarrierCount,
  subcarrierFrequencies,
  symbolTimes,
} from './grid.js';
export { channelResponse } from './response.js';
export { type ChannelRealisations, type GenerateChannelsOptions, generateChannels } from './generate.js';
