/**
 * Sequential floating-point LLL in the Schnorr-Euchner style: the reference of the family.
 *
 * At each visit of position k the Gram-Schmidt row of b_k (r_{k,j} = <b_k, b*_j>, mu_{k,j} =
 * r_{k,j} / r_j, r_k = ||b*_k||^2) is computed in floating point from a Gram matrix G = B^T B of
 * the current basis (Cholesky-style recurrence); b_k is size-reduced against b_{k-1}, ..., b_0
 * (Babai's nearest plane, rounding mu when |mu| > eta); the Lovasz test decides between k + 1 and a
 * swap with a step back. Details that make it fast and robust:
 *  - Swap and step back, repeated: when b_k fails the Lovasz test it is swapped down while the
 *    test keeps failing. Stepping back to k - 1 after a swap would find the new b_{k-1} (the old
 *    b_k) already size-reduced, so the test there only needs the projected norms
 *    S_i = ||pi_i(b_k)||^2 of b_k, known from its row: the whole descent costs O(k) (fplll does
 *    the same with move_row).
 *  - Rows are kept between visits with the number of their leading coefficients that are still
 *    valid (fplll's gso_valid_cols): a row is only recomputed from the first column that changed.
 *  - G is updated along with each column operation (O(m) instead of n dot products) and swaps
 *    only permute it (an index array, slot[], maps positions to G's rows). Each update is checked
 *    for cancellation: when ||b_k||^2 falls far below its value at the last exact computation, the
 *    row of G is recomputed from dot products; when it falls by a large factor within one
 *    reduction (or a multiplier is huge), the row is recomputed and b_k reduced again (fplll's
 *    Babai loop, bounded).
 *  - After the loop ends, a pass from k = 1 on a freshly computed G (of B = B_in Z recomputed, for
 *    non-integral input, so that what is verified is the output itself) re-verifies every condition;
 *    any violation is repaired by the same loop, until a pass changes nothing (bounded). So the
 *    result satisfies |mu_ij| <= eta and Lovasz on a fresh floating-point Gram-Schmidt.
 *
 * iterations counts visits of a position k (main-loop steps); swaps counts adjacent transpositions.
 */
import type { RealArray } from '../../core/matrix.js';
import { allocLike } from '../../core/matrix.js';
import type { AlgoParams, BasisStats, CpuReducer } from '../types.js';
import { isIntegral } from '../check.js';
import { basisFromTransform, breakdown, checkReducerInput, keepInput, dotCols, EXACT_INTEGER_LIMIT, gramInto, iterationLimit, newStats, reductionBound, subMulCol, subMulColExact } from './gso.js';

/** sum_{i<len} a[ao+i] * b[bo+i] (the same four partial sums as dotCols). */
const dotRows = dotCols;

/** Passes over the whole basis on a fresh Gram matrix before giving up (the caller's check judges). */
const MAX_PASSES = 8;
/** Bound on the Babai loop at one position. */
const MAX_BABAI = 64;

/**
 * When to distrust values computed in floating point, per working precision. A row of mu computed
 * from G carries an absolute error of about u ||b_k|| ||b_j|| / r_j (u the unit roundoff) and r_k a
 * relative one of about u ||b_k||^2 / r_k; size reduction shrinks ||b_k||, so recomputing the row
 * after it shrinks these errors (fplll's Babai loop recomputes always; we do when they matter).
 */
interface Tolerances {
  readonly unitRoundoff: number;
  /** Recompute the row when the estimated error of a coefficient exceeds this. */
  readonly maxMuError: number;
  /** ||b_k||^2 fell below this fraction of its last exact value: recompute its row of G. */
  readonly refreshDrop: number;
  /** A multiplier this large leaves the updated mu row inexact: recompute the row. */
  readonly bigMultiplier: number;
}
const TOL64: Tolerances = { unitRoundoff: 2 ** -53, maxMuError: 2 ** -30, refreshDrop: 2 ** -20, bigMultiplier: 2 ** 20 };
const TOL32: Tolerances = { unitRoundoff: 2 ** -24, maxMuError: 2 ** -12, refreshDrop: 2 ** -6, bigMultiplier: 2 ** 6 };

