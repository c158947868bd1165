/**
 * The precision ladder of LLL on integer bases of any size (fplll's wrapper.cpp: fast, then
 * heuristic in a wider type, then proved). Each rung starts from the basis the previous one left
 * (every column operation is exact, so a breakdown loses nothing):
 *   1. 'float64': fplll's fast path (fast64.ts): the basis exactly in float64 (every column
 *      operation bound-checked below 2^53), a floating Gram-Schmidt from a lazy floating Gram
 *      matrix, no transform kept (Z is rebuilt exactly at the end); for entries up to 32 bits.
 *   2. 'double-double': the basis column by column in float64, float64 limb pairs (below 2^100)
 *      or BigInt, every operation exact; a float64 Gram-Schmidt pass (fplll's heuristic), then a
 *      double-double one, G recomputed from the columns; where that does not settle, an exact
 *      BigInt Gram matrix scaled by one power of two (entries of any size). See dd-lll.ts.
 *   3. 'quad-double': where 106 bits do not settle (hundreds of dimensions and hundreds of bits),
 *      the same on a quad-double (about 212-bit) Gram-Schmidt, G exact in BigInt and updated from
 *      the size-reduction multipliers (fplll's heuristic<mpz_t, mpfr_t> at 212 bits); see
 *      dd-lll.ts (ExactGramStore) and quad-double.ts. After a bounded number of steps it hands the
 *      basis back to the double-double passes (passes.ts), which are faster wherever they settle.
 *   4. 'exact': Cohen's integral LLL in BigInt (exact.ts). It always runs last, unless the
 *      certified floating-point check (certify.ts: float64 with a rigorous error bound) proves the
 *      floating rung's output LLL-reduced first; on a reduced basis it only computes the integral
 *      Gram-Schmidt, which is the exact proof of both LLL conditions; on a basis a floating rung
 *      left unreduced it finishes the reduction.
 * Then B_out = B_in Z is checked exactly (or proven by the exact rebuild of Z), and |det Z| = 1
 * (the rebuild's Z W = I, or the Gram determinants of B_in and B_out: equal lattice volume). A typed error only when every rung failed, naming each, with the basis as far as it got.
 *
 * Shapes: `rows` are basis vectors as in fplll's format (m rows of n integers); results likewise
 * (basis rows; transform U with U B_in = B_out, i.e. row j of U = column j of Z).
 */
import {
  CheckFailedError,
  LatticeMimoError,
  RankDeficientError,
  errorRecord,
  type ErrorRecord,
  arrayOf,
  boolean,
  callback,
  checkOptions,
  choice,
  inapplicable,
  integer,
  number,
  option,
} from '../../core/index.js';
import { readTransform, rebuildTransform, unitCoordinates } from '../exact-transform.js';
import { defaultMaxIterations, REDUCE_SCHEMA, resolveOptions } from '../validate.js';
import { ddLLL, ddLLLFloat64, ddLLLHybrid, plainLLLFloat64, qdLLL } from './dd-lll.js';
import { runPasses, type Pass } from './passes.js';
import type { RungStats } from './rung-stats.js';
import { applyTransformBig, exactLLL, integralGramSchmidt, maxBits, type BigBasis, readBigBasis } from './exact.js';
import { isUnimodular } from './unimodular.js';
import { certifyLLL } from './certify.js';
import { intervalLLLProof } from './interval-proof.js';
import { fastLLLFloat64 } from './fast64.js';

/** A rung of the precision ladder: float64 Gram-Schmidt, double-double, quad-double, exact integer arithmetic. */
export type Rung = 'float64' | 'double-double' | 'quad-double' | 'exact';
/** The rungs in the order lllIntegral climbs them. */
export const RUNGS: readonly Rung[] = ['float64', 'double-double', 'quad-double', 'exact'];

