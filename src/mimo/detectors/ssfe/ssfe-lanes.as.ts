/**
 * AssemblyScript source of the SSFE / N-way kernels on WebAssembly SIMD (built to ssfe-lanes.wasm by
 * scripts/build-wasm.mjs; not compiled by tsc). Two problems a lane group, in f64x2 lanes: two
 * channels in `prepare`, two received vectors (of any channels) in `detect`. The arithmetic is
 * search.ts's and qr.ts's in the same order, operation for operation, and WebAssembly has no fused
 * multiply-add: every metric, decision and LLR equals the TypeScript reference's bit for bit.
 *
 * Square QAM only (two real dimensions a stream, Q levels each; the host refuses the rest). Every
 * pointer is a byte offset into the imported memory, laid out by the host (wasm.ts):
 *   H       f64[channels][2 nr nt]      the scaled complex channels (interleaved, column-major)
 *   prep    f64x2[channels / 2][passes][rows nd + nd nd + nd]  a pass's Q (rows x nd), R (nd x nd),
 *                                      1 / R_ii (nd) of channels 2g (lane 0) and 2g + 1 (lane 1)
 *   y       f64[vectors][rows]          the scaled received vectors (the MRVD real vectors)
 *   chan    i32[vectors]                each vector's channel (an index into prep)
 *   noise   f64[vectors]                each vector's N0
 *   sym     i32[Q Q]                    symbol index of a stream's level indices (Re * Q + Im)
 *   zero    i32[bps][M / 2]             the level indices (Re Q + Im) of the symbols whose bit b is 0
 *                                      (one: ... is 1): the minima are kept by level indices
 *   symOut  i32[vectors][nt]            the decisions
 *   llrOut  f64[vectors][nt bps]        the clipped max-log LLRs (when soft)
 *   work    scratch (v128 arrays: the lanes' per-pass state, each stream's least metric per symbol)
 */
import { at, lanes, pair } from '../lanes.lib.as';

/** A column whose residual norm falls below this fraction of its original norm is dependent (qr.ts's). */
const RANK_TOL: f64 = 1e-12;

export { scanRun } from '../input-scan.lib.as';

/**
 * Per channel and pass: the MRVD real matrix of the channel with its streams rotated by the pass
 * (column c holds stream (c + pass) mod nt, Re then Im), factored by modified Gram-Schmidt (qrInto,
 * ordering 'none'): Q, R and 1 / R_ii into prep. Two channels a lane group. Returns the first
 * channel whose matrix is rank deficient (the host then lets the reference throw), or -1.
 */
