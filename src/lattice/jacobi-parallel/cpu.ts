/**
 * Parallel Jacobi lattice reduction (Jeremic and Qiao, Algorithm 3), run serially in exactly the
 * order a GPU kernel runs it (one basis per thread block, thread k owns pair k of the round), so
 * that it is the bit-exact reference for that kernel.
 *
 * State: G (m x m, working precision), Z (m x m), the chess arrays arr1/arr2 (chess-ordering.ts)
 * and a permutation array perm: logical column c of G and Z lives in physical column perm[c] (and
 * logical row c of G in physical row perm[c]). Swaps exchange perm entries instead of moving data,
 * as in the paper's GPU implementation (which also settles the paper's line 31: it re-tests
 * G(i,i) > G(j,j) after line 25 has swapped the columns; the one decision swaps both). One round = the phases between the paper's barriers, each
 * over the pairs k = 0..half-1 of the round (a pair with the dummy player of odd m is a bye):
 *
 *   phase 1 (lines 2-14):  (i, j) = (min, max)(arr1[k], arr2[k]);  pi = perm[i], pj = perm[j]
 *                          if |G(pi,pj)| > G(pi,pi)/2 (*):  r_k = round(G(pi,pj) / G(pi,pi))   else r_k = 0
 *                          G(:,pj) -= r_k G(:,pi);  Z(:,pj) -= r_k Z(:,pi)               [barrier]
 *                          E[pj] = max(E[pj], r_k^2 E[pi])   (drift scale, jacobi/driver.ts)
 *   phase 2 (lines 18-20): G(pj,:) -= r_k G(pi,:);  drift if G(pj,pj) <= E[pj] * driftRatio  [barrier]
 *   phase 3 (lines 24-33): if G(pi,pi) > G(pj,pj): swap perm[i], perm[j]                   [barrier]
 *   then (line 35) rotate arr1/arr2                                                        [barrier]
 *   and if any pair of the round drifted, the sweep ends here (the driver recomputes G); a pair
 *   whose update would take Z past 2^53 makes no update (r_k = 0) and ends the run after the round.
 *
 * (*) with the slack of reductionLimit in arith.ts.
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
import type { CpuReducer } from '../types.js';
import { reductionLimit, roundHalfAway, transformUpdateFits } from '../jacobi/arith.js';
import { runJacobi, type JacobiState, type JacobiSweeper, type SweepOutcome } from '../jacobi/driver.js';
import { chessPlayers, chessRoundsPerSweep, initChessArrays, rotateChessArrays } from './chess-ordering.js';

/** The chess-tournament rounds of Algorithm 3 as a sweeper for driver.ts (exported for tests). */
export function chessSweeper(m: number): JacobiSweeper {
  const { arr1, arr2 } = initChessArrays(m);
  const half = chessPlayers(m) / 2;
  const rounds = chessRoundsPerSweep(m);
  const perm = new Int32Array(m);
  for (let c = 0; c < m; c++) perm[c] = c;
  // per thread: logical pair and multiplier of the current round
  const li = new Int32Array(half),
    lj = new Int32Array(half),
    mult = new Float64Array(half);

  let drift = false; // set by a round when a reduction cancelled most of a norm
  let overflow = false; // set by a round when a reduction would have put Z beyond 2^53 (not made)

  /** One round: the three phases, then the rotation; true when something changed. */
  function round({ G, Z, E, driftRatio, stats }: JacobiState): boolean {
    const f32 = G instanceof Float32Array;
    let changed = false;
    // phase 1: multipliers, column updates of G and Z
    for (let k = 0; k < half; k++) {
      const a = arr1[k]!,
        b = arr2[k]!;
      mult[k] = 0;
      if (a >= m || b >= m) {
        li[k] = -1;
        continue;
      } // bye
      const i = a < b ? a : b,
        j = a < b ? b : a;
      li[k] = i;
      lj[k] = j;
      const pi = perm[i]!,
        pj = perm[j]!;
      const gij = G[pi + pj * m]!,
        gii = G[pi + pi * m]!;
      if (!(Math.abs(gij) > reductionLimit(gii, f32))) continue;
      const r = roundHalfAway(f32 ? Math.fround(gij / gii) : gij / gii);
      const ci = pi * m,
        cj = pj * m;
      if (!transformUpdateFits(Z, m, ci, cj, r)) {
        overflow = true;
        continue;
      }
      mult[k] = r;
      if (f32) for (let t = 0; t < m; t++) G[cj + t]! -= Math.fround(r * G[ci + t]!);
      else for (let t = 0; t < m; t++) G[cj + t]! -= r * G[ci + t]!;
      for (let t = 0; t < m; t++) Z[cj + t]! -= r * Z[ci + t]!;
      E[pj] = Math.max(E[pj]!, r * r * E[pi]!);
      stats.sizeReductions++;
      changed = true;
    }
    // phase 2: row updates of G, then the drift test on the finished diagonal entries
    for (let k = 0; k < half; k++) {
      const r = mult[k]!;
      if (r === 0) continue;
      const pi = perm[li[k]!]!,
        pj = perm[lj[k]!]!;
      if (f32) for (let c = 0; c < m; c++) G[pj + c * m]! -= Math.fround(r * G[pi + c * m]!);
      else for (let c = 0; c < m; c++) G[pj + c * m]! -= r * G[pi + c * m]!;
      if (!(G[pj + pj * m]! > E[pj]! * driftRatio)) drift = true;
    }
    // phase 3: swaps, through the permutation array
    for (let k = 0; k < half; k++) {
      const i = li[k]!;
      if (i < 0) continue;
      const j = lj[k]!;
      const pi = perm[i]!,
        pj = perm[j]!;
      if (G[pi + pi * m]! > G[pj + pj * m]!) {
        perm[i] = pj;
        perm[j] = pi;
        stats.swaps++;
        changed = true;
      }
    }
    rotateChessArrays(arr1, arr2);
    return changed;
  }

  return {
    sweep(s: JacobiState): SweepOutcome {
      let changed = false;
      drift = false;
      overflow = false;
      for (let r = 0; r < rounds; r++) {
        if (round(s)) changed = true;
        // after the round's last barrier, as a kernel would
        if (overflow) return 'overflow';
        if (drift) return 'drift';
      }
      return changed ? 'changed' : 'unchanged';
    },
    finish({ G, Z, E }: JacobiState): void {
      // gather logical column c from physical column perm[c] (rows of G too), then perm = identity
      const Zp = Z.slice(),
        Gp = G.slice(),
        Ep = E.slice();
      for (let c = 0; c < m; c++) {
        const pc = perm[c]!;
        for (let t = 0; t < m; t++) Z[t + c * m] = Zp[t + pc * m]!;
        for (let t = 0; t < m; t++) G[t + c * m] = Gp[perm[t]! + pc * m]!;
        E[c] = Ep[pc]!;
      }
      for (let c = 0; c < m; c++) perm[c] = c;
      const fresh = initChessArrays(m); // a sweep cut short by drift leaves the arrays mid-way
      arr1.set(fresh.arr1);
      arr2.set(fresh.arr2);
    },
  };
}

/** Algorithm 3 on one basis, in place; iterations = sweeps (players - 1 rounds each). */
export const jacobiParallelCpu: CpuReducer = (B, Z, n, m, p) =>
  runJacobi(B, Z, n, m, p, chessSweeper(m), 'jacobi-parallel');