/** Every option of lllIntegral(): its check, its doc line and its command-line flag. */
export const INTEGRAL_LLL_SCHEMA = {
  delta: REDUCE_SCHEMA.delta,
  eta: REDUCE_SCHEMA.eta,
  maxIterations: option(integer(1), "the bound on each rung's main loop (default: by m and the entries' bits)", {
    cli: { flag: 'max-iterations', metavar: 'N' },
  }),
  rungs: option(arrayOf(choice(RUNGS), 1), 'the rungs to try, in order'),
  prove: option(boolean(), 'prove |det Z| = 1', { default: true }),
  certify: option(boolean(), 'try the certified floating-point proof before the exact rung', { default: true }),
  onProgress: option(callback<(p: LadderProgress) => void>(), 'called about once a second while a rung reduces'),
  progressEveryMs: option(number({ min: 0 }), 'least time between two progress reports, ms', { default: 1000 }),
  onCheckpoint: option(
    callback<(basis: bigint[][], p: LadderProgress) => void>(),
    'called with the basis as it stands about every checkpointEveryMs',
  ),
  checkpointEveryMs: option(number({ min: 0 }), 'least time between two checkpoints, ms', { default: 600_000 }),
};

/** Options of lllIntegral(). */
export interface IntegralLLLOptions {
  /** Lovasz parameter, (0.25, 1); default 0.75. */
  delta?: number;
  /** Size-reduction bound, [0.5, sqrt(delta)); default 0.51. */
  eta?: number;
  /**
   * Bound on each rung's main loop; default ladderMaxIterations(m, bits of the largest entry):
   * LLL's swaps grow with the entries' size as well as with m.
   */
  maxIterations?: number;
  /** Rungs to try, in order (default all). 'exact' may only be left out for testing a rung alone. */
  rungs?: readonly Rung[];
  /** Prove |det Z| = 1 (a rebuilt Z: from its integral inverse; else from Gram determinants); default true. B_out = B_in Z is always checked. */
  prove?: boolean;
  /**
   * Try the certified floating-point proof of the LLL conditions before the exact rung (default
   * true); the exact rung runs where it is inconclusive. false: always the exact proof.
   */
  certify?: boolean;
  /**
   * Called about once a second while a rung reduces (and once as each proof starts), for a progress
   * display: long runs (hundreds of vectors, hundreds of bits) take minutes to hours.
   */
  onProgress?: (p: LadderProgress) => void;
  /** Least time between two reports within a stage, ms (default 1000; 0: every 1024 main-loop steps). */
  progressEveryMs?: number;
  /**
   * Called about every checkpointEveryMs while a rung reduces, with the basis as it stands (rows of
   * BigInts, B_in U for the work so far: a basis of the same lattice, partly reduced), so that hours
   * of work survive a stopped process: the caller saves it (`reduce --checkpoint FILE`), and the
   * ladder started again from it goes on from there. The positions are the ones reported (p).
   */
  onCheckpoint?: (basis: bigint[][], p: LadderProgress) => void;
  /** Least time between two checkpoints, ms (default 600,000: ten minutes; 0: every 1024 main-loop steps). */
  checkpointEveryMs?: number;
}

/** Where lllIntegral() stands. */
export interface LadderProgress {
  /** What runs: a rung, the certified proof of a floating rung's output, or the exact |det Z| = 1 proof. */
  stage: Rung | 'certificate' | 'unimodularity';
  /** The rung's position k (0-based: vectors 0 .. k-1 are LLL-reduced among themselves); while the exact rung's Gram-Schmidt runs, the row it computes. */
  vector: number;
  /** The furthest position the stage has reached. */
  furthest: number;
  /** The basis' vectors m. */
  vectors: number;
  /** Within a rung of several passes (double-double: a float64 Gram-Schmidt first), the one that runs. */
  pass?: string;
  /** Swaps of every rung so far. */
  swaps: number;
  /** Main-loop steps of every rung so far. */
  iterations: number;
  /** Since lllIntegral() started. */
  elapsedMs: number;
}

/** What one rung did. */
export interface RungOutcome {
  /** Which rung. */
  rung: Rung;
  /** Whether it finished with a reduced basis. */
  ok: boolean;
  /** Why it did not: the rung's error, as data (code, words, details). */
  error?: ErrorRecord;
  /** Its wall time. */
  ms: number;
  /** Swaps it performed. */
  swaps: number;
  /** Size reductions it performed. */
  sizeReductions: number;
}

