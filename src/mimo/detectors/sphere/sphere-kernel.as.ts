/**
 * AssemblyScript source of the sphere decoder's kernels on WebAssembly (built to sphere-kernel.wasm
 * by scripts/build-wasm.mjs; not compiled by tsc): the per-channel sorted complex QR (complex.ts's
 * complexSortedQrInto, expanded to the real R by MRVD, as triangularizeInto 'complex'; two
 * channels in f64x2 lanes) and the per-vector Schnorr-Euchner search (cpu.ts's SphereSearch; its
 * first descent and first siblings four vectors at a time in lanes, the rest scalar), for a whole
 * run of channels and vectors in one call. The arithmetic is the reference's, operation for
 * operation (float64, no fused multiply-add, Math.round as JavaScript rounds, every sum in its
 * order): the same decisions, nodes and budget stops, ties broken as the reference breaks them.
 *
 * Square QAM only (the host refuses the rest). Every pointer is a byte offset into the imported
 * memory, laid out by the host (wasm.ts):
 *   H       f64[channels][2 nr nt]   the complex channels (unscaled: see scale())
 *   shift   i32[channels]            each channel's power of two (detect.ts's channelShift)
 *   factor  f64[channels]            its scale factor (scale() writes it)
 *   prep    per pair of channels (stride bytes), an entry of both in a v128 (lane c & 1 channel c's):
 *           Q [2 nr nt], rows [n n], invDiag [n], weight [n]; then perm i32[2][n]
 *   y       f64[vectors][2 nr]       the received vectors (unscaled)
 *   chan    i32[vectors]             each vector's channel
 *   table   i32[q q]                 symbol index of a stream's level indices (Re * q + Im)
 *   bitTab  u8[q q][8]               a symbol's bits (the constellation's bitTable), zeros to 8 bytes
 *   symOut  i32[vectors][nt]         decisions
 *   bitOut  u8[vectors][nt][bps]     their bits (and 8 bytes of slack)
 *   stop    u8[vectors]              1 where the search stopped at its node budget
 *   work    scratch
 */
import { F, I, jsRound, setF, setI } from '../../../core/wasm/memory.lib.as';
import { ANY, at, lanes, PAIR, pair, SAME, swapLane } from '../lanes.lib.as';

export { scanRun } from '../input-scan.lib.as';

/** Math.round(u) clamped to [0, qMax], clamped before it becomes an integer (u may be far out). */
@inline
function level(u: f64, qMax: i32): i32 {
  const r = jsRound(u);
  return r < 0 ? 0 : r > <f64>qMax ? qMax : <i32>r;
}

/** 2^p for an integer p in [-1022, 1023], from its bits. */
@inline
function pow2(p: i32): f64 {
  return reinterpret<f64>((<i64>(p + 1023)) << 52);
}

/** x 2^p as detect.ts's timesPow2: steps of 2^+-1000 while |p| > 1000, then one product. */
function timesPow2(x: f64, p: i32): f64 {
  while (p > 1000) {
    x *= pow2(1000);
    p -= 1000;
  }
  while (p < -1000) {
    x *= pow2(-1000);
    p += 1000;
  }
  return x * pow2(p);
}

/** a[0 .. len) times 2^p in place, as detect.ts's scaleInto: one product where |p| <= 1000. */
function scaleBy(a: usize, len: i32, p: i32): void {
  if (p >= -1000 && p <= 1000) {
    const f = pow2(p);
    for (let i = 0; i < len; i++) setF(a, i, F(a, i) * f);
  } else for (let i = 0; i < len; i++) setF(a, i, timesPow2(F(a, i), p));
}

/**
 * The CPU engine's scaling of a run (detect.ts's scaleInto: channel c and its vectors by
 * 2^shift[c], the same products): factor[c] = 2^shift[c], by which prepare() and detect()
 * multiply each entry as they load it; a channel whose |shift| is over 1000 (several products) is
 * scaled in place here, with its vectors, and gets factor 1.
 */
export function scale(
  H: usize,
  channels: i32,
  y: usize,
  chan: usize,
  vectors: i32,
  nr: i32,
  nt: i32,
  shift: usize,
  factor: usize,
): void {
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  for (let c = 0; c < channels; c++) {
    const p = I(shift, c);
    if (p >= -1000 && p <= 1000) {
      setF(factor, c, pow2(p));
      continue;
    }
    setF(factor, c, 1);
    scaleBy(H + ((<usize>(c * hLen)) << 3), hLen, p);
    for (let v = 0; v < vectors; v++) if (I(chan, v) == c) scaleBy(y + ((<usize>(v * yLen)) << 3), yLen, p);
  }
}

/**
 * Column b -= q (q^H b) of two channels (a lane each), q normalized: q^H b = (dr, di) to rij (two
 * vectors) and its squared modulus off resid, every sum in row order (complexSortedQrInto's).
 */
@inline
function orthogonalize(q: usize, b: usize, nr: i32, rij: usize, resid: usize): void {
  let dr = f64x2.splat(0),
    di = dr;
  for (let r = 0; r < nr; r++) {
    const ar = v128.load(at(q, 2 * r)),
      ai = v128.load(at(q, 2 * r + 1)),
      br = v128.load(at(b, 2 * r)),
      bi = v128.load(at(b, 2 * r + 1));
    dr = f64x2.add(dr, f64x2.add(f64x2.mul(ar, br), f64x2.mul(ai, bi)));
    di = f64x2.add(di, f64x2.sub(f64x2.mul(ar, bi), f64x2.mul(ai, br)));
  }
  v128.store(rij, dr);
  v128.store(rij + 16, di);
  for (let r = 0; r < nr; r++) {
    const ar = v128.load(at(q, 2 * r)),
      ai = v128.load(at(q, 2 * r + 1));
    const pr = at(b, 2 * r),
      pi = at(b, 2 * r + 1);
    v128.store(pr, f64x2.sub(v128.load(pr), f64x2.sub(f64x2.mul(ar, dr), f64x2.mul(ai, di))));
    v128.store(pi, f64x2.sub(v128.load(pi), f64x2.add(f64x2.mul(ar, di), f64x2.mul(ai, dr))));
  }
  v128.store(resid, f64x2.sub(v128.load(resid), f64x2.add(f64x2.mul(dr, dr), f64x2.mul(di, di))));
}

