/**
 * The CDL models of 3GPP TR 38.901 (CDL-A to CDL-E): their registry entries, parameters, power
 * delay profiles and tables.
 */
export { CDL_ENTRIES, type CdlEntry, cdlAEntry, cdlBEntry, cdlCEntry, cdlDEntry, cdlEEntry } from './entry.js';
export {
  type ArrayKind,
  type CdlLosParams,
  type CdlParams,
  type ElementPattern,
  type Polarization,
  cdlDropWords,
  cdlGenerator,
  clusterPowers,
  DEFAULT_CARRIER,
  DEFAULT_DELAY_SPREAD,
  elementField,
  powerDelayProfile,
} from './cpu.js';
export { CDL_TABLES, type CdlModel, type CdlTable, RAY_OFFSETS } from './tables.js';
