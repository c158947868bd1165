/**
 * AssemblyScript source of the sphere decoder's kernels on WebAssembly (built to sphere-kernel.wasm
 * by scripts/build-wasm.mjs; not compiled by tsc): the per-channel sorted complex QR (complex.ts's
 * complexSortedQrInto, expanded to the real R by MRVD, as triangularizeInto 'complex') and the
 * per-vector Schnorr-Euchner search (cpu.ts's SphereSearch), for a whole run of channels and
 * vectors in one call. The arithmetic is the reference's, operation for operation (float64, no
 * fused multiply-add, Math.round as JavaScript rounds): the same decisions, nodes and budget stops.
 *
 * Square QAM only (the host refuses the rest). Every pointer is a byte offset into the imported
 * memory, laid out by the host (wasm.ts):
 *   H       f64[channels][2 nr nt]   the complex channels (scaled in place by scale())
 *   shift   i32[channels]            each channel's power of two (detect.ts's channelShift)
 *   prep    per channel (stride bytes): Q f64[2 nr nt], rows f64[n n], invDiag f64[n], weight f64[n], perm i32[n]
 *   y       f64[vectors][2 nr]       the received vectors (scaled in place by scale())
 *   chan    i32[vectors]             each vector's channel
 *   table   i32[q q]                 symbol index of a stream's level indices (Re * q + Im)
 *   bitTab  u8[q q][bps]             a symbol's bits (the constellation's bitTable)
 *   symOut  i32[vectors][nt]         decisions
 *   bitOut  u8[vectors][nt][bps]     their bits
 *   stop    u8[vectors]              1 where the search stopped at its node budget
 *   work    scratch
 */

@inline
function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
@inline
function setF(p: usize, i: i32, v: f64): void {
  store<f64>(p + ((<usize>i) << 3), v);
}
@inline
function I(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
@inline
function setI(p: usize, i: i32, v: i32): void {
  store<i32>(p + ((<usize>i) << 2), v);
}

/** JavaScript's Math.round: the nearest integer, halves up (floor(u + 0.5) is wrong just below 0.5). */
@inline
function jsRound(u: f64): f64 {
  const r = Math.floor(u);
  return u - r >= 0.5 ? r + 1 : r;
}

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
 * The CPU engine's scaling of a run in place (detect.ts's scaleInto): channel c and its vectors by
 * 2^shift[c], exact as the host's (the same products).
 */
export function scale(H: usize, channels: i32, y: usize, chan: usize, vectors: i32, nr: i32, nt: i32, shift: usize): void {
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  for (let c = 0; c < channels; c++) scaleBy(H + ((<usize>(c * hLen)) << 3), hLen, I(shift, c));
  for (let v = 0; v < vectors; v++) scaleBy(y + ((<usize>(v * yLen)) << 3), yLen, I(shift, I(chan, v)));
}

/** Bytes of one channel's prep. */
export function prepStride(nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return ((((<usize>(2 * nr * nt + n * n + 2 * n)) << 3) + ((<usize>n) << 2)) + 15) & ~(<usize>15);
}

/**
 * Per channel: the sorted complex QR and the search's tables (prepareSphere). Returns the first
 * channel whose matrix is rank deficient (the host then lets the reference throw), or -1.
 */
