/**
 * Floors of the lattice benchmark: the fewest bytes a reduction must move through device memory
 * and the fewest arithmetic operations it must do, per basis, from the counts a run reports. Each
 * over the device's measured ceiling (bench/gpu/ceilings.ts) gives a time no implementation of
 * the same algorithm can beat; the larger of the two is the floor, and measured / floor is how far
 * a figure is from it.
 *
 * Operations count each multiply and each add once (the kernels compute like JavaScript: no fused
 * multiply-add), only the work the algorithm's own steps need, with the counts the kernel reports
 * (phases or sweeps, swaps, size reductions); loop control, divisions, rounding, comparisons and
 * every re-check are left out, so the floor is a lower bound.
 */
import { chessPlayers } from '../../src/lattice/jacobi-parallel/chess-ordering.js';

/** Per-basis means of a run's counts. */
export interface RunCounts {
  /** all-swap: phases; Jacobi: sweeps. */
  iterations: number;
  swaps: number;
  sizeReductions: number;
}

/** Bytes through device memory per basis: the input read once, the basis, Z and the status words written once. */
export function latticeBytesPerBasis(n: number, m: number, elementBytes: number): { read: number; written: number } {
  return { read: n * m * elementBytes, written: n * m * elementBytes + m * m * 8 + 5 * 4 };
}

/**
 * float64 operations of CR-AS-LLL on one n x m basis (cpu.ts): at least two rounds when anything
 * changed (the second verifies), each a modified Gram-Schmidt (2 n m^2 + 2 n m) and the closing
 * size reduction (its dot products, n m (m - 1) + 2 n m); every phase's three dot products per pair
 * ((m - 1) / 2 pairs, 6 n); each swap's update of two Gram-Schmidt vectors (5 n); each size
 * reduction's column operation on B and Z (2 (n + m)).
 */
export function allswapOps(n: number, m: number, c: RunCounts): number {
  const rounds = c.swaps + c.sizeReductions > 0 ? 2 : 1;
  const gramSchmidt = 4 * n * m + 2 * n * m * (m - 1);
  const closing = 2 * n * m + n * m * (m - 1);
  const phases = c.iterations * ((m - 1) / 2) * 6 * n;
  return rounds * (gramSchmidt + closing) + phases + c.swaps * 5 * n + c.sizeReductions * 2 * (n + m);
}

/**
 * Operations of the parallel Jacobi method on one n x m basis (jacobi-parallel/cpu.ts), split by
 * precision: G = B^T B (n m (m + 1), working precision); per sweep, players - 1 rounds of
 * players / 2 pair tests (2 each, working precision); each size reduction's column and row update
 * of G (4 m, working precision) and column update of Z (2 m, float64); the final B = B_in Z (at
 * least one nonzero per column of Z: 2 n m, float64).
 */
export function jacobiOps(n: number, m: number, c: RunCounts): { working: number; fp64: number } {
  const players = chessPlayers(m);
  const tests = c.iterations * (players - 1) * (players / 2) * 2;
  return {
    working: n * m * (m + 1) + tests + c.sizeReductions * 4 * m,
    fp64: c.sizeReductions * 2 * m + 2 * n * m,
  };
}

export interface Floor {
  /** Seconds to move the bytes at the device's bandwidth. */
  bytesS: number;
  /** Seconds to do the operations at the device's rate. */
  opsS: number;
  /** The larger of the two. */
  floorS: number;
  bound: 'bytes' | 'ops';
}

export function floorOf(bytes: number, bytesPerS: number, opsTimeS: number): Floor {
  const bytesS = bytes / bytesPerS;
  return { bytesS, opsS: opsTimeS, floorS: Math.max(bytesS, opsTimeS), bound: bytesS >= opsTimeS ? 'bytes' : 'ops' };
}
