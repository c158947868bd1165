/**
 * Systematic encoder of QC-LDPC codes whose parity part has the dual-diagonal structure of 802.16e
 * and 5G NR: the last `layers` block columns are parity; one "special" core parity column is found by
 * summing the core block rows (the others cancel in pairs), and every other parity block then follows
 * from a block row in which it is the only unknown. The schedule is worked out once per code; encoding
 * is then O(edges) XORs with no matrix inversion.
 */
import { InvalidInputError, UnsupportedError } from '../core/index.js';
import type { QcParityCheck } from './types.js';

/** One step of the parity schedule: block row `row` fixes parity block column `col` (shift `shift`). */
export interface Step {
  readonly row: number;
  readonly col: number;
  readonly shift: number;
}

/**
 * Encoder for one lifted QC code. Codeword layout: block columns 0 .. kb-1 carry the information bits
 * as given, kb .. blockCols-1 the parity (kb = blockCols - layers).
 */
export class QcEncoder {
  /** Information bits per codeword (kb z). */
  readonly k: number;
  /** Codeword length (blockCols z). */
  readonly n: number;
  private readonly qc: QcParityCheck;
  private readonly kb: number;
  private readonly coreRows: Int32Array;
  private readonly special: Step;
  private readonly steps: Step[];
  private readonly lambda: Uint8Array;
  private readonly acc: Uint8Array;

  /** Works out the parity schedule; throws UnsupportedError when the parity part lacks the structure. */
  constructor(qc: QcParityCheck) {
    this.qc = qc;
    const { z, layers, blockCols } = qc;
    this.kb = blockCols - layers;
    if (this.kb < 1)
      throw new UnsupportedError(
        `a QC code with ${layers} block rows and ${blockCols} block columns has no information columns`,
      );
    this.k = this.kb * z;
    this.n = blockCols * z;
    this.lambda = new Uint8Array(layers * z);
    this.acc = new Uint8Array(z);
    // Parity blocks: degree-1 ("extension") columns, and the core columns; core rows touch no extension column.
    const degree = new Int32Array(blockCols);
    for (let j = 0; j < qc.blockCol.length; j++) degree[qc.blockCol[j]!]++;
    const isExt = (c: number) => c >= this.kb && degree[c] === 1;
    const core: number[] = [];
    for (let r = 0; r < layers; r++) {
      let ext = false;
      for (let j = qc.layerStart[r]!; j < qc.layerStart[r + 1]!; j++) if (isExt(qc.blockCol[j]!)) ext = true;
      if (!ext) core.push(r);
    }
    this.coreRows = Int32Array.from(core);
    // Summing the core rows: blocks of equal shift in one column cancel; exactly one block must survive.
    const survivors: Step[] = [];
    for (let c = this.kb; c < blockCols; c++) {
      if (isExt(c)) continue;
      const odd = new Map<number, number>();
      for (const r of core) {
        for (let j = qc.layerStart[r]!; j < qc.layerStart[r + 1]!; j++) {
          if (qc.blockCol[j] !== c) continue;
          const s = qc.shift[j]!;
          if (odd.has(s)) odd.delete(s);
          else odd.set(s, r);
        }
      }
      for (const [s, r] of odd) survivors.push({ row: r, col: c, shift: s });
    }
    if (survivors.length !== 1) {
      throw new UnsupportedError(
        `the parity part is not dual-diagonal: summing the ${core.length} core block rows leaves ${survivors.length} parity blocks, not one`,
      );
    }
    this.special = survivors[0]!;
    // Then every parity block follows from a row where it is the only unknown.
    const known = new Uint8Array(blockCols);
    for (let c = 0; c < this.kb; c++) known[c] = 1;
    known[this.special.col] = 1;
    const steps: Step[] = [];
    const pending = new Set<number>(Array.from({ length: layers }, (_, r) => r));
    let progress = true;
    while (progress) {
      progress = false;
      for (const r of [...pending]) {
        let unknown = -1,
          count = 0,
          shift = 0;
        for (let j = qc.layerStart[r]!; j < qc.layerStart[r + 1]!; j++) {
          const c = qc.blockCol[j]!;
          if (!known[c]) {
            unknown = c;
            shift = qc.shift[j]!;
            count++;
          }
        }
        if (count === 0) {
          pending.delete(r);
          continue;
        }
        if (count === 1) {
          steps.push({ row: r, col: unknown, shift });
          known[unknown] = 1;
          pending.delete(r);
          progress = true;
        }
      }
    }
    for (let c = this.kb; c < blockCols; c++) {
      if (!known[c])
        throw new UnsupportedError(
          `the parity part is not dual-diagonal: parity block column ${c} is never the only unknown of a block row`,
        );
    }
    this.steps = steps;
  }

