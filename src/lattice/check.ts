/**
 * Proof and quality of a reduced basis, independent of the algorithm that produced it:
 *  - the LLL conditions (|mu_ij| <= eta, Lovasz with delta) re-checked in float64;
 *  - the pairwise Lagrange conditions that the Jacobi method guarantees;
 *  - exact unimodularity of Z (integer entries, |det Z| = 1) in integer arithmetic;
 *  - B_in Z = B_out (exactly, in integers, when B_in is integral);
 *  - Hadamard ratio, orthogonality defect and root Hermite factor.
 */
import { InvalidArgumentError, show } from '../core/index.js';
import { checkArray, checkParam, checkSizes } from './check-args.js';
import { addProduct } from './lll/columns.js';

/**
 * Gram-Schmidt in float64 (modified Gram-Schmidt, on a copy) of B (n x m, column-major): mu is
 * m x m column-major, mu[i + j*m] = mu_{i,j} for j < i; r (length m) holds ||b*_i||^2.
 */
export function gramSchmidt(B: ArrayLike<number>, n: number, m: number): { mu: Float64Array; r: Float64Array } {
  checkSizes('gramSchmidt()', n, m);
  checkArray('gramSchmidt()', 'B', B, n * m, 'n x m');
  const q = Float64Array.from(B as ArrayLike<number>);
  const mu = new Float64Array(m * m);
  const r = new Float64Array(m); // r[j] = ||b*_j||^2
  for (let j = 0; j < m; j++) {
    const qj = j * n;
    for (let i = 0; i < j; i++) {
      // mu_{j,i} = <b_j, b*_i> / ||b*_i||^2, with b_j already orthogonalised against b*_0..b*_{i-1}
      const qi = i * n;
      let dot = 0;
      for (let t = 0; t < n; t++) dot += q[qj + t]! * q[qi + t]!;
      const c = r[i]! > 0 ? dot / r[i]! : 0;
      mu[j + i * m] = c;
      for (let t = 0; t < n; t++) q[qj + t]! -= c * q[qi + t]!;
    }
    let s = 0;
    for (let t = 0; t < n; t++) s += q[qj + t]! * q[qj + t]!;
    r[j] = s;
  }
  return { mu, r };
}

/** The LLL conditions of one basis, checked in float64 (checkLLL). */
export interface LLLCheck {
  /** Every condition holds within the tolerance, and every figure is finite. */
  ok: boolean;
  /** max |mu_ij| over j < i. */
  maxMu: number;
  /** min over k of (||b*_k||^2 + mu_{k,k-1}^2 ||b*_{k-1}||^2) / ||b*_{k-1}||^2 - delta (>= 0 when Lovasz holds). */
  lovaszSlack: number;
  /** First violations found, as text. */
  violations: string[];
}

/** Relative tolerance of the float64 re-check (rounding in the check itself). */
export const CHECK_TOLERANCE = 1e-9;

/** What gramSchmidt() returns: mu (m x m, column-major, mu[i + j*m] = mu_ij) and r (m squared norms ||b*_i||^2). */
export type GramSchmidt = ReturnType<typeof gramSchmidt>;

/** A caller's Gram-Schmidt data: mu of m x m, r of m. */
function checkGramSchmidt(call: string, gs: unknown, m: number): void {
  const g = gs as Partial<GramSchmidt> | null;
  if (g === null || typeof g !== 'object')
    throw new InvalidArgumentError(`${call}: gs must be gramSchmidt()'s result {mu, r}, got ${show(gs)}`, {
      option: 'gs',
    });
  checkArray(call, 'gs.mu', g.mu, m * m, 'm x m');
  checkArray(call, 'gs.r', g.r, m, 'm');
}

/**
 * The LLL conditions (size reduction |mu_ij| <= eta, Lovasz with delta) of B (n x m, column-major),
 * re-checked in float64 within relative tolerance `tol`. `gs`: the basis's Gram-Schmidt data when
 * the caller has it already (it is computed otherwise).
 */
