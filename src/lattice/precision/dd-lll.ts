/**
 * LLL on a BigInt basis with an exact BigInt Gram matrix and a double-double Gram-Schmidt: the
 * heuristic rung of the precision ladder (fplll's L2 "wrapper" idea: integer basis, floating
 * Gram-Schmidt, Babai's size reduction repeated until it settles; when it does not, the caller goes
 * up a rung). Every column operation is exact (BigInt), so a breakdown never loses the basis: the
 * next rung starts from where this one stopped.
 *
 * The Gram matrix G = B^T B is exact and updated with each size reduction; its entries enter the
 * Gram-Schmidt recurrence as double-doubles (about 106 bits) times one global power of two chosen
 * from the largest norm, so entries of any size fit the double exponent range (the role fplll's dpe
 * plays; the dynamic range of a basis must stay below about 2^1900 for this rung).
 *
 * Shapes: B is m columns of n BigInts, Z is m columns of m BigInts (B_out = B_in Z); both are
 * updated in place. Positions are physical: a swap exchanges columns of B and Z, rows and columns
 * of G.
 */
import { LatticeMimoError } from '../../core/errors.js';
import type { BigBasis } from './exact.js';

const SPLIT = 134217729; // 2^27 + 1, Dekker's splitter
/** Babai rounds at one position before the rung is declared broken down (fplll's "infinite loop in babai"). */
const MAX_BABAI = 48;

export interface DdRunStats { swaps: number; sizeReductions: number; iterations: number }

// double-double results of the helpers below (module scratch: no allocation in the hot loops)
let rh = 0, rl = 0;

/** (sh + sl) - (ah + al)(bh + bl) into (rh, rl). */
function subMul(sh: number, sl: number, ah: number, al: number, bh: number, bl: number): void {
  const ph = ah * bh;
  let t = SPLIT * ah;
  const ahh = t - (t - ah), ahl = ah - ahh;
  t = SPLIT * bh;
  const bhh = t - (t - bh), bhl = bh - bhh;
  const pl = ((ahh * bhh - ph) + ahh * bhl + ahl * bhh) + ahl * bhl + (ah * bl + al * bh);
  const v = sh - ph;
  const bb = v - sh;
  const err = (sh - (v - bb)) - (ph + bb) + (sl - pl);
  rh = v + err;
  rl = err - (rh - v);
}

/** (ah + al) / (bh + bl) into (rh, rl). */
function div(ah: number, al: number, bh: number, bl: number): void {
  const q1 = ah / bh;
  subMul(ah, al, q1, 0, bh, bl);
  const q2 = rh / bh;
  const s = q1 + q2;
  rl = q2 - (s - q1);
  rh = s;
}

function bitLength(x: bigint): number {
  return (x < 0n ? -x : x).toString(2).length;
}

export class DdLLL {
  private readonly G: bigint[];
  private readonly gh: Float64Array;
  private readonly gl: Float64Array;
  private readonly muH: Float64Array;
  private readonly muL: Float64Array;
  private readonly rH: Float64Array;
  private readonly rL: Float64Array;
  private readonly valid: Int32Array;
  private readonly shift: bigint;
  private readonly xs: bigint[];
  private readonly n: number;
  private readonly m: number;
  private readonly bound: number;