export function prepare(H: usize, channels: i32, nr: i32, nt: i32, scale: f64, prep: usize, work: usize): i32 {
  const n = 2 * nt;
  const stride = prepStride(nr, nt);
  const hLen = 2 * nr * nt;
  const Rc = work,
    resid = Rc + ((<usize>(2 * nt * nt)) << 3),
    R = resid + ((<usize>nt) << 3),
    permC = R + ((<usize>(n * n)) << 3);
  for (let c = 0; c < channels; c++) {
    const h = H + ((<usize>(c * hLen)) << 3);
    const Q = prep + <usize>c * stride;
    const rows = Q + ((<usize>hLen) << 3),
      invDiag = rows + ((<usize>(n * n)) << 3),
      weight = invDiag + ((<usize>n) << 3),
      perm = weight + ((<usize>n) << 3);
    let sc: f64 = 0;
    for (let k = 0; k < nt; k++) {
      setI(permC, k, k);
      let nn: f64 = 0;
      for (let i = 0; i < 2 * nr; i++) {
        const v = F(h, 2 * k * nr + i);
        setF(Q, 2 * k * nr + i, v);
        nn += v * v;
      }
      setF(resid, k, nn);
      sc = Math.max(sc, nn);
      for (let i = 0; i < 2 * nt; i++) setF(Rc, 2 * k * nt + i, 0);
    }
    for (let i = 0; i < nt; i++) {
      let best = i;
      for (let k = i + 1; k < nt; k++) if (F(resid, k) < F(resid, best)) best = k;
      if (best != i) {
        for (let r = 0; r < 2 * nr; r++) {
          const t = F(Q, 2 * i * nr + r);
          setF(Q, 2 * i * nr + r, F(Q, 2 * best * nr + r));
          setF(Q, 2 * best * nr + r, t);
        }
        for (let r = 0; r < 2 * i; r++) {
          const t = F(Rc, 2 * i * nt + r);
          setF(Rc, 2 * i * nt + r, F(Rc, 2 * best * nt + r));
          setF(Rc, 2 * best * nt + r, t);
        }
        const tp = I(permC, i);
        setI(permC, i, I(permC, best));
        setI(permC, best, tp);
        const tr = F(resid, i);
        setF(resid, i, F(resid, best));
        setF(resid, best, tr);
      }
      const ci = 2 * i * nr;
      let nn: f64 = 0;
      for (let r = 0; r < 2 * nr; r++) nn += F(Q, ci + r) * F(Q, ci + r);
      if (!(nn > 1e-24 * sc)) return c;
      const norm = Math.sqrt(nn),
        inv = 1 / norm;
      setF(Rc, 2 * (i + i * nt), norm);
      for (let r = 0; r < 2 * nr; r++) setF(Q, ci + r, F(Q, ci + r) * inv);
      for (let k = i + 1; k < nt; k++) {
        const ck = 2 * k * nr;
        let dr: f64 = 0,
          di: f64 = 0;
        for (let r = 0; r < nr; r++) {
          const ar = F(Q, ci + 2 * r),
            ai = F(Q, ci + 2 * r + 1),
            br = F(Q, ck + 2 * r),
            bi = F(Q, ck + 2 * r + 1);
          dr += ar * br + ai * bi;
          di += ar * bi - ai * br;
        }
        setF(Rc, 2 * (i + k * nt), dr);
        setF(Rc, 2 * (i + k * nt) + 1, di);
        for (let r = 0; r < nr; r++) {
          const ar = F(Q, ci + 2 * r),
            ai = F(Q, ci + 2 * r + 1);
          setF(Q, ck + 2 * r, F(Q, ck + 2 * r) - (ar * dr - ai * di));
          setF(Q, ck + 2 * r + 1, F(Q, ck + 2 * r + 1) - (ar * di + ai * dr));
        }
        setF(resid, k, F(resid, k) - (dr * dr + di * di));
      }
    }
    // the MRVD: positions 2k, 2k + 1 are Re and Im of stream permC[k] (RVD numbering s, nt + s)
    for (let k = 0; k < nt; k++) {
      const s = I(permC, k);
      setI(perm, 2 * k, s);
      setI(perm, 2 * k + 1, nt + s);
    }
    for (let e = 0; e < n * n; e++) setF(R, e, 0);
    for (let j = 0; j < nt; j++)
      for (let i = 0; i <= j; i++) {
        const re = F(Rc, 2 * (i + j * nt)),
          im = F(Rc, 2 * (i + j * nt) + 1);
        setF(R, 2 * i + 2 * j * n, re);
        setF(R, 2 * i + (2 * j + 1) * n, -im);
        setF(R, 2 * i + 1 + 2 * j * n, im);
        setF(R, 2 * i + 1 + (2 * j + 1) * n, re);
      }
    for (let k = 0; k < n; k++) {
      for (let j = k; j < n; j++) setF(rows, k * n + j, F(R, k + j * n));
      const d = F(R, k + k * n);
      setF(invDiag, k, 1 / d);
      setF(weight, k, 4 * scale * scale * d * d);
    }
  }
  return -1;
}

