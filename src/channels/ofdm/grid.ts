/**
 * The OFDM grid of a 5G NR carrier: numerology (subcarrier spacing 15 * 2^mu kHz, mu 0 to 3), a
 * bandwidth of 1 to 273 physical resource blocks of 12 subcarriers, slots of 14 symbols (normal
 * cyclic prefix). The channel is evaluated in the frequency domain, one matrix per resource element,
 * at each symbol's start and each subcarrier's centre frequency: no inter-carrier interference (the
 * channel is taken as constant over a symbol) and no cyclic-prefix overflow.
 */
import { InvalidArgumentError, show } from '../../core/index.js';

/** Symbols a slot (normal cyclic prefix). */
export const SYMBOLS_PER_SLOT = 14;
/** Subcarriers a physical resource block. */
export const SUBCARRIERS_PER_PRB = 12;
/** The subcarrier spacings of NR's data channels, Hz (numerologies 0 to 3). */
export const SUBCARRIER_SPACINGS = [15e3, 30e3, 60e3, 120e3] as const;
/** The most resource blocks of an NR carrier (38.101 / 38.104: 273 at 30 kHz, 100 MHz). */
export const MAX_PRBS = 273;

/** A carrier's grid. */
export interface OfdmGrid {
  /** Subcarrier spacing in Hz: 15e3, 30e3, 60e3 or 120e3. */
  readonly scs: number;
  /** Physical resource blocks, 1 to 273 (12 subcarriers each). */
  readonly prbs: number;
}

/** InvalidArgumentError unless the grid's spacing is a numerology's and its PRBs 1 to 273. `call` names the caller. */
export function checkGrid(grid: OfdmGrid, call: string): void {
  if (!(SUBCARRIER_SPACINGS as readonly number[]).includes(grid.scs))
    throw new InvalidArgumentError(
      `${call}: the subcarrier spacing must be one of ${SUBCARRIER_SPACINGS.join(', ')} Hz, got ${show(grid.scs)}`,
      { option: 'scs', value: show(grid.scs) },
    );
  if (!Number.isInteger(grid.prbs) || grid.prbs < 1 || grid.prbs > MAX_PRBS)
    throw new InvalidArgumentError(
      `${call}: the resource blocks must be an integer in [1, ${MAX_PRBS}], got ${show(grid.prbs)}`,
      { option: 'prbs', value: show(grid.prbs) },
    );
}

/** Subcarriers of the grid: 12 a resource block. */
export function subcarrierCount(grid: OfdmGrid): number {
  return SUBCARRIERS_PER_PRB * grid.prbs;
}

/** A slot's duration in seconds: 1 ms / 2^mu. */
export function slotDuration(grid: OfdmGrid): number {
  return 1e-3 * (15e3 / grid.scs);
}

/**
 * The subcarriers' frequencies, Hz from the carrier: subcarrier k at (k - K/2) scs for K
 * subcarriers, the carrier on subcarrier K/2 (K is even).
 */
export function subcarrierFrequencies(grid: OfdmGrid): Float64Array {
  const K = subcarrierCount(grid);
  const f = new Float64Array(K);
  for (let k = 0; k < K; k++) f[k] = (k - K / 2) * grid.scs;
  return f;
}

/**
 * The start times of the symbols of slots slot0 .. slot0 + slots - 1, seconds from the start of slot
 * 0: symbol l of slot s at (14 s + l) T / 14, T the slot's duration (every symbol taken as 1/14 of
 * the slot: the longer cyclic prefix of a half-subframe's first symbol, 0.5 % of it, is ignored).
 */
export function symbolTimes(grid: OfdmGrid, slot0: number, slots: number): Float64Array {
  const T = slotDuration(grid) / SYMBOLS_PER_SLOT;
  const t = new Float64Array(slots * SYMBOLS_PER_SLOT);
  for (let i = 0; i < t.length; i++) t[i] = (slot0 * SYMBOLS_PER_SLOT + i) * T;
  return t;
}