export function checkLLL(
  B: ArrayLike<number>,
  n: number,
  m: number,
  delta: number,
  eta: number,
  tol = CHECK_TOLERANCE,
  gs?: GramSchmidt,
): LLLCheck {
  const call = 'checkLLL()';
  checkSizes(call, n, m);
  checkArray(call, 'B', B, n * m, 'n x m');
  checkParam(call, 'delta', delta, 0, 1, true);
  checkParam(call, 'eta', eta, 0, 1);
  checkParam(call, 'tol', tol, 0, 1);
  if (gs !== undefined) checkGramSchmidt(call, gs, m);
  const { mu, r } = gs ?? gramSchmidt(B, n, m);
  const violations: string[] = [];
  let maxMu = 0;
  let lovaszSlack = Infinity;
  for (let i = 0; i < m; i++) {
    if (!(r[i]! > 0)) violations.push(`||b*_${i}||^2 = ${r[i]} (dependent vectors)`);
    for (let j = 0; j < i; j++) {
      const a = Math.abs(mu[i + j * m]!);
      if (a > maxMu) maxMu = a;
      if (a > eta + tol && violations.length < 5) violations.push(`|mu_${i},${j}| = ${a} > eta = ${eta}`);
    }
  }
  for (let k = 1; k < m; k++) {
    const m1 = mu[k + (k - 1) * m]!;
    const slack = (r[k]! + m1 * m1 * r[k - 1]!) / r[k - 1]! - delta;
    if (slack < lovaszSlack) lovaszSlack = slack;
    if (slack < -tol && violations.length < 5) violations.push(`Lovasz fails at k = ${k}: slack ${slack}`);
  }
  if (m === 1) lovaszSlack = 0;
  return { ok: violations.length === 0 && Number.isFinite(maxMu), maxMu, lovaszSlack, violations };
}

/** The pairwise Lagrange conditions of one basis (checkLagrangePairs), the Jacobi method's output condition. */
export interface LagrangeCheck {
  /** Every pair holds within the tolerance. */
  ok: boolean;
  /** max over pairs of |b_i . b_j| / min(||b_i||^2, ||b_j||^2); at most 1/2 when every pair is Lagrange-reduced. */
  maxRatio: number;
  /** First violations found, as text (at most 5). */
  violations: string[];
}

/** Whether every pair of columns of B (n x m, column-major) is Lagrange-reduced: |b_i . b_j| <= min(||b_i||^2, ||b_j||^2) / 2. */
export function checkLagrangePairs(B: ArrayLike<number>, n: number, m: number, tol = CHECK_TOLERANCE): LagrangeCheck {
  checkSizes('checkLagrangePairs()', n, m);
  checkArray('checkLagrangePairs()', 'B', B, n * m, 'n x m');
  checkParam('checkLagrangePairs()', 'tol', tol, 0, 1);
  const norms = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let s = 0;
    for (let t = 0; t < n; t++) s += B[j * n + t]! * B[j * n + t]!;
    norms[j] = s;
  }
  let maxRatio = 0;
  const violations: string[] = [];
  for (let i = 0; i < m; i++) {
    if (!(norms[i]! > 0)) violations.push(`column ${i} is zero`);
    for (let j = i + 1; j < m; j++) {
      let d = 0;
      for (let t = 0; t < n; t++) d += B[i * n + t]! * B[j * n + t]!;
      const ratio = Math.abs(d) / Math.min(norms[i]!, norms[j]!);
      if (ratio > maxRatio) maxRatio = ratio;
      if (ratio > 0.5 + tol && violations.length < 5)
        violations.push(`pair (${i}, ${j}): |b_i.b_j| / min norm^2 = ${ratio} > 1/2`);
    }
  }
  return { ok: violations.length === 0, maxRatio, violations };
}

