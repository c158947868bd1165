/**
 * AssemblyScript source of the K-best kernel on WebAssembly SIMD (built to kbest-lanes.wasm by
 * scripts/build-wasm.mjs; not compiled by tsc). Two problems a lane group, in f64x2 lanes: two
 * channels in `prepare` (the sorted QR by pairs, qr.ts's qrInto with `pairs`), two received vectors
 * (of any channels) in `detect` (Q^T y, each level's expansion, the list's max-log LLRs). Both
 * vectors of a group keep the same number of survivors at every level (min(K, Q^levels)), so their
 * expansions and gathers run side by side; the selection of each level's K best runs per lane
 * (search.ts's quickselect by (metric, index) on the children at or under a bound, its tie checks
 * and its ordered second pass: where no metrics tie at a cut or at the best, only the set of
 * survivors decides the outputs, and it is the reference's). The arithmetic is qr.ts's, search.ts's
 * and maxlog.ts's in the same order, operation for operation, and WebAssembly has no fused
 * multiply-add: every metric, list, decision and LLR equals the reference's bit for bit.
 *
 * Square QAM only (two real dimensions a stream, Q levels each; the host refuses the rest). Every
 * pointer is a byte offset into the imported memory, laid out by the host (wasm.ts):
 *   H       f64[channels][2 nr nt]      the scaled complex channels (interleaved, column-major)
 *   prep    per pair of channels (prepStride bytes): Q f64x2[rows nd], R f64x2[nd nd] (column-major,
 *           lane c & 1 channel c's), then each lane's order perm i32[2][nd] (column k holds real
 *           dimension perm[k])
 *   y       f64[vectors][rows]          the scaled received vectors (the MRVD real vectors)
 *   chan    i32[vectors]                each vector's channel (an index into prep)
 *   noise   f64[vectors]                each vector's N0
 *   sym     i32[Q Q]                    symbol index of a stream's level indices (Re * Q + Im)
 *   zero    i32[bps][M / 2]             the level indices (Re Q + Im) of the symbols whose bit b is 0
 *                                      (one: ... is 1): the minima are kept by level indices
 *   symOut  i32[vectors][nt]            the decisions
 *   llrOut  f64[vectors][nt bps]        the clipped max-log LLRs (when soft)
 *   work    scratch (workBytes)
 */
import { I, setI } from '../../../core/wasm/memory.lib.as';
import { at, lanes, pair, swapLane } from '../lanes.lib.as';

/** A column whose residual norm falls below this fraction of its original norm is dependent (qr.ts's). */
const RANK_TOL: f64 = 1e-12;

export { scanRun } from '../input-scan.lib.as';

/** Bytes of a pair of channels' prep: Q, R (f64x2), the two orders (i32), 16-byte aligned. */
export function prepStride(rows: i32, nd: i32): usize {
  return ((<usize>(rows * nd + nd * nd)) << 4) + ((((<usize>(2 * nd)) << 2) + 15) & ~(<usize>15));
}

/** Bytes of the scratch `work` must hold for `prepare` and `detect` (K survivors, Q levels). */
export function workBytes(rows: i32, nd: i32, q: i32, nt: i32, k: i32): usize {
  const v = nd * nd + nd + 2 * k * nd + 2 * k + k * q + nt * q * q + 1;
  return ((<usize>v) << 4) + ((<usize>(2 * k * q + 4 * nt + 2 * nd)) << 2) + 64;
}

/**
 * A lane's pivot at step i of the sorted QR by pairs (qrInto 'ascending' with `pairs`): res and
 * perm that lane's residual squared norms (16 bytes apart) and order. While the columns taken form
 * whole pairs, a pair counts as its lesser residual and equal ones go to the least dimension.
 */
function pivot(res: usize, perm: usize, i: i32, n: i32): i32 {
  let whole = true;
  for (let t = 0; t < i && whole; t++) {
    whole = false;
    const partner = I(perm, t) ^ 1;
    for (let u = 0; u < i; u++) if (I(perm, u) == partner) whole = true;
  }
  let best = i,
    bestVal = Infinity;
  for (let k = i; k < n; k++) {
    let v = load<f64>(at(res, k));
    if (whole) {
      const partner = I(perm, k) ^ 1;
      for (let t = i; t < n; t++) {
        const r = load<f64>(at(res, t));
        if (I(perm, t) == partner && r < v) v = r;
      }
    }
    if (v < bestVal || (whole && v == bestVal && I(perm, k) < I(perm, best))) {
      bestVal = v;
      best = k;
    }
  }
  return best;
}

