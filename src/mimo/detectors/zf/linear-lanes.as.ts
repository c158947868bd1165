/**
 * AssemblyScript source of the linear detectors' kernels on WebAssembly (built to linear-lanes.wasm
 * by scripts/build-wasm.mjs; not compiled by tsc): zf and mmse (linear.ts: the filter
 * W = (H^H H + a I)^{-1} H^H and the unbiasing 1 / mu_k per channel, W y and the slicing per vector)
 * and sic (sic/cpu.ts: the ordered MMSE filters per channel, one Gram inverse a step; per vector the
 * filtering, slicing and cancellation step by step), for a whole run of channels and vectors in one
 * call each. Two problems a v128 in float64 (f64x2): two preparations (a channel, and for mmse and
 * sic a noise variance) in the Gram matrices, the Gauss-Jordan inverses (each lane its own pivots:
 * Math.hypot as V8 computes it, rows swapped under the lanes' masks) and the filters; two received
 * vectors in the filtering, the slicing (Math.round as JavaScript rounds) and the cancellation. The
 * arithmetic is the reference's, operation for operation (no fused multiply-add, every sum in its
 * order, the signed zeros it writes), so the decisions are the reference's bit for bit.
 *
 * Every pointer is a byte offset into the imported memory, laid out by the host (linear-wasm.ts):
 *   H       f64[channels][2 nr nt]   the complex channels, scaled (scanRun)
 *   y       f64[vectors][2 nr]       the received vectors, scaled
 *   chan    i32[vectors]             each vector's channel
 *   noise   f64[vectors]             each vector's scaled N0
 *   group   i32[vectors]             each vector's preparation (written by prepare)
 *   gChan   i32[vectors], gNoise f64[vectors]   each preparation's channel and N0
 *   prep    per pair of preparations (stride bytes), an entry of both in a v128 (lane g & 1
 *           preparation g's): zf / mmse W [nt x nr complex, column-major], unbias [nt];
 *           sic filters [nt][nr complex], unbias [nt], order [nt] (as float64), H's columns in
 *           that order [nt][nr complex]
 *   table   i32[q q]                 symbol index of a stream's level indices (Re * q + Im)
 *   bitTab  u8[symbols][8]           a symbol's bits, zeros to 8 bytes
 *   symOut  i32[vectors][nt]         decisions
 *   bitOut  u8[vectors][nt][bps]     their bits (and 8 bytes of slack)
 *   work    scratch (workBytes)
 */
import { F, I, setF, setI } from '../../../core/wasm/memory.lib.as';
import { ANY, at, lanes, PAIR, pair, SAME } from '../lanes.lib.as';

export { scanRun } from '../input-scan.lib.as';

/**
 * Math.hypot(x, y) of each lane as V8 computes it: the larger magnitude m, then (Kahan's sum of
 * two terms, whose correction is 0 after the first) sqrt((|x| / m)^2 + (|y| / m)^2) * m; 0 where
 * m is 0.
 */
@inline
function hypot2(x: v128, y: v128): v128 {
  const ax = f64x2.abs(x),
    ay = f64x2.abs(y);
  const m = f64x2.pmax(ax, ay);
  const nx = f64x2.div(ax, m),
    ny = f64x2.div(ay, m);
  const h = f64x2.mul(f64x2.sqrt(f64x2.add(f64x2.mul(nx, nx), f64x2.mul(ny, ny))), m);
  return v128.bitselect(f64x2.splat(0), h, f64x2.eq(m, f64x2.splat(0)));
}

/** hypot2 of the count (x, y) pairs at xy (interleaved, count even) into out: the pivots' magnitudes, for tests against Math.hypot. */
export function hypotPairs(xy: usize, count: i32, out: usize): void {
  for (let i = 0; i < count; i += 2) {
    const a = v128.load(at(xy, i)),
      b = v128.load(at(xy, i + 1));
    v128.store(at(out, i >> 1), hypot2(i64x2.shuffle(a, b, 0, 2), i64x2.shuffle(a, b, 1, 3)));
  }
}

/**
 * G = Hs^H Hs + diag I (n x n) of each lane (complex.ts's gramInto over Hs's first n columns, in
 * their order; Hs nr x n, pair-interleaved): the same sums, and the same signed zero written last
 * on the diagonal's imaginary part.
 */