/** Whether a transform Z is unimodular, proven in exact integer arithmetic (checkUnimodular). */
export interface UnimodularCheck {
  /** Every entry an integer and |det Z| = 1. */
  ok: boolean;
  /** Every entry is an integer. */
  integer: boolean;
  /** det Z, exactly (when integer). */
  det: bigint | null;
  /**
   * inverse: an integer inverse checked exactly; bareiss: the exact determinant; lattice: a wide Z
   * (past 2^53) with B_in Z = B_out and B_out W = B_in proven for integers Z, W (exact-transform.ts).
   */
  method: 'inverse' | 'bareiss' | 'lattice' | 'none';
}

/** Exact determinant of an integer matrix by fraction-free (Bareiss) elimination on BigInt. */
export function bareissDet(a: ArrayLike<number>, m: number): bigint {
  const M: bigint[] = Array.from(a as ArrayLike<number>, (v) => BigInt(v));
  let sign = 1n;
  let prev = 1n;
  for (let k = 0; k < m - 1; k++) {
    // pivot: a nonzero entry in column k at or below row k (column-major: M[i + k*m])
    let p = k;
    while (p < m && M[p + k * m] === 0n) p++;
    if (p === m) return 0n;
    if (p !== k) {
      for (let j = 0; j < m; j++) {
        const t = M[k + j * m]!;
        M[k + j * m] = M[p + j * m]!;
        M[p + j * m] = t;
      }
      sign = -sign;
    }
    const pkk = M[k + k * m]!;
    for (let i = k + 1; i < m; i++) {
      const aik = M[i + k * m]!;
      for (let j = k + 1; j < m; j++) M[i + j * m] = (M[i + j * m]! * pkk - aik * M[k + j * m]!) / prev;
      M[i + k * m] = 0n;
    }
    prev = pkk;
  }
  return sign * M[m * m - 1]!;
}

/**
 * Float64 inverse by Gauss-Jordan with partial pivoting, rounded to integers, and the sign of the
 * determinant (from the pivots and the row swaps); null when singular. Works on row-major copies so
 * that the row operations run over contiguous memory; returns the inverse column-major.
 */
function roundedInverse(z: ArrayLike<number>, m: number): { inv: Float64Array; sign: number } | null {
  const a = new Float64Array(m * m),
    w = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) a[i * m + j] = z[i + j * m]!;
    w[i * m + i] = 1;
  }
  let sign = 1;
  for (let k = 0; k < m; k++) {
    let p = k,
      best = Math.abs(a[k * m + k]!);
    for (let i = k + 1; i < m; i++) {
      const v = Math.abs(a[i * m + k]!);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (best === 0) return null;
    if (p !== k) {
      sign = -sign;
      for (let j = 0; j < m; j++) {
        let t = a[k * m + j]!;
        a[k * m + j] = a[p * m + j]!;
        a[p * m + j] = t;
        t = w[k * m + j]!;
        w[k * m + j] = w[p * m + j]!;
        w[p * m + j] = t;
      }
    }
    const piv = a[k * m + k]!;
    if (piv < 0) sign = -sign;
    const rk = k * m;
    for (let j = 0; j < m; j++) {
      a[rk + j]! /= piv;
      w[rk + j]! /= piv;
    }
    for (let i = 0; i < m; i++) {
      if (i === k) continue;
      const ri = i * m,
        f = a[ri + k]!;
      if (f === 0) continue;
      for (let j = k; j < m; j++) a[ri + j]! -= f * a[rk + j]!;
      for (let j = 0; j < m; j++) w[ri + j]! -= f * w[rk + j]!;
    }
  }
  const inv = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) inv[i + j * m] = Math.round(w[i * m + j]!);
  return { inv, sign };
}

