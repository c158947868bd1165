/**
 * One vector of a chunk of the link, generated on the CPU without the rest of the chunk: each
 * stream is read from the position generateLinkChunk reaches it at (Philox.seek), so the values
 * equal generateLinkChunk's. The GPU executor uses it to redo the rare vector a CUDA detector
 * flags (float32 unsafe, singular) on the CPU engine in float64.
 */
import { Philox } from '../../core/rng.js';
import { addNoise, randomSymbols, rayleighChannels, transmit } from '../../mimo/channel.js';
import { chunkStream, STREAM_PURPOSE, type LinkChunkSpec } from '../link.js';

/** The chunk a vector belongs to (its size does not matter: each stream is read at the vector). */
export type ChunkVectorSpec = Omit<LinkChunkSpec, 'vectors'>;

/**
 * Vector v of the chunk: its sent symbol indices (nt), its channel (nr x nt complex) and its
 * received vector (nr complex), equal to generateLinkChunk's entries for v.
 */
export function linkVectorOnCpu(spec: ChunkVectorSpec, v: number): { txIndices: Int32Array; H: Float64Array; y: Float64Array } {
  const { nt, nr, modulation, vectorsPerChannel: vpc, seed, snrIndex, chunkIndex, noiseVar } = spec;
  const rngFor = (purpose: number) => new Philox(seed, chunkStream(snrIndex, chunkIndex, purpose));
  // symbols: one word each; channels and noise: a Philox block per pair of normals
  const { indices, symbols } = randomSymbols(rngFor(STREAM_PURPOSE.symbols).seek(v * nt), nt, modulation);
  const H = rayleighChannels(rngFor(STREAM_PURPOSE.channels).seek(4 * Math.floor(v / vpc) * nr * nt), 1, nt, nr);
  const y = addNoise(rngFor(STREAM_PURPOSE.noise).seek(4 * v * nr), transmit(H, symbols, nt, nr, 1), noiseVar);
  return { txIndices: indices, H, y };
}
