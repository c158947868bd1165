/**
 * recursiveReduce(): the recursive reduction by iterated compression (iterate.ts) of an integer
 * basis of any size, with its proof:
 *  - always: U rebuilt from B_in and B_out and proven (exact-transform.ts: U B_in = B_out modulo
 *    primes past the bound of the difference, and B_out W = B_in with W integral, so |det U| = 1;
 *    a knapsack-like input's U read off B_out, checked by the exact product, det U by residues),
 *    so the output spans the input's lattice;
 *  - with delta (the default): the compressed reduction a little above delta, then an LLL finish
 *    at (delta, eta) on its output (finish.ts): proven as it is where it is reduced already, else
 *    by the precision ladder (lllIntegral); the LLL conditions proven as `lll` proves them
 *    (certified bound, interval arithmetic or exact integral Gram-Schmidt);
 *  - with rhf or alpha: the quality reached, reported (profile, root Hermite factor), the goal
 *    checked on the exact output.
 *
 * Shapes: `rows` are basis vectors as in fplll's format (m rows of n integers, m <= n); the result's
 * basis likewise, and its transform U has U B_in = B_out (m rows of m).
 */
import { CheckFailedError, RankDeficientError } from '../../core/index.js';
import { applyTransformBig, type BigBasis, readBigBasis } from '../precision/exact.js';
import { isUnimodular } from '../precision/unimodular.js';
import { readTransform, rebuildTransformBig, unitCoordinates } from '../exact-transform.js';
import type { IntegralLLLResult } from '../precision/ladder.js';
import { DD_BITS, ddQR } from './dd-qr.js';
import { fixedQR, maxBitLength } from './fixed-qr.js';
import { finishMargin, INNER_DELTA, LEAF_BITS, reduceLevel, type IterateParams, type IterateStats } from './iterate.js';
import { type ShortenResult, shortenFirst } from './first-block.js';
import { lllFinish } from './finish.js';
import { resolveRecursive, type RecursiveOptions } from './options.js';
import { BlockPool } from './parallel.js';

/** What a call asked, and whether the output reached it. */
export type RecursiveGoal = (
  | {
      /** LLL-reduced at (delta, eta). */
      kind: 'lll';
      /** Whether the proven LLL finish ran. */
      finish: boolean;
    }
  | {
      /** A root Hermite factor bound. */
      kind: 'rhf';
      /** The bound. */
      rhf: number;
    }
  | {
      /** A bound on every profile drop r_ii / r_(i+1)(i+1). */
      kind: 'alpha';
      /** The bound. */
      alpha: number;
    }
) & {
  /** Whether the output meets it (with the finish: proven). */
  reached: boolean;
};

/** Counts and times of a recursiveReduce() call. */
export interface RecursiveStats {
  /** Rounds of every level of the recursion. */
  rounds: number;
  /** Leaf reductions (float64 LLL or exact Lagrange) run. */
  leaves: number;
  /** Swaps of the leaves. */
  swaps: number;
  /** QR factorisations (double-double or BigInt fixed point). */
  factorisations: number;
  /** Deepest level reached (the top level is 0). */
  depth: number;
  /** Blocks reduced on a worker thread (threads > 1). */
  workerBlocks: number;
  /** The compressed reduction's wall time, ms. */
  reduceMs: number;
  /** The LLL finish's, ms (0 without it). */
  finishMs: number;
  /** The proof's (B_out = U B_in, det U), ms. */
  proofMs: number;
  /** Swaps of the LLL finish. */
  finishSwaps: number;
  /** The first vectors' shortening (first-block.ts: the prefix's BKZ tours, the first block's enumeration): its wall time, ms (within reduceMs). */
  svpMs: number;
  /** Their enumerations' nodes (0: not run). */
  svpNodes: number;
  /** ||b_0||^2 after it / before it (1: no shorter vector found; before the basis is reduced again, which keeps or shortens it). */
  svpRatio: number;
  /** Vectors the BKZ tours on the prefix put (first-block.ts prefixTours). */
  bkzInserted: number;
}

