/**
 * Channel codes as a link uses them: k information bits in, n channel bits out (encode), n channel
 * LLRs in, k decoded bits out (decode), one frame or a batch of frames back to back. Built from a
 * spec string ('wimax:2304:1/2', 'nr:bg1:8448:1/2', 'nr:2000:0.4') or directly from a base matrix.
 */
import {
  checkOptions,
  inapplicable,
  integer,
  option,
  show,
  InvalidArgumentError,
  InvalidInputError,
  pickCpuKernel,
  type CpuKernel,
} from '../core/index.js';
import { LdpcDecoder, resolveDecoderOptions, type ResolvedDecoderOptions } from './decoder.js';
import { FixedPointMinSumDecoder, fixedPointFormat, type FrameLoad } from './fixed-point-min-sum.js';
import { type ChannelMap, SimdMinSumDecoder } from './simd-min-sum.js';
import { QcEncoder } from './encoder.js';
import { GenericEncoder } from './generic-encoder.js';
import {
  nrBaseMatrix,
  nrCodeParams,
  nrRateMatch,
  nrRateMatchMap,
  nrRateRecover,
  NR_MAX_RATE,
  NR_CODE_SCHEMA,
  type NrBaseGraph,
  type NrCodeParams,
  type NrCodeRequest,
} from './nr.js';
import { expandQc, liftBaseMatrix } from './parity.js';
import type {
  BaseMatrix,
  DecodeBatchResult,
  DecodeResult,
  DecoderOptions,
  QcParityCheck,
  SparseParityCheck,
} from './types.js';
import { wimaxBaseMatrix } from './wimax.js';

/** A decoder bound to one code and one setting; reuse it across frames (its state is allocated once). */
export interface FrameDecoder {
  /** The settings in force. */
  readonly options: ResolvedDecoderOptions;
  /** The CPU kernel that decodes: the TypeScript reference, or WebAssembly SIMD ('int16' / 'int8' arithmetic). */
  readonly kernel: CpuKernel;
  /**
   * The underlying 'float' decoder over the code's full parity check (its last decisions,
   * posteriors, extrinsic LLRs); absent for the fixed-point arithmetics, which decode in batches.
   */
  readonly core?: LdpcDecoder;
  /** n channel LLRs (ln P(0)/P(1)) -> k information bits, iterations, syndrome verdict. */
  decode(llr: ArrayLike<number>): DecodeResult;
  /**
   * frames x n channel LLRs back to back -> frames x k bits, per-frame iterations and verdicts.
   * `out` (optional) is reused instead of allocating the result arrays. `extrinsic` (optional,
   * frames x n) receives each frame's extrinsic LLRs on its n channel bits: the decoder's
   * a-posteriori LLR of the code bit a channel bit carries minus the decoder's input for that code
   * bit (LdpcDecoder.extrinsic; an NR channel bit gets its codeword bit's, repeated bits alike).
   */
  decodeBatch(
    llr: ArrayLike<number>,
    frames: number,
    out?: DecodeBatchResult,
    extrinsic?: Float64Array,
  ): DecodeBatchResult;
}

/** An LDPC code as a link sees it. */
export interface LdpcCode {
  /** The spec that builds it again, e.g. 'wimax:2304:1/2' or 'nr:bg1:8448:1/2'. */
  readonly name: string;
  /** Information bits per frame. */
  readonly k: number;
  /** Channel bits per frame (the codeword for WiMAX, the rate-matched E bits for NR). */
  readonly n: number;
  /** k / n. */
  readonly rate: number;
  /** The mother code's parity check in compact QC form (columns = all code bits, punctured ones too); absent for a code read as a plain sparse matrix. */
  readonly qc?: QcParityCheck;
  /** The same parity check expanded to compressed rows. */
  readonly H: SparseParityCheck;
  /** NR parameters (base graph, Zc, fillers, E, Qm), for NR codes only. */
  readonly nr?: NrCodeParams;
  /** Full codeword (H's columns) of k information bits: the mother-code encoder, before rate matching. */
  encodeFull(info: ArrayLike<number>, out?: Uint8Array): Uint8Array;
  /** k information bits (0/1) -> n channel bits. */
  encode(info: ArrayLike<number>, out?: Uint8Array): Uint8Array;
  /** frames x k information bits -> frames x n channel bits. */
  encodeBatch(info: ArrayLike<number>, frames: number, out?: Uint8Array): Uint8Array;
  /** A reusable decoder of this code with the given options. */
  decoder(options?: DecoderOptions): FrameDecoder;
  /** n channel LLRs -> k bits, iterations, verdict (the code keeps one decoder per option set for these calls). */
  decode(llr: ArrayLike<number>, options?: DecoderOptions): DecodeResult;
  /** frames x n channel LLRs -> frames x k bits, per-frame iterations and verdicts (as decode()). */
  decodeBatch(llr: ArrayLike<number>, frames: number, options?: DecoderOptions): DecodeBatchResult;
}

