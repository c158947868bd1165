/**
 * The ladder's float64 rung (fplll's fast path): Schnorr-Euchner LLL on an integer basis kept
 * exactly in float64, with a floating Gram-Schmidt from a lazily computed floating Gram matrix.
 * Only what the ladder needs: no transform (the ladder rebuilds Z exactly from B_in and B_out),
 * no verification pass (the certificate or the exact rung proves the result). Every column
 * operation is exact: b_k -= X b_j is done only when max|b_k| + |X| max|b_j| < 2^53 (bounds kept
 * per column), else it throws a PRECISION_FAILURE with details.boundBits = 53 before touching b_k, so the basis is
 * always an exact integer basis of the input lattice, even after a failure.
 *
 * Shapes: B is n x m column-major (column j = basis vector j), integers below 2^53 in magnitude.
 */
import { IterationLimitError, LatticeMimoError, RankDeficientError } from '../../core/index.js';
import { dotsByFours } from '../lll/columns.js';
import { WATCH_MASK, type RungStats } from './rung-stats.js';

const LIMIT = 2 ** 53;
/** Babai rounds per size reduction before giving up (fplll's "infinite loop in babai"). */
const MAX_BABAI = 64;

function failure(why: string, details: Record<string, unknown> = {}): LatticeMimoError {
  return new LatticeMimoError('PRECISION_FAILURE', `float64 lll: ${why}`, details);
}

/** LLL-reduces B in place (see the module comment); throws PRECISION_FAILURE, RANK_DEFICIENT or ITERATION_LIMIT. */
export function fastLLLFloat64(
  B: Float64Array,
  n: number,
  m: number,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
): void {
  if (m < 2) return;
  new Fast64(B, n, m, delta, eta, maxIterations, stats).run();
}

/**
 * The state of one run. A class rather than closures in the function: its methods keep their
 * optimized code from one call to the next (closures are new functions each call).
 */
class Fast64 {
  /** G by slot (NaN: unknown). */
  private readonly G: Float64Array;
  private readonly slot: Int32Array;
  /** mu and r row-major by position (r_kk on the diagonal). */
  private readonly mu: Float64Array;
  private readonly r: Float64Array;
  private readonly valid: Int32Array;
  private readonly bmax: Float64Array;
  private readonly S: Float64Array;
  private readonly pending: Int32Array;
  /** fetch's dot products (dotsByFours). */
  private readonly dots: Float64Array;
  private readonly xs: Float64Array;
  private readonly js: Int32Array;
  private readonly col: Float64Array;
  private readonly rowMu: Float64Array;
  private readonly rowR: Float64Array;
  private kMax = 0;

  constructor(
    private readonly B: Float64Array,
    private readonly n: number,
    private readonly m: number,
    private readonly delta: number,
    private readonly eta: number,
    private readonly maxIterations: number,
    private readonly stats: RungStats,
  ) {
    this.G = new Float64Array(m * m).fill(NaN);
    this.slot = new Int32Array(m);
    this.mu = new Float64Array(m * m);
    this.r = new Float64Array(m * m);
    this.valid = new Int32Array(m);
    this.bmax = new Float64Array(m);
    this.S = new Float64Array(m + 1);
    this.pending = new Int32Array(m + 1);
    this.dots = new Float64Array(m + 1);
    this.xs = new Float64Array(m);
    this.js = new Int32Array(m);
    this.col = new Float64Array(n);
    this.rowMu = new Float64Array(m);
    this.rowR = new Float64Array(m);
    for (let j = 0; j < m; j++) {
      this.slot[j] = j;
      let a = 0;
      for (let t = j * n; t < j * n + n; t++) {
        const v = Math.abs(B[t]!);
        if (v > a) a = v;
      }
      if (!(a < LIMIT)) throw failure('an entry is past 2^53', { boundBits: 53 });
      this.bmax[j] = a;
    }
  }

