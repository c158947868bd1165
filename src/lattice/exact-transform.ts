/**
 * The exact transform of an integral reduction whose Z outgrew float64 (an entry past 2^53).
 *
 * For integral input the reducers keep B exact on its own (integer column operations below 2^53),
 * so Z can be dropped during the reduction and rebuilt afterwards as the integer solution of
 * B_in Z = B_out. It is found modulo word-sized primes (Gaussian elimination on the augmented
 * [B_in | B_out], one prime at a time) and lifted by Garner's mixed-radix Chinese remaindering,
 * with as many primes as the proof needs:
 *   - every prime's solution satisfies B_in X = B_out on *all* rows mod p (the pivot rows by the
 *     elimination, the remaining rows of a tall basis are checked to reduce to zero), so the lifted
 *     Z satisfies B_in Z = B_out mod P, P the product of the primes;
 *   - primes are added until Z stops changing and P > 2 D, D = m max|B_in| max|Z| + max|B_out|
 *     bounding |B_in Z - B_out|: then B_in Z = B_out holds exactly, over the integers.
 * Unimodularity follows the same way from W with B_out W = B_in (exact): B_in Z W = B_in and B_in
 * has full column rank, so Z W = I with Z and W integral, hence det Z = +-1. The sign of det Z is
 * read from det(Z mod p), which can only be 1 or p - 1.
 */
import { checkArray, checkSizes } from './check-args.js';
import { InvalidArgumentError, show, CheckFailedError } from '../core/index.js';

/** What rebuilding gives: Z (column-major, m x m) and how it was proven. */
export interface ExactTransform {
  /** Column-major m x m. */
  Z: bigint[];
  /** Bits of the largest |Z_ij| (its binary length). */
  maxBits: number;
  /** Primes used for Z. */
  primes: number;
}

/** The primes found so far below each limit, largest first (a call needs a few; later calls reuse them). */
const primeCache = new Map<number, number[]>();

/** Primes below `limit`, largest first (trial division: the limit is at most 2^26), from the cache first. */
function* primesBelow(limit: number): Generator<number> {
  let list = primeCache.get(limit);
  if (!list) {
    list = [];
    primeCache.set(limit, list);
  }
  for (let i = 0; ; i++) {
    if (i < list.length) {
      yield list[i]!;
      continue;
    }
    let c = i === 0 ? (limit - 1) | 1 : list[i - 1]! - 2;
    for (; c > 3; c -= 2) {
      let prime = true;
      for (let d = 3; d * d <= c; d += 2)
        if (c % d === 0) {
          prime = false;
          break;
        }
      if (prime) break;
    }
    if (c <= 3) return;
    list.push(c);
    yield c;
  }
}

/**
 * The largest prime size for which the lazy elimination stays exact: entries grow by less than p^2
 * per elimination step and see at most m + 1 steps before being reduced, all below 2^53.
 */
function primeLimit(m: number): number {
  return Math.min(2 ** 26, Math.floor(Math.sqrt((2 ** 53 - 2 ** 27) / (m + 2))));
}

/**
 * v mod p in [0, p) for an integer |v| < 2^53, by a multiplication with invP = 1 / p (much faster
 * than the floating-point remainder): the quotient's floor is off by at most one, then corrected.
 */
function modMul(v: number, p: number, invP: number): number {
  const r = v - p * Math.floor(v * invP);
  return r < 0 ? r + p : r >= p ? r - p : r;
}

function invMod(a: number, p: number): number {
  let t = 0,
    nt = 1,
    r = p,
    nr = a;
  while (nr !== 0) {
    const q = Math.floor(r / nr);
    [t, nt] = [nt, t - q * nt];
    [r, nr] = [nr, r - q * nr];
  }
  return t < 0 ? t + p : t;
}

/**
 * X (m x m, column-major residues in [0, p)) with A X = C mod p, A and C n x m column-major
 * integer matrices; null when A has rank < m mod p (an unlucky prime). Throws when the system is
 * inconsistent mod p (some row outside the pivot rows does not reduce to zero): then C is not in
 * the lattice of A.
 */