function checkFrames(frames: number, have: number, per: number, what: string): void {
  if (!Number.isInteger(frames) || frames < 0)
    throw new InvalidArgumentError(`frames must be a non-negative integer, got ${frames}`);
  if (have !== frames * per)
    throw new InvalidInputError('SHAPE_MISMATCH', `${what} has ${have} entries, expected ${frames} frames x ${per}`);
}

/** Shared body: the mother code and its decoder; subclasses encode and map channel bits to code bits. */
abstract class CodeBase implements LdpcCode {
  abstract readonly name: string;
  abstract readonly k: number;
  abstract readonly n: number;
  readonly qc?: QcParityCheck;
  readonly H: SparseParityCheck;
  protected readonly full: Uint8Array;
  /** Codeword positions of the information bits; absent when they are the first k. */
  protected infoPositions?: Int32Array;
  /** Whether the channel carries the codeword as is (the decoder then reads the channel LLRs directly). */
  protected sentWhole = false;

  constructor(H: SparseParityCheck, qc?: QcParityCheck) {
    this.qc = qc;
    this.H = H;
    this.full = new Uint8Array(this.H.n);
  }

  get rate(): number {
    return this.k / this.n;
  }

  abstract encodeFull(info: ArrayLike<number>, out?: Uint8Array): Uint8Array;

  /** k information bits -> the n channel bits (here the codeword: a code sent whole). */
  encode(info: ArrayLike<number>, out?: Uint8Array): Uint8Array {
    return this.encodeFull(info, out);
  }