/** The result of recursiveReduce(). */
export interface RecursiveResult {
  /** Reduced basis rows (row j = basis vector j). */
  basis: bigint[][];
  /** U with U B_in = B_out (m rows of m). */
  transform: bigint[][];
  /** log2 of the output's Gram-Schmidt norms ||b*_i||, i = 0..m-1. */
  profile: number[];
  /** (||b_0|| / det^(1/m))^(1/m) of the output. */
  rootHermiteFactor: number;
  /** Largest r_ii / r_(i+1)(i+1) of the output. */
  maxDrop: number;
  /** What was asked: 'lll' (delta, eta; with or without the finish), 'rhf' or 'alpha', and whether it was reached. */
  goal: RecursiveGoal;
  /** Proof: U B_in = B_out exactly, |det U| = 1, and with the finish the LLL conditions. */
  proof: {
    /** U B_in = B_out, proven by residues modulo primes past the bound of the difference. */
    transform: boolean;
    /** det U = +-1, proven (the integral W with B_out W = B_in, or det U by residues). */
    unimodular: boolean;
    /** The LLL conditions at (delta, eta) proven (the finish); null without the finish. */
    lll: boolean | null;
    /** How the finish proved them (IntegralLLLResult's proof.method); null without the finish. */
    method: IntegralLLLResult['proof']['method'];
  };
  /** Counts of the recursion, and the times: the compressed reduction, the finish, the proof. */
  stats: RecursiveStats;
  /** Wall time of the call, ms. */
  timeMs: number;
}

/**
 * Reduces an integer basis (rows of BigInts, or safe-integer numbers) by iterated compression; see
 * the module comment and RecursiveOptions. Throws InvalidInputError for a malformed basis,
 * RankDeficientError for dependent vectors, InvalidArgumentError for bad options,
 * EngineUnavailableError for engine 'cuda', and CheckFailedError should a proof fail (an internal
 * error, reported rather than returned).
 */
export function recursiveReduce(
  rows: readonly (readonly (bigint | number)[])[],
  opts: RecursiveOptions = {},
): RecursiveResult {
  const t0 = performance.now();
  const call = 'recursiveReduce()';
  const Bin = readBigBasis(rows);
  const m = Bin.length;
  const o = resolveRecursive(opts, m, call);
  const B = Bin.map((c) => c.slice());
  const stats: IterateStats = { rounds: 0, leaves: 0, swaps: 0, factorisations: 0, depth: 0, workerBlocks: 0 };
  const goal = o.goal;
  const stop =
    goal.kind === 'rhf'
      ? (p: Float64Array) => rhfOf(p) <= goal.rhf
      : goal.kind === 'alpha'
        ? (p: Float64Array) => maxDropOf(p) <= goal.alpha
        : undefined;
  // no transform kept: it is rebuilt from B_in and B_out at the end, exactly and proven (half the
  // column operations of the top level saved)
  const pool = o.threads > 1 && m >= 16 ? new BlockPool(o.threads - 1) : undefined;
  let svpMs = 0,
    svp: ShortenResult = { improved: false, ratio: 1, nodes: 0, complete: true, inserted: 0, changed: false };
  try {
    const level: IterateParams = {
      // a little above delta where the proven finish follows (its certificate then has a margin)
      delta: goal.kind === 'lll' && goal.finish ? finishMargin(o.delta) : o.delta,
      innerDelta: Math.min(o.delta, INNER_DELTA),
      eta: o.eta,
      guard: o.guard,
      leafBits: LEAF_BITS,
      maxRounds: o.maxRounds,
      finished: goal.kind === 'lll' && goal.finish,
      stats,
      ...(stop ? { stop } : {}),
      ...(pool ? { pool } : {}),
    };
    reduceLevel(B, null, level);
    // a shorter first vector: BKZ tours on a prefix, the first block's shortest vector put first,
    // then the basis reduced again (the lattice unchanged; first-block.ts)
    if ((o.svpBlock >= 2 || (o.bkzBlock >= 2 && o.bkzTours > 0)) && !stop?.(outputProfile(B))) {
      const ts = performance.now();
      svp = shortenFirst(B, null, { ...o, delta: o.delta });
      svpMs = performance.now() - ts;
      if (svp.changed) reduceLevel(B, null, level);
    }
  } finally {
    pool?.close();
  }
  const reduceMs = performance.now() - t0;
  let out = B,
    finishMs = 0,
    finishSwaps = 0;
  let lll: boolean | null = null,
    method: IntegralLLLResult['proof']['method'] = null;
  if (goal.kind === 'lll' && goal.finish) {
    const tf = performance.now();
    const f = lllFinish(B, o.delta, o.eta);
    out = f.basis;
    finishSwaps = f.swaps;
    lll = f.lll;
    method = f.method;
    finishMs = performance.now() - tf;
    if (!lll) throw new CheckFailedError('recursive: the LLL finish returned a basis it did not prove reduced');
  }
  const tp = performance.now();
  const { U: Uout, unimodular } = provenTransform(Bin, out);
  const transform = true;
  const proofMs = performance.now() - tp;
  const profile = Array.from(outputProfile(out));
  const p64 = Float64Array.from(profile);
  const rootHermiteFactor = rhfOf(p64),
    maxDrop = maxDropOf(p64);
  const reached =
    goal.kind === 'rhf' ? rootHermiteFactor <= goal.rhf : goal.kind === 'alpha' ? maxDrop <= goal.alpha : true;
  return {
    basis: out.map((c) => c.slice()),
    transform: Uout.map((c) => c.slice()),
    profile,
    rootHermiteFactor,
    maxDrop,
    goal: { ...goal, reached } as RecursiveGoal,
    proof: { transform, unimodular, lll, method },
    stats: {
      ...stats,
      reduceMs,
      finishMs,
      proofMs,
      finishSwaps,
      svpMs,
      svpNodes: svp.nodes,
      svpRatio: svp.ratio,
      bkzInserted: svp.inserted,
    },
    timeMs: performance.now() - t0,
  };
}

