/**
 * Max-log LLRs from a candidate list (the N-way paper, eq. 6): for each bit, the smallest metric
 * |y - H s|^2 among candidates with the bit 0 and among those with the bit 1. The smaller of the
 * two is the hypothesis (the best candidate overall carries it), the other the counter-hypothesis;
 * LLR(b) = (min_{b=1} - min_{b=0}) / N0, positive means 0. A bit whose counter-hypothesis is not in
 * the list gets the clipping value with the hypothesis's sign, and every |LLR| is clipped.
 */
import { InvalidArgumentError } from '../../core/index.js';

/** The N-way paper's clipping value (its experiments use 8). */
export const DEFAULT_LLR_CLIP = 8;

/** opts.llrClip validated (a positive number; Infinity allowed), or the default. */
export function llrClipOf(llrClip: number | undefined): number {
  if (llrClip === undefined) return DEFAULT_LLR_CLIP;
  if (typeof llrClip !== 'number' || !(llrClip > 0))
    throw new InvalidArgumentError(`llrClip must be a number > 0, got ${llrClip}`);
  return llrClip;
}

/**
 * Per-bit minimum metrics and the best candidate of one received vector's candidate list(s). It
 * keeps, per stream and symbol value, the least metric of a candidate carrying that symbol there;
 * the per-bit minima (hypothesis / counter-hypothesis) are minima of those, taken once per vector
 * in writeLlr rather than per candidate.
 */
export class BitMetricMinima {
  readonly nbits: number;
  /** The hypothesis: the best candidate's metric and symbols. */
  best = Infinity;
  readonly bestSymbols: Int32Array;
  /** symbolMin[j * M + s]: least metric of a candidate with symbol s on stream j (Infinity: none). */
  private readonly symbolMin: Float64Array;
  private readonly m: number;
  /** withZero[b * M/2 + t] / withOne[..]: the symbols whose bit b is 0 / 1. */
  readonly withZero: Int32Array;
  readonly withOne: Int32Array;

  constructor(
    readonly nt: number,
    readonly bitsPerSymbol: number,
    bitTable: Uint8Array,
  ) {
    this.nbits = nt * bitsPerSymbol;
    this.m = 1 << bitsPerSymbol;
    const half = this.m >> 1;
    this.withZero = new Int32Array(bitsPerSymbol * half);
    this.withOne = new Int32Array(bitsPerSymbol * half);
    for (let b = 0; b < bitsPerSymbol; b++) {
      let zeros = 0,
        ones = 0;
      for (let sym = 0; sym < this.m; sym++) {
        if (bitTable[sym * bitsPerSymbol + b]) this.withOne[b * half + ones++] = sym;
        else this.withZero[b * half + zeros++] = sym;
      }
    }
    this.symbolMin = new Float64Array(nt * this.m);
    this.bestSymbols = new Int32Array(nt);
    this.reset();
  }

  reset(): void {
    this.symbolMin.fill(Infinity);
    this.best = Infinity;
  }

  /** Adds one candidate: nt symbol indices at symbols[sOff ..] with metric `metric`. */
  add(symbols: Int32Array, sOff: number, metric: number): void {
    const { nt, m, symbolMin } = this;
    if (metric < this.best) {
      this.best = metric;
      for (let j = 0; j < nt; j++) this.bestSymbols[j] = symbols[sOff + j]!;
    }
    for (let j = 0; j < nt; j++) {
      const t = j * m + symbols[sOff + j]!;
      if (metric < symbolMin[t]!) symbolMin[t] = metric;
    }
  }

  /** Merges another list's minima (the N-way paper's section IV.D: minimum across passes). */
  merge(other: BitMetricMinima): void {
    const a = this.symbolMin,
      b = other.symbolMin;
    for (let t = 0; t < a.length; t++) if (b[t]! < a[t]!) a[t] = b[t]!;
    if (other.best < this.best) {
      this.best = other.best;
      this.bestSymbols.set(other.bestSymbols);
    }
  }

  /**
   * Writes the nbits clipped max-log LLRs to out[off ..]: (min_{b=1} - min_{b=0}) / N0, a side
   * with no candidate being Infinity, so the LLR clips to +-clip. With a-priori LLRs la[laOff ..]
   * (the metrics then holding the candidates' a-priori costs, whose difference across a bit's two
   * sides is N0 L_a(b) for the bit's own prior), the extrinsic ones: that minus L_a(b), clipped
   * after the subtraction (the posterior's clip would flip the sign of a bit the prior outweighs).
   */
  writeLlr(
    noiseVar: number,
    clip: number,
    out: Float64Array,
    off: number,
    la: ArrayLike<number> | null = null,
    laOff = 0,
  ): void {
    const { nt, m, bitsPerSymbol: bps, symbolMin, withZero, withOne } = this;
    const inv = 1 / noiseVar,
      half = m >> 1;
    for (let j = 0; j < nt; j++) {
      const base = j * m;
      for (let b = 0; b < bps; b++) {
        let d0 = Infinity,
          d1 = Infinity;
        for (let t = b * half; t < (b + 1) * half; t++) {
          const z = symbolMin[base + withZero[t]!]!,
            o = symbolMin[base + withOne[t]!]!;
          if (z < d0) d0 = z;
          if (o < d1) d1 = o;
        }
        const l = la === null ? (d1 - d0) * inv : (d1 - d0) * inv - la[laOff + j * bps + b]!;
        out[off + j * bps + b] = l > clip ? clip : l < -clip ? -clip : l;
      }
    }
  }
}