  /** Channel LLRs of one frame (at llrOffset) -> the decoder's H.n inputs in `into` (here as they are: a code sent whole). */
  protected toDecoderInput(llr: ArrayLike<number>, llrOffset: number, into: Float64Array, _saturation: number): void {
    if (llrOffset < 0 || llrOffset + this.n > llr.length)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `frame at offset ${llrOffset} runs past the ${llr.length} LLRs given`,
      );
    for (let i = 0; i < this.n; i++) into[i] = llr[llrOffset + i]!;
  }

  /**
   * How toDecoderInput maps channel LLRs to the decoder's inputs, for the WebAssembly kernel to do it
   * (a sum over a column map): absent where the channel carries the codeword as is.
   */
  protected channelMap(_saturation: number): ChannelMap | undefined {
    return undefined;
  }

  /** A frame's extrinsic LLRs on its code bits (H.n, `col`) -> on its n channel bits at out[at ..] (here as they are). */
  protected toChannelLlrs(col: Float64Array, out: Float64Array, at: number): void {
    out.set(col.length === this.n ? col : col.subarray(0, this.n), at);
  }

  encodeBatch(info: ArrayLike<number>, frames: number, out?: Uint8Array): Uint8Array {
    checkFrames(frames, info.length, this.k, 'information bits');
    const cw = out ?? new Uint8Array(frames * this.n);
    if (cw.length !== frames * this.n)
      throw new InvalidInputError('SHAPE_MISMATCH', `output has ${cw.length} entries, expected ${frames} x ${this.n}`);
    const src = info instanceof Uint8Array ? info : Uint8Array.from(info as ArrayLike<number>);
    for (let f = 0; f < frames; f++)
      this.encode(src.subarray(f * this.k, (f + 1) * this.k), cw.subarray(f * this.n, (f + 1) * this.n));
    return cw;
  }

  decoder(options: DecoderOptions = {}): FrameDecoder {
    const resolved = resolveDecoderOptions(options);
    if (resolved.arithmetic !== 'float') return this.fixedPointDecoder(resolved);
    const core = new LdpcDecoder(this.H, resolved);
    const input = new Float64Array(this.H.n);
    const sat = core.options.saturation;
    const ext = new Float64Array(this.H.n);
    const one = this.sentWhole
      ? (llr: ArrayLike<number>, offset: number): number => core.run(llr, offset)
      : (llr: ArrayLike<number>, offset: number): number => {
          this.toDecoderInput(llr, offset, input, sat);
          return core.run(input, 0);
        };
    return {
      options: resolved,
      kernel: 'typescript',
      core,
      decode: (llr) => {
        if (llr.length !== this.n)
          throw new InvalidInputError(
            'SHAPE_MISMATCH',
            `decoder input has ${llr.length} LLRs, the code sends n = ${this.n} bits`,
          );
        const it = one(llr, 0);
        const bits = new Uint8Array(this.k);
        this.gatherInfo(core.decisions, bits, 0);
        return { bits, iterations: Math.abs(it), ok: it > 0 };
      },
      decodeBatch: (llr, frames, out, extrinsic) => {
        const res = this.batchOutputs(llr, frames, out, extrinsic);
        for (let f = 0; f < frames; f++) {
          const it = one(llr, f * this.n);
          this.gatherInfo(core.decisions, res.bits, f * this.k);
          if (extrinsic) this.toChannelLlrs(core.extrinsic(ext), extrinsic, f * this.n);
          res.iterations[f] = Math.abs(it);
          res.ok[f] = it > 0 ? 1 : 0;
        }
        res.kernel = 'typescript';
        return res;
      },
    };
  }

  /**
   * A batch decode's arguments checked (frames x n LLRs, an extrinsic output of frames x n doubles
   * when given, `out` long enough) and its output arrays: `out`, or new ones.
   */
  private batchOutputs(
    llr: ArrayLike<number>,
    frames: number,
    out: DecodeBatchResult | undefined,
    extrinsic: Float64Array | undefined,
  ): DecodeBatchResult {
    checkFrames(frames, llr.length, this.n, 'LLR input');
    if (extrinsic !== undefined && (!(extrinsic instanceof Float64Array) || extrinsic.length < frames * this.n))
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `extrinsic output must be a Float64Array of at least ${frames} frames x n = ${this.n} entries`,
      );
    const res = out ?? {
      bits: new Uint8Array(frames * this.k),
      iterations: new Int32Array(frames),
      ok: new Uint8Array(frames),
    };
    if (res.bits.length < frames * this.k || res.iterations.length < frames || res.ok.length < frames)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `batch output arrays are too short for ${frames} frames of k = ${this.k}`,
      );
    return res;
  }

  /**
   * The decoder of a fixed-point arithmetic: frames decoded in batches on the WebAssembly SIMD kernel
   * (lanes of frames) or its TypeScript reference, as cpuKernel and the runtime pick.
   */
  private fixedPointDecoder(o: ResolvedDecoderOptions): FrameDecoder {
    const format = fixedPointFormat(o.arithmetic as 'int8' | 'int16');
    const kernel = pickCpuKernel(o.cpuKernel, 'LDPC decoder');
    const backend =
      kernel === 'wasm-simd'
        ? new SimdMinSumDecoder(this.H, o, format, this.channelMap(o.saturation))
        : new FixedPointMinSumDecoder(this.H, o, format);
    const N = this.H.n;
    const simd = backend instanceof SimdMinSumDecoder ? backend : undefined;
    const hostLoad =
      (llr: ArrayLike<number>): FrameLoad =>
      (f, into) => {
        if (!this.sentWhole) this.toDecoderInput(llr, f * this.n, into, o.saturation);
        else if (llr instanceof Float64Array) into.set(llr.subarray(f * N, (f + 1) * N));
        else for (let i = 0; i < N; i++) into[i] = llr[f * N + i]!;
      };
    // A rate-matched code's recovery runs in the kernel where it can (channelLoad).
    const loadOf = (llr: ArrayLike<number>): FrameLoad =>
      backend instanceof SimdMinSumDecoder && !this.sentWhole && llr instanceof Float64Array
        ? backend.channelLoad(llr, hostLoad(llr))
        : hostLoad(llr);
    // The decisions gatherInfo reads: the information bits' columns.
    const pos = this.infoPositions;
    const decisionColumns = pos ? pos.reduce((a, b) => Math.max(a, b + 1), 0) : this.k;
    const decodeBatch = (
      llr: ArrayLike<number>,
      frames: number,
      out?: DecodeBatchResult,
      extrinsic?: Float64Array,
    ): DecodeBatchResult => {
      const res = this.batchOutputs(llr, frames, out, extrinsic);
      const load = loadOf(llr);
      backend.decodeFrames(
        frames,
        load,
        (f, it, decisions, extrinsicOf) => {
          this.gatherInfo(decisions, res.bits, f * this.k);
          res.iterations[f] = Math.abs(it);
          res.ok[f] = it > 0 ? 1 : 0;
          if (!extrinsic) return;
          const col = extrinsicOf();
          // A rate-matched code's gather runs in the kernel where the values are the kernel's.
          if (!(simd && !this.sentWhole && simd.extrinsicToChannel(extrinsic, f * this.n)))
            this.toChannelLlrs(col, extrinsic, f * this.n);
        },
        decisionColumns,
      );
      res.kernel = kernel;
      return res;
    };
    return {
      options: o,
      kernel,
      decode: (llr) => {
        if (llr.length !== this.n)
          throw new InvalidInputError(
            'SHAPE_MISMATCH',
            `decoder input has ${llr.length} LLRs, the code sends n = ${this.n} bits`,
          );
        const r = decodeBatch(llr, 1);
        return { bits: r.bits, iterations: r.iterations[0]!, ok: r.ok[0] === 1 };
      },
      decodeBatch,
    };
  }

  private cached?: { key: string; dec: FrameDecoder };

  private decoderFor(options: DecoderOptions): FrameDecoder {
    const key = JSON.stringify(resolveDecoderOptions(options));
    if (this.cached?.key !== key) this.cached = { key, dec: this.decoder(options) };
    return this.cached.dec;
  }

  decode(llr: ArrayLike<number>, options: DecoderOptions = {}): DecodeResult {
    return this.decoderFor(options).decode(llr);
  }

  decodeBatch(llr: ArrayLike<number>, frames: number, options: DecoderOptions = {}): DecodeBatchResult {
    return this.decoderFor(options).decodeBatch(llr, frames);
  }

  /** Copies the k information bits of a decided codeword to out[at ..]. */
  private gatherInfo(decisions: Uint8Array, out: Uint8Array, at: number): void {
    const pos = this.infoPositions;
    if (!pos) out.set(decisions.length === this.k ? decisions : decisions.subarray(0, this.k), at);
    else for (let i = 0; i < this.k; i++) out[at + i] = decisions[pos[i]!]!;
  }
}

