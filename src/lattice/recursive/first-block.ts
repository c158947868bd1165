/**
 * A short vector of the first block put first: after the compressed reduction, a pruned
 * Schnorr-Euchner enumeration over the lattice of the first k basis vectors L(b_0 .. b_{k-1}) (as
 * BKZ's first block) finds a vector shorter than b_0 where it can, and a unimodular transform
 * of those k vectors makes it b_0. The lattice of the first k vectors, and so every Gram-Schmidt
 * vector from k on, stays as it was; the caller reduces the block again (its other vectors come out
 * of the transform long). b_0 sets the root Hermite factor: an LLL-reduced profile at delta 0.99
 * leaves b_0 some 1.04^(k/2) over the block's Gaussian heuristic, which the enumeration takes.
 *
 * The enumeration runs on a float64 Gram-Schmidt of the block (approximate: it only proposes); the
 * candidate is checked exactly (its squared norm against b_0's, in BigInt) and the transform is
 * exact, so a rounding can cost an improvement, never correctness. A node budget bounds the search:
 * where it runs out, the shortest vector found so far is taken.
 *
 * Shapes: B is m columns of n BigInts (column j = basis vector j), changed in place; U, where given,
 * m columns of m BigInts, gets the same column operations.
 */
import { LatticeMimoError } from '../../core/index.js';
import { transformLost } from '../lll/columns.js';
import { lllCpu } from '../lll/cpu.js';
import type { BigBasis } from '../precision/exact.js';
import { defaultMaxIterations } from '../validate.js';
import { maxBitLength } from './fixed-qr.js';
import { applyColumns, identity } from './iterate.js';

/** The first search's block, and the step to the next (each below the radius the last left). */
const FIRST_BLOCK = 32,
  BLOCK_STEP = 8;

/** What the first block's search did. */
export interface FirstBlockResult {
  /** Whether b_0 was replaced by a shorter vector. */
  improved: boolean;
  /** ||b_0 new||^2 / ||b_0 old||^2 (1 where not improved). */
  ratio: number;
  /** Enumeration nodes visited. */
  nodes: number;
  /** Whether the search covered the whole radius (false: the budget stopped it). */
  complete: boolean;
}

/** Squared norm of an integer vector, exactly. */
function norm2(v: readonly bigint[]): bigint {
  let s = 0n;
  for (const x of v) s += x * x;
  return s;
}

/** g = gcd(a, b) >= 0 with p a + q b = g. */
function egcd(a: bigint, b: bigint): [bigint, bigint, bigint] {
  let [r0, r1, p0, p1, q0, q1] = [a, b, 1n, 0n, 0n, 1n];
  while (r1 !== 0n) {
    const t = r0 / r1;
    [r0, r1] = [r1, r0 - t * r1];
    [p0, p1] = [p1, p0 - t * p1];
    [q0, q1] = [q1, q0 - t * q1];
  }
  return r0 < 0n ? [-r0, -p0, -q0] : [r0, p0, q0];
}

/**
 * The first `len` columns in float64 (n x len, column-major), all divided by one power of two that
 * brings the largest entry below 2^500 (so that no square overflows); the rest rounded.
 */
function floatPrefix(B: BigBasis, len: number): Float64Array {
  const n = B[0]!.length;
  const shift = BigInt(Math.max(0, maxBitLength(B.slice(0, len)) - 500));
  const out = new Float64Array(n * len);
  for (let j = 0; j < len; j++) for (let t = 0; t < n; t++) out[j * n + t] = Number(B[j]![t]! >> shift);
  return out;
}

/**
 * The float64 Gram-Schmidt of the first k columns: rr[i] = ||b*_i||^2 and mu[j k + i] = <b_j, b*_i>
 * / ||b*_i||^2, from the columns scaled by a common power of two (so that no entry overflows).
 * null where a column is dependent in float64.
 */
