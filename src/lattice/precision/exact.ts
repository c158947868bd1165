/**
 * Exact integer LLL on BigInt bases: the last rung of the precision ladder, and the exact proof.
 *
 * Cohen's integral LLL (A Course in Computational Algebraic Number Theory, Alg. 2.6.7): d_0 = 1,
 * d_{i+1} = det of the Gram matrix of b_0..b_i (so ||b*_i||^2 = d_{i+1} / d_i) and
 * lambda_ij = d_{j+1} mu_ij are integers, every division is exact, and no rounding ever happens:
 * it cannot fail for precision, only be slow. With delta and eta the doubles they are (dyadic
 * fractions num / den):
 *   size:   |mu_ij| <= eta   <=>  |lambda_ij| eta_den <= eta_num d_{j+1}
 *   Lovasz: den (d_{k+1} d_{k-1} + lambda_{k,k-1}^2) >= num d_k^2
 * Shapes: a basis is m columns (basis vectors) of n BigInts; Z is m columns of m BigInts with
 * B_out = B_in Z (column j of B_out = sum_i Z[j][i] b_i).
 */
import { InvalidArgumentError, InvalidInputError, IterationLimitError, RankDeficientError } from '../../core/index.js';
import { WATCH_MASK, type RungStats } from './rung-stats.js';

export type BigBasis = bigint[][];

/**
 * A basis given as rows of integers (BigInt, or numbers within 2^53 - 1) as a BigBasis, m <= n
 * vectors of n entries each; typed errors: an empty or ragged basis, m > n, an entry that is not
 * an integer (InvalidInputError), a zero vector (RankDeficientError ZERO_VECTOR).
 */
export function readBigBasis(rows: readonly (readonly (bigint | number)[])[]): BigBasis {
  if (!Array.isArray(rows) || rows.length === 0 || !Array.isArray(rows[0]) || rows[0].length === 0)
    throw new InvalidInputError('INVALID_INPUT', 'the basis must be a non-empty array of non-empty rows');
  const m = rows.length,
    n = rows[0].length;
  if (m > n)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `a basis has m = ${m} vectors in dimension n = ${n}: m vectors in R^n are dependent when m > n`,
    );
  const B = rows.map((r, i) => {
    if (!Array.isArray(r) || r.length !== n)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `ragged rows: row ${i} has ${Array.isArray(r) ? r.length : 'no'} entries but row 0 has ${n}`,
      );
    return r.map((v, j) => {
      if (typeof v === 'bigint') return v;
      if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
      throw new InvalidInputError(
        'INVALID_INPUT',
        `entry (row ${i}, column ${j}) is ${String(v)}: expected an integer (a BigInt, or a number within 2^53 - 1)`,
      );
    });
  });
  B.forEach((c, j) => {
    if (c.every((v) => v === 0n))
      throw new RankDeficientError('ZERO_VECTOR', `basis vector ${j} is zero`, { vector: j });
  });
  return B;
}

/** A finite double as num / den exactly (den a power of two). */
export function dyadic(x: number): { num: bigint; den: bigint } {
  if (!Number.isFinite(x)) throw new InvalidArgumentError(`expected a finite number, got ${x}`);
  let v = x,
    k = 0;
  while (!Number.isInteger(v)) {
    v *= 2;
    k++;
  }
  return { num: BigInt(v), den: 1n << BigInt(k) };
}

export function dotBig(a: readonly bigint[], b: readonly bigint[]): bigint {
  let s = 0n;
  for (let t = 0; t < a.length; t++) s += a[t]! * b[t]!;
  return s;
}

/** Nearest integer to a / d (d > 0), ties up. */
export function roundDiv(a: bigint, d: bigint): bigint {
  const num = 2n * a + d,
    den = 2n * d;
  const q = num / den;
  return num < 0n && q * den !== num ? q - 1n : q;
}

/**
 * Integral Gram-Schmidt (d, lambda) of the columns; null at the first dependent column. `onRow(i)`
 * as row i starts (rows 0 .. i-1 done): on a few hundred columns of large entries this takes minutes.
 */
export function integralGramSchmidt(
  cols: BigBasis,
  onRow?: (i: number) => void,
): { d: bigint[]; lambda: bigint[][] } | { dependent: number } {
  const m = cols.length;
  const d: bigint[] = [1n];
  const lambda: bigint[][] = [];
  for (let i = 0; i < m; i++) {
    onRow?.(i);
    lambda.push(new Array<bigint>(m).fill(0n));
    for (let j = 0; j <= i; j++) {
      let u = dotBig(cols[i]!, cols[j]!);
      for (let l = 0; l < j; l++) u = (d[l + 1]! * u - lambda[i]![l]! * lambda[j]![l]!) / d[l]!;
      if (j < i) lambda[i]![j] = u;
      else d.push(u);
    }
    if (d[i + 1]! === 0n) return { dependent: i };
  }
  return { d, lambda };
}

export interface ExactCheck {
  ok: boolean;
  violations: string[];
}

/** Whether the BigInt basis is LLL-reduced with (delta, eta), proven in integers (dependence is a violation). */
export function checkLLLExactBig(cols: BigBasis, delta: number, eta: number): ExactCheck {
  const gs = integralGramSchmidt(cols);
  if ('dependent' in gs)
    return { ok: false, violations: [`b_${gs.dependent} depends on the vectors before it (Gram determinant 0)`] };
  const { d, lambda } = gs;
  const e = dyadic(eta),
    dl = dyadic(delta);
  const violations: string[] = [];
  const note = (t: string) => {
    if (violations.length < 5) violations.push(t);
  };
  for (let i = 1; i < cols.length; i++) {
    for (let j = 0; j < i; j++) {
      const l = lambda[i]![j]!;
      if ((l < 0n ? -l : l) * e.den > e.num * d[j + 1]!) note(`|mu_${i},${j}| > eta = ${eta}`);
    }
    const l = lambda[i]![i - 1]!;
    if (dl.den * (d[i + 1]! * d[i - 1]! + l * l) < dl.num * d[i]! * d[i]!) note(`Lovasz fails at k = ${i}`);
  }
  return { ok: violations.length === 0, violations };
}

