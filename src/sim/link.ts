/**
 * One unit of the link: random symbols (or, coded, the symbols of encoded random frames, see
 * coded.ts), the channel model's channels (src/channels: iid Rayleigh, H = I for AWGN, ...),
 * y = H s + w.
 *
 * Every unit draws from its own three Philox streams, derived from (SNR index, unit index,
 * purpose), so a unit's data depends only on the seed and those indices: not on which worker
 * runs it, nor on how many threads there are. Separate streams per purpose keep the symbols and
 * channels of a unit independent of how much noise is drawn (and a GPU generator can reproduce
 * any of them alone). The draw order within each stream is channel.ts's.
 */
import { type CpuKernelRequest, InvalidArgumentError, Philox } from '../core/index.js';
import { checkChunkVectors } from './chunking.js';
import { type ChannelModel, type ChannelSpan, channelEntry, DEFAULT_CHANNEL_MODEL } from '../channels/index.js';
import { addNoise, randomSymbols, transmit, bitsPerSymbolOf, constellation, type Modulation } from '../mimo/index.js';
import { codedSymbols, codeOf, vectorsPerFrame, type CodedSpec } from './coded.js';
import { ofdmChunk, type OfdmLinkSpec } from './ofdm-link.js';
import { rayleighOnKernel, receivedOnKernel, symbolsOnKernel, useLinkKernel } from './link-wasm.js';

/**
 * What a stream of a unit is used for (the low two bits of the stream number). Coded runs draw
 * their information bits (and pad bits) from `infoBits` instead of `symbols`.
 */
export const STREAM_PURPOSE = { symbols: 0, channels: 1, noise: 2, infoBits: 3 } as const;

/** Unit indices below 2^32, SNR indices below 2^19: stream numbers stay exact doubles (< 2^53). */
const MAX_UNIT_INDEX = 2 ** 32;
const MAX_SNR_INDEX = 2 ** 19;

/** The Philox stream number of (snrIndex, unitIndex, purpose): snrIndex * 2^34 + unitIndex * 4 + purpose. */
export function unitStream(snrIndex: number, unitIndex: number, purpose: number): number {
  if (!Number.isInteger(snrIndex) || snrIndex < 0 || snrIndex >= MAX_SNR_INDEX)
    throw new InvalidArgumentError(`SNR index ${snrIndex} outside [0, 2^19)`);
  if (!Number.isInteger(unitIndex) || unitIndex < 0 || unitIndex >= MAX_UNIT_INDEX)
    throw new InvalidArgumentError(`unit index ${unitIndex} outside [0, 2^32)`);
  return snrIndex * 2 ** 34 + unitIndex * 4 + purpose;
}

export interface LinkChunkSpec {
  nt: number;
  nr: number;
  modulation: Modulation;
  vectorsPerChannel: number;
  seed: number;
  snrIndex: number;
  unitIndex: number;
  /** Vectors in this unit, a multiple of vectorsPerChannel. */
  vectors: number;
  noiseVar: number;
  /** The channel model (default DEFAULT_CHANNEL_MODEL, 'rayleigh': iid CN(0, 1) channels; 'awgn': H = I). */
  channel?: ChannelModel;
  /** The model's parameters, as checkChannel() returned them. */
  channelOptions?: Readonly<Record<string, unknown>>;
  /** Coded link: the code whose frames fill the unit (vectors a multiple of its vectors per frame). */
  coded?: CodedSpec;
  /** OFDM link: the unit is a slot, its vectors the slot's data resource elements (ofdm-link.ts). */
  ofdm?: OfdmLinkSpec;
  /**
   * The flat link's kernel (core pickCpuKernel, LATTICE_MIMO_WASM): 'auto' (default) runs the
   * WebAssembly one (link-wasm.ts: symbols, iid Rayleigh channels, y = H s + w; the same values
   * bit for bit) where the runtime has SIMD and its startup check passes; the OFDM link runs its
   * TypeScript.
   */
  cpuKernel?: CpuKernelRequest;
}

export interface LinkChunk {
  /** Transmitted symbol indices, vectors x nt. */
  txIndices: Int32Array;
  /** Channels, (vectors / vectorsPerChannel) x nr x nt complex, column-major. */
  H: Float64Array;
  /** Received vectors, vectors x nr complex. */
  y: Float64Array;
  /** Coded link: the information bits sent, frames x k. */
  info?: Uint8Array;
  /** The noise variance the detectors are told, where it is not the channel's (estimated CSI). */
  noiseVar?: number;
}

/**
 * Channels first .. first + count - 1 of unit `unitIndex` (a unit holds `perUnit` channels, drawn
 * from its channel stream), by the spec's channel model: generateLinkChunk draws a chunk's all at
 * once, the GPU executor's CPU redo one alone, with the same values.
 */