/** orthogonalize() at nr = 4, unrolled (the same operations in the same order). */
@inline
function orthogonalize4(q: usize, b: usize, rij: usize, resid: usize): void {
  const ar0 = v128.load(q + 0),
    ai0 = v128.load(q + 16),
    br0 = v128.load(b + 0),
    bi0 = v128.load(b + 16);
  const ar1 = v128.load(q + 32),
    ai1 = v128.load(q + 48),
    br1 = v128.load(b + 32),
    bi1 = v128.load(b + 48);
  const ar2 = v128.load(q + 64),
    ai2 = v128.load(q + 80),
    br2 = v128.load(b + 64),
    bi2 = v128.load(b + 80);
  const ar3 = v128.load(q + 96),
    ai3 = v128.load(q + 112),
    br3 = v128.load(b + 96),
    bi3 = v128.load(b + 112);
  let dr = f64x2.splat(0),
    di = dr;
  dr = f64x2.add(dr, f64x2.add(f64x2.mul(ar0, br0), f64x2.mul(ai0, bi0)));
  di = f64x2.add(di, f64x2.sub(f64x2.mul(ar0, bi0), f64x2.mul(ai0, br0)));
  dr = f64x2.add(dr, f64x2.add(f64x2.mul(ar1, br1), f64x2.mul(ai1, bi1)));
  di = f64x2.add(di, f64x2.sub(f64x2.mul(ar1, bi1), f64x2.mul(ai1, br1)));
  dr = f64x2.add(dr, f64x2.add(f64x2.mul(ar2, br2), f64x2.mul(ai2, bi2)));
  di = f64x2.add(di, f64x2.sub(f64x2.mul(ar2, bi2), f64x2.mul(ai2, br2)));
  dr = f64x2.add(dr, f64x2.add(f64x2.mul(ar3, br3), f64x2.mul(ai3, bi3)));
  di = f64x2.add(di, f64x2.sub(f64x2.mul(ar3, bi3), f64x2.mul(ai3, br3)));
  v128.store(rij, dr);
  v128.store(rij + 16, di);
  v128.store(b + 0, f64x2.sub(br0, f64x2.sub(f64x2.mul(ar0, dr), f64x2.mul(ai0, di))));
  v128.store(b + 16, f64x2.sub(bi0, f64x2.add(f64x2.mul(ar0, di), f64x2.mul(ai0, dr))));
  v128.store(b + 32, f64x2.sub(br1, f64x2.sub(f64x2.mul(ar1, dr), f64x2.mul(ai1, di))));
  v128.store(b + 48, f64x2.sub(bi1, f64x2.add(f64x2.mul(ar1, di), f64x2.mul(ai1, dr))));
  v128.store(b + 64, f64x2.sub(br2, f64x2.sub(f64x2.mul(ar2, dr), f64x2.mul(ai2, di))));
  v128.store(b + 80, f64x2.sub(bi2, f64x2.add(f64x2.mul(ar2, di), f64x2.mul(ai2, dr))));
  v128.store(b + 96, f64x2.sub(br3, f64x2.sub(f64x2.mul(ar3, dr), f64x2.mul(ai3, di))));
  v128.store(b + 112, f64x2.sub(bi3, f64x2.add(f64x2.mul(ar3, di), f64x2.mul(ai3, dr))));
  v128.store(resid, f64x2.sub(v128.load(resid), f64x2.add(f64x2.mul(dr, dr), f64x2.mul(di, di))));
}

/** Bytes of one pair of channels' prep. */
export function prepStride(nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return ((((<usize>(2 * nr * nt + n * n + 2 * n)) << 4) + ((<usize>(2 * n)) << 2)) + 15) & ~(<usize>15);
}

/** Where channel c's prep starts: its pair's block, lane c & 1 (an array's entries 16 bytes apart). */
@inline
function chanPrep(prep: usize, c: i32, stride: usize): usize {
  return prep + <usize>(c >> 1) * stride + ((<usize>(c & 1)) << 3);
}

/** Channel c's order (perm i32[n]) in its pair's block. */
@inline
function chanPerm(prep: usize, c: i32, stride: usize, nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return (
    prep + <usize>(c >> 1) * stride + ((<usize>(2 * nr * nt + n * n + 2 * n)) << 4) + ((<usize>((c & 1) * n)) << 2)
  );
}

/** Entry i of a prep array (one lane of 16-byte entries). */
@inline
function G(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 4));
}

/**
 * Per channel: the sorted complex QR and the search's tables (prepareSphere), two channels at a
 * time in f64x2 lanes, into their pair's prep (each lane sorts its own columns, choosing by compares
 * and selects: a swap moves one lane's entries under a mask). Returns the first channel whose
 * matrix is rank deficient (the host then lets the reference throw), or -1.
 */
export function prepare(
  H: usize,
  factor: usize,
  channels: i32,
  nr: i32,
  nt: i32,
  scale: f64,
  prep: usize,
  work: usize,
): i32 {
  // 4 x 4 (the common case) with its sizes constant: loops of known length, bounds in no register
  return nr == 4 && nt == 4
    ? prepareSized(H, factor, channels, 4, 4, scale, prep, work)
    : prepareSized(H, factor, channels, nr, nt, scale, prep, work);
}

