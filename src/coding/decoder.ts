/**
 * CPU LDPC decoders on any sparse parity check: layered normalized / offset min-sum, layered
 * sum-product, and flooding sum-product (the reference). Layered decoding walks the check rows in
 * order and updates the posteriors at once (for a QC code the z rows of one block row touch
 * disjoint columns, so this is the block-layered schedule). All state is allocated once per decoder;
 * decoding a frame allocates nothing.
 */
import {
  boolean,
  choice,
  inapplicable,
  integer,
  number,
  object,
  option,
  InvalidArgumentError,
  InvalidInputError,
  CPU_KERNEL_REQUESTS,
  type CpuKernelRequest,
} from '../core/index.js';
import { MIN_SUM_ARITHMETICS, type MinSumArithmetic } from './fixed-point-min-sum.js';
import {
  type DecodeResult,
  type DecoderAlgorithm,
  type DecoderOptions,
  type SparseParityCheck,
  LDPC_DECODER_ALGORITHMS,
  maxRowDegree,
} from './types.js';

/**
 * The decoder defaults: layered normalized min-sum, 20 iterations, early stop, alpha 0.75, beta 0.5,
 * saturation 64, arithmetic 'float' (the reference every engine computes alike: see
 * DecoderOptions.arithmetic), CPU kernel 'auto'.
 */
export const LDPC_DECODER_DEFAULTS: ResolvedDecoderOptions = Object.freeze({
  algorithm: 'nms',
  maxIterations: 20,
  earlyStop: true,
  alpha: 0.75,
  beta: 0.5,
  saturation: 64,
  arithmetic: 'float',
  cpuKernel: 'auto',
});
/** Largest saturation accepted (keeps fixed-point posteriors inside int32). */
export const LDPC_MAX_SATURATION = 10_000;
/**
 * Fixed-point scale of the min-sum decoders: LLRs are rounded to multiples of 1/16 and the min-sum
 * arithmetic runs on int32 (min-sum is scale invariant, so this only rounds; about 2x faster in V8).
 */
export const LDPC_MIN_SUM_SCALE = 16;

/** Settings with every default filled in. */
export interface ResolvedDecoderOptions {
  /** Algorithm. */
  readonly algorithm: DecoderAlgorithm;
  /** Maximum iteration count. */
  readonly maxIterations: number;
  /** Stop on a zero syndrome. */
  readonly earlyStop: boolean;
  /** 'nms' normalization factor. */
  readonly alpha: number;
  /** 'oms' offset. */
  readonly beta: number;
  /** LLR clip. */
  readonly saturation: number;
  /** The min-sum arithmetic. */
  readonly arithmetic: MinSumArithmetic;
  /** The CPU kernel asked for. */
  readonly cpuKernel: CpuKernelRequest;
}

/** Every decoder option: its check, its doc line, its default and its command-line flag. */
export const DECODER_SCHEMA = {
  algorithm: option(choice(LDPC_DECODER_ALGORITHMS), 'the decoding algorithm', {
    default: LDPC_DECODER_DEFAULTS.algorithm,
    cli: { flag: 'decoder', metavar: 'ALG' },
  }),
  maxIterations: option(integer(1, 10_000), 'most iterations (full passes over every check)', {
    default: LDPC_DECODER_DEFAULTS.maxIterations,
    cli: { flag: 'iterations', metavar: 'N' },
  }),
  earlyStop: option(boolean(), 'stop once the hard decisions satisfy every check', {
    default: LDPC_DECODER_DEFAULTS.earlyStop,
  }),
  alpha: option(number({ min: 0, max: 1, minOpen: true }), "the normalization factor of 'nms'", {
    default: LDPC_DECODER_DEFAULTS.alpha,
  }),
  beta: option(number({ min: 0, max: LDPC_MAX_SATURATION }), "the offset of 'oms', in LLR units", {
    default: LDPC_DECODER_DEFAULTS.beta,
  }),
  saturation: option(
    number({ min: 0, max: LDPC_MAX_SATURATION, minOpen: true }),
    'the clip of channel LLRs and check-to-variable messages',
    { default: LDPC_DECODER_DEFAULTS.saturation },
  ),
  arithmetic: option(
    choice(MIN_SUM_ARITHMETICS),
    "the min-sum arithmetic: 'float' (the reference), 'int16' (saturating 16-bit lanes, 8 frames a SIMD vector: the reference's decisions), 'int8' (8-bit lanes at 1/4 LLR, 16 frames a vector)",
    { default: LDPC_DECODER_DEFAULTS.arithmetic },
  ),
  cpuKernel: option(
    choice(CPU_KERNEL_REQUESTS),
    "the CPU kernel of the 'int16' / 'int8' arithmetics: WebAssembly SIMD where the runtime has it ('auto'), it or an error ('wasm'), or the TypeScript reference ('typescript'); same decisions",
    { default: LDPC_DECODER_DEFAULTS.cpuKernel },
  ),
};