export function linkChannels(
  spec: Pick<LinkChunkSpec, 'nt' | 'nr' | 'seed' | 'snrIndex' | 'unitIndex' | 'channel' | 'channelOptions'>,
  first: number,
  count: number,
  perUnit: number,
): Float64Array {
  const name = spec.channel ?? DEFAULT_CHANNEL_MODEL;
  const model = channelEntry(name);
  if (!model) throw new InvalidArgumentError(`unknown channel model '${name}'`, { option: 'channel' });
  return model
    .cpu({ nt: spec.nt, nr: spec.nr }, spec.channelOptions ?? {})
    .draw(linkChannelSpan(spec, first, count, perUnit));
}

/** Where the channels of a unit come from: its channel stream, the next unit's 4 streams on (unitStream). */
export function linkChannelSpan(
  spec: Pick<LinkChunkSpec, 'seed' | 'snrIndex' | 'unitIndex'>,
  first: number,
  count: number,
  perUnit: number,
): ChannelSpan {
  return {
    seed: spec.seed,
    stream0: unitStream(spec.snrIndex, spec.unitIndex, STREAM_PURPOSE.channels),
    streamStep: 4,
    perStream: perUnit,
    first,
    count,
  };
}

export function generateLinkChunk(spec: LinkChunkSpec): LinkChunk {
  const { nt, nr, modulation, vectorsPerChannel, seed, snrIndex, unitIndex, vectors, noiseVar } = spec;
  checkChunkVectors(vectors, { vectorsPerChannel }, "a chunk's vectors");
  const rngFor = (purpose: number) => new Philox(seed, unitStream(snrIndex, unitIndex, purpose));
  // (invalid dimensions or noise variance take the TypeScript path, which names them)
  const lanes =
    !spec.ofdm &&
    useLinkKernel(spec.cpuKernel ?? 'auto') &&
    Number.isInteger(nt) &&
    Number.isInteger(nr) &&
    nt >= 1 &&
    nr >= 1 &&
    noiseVar >= 0 &&
    Number.isFinite(noiseVar);
  let indices: Int32Array, symbols: Float64Array, info: Uint8Array | undefined;
  if (spec.coded) {
    const code = codeOf(spec.coded.code, modulation, spec.coded.E);
    const vpf = vectorsPerFrame(code.n, nt, bitsPerSymbolOf(modulation));
    checkChunkVectors(vectors, { vectorsPerChannel, vectorsPerFrame: vpf, code: spec.coded.code }, "a chunk's vectors");
    ({ info, indices } = codedSymbols(rngFor(STREAM_PURPOSE.infoBits), code, vectors / vpf, nt, modulation));
    const points = constellation(modulation).points;
    symbols = new Float64Array(2 * indices.length);
    for (let i = 0; i < indices.length; i++) {
      symbols[2 * i] = points[2 * indices[i]!]!;
      symbols[2 * i + 1] = points[2 * indices[i]! + 1]!;
    }
  } else {
    const stream = unitStream(snrIndex, unitIndex, STREAM_PURPOSE.symbols);
    ({ indices, symbols } =
      (lanes ? symbolsOnKernel(seed, stream, vectors * nt, modulation) : null) ??
      randomSymbols(new Philox(seed, stream), vectors * nt, modulation));
  }
  if (spec.ofdm) {
    const slot = ofdmChunk(
      { ...spec, ofdm: spec.ofdm },
      symbols,
      unitStream(snrIndex, unitIndex, STREAM_PURPOSE.channels),
      rngFor(STREAM_PURPOSE.noise),
    );
    return { txIndices: indices, ...slot, ...(info ? { info } : {}) };
  }
  const channels = vectors / vectorsPerChannel;
  const H =
    (lanes && (spec.channel ?? DEFAULT_CHANNEL_MODEL) === 'rayleigh'
      ? rayleighOnKernel(seed, unitStream(snrIndex, unitIndex, STREAM_PURPOSE.channels), channels, nt, nr)
      : null) ?? linkChannels(spec, 0, channels, channels);
  const y =
    (lanes && H.length === 2 * channels * nr * nt
      ? receivedOnKernel(
          H,
          symbols,
          nt,
          nr,
          vectorsPerChannel,
          seed,
          unitStream(snrIndex, unitIndex, STREAM_PURPOSE.noise),
          noiseVar,
        )
      : null) ?? addNoise(rngFor(STREAM_PURPOSE.noise), transmit(H, symbols, nt, nr, vectorsPerChannel), noiseVar);
  return info ? { txIndices: indices, H, y, info } : { txIndices: indices, H, y };
}
