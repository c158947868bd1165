/**
 * The coded link of a simulation chunk: random information bits, LDPC encoding, Gray QAM, the
 * channel model's channels, a soft detector's max-log LLRs, decoding, and the errors on the information bits.
 *
 * Frame layout: a frame's n channel bits fill consecutive symbols (bitsPerSymbol bits each, b0
 * first, as the modulation's bit labels), and the symbols fill vectors stream-major (stream 0
 * first), so a frame spans vectorsPerFrame = ceil(n / (bitsPerSymbol nt)) consecutive vectors. A
 * vector holds bits of one frame only; the last vector's unused bits are random pad (drawn, sent,
 * never decoded). The detector's LLR layout (vectors x nt x bitsPerSymbol) is then the frame's bit
 * order, so deinterleaving is taking the first n LLRs of the frame's vectors. No interleaver beyond
 * that (NR codes carry their own bit interleaver inside `code.encode`).
 */
import { InvalidArgumentError, type Philox } from '../core/index.js';
import { chunkUnit } from './chunking.js';
import { ldpcCode, type DecoderOptions, type FrameDecoder, type LdpcCode } from '../coding/index.js';
import {
  detect,
  constellation,
  type DetectOptions,
  type Detector,
  type Modulation,
  SOFT_DETECTORS,
} from '../mimo/index.js';

/** What a chunk needs to know of the code: the spec (rebuilt and cached in every worker) and the decoder. */
export interface CodedSpec {
  /** ldpcCode() spec, e.g. 'wimax:2304:1/2' or 'nr:bg1:8448:1/2'. */
  code: string;
  /** Decoder settings (algorithm, maxIterations, ...). */
  decoder: DecoderOptions;
  /**
   * An NR code block's rate-matched length, where the link sets it (the OFDM link shares a slot's
   * data resource elements among its code blocks); absent, the spec's rate gives it.
   */
  E?: number;
  /**
   * Iterative detection and decoding: outer passes (absent or 1: one detection, one decoding). Each
   * pass after the first detects with the previous decoding's extrinsic LLRs as priors.
   */
  idd?: number;
}

const codes = new Map<string, LdpcCode>();
const decoders = new Map<string, FrameDecoder>();

/**
 * The code of a spec, built once per thread (NR codes get the modulation order as Qm, and E where
 * given: CodedSpec.E).
 */
export function codeOf(spec: string, modulation: Modulation, E?: number): LdpcCode {
  const Qm = constellation(modulation).bitsPerSymbol;
  const key = `${spec}|${Qm}|${E ?? ''}`;
  let c = codes.get(key);
  if (!c) {
    c = ldpcCode(spec, spec.trim().toLowerCase().startsWith('nr') ? { Qm, ...(E !== undefined ? { E } : {}) } : {});
    codes.set(key, c);
  }
  return c;
}

/** The decoder of a code and settings, built once per thread (its state is reused frame after frame). */
function decoderOf(spec: CodedSpec, modulation: Modulation): FrameDecoder {
  const key = `${spec.code}|${spec.E ?? ''}|${modulation}|${JSON.stringify(spec.decoder)}`;
  let d = decoders.get(key);
  if (!d) {
    d = codeOf(spec.code, modulation, spec.E).decoder(spec.decoder);
    decoders.set(key, d);
  }
  return d;
}

/** Vectors one frame of n channel bits spans: ceil(n / (bitsPerSymbol nt)). */
export function vectorsPerFrame(n: number, nt: number, bitsPerSymbol: number): number {
  return Math.ceil(n / (bitsPerSymbol * nt));
}

/** Smallest number of vectors holding whole frames and whole channel groups: lcm(vectorsPerFrame, vectorsPerChannel). */
export function codedUnit(vpf: number, vectorsPerChannel: number): number {
  return chunkUnit({ vectorsPerChannel, vectorsPerFrame: vpf });
}

/** A coded run's detectors must give LLRs: a typed error names the first that cannot. */
export function checkSoftDetectors(detectors: readonly { detector: Detector; soft?: string }[]): void {
  for (const d of detectors) {
    if (!SOFT_DETECTORS.includes(d.detector)) {
      throw new InvalidArgumentError(
        `a coded simulation needs soft detectors (${SOFT_DETECTORS.join(', ')}); '${d.detector}' gives hard decisions only`,
      );
    }
    if (d.soft === 'none')
      throw new InvalidArgumentError(`a coded simulation needs LLRs: detector '${d.detector}' has soft 'none'`);
  }
}