/** The algorithm each algorithm-specific option belongs to. */
const OWN_ALGORITHM: Partial<Record<keyof DecoderOptions, DecoderAlgorithm>> = { alpha: 'nms', beta: 'oms' };

/** Settings resolveDecoderOptions() made: taken again as they are (their alpha and beta are defaults). */
const resolved = new WeakSet<object>([LDPC_DECODER_DEFAULTS]);

/**
 * Checks decoder options against DECODER_SCHEMA (unknown keys with the nearest suggested, types,
 * ranges; alpha only with 'nms', beta only with 'oms') and fills the defaults; InvalidArgumentError
 * naming the bad key. `path` names the options in messages ('simulate() option decoder': the keys
 * are then decoder.alpha and so on). Settings this function returned are taken as they are.
 */
export function resolveDecoderOptions(o: DecoderOptions = {}, path = 'LDPC decoder'): ResolvedDecoderOptions {
  if (resolved.has(o as object)) return o as ResolvedDecoderOptions;
  const c = object(DECODER_SCHEMA).check(o, path);
  const algorithm = c.algorithm ?? LDPC_DECODER_DEFAULTS.algorithm;
  const at = path.lastIndexOf(' option ');
  const [call, prefix] = at < 0 ? [path, ''] : [path.slice(0, at), `${path.slice(at + 8)}.`];
  for (const [key, owner] of Object.entries(OWN_ALGORITHM) as [keyof DecoderOptions, DecoderAlgorithm][]) {
    if (c[key] !== undefined && algorithm !== owner)
      throw inapplicable(
        call,
        `${prefix}${key}`,
        `${key} is '${owner}''s (${DECODER_SCHEMA[key].doc}), and the algorithm is '${algorithm}'`,
      );
  }
  if (c.arithmetic !== undefined && c.arithmetic !== 'float' && algorithm !== 'nms' && algorithm !== 'oms')
    throw inapplicable(
      call,
      `${prefix}arithmetic`,
      `the fixed-point arithmetics are the min-sum decoders' ('nms', 'oms'), and the algorithm is '${algorithm}'`,
    );
  if (c.cpuKernel !== undefined && c.cpuKernel !== 'auto' && (c.arithmetic ?? 'float') === 'float')
    throw inapplicable(
      call,
      `${prefix}cpuKernel`,
      "it picks the kernel of the 'int16' / 'int8' arithmetics, and the arithmetic is 'float' (TypeScript only)",
    );
  const out: ResolvedDecoderOptions = Object.freeze({ ...LDPC_DECODER_DEFAULTS, ...c, algorithm });
  resolved.add(out);
  return out;
}

/**
 * A decoder for one parity check and one setting, in the reference arithmetic ('float'). decode() takes n channel LLRs (ln P(0)/P(1),
 * punctured bits 0) and returns all n hard decisions, the iterations run and the syndrome verdict.
 * Channel LLRs and check-to-variable messages saturate at +-saturation; the min-sum decoders run in
 * fixed point (LDPC_MIN_SUM_SCALE), the sum-product decoders in float64.
 */
export class LdpcDecoder {
  /** The settings in force. */
  readonly options: ResolvedDecoderOptions;
  /** Code length n (LLRs per frame). */
  readonly n: number;
  private readonly H: SparseParityCheck;
  private readonly minSum: boolean;
  private readonly L: Float64Array;
  private readonly Lnew: Float64Array;
  private readonly R: Float64Array;
  private readonly Li: Int32Array;
  private readonly Ri: Int32Array;
  private readonly q: Float64Array;
  private readonly qi: Int32Array;
  private readonly t: Float64Array;
  private readonly suffix: Float64Array;
  private readonly hard: Uint8Array;
  /** The last run()'s input as the decoder took it (clipped; min-sum: in fixed point), for extrinsic(). */
  private readonly L0: Float64Array;
  private readonly Li0: Int32Array;

