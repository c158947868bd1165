/**
 * 5G NR LDPC per 3GPP TS 38.212: base graph selection (7.2.2), lifting size and filler bits (5.2.2),
 * the lifted base graph (5.3.2, first 2 Zc systematic bits punctured), circular-buffer rate matching
 * with redundancy versions (5.4.2.1, no limited buffer: N_cb = N) and bit interleaving (5.4.2.2),
 * and the receiver's inverse: LLRs of the E sent bits back to the decoder's 68 Zc (BG1) or 52 Zc
 * (BG2) inputs, repeated bits combined, punctured bits 0, filler bits known zeros.
 */
import {
  checkOptions,
  integer,
  number,
  option,
  satisfying,
  InvalidArgumentError,
  InvalidInputError,
} from '../core/index.js';
import { parseBaseMatrix } from './parity.js';
import { codeTableText } from './tables.js';
import type { BaseMatrix, BaseMatrixTable } from './types.js';

/** 38.212 base graph number. */
export type NrBaseGraph = 1 | 2;

/** Modulation orders 38.212 rate matching accepts (pi/2-BPSK, QPSK, 16/64/256-QAM). */
export const NR_MODULATION_ORDERS: readonly number[] = [1, 2, 4, 6, 8];

/** Largest code block (information bits into the encoder) per base graph, 38.212 5.2.2: K_cb. */
export const NR_MAX_K: Readonly<Record<NrBaseGraph, number>> = { 1: 8448, 2: 3840 };

/** Highest code rate K / E accepted: 0.95, where 38.214 5.1.3.1 has the UE skip decoding. */
export const NR_MAX_RATE = 0.95;
/** Lowest code rate accepted: 30 / 1024, the lowest entry of 38.214's MCS tables. */
export const NR_MIN_RATE = 30 / 1024;

/** The lifting-size sets of 38.212 Table 5.3.2-1: set i holds a_i 2^j up to 384. */
export const NR_LIFTING_SETS: readonly (readonly number[])[] = [2, 3, 5, 7, 9, 11, 13, 15].map((a) => {
  const zs: number[] = [];
  for (let z = a; z <= 384; z *= 2) zs.push(z);
  return zs;
});

/** Everything the encoder, rate matcher and receiver need for one NR code block. */
export interface NrCodeParams {
  /** Base graph. */
  readonly bg: NrBaseGraph;
  /** Information bits of the code block (K' in 38.212, CRC bits included if any). */
  readonly K: number;
  /** Kb of 38.212 5.2.2 (information block columns used to pick Zc). */
  readonly Kb: number;
  /** Lifting size Zc. */
  readonly Zc: number;
  /** Lifting-size set index i_LS (which shift table). */
  readonly iLS: number;
  /** Encoder input length with filler bits: 22 Zc (BG1) or 10 Zc (BG2). */
  readonly Kldpc: number;
  /** Filler bits: Kldpc - K, at positions K .. Kldpc - 1 of the encoder input. */
  readonly fillers: number;
  /** Full codeword length (columns of H): 68 Zc or 52 Zc. */
  readonly nFull: number;
  /** Encoder output after puncturing the first 2 Zc bits: N = 66 Zc or 50 Zc (= N_cb here). */
  readonly N: number;
  /** Rate-matched output length E (a multiple of Qm). */
  readonly E: number;
  /** Modulation order Qm of the bit interleaver. */
  readonly Qm: number;
}

/** Request for an NR code block: K information bits and either a rate (E = Qm ceil(K / (R Qm))) or E. */
export interface NrCodeRequest {
  /** Information bits per code block (K'). */
  readonly K: number;
  /** Target code rate K / E in [30/1024, 0.95]; give this or E. */
  readonly R?: number;
  /** Rate-matched length; give this or R. */
  readonly E?: number;
  /** Base graph; when absent chosen by 38.212 7.2.2 with K in place of the transport block size A. */
  readonly bg?: NrBaseGraph;
  /** Modulation order for the bit interleaver (default 1: no interleaving). */
  readonly Qm?: number;
}

/**
 * 38.212 7.2.2: base graph 2 if A <= 292, or A <= 3824 and R <= 0.67, or R <= 0.25; else base graph 1.
 * Input: payload size A (bits) and code rate R.
 */
export function nrSelectBaseGraph(A: number, R: number): NrBaseGraph {
  return A <= 292 || (A <= 3824 && R <= 0.67) || R <= 0.25 ? 2 : 1;
}

/** The lifting size of a code block (38.212 5.2.2). */
export interface NrLiftingSize {
  /** Information block columns used to pick Zc (22 for BG1; 6, 8, 9 or 10 for BG2). */
  readonly Kb: number;
  /** Lifting size: the smallest Z of Table 5.3.2-1 with Kb Z >= K. */
  readonly Zc: number;
  /** Index of the lifting-size set holding Zc (selects the shift table). */
  readonly iLS: number;
}

