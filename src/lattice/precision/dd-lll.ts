/**
 * LLL with a double-double Gram-Schmidt: the heuristic rung of the precision ladder (fplll's L2
 * "wrapper" idea: integer basis, floating Gram-Schmidt from the Gram matrix, Babai's size
 * reduction repeated until it settles; when it does not, the caller goes up a rung). Every column
 * operation is exact, so a breakdown never loses the basis: the next rung starts from where this
 * one stopped.
 *
 * Three stores for the basis (Store):
 *  - Float64Store: integers below 2^53 in float64 columns (n x m column-major), each update checked
 *    to stay exact; G in double-double with exact products (Dekker), updated with each size
 *    reduction; no Z (the ladder rebuilds it exactly). For bases that start below 2^53.
 *  - HybridStore: any integers, each column in float64, float64 limb pairs, 26-bit digits in
 *    float64s or BigInt (ColumnSet, limb-columns.ts), Z tracked the same way; G recomputed from
 *    the columns (float64 or double-double). The fast one for entries past 2^53.
 *  - BigStore: BigInt columns of any size, exact BigInt G and Z; G enters the recurrence as
 *    double-doubles times one global power of two chosen from the largest norm, so norms past the
 *    double range fit (the role of fplll's dpe, for bases whose dynamic range stays below ~2^1900).
 *    The fallback where the hybrid store does not settle.
 * Shapes: BigBasis = m columns of n BigInts; Z m columns of m (B_out = B_in Z), or empty columns
 * when Z is not tracked. Positions are physical: a swap exchanges columns, rows and columns of G.
 */
import { LatticeMimoError } from '../../core/index.js';
import type { BigBasis } from './exact.js';
import { SPLIT, subProduct, type Acc } from '../lll/double-double.js';
import { ColumnSet, F64_LIMIT, R, X_EXACT, bigX } from './limb-columns.js';
import { WATCH_MASK, type RungStats } from './rung-stats.js';
import { div as qdDiv, fromBig, roundToBig, subMul as qdSubMul } from './quad-double.js';

/** Babai rounds at one position before the rung is declared broken down (fplll's "infinite loop in babai"). */
const MAX_BABAI = 48;

// double-double results of the helpers below (module scratch: no allocation in the hot loops)
let rh = 0,
  rl = 0;

const acc: Acc = { hi: 0, lo: 0 };
/** An exact dot product rounded to a double-double (ColumnSet.dotDigits). */
const dd = new Float64Array(2);
/** Quad-double results (quad-double.ts), and a Gram entry's limbs 2 and 3 beside (rh, rl). */
const q4 = new Float64Array(4);
let r2 = 0,
  r3 = 0;

/**
 * G by limb (row-major m x m by position): high and low parts, and in quad-double mode limbs 2
 * and 3 (empty arrays otherwise).
 */
interface Gram {
  h: Float64Array;
  l: Float64Array;
  x2: Float64Array;
  x3: Float64Array;
}

