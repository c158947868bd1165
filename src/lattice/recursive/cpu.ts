/**
 * The recursive reduction as reduce()'s CPU reducer. An integral float64 basis is reduced by
 * iterated compression with the LLL finish at (delta, eta) (integral.ts, exact BigInt arithmetic);
 * a basis that is not integral, or float32, has no exact integer lattice to compress, and is reduced
 * by the recursion's leaf, the sequential LLL.
 *
 * Shapes: B is n x m column-major (column j = basis vector j), Z is m x m column-major, the
 * identity on entry, B_in Z = B on return; a Z entry past 2^53 leaves Z marked lost (NaN) and
 * reduce() rebuilds it exactly from B_in and B (its wideTransforms).
 */
import { isIntegral } from '../check.js';
import { lllCpu } from '../lll/cpu.js';
import { checkReducerInput } from '../lll/gso.js';
import type { CpuReducer } from '../types.js';
import { recursiveReduce } from './integral.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export const recursiveCpu: CpuReducer = (B, Z, n, m, p) => {
  checkReducerInput(B, Z, n, m, p, 'recursive');
  if (!(B instanceof Float64Array) || m < 2 || !isIntegral(B)) return lllCpu(B, Z, n, m, p);
  const rows = Array.from({ length: m }, (_, j) => Array.from(B.subarray(j * n, (j + 1) * n), (v) => BigInt(v)));
  const r = recursiveReduce(rows, {
    delta: p.delta,
    eta: p.eta,
    maxRounds: Math.max(1, Math.min(p.maxIterations, 64 * m + 1000)),
  });
  for (let j = 0; j < m; j++) for (let t = 0; t < n; t++) B[j * n + t] = Number(r.basis[j]![t]!);
  const wide = r.transform.some((c) => c.some((v) => v > SAFE || v < -SAFE));
  for (let j = 0; j < m; j++)
    for (let i = 0; i < m; i++) Z[j * m + i] = wide ? Number.NaN : Number(r.transform[j]![i]!);
  return { iterations: r.stats.rounds, swaps: r.stats.swaps + r.stats.finishSwaps, sizeReductions: 0 };
};