@inline
function gram(Hs: usize, n: i32, nr: i32, diag: v128, G: usize): void {
  const zero = f64x2.splat(0);
  for (let a = 0; a < n; a++) {
    const ca = at(Hs, 2 * a * nr);
    for (let b = a; b < n; b++) {
      const cb = at(Hs, 2 * b * nr);
      let re = zero,
        im = zero;
      for (let i = 0; i < nr; i++) {
        const ar = v128.load(at(ca, 2 * i)),
          ai = v128.load(at(ca, 2 * i + 1)),
          br = v128.load(at(cb, 2 * i)),
          bi = v128.load(at(cb, 2 * i + 1));
        re = f64x2.add(re, f64x2.add(f64x2.mul(ar, br), f64x2.mul(ai, bi)));
        im = f64x2.add(im, f64x2.sub(f64x2.mul(ar, bi), f64x2.mul(ai, br)));
      }
      if (a == b) {
        re = f64x2.add(re, diag);
        im = zero;
      }
      v128.store(at(G, 2 * (a + b * n)), re);
      v128.store(at(G, 2 * (a + b * n) + 1), im);
      v128.store(at(G, 2 * (b + a * n)), re);
      v128.store(at(G, 2 * (b + a * n) + 1), f64x2.neg(im));
    }
  }
}

/** Complex entries x and y (re, im) of a matrix swapped in the lanes of `sw`. */
@inline
function swapWhere(x: usize, y: usize, sw: v128): void {
  const xr = v128.load(x),
    xi = v128.load(x, 16),
    yr = v128.load(y),
    yi = v128.load(y, 16);
  v128.store(x, v128.bitselect(yr, xr, sw));
  v128.store(x, v128.bitselect(yi, xi, sw), 16);
  v128.store(y, v128.bitselect(xr, yr, sw));
  v128.store(y, v128.bitselect(xi, yi, sw), 16);
}

/** M[x] *= (qr + i qi) (complex.ts's scaleEntry). */
@inline
function scaleEntry(x: usize, qr: v128, qi: v128): void {
  const xr = v128.load(x),
    xi = v128.load(x, 16);
  v128.store(x, f64x2.sub(f64x2.mul(xr, qr), f64x2.mul(xi, qi)));
  v128.store(x, f64x2.add(f64x2.mul(xr, qi), f64x2.mul(xi, qr)), 16);
}

/** M[x] -= (fr + i fi) M[y] (complex.ts's subMul), left as it is in the lanes of `keep`. */
@inline
function subMul(x: usize, y: usize, fr: v128, fi: v128, keep: v128): void {
  const xr = v128.load(x),
    xi = v128.load(x, 16),
    yr = v128.load(y),
    yi = v128.load(y, 16);
  const nr = f64x2.sub(xr, f64x2.sub(f64x2.mul(fr, yr), f64x2.mul(fi, yi))),
    ni = f64x2.sub(xi, f64x2.add(f64x2.mul(fr, yi), f64x2.mul(fi, yr)));
  v128.store(x, v128.bitselect(xr, nr, keep));
  v128.store(x, v128.bitselect(xi, ni, keep), 16);
}

/**
 * The inverse of each lane's n x n complex A into inv (complex.ts's invertInPlace: Gauss-Jordan
 * elimination with partial pivoting by Math.hypot, the first row of the largest). A's row
 * operations skip its columns up to the pivot's, which nothing reads again (the pivots and factors
 * come from later columns; each column's operations are its own): every value the inverse depends
 * on is the reference's, and A is left partly reduced. Returns the lanes (bit 0, bit 1) whose pivot was not above 1e-13 times A's largest
 * |entry|, where the reference throws; the others' inverses are the reference's bit for bit.
 */