@inline
function prepareSized(
  H: usize,
  factor: usize,
  channels: i32,
  nr: i32,
  nt: i32,
  scale: f64,
  prep: usize,
  work: usize,
): i32 {
  const n = 2 * nt;
  const stride = prepStride(nr, nt);
  const hLen = 2 * nr * nt;
  // lanes A, B: Rc (column k at 2 k nt), the residual norms, the two orders; Q (column k at
  // 2 k nr) is factored in place in the pair's prep
  const Rcv = (work + 15) & ~(<usize>15),
    resid = at(Rcv, 2 * nt * nt),
    permA = at(resid, nt),
    permB = permA + ((<usize>nt) << 2);
  const zero = f64x2.splat(0),
    tol = f64x2.splat(1e-24);
  for (let c = 0; c < channels; c += 2) {
    const cb = c + 1 < channels ? c + 1 : c;
    const Qv = prep + <usize>(c >> 1) * stride;
    const hA = H + ((<usize>(c * hLen)) << 3),
      hB = H + ((<usize>(cb * hLen)) << 3);
    const f = pair(factor + ((<usize>c) << 3), factor + ((<usize>cb) << 3));
    let sc = zero;
    let failedB = false;
    for (let k = 0; k < nt; k++) {
      setI(permA, k, k);
      setI(permB, k, k);
      let nn = zero;
      for (let i = 0; i < 2 * nr; i++) {
        const e = (<usize>(2 * k * nr + i)) << 3;
        const v = f64x2.mul(pair(hA + e, hB + e), f);
        v128.store(at(Qv, 2 * k * nr + i), v);
        nn = f64x2.add(nn, f64x2.mul(v, v));
      }
      v128.store(at(resid, k), nn);
      sc = f64x2.max(sc, nn);
      for (let i = 0; i < 2 * nt; i++) v128.store(at(Rcv, 2 * k * nt + i), zero);
    }
    for (let i = 0; i < nt; i++) {
      // each lane's column of least residual norm (the first such: only a strictly less one
      // replaces it) to position i, with no branch on the data: the least norm and its column by
      // lane, then a swap of column i with each later column in the lanes that chose that column
      let least = v128.load(at(resid, i)),
        col = i64x2.splat(<i64>i);
      for (let k = i + 1; k < nt; k++) {
        const r = v128.load(at(resid, k)),
          lt = f64x2.lt(r, least);
        least = v128.bitselect(r, least, lt);
        col = v128.bitselect(i64x2.splat(<i64>k), col, lt);
      }
      for (let k = i + 1; k < nt; k++) {
        const mask = i64x2.eq(col, i64x2.splat(<i64>k));
        swapLane(Qv + ((<usize>(2 * i * nr)) << 4), Qv + ((<usize>(2 * k * nr)) << 4), 2 * nr, mask);
        swapLane(Rcv + ((<usize>(2 * i * nt)) << 4), Rcv + ((<usize>(2 * k * nt)) << 4), 2 * i, mask);
        swapLane(at(resid, i), at(resid, k), 1, mask);
      }
      const bA = <i32>i64x2.extract_lane(col, 0),
        bB = <i32>i64x2.extract_lane(col, 1);
      const tA = I(permA, i),
        tB = I(permB, i);
      setI(permA, i, I(permA, bA));
      setI(permA, bA, tA);
      setI(permB, i, I(permB, bB));
      setI(permB, bB, tB);
      const ci = 2 * i * nr;
      let nn = zero;
      for (let r = 0; r < 2 * nr; r++) {
        const v = v128.load(at(Qv, ci + r));
        nn = f64x2.add(nn, f64x2.mul(v, v));
      }
      const okBits = i64x2.bitmask(f64x2.gt(nn, f64x2.mul(tol, sc)));
      // channel c's failure first; channel cb's once c is through (its lane goes on, unused)
      if (!(okBits & 1)) return c;
      if (!(okBits & 2)) failedB = true;
      const norm = f64x2.sqrt(nn),
        inv = f64x2.div(f64x2.splat(1), norm);
      v128.store(at(Rcv, 2 * (i + i * nt)), norm);
      for (let r = 0; r < 2 * nr; r++) v128.store(at(Qv, ci + r), f64x2.mul(v128.load(at(Qv, ci + r)), inv));
      for (let k = i + 1; k < nt; k++) {
        const ck = 2 * k * nr;
        if (nr == 4) orthogonalize4(at(Qv, ci), at(Qv, ck), at(Rcv, 2 * (i + k * nt)), at(resid, k));
        else orthogonalize(at(Qv, ci), at(Qv, ck), nr, at(Rcv, 2 * (i + k * nt)), at(resid, k));
      }
    }
    if (failedB) return cb;
    // R by rows through the MRVD (positions 2k, 2k + 1 are Re and Im of stream perm[k], RVD
    // numbering s, nt + s), 1 / R_kk, the weights and each lane's order, after Q
    const rows = Qv + ((<usize>hLen) << 4),
      inv = rows + ((<usize>(n * n)) << 4),
      weight = inv + ((<usize>n) << 4),
      permOutA = weight + ((<usize>n) << 4),
      permOutB = permOutA + ((<usize>n) << 2);
    const w4 = f64x2.splat(4 * scale * scale);
    for (let i = 0; i < nt; i++) {
      for (let j = i; j < nt; j++) {
        const re = v128.load(at(Rcv, 2 * (i + j * nt))),
          im = v128.load(at(Rcv, 2 * (i + j * nt) + 1));
        // R(2i, 2j) = re, R(2i, 2j + 1) = -im, R(2i + 1, 2j) = im, R(2i + 1, 2j + 1) = re (at j = i
        // R(2i + 1, 2i), below the diagonal, is never read)
        v128.store(at(rows, 2 * i * n + 2 * j), re);
        v128.store(at(rows, 2 * i * n + 2 * j + 1), f64x2.neg(im));
        v128.store(at(rows, (2 * i + 1) * n + 2 * j), im);
        v128.store(at(rows, (2 * i + 1) * n + 2 * j + 1), re);
      }
      const d = v128.load(at(Rcv, 2 * (i + i * nt)));
      const iv = f64x2.div(f64x2.splat(1), d),
        wt = f64x2.mul(f64x2.mul(w4, d), d);
      v128.store(at(inv, 2 * i), iv);
      v128.store(at(inv, 2 * i + 1), iv);
      v128.store(at(weight, 2 * i), wt);
      v128.store(at(weight, 2 * i + 1), wt);
      const sA = I(permA, i),
        sB = I(permB, i);
      setI(permOutA, 2 * i, sA);
      setI(permOutA, 2 * i + 1, nt + sA);
      setI(permOutB, 2 * i, sB);
      setI(permOutB, 2 * i + 1, nt + sB);
    }
  }
  return -1;
}

