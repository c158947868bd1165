/**
 * The chunk rule of a link simulation, in one place: a chunk of vectors (the unit of work, and of
 * a GPU launch) holds whole channel groups (vectorsPerChannel consecutive vectors share one channel
 * matrix) and, on a coded link, whole frames (a frame spans vectorsPerFrame vectors). simulate()'s
 * plan, the GPU link's executor and each chunk's generator all check it here.
 */
import { InvalidArgumentError, MAX_ARRAY_LENGTH, UnsupportedError } from '../core/index.js';

/** What a chunk must hold whole: channel groups, and (coded) frames of a code. */
export interface ChunkGrain {
  /** Consecutive vectors that share one channel matrix. */
  readonly vectorsPerChannel: number;
  /** Coded link: vectors one frame spans. */
  readonly vectorsPerFrame?: number;
  /** Coded link: the code spec, for messages. */
  readonly code?: string;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The fewest vectors holding whole channel groups and whole frames: lcm(vectorsPerFrame, vectorsPerChannel). */
export function chunkUnit(g: ChunkGrain): number {
  const vpc = g.vectorsPerChannel,
    vpf = g.vectorsPerFrame ?? 1;
  return (vpf / gcd(vpf, vpc)) * vpc;
}

/**
 * Checks that `vectors` (a chunk's size, or chunkVectors; `what` names it) is a positive multiple
 * of the grain's unit; InvalidArgumentError naming it and the unit otherwise.
 */
export function checkChunkVectors(vectors: number, g: ChunkGrain, what = 'chunkVectors'): void {
  const unit = chunkUnit(g);
  if (Number.isSafeInteger(vectors) && vectors > 0 && vectors % unit === 0) return;
  const details = {
    option: what,
    vectors,
    unit,
    vectorsPerChannel: g.vectorsPerChannel,
    ...(g.vectorsPerFrame !== undefined ? { vectorsPerFrame: g.vectorsPerFrame } : {}),
  };
  if (g.vectorsPerFrame === undefined)
    throw new InvalidArgumentError(
      `${what} (${vectors}) must be a multiple of vectorsPerChannel (${g.vectorsPerChannel})`,
      details,
    );
  throw new InvalidArgumentError(
    `${what} (${vectors}) must hold whole frames and channel groups: a multiple of ${unit} (a frame${g.code ? ` of code ${g.code}` : ''} spans ${g.vectorsPerFrame} vectors, a channel matrix serves ${g.vectorsPerChannel})`,
    details,
  );
}

/**
 * The largest host arrays of a chunk (its channel matrices, received vectors and LLRs, float64)
 * must fit an array: an UnsupportedError before any work otherwise, naming the array, its size,
 * the limit and the largest chunkVectors that fits.
 */
export function checkChunkBuffers(
  nt: number,
  nr: number,
  bitsPerSymbol: number,
  vectorsPerChannel: number,
  chunkVectors: number,
  what = 'chunkVectors',
): void {
  const arrays: [string, number][] = [
    ['channel matrices (chunkVectors / vectorsPerChannel x 2 nr nt)', (2 * nr * nt) / vectorsPerChannel],
    ['received vectors (chunkVectors x 2 nr)', 2 * nr],
    ['LLRs (chunkVectors x nt x bits per symbol)', nt * bitsPerSymbol],
  ];
  for (const [array, perVector] of arrays) {
    const elements = Math.ceil(chunkVectors * perVector);
    if (elements <= MAX_ARRAY_LENGTH) continue;
    const fits = Math.floor(MAX_ARRAY_LENGTH / perVector / vectorsPerChannel) * vectorsPerChannel;
    throw new UnsupportedError(
      `a chunk of ${chunkVectors} vectors of ${nt}x${nr} needs ${elements} elements of ${array}, past the ${MAX_ARRAY_LENGTH} an array may hold: ask for ${what} of at most ${fits}`,
      { option: what, what: array, elements, limit: MAX_ARRAY_LENGTH, largest: fits },
    );
  }
}