/** Lifted QC code with its dual-diagonal encoder. */
abstract class QcCodeBase extends CodeBase {
  protected readonly enc: QcEncoder;

  constructor(base: BaseMatrix, z: number) {
    const qc = liftBaseMatrix(base, z);
    super(expandQc(qc), qc);
    this.enc = new QcEncoder(qc);
  }
}

/**
 * A code sent whole (channel bits = codeword) with its encoder: a QC code with the dual-diagonal
 * encoder, information bits first (WiMAX, any dual-diagonal base matrix), or any parity check with
 * the dense GF(2) encoder, information bits at its non-pivot columns.
 */
class WholeCode extends CodeBase {
  readonly name: string;
  readonly k: number;
  readonly n: number;
  private readonly enc: QcEncoder | GenericEncoder;

  constructor(name: string, H: SparseParityCheck, enc: QcEncoder | GenericEncoder, qc?: QcParityCheck) {
    super(H, qc);
    this.name = name;
    this.enc = enc;
    this.k = enc.k;
    this.n = enc.n;
    if (enc instanceof GenericEncoder) this.infoPositions = enc.infoPositions;
    this.sentWhole = true;
  }

  encodeFull(info: ArrayLike<number>, out?: Uint8Array): Uint8Array {
    return this.enc.encode(info, out);
  }
}

