/**
 * AssemblyScript source of the sequential LLL's WebAssembly kernel (built to lll-kernel.wasm by
 * scripts/build-wasm.mjs; not compiled by tsc): cpu.ts's SchnorrEuchner on float64 bases, a whole
 * basis a call of the loop (no crossing between JavaScript and WebAssembly a step), with the
 * reference's arithmetic operation for operation (float64, no fused multiply-add, the same partial
 * sums in the same order, Math.round as JavaScript rounds): the same bases, transforms and counts.
 *
 * f64x2 where two lanes hold what the reference holds in two variables or two entries: the dot
 * products' four partial sums (two vectors of two), the column operation b_k -= X b_j on B, Z and
 * G, the coefficient row update mu_k -= X mu_j, B_in Z, and the two columns of computeRow's pairs.
 *
 * It covers the reference's common path; a basis that leaves it is handed back unfinished (status
 * 1) and the host runs the reference on it from its input: a float64 breakdown (the reference's
 * double-double extension or its error), Babai's loop not settling, the iteration limit, a column
 * of Z that may pass 2^53, a basis that fails the modified Gram-Schmidt verification the Gram
 * matrix's error estimate asks for (the reference's all-swap repair), a non-finite entry.
 *
 * Every pointer is a byte offset into the imported memory, laid out by the host (wasm.ts):
 *   data    f64[count][n m]   the bases (column-major), reduced in place
 *   zs      f64[count][m m]   the transforms (column-major), written
 *   counts  i32[3][count]     iterations, swaps, size reductions of each basis
 *   status  u8[count]         0 reduced, 1 handed back
 *   work    workBytes(n, m) bytes of scratch
 */
import { F, I, jsRound, setF, setI } from '../../core/wasm/memory.lib.as';

const LIMIT: f64 = 9007199254740992; // 2^53
const MAX_PASSES = 8;
const MAX_BABAI = 64;
const GRAM_TRUST: f64 = 5e-9;
const UNIT_ROUNDOFF: f64 = 1.1102230246251565e-16; // 2^-53

@inline
function at(p: usize, i: i32): usize {
  return p + ((<usize>i) << 3);
}

// the basis being reduced and its scratch (set by reduceOne)
let n: i32 = 0,
  m: i32 = 0;
let B: usize = 0,
  Z: usize = 0;
let G: usize = 0,
  mu: usize = 0,
  R: usize = 0,
  rowMu: usize = 0,
  rowR: usize = 0,
  colB: usize = 0,
  colZ: usize = 0,
  S: usize = 0,
  dots: usize = 0,
  gBound: usize = 0,
  zBound: usize = 0,
  tile: usize = 0,
  input: usize = 0,
  slot: usize = 0,
  valid: usize = 0,
  pending: usize = 0;
let hasInput = false,
  integerGram = false,
  failed = false;
let normBound: f64 = 0;
let kMax: i32 = 0;
let delta: f64 = 0,
  bound: f64 = 0,
  maxIterations: f64 = 0;
let iterations: i32 = 0,
  swaps: i32 = 0,
  sizeReductions: i32 = 0;

/** Bytes of scratch for an n x m basis (the host's layout checks it). */
export function workBytes(n: i32, m: i32): usize {
  const f = 3 * m * m + 6 * m + 18 + n + n * m;
  const i = 3 * m + 1;
  return ((<usize>f) << 3) + ((<usize>i) << 2) + 16;
}