export function prepare(
  H: usize,
  channels: i32,
  nr: i32,
  nt: i32,
  scale: f64,
  passes: i32,
  prep: usize,
  work: usize,
): i32 {
  const rows = 2 * nr,
    nd = 2 * nt;
  const hBytes = <usize>(2 * nr * nt) << 3;
  const stride = prepStride(rows, nd);
  const A = work;
  const orig = A + ((<usize>(rows * nd)) << 4);
  const vScale = f64x2.splat(scale);
  const tol = f64x2.splat(RANK_TOL);
  const one = f64x2.splat(1);
  for (let c = 0; c < channels; c += 2) {
    const cb = c + 1 < channels ? c + 1 : c;
    const ha = H + <usize>c * hBytes,
      hb = H + <usize>cb * hBytes;
    for (let p = 0; p < passes; p++) {
      // the pair's block: Q, R, 1 / R_ii, lane 0 channel c, lane 1 channel c + 1
      const pq = prep + (<usize>((c >> 1) * passes + p)) * stride;
      const pr = pq + ((<usize>(rows * nd)) << 4);
      const pd = pr + ((<usize>(nd * nd)) << 4);
      for (let k = 0; k < nd; k++) {
        const j = ((k >> 1) + p) % nt,
          imag = k & 1;
        const base = (<usize>(2 * j * nr)) << 3;
        for (let i = 0; i < nr; i++) {
          const o = base + ((<usize>(2 * i)) << 3);
          const hr = f64x2.mul(pair(ha + o, hb + o), vScale),
            hi = f64x2.mul(pair(ha + o + 8, hb + o + 8), vScale);
          v128.store(at(A, k * rows + 2 * i), imag ? f64x2.neg(hi) : hr);
          v128.store(at(A, k * rows + 2 * i + 1), imag ? hr : hi);
        }
      }
      for (let k = 0; k < nd; k++) {
        let nn = f64x2.splat(0);
        for (let r = 0; r < rows; r++) {
          const v = v128.load(at(A, k * rows + r));
          nn = f64x2.add(nn, f64x2.mul(v, v));
        }
        v128.store(at(orig, k), f64x2.sqrt(nn));
      }
      for (let i = 0; i < nd; i++) {
        const ci = i * rows;
        let nn = f64x2.splat(0);
        for (let r = 0; r < rows; r++) {
          const v = v128.load(at(A, ci + r));
          nn = f64x2.add(nn, f64x2.mul(v, v));
        }
        const norm = f64x2.sqrt(nn);
        const ok = i64x2.bitmask(f64x2.gt(norm, f64x2.mul(tol, v128.load(at(orig, i)))));
        if (ok != 3) return ok & 1 ? cb : c;
        v128.store(at(pr, i + i * nd), norm);
        const inv = f64x2.div(one, norm);
        v128.store(at(pd, i), inv);
        for (let r = 0; r < rows; r++) {
          const ptr = at(A, ci + r);
          v128.store(ptr, f64x2.mul(v128.load(ptr), inv));
        }
        // the later columns two at a time: each dot product is a chain of dependent adds, two
        // chains fill the pipeline (every column's own sums in the reference's order)
        let k = i + 1;
        for (; k + 1 < nd; k += 2) {
          const ck = at(A, k * rows),
            cl = ck + ((<usize>rows) << 4),
            qi = at(A, ci);
          let d = f64x2.splat(0),
            e = f64x2.splat(0);
          for (let r: usize = 0; r < (<usize>rows) << 4; r += 16) {
            const q = v128.load(qi + r);
            d = f64x2.add(d, f64x2.mul(q, v128.load(ck + r)));
            e = f64x2.add(e, f64x2.mul(q, v128.load(cl + r)));
          }
          v128.store(at(pr, i + k * nd), d);
          v128.store(at(pr, i + (k + 1) * nd), e);
          for (let r: usize = 0; r < (<usize>rows) << 4; r += 16) {
            const q = v128.load(qi + r);
            v128.store(ck + r, f64x2.sub(v128.load(ck + r), f64x2.mul(d, q)));
            v128.store(cl + r, f64x2.sub(v128.load(cl + r), f64x2.mul(e, q)));
          }
        }
        if (k < nd) {
          const ck = at(A, k * rows),
            qi = at(A, ci);
          let d = f64x2.splat(0);
          for (let r: usize = 0; r < (<usize>rows) << 4; r += 16) d = f64x2.add(d, f64x2.mul(v128.load(qi + r), v128.load(ck + r)));
          v128.store(at(pr, i + k * nd), d);
          for (let r: usize = 0; r < (<usize>rows) << 4; r += 16)
            v128.store(ck + r, f64x2.sub(v128.load(ck + r), f64x2.mul(d, v128.load(qi + r))));
        }
      }
      // the 1 / R_ii above is 1 / norm; search.ts takes 1 / R_ii of the stored R_ii: the same double
      memory.copy(pq, A, (<usize>(rows * nd)) << 4);
    }
  }
  return -1;
}

/** Bytes of one pass's prep of a pair of channels (c even, c + 1): Q (rows x nd), R (nd x nd), 1 / R_ii (nd), in f64x2 lanes. */
export function prepStride(rows: i32, nd: i32): usize {
  return (<usize>(rows * nd + nd * nd + nd)) << 4;
}

/** Bytes of the scratch `work` must hold for `prepare` and `detect`. */
export function workBytes(rows: i32, nd: i32, q: i32, nt: i32, m: i32): usize {
  const v = rows * nd + nd * nd + 2 * nd * q + 8 * nd + rows;
  return ((<usize>v) << 4) + ((<usize>(2 * nt * m)) << 3) + ((<usize>(4 * nt)) << 2) + 64;
}

