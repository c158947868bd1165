/**
 * One chunk of the link: random symbols (or, coded, the symbols of encoded random frames, see
 * coded.ts), Rayleigh channels (or H = I for the AWGN channel), y = H s + w.
 *
 * Every chunk draws from its own three Philox streams, derived from (SNR index, chunk index,
 * purpose), so a chunk's data depends only on the seed and those indices: not on which worker
 * runs it, nor on how many threads there are. Separate streams per purpose keep the symbols and
 * channels of a chunk independent of how much noise is drawn (and a GPU generator can reproduce
 * any of them alone). The draw order within each stream is channel.ts's.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { checkChunkVectors } from './chunking.js';
import { Philox } from '../core/rng.js';
import { addNoise, randomSymbols, rayleighChannels, transmit } from '../mimo/channel.js';
import { bitsPerSymbolOf, constellation } from '../mimo/modulation.js';
import type { Modulation } from '../mimo/types.js';
import { codedSymbols, codeOf, vectorsPerFrame, type CodedSpec, type SimChannel } from './coded.js';

/**
 * What a stream of a chunk is used for (the low two bits of the stream number). Coded runs draw
 * their information bits (and pad bits) from `infoBits` instead of `symbols`.
 */
export const STREAM_PURPOSE = { symbols: 0, channels: 1, noise: 2, infoBits: 3 } as const;

/** Chunk indices below 2^32, SNR indices below 2^19: stream numbers stay exact doubles (< 2^53). */
const MAX_CHUNK_INDEX = 2 ** 32;
const MAX_SNR_INDEX = 2 ** 19;

/** The Philox stream number of (snrIndex, chunkIndex, purpose): snrIndex * 2^34 + chunkIndex * 4 + purpose. */
export function chunkStream(snrIndex: number, chunkIndex: number, purpose: number): number {
  if (!Number.isInteger(snrIndex) || snrIndex < 0 || snrIndex >= MAX_SNR_INDEX)
    throw new InvalidArgumentError(`SNR index ${snrIndex} outside [0, 2^19)`);
  if (!Number.isInteger(chunkIndex) || chunkIndex < 0 || chunkIndex >= MAX_CHUNK_INDEX)
    throw new InvalidArgumentError(`chunk index ${chunkIndex} outside [0, 2^32)`);
  return snrIndex * 2 ** 34 + chunkIndex * 4 + purpose;
}

export interface LinkChunkSpec {
  nt: number;
  nr: number;
  modulation: Modulation;
  vectorsPerChannel: number;
  seed: number;
  snrIndex: number;
  chunkIndex: number;
  /** Vectors in this chunk, a multiple of vectorsPerChannel. */
  vectors: number;
  noiseVar: number;
  /** 'rayleigh' (default): iid CN(0, 1) channels; 'awgn': H = I (nr >= nt), no fading, no channel draws. */
  channel?: SimChannel;
  /** Coded link: the code whose frames fill the chunk (vectors a multiple of its vectors per frame). */
  coded?: CodedSpec;
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
}

/** `count` identity channels nr x nt (ones on the diagonal), in rayleighChannels' layout. */
function identityChannels(count: number, nt: number, nr: number): Float64Array {
  const H = new Float64Array(2 * count * nr * nt);
  for (let c = 0; c < count; c++) for (let j = 0; j < Math.min(nt, nr); j++) H[2 * (c * nr * nt + j + j * nr)] = 1;
  return H;
}

export function generateLinkChunk(spec: LinkChunkSpec): LinkChunk {
  const { nt, nr, modulation, vectorsPerChannel, seed, snrIndex, chunkIndex, vectors, noiseVar } = spec;
  checkChunkVectors(vectors, { vectorsPerChannel }, "a chunk's vectors");
  const rngFor = (purpose: number) => new Philox(seed, chunkStream(snrIndex, chunkIndex, purpose));
  let indices: Int32Array, symbols: Float64Array, info: Uint8Array | undefined;
  if (spec.coded) {
    const code = codeOf(spec.coded.code, modulation);
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
    ({ indices, symbols } = randomSymbols(rngFor(STREAM_PURPOSE.symbols), vectors * nt, modulation));
  }
  const H =
    spec.channel === 'awgn'
      ? identityChannels(vectors / vectorsPerChannel, nt, nr)
      : rayleighChannels(rngFor(STREAM_PURPOSE.channels), vectors / vectorsPerChannel, nt, nr);
  const y = addNoise(rngFor(STREAM_PURPOSE.noise), transmit(H, symbols, nt, nr, vectorsPerChannel), noiseVar);
  return info ? { txIndices: indices, H, y, info } : { txIndices: indices, H, y };
}
