import { number, option } from '../../core/index.js';
import type { ChannelEntry } from '../types.js';
import { DEFAULT_K_FACTOR_DB, type RicianParams, ricianGenerator } from './cpu.js';

const angle = number({ min: -90, max: 90 });

/**
 * Flat Rician fading: a fixed line-of-sight matrix of two half-wavelength uniform linear arrays plus
 * iid Rayleigh scattering, K the power ratio of the two, every entry of power 1. Its CUDA generator
 * (rician.cu) draws the CPU generator's values.
 */
export const ricianEntry: ChannelEntry<'rician', RicianParams> = {
  name: 'rician',
  description: 'flat Rician fading: a ULA line-of-sight matrix plus iid Rayleigh scattering, K-factor in dB',
  title: 'Rician fading',
  options: {
    kFactorDb: option(number(), 'the K-factor in dB: line-of-sight over scattered power', {
      default: DEFAULT_K_FACTOR_DB,
      cli: { flag: 'k-factor', metavar: 'DB' },
    }),
    aoaDeg: option(angle, 'line-of-sight angle of arrival, degrees from broadside', {
      default: 0,
      cli: { flag: 'aoa', metavar: 'DEG' },
    }),
    aodDeg: option(angle, 'line-of-sight angle of departure, degrees from broadside', {
      default: 0,
      cli: { flag: 'aod', metavar: 'DEG' },
    }),
  },
  checkShape: () => {},
  cpu: (shape, params) => ricianGenerator(shape, params),
  cuda: () => import('./cuda.js').then((m) => m.ricianCuda),
};