/** The result of lllIntegral(): integers of any size, proven exactly. */
export interface IntegralLLLResult {
  /** Reduced basis rows (row j = basis vector j). */
  basis: bigint[][];
  /** U with U B_in = B_out (m x m rows). */
  transform: bigint[][];
  /** Each rung tried, in order, with its outcome. */
  rungs: RungOutcome[];
  /** Proof: LLL conditions (certified bound or the exact rung's integral Gram-Schmidt), B_out = B_in Z, |det Z| = 1. */
  proof: {
    /** The LLL conditions hold (proven, not estimated). */
    lll: boolean;
    /** How they were proven: the certified float64 bound, interval arithmetic on the exact Gram matrix, or the exact integral Gram-Schmidt. */
    method: 'certificate' | 'interval' | 'exact' | null;
    /** U B_in = B_out exactly. */
    transform: boolean;
    /** |det U| = 1 proven (null when not asked for). */
    unimodular: boolean | null;
  };
  /** The certified floating-point check (certify.ts), where it ran: after a floating rung succeeded. */
  certificate?: {
    /** 'proven'; else 'not-reduced' or 'inconclusive', and the exact rung proved or finished the reduction. */
    status: 'proven' | 'not-reduced' | 'inconclusive';
    /** Which decided: the float64 bound (certify.ts), or where it could not, interval arithmetic (interval-proof.ts). */
    by: 'float64' | 'interval';
    /** Why not 'proven'. */
    reason?: string;
    /** The largest bound on the relative error of the Gram-Schmidt data (NaN where it was not reached). */
    kappa: number;
    /** Its wall time. */
    ms: number;
  };
  /** Wall time of the whole ladder. */
  timeMs: number;
}

/** The certificate as the result reports it. */
type Cert = NonNullable<IntegralLLLResult['certificate']>;

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
/** Largest entry size (bits) given to the float64 rung; its result is proven either way (rebuilt Z). */
const FLOAT64_RUNG_BITS = 32;

/**
 * The ladder's default bound on a rung's main loop for m vectors of entries up to `bits` bits:
 * reduce()'s (200 m^2, at least 10^6) for entries that fit a double's mantissa, and as many times
 * that as 53-bit words an entry takes (a 70-vector NTRU-like basis of 200-bit entries needs about
 * 1.5 10^6 steps at delta 0.99).
 */
export function ladderMaxIterations(m: number, bits: number): number {
  return defaultMaxIterations(m) * Math.max(1, Math.ceil(bits / 53));
}

function gramDeterminant(cols: BigBasis): bigint {
  const gs = integralGramSchmidt(cols);
  return 'dependent' in gs ? 0n : gs.d[cols.length]!;
}

/**
 * LLL-reduces an integer basis given as rows of BigInts (or safe-integer numbers), up the ladder.
 * Throws InvalidInputError for a malformed basis, RankDeficientError for dependent vectors, and a
 * PRECISION_FAILURE naming every rung tried when none succeeded (details.rungs); its
 * details.partial.basis (rows of BigInts, as onCheckpoint's) is the basis as far as the ladder got,
 * proven to span the input's lattice, to start again from (with a larger maxIterations, say).
 */