/** cpu.ts's dotCols: four partial sums (s0, s1 and s2, s3 in two vectors), then s0 + s1 + (s2 + s3). */
@inline
function dot(a: usize, c: usize, len: i32): f64 {
  let v01 = f64x2.splat(0),
    v23 = f64x2.splat(0);
  let t = 0;
  for (; t + 3 < len; t += 4) {
    const o = (<usize>t) << 3;
    v01 = f64x2.add(v01, f64x2.mul(v128.load(a + o), v128.load(c + o)));
    v23 = f64x2.add(v23, f64x2.mul(v128.load(a + o, 16), v128.load(c + o, 16)));
  }
  let s0 = f64x2.extract_lane(v01, 0);
  for (; t < len; t++) s0 += F(a, t) * F(c, t);
  return s0 + f64x2.extract_lane(v01, 1) + (f64x2.extract_lane(v23, 0) + f64x2.extract_lane(v23, 1));
}

/** dst[t] = dst[t] - x src[t], t < len (columns.ts's subMulCol). */
@inline
function subMul(dst: usize, src: usize, x: f64, len: i32): void {
  const xv = f64x2.splat(x);
  let t = 0;
  for (; t + 1 < len; t += 2) {
    const o = (<usize>t) << 3;
    v128.store(dst + o, f64x2.sub(v128.load(dst + o), f64x2.mul(xv, v128.load(src + o))));
  }
  if (t < len) setF(dst, t, F(dst, t) - x * F(src, t));
}

/** dst[0..len) = src[0..len), the two not overlapping (inline: memory.copy is a call a copy in V8, and these are short). */
@inline
function copyF(dst: usize, src: usize, len: i32): void {
  let t = 0;
  for (; t + 1 < len; t += 2) v128.store(dst + ((<usize>t) << 3), v128.load(src + ((<usize>t) << 3)));
  if (t < len) setF(dst, t, F(src, t));
}

/** copyF where dst lies above src and they overlap: from the end down. */
function moveUpF(dst: usize, src: usize, len: i32): void {
  let t = len;
  while (t >= 2) {
    t -= 2;
    v128.store(dst + ((<usize>t) << 3), v128.load(src + ((<usize>t) << 3)));
  }
  if (t == 1) setF(dst, 0, F(src, 0));
}

function fillNaN(p: usize, len: i32): void {
  for (let t = 0; t < len; t++) setF(p, t, NaN);
}

function columnMax(p: usize, len: i32): f64 {
  let big: f64 = 0;
  for (let t = 0; t < len; t++) {
    const a = Math.abs(F(p, t));
    if (a > big) big = a;
  }
  return big;
}

/** columns.ts's gramInto: 4 x 4 tiles of running sums below the diagonal blocks, dot() elsewhere. */
function gramInto(): void {
  for (let i = 0; i < m; i += 4) {
    for (let j = 0; j <= i; j += 4) {
      if (i + 3 < m && j + 3 < i) gramTile(i, j);
      else {
        const aEnd = i + 4 < m ? i + 4 : m;
        for (let a = i; a < aEnd; a++) {
          const bEnd = a < j + 3 ? a : j + 3;
          for (let b = j; b <= bEnd; b++) setF(G, a * m + b, dot(at(B, a * n), at(B, b * n), n));
        }
      }
    }
  }
  for (let i = 0; i < m; i++) for (let j = 0; j < i; j++) setF(G, j * m + i, F(G, i * m + j));
}

/**
 * columns.ts's gramTile: rows i..i+3, columns j..j+3 of B^T B, sixteen running sums in row order,
 * kept in `tile` (row a at tile + 32 a): two columns a lane pair, their entries paired by shuffles.
 */