class SchnorrEuchner {
  /** Gram matrix, m x m symmetric, indexed by slot: <b_i, b_j> = G[slot[i] * m + slot[j]]. */
  private readonly G: RealArray;
  private readonly slot: Int32Array;
  /** ||b||^2 of each slot when its row of G was last computed from dot products. */
  private readonly gExact: Float64Array;
  /** mu_{k,j} at k*m + j (row-major by position). */
  private readonly mu: RealArray;
  /** r_{k,j} = <b_k, b*_j> at k*m + j, and r_k = ||b*_k||^2 at k*m + k. */
  private readonly R: RealArray;
  /** Leading entries of row k of mu and R that are still valid. */
  private readonly valid: Int32Array;
  private readonly rowMu: RealArray;
  private readonly rowR: RealArray;
  private readonly colB: RealArray;
  private readonly colZ: Float64Array;
  /**
   * True while G is exactly B^T B: B integral and every value met below 2^53. Partial sums of a
   * dot product are bounded by ||b_i|| ||b_j|| <= normBound and an update of G by
   * |X| * normBound, so both stay exact integers in float64 while those bounds are below 2^53.
   */
  private integerGram = false;
  /** An upper bound on every ||b_k||^2 since G was last computed from the basis. */
  private normBound = 0;
  /** Highest position whose row was ever computed (rows above it hold nothing valid). */
  private kMax = 0;
  private readonly bound: number;
  private readonly tol: Tolerances;
  /** The input when it is not integral: verification passes start from B = B_in Z. */
  private readonly input: RealArray | null;

  constructor(
    private readonly B: RealArray, private readonly Z: Float64Array,
    private readonly n: number, private readonly m: number,
    private readonly p: AlgoParams, private readonly stats: BasisStats,
  ) {
    this.G = allocLike(B, m * m);
    this.slot = new Int32Array(m);
    this.gExact = new Float64Array(m);
    this.mu = allocLike(B, m * m);
    this.R = allocLike(B, m * m);
    this.valid = new Int32Array(m);
    this.rowMu = allocLike(B, m);
    this.rowR = allocLike(B, m);
    this.colB = allocLike(B, n);
    this.colZ = new Float64Array(m);
    this.bound = reductionBound(p.eta, B);
    this.tol = B instanceof Float32Array ? TOL32 : TOL64;
    this.input = keepInput(B);
  }