function solveModP(A: ArrayLike<number>, C: ArrayLike<number>, n: number, m: number, p: number): Float64Array | null {
  const w = 2 * m; // row-major augmented rows [A_i | C_i]
  const M = new Float64Array(n * w);
  const invP = 1 / p;
  for (let j = 0; j < m; j++) {
    const jo = j * n;
    for (let i = 0; i < n; i++) {
      M[i * w + j] = modMul(A[jo + i]!, p, invP);
      M[i * w + m + j] = modMul(C[jo + i]!, p, invP);
    }
  }
  const tmp = new Float64Array(w);
  for (let c = 0; c < m; c++) {
    let piv = -1;
    for (let i = c; i < n; i++) {
      const v = modMul(M[i * w + c]!, p, invP);
      M[i * w + c] = v;
      if (v !== 0) {
        piv = i;
        break;
      }
    }
    if (piv < 0) return null;
    if (piv !== c) {
      tmp.set(M.subarray(piv * w, piv * w + w));
      M.copyWithin(piv * w, c * w, c * w + w);
      M.set(tmp, c * w);
    }
    // the pivot row, reduced and scaled to a unit pivot
    const ro = c * w;
    const inv = invMod(M[ro + c]!, p);
    for (let j = c; j < w; j++) M[ro + j] = modMul(modMul(M[ro + j]!, p, invP) * inv, p, invP);
    for (let i = c + 1; i < n; i++) {
      const io = i * w;
      const f = modMul(M[io + c]!, p, invP);
      if (f === 0) continue;
      const g = p - f; // row_i += (p - f) row_c: nonnegative, lazily reduced
      for (let j = c + 1; j < w; j++) M[io + j]! += g * M[ro + j]!;
      M[io + c] = 0;
    }
  }
  // rows below the pivots must have reduced to zero on the C side
  for (let i = m; i < n; i++) {
    const io = i * w;
    for (let j = m; j < w; j++) {
      if (modMul(M[io + j]!, p, invP) !== 0) throw notInLattice();
    }
  }
  // back substitution on the C side: row_i -= U_ic row_c, c from the last pivot up
  for (let c = m - 1; c >= 0; c--) {
    const ro = c * w;
    for (let j = m; j < w; j++) M[ro + j] = modMul(M[ro + j]!, p, invP);
    for (let i = 0; i < c; i++) {
      const io = i * w;
      const u = M[io + c]!; // reduced when row i was the pivot
      if (u === 0) continue;
      const g = p - u;
      for (let j = m; j < w; j++) M[io + j]! += g * M[ro + j]!;
    }
  }
  const X = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) X[i + j * m] = modMul(M[i * w + m + j]!, p, invP);
  return X;
}

function notInLattice(): CheckFailedError {
  return new CheckFailedError(
    'the reduced basis is not in the lattice of the input (B_in Z = B_out has no integer solution): the reduction lost exactness',
  );
}

/** det(X) mod p of an m x m residue matrix (column-major), by elimination (residues below p < 2^26, reduced by modMul). */
function detModP(X: Float64Array, m: number, p: number): number {
  const a = Float64Array.from(X);
  const invP = 1 / p;
  let det = 1;
  for (let c = 0; c < m; c++) {
    let piv = -1;
    for (let i = c; i < m; i++)
      if (a[i + c * m] !== 0) {
        piv = i;
        break;
      }
    if (piv < 0) return 0;
    if (piv !== c) {
      for (let j = 0; j < m; j++) {
        const t = a[c + j * m]!;
        a[c + j * m] = a[piv + j * m]!;
        a[piv + j * m] = t;
      }
      det = p - det;
    }
    const d = a[c + c * m]!;
    det = modMul(det * d, p, invP);
    const inv = invMod(d, p);
    for (let i = c + 1; i < m; i++) {
      const f = modMul(a[i + c * m]! * inv, p, invP);
      if (f === 0) continue;
      // row_i += (p - f) row_c: every term below p^2 + p < 2^53
      const g = p - f;
      for (let j = c; j < m; j++) a[i + j * m] = modMul(a[i + j * m]! + g * a[c + j * m]!, p, invP);
    }
  }
  return det;
}