export function lllIntegral(
  rows: readonly (readonly (bigint | number)[])[],
  opts: IntegralLLLOptions = {},
): IntegralLLLResult {
  const t0 = performance.now();
  const call = 'lllIntegral()';
  const opt = checkOptions(opts, INTEGRAL_LLL_SCHEMA, call);
  if (opt.progressEveryMs !== undefined && opt.onProgress === undefined)
    throw inapplicable(call, 'progressEveryMs', 'it times the onProgress reports, and there is no onProgress');
  if (opt.checkpointEveryMs !== undefined && opt.onCheckpoint === undefined)
    throw inapplicable(call, 'checkpointEveryMs', 'it times the onCheckpoint calls, and there is no onCheckpoint');
  const Bin: BigBasis = readBigBasis(rows);
  const m = Bin.length,
    n = Bin[0]!.length;
  const inputBits = maxBits(Bin);
  const o = resolveOptions(
    { delta: opt.delta, eta: opt.eta, maxIterations: opt.maxIterations ?? ladderMaxIterations(m, inputBits) },
    m,
    { name: call },
  );
  const rungs = opt.rungs ?? RUNGS;

  const fits = Bin.every((c) => c.every((v) => v <= SAFE && v >= -SAFE));
  const certify = opt.certify !== false;
  // knapsack-like bases past 2^53 (a signed identity on some coordinates): Z is read off B_out
  // (then checked exactly below), not tracked through the reduction
  const unit = fits ? null : unitCoordinates(Bin);
  const everyMs = opt.progressEveryMs ?? 1000;
  const checkpointMs = opt.checkpointEveryMs ?? 600_000;
  const report = progressReporter(opt.onProgress, m, t0, everyMs, opt.onCheckpoint, checkpointMs);
  const out = climb(Bin, n, m, o, rungs, fits && inputBits <= FLOAT64_RUNG_BITS, fits, certify, unit !== null, report);
  let { B, Z, certificate } = out;
  const outcomes = out.outcomes;
  let unimodular: boolean | null = null;
  // a rebuilt Z is proven to satisfy B_in Z = B_out (exact-transform.ts); a tracked one is checked below
  let rebuiltZ = false;
  // past the float64 rung: the rungs that follow it (the exact rung at least)
  const later = rungs.filter((r) => r !== 'float64');
  if (later.length === 0) later.push('exact');
  for (let attempt = 0; !Z; attempt++) {
    // the float64 path keeps no Z: it is rebuilt exactly from B_in and B_out (both below 2^53) and
    // proven there: B_in Z = B_out and B_out W = B_in with Z, W integral (exact-transform.ts)
    if (unit) {
      Z = readTransform(B, unit);
      break;
    }
    const rebuilt = rebuild(Bin, B, n, m, opt.prove !== false);
    if (rebuilt) {
      Z = Array.from({ length: m }, (_, j) => rebuilt.slice(j * m, (j + 1) * m));
      unimodular = opt.prove !== false ? true : null;
      rebuiltZ = true;
      break;
    }
    // an output past 2^53, or a float64 state that was not exact after all: again without the
    // float64 engine (checked exact updates), then with Z tracked in BigInt
    const again = climb(Bin, n, m, o, later, false, attempt === 0, certify, false, report);
    outcomes.push(...again.outcomes);
    B = again.B;
    Z = again.Z;
    certificate = again.certificate ?? certificate;
  }
  const transformOk = rebuiltZ || applyTransformBig(Bin, Z!).every((c, j) => c.every((v, t) => v === B[j]![t]));
  if (!transformOk)
    throw new CheckFailedError(
      'lll: B_in Z differs from the reduced basis (an internal error, reported rather than returned)',
    );
  if (unimodular === null && opt.prove !== false) {
    // B_out = B_in Z exactly (checked above), so the two span the same lattice iff |det Z| = 1: Z's
    // determinant by residues (unimodular.ts: float64 eliminations modulo primes, as many as Z's
    // Hadamard bound needs), or the two bases' Gram determinants where Z's entries are the wider
    report?.stage('unimodularity');
    unimodular = maxBits(Z!) < inputBits ? isUnimodular(Z!) : gramDeterminant(Bin) === gramDeterminant(B);
    if (!unimodular)
      throw new CheckFailedError(
        'lll: the reduced basis spans a different lattice (|det U| is not 1; an internal error, reported rather than returned)',
      );
  }
  const exactRan = outcomes.some((r) => r.rung === 'exact' && r.ok);
  const certified = certificate?.status === 'proven' && !exactRan;
  return {
    basis: B.map((c) => c.slice()),
    transform: Z!.map((c) => c.slice()),
    rungs: outcomes,
    proof: {
      lll: exactRan || certified,
      method: exactRan ? 'exact' : certified ? (certificate!.by === 'interval' ? 'interval' : 'certificate') : null,
      transform: transformOk,
      unimodular,
    },
    ...(certificate ? { certificate } : {}),
    timeMs: performance.now() - t0,
  };
}

/**
 * Reports a ladder's progress to onProgress (a stage as it starts, positions at most every
 * everyMs) and hands the current basis to onCheckpoint at most every checkpointMs (from the rung's
 * RungStats.snapshot).
 */
interface Reporter {
  stage(stage: LadderProgress['stage'], st?: RungStats): void;
  at(k: number): void;
}