@inline
function invert(A: usize, inv: usize, n: i32): i32 {
  const zero = f64x2.splat(0),
    one = f64x2.splat(1);
  let scale = zero;
  for (let i = 0; i < 2 * n * n; i++) {
    v128.store(at(inv, i), zero);
    scale = f64x2.pmax(scale, f64x2.abs(v128.load(at(A, i))));
  }
  for (let i = 0; i < n; i++) v128.store(at(inv, 2 * (i + i * n)), one);
  const tol = f64x2.mul(f64x2.splat(1e-13), scale);
  let failed = 0;
  for (let c = 0; c < n; c++) {
    let best = f64x2.splat(-1),
      p = f64x2.splat(<f64>c);
    for (let r = c; r < n; r++) {
      const e = at(A, 2 * (r + c * n));
      const m = hypot2(v128.load(e), v128.load(e, 16));
      const gt = f64x2.gt(m, best);
      best = v128.bitselect(m, best, gt);
      p = v128.bitselect(f64x2.splat(<f64>r), p, gt);
    }
    failed |= i64x2.bitmask(v128.not(f64x2.gt(best, tol)));
    // row c swapped with the row each lane chose
    for (let r = c + 1; r < n; r++) {
      const sw = f64x2.eq(p, f64x2.splat(<f64>r));
      if (!v128.any_true(sw)) continue;
      for (let k = c; k < n; k++) swapWhere(at(A, 2 * (c + k * n)), at(A, 2 * (r + k * n)), sw);
      for (let k = 0; k < n; k++) swapWhere(at(inv, 2 * (c + k * n)), at(inv, 2 * (r + k * n)), sw);
    }
    // row c by 1 / pivot
    const pr = v128.load(at(A, 2 * (c + c * n))),
      pi = v128.load(at(A, 2 * (c + c * n) + 1));
    const d = f64x2.add(f64x2.mul(pr, pr), f64x2.mul(pi, pi));
    const qr = f64x2.div(pr, d),
      qi = f64x2.div(f64x2.neg(pi), d);
    for (let k = c + 1; k < n; k++) scaleEntry(at(A, 2 * (c + k * n)), qr, qi);
    for (let k = 0; k < n; k++) scaleEntry(at(inv, 2 * (c + k * n)), qr, qi);
    // column c eliminated from the other rows (a row whose entry is zero left as it is)
    for (let r = 0; r < n; r++) {
      if (r == c) continue;
      const fr = v128.load(at(A, 2 * (r + c * n))),
        fi = v128.load(at(A, 2 * (r + c * n) + 1));
      const keep = v128.and(f64x2.eq(fr, zero), f64x2.eq(fi, zero));
      if (i64x2.all_true(keep)) continue;
      for (let k = c + 1; k < n; k++) subMul(at(A, 2 * (r + k * n)), at(A, 2 * (c + k * n)), fr, fi, keep);
      for (let k = 0; k < n; k++) subMul(at(inv, 2 * (r + k * n)), at(inv, 2 * (c + k * n)), fr, fi, keep);
    }
  }
  return failed;
}

/** 1 / mu where mu = 1 - a g is above 1e-12, else 1 (the reference's unbiasing). */
@inline
function unbias(a: v128, g: v128): v128 {
  const mu = f64x2.sub(f64x2.splat(1), f64x2.mul(a, g));
  return v128.bitselect(f64x2.div(f64x2.splat(1), mu), f64x2.splat(1), f64x2.gt(mu, f64x2.splat(1e-12)));
}

/**
 * The run's preparations: maximal runs of consecutive vectors of one channel (and, `byNoise`, of
 * one N0), where the reference prepares once. Writes each vector's preparation and each
 * preparation's channel and N0; returns their number.
 */
function groups(chan: usize, noise: usize, vectors: i32, byNoise: i32, group: usize, gChan: usize, gNoise: usize): i32 {
  let count = 0,
    c0 = -1,
    n0: f64 = NaN;
  for (let v = 0; v < vectors; v++) {
    const c = I(chan, v),
      n = F(noise, v);
    if (c != c0 || (byNoise && n != n0)) {
      setI(gChan, count, c);
      setF(gNoise, count, n);
      count++;
      c0 = c;
      n0 = n;
    }
    setI(group, v, count - 1);
  }
  return count;
}

/** Channels c0 (lane 0) and c1 (lane 1) of H pair-interleaved into Hp (2 nr nt entries). */
function pairChannels(H: usize, c0: i32, c1: i32, hLen: i32, Hp: usize): void {
  const a = H + ((<usize>(c0 * hLen)) << 3),
    b = H + ((<usize>(c1 * hLen)) << 3);
  for (let e = 0; e < hLen; e++) v128.store(at(Hp, e), pair(a + ((<usize>e) << 3), b + ((<usize>e) << 3)));
}

/** Bytes of a pair of preparations: zf / mmse (`sic` 0) or sic. */
export function prepStride(nr: i32, nt: i32, sic: i32): usize {
  return sic ? (<usize>(4 * nt * nr + 2 * nt)) << 4 : (<usize>(2 * nt * nr + nt)) << 4;
}