/** The bit length of B's largest entry in magnitude (1 for an all-zero basis). */
export function maxBits(B: BigBasis): number {
  let big = 0n;
  for (const c of B)
    for (const v of c) {
      const a = v < 0n ? -v : v;
      if (a > big) big = a;
    }
  return big.toString(2).length;
}

/** B_in Z (columns), exactly. */
export function applyTransformBig(Bin: BigBasis, Z: BigBasis): BigBasis {
  const n = Bin[0]!.length;
  // the nonzero coordinates of each input vector (sparse bases: knapsack, q-ary)
  const nz = Bin.map((b) => {
    const ts: number[] = [];
    for (let t = 0; t < n; t++) if (b[t] !== 0n) ts.push(t);
    return ts;
  });
  return Z.map((z) => {
    const out = new Array<bigint>(n).fill(0n);
    z.forEach((c, i) => {
      if (c !== 0n) {
        const b = Bin[i]!;
        for (const t of nz[i]!) out[t] = out[t]! + c * b[t]!;
      }
    });
    return out;
  });
}

/** det of an integer matrix (columns) by fraction-free Bareiss elimination. */
export function determinantBig(M: BigBasis): bigint {
  const m = M.length;
  const A = M.map((c) => c.slice());
  let sign = 1n,
    prev = 1n;
  for (let k = 0; k < m; k++) {
    let p = k;
    while (p < m && A[k]![p] === 0n) p++;
    if (p === m) return 0n;
    if (p !== k) {
      for (const c of A) {
        const t = c[k]!;
        c[k] = c[p]!;
        c[p] = t;
      }
      sign = -sign;
    }
    for (let i = k + 1; i < m; i++) {
      for (let j = k + 1; j < m; j++) A[j]![i] = (A[j]![i]! * A[k]![k]! - A[j]![k]! * A[k]![i]!) / prev;
    }
    prev = A[k]![k]!;
  }
  return sign * A[m - 1]![m - 1]!;
}

/**
 * Cohen's integral LLL in place on B (and Z, same column operations), from any basis (in the
 * ladder, the output of a floating rung, so that little work is left). Throws RankDeficientError
 * for dependent columns; bounded by maxIterations.
 */
export function exactLLL(
  B: BigBasis,
  Z: BigBasis,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
): void {
  const m = B.length;
  if (m < 2) return;
  // the Gram-Schmidt's rows count as positions for the progress watch (its rows take minutes at 300 dimensions)
  const gs = integralGramSchmidt(B, stats.watch);
  if ('dependent' in gs)
    throw new RankDeficientError(
      'RANK_DEFICIENT',
      `basis vector ${gs.dependent} is linearly dependent on the vectors before it (confirmed exactly)`,
      { vector: gs.dependent },
    );
  const { d, lambda } = gs;
  const e = dyadic(eta),
    dl = dyadic(delta);
  const red = (k: number, l: number): void => {
    const lam = lambda[k]![l]!,
      dd = d[l + 1]!;
    if ((lam < 0n ? -lam : lam) * e.den <= e.num * dd) return;
    const q = roundDiv(lam, dd);
    const bk = B[k]!,
      bl = B[l]!;
    for (let t = 0; t < bk.length; t++) bk[t] = bk[t]! - q * bl[t]!;
    const zk = Z[k]!,
      zl = Z[l]!;
    for (let t = 0; t < zk.length; t++) zk[t] = zk[t]! - q * zl[t]!;
    lambda[k]![l] = lam - q * dd;
    const lk = lambda[k]!,
      ll = lambda[l]!;
    for (let i = 0; i < l; i++) lk[i] = lk[i]! - q * ll[i]!;
    stats.sizeReductions++;
  };
  let k = 1;
  while (k < m) {
    if (stats.iterations++ >= maxIterations) {
      throw new IterationLimitError(`exact lll: more than ${maxIterations} main-loop steps`, { maxIterations });
    }
    if ((stats.iterations & WATCH_MASK) === 0) stats.watch?.(k);
    red(k, k - 1);
    const lam = lambda[k]![k - 1]!;
    if (dl.den * (d[k + 1]! * d[k - 1]! + lam * lam) < dl.num * d[k]! * d[k]!) {
      // swap b_{k-1}, b_k (Cohen's SWAPI, 0-based)
      [B[k], B[k - 1]] = [B[k - 1]!, B[k]!];
      [Z[k], Z[k - 1]] = [Z[k - 1]!, Z[k]!];
      for (let j = 0; j < k - 1; j++) {
        const t = lambda[k]![j]!;
        lambda[k]![j] = lambda[k - 1]![j]!;
        lambda[k - 1]![j] = t;
      }
      const nb = (d[k - 1]! * d[k + 1]! + lam * lam) / d[k]!;
      for (let i = k + 1; i < m; i++) {
        const li = lambda[i]!,
          t = li[k]!;
        li[k] = (d[k + 1]! * li[k - 1]! - lam * t) / d[k]!;
        li[k - 1] = (nb * t + lam * li[k]!) / d[k + 1]!;
      }
      d[k] = nb;
      stats.swaps++;
      if (k > 1) k--;
    } else {
      for (let l = k - 2; l >= 0; l--) red(k, l);
      k++;
    }
  }
}