function gramTile(i: i32, j: i32): void {
  const zero = f64x2.splat(0);
  for (let a = 0; a < 8; a++) v128.store(tile + ((<usize>a) << 4), zero);
  const b0 = at(B, j * n),
    b1 = at(b0, n),
    b2 = at(b1, n),
    b3 = at(b2, n);
  let t = 0;
  for (; t + 1 < n; t += 2) {
    const o = (<usize>t) << 3;
    const ya = v128.load(b0 + o),
      yb = v128.load(b1 + o),
      yc = v128.load(b2 + o),
      yd = v128.load(b3 + o);
    const p0 = v128.shuffle<f64>(ya, yb, 0, 2),
      p1 = v128.shuffle<f64>(ya, yb, 1, 3),
      q0 = v128.shuffle<f64>(yc, yd, 0, 2),
      q1 = v128.shuffle<f64>(yc, yd, 1, 3);
    for (let a = 0; a < 4; a++) {
      const x = v128.load(at(B, (i + a) * n) + o);
      const x0 = v128.shuffle<f64>(x, x, 0, 0),
        x1 = v128.shuffle<f64>(x, x, 1, 1);
      const s = tile + ((<usize>a) << 5);
      v128.store(s, f64x2.add(f64x2.add(v128.load(s), f64x2.mul(x0, p0)), f64x2.mul(x1, p1)));
      v128.store(s, f64x2.add(f64x2.add(v128.load(s, 16), f64x2.mul(x0, q0)), f64x2.mul(x1, q1)), 16);
    }
  }
  if (t < n) {
    const p0 = f64x2(F(b0, t), F(b1, t)),
      q0 = f64x2(F(b2, t), F(b3, t));
    for (let a = 0; a < 4; a++) {
      const x0 = f64x2.splat(F(at(B, (i + a) * n), t));
      const s = tile + ((<usize>a) << 5);
      v128.store(s, f64x2.add(v128.load(s), f64x2.mul(x0, p0)));
      v128.store(s, f64x2.add(v128.load(s, 16), f64x2.mul(x0, q0)), 16);
    }
  }
  for (let a = 0; a < 4; a++) copyF(at(G, (i + a) * m + j), tile + ((<usize>a) << 5), 4);
}

/** <b_i, b_j> from G, computed first where unknown (NaN). */
function gram(i: i32, j: i32): f64 {
  const a = I(slot, i) * m + I(slot, j);
  const g = F(G, a);
  if (g == g) return g;
  const d = dot(at(B, i * n), at(B, j * n), n);
  setF(G, a, d);
  setF(G, I(slot, j) * m + I(slot, i), d);
  return d;
}

@inline
function setGram(i: i32, j: i32, d: f64): void {
  setF(G, I(slot, i) * m + I(slot, j), d);
  setF(G, I(slot, j) * m + I(slot, i), d);
}

/** Column pending[c] of B. */
@inline
function col(c: i32): usize {
  return at(B, I(pending, c) * n);
}

/**
 * Two rows of dotsByFours' running sums of two columns (lanes): acc + v0 (xa_t, xb_t), then
 * + v1 (xa_t+1, xb_t+1), where v0, v1 hold b_k's rows t and t + 1 and xa, xb the columns' rows t, t + 1.
 */
@inline
function pairStep(acc: v128, v0: v128, v1: v128, xa: v128, xb: v128): v128 {
  const lo = f64x2.add(acc, f64x2.mul(v0, v128.shuffle<f64>(xa, xb, 0, 2)));
  return f64x2.add(lo, f64x2.mul(v1, v128.shuffle<f64>(xa, xb, 1, 3)));
}

/** The last (odd) row t of pairStep's sums for columns a and b. */
@inline
function pairTail(acc: v128, v: v128, a: usize, b: usize, t: i32): v128 {
  return f64x2.add(acc, f64x2.mul(v, f64x2(F(a, t), F(b, t))));
}

/**
 * dotsByFours' running sums of b_k (at bk) with columns pending[c .. c + 4), and [c + 4 .. c + 8)
 * where `eight`, into dots[c ..).
 */
