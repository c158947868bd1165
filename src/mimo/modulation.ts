/**
 * Gray-labelled QAM per 3GPP TS 38.211 section 5.1 (BPSK, QPSK, 16/64/256-QAM), unit average energy.
 *
 * A symbol's index is the integer whose binary digits, MSB first, are its bit label b0 b1 ... .
 * Square QAM separates into two Gray-labelled PAM dimensions: the real part carries the even bits
 * (b0, b2, ...), the imaginary part the odd bits (b1, b3, ...), each with the nested 38.211 form
 *   v(c0 .. c_{k-1}) = (1-2c0)(2^{k-1} - (1-2c1)(2^{k-2} - ... (2 - (1-2c_{k-1})))).
 * BPSK, d = (1-2b0)(1+j)/sqrt2, is one real dimension along the diagonal (no PAM split).
 */
import { InvalidArgumentError, InvalidInputError, show } from '../core/index.js';
import { MODULATIONS, type Modulation } from './types.js';

/** One PAM dimension of a square QAM constellation. */
export interface PamInfo {
  /** Bits per dimension, k = bitsPerSymbol / 2. */
  readonly bitsPerDim: number;
  /** Number of levels Q = 2^k = sqrt(M). */
  readonly size: number;
  /** Amplitude spacing / 2: levels[i] = (2i - (Q - 1)) * scale. */
  readonly scale: number;
  /** Amplitudes in ascending order (unit-energy scaling included). */
  readonly levels: Float64Array;
  /** labels[i]: the PAM bit label (c0 MSB) of levels[i]. */
  readonly labels: Int32Array;
  /** levelOfLabel[label]: the level index carrying that PAM label. */
  readonly levelOfLabel: Int32Array;
}

/** A modulation's points and bit labels, with lookup tables the detectors share. */
export interface Constellation {
  /** Which modulation. */
  readonly modulation: Modulation;
  /** log2 M. */
  readonly bitsPerSymbol: number;
  /** M, the number of points. */
  readonly size: number;
  /** Interleaved re/im of point index 0 .. M-1. */
  readonly points: Float64Array;
  /** bitTable[index * bitsPerSymbol + b]: bit b (b0 first) of the label of point `index`. */
  readonly bitTable: Uint8Array;
  /** Per-dimension PAM for square QAM (QPSK and up); null for BPSK. */
  readonly pam: PamInfo | null;
  /** symbolOfLevels[i * Q + j]: index of the point with real level i and imaginary level j (QAM only). */
  readonly symbolOfLevels: Int32Array | null;
  /** Real level index of each point (QAM only). */
  readonly reLevelOf: Int32Array | null;
  /** Imaginary level index of each point (QAM only). */
  readonly imLevelOf: Int32Array | null;
}

const BITS: Record<Modulation, number> = { bpsk: 1, qpsk: 2, '16qam': 4, '64qam': 6, '256qam': 8 };

/** Bits per symbol of a modulation. */
export function bitsPerSymbolOf(mod: Modulation): number {
  const b = BITS[mod];
  if (b === undefined)
    throw new InvalidArgumentError(`unknown modulation ${show(mod)} (expected one of ${MODULATIONS.join(', ')})`);
  return b;
}

/** Accepts 'bpsk', 'qpsk', '16qam', '64qam', '256qam', also '16-qam', 'qam16', '4qam', case-insensitive. */
export function parseModulation(name: string): Modulation {
  if (typeof name !== 'string') throw new InvalidArgumentError(`modulation must be a string, got ${typeof name}`);
  const s = name
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
  if (s === 'bpsk' || s === '2qam') return 'bpsk';
  if (s === 'qpsk' || s === '4qam' || s === 'qam4') return 'qpsk';
  for (const m of [16, 64, 256]) {
    if (s === `${m}qam` || s === `qam${m}`) return `${m}qam` as Modulation;
  }
  throw new InvalidArgumentError(`unknown modulation ${show(name)} (expected one of ${MODULATIONS.join(', ')})`);
}

/** The nested 38.211 amplitude (before scaling) of a PAM label with k bits, c0 = MSB. */
function pamAmplitude(label: number, k: number): number {
  let t = 1 - 2 * (label & 1);
  for (let j = k - 2; j >= 0; j--) {
    const c = (label >> (k - 1 - j)) & 1;
    t = (1 - 2 * c) * ((1 << (k - 1 - j)) - t);
  }
  return t;
}

function buildPam(k: number): PamInfo {
  const q = 1 << k;
  const scale = 1 / Math.sqrt((2 * (q * q - 1)) / 3);
  const levels = new Float64Array(q);
  const labels = new Int32Array(q);
  const levelOfLabel = new Int32Array(q);
  for (let label = 0; label < q; label++) {
    const a = pamAmplitude(label, k); // odd integer in [-(q-1), q-1]
    const i = (a + q - 1) / 2;
    levels[i] = a * scale;
    labels[i] = label;
    levelOfLabel[label] = i;
  }
  return { bitsPerDim: k, size: q, scale, levels, labels, levelOfLabel };
}