/**
 * Per received vector, `passes` SSFE passes (search.ts's ssfeSearch and runSsfePass, no a-priori
 * LLRs) on its channel's prep, merged as the N-way detector merges them (BitMetricMinima): the
 * decision (the first candidate of least metric, passes in order, paths in order) and, when `soft`,
 * the max-log LLRs (min over bit-1 candidates - min over bit-0 ones) / N0 clipped to +-clip.
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
  passes: i32,
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
    nbits = nt * bps;
  const stride = prepStride(rows, nd);
  const top = nd - 1,
    second = nd - 2;
  const half = <f64>(q - 1);
  // scratch, v128 arrays
  const R = work + ((<usize>(rows * nd + nd)) << 4);
  const inv = R + ((<usize>(nd * nd)) << 4);
  const z = inv + ((<usize>nd) << 4);
  const zTop = z + ((<usize>nd) << 4);
  const rSec = zTop + ((<usize>(nd * q)) << 4);
  const pv = rSec + ((<usize>(nd * q)) << 4);
  const lv = pv + ((<usize>(2 * nd)) << 4);
  const yv = lv + ((<usize>(2 * nd)) << 4);
  const mets = yv + ((<usize>rows) << 4);
  const bests = mets;
  // the second path's pv and lv, at these distances from the first's
  const pvB = (<usize>nd) << 4,
    lvB = pvB;
  // two lanes' state: symbol minima f64[2][nt][M], best symbols i32[2][nt], a candidate's symbols i32[nt]
  const symMin = mets + 16;
  const bestSym = symMin + ((<usize>(nt * m)) << 4);
  const cand = bestSym + ((<usize>(2 * nt)) << 2);
  const colOff = cand + ((<usize>nt) << 2);
  const vHalf = f64x2.splat(half),
    vPoint5 = f64x2.splat(0.5),
    vTwo = f64x2.splat(2),
    vZero = f64x2.splat(0),
    vQ = f64x2.splat(<f64>q);
  const yBytes = (<usize>rows) << 3;
  for (let v = 0; v < vectors; v += 2) {
    const vb = v + 1 < vectors ? v + 1 : v;
    const ca = load<i32>(chan + ((<usize>v) << 2)),
      cb = load<i32>(chan + ((<usize>vb) << 2));
    // 0: both of one channel; 1: channels 2g, 2g + 1 (one block, lanes in place); 2: any two
    const mode = ca == cb ? 0 : (ca & 1) == 0 && cb == ca + 1 ? 1 : 2;
    for (let r = 0; r < rows; r++) {
      const o = (<usize>r) << 3;
      v128.store(at(yv, r), pair(y + <usize>v * yBytes + o, y + <usize>vb * yBytes + o));
    }
    const inf = f64x2.splat(Infinity);
    for (let t = 0; t < nt * m; t++) v128.store(at(symMin, t), inf);
    store<f64>(bests, Infinity);
    store<f64>(bests + 8, Infinity);
    for (let p = 0; p < passes; p++) {
      // channel c's element e of this pass: prep block of pair c >> 1, lane c & 1
      const ea = prep + (<usize>((ca >> 1) * passes + p)) * stride + ((<usize>(ca & 1)) << 3),
        eb = prep + (<usize>((cb >> 1) * passes + p)) * stride + ((<usize>(cb & 1)) << 3);
      // z = Q^T y (applyQt)
      for (let k = 0; k < nd; k++) {
        let d = f64x2.splat(0);
        for (let r = 0; r < rows; r++) {
          const o = (<usize>(k * rows + r)) << 4;
          d = f64x2.add(d, f64x2.mul(lanes(ea + o, eb + o, mode), v128.load(at(yv, r))));
        }
        v128.store(at(z, k), d);
      }
      // R by rows here (Rr[i nd + j] = R_ij), so that a level's sum walks its row
      const er = (<usize>(rows * nd)) << 4,
        ed = er + ((<usize>(nd * nd)) << 4);
      for (let i = 0; i < nd; i++) {
        const o = (<usize>i) << 4;
        v128.store(at(inv, i), lanes(ea + ed + o, eb + ed + o, mode));
        for (let j = i; j < nd; j++) {
          const e = er + ((<usize>(i + j * nd)) << 4);
          v128.store(at(R, i * nd + j), lanes(ea + e, eb + e, mode));
        }
      }
      for (let a = 0; a < q; a++) {
        const pA = f64x2.splat(<f64>(2 * a) - half);
        for (let i = 0; i < top; i++)
          v128.store(
            at(zTop, i * q + a),
            f64x2.sub(v128.load(at(z, i)), f64x2.mul(v128.load(at(R, i * nd + top)), pA)),
          );
        for (let i = 0; i < second; i++)
          v128.store(at(rSec, i * q + a), f64x2.mul(v128.load(at(R, i * nd + second)), pA));
      }
      const rTopTop = v128.load(at(R, top * nd + top)),
        rSecSec = v128.load(at(R, second * nd + second));
      const zT = v128.load(at(z, top));
      // column pair c holds stream (c + p) mod nt: the byte offset of its minima in a lane's
      for (let c = 0; c < nt; c++) {
        const stream = c + p < nt ? c + p : c + p - nt;
        store<i32>(colOff + ((<usize>c) << 2), stream * m * 16);
      }
      const topOff = <usize>load<i32>(colOff + ((<usize>(nt - 1)) << 2));
      const pvEnd = at(pv, second),
        qStep = (<usize>q) << 4,
        rowStep = (<usize>(nd + 1)) << 4;
      for (let i0 = 0; i0 < q; i0++) {
        const p0 = f64x2.splat(<f64>(2 * i0) - half);
        const e0 = f64x2.sub(zT, f64x2.mul(rTopTop, p0));
        const d0 = f64x2.mul(e0, e0);
        const zs = v128.load(at(zTop, second * q + i0));
        // two paths at a time, (i0, i1) and (i0, i1 + 1) (Q is even): a path's levels are a chain of
        // dependent operations, and two independent chains fill the pipeline's gaps
        for (let i1 = 0; i1 < q; i1 += 2) {
          const p1 = f64x2.splat(<f64>(2 * i1) - half),
            p2 = f64x2.splat(<f64>(2 * i1 + 2) - half);
          let e = f64x2.sub(zs, f64x2.mul(rSecSec, p1)),
            g = f64x2.sub(zs, f64x2.mul(rSecSec, p2));
          let d = f64x2.add(d0, f64x2.mul(e, e)),
            h = f64x2.add(d0, f64x2.mul(g, g));
          let prev = vZero,
            prevB = vZero;
          // pointers of level i, walked down: zTop[i q + i0], rSec[i q + i1], R_ii, 1 / R_ii, pv[i]
          let zt = at(zTop, (second - 1) * q + i0),
            rs = at(rSec, (second - 1) * q + i1),
            rd = at(R, (second - 1) * (nd + 1)),
            ip = at(inv, second - 1),
            pp = at(pv, second - 1);
          for (let i = second - 1; i >= 0; i--) {
            const zi = v128.load(zt);
            let b = f64x2.sub(zi, v128.load(rs)),
              c = f64x2.sub(zi, v128.load(rs + 16));
            // b -= sum over j in (i, second) of R_ij p_j: row i right of the diagonal
            for (let rj = rd + 16, pj = pp + 16; pj < pvEnd; rj += 16, pj += 16) {
              const rij = v128.load(rj);
              b = f64x2.sub(b, f64x2.mul(rij, v128.load(pj)));
              c = f64x2.sub(c, f64x2.mul(rij, v128.load(pj + pvB)));
            }
            const iv = v128.load(ip);
            let li = f64x2.floor(f64x2.add(f64x2.mul(f64x2.add(f64x2.mul(b, iv), vHalf), vPoint5), vPoint5)),
              lj = f64x2.floor(f64x2.add(f64x2.mul(f64x2.add(f64x2.mul(c, iv), vHalf), vPoint5), vPoint5));
            // pmax / pmin: `li < 0 ? 0 : li` and `half < li ? half : li`, the reference's clamp (one instruction each)
            li = f64x2.pmin(f64x2.pmax(li, vZero), vHalf);
            lj = f64x2.pmin(f64x2.pmax(lj, vZero), vHalf);
            const pi = f64x2.sub(f64x2.mul(vTwo, li), vHalf),
              pk = f64x2.sub(f64x2.mul(vTwo, lj), vHalf);
            v128.store(pp, pi);
            v128.store(pp + pvB, pk);
            // a stream's levels: Im at odd column 2c + 1 (met first), Re at 2c; its index Re Q + Im
            if (i & 1) {
              prev = li;
              prevB = lj;
            } else {
              const o = at(lv, i >> 1);
              v128.store(o, i32x4.trunc_sat_f64x2_s_zero(f64x2.add(f64x2.mul(li, vQ), prev)));
              v128.store(o + lvB, i32x4.trunc_sat_f64x2_s_zero(f64x2.add(f64x2.mul(lj, vQ), prevB)));
            }
            const rii = v128.load(rd);
            e = f64x2.sub(b, f64x2.mul(rii, pi));
            g = f64x2.sub(c, f64x2.mul(rii, pk));
            d = f64x2.add(d, f64x2.mul(e, e));
            h = f64x2.add(h, f64x2.mul(g, g));
            zt -= qStep;
            rs -= qStep;
            rd -= rowStep;
            ip -= 16;
            pp -= 16;
          }
          record(d, lv, i1 * q + i0, p, nt, sym, symMin, colOff, topOff, bests, bestSym);
          record(h, lv + lvB, (i1 + 1) * q + i0, p, nt, sym, symMin, colOff, topOff, bests, bestSym);
        }
      }
    }
    for (let j = 0; j < nt; j++) store<i32>(symOut + ((<usize>(v * nt + j)) << 2), load<i32>(bestSym + ((<usize>j) << 2)));
    if (vb != v)
      for (let j = 0; j < nt; j++)
        store<i32>(symOut + ((<usize>(vb * nt + j)) << 2), load<i32>(bestSym + ((<usize>(nt + j)) << 2)));
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
      const base = at(symMin, j * m);
      for (let b = 0; b < bps; b++) {
        let m0 = inf,
          m1 = inf;
        for (let t = b * halfM; t < (b + 1) * halfM; t++) {
          m0 = f64x2.pmin(m0, v128.load(at(base, load<i32>(zero + ((<usize>t) << 2)))));
          m1 = f64x2.pmin(m1, v128.load(at(base, load<i32>(oneSyms + ((<usize>t) << 2)))));
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

/**
 * A path's candidate (its metric in both lanes, its column pairs' level indices Re Q + Im at lv + 16 c,
 * the last pair's `top`) into each lane's minima (BitMetricMinima.add): each stream's least metric
 * per level index, without a branch (pmin in the lane: which way a compare goes is random), and the
 * lane's best candidate (strictly less: the first of equals stays; bests[lane] its metric).
 */
