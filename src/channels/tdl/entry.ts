import { choice, InvalidArgumentError, integer, number, option, type OptionSpec } from '../../core/index.js';
import { correlation } from '../kronecker/entry.js';
import type { ChannelEntry, PowerDelayProfile } from '../types.js';
import {
  DEFAULT_CARRIER,
  DEFAULT_DELAY_SPREAD,
  DEFAULT_SINUSOIDS,
  type TdlParams,
  tableKFactorDb,
  tdlGenerator,
  tdlTaps,
  tdlTimeCorrelation,
} from './cpu.js';
import { TDL_TABLES, type TdlName } from './tables.js';

/** The options every TDL model takes. */
const common = {
  speed: option(number({ min: 0, max: 1000 }), 'the UE speed in m/s (Doppler f_D = speed carrier / c)', {
    default: 0,
    cli: { flag: 'speed', metavar: 'M_PER_S' },
  }),
  carrier: option(number({ min: 1e8, max: 1e11 }), 'the carrier frequency in Hz', {
    default: DEFAULT_CARRIER,
    cli: { flag: 'carrier', metavar: 'HZ' },
  }),
  correlation: option(
    choice(['low', 'medium', 'high'] as const),
    "TS 38.104's antenna correlation (low: none; medium: 0.9 at the base station, 0.3 at the UE; high: 0.9 and 0.9)",
    { cli: { flag: 'correlation', metavar: 'LEVEL' } },
  ),
  rhoTx: option(correlation(), 'transmit correlation coefficient of the exponential model (R or MAG@DEG)', {
    cli: { flag: 'rho-tx', metavar: 'R' },
  }),
  rhoRx: option(correlation(), 'receive correlation coefficient of the exponential model (R or MAG@DEG)', {
    cli: { flag: 'rho-rx', metavar: 'R' },
  }),
  sinusoids: option(integer(1, 1024), 'sinusoids a tap and antenna pair (the Doppler spectrum of one drop)', {
    default: DEFAULT_SINUSOIDS,
    cli: { flag: 'sinusoids', metavar: 'M' },
  }),
};

const delaySpread = option(
  number({ min: 0, max: 1e-5 }),
  'the delay spread in seconds, scaling the normalized delays (TR 38.901 Table 7.7.3-1: 10e-9 to 1000e-9)',
  { default: DEFAULT_DELAY_SPREAD, cli: { flag: 'delay-spread', metavar: 'S' } },
);

const kFactor = (dB: number): OptionSpec<number> =>
  option(number(), `the line of sight's K-factor in dB (default the table's, ${dB} dB)`, {
    default: dB,
    cli: { flag: 'k-factor', metavar: 'DB' },
  });

/** What each model's description says of its table. */
const SOURCE: Record<TdlName, string> = {
  'tdl-a': 'TR 38.901 TDL-A (NLOS)',
  'tdl-b': 'TR 38.901 TDL-B (NLOS)',
  'tdl-c': 'TR 38.901 TDL-C (NLOS)',
  'tdl-d': 'TR 38.901 TDL-D (LOS)',
  'tdl-e': 'TR 38.901 TDL-E (LOS)',
  'tdl-a30': 'TS 38.104 TDLA30 (30 ns)',
  'tdl-b100': 'TS 38.104 TDLB100 (100 ns)',
  'tdl-c300': 'TS 38.104 TDLC300 (300 ns)',
};

/**
 * The entry of one TDL model: Rayleigh taps with Doppler (a Gaussian-weighted sum of sinusoids,
 * Jakes time correlation), the line of sight of TDL-D and -E, and antenna correlation; the delay
 * spread for TR 38.901's tables, the K-factor for its LOS ones; CPU and CUDA generators.
 */
function tdlEntry<N extends TdlName>(name: N): ChannelEntry<N, TdlParams> {
  const table = TDL_TABLES[name];
  const options = {
    ...(table.normalized ? { delaySpread } : {}),
    ...(table.los ? { kFactorDb: kFactor(Math.round(tableKFactorDb(table) * 10) / 10) } : {}),
    ...common,
  } as ChannelEntry<N, TdlParams>['options'];
  return {
    name,
    description: `${SOURCE[name]} tapped delay line with Doppler, ${table.delays.length} taps`,
    title: `${SOURCE[name].replace(/ \(.*\)$/, '')} fading`,
    options,
    checkShape: (_shape, p) => {
      if (p.correlation !== undefined && (p.rhoTx !== undefined || p.rhoRx !== undefined))
        throw new InvalidArgumentError(`${name}: give correlation or rhoTx / rhoRx, not both`, {
          option: 'channelOptions.correlation',
        });
    },
    cpu: (shape, params) => tdlGenerator(name, shape, params),
    powerDelayProfile: (params) => tdlPowerDelayProfile(name, params),
    timeCorrelation: (params) => tdlTimeCorrelation(name, params),
    cuda: () => import('./cuda.js').then((m) => m.tdlCuda(name)),
  };
}

/** The TDL models' entries, by name. */
export const TDL_ENTRIES = {
  'tdl-a': tdlEntry('tdl-a'),
  'tdl-b': tdlEntry('tdl-b'),
  'tdl-c': tdlEntry('tdl-c'),
  'tdl-d': tdlEntry('tdl-d'),
  'tdl-e': tdlEntry('tdl-e'),
  'tdl-a30': tdlEntry('tdl-a30'),
  'tdl-b100': tdlEntry('tdl-b100'),
  'tdl-c300': tdlEntry('tdl-c300'),
};

/** The power delay profile of a TDL model with these parameters (delays in s, linear powers summing to 1). */
export function tdlPowerDelayProfile(name: TdlName, params: TdlParams): PowerDelayProfile {
  const { delays, powers } = tdlTaps(name, params);
  return { delays, powers };
}