function groupSums(bk: usize, c: i32, eight: bool): void {
  const a0 = col(c),
    a1 = col(c + 1),
    a2 = col(c + 2),
    a3 = col(c + 3);
  const a4 = eight ? col(c + 4) : a0,
    a5 = eight ? col(c + 5) : a1,
    a6 = eight ? col(c + 6) : a2,
    a7 = eight ? col(c + 7) : a3;
  const zero = f64x2.splat(0);
  let s01 = zero,
    s23 = zero,
    s45 = zero,
    s67 = zero;
  let t = 0;
  for (; t + 1 < n; t += 2) {
    const o = (<usize>t) << 3;
    const w = v128.load(bk + o);
    const v0 = v128.shuffle<f64>(w, w, 0, 0),
      v1 = v128.shuffle<f64>(w, w, 1, 1);
    s01 = pairStep(s01, v0, v1, v128.load(a0 + o), v128.load(a1 + o));
    s23 = pairStep(s23, v0, v1, v128.load(a2 + o), v128.load(a3 + o));
    if (eight) {
      s45 = pairStep(s45, v0, v1, v128.load(a4 + o), v128.load(a5 + o));
      s67 = pairStep(s67, v0, v1, v128.load(a6 + o), v128.load(a7 + o));
    }
  }
  if (t < n) {
    const v = f64x2.splat(F(bk, t));
    s01 = pairTail(s01, v, a0, a1, t);
    s23 = pairTail(s23, v, a2, a3, t);
    s45 = pairTail(s45, v, a4, a5, t);
    s67 = pairTail(s67, v, a6, a7, t);
  }
  v128.store(at(dots, c), s01);
  v128.store(at(dots, c + 2), s23);
  if (eight) {
    v128.store(at(dots, c + 4), s45);
    v128.store(at(dots, c + 6), s67);
  }
}

/**
 * cpu.ts's fetchGramRow: the unknown <b_k, b_j>, j in [from, k], by columns.ts's dotsByFours (four
 * columns a pass over b_k, each a running sum in row order; here two lanes a pair of columns) for
 * the first count - count % 4, dot() for the rest.
 */
function fetchGramRow(k: i32, from: i32): void {
  const gk = I(slot, k) * m;
  let count = 0;
  for (let j = from; j <= k; j++) {
    const g = F(G, gk + I(slot, j));
    if (g != g) setI(pending, count++, j);
  }
  const bk = at(B, k * n);
  let c = 0;
  // two groups of four at once (eight independent sums: the add latency hides), then one group
  for (; c + 7 < count; c += 8) groupSums(bk, c, true);
  if (c + 3 < count) {
    groupSums(bk, c, false);
    c += 4;
  }
  for (let i = 0; i < c; i++) setGram(k, I(pending, i), F(dots, i));
  for (; c < count; c++) {
    const j = I(pending, c);
    setGram(k, j, dot(bk, at(B, j * n), n));
  }
}

function forgetGramRow(k: i32): void {
  const s = I(slot, k);
  fillNaN(at(G, s * m), m);
  for (let t = 0; t < m; t++) setF(G, t * m + s, NaN);
}

function refreshRowBounds(sk: i32): void {
  let big: f64 = 0;
  for (let t = 0; t < m; t++) {
    const a = Math.abs(F(G, sk * m + t));
    if (a > big) big = a;
    if (a > F(gBound, t)) setF(gBound, t, a);
  }
  setF(gBound, sk, big);
}