/** Bytes of the scratch `work` must hold. */
export function workBytes(nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return (
    ((<usize>(2 * nt * nt + nt + n * n + 7 * n + 1 + 2 * nr)) << 3) +
    ((<usize>(8 * n + 1 + nt)) << 2) +
    ((<usize>(2 * nr * nt + 2 * nt * nt + nt)) << 4) +
    ((<usize>(2 + 2 * (5 * n + 1 + 2 * nr))) << 4) +
    64
  );
}

/** The mode of two channels' entries dB bytes apart (lane A's channel first). */
@inline
function modeOf(dB: usize): i32 {
  return dB == 0 ? SAME : dB == 8 ? PAIR : ANY;
}

/** Set by search(): whether it found a leaf inside the radius / stopped at its node budget. */
let found = false;
let stopped = false;

/**
 * SphereSearch.search on the scalar state: from the top (`resume` false: nodes 0, the top level's
 * centre) or from just after the first leaf (`resume` true: the descent's state in idx, lo, hi,
 * centre, pd and amp, that leaf in best, its metric r2, `nodes` its n nodes). Returns the nodes.
 */
function search(
  n: i32,
  q: i32,
  scale: f64,
  rows: usize,
  invDiag: usize,
  weight: usize,
  yHat: usize,
  amp: usize,
  pd: usize,
  centre: usize,
  idx: usize,
  lo: usize,
  hi: usize,
  best: usize,
  gen: usize,
  stamp: usize,
  r2: f64,
  maxNodes: f64,
  resume: bool,
  nodes: f64,
): f64 {
  const half = <f64>(q - 1) / 2,
    toIndex = 1 / (2 * scale),
    qMax = q - 1;
  found = resume;
  stopped = false;
  // An even position's centre does not depend on the odd position above it (R_{2m, 2m+1} is -0:
  // its product leaves the sum as it is), so it is kept while the positions above that stay:
  // gen[j] counts the nodes accepted at j, stamp[2m] is gen[2m + 2] when centre[2m] was computed
  // (the resumed state's centres are current, a fresh search's are not).
  for (let j = 0; j <= n; j++) setI(gen, j, 0);
  for (let j = 0; j < n; j += 2) setI(stamp, j, resume ? 0 : -1);
  let k = n - 1;
  let advance = resume;
  if (resume) k = 1;
  else {
    setF(pd, n, 0);
    const u = F(yHat, k) * G(invDiag, k) * toIndex + half;
    const i0 = level(u, qMax);
    setF(centre, k, u);
    setI(idx, k, i0);
    setI(lo, k, i0 - 1);
    setI(hi, k, i0 + 1);
  }
  for (;;) {
    if (!advance) {
      const dlt = <f64>I(idx, k) - F(centre, k);
      const m = F(pd, k + 1) + G(weight, k) * dlt * dlt;
      if (++nodes > maxNodes) {
        stopped = true;
        if (!found) zfRadius(n, q, scale, yHat, amp, idx, rows, invDiag, best);
        return nodes - 1;
      }
      if (m < r2) {
        if (k == 0) {
          r2 = m;
          found = true;
          for (let t = 0; t < n; t++) setI(best, t, I(idx, t));
          k = 1;
        } else {
          setF(amp, k, <f64>(2 * I(idx, k) - qMax) * scale);
          setF(pd, k, m);
          setI(gen, k, I(gen, k) + 1);
          k--;
          let u: f64;
          if ((k & 1) == 0 && I(stamp, k) == I(gen, k + 2)) u = F(centre, k);
          else {
            let s = F(yHat, k);
            const rb = k * n;
            for (let j = k + 1; j < n; j++) s -= G(rows, rb + j) * F(amp, j);
            u = s * G(invDiag, k) * toIndex + half;
            if ((k & 1) == 0) setI(stamp, k, I(gen, k + 2));
          }
          const i0 = level(u, qMax);
          setF(centre, k, u);
          setI(idx, k, i0);
          setI(lo, k, i0 - 1);
          setI(hi, k, i0 + 1);
          continue;
        }
      } else {
        k++;
      }
    }
    advance = false;
    // the next candidate at level k, going up while a level is exhausted
    for (;;) {
      if (k >= n) {
        if (!found) zfRadius(n, q, scale, yHat, amp, idx, rows, invDiag, best);
        return nodes;
      }
      const l = I(lo, k),
        h = I(hi, k),
        u = F(centre, k);
      const lOk = l >= 0,
        hOk = h <= qMax;
      if (lOk || hOk) {
        // the nearer of the two (below on a tie), without a branch on which
        const takeL = lOk & (!hOk | (u - <f64>l <= <f64>h - u));
        setI(idx, k, select<i32>(l, h, takeL));
        setI(lo, k, select<i32>(l - 1, l, takeL));
        setI(hi, k, select<i32>(h, h + 1, takeL));
        break;
      }
      k++;
    }
  }
  return nodes;
}

