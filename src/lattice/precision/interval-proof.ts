/**
 * A proof of the LLL conditions of an integer basis in fixed-point interval arithmetic, for bases
 * whose Gram-Schmidt data span too many orders of magnitude for the float64 certificate
 * (certify.ts): from the exact Gram matrix G = B^T B, the recursion
 *   r_ij = G_ij - sum_{k<j} mu_jk r_ik,  mu_ij = r_ij / r_jj   (j < i),  r_ii as r_ij at j = i,
 * (r_jj = ||b*_j||^2) on intervals of numbers x / 2^P (BigInt x), every bound rounded outwards, so
 * each interval holds the exact value. Then |mu_ij| <= eta and the Lovasz condition
 * (delta - mu_{k,k-1}^2) r_{k-1} <= r_k are decided where the intervals do: 'proven' where all hold
 * for every point, 'not-reduced' where one fails for every point, else 'inconclusive' (the caller
 * then runs the exact proof). The widths grow with m (by about (1 + eta)^m at worst), so P is
 * chosen from the entries' width and m, and doubled once where the first try cannot decide.
 *
 * Cost: m^3 / 6 interval multiply-subtracts on numbers of about P plus G's bits, where the exact
 * proof (exact.ts: integralGramSchmidt) works on integers of up to m times G's bits.
 * Shapes: B as m columns of n integers (exact.ts's BigBasis).
 */
import { maxBits, type BigBasis } from './exact.js';

/** floor(a / b), b > 0. */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a < 0n && q * b !== a ? q - 1n : q;
}

/** ceil(a / b), b > 0. */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a > 0n && q * b !== a ? q + 1n : q;
}

/** A finite double times 2^P, rounded down (exact where its fraction bits are at most P). */
function fixedDown(x: number, P: number): bigint {
  // x = s 2^e exactly with an integer s below 2^53
  let e = 0,
    s = x;
  while (!Number.isInteger(s)) {
    s *= 2;
    e--;
  }
  const v = BigInt(s);
  return e + P >= 0 ? v << BigInt(e + P) : floorDiv(v, 1n << BigInt(-(e + P)));
}

/** [lo, hi] / 2^P. */
interface Iv {
  lo: bigint;
  hi: bigint;
}

/** The interval of a x b (both scaled by 2^P), rounded outwards (>> is a floor on BigInts). */
function mul(a: Iv, b: Iv, P: bigint): Iv {
  const p1 = a.lo * b.lo,
    p2 = a.lo * b.hi,
    p3 = a.hi * b.lo,
    p4 = a.hi * b.hi;
  let lo = p1,
    hi = p1;
  if (p2 < lo) lo = p2;
  else if (p2 > hi) hi = p2;
  if (p3 < lo) lo = p3;
  else if (p3 > hi) hi = p3;
  if (p4 < lo) lo = p4;
  else if (p4 > hi) hi = p4;
  return { lo: lo >> P, hi: -(-hi >> P) };
}

export type IntervalProof = 'proven' | 'not-reduced' | 'inconclusive';

/** The LLL conditions of B at working precision P bits (see the file comment). */
export function intervalLLLProofAt(B: BigBasis, delta: number, eta: number, P: number): IntervalProof {
  const m = B.length;
  const one = 1n << BigInt(P),
    bp = BigInt(P);
  // eta and delta as fixed-point bounds: below and above (equal where their bits fit in P)
  const etaLo = fixedDown(eta, P),
    etaUp = -fixedDown(-eta, P);
  const deltaLo = fixedDown(delta, P),
    deltaUp = -fixedDown(-delta, P);
  // r[i][j] for j <= i and mu[i][j] for j < i, as intervals scaled by 2^P
  const r: Iv[][] = [],
    mu: Iv[][] = [];
  let undecided = false;
  for (let i = 0; i < m; i++) {
    const ri: Iv[] = [],
      mi: Iv[] = [];
    const bi = B[i]!;
    for (let j = 0; j <= i; j++) {
      const bj = B[j]!;
      let g = 0n;
      for (let t = 0; t < bi.length; t++) if (bi[t] !== 0n && bj[t] !== 0n) g += bi[t]! * bj[t]!;
      let lo = g << BigInt(P),
        hi = lo;
      const mj = j === i ? mi : mu[j]!;
      for (let k = 0; k < j; k++) {
        const p = mul(mj[k]!, ri[k]!, bp);
        lo -= p.hi;
        hi -= p.lo;
      }
      ri.push({ lo, hi });
      if (j < i) {
        const d = r[j]![j]!;
        if (d.lo <= 0n) return 'inconclusive';
        // [lo, hi] / [d.lo, d.hi] with d > 0, scaled by 2^P
        const q = [lo * one, hi * one];
        const qlo = lo >= 0n ? floorDiv(q[0]!, d.hi) : floorDiv(q[0]!, d.lo);
        const qhi = hi >= 0n ? ceilDiv(q[1]!, d.lo) : ceilDiv(q[1]!, d.hi);
        const x: Iv = { lo: qlo, hi: qhi };
        mi.push(x);
        // size: |mu_ij| <= eta (refuted only past eta rounded up, proven only within it rounded down)
        if (x.lo > etaUp || x.hi < -etaUp) return 'not-reduced';
        if (x.hi > etaLo || x.lo < -etaLo) undecided = true;
      }
    }
    r.push(ri);
    mu.push(mi);
    if (ri[i]!.lo <= 0n) return 'inconclusive';
    if (i > 0) {
      // Lovasz at i: (delta - mu_{i,i-1}^2) r_{i-1} <= r_i
      const m1 = mi[i - 1]!,
        sq = mul(m1, m1, bp);
      const sqLo = m1.lo <= 0n && m1.hi >= 0n ? 0n : sq.lo;
      const f: Iv = { lo: deltaLo - sq.hi, hi: deltaUp - sqLo };
      const lhs = mul(f, r[i - 1]![i - 1]!, bp),
        rhs = ri[i]!;
      if (lhs.lo > rhs.hi) return 'not-reduced';
      if (lhs.hi > rhs.lo) undecided = true;
    }
  }
  return undecided ? 'inconclusive' : 'proven';
}

/**
 * The LLL conditions of B proven or refuted in interval arithmetic, at 2 x (entry bits) + m + 64
 * bits and, where that cannot decide, at twice as many.
 */
export function intervalLLLProof(B: BigBasis, delta: number, eta: number): IntervalProof {
  if (B.length === 0) return 'proven';
  const P = 2 * maxBits(B) + B.length + 64;
  const first = intervalLLLProofAt(B, delta, eta, P);
  return first === 'inconclusive' ? intervalLLLProofAt(B, delta, eta, 2 * P) : first;
}