function blockGso(B: BigBasis, k: number): { rr: Float64Array; mu: Float64Array } | null {
  const n = B[0]!.length;
  const b = floatPrefix(B, k),
    q = new Float64Array(k * n);
  const rr = new Float64Array(k),
    mu = new Float64Array(k * k);
  for (let j = 0; j < k; j++) {
    for (let t = 0; t < n; t++) q[j * n + t] = b[j * n + t]!;
    for (let i = 0; i < j; i++) {
      let d = 0;
      for (let t = 0; t < n; t++) d += b[j * n + t]! * q[i * n + t]!;
      const m = d / rr[i]!;
      mu[j * k + i] = m;
      for (let t = 0; t < n; t++) q[j * n + t] = q[j * n + t]! - m * q[i * n + t]!;
    }
    let s = 0;
    for (let t = 0; t < n; t++) s += q[j * n + t]! ** 2;
    if (!(s > 0) || !Number.isFinite(s)) return null;
    rr[j] = s;
    mu[j * k + j] = 1;
  }
  return { rr, mu };
}

/**
 * Schnorr-Euchner enumeration, linearly pruned (Gama, Nguyen and Regev's bound (k - i) / k of the
 * radius on the levels from the top down to i), of the shortest nonzero x with ||sum x_j b_j||^2 <
 * radius2 over the block's Gram-Schmidt (rr, mu); the radius shrinks to each vector found. Pruning
 * may miss the shortest vector (for a far larger block at the same cost). Returns the best x (null
 * where none is inside) and the nodes.
 */
function enumerate(
  rr: Float64Array,
  mu: Float64Array,
  stride: number,
  k: number,
  radius2: number,
  maxNodes: number,
): { x: Float64Array | null; norm2: number; nodes: number; complete: boolean } {
  const x = new Float64Array(k),
    c = new Float64Array(k),
    dx = new Float64Array(k),
    ddx = new Float64Array(k),
    l = new Float64Array(k + 1),
    bound = Float64Array.from({ length: k }, (_, i) => (k - i) / k);
  let best: Float64Array | null = null,
    A = radius2,
    nodes = 0;
  // centre partial sums (as fplll's): sig[i (k + 1) + j] = -sum_{t >= j} x_t mu_{t i}, row i current
  // above begin[i + 1]'s level; begin[i] is the highest level changed since the search last went
  // down from level i
  const K = k + 1,
    sig = new Float64Array(k * K),
    begin = new Int32Array(k).fill(k - 1),
    muT = new Float64Array(k * k);
  for (let j = 0; j < k; j++) for (let i = 0; i < j; i++) muT[i * k + j] = mu[j * stride + i]!;
  /** Level i's centre s, its nearest integer and zig-zag steps. */
  const start = (i: number, s: number): void => {
    c[i] = s;
    const r = Math.round(s);
    x[i] = r;
    dx[i] = ddx[i] = s >= r ? 1 : -1;
  };
  /** Level i's next candidate: zig-zag round the centre, or upwards only while every level above is 0 (x and -x). */
  const next = (i: number): void => {
    if (l[i + 1] !== 0) {
      x[i] += dx[i]!;
      ddx[i] = -ddx[i]!;
      dx[i] = ddx[i]! - dx[i]!;
    } else x[i]++;
  };
  let i = k - 1;
  start(i, 0);
  for (;;) {
    const d = x[i]! - c[i]!;
    const li = l[i + 1]! + d * d * rr[i]!;
    // linear pruning: a path through level i stays inside (k - i) / k of the radius
    if (li < A * bound[i]!) {
      if (++nodes > maxNodes) return { x: best, norm2: A, nodes, complete: false };
      if (i === 0) {
        if (li > 0) {
          A = li;
          best = Float64Array.from(x);
        }
        next(0);
      } else {
        l[i] = li;
        const row = (i - 1) * K;
        for (let j = begin[i]!; j >= i; j--) sig[row + j] = sig[row + j + 1]! - x[j]! * muT[(i - 1) * k + j]!;
        if (begin[i]! > begin[i - 1]!) begin[i - 1] = begin[i]!;
        begin[i] = i;
        i--;
        start(i, sig[row + i + 1]!);
      }
    } else {
      if (++i === k) return { x: best, norm2: A, nodes, complete: true };
      next(i);
    }
  }
}

/**
 * Replaces b_0 by the shortest vector of L(b_0 .. b_{k-1}) the enumeration finds below
 * `factor` ||b_0||^2 (exactly checked), the other k - 1 vectors completing a basis of the same
 * lattice (a chain of 2 x 2 unimodular steps from the extended gcd of the coefficients).
 */