/** yHat2 = Q^H y of two vectors (lanes A, B; B's channel dB bytes after A's): re += qr a + qi b, im += qr b - qi a. */
@inline
function rotate(
  mode: i32,
  QA: usize,
  dB: usize,
  yA: usize,
  yB: usize,
  f: v128,
  nr: i32,
  nt: i32,
  ypair: usize,
  yHat2: usize,
): void {
  for (let i = 0; i < 2 * nr; i++)
    v128.store(at(ypair, i), f64x2.mul(pair(yA + ((<usize>i) << 3), yB + ((<usize>i) << 3)), f));
  let e = QA;
  for (let k = 0; k < nt; k++) {
    let re = f64x2.splat(0),
      im = f64x2.splat(0);
    for (let i = 0; i < nr; i++, e += 32) {
      const qr = lanes(e, e + dB, mode),
        qi = lanes(e + 16, e + 16 + dB, mode);
      const a = v128.load(at(ypair, 2 * i)),
        b = v128.load(at(ypair, 2 * i + 1));
      re = f64x2.add(re, f64x2.add(f64x2.mul(qr, a), f64x2.mul(qi, b)));
      im = f64x2.add(im, f64x2.sub(f64x2.mul(qr, b), f64x2.mul(qi, a)));
    }
    v128.store(at(yHat2, 2 * k), re);
    v128.store(at(yHat2, 2 * k + 1), im);
  }
}

/** rotate() of four vectors of one channel (two pairs of lanes, pair 1's arrays `block` bytes on): one load of each entry of Q. */
function rotate4(
  Q: usize,
  y0: usize,
  y1: usize,
  y2: usize,
  y3: usize,
  f: v128,
  nr: i32,
  nt: i32,
  ypair: usize,
  yHat2: usize,
  block: usize,
): void {
  for (let i = 0; i < 2 * nr; i++) {
    const o = (<usize>i) << 3;
    v128.store(at(ypair, i), f64x2.mul(pair(y0 + o, y1 + o), f));
    v128.store(at(ypair, i) + block, f64x2.mul(pair(y2 + o, y3 + o), f));
  }
  let e = Q;
  for (let k = 0; k < nt; k++) {
    let re = f64x2.splat(0),
      im = f64x2.splat(0),
      re2 = f64x2.splat(0),
      im2 = f64x2.splat(0);
    for (let i = 0; i < nr; i++, e += 32) {
      const qr = v128.load64_splat(e),
        qi = v128.load64_splat(e + 16);
      const pa = at(ypair, 2 * i);
      const a = v128.load(pa),
        b = v128.load(pa + 16),
        a2 = v128.load(pa + block),
        b2 = v128.load(pa + block + 16);
      re = f64x2.add(re, f64x2.add(f64x2.mul(qr, a), f64x2.mul(qi, b)));
      im = f64x2.add(im, f64x2.sub(f64x2.mul(qr, b), f64x2.mul(qi, a)));
      re2 = f64x2.add(re2, f64x2.add(f64x2.mul(qr, a2), f64x2.mul(qi, b2)));
      im2 = f64x2.add(im2, f64x2.sub(f64x2.mul(qr, b2), f64x2.mul(qi, a2)));
    }
    v128.store(at(yHat2, 2 * k), re);
    v128.store(at(yHat2, 2 * k + 1), im);
    v128.store(at(yHat2, 2 * k) + block, re2);
    v128.store(at(yHat2, 2 * k + 1) + block, im2);
  }
}

/** Lane `o` (byte 0 or 8) of the v128 array src2[0 .. n) into the scalar array dst. */
function laneOf(src2: usize, n: i32, o: usize, dst: usize): void {
  for (let k = 0; k < n; k++) setF(dst, k, load<f64>(at(src2, k) + o));
}

/**
 * The metric of a level's first sibling: the next nearest level to centre u after i0 (below where
 * it is at least as near, as the reference's zig-zag), under partial metric `above`.
 */
@inline
function sibling(u: v128, i0: v128, above: v128, w: v128, vQMax: v128): v128 {
  const vOne = f64x2.splat(1),
    vZero = f64x2.splat(0);
  const l = f64x2.sub(i0, vOne),
    h = f64x2.add(i0, vOne);
  const lOk = f64x2.ge(l, vZero),
    hOk = f64x2.le(h, vQMax);
  const takeL = v128.and(lOk, v128.or(v128.not(hOk), f64x2.le(f64x2.sub(u, l), f64x2.sub(h, u))));
  const d = f64x2.sub(v128.bitselect(l, h, takeL), u);
  return f64x2.add(above, f64x2.mul(f64x2.mul(w, d), d));
}

/**
 * Four vectors' first descent (nearest level at every position, the reference's operations), two
 * pairs of lanes side by side (two independent chains: a level waits on the level above), and the
 * test of the first sibling at each level above the leaf against the leaf's metric. Lane L's
 * channel is dL bytes after lane 0's (`same`: all four share it). Pair g's state is at
 * block g bytes after pair 0's. Returns each lane's way (lane L's in bits 2L, 2L + 1): 0 the leaf
 * is the answer (no sibling inside), 1 the search goes on after the leaf, 2 the descent left the
 * radius (the search starts afresh).
 */