/**
 * One frame's symbol indices (`out`, symbolsPerFrame of them, bitsPerSymbol `bps` bits each, b0
 * first) from its n channel bits and, past them, pad bits: the 32-bit word `pad` (already drawn),
 * then further words from `rng`, low bit first.
 */
export function frameSymbols(bits: Uint8Array, bps: number, pad: number, rng: Philox, out: Int32Array): void {
  const n = bits.length;
  let padUsed = 0;
  for (let s = 0; s < out.length; s++) {
    let idx = 0;
    for (let b = 0; b < bps; b++) {
      const j = s * bps + b;
      let bit: number;
      if (j < n) bit = bits[j]!;
      else {
        if (padUsed === 32) {
          pad = rng.nextUint32();
          padUsed = 0;
        }
        bit = (pad >>> padUsed++) & 1;
      }
      idx = (idx << 1) | bit;
    }
    out[s] = idx;
  }
}

/**
 * Transmitted symbol indices of `frames` frames: vectors x nt, from the chunk's info-bit stream.
 * Returns the information bits (frames x k) and the symbol indices (frames x vpf x nt).
 */
export function codedSymbols(
  rng: Philox,
  code: LdpcCode,
  frames: number,
  nt: number,
  modulation: Modulation,
): { info: Uint8Array; indices: Int32Array } {
  const bps = constellation(modulation).bitsPerSymbol;
  const vpf = vectorsPerFrame(code.n, nt, bps);
  const info = new Uint8Array(frames * code.k);
  // 32 bits per draw, low bit first
  for (let i = 0; i < info.length; i += 32) {
    const w = rng.nextUint32();
    const m = Math.min(32, info.length - i);
    for (let b = 0; b < m; b++) info[i + b] = (w >>> b) & 1;
  }
  const channelBits = code.encodeBatch(info, frames);
  const symbolsPerFrame = vpf * nt;
  const indices = new Int32Array(frames * symbolsPerFrame);
  const padBits = symbolsPerFrame * bps - code.n;
  for (let f = 0; f < frames; f++) {
    const bits = channelBits.subarray(f * code.n, (f + 1) * code.n);
    frameSymbols(
      bits,
      bps,
      padBits > 0 ? rng.nextUint32() : 0,
      rng,
      indices.subarray(f * symbolsPerFrame, (f + 1) * symbolsPerFrame),
    );
  }
  return { info, indices };
}

/** Counts of a coded range: information-bit and frame errors after decoding, raw symbol errors of the detector. */
export interface CodedCounts {
  bitErrors: number;
  symbolErrors: number;
  frameErrors: number;
  /** Vectors whose search stopped at the node budget under onBudget 'flag'. */
  unproven: number;
  frames: number;
  iterations: number;
}

/**
 * Detects vectors [v0, v1) (whole frames) with the soft detector `opts`, decodes their frames and
 * counts errors against the sent information bits. H, y: the chunk's channels and received vectors.
 * `counted` (optional; default every vector): the vectors, numbered from v0, whose raw symbol errors
 * and unproven searches count (the GPU executor redoes a frame whose other vectors it counted).
 */