/** The QC code of a dual-diagonal base matrix lifted by z, sent whole. */
function wholeQcCode(name: string, base: BaseMatrix, z: number): LdpcCode {
  const qc = liftBaseMatrix(base, z);
  return new WholeCode(name, expandQc(qc), new QcEncoder(qc), qc);
}

/** An NR code block: K bits + fillers -> LDPC -> rate matching (rv 0) and interleaving -> E bits. */
class NrCode extends QcCodeBase {
  readonly name: string;
  readonly k: number;
  readonly n: number;
  readonly nr: NrCodeParams;
  /** Channel position -> codeword column, for redundancy version 0. */
  readonly map: Int32Array;
  private readonly padded: Uint8Array;

  constructor(name: string, p: NrCodeParams) {
    super(nrBaseMatrix(p), p.Zc);
    this.name = name;
    this.nr = p;
    this.k = p.K;
    this.n = p.E;
    this.map = nrRateMatchMap(p, 0);
    this.padded = new Uint8Array(p.Kldpc);
  }

  encodeFull(info: ArrayLike<number>, out?: Uint8Array): Uint8Array {
    if (info.length !== this.k)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `encoder input has ${info.length} bits, the code carries K = ${this.k}`,
      );
    for (let i = 0; i < this.k; i++) this.padded[i] = info[i]!;
    return this.enc.encode(this.padded, out);
  }

  override encode(info: ArrayLike<number>, out?: Uint8Array): Uint8Array {
    return nrRateMatch(this.map, this.encodeFull(info, this.full), out);
  }

  protected override toChannelLlrs(col: Float64Array, out: Float64Array, at: number): void {
    const map = this.map;
    for (let i = 0; i < this.n; i++) out[at + i] = col[map[i]!]!;
  }

  protected override channelMap(saturation: number): ChannelMap {
    // nrRateRecover's sums: fillers (K .. Kldpc - 1) known zeros at +saturation, the rest from 0.
    return { map: this.map, fillFrom: this.nr.K, fillTo: this.nr.Kldpc, fillValue: saturation };
  }

  protected override toDecoderInput(
    llr: ArrayLike<number>,
    offset: number,
    into: Float64Array,
    saturation: number,
  ): void {
    nrRateRecover(this.nr, this.map, llr, into, true, saturation, offset);
  }
}

/** The 802.16e rate-1/2 code of length n (576 .. 2304 in steps of 96). */
export function wimaxCode(n: number): LdpcCode {
  const base = wimaxBaseMatrix(n);
  return wholeQcCode(`wimax:${n}:1/2`, base, n / 24);
}

/** An NR code block (38.212): K information bits at rate R (or E channel bits), base graph by 7.2.2 unless given. */
export function nrCode(req: NrCodeRequest): LdpcCode {
  const p = nrCodeParams(req, 'nrCode()');
  const rate = req.E !== undefined ? `E${p.E}` : String(req.R);
  return new NrCode(`nr:bg${p.bg}:${p.K}:${rate}`, p);
}

/**
 * A QC code from any base matrix with the dual-diagonal parity structure (e.g. one read by
 * parseBaseMatrix), lifted by z with shifts mod z; sent whole, information bits first.
 */
export function qcCode(base: BaseMatrix, z: number, name = 'qc'): LdpcCode {
  checkBaseMatrix(base, 'qcCode()');
  checkName(name, 'qcCode()');
  return wholeQcCode(name, base, z);
}