/**
 * U with U B_in = B_out, proven, and whether det U = +-1 (a CheckFailedError where B_out is not in
 * B_in's lattice). A knapsack-like input (a signed identity on some coordinates) gives U read off
 * B_out there (its entries are the output's own small coordinates), checked by the exact product,
 * det U by residues (unimodular.ts); any other is rebuilt from B_in and B_out (exact-transform.ts:
 * residues past the bound of B_in Z - B_out, and B_out W = B_in with W integral).
 */
function provenTransform(Bin: BigBasis, out: BigBasis): { U: bigint[][]; unimodular: boolean } {
  const m = Bin.length;
  const unit = unitCoordinates(Bin);
  if (unit) {
    const U = readTransform(out, unit);
    if (!applyTransformBig(Bin, U).every((c, j) => c.every((v, t) => v === out[j]![t])))
      throw new CheckFailedError(
        'recursive: the reduced basis is not U B_in for the U its unit coordinates give (an internal error, reported rather than returned)',
      );
    const unimodular = isUnimodular(U);
    if (!unimodular)
      throw new CheckFailedError('recursive: det U is not +-1 (an internal error, reported rather than returned)');
    return { U, unimodular };
  }
  const rebuilt = rebuildTransformBig(Bin, out, true);
  const unimodular = rebuilt.det === 1n || rebuilt.det === -1n;
  if (!unimodular)
    throw new CheckFailedError(
      `recursive: det U is ${rebuilt.det}, not +-1 (an internal error, reported rather than returned)`,
    );
  return { U: Array.from({ length: m }, (_, j) => rebuilt.Z.slice(j * m, (j + 1) * m)), unimodular };
}

/**
 * log2 ||b*_i|| of the output: by the double-double QR where its precision (about 2^-100 of the
 * largest entry) leaves 30 bits of the smallest norm, else a fixed-point R resolving norms down to
 * about 2^-40.
 */
function outputProfile(out: BigBasis): Float64Array {
  const m = out.length,
    n = out[0]!.length;
  const bits = maxBitLength(out);
  if (bits <= 400) {
    try {
      const { profile } = ddQR(out, 0);
      if (Math.min(...profile) >= bits - DD_BITS + 30) return profile;
    } catch (err) {
      // a norm double-double does not resolve: the fixed-point R below
      if (!(err instanceof RankDeficientError)) throw err;
    }
  }
  return fixedQR(out, bits + Math.ceil(Math.log2(n * m)) + 48).profile;
}

/** Root Hermite factor from a profile: (r_00 / det^(1/m))^(1/m). */
export function rhfOf(profile: Float64Array): number {
  const m = profile.length;
  let mean = 0;
  for (const v of profile) mean += v;
  mean /= m;
  return 2 ** ((profile[0]! - mean) / m);
}

/** Largest r_ii / r_(i+1)(i+1) of a profile (1 for one vector). */
export function maxDropOf(profile: Float64Array): number {
  let most = 0;
  for (let i = 0; i + 1 < profile.length; i++) most = Math.max(most, profile[i]! - profile[i + 1]!);
  return 2 ** most;
}