/**
 * Per channel: the MRVD real matrix (fillRealMatrix, natural order), factored by the sorted QR by
 * pairs (qrInto 'ascending', `pairs`): Q, R and the order into the pair's prep, two channels a lane
 * group (each lane pivots on its own: a swap moves one lane's entries under a mask). Returns the
 * first channel whose matrix is rank deficient (the host then lets the reference throw), or -1.
 */
export function prepare(H: usize, channels: i32, nr: i32, nt: i32, scale: f64, prep: usize, work: usize): i32 {
  const rows = 2 * nr,
    nd = 2 * nt;
  const hBytes = <usize>(2 * nr * nt) << 3;
  const stride = prepStride(rows, nd);
  const orig = work,
    res = at(orig, nd);
  const vScale = f64x2.splat(scale);
  const tol = f64x2.splat(RANK_TOL);
  const one = f64x2.splat(1),
    zero = f64x2.splat(0);
  for (let c = 0; c < channels; c += 2) {
    const cb = c + 1 < channels ? c + 1 : c;
    const ha = H + <usize>c * hBytes,
      hb = H + <usize>cb * hBytes;
    const Q = prep + <usize>(c >> 1) * stride;
    const R = at(Q, rows * nd);
    const permA = at(R, nd * nd),
      permB = permA + ((<usize>nd) << 2);
    let failedB = false;
    for (let k = 0; k < nd; k++) {
      setI(permA, k, k);
      setI(permB, k, k);
      const j = k >> 1,
        imag = k & 1;
      const base = (<usize>(2 * j * nr)) << 3;
      let nn = zero;
      for (let i = 0; i < nr; i++) {
        const o = base + ((<usize>(2 * i)) << 3);
        const hr = f64x2.mul(pair(ha + o, hb + o), vScale),
          hi = f64x2.mul(pair(ha + o + 8, hb + o + 8), vScale);
        const a = imag ? f64x2.neg(hi) : hr,
          b = imag ? hr : hi;
        v128.store(at(Q, k * rows + 2 * i), a);
        v128.store(at(Q, k * rows + 2 * i + 1), b);
        nn = f64x2.add(nn, f64x2.mul(a, a));
        nn = f64x2.add(nn, f64x2.mul(b, b));
      }
      const o = f64x2.sqrt(nn);
      v128.store(at(orig, k), o);
      v128.store(at(res, k), f64x2.mul(o, o));
      for (let i = 0; i < nd; i++) v128.store(at(R, i + k * nd), zero);
    }
    for (let i = 0; i < nd; i++) {
      const bA = pivot(res, permA, i, nd),
        bB = pivot(res + 8, permB, i, nd);
      for (let k = i + 1; k < nd; k++) {
        if (bA != k && bB != k) continue;
        const mask = i64x2.replace_lane(i64x2.splat(bA == k ? -1 : 0), 1, bB == k ? -1 : 0);
        swapLane(at(Q, i * rows), at(Q, k * rows), rows, mask);
        // R's rows above i of columns i and k: nd apart
        for (let r = 0; r < i; r++) swapLane(at(R, r + i * nd), at(R, r + k * nd), 1, mask);
        swapLane(at(orig, i), at(orig, k), 1, mask);
        swapLane(at(res, i), at(res, k), 1, mask);
      }
      if (bA != i) {
        const t = I(permA, i);
        setI(permA, i, I(permA, bA));
        setI(permA, bA, t);
      }
      if (bB != i) {
        const t = I(permB, i);
        setI(permB, i, I(permB, bB));
        setI(permB, bB, t);
      }
      const ci = at(Q, i * rows);
      let nn = zero;
      for (let r = 0; r < rows; r++) {
        const v = v128.load(at(ci, r));
        nn = f64x2.add(nn, f64x2.mul(v, v));
      }
      const norm = f64x2.sqrt(nn);
      const ok = i64x2.bitmask(f64x2.gt(norm, f64x2.mul(tol, v128.load(at(orig, i)))));
      // channel c's failure first; channel cb's once c is through (its lane goes on, unused)
      if (!(ok & 1)) return c;
      if (!(ok & 2)) failedB = true;
      v128.store(at(R, i + i * nd), norm);
      const s = f64x2.div(one, norm);
      for (let r = 0; r < rows; r++) {
        const p = at(ci, r);
        v128.store(p, f64x2.mul(v128.load(p), s));
      }
      for (let k = i + 1; k < nd; k++) {
        const ck = at(Q, k * rows);
        let d = zero;
        for (let r = 0; r < rows; r++) d = f64x2.add(d, f64x2.mul(v128.load(at(ci, r)), v128.load(at(ck, r))));
        v128.store(at(R, i + k * nd), d);
        for (let r = 0; r < rows; r++) {
          const p = at(ck, r);
          v128.store(p, f64x2.sub(v128.load(p), f64x2.mul(d, v128.load(at(ci, r)))));
        }
        v128.store(at(res, k), f64x2.sub(v128.load(at(res, k)), f64x2.mul(d, d)));
      }
    }
    if (failedB) return cb;
  }
  return -1;
}

