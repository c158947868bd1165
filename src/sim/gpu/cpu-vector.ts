/**
 * One vector (or one coded frame) of a unit of the link, generated on the CPU without the rest of
 * the chunk: each stream is read from the position generateLinkChunk reaches it at (Philox.seek),
 * so the values equal generateLinkChunk's. The GPU executor uses them to redo the rare vector a
 * CUDA detector flags (float32 unsafe, singular) on the CPU engine in float64.
 */
import { Philox } from '../../core/index.js';
import { addNoise, randomSymbols, transmit, constellation } from '../../mimo/index.js';
import { codeOf, frameSymbols, vectorsPerFrame, type CodedSpec } from '../coded.js';
import {
  unitStream,
  generateLinkChunk,
  linkChannels,
  STREAM_PURPOSE,
  type LinkChunk,
  type LinkChunkSpec,
} from '../link.js';
import type { OfdmLinkSpec } from '../ofdm-link.js';

/** The unit a vector belongs to (its size does not matter: each stream is read at the vector). */
export type ChunkVectorSpec = Omit<LinkChunkSpec, 'vectors' | 'coded' | 'ofdm'>;

/** The channel of vector v (nr x nt complex): its channel group's, drawn alone by the channel model. */
function channelOf(spec: ChunkVectorSpec, v: number): Float64Array {
  const c = Math.floor(v / spec.vectorsPerChannel);
  // the unit holds at least c + 1 channels; how many more does not move channel c's draws
  return linkChannels(spec, c, 1, c + 1);
}

/** y of vector v for its symbols (2 nt reals) and channel: the noise stream read at the vector. */
function receivedOf(spec: ChunkVectorSpec, v: number, H: Float64Array, symbols: Float64Array): Float64Array {
  const rng = new Philox(spec.seed, unitStream(spec.snrIndex, spec.unitIndex, STREAM_PURPOSE.noise));
  return addNoise(rng.seek(4 * v * spec.nr), transmit(H, symbols, spec.nt, spec.nr, 1), spec.noiseVar);
}

/**
 * Vector v of an uncoded unit: its sent symbol indices (nt), its channel (nr x nt complex) and its
 * received vector (nr complex), equal to generateLinkChunk's entries for v.
 */
export function linkVectorOnCpu(
  spec: ChunkVectorSpec,
  v: number,
): { txIndices: Int32Array; H: Float64Array; y: Float64Array } {
  const rng = new Philox(spec.seed, unitStream(spec.snrIndex, spec.unitIndex, STREAM_PURPOSE.symbols));
  const { indices, symbols } = randomSymbols(rng.seek(v * spec.nt), spec.nt, spec.modulation);
  const H = channelOf(spec, v);
  return { txIndices: indices, H, y: receivedOf(spec, v, H, symbols) };
}

/** A coded frame's unit: the code, and how many vectors the unit holds (its pad words follow all its information words). */
export interface CodedFrameSpec extends ChunkVectorSpec {
  coded: CodedSpec;
  unitVectors: number;
}

/**
 * Frame f of a coded unit (src/sim/coded.ts codedSymbols, read at the frame): its information
 * bits (k) and sent symbol indices (vectorsPerFrame x nt), equal to generateLinkChunk's; and
 * vector(u) gives the channel and received vector of its vector u, as linkVectorOnCpu.
 */
export function codedFrameOnCpu(
  spec: CodedFrameSpec,
  f: number,
): {
  info: Uint8Array;
  txIndices: Int32Array;
  vpf: number;
  vector(u: number): { H: Float64Array; y: Float64Array };
} {
  const { nt, modulation } = spec;
  const code = codeOf(spec.coded.code, modulation, spec.coded.E);
  const con = constellation(modulation),
    bps = con.bitsPerSymbol;
  const vpf = vectorsPerFrame(code.n, nt, bps),
    k = code.k;
  const rng = new Philox(spec.seed, unitStream(spec.snrIndex, spec.unitIndex, STREAM_PURPOSE.infoBits));
  const info = new Uint8Array(k);
  const b0 = f * k;
  rng.seek(Math.floor(b0 / 32));
  let w = rng.nextUint32();
  for (let i = 0; i < k; i++) {
    const b = (b0 + i) % 32;
    if (i > 0 && b === 0) w = rng.nextUint32();
    info[i] = (w >>> b) & 1;
  }
  const bits = code.encode(info);
  const symbolsPerFrame = vpf * nt,
    padBits = symbolsPerFrame * bps - code.n;
  let pad = 0;
  if (padBits > 0) {
    const frames = spec.unitVectors / vpf;
    pad = rng.seek(Math.ceil((frames * k) / 32) + f * Math.ceil(padBits / 32)).nextUint32();
  }
  const txIndices = new Int32Array(symbolsPerFrame);
  frameSymbols(bits, bps, pad, rng, txIndices);
  return {
    info,
    txIndices,
    vpf,
    vector(u: number) {
      const v = f * vpf + u;
      const symbols = new Float64Array(2 * nt);
      for (let j = 0; j < nt; j++) {
        const s = txIndices[u * nt + j]!;
        symbols[2 * j] = con.points[2 * s]!;
        symbols[2 * j + 1] = con.points[2 * s + 1]!;
      }
      const H = channelOf(spec, v);
      return { H, y: receivedOf(spec, v, H, symbols) };
    },
  };
}

/** An OFDM unit (a slot): how many data vectors it holds, the link's OFDM settings, and (coded) its code. */
export interface OfdmVectorSpec extends ChunkVectorSpec {
  vectors: number;
  ofdm: OfdmLinkSpec;
  coded?: CodedSpec;
}

/**
 * Vector v of an OFDM unit: its sent symbol indices, its channel (true or estimated) and received
 * vector, and the noise variance the detectors are told, equal to generateLinkChunk's. A slot's
 * channel and estimate span the whole grid, so the slot is generated whole, once per `cache`.
 */
export function ofdmVectorOnCpu(
  spec: OfdmVectorSpec,
  v: number,
  cache: Map<number, LinkChunk>,
): { txIndices: Int32Array; H: Float64Array; y: Float64Array; noiseVar: number } {
  let unit = cache.get(spec.unitIndex);
  if (!unit) {
    unit = generateLinkChunk({ ...spec, vectorsPerChannel: 1 });
    cache.set(spec.unitIndex, unit);
  }
  const { nt, nr } = spec;
  return {
    txIndices: unit.txIndices.slice(v * nt, (v + 1) * nt),
    H: unit.H.slice(2 * v * nr * nt, 2 * (v + 1) * nr * nt),
    y: unit.y.slice(2 * v * nr, 2 * (v + 1) * nr),
    noiseVar: unit.noiseVar ?? spec.noiseVar,
  };
}
