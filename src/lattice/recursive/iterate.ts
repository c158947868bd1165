/**
 * Recursive lattice reduction by iterated compression (after Ryan and Heninger, CRYPTO 2023; our
 * own formulation). One level reduces an exact integer basis B (and keeps U with B = B_in U, where
 * asked):
 *
 *   repeat:
 *     R   <- the R factor of B, precise to `guard` bits below its smallest Gram-Schmidt norm
 *            (dd-qr.ts in double-double where about 100 bits resolve that, else fixed-qr.ts in
 *            BigInt fixed point); B, U size-reduced by it (re-factored while the size
 *            reduction's multipliers were large)
 *     stop where the caller's goal holds (the top level's rhf or alpha)
 *     if the profile descends by few enough bits (max over i < j of log2 r_ii - log2 r_jj) that
 *     float64 resolves the compressed copy of the whole (an ascending profile costs nothing: a
 *     size-reduced column's entries are small beside its own r_jj):
 *        LLL on the compressed copy of the whole (leaf.ts), its transform applied to B, U exactly;
 *        done when that LLL changes nothing
 *     else (the profile descends by too many bits for one compressed copy):
 *        for each block of the schedule (first half, second half, the middle half overlapping both):
 *          compress the block's projected sublattice (compress.ts) and reduce that copy by this
 *          same procedure (one level down: an integer basis of far fewer bits), then apply its
 *          transform to B, U exactly;
 *        done when no block changed
 *
 * Two vectors whose descent float64 cannot resolve are Lagrange-reduced exactly. Every column
 * operation on B and U is an exact integer one, so B = B_in U holds at every step whatever the
 * floating or compressed arithmetic decided; the compressed copies only choose the operations.
 *
 * Shapes: B is m columns of n BigInts (column j = basis vector j); U is m columns of m BigInts.
 */
import { IterationLimitError, RankDeficientError } from '../../core/index.js';
import type { BigBasis } from '../precision/exact.js';
import { compressBlock } from './compress.js';
import { fixedQR, log2Big, maxBitLength, type FixedQRState, type FixedR } from './fixed-qr.js';
import { gaussLeaf, lllLeaf } from './leaf.js';
import { DD_BITS, ddQR } from './dd-qr.js';
import type { BlockPool } from './parallel.js';

/**
 * The Lovasz parameter of the levels below the top at most: their blocks are reduced again as the
 * top level's profile moves, and at 0.9 they do about 30 % fewer swaps for the same final quality
 * (q-ary, dimension 100, 100 bits), the top level's leaves and the finish holding delta itself.
 */
export const INNER_DELTA = 0.9;

/**
 * The Lovasz parameter of the compressed reduction's top level (its leaves, and its blocks once it
 * has converged with them at innerDelta) under an LLL finish at delta: a little above delta, by
 * (1 - delta) / 2 and at most 0.005 (0.995 for 0.99). A leaf decides on a compressed copy (guard
 * bits below its smallest norm), so at delta itself it leaves pairs a rounding below delta in the
 * exact basis, and pairs just above it that the finish's float64 certificate cannot prove; a
 * little above, the output is LLL-reduced at delta with a margin, and the finish proves it as it
 * is (finish.ts).
 */
export function finishMargin(delta: number): number {
  return delta + Math.min(0.005, (1 - delta) / 2);
}

/** Bits a leaf's float64 LLL resolves: the profile's descent + guard + log2 m + 2 at most. */
export const LEAF_BITS = 50;

/** The parameters of every level. */
export interface IterateParams {
  /** Lovasz parameter of the leaves' LLL. */
  delta: number;
  /**
   * Lovasz parameter of the levels below the top (default delta). Where below delta, a top level
   * that has converged with its blocks at innerDelta reduces them again at delta (every level
   * below at it) until they no longer change: a profile too deep for one leaf of the whole (past
   * about dimension 250 at 100 bits) is otherwise left at the levels-below quality.
   */
  innerDelta?: number;
  /** Size-reduction bound of the leaves' LLL. */
  eta: number;
  /** Bits kept below a compressed block's smallest Gram-Schmidt norm. */
  guard: number;
  /** Bits a leaf's LLL resolves in float64: the profile's descent plus guard plus log2 m at most. */
  leafBits: number;
  /** Bound on the rounds of one level (an IterationLimitError past it). */
  maxRounds: number;
  /**
   * The top level's output goes to the proven LLL at delta: an input whose profile descends by few
   * enough bits for one LLL of the whole is left to the finish after that LLL (no round to confirm).
   */
  finished?: boolean;
  /** Block workers (parallel.ts): a level with a free one reduces its two halves at once. */
  pool?: BlockPool;
  /** The top level's goal, read after each size reduction: true stops the reduction there. */
  stop?: (profile: Float64Array) => boolean;
  /** Counts, added to as the levels run. */
  stats: IterateStats;
}

