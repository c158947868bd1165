/**
 * Systematic encoder of any binary parity check (an alist file, a QC code without the dual-diagonal
 * structure): Gaussian elimination over GF(2) on bit-packed rows, done once per code. The pivot
 * columns carry parity, the others (k = n - rank of them) the information bits in increasing column
 * order; a rank-deficient H simply has more information bits than n - m. Dense, so meant for codes up
 * to a few thousand bits (n m <= 2^28).
 */
import { InvalidInputError, UnsupportedError } from '../core/index.js';
import type { SparseParityCheck } from './types.js';

/** Largest n x m the dense elimination accepts (bits). */
const MAX_DENSE_BITS = 2 ** 28;

/** Encoder from the reduced row-echelon form of H. */
export class GenericEncoder {
  /** Information bits per codeword (n - rank H). */
  readonly k: number;
  /** Codeword length. */
  readonly n: number;
  /** Codeword positions of the information bits, increasing (length k). */
  readonly infoPositions: Int32Array;
  /** Codeword position of each parity bit (the pivot column of each independent check). */
  readonly parityPositions: Int32Array;
  private readonly words: number;
  /** rank x words packed rows of the reduced echelon form, restricted to what encoding reads. */
  private readonly rows: Uint32Array;
  private readonly packed: Uint32Array;

  /** Eliminates H once; UnsupportedError when it is too large for the dense method. */
  constructor(H: SparseParityCheck) {
    const { m, n } = H;
    if (m * n > MAX_DENSE_BITS)
      throw new UnsupportedError(
        `a ${m} x ${n} parity check is too large for the dense GF(2) encoder (limit ${MAX_DENSE_BITS} bits)`,
      );
    const words = (n + 31) >>> 5;
    const a = new Uint32Array(m * words);
    for (let r = 0; r < m; r++) {
      for (let e = H.rowStart[r]!; e < H.rowStart[r + 1]!; e++) {
        const c = H.col[e]!;
        a[r * words + (c >>> 5)]! ^= 1 << (c & 31);
      }
    }
    const pivots: number[] = [];
    let rank = 0;
    for (let c = 0; c < n && rank < m; c++) {
      const w = c >>> 5,
        bit = 1 << (c & 31);
      let p = -1;
      for (let r = rank; r < m; r++)
        if (a[r * words + w]! & bit) {
          p = r;
          break;
        }
      if (p < 0) continue;
      if (p !== rank) {
        for (let j = 0; j < words; j++) {
          const t = a[p * words + j]!;
          a[p * words + j] = a[rank * words + j]!;
          a[rank * words + j] = t;
        }
      }
      for (let r = 0; r < m; r++) {
        if (r !== rank && a[r * words + w]! & bit) {
          for (let j = w; j < words; j++) a[r * words + j]! ^= a[rank * words + j]!;
        }
      }
      pivots.push(c);
      rank++;
    }
    this.n = n;
    this.k = n - rank;
    this.words = words;
    this.rows = a.slice(0, rank * words);
    this.parityPositions = Int32Array.from(pivots);
    const isPivot = new Uint8Array(n);
    for (const c of pivots) isPivot[c] = 1;
    const info: number[] = [];
    for (let c = 0; c < n; c++) if (!isPivot[c]) info.push(c);
    this.infoPositions = Int32Array.from(info);
    this.packed = new Uint32Array(words);
  }

  /** k information bits -> n-bit codeword (information bits at infoPositions), into `out` when given. */
  encode(info: ArrayLike<number>, out?: Uint8Array): Uint8Array {
    if (info.length !== this.k)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `encoder input has ${info.length} bits, the code carries k = ${this.k}`,
      );
    const cw = out ?? new Uint8Array(this.n);
    if (cw.length !== this.n)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `codeword output has ${cw.length} entries, the code has n = ${this.n}`,
      );
    const x = this.packed;
    x.fill(0);
    cw.fill(0);
    for (let i = 0; i < this.k; i++) {
      const b = info[i]!;
      if (b !== 0 && b !== 1) throw new InvalidInputError('INVALID_INPUT', `information bit ${i} is ${b}, not 0 or 1`);
      const c = this.infoPositions[i]!;
      cw[c] = b;
      if (b) x[c >>> 5]! |= 1 << (c & 31);
    }
    // Row r of the echelon form: x[pivot r] = sum of its entries over the information columns.
    const { words, rows } = this;
    for (let r = 0; r < this.parityPositions.length; r++) {
      let acc = 0;
      for (let j = 0; j < words; j++) acc ^= rows[r * words + j]! & x[j]!;
      acc ^= acc >>> 16;
      acc ^= acc >>> 8;
      acc ^= acc >>> 4;
      acc ^= acc >>> 2;
      acc ^= acc >>> 1;
      cw[this.parityPositions[r]!] = acc & 1;
    }
    return cw;
  }
}