function progressReporter(
  onProgress: ((p: LadderProgress) => void) | undefined,
  m: number,
  t0: number,
  everyMs: number,
  onCheckpoint: ((basis: bigint[][], p: LadderProgress) => void) | undefined,
  checkpointMs: number,
): Reporter | null {
  if (!onProgress && !onCheckpoint) return null;
  let stage: LadderProgress['stage'] = 'float64',
    furthest = 0,
    last = t0,
    lastCheckpoint = t0;
  // counts of the rungs before the current one (each rung has its own counters)
  let before = { swaps: 0, iterations: 0 };
  let current: RungStats | undefined;
  const progress = (k: number, now: number): LadderProgress => {
    const swaps = before.swaps + (current?.swaps ?? 0),
      iterations = before.iterations + (current?.iterations ?? 0);
    return {
      stage,
      vector: k,
      furthest,
      vectors: m,
      swaps,
      iterations,
      elapsedMs: now - t0,
      ...(current?.pass ? { pass: current.pass } : {}),
    };
  };
  const send = (k: number, now: number) => {
    last = now;
    onProgress?.(progress(k, now));
  };
  return {
    stage(s, st) {
      if (current) before = { swaps: before.swaps + current.swaps, iterations: before.iterations + current.iterations };
      stage = s;
      current = st;
      furthest = 0;
      send(0, performance.now());
    },
    at(k) {
      if (k > furthest) furthest = k;
      const now = performance.now();
      if (now - last >= everyMs) send(k, now);
      const snap = current?.snapshot;
      if (onCheckpoint && snap && now - lastCheckpoint >= checkpointMs) {
        onCheckpoint(snap(), progress(k, now));
        // the time the caller took to save it does not count against the next interval
        lastCheckpoint = performance.now();
      }
    },
  };
}

/**
 * Z with B_in Z = B_out, proven (exact-transform.ts), and with `unimodular` |det Z| = 1 proven too
 * (B_out W = B_in); null where it cannot be (entries past 2^53, or B_out not in the lattice).
 */
function rebuild(Bin: BigBasis, B: BigBasis, n: number, m: number, unimodular: boolean): bigint[] | null {
  if (!B.every((c) => c.every((v) => v <= SAFE && v >= -SAFE))) return null;
  try {
    return rebuildTransform(toFloat64(Bin, n), toFloat64(B, n), n, m, unimodular).Z;
  } catch (err) {
    if (!(err instanceof LatticeMimoError)) throw err;
    return null;
  }
}

function toFloat64(B: BigBasis, n: number): Float64Array {
  const out = new Float64Array(n * B.length);
  B.forEach((c, j) => {
    c.forEach((v, t) => {
      out[j * n + t] = Number(v);
    });
  });
  return out;
}

function fromFloat64(B: Float64Array, n: number, m: number): BigBasis {
  return Array.from({ length: m }, (_, j) => Array.from(B.subarray(j * n, (j + 1) * n), (v) => BigInt(v)));
}

/**
 * The rungs in order, each from the basis the previous left. `f64`: the basis (below 2^53) stays
 * in float64 while it can, and no Z is kept (Z: null, rebuilt by the caller); otherwise BigInt with
 * Z tracked, unless `readableZ` (the caller reads Z off B_out: Z null). `fastRung`: the float64 rung
 * may run (a float64 basis of entries up to FLOAT64_RUNG_BITS bits).
 */
