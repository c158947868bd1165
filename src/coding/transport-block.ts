/**
 * Transport blocks for NR LDPC (3GPP TS 38.212 7.2.1 and 5.2.2): the transport block CRC (CRC16
 * for A <= 3824 bits, else CRC24A), code block segmentation with a CRC24B on each block when there
 * are several, and the receiver's inverse (reassembly and both checks).
 *
 * A transport block of A bits becomes B = A + L bits (L = 16 or 24). With K_cb = 8448 (base graph
 * 1) or 3840 (base graph 2): C = 1 code block of K' = B bits when B <= K_cb, else C =
 * ceil(B / (K_cb - 24)) blocks, block r carrying bits r B/C .. (r+1) B/C - 1 followed by their
 * CRC24B: K' = B/C + 24. K' is the information length of the LDPC code the blocks go through, the
 * K of `ldpcCode('nr:bgB:K:R')` (its K_ldpc - K filler bits are the code's, not the block's).
 * 38.212 puts B' = B + 24 C bits into C blocks of K' = B'/C without saying what happens when C does
 * not divide B: 38.214's transport block sizes always make it divide (TBS + 24 is a multiple of
 * 8 C when C > 1), so another A is refused here with an InvalidArgumentError naming the sizes.
 */
import { InvalidArgumentError, InvalidInputError } from '../core/index.js';
import { crcAttach, crcOf } from './crc.js';
import { NR_MAX_K, type NrBaseGraph } from './nr.js';

/** Largest transport block that takes the CRC16 (38.212 7.2.1); above it CRC24A. */
export const NR_TB_CRC16_MAX_A = 3824;

/** The code block CRC length when a transport block is segmented (CRC24B). */
const CB_CRC = 24;

/** How a transport block of A bits is cut (38.212 7.2.1, 5.2.2). */
export interface TransportBlockSegmentation {
  /** Transport block bits (the payload). */
  readonly A: number;
  /** Base graph (sets K_cb). */
  readonly bg: NrBaseGraph;
  /** The transport block CRC: 'crc16' for A <= 3824, else 'crc24a'. */
  readonly tbCrc: 'crc16' | 'crc24a';
  /** B = A + the transport block CRC's length. */
  readonly B: number;
  /** Code blocks. */
  readonly C: number;
  /** Bits a code block holds, its CRC24B included when C > 1: the LDPC code's K. */
  readonly Kprime: number;
  /** Transport block bits (payload or its CRC) a code block carries: B / C. */
  readonly perBlock: number;
  /** The code block CRC: 'crc24b' when C > 1, null for a single block. */
  readonly blockCrc: 'crc24b' | null;
}

/** A transport block cut into code blocks. */
export interface SegmentedTransportBlock extends TransportBlockSegmentation {
  /** C code blocks of K' bits each (fresh arrays). */
  readonly blocks: Uint8Array[];
}

/** The receiver's view of C decoded code blocks. */
export interface TransportBlockCheck {
  /** The A payload bits (fresh array), whatever the checks say. */
  readonly tb: Uint8Array;
  /**
   * Per code block, whether its CRC24B passes (C > 1); for a single block (no block CRC), the
   * transport block check's verdict.
   */
  readonly blockCrcOk: boolean[];
  /** Whether the transport block CRC (CRC16 or CRC24A) over the reassembled B bits passes. */
  readonly tbCrcOk: boolean;
}

function checkBg(bg: NrBaseGraph): void {
  if (bg !== 1 && bg !== 2) throw new InvalidArgumentError(`NR base graph must be 1 or 2, got ${String(bg)}`);
}

/**
 * The segmentation of a transport block of A bits for base graph bg: A an integer >= 1
 * (InvalidArgumentError otherwise, and when C does not divide B: see the module comment).
 */
export function transportBlockSegmentation(A: number, bg: NrBaseGraph): TransportBlockSegmentation {
  checkBg(bg);
  if (!Number.isInteger(A) || A < 1)
    throw new InvalidArgumentError(`transport block size A must be an integer >= 1, got ${A}`, { A });
  const tbCrc = A > NR_TB_CRC16_MAX_A ? 'crc24a' : 'crc16';
  const B = A + (tbCrc === 'crc24a' ? 24 : 16);
  const Kcb = NR_MAX_K[bg];
  if (B <= Kcb) return { A, bg, tbCrc, B, C: 1, Kprime: B, perBlock: B, blockCrc: null };
  const C = Math.ceil(B / (Kcb - CB_CRC));
  if (B % C !== 0)
    throw new InvalidArgumentError(
      `transport block of A = ${A} bits (B = ${B} with its CRC) does not split evenly into C = ${C} code blocks of base graph ${bg}: 38.214's transport block sizes always do (A + 24 a multiple of 8 C)`,
      { A, B, C, bg },
    );
  return { A, bg, tbCrc, B, C, Kprime: B / C + CB_CRC, perBlock: B / C, blockCrc: 'crc24b' };
}

/**
 * Transport block (A bits, Uint8Array of 0/1) -> C code blocks of K' bits: the transport block
 * CRC attached, the B bits cut into C equal parts, each with its CRC24B when C > 1 (38.212 7.2.1,
 * 5.2.2). Typed errors: as transportBlockSegmentation, and a bit other than 0 / 1
 * (InvalidInputError).
 */