@inline
function record(
  d: v128,
  lv: usize,
  top: i32,
  pass: i32,
  nt: i32,
  sym: usize,
  symMin: usize,
  colOff: usize,
  topOff: usize,
  bests: usize,
  bestSym: usize,
): void {
  for (let c = 0; c < nt - 1; c++) {
    const off = symMin + <usize>load<i32>(colOff + ((<usize>c) << 2));
    const t0 = off + ((<usize>load<i32>(lv + ((<usize>c) << 4))) << 4);
    v128.store64_lane(t0, f64x2.pmin(v128.load64_zero(t0), d), 0);
    const t1 = off + ((<usize>load<i32>(lv + ((<usize>c) << 4) + 4)) << 4) + 8;
    v128.store64_lane(t1, f64x2.pmin(v128.load64_lane(t1, d, 1), d), 1);
  }
  const tt = symMin + topOff + ((<usize>top) << 4);
  v128.store(tt, f64x2.pmin(v128.load(tt), d));
  const d0 = f64x2.extract_lane(d, 0),
    d1 = f64x2.extract_lane(d, 1);
  if (d0 < load<f64>(bests)) {
    store<f64>(bests, d0);
    bestOf(lv, top, pass, nt, sym, bestSym);
  }
  if (d1 < load<f64>(bests + 8)) {
    store<f64>(bests + 8, d1);
    bestOf(lv + 4, top, pass, nt, sym, bestSym + ((<usize>nt) << 2));
  }
}

/** One lane's best candidate's symbols by stream (its column pairs' level indices Re Q + Im at lv + 16 c, the last pair's `top`). */
@inline
function bestOf(lv: usize, top: i32, pass: i32, nt: i32, sym: usize, bestSym: usize): void {
  for (let c = 0; c < nt; c++) {
    const s = load<i32>(sym + ((<usize>(c < nt - 1 ? load<i32>(lv + ((<usize>c) << 4)) : top)) << 2));
    const stream = c + pass < nt ? c + pass : c + pass - nt;
    store<i32>(bestSym + ((<usize>stream) << 2), s);
  }
}
