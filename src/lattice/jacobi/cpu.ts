/**
 * Serial cyclic-by-row Jacobi lattice reduction (Jeremic and Qiao, Algorithm 2, after Qiao 2012).
 *
 * Works on the Gram matrix G = B^T B and the transform Z. A sweep visits the pairs (i, j), i < j, row
 * by row, and applies one step of Lagrange's algorithm (Algorithm 1) to each:
 *
 *     if |G(i,j)| > G(i,i)/2:   r = round(G(i,j) / G(i,i))        (halves away from zero; the 1/2
 *                                                                 carries a 2^-40 slack: arith.ts)
 *                               G(:,j) -= r G(:,i);  G(j,:) -= r G(i,:);  Z(:,j) -= r Z(:,i)
 *     if G(i,i) > G(j,j):       swap columns i, j of G and Z and rows i, j of G
 *
 * Sweeps repeat until one changes nothing (see driver.ts for the stopping rule, the final B = B_in Z,
 * the check on a recomputed Gram matrix, and the drift test that cuts a sweep short when a
 * reduction cancels most of a norm, or one would overflow Z). At that point every pair satisfies condition (1):
 * |b_i.b_j| <= ||b_i||^2 / 2 with ||b_i|| <= ||b_j||.
 *
 * One correction to the paper's text: it writes q = G(i,j)/G(j,j) but subtracts q times column i
 * from column j. Lagrange's step divides by the norm of the vector whose multiple is subtracted,
 * G(i,i); with G(j,j) the loop can stop at a pair that is not reduced (G = [1 0.9; 0.9 4] gives
 * q = 0.225: no step, no swap, yet |G(1,2)| = 0.9 > G(1,1)/2). Testing |G(i,j)| against G(i,i)/2
 * directly avoids a rounded quotient; with strict inequalities and the slack, ties never cycle.
 */
import type { RealArray } from '../../core/index.js';
import type { CpuReducer } from '../types.js';
import { reductionLimit, roundHalfAway, transformUpdateFits } from './arith.js';
import { runJacobi, type JacobiState, type JacobiSweeper, type SweepOutcome } from './driver.js';

/** b_j -= r b_i on G (column j, then row j) and Z (column j), in the working precision of G. */
function reducePair(G: RealArray, Z: Float64Array, m: number, i: number, j: number, r: number): void {
  const ci = i * m,
    cj = j * m;
  if (G instanceof Float32Array) {
    for (let t = 0; t < m; t++) G[cj + t]! -= Math.fround(r * G[ci + t]!);
    for (let t = 0; t < m; t++) G[j + t * m]! -= Math.fround(r * G[i + t * m]!);
  } else {
    for (let t = 0; t < m; t++) G[cj + t]! -= r * G[ci + t]!;
    for (let t = 0; t < m; t++) G[j + t * m]! -= r * G[i + t * m]!;
  }
  for (let t = 0; t < m; t++) Z[cj + t]! -= r * Z[ci + t]!;
}

/** Swaps columns i, j of G and Z, rows i, j of G, and the scales E (exact). */
function swapPair(G: RealArray, Z: Float64Array, E: Float64Array, m: number, i: number, j: number): void {
  const ci = i * m,
    cj = j * m;
  for (let t = 0; t < m; t++) {
    let x = G[ci + t]!;
    G[ci + t] = G[cj + t]!;
    G[cj + t] = x;
    x = Z[ci + t]!;
    Z[ci + t] = Z[cj + t]!;
    Z[cj + t] = x;
  }
  for (let t = 0; t < m; t++) {
    const x = G[i + t * m]!;
    G[i + t * m] = G[j + t * m]!;
    G[j + t * m] = x;
  }
  const e = E[i]!;
  E[i] = E[j]!;
  E[j] = e;
}

/** The cyclic-by-row ordering of Algorithm 2 as a sweeper for driver.ts (exported for tests). */
export function cyclicByRowSweeper(m: number): JacobiSweeper {
  return {
    sweep({ G, Z, E, driftRatio, stats }: JacobiState): SweepOutcome {
      const f32 = G instanceof Float32Array;
      let changed = false;
      for (let i = 0; i < m - 1; i++) {
        for (let j = i + 1; j < m; j++) {
          const gij = G[i + j * m]!,
            gii = G[i + i * m]!;
          if (Math.abs(gij) > reductionLimit(gii, f32)) {
            const r = roundHalfAway(f32 ? Math.fround(gij / gii) : gij / gii);
            if (!transformUpdateFits(Z, m, i * m, j * m, r)) return 'overflow';
            reducePair(G, Z, m, i, j, r);
            E[j] = Math.max(E[j]!, r * r * E[i]!);
            stats.sizeReductions++;
            changed = true;
            // most of b_j cancelled: G(:, j) is no longer trusted, recompute it from the basis
            if (!(G[j + j * m]! > E[j]! * driftRatio)) return 'drift';
          }
          if (G[i + i * m]! > G[j + j * m]!) {
            swapPair(G, Z, E, m, i, j);
            stats.swaps++;
            changed = true;
          }
        }
      }
      return changed ? 'changed' : 'unchanged';
    },
    finish(): void {
      /* swaps were done in place: G, Z, E are in order */
    },
  };
}

/** Algorithm 2 on one basis, in place; iterations = sweeps. */
export const jacobiCpu: CpuReducer = (B, Z, n, m, p) => runJacobi(B, Z, n, m, p, cyclicByRowSweeper(m), 'jacobi');