export function shortestFirst(
  B: BigBasis,
  U: BigBasis | null,
  k: number,
  maxNodes: number,
  factor = 0.99,
): FirstBlockResult {
  const none = (nodes: number, complete: boolean): FirstBlockResult => ({ improved: false, ratio: 1, nodes, complete });
  k = Math.min(k, B.length);
  if (k < 2) return none(0, true);
  const g = blockGso(B, k);
  if (!g) return none(0, true);
  // blocks of FIRST, FIRST + STEP, .. k vectors, each searched below the shortest found so far (a
  // smaller radius: the larger block's search far cheaper), while the budget lasts
  let x: Float64Array | null = null,
    A = factor * g.rr[0]!,
    nodes = 0,
    complete = true;
  for (let b = Math.min(k, FIRST_BLOCK); ; b = Math.min(k, b + BLOCK_STEP)) {
    const e = enumerate(g.rr, g.mu, k, b, A, maxNodes - nodes);
    nodes += e.nodes;
    if (e.x) {
      x = new Float64Array(k);
      x.set(e.x);
      A = e.norm2;
    }
    if (!e.complete) {
      complete = false;
      break;
    }
    if (b === k) break;
  }
  if (!x?.every((v) => Number.isSafeInteger(v))) return none(nodes, complete);
  const a = Array.from(x, (v) => BigInt(v));
  const n = B[0]!.length;
  const v = new Array<bigint>(n).fill(0n);
  for (let j = 0; j < k; j++) if (a[j] !== 0n) for (let t = 0; t < n; t++) v[t] = v[t]! + a[j]! * B[j]![t]!;
  const old = norm2(B[0]!),
    nv = norm2(v);
  if (nv === 0n || nv >= old) return none(nodes, complete);
  const Z = completion(a);
  applyColumns(B, 0, Z);
  if (U) applyColumns(U, 0, Z);
  return { improved: true, ratio: Number((norm2(B[0]!) * 1000000n) / old) / 1e6, nodes, complete };
}

/**
 * A unimodular k x k Z (k columns) whose first column is a / g, g = gcd(a): a chain of 2 x 2 steps
 * from the extended gcd of neighbouring coefficients, from the last up. B Z then has b' = B a / g
 * first and spans B's lattice.
 */
function completion(a: bigint[]): BigBasis {
  const k = a.length;
  a = a.slice();
  const Z = identity(k);
  for (let j = k - 1; j >= 1; j--) {
    if (a[j] === 0n) continue;
    const [g, p, q] = egcd(a[j - 1]!, a[j]!);
    // a_{j-1} c_{j-1} + a_j c_j = g (a_{j-1}/g c_{j-1} + a_j/g c_j), and the second column
    // -q c_{j-1} + p c_j: the 2 x 2 step's determinant (a_{j-1} p + a_j q) / g = 1
    const c0 = Z[j - 1]!,
      c1 = Z[j]!,
      u = a[j - 1]! / g,
      w = a[j]! / g;
    Z[j - 1] = c0.map((x, t) => u * x + w * c1[t]!);
    Z[j] = c0.map((x, t) => -q * x + p * c1[t]!);
    a[j - 1] = g;
    a[j] = 0n;
  }
  if (a[0]! < 0n) Z[0] = Z[0]!.map((x) => -x);
  return Z;
}

/**
 * Tours of BKZ over the first `prefix` vectors with blocks of `block`: at each position j, the
 * pruned enumeration of the projected block [j, j + block) for a vector whose projection is shorter
 * than b*_j (a float64 test: the lattice is exact whatever it says), put at j by completion() (the
 * lattice of the first j vectors, and of the first j + block, unchanged), then lllPrefix() on the
 * first j + block vectors. A tour that puts nothing ends them, as does a prefix float64 cannot
 * reduce (the caller reduces the whole basis after). Returns the nodes and the vectors put.
 */