/** A base matrix argument: rows and cols positive integers, shifts an Int32Array of rows x cols. */
function checkBaseMatrix(base: unknown, call: string): void {
  const b = base as Partial<BaseMatrix> | null;
  const ok =
    b !== null &&
    typeof b === 'object' &&
    Number.isSafeInteger(b.rows) &&
    b.rows! >= 1 &&
    Number.isSafeInteger(b.cols) &&
    b.cols! >= 1 &&
    b.shifts instanceof Int32Array;
  if (!ok)
    throw new InvalidArgumentError(
      `${call}: base must be a BaseMatrix {rows, cols, shifts: Int32Array}, got ${show(base)}`,
      {
        option: 'base',
      },
    );
}

/** A sparse parity check argument: m, n positive integers, rowStart (m + 1) and col Int32Arrays. */
function checkParityCheck(H: unknown, call: string): void {
  const h = H as Partial<SparseParityCheck> | null;
  const ok =
    h !== null &&
    typeof h === 'object' &&
    Number.isSafeInteger(h.m) &&
    h.m! >= 1 &&
    Number.isSafeInteger(h.n) &&
    h.n! >= 1 &&
    h.rowStart instanceof Int32Array &&
    h.col instanceof Int32Array &&
    h.rowStart.length === h.m! + 1;
  if (!ok)
    throw new InvalidArgumentError(
      `${call}: H must be a SparseParityCheck {m, n, rowStart: Int32Array of m + 1, col: Int32Array}, got ${show(H)}`,
      { option: 'H' },
    );
}

/** A code's name: a non-empty string (it names the code in tables and results). */
function checkName(name: unknown, call: string): void {
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidArgumentError(`${call}: name must be a non-empty string, got ${show(name)}`, { option: 'name' });
}

/**
 * A code from any parity check (e.g. one read by parseAlist): sent whole, encoded by Gaussian
 * elimination over GF(2); k = n - rank H information bits at the non-pivot columns, in order.
 * UnsupportedError for matrices beyond the dense encoder's size (n m > 2^28 bits).
 */
export function sparseCode(H: SparseParityCheck, name = 'sparse'): LdpcCode {
  checkParityCheck(H, 'sparseCode()');
  checkName(name, 'sparseCode()');
  return new WholeCode(name, H, new GenericEncoder(H));
}

function parseRate(text: string, spec: string): number {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const r = m ? Number(m[1]) / Number(m[2]) : /^\d*\.?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(r) || r <= 0 || r >= 1)
    throw new InvalidArgumentError(`code '${spec}': rate '${text}' is not a fraction in (0, 1) such as 1/2 or 0.5`);
  return r;
}

/** ldpcCode()'s options. */
const LDPC_CODE_SCHEMA = {
  Qm: NR_CODE_SCHEMA.Qm,
  E: option(
    integer(1),
    "an NR code block's rate-matched length, in place of the one the spec's rate gives (the rate still picks the base graph): how a slot's data resource elements are shared among its code blocks",
  ),
};

/**
 * How far below the asked rate R a spec's rate K / E may fall. E = Qm ceil(K / (R Qm)) channel bits
 * (whole Qm-bit symbols, at least K / R) lowers the rate by less than Qm / E: a few percent for any
 * K of more than a few dozen bits; past this, K is too small for the rate and the spec is refused.
 */
const NR_RATE_SLACK = 0.15;

/** A spec's rate must stay what was asked: K / E within NR_RATE_SLACK of R, or a typed error that says what K allows. */
function checkRateKept(spec: string, p: NrCodeParams, R: number): void {
  const rate = p.K / p.E;
  if (rate >= R * (1 - NR_RATE_SLACK)) return;
  const Emin = p.Qm * Math.ceil(p.K / (NR_MAX_RATE * p.Qm));
  const unit = p.Qm === 1 ? 'bits' : `${p.Qm}-bit symbols`;
  throw new InvalidArgumentError(
    `code '${spec}': K = ${p.K} at rate ${+R.toFixed(4)} needs E = ${p.E} channel bits (whole ${unit}, at least K / R), rate ${+rate.toFixed(4)}, more than ${NR_RATE_SLACK * 100}% below the rate asked: K is too small for it (the highest rate K = ${p.K} allows with Qm = ${p.Qm} is ${+(p.K / Emin).toFixed(4)}, E = ${Emin}); ask for a rate K can have, or a larger K`,
    { K: p.K, R, E: p.E, rate, Qm: p.Qm, highestRate: p.K / Emin },
  );
}