export function segmentTransportBlock(tb: Uint8Array, bg: NrBaseGraph): SegmentedTransportBlock {
  if (!(tb instanceof Uint8Array)) throw new InvalidArgumentError('transport block must be a Uint8Array of 0/1 bits');
  const s = transportBlockSegmentation(tb.length, bg);
  const b = crcAttach(s.tbCrc, tb);
  if (s.C === 1) return { ...s, blocks: [b] };
  const blocks: Uint8Array[] = [];
  for (let r = 0; r < s.C; r++) {
    const block = crcAttach('crc24b', b.subarray(r * s.perBlock, (r + 1) * s.perBlock), new Uint8Array(s.Kprime));
    blocks.push(block);
  }
  return { ...s, blocks };
}

/**
 * The receiver's reassembly: C decoded code blocks (an array of C Uint8Array of K' bits, or one
 * Uint8Array of C x K' bits back to back, as a decoder batch gives them) of a transport block of
 * A bits -> the payload, each block's CRC24B verdict, the transport block CRC's verdict. Typed
 * errors: as transportBlockSegmentation; blocks of the wrong number or length (InvalidInputError
 * SHAPE_MISMATCH); a bit other than 0 / 1 (InvalidInputError INVALID_INPUT).
 */
export function checkTransportBlock(
  decodedBlocks: readonly Uint8Array[] | Uint8Array,
  A: number,
  bg: NrBaseGraph,
): TransportBlockCheck {
  const s = transportBlockSegmentation(A, bg);
  const { C, Kprime, perBlock } = s;
  const block = blockReader(decodedBlocks, C, Kprime);
  const b = new Uint8Array(s.B);
  const blockCrcOk: boolean[] = [];
  for (let r = 0; r < C; r++) {
    const { bits, at } = block(r);
    if (C > 1) blockCrcOk.push(crcOf('crc24b', bits, at, Kprime) === 0);
    b.set(bits.subarray(at, at + perBlock), r * perBlock);
  }
  const tbCrcOk = crcOf(s.tbCrc, b) === 0;
  if (C === 1) blockCrcOk.push(tbCrcOk);
  return { tb: b.slice(0, A), blockCrcOk, tbCrcOk };
}

/** Block r of the decoded blocks as (array, offset), after checking their shape. */
function blockReader(
  decoded: readonly Uint8Array[] | Uint8Array,
  C: number,
  Kprime: number,
): (r: number) => { bits: Uint8Array; at: number } {
  if (decoded instanceof Uint8Array) {
    if (decoded.length !== C * Kprime)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `decoded code blocks hold ${decoded.length} bits, the transport block needs C = ${C} blocks of K' = ${Kprime}`,
        { C, Kprime },
      );
    return (r) => ({ bits: decoded, at: r * Kprime });
  }
  if (!Array.isArray(decoded))
    throw new InvalidArgumentError('decoded code blocks must be an array of Uint8Array or one Uint8Array');
  if (decoded.length !== C)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `${decoded.length} decoded code blocks given, the transport block has C = ${C}`,
      { C },
    );
  decoded.forEach((blk, r) => {
    if (!(blk instanceof Uint8Array) || blk.length !== Kprime)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `decoded code block ${r} has ${blk instanceof Uint8Array ? blk.length : 'no'} bits, K' = ${Kprime}`,
        { block: r, Kprime },
      );
  });
  return (r) => ({ bits: decoded[r]!, at: 0 });
}

/**
 * The transport block size A whose segmentation is C code blocks of K' bits exactly: A = K' - 16
 * or K' - 24 for one block (by the 3824-bit CRC rule), C (K' - 24) - 24 for several. With `bg`,
 * the result is checked to segment back to (C, K') on that base graph; without it, on either.
 * InvalidArgumentError when no A does (a K' of 3841 .. 3848 for one block, a C that base graph
 * would not choose for that size).
 */
export function transportBlockSize(C: number, Kprime: number, bg?: NrBaseGraph): number {
  if (!Number.isInteger(C) || C < 1) throw new InvalidArgumentError(`code blocks C must be an integer >= 1, got ${C}`);
  if (!Number.isInteger(Kprime) || Kprime < 1)
    throw new InvalidArgumentError(`code block size K' must be an integer >= 1, got ${Kprime}`);
  if (bg !== undefined) checkBg(bg);
  let A: number;
  if (C === 1) A = Kprime - 16 <= NR_TB_CRC16_MAX_A ? Kprime - 16 : Kprime - 24;
  else A = C * (Kprime - CB_CRC) - 24;
  const fits = (g: NrBaseGraph): boolean => {
    if (A < 1) return false;
    try {
      const s = transportBlockSegmentation(A, g);
      return s.C === C && s.Kprime === Kprime;
    } catch {
      return false;
    }
  };
  if (bg !== undefined ? !fits(bg) : !fits(1) && !fits(2))
    throw new InvalidArgumentError(
      `no transport block is cut into C = ${C} code blocks of K' = ${Kprime} bits${bg === undefined ? '' : ` on base graph ${bg}`} (38.212 7.2.1, 5.2.2)`,
      { C, Kprime, bg },
    );
  return A;
}