  constructor(
    private readonly B: BigBasis, private readonly Z: BigBasis,
    private readonly delta: number, eta: number, private readonly maxIterations: number, private readonly stats: DdRunStats,
  ) {
    const m = B.length, n = B[0]!.length;
    this.m = m; this.n = n;
    this.G = new Array<bigint>(m * m);
    let maxBits = 0;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j <= i; j++) {
        let s = 0n;
        const a = B[i]!, b = B[j]!;
        for (let t = 0; t < n; t++) s += a[t]! * b[t]!;
        this.G[i * m + j] = s; this.G[j * m + i] = s;
      }
      maxBits = Math.max(maxBits, bitLength(this.G[i * m + i]!));
    }
    this.shift = BigInt(Math.max(0, maxBits - 960));
    this.gh = new Float64Array(m * m); this.gl = new Float64Array(m * m);
    for (let a = 0; a < m * m; a++) this.convert(a);
    this.muH = new Float64Array(m * m); this.muL = new Float64Array(m * m);
    this.rH = new Float64Array(m * m); this.rL = new Float64Array(m * m);
    this.valid = new Int32Array(m);
    this.xs = new Array<bigint>(m).fill(0n);
    // rounding slack on eta, as the float64 engine: the exact rung that follows decides
    this.bound = eta;
  }

  private convert(a: number): void {
    const v = this.shift > 0n ? this.G[a]! >> this.shift : this.G[a]!;
    const hi = Number(v);
    if (!Number.isFinite(hi)) throw this.failure('a Gram entry is out of the double-double range');
    this.gh[a] = hi;
    this.gl[a] = Number(v - BigInt(hi));
  }

  private failure(why: string, details: Record<string, unknown> = {}): LatticeMimoError {
    return new LatticeMimoError('PRECISION_FAILURE', `double-double lll: ${why}`, details);
  }

  run(): void {
    const { m } = this;
    if (m < 2) return;
    this.computeRow(0);
    let k = 1;
    while (k < m) {
      if (this.stats.iterations++ >= this.maxIterations) throw this.failure(`more than ${this.maxIterations} main-loop steps`);
      this.sizeReduce(k);
      const km = k * m, pm = (k - 1) * m;
      const x = this.muH[km + k - 1]!;
      const rk = this.rH[km + k]!, rp = this.rH[pm + k - 1]!;
      if (this.delta * rp > rk + x * x * rp) {
        this.swap(k);
        this.stats.swaps++;
        if (k > 1) k--;
        else this.computeRow(0);
      } else k++;
    }
  }

  /** Row k of mu and r from its first invalid entry, and r_kk (rows below k complete). */
  private computeRow(k: number): void {
    const { muH, muL, rH, rL, gh, gl, m } = this;
    const ko = k * m;
    for (let j = this.valid[k]!; j <= k; j++) {
      const jo = j * m;
      let sh = gh[ko + j]!, sl = gl[ko + j]!;
      for (let i = 0; i < j; i++) {
        subMul(sh, sl, muH[jo + i]!, muL[jo + i]!, rH[ko + i]!, rL[ko + i]!);
        sh = rh; sl = rl;
      }
      rH[ko + j] = sh; rL[ko + j] = sl;
      if (j < k) {
        div(sh, sl, rH[jo + j]!, rL[jo + j]!);
        muH[ko + j] = rh; muL[ko + j] = rl;
      }
    }
    this.valid[k] = k;
    // r_kk <= 0 (rounding): the Lovasz test fails and b_k moves down, as in fplll; only NaN is a breakdown
    if (Number.isNaN(rH[ko + k]!)) throw this.failure(`the projection of vector ${k} is not a number`, { vector: k });
  }

  /** Babai's nearest plane on b_k, repeated on a fresh row until a sweep changes nothing. */
  private sizeReduce(k: number): void {
    const { m, muH, muL, bound, xs } = this;
    const ko = k * m;
    for (let round = 0; round < MAX_BABAI; round++) {
      this.computeRow(k);
      let any = false;
      for (let j = k - 1; j >= 0; j--) {
        const x = muH[ko + j]! + muL[ko + j]!;
        if (!(Math.abs(x) > bound)) { xs[j] = 0n; continue; }
        const h = Math.round(muH[ko + j]!);
        const X = Math.abs(h) < 2 ** 52 ? Math.round(x) : h + Math.round(muH[ko + j]! - h + muL[ko + j]!);
        const bx = Math.abs(h) < 2 ** 52 ? BigInt(X) : BigInt(h) + BigInt(Math.round(muH[ko + j]! - h + muL[ko + j]!));
        xs[j] = bx;
        any = true;
        // approximate update of the rest of the row (recomputed exactly from G next round)
        const jo = j * m;
        muH[ko + j] = muH[ko + j]! - X; muL[ko + j] = 0;
        for (let i = 0; i < j; i++) muH[ko + i] = muH[ko + i]! - X * muH[jo + i]!;
        this.stats.sizeReductions++;
      }
      if (!any) return;
      this.apply(k);
      this.valid[k] = 0;
      for (let t = k + 1; t < m; t++) if (this.valid[t]! > k) this.valid[t] = k;
    }
    throw this.failure(`size reduction of vector ${k} did not settle within ${MAX_BABAI} rounds`, { vector: k });
  }

  /** b_k -= sum_j X_j b_j (xs), with Z and the exact G row and column of k. */
  private apply(k: number): void {
    const { B, Z, G, m, n, xs } = this;
    const bk = B[k]!, zk = Z[k]!;
    for (let j = 0; j < k; j++) {
      const X = xs[j]!;
      if (X === 0n) continue;
      const bj = B[j]!, zj = Z[j]!;
      for (let t = 0; t < n; t++) { const v = bj[t]!; if (v !== 0n) bk[t] = bk[t]! - X * v; }
      for (let t = 0; t < m; t++) { const v = zj[t]!; if (v !== 0n) zk[t] = zk[t]! - X * v; }
    }
    const ko = k * m;
    for (let i = 0; i < m; i++) {
      if (i === k) continue;
      let s = G[ko + i]!;
      for (let j = 0; j < k; j++) { const X = xs[j]!; if (X !== 0n) s -= X * G[j * m + i]!; }
      G[ko + i] = s; G[i * m + k] = s;
      this.convert(ko + i);
      this.gh[i * m + k] = this.gh[ko + i]!; this.gl[i * m + k] = this.gl[ko + i]!;
    }
    let s = 0n;
    for (let t = 0; t < n; t++) { const v = bk[t]!; if (v !== 0n) s += v * v; }
    G[ko + k] = s;
    this.convert(ko + k);
  }

  /** Exchanges positions k - 1 and k: columns of B and Z, rows and columns of G, rows of mu and r. */
  private swap(k: number): void {
    const { B, Z, G, gh, gl, muH, muL, rH, rL, m, valid } = this;
    const p = k - 1;
    [B[k], B[p]] = [B[p]!, B[k]!];
    [Z[k], Z[p]] = [Z[p]!, Z[k]!];
    const ko = k * m, po = p * m;
    for (let t = 0; t < m; t++) {
      let a = G[ko + t]!; G[ko + t] = G[po + t]!; G[po + t] = a;
      let f = gh[ko + t]!; gh[ko + t] = gh[po + t]!; gh[po + t] = f;
      f = gl[ko + t]!; gl[ko + t] = gl[po + t]!; gl[po + t] = f;
      f = muH[ko + t]!; muH[ko + t] = muH[po + t]!; muH[po + t] = f;
      f = muL[ko + t]!; muL[ko + t] = muL[po + t]!; muL[po + t] = f;
      f = rH[ko + t]!; rH[ko + t] = rH[po + t]!; rH[po + t] = f;
      f = rL[ko + t]!; rL[ko + t] = rL[po + t]!; rL[po + t] = f;
      void a;
    }
    for (let t = 0; t < m; t++) {
      const a = G[t * m + k]!; G[t * m + k] = G[t * m + p]!; G[t * m + p] = a;
      let f = gh[t * m + k]!; gh[t * m + k] = gh[t * m + p]!; gh[t * m + p] = f;
      f = gl[t * m + k]!; gl[t * m + k] = gl[t * m + p]!; gl[t * m + p] = f;
    }
    valid[p] = p; valid[k] = p;
    for (let t = k + 1; t < m; t++) if (valid[t]! > p) valid[t] = p;
  }
}

/** Runs the double-double rung in place (throws PRECISION_FAILURE when it breaks down). */
export function ddLLL(B: BigBasis, Z: BigBasis, delta: number, eta: number, maxIterations: number, stats: DdRunStats): void {
  if (B.length >= 2) new DdLLL(B, Z, delta, eta, maxIterations, stats).run();
}
