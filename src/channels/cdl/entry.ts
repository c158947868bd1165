import { choice, integer, number, option, type SchemaOf } from '../../core/index.js';
import type { ChannelEntry, PowerDelayProfile } from '../types.js';
import {
  type CdlLosParams,
  type CdlParams,
  cdlGenerator,
  checkCdlShape,
  DEFAULT_CARRIER,
  DEFAULT_DELAY_SPREAD,
  DEFAULT_SPACING,
  cdlTimeCorrelation,
  powerDelayProfile,
} from './cpu.js';
import { CDL_TABLES, type CdlModel, type CdlTable } from './tables.js';

/** A CDL model's entry: a channel entry that also gives its clusters' power delay profile. */
export interface CdlEntry<N extends CdlModel = CdlModel, P extends CdlParams = CdlParams> extends ChannelEntry<N, P> {
  /** The clusters' delays (seconds) and powers (linear, sum 1) under these parameters (table order). */
  powerDelayProfile(params: P): PowerDelayProfile;
}

/** The keys of one end's array options. */
type ArrayKeys<S extends 'rx' | 'tx'> = `${S}${'Array' | 'Rows' | 'Spacing' | 'Pattern' | 'Polarization'}`;

/** The options of one end's array (the same checks at both ends, the keys prefixed by the side). */
function arrayOptions<S extends 'rx' | 'tx'>(side: S, what: string): Pick<SchemaOf<CdlParams>, ArrayKeys<S>> {
  const schema = {
    [`${side}Array`]: option(choice(['ula', 'upa'] as const), `${what} array: horizontal ULA or planar UPA`, {
      default: 'ula',
      cli: { flag: `${side}-array`, metavar: 'ula|upa' },
    }),
    [`${side}Rows`]: option(integer(1, 64), `rows of the ${what} UPA (default: the squarest layout)`, {
      cli: { flag: `${side}-rows`, metavar: 'N' },
    }),
    [`${side}Spacing`]: option(number({ min: 0, minOpen: true, max: 100 }), `${what} element spacing in wavelengths`, {
      default: DEFAULT_SPACING,
      cli: { flag: `${side}-spacing`, metavar: 'WL' },
    }),
    [`${side}Pattern`]: option(choice(['omni', '38.901'] as const), `${what} element pattern (38.901: Table 7.3-1)`, {
      default: 'omni',
      cli: { flag: `${side}-pattern`, metavar: 'omni|38.901' },
    }),
    [`${side}Polarization`]: option(
      choice(['single', 'cross'] as const),
      `${what} elements: vertical, or +-45-degree pairs`,
      { default: 'single', cli: { flag: `${side}-polarization`, metavar: 'single|cross' } },
    ),
  };
  // the computed keys are ArrayKeys<S>, which TypeScript does not follow through the template
  return schema as Pick<SchemaOf<CdlParams>, ArrayKeys<S>>;
}

/** The options every CDL model takes. */
const COMMON: SchemaOf<CdlParams> = {
  delaySpread: option(number({ min: 0, max: 1e-5 }), 'delay spread in seconds (scales the normalised delays)', {
    default: DEFAULT_DELAY_SPREAD,
    cli: { flag: 'delay-spread', metavar: 'S' },
  }),
  speed: option(number({ min: 0 }), "the UE's speed in m/s (Doppler)", {
    default: 0,
    cli: { flag: 'speed', metavar: 'M_PER_S' },
  }),
  carrier: option(number({ min: 0, minOpen: true }), 'carrier frequency in Hz', {
    default: DEFAULT_CARRIER,
    cli: { flag: 'carrier', metavar: 'HZ' },
  }),
  travelAzimuthDeg: option(number({ min: -360, max: 360 }), "azimuth of the UE's direction of travel, degrees", {
    default: 0,
    cli: { flag: 'travel-azimuth', metavar: 'DEG' },
  }),
  travelZenithDeg: option(number({ min: 0, max: 180 }), "zenith of the UE's direction of travel, degrees", {
    default: 90,
    cli: { flag: 'travel-zenith', metavar: 'DEG' },
  }),
  ...arrayOptions('rx', 'receive (base station)'),
  ...arrayOptions('tx', 'transmit (UE)'),
};

/** The options of a line-of-sight model: the common ones and the K-factor (rician's key and flag). */
function losOptions(table: CdlTable): SchemaOf<CdlLosParams> {
  return {
    ...COMMON,
    kFactorDb: option(number(), 'the K-factor in dB: the line of sight over the first scattered cluster', {
      default: table.kFactorDb!,
      cli: { flag: 'k-factor', metavar: 'DB' },
    }),
  };
}

/** The entry of a model of the tables, with `options` its schema. */
function cdlEntry<N extends CdlModel, P extends CdlLosParams>(name: N, options: SchemaOf<P>): CdlEntry<N, P> {
  const table = CDL_TABLES[name];
  const upper = name.toUpperCase();
  const clusters = table.rows.length - (table.los ? 1 : 0);
  return {
    name,
    description: `3GPP TR 38.901 ${upper}: ${clusters} clusters of 20 rays${table.los ? ' and a line of sight' : ''}, delay spread, Doppler, ULA/UPA arrays`,
    title: `${upper} (TR 38.901)`,
    options,
    checkShape: (shape, params) => checkCdlShape(shape, params),
    cpu: (shape, params) => cdlGenerator(shape, table, params),
    cuda: () => import('./cuda.js').then((m) => m.cdlCuda(name)),
    powerDelayProfile: (params) => powerDelayProfile(table, params),
    timeCorrelation: (params) => cdlTimeCorrelation(table, params),
  };
}

/** CDL-A: non-line-of-sight, 23 clusters. */
export const cdlAEntry: CdlEntry<'cdl-a', CdlParams> = cdlEntry('cdl-a', COMMON);
/** CDL-B: non-line-of-sight, 23 clusters. */
export const cdlBEntry: CdlEntry<'cdl-b', CdlParams> = cdlEntry('cdl-b', COMMON);
/** CDL-C: non-line-of-sight, 24 clusters. */
export const cdlCEntry: CdlEntry<'cdl-c', CdlParams> = cdlEntry('cdl-c', COMMON);
/** CDL-D: line of sight (K 13.3 dB) and 13 clusters. */
export const cdlDEntry: CdlEntry<'cdl-d', CdlLosParams> = cdlEntry('cdl-d', losOptions(CDL_TABLES['cdl-d']));
/** CDL-E: line of sight (K 22 dB) and 14 clusters. */
export const cdlEEntry: CdlEntry<'cdl-e', CdlLosParams> = cdlEntry('cdl-e', losOptions(CDL_TABLES['cdl-e']));

/** The five entries by name (the registry's lines). */
export const CDL_ENTRIES = {
  'cdl-a': cdlAEntry,
  'cdl-b': cdlBEntry,
  'cdl-c': cdlCEntry,
  'cdl-d': cdlDEntry,
  'cdl-e': cdlEEntry,
} as const;