/** Bytes of the scratch `work` must hold. */
export function workBytes(nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return (
    ((<usize>(2 * nt * nt + nt + n * n + 7 * n + 1 + 2 * nr)) << 3) +
    ((<usize>(6 * n + nt)) << 2) +
    ((<usize>(4 * n + 1)) << 4) +
    64
  );
}

/** Two vectors' values at a (lane 0) and b (lane 1). */
@inline
function pair(a: usize, b: usize): v128 {
  return f64x2.replace_lane(f64x2.splat(load<f64>(a)), 1, load<f64>(b));
}

/** Two channels' element at ea and eb: one load where they are the same channel. */
@inline
function lanes(ea: usize, eb: usize, same: bool): v128 {
  return same ? v128.load64_splat(ea) : pair(ea, eb);
}

@inline
function at(base: usize, i: i32): usize {
  return base + ((<usize>i) << 4);
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
  let k = n - 1;
  let advance = resume;
  if (resume) k = 1;
  else {
    setF(pd, n, 0);
    const u = F(yHat, k) * F(invDiag, k) * toIndex + half;
    const i0 = level(u, qMax);
    setF(centre, k, u);
    setI(idx, k, i0);
    setI(lo, k, i0 - 1);
    setI(hi, k, i0 + 1);
  }
  for (;;) {
    if (!advance) {
      const dlt = <f64>I(idx, k) - F(centre, k);
      const m = F(pd, k + 1) + F(weight, k) * dlt * dlt;
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
          k--;
          let s = F(yHat, k);
          const rb = k * n;
          for (let j = k + 1; j < n; j++) s -= F(rows, rb + j) * F(amp, j);
          const u = s * F(invDiag, k) * toIndex + half;
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
      if (lOk && (!hOk || u - <f64>l <= <f64>h - u)) {
        setI(idx, k, l);
        setI(lo, k, l - 1);
        break;
      }
      if (hOk) {
        setI(idx, k, h);
        setI(hi, k, h + 1);
        break;
      }
      k++;
    }
  }
  return nodes;
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
  const yHatA = work,
    yHatB = yHatA + ((<usize>n) << 3),
    amp = yHatB + ((<usize>n) << 3),
    pd = amp + ((<usize>n) << 3),
    centre = pd + ((<usize>(n + 1)) << 3),
    idx = centre + ((<usize>n) << 3),
    lo = idx + ((<usize>n) << 2),
    hi = lo + ((<usize>n) << 2),
    best = hi + ((<usize>n) << 2),
    scr = best + ((<usize>n) << 2),
    amp2 = (scr + ((<usize>n) << 2) + 15) & ~(<usize>15),
    pd2 = at(amp2, n),
    centre2 = at(pd2, n + 1),
    lev2 = at(centre2, n);
  const half = <f64>(q - 1) / 2,
    toIndex = 1 / (2 * scale),
    qMax = q - 1;
  const vHalf = f64x2.splat(half),
    vToIndex = f64x2.splat(toIndex),
    vScale = f64x2.splat(scale),
    vQMax = f64x2.splat(<f64>qMax),
    vZero = f64x2.splat(0),
    vOne = f64x2.splat(1),
    vTwo = f64x2.splat(2),
    vPoint5 = f64x2.splat(0.5);
  // the lanes' answer is the reference's only where its n + n - 1 nodes are within the budget
  const lanesFit = <f64>(2 * n - 1) <= maxNodes;
  let total: f64 = 0;
  for (let v = 0; v < vectors; v += 2) {
    const vb = v + 1 < vectors ? v + 1 : v;
    const QA = prep + <usize>I(chan, v) * stride,
      QB = prep + <usize>I(chan, vb) * stride;
    const same = QA == QB;
    const dB = QB - QA;
    const rows = QA + ((<usize>hLen) << 3),
      invDiag = rows + ((<usize>(n * n)) << 3),
      weight = invDiag + ((<usize>n) << 3);
    const yA = y + ((<usize>(v * 2 * nr)) << 3),
      yB = y + ((<usize>(vb * 2 * nr)) << 3);
    // the rotation, both vectors (re += qr a + qi b, im += qr b - qi a), into yHatA / yHatB
    for (let k = 0; k < nt; k++) {
      let re = vZero,
        im = vZero;
      const c = 2 * k * nr;
      for (let i = 0; i < nr; i++) {
        const e = QA + ((<usize>(c + 2 * i)) << 3);
        const qr = lanes(e, e + dB, same),
          qi = lanes(e + 8, e + 8 + dB, same);
        const o = (<usize>(2 * i)) << 3;
        const a = pair(yA + o, yB + o),
          b = pair(yA + o + 8, yB + o + 8);
        re = f64x2.add(re, f64x2.add(f64x2.mul(qr, a), f64x2.mul(qi, b)));
        im = f64x2.add(im, f64x2.sub(f64x2.mul(qr, b), f64x2.mul(qi, a)));
      }
      setF(yHatA, 2 * k, f64x2.extract_lane(re, 0));
      setF(yHatB, 2 * k, f64x2.extract_lane(re, 1));
      setF(yHatA, 2 * k + 1, f64x2.extract_lane(im, 0));
      setF(yHatB, 2 * k + 1, f64x2.extract_lane(im, 1));
    }
    let r2A: f64 = Infinity,
      r2B: f64 = Infinity;
    if (babai) {
      r2A = zfRadius(n, q, scale, yHatA, amp, idx, rows, invDiag, best) * (1 + 1e-9) + 1e-300;
      r2B = zfRadius(n, q, scale, yHatB, amp, idx, rows + dB, invDiag + dB, best) * (1 + 1e-9) + 1e-300;
    }
    // lane L: 0 the lane's answer is the leaf, 1 resume after the leaf, 2 search afresh
    let wayA = 2,
      wayB = 2;
    if (lanesFit) {
      // the first descent, nearest level at every position
      const r2v = f64x2.replace_lane(f64x2.splat(r2A), 1, r2B);
      let ok = v128.not(vZero);
      let pdNext = vZero;
      for (let k = n - 1; k >= 0; k--) {
        let s = pair(yHatA + ((<usize>k) << 3), yHatB + ((<usize>k) << 3));
        const rb = rows + ((<usize>(k * n)) << 3);
        for (let j = k + 1; j < n; j++) {
          const e = rb + ((<usize>j) << 3);
          s = f64x2.sub(s, f64x2.mul(lanes(e, e + dB, same), v128.load(at(amp2, j))));
        }
        const ek = invDiag + ((<usize>k) << 3);
        const u = f64x2.add(f64x2.mul(f64x2.mul(s, lanes(ek, ek + dB, same)), vToIndex), vHalf);
        const f = f64x2.floor(u);
        const r = f64x2.add(f, v128.and(f64x2.ge(f64x2.sub(u, f), vPoint5), vOne));
        const i0 = f64x2.pmin(f64x2.pmax(r, vZero), vQMax);
        const dlt = f64x2.sub(i0, u);
        const ew = weight + ((<usize>k) << 3);
        const m = f64x2.add(pdNext, f64x2.mul(f64x2.mul(lanes(ew, ew + dB, same), dlt), dlt));
        ok = v128.and(ok, f64x2.lt(m, r2v));
        v128.store(at(centre2, k), u);
        v128.store(at(lev2, k), i0);
        v128.store(at(pd2, k), m);
        v128.store(at(amp2, k), f64x2.mul(f64x2.sub(f64x2.mul(vTwo, i0), vQMax), vScale));
        pdNext = m;
      }
      // the first sibling at each level above the leaf (the next nearest level), against the leaf's metric
      const leaf = pdNext;
      let inside = vZero;
      for (let k = 1; k < n; k++) {
        const u = v128.load(at(centre2, k)),
          i0 = v128.load(at(lev2, k));
        const l = f64x2.sub(i0, vOne),
          h = f64x2.add(i0, vOne);
        const lOk = f64x2.ge(l, vZero),
          hOk = f64x2.le(h, vQMax);
        const takeL = v128.and(lOk, v128.or(v128.not(hOk), f64x2.le(f64x2.sub(u, l), f64x2.sub(h, u))));
        const d = f64x2.sub(v128.bitselect(l, h, takeL), u);
        const above = k + 1 < n ? v128.load(at(pd2, k + 1)) : vZero;
        const ew = weight + ((<usize>k) << 3);
        const m = f64x2.add(above, f64x2.mul(f64x2.mul(lanes(ew, ew + dB, same), d), d));
        inside = v128.or(inside, f64x2.lt(m, leaf));
      }
      const okBits = i64x2.bitmask(ok),
        inBits = i64x2.bitmask(inside);
      wayA = okBits & 1 ? ((inBits & 1) != 0 ? 1 : 0) : 2;
      wayB = okBits & 2 ? ((inBits & 2) != 0 ? 1 : 0) : 2;
    }
    for (let lane = 0; lane < (vb == v ? 1 : 2); lane++) {
      const way = lane == 0 ? wayA : wayB;
      const off: usize = lane == 0 ? 0 : dB;
      const yHat = lane == 0 ? yHatA : yHatB;
      const o = (<usize>lane) << 3;
      let nodes: f64 = 0;
      let halted = false;
      if (way == 0) {
        for (let t = 0; t < n; t++) setI(best, t, <i32>load<f64>(at(lev2, t) + o));
        nodes = <f64>(2 * n - 1);
      } else {
        let r2 = lane == 0 ? r2A : r2B;
        if (way == 1) {
          // the lane's state after its first leaf
          for (let t = 0; t < n; t++) {
            const i0 = <i32>load<f64>(at(lev2, t) + o);
            setI(idx, t, i0);
            setI(lo, t, i0 - 1);
            setI(hi, t, i0 + 1);
            setI(best, t, i0);
            setF(centre, t, load<f64>(at(centre2, t) + o));
            setF(amp, t, load<f64>(at(amp2, t) + o));
            setF(pd, t, load<f64>(at(pd2, t) + o));
          }
          setF(pd, n, 0);
          r2 = load<f64>(pd2 + o);
          nodes = <f64>n;
        }
        nodes = search(
          n,
          q,
          scale,
          rows + off,
          invDiag + off,
          weight + off,
          yHat,
          amp,
          pd,
          centre,
          idx,
          lo,
          hi,
          best,
          r2,
          maxNodes,
          way == 1,
          nodes,
        );
        halted = stopped;
      }
      total += nodes;
      const vv = v + lane;
      store<u8>(stop + <usize>vv, halted ? 1 : 0);
      // symbolsFromLevels
      const perm = weight + off + ((<usize>n) << 3);
      for (let t = 0; t < n; t++) setI(scr, I(perm, t), I(best, t));
      for (let j = 0; j < nt; j++) {
        const sym = I(table, I(scr, j) * q + I(scr, nt + j));
        setI(symOut, vv * nt + j, sym);
        const src = bitTab + <usize>(sym * bps),
          dst = bitOut + <usize>((vv * nt + j) * bps);
        for (let b = 0; b < bps; b++) store<u8>(dst + <usize>b, load<u8>(src + <usize>b));
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
    for (let j = k + 1; j < n; j++) s -= F(rows, k * n + j) * F(amp, j);
    setF(amp, k, s * F(invDiag, k));
  }
  for (let k = 0; k < n; k++) {
    setI(idx, k, level(F(amp, k) / (2 * scale) + half, q - 1));
  }
  for (let k = 0; k < n; k++) setF(amp, k, <f64>(2 * I(idx, k) - (q - 1)) * scale);
  let d: f64 = 0;
  for (let k = 0; k < n; k++) {
    let s = F(yHat, k);
    for (let j = k; j < n; j++) s -= F(rows, k * n + j) * F(amp, j);
    d += s * s;
  }
  for (let t = 0; t < n; t++) setI(best, t, I(idx, t));
  return d;
}