/** cpu.ts's computeRow (float64 rows): row k of mu and R from its first invalid column, and r_k. */
function computeRow(k: i32): void {
  const ko = k * m;
  const gk = I(slot, k) * m;
  let j = I(valid, k);
  if (!integerGram) fetchGramRow(k, j);
  const rk = at(R, ko);
  for (; j + 1 < k; j += 2) {
    const jo = j * m,
      jo1 = jo + m;
    const mj = at(mu, jo),
      mj1 = at(mu, jo1);
    // lanes (a0, a1) and (b0, b1) of the reference's four sums
    let va = f64x2.splat(0),
      vb = f64x2.splat(0);
    let i = 0;
    for (; i + 1 < j; i += 2) {
      const o = (<usize>i) << 3;
      const r = v128.load(rk + o);
      va = f64x2.add(va, f64x2.mul(v128.load(mj + o), r));
      vb = f64x2.add(vb, f64x2.mul(v128.load(mj1 + o), r));
    }
    let a0 = f64x2.extract_lane(va, 0),
      b0 = f64x2.extract_lane(vb, 0);
    if (i < j) {
      const r0 = F(rk, i);
      a0 += F(mj, i) * r0;
      b0 += F(mj1, i) * r0;
    }
    const rj = F(G, gk + I(slot, j)) - (a0 + f64x2.extract_lane(va, 1));
    setF(R, ko + j, rj);
    setF(mu, ko + j, rj / F(R, jo + j));
    const rj1 = F(G, gk + I(slot, j + 1)) - (b0 + f64x2.extract_lane(vb, 1) + F(mj1, j) * rj);
    setF(R, ko + j + 1, rj1);
    setF(mu, ko + j + 1, rj1 / F(R, jo1 + j + 1));
  }
  if (j < k) {
    const jo = j * m;
    const rj = F(G, gk + I(slot, j)) - dot(at(mu, jo), rk, j);
    setF(R, ko + j, rj);
    setF(mu, ko + j, rj / F(R, jo + j));
  }
  setI(valid, k, k);
  setF(R, ko + k, F(G, gk + I(slot, k)) - dot(at(mu, ko), rk, k));
}

/** cpu.ts's recoverRow; false where b_k is zero (handed back). */
function recoverRow(k: i32): bool {
  const sk = I(slot, k);
  for (let i = 0; i < m; i++) {
    const d = dot(at(B, k * n), at(B, i * n), n);
    setF(G, sk * m + I(slot, i), d);
    setF(G, I(slot, i) * m + sk, d);
  }
  if (F(G, sk * (m + 1)) == 0) return false;
  if (integerGram) refreshRowBounds(sk);
  setI(valid, k, 0);
  computeRow(k);
  return true;
}

/** G[dst..dst+len) -= x G[src..src+len) on integers; false where a product or result reaches 2^53. */
function subMulRowExact(dst: usize, src: usize, x: f64, len: i32): bool {
  let exact = true;
  for (let t = 0; t < len; t++) {
    const q = x * F(src, t);
    const v = F(dst, t) - q;
    setF(dst, t, v);
    if (q >= LIMIT || q <= -LIMIT || v >= LIMIT || v <= -LIMIT) exact = false;
  }
  return exact;
}

/** cpu.ts's sweep: one Babai sweep of b_k; the largest |X| (0: nothing done). Sets `failed` where Z may pass 2^53. */
function sweep(k: i32): f64 {
  const ko = k * m;
  const gk = I(slot, k) * m;
  let maxX: f64 = 0;
  for (let j = k - 1; j >= 0; j--) {
    const x = F(mu, ko + j);
    if (!(Math.abs(x) > bound)) continue;
    const X = jsRound(x);
    setF(mu, ko + j, x - X);
    const jo = j * m;
    subMul(at(mu, ko), at(mu, jo), X, j);
    const ax = Math.abs(X);
    if (ax > maxX) maxX = ax;
    subMul(at(B, k * n), at(B, j * n), X, n);
    // Z's column operation while it stays exact (the reference's rescans and BigInt products: handed back)
    const next = F(zBound, k) + ax * F(zBound, j);
    if (!(next < LIMIT)) {
      failed = true;
      return 0;
    }
    subMul(at(Z, k * m), at(Z, j * m), X, m);
    setF(zBound, k, next);
    if (integerGram) {
      const sj = I(slot, j),
        gj = sj * m,
        sk = I(slot, k);
      const step = ax * F(gBound, sj);
      if (F(gBound, sk) + step < LIMIT) {
        subMul(at(G, gk), at(G, gj), X, m);
        setF(gBound, sk, F(gBound, sk) + step);
      } else if (ax * Math.sqrt(F(G, gj + sj)) >= LIMIT || !subMulRowExact(at(G, gk), at(G, gj), X, m)) {
        integerGram = false;
      } else {
        setF(gBound, sk, columnMax(at(G, gk), m));
      }
    }
    sizeReductions++;
  }
  return maxX;
}

