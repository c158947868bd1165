/**
 * MB-LLL's bookkeeping of the full GS-coefficient matrix U (m x m row-major, mu_{i,j} at i*m + j,
 * j < i), which CR-MB-LLL drops: the GS-coefficient update after a sub-basis reduction, size
 * reduction with U (condition (1)), and the boundary step with Procedure 3 (Swap).
 */
import type { RealArray } from '../../core/index.js';
import type { BasisStats } from '../types.js';
import { dotCols, reduceColumn, swapColumns } from '../lll/columns.js';
import { bstarDrifted, simpleSwapBstar, type PairState } from '../allswap/phases.js';

/**
 * GS-coefficient update: mu_{i,j} = <b_i, b*_j> / r_j for every i > j where column i or column j
 * lies in a block marked in `stale` (blocks of `size` columns). B and B* are only read, so rows
 * can be computed in parallel. r must hold ||b*_j||^2 for all j.
 */
export function updateCoefficients(
  s: PairState,
  r: RealArray,
  U: RealArray,
  stale: readonly boolean[],
  size: number,
): void {
  const { B, Bs, n, m } = s;
  for (let i = 1; i < m; i++) {
    const rowStale = stale[Math.floor(i / size)]!;
    for (let j = 0; j < i; j++) {
      if (rowStale || stale[Math.floor(j / size)]) U[i * m + j] = dotCols(B, i * n, Bs, j * n, n) / r[j]!;
    }
  }
}

/**
 * Size reduction with U (condition (1)) of columns k in [kLo, kHi) against columns j in [jLo, k):
 * b_k -= round(mu_{k,j}) b_j for j from k-1 down where |mu_{k,j}| > bound, with row k of U
 * updated (mu_{k,i} -= X mu_{j,i}, i < j, over the whole row so that U stays valid). k descends,
 * so each row only reads rows that are still unreduced (the column-parallel semantics).
 * Returns the number of column operations.
 */
export function sizeReduceWithU(s: PairState, U: RealArray, kLo: number, kHi: number, jLo: number): number {
  const { B, Z, n, m, bound } = s;
  let count = 0;
  for (let k = kHi - 1; k >= kLo && k > jLo; k--) {
    const ko = k * m;
    for (let j = k - 1; j >= jLo; j--) {
      const x = U[ko + j]!;
      if (!(Math.abs(x) > bound)) continue;
      const X = Math.round(x);
      const big = reduceColumn(B, Z, n, m, k, j, X);
      if (big > s.zPeak) s.zPeak = big;
      U[ko + j] = x - X;
      const jo = j * m;
      for (let i = 0; i < j; i++) U[ko + i] = U[ko + i]! - X * U[jo + i]!;
      count++;
    }
  }
  return count;
}

/**
 * MB-LLL's boundary check on the pair (k-1, k): mu_{k,k-1} from dot products (as the kernel does),
 * SimpleSizeReduce with row k of U updated, Lovasz test, and on failure Swap (Procedure 3):
 * SimpleSwap, rows k-1 and k of U exchanged (columns j < k-1), and for every later row i
 *   mu_{i,k-1} <- mu_{i,k-1} mu' + mu_{i,k} ||b*_k||^2 / ||b*'_{k-1}||^2,
 *   mu_{i,k}   <- mu_{i,k-1} - mu_{i,k} mu            (mu, mu' the old and new mu_{k,k-1}).
 * True on a swap.
 */
export function boundaryStepWithU(s: PairState, U: RealArray, k: number, stats: BasisStats): boolean {
  const { B, Bs, Z, n, m } = s;
  const a = (k - 1) * n,
    b = k * n;
  const ko = k * m,
    po = (k - 1) * m;
  const r1 = dotCols(Bs, a, Bs, a, n);
  const rk = dotCols(Bs, b, Bs, b, n); // the size reduction below does not change b*_k
  if (s.watch && bstarDrifted(s, k, r1, rk)) {
    // the drift watch (phases.ts)
    s.drift = true;
    return false;
  }
  U[ko + k - 1] = dotCols(B, b, Bs, a, n) / r1;
  let mu = U[ko + k - 1]!;
  if (Math.abs(mu) > s.bound) {
    const X = Math.round(mu);
    const big = reduceColumn(B, Z, n, m, k, k - 1, X);
    if (big > s.zPeak) s.zPeak = big;
    for (let i = 0; i < k - 1; i++) U[ko + i] = U[ko + i]! - X * U[po + i]!;
    U[ko + k - 1] = mu - X;
    mu = U[ko + k - 1]!;
    stats.sizeReductions++;
  }
  if (!(rk < (s.delta - mu * mu) * r1)) return false;
  swapColumns(B, Z, n, m, k, k - 1);
  const muNew = simpleSwapBstar(Bs, a, b, n, mu, r1, rk);
  s.watch = s.watchDrift;
  for (let j = 0; j < k - 1; j++) {
    const t = U[ko + j]!;
    U[ko + j] = U[po + j]!;
    U[po + j] = t;
  }
  U[ko + k - 1] = muNew;
  const ratio = rk / (rk + mu * mu * r1);
  for (let i = k + 1; i < m; i++) {
    const io = i * m;
    const x = U[io + k - 1]!,
      y = U[io + k]!;
    U[io + k - 1] = x * muNew + y * ratio;
    U[io + k] = x - y * mu;
  }
  stats.swaps++;
  return true;
}