/**
 * Builds a code from its spec: 'wimax:N[:1/2]' (N = 576 .. 2304 step 96), 'nr:bgB:K:R' or 'nr:K:R'
 * (rate as 1/3 or 0.33; base graph by 38.212 7.2.2 when not given). `Qm` sets NR's bit interleaver
 * (the modulation order). Unknown families and bad numbers get InvalidArgumentError, as does an NR
 * K too small for its rate (NR_RATE_SLACK: nr:1:0.95 would be rate 1/2 with its E = 2 bits). `E`
 * (NR only) sets the rate-matched length outright, a multiple of Qm with K / E within 38.214's rates.
 */
export function ldpcCode(spec: string, options: { Qm?: number; E?: number } = {}): LdpcCode {
  const call = 'ldpcCode()';
  if (typeof spec !== 'string')
    throw new InvalidArgumentError(`${call}: the code spec must be a string, got ${show(spec)}`, { option: 'spec' });
  const o = checkOptions(options, LDPC_CODE_SCHEMA, call);
  const parts = spec.trim().toLowerCase().split(':');
  const int = (t: string | undefined, what: string): number => {
    if (t === undefined || !/^\d+$/.test(t))
      throw new InvalidArgumentError(`code '${spec}': ${what} '${t ?? ''}' is not a positive integer`);
    return Number(t);
  };
  if (parts[0] === 'wimax') {
    if (parts.length < 2 || parts.length > 3)
      throw new InvalidArgumentError(`code '${spec}': expected wimax:N or wimax:N:1/2`);
    const n = int(parts[1], 'length');
    if (o.Qm !== undefined)
      throw inapplicable(
        call,
        'Qm',
        `it sets NR's bit interleaver, and '${spec}' is an 802.16e code (sent without one)`,
      );
    if (o.E !== undefined)
      throw inapplicable(
        call,
        'E',
        `it sets an NR code block's rate matching, and '${spec}' is an 802.16e code (no rate matching)`,
      );
    if (parts.length === 3 && parseRate(parts[2]!, spec) !== 0.5)
      throw new InvalidArgumentError(`code '${spec}': only the 802.16e rate-1/2 family is available`);
    return wimaxCode(n);
  }
  if (parts[0] === 'nr') {
    let bg: NrBaseGraph | undefined;
    let rest = parts.slice(1);
    if (rest[0]?.startsWith('bg')) {
      const b = rest[0].slice(2);
      if (b !== '1' && b !== '2')
        throw new InvalidArgumentError(`code '${spec}': base graph '${rest[0]}' is not bg1 or bg2`);
      bg = Number(b) as NrBaseGraph;
      rest = rest.slice(1);
    }
    if (rest.length !== 2) throw new InvalidArgumentError(`code '${spec}': expected nr:bg1:K:R, nr:bg2:K:R or nr:K:R`);
    const K = int(rest[0], 'K');
    const R = parseRate(rest[1]!, spec);
    const p = nrCodeParams(
      { K, R, ...(bg !== undefined ? { bg } : {}), ...(o.Qm !== undefined ? { Qm: o.Qm } : {}) },
      call,
    );
    checkRateKept(spec, p, R);
    if (o.E === undefined) return new NrCode(`nr:bg${p.bg}:${K}:${rest[1]}`, p);
    const q = nrCodeParams({ K, E: o.E, bg: p.bg, Qm: p.Qm }, call);
    return new NrCode(`nr:bg${q.bg}:${K}:${rest[1]} (E = ${q.E})`, q);
  }
  throw new InvalidArgumentError(`unknown code '${spec}': expected wimax:N[:1/2] or nr:[bgB:]K:R`);
}
