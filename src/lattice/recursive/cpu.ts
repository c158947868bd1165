/**
 * The recursive reduction as reduce()'s CPU reducer. An integral float64 basis is reduced by
 * iterated compression (iterate.ts, exact BigInt arithmetic; its first vectors shortened at the
 * defaults of first-block.ts: BKZ tours on a prefix, the first block's shortest vector), then finished by the sequential LLL
 * at (delta, eta) in float64 (its transform tracked), whose output reduce() proves as it proves
 * every LLL output; a basis that is not integral, or float32, has no exact integer lattice to
 * compress, and is reduced by the recursion's leaf alone, the sequential LLL. (recursiveReduce()
 * takes integers of any size and finishes on the precision ladder instead.)
 *
 * Shapes: B is n x m column-major (column j = basis vector j), Z is m x m column-major, the
 * identity on entry, B_in Z = B on return; a Z entry past 2^53 leaves Z marked lost (NaN) and
 * reduce() rebuilds it exactly from B_in and B (its wideTransforms).
 */
import { isIntegral } from '../check.js';
import { lllCpu } from '../lll/cpu.js';
import { checkReducerInput } from '../lll/gso.js';
import { applyTransformBig, type BigBasis } from '../precision/exact.js';
import type { CpuReducer } from '../types.js';
import { shortenFirst } from './first-block.js';
import { finishMargin, INNER_DELTA, LEAF_BITS, reduceLevel, type IterateParams, type IterateStats } from './iterate.js';
import { BKZ_BLOCK, BKZ_TOURS, SVP_BLOCK, SVP_NODES } from './options.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export const recursiveCpu: CpuReducer = (B, Z, n, m, p) => {
  checkReducerInput(B, Z, n, m, p, 'recursive');
  if (!(B instanceof Float64Array) || m < 2 || !isIntegral(B)) return lllCpu(B, Z, n, m, p);
  const Bb: BigBasis = Array.from({ length: m }, (_, j) =>
    Array.from(B.subarray(j * n, (j + 1) * n), (v) => BigInt(v)),
  );
  const U: BigBasis = Array.from({ length: m }, (_, j) => Array.from({ length: m }, (_, i) => (i === j ? 1n : 0n)));
  const stats: IterateStats = { rounds: 0, leaves: 0, swaps: 0, factorisations: 0, depth: 0, workerBlocks: 0 };
  const level: IterateParams = {
    // a little above delta: the finish then has next to nothing to swap
    delta: finishMargin(p.delta),
    innerDelta: Math.min(p.delta, INNER_DELTA),
    eta: p.eta,
    guard: 20,
    leafBits: LEAF_BITS,
    maxRounds: Math.min(p.maxIterations, 64 * m + 1000),
    finished: true,
    stats,
  };
  reduceLevel(Bb, U, level);
  // a shorter first vector (first-block.ts: BKZ tours on a prefix, the first block's shortest
  // vector), the basis reduced again
  const short = shortenFirst(Bb, U, {
    svpBlock: SVP_BLOCK,
    svpNodes: SVP_NODES,
    bkzBlock: BKZ_BLOCK,
    bkzTours: BKZ_TOURS,
    delta: p.delta,
  });
  if (short.changed) reduceLevel(Bb, U, level);
  for (let j = 0; j < m; j++) for (let t = 0; t < n; t++) B[j * n + t] = Number(Bb[j]![t]!);
  // the finish: LLL at (delta, eta) from the compressed reduction's output (exact: its entries
  // are no larger than the input's, and lllCpu keeps integer bases exact below 2^53)
  const Zf = new Float64Array(m * m);
  for (let j = 0; j < m; j++) Zf[j * m + j] = 1;
  const fin = lllCpu(B, Zf, n, m, p);
  const lost = Zf.some((v) => !Number.isFinite(v));
  const total = lost
    ? null
    : applyTransformBig(
        U,
        Array.from({ length: m }, (_, j) => Array.from(Zf.subarray(j * m, (j + 1) * m), (v) => BigInt(v))),
      );
  const wide = !total || total.some((c) => c.some((v) => v > SAFE || v < -SAFE));
  for (let j = 0; j < m; j++) for (let i = 0; i < m; i++) Z[j * m + i] = wide ? Number.NaN : Number(total![j]![i]!);
  return {
    iterations: stats.rounds + fin.iterations,
    swaps: stats.swaps + fin.swaps,
    sizeReductions: fin.sizeReductions,
  };
};