@inline
function descend(
  mode: i32,
  rows: usize,
  d1: usize,
  d2: usize,
  d3: usize,
  n: i32,
  r2a: v128,
  r2b: v128,
  vHalf: v128,
  vToIndex: v128,
  vScale: v128,
  vQMax: v128,
  yHat2: usize,
  amp2: usize,
  pd2: usize,
  centre2: usize,
  lev2: usize,
  block: usize,
): i32 {
  const invDiag = rows + ((<usize>(n * n)) << 4),
    weight = invDiag + ((<usize>n) << 4);
  const vZero = f64x2.splat(0),
    vOne = f64x2.splat(1),
    vTwo = f64x2.splat(2),
    vPoint5 = f64x2.splat(0.5);
  let okA = v128.not(vZero),
    okB = okA;
  let pdA = vZero,
    pdB = vZero;
  let sibA = f64x2.splat(Infinity),
    sibB = sibA;
  for (let k = n - 1; k >= 0; k--) {
    let sA = v128.load(at(yHat2, k)),
      sB = v128.load(at(yHat2, k) + block);
    const rb = at(rows, k * n);
    // s -= R_kj amp_j for j = k + 1 .. n - 1, in that order (pointers to R_kj and amp_j walked)
    const rEnd = at(rb, n);
    for (let e = at(rb, k + 1), aj = at(amp2, k + 1); e < rEnd; e += 16, aj += 16) {
      const rA = lanes(e, e + d1, mode),
        rB = mode == SAME ? rA : lanes(e + d2, e + d3, mode);
      sA = f64x2.sub(sA, f64x2.mul(rA, v128.load(aj)));
      sB = f64x2.sub(sB, f64x2.mul(rB, v128.load(aj + block)));
    }
    const ek = at(invDiag, k),
      ew = at(weight, k);
    const ivA = lanes(ek, ek + d1, mode),
      ivB = mode == SAME ? ivA : lanes(ek + d2, ek + d3, mode);
    const wA = lanes(ew, ew + d1, mode),
      wB = mode == SAME ? wA : lanes(ew + d2, ew + d3, mode);
    const uA = f64x2.add(f64x2.mul(f64x2.mul(sA, ivA), vToIndex), vHalf),
      uB = f64x2.add(f64x2.mul(f64x2.mul(sB, ivB), vToIndex), vHalf);
    const fA = f64x2.floor(uA),
      fB = f64x2.floor(uB);
    const rA = f64x2.add(fA, v128.and(f64x2.ge(f64x2.sub(uA, fA), vPoint5), vOne)),
      rB = f64x2.add(fB, v128.and(f64x2.ge(f64x2.sub(uB, fB), vPoint5), vOne));
    const iA = f64x2.pmin(f64x2.pmax(rA, vZero), vQMax),
      iB = f64x2.pmin(f64x2.pmax(rB, vZero), vQMax);
    const dA = f64x2.sub(iA, uA),
      dB = f64x2.sub(iB, uB);
    const mA = f64x2.add(pdA, f64x2.mul(f64x2.mul(wA, dA), dA)),
      mB = f64x2.add(pdB, f64x2.mul(f64x2.mul(wB, dB), dB));
    okA = v128.and(okA, f64x2.lt(mA, r2a));
    okB = v128.and(okB, f64x2.lt(mB, r2b));
    v128.store(at(amp2, k), f64x2.mul(f64x2.sub(f64x2.mul(vTwo, iA), vQMax), vScale));
    v128.store(at(amp2, k) + block, f64x2.mul(f64x2.sub(f64x2.mul(vTwo, iB), vQMax), vScale));
    v128.store(at(centre2, k), uA);
    v128.store(at(centre2, k) + block, uB);
    // the levels as integers (i32 lanes 0 and 1), exact: 0 <= i <= qMax
    v128.store(at(lev2, k), i32x4.trunc_sat_f64x2_s_zero(iA));
    v128.store(at(lev2, k) + block, i32x4.trunc_sat_f64x2_s_zero(iB));
    v128.store(at(pd2, k), mA);
    v128.store(at(pd2, k) + block, mB);
    if (k > 0) {
      // the level's first sibling (the next nearest level) under the same levels above
      sibA = f64x2.pmin(sibA, sibling(uA, iA, pdA, wA, vQMax));
      sibB = f64x2.pmin(sibB, sibling(uB, iB, pdB, wB, vQMax));
    }
    pdA = mA;
    pdB = mB;
  }
  // a sibling inside the leaf's metric: the least of them below it (all finite where the descent
  // stayed inside the radius, the only lanes where this counts)
  const inA = f64x2.lt(sibA, pdA),
    inB = f64x2.lt(sibB, pdB);
  const ok = i64x2.bitmask(okA) | (i64x2.bitmask(okB) << 2),
    inside = i64x2.bitmask(inA) | (i64x2.bitmask(inB) << 2);
  let ways = 0;
  for (let L = 0; L < 4; L++) ways |= ((ok >> L) & 1 ? (inside >> L) & 1 : 2) << (2 * L);
  return ways;
}

/**
 * Per vector: yHat = Q^H y (the complex rotation), the initial radius (infinity, or with `babai`
 * the sliced zero-forcing point's distance, inflated as the reference inflates it), the search
 * within maxNodes nodes, and the decisions. Returns the nodes visited over all vectors.
 *
 * Two vectors at a time in f64x2 lanes (the next two of the run, whatever their channels): the
 * rotation, the first descent (the Babai / SIC point: nearest level at every position), and the
 * test of the first sibling at every level above the leaf against the leaf's metric. Where that
 * descent stayed inside the radius and no sibling is inside the leaf's metric (most vectors at a
 * high SNR), the search ends there in the reference, after its n + n - 1 nodes: the leaf is the
 * answer. Otherwise the lane's state goes to the scalar search, which goes on from just after the
 * leaf (or starts afresh where the descent left the radius). Every value is computed by the
 * reference's operations in its order, so decisions, nodes and budget stops are the reference's.
 */