/** 38.212 5.2.2: Kb, then Zc = the smallest lifting size with Kb Zc >= K, and its set i_LS. */
export function nrLiftingSize(bg: NrBaseGraph, K: number): NrLiftingSize {
  checkK(bg, K);
  const Kb = bg === 1 ? 22 : K > 640 ? 10 : K > 560 ? 9 : K > 192 ? 8 : 6;
  let Zc = Infinity,
    iLS = -1;
  NR_LIFTING_SETS.forEach((set, i) => {
    for (const z of set)
      if (Kb * z >= K && z < Zc) {
        Zc = z;
        iLS = i;
      }
  });
  return { Kb, Zc, iLS };
}

function checkK(bg: NrBaseGraph, K: number): void {
  if (bg !== 1 && bg !== 2) throw new InvalidArgumentError(`NR base graph must be 1 or 2, got ${String(bg)}`);
  if (!Number.isInteger(K) || K < 1 || K > NR_MAX_K[bg]) {
    throw new InvalidArgumentError(
      `NR code block size K = ${K} is outside 1 .. ${NR_MAX_K[bg]} allowed for base graph ${bg} (38.212 5.2.2; larger blocks are segmented)`,
      { K, bg },
    );
  }
}

/** The keys of an NR code request: each one's check and doc line. */
export const NR_CODE_SCHEMA = {
  K: option(integer(1), 'information bits per code block', { required: true }),
  R: option(number(), 'the target code rate K / E (give this or E)'),
  E: option(integer(1), 'the rate-matched length (give this or R)'),
  bg: option(
    satisfying<NrBaseGraph>('1 or 2', (v) => v === 1 || v === 2, 'integer'),
    "the base graph (default: 38.212 7.2.2's choice)",
  ),
  Qm: option(
    satisfying<number>(
      `one of ${NR_MODULATION_ORDERS.join(', ')}`,
      (v) => NR_MODULATION_ORDERS.includes(v as number),
      'integer',
    ),
    'the modulation order of the bit interleaver',
    { default: 1 },
  ),
};

/**
 * Works out a code block's parameters; InvalidArgumentError for an unknown key, or K, rate, E, Qm
 * or bg outside 38.212. `call` names the call in messages.
 */
export function nrCodeParams(request: NrCodeRequest, call = 'nrCodeParams()'): NrCodeParams {
  const req = checkOptions(request, NR_CODE_SCHEMA, call) as NrCodeRequest;
  const { K } = req;
  const Qm = req.Qm ?? 1;
  let E: number;
  if (req.E !== undefined) {
    if (req.R !== undefined)
      throw new InvalidArgumentError(`${call}: give the NR code rate R or the rate-matched length E, not both`, {
        option: 'E',
      });
    E = req.E;
    if (E % Qm !== 0)
      throw new InvalidArgumentError(`${call}: rate-matched length E = ${E} must be a multiple of Qm = ${Qm}`, {
        option: 'E',
      });
  } else {
    const R = req.R;
    if (R === undefined)
      throw new InvalidArgumentError(`${call}: give the NR code rate R or the rate-matched length E`, { option: 'R' });
    if (R < NR_MIN_RATE || R > NR_MAX_RATE)
      throw new InvalidArgumentError(
        `NR code rate ${R} is outside ${NR_MIN_RATE.toFixed(4)} .. ${NR_MAX_RATE} (38.214 5.1.3.1)`,
        { R },
      );
    E = Qm * Math.ceil(K / (R * Qm));
  }
  const rate = K / E;
  if (rate > NR_MAX_RATE || rate < NR_MIN_RATE)
    throw new InvalidArgumentError(
      `K = ${K} over E = ${E} is code rate ${rate.toFixed(4)}, outside ${NR_MIN_RATE.toFixed(4)} .. ${NR_MAX_RATE}`,
      { K, E },
    );
  const bg = req.bg ?? nrSelectBaseGraph(K, rate);
  const { Kb, Zc, iLS } = nrLiftingSize(bg, K);
  const kbFull = bg === 1 ? 22 : 10;
  const cols = bg === 1 ? 68 : 52;
  return {
    bg,
    K,
    Kb,
    Zc,
    iLS,
    Kldpc: kbFull * Zc,
    fillers: kbFull * Zc - K,
    nFull: cols * Zc,
    N: (cols - 2) * Zc,
    E,
    Qm,
  };
}

const tables: Partial<Record<NrBaseGraph, BaseMatrixTable>> = {};

