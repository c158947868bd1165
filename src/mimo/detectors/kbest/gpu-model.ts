/**
 * The -D defines that specialise the real-model kernels (real-model.cuh) to one detection setup:
 * sizes, the constellation's symbolOfLevels table, and the MIMO_STATUS bits; shared by the K-best
 * and the lattice-aided CUDA detectors.
 */
import { UnsupportedError } from '../../../core/index.js';
import { MIMO_STATUS } from '../../gpu/status.js';
import type { RealModel } from '../../soft/real-model.js';

/** Defines NR, NT, ND, ROWS, DPS, QL, BPS and the status bits of `m`. */
export function realModelDefines(m: RealModel): Record<string, string | number> {
  // The kernels read bit b of a symbol index s as (s >> (bps - 1 - b)) & 1 (MSB-first labels).
  const bps = m.bitsPerSymbol;
  for (let s = 0; s < 1 << bps; s++) {
    for (let b = 0; b < bps; b++) {
      if (m.bitTable[s * bps + b] !== ((s >> (bps - 1 - b)) & 1))
        throw new UnsupportedError(`the GPU kernels need MSB-first symbol labels; symbol ${s} bit ${b} differs`);
    }
  }
  return {
    NR: m.nr,
    NT: m.nt,
    ND: m.nd,
    ROWS: m.rows,
    DPS: m.dimsPerStream,
    QL: m.q,
    BPS: bps,
    MIMO_RANK_DEFICIENT: MIMO_STATUS.RANK_DEFICIENT,
    MIMO_FLOAT32_UNSAFE: MIMO_STATUS.FLOAT32_UNSAFE,
  };
}

export const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/**
 * A kernel file's source with the model's symbolOfLevels table defined in front (a list cannot
 * travel in a -D option through nvcc, so it travels in the text).
 */
export function withSymbolTable(m: RealModel, source: string): string {
  return `#define SYM_OF_LEVELS {${Array.from(m.symbolOfLevels).join(',')}}\n${source}`;
}