/** Z * W == I exactly, in integer arithmetic (doubles where every partial sum is below 2^53, BigInt otherwise). */
function isExactInverse(z: ArrayLike<number>, w: Float64Array, m: number): boolean {
  let maxZ = 0,
    maxW = 0;
  for (let i = 0; i < m * m; i++) {
    maxZ = Math.max(maxZ, Math.abs(z[i]!));
    maxW = Math.max(maxW, Math.abs(w[i]!));
  }
  if (maxZ * maxW * m < 2 ** 53) {
    // every partial sum is an exact integer
    const zw = new Float64Array(m * m);
    addProduct(z, w, m, m, zw);
    for (let j = 0; j < m; j++) for (let i = 0; i < m; i++) if (zw[i + j * m] !== (i === j ? 1 : 0)) return false;
    return true;
  }
  for (let j = 0; j < m; j++) {
    for (let i = 0; i < m; i++) {
      let s = 0n;
      for (let k = 0; k < m; k++) {
        const a = z[i + k * m]!,
          b = w[k + j * m]!;
        if (a !== 0 && b !== 0) s += BigInt(a) * BigInt(b);
      }
      if (s !== (i === j ? 1n : 0n)) return false;
    }
  }
  return true;
}

/**
 * Exact unimodularity of Z (m x m, column-major): every entry an integer and |det Z| = 1. First tries to exhibit an integer
 * inverse W (the float64 inverse, rounded) with Z W = I checked exactly: then det Z * det W = 1 with
 * both integers, so |det Z| = 1, and its sign is the float64 elimination's (a determinant of
 * magnitude 1 cannot change sign through rounding). If that fails, the exact Bareiss determinant.
 */
export function checkUnimodular(Z: ArrayLike<number>, m: number): UnimodularCheck {
  checkSizes('checkUnimodular()', m, m);
  checkArray('checkUnimodular()', 'Z', Z, m * m, 'm x m');
  for (let i = 0; i < m * m; i++) {
    const v = Z[i]!;
    if (!Number.isSafeInteger(v)) return { ok: false, integer: false, det: null, method: 'none' };
  }
  const r = roundedInverse(Z, m);
  if (r && isExactInverse(Z, r.inv, m)) return { ok: true, integer: true, det: BigInt(r.sign), method: 'inverse' };
  const det = bareissDet(Z, m);
  return { ok: det === 1n || det === -1n, integer: true, det, method: 'bareiss' };
}

export function isIntegral(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isInteger(a[i]!)) return false;
  return true;
}

/**
 * B_in Z (B_in n x m, Z m x m, both column-major; the result n x m, float64), exactly when B_in is
 * integral (BigInt where doubles could round), else in float64. Returns null when an exact integer entry does not fit a double exactly (|v| > 2^53).
 */
export function applyTransform(
  Bin: ArrayLike<number>,
  Z: ArrayLike<number>,
  n: number,
  m: number,
): Float64Array | null {
  checkSizes('applyTransform()', n, m);
  checkArray('applyTransform()', 'Bin', Bin, n * m, 'n x m');
  checkArray('applyTransform()', 'Z', Z, m * m, 'm x m');
  const out = new Float64Array(n * m);
  const integral = isIntegral(Bin);
  let maxB = 0,
    maxZ = 0;
  for (let i = 0; i < n * m; i++) maxB = Math.max(maxB, Math.abs(Bin[i]!));
  for (let i = 0; i < m * m; i++) maxZ = Math.max(maxZ, Math.abs(Z[i]!));
  if (!integral || maxB * maxZ * m < 2 ** 53) {
    addProduct(Bin, Z, n, m, out);
    return out;
  }
  return exactProduct(Bin, Z, n, m, maxB, maxZ);
}

/**
 * B Z exactly for integral B and Z whose float64 product could round: Z is cut into signed limbs
 * of LIMB_BITS bits (Z = sum_l Z_l 2^(LIMB_BITS l)), each B Z_l is exact in float64 when
 * m max|B| 2^LIMB_BITS < 2^53, and the partial results are combined exactly (in doubles when the
 * sum provably fits, in BigInt otherwise). Falls back to BigInt products when B is too large.
 * Null when an entry of B Z does not fit a double exactly.
 */