/** The base graph's table: one shift matrix per lifting-size set (46 x 68 for BG1, 42 x 52 for BG2). */
export function nrBaseGraphTable(bg: NrBaseGraph): BaseMatrixTable {
  if (bg !== 1 && bg !== 2) throw new InvalidArgumentError(`NR base graph must be 1 or 2, got ${String(bg)}`);
  tables[bg] ??= parseBaseMatrix(codeTableText(bg === 1 ? 'nr-bg1' : 'nr-bg2'));
  return tables[bg]!;
}

/** The base matrix of a code block: its base graph with the shifts of its set i_LS (lift by Zc, mod Zc). */
export function nrBaseMatrix(p: NrCodeParams): BaseMatrix {
  return nrBaseGraphTable(p.bg).sets[p.iLS]!;
}

/** Starting position k0 of redundancy version rv in the circular buffer (38.212 Table 5.4.2.1-2, N_cb = N). */
export function nrK0(p: NrCodeParams, rv: number): number {
  checkRv(rv);
  const num = p.bg === 1 ? [0, 17, 33, 56] : [0, 13, 25, 43];
  const den = p.bg === 1 ? 66 : 50;
  return Math.floor((num[rv]! * p.N) / (den * p.Zc)) * p.Zc;
}

function checkRv(rv: number): void {
  if (rv !== 0 && rv !== 1 && rv !== 2 && rv !== 3)
    throw new InvalidArgumentError(`redundancy version must be 0, 1, 2 or 3, got ${rv}`);
}

/**
 * For each of the E rate-matched, interleaved output positions, the codeword column (0 .. nFull-1) it
 * carries: bit selection from k0 around the circular buffer of the N unpunctured bits, skipping
 * filler bits, then the Qm-row interleaver (f[i + j Qm] = e[i E/Qm + j]).
 */
export function nrRateMatchMap(p: NrCodeParams, rv = 0): Int32Array {
  const k0 = nrK0(p, rv);
  const { E, N, Zc, K, Kldpc, Qm } = p;
  const twoZ = 2 * Zc;
  // d_j = codeword column j + 2 Zc; filler columns K .. Kldpc-1 are NULL.
  let sendable = 0;
  for (let j = 0; j < N; j++) {
    const c = j + twoZ;
    if (c < K || c >= Kldpc) sendable++;
  }
  if (sendable === 0)
    throw new InvalidArgumentError('the NR code block has no bit to send (every unpunctured bit is a filler)');
  const e = new Int32Array(E);
  for (let k = 0, j = 0; k < E; j++) {
    const c = ((k0 + j) % N) + twoZ;
    if (c >= K && c < Kldpc) continue;
    e[k++] = c;
  }
  const f = new Int32Array(E);
  const rows = E / Qm;
  for (let i = 0; i < Qm; i++) for (let j = 0; j < rows; j++) f[i + j * Qm] = e[i * rows + j]!;
  return f;
}

/** Rate matching: the E channel bits of a full codeword (nFull bits), for the map of nrRateMatchMap. */
export function nrRateMatch(map: Int32Array, codeword: Uint8Array, out?: Uint8Array): Uint8Array {
  const f = out ?? new Uint8Array(map.length);
  if (f.length !== map.length)
    throw new InvalidInputError('SHAPE_MISMATCH', `rate-matched output has ${f.length} entries, E = ${map.length}`);
  for (let k = 0; k < map.length; k++) f[k] = codeword[map[k]!]!;
  return f;
}

/**
 * The receiver's inverse of nrRateMatch: adds the E channel LLRs into the decoder's nFull inputs
 * (a bit sent twice gets the sum; soft-combine several redundancy versions by calling again with the
 * same `acc`). When `fresh`, acc is first reset: 0 everywhere (punctured, unsent), +saturation on the
 * filler bits (known zeros).
 */
export function nrRateRecover(
  p: NrCodeParams,
  map: Int32Array,
  llr: ArrayLike<number>,
  acc: Float64Array | Float32Array,
  fresh: boolean,
  saturation: number,
  llrOffset = 0,
): void {
  if (acc.length !== p.nFull)
    throw new InvalidInputError('SHAPE_MISMATCH', `decoder input has ${acc.length} entries, the code has ${p.nFull}`);
  if (llrOffset < 0 || llrOffset + map.length > llr.length)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `frame at offset ${llrOffset} needs ${map.length} LLRs, ${llr.length} given`,
    );
  if (fresh) {
    acc.fill(0);
    acc.fill(saturation, p.K, p.Kldpc);
  }
  for (let k = 0; k < map.length; k++) {
    const v = llr[llrOffset + k]!;
    if (!Number.isFinite(v))
      throw new InvalidInputError('NON_FINITE', `LLR ${k} of the frame at offset ${llrOffset} is ${v}`, {
        index: llrOffset + k,
      });
    acc[map[k]!] += v;
  }
}