  /** G entries (k, j) for j in [from, k] that are unknown, four dot products per pass over b_k. */
  private fetch(k: number, from: number): void {
    const { G, slot, m, n, B, pending } = this;
    const gk = slot[k]! * m;
    let count = 0;
    for (let j = from; j <= k; j++) if (Number.isNaN(G[gk + slot[j]!])) pending[count++] = j;
    const ko = k * n,
      dots = this.dots;
    let c = dotsByFours(B, n, k, pending, count, dots);
    for (let i = 0; i < c; i++) this.set(k, pending[i]!, dots[i]!);
    for (; c < count; c++) {
      const j = pending[c]!,
        a = j * n;
      let s = 0;
      for (let t = 0; t < n; t++) s += B[ko + t]! * B[a + t]!;
      this.set(k, j, s);
    }
  }

  private set(i: number, j: number, v: number): void {
    const { G, slot, m } = this;
    G[slot[i]! * m + slot[j]!] = v;
    G[slot[j]! * m + slot[i]!] = v;
  }

  /** Row k of mu and r from its first invalid column up to k - 1 (rows below k complete). */
  private computeRow(k: number): void {
    const { G, slot, m, mu, r, valid } = this;
    const ko = k * m,
      gk = slot[k]! * m;
    let j = valid[k]!;
    this.fetch(k, j);
    for (; j < k; j++) {
      const jo = j * m;
      // four partial sums: the additions do not wait on each other
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0,
        i = 0;
      for (; i + 3 < j; i += 4) {
        s0 += mu[jo + i]! * r[ko + i]!;
        s1 += mu[jo + i + 1]! * r[ko + i + 1]!;
        s2 += mu[jo + i + 2]! * r[ko + i + 2]!;
        s3 += mu[jo + i + 3]! * r[ko + i + 3]!;
      }
      for (; i < j; i++) s0 += mu[jo + i]! * r[ko + i]!;
      const v = G[gk + slot[j]!]! - (s0 + s1 + (s2 + s3));
      r[ko + j] = v;
      mu[ko + j] = v / r[jo + j]!;
    }
    valid[k] = k;
  }

  /** Babai's nearest plane for b_k, repeated on a fresh row until a sweep changes nothing. */
  private sizeReduce(k: number): void {
    const { m, n, mu, bmax, xs, js, B, eta, stats, G, slot, valid } = this;
    const ko = k * m,
      bo = k * n;
    for (let round = 0; round < MAX_BABAI; round++) {
      this.computeRow(k);
      // the multipliers of one sweep, applied to b_k together at its end (one pass per four)
      let nx = 0;
      for (let j = k - 1; j >= 0; j--) {
        const x = mu[ko + j]!;
        if (!(Math.abs(x) > eta)) {
          if (Number.isNaN(x)) throw failure(`a Gram-Schmidt coefficient of vector ${k} is not finite`, { vector: k });
          continue;
        }
        const X = Math.round(x);
        const ax = Math.abs(X);
        if (!(bmax[k]! + ax * bmax[j]! < LIMIT))
          throw failure(`size reduction of vector ${k} would take an entry past 2^53`, { vector: k, boundBits: 53 });
        mu[ko + j] = x - X;
        const jo = j * m;
        for (let i = 0; i < j; i++) mu[ko + i] = mu[ko + i]! - X * mu[jo + i]!;
        bmax[k] = bmax[k]! + ax * bmax[j]!;
        xs[nx] = X;
        js[nx++] = j;
        stats.sizeReductions++;
      }
      if (nx === 0) return;
      // every partial sum is bounded by the running bmax[k] checked above: exact integers
      let c = 0;
      for (; c + 3 < nx; c += 4) {
        const X0 = xs[c]!,
          X1 = xs[c + 1]!,
          X2 = xs[c + 2]!,
          X3 = xs[c + 3]!;
        const a0 = js[c]! * n,
          a1 = js[c + 1]! * n,
          a2 = js[c + 2]! * n,
          a3 = js[c + 3]! * n;
        for (let t = 0; t < n; t++)
          B[bo + t] = B[bo + t]! - X0 * B[a0 + t]! - X1 * B[a1 + t]! - X2 * B[a2 + t]! - X3 * B[a3 + t]!;
      }
      for (; c + 1 < nx; c += 2) {
        const X0 = xs[c]!,
          X1 = xs[c + 1]!,
          a0 = js[c]! * n,
          a1 = js[c + 1]! * n;
        for (let t = 0; t < n; t++) B[bo + t] = B[bo + t]! - X0 * B[a0 + t]! - X1 * B[a1 + t]!;
      }
      if (c < nx) {
        const X0 = xs[c]!,
          a0 = js[c]! * n;
        for (let t = 0; t < n; t++) B[bo + t] = B[bo + t]! - X0 * B[a0 + t]!;
      }
      // b_k changed: its bound, its Gram row and column, and every row from column k on
      let a = 0;
      for (let t = bo; t < bo + n; t++) {
        const v = Math.abs(B[t]!);
        if (v > a) a = v;
      }
      if (a === 0)
        throw new RankDeficientError(
          'RANK_DEFICIENT',
          `float64 lll: vector ${k} became zero (the input is dependent)`,
          { vector: k },
        );
      bmax[k] = a;
      const s = slot[k]!;
      G.fill(NaN, s * m, s * m + m);
      for (let t = 0; t < m; t++) G[t * m + s] = NaN;
      valid[k] = 0;
      for (let i = k + 1; i <= this.kMax; i++) if (valid[i]! > k) valid[i] = k;
    }
    throw failure(`size reduction of vector ${k} did not settle within ${MAX_BABAI} rounds`, { vector: k });
  }