  /** Allocates the decoder's state for H (m x n, compressed rows). */
  constructor(H: SparseParityCheck, options: DecoderOptions = {}) {
    this.options = resolveDecoderOptions(options);
    if (this.options.arithmetic !== 'float')
      throw new InvalidArgumentError(
        `LdpcDecoder computes arithmetic 'float'; '${this.options.arithmetic}' decodes through a code's decoder() (fixed-point min-sum)`,
        { option: 'arithmetic' },
      );
    if (
      !H ||
      !(H.rowStart instanceof Int32Array) ||
      !(H.col instanceof Int32Array) ||
      H.rowStart.length !== H.m + 1 ||
      H.rowStart[H.m] !== H.col.length
    ) {
      throw new InvalidArgumentError(
        'the parity check must be a SparseParityCheck (m, n, rowStart of length m + 1 ending at col.length, col)',
      );
    }
    this.H = H;
    this.n = H.n;
    this.minSum = this.options.algorithm === 'nms' || this.options.algorithm === 'oms';
    const dmax = maxRowDegree(H);
    const colDegree = new Int32Array(H.n);
    for (let e = 0; e < H.col.length; e++) {
      const c = H.col[e]!;
      if (!(c >= 0 && c < H.n))
        throw new InvalidArgumentError(`parity check edge ${e} has column ${c}, outside 0 .. ${H.n - 1}`);
      colDegree[c]++;
    }
    let maxDegree = 0;
    for (let c = 0; c < H.n; c++) if (colDegree[c]! > maxDegree) maxDegree = colDegree[c]!;
    if (this.minSum && (maxDegree + 1) * Math.round(this.options.saturation * LDPC_MIN_SUM_SCALE) >= 2 ** 31) {
      throw new InvalidArgumentError(
        `saturation ${this.options.saturation} is too large for column degree ${maxDegree} in fixed point`,
      );
    }
    const edges = H.col.length;
    this.L = new Float64Array(H.n);
    this.Lnew = new Float64Array(this.minSum ? 0 : H.n);
    this.R = new Float64Array(this.minSum ? 0 : edges);
    this.Li = new Int32Array(this.minSum ? H.n : 0);
    this.Ri = new Int32Array(this.minSum ? edges : 0);
    this.q = new Float64Array(dmax);
    this.qi = new Int32Array(dmax);
    this.t = new Float64Array(dmax);
    this.suffix = new Float64Array(dmax);
    this.hard = new Uint8Array(H.n);
    this.L0 = new Float64Array(this.minSum ? 0 : H.n);
    this.Li0 = new Int32Array(this.minSum ? H.n : 0);
  }

  /** Decodes one frame of n LLRs; `bits` (n entries, allocated when absent) receives the hard decisions. */
  decode(llr: ArrayLike<number>, bits?: Uint8Array): DecodeResult {
    if (llr.length !== this.n)
      throw new InvalidInputError('SHAPE_MISMATCH', `decoder input has ${llr.length} LLRs, the code has n = ${this.n}`);
    const iterations = this.run(llr, 0);
    const out = bits ?? new Uint8Array(this.n);
    if (out.length < this.n)
      throw new InvalidInputError('SHAPE_MISMATCH', `bits output has ${out.length} entries, need ${this.n}`);
    out.set(this.hard);
    return { bits: out, iterations: Math.abs(iterations), ok: iterations > 0 };
  }

