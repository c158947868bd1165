/**
 * The chess-tournament ordering of the parallel Jacobi method (Jeremic and Qiao, Algorithm 3 and
 * Figure 1; after Wang and Qiao's parallel Takagi factorization).
 *
 * The m columns are players. Two arrays of length half = players / 2 hold them: in each round,
 * thread k reduces the pair (arr1[k], arr2[k]). Initially arr1[k] = k and arr2[k] = k + half
 * (0-based here; the paper counts from 1). After each round the players move one place round a
 * circle while arr1[0] stays put:
 *
 *     arr2[0] -> arr1[1] -> arr1[2] -> ... -> arr1[half-1] -> arr2[half-1] -> ... -> arr2[1] -> arr2[0]
 *
 * (the paper's n = 8 example: (1,5)(2,6)(3,7)(4,8), then (1,6)(5,7)(2,8)(3,4)). Over players - 1
 * rounds every pair meets exactly once and no player plays twice in a round, so the pairs of one
 * round touch disjoint columns and can be reduced at the same time. After players - 1 rounds the
 * arrays are back where they started.
 *
 * An odd m gets a dummy player, numbered m: a pair with the dummy is a bye (nothing to do).
 */
import { InvalidArgumentError } from '../../core/index.js';

/** Players in the tournament: m, plus a dummy when m is odd. */
export function chessPlayers(m: number): number {
  if (!Number.isInteger(m) || m < 1)
    throw new InvalidArgumentError(`the number of columns must be a positive integer, got ${m}`);
  return m + (m & 1);
}

/** Rounds in one sweep (every pair once): players - 1. */
export function chessRoundsPerSweep(m: number): number {
  return chessPlayers(m) - 1;
}

/** The arrays of Algorithm 3 (main thread, lines 4-7), 0-based: arr1[k] = k, arr2[k] = k + half. */
export function initChessArrays(m: number): { arr1: Int32Array; arr2: Int32Array } {
  const half = chessPlayers(m) / 2;
  const arr1 = new Int32Array(half);
  const arr2 = new Int32Array(half);
  for (let k = 0; k < half; k++) {
    arr1[k] = k;
    arr2[k] = k + half;
  }
  return { arr1, arr2 };
}

/** "permute arr1 and arr2" (child thread, line 35): one step round the circle, arr1[0] fixed. */
export function rotateChessArrays(arr1: Int32Array, arr2: Int32Array): void {
  const half = arr1.length;
  if (half < 2) return; // two players: one pair, nothing moves
  const leavingArr1 = arr1[half - 1]!;
  for (let k = half - 1; k >= 2; k--) arr1[k] = arr1[k - 1]!;
  arr1[1] = arr2[0]!;
  for (let k = 0; k < half - 1; k++) arr2[k] = arr2[k + 1]!;
  arr2[half - 1] = leavingArr1;
}

/**
 * Every round of one sweep as lists of pairs [i, j] with i < j, in thread order, byes left out.
 * For tests and for documentation; the reducer rotates the arrays in place instead.
 */
export function chessRounds(m: number): Array<Array<[number, number]>> {
  const { arr1, arr2 } = initChessArrays(m);
  const rounds: Array<Array<[number, number]>> = [];
  for (let r = 0; r < chessRoundsPerSweep(m); r++) {
    const pairs: Array<[number, number]> = [];
    for (let k = 0; k < arr1.length; k++) {
      const a = arr1[k]!,
        b = arr2[k]!;
      if (a >= m || b >= m) continue; // bye
      pairs.push(a < b ? [a, b] : [b, a]);
    }
    rounds.push(pairs);
    rotateChessArrays(arr1, arr2);
  }
  return rounds;
}