/** What the reduction did, over every level. */
export interface IterateStats {
  /** Rounds of every level. */
  rounds: number;
  /** Leaf reductions (LLL or Lagrange) run. */
  leaves: number;
  /** Swaps of the leaves. */
  swaps: number;
  /** Fixed-point QR factorisations. */
  factorisations: number;
  /** Deepest level reached (the top level is 0). */
  depth: number;
  /** Blocks reduced on a worker thread (threads > 1). */
  workerBlocks: number;
}

/** Levels of fewer vectors reduce their halves one after the other (a worker's message costs more). */
const PARALLEL_MIN = 16;

/** The smallest log2 Gram-Schmidt norm a first fixed-point factor resolves (q-ary and NTRU-like bases reach about -4). */
const FIRST_LOW = -8;

/** Size reductions whose multiplier passes this many bits send the basis back to the QR (its R has drifted). */
const REFACTOR_BITS = 12;

/**
 * A factor at a scale past this many bits is dear (its products cost the square of its bits): its
 * level factors the whole basis for each block rather than a prefix, so that columns far from
 * size-reduced are reduced once.
 */
const DEAR_BITS = 1024;

/**
 * Reduces B in place with U updated alongside (the module comment); returns whether B changed.
 * `depth` is the level (0 at the top, where `p.stop` applies). U null: no transform kept (the top
 * level's caller may rebuild it exactly from B_in and B_out, exact-transform.ts).
 */
export function reduceLevel(B: BigBasis, U: BigBasis | null, p: IterateParams, depth = 0): boolean {
  const m = B.length;
  if (m < 2) return false;
  p.stats.depth = Math.max(p.stats.depth, depth);
  let changed = false;
  // a compressed block comes upper triangular with a positive diagonal: its R is itself
  const qr = new Factoriser(B, p, depth > 0);
  // the least fall of the potential a round must bring, else the level has converged (a quarter of
  // what one LLL swap at delta brings: rounding in the compressed copies cannot ping-pong past it)
  // the levels below the top reduce at innerDelta: their blocks are reduced again as the top's
  // profile moves, and a weaker delta there saves swaps the top level would undo
  const delta = depth === 0 ? p.delta : (p.innerDelta ?? p.delta);
  const least = 0.25 * Math.log2(1 / delta);
  let before = Number.POSITIVE_INFINITY;
  // the parameters of the levels below: at innerDelta until this (top) level has converged, then
  // at delta until the blocks no longer change
  let sub = p;
  const polish = (): boolean => {
    if (depth > 0 || sub !== p || p.innerDelta === undefined || p.innerDelta >= p.delta) return false;
    sub = { ...p, innerDelta: p.delta };
    before = Number.POSITIVE_INFINITY;
    return true;
  };
  for (let round = 0; ; round++) {
    if (round >= p.maxRounds)
      throw new IterationLimitError(
        `recursive: ${p.maxRounds} rounds at level ${depth} (${m} vectors) without converging`,
        { rounds: round, level: depth, vectors: m },
      );
    p.stats.rounds++;
    const f = qr.sizeReduced(U);
    if (depth === 0 && p.stop?.(f.profile)) return changed;
    const now = potential(f.profile);
    if (before - now < least) {
      if (polish()) continue;
      return changed;
    }
    before = now;
    if (descentOf(f.profile) + p.guard + Math.log2(m) + 2 <= p.leafBits) {
      const leaf = lllLeaf(compressBlock(f.R, f.F, f.profile, 0, m, p.guard), delta, p.eta);
      if (leaf) {
        p.stats.leaves++;
        p.stats.swaps += leaf.swaps;
        if (!leaf.Z) return changed;
        applyColumns(B, 0, leaf.Z);
        if (U) applyColumns(U, 0, leaf.Z);
        if (depth === 0 && round === 0 && p.finished) return true;
        qr.changedFrom(0);
        changed = true;
        continue;
      }
    }
    if (m === 2) {
      const leaf = gaussLeaf(B);
      p.stats.leaves++;
      p.stats.swaps += leaf.swaps;
      if (!leaf.Z) return changed;
      applyColumns(B, 0, leaf.Z);
      if (U) applyColumns(U, 0, leaf.Z);
      return true;
    }
    let any = false;
    const blocks = schedule(m);
    let first = 0;
    const w = p.pool && m >= PARALLEL_MIN && blocks.length === 3 ? p.pool.free() : -1;
    if (w >= 0) {
      // the two halves from one factor, [h, m) on a worker and [0, h) here (parallel.ts: the
      // same copies, and so the same operations, as one after the other)
      any = parallelHalves(B, U, qr, sub, depth, w, blocks[0]!, blocks[1]!);
      if (any) qr.changedFrom(0);
      first = 2;
    }
    for (const [a, b] of blocks.slice(first)) {
      // (a level whose factor needs many bits has columns after b far from size-reduced: they are
      // reduced by the whole factor now, once, not by a prefix's and then the next round's)
      const g = qr.sizeReduced(U, qr.dear ? m : b);
      const block = compressBlock(g.R, g.F, g.profile, a, b, p.guard);
      const Z = identity(b - a);
      if (!reduceLevel(block, Z, sub, depth + 1)) continue;
      applyColumns(B, a, Z);
      if (U) applyColumns(U, a, Z);
      qr.changedFrom(a);
      any = true;
    }
    if (!any) {
      if (polish()) continue;
      return changed;
    }
    changed = true;
  }
}