function afterSweep(k: i32): void {
  const sk = I(slot, k);
  const norm = dot(at(B, k * n), at(B, k * n), n);
  if (norm > normBound) {
    normBound = norm;
    if (norm >= LIMIT) integerGram = false;
  }
  if (integerGram) {
    setF(G, sk * m + sk, norm);
    for (let t = 0; t < m; t++) setF(G, t * m + sk, F(G, sk * m + t));
    refreshRowBounds(sk);
  } else {
    forgetGramRow(k);
    setF(G, sk * m + sk, norm);
  }
  for (let i = k + 1; i <= kMax; i++) if (I(valid, i) > k) setI(valid, i, k);
}

/** Babai's loop at k; false where it did not settle or broke down (handed back). */
function sizeReduce(k: i32): bool {
  for (let round = 0; round < MAX_BABAI; round++) {
    computeRow(k);
    if (!(F(R, k * m + k) > 0) && !recoverRow(k)) return false;
    const x = sweep(k);
    if (failed) return false;
    if (x == 0) return true;
    afterSweep(k);
    setI(valid, k, 0);
  }
  return false;
}

/** cpu.ts's insert: b_k to position i, S its new ||b*_i||^2. */
function insert(k: i32, i: i32, Si: f64): void {
  const ko = k * m;
  copyF(rowMu, at(mu, ko), i);
  copyF(rowR, at(R, ko), i);
  for (let t = k - 1; t >= i; t--) {
    const v = I(valid, t);
    const len = v < i ? v : i;
    const src = t * m,
      dst = src + m;
    copyF(at(mu, dst), at(mu, src), len);
    copyF(at(R, dst), at(R, src), len);
    setI(valid, t + 1, len);
  }
  const io = i * m;
  copyF(at(mu, io), rowMu, i);
  copyF(at(R, io), rowR, i);
  setF(R, io + i, Si);
  setI(valid, i, i);
  for (let t = k + 1; t <= kMax; t++) if (I(valid, t) > i) setI(valid, t, i);
  const s = I(slot, k);
  const zb = F(zBound, k);
  for (let t = k; t > i; t--) {
    setI(slot, t, I(slot, t - 1));
    setF(zBound, t, F(zBound, t - 1));
  }
  setI(slot, i, s);
  setF(zBound, i, zb);
  copyF(colB, at(B, k * n), n);
  moveUpF(at(B, (i + 1) * n), at(B, i * n), (k - i) * n);
  copyF(at(B, i * n), colB, n);
  copyF(colZ, at(Z, k * m), m);
  moveUpF(at(Z, (i + 1) * m), at(Z, i * m), (k - i) * m);
  copyF(at(Z, i * m), colZ, m);
}

/** cpu.ts's lovasz (float64 rows): the next position, or -1 where b_k broke down (handed back). */
function lovasz(k: i32): i32 {
  const ko = k * m;
  let s = gram(k, k);
  setF(S, 0, s);
  for (let i = 1; i <= k; i++) {
    s -= F(mu, ko + i - 1) * F(R, ko + i - 1);
    setF(S, i, s);
  }
  setF(R, ko + k, F(S, k));
  if (delta * F(R, (k - 1) * m + k - 1) <= F(S, k - 1)) return k + 1;
  let i = k - 1;
  while (i > 0 && delta * F(R, (i - 1) * m + i - 1) > F(S, i - 1)) i--;
  if (!(F(S, i) > 0)) return -1;
  insert(k, i, F(S, i));
  swaps += k - i;
  return i + 1;
}