/** search.ts's less: key a before key b by (key, index); keys 16 bytes apart (one lane). */
@inline
function less(keys: usize, a: i32, b: i32): bool {
  const ka = load<f64>(at(keys, a)),
    kb = load<f64>(at(keys, b));
  return ka < kb || (ka == kb && a < b);
}

@inline
function swap(idx: usize, i: i32, j: i32): void {
  const t = I(idx, i);
  setI(idx, i, I(idx, j));
  setI(idx, j, t);
}

/** search.ts's partition (median of three, by (key, index)). */
function partition(idx: usize, keys: usize, lo: i32, hi: i32): i32 {
  const mid = (lo + hi) >>> 1;
  if (less(keys, I(idx, mid), I(idx, lo))) swap(idx, mid, lo);
  if (less(keys, I(idx, hi), I(idx, lo))) swap(idx, hi, lo);
  if (less(keys, I(idx, mid), I(idx, hi))) swap(idx, mid, hi);
  const pivot = I(idx, hi),
    kp = load<f64>(at(keys, pivot));
  let store = lo;
  // the reference's `if (less(t, pivot)) swap(t, store++)` without a branch (which way a compare
  // goes is random): both entries written either way
  for (let t = lo; t < hi; t++) {
    const v = I(idx, t),
      w = I(idx, store),
      kv = load<f64>(at(keys, v));
    const l = <i32>(kv < kp) | (<i32>(kv == kp) & <i32>(v < pivot));
    setI(idx, t, select<i32>(w, v, l));
    setI(idx, store, select<i32>(v, w, l));
    store += l;
  }
  swap(idx, store, hi);
  return store;
}

/** search.ts's selectSmallest: the k least first; the place (k - 1 or k) of the last pivot. */
function selectSmallest(idx: usize, keys: usize, n: i32, k: i32): i32 {
  let lo = 0,
    hi = n - 1;
  // lo <= k - 1 < k <= hi throughout: it ends at a pivot in k - 1 or k
  let store = partition(idx, keys, lo, hi);
  while (store != k - 1 && store != k) {
    if (store < k) lo = store + 1;
    else hi = store - 1;
    store = partition(idx, keys, lo, hi);
  }
  return store;
}

/** search.ts's tiedAtCut: whether the k-th least key equals the (k+1)-th. */
function tiedAtCut(idx: usize, keys: usize, n: i32, k: i32, pos: i32): bool {
  const edge = load<f64>(at(keys, I(idx, pos)));
  if (pos == k) {
    for (let t = 0; t < k; t++) if (load<f64>(at(keys, I(idx, t))) == edge) return true;
  } else {
    for (let t = k; t < n; t++) if (load<f64>(at(keys, I(idx, t))) == edge) return true;
  }
  return false;
}

/** search.ts's sortRange: the part of idx[lo .. hi] that can reach the first k places, sorted by (key, index). */
function sortRange(idx: usize, keys: usize, lo: i32, hi: i32, k: i32): void {
  while (lo < hi && lo < k) {
    if (hi - lo < 16) {
      for (let t = lo + 1; t <= hi; t++) {
        const v = I(idx, t);
        let u = t;
        for (; u > lo && less(keys, v, I(idx, u - 1)); u--) setI(idx, u, I(idx, u - 1));
        setI(idx, u, v);
      }
      return;
    }
    const store = partition(idx, keys, lo, hi);
    if (store - lo < hi - store) {
      sortRange(idx, keys, lo, store - 1, k);
      lo = store + 1;
    } else {
      sortRange(idx, keys, store + 1, hi, k);
      hi = store - 1;
    }
  }
}