/** Scratch bytes of prepare and detect. */
export function workBytes(nr: i32, nt: i32): usize {
  return ((<usize>(4 * nr * nt + 4 * nt * nt + 4 * nr)) << 4) + ((<usize>(4 * nt)) << 2) + 64;
}

/**
 * zf (`mmse` 0: a = 0) or mmse (a = the preparation's N0): each preparation's W and unbiasing, two
 * a step. Returns -1, or the run's channel whose Gram matrix the reference finds singular (the first
 * such preparation's).
 */
export function prepareLinear(
  H: usize,
  chan: usize,
  noise: usize,
  vectors: i32,
  nr: i32,
  nt: i32,
  mmse: i32,
  group: usize,
  gChan: usize,
  gNoise: usize,
  prep: usize,
  work: usize,
): i32 {
  // 4 x 4 (the common case) with its sizes constant
  return nr == 4 && nt == 4
    ? prepareLinearSized(H, chan, noise, vectors, 4, 4, mmse, group, gChan, gNoise, prep, work)
    : prepareLinearSized(H, chan, noise, vectors, nr, nt, mmse, group, gChan, gNoise, prep, work);
}

@inline
function prepareLinearSized(
  H: usize,
  chan: usize,
  noise: usize,
  vectors: i32,
  nr: i32,
  nt: i32,
  mmse: i32,
  group: usize,
  gChan: usize,
  gNoise: usize,
  prep: usize,
  work: usize,
): i32 {
  const count = groups(chan, noise, vectors, mmse, group, gChan, gNoise);
  const hLen = 2 * nr * nt,
    stride = prepStride(nr, nt, 0);
  const Hp = work,
    G = at(Hp, hLen),
    inv = at(G, 2 * nt * nt);
  for (let g = 0; g < count; g += 2) {
    const g1 = min(g + 1, count - 1);
    const c0 = I(gChan, g),
      c1 = I(gChan, g1);
    pairChannels(H, c0, c1, hLen, Hp);
    const a = mmse ? pair(gNoise + ((<usize>g) << 3), gNoise + ((<usize>g1) << 3)) : f64x2.splat(0);
    gram(Hp, nt, nr, a, G);
    const failed = invert(G, inv, nt);
    if (failed) return failed & 1 ? c0 : c1;
    // W = Ginv H^H (complex.ts's filterInto), then 1 / mu_k
    const W = prep + (<usize>(g >> 1)) * stride,
      u = at(W, 2 * nt * nr);
    for (let k = 0; k < nt; k++) {
      for (let i = 0; i < nr; i++) {
        let re = f64x2.splat(0),
          im = f64x2.splat(0);
        for (let j = 0; j < nt; j++) {
          const gr = v128.load(at(inv, 2 * (k + j * nt))),
            gi = v128.load(at(inv, 2 * (k + j * nt) + 1));
          const hr = v128.load(at(Hp, 2 * (i + j * nr))),
            hi = f64x2.neg(v128.load(at(Hp, 2 * (i + j * nr) + 1)));
          re = f64x2.add(re, f64x2.sub(f64x2.mul(gr, hr), f64x2.mul(gi, hi)));
          im = f64x2.add(im, f64x2.add(f64x2.mul(gr, hi), f64x2.mul(gi, hr)));
        }
        v128.store(at(W, 2 * (k + i * nt)), re);
        v128.store(at(W, 2 * (k + i * nt) + 1), im);
      }
      v128.store(at(u, k), unbias(a, v128.load(at(inv, 2 * (k + k * nt)))));
    }
  }
  return -1;
}

/**
 * sic: each preparation's ordered filters (sic/cpu.ts's prepare: at step t the Gram inverse of
 * the remaining columns with N0 on its diagonal, the first stream of least diagonal entry, its
 * filter row and unbiasing, the stream dropped), two preparations a step, each lane its own order
 * (the remaining columns kept compacted in the lanes). Returns as prepareLinear.
 */
export function prepareSic(
  H: usize,
  chan: usize,
  noise: usize,
  vectors: i32,
  nr: i32,
  nt: i32,
  group: usize,
  gChan: usize,
  gNoise: usize,
  prep: usize,
  work: usize,
): i32 {
  return nr == 4 && nt == 4
    ? prepareSicSized(H, chan, noise, vectors, 4, 4, group, gChan, gNoise, prep, work)
    : prepareSicSized(H, chan, noise, vectors, nr, nt, group, gChan, gNoise, prep, work);
}