/** B = B_in Z (gso.ts's basisFromTransform: columns.ts's addProduct into zeros). */
function basisFromTransform(): void {
  memory.fill(B, 0, (<usize>(n * m)) << 3);
  for (let j = 0; j < m; j++) {
    const out = at(B, j * n);
    for (let k = 0; k < m; k++) {
      const x = F(Z, k + j * m);
      if (x == 0) continue;
      const a = at(input, k * n);
      const xv = f64x2.splat(x);
      let i = 0;
      for (; i + 1 < n; i += 2) {
        const o = (<usize>i) << 3;
        v128.store(out + o, f64x2.add(v128.load(out + o), f64x2.mul(v128.load(a + o), xv)));
      }
      if (i < n) setF(out, i, F(out, i) + F(a, i) * x);
    }
  }
}

function startGram(): void {
  let maxNorm: f64 = 0;
  for (let i = 0; i < m; i++) {
    setI(slot, i, i);
    maxNorm = Math.max(maxNorm, dot(at(B, i * n), at(B, i * n), n));
  }
  normBound = maxNorm;
  integerGram = maxNorm < LIMIT && !hasInput;
  if (integerGram) {
    gramInto();
    for (let s = 0; s < m; s++) setF(gBound, s, columnMax(at(G, s * m), m));
  } else fillNaN(G, m * m);
}

/** cpu.ts's pass: 1 changed something, 0 changed nothing, -1 handed back. */
function pass(first: bool): i32 {
  memory.fill(valid, 0, (<usize>m) << 2);
  kMax = 0;
  if (first) startGram();
  else if (!integerGram) {
    if (hasInput) basisFromTransform();
    for (let i = 0; i < m; i++) setI(slot, i, i);
    fillNaN(G, m * m);
  }
  const r0 = gram(0, 0);
  setF(R, 0, r0);
  if (!(r0 > 0)) return -1;
  const before = swaps + sizeReductions;
  let k = 1;
  while (k < m) {
    if (<f64>iterations >= maxIterations) return -1;
    iterations++;
    if (k > kMax) kMax = k;
    if (!sizeReduce(k)) return -1;
    k = lovasz(k);
    if (k < 0) return -1;
  }
  return swaps + sizeReductions != before ? 1 : 0;
}

/** cpu.ts's gramErrorEstimate with muInverseGrowth (S as its scratch, as there). */
function gramErrorEstimate(): f64 {
  let q: f64 = 1;
  for (let j = 0; j < m; j++) q = Math.max(q, gram(j, j) / F(R, j * m + j));
  let big: f64 = 1;
  for (let k = 0; k < m; k++) {
    const ko = k * m;
    let s: f64 = 0;
    for (let j = 0; j < k; j++) s -= F(mu, ko + j) * F(S, j);
    s += s >= 0 ? 1 : -1;
    setF(S, k, s);
    const a = Math.abs(s);
    if (a > big) big = a;
  }
  return UNIT_ROUNDOFF * big * big * q;
}

/**
 * cpu.ts's reducedOnModifiedGramSchmidt (gso.ts's gramSchmidtInto, then both conditions): whether B
 * is reduced on a modified Gram-Schmidt; false also where a vector vanishes (the reference raises).
 * Its scratch: B* in input's place, the coefficients in G's, r in dots' (none is read afterwards).
 */
function reducedOnModifiedGramSchmidt(): bool {
  const Bs = input,
    c = G,
    r = dots;
  memory.copy(Bs, B, (<usize>(n * m)) << 3);
  for (let j = 0; j < m; j++) {
    const bj = at(Bs, j * n);
    const norm0 = dot(bj, bj, n);
    for (let i = 0; i < j; i++) {
      const bi = at(Bs, i * n);
      const x = dot(bj, bi, n) / F(r, i);
      setF(c, j * m + i, x);
      subMul(bj, bi, x, n);
    }
    const rj = dot(bj, bj, n);
    setF(r, j, rj);
    if (!(rj > 0) || !(rj > 1e-28 * norm0)) return false;
  }
  for (let k = 1; k < m; k++) {
    const ko = k * m;
    for (let j = 0; j < k; j++) if (!(Math.abs(F(c, ko + j)) <= bound)) return false;
    const x = F(c, ko + k - 1);
    if (!(F(r, k) + x * x * F(r, k - 1) >= delta * F(r, k - 1))) return false;
  }
  return true;
}