function climb(
  Bin: BigBasis,
  n: number,
  m: number,
  o: ReturnType<typeof resolveOptions>,
  rungs: readonly Rung[],
  fastRung: boolean,
  f64: boolean,
  certify: boolean,
  readableZ: boolean,
  report: Reporter | null,
): { B: BigBasis; Z: BigBasis | null; outcomes: RungOutcome[]; certificate?: Cert } {
  let Bf: Float64Array | null = f64 ? toFloat64(Bin, n) : null;
  let B: BigBasis = Bin.map((c) => c.slice());
  const Z: BigBasis | null =
    f64 || readableZ
      ? null
      : Array.from({ length: m }, (_, j) => Array.from({ length: m }, (_, i) => (i === j ? 1n : 0n)));
  const noZ = (): BigBasis => Array.from({ length: m }, () => []);
  const toBig = () => {
    if (Bf) {
      B = fromFloat64(Bf, n, m);
      Bf = null;
    }
  };
  const outcomes: RungOutcome[] = [];
  let certificate: Cert | undefined;
  let done = false;
  for (const rung of rungs) {
    if (done && rung !== 'exact') continue;
    if (done && certify) {
      // a floating rung finished: the certified float64 proof first, the exact one where it cannot say
      // (the double-double rung may have proven its own output already)
      if (certificate?.status !== 'proven') {
        report?.stage('certificate');
        const tc = performance.now();
        const cert = Bf ? certifyLLL(Bf, n, m, o.delta, o.eta) : certifyLLL(B, n, m, o.delta, o.eta);
        // Gram-Schmidt data over too many orders of magnitude for float64: interval arithmetic on
        // the exact Gram matrix, far cheaper than the exact rung's integral Gram-Schmidt
        const iv =
          cert.status === 'inconclusive' ? intervalLLLProof(Bf ? fromFloat64(Bf, n, m) : B, o.delta, o.eta) : null;
        certificate =
          iv && iv !== 'inconclusive'
            ? {
                status: iv,
                by: 'interval',
                kappa: cert.kappa,
                ms: performance.now() - tc,
                ...(iv === 'not-reduced' ? { reason: 'interval arithmetic: a condition fails' } : {}),
              }
            : { ...cert, by: 'float64', ms: performance.now() - tc };
      }
      if (certificate.status === 'proven') continue;
    }
    // fplll's fast path is for small entries: up to FLOAT64_RUNG_BITS bits (its column operations are
    // exact in any case, bound-checked below 2^53)
    if (rung === 'float64' && (!Bf || !fastRung)) continue;
    const t = performance.now();
    // the basis as the rung holds it: Bf or B in place (stores with their own columns set their own)
    const st: RungStats = {
      swaps: 0,
      sizeReductions: 0,
      iterations: 0,
      snapshot: () => (Bf ? fromFloat64(Bf, n, m) : B.map((c) => c.slice())),
    };
    if (report) {
      report.stage(rung, st);
      st.watch = report.at;
    }
    try {
      if (rung === 'float64') {
        fastLLLFloat64(Bf!, n, m, o.delta, o.eta, o.maxIterations, st);
      } else if (rung === 'double-double') {
        if (Bf) {
          try {
            // float64 Gram-Schmidt first on the exactly kept basis (from where it stops, double-double)
            try {
              st.pass = 'float64 Gram-Schmidt';
              plainLLLFloat64(Bf, n, m, o.delta, o.eta, o.maxIterations, st);
            } catch (err) {
              if (!(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE' && !pastExactRange(err)))
                throw err;
              st.pass = 'double-double Gram-Schmidt';
              ddLLLFloat64(Bf, n, m, o.delta, o.eta, o.maxIterations, st);
            }
          } catch (err) {
            // entries on their way past 2^53: on in BigInt from here
            if (!(err instanceof LatticeMimoError && pastExactRange(err))) throw err;
            toBig();
            certificate = ddBig(B, noZ(), o, st, certify);
          }
        } else certificate = ddBig(B, Z ?? noZ(), o, st, certify);
      } else if (rung === 'quad-double') {
        toBig();
        // the quad-double pass first (the double-double ones broke down here), handing back to them
        // after a bounded number of steps: past the stretch that needs 212 bits they are faster
        const tracked = Z ?? noZ();
        const passes = [
          ...ddPasses(B, tracked, o, st),
          { name: 'quad-double Gram-Schmidt', run: (limit: number) => qdLLL(B, tracked, o.delta, o.eta, limit, st) },
        ];
        runPasses(passes, st, o.maxIterations, STEP_BACK * B.length, passes.length - 1);
      } else {
        toBig();
        exactLLL(B, Z ?? noZ(), o.delta, o.eta, o.maxIterations, st);
      }
      done = true;
      outcomes.push({ rung, ok: true, ms: performance.now() - t, swaps: st.swaps, sizeReductions: st.sizeReductions });
    } catch (err) {
      if (!(err instanceof LatticeMimoError)) throw err;
      if (err instanceof RankDeficientError) {
        // a floating rung met a zero or dependent vector: dependence of the input, decided exactly
        const gs = integralGramSchmidt(Bin);
        if ('dependent' in gs)
          throw new RankDeficientError(
            'RANK_DEFICIENT',
            `basis vector ${gs.dependent} is linearly dependent on the vectors before it (confirmed exactly)`,
            { vector: gs.dependent },
          );
      }
      outcomes.push({
        rung,
        ok: false,
        error: errorRecord(err),
        ms: performance.now() - t,
        swaps: st.swaps,
        sizeReductions: st.sizeReductions,
      });
      // the float64 rung leaves an exact integer basis; should it not be one, start again from the input
      if (rung === 'float64' && Bf && !Bf.every((v) => Number.isSafeInteger(v))) Bf = toFloat64(Bin, n);
    }
  }
  if (!done) {
    // the work done is not lost: the basis as the last rung left it (integer column operations only)
    // is offered where its Gram determinant proves it spans the input's lattice, to start again from
    toBig();
    const partial = gramDeterminant(B) === gramDeterminant(Bin) ? { partial: { basis: B.map((c) => c.slice()) } } : {};
    throw new LatticeMimoError(
      'PRECISION_FAILURE',
      `lll failed on every rung of the precision ladder: ${outcomes.map((r) => `${r.rung} (${r.error?.code}: ${r.error?.message})`).join('; ')}`,
      { rungs: outcomes, ...partial },
    );
  }
  toBig();
  return { B, Z, outcomes, ...(certificate ? { certificate } : {}) };
}

/** Whether a float64 rung stopped because an entry would leave the range where float64 holds integers exactly (2^53). */
function pastExactRange(err: LatticeMimoError): boolean {
  return err.details?.boundBits === 53;
}

/** Main-loop steps per basis vector a slower pass (of the double-double rung, or the quad-double one) takes before the first double-double pass again. */
const STEP_BACK = 100;

/**
 * The double-double rung on BigInt columns, each pass from the basis the one before left: the
 * hybrid store (columns in float64, float64 limb pairs or BigInt; G from the columns) with a
 * float64 Gram-Schmidt (fplll's heuristic on a 53-bit mantissa: fast, but blind to digits past
 * 53 bits); where the certificate does not prove that pass's output, with double-double (on a
 * basis the first pass reduced, one cheap sweep that finds what 53 bits missed; G's entries from
 * the columns' double-double copies), where that does not settle with G's entries of columns past
 * 2^100 exact, and only where that does not settle the exact-G store; a slower pass hands back to
 * the double-double one after a bounded number of steps (passes.ts). Returns the certificate where
 * it proved the first pass.
 */
function ddBig(
  B: BigBasis,
  Z: BigBasis,
  o: ReturnType<typeof resolveOptions>,
  st: RungStats,
  certify: boolean,
): Cert | undefined {
  try {
    st.pass = 'float64 Gram-Schmidt';
    ddLLLHybrid(B, Z, o.delta, o.eta, o.maxIterations, st, true);
    if (certify) {
      const tc = performance.now();
      const cert = certifyLLL(B, B[0]!.length, B.length, o.delta, o.eta);
      if (cert.status === 'proven') return { ...cert, by: 'float64', ms: performance.now() - tc };
    }
  } catch (err) {
    if (!(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE')) throw err;
  }
  // each pass from where the one before stopped, the cheapest first; a slower one hands back to the
  // first after STEP_BACK m main-loop steps (doubled each time: passes.ts)
  runPasses(ddPasses(B, Z, o, st), st, o.maxIterations, STEP_BACK * B.length);
  return undefined;
}

/** The double-double rung's passes after the float64 one, cheapest first (ddBig; the quad-double rung hands back to them). */
function ddPasses(B: BigBasis, Z: BigBasis, o: ReturnType<typeof resolveOptions>, st: RungStats): Pass[] {
  return [
    { name: 'double-double Gram-Schmidt', run: (limit) => ddLLLHybrid(B, Z, o.delta, o.eta, limit, st) },
    {
      name: 'double-double Gram-Schmidt, exact products past 2^100',
      run: (limit) => ddLLLHybrid(B, Z, o.delta, o.eta, limit, st, false, true),
    },
    { name: 'double-double Gram-Schmidt, exact G', run: (limit) => ddLLL(B, Z, o.delta, o.eta, limit, st) },
  ];
}