  /**
   * Decodes the frame llr[offset .. offset + n) and leaves the hard decisions in `decisions`.
   * Returns the iterations run, negated when the final syndrome is not zero (no allocation).
   */
  run(llr: ArrayLike<number>, offset: number): number {
    const { n } = this;
    const { saturation: sat, maxIterations, earlyStop, algorithm } = this.options;
    if (!Number.isInteger(offset) || offset < 0 || offset + n > llr.length)
      throw new InvalidInputError('SHAPE_MISMATCH', `frame at offset ${offset} runs past the ${llr.length} LLRs given`);
    const L = this.L;
    let it = 0,
      ok = false;
    if (this.minSum) {
      const Li = this.Li;
      for (let i = 0; i < n; i++) {
        const v = llr[offset + i]!;
        if (!Number.isFinite(v))
          throw new InvalidInputError('NON_FINITE', `LLR ${i} of the frame at offset ${offset} is ${v}`, {
            index: offset + i,
          });
        Li[i] = Math.round((v > sat ? sat : v < -sat ? -sat : v) * LDPC_MIN_SUM_SCALE);
      }
      this.Li0.set(Li);
      this.Ri.fill(0);
    } else {
      for (let i = 0; i < n; i++) {
        const v = llr[offset + i]!;
        if (!Number.isFinite(v))
          throw new InvalidInputError('NON_FINITE', `LLR ${i} of the frame at offset ${offset} is ${v}`, {
            index: offset + i,
          });
        L[i] = v > sat ? sat : v < -sat ? -sat : v;
      }
      this.L0.set(L);
      this.R.fill(0);
    }
    const alphaQ = Math.round(this.options.alpha * 256);
    const betaQ = Math.round(this.options.beta * LDPC_MIN_SUM_SCALE);
    const satQ = Math.round(sat * LDPC_MIN_SUM_SCALE);
    while (it < maxIterations) {
      it++;
      switch (algorithm) {
        case 'nms':
          this.minSumPass(alphaQ, 0, satQ);
          break;
        case 'oms':
          this.minSumPass(256, betaQ, satQ);
          break;
        case 'spa':
          this.layeredSpaPass();
          break;
        case 'flooding-spa':
          this.floodingSpaPass(llr, offset);
          break;
      }
      if (earlyStop || it === maxIterations) {
        ok = this.minSum ? this.syndromeZeroInt() : this.syndromeZero();
        if (ok && earlyStop) break;
      }
    }
    const hard = this.hard;
    if (this.minSum) {
      const Li = this.Li;
      for (let i = 0; i < n; i++) hard[i] = Li[i]! < 0 ? 1 : 0;
    } else {
      for (let i = 0; i < n; i++) hard[i] = L[i]! < 0 ? 1 : 0;
    }
    return ok ? it : -it;
  }

  /** The hard decisions of the last run() (n entries, 0/1). */
  get decisions(): Uint8Array {
    return this.hard;
  }