/** One basis: 0 reduced, 1 handed back to the reference. */
function reduceOne(): i32 {
  const mm = m * m;
  // scratch as the reference allocates it: zeros, zBound ones
  memory.fill(G, 0, (<usize>(3 * mm + 6 * m + 2)) << 3);
  memory.fill(slot, 0, (<usize>(3 * m + 1)) << 2);
  for (let t = 0; t < m; t++) setF(zBound, t, 1);
  memory.fill(Z, 0, (<usize>mm) << 3);
  for (let t = 0; t < m; t++) setF(Z, t * (m + 1), 1);
  let integral = true;
  for (let t = 0; t < n * m; t++) {
    const v = F(B, t);
    if (v - v != 0) return 1;
    if (Math.floor(v) != v) integral = false;
  }
  hasInput = !integral;
  if (hasInput) memory.copy(input, B, (<usize>(n * m)) << 3);
  integerGram = false;
  failed = false;
  normBound = 0;
  kMax = 0;
  iterations = 0;
  swaps = 0;
  sizeReductions = 0;
  for (let p = 0; p < MAX_PASSES; p++) {
    const r = pass(p == 0);
    if (r < 0) return 1;
    if (r == 0) break;
  }
  // past the trust bound the reference verifies on a modified Gram-Schmidt, and repairs (all-swap
  // rounds) only where that fails: the repair is the reference's
  return gramErrorEstimate() > GRAM_TRUST && !reducedOnModifiedGramSchmidt() ? 1 : 0;
}

/**
 * Reduces `count` n x m float64 bases (m >= 2) in place, with their transforms, counts and status
 * (the layout above); delta, the rounding bound (gso.ts's reductionBound) and maxIterations as the
 * reference reads them. Returns how many were handed back.
 */
export function reduceRun(
  count: i32,
  nn: i32,
  mm: i32,
  data: usize,
  zs: usize,
  counts: usize,
  status: usize,
  work: usize,
  deltaIn: f64,
  boundIn: f64,
  maxIterationsIn: f64,
): i32 {
  n = nn;
  m = mm;
  delta = deltaIn;
  bound = boundIn;
  maxIterations = maxIterationsIn;
  // f64 scratch (zeroed a basis in one fill: G, mu, R, rowMu, rowR, colZ, S, dots, gBound, zBound), then the rest
  // (tile: gramTile's sums)
  G = work;
  mu = at(G, m * m);
  R = at(mu, m * m);
  rowMu = at(R, m * m);
  rowR = at(rowMu, m);
  colZ = at(rowR, m);
  S = at(colZ, m);
  dots = at(S, m + 1);
  gBound = at(dots, m + 1);
  zBound = at(gBound, m);
  tile = at(zBound, m);
  colB = at(tile, 16);
  input = at(colB, n);
  slot = at(input, n * m);
  valid = slot + ((<usize>m) << 2);
  pending = valid + ((<usize>m) << 2);
  let handed = 0;
  for (let b = 0; b < count; b++) {
    B = at(data, b * n * m);
    Z = at(zs, b * m * m);
    const st = reduceOne();
    store<u8>(status + <usize>b, <u8>st);
    handed += st;
    setI(counts, b, iterations);
    setI(counts, count + b, swaps);
    setI(counts, 2 * count + b, sizeReductions);
  }
  return handed;
}

/** dot() on its own (columns.ts's dotCols of two columns at byte offsets a and c), for the tests. */
export function dotCols(a: usize, c: usize, len: i32): f64 {
  return dot(a, c, len);
}
