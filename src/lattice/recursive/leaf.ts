/**
 * The base cases of the recursive reduction, both on a compressed block (compress.ts):
 *  - a block whose profile descends by few enough bits for float64: the sequential LLL
 *    (lll/cpu.ts) in float64 on the block's entries rounded to doubles (entries past 2^53 are
 *    those of columns whose own r_jj is as large, where the rounding is as small), its transform
 *    Z tracked exactly;
 *  - two vectors of any size: Lagrange's (Gauss') reduction in BigInt, exact.
 *
 * Shapes: a block is k columns of k BigInts (compressed basis vectors); a transform is k columns of
 * k BigInts, column j = the coefficients of new vector j in the old ones.
 */
import { LatticeMimoError } from '../../core/index.js';
import { transformLost } from '../lll/columns.js';
import { lllCpu } from '../lll/cpu.js';
import { defaultMaxIterations } from '../validate.js';
import type { BigBasis } from '../precision/exact.js';

/** What a leaf did: its transform (null: the identity, nothing to do) and its swaps. */
export interface LeafResult {
  Z: BigBasis | null;
  swaps: number;
}

/** Entries past 2^MAX_LEAF_BITS would overflow float64's squares: such a block is split instead. */
const MAX_LEAF_BITS = 480;

/**
 * LLL at (delta, eta) on a block in float64; null where float64 broke down, an entry is too large
 * for its squares, or the transform outgrew 2^53 (the caller then splits the block).
 */
export function lllLeaf(block: BigBasis, delta: number, eta: number): LeafResult | null {
  const k = block.length;
  const limit = 1n << BigInt(MAX_LEAF_BITS);
  for (const c of block) for (const v of c) if (v >= limit || -v >= limit) return null;
  const Bf = new Float64Array(k * k);
  for (let j = 0; j < k; j++) for (let i = 0; i <= j; i++) Bf[j * k + i] = Number(block[j]![i]!);
  const Z = new Float64Array(k * k);
  for (let j = 0; j < k; j++) Z[j * k + j] = 1;
  let swaps: number;
  try {
    swaps = lllCpu(Bf, Z, k, k, { delta, eta, blockSize: 8, maxIterations: defaultMaxIterations(k) }).swaps;
  } catch (err) {
    if (err instanceof LatticeMimoError && err.code !== 'INTERNAL') return null;
    throw err;
  }
  if (transformLost(Z)) return null;
  let identity = true;
  for (let j = 0; j < k && identity; j++)
    for (let i = 0; i < k; i++)
      if (Z[j * k + i] !== (i === j ? 1 : 0)) {
        identity = false;
        break;
      }
  if (identity) return { Z: null, swaps };
  const out: BigBasis = new Array(k);
  for (let j = 0; j < k; j++) {
    const col = new Array<bigint>(k);
    for (let i = 0; i < k; i++) col[i] = BigInt(Z[j * k + i]!);
    out[j] = col;
  }
  return { Z: out, swaps };
}

/** Lagrange's reduction of two vectors of any size, exact (|mu| <= 1/2 and |b_0| <= |b_1| after). */
export function gaussLeaf(block: BigBasis): LeafResult {
  let a = block[0]!.slice(),
    b = block[1]!.slice();
  // Z columns: the coefficients of a and b in the input vectors
  let za = [1n, 0n],
    zb = [0n, 1n];
  let swaps = 0;
  let aa = dot(a, a);
  for (let guard = 0; guard < 100_000; guard++) {
    const mu = roundDiv(dot(a, b), aa);
    if (mu !== 0n) {
      b = b.map((v, t) => v - mu * a[t]!);
      zb = [zb[0]! - mu * za[0]!, zb[1]! - mu * za[1]!];
    }
    const bb = dot(b, b);
    if (bb >= aa) break;
    [a, b] = [b, a];
    [za, zb] = [zb, za];
    aa = bb;
    swaps++;
  }
  const identity = za[0] === 1n && za[1] === 0n && zb[0] === 0n && zb[1] === 1n;
  return { Z: identity ? null : [za, zb], swaps };
}

function dot(a: readonly bigint[], b: readonly bigint[]): bigint {
  let s = 0n;
  for (let t = 0; t < a.length; t++) s += a[t]! * b[t]!;
  return s;
}

/** Nearest integer to x / d (d > 0). */
function roundDiv(x: bigint, d: bigint): bigint {
  const q = (2n * x + d) / (2n * d);
  return 2n * x + d < 0n && q * 2n * d !== 2n * x + d ? q - 1n : q;
}