/**
 * The blocks of one round: the second half, the first half, and the middle half across both (every
 * adjacent pair of vectors lies in one of them). In this order a block's factor is the cheapest: the
 * round's own factor serves the first, and each later one needs only the columns before its end.
 */
function schedule(m: number): [number, number][] {
  const h = (m + 1) >> 1;
  const q = h >> 1;
  const blocks: [number, number][] = [
    [h, m],
    [0, h],
    [q, Math.min(m, q + h)],
  ];
  return blocks.filter(([a, b]) => b - a >= 2);
}

/** LLL's potential in bits: sum over i of (m - i) log2 r_ii (every swap at delta lowers it by at least log2(1/delta) / 2). */
function potential(profile: Float64Array): number {
  const m = profile.length;
  let s = 0;
  for (let i = 0; i < m; i++) s += (m - i) * profile[i]!;
  return s;
}

/** The profile's largest descent, max over i < j of profile[i] - profile[j] (0 for an ascending one). */
function descentOf(profile: Float64Array): number {
  let hi = Number.NEGATIVE_INFINITY,
    most = 0;
  for (const v of profile) {
    if (v > hi) hi = v;
    else if (hi - v > most) most = hi - v;
  }
  return most;
}

/**
 * Blocks `up` (on worker `w`) and `down` (here) of one round, both compressed from the same factor,
 * their transforms applied to B and U; whether either changed.
 */
function parallelHalves(
  B: BigBasis,
  U: BigBasis | null,
  qr: Factoriser,
  p: IterateParams,
  depth: number,
  w: number,
  up: [number, number],
  down: [number, number],
): boolean {
  const pool = p.pool!;
  const g = qr.sizeReduced(U);
  p.stats.workerBlocks++;
  pool.start(w, {
    block: compressBlock(g.R, g.F, g.profile, up[0], up[1], p.guard),
    depth: depth + 1,
    delta: p.delta,
    innerDelta: p.innerDelta,
    eta: p.eta,
    guard: p.guard,
    leafBits: p.leafBits,
    maxRounds: p.maxRounds,
  });
  const block = compressBlock(g.R, g.F, g.profile, down[0], down[1], p.guard);
  const Z = identity(down[1] - down[0]);
  let here = false;
  let there: BigBasis | null = null;
  try {
    here = reduceLevel(block, Z, p, depth + 1);
  } finally {
    // (the worker's answer is taken even where this half threw: the pool stays usable)
    there = pool.wait(w, p.stats);
  }
  if (there) {
    applyColumns(B, up[0], there);
    if (U) applyColumns(U, up[0], there);
  }
  if (here) {
    applyColumns(B, down[0], Z);
    if (U) applyColumns(U, down[0], Z);
  }
  return here || there !== null;
}

/** The identity transform of k vectors (k columns of k). */
export function identity(k: number): BigBasis {
  return Array.from({ length: k }, (_, j) => Array.from({ length: k }, (_, i) => (i === j ? 1n : 0n)));
}

/**
 * Columns a..a+k-1 of M replaced by M[:, a..a+k-1] Z (Z: k columns of k), exactly. A column of Z
 * that is a unit vector takes the old column's array as it is (a unimodular Z maps no old column
 * to two new ones, so no array is shared).
 */