function maxAbs(a: ArrayLike<number>): number {
  let big = 0;
  for (let i = 0; i < a.length; i++) big = Math.max(big, Math.abs(a[i]!));
  return big;
}

/**
 * An integral n x m matrix as the elimination reads it: its entries modulo a prime (any integers
 * below 2^53 in magnitude, which solveModP reduces itself), and log2 of its largest |entry|.
 */
interface IntegerMatrix {
  residues(p: number): ArrayLike<number>;
  log2Max: number;
}

function float64Matrix(A: ArrayLike<number>): IntegerMatrix {
  return { residues: () => A, log2Max: Math.log2(Math.max(1, maxAbs(A))) };
}

/** Columns of BigInts (m columns of n) as an IntegerMatrix: column-major residues, made per prime. */
function bigMatrix(cols: readonly (readonly bigint[])[]): IntegerMatrix {
  const m = cols.length,
    n = cols[0]!.length;
  let big = 0n;
  for (const c of cols)
    for (const v of c) {
      const a = v < 0n ? -v : v;
      if (a > big) big = a;
    }
  const bits = big.toString(2).length;
  const log2Max =
    big === 0n ? 0 : bits > 1000 ? Math.log2(Number(big >> BigInt(bits - 64))) + bits - 64 : Math.log2(Number(big));
  return {
    log2Max,
    residues(p: number) {
      const out = new Float64Array(n * m);
      const P = BigInt(p);
      for (let j = 0; j < m; j++) {
        const c = cols[j]!;
        for (let t = 0; t < n; t++) {
          // small entries (most of a reduced basis' unit coordinates) without BigInt division
          const v = c[t]!;
          const r = v >= -0x1fffffffffffffn && v <= 0x1fffffffffffffn ? Number(v) % p : Number(v % P);
          out[j * n + t] = r < 0 ? r + p : r;
        }
      }
      return out;
    },
  };
}

/**
 * Bound on the primes tried before giving up (each adds about 20 bits: Z up to about 1200 bits),
 * raised by the entries' bits for bases of large entries (liftSolution).
 */
const MAX_PRIMES = 64;

/**
 * The integer X with A X = C exactly (A: n x m integral of full column rank, C: n x m integral),
 * proven as the module comment says; also det(X mod p) for the first prime p used.
 */
function liftSolution(
  A: IntegerMatrix,
  C: IntegerMatrix,
  n: number,
  m: number,
): ExactTransform & { detMod: { p: number; det: number } } {
  const mm = m * m;
  const used: number[] = [];
  // mixed-radix digits, centered: X = d_0 + d_1 p_0 + d_2 p_0 p_1 + ...; digits[t][e]
  const digits: Float64Array[] = [];
  let log2P = 0;
  let topDigit = -1; // highest digit index that is nonzero for some entry
  const logA = A.log2Max,
    logC = C.log2Max;
  // the proof's bound grows with the entries (a knapsack basis of thousands of bits): primes enough for it
  const maxPrimes = Math.max(MAX_PRIMES, Math.ceil((logA + logC) / 20) + 32);
  let detMod: { p: number; det: number } | undefined;
  let unlucky = 0;
  for (const p of primesBelow(primeLimit(m))) {
    if (used.length >= maxPrimes || unlucky > 20) break;
    const X = solveModP(A.residues(p), C.residues(p), n, m, p);
    if (!X) {
      unlucky++;
      continue;
    }
    detMod ??= { p, det: detModP(X, m, p) };
    // Garner: the value so far mod p, sum_s d_s (p_0 ... p_{s-1} mod p) (each term below 2^43,
    // the sum reduced as it goes: exact), then the new centered digit
    const t = used.length;
    const weight = new Float64Array(t);
    let radix = 1;
    for (let s = 0; s < t; s++) {
      weight[s] = radix;
      radix = (radix * (used[s]! % p)) % p;
    }
    const radixInv = invMod(radix, p);
    const d = new Float64Array(mm);
    const changed = garnerDigit(X, digits, weight, radixInv, p, d);
    digits.push(d);
    used.push(p);
    log2P += Math.log2(p);
    if (changed) topDigit = t;
    // |X| < (P up to the top digit) / 2 + 1; the proof needs P > 2 (m max|A| max|X| + max|C|)
    let log2Top = 0;
    for (let s = 0; s <= topDigit; s++) log2Top += Math.log2(used[s]!);
    const log2D = Math.max(Math.log2(m) + logA + log2Top, logC) + 1;
    if (!changed && log2P > log2D + 2) {
      return { ...toBigInt(digits, used, topDigit, mm), primes: used.length, detMod: detMod! };
    }
  }
  throw new CheckFailedError(
    `could not rebuild the transform exactly (${used.length} primes, ${unlucky} unlucky): the reduced basis may not be in the input's lattice`,
  );
}

