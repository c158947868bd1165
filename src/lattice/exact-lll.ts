/**
 * The LLL conditions proven in exact integer arithmetic for an integer basis, where the float64
 * re-check (check.ts: checkLLL) and fpylll's LLL.is_reduced can only say "within rounding": a basis
 * whose Lovasz condition holds with equality (slack exactly 0) is reduced, and a float check may
 * land on either side of 0.
 *
 * The integral Gram-Schmidt of Cohen's Algorithm 2.6.7: d_0 = 1, d_{i+1} = det of the Gram matrix
 * of b_0..b_i (d_{i+1} / d_i = ||b*_i||^2), lambda_ij = d_{j+1} mu_ij, all integers, every division
 * exact. With delta and eta the doubles they are (dyadic fractions):
 *   size:   |mu_ij| <= eta                      <=>  |lambda_ij| eta_den <= eta_num d_{j+1}
 *   Lovasz: ||b*_k||^2 >= (delta - mu^2) ||b*_{k-1}||^2
 *                                               <=>  delta_den (d_{k+1} d_{k-1} + lambda^2) >= delta_num d_k^2
 */
import { checkArray, checkParam, checkSizes } from './check-args.js';
import { InvalidArgumentError } from '../core/index.js';

/** The LLL conditions of an integer basis, proven in exact rational arithmetic (checkLLLExact). */
export interface ExactLLLCheck {
  /** Every condition holds exactly and the columns are independent. */
  ok: boolean;
  /** First violations found, as text (at most 5). */
  violations: string[];
}

/** A finite double as num / den exactly (den a power of two). */
function exactFraction(x: number): { num: bigint; den: bigint } {
  let v = x,
    k = 0;
  while (!Number.isInteger(v)) {
    v *= 2;
    k++;
  } // doubling is exact below the overflow
  return { num: BigInt(v), den: 1n << BigInt(k) };
}

/**
 * Whether the integer basis B (n x m, column-major) is LLL-reduced with (delta, eta), proven in
 * integers. Dependent columns are a violation. Throws InvalidArgumentError for entries that are
 * not integers within 2^53 or parameters that are not finite.
 */
export function checkLLLExact(B: ArrayLike<number>, n: number, m: number, delta: number, eta: number): ExactLLLCheck {
  const call = 'checkLLLExact()';
  checkSizes(call, n, m);
  checkArray(call, 'B', B, n * m, 'n x m');
  checkParam(call, 'delta', delta, 0, 1, true);
  checkParam(call, 'eta', eta, 0, 1);
  for (let i = 0; i < n * m; i++) {
    if (!Number.isSafeInteger(B[i]!))
      throw new InvalidArgumentError(`checkLLLExact: entry ${i} (${B[i]}) is not an integer within 2^53`);
  }
  const col = (j: number): bigint[] => Array.from({ length: n }, (_, t) => BigInt(B[j * n + t]!));
  const cols = Array.from({ length: m }, (_, j) => col(j));
  const dot = (a: bigint[], b: bigint[]): bigint => a.reduce((s, x, t) => s + x * b[t]!, 0n);
  const d: bigint[] = [1n];
  const lambda: bigint[][] = [];
  const violations: string[] = [];
  const note = (text: string) => {
    if (violations.length < 5) violations.push(text);
  };
  const e = exactFraction(eta),
    dl = exactFraction(delta);
  for (let i = 0; i < m; i++) {
    lambda.push([]);
    for (let j = 0; j <= i; j++) {
      let u = dot(cols[i]!, cols[j]!);
      for (let l = 0; l < j; l++) u = (d[l + 1]! * u - lambda[i]![l]! * lambda[j]![l]!) / d[l]!;
      if (j < i) lambda[i]!.push(u);
      else d.push(u);
    }
    if (d[i + 1]! === 0n) {
      note(`b_${i} depends on the columns before it (Gram determinant 0)`);
      return { ok: false, violations }; // the d's that follow would divide by 0
    }
  }
  for (let i = 1; i < m; i++) {
    for (let j = 0; j < i; j++) {
      const l = lambda[i]![j]!;
      if ((l < 0n ? -l : l) * e.den > e.num * d[j + 1]!)
        note(`|mu_${i},${j}| = ${Number(l) / Number(d[j + 1]!)} > eta = ${eta}`);
    }
    const l = lambda[i]![i - 1]!;
    if (dl.den * (d[i + 1]! * d[i - 1]! + l * l) < dl.num * d[i]! * d[i]!) note(`Lovasz fails at k = ${i}`);
  }
  return { ok: violations.length === 0, violations };
}