function build(mod: Modulation): Constellation {
  const bps = bitsPerSymbolOf(mod);
  const m = 1 << bps;
  const points = new Float64Array(2 * m);
  const bitTable = new Uint8Array(m * bps);
  for (let idx = 0; idx < m; idx++) {
    for (let b = 0; b < bps; b++) bitTable[idx * bps + b] = (idx >> (bps - 1 - b)) & 1;
  }
  if (mod === 'bpsk') {
    const a = Math.SQRT1_2;
    points[0] = a;
    points[1] = a;
    points[2] = -a;
    points[3] = -a;
    return {
      modulation: mod,
      bitsPerSymbol: 1,
      size: 2,
      points,
      bitTable,
      pam: null,
      symbolOfLevels: null,
      reLevelOf: null,
      imLevelOf: null,
    };
  }
  const k = bps / 2;
  const pam = buildPam(k);
  const q = pam.size;
  const symbolOfLevels = new Int32Array(q * q);
  const reLevelOf = new Int32Array(m);
  const imLevelOf = new Int32Array(m);
  for (let idx = 0; idx < m; idx++) {
    // De-interleave: even bits (b0, b2, ..) -> real label, odd bits -> imaginary label.
    let reLabel = 0,
      imLabel = 0;
    for (let j = 0; j < k; j++) {
      reLabel = (reLabel << 1) | bitTable[idx * bps + 2 * j]!;
      imLabel = (imLabel << 1) | bitTable[idx * bps + 2 * j + 1]!;
    }
    const ri = pam.levelOfLabel[reLabel]!,
      ii = pam.levelOfLabel[imLabel]!;
    points[2 * idx] = pam.levels[ri]!;
    points[2 * idx + 1] = pam.levels[ii]!;
    reLevelOf[idx] = ri;
    imLevelOf[idx] = ii;
    symbolOfLevels[ri * q + ii] = idx;
  }
  return { modulation: mod, bitsPerSymbol: bps, size: m, points, bitTable, pam, symbolOfLevels, reLevelOf, imLevelOf };
}

const cache = new Map<Modulation, Constellation>();

/** The constellation of a modulation (built once, shared: do not modify its arrays). */
export function constellation(mod: Modulation): Constellation {
  let c = cache.get(mod);
  if (!c) {
    c = build(mod);
    cache.set(mod, c);
  }
  return c;
}

/** The bit label (b0 first) of symbol `index`. */
export function bitsOf(index: number, mod: Modulation): Uint8Array {
  const c = constellation(mod);
  if (!Number.isInteger(index) || index < 0 || index >= c.size) {
    throw new InvalidArgumentError(`symbol index ${index} out of range [0, ${c.size}) for ${mod}`);
  }
  return c.bitTable.slice(index * c.bitsPerSymbol, (index + 1) * c.bitsPerSymbol);
}

/** Symbol indices (k) -> bits (k x bitsPerSymbol, b0 first per symbol). */
export function symbolsToBits(symbols: ArrayLike<number>, mod: Modulation, out?: Uint8Array): Uint8Array {
  const c = constellation(mod);
  const bps = c.bitsPerSymbol;
  const bits = out ?? new Uint8Array(symbols.length * bps);
  if (bits.length < symbols.length * bps)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `bits output has ${bits.length} entries, need ${symbols.length * bps}`,
    );
  for (let s = 0; s < symbols.length; s++) {
    const idx = symbols[s]!;
    if (!(idx >= 0 && idx < c.size))
      throw new InvalidArgumentError(`symbol index ${idx} at position ${s} out of range for ${mod}`);
    for (let b = 0; b < bps; b++) bits[s * bps + b] = c.bitTable[idx * bps + b]!;
  }
  return bits;
}

/** Bits (k x bitsPerSymbol, b0 first per symbol) -> symbol indices (k). */
export function bitsToSymbols(bits: ArrayLike<number>, mod: Modulation): Int32Array {
  const bps = bitsPerSymbolOf(mod);
  if (bits.length % bps !== 0) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `${bits.length} bits is not a multiple of ${bps} bits per ${mod} symbol`,
    );
  }
  const n = bits.length / bps;
  const out = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    let idx = 0;
    for (let b = 0; b < bps; b++) {
      const v = bits[s * bps + b];
      if (v !== 0 && v !== 1)
        throw new InvalidInputError('INVALID_INPUT', `bit ${s * bps + b} is ${v}, expected 0 or 1`);
      idx = (idx << 1) | v;
    }
    out[s] = idx;
  }
  return out;
}

/** Bits -> interleaved complex symbols (length 2 * bits.length / bitsPerSymbol). */
export function modulate(bits: ArrayLike<number>, mod: Modulation): Float64Array {
  const c = constellation(mod);
  const idx = bitsToSymbols(bits, mod);
  const out = new Float64Array(2 * idx.length);
  for (let s = 0; s < idx.length; s++) {
    out[2 * s] = c.points[2 * idx[s]!]!;
    out[2 * s + 1] = c.points[2 * idx[s]! + 1]!;
  }
  return out;
}