@inline
function prepareSicSized(
  H: usize,
  chan: usize,
  noise: usize,
  vectors: i32,
  nr: i32,
  nt: i32,
  group: usize,
  gChan: usize,
  gNoise: usize,
  prep: usize,
  work: usize,
): i32 {
  const count = groups(chan, noise, vectors, 1, group, gChan, gNoise);
  const hLen = 2 * nr * nt,
    stride = prepStride(nr, nt, 1);
  const Hs = work,
    G = at(Hs, hLen),
    inv = at(G, 2 * nt * nt),
    rem = at(inv, 2 * nt * nt); // i32[2][nt]: each lane's remaining streams
  for (let g = 0; g < count; g += 2) {
    const g1 = min(g + 1, count - 1);
    const c0 = I(gChan, g),
      c1 = I(gChan, g1);
    pairChannels(H, c0, c1, hLen, Hs);
    const a = pair(gNoise + ((<usize>g) << 3), gNoise + ((<usize>g1) << 3));
    const P = prep + (<usize>(g >> 1)) * stride,
      u = at(P, 2 * nt * nr),
      order = at(u, nt),
      Hord = at(order, nt);
    for (let j = 0; j < nt; j++) {
      setI(rem, j, j);
      setI(rem, nt + j, j);
    }
    let failed = 0;
    for (let t = 0; t < nt; t++) {
      const n = nt - t;
      gram(Hs, n, nr, a, G);
      failed |= invert(G, inv, n);
      // the first stream of least [Ginv]_kk in each lane
      let best = v128.load(inv),
        bk = f64x2.splat(0);
      for (let k = 1; k < n; k++) {
        const d = v128.load(at(inv, 2 * (k + k * n)));
        const lt = f64x2.lt(d, best);
        best = v128.bitselect(d, best, lt);
        bk = v128.bitselect(f64x2.splat(<f64>k), bk, lt);
      }
      const k0 = <i32>f64x2.extract_lane(bk, 0),
        k1 = <i32>f64x2.extract_lane(bk, 1);
      // its filter row (complex.ts's filterInto, row k of each lane)
      for (let i = 0; i < nr; i++) {
        let re = f64x2.splat(0),
          im = f64x2.splat(0);
        for (let j = 0; j < n; j++) {
          const e0 = at(inv, 2 * (k0 + j * n)),
            e1 = at(inv, 2 * (k1 + j * n)) + 8;
          const gr = pair(e0, e1),
            gi = pair(e0 + 16, e1 + 16);
          const hr = v128.load(at(Hs, 2 * (i + j * nr))),
            hi = f64x2.neg(v128.load(at(Hs, 2 * (i + j * nr) + 1)));
          re = f64x2.add(re, f64x2.sub(f64x2.mul(gr, hr), f64x2.mul(gi, hi)));
          im = f64x2.add(im, f64x2.add(f64x2.mul(gr, hi), f64x2.mul(gi, hr)));
        }
        v128.store(at(P, 2 * (t * nr + i)), re);
        v128.store(at(P, 2 * (t * nr + i) + 1), im);
      }
      v128.store(at(u, t), unbias(a, best));
      v128.store(at(order, t), f64x2.replace_lane(f64x2.splat(<f64>I(rem, k0)), 1, <f64>I(rem, nt + k1)));
      // the stream's column (for the cancellation), then dropped from the remaining ones
      for (let e = 0; e < 2 * nr; e++)
        v128.store(at(Hord, 2 * t * nr + e), pair(at(Hs, 2 * k0 * nr + e), at(Hs, 2 * k1 * nr + e) + 8));
      const column = (<usize>(2 * nr)) << 4;
      for (let j = 0; j < n - 1; j++) {
        const shift = f64x2.ge(f64x2.splat(<f64>j), bk);
        for (let e = 0; e < 2 * nr; e++) {
          const x = at(Hs, 2 * j * nr + e);
          v128.store(x, v128.bitselect(v128.load(x + column), v128.load(x), shift));
        }
      }
      for (let j = k0; j < n - 1; j++) setI(rem, j, I(rem, j + 1));
      for (let j = k1; j < n - 1; j++) setI(rem, nt + j, I(rem, nt + j + 1));
    }
    if (failed) return failed & 1 ? c0 : c1;
  }
  return -1;
}