function exactProduct(
  Bin: ArrayLike<number>,
  Z: ArrayLike<number>,
  n: number,
  m: number,
  maxB: number,
  maxZ: number,
): Float64Array | null {
  const out = new Float64Array(n * m);
  const limbBits = Math.floor(52 - Math.log2(Math.max(1, m * maxB)));
  if (limbBits < 8) {
    for (let j = 0; j < m; j++)
      for (let i = 0; i < n; i++) {
        let s = 0n;
        for (let k = 0; k < m; k++) {
          const z = Z[k + j * m]!;
          if (z !== 0) s += BigInt(Bin[i + k * n]!) * BigInt(z);
        }
        const v = Number(s);
        if (BigInt(v) !== s) return null;
        out[i + j * n] = v;
      }
    return out;
  }
  const base = 2 ** limbBits;
  let limbs = 1;
  while (base ** limbs / 2 <= maxZ) limbs++;
  // limb l of every entry of Z, balanced (|digit| <= base / 2) so that negative entries need no borrow chains
  const digits: Float64Array[] = Array.from({ length: limbs }, () => new Float64Array(m * m));
  for (let e = 0; e < m * m; e++) {
    let v = Z[e]!;
    for (let l = 0; l < limbs; l++) {
      const r = v - base * Math.round(v / base); // exact: v is an integer below 2^53
      digits[l]![e] = r;
      v = (v - r) / base;
    }
  }
  const part = digits.map((d) => {
    const P = new Float64Array(n * m);
    addProduct(Bin, d, n, m, P);
    return P;
  });
  for (let e = 0; e < n * m; e++) {
    let bound = 0,
      v = 0;
    for (let l = limbs - 1; l >= 0; l--) {
      v = v * base + part[l]![e]!;
      bound = bound * base + Math.abs(part[l]![e]!);
    }
    if (bound < 2 ** 53) {
      out[e] = v;
      continue;
    }
    let s = 0n;
    for (let l = limbs - 1; l >= 0; l--) s = s * BigInt(base) + BigInt(part[l]![e]!);
    const w = Number(s);
    if (BigInt(w) !== s) return null;
    out[e] = w;
  }
  return out;
}

/** Quality of one basis L (n x m); every figure is computed from float64 Gram-Schmidt. */
export interface QualityMetrics {
  /** (det L / prod ||b_i||)^(1/m), in (0, 1]; 1 for an orthogonal basis (the Jacobi paper's measure). */
  hadamardRatio: number;
  /** prod ||b_i|| / det L, >= 1. */
  orthogonalityDefect: number;
  /** (||b_1|| / det L^(1/m))^(1/m), the first basis vector (fplll's convention). */
  rootHermiteFactor: number;
  /** log2 of the lattice determinant sqrt(det B^T B). */
  log2Det: number;
}

/** Quality metrics of one basis B (n x m, column-major); `gs` reuses Gram-Schmidt data the caller has. */
export function qualityMetrics(B: ArrayLike<number>, n: number, m: number, gs?: GramSchmidt): QualityMetrics {
  checkSizes('qualityMetrics()', n, m);
  checkArray('qualityMetrics()', 'B', B, n * m, 'n x m');
  if (gs !== undefined) checkGramSchmidt('qualityMetrics()', gs, m);
  const { r } = gs ?? gramSchmidt(B, n, m);
  let logDet = 0,
    logProd = 0;
  for (let j = 0; j < m; j++) {
    logDet += 0.5 * Math.log(r[j]!);
    let s = 0;
    for (let t = 0; t < n; t++) s += B[j * n + t]! * B[j * n + t]!;
    logProd += 0.5 * Math.log(s);
  }
  let b1 = 0;
  for (let t = 0; t < n; t++) b1 += B[t]! * B[t]!;
  return {
    hadamardRatio: Math.exp((logDet - logProd) / m),
    orthogonalityDefect: Math.exp(logProd - logDet),
    rootHermiteFactor: Math.exp((0.5 * Math.log(b1) - logDet / m) / m),
    log2Det: logDet / Math.LN2,
  };
}