export function decodeRange(
  args: {
    nt: number;
    nr: number;
    modulation: Modulation;
    vectorsPerChannel: number;
    noiseVar: number;
    H: Float64Array;
    y: Float64Array;
    txIndices: Int32Array;
    info: Uint8Array;
  },
  spec: CodedSpec,
  opts: DetectOptions,
  v0: number,
  v1: number,
  counted?: (v: number) => boolean,
): CodedCounts {
  const { nt, nr, modulation, vectorsPerChannel: vpc } = args;
  const code = codeOf(spec.code, modulation, spec.E);
  const bps = constellation(modulation).bitsPerSymbol;
  const vpf = vectorsPerFrame(code.n, nt, bps);
  const f0 = v0 / vpf,
    f1 = v1 / vpf;
  const frames = f1 - f0;
  const H = args.H.subarray(2 * nr * nt * (v0 / vpc), 2 * nr * nt * (v1 / vpc));
  const y = args.y.subarray(2 * nr * v0, 2 * nr * v1);
  const per = vpf * nt * bps;
  const passes = spec.idd ?? 1;
  const decoder = decoderOf(spec, modulation);
  const dOpts: DetectOptions = { ...opts, soft: opts.soft ?? 'maxlog' };
  let symbolErrors = 0;
  let prior: Float64Array | undefined;
  let extrinsic: Float64Array | undefined;
  let dec: ReturnType<FrameDecoder['decodeBatch']> | undefined;
  let unproven = 0;
  for (let pass = 0; pass < passes; pass++) {
    const out = detect(
      { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar: args.noiseVar, ...(prior ? { priorLlr: prior } : {}) },
      dOpts,
    );
    if (!out.llr) throw new InvalidArgumentError(`detector '${opts.detector}' returned no LLRs`);
    if (pass === 0) {
      // the raw detector's symbol errors: the first, prior-free detection
      const tx = args.txIndices;
      if (counted) {
        for (let v = 0; v < v1 - v0; v++) {
          if (!counted(v)) continue;
          for (let s = v * nt; s < (v + 1) * nt; s++) if (out.symbols[s] !== tx[v0 * nt + s]) symbolErrors++;
          unproven += out.unproven?.[v] ?? 0;
        }
      } else {
        for (let s = 0; s < out.symbols.length; s++) if (out.symbols[s] !== tx[v0 * nt + s]) symbolErrors++;
        unproven = out.stats.budgetExceeded ?? 0;
      }
    }
    const llr = frameLlrs(out.llr, frames, code.n, per);
    if (pass === passes - 1) {
      dec = decoder.decodeBatch(llr, frames);
      break;
    }
    extrinsic ??= new Float64Array(frames * code.n);
    dec = decoder.decodeBatch(llr, frames, undefined, extrinsic);
    prior ??= new Float64Array(frames * per);
    framePriors(extrinsic, frames, code.n, per, prior);
  }
  return {
    ...countDecoded(dec!.bits, dec!.iterations, args.info, f0, frames, code.k),
    symbolErrors,
    frames,
    unproven,
  };
}

/**
 * Interleaving back, frameLlrs' inverse: the decoder's frames x n extrinsic LLRs into the detector's
 * prior layout, frames x `per` (vectorsPerFrame x nt x bitsPerSymbol), the pad bits past each
 * frame's n left as they are (0: no prior).
 */
export function framePriors(ext: Float64Array, frames: number, n: number, per: number, out: Float64Array): void {
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < n; j++) out[f * per + j] = ext[f * n + j]!;
  }
}

/**
 * Deinterleaving: frames x n LLRs from the detector's frames x `per` (vectorsPerFrame x nt x
 * bitsPerSymbol; the first n of each frame are its codeword's, the rest pad).
 */
export function frameLlrs(
  llr: ArrayLike<number>,
  frames: number,
  n: number,
  per: number,
  float32 = false,
): Float32Array | Float64Array {
  const out = float32 ? new Float32Array(frames * n) : new Float64Array(frames * n);
  for (let f = 0; f < frames; f++) {
    for (let j = 0; j < n; j++) out[f * n + j] = llr[f * per + j]!;
  }
  return out;
}

/** Errors of decoded frames (frames x k bits) against the information bits sent, from frame f0 of `info`. */
export function countDecoded(
  bits: Uint8Array,
  iterationsOf: Int32Array,
  info: Uint8Array,
  f0: number,
  frames: number,
  k: number,
): { bitErrors: number; frameErrors: number; iterations: number } {
  let bitErrors = 0,
    frameErrors = 0,
    iterations = 0;
  for (let f = 0; f < frames; f++) {
    let e = 0;
    const base = (f0 + f) * k;
    for (let i = 0; i < k; i++) if (bits[f * k + i] !== info[base + i]) e++;
    bitErrors += e;
    if (e > 0) frameErrors++;
    iterations += iterationsOf[f]!;
  }
  return { bitErrors, frameErrors, iterations };
}