/** A pair's lane offsets: preparation g's entries at prep + (g >> 1) stride + 8 (g & 1). */
@inline
function prepOf(prep: usize, g: i32, stride: usize): usize {
  return prep + (<usize>(g >> 1)) * stride + ((<usize>(g & 1)) << 3);
}

/** Vectors a (lane 0) and b (lane 1) of y transposed into yp: entry 2 i Re, 2 i + 1 Im of both. */
@inline
function pairVectors(y: usize, a: i32, b: i32, nr: i32, yp: usize): void {
  const ya = y + ((<usize>(a * 2 * nr)) << 3),
    yb = y + ((<usize>(b * 2 * nr)) << 3);
  for (let i = 0; i < nr; i++) {
    const la = v128.load(ya + ((<usize>i) << 4)),
      lb = v128.load(yb + ((<usize>i) << 4));
    v128.store(at(yp, 2 * i), i64x2.shuffle(la, lb, 0, 2));
    v128.store(at(yp, 2 * i + 1), i64x2.shuffle(la, lb, 1, 3));
  }
}

/**
 * The lanes' decisions of (re, im) (modulation.ts's sliceSymbol): for QAM each part's level
 * Math.round((x / scale + q - 1) / 2) clamped to [0, q - 1], the symbol table[Re q + Im] (0 where a
 * part is NaN, as the reference's lookup of a NaN index stores); for BPSK (q 0) 0 where re + im >= 0,
 * else 1. Writes the symbols to sym (lane 0) and sym + 4 nt (lane 1) at stream k, the levels'
 * points (the constellation's) to pt (Re) and pt + 16 (Im).
 */
@inline
function slice(re: v128, im: v128, q: i32, scale: f64, table: usize, sym: usize, nt: i32, k: i32, pt: usize): void {
  if (q == 0) {
    const zero = f64x2.ge(f64x2.add(re, im), f64x2.splat(0));
    setI(sym, k, bpskSymbol(zero, 0));
    setI(sym, nt + k, bpskSymbol(zero, 1));
    const a = f64x2.splat(Math.SQRT1_2);
    const p = v128.bitselect(a, f64x2.neg(a), zero);
    v128.store(pt, p);
    v128.store(pt, p, 16);
    return;
  }
  const vScale = f64x2.splat(scale),
    qm1 = f64x2.splat(<f64>(q - 1)),
    two = f64x2.splat(2),
    half = f64x2.splat(0.5),
    one = f64x2.splat(1),
    zero = f64x2.splat(0);
  // (. + q - 1) / 2 as a product by 1/2: the same correctly rounded half
  const ur = f64x2.mul(f64x2.add(f64x2.div(re, vScale), qm1), half),
    ui = f64x2.mul(f64x2.add(f64x2.div(im, vScale), qm1), half);
  const fr = f64x2.floor(ur),
    fi = f64x2.floor(ui);
  let lr = f64x2.add(fr, v128.and(f64x2.ge(f64x2.sub(ur, fr), half), one)),
    li = f64x2.add(fi, v128.and(f64x2.ge(f64x2.sub(ui, fi), half), one));
  lr = f64x2.pmin(f64x2.pmax(lr, zero), qm1);
  li = f64x2.pmin(f64x2.pmax(li, zero), qm1);
  const ir = i32x4.trunc_sat_f64x2_s_zero(lr),
    ii = i32x4.trunc_sat_f64x2_s_zero(li);
  const nan = i64x2.bitmask(v128.or(f64x2.ne(ur, ur), f64x2.ne(ui, ui)));
  const s0 = nan & 1 ? 0 : I(table, i32x4.extract_lane(ir, 0) * q + i32x4.extract_lane(ii, 0)),
    s1 = nan & 2 ? 0 : I(table, i32x4.extract_lane(ir, 1) * q + i32x4.extract_lane(ii, 1));
  setI(sym, k, s0);
  setI(sym, nt + k, s1);
  // the level's amplitude (2 i - (q - 1)) scale: the constellation's levels exactly (NaN stays NaN)
  v128.store(pt, f64x2.mul(f64x2.sub(f64x2.mul(two, lr), qm1), vScale));
  v128.store(pt, f64x2.mul(f64x2.sub(f64x2.mul(two, li), qm1), vScale), 16);
}