  run(): void {
    const { G, slot, m, n, mu, r, valid, bmax, S, B, col, rowMu, rowR, delta, stats, maxIterations } = this;
    this.fetch(0, 0);
    r[0] = G[slot[0]! * m + slot[0]!]!;
    if (!(r[0]! > 0)) throw new RankDeficientError('ZERO_VECTOR', 'float64 lll: vector 0 is zero', { vector: 0 });
    let k = 1;
    while (k < m) {
      if (stats.iterations++ >= maxIterations)
        throw new IterationLimitError(`float64 lll: more than ${maxIterations} main-loop steps`, { maxIterations });
      if ((stats.iterations & WATCH_MASK) === 0) stats.watch?.(k);
      if (k > this.kMax) this.kMax = k;
      this.sizeReduce(k);
      // projections of b_k from the top (fplll): S_0 = ||b_k||^2, S_i = S_{i-1} - mu_{k,i-1} r_{k,i-1}
      const ko = k * m;
      let s = G[slot[k]! * m + slot[k]!]!;
      S[0] = s;
      for (let i = 1; i <= k; i++) {
        s -= mu[ko + i - 1]! * r[ko + i - 1]!;
        S[i] = s;
      }
      r[ko + k] = S[k]!;
      if (delta * r[(k - 1) * m + k - 1]! <= S[k - 1]!) {
        k++;
        continue;
      }
      let i = k - 1;
      while (i > 0 && delta * r[(i - 1) * m + i - 1]! > S[i - 1]!) i--;
      if (!(S[i]! > 0)) throw failure(`the projection of vector ${k} vanished numerically`, { vector: k });
      // b_k moves to position i; rows i..k-1 move up one, keeping their first i coefficients
      for (let t = 0; t < i; t++) {
        rowMu[t] = mu[ko + t]!;
        rowR[t] = r[ko + t]!;
      }
      for (let t = k - 1; t >= i; t--) {
        const len = Math.min(valid[t]!, i),
          src = t * m,
          dst = src + m;
        for (let q = 0; q < len; q++) {
          mu[dst + q] = mu[src + q]!;
          r[dst + q] = r[src + q]!;
        }
        valid[t + 1] = len;
      }
      const io = i * m;
      for (let t = 0; t < i; t++) {
        mu[io + t] = rowMu[t]!;
        r[io + t] = rowR[t]!;
      }
      r[io + i] = S[i]!;
      valid[i] = i;
      for (let t = k + 1; t <= this.kMax; t++) if (valid[t]! > i) valid[t] = i;
      const sk = slot[k]!,
        bk = bmax[k]!;
      for (let t = k; t > i; t--) {
        slot[t] = slot[t - 1]!;
        bmax[t] = bmax[t - 1]!;
      }
      slot[i] = sk;
      bmax[i] = bk;
      // b_k to position i without a view object: the columns in between move up one
      const ko2 = k * n;
      for (let t = 0; t < n; t++) col[t] = B[ko2 + t]!;
      B.copyWithin((i + 1) * n, i * n, k * n);
      const io2 = i * n;
      for (let t = 0; t < n; t++) B[io2 + t] = col[t]!;
      stats.swaps += k - i;
      k = i + 1;
    }
  }
}
