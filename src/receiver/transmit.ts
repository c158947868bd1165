/**
 * The transmitter of the receiver's slots, for its tests and benchmarks and for users who want a
 * slot to receive: a transport block's CRC, code blocks, encoding and rate matching, scrambling,
 * modulation and layer mapping onto the data resource elements, the DM-RS on theirs (the slot
 * layout: options.ts); then the grid through a channel's response with noise.
 */
import { dmrsPilots, pilotGrid, slotsPerFrame, SYMBOLS_PER_SLOT } from '../channels/index.js';
import { InvalidInputError, type Philox } from '../core/index.js';
import { segmentTransportBlock } from '../coding/index.js';
import { addNoise, constellation, bitsToSymbols } from '../mimo/index.js';
import type { ResolvedReceiver } from './options.js';
import { scramblingSequence } from './scrambling.js';

/**
 * The transmitted grid of one slot: 14 x K x layers complex, layer j's symbol on (symbol l,
 * subcarrier k) at 2 ((l K + k) layers + j): the transport block's `tb` (A bits, 0/1) on the data
 * resource elements (the last dataRes - C E / (layers Qm) of them empty), the DM-RS of slot number
 * `slot` mod slotsPerFrame on the DM-RS symbols. InvalidInputError for a block of the wrong length.
 */
export function transmitSlot(r: ResolvedReceiver, tb: Uint8Array, slot: number): Float64Array {
  if (tb.length !== r.A)
    throw new InvalidInputError('SHAPE_MISMATCH', `the transport block has ${tb.length} bits, the slot carries ${r.A}`);
  const { config, K, C, E, code } = r;
  const L = config.layers;
  const { blocks } = segmentTransportBlock(tb, code.nr!.bg as 1 | 2);
  const bits = new Uint8Array(C * E);
  for (let c = 0; c < C; c++) bits.set(code.encode(blocks[c]!), c * E);
  const scramble = scramblingSequence(r);
  for (let i = 0; i < bits.length; i++) bits[i]! ^= scramble[i]!;
  const symbols = bitsToSymbols(bits, r.options.modulation);
  const points = constellation(r.options.modulation).points;
  const X = pilotGrid(dmrsPilots(config, slot % slotsPerFrame(config.scs)));
  for (let d = 0; d < symbols.length; d++) {
    const v = Math.floor(d / L),
      j = d % L;
    const l = config.dataSymbols[Math.floor(v / K)]!,
      k = v % K;
    const at = 2 * ((l * K + k) * L + j);
    X[at] = points[2 * symbols[d]!]!;
    X[at + 1] = points[2 * symbols[d]! + 1]!;
  }
  return X;
}

/**
 * The received grid, 14 x K x nr complex (the estimation grids' layout), of the transmitted grid
 * `X` through the response `H` (14 x K x (nr x layers) complex, entry (i, j) of (l, k) at
 * 2 ((l K + k) nr L + i + j nr): the channels' response layout) with complex noise of variance
 * `noiseVar` a receive antenna from `rng`.
 */
export function receivedGrid(
  r: ResolvedReceiver,
  X: Float64Array,
  H: Float64Array,
  noiseVar: number,
  rng: Philox,
): Float64Array {
  const { K } = r,
    L = r.config.layers,
    nr = r.options.nr;
  const res = SYMBOLS_PER_SLOT * K;
  if (X.length !== 2 * res * L || H.length !== 2 * res * nr * L)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `a slot's grid holds ${2 * res * L} numbers and its response ${2 * res * nr * L}, got ${X.length} and ${H.length}`,
    );
  const Y = new Float64Array(2 * res * nr);
  for (let e = 0; e < res; e++) {
    for (let j = 0; j < L; j++) {
      const sr = X[2 * (e * L + j)]!,
        si = X[2 * (e * L + j) + 1]!;
      if (sr === 0 && si === 0) continue;
      for (let i = 0; i < nr; i++) {
        const h = 2 * (e * nr * L + i + j * nr);
        Y[2 * (e * nr + i)]! += H[h]! * sr - H[h + 1]! * si;
        Y[2 * (e * nr + i) + 1]! += H[h]! * si + H[h + 1]! * sr;
      }
    }
  }
  return addNoise(rng, Y, noiseVar);
}