  /** LLL passes until one pass on a fresh Gram matrix changes nothing (at most MAX_PASSES). */
  run(): void {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      if (!this.pass(pass === 0)) return;
    }
  }

  /** One run of the main loop from k = 1 on a freshly computed G. True when anything changed. */
  private pass(first: boolean): boolean {
    const { m, stats, p, R, valid } = this;
    // an exact integer G needs no recomputation: the pass then re-verifies every row from it
    if (!first && this.input) basisFromTransform(this.input, this.Z, this.n, m, this.B);
    if (first || !this.integerGram) this.exactGram();
    valid.fill(0);
    this.kMax = 0;
    R[0] = this.G[this.slot[0]! * m + this.slot[0]!]!;
    if (!(R[0]! > 0)) throw breakdown(this.B, 0, true);
    const before = stats.swaps + stats.sizeReductions;
    let k = 1;
    while (k < m) {
      if (stats.iterations >= p.maxIterations) throw iterationLimit('lll', 'main-loop steps', p, stats);
      stats.iterations++;
      if (k > this.kMax) this.kMax = k;
      this.sizeReduce(k);
      k = this.lovasz(k);
    }
    return stats.swaps + stats.sizeReductions !== before;
  }

  /** G = B^T B from dot products; slots back to the identity. */
  private exactGram(): void {
    const { B, G, n, m, slot, gExact } = this;
    gramInto(B, n, m, G);
    let maxNorm = 0;
    for (let i = 0; i < m; i++) {
      slot[i] = i;
      gExact[i] = G[i * m + i]!;
      if (gExact[i]! > maxNorm) maxNorm = gExact[i]!;
    }
    this.normBound = maxNorm;
    this.integerGram = B instanceof Float64Array && maxNorm < EXACT_INTEGER_LIMIT && isIntegral(B);
  }

  /** Row of G for the vector at position k, from dot products. */
  private exactGramRow(k: number): void {
    const { B, G, n, m, slot } = this;
    const s = slot[k]!;
    for (let i = 0; i < m; i++) {
      const d = dotCols(B, k * n, B, i * n, n);
      G[s * m + slot[i]!] = d;
      G[slot[i]! * m + s] = d;
    }
    this.gExact[s] = G[s * m + s]!;
  }

  /** Completes row k of mu and R from its first invalid column, and r_k. Rows below k are complete. */
  private computeRow(k: number): void {
    const { G, mu, R, m, slot } = this;
    const ko = k * m;
    const gk = slot[k]! * m;
    for (let j = this.valid[k]!; j < k; j++) {
      const jo = j * m;
      R[ko + j] = G[gk + slot[j]!]! - dotRows(mu, jo, R, ko, j);
      mu[ko + j] = R[ko + j]! / R[jo + j]!;
    }
    this.valid[k] = k;
    R[ko + k] = G[gk + slot[k]!]! - dotRows(mu, ko, R, ko, k);
  }

  /** Babai's nearest plane for b_k against b_{k-1}..b_0, repeated while the row may be inexact. */
  private sizeReduce(k: number): void {
    const { B, Z, G, mu, R, n, m, slot, bound, tol, stats } = this;
    const ko = k * m;
    const sk = slot[k]!;
    const gk = sk * m;
    for (let round = 0; ; round++) {
      this.computeRow(k);
      if (!(R[ko + k]! > 0)) this.recoverRow(k);
      if (round >= MAX_BABAI) return;
      const oldNorm = G[gk + sk]!; // exact or updated: the sweep below overwrites it
      let maxX = 0;
      for (let j = k - 1; j >= 0; j--) {
        const x = mu[ko + j]!;
        if (!(Math.abs(x) > bound)) continue;
        const X = Math.round(x);
        mu[ko + j] = x - X;
        const jo = j * m;
        for (let i = 0; i < j; i++) mu[ko + i] = mu[ko + i]! - X * mu[jo + i]!;
        subMulCol(B, k * n, j * n, X, n);
        subMulColExact(Z, k * m, j * m, X, m);
        // row k of G follows b_k (its diagonal entry is recomputed below)
        const gj = slot[j]! * m;
        for (let t = 0; t < m; t++) G[gk + t] = G[gk + t]! - X * G[gj + t]!;
        const ax = Math.abs(X);
        if (ax > maxX) maxX = ax;
        if (ax * this.normBound >= EXACT_INTEGER_LIMIT) this.integerGram = false;
        stats.sizeReductions++;
      }
      if (maxX === 0) return;
      const norm = dotCols(B, k * n, B, k * n, n);
      G[gk + sk] = norm;
      if (norm > this.normBound) {
        this.normBound = norm;
        if (norm >= EXACT_INTEGER_LIMIT) this.integerGram = false;
      }
      for (let t = 0; t < m; t++) G[t * m + sk] = G[gk + t]!;
      // b_k changed: every later row loses its coefficients from column k on
      const valid = this.valid;
      for (let i = k + 1; i <= this.kMax; i++) if (valid[i]! > k) valid[i] = k;
      for (let j = 0; j < k; j++) R[ko + j] = mu[ko + j]! * R[j * m + j]!;
      let again = maxX > tol.bigMultiplier || this.rowMayBeInexact(k, oldNorm);
      if (norm < this.gExact[sk]! * tol.refreshDrop) {
        this.exactGramRow(k);
        again = true;
      }
      if (!again) return;
      this.valid[k] = 0;
    }
  }

  /**
   * Whether the row of b_k, computed while ||b_k||^2 was oldNorm, may be off by more than
   * tol.maxMuError in a coefficient or relatively in r_k (error estimates in the Tolerances note).
   */
  private rowMayBeInexact(k: number, oldNorm: number): boolean {
    const { G, R, m, slot, tol } = this;
    const u2 = tol.unitRoundoff * tol.unitRoundoff;
    const limit = tol.maxMuError * tol.maxMuError;
    const rk = R[k * m + k]!;
    if (u2 * oldNorm * oldNorm > limit * rk * rk) return true;
    let worst = 0; // max_j ||b_j||^2 / r_j^2
    for (let j = 0; j < k; j++) {
      const rj = R[j * m + j]!;
      const v = G[slot[j]! * (m + 1)]! / (rj * rj);
      if (v > worst) worst = v;
    }
    return u2 * oldNorm * worst > limit;
  }

  /**
   * r_k <= 0: b_k is numerically in the span of b_0..b_{k-1}, or the row came from a drifted G.
   * Recompute the row from exact dot products; if r_k stays <= 0, carry on: the Lovasz test fails
   * and b_k moves down to where its projection is large enough (fplll does the same). Only an
   * exactly zero vector is an error (the input was dependent).
   */
  private recoverRow(k: number): void {
    this.exactGramRow(k);
    const s = this.slot[k]!;
    if (this.G[s * this.m + s] === 0) throw breakdown(this.B, k, true);
    this.valid[k] = 0;
    this.computeRow(k);
  }

  /**
   * Lovasz test at k; on failure b_k moves down to the first position i where it holds (a run of
   * swaps with step back). Returns the next position to visit.
   */
  private lovasz(k: number): number {
    const { mu, R, m, p } = this;
    const delta = p.delta;
    const ko = k * m;
    let S = R[ko + k]!;
    let i = k;
    while (i > 0) {
      const next = S + mu[ko + i - 1]! * R[ko + i - 1]!;
      if (delta * R[(i - 1) * m + i - 1]! <= next) break;
      S = next;
      i--;
    }
    if (i === k) return k + 1;
    this.insert(k, i, S);
    this.stats.swaps += k - i;
    return i + 1;
  }

  /** Moves b_k to position i (b_i..b_{k-1} shift up); S = its new ||b*_i||^2. */
  private insert(k: number, i: number, S: number): void {
    const { B, Z, mu, R, n, m, slot, valid, rowMu, rowR, colB, colZ } = this;
    const ko = k * m;
    for (let t = 0; t < i; t++) { rowMu[t] = mu[ko + t]!; rowR[t] = R[ko + t]!; }
    // rows i..k-1 move up one; only their first i coefficients stay valid
    for (let t = k - 1; t >= i; t--) {
      const len = Math.min(valid[t]!, i);
      const src = t * m, dst = src + m;
      for (let q = 0; q < len; q++) { mu[dst + q] = mu[src + q]!; R[dst + q] = R[src + q]!; }
      valid[t + 1] = len;
    }
    const io = i * m;
    for (let t = 0; t < i; t++) { mu[io + t] = rowMu[t]!; R[io + t] = rowR[t]!; }
    R[io + i] = S;
    valid[i] = i;
    for (let t = k + 1; t <= this.kMax; t++) if (valid[t]! > i) valid[t] = i;
    const s = slot[k]!;
    for (let t = k; t > i; t--) slot[t] = slot[t - 1]!;
    slot[i] = s;
    colB.set(B.subarray(k * n, k * n + n));
    B.copyWithin((i + 1) * n, i * n, k * n);
    B.set(colB, i * n);
    colZ.set(Z.subarray(k * m, k * m + m));
    Z.copyWithin((i + 1) * m, i * m, k * m);
    Z.set(colZ, i * m);
  }
}

export const lllCpu: CpuReducer = (B, Z, n, m, p) => {
  checkReducerInput(B, Z, n, m, p, 'lll');
  const stats = newStats();
  if (m >= 2) new SchnorrEuchner(B, Z, n, m, p, stats).run();
  return stats;
};