export function detect(
  y: usize,
  factor: usize,
  chan: usize,
  vectors: i32,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  babai: i32,
  maxNodes: f64,
  table: usize,
  bitTab: usize,
  bps: i32,
  symOut: usize,
  bitOut: usize,
  stop: usize,
  work: usize,
): f64 {
  // 4 x 4 (the common case) with its sizes constant
  return nr == 4 && nt == 4
    ? detectSized(y, factor, chan, vectors, prep, 4, 4, q, scale, babai, maxNodes, table, bitTab, bps, symOut, bitOut, stop, work)
    : detectSized(y, factor, chan, vectors, prep, nr, nt, q, scale, babai, maxNodes, table, bitTab, bps, symOut, bitOut, stop, work);
}

@inline
function detectSized(
  y: usize,
  factor: usize,
  chan: usize,
  vectors: i32,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  babai: i32,
  maxNodes: f64,
  table: usize,
  bitTab: usize,
  bps: i32,
  symOut: usize,
  bitOut: usize,
  stop: usize,
  work: usize,
): f64 {
  const n = 2 * nt;
  const stride = prepStride(nr, nt);
  const hLen = 2 * nr * nt;
  const yHat = work,
    amp = yHat + ((<usize>n) << 3),
    pd = amp + ((<usize>n) << 3),
    centre = pd + ((<usize>(n + 1)) << 3),
    idx = centre + ((<usize>n) << 3),
    lo = idx + ((<usize>n) << 2),
    hi = lo + ((<usize>n) << 2),
    best = hi + ((<usize>n) << 2),
    scr = best + ((<usize>n) << 2),
    gen = scr + ((<usize>n) << 2),
    stamp = gen + ((<usize>(n + 1)) << 2),
    r2s = (stamp + ((<usize>n) << 2) + 15) & ~(<usize>15),
    // two pairs' state: pair 1's `block` bytes after pair 0's
    amp2 = at(r2s, 2),
    pd2 = at(amp2, n),
    centre2 = at(pd2, n + 1),
    lev2 = at(centre2, n),
    yHat2 = at(lev2, n),
    ypair = at(yHat2, n),
    block = (<usize>(5 * n + 1 + 2 * nr)) << 4;
  const half = <f64>(q - 1) / 2,
    toIndex = 1 / (2 * scale),
    qMax = q - 1;
  const vHalf = f64x2.splat(half),
    vToIndex = f64x2.splat(toIndex),
    vScale = f64x2.splat(scale),
    vQMax = f64x2.splat(<f64>qMax);
  // the lanes' answer is the reference's only where its n + n - 1 nodes are within the budget
  const lanesFit = <f64>(2 * n - 1) <= maxNodes;
  let total: f64 = 0;
  for (let v = 0; v < vectors; v += 4) {
    // lanes 0 to 3: vectors v to v + 3 (the last vector again past the run's end)
    const last = vectors - 1;
    const v1 = min(v + 1, last),
      v2 = min(v + 2, last),
      v3 = min(v + 3, last);
    const Q0 = chanPrep(prep, I(chan, v), stride),
      Q1 = chanPrep(prep, I(chan, v1), stride),
      Q2 = chanPrep(prep, I(chan, v2), stride),
      Q3 = chanPrep(prep, I(chan, v3), stride);
    const d1 = Q1 - Q0,
      d2 = Q2 - Q0,
      d3 = Q3 - Q0;
    const same = Q0 == Q1 && Q0 == Q2 && Q0 == Q3;
    const rows = Q0 + ((<usize>hLen) << 4);
    const y0 = y + ((<usize>(v * 2 * nr)) << 3),
      y1 = y + ((<usize>(v1 * 2 * nr)) << 3),
      y2 = y + ((<usize>(v2 * 2 * nr)) << 3),
      y3 = y + ((<usize>(v3 * 2 * nr)) << 3);
    // the rotation, a pair at a time, into yHat2 (one loop for a shared channel, one for two)
    // each vector's scale factor (its channel's)
    const c0 = I(chan, v),
      c2 = I(chan, v2);
    const fa = pair(factor + ((<usize>c0) << 3), factor + ((<usize>I(chan, v1)) << 3)),
      fb = pair(factor + ((<usize>c2) << 3), factor + ((<usize>I(chan, v3)) << 3));
    if (same) rotate4(Q0, y0, y1, y2, y3, fa, nr, nt, ypair, yHat2, block);
    else {
      const mA = modeOf(d1),
        mB = modeOf(Q3 - Q2);
      if (mA == SAME) rotate(SAME, Q0, 0, y0, y1, fa, nr, nt, ypair, yHat2);
      else if (mA == PAIR) rotate(PAIR, Q0, d1, y0, y1, fa, nr, nt, ypair, yHat2);
      else rotate(ANY, Q0, d1, y0, y1, fa, nr, nt, ypair, yHat2);
      if (mB == SAME) rotate(SAME, Q2, 0, y2, y3, fb, nr, nt, ypair + block, yHat2 + block);
      else if (mB == PAIR) rotate(PAIR, Q2, Q3 - Q2, y2, y3, fb, nr, nt, ypair + block, yHat2 + block);
      else rotate(ANY, Q2, Q3 - Q2, y2, y3, fb, nr, nt, ypair + block, yHat2 + block);
    }
    for (let L = 0; L < 4; L++) setF(r2s, L, Infinity);
    if (babai)
      for (let L = 0; L < 4; L++) {
        const off: usize = L == 0 ? 0 : L == 1 ? d1 : L == 2 ? d2 : d3;
        laneOf(yHat2 + (L >> 1 ? block : 0), n, (<usize>(L & 1)) << 3, yHat);
        const r = zfRadius(n, q, scale, yHat, amp, idx, rows + off, rows + off + ((<usize>(n * n)) << 4), best);
        setF(r2s, L, r * (1 + 1e-9) + 1e-300);
      }
    // lane L: 0 the lane's answer is the leaf, 1 resume after the leaf, 2 search afresh
    let ways = 0xaa;
    if (lanesFit) {
      const r2a = v128.load(r2s),
        r2b = v128.load(r2s + 16);
      // one channel for all four, the two channels of a pair in each pair of lanes (one vector
      // load an entry: one vector a channel, consecutive channels), or any
      ways = same
        ? descend(SAME, rows, 0, 0, 0, n, r2a, r2b, vHalf, vToIndex, vScale, vQMax, yHat2, amp2, pd2, centre2, lev2, block)
        : d1 == 8 && d3 - d2 == 8
          ? descend(PAIR, rows, d1, d2, d3, n, r2a, r2b, vHalf, vToIndex, vScale, vQMax, yHat2, amp2, pd2, centre2, lev2, block)
          : descend(ANY, rows, d1, d2, d3, n, r2a, r2b, vHalf, vToIndex, vScale, vQMax, yHat2, amp2, pd2, centre2, lev2, block);
    }
    for (let L = 0; L < min(4, vectors - v); L++) {
      const way = (ways >> (2 * L)) & 3;
      const off: usize = L == 0 ? 0 : L == 1 ? d1 : L == 2 ? d2 : d3;
      const g: usize = L >> 1 ? block : 0;
      const o = (<usize>(L & 1)) << 3,
        oi = (<usize>(L & 1)) << 2;
      const invDiag = rows + off + ((<usize>(n * n)) << 4),
        weight = invDiag + ((<usize>n) << 4);
      let nodes: f64 = 0;
      let halted = false;
      const perm = chanPerm(prep, I(chan, L == 0 ? v : L == 1 ? v1 : L == 2 ? v2 : v3), stride, nr, nt);
      if (way == 0) {
        // the leaf's levels, stream by stream (positions 2k, 2k + 1: Re and Im of stream perm[2k])
        for (let k = 0; k < nt; k++) {
          const re = load<i32>(at(lev2 + g, 2 * k) + oi),
            im = load<i32>(at(lev2 + g, 2 * k + 1) + oi);
          setI(scr, I(perm, 2 * k), I(table, re * q + im));
        }
        nodes = <f64>(2 * n - 1);
      } else {
        let r2 = F(r2s, L);
        laneOf(yHat2 + g, n, o, yHat);
        if (way == 1) {
          // the lane's state after its first leaf
          for (let t = 0; t < n; t++) {
            const i0 = load<i32>(at(lev2 + g, t) + oi);
            setI(idx, t, i0);
            setI(lo, t, i0 - 1);
            setI(hi, t, i0 + 1);
            setI(best, t, i0);
          }
          laneOf(centre2 + g, n, o, centre);
          laneOf(amp2 + g, n, o, amp);
          laneOf(pd2 + g, n, o, pd);
          setF(pd, n, 0);
          r2 = F(pd, 0);
          nodes = <f64>n;
        }
        nodes = search(
          n,
          q,
          scale,
          rows + off,
          invDiag,
          weight,
          yHat,
          amp,
          pd,
          centre,
          idx,
          lo,
          hi,
          best,
          gen,
          stamp,
          r2,
          maxNodes,
          way == 1,
          nodes,
        );
        halted = stopped;
        for (let k = 0; k < nt; k++) setI(scr, I(perm, 2 * k), I(table, I(best, 2 * k) * q + I(best, 2 * k + 1)));
      }
      total += nodes;
      const vv = v + L;
      store<u8>(stop + <usize>vv, halted ? 1 : 0);
      // the symbols (symbolsFromLevels, into scr above) and their bits in stream order, eight bytes a symbol (the next symbol's store overwrites the excess)
      let dst = bitOut + <usize>(vv * nt * bps);
      for (let j = 0; j < nt; j++, dst += <usize>bps) {
        const sym = I(scr, j);
        setI(symOut, vv * nt + j, sym);
        store<u64>(dst, load<u64>(bitTab + ((<usize>sym) << 3)));
      }
    }
  }
  return total;
}

/** SphereSearch.zfRadius: the sliced unconstrained least-squares point into best, and its squared distance. */
function zfRadius(
  n: i32,
  q: i32,
  scale: f64,
  yHat: usize,
  amp: usize,
  idx: usize,
  rows: usize,
  invDiag: usize,
  best: usize,
): f64 {
  const half = <f64>(q - 1) / 2;
  for (let k = n - 1; k >= 0; k--) {
    let s = F(yHat, k);
    for (let j = k + 1; j < n; j++) s -= G(rows, k * n + j) * F(amp, j);
    setF(amp, k, s * G(invDiag, k));
  }
  for (let k = 0; k < n; k++) {
    setI(idx, k, level(F(amp, k) / (2 * scale) + half, q - 1));
  }
  for (let k = 0; k < n; k++) setF(amp, k, <f64>(2 * I(idx, k) - (q - 1)) * scale);
  let d: f64 = 0;
  for (let k = 0; k < n; k++) {
    let s = F(yHat, k);
    for (let j = k; j < n; j++) s -= G(rows, k * n + j) * F(amp, j);
    d += s * s;
  }
  for (let t = 0; t < n; t++) setI(best, t, I(idx, t));
  return d;
}
