/**
 * Inputs shared by the tests of the whole-device kernel (allswap/grid-kernel.cu) in its all-swap and
 * block modes: fresh random bases of both families, and knapsack-like bases that need swaps and
 * size reductions.
 */
import type { RealArray } from '../../src/core/matrix.js';
import type { Philox } from '../../src/core/rng.js';
import { blockToeplitzBases, gaussianBases } from '../../src/lattice/generators.js';

export interface GridCase {
  family: string;
  data: RealArray;
  batch: number;
  n: number;
  m: number;
}

/**
 * Gaussian bases with m = 2..300 (batches of 1 to 3, a few columns fewer than rows), optionally one
 * with 1281 to 1980 rows, and two block-Toeplitz batches of 2.
 */
export function gridCases(
  rng: Philox,
  seed: number,
  precision: 'float32' | 'float64',
  longColumns: boolean,
): GridCase[] {
  const cases: GridCase[] = [];
  for (const n of [2 + rng.int(3), 5 + rng.int(30), 64 + rng.int(80), 150 + rng.int(150)]) {
    const m = n - rng.int(Math.min(3, n - 1));
    const batch = 1 + rng.int(3);
    cases.push({
      family: 'gaussian',
      data: gaussianBases({ batch, n, m, seed: seed + n, precision }).data,
      batch,
      n,
      m,
    });
  }
  if (longColumns) {
    // past 1280 rows: larger register panels, the size reduction partly spilled
    const n = 1281 + rng.int(700),
      m = 100 + rng.int(60);
    cases.push({
      family: 'gaussian (long columns)',
      data: gaussianBases({ batch: 1, n, m, seed: seed + n, precision }).data,
      batch: 1,
      n,
      m,
    });
  }
  for (const blocks of [8 + rng.int(20), 60 + rng.int(70)]) {
    const t = blockToeplitzBases({
      batch: 2,
      blocks,
      blockSize: 1,
      complex: true,
      taps: 1 + rng.int(3),
      shape: 'full',
      seed: seed + blocks,
      precision,
    });
    cases.push({ family: `block-toeplitz(${blocks})`, data: t.data, batch: 2, n: t.rows, m: t.cols });
  }
  return cases;
}

/** A knapsack-like integer basis, (m + 1) x m: random first row below 2^20 under an identity. */
export function knapsackBasis(rng: Philox, m: number): { B: Float64Array; n: number } {
  const n = m + 1;
  const B = new Float64Array(n * m);
  for (let j = 0; j < m; j++) {
    B[j * n] = rng.int(1 << 20);
    B[j * n + j + 1] = 1;
  }
  return { B, n };
}