/** (sh + sl) - (ah + al)(bh + bl) into (rh, rl). */
function subMul(sh: number, sl: number, ah: number, al: number, bh: number, bl: number): void {
  acc.hi = sh;
  acc.lo = sl;
  subProduct(acc, ah, al, bh, bl);
  rh = acc.hi;
  rl = acc.lo;
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

/** Writes the Gram entry in (rh, rl, r2, r3) at (i, j) and (j, i). */
function putGram(g: Gram, m: number, i: number, j: number): void {
  const a = i * m + j,
    b = j * m + i;
  g.h[a] = rh;
  g.l[a] = rl;
  g.h[b] = rh;
  g.l[b] = rl;
  if (g.x2.length) {
    g.x2[a] = r2;
    g.x3[a] = r3;
    g.x2[b] = r2;
    g.x3[b] = r3;
  }
}

/** G, both triangles, from `dot(i, j)`, which leaves <b_i, b_j> in (rh, rl) (and r2, r3 for a quad-double G). */
function fillGram(m: number, dot: (i: number, j: number) => void, g: Gram): void {
  for (let i = 0; i < m; i++)
    for (let j = 0; j <= i; j++) {
      dot(i, j);
      putGram(g, m, i, j);
    }
}

/** Exchanges rows k and p, then columns k and p, of the m x m row-major A (G by position, or its flags). */
function swapPositions<T>(A: { [i: number]: T }, m: number, k: number, p: number): void {
  const ko = k * m,
    po = p * m;
  for (let t = 0; t < m; t++) {
    const f = A[ko + t]!;
    A[ko + t] = A[po + t]!;
    A[po + t] = f;
  }
  for (let t = 0; t < m; t++) {
    const f = A[t * m + k]!;
    A[t * m + k] = A[t * m + p]!;
    A[t * m + p] = f;
  }
}

/**
 * G = B^T B exactly into G (m x m row-major, B m columns), and the power of two that brings its
 * largest diagonal entry to 2^960 (0 below that): the scale of an exact-G store's floating copy.
 */
function exactGram(B: BigBasis, G: bigint[]): bigint {
  const m = B.length,
    n = B[0]!.length;
  let maxBits = 0;
  for (let i = 0; i < m; i++) {
    const a = B[i]!;
    for (let j = 0; j <= i; j++) {
      const c = B[j]!;
      let s = 0n;
      for (let t = 0; t < n; t++) {
        const x = a[t]!,
          y = c[t]!;
        if (x !== 0n && y !== 0n) s += x * y;
      }
      G[i * m + j] = s;
      G[j * m + i] = s;
    }
    maxBits = Math.max(maxBits, bitLength(G[i * m + i]!));
  }
  return BigInt(Math.max(0, maxBits - 960));
}

/**
 * Where the basis lives: the Gram-Schmidt code only sees G by limbs (Gram) and asks the store to
 * apply b_k -= sum_j X_j b_j and to swap two positions.
 */
interface Store {
  readonly m: number;
  /** Fills G (scaled as the store chooses; quad-double limbs where g has them: ExactGramStore). */
  init(g: Gram): void;
  /** b_k -= sum_{j<k} X_j b_j, with G's row and column k in g (exact G kept where the store has one). */
  apply(k: number, X: Float64Array, big: bigint[], g: Gram): void;
  swap(k: number): void;
  /** Makes G's entries (k, j), j <= k, current in g (for a store that recomputes G lazily). */
  row?(k: number, g: Gram): void;
}

/** BigInt columns, exact BigInt G (any size), BigInt Z. */
class BigStore implements Store {
  readonly m: number;
  private readonly n: number;
  private readonly G: bigint[];
  private shift = 0n;
  constructor(
    private readonly B: BigBasis,
    private readonly Z: BigBasis,
    private readonly fail: (why: string, details?: Record<string, unknown>) => LatticeMimoError,
  ) {
    this.m = B.length;
    this.n = B[0]!.length;
    this.G = new Array<bigint>(this.m * this.m);
  }
  init(g: Gram): void {
    this.shift = exactGram(this.B, this.G);
    for (let a = 0; a < this.m * this.m; a++) this.convert(a, g);
  }
  private convert(a: number, g: Gram): void {
    const { h: gh, l: gl } = g;
    const v = this.shift > 0n ? this.G[a]! >> this.shift : this.G[a]!;
    const hi = Number(v);
    if (!Number.isFinite(hi)) throw this.fail('a Gram entry is out of the double-double range');
    gh[a] = hi;
    gl[a] = Number(v - BigInt(hi));
  }
  apply(k: number, xd: Float64Array, xsBig: bigint[], g: Gram): void {
    const { B, Z, G, m, n } = this;
    const bk = B[k]!,
      zk = Z[k]!;
    const xs = new Array<bigint>(k);
    for (let j = 0; j < k; j++) xs[j] = xd[j] === 0 ? 0n : bigX(xd, xsBig, j);
    for (let j = 0; j < k; j++) {
      const X = xs[j]!;
      if (X === 0n) continue;
      const bj = B[j]!,
        zj = Z[j]!;
      for (let t = 0; t < n; t++) {
        const v = bj[t]!;
        if (v !== 0n) bk[t] = bk[t]! - X * v;
      }
      for (let t = 0; t < zj.length; t++) {
        const v = zj[t]!;
        if (v !== 0n) zk[t] = zk[t]! - X * v;
      }
    }
    const ko = k * m;
    const nz: number[] = [];
    for (let j = 0; j < k; j++) if (xs[j] !== 0n) nz.push(j);
    for (let i = 0; i < m; i++) {
      if (i === k) continue;
      let s = G[ko + i]!;
      for (const j of nz) s -= xs[j]! * G[j * m + i]!;
      G[ko + i] = s;
      G[i * m + k] = s;
      this.convert(ko + i, g);
      g.h[i * m + k] = g.h[ko + i]!;
      g.l[i * m + k] = g.l[ko + i]!;
    }
    let s = 0n;
    for (let t = 0; t < n; t++) {
      const v = bk[t]!;
      if (v !== 0n) s += v * v;
    }
    G[ko + k] = s;
    this.convert(ko + k, g);
  }
  swap(k: number): void {
    const { B, Z, G, m } = this;
    const p = k - 1;
    [B[k], B[p]] = [B[p]!, B[k]!];
    [Z[k], Z[p]] = [Z[p]!, Z[k]!];
    swapPositions(G, m, k, p);
  }
}

/**
 * A store whose basis and Z live in ColumnSets (exact columns of any size) while it runs: flush()
 * writes them back into the caller's BigInt columns (after a breakdown too: the basis is never
 * lost), columns() copies the basis for RungStats.snapshot.
 */
abstract class ColumnStore {
  readonly m: number;
  protected readonly b: ColumnSet;
  protected readonly z: ColumnSet;
  constructor(
    protected readonly B: BigBasis,
    private readonly Z: BigBasis,
  ) {
    this.m = B.length;
    this.b = new ColumnSet(
      B.map((c) => c.slice()),
      B[0]!.length,
    );
    this.z = new ColumnSet(
      Z.map((c) => c.slice()),
      Z[0]?.length ?? 0,
    );
  }
  /** Writes the current basis and Z back into the caller's BigInt columns. */
  flush(): void {
    for (let j = 0; j < this.m; j++) {
      const bj = this.b.big(j),
        zj = this.z.big(j);
      for (let t = 0; t < bj.length; t++) this.B[j]![t] = bj[t]!;
      for (let t = 0; t < zj.length; t++) this.Z[j]![t] = zj[t]!;
    }
  }
  /** Copies of the current basis columns (RungStats.snapshot). */
  columns(): bigint[][] {
    return Array.from({ length: this.m }, (_, j) => this.b.big(j).slice());
  }
}

/**
 * Integers of any size column by column (ColumnSet: float64, pairs of float64 limbs, 26-bit digits,
 * BigInt), every column operation exact. Every column of B also has a double-double copy (exact
 * below 2^106), and G's row k is recomputed from those copies after each size reduction of b_k:
 * error about 2^-104 ||b_k|| ||b_i|| (an update from the multipliers would lose the digits that
 * cancel when b_k shrinks by many orders); exactly, from the digits, where the copies' products
 * cancel. No exact G, and BigInt work only for entries past 2^389 or multipliers past 2^52 (fplll:
 * an integer basis with a floating Gram-Schmidt from it). Entries up to 2^400 (beyond, Dekker's
 * splitting could overflow: the caller goes on with BigStore). `flush()` writes B and Z back (after
 * a breakdown too: the basis is never lost).
 */
class HybridStore extends ColumnStore implements Store {
  private readonly n: number;
  /** Columns of B (n x m, column-major) as double-doubles Bh + Bl. */
  private readonly Bh: Float64Array;
  /** Plain mode: Bh cut into 26-bit halves Sh + Sl (Dekker's splitting, once per column change), for dot's exact products. */
  private readonly Sh: Float64Array;
  private readonly Sl: Float64Array;
  private readonly Bl: Float64Array;
  /** Whether G's entry (i, j) in gh, gl is current (m x m, symmetric): recomputed only when read. */
  private readonly gValid: Uint8Array;
  constructor(
    B: BigBasis,
    Z: BigBasis,
    private readonly fail: (why: string, details?: Record<string, unknown>) => LatticeMimoError,
    /** G in float64 only (fplll's heuristic rung on a 53-bit mantissa), for DdLLL's plain mode. */
    private readonly plain = false,
    /** Entries of G with a column past 2^100 always exact (from the digits), not from the copies. */
    private readonly exactWide = false,
  ) {
    super(B, Z);
    const m = this.m,
      n = B[0]!.length;
    this.n = n;
    this.Bh = new Float64Array(n * m);
    this.Bl = new Float64Array(n * m);
    this.Sh = new Float64Array(plain ? n * m : 0);
    this.Sl = new Float64Array(plain ? n * m : 0);
    this.gValid = new Uint8Array(m * m).fill(1);
    for (let j = 0; j < m; j++) this.copy(j);
  }
  /** The double-double copy of column j of B (and in plain mode the halves of its high part). */
  private copy(j: number): void {
    this.copyPair(j);
    if (!this.plain) return;
    const { Bh, Sh, Sl, n } = this,
      o = j * n;
    for (let t = o; t < o + n; t++) {
      const x = Bh[t]!,
        u = SPLIT * x,
        h = u - (u - x);
      Sh[t] = h;
      Sl[t] = x - h;
    }
  }
  private copyPair(j: number): void {
    const { b, Bh, Bl, n } = this,
      o = j * n;
    if (b.tier[j] === 1) {
      Bh.set(b.F.subarray(o, o + n), o);
      Bl.fill(0, o, o + n);
      return;
    }
    if (b.tier[j] === 2) {
      for (let t = o; t < o + n; t++) {
        const x = b.F[t]! * R,
          y = b.L[t]!,
          s = x + y,
          bb = s - x;
        Bh[t] = s;
        Bl[t] = x - (s - bb) + (y - bb);
      }
      return;
    }
    if (b.tier[j] === 3) {
      b.copyDigits(j, Bh, Bl, o);
      return;
    }
    const c = b.cols[j]!;
    for (let t = 0; t < n; t++) {
      const hi = Number(c[t]!);
      if (!(Math.abs(hi) < 2 ** 400))
        throw this.fail('an entry passed 2^400 (the hybrid store stops; the exact Gram matrix goes on)', {
          boundBits: 400,
        });
      Bh[o + t] = hi;
      Bl[o + t] = Number(c[t]! - BigInt(hi));
    }
  }
  /** <b_i, b_j> from the columns' copies (double-double, or float64 in plain mode), into (rh, rl). */
  private dot(i: number, j: number): void {
    const { Bh, Bl, n } = this;
    const io = i * n,
      jo = j * n;
    if (this.b.tier[i]! >= 3 || this.b.tier[j]! >= 3) {
      if (this.plain) {
        // a float64 Gram-Schmidt needs 53 bits: the product of the (rounded) copies in twice the
        // working precision (Ogita, Rump and Oishi's Dot2: exact products x_h y_h = p + e from the
        // halves, the sum of the p by two-sum, every error term summed beside it), about
        // 2^-104 n^2 sum |x y| off, serves unless the sum cancelled below 2^-40 of that
        const { Sh, Sl } = this;
        let s = 0,
          c = 0,
          mag = 0;
        for (let t = 0; t < n; t++) {
          const x = Bh[io + t]!,
            y = Bh[jo + t]!,
            p = x * y;
          const xh = Sh[io + t]!,
            xl = Sl[io + t]!,
            yh = Sh[jo + t]!,
            yl = Sl[jo + t]!;
          const e = xh * yh - p + xh * yl + xl * yh + xl * yl;
          const q = s + p,
            bb = q - s;
          c += s - (q - bb) + (p - bb) + e + (x * Bl[jo + t]! + Bl[io + t]! * y);
          s = q;
          mag += Math.abs(p);
        }
        const r = s + c;
        if (Math.abs(r) >= mag * 2 ** -40 && Number.isFinite(mag)) {
          rh = r;
          rl = 0;
          return;
        }
      } else if (!this.exactWide) {
        // the product of the double-double copies (each entry within 2^-104 of its value): G off by
        // about 2^-104 n sum |x y|, the L2 bound at 106 bits (a vector far longer than the one it
        // is reduced against then takes a second Babai round, as in fplll's heuristic); exactly,
        // below, only where the sum cancelled below 2^-40 of that
        const mag = this.copiesDot(io, jo);
        if (Math.abs(acc.hi) >= mag * 2 ** -40 && Number.isFinite(mag)) {
          rh = acc.hi;
          rl = acc.lo;
          return;
        }
      }
      // the product exactly where the rounded copies cancelled: from the digits below 2^390, else in BigInt
      if (this.b.tier[i]! <= 3 && this.b.tier[j]! <= 3) {
        this.b.dotDigits(i, j, dd);
        rh = dd[0]!;
        rl = this.plain ? 0 : dd[1]!;
        return;
      }
      const a = this.b.big(i),
        c = this.b.big(j);
      let s = 0n;
      for (let t = 0; t < n; t++) {
        const x = a[t]!,
          y = c[t]!;
        if (x !== 0n && y !== 0n) s += x * y;
      }
      const hi = Number(s);
      rh = hi;
      rl = this.plain || !Number.isFinite(hi) ? 0 : Number(s - BigInt(hi));
      return;
    }
    if (this.plain) {
      // four partial sums: the additions do not wait on each other
      let s0 = 0,
        s1 = 0,
        s2 = 0,
        s3 = 0,
        t = 0;
      for (; t + 3 < n; t += 4) {
        s0 += Bh[io + t]! * Bh[jo + t]!;
        s1 += Bh[io + t + 1]! * Bh[jo + t + 1]!;
        s2 += Bh[io + t + 2]! * Bh[jo + t + 2]!;
        s3 += Bh[io + t + 3]! * Bh[jo + t + 3]!;
      }
      for (; t < n; t++) s0 += Bh[io + t]! * Bh[jo + t]!;
      rh = s0 + s1 + (s2 + s3);
      rl = 0;
      return;
    }
    // below 2^100 the copies are exact
    this.copiesDot(io, jo);
    rh = acc.hi;
    rl = acc.lo;
  }
  /** <copy i, copy j> (columns at io, jo of Bh + Bl) in double-double into acc; returns sum |x_h y_h|. */
  private copiesDot(io: number, jo: number): number {
    const { Bh, Bl, n } = this;
    acc.hi = 0;
    acc.lo = 0;
    let mag = 0;
    for (let t = 0; t < n; t++) {
      const a = Bh[io + t]!,
        c = Bh[jo + t]!;
      if (a !== 0 && c !== 0) {
        subProduct(acc, -a, -Bl[io + t]!, c, Bl[jo + t]!);
        mag += Math.abs(a * c);
      }
    }
    return mag;
  }
  init(g: Gram): void {
    const { m } = this;
    fillGram(m, (i, j) => this.dot(i, j), g);
    for (let i = 0; i < m; i++)
      if (!Number.isFinite(g.h[i * m + i]!)) throw this.fail('a Gram entry is out of the double range');
  }
  apply(k: number, xd: Float64Array, xs: bigint[], _g: Gram): void {
    const { m } = this;
    const nz: number[] = [];
    for (let j = 0; j < k; j++) if (xd[j] !== 0) nz.push(j);
    this.b.update(k, xd, xs, nz);
    this.z.update(k, xd, xs, nz);
    this.copy(k);
    // G's row and column k are stale: recomputed from the columns when read (row())
    const { gValid } = this,
      ko = k * m;
    for (let i = 0; i < m; i++) {
      gValid[ko + i] = 0;
      gValid[i * m + k] = 0;
    }
  }
  row(k: number, g: Gram): void {
    const { gValid, m } = this,
      ko = k * m;
    for (let j = 0; j <= k; j++) {
      if (gValid[ko + j]) continue;
      this.dot(k, j);
      putGram(g, m, k, j);
      gValid[ko + j] = 1;
      gValid[j * m + k] = 1;
    }
  }
  swap(k: number): void {
    const p = k - 1,
      { n, Bh, Bl } = this;
    this.b.swap(k, p);
    this.z.swap(k, p);
    swapPositions(this.gValid, this.m, k, p);
    const ko = k * n,
      po = p * n;
    for (let t = 0; t < n; t++) {
      const f = Bh[ko + t]!;
      Bh[ko + t] = Bh[po + t]!;
      Bh[po + t] = f;
    }
    if (this.plain) {
      const { Sh, Sl } = this;
      for (let t = 0; t < n; t++) {
        let f = Sh[ko + t]!;
        Sh[ko + t] = Sh[po + t]!;
        Sh[po + t] = f;
        f = Sl[ko + t]!;
        Sl[ko + t] = Sl[po + t]!;
        Sl[po + t] = f;
      }
    }
    // a float64 column's low copy is all 0 (copy())
    if (this.b.tier[k] !== 1 || this.b.tier[p] !== 1)
      for (let t = 0; t < n; t++) {
        const f = Bl[ko + t]!;
        Bl[ko + t] = Bl[po + t]!;
        Bl[po + t] = f;
      }
  }
}

/**
 * Runs `run` (a DdLLL on `store`) with stats.snapshot reading the store's columns, then writes
 * them back into the caller's (also after a breakdown) and gives the caller's snapshot back.
 */
function runOnColumns(store: ColumnStore, stats: RungStats, run: () => void): void {
  const before = stats.snapshot;
  stats.snapshot = () => store.columns();
  try {
    run();
  } finally {
    stats.snapshot = before;
    store.flush();
  }
}

/**
 * Integers of any size column by column (ColumnSet, as HybridStore) beside the exact Gram matrix in
 * BigInt, updated with each size reduction from the exact multipliers (G_ki -= sum_j X_j G_ji, and
 * G_kk from the updated row) rather than recomputed from the columns: m nz BigInt products where
 * a recomputed row costs k dot products of n wide entries. G goes to the Gram-Schmidt as
 * quad-doubles, entry by entry as rows are read, times one power of two where norms pass the
 * double range (as BigStore). The store of the quad-double rung.
 */
class ExactGramStore extends ColumnStore implements Store {
  private readonly G: bigint[];
  /** Whether G's entry (i, j) in the Gram-Schmidt's copy is current (m x m, symmetric). */
  private readonly gValid: Uint8Array;
  private shift = 0n;
  constructor(
    B: BigBasis,
    Z: BigBasis,
    private readonly fail: (why: string, details?: Record<string, unknown>) => LatticeMimoError,
  ) {
    super(B, Z);
    const m = this.m;
    this.G = new Array<bigint>(m * m);
    this.gValid = new Uint8Array(m * m);
  }
  init(g: Gram): void {
    this.shift = exactGram(this.B, this.G);
    for (let i = 0; i < this.m; i++) for (let j = 0; j <= i; j++) this.put(i, j, g);
  }
  /** G's entry (i, j) into the Gram-Schmidt's copy, both triangles. */
  private put(i: number, j: number, g: Gram): void {
    const { m } = this;
    fromBig(this.G[i * m + j]!, q4, this.shift);
    if (!Number.isFinite(q4[0]!)) throw this.fail('a Gram entry is out of the double range');
    rh = q4[0]!;
    rl = q4[1]!;
    r2 = q4[2]!;
    r3 = q4[3]!;
    putGram(g, m, i, j);
    this.gValid[i * m + j] = 1;
    this.gValid[j * m + i] = 1;
  }
  apply(k: number, xd: Float64Array, xsBig: bigint[], _g: Gram): void {
    const { G, m, gValid } = this;
    const nz: number[] = [];
    for (let j = 0; j < k; j++) if (xd[j] !== 0) nz.push(j);
    this.b.update(k, xd, xsBig, nz);
    this.z.update(k, xd, xsBig, nz);
    const X = nz.map((j) => bigX(xd, xsBig, j));
    const ko = k * m;
    // <b_k', b_k> = G_kk - sum X_j G_jk, from the entries before the update
    let half = G[ko + k]!;
    for (let a = 0; a < nz.length; a++) half -= X[a]! * G[nz[a]! * m + k]!;
    if (nz.length === 1) {
      // the common case (one multiplier, often +-1): no inner loop, no product for +-1
      const x = X[0]!,
        jo = nz[0]! * m;
      for (let i = 0; i < m; i++) {
        if (i === k) continue;
        const s =
          x === 1n ? G[ko + i]! - G[jo + i]! : x === -1n ? G[ko + i]! + G[jo + i]! : G[ko + i]! - x * G[jo + i]!;
        G[ko + i] = s;
        G[i * m + k] = s;
        gValid[ko + i] = 0;
        gValid[i * m + k] = 0;
      }
    } else {
      for (let i = 0; i < m; i++) {
        if (i === k) continue;
        let s = G[ko + i]!;
        for (let a = 0; a < nz.length; a++) s -= X[a]! * G[nz[a]! * m + i]!;
        G[ko + i] = s;
        G[i * m + k] = s;
        gValid[ko + i] = 0;
        gValid[i * m + k] = 0;
      }
    }
    // ||b_k'||^2 = <b_k', b_k> - sum X_j <b_k', b_j>, the latter just updated: O(nz), not a quadratic form
    let gkk = half;
    for (let a = 0; a < nz.length; a++) gkk -= X[a]! * G[ko + nz[a]!]!;
    G[ko + k] = gkk;
    gValid[ko + k] = 0;
  }
  row(k: number, g: Gram): void {
    const ko = k * this.m;
    for (let j = 0; j <= k; j++) if (!this.gValid[ko + j]) this.put(k, j, g);
  }
  swap(k: number): void {
    const p = k - 1;
    this.b.swap(k, p);
    this.z.swap(k, p);
    swapPositions(this.G, this.m, k, p);
    swapPositions(this.gValid, this.m, k, p);
  }
}

/**
 * Float64 columns (n x m column-major) of integers below 2^53, every update checked to stay exact;
 * G in double-double (products exact by Dekker's splitting), row k updated with each size
 * reduction and its diagonal recomputed. No Z: the ladder rebuilds it exactly from B_in and B_out.
 * Much faster than BigInt; leaves the basis exact when it stops.
 */
class Float64Store implements Store {
  private readonly colMax: Float64Array;
  constructor(
    private readonly B: Float64Array,
    private readonly n: number,
    readonly m: number,
    private readonly fail: (why: string, details?: Record<string, unknown>) => LatticeMimoError,
  ) {
    this.colMax = new Float64Array(m);
    for (let j = 0; j < m; j++) this.colMax[j] = this.maxOf(j);
  }
  private maxOf(j: number): number {
    let a = 0;
    for (let t = j * this.n; t < (j + 1) * this.n; t++) a = Math.max(a, Math.abs(this.B[t]!));
    return a;
  }
  private dot(i: number, j: number): void {
    const { B, n } = this;
    let sh = 0,
      sl = 0;
    for (let t = 0; t < n; t++) {
      const a = B[i * n + t]!,
        b = B[j * n + t]!;
      if (a === 0 || b === 0) continue;
      subMul(sh, sl, -a, 0, b, 0);
      sh = rh;
      sl = rl;
    }
    rh = sh;
    rl = sl;
  }
  init(g: Gram): void {
    fillGram(this.m, (i, j) => this.dot(i, j), g);
  }
  apply(k: number, xs: Float64Array, _big: bigint[], g: Gram): void {
    const { B, n, m, colMax } = this;
    const { h: gh, l: gl } = g;
    // exactness: |b_k| + sum |X_j| max|b_j| below 2^53 before anything is written
    let bound = colMax[k]!;
    for (let j = 0; j < k; j++)
      if (xs[j] !== 0) bound += Math.abs(xs[j]!) * colMax[j]! + (Math.abs(xs[j]!) < X_EXACT ? 0 : F64_LIMIT);
    if (!(bound < F64_LIMIT))
      throw this.fail('an entry could pass 2^53 (the basis goes on in BigInt)', { boundBits: 53 });
    const ko = k * n;
    for (let j = 0; j < k; j++) {
      const X = xs[j]!;
      if (X === 0) continue;
      const jo = j * n;
      for (let t = 0; t < n; t++) B[ko + t] = B[ko + t]! - X * B[jo + t]!;
    }
    colMax[k] = this.maxOf(k);
    const kr = k * m;
    const nz: number[] = [];
    for (let j = 0; j < k; j++) if (xs[j] !== 0) nz.push(j);
    for (let i = 0; i < m; i++) {
      if (i === k) continue;
      let sh = gh[kr + i]!,
        sl = gl[kr + i]!;
      for (const j of nz) {
        subMul(sh, sl, xs[j]!, 0, gh[j * m + i]!, gl[j * m + i]!);
        sh = rh;
        sl = rl;
      }
      gh[kr + i] = sh;
      gl[kr + i] = sl;
      gh[i * m + k] = sh;
      gl[i * m + k] = sl;
    }
    this.dot(k, k);
    gh[kr + k] = rh;
    gl[kr + k] = rl;
  }
  swap(k: number): void {
    const { B, n, colMax } = this;
    const p = k - 1;
    for (let t = 0; t < n; t++) {
      const a = B[k * n + t]!;
      B[k * n + t] = B[p * n + t]!;
      B[p * n + t] = a;
    }
    const c = colMax[k]!;
    colMax[k] = colMax[p]!;
    colMax[p] = c;
  }
}

export class DdLLL {
  private readonly g: Gram;
  private readonly muH: Float64Array;
  private readonly muL: Float64Array;
  private readonly rH: Float64Array;
  private readonly rL: Float64Array;
  /** Limbs 2 and 3 of mu and r in quad-double mode (empty otherwise). */
  private readonly mu2: Float64Array;
  private readonly mu3: Float64Array;
  private readonly r2: Float64Array;
  private readonly r3: Float64Array;
  /** The arrays a swap exchanges: G's limbs (rows and columns), mu's and r's (row entries before p). */
  private readonly gLimbs: Float64Array[];
  private readonly rowLimbs: Float64Array[];
  private readonly valid: Int32Array;
  private readonly xs: bigint[];
  private readonly xd: Float64Array;
  private readonly m: number;

  constructor(
    private readonly store: Store,
    private readonly delta: number,
    private readonly bound: number,
    private readonly maxIterations: number,
    private readonly stats: RungStats,
    /** Gram-Schmidt in float64 only (the ladder's first try on a float64 store). */
    private readonly plain = false,
    /** Gram-Schmidt in quad-double (the quad-double rung; the store gives G in four limbs). */
    private readonly quad = false,
  ) {
    const m = store.m;
    this.m = m;
    const q = quad ? m * m : 0;
    this.g = {
      h: new Float64Array(m * m),
      l: new Float64Array(m * m),
      x2: new Float64Array(q),
      x3: new Float64Array(q),
    };
    store.init(this.g);
    this.muH = new Float64Array(m * m);
    this.muL = new Float64Array(m * m);
    this.rH = new Float64Array(m * m);
    this.rL = new Float64Array(m * m);
    this.mu2 = new Float64Array(q);
    this.mu3 = new Float64Array(q);
    this.r2 = new Float64Array(q);
    this.r3 = new Float64Array(q);
    const { h, l, x2, x3 } = this.g;
    this.gLimbs = quad ? [h, l, x2, x3] : [h, l];
    this.rowLimbs = plain
      ? [this.muH, this.rH]
      : quad
        ? [this.muH, this.rH, this.muL, this.rL, this.mu2, this.r2, this.mu3, this.r3]
        : [this.muH, this.rH, this.muL, this.rL];
    this.valid = new Int32Array(m);
    this.xs = new Array<bigint>(m).fill(0n);
    this.xd = new Float64Array(m);
  }

  run(): void {
    const { m } = this;
    if (m < 2) return;
    this.computeRow(0);
    let k = 1;
    while (k < m) {
      if (this.stats.iterations++ >= this.maxIterations)
        throw this.fail(`more than ${this.maxIterations} main-loop steps`);
      if ((this.stats.iterations & WATCH_MASK) === 0) this.stats.watch?.(k);
      this.sizeReduce(k);
      const km = k * m,
        pm = (k - 1) * m;
      const x = this.muH[km + k - 1]!;
      const rk = this.rH[km + k]!,
        rp = this.rH[pm + k - 1]!;
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
    const { muH, muL, rH, rL, m } = this;
    const { h: gh, l: gl } = this.g;
    const ko = k * m;
    this.store.row?.(k, this.g);
    if (this.quad) {
      this.computeRowQuad(k);
      return;
    }
    if (this.plain) {
      // float64 only (the low parts stay 0): fplll's fast path, on an exactly kept basis
      for (let j = this.valid[k]!; j <= k; j++) {
        const jo = j * m;
        let s0 = 0,
          s1 = 0,
          s2 = 0,
          s3 = 0,
          i = 0;
        for (; i + 3 < j; i += 4) {
          s0 += muH[jo + i]! * rH[ko + i]!;
          s1 += muH[jo + i + 1]! * rH[ko + i + 1]!;
          s2 += muH[jo + i + 2]! * rH[ko + i + 2]!;
          s3 += muH[jo + i + 3]! * rH[ko + i + 3]!;
        }
        for (; i < j; i++) s0 += muH[jo + i]! * rH[ko + i]!;
        const s = gh[ko + j]! - (s0 + s1 + (s2 + s3));
        rH[ko + j] = s;
        if (j < k) muH[ko + j] = s / rH[jo + j]!;
      }
      this.valid[k] = k;
      if (Number.isNaN(rH[ko + k]!)) throw this.fail(`the projection of vector ${k} is not a number`, { vector: k });
      return;
    }
    for (let j = this.valid[k]!; j <= k; j++) {
      const jo = j * m;
      let sh = gh[ko + j]!,
        sl = gl[ko + j]!;
      for (let i = 0; i < j; i++) {
        subMul(sh, sl, muH[jo + i]!, muL[jo + i]!, rH[ko + i]!, rL[ko + i]!);
        sh = rh;
        sl = rl;
      }
      rH[ko + j] = sh;
      rL[ko + j] = sl;
      if (j < k) {
        div(sh, sl, rH[jo + j]!, rL[jo + j]!);
        muH[ko + j] = rh;
        muL[ko + j] = rl;
      }
    }
    this.valid[k] = k;
    // r_kk <= 0 (rounding): the Lovasz test fails and b_k moves down, as in fplll; only NaN is a breakdown
    if (Number.isNaN(rH[ko + k]!)) throw this.fail(`the projection of vector ${k} is not a number`, { vector: k });
  }

  /** computeRow in quad-double: the same recurrence, every limb of G, mu and r. */
  private computeRowQuad(k: number): void {
    const { muH, muL, mu2, mu3, rH, rL, r2: rX2, r3: rX3, m } = this;
    const { h: gh, l: gl, x2: g2, x3: g3 } = this.g;
    const ko = k * m;
    for (let j = this.valid[k]!; j <= k; j++) {
      const jo = j * m;
      let s0 = gh[ko + j]!,
        s1 = gl[ko + j]!,
        s2 = g2[ko + j]!,
        s3 = g3[ko + j]!;
      for (let i = 0; i < j; i++) {
        qdSubMul(
          s0,
          s1,
          s2,
          s3,
          muH[jo + i]!,
          muL[jo + i]!,
          mu2[jo + i]!,
          mu3[jo + i]!,
          rH[ko + i]!,
          rL[ko + i]!,
          rX2[ko + i]!,
          rX3[ko + i]!,
          q4,
        );
        s0 = q4[0]!;
        s1 = q4[1]!;
        s2 = q4[2]!;
        s3 = q4[3]!;
      }
      rH[ko + j] = s0;
      rL[ko + j] = s1;
      rX2[ko + j] = s2;
      rX3[ko + j] = s3;
      if (j < k) {
        qdDiv(s0, s1, s2, s3, rH[jo + j]!, rL[jo + j]!, rX2[jo + j]!, rX3[jo + j]!, q4);
        muH[ko + j] = q4[0]!;
        muL[ko + j] = q4[1]!;
        mu2[ko + j] = q4[2]!;
        mu3[ko + j] = q4[3]!;
      }
    }
    this.valid[k] = k;
    if (Number.isNaN(rH[ko + k]!)) throw this.fail(`the projection of vector ${k} is not a number`, { vector: k });
  }

  private fail(why: string, details: Record<string, unknown> = {}): LatticeMimoError {
    return (this.quad ? quadFailure : failure)(why, details);
  }

  /** Babai's nearest plane on b_k, repeated on a fresh row until a sweep changes nothing. */
  private sizeReduce(k: number): void {
    const { m, muH, muL, bound, xs, xd } = this;
    const ko = k * m;
    for (let round = 0; round < MAX_BABAI; round++) {
      this.computeRow(k);
      let any = false;
      for (let j = k - 1; j >= 0; j--) {
        const h = muH[ko + j]!;
        const x = h + muL[ko + j]!;
        if (!(Math.abs(x) > bound)) {
          xd[j] = 0;
          continue;
        }
        const rhRound = Math.round(h);
        let X = Math.abs(rhRound) < 2 ** 52 ? Math.round(x) : rhRound + Math.round(h - rhRound + muL[ko + j]!);
        if (!Number.isFinite(X)) throw this.fail(`a coefficient of vector ${k} is not finite`, { vector: k });
        // the exact multiplier as a BigInt only where its double may not be it (bigX); from every limb in quad-double
        if (this.quad && !(Math.abs(h) < 2 ** 52)) {
          xs[j] = roundToBig(h, muL[ko + j]!, this.mu2[ko + j]!, this.mu3[ko + j]!);
          X = Number(xs[j]);
        } else if (!(Math.abs(X) < X_EXACT)) xs[j] = BigInt(rhRound) + BigInt(Math.round(h - rhRound + muL[ko + j]!));
        xd[j] = X;
        any = true;
        // approximate update of the rest of the row (recomputed from G next round)
        const jo = j * m;
        muH[ko + j] = h - X;
        muL[ko + j] = 0;
        for (let i = 0; i < j; i++) muH[ko + i] = muH[ko + i]! - X * muH[jo + i]!;
        this.stats.sizeReductions++;
      }
      if (!any) return;
      this.store.apply(k, xd, xs, this.g);
      this.valid[k] = 0;
      for (let t = k + 1; t < m; t++) if (this.valid[t]! > k) this.valid[t] = k;
    }
    throw this.fail(`size reduction of vector ${k} did not settle within ${MAX_BABAI} rounds`, { vector: k });
  }

  /** Exchanges positions k - 1 and k: the store's basis, G's rows and columns, rows of mu and r. */
  private swap(k: number): void {
    const { m, valid } = this;
    this.store.swap(k);
    const p = k - 1;
    const ko = k * m,
      po = p * m;
    // G's rows and columns; of mu and r only the entries before p stay valid (valid[] below).
    // In plain mode the low parts of mu and r stay 0 (computeRow writes the high parts alone)
    // rows first, then columns (the 2 x 2 block at p, k needs both, in this order)
    for (const a of this.gLimbs) swapPositions(a, m, k, p);
    for (const a of this.rowLimbs)
      for (let t = 0; t < p; t++) {
        const f = a[ko + t]!;
        a[ko + t] = a[po + t]!;
        a[po + t] = f;
      }
    valid[p] = p;
    valid[k] = p;
    for (let t = k + 1; t < m; t++) if (valid[t]! > p) valid[t] = p;
  }
}

function failure(why: string, details: Record<string, unknown> = {}): LatticeMimoError {
  return new LatticeMimoError('PRECISION_FAILURE', `double-double lll: ${why}`, details);
}

function quadFailure(why: string, details: Record<string, unknown> = {}): LatticeMimoError {
  return new LatticeMimoError('PRECISION_FAILURE', `quad-double lll: ${why}`, details);
}

/** The double-double rung in place on BigInt columns (B and Z; Z may hold empty columns: not tracked). */
export function ddLLL(
  B: BigBasis,
  Z: BigBasis,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
): void {
  if (B.length >= 2) new DdLLL(new BigStore(B, Z, failure), delta, eta, maxIterations, stats).run();
}

/**
 * The double-double rung in place on BigInt columns through HybridStore (float64 columns where
 * they fit, G in double-double only): much faster than ddLLL; on PRECISION_FAILURE B and Z hold
 * the exact basis it stopped at (for ddLLL, whose exact G settles more often). `plain`: the
 * Gram-Schmidt and G in float64 only (much faster where a 53-bit mantissa suffices). `exactWide`:
 * G's entries with a column past 2^100 exactly, where the copies' products (2^-104 n sum |x y| off)
 * do not settle: a Gram-Schmidt far below ||b_j|| amplifies that error in mu.
 */
export function ddLLLHybrid(
  B: BigBasis,
  Z: BigBasis,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
  plain = false,
  exactWide = false,
): void {
  if (B.length < 2) return;
  const store = new HybridStore(B, Z, failure, plain, exactWide);
  runOnColumns(store, stats, () => new DdLLL(store, delta, eta, maxIterations, stats, plain).run());
}

/**
 * The double-double rung in place on float64 columns (n x m, integers below 2^53; Z not tracked).
 * On PRECISION_FAILURE, B is still an exact basis of the same lattice.
 */
export function ddLLLFloat64(
  B: Float64Array,
  n: number,
  m: number,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
): void {
  if (m >= 2) new DdLLL(new Float64Store(B, n, m, failure), delta, eta, maxIterations, stats).run();
}

/**
 * The same on a float64 Gram-Schmidt (fplll's fast path, with the basis kept exact and every update
 * checked): much faster where it settles; on PRECISION_FAILURE B is still exact, for ddLLLFloat64.
 */
export function plainLLLFloat64(
  B: Float64Array,
  n: number,
  m: number,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
): void {
  if (m >= 2) new DdLLL(new Float64Store(B, n, m, failure), delta, eta, maxIterations, stats, true).run();
}

/**
 * The quad-double rung in place on BigInt columns (fplll's heuristic at 212 bits, for bases where
 * 106 do not settle): ExactGramStore (columns in ColumnSet, G exact in BigInt, as quad-doubles to
 * the Gram-Schmidt). On PRECISION_FAILURE B and Z hold the exact basis it stopped at.
 */
export function qdLLL(
  B: BigBasis,
  Z: BigBasis,
  delta: number,
  eta: number,
  maxIterations: number,
  stats: RungStats,
): void {
  if (B.length < 2) return;
  const store = new ExactGramStore(B, Z, quadFailure);
  runOnColumns(store, stats, () => new DdLLL(store, delta, eta, maxIterations, stats, false, true).run());
}