/** Nearest PAM level index of a real amplitude (round and clamp). */
export function slicePam(x: number, pam: PamInfo): number {
  const q = pam.size;
  let i = Math.round((x / pam.scale + (q - 1)) / 2);
  if (i < 0) i = 0;
  else if (i > q - 1) i = q - 1;
  return i;
}

/** Nearest constellation point (minimum Euclidean distance) of one complex sample. */
export function sliceSymbol(re: number, im: number, c: Constellation): number {
  if (c.pam === null) return re + im >= 0 ? 0 : 1; // BPSK: projection on (1 + j)
  const q = c.pam.size;
  return c.symbolOfLevels![slicePam(re, c.pam) * q + slicePam(im, c.pam)]!;
}

/** Hard decision of every sample of an interleaved complex array: k samples (2k numbers) give k symbol indices. */
export function hardDemap(y: Float64Array, mod: Modulation): Int32Array {
  const c = constellation(mod);
  if (y.length % 2 !== 0)
    throw new InvalidInputError('SHAPE_MISMATCH', `interleaved complex array has odd length ${y.length}`);
  const out = new Int32Array(y.length / 2);
  for (let s = 0; s < out.length; s++) out[s] = sliceSymbol(y[2 * s]!, y[2 * s + 1]!, c);
  return out;
}

/** Soft demapping: max-log approximation, or exact log-MAP (log-sum-exp over the constellation). */
export type SoftMethod = 'maxlog' | 'logmap';

/** ln(e^a + e^b) without overflow (log-MAP demapping's accumulation). */
export function logAdd(a: number, b: number): number {
  if (a === -Infinity) return b;
  if (b === -Infinity) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/**
 * LLRs of the bits of one PAM dimension: x = a + n, n real with variance halfN0 = N0/2 (the
 * real part of CN(0, N0)). Writes llr of PAM bit j to out[off + 2 j] (interleaved with the other
 * dimension, which is exactly the symbol bit order b0 b1 b2 ...).
 */
function pamLlr(x: number, noiseVar: number, pam: PamInfo, method: SoftMethod, out: Float64Array, off: number): void {
  const q = pam.size,
    k = pam.bitsPerDim;
  for (let j = 0; j < k; j++) {
    let a0 = -Infinity,
      a1 = -Infinity; // max-log: max of -d/N0; log-map: log-sum
    for (let i = 0; i < q; i++) {
      const d = x - pam.levels[i]!;
      const t = (-d * d) / noiseVar;
      const bit = (pam.labels[i]! >> (k - 1 - j)) & 1;
      if (method === 'maxlog') {
        if (bit === 0) {
          if (t > a0) a0 = t;
        } else if (t > a1) a1 = t;
      } else if (bit === 0) a0 = logAdd(a0, t);
      else a1 = logAdd(a1, t);
    }
    out[off + 2 * j] = a0 - a1;
  }
}

/**
 * Soft demapping of one scalar AWGN observation y = s + n, n ~ CN(0, noiseVar): LLR(b) =
 * ln P(b=0|y)/P(b=1|y) for each bit of the symbol, written to out[off .. off + bitsPerSymbol).
 * 'maxlog' uses the nearest point of each bit value; 'logmap' sums over all points (exact).
 */
export function softDemapSymbol(
  re: number,
  im: number,
  noiseVar: number,
  c: Constellation,
  method: SoftMethod,
  out: Float64Array,
  off: number,
): void {
  if (!(noiseVar > 0)) throw new InvalidArgumentError(`noise variance must be > 0 for soft demapping, got ${noiseVar}`);
  if (c.pam === null) {
    // Two points +-(1+j)/sqrt2: |y - s1|^2 - |y - s0|^2 = 4 Re(y conj(s0)) (both methods agree).
    out[off] = (4 * Math.SQRT1_2 * (re + im)) / noiseVar;
    return;
  }
  // The bits of the real part depend on Re(y) only (the imaginary factor cancels in the ratio).
  pamLlr(re, noiseVar, c.pam, method, out, off);
  pamLlr(im, noiseVar, c.pam, method, out, off + 1);
}

/** Soft demapping of every sample of an interleaved complex array (one noise variance): k samples give k x bitsPerSymbol LLRs, b0 first per sample. */
export function softDemap(
  y: Float64Array,
  noiseVar: number,
  mod: Modulation,
  method: SoftMethod = 'maxlog',
): Float64Array {
  const c = constellation(mod);
  if (y.length % 2 !== 0)
    throw new InvalidInputError('SHAPE_MISMATCH', `interleaved complex array has odd length ${y.length}`);
  const n = y.length / 2;
  const out = new Float64Array(n * c.bitsPerSymbol);
  for (let s = 0; s < n; s++) softDemapSymbol(y[2 * s]!, y[2 * s + 1]!, noiseVar, c, method, out, s * c.bitsPerSymbol);
  return out;
}