/** Set by pass(): the lanes (bit 0, bit 1) whose unordered search met an exact tie at a cut or at the best. */
let tiedLanes = 0;

/**
 * One search of two vectors (search.ts's pass, both lanes): R (f64x2, column-major) and z of the
 * pair, `ordered` sorting every pruned level's survivors. Leaves the survivors' p values in P and
 * metrics in M (returned in `count`); unordered, sets tiedLanes.
 */
function pass(
  R: usize,
  z: usize,
  nd: i32,
  q: i32,
  kk: i32,
  ordered: bool,
  P0: usize,
  P1: usize,
  M0: usize,
  M1: usize,
  CM: usize,
  idx: usize,
): i32 {
  const half = <f64>(q - 1);
  const idxB = idx + ((<usize>(kk * q)) << 2);
  let P = P0,
    Pn = P1,
    M = M0,
    Mn = M1;
  let count = 1;
  v128.store(M, f64x2.splat(0));
  const laneA = i64x2.replace_lane(i64x2.splat(-1), 1, 0);
  tiedLanes = 0;
  for (let i = nd - 1; i >= 0; i--) {
    const rii = v128.load(at(R, i + i * nd));
    const zi = v128.load(at(z, i));
    for (let s = 0; s < count; s++) {
      const ps = at(P, s * nd);
      let b = zi;
      for (let j = i + 1; j < nd; j++) b = f64x2.sub(b, f64x2.mul(v128.load(at(R, i + j * nd)), v128.load(at(ps, j))));
      const d = v128.load(at(M, s));
      const cm = at(CM, s * q);
      for (let c = 0; c < q; c++) {
        const e = f64x2.sub(b, f64x2.mul(rii, f64x2.splat(<f64>(2 * c) - half)));
        v128.store(at(cm, c), f64x2.add(d, f64x2.mul(e, e)));
      }
    }
    const children = count * q;
    const keep = children < kk ? children : kk;
    const pruned = keep < children && !ordered;
    // a bound on the K-th least child of each lane where K survivors are expanded: each has a child
    // at or under its own least, so at least K children lie at or under the largest of those leasts
    let bound = f64x2.splat(Infinity);
    if (pruned && count >= kk) {
      bound = f64x2.splat(-Infinity);
      for (let s = 0; s < count; s++) {
        const cm = at(CM, s * q);
        let least = v128.load(cm);
        for (let c = 1; c < q; c++) least = f64x2.pmin(least, v128.load(at(cm, c)));
        bound = f64x2.pmax(bound, least);
      }
    }
    // the children at or under the bound, in index order, both lanes in one pass (at least K: a
    // lane already tied takes the first K, any survivors doing until its ordered search)
    let na = children,
      nb = children;
    if (pruned) {
      na = 0;
      nb = 0;
      for (let c = 0; c < children; c++) {
        setI(idx, na, c);
        setI(idxB, nb, c);
        const bits = i64x2.bitmask(f64x2.le(v128.load(at(CM, c)), bound));
        na += bits & 1;
        nb += bits >> 1;
      }
    } else
      for (let c = 0; c < children; c++) {
        setI(idx, c, c);
        setI(idxB, c, c);
      }
    for (let lane = 0; lane < 2; lane++) {
      const ix = lane ? idxB : idx,
        keys = CM + ((<usize>lane) << 3);
      if (!pruned) {
        if (keep < children && ordered) sortRange(ix, keys, 0, children - 1, keep);
      } else if (!(tiedLanes & (1 << lane))) {
        // the K least are among them, and so is the (K+1)-th where there are more than K (a cut's
        // tie lies among them; with exactly K, none)
        const n = lane ? nb : na;
        if (n > keep) {
          const pos = selectSmallest(ix, keys, n, keep);
          if (tiedAtCut(ix, keys, n, keep, pos)) tiedLanes |= 1 << lane;
        }
      }
    }
    // the survivors, in slots, both lanes a store (a lane's own 8-byte stores would stall the next
    // level's vector loads of them): their parents' p values above level i, their own at i, their
    // metric; lane 0 from its parent's entries, lane 1 from its own
    for (let t = 0; t < keep; t++) {
      const ca = I(idx, t),
        cb = I(idxB, t);
      const pa = ca / q,
        pb = cb / q;
      const dst = at(Pn, t * nd),
        sa = at(P, pa * nd),
        sb = at(P, pb * nd);
      for (let j = i + 1; j < nd; j++)
        v128.store(at(dst, j), v128.bitselect(v128.load(at(sa, j)), v128.load(at(sb, j)), laneA));
      v128.store(
        at(dst, i),
        f64x2.replace_lane(f64x2.splat(<f64>(2 * (ca - pa * q)) - half), 1, <f64>(2 * (cb - pb * q)) - half),
      );
      v128.store(at(Mn, t), v128.bitselect(v128.load(at(CM, ca)), v128.load(at(CM, cb)), laneA));
    }
    const tp = P;
    P = Pn;
    Pn = tp;
    const tm = M;
    M = Mn;
    Mn = tm;
    count = keep;
  }
  if (!ordered) {
    for (let lane = 0; lane < 2; lane++) {
      const lo = (<usize>lane) << 3;
      let best = Infinity,
        ties = 0;
      for (let t = 0; t < count; t++) {
        const m = load<f64>(at(M, t) + lo);
        if (m < best) {
          best = m;
          ties = 0;
        } else if (m == best) ties++;
      }
      if (ties != 0) tiedLanes |= 1 << lane;
    }
  }
  // the result where the caller reads it: P0 and M0
  if (P != P0) {
    memory.copy(P0, P, (<usize>(count * nd)) << 4);
    memory.copy(M0, M, (<usize>count) << 4);
  }
  return count;
}