export function prefixTours(
  B: BigBasis,
  U: BigBasis | null,
  prefix: number,
  block: number,
  tours: number,
  maxNodes: number,
  delta: number,
): { nodes: number; inserted: number } {
  prefix = Math.min(prefix, B.length);
  let nodes = 0,
    inserted = 0;
  for (let t = 0; t < tours; t++) {
    let changed = false;
    for (let j = 0; j + 1 < prefix; j++) {
      const k = Math.min(block, prefix - j);
      const g = blockGso(B, j + k);
      if (!g) return { nodes, inserted };
      const stride = j + k;
      const e = enumerate(g.rr.subarray(j), g.mu.subarray(j * stride + j), stride, k, 0.99 * g.rr[j]!, maxNodes);
      nodes += e.nodes;
      if (!e.x?.every((v) => Number.isSafeInteger(v))) continue;
      const Z = completion(Array.from(e.x, (v) => BigInt(v)));
      applyColumns(B, j, Z);
      if (U) applyColumns(U, j, Z);
      inserted++;
      if (!lllPrefix(B, U, j + k, delta)) return { nodes, inserted };
      changed = true;
    }
    if (!changed) break;
  }
  return { nodes, inserted };
}

/**
 * The sequential LLL at delta on a float64 copy of the first `len` vectors (scaled by a power of two
 * into range: rounded, so the output is about reduced, and exactly in the lattice), its transform
 * applied exactly to B and U. false where float64 broke down or the transform passed 2^53.
 */
function lllPrefix(B: BigBasis, U: BigBasis | null, len: number, delta: number): boolean {
  const n = B[0]!.length;
  const Bf = floatPrefix(B, len),
    Z = new Float64Array(len * len);
  for (let j = 0; j < len; j++) Z[j * len + j] = 1;
  try {
    lllCpu(Bf, Z, n, len, { delta, eta: 0.51, blockSize: 8, maxIterations: defaultMaxIterations(len) });
  } catch (err) {
    if (err instanceof LatticeMimoError && err.code !== 'INTERNAL') return false;
    throw err;
  }
  if (transformLost(Z)) return false;
  const Zb: BigBasis = Array.from({ length: len }, (_, j) =>
    Array.from(Z.subarray(j * len, (j + 1) * len), (v) => BigInt(v)),
  );
  applyColumns(B, 0, Zb);
  if (U) applyColumns(U, 0, Zb);
  return true;
}

/** What shortenFirst() asks: the tours' block, count and prefix, the first block, the node budget, delta. */
export interface ShortenParams {
  bkzBlock: number;
  bkzTours: number;
  /** Vectors the tours cover (default: half the basis, at least 40). */
  bkzPrefix?: number;
  svpBlock: number;
  svpNodes: number;
  delta: number;
}

/** What shortenFirst() did: the first block's search (its ratio that of the whole: ||b_0||^2 after / before the tours), and the vectors the tours put. */
export interface ShortenResult extends FirstBlockResult {
  inserted: number;
  /** Whether B changed (the caller then reduces it again). */
  changed: boolean;
}

/** The tours' default prefix of m vectors: half of them, at least 40 (all of a smaller basis). */
export function defaultBkzPrefix(m: number): number {
  return Math.min(m, Math.max(40, Math.ceil(m / 2)));
}

/**
 * BKZ tours on the prefix (prefixTours), then the first block's shortest vector put first
 * (shortestFirst): b_0 shorter, the lattice the same. Every enumeration has the node budget.
 */
export function shortenFirst(B: BigBasis, U: BigBasis | null, p: ShortenParams): ShortenResult {
  const m = B.length,
    old = norm2(B[0]!);
  let inserted = 0,
    nodes = 0;
  if (p.bkzBlock >= 2 && p.bkzTours > 0) {
    const t = prefixTours(B, U, p.bkzPrefix ?? defaultBkzPrefix(m), p.bkzBlock, p.bkzTours, p.svpNodes, p.delta);
    inserted = t.inserted;
    nodes = t.nodes;
  }
  // (a block under 2 vectors searches nothing)
  const f = shortestFirst(B, U, p.svpBlock, p.svpNodes);
  const ratio = old > 0n ? Number((norm2(B[0]!) * 1000000n) / old) / 1e6 : 1;
  return { ...f, ratio, nodes: nodes + f.nodes, inserted, changed: inserted > 0 || f.improved };
}