/**
 * The next centered mixed-radix digit of each entry into d (Garner: (X - value so far) / radix
 * mod p); whether any is nonzero. Its own function: the loop is hot, the caller is not.
 */
function garnerDigit(
  X: Float64Array,
  digits: readonly Float64Array[],
  weight: Float64Array,
  radixInv: number,
  p: number,
  d: Float64Array,
): boolean {
  const invP = 1 / p,
    t = weight.length;
  let changed = false;
  for (let e = 0; e < d.length; e++) {
    let v = 0;
    // each term below 2^46: reduced every 64 terms, the sum stays exact past MAX_PRIMES primes
    for (let s = 0; s < t; s++) {
      v += digits[s]![e]! * weight[s]!;
      if ((s & 63) === 63) v = modMul(v, p, invP);
    }
    let dig = modMul(modMul(X[e]! - v, p, invP) * radixInv, p, invP);
    if (dig > p / 2) dig -= p;
    d[e] = dig;
    if (dig !== 0) changed = true;
  }
  return changed;
}

/** The BigInt values of the mixed-radix digits, and the bits of the largest |value|. */
function toBigInt(digits: Float64Array[], primes: number[], top: number, mm: number): { Z: bigint[]; maxBits: number } {
  const radix: bigint[] = [1n];
  for (let s = 0; s < top; s++) radix.push(radix[s]! * BigInt(primes[s]!));
  const Z: bigint[] = new Array<bigint>(mm);
  let big = 0n;
  for (let e = 0; e < mm; e++) {
    let v = 0n;
    for (let s = top; s >= 0; s--) {
      const dg = digits[s]![e]!;
      if (dg !== 0) v += BigInt(dg) * radix[s]!;
    }
    Z[e] = v;
    const a = v < 0n ? -v : v;
    if (a > big) big = a;
  }
  return { Z, maxBits: big.toString(2).length };
}

/**
 * Rebuilds the exact transform Z with B_in Z = B_out (B_in, B_out: n x m integral, column-major,
 * B_in of full column rank) and, when `proveUnimodular`, shows it unimodular through the integer
 * W with B_out W = B_in, `det` then being det Z (1n or -1n; null when not asked). Throws
 * CheckFailedError when either has no integer solution.
 */
export function rebuildTransform(
  Bin: ArrayLike<number>,
  Bout: ArrayLike<number>,
  n: number,
  m: number,
  proveUnimodular: boolean,
): ExactTransform & { det: bigint | null } {
  const call = 'rebuildTransform()';
  checkSizes(call, n, m);
  checkArray(call, 'Bin', Bin, n * m, 'n x m');
  checkArray(call, 'Bout', Bout, n * m, 'n x m');
  if (typeof proveUnimodular !== 'boolean')
    throw new InvalidArgumentError(`${call}: proveUnimodular must be true or false, got ${show(proveUnimodular)}`, {
      option: 'proveUnimodular',
    });
  return rebuildFrom(float64Matrix(Bin), float64Matrix(Bout), n, m, proveUnimodular);
}

