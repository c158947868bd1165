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
 *    S_i = ||pi_i(b_k)||^2 of b_k, known from its row: the whole descent costs O(k) plus moving
 *    the columns (fplll does the same with move_row).
 *  - Rows are kept between visits with the number of their leading coefficients that are still
 *    valid (fplll's gso_valid_cols): a row is only recomputed from the first column that changed.
 *  - Swaps only permute G (an index array, slot[], maps positions to G's rows). While B is integral
 *    with every value below 2^53, G is exact: computed in full once and updated along with each
 *    column operation (O(m) per operation). Otherwise it is computed lazily from dot products, as
 *    fplll does: an entry marked unknown (NaN) is computed when first read, and b_k's row and
 *    column are marked unknown after b_k was reduced. (An incremental update of a float G is not
 *    an option: its rounding errors accumulate and, squared by the Cholesky-style recurrence,
 *    ruined scrambled bases in testing.)
 *  - Babai's loop: after a sweep that reduced b_k, the row is recomputed and b_k swept again until
 *    a sweep changes nothing (bounded).
 *  - The Lovasz test uses the projected norms computed from the top (||b_k||^2 minus the
 *    projections), accurate where the descent needs them.
 *  - After the loop ends, a pass from k = 1 on a fresh G (of B = B_in Z recomputed, for
 *    non-integral input, so that what is verified is the output itself) re-verifies every condition;
 *    any violation is repaired by the same loop, until a pass changes nothing (bounded). So the
 *    result satisfies |mu_ij| <= eta and Lovasz on a fresh floating-point Gram-Schmidt.
 *
 * iterations counts visits of a position k (main-loop steps); swaps counts adjacent transpositions.
 */
import { type RealArray, allocLike, LatticeMimoError } from '../../core/index.js';
import type { AlgoParams, BasisStats, CpuReducer } from '../types.js';
import { isIntegral } from '../check.js';
import { allSwapRounds } from '../allswap/cpu.js';
import {
  columnMax,
  dotCols,
  dotsByFours,
  EXACT_INTEGER_LIMIT,
  gramInto,
  subMulCol,
  subMulColBigInt,
  subMulColExact,
  subMulRowExact,
  transformLost,
} from './columns.js';
import { doubleDoubleProjections, doubleDoubleRow } from './double-double.js';
import {
  basisFromTransform,
  breakdown,
  checkReducerInput,
  gramSchmidtInto,
  iterationLimit,
  keepInput,
  newStats,
  reductionBound,
} from './gso.js';

/** sum_{i<len} a[ao+i] * b[bo+i] (the same four partial sums as dotCols). */
const dotRows = dotCols;

/** Passes over the whole basis on a fresh Gram matrix before giving up (the caller's check judges). */
const MAX_PASSES = 8;
/**
 * The Gram-based verification is trusted while its error estimate (gramErrorEstimate) is below
 * this; past it the result is verified on a modified Gram-Schmidt. Measured against a modified
 * Gram-Schmidt on Gaussian (n = 128..512) and block-Toeplitz outputs (square and full, b = 2 and
 * 4, delta 0.75 and 0.99), the largest coefficient error was at most 0.06 times the estimate where
 * it exceeded rounding, so below this bound it stays under about 3e-10, inside the 1e-9 tolerance
 * of the caller's float64 re-check.
 */
const GRAM_TRUST = 5e-9;
/** Bound on the Babai loop at one position (each round shrinks the coefficients by a large factor). */
const MAX_BABAI = 64;

class SchnorrEuchner {
  /** Gram matrix, m x m symmetric, indexed by slot: <b_i, b_j> = G[slot[i] * m + slot[j]]. */
  private readonly G: RealArray;
  private readonly slot: Int32Array;
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
  /** Positions whose Gram entries fetchGramRow computes. */
  private readonly pending: Int32Array;
  /** fetchGramRow's dot products (dotsByFours). */
  private readonly dots: Float64Array;
  /** Projected norms of b_k for the Lovasz test (lovasz()). */
  private readonly S: Float64Array;
  /**
   * True while G is exactly B^T B: B integral and every value met below 2^53 (every update of G is
   * checked; a dot product's partial sums are bounded by the norms, by Cauchy-Schwarz).
   */
  private integerGram = false;
  /** An upper bound on every ||b_k||^2 since G was last computed from the basis. */
  private normBound = 0;
  /**
   * While G is exact: an upper bound on max_t |G(s, t)| of each row of G (by slot), so that the
   * exactness of a row update in a sweep is decided in O(1) (like zBound for Z).
   */
  private readonly gBound: Float64Array;
  /**
   * Upper bounds on max |Z_ij| of each column (by position), so that the exactness of Z is checked
   * in O(1) per column operation; a column is rescanned only when its bound nears 2^53.
   */
  private readonly zBound: Float64Array;
  /** Set once Z passed 2^53 on integral input: Z is no longer tracked (all NaN). */
  private zLost = false;
  /**
   * Extended-precision mode (see double-double.ts): low parts of mu, R, the projections and the
   * moved row, allocated when float64 breaks down on an integral basis with an exact Gram matrix.
   */
  private dd: {
    muLo: Float64Array;
    RLo: Float64Array;
    SLo: Float64Array;
    rowMuLo: Float64Array;
    rowRLo: Float64Array;
  } | null = null;
  /** Highest position whose row was ever computed (rows above it hold nothing valid). */
  private kMax = 0;
  private readonly bound: number;
  /** The input when it is not integral: verification passes start from B = B_in Z. */
  private readonly input: RealArray | null;

  constructor(
    private readonly B: RealArray,
    private readonly Z: Float64Array,
    private readonly n: number,
    private readonly m: number,
    private readonly p: AlgoParams,
    private readonly stats: BasisStats,
  ) {
    this.G = allocLike(B, m * m);
    this.slot = new Int32Array(m);
    this.mu = allocLike(B, m * m);
    this.R = allocLike(B, m * m);
    this.valid = new Int32Array(m);
    this.rowMu = allocLike(B, m);
    this.rowR = allocLike(B, m);
    this.colB = allocLike(B, n);
    this.colZ = new Float64Array(m);
    this.S = new Float64Array(m + 1);
    this.pending = new Int32Array(m + 1);
    this.dots = new Float64Array(m + 1);
    this.zBound = new Float64Array(m).fill(1);
    this.gBound = new Float64Array(m);
    this.bound = reductionBound(p.eta, B);
    this.input = keepInput(B);
  }

  /**
   * LLL passes until one pass on a fresh Gram matrix changes nothing (at most MAX_PASSES); then,
   * if that Gram-based verification may be inexact (GRAM_TRUST), a verification on a modified
   * Gram-Schmidt of the basis and, only if it fails there, a repair by the rounds of the all-swap
   * reducer (which work on a modified Gram-Schmidt too).
   */
  run(): void {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      try {
        if (!this.pass(pass === 0)) break;
      } catch (err) {
        if (!this.canExtendPrecision(err)) throw err;
        // carry on from the partly reduced basis (exact: integral) with double-double rows
        this.extendPrecision();
        pass = -1;
      }
    }
    if (!this.dd && this.gramErrorEstimate() > GRAM_TRUST && !this.reducedOnModifiedGramSchmidt()) {
      allSwapRounds(this.B, this.Z, this.n, this.m, this.p, this.stats, this.input, 'lll');
    }
  }

  /**
   * A float64 breakdown (Babai's loop not settling, a projection that vanished numerically) that
   * double-double rows can cure: the basis is integral and float64 with an exact Gram matrix, so
   * the only inexact step was the Gram-Schmidt recurrence itself. (fplll's fast mode stops here
   * with "infinite loop in babai"; its wrapper restarts in higher precision.)
   */
  private canExtendPrecision(err: unknown): boolean {
    if (this.dd || this.input || !(this.B instanceof Float64Array)) return false;
    if (!(err instanceof LatticeMimoError) || !(err.code === 'PRECISION_FAILURE' || err.code === 'RANK_DEFICIENT'))
      return false;
    let maxNorm = 0;
    for (let i = 0; i < this.m; i++)
      maxNorm = Math.max(maxNorm, dotCols(this.B, i * this.n, this.B, i * this.n, this.n));
    return maxNorm < EXACT_INTEGER_LIMIT;
  }

  private extendPrecision(): void {
    const m = this.m;
    this.dd = {
      muLo: new Float64Array(m * m),
      RLo: new Float64Array(m * m),
      SLo: new Float64Array(m + 1),
      rowMuLo: new Float64Array(m),
      rowRLo: new Float64Array(m),
    };
    this.stats.extendedPrecision = 'double-double';
  }

  /** The coefficient rows as the run left them (m x m row-major mu and R), for the kernel's tests. */
  rows(): { mu: Float64Array; R: Float64Array } {
    return { mu: Float64Array.from(this.mu), R: Float64Array.from(this.R) };
  }

  /** Whether B satisfies both LLL conditions on a modified Gram-Schmidt (the float64 re-check's). */
  private reducedOnModifiedGramSchmidt(): boolean {
    const { B, n, m, p, bound } = this;
    const mu = allocLike(B, m * m),
      r = allocLike(B, m);
    gramSchmidtInto(B, n, m, allocLike(B, n * m), r, mu);
    for (let k = 1; k < m; k++) {
      const ko = k * m;
      for (let j = 0; j < k; j++) if (!(Math.abs(mu[ko + j]!) <= bound)) return false;
      const x = mu[ko + k - 1]!;
      if (!(r[k]! + x * x * r[k - 1]! >= p.delta * r[k - 1]!)) return false;
    }
    return true;
  }

  /**
   * Estimated error of the coefficients from the Gram-based Gram-Schmidt of the last pass:
   * u * growth(L^-1)^2 * max_j ||b_j||^2 / r_j, u the unit roundoff. The Cholesky-style recurrence
   * loses about ||b_j||^2 / r_j relative to G in row j, and L^-1 carries errors from row to row.
   */
  private gramErrorEstimate(): number {
    const { R, m } = this;
    const u = this.B instanceof Float32Array ? 2 ** -24 : 2 ** -53;
    let q = 1;
    for (let j = 0; j < m; j++) q = Math.max(q, this.gram(j, j) / R[j * m + j]!);
    const g = this.muInverseGrowth();
    return u * g * g * q;
  }

  /**
   * An estimate of the growth of the inverse of the unit triangular coefficient matrix L (mu_{k,j}
   * below a unit diagonal), by the usual condition estimator: solve L x = e with each sign of e
   * chosen to make |x_k| grow. The rounding errors of a Cholesky-style Gram-Schmidt are amplified
   * by about its square: even an LLL-reduced basis can have an exponentially growing L^-1 (seen on
   * 'full' block-Toeplitz bases with b = 2 and delta 0.99: 6e7 at n = 128, coefficients off by 0.03
   * against a modified Gram-Schmidt), while Gaussian ones stay near 1e2.
   */
  private muInverseGrowth(): number {
    const { mu, m, S } = this;
    let big = 1;
    for (let k = 0; k < m; k++) {
      const ko = k * m;
      let s = 0;
      for (let j = 0; j < k; j++) s -= mu[ko + j]! * S[j]!;
      s += s >= 0 ? 1 : -1;
      S[k] = s;
      const a = Math.abs(s);
      if (a > big) big = a;
    }
    return big;
  }

  /**
   * One run of the main loop from k = 1 on a fresh G (all of it for an exact integer G, else
   * computed lazily: each position's row when it is first visited). True when anything changed.
   */
  private pass(first: boolean): boolean {
    const { m, stats, p, R, valid } = this;
    valid.fill(0);
    this.kMax = 0;
    if (first) this.startGram();
    else if (!this.integerGram) {
      // a float G is recomputed (lazily), on the basis re-anchored on the input
      if (this.input) basisFromTransform(this.input, this.Z, this.n, m, this.B);
      for (let i = 0; i < m; i++) this.slot[i] = i;
      this.G.fill(NaN);
    }
    // an exact integer G is kept: the pass then re-verifies every row from it
    R[0] = this.gram(0, 0);
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

  /**
   * G at the start: exactly B^T B in full when B is integral with every ||b_j||^2 below 2^53
   * (then dot products and all later updates are exact integers), else nothing yet (computed
   * lazily, see gram()). Slots back to the identity.
   */
  private startGram(): void {
    const { B, G, n, m, slot } = this;
    let maxNorm = 0;
    for (let i = 0; i < m; i++) {
      slot[i] = i;
      maxNorm = Math.max(maxNorm, dotCols(B, i * n, B, i * n, n));
    }
    this.normBound = maxNorm;
    this.integerGram = B instanceof Float64Array && maxNorm < EXACT_INTEGER_LIMIT && isIntegral(B);
    if (this.integerGram) {
      gramInto(B, n, m, G);
      for (let s = 0; s < m; s++) this.gBound[s] = columnMax(G as Float64Array, s * m, m);
    } else G.fill(NaN);
  }

  /** After row sk of G was set and mirrored into its column: the row bounds it touched. */
  private refreshRowBounds(sk: number): void {
    const { G, m, gBound } = this;
    let big = 0;
    for (let t = 0; t < m; t++) {
      const a = Math.abs(G[sk * m + t]!);
      if (a > big) big = a;
      if (a > gBound[t]!) gBound[t] = a;
    }
    gBound[sk] = big;
  }

  /**
   * <b_i, b_j> from G; an entry marked unknown (NaN, a float G only) is computed from the basis
   * first (fplll's lazy Gram matrix: after b_k changes its row and column are only marked).
   */
  private gram(i: number, j: number): number {
    const { G, m, slot } = this;
    const a = slot[i]! * m + slot[j]!;
    const g = G[a]!;
    if (!Number.isNaN(g)) return g;
    const d = dotCols(this.B, i * this.n, this.B, j * this.n, this.n);
    G[a] = d;
    G[slot[j]! * m + slot[i]!] = d;
    return G[a]!;
  }

  /**
   * Computes the unknown entries <b_k, b_j>, j in [from, k], four at a time (one pass over b_k per
   * four columns: about 1.5x faster than separate dot products).
   */
  private fetchGramRow(k: number, from: number): void {
    const { B, G, n, m, slot, pending } = this;
    const gk = slot[k]! * m;
    let count = 0;
    for (let j = from; j <= k; j++) {
      const g = G[gk + slot[j]!]!;
      if (Number.isNaN(g)) pending[count++] = j;
    }
    const dots = this.dots;
    let c = dotsByFours(B, n, k, pending, count, dots);
    for (let i = 0; i < c; i++) this.setGram(k, pending[i]!, dots[i]!);
    for (; c < count; c++) this.setGram(k, pending[c]!, dotCols(B, k * n, B, pending[c]! * n, n));
  }

  private setGram(i: number, j: number, d: number): void {
    const { G, m, slot } = this;
    G[slot[i]! * m + slot[j]!] = d;
    G[slot[j]! * m + slot[i]!] = d;
  }

  /** Marks the row and column of b_k's slot in G unknown (a float G after b_k changed). */
  private forgetGramRow(k: number): void {
    const { G, m } = this;
    const s = this.slot[k]!;
    G.fill(NaN, s * m, s * m + m);
    for (let t = 0; t < m; t++) G[t * m + s] = NaN;
  }

  /**
   * Completes row k of mu and R from its first invalid column, and r_k (rows below k are
   * complete): r_{k,j} = <b_k, b_j> - sum_{i<j} mu_{j,i} r_{k,i}, mu_{k,j} = r_{k,j} / r_j. Two
   * columns at a time share the loads of row k (the second one adds its last term after the first
   * is known): about 1.3x faster than one dot product per column.
   */
  private computeRow(k: number): void {
    const { G, mu, R, m, slot } = this;
    const ko = k * m;
    const gk = slot[k]! * m;
    let j = this.valid[k]!;
    if (this.dd) {
      if (!this.integerGram) this.fetchGramRow(k, j);
      doubleDoubleRow(
        mu as Float64Array,
        this.dd.muLo,
        R as Float64Array,
        this.dd.RLo,
        m,
        k,
        j,
        (i) => G[gk + slot[i]!]!,
      );
      this.valid[k] = k;
      return;
    }
    if (!this.integerGram) this.fetchGramRow(k, j);
    for (; j + 1 < k; j += 2) {
      const jo = j * m,
        jo1 = jo + m;
      let a0 = 0,
        a1 = 0,
        b0 = 0,
        b1 = 0;
      let i = 0;
      for (; i + 1 < j; i += 2) {
        const r0 = R[ko + i]!,
          r1 = R[ko + i + 1]!;
        a0 += mu[jo + i]! * r0;
        a1 += mu[jo + i + 1]! * r1;
        b0 += mu[jo1 + i]! * r0;
        b1 += mu[jo1 + i + 1]! * r1;
      }
      if (i < j) {
        const r0 = R[ko + i]!;
        a0 += mu[jo + i]! * r0;
        b0 += mu[jo1 + i]! * r0;
      }
      R[ko + j] = G[gk + slot[j]!]! - (a0 + a1);
      mu[ko + j] = R[ko + j]! / R[jo + j]!;
      R[ko + j + 1] = G[gk + slot[j + 1]!]! - (b0 + b1 + mu[jo1 + j]! * R[ko + j]!);
      mu[ko + j + 1] = R[ko + j + 1]! / R[jo1 + j + 1]!;
    }
    if (j < k) {
      const jo = j * m;
      R[ko + j] = G[gk + slot[j]!]! - dotRows(mu, jo, R, ko, j);
      mu[ko + j] = R[ko + j]! / R[jo + j]!;
    }
    this.valid[k] = k;
    R[ko + k] = G[gk + slot[k]!]! - dotRows(mu, ko, R, ko, k);
  }

  /**
   * Babai's nearest plane for b_k against b_{k-1}..b_0, repeated until a sweep on a freshly
   * computed row changes nothing (fplll's Babai loop): the updated coefficients of one sweep are
   * only approximate (mu_{k,i} -= X mu_{j,i} carries the errors of row j, times X), and deciding on
   * them alone let vectors grow without bound on q-ary bases in testing.
   */
  private sizeReduce(k: number): void {
    const { R, m } = this;
    for (let round = 0; round < MAX_BABAI; round++) {
      this.computeRow(k);
      if (!(R[k * m + k]! > 0)) this.recoverRow(k);
      if (this.sweep(k) === 0) return;
      this.afterSweep(k);
      this.valid[k] = 0;
    }
    throw new LatticeMimoError(
      'PRECISION_FAILURE',
      `lll: size reduction of vector ${k} did not settle within ${MAX_BABAI} rounds (floating-point breakdown${this.input ? '' : '; an integer basis: lllIntegral() and the reduce command go on up a precision ladder'})`,
      { vector: k },
    );
  }

  /**
   * One Babai sweep: for j = k-1 .. 0, b_k -= round(mu_{k,j}) b_j where |mu_{k,j}| > eta, with the
   * row of mu updated approximately (mu_{k,i} -= X mu_{j,i}) and, while it is exact, the row of G.
   * Returns the largest |X| (0: nothing to do).
   */
  private sweep(k: number): number {
    const { B, G, mu, n, m, slot, bound, stats } = this;
    const ko = k * m;
    const gk = slot[k]! * m;
    const { gBound } = this;
    let maxX = 0;
    for (let j = k - 1; j >= 0; j--) {
      const x = mu[ko + j]!;
      if (!(Math.abs(x) > bound)) continue;
      const X = Math.round(x);
      mu[ko + j] = x - X;
      const jo = j * m;
      for (let i = 0; i < j; i++) mu[ko + i] = mu[ko + i]! - X * mu[jo + i]!;
      const ax = Math.abs(X);
      if (ax > maxX) maxX = ax;
      subMulCol(B, k * n, j * n, X, n);
      this.transformOp(k, j, X);
      if (this.integerGram) {
        // row k of G follows b_k exactly (its diagonal entry is recomputed after the sweep) while
        // every entry of X b_j and every product and result stays below 2^53
        const sj = slot[j]!,
          gj = sj * m,
          sk = slot[k]!;
        // |X G_jt| <= ax gBound(j) and |G_kt - X G_jt| <= gBound(k) + ax gBound(j): below 2^53
        // the plain update is exact, without a check per entry
        const step = ax * gBound[sj]!;
        if (gBound[sk]! + step < EXACT_INTEGER_LIMIT) {
          subMulCol(G, gk, gj, X, m);
          gBound[sk] = gBound[sk]! + step;
        } else if (ax * Math.sqrt(G[gj + sj]!) >= EXACT_INTEGER_LIMIT || !subMulRowExact(G, gk, gj, X, m)) {
          this.integerGram = false;
        } else {
          gBound[sk] = columnMax(G as Float64Array, gk, m);
        }
      }
      stats.sizeReductions++;
    }
    return maxX;
  }

  /** After a sweep that changed b_k: its row of G (exact update or dot products), the later rows' validity. */
  private afterSweep(k: number): void {
    const { B, G, n, m, slot, valid } = this;
    const sk = slot[k]!;
    const norm = dotCols(B, k * n, B, k * n, n);
    if (norm > this.normBound) {
      this.normBound = norm;
      if (norm >= EXACT_INTEGER_LIMIT) this.integerGram = false;
    }
    if (this.integerGram) {
      G[sk * m + sk] = norm;
      for (let t = 0; t < m; t++) G[t * m + sk] = G[sk * m + t]!;
      this.refreshRowBounds(sk);
    } else {
      this.forgetGramRow(k);
      G[sk * m + sk] = norm;
    }
    // b_k changed: every later row loses its coefficients from column k on
    for (let i = k + 1; i <= this.kMax; i++) if (valid[i]! > k) valid[i] = k;
  }

  /**
   * Z[:, k] -= X Z[:, j], kept exact: with the column bounds below 2^53 every product and sum is an
   * exact integer; near 2^53 column j is rescanned and products past 2^53 are formed in BigInt. An
   * entry past 2^53 cannot be held: for integral input Z is then dropped (B stays exact on its own,
   * and reduce() rebuilds Z exactly from B_in and B), otherwise it is an UnsupportedError.
   */
  private transformOp(k: number, j: number, X: number): void {
    const { Z, m, zBound } = this;
    if (this.zLost) return;
    const ax = Math.abs(X);
    const next = zBound[k]! + ax * zBound[j]!;
    if (next < EXACT_INTEGER_LIMIT) {
      subMulCol(Z, k * m, j * m, X, m);
      zBound[k] = next;
      return;
    }
    zBound[j] = columnMax(Z, j * m, m);
    zBound[k] =
      ax * zBound[j]! < EXACT_INTEGER_LIMIT
        ? subMulColExact(Z, k * m, j * m, X, m)
        : subMulColBigInt(Z, k * m, j * m, X, m);
    // (an entry past 2^53 throws in subMulColExact unless Z was registered as rebuildable)
    if (transformLost(Z.subarray(k * m, k * m + m))) {
      this.zLost = true;
      Z.fill(NaN);
    }
  }

  /**
   * r_k <= 0: b_k is numerically in the span of b_0..b_{k-1}, or the row came from a drifted G.
   * Recompute the row from exact dot products; if r_k stays <= 0, carry on: the Lovasz test fails
   * and b_k moves down to where its projection is large enough (fplll does the same). Only an
   * exactly zero vector is an error (the input was dependent).
   */
  private recoverRow(k: number): void {
    const { B, G, n, m, slot } = this;
    for (let i = 0; i < m; i++) {
      const d = dotCols(B, k * n, B, i * n, n);
      G[slot[k]! * m + slot[i]!] = d;
      G[slot[i]! * m + slot[k]!] = d;
    }
    if (G[slot[k]! * (m + 1)] === 0) throw breakdown(B, k, true);
    if (this.integerGram) this.refreshRowBounds(slot[k]!);
    this.valid[k] = 0;
    this.computeRow(k);
  }

  /**
   * Lovasz test at k; on failure b_k moves down to the first position i where it holds (a run of
   * swaps with step back). The test at position i needs S_{i-1} = ||pi_{i-1}(b_k)||^2 (the norm of
   * b_k projected orthogonally to b_0..b_{i-2}), computed from the top as fplll does:
   * S_0 = ||b_k||^2, S_i = S_{i-1} - mu_{k,i-1} r_{k,i-1}, so that the values used deep down are
   * the accurate ones. Returns the next position to visit.
   */
  private lovasz(k: number): number {
    const { mu, R, m, p, S } = this;
    const delta = p.delta;
    const ko = k * m;
    if (this.dd) {
      doubleDoubleProjections(
        mu as Float64Array,
        this.dd.muLo,
        R as Float64Array,
        this.dd.RLo,
        m,
        k,
        this.gram(k, k),
        S,
        this.dd.SLo,
      );
      this.dd.RLo[ko + k] = this.dd.SLo[k]!;
    } else {
      let s = this.gram(k, k);
      S[0] = s;
      for (let i = 1; i <= k; i++) {
        s -= mu[ko + i - 1]! * R[ko + i - 1]!;
        S[i] = s;
      }
    }
    R[ko + k] = S[k]!;
    if (delta * R[(k - 1) * m + k - 1]! <= S[k - 1]!) return k + 1;
    let i = k - 1;
    while (i > 0 && delta * R[(i - 1) * m + i - 1]! > S[i - 1]!) i--;
    // with |mu_{k,i}| <= eta < sqrt(delta), S_i >= (delta - eta^2) r_i > 0 unless b_k is (numerically) dependent
    if (!(S[i]! > 0)) throw breakdown(this.B, k, false);
    this.insert(k, i, S[i]!, this.dd ? this.dd.SLo[i]! : 0);
    this.stats.swaps += k - i;
    return i + 1;
  }

  /** Moves b_k to position i (b_i..b_{k-1} shift up); S = its new ||b*_i||^2. */
  private insert(k: number, i: number, S: number, SLo: number): void {
    const { B, Z, mu, R, n, m, slot, valid, rowMu, rowR, colB, colZ } = this;
    const ko = k * m;
    for (let t = 0; t < i; t++) {
      rowMu[t] = mu[ko + t]!;
      rowR[t] = R[ko + t]!;
    }
    // rows i..k-1 move up one; only their first i coefficients stay valid
    for (let t = k - 1; t >= i; t--) {
      const len = Math.min(valid[t]!, i);
      const src = t * m,
        dst = src + m;
      for (let q = 0; q < len; q++) {
        mu[dst + q] = mu[src + q]!;
        R[dst + q] = R[src + q]!;
      }
      valid[t + 1] = len;
    }
    const io = i * m;
    for (let t = 0; t < i; t++) {
      mu[io + t] = rowMu[t]!;
      R[io + t] = rowR[t]!;
    }
    R[io + i] = S;
    if (this.dd) this.moveLowParts(k, i, SLo);
    valid[i] = i;
    for (let t = k + 1; t <= this.kMax; t++) if (valid[t]! > i) valid[t] = i;
    const s = slot[k]!;
    const zb = this.zBound[k]!;
    for (let t = k; t > i; t--) {
      slot[t] = slot[t - 1]!;
      this.zBound[t] = this.zBound[t - 1]!;
    }
    slot[i] = s;
    this.zBound[i] = zb;
    colB.set(B.subarray(k * n, k * n + n));
    B.copyWithin((i + 1) * n, i * n, k * n);
    B.set(colB, i * n);
    if (this.zLost) return;
    colZ.set(Z.subarray(k * m, k * m + m));
    Z.copyWithin((i + 1) * m, i * m, k * m);
    Z.set(colZ, i * m);
  }
  /** insert()'s row moves for the low parts (double-double mode). */
  private moveLowParts(k: number, i: number, SLo: number): void {
    const { m, valid } = this;
    const { muLo, RLo, rowMuLo, rowRLo } = this.dd!;
    const ko = k * m;
    for (let t = 0; t < i; t++) {
      rowMuLo[t] = muLo[ko + t]!;
      rowRLo[t] = RLo[ko + t]!;
    }
    // valid[] was already updated by insert(): row t + 1 holds the first valid[t + 1] entries of row t
    for (let t = k - 1; t >= i; t--) {
      const len = valid[t + 1]!;
      const src = t * m,
        dst = src + m;
      for (let q = 0; q < len; q++) {
        muLo[dst + q] = muLo[src + q]!;
        RLo[dst + q] = RLo[src + q]!;
      }
    }
    const io = i * m;
    for (let t = 0; t < i; t++) {
      muLo[io + t] = rowMuLo[t]!;
      RLo[io + t] = rowRLo[t]!;
    }
    RLo[io + i] = SLo;
  }
}

export const lllCpu: CpuReducer = (B, Z, n, m, p) => {
  checkReducerInput(B, Z, n, m, p, 'lll');
  const stats = newStats();
  if (m >= 2) new SchnorrEuchner(B, Z, n, m, p, stats).run();
  return stats;
};

/**
 * lllCpu on a float64 basis that also returns the coefficient rows mu and R as the run left them:
 * what the WebAssembly kernel's tests compare, where one rounding apart in a row rarely shows in
 * the output basis.
 */
export function lllCpuRows(
  B: Float64Array,
  Z: Float64Array,
  n: number,
  m: number,
  p: AlgoParams,
): { stats: BasisStats; mu: Float64Array; R: Float64Array } {
  checkReducerInput(B, Z, n, m, p, 'lll');
  const stats = newStats();
  const se = new SchnorrEuchner(B, Z, n, m, p, stats);
  se.run();
  return { stats, ...se.rows() };
}