/** BPSK's symbol of a lane: 0 where the lane's mask is set, else 1. */
@inline
function bpskSymbol(mask: v128, lane: i32): i32 {
  return lane == 0 ? <i32>(i64x2.extract_lane(mask, 0) + 1) : <i32>(i64x2.extract_lane(mask, 1) + 1);
}

/** The decisions of vector v (nt symbols at sym) and their bits, in increasing addresses (each bits store spills up to 8 bytes). */
@inline
function emit(sym: usize, v: i32, nt: i32, bitTab: usize, bps: i32, symOut: usize, bitOut: usize): void {
  for (let k = 0; k < nt; k++) {
    const s = I(sym, k);
    setI(symOut, v * nt + k, s);
    store<u64>(bitOut + <usize>((v * nt + k) * bps), load<u64>(bitTab + ((<usize>s) << 3)));
  }
}

/**
 * zf / mmse per vector, two at a time (the next two of the run, whatever their preparations): each
 * stream's (W y)_k times its unbiasing (linear.ts's filterStream, the sum over the receive
 * antennas in order), sliced; the decisions and their bits.
 */
export function detectLinear(
  y: usize,
  vectors: i32,
  group: usize,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  table: usize,
  bitTab: usize,
  bps: i32,
  symOut: usize,
  bitOut: usize,
  work: usize,
): void {
  if (nr == 4 && nt == 4) detectLinearSized(y, vectors, group, prep, 4, 4, q, scale, table, bitTab, bps, symOut, bitOut, work);
  else detectLinearSized(y, vectors, group, prep, nr, nt, q, scale, table, bitTab, bps, symOut, bitOut, work);
}

@inline
function detectLinearSized(
  y: usize,
  vectors: i32,
  group: usize,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  table: usize,
  bitTab: usize,
  bps: i32,
  symOut: usize,
  bitOut: usize,
  work: usize,
): void {
  const stride = prepStride(nr, nt, 0);
  const yp = work,
    pt = at(yp, 2 * nr),
    sym = at(pt, 2);
  for (let v = 0; v < vectors; v += 2) {
    const vb = min(v + 1, vectors - 1);
    const ga = I(group, v),
      gb = I(group, vb);
    const Pa = prepOf(prep, ga, stride),
      Pb = prepOf(prep, gb, stride);
    pairVectors(y, v, vb, nr, yp);
    const mode = ga == gb ? SAME : Pb - Pa == 8 ? PAIR : ANY;
    if (mode == SAME) streams(SAME, Pa, Pb, yp, nr, nt, q, scale, table, sym, pt);
    else if (mode == PAIR) streams(PAIR, Pa, Pb, yp, nr, nt, q, scale, table, sym, pt);
    else streams(ANY, Pa, Pb, yp, nr, nt, q, scale, table, sym, pt);
    emit(sym, v, nt, bitTab, bps, symOut, bitOut);
    if (vb != v) emit(sym + ((<usize>nt) << 2), vb, nt, bitTab, bps, symOut, bitOut);
  }
}

@inline
function streams(
  mode: i32,
  Pa: usize,
  Pb: usize,
  yp: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  table: usize,
  sym: usize,
  pt: usize,
): void {
  const u = 2 * nt * nr;
  for (let k = 0; k < nt; k++) {
    let re = f64x2.splat(0),
      im = f64x2.splat(0);
    for (let i = 0; i < nr; i++) {
      const e = 2 * (k + i * nt);
      const wr = lanes(at(Pa, e), at(Pb, e), mode),
        wi = lanes(at(Pa, e + 1), at(Pb, e + 1), mode);
      const yr = v128.load(at(yp, 2 * i)),
        yi = v128.load(at(yp, 2 * i + 1));
      re = f64x2.add(re, f64x2.sub(f64x2.mul(wr, yr), f64x2.mul(wi, yi)));
      im = f64x2.add(im, f64x2.add(f64x2.mul(wr, yi), f64x2.mul(wi, yr)));
    }
    const uk = lanes(at(Pa, u + k), at(Pb, u + k), mode);
    slice(f64x2.mul(re, uk), f64x2.mul(im, uk), q, scale, table, sym, nt, k, pt);
  }
}

/**
 * sic per vector, two at a time: at each step the step's filter row on the residual, unbiased and
 * sliced, its symbol written at the step's stream, and the symbol's point times the stream's
 * column cancelled from the residual (sic/cpu.ts's detect, in its order).
 */