export function applyColumns(M: BigBasis, a: number, Z: BigBasis): void {
  const k = Z.length,
    rows = M[a]!.length;
  const old = M.slice(a, a + k);
  for (let j = 0; j < k; j++) {
    const z = Z[j]!;
    let only = -1,
      count = 0;
    for (let i = 0; i < k && count < 2; i++)
      if (z[i] !== 0n) {
        only = i;
        count++;
      }
    if (count === 1 && z[only] === 1n) {
      M[a + j] = old[only]!;
      continue;
    }
    const col = new Array<bigint>(rows).fill(0n);
    for (let i = 0; i < k; i++) {
      const c = z[i]!;
      if (c === 0n) continue;
      const src = old[i]!;
      if (c === 1n) for (let t = 0; t < rows; t++) col[t] = col[t]! + src[t]!;
      else if (c === -1n) for (let t = 0; t < rows; t++) col[t] = col[t]! - src[t]!;
      else for (let t = 0; t < rows; t++) col[t] = col[t]! + c * src[t]!;
    }
    M[a + j] = col;
  }
}

/**
 * The R factor of one level's basis, kept current: factored again only from the first column a
 * change touched (a size reduction leaves the reflectors as they were: b_j -= mu b_i with i < j
 * changes only the first i + 1 entries of Q^T b_j), in fixed point precise to `guard` bits below
 * the smallest Gram-Schmidt norm (re-factored with more bits where that norm came out smaller than
 * assumed), and the basis size-reduced by it: the size reduction is fused with the factorisation,
 * R's columns updated alongside, and a size reduction with large multipliers (whose updated R has
 * lost the bits they carry) is followed by a fresh factorisation of the columns it touched.
 */
class Factoriser {
  private state: FixedQRState | undefined;
  private current: FixedR | undefined;
  /** The columns `current` covers. */
  private currentUpTo = 0;
  /** Columns 0..valid-1 of the state's R are those of B. */
  private valid = 0;
  /**
   * log2 of the smallest Gram-Schmidt norm the fixed-point scale resolves; before any factor,
   * FIRST_LOW (a first factor that finds smaller norms is redone with the bits they need).
   */
  private low = FIRST_LOW;
  /** Whether `low` was measured (a first factor, or a triangular B's diagonal). */
  private measured = false;
  /** The last factor's scale passed DEAR_BITS (its basis has entries far larger than its smallest norm). */
  dear = false;

  constructor(
    private readonly B: BigBasis,
    private readonly p: IterateParams,
    /** B is upper triangular with a positive diagonal (until the first change). */
    private triangular = false,
  ) {}

  changedFrom(a: number): void {
    this.triangular = false;
    this.current = undefined;
    this.valid = Math.min(this.valid, a);
  }

  /**
   * The R factor of B's first `upTo` columns (all by default: a block [a, b) needs only the
   * columns before b) after size-reducing them (and U alongside) by it.
   */
  sizeReduced(U: BigBasis | null, upTo = this.B.length): FixedR {
    if (this.current && this.currentUpTo >= upTo) return this.current;
    const Bp = upTo === this.B.length ? this.B : this.B.slice(0, upTo);
    for (let pass = 0; ; pass++) {
      const f = this.factor(Bp);
      // (Bp holds B's own column arrays: the size reduction changes B)
      const { bits, first } = sizeReduce(Bp, U, f);
      if (bits <= REFACTOR_BITS || pass >= 3) {
        this.current = f;
        this.currentUpTo = upTo;
        return f;
      }
      this.valid = first;
    }
  }

  /**
   * The double-double factor of the whole basis where its precision (DD_BITS below the largest
   * entry) resolves the smallest norm it finds to `guard` bits; null otherwise.
   */
  private probe(B: BigBasis): FixedR | null {
    const { p } = this;
    const bits = maxBitLength(B);
    const extra = Math.ceil(Math.log2(B.length * B[0]!.length)) + p.guard + 8;
    // the smallest `low` double-double resolves
    const lowest = bits + extra - DD_BITS;
    if (bits > 400 || lowest <= this.low) return null;
    let r: FixedR;
    try {
      r = ddQR(B, Math.max(0, bits + extra - lowest));
    } catch (err) {
      if (err instanceof RankDeficientError) return null;
      throw err;
    }
    p.stats.factorisations++;
    const low = Math.floor(Math.min(...r.profile)) - 4;
    if (low < lowest) return null;
    this.low = low;
    this.state = undefined;
    this.valid = B.length;
    this.dear = false;
    return r;
  }