  /** The posterior LLRs of the last run() (n entries, ln P(0)/P(1)), into `out` when given. */
  posteriors(out?: Float64Array): Float64Array {
    const p = out ?? new Float64Array(this.n);
    if (p.length !== this.n)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `posterior output has ${p.length} entries, the code has n = ${this.n}`,
      );
    if (this.minSum) for (let i = 0; i < this.n; i++) p[i] = this.Li[i]! / LDPC_MIN_SUM_SCALE;
    else p.set(this.L);
    return p;
  }

  /**
   * The extrinsic LLRs of the last run() (n entries, into `out` when given): its a-posteriori LLRs
   * minus its input as the decoder took it (clipped to +-saturation; the min-sum decoders' rounded to
   * multiples of 1 / LDPC_MIN_SUM_SCALE), i.e. what the code's checks say of each bit beyond its own
   * channel LLR: the soft output that iterative detection and decoding feeds back to the detector.
   */
  extrinsic(out?: Float64Array): Float64Array {
    const p = out ?? new Float64Array(this.n);
    if (p.length !== this.n)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `extrinsic output has ${p.length} entries, the code has n = ${this.n}`,
      );
    if (this.minSum) for (let i = 0; i < this.n; i++) p[i] = (this.Li[i]! - this.Li0[i]!) / LDPC_MIN_SUM_SCALE;
    else for (let i = 0; i < this.n; i++) p[i] = this.L[i]! - this.L0[i]!;
    return p;
  }

  private syndromeZero(): boolean {
    const { rowStart, col, m } = this.H;
    const L = this.L;
    for (let r = 0; r < m; r++) {
      let x = 0;
      const b = rowStart[r + 1]!;
      for (let e = rowStart[r]!; e < b; e++) if (L[col[e]!]! < 0) x ^= 1;
      if (x) return false;
    }
    return true;
  }

  private syndromeZeroInt(): boolean {
    const { rowStart, col, m } = this.H;
    const L = this.Li;
    for (let r = 0; r < m; r++) {
      let x = 0;
      const b = rowStart[r + 1]!;
      for (let e = rowStart[r]!; e < b; e++) x ^= L[col[e]!]! >>> 31;
      if (x) return false;
    }
    return true;
  }

  /**
   * One layered min-sum iteration in int32 fixed point: message magnitude = max(0, min - betaQ) *
   * alphaQ / 256 with min clipped to satQ (normalized: betaQ = 0; offset: alphaQ = 256). The two
   * minima are tracked without branches (data-dependent branches mispredict on noisy LLRs); the edge
   * holding the minimum is recognised by its magnitude (a tie gives both edges min2 = min1, as it should).
   */
  private minSumPass(alphaQ: number, betaQ: number, satQ: number): void {
    const { rowStart, col, m } = this.H;
    const { Li, Ri, qi } = this;
    for (let r = 0; r < m; r++) {
      const a = rowStart[r]!,
        b = rowStart[r + 1]!;
      let min1 = satQ,
        min2 = satQ,
        sgn = 0;
      for (let e = a; e < b; e++) {
        const v = (Li[col[e]!]! - Ri[e]!) | 0;
        qi[e - a] = v;
        const sm = v >> 31;
        sgn ^= sm;
        const mag = (v ^ sm) - sm;
        const d = mag - min1,
          dm = d >> 31;
        const hi = mag - (d & dm);
        min1 += d & dm;
        const d2 = hi - min2;
        min2 += d2 & (d2 >> 31);
      }
      let m1 = min1 - betaQ,
        m2 = min2 - betaQ;
      m1 = ((m1 & ~(m1 >> 31)) * alphaQ) >> 8;
      m2 = ((m2 & ~(m2 >> 31)) * alphaQ) >> 8;
      const x12 = m1 ^ m2;
      for (let e = a; e < b; e++) {
        const v = qi[e - a]!;
        const sm = v >> 31;
        const sel = ((((v ^ sm) - sm) ^ min1) - 1) >> 31;
        const s = sm ^ sgn;
        const rn = (m1 ^ (x12 & sel) ^ s) - s;
        Ri[e] = rn;
        Li[col[e]!] = v + rn;
      }
    }
  }

  /**
   * Exact check-node messages from the extrinsic inputs q[0 .. d): R_j = 2 atanh(prod_{i != j}
   * tanh(|q_i| / 2)) with the product of the other signs, the products excluding j taken from prefix
   * and suffix products (no division, so no trouble with zero or denormal factors), clipped to
   * +-saturation; written to out[outOffset ..].
   */
  private checkNode(d: number, out: Float64Array, outOffset: number): void {
    const { q, t, suffix } = this;
    const sat = this.options.saturation;
    let sgn = 0;
    for (let j = 0; j < d; j++) {
      const v = q[j]!;
      t[j] = Math.tanh((v < 0 ? -v : v) * 0.5);
      if (v < 0) sgn ^= 1;
    }
    let acc = 1;
    for (let j = d - 1; j >= 0; j--) {
      suffix[j] = acc;
      acc *= t[j]!;
    }
    let prefix = 1;
    for (let j = 0; j < d; j++) {
      let x = prefix * suffix[j]!;
      prefix *= t[j]!;
      if (x > 1) x = 1;
      let mag = 2 * Math.atanh(x);
      if (mag > sat) mag = sat;
      out[outOffset + j] = sgn ^ (q[j]! < 0 ? 1 : 0) ? -mag : mag;
    }
  }

  private layeredSpaPass(): void {
    const { rowStart, col, m } = this.H;
    const { L, R, q } = this;
    for (let r = 0; r < m; r++) {
      const a = rowStart[r]!,
        b = rowStart[r + 1]!;
      for (let e = a; e < b; e++) q[e - a] = L[col[e]!]! - R[e]!;
      this.checkNode(b - a, R, a);
      for (let e = a; e < b; e++) L[col[e]!] = q[e - a]! + R[e]!;
    }
  }

  /** Flooding: every check uses the posteriors of the previous iteration; then posteriors = channel + all messages. */
  private floodingSpaPass(llr: ArrayLike<number>, offset: number): void {
    const { rowStart, col, m, n } = this.H;
    const { L, Lnew, R, q } = this;
    const sat = this.options.saturation;
    for (let i = 0; i < n; i++) {
      const v = llr[offset + i]!;
      Lnew[i] = v > sat ? sat : v < -sat ? -sat : v;
    }
    for (let r = 0; r < m; r++) {
      const a = rowStart[r]!,
        b = rowStart[r + 1]!;
      for (let e = a; e < b; e++) q[e - a] = L[col[e]!]! - R[e]!;
      this.checkNode(b - a, R, a);
      for (let e = a; e < b; e++) Lnew[col[e]!] += R[e]!;
    }
    L.set(Lnew);
  }
}