export function detectSic(
  y: usize,
  vectors: i32,
  group: usize,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  table: usize,
  bitTab: usize,
  bps: i32,
  symOut: usize,
  bitOut: usize,
  work: usize,
): void {
  if (nr == 4 && nt == 4) detectSicSized(y, vectors, group, prep, 4, 4, q, scale, table, bitTab, bps, symOut, bitOut, work);
  else detectSicSized(y, vectors, group, prep, nr, nt, q, scale, table, bitTab, bps, symOut, bitOut, work);
}

@inline
function detectSicSized(
  y: usize,
  vectors: i32,
  group: usize,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  table: usize,
  bitTab: usize,
  bps: i32,
  symOut: usize,
  bitOut: usize,
  work: usize,
): void {
  const stride = prepStride(nr, nt, 1);
  const r = work,
    pt = at(r, 2 * nr),
    sym = at(pt, 2),
    step = sym + ((<usize>(2 * nt)) << 2);
  for (let v = 0; v < vectors; v += 2) {
    const vb = min(v + 1, vectors - 1);
    const ga = I(group, v),
      gb = I(group, vb);
    const Pa = prepOf(prep, ga, stride),
      Pb = prepOf(prep, gb, stride);
    pairVectors(y, v, vb, nr, r);
    const mode = ga == gb ? SAME : Pb - Pa == 8 ? PAIR : ANY;
    if (mode == SAME) cancel(SAME, Pa, Pb, r, nr, nt, q, scale, table, step, pt, sym);
    else if (mode == PAIR) cancel(PAIR, Pa, Pb, r, nr, nt, q, scale, table, step, pt, sym);
    else cancel(ANY, Pa, Pb, r, nr, nt, q, scale, table, step, pt, sym);
    emit(sym, v, nt, bitTab, bps, symOut, bitOut);
    if (vb != v) emit(sym + ((<usize>nt) << 2), vb, nt, bitTab, bps, symOut, bitOut);
  }
}

@inline
function cancel(
  mode: i32,
  Pa: usize,
  Pb: usize,
  r: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  table: usize,
  step: usize,
  pt: usize,
  sym: usize,
): void {
  const u = 2 * nt * nr,
    order = u + nt,
    Hord = order + nt;
  for (let t = 0; t < nt; t++) {
    let re = f64x2.splat(0),
      im = f64x2.splat(0);
    for (let i = 0; i < nr; i++) {
      const e = 2 * (t * nr + i);
      const wr = lanes(at(Pa, e), at(Pb, e), mode),
        wi = lanes(at(Pa, e + 1), at(Pb, e + 1), mode);
      const rr = v128.load(at(r, 2 * i)),
        ri = v128.load(at(r, 2 * i + 1));
      re = f64x2.add(re, f64x2.sub(f64x2.mul(wr, rr), f64x2.mul(wi, ri)));
      im = f64x2.add(im, f64x2.add(f64x2.mul(wr, ri), f64x2.mul(wi, rr)));
    }
    const ut = lanes(at(Pa, u + t), at(Pb, u + t), mode);
    // the step's symbols at stream position t of `step`, then moved to their streams
    slice(f64x2.mul(re, ut), f64x2.mul(im, ut), q, scale, table, step, nt, t, pt);
    const k0 = <i32>load<f64>(at(Pa, order + t)),
      k1 = <i32>load<f64>(at(Pb, order + t));
    setI(sym, k0, I(step, t));
    setI(sym, nt + k1, I(step, nt + t));
    const ar = v128.load(pt),
      ai = v128.load(pt, 16);
    for (let i = 0; i < nr; i++) {
      const e = 2 * (t * nr + i);
      const hr = lanes(at(Pa, Hord + e), at(Pb, Hord + e), mode),
        hi = lanes(at(Pa, Hord + e + 1), at(Pb, Hord + e + 1), mode);
      const xr = at(r, 2 * i),
        xi = at(r, 2 * i + 1);
      v128.store(xr, f64x2.sub(v128.load(xr), f64x2.sub(f64x2.mul(hr, ar), f64x2.mul(hi, ai))));
      v128.store(xi, f64x2.sub(v128.load(xi), f64x2.add(f64x2.mul(hr, ai), f64x2.mul(hi, ar))));
    }
  }
}