  /** The factor of B's first B.length columns (`B`: this.B or a prefix of it). */
  private factor(B: BigBasis): FixedR {
    const { p } = this;
    const m = B.length,
      n = B[0]!.length;
    const whole = m === this.B.length;
    if (this.triangular && whole) {
      // R = B at scale 2^0 (size reductions keep it triangular; later changes go through changedFrom)
      this.triangular = false;
      this.state = undefined;
      const R = B.map((c) => c.slice(0, m));
      const profile = new Float64Array(m);
      for (let i = 0; i < m; i++) profile[i] = log2Big(R[i]![i]!);
      this.low = Math.floor(Math.min(...profile)) - 4;
      this.measured = true;
      // (the scale a factor after a change will need)
      this.dear = maxBitLength(B) - this.low > DEAR_BITS;
      return { R, F: 0, profile };
    }
    if (!this.measured && whole) {
      // the first factor, its smallest norm unknown: double-double tried first, kept where its
      // smallest norm shows its precision was enough
      this.measured = true;
      const r = this.probe(B);
      if (r) return r;
    }
    for (;;) {
      const need = Math.max(0, maxBitLength(B) + Math.ceil(Math.log2(n * m)) + p.guard + 8 - Math.floor(this.low));
      // the scale kept while it is enough and not far more than enough, so that columns can be reused
      const old = this.state?.F;
      const F = old !== undefined && old >= need && old - need <= 48 ? old : need;
      // the bits to resolve, relative to the largest entry: double-double where they fit
      const bits = maxBitLength(B);
      const dd = bits - Math.floor(this.low) + p.guard + Math.ceil(Math.log2(n * m)) + 8 <= DD_BITS && bits <= 400;
      let r: FixedR;
      if (dd) {
        r = ddQR(B, F);
        this.state = undefined;
      } else {
        const f = fixedQR(B, F, this.state, F === old ? Math.min(this.valid, m) : 0);
        this.state = f.state;
        r = f;
      }
      p.stats.factorisations++;
      this.dear = F > DEAR_BITS;
      let lo = Number.POSITIVE_INFINITY;
      for (const v of r.profile) lo = Math.min(lo, v);
      this.valid = m;
      if (lo >= this.low - 1) {
        // (a prefix's smallest norm says nothing of the columns after it)
        if (whole) this.low = Math.max(this.low, Math.floor(lo) - 4);
        return r;
      }
      // a Gram-Schmidt norm below what the scale resolves: again with the bits it needs, unless it
      // is below what independent integer vectors can have (|b*_k| >= 1 / prod |b_j|): dependence
      const k = r.profile.indexOf(lo);
      if (lo < -(m * maxBitLength(B) + 64))
        throw new RankDeficientError(
          'RANK_DEFICIENT',
          `basis vector ${k} is linearly dependent on the vectors before it (its Gram-Schmidt norm is below 2^${Math.floor(lo)})`,
          { vector: k },
        );
      this.low = Math.floor(lo) - 4;
      this.valid = 0;
    }
  }
}

/**
 * Size-reduces B (and U) by R: for each column j, from i = j - 1 down, b_j -= round(r_ij / r_ii) b_i,
 * R's column updated alongside. Returns the bit length of the largest multiplier (0: none) and the
 * first column reduced (m: none).
 */
function sizeReduce(B: BigBasis, U: BigBasis | null, f: FixedR): { bits: number; first: number } {
  const { R } = f;
  const m = B.length;
  let most = 0n;
  let first = m;
  for (let j = 1; j < m; j++) {
    const rj = R[j]!;
    for (let i = j - 1; i >= 0; i--) {
      const ri = R[i]!;
      const mu = nearest(rj[i]!, ri[i]!);
      if (mu === 0n) continue;
      if (j < first) first = j;
      for (let t = 0; t <= i; t++) rj[t] = rj[t]! - mu * ri[t]!;
      subMul(B[j]!, B[i]!, mu);
      if (U) subMul(U[j]!, U[i]!, mu);
      const a = mu < 0n ? -mu : mu;
      if (a > most) most = a;
    }
  }
  return { bits: most === 0n ? 0 : most.toString(2).length, first };
}

/** dst -= mu src, exactly. */
function subMul(dst: bigint[], src: readonly bigint[], mu: bigint): void {
  if (mu === 1n) for (let t = 0; t < dst.length; t++) dst[t] = dst[t]! - src[t]!;
  else if (mu === -1n) for (let t = 0; t < dst.length; t++) dst[t] = dst[t]! + src[t]!;
  else for (let t = 0; t < dst.length; t++) dst[t] = dst[t]! - mu * src[t]!;
}

/** Nearest integer to x / d (d > 0). */
function nearest(x: bigint, d: bigint): bigint {
  const num = 2n * x + d,
    den = 2n * d;
  const q = num / den;
  return num < 0n && q * den !== num ? q - 1n : q;
}