/**
 * rebuildTransform() for integers of any size: B_in and B_out as m columns of n BigInts (B_in of
 * full column rank); Z column-major as rebuildTransform's. The proof is the same (residues past the
 * bound of B_in Z - B_out; with `proveUnimodular`, the integer W with B_out W = B_in).
 */
export function rebuildTransformBig(
  Bin: readonly (readonly bigint[])[],
  Bout: readonly (readonly bigint[])[],
  proveUnimodular: boolean,
): ExactTransform & { det: bigint | null } {
  const m = Bin.length,
    n = Bin[0]!.length;
  if (Bout.length !== m || Bout.some((c) => c.length !== n) || Bin.some((c) => c.length !== n))
    throw new InvalidArgumentError('rebuildTransformBig(): B_in and B_out must both be m columns of n integers');
  return rebuildFrom(bigMatrix(Bin), bigMatrix(Bout), n, m, proveUnimodular);
}

function rebuildFrom(
  Bin: IntegerMatrix,
  Bout: IntegerMatrix,
  n: number,
  m: number,
  proveUnimodular: boolean,
): ExactTransform & { det: bigint | null } {
  const z = liftSolution(Bin, Bout, n, m);
  if (!proveUnimodular) return { Z: z.Z, maxBits: z.maxBits, primes: z.primes, det: null };
  liftSolution(Bout, Bin, n, m); // throws when B_in is not in the lattice of B_out
  const { p, det } = z.detMod;
  if (det !== 1 && det !== p - 1)
    throw new CheckFailedError(`det Z mod ${p} is ${det}, not +-1, although Z W = I was proven`);
  return { Z: z.Z, maxBits: z.maxBits, primes: z.primes, det: det === 1 ? 1n : -1n };
}

/** For each basis vector i, a coordinate where it is +-1 and every other vector is 0 (unitCoordinates). */
export interface UnitCoordinates {
  /** coord[i]: the coordinate of vector i. */
  coord: Int32Array;
  /** sign[i]: vector i's entry there, 1 or -1. */
  sign: Int8Array;
}

/**
 * Coordinates on which a basis (m vectors of n BigInts) is a signed permutation of the identity,
 * as in knapsack bases [a | I]; null where some vector has none. Then the transform of any
 * reduction of it is read off the reduced basis (readTransform), so it need not be tracked.
 */
export function unitCoordinates(B: readonly (readonly bigint[])[]): UnitCoordinates | null {
  const m = B.length,
    n = B[0]?.length ?? 0;
  const coord = new Int32Array(m).fill(-1),
    sign = new Int8Array(m);
  for (let t = 0; t < n; t++) {
    let only = -1;
    for (let i = 0; i < m; i++) {
      if (B[i]![t] === 0n) continue;
      if (only >= 0) {
        only = -2;
        break;
      }
      only = i;
    }
    if (only < 0 || coord[only]! >= 0) continue;
    const v = B[only]![t]!;
    if (v === 1n || v === -1n) {
      coord[only] = t;
      sign[only] = v === 1n ? 1 : -1;
    }
  }
  return coord.every((t) => t >= 0) ? { coord, sign } : null;
}

/**
 * Z (m columns of m) with B_in Z = B_out, read off B_out at B_in's unit coordinates:
 * B_out_j[coord_i] = Z_ij sign_i. It is the transform whenever B_out is in the lattice of B_in
 * (B_in has full rank: Z is unique); the caller checks B_in Z = B_out exactly.
 */
export function readTransform(Bout: readonly (readonly bigint[])[], u: UnitCoordinates): bigint[][] {
  return Bout.map((b) => Array.from(u.coord, (t, i) => (u.sign[i] === 1 ? b[t]! : -b[t]!)));
}