  /**
   * The parity schedule (what a device encoder replays): the information block columns kb, the core
   * rows whose sum gives the special parity block, that block, then the steps in order.
   * @internal
   */
  schedule(): { kb: number; coreRows: Int32Array; special: Step; steps: readonly Step[] } {
    return { kb: this.kb, coreRows: this.coreRows, special: this.special, steps: this.steps };
  }

  /**
   * Encodes k information bits (0/1) into an n-bit codeword, written into `out` (allocated when not
   * given) and returned; the first k bits of the codeword are the information bits.
   */
  encode(info: ArrayLike<number>, out?: Uint8Array): Uint8Array {
    const { z, layers } = this.qc;
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
    for (let i = 0; i < this.k; i++) {
      const b = info[i]!;
      if (b !== 0 && b !== 1) throw new InvalidInputError('INVALID_INPUT', `information bit ${i} is ${b}, not 0 or 1`);
      cw[i] = b;
    }
    cw.fill(0, this.k);
    const lam = this.lambda;
    lam.fill(0);
    const { layerStart, blockCol, shift } = this.qc;
    // lambda_r = sum over information blocks (c, s) of P^s u_c, where (P^s x)[i] = x[(i + s) mod z].
    for (let r = 0; r < layers; r++) {
      const base = r * z;
      for (let j = layerStart[r]!; j < layerStart[r + 1]!; j++) {
        const c = blockCol[j]!;
        if (c >= this.kb) continue;
        rotateXor(cw, c * z, shift[j]!, z, lam, base);
      }
    }
    const acc = this.acc;
    acc.fill(0);
    for (let t = 0; t < this.coreRows.length; t++) {
      const base = this.coreRows[t]! * z;
      for (let i = 0; i < z; i++) acc[i] ^= lam[base + i]!;
    }
    placeInverse(acc, this.special.shift, z, cw, this.special.col * z);
    for (const st of this.steps) {
      for (let i = 0; i < z; i++) acc[i] = lam[st.row * z + i]!;
      for (let j = layerStart[st.row]!; j < layerStart[st.row + 1]!; j++) {
        const c = blockCol[j]!;
        if (c < this.kb || c === st.col) continue;
        rotateXor(cw, c * z, shift[j]!, z, acc, 0);
      }
      placeInverse(acc, st.shift, z, cw, st.col * z);
    }
    return cw;
  }
}

/** dst[d0 + i] ^= src[s0 + (i + s) mod z] for i < z. */
function rotateXor(src: Uint8Array, s0: number, s: number, z: number, dst: Uint8Array, d0: number): void {
  const head = z - s;
  for (let i = 0; i < head; i++) dst[d0 + i] ^= src[s0 + s + i]!;
  for (let i = head; i < z; i++) dst[d0 + i] ^= src[s0 + i - head]!;
}

/** Solves P^s x = acc: x[(i + s) mod z] = acc[i], written at dst[d0 ..]. */
function placeInverse(acc: Uint8Array, s: number, z: number, dst: Uint8Array, d0: number): void {
  for (let i = 0; i < z; i++) {
    const t = i + s;
    dst[d0 + (t >= z ? t - z : t)] = acc[i]!;
  }
}
