/**
 * IEEE 802.16e (WiMAX) rate-1/2 LDPC family: one 12 x 24 base matrix written for z0 = 96, lifted
 * to the 19 lengths n = 576, 672, ..., 2304 (z = n / 24 = 24, 28, ..., 96) with the standard's
 * shift scaling for rate 1/2: p(z) = floor(p z / 96) for p > 0 (0 and -1 unchanged).
 */
import { InvalidArgumentError } from '../core/index.js';
import { parseBaseMatrix } from './parity.js';
import { codeTableText } from './tables.js';
import type { BaseMatrix } from './types.js';

/** The 19 codeword lengths of the 802.16e family, 576 to 2304 in steps of 96. */
export const WIMAX_LENGTHS: readonly number[] = Array.from({ length: 19 }, (_, i) => 576 + 96 * i);

/** z0, the expansion factor the 802.16e base matrices are written for. */
export const WIMAX_Z0 = 96;

let table: BaseMatrix | undefined;

/** The rate-1/2 base matrix as written (12 x 24, shifts for z0 = 96). */
export function wimaxRateHalfBase(): BaseMatrix {
  table ??= parseBaseMatrix(codeTableText('wimax-2304-rate-1_2')).sets[0]!;
  return table;
}

/** Checks a WiMAX length and returns its expansion factor z = n / 24; InvalidArgumentError otherwise. */
export function wimaxExpansion(n: number): number {
  if (!WIMAX_LENGTHS.includes(n)) {
    throw new InvalidArgumentError(
      `802.16e has no rate-1/2 code of length ${n}; lengths are 576 to 2304 in steps of 96`,
      { n },
    );
  }
  return n / 24;
}

/** The rate-1/2 base matrix with shifts scaled to z as 802.16e says: floor(p z / 96) for p > 0. */
export function wimaxBaseMatrix(n: number): BaseMatrix {
  const z = wimaxExpansion(n);
  const base = wimaxRateHalfBase();
  const shifts = base.shifts.map((p) => (p > 0 ? Math.floor((p * z) / WIMAX_Z0) : p));
  return { rows: base.rows, cols: base.cols, shifts };
}