/**
 * Per received vector: z = Q^T y (applyQt), the K-best search (search.ts: unordered, then ordered
 * where an exact tie lies at a cut or at the best), and the list's max-log (BitMetricMinima): the
 * decision (the first survivor of least metric) and, when `soft`, the LLRs (min over bit-1
 * candidates - min over bit-0 ones) / N0 clipped to +-clip. Two vectors a lane group.
 */
export function detect(
  y: usize,
  chan: usize,
  noise: usize,
  vectors: i32,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  bps: i32,
  kk: i32,
  clip: f64,
  soft: i32,
  sym: usize,
  zero: usize,
  oneSyms: usize,
  symOut: usize,
  llrOut: usize,
  work: usize,
): void {
  const rows = 2 * nr,
    nd = 2 * nt,
    m = 1 << bps,
    halfM = m >> 1,
    nbits = nt * bps,
    qq = q * q;
  const stride = prepStride(rows, nd);
  const half = <f64>(q - 1),
    halfQ = 0.5 * <f64>q;
  // scratch: v128 arrays, then i32 arrays
  const R = work;
  const z = at(R, nd * nd);
  const P0 = at(z, nd),
    P1 = at(P0, kk * nd);
  const M0 = at(P1, kk * nd),
    M1 = at(M0, kk);
  const CM = at(M1, kk);
  const symMin = at(CM, kk * q);
  const bests = at(symMin, nt * qq);
  const idx = at(bests, 1);
  const ids = idx + ((<usize>(2 * kk * q)) << 2);
  const bestIds = ids + ((<usize>(2 * nt)) << 2);
  const colOf = bestIds + ((<usize>(2 * nt)) << 2);
  const yBytes = (<usize>rows) << 3;
  const inf = f64x2.splat(Infinity);
  for (let v = 0; v < vectors; v += 2) {
    const vb = v + 1 < vectors ? v + 1 : v;
    const ca = I(chan, v),
      cb = I(chan, vb);
    // 0: both of one channel; 1: channels 2g, 2g + 1 (one block, lanes in place); 2: any two
    const mode = ca == cb ? 0 : (ca & 1) == 0 && cb == ca + 1 ? 1 : 2;
    const ea = prep + <usize>(ca >> 1) * stride + ((<usize>(ca & 1)) << 3),
      eb = prep + <usize>(cb >> 1) * stride + ((<usize>(cb & 1)) << 3);
    const ya = y + <usize>v * yBytes,
      yb = y + <usize>vb * yBytes;
    // z = Q^T y (applyQt)
    for (let k = 0; k < nd; k++) {
      let d = f64x2.splat(0);
      for (let r = 0; r < rows; r++) {
        const o = (<usize>(k * rows + r)) << 4;
        d = f64x2.add(d, f64x2.mul(lanes(ea + o, eb + o, mode), pair(ya + ((<usize>r) << 3), yb + ((<usize>r) << 3))));
      }
      v128.store(at(z, k), d);
    }
    const er = (<usize>(rows * nd)) << 4;
    for (let j = 0; j < nd; j++)
      for (let i = 0; i <= j; i++) {
        const e = er + ((<usize>(i + j * nd)) << 4);
        v128.store(at(R, i + j * nd), lanes(ea + e, eb + e, mode));
      }
    let count = pass(R, z, nd, q, kk, false, P0, P1, M0, M1, CM, idx);
    if (tiedLanes != 0) count = pass(R, z, nd, q, kk, true, P0, P1, M0, M1, CM, idx);
    // the list's minima, each lane on its own (its order): per stream the least metric per level index
    for (let t = 0; t < nt * qq; t++) v128.store(at(symMin, t), inf);
    v128.store(bests, inf);
    for (let lane = 0; lane < 2; lane++) {
      const lo = (<usize>lane) << 3;
      const c = lane ? cb : ca;
      const perm = prep + <usize>(c >> 1) * stride + er + ((<usize>(nd * nd)) << 4) + ((<usize>((c & 1) * nd)) << 2);
      // the byte offsets in a path's levels of each stream's columns (Re, then Im)
      for (let k = 0; k < nd; k++) setI(colOf, I(perm, k), k << 4);
      const lid = ids + ((<usize>(lane * nt)) << 2),
        bid = bestIds + ((<usize>(lane * nt)) << 2);
      let best = Infinity;
      for (let t = 0; t < count; t++) {
        const pt = at(P0, t * nd) + lo;
        const mt = load<f64>(at(M0, t) + lo);
        // each stream's level index Re Q + Im from its p values (2 l - (Q - 1): exact), and the
        // least metric of a path with it
        for (let j = 0; j < nt; j++) {
          const fr = load<f64>(pt + <usize>I(colOf, 2 * j)),
            fi = load<f64>(pt + <usize>I(colOf, 2 * j + 1));
          const id = <i32>((fr + half) * halfQ + (fi + half) * 0.5);
          setI(lid, j, id);
          const p = at(symMin, j * qq + id) + lo;
          if (mt < load<f64>(p)) store<f64>(p, mt);
        }
        if (mt < best) {
          best = mt;
          for (let j = 0; j < nt; j++) setI(bid, j, I(lid, j));
        }
      }
    }
    for (let j = 0; j < nt; j++) setI(symOut, v * nt + j, I(sym, I(bestIds, j)));
    if (vb != v) for (let j = 0; j < nt; j++) setI(symOut, vb * nt + j, I(sym, I(bestIds, nt + j)));
    if (!soft) continue;
    // both lanes' LLRs at once (the symbols of a bit's sides are the same in both lanes)
    const invN = f64x2.replace_lane(
      f64x2.splat(1 / load<f64>(noise + ((<usize>v) << 3))),
      1,
      1 / load<f64>(noise + ((<usize>vb) << 3)),
    );
    const hi = f64x2.splat(clip),
      lo = f64x2.splat(-clip);
    const la = llrOut + ((<usize>(v * nbits)) << 3),
      lb = llrOut + ((<usize>(vb * nbits)) << 3);
    for (let j = 0; j < nt; j++) {
      const base = at(symMin, j * qq);
      for (let b = 0; b < bps; b++) {
        let m0 = inf,
          m1 = inf;
        // (each lane's minimum a load of its own: they were stored lane by lane)
        for (let t = b * halfM; t < (b + 1) * halfM; t++) {
          const z = at(base, I(zero, t)),
            o = at(base, I(oneSyms, t));
          m0 = f64x2.pmin(m0, pair(z, z + 8));
          m1 = f64x2.pmin(m1, pair(o, o + 8));
        }
        // clipped as the reference clips: l > clip ? clip : l < -clip ? -clip : l
        const l = f64x2.pmax(f64x2.pmin(f64x2.mul(f64x2.sub(m1, m0), invN), hi), lo);
        const o = (<usize>(j * bps + b)) << 3;
        v128.store64_lane(la + o, l, 0);
        if (vb != v) v128.store64_lane(lb + o, l, 1);
      }
    }
  }
}
