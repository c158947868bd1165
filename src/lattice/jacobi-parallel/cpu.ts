/**
 * Parallel Jacobi lattice reduction (Jeremic and Qiao, Algorithm 3), run serially in exactly the
 * order a GPU kernel runs it (one basis per thread block, thread k owns pair k of the round), so
 * that it is the bit-exact reference for that kernel.
 *
 * State: G (m x m, working precision), Z (m x m), the chess arrays arr1/arr2 (chess-ordering.ts)
 * and a permutation array perm: logical column c of G and Z lives in physical column perm[c] (and
 * logical row c of G in physical row perm[c]). Swaps exchange perm entries instead of moving data,
 * as in the paper's GPU implementation. One round = the phases between the paper's barriers, each
 * over the pairs k = 0..half-1 of the round (a pair with the dummy player of odd m is a bye):
 *
 *   phase 1 (lines 2-14):  (i, j) = (min, max)(arr1[k], arr2[k]);  pi = perm[i], pj = perm[j]
 *                          if |G(pi,pj)| > G(pi,pi)/2:  r_k = round(G(pi,pj) / G(pi,pi))   else r_k = 0
 *                          G(:,pj) -= r_k G(:,pi);  Z(:,pj) -= r_k Z(:,pi)               [barrier]
 *   phase 2 (lines 18-20): G(pj,:) -= r_k G(pi,:)                                         [barrier]
 *   phase 3 (lines 24-33): if G(pi,pi) > G(pj,pj): swap perm[i], perm[j]                   [barrier]
 *   then (line 35) rotate arr1/arr2                                                        [barrier]
 *
 * Within a phase every thread writes only its own column (phase 1) or row (phase 2) pj and reads
 * only columns / rows that no thread writes in that phase, so the result does not depend on the
 * order of the threads; the serial loop over k reproduces the kernel exactly. (Running each pair's
 * whole step before the next pair would differ from the kernel in rounding.) A sweep is the
 * players - 1 rounds after which the arrays are back where they started. Rounding (round half away
 * from zero, products and differences each rounded, as in arith.ts), the stopping rule and the
 * final check are those of the serial method (jacobi/cpu.ts, jacobi/driver.ts), including the
 * correction of the quotient's denominator to G(i,i) explained in jacobi/cpu.ts.
 */
import type { RealArray } from '../../core/matrix.js';
import type { BasisStats, CpuReducer } from '../types.js';
import { roundHalfAway } from '../jacobi/arith.js';
import { runJacobi, type JacobiSweeper } from '../jacobi/driver.js';
import { chessPlayers, chessRoundsPerSweep, initChessArrays, rotateChessArrays } from './chess-ordering.js';

function chessSweeper(m: number): JacobiSweeper {
  const { arr1, arr2 } = initChessArrays(m);
  const half = chessPlayers(m) / 2;
  const rounds = chessRoundsPerSweep(m);
  const perm = new Int32Array(m);
  for (let c = 0; c < m; c++) perm[c] = c;
  // per thread: logical pair and multiplier of the current round
  const li = new Int32Array(half), lj = new Int32Array(half), mult = new Float64Array(half);

  function round(G: RealArray, Z: Float64Array, stats: BasisStats): boolean {
    const f32 = G instanceof Float32Array;
    let changed = false;
    // phase 1: multipliers, column updates of G and Z
    for (let k = 0; k < half; k++) {
      const a = arr1[k]!, b = arr2[k]!;
      mult[k] = 0;
      if (a >= m || b >= m) { li[k] = -1; continue; } // bye
      const i = a < b ? a : b, j = a < b ? b : a;
      li[k] = i; lj[k] = j;
      const pi = perm[i]!, pj = perm[j]!;
      const gij = G[pi + pj * m]!, gii = G[pi + pi * m]!;
      if (!(Math.abs(gij) > 0.5 * gii)) continue;
      const r = roundHalfAway(f32 ? Math.fround(gij / gii) : gij / gii);
      mult[k] = r;
      const ci = pi * m, cj = pj * m;
      if (f32) for (let t = 0; t < m; t++) G[cj + t]! -= Math.fround(r * G[ci + t]!);
      else for (let t = 0; t < m; t++) G[cj + t]! -= r * G[ci + t]!;
      for (let t = 0; t < m; t++) Z[cj + t]! -= r * Z[ci + t]!;
      stats.sizeReductions++;
      changed = true;
    }
    // phase 2: row updates of G
    for (let k = 0; k < half; k++) {
      const r = mult[k]!;
      if (r === 0) continue;
      const pi = perm[li[k]!]!, pj = perm[lj[k]!]!;
      if (f32) for (let c = 0; c < m; c++) G[pj + c * m]! -= Math.fround(r * G[pi + c * m]!);
      else for (let c = 0; c < m; c++) G[pj + c * m]! -= r * G[pi + c * m]!;
    }
    // phase 3: swaps, through the permutation array
    for (let k = 0; k < half; k++) {
      const i = li[k]!;
      if (i < 0) continue;
      const j = lj[k]!;
      const pi = perm[i]!, pj = perm[j]!;
      if (G[pi + pi * m]! > G[pj + pj * m]!) {
        perm[i] = pj; perm[j] = pi;
        stats.swaps++;
        changed = true;
      }
    }
    rotateChessArrays(arr1, arr2);
    return changed;
  }

  return {
    sweep(G, Z, stats): boolean {
      let changed = false;
      for (let r = 0; r < rounds; r++) if (round(G, Z, stats)) changed = true;
      return changed;
    },
    finish(G, Z): void {
      // gather logical column c from physical column perm[c] (rows of G too), then perm = identity
      const Zp = Z.slice(), Gp = G.slice();
      for (let c = 0; c < m; c++) {
        const pc = perm[c]!;
        for (let t = 0; t < m; t++) Z[t + c * m] = Zp[t + pc * m]!;
        for (let t = 0; t < m; t++) G[t + c * m] = Gp[perm[t]! + pc * m]!;
      }
      for (let c = 0; c < m; c++) perm[c] = c;
    },
  };
}

/** Algorithm 3 on one basis, in place; iterations = sweeps (players - 1 rounds each). */
export const jacobiParallelCpu: CpuReducer = (B, Z, n, m, p) => runJacobi(B, Z, n, m, p, chessSweeper(m), 'jacobi-parallel');
