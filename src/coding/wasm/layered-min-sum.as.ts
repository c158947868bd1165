/**
 * AssemblyScript source of the layered min-sum LDPC kernels on WebAssembly SIMD (built to
 * layered-min-sum.wasm by scripts/build-wasm.mjs; not compiled by tsc). Frames are interleaved
 * across the lanes of a v128: the 8-bit kernels hold 16 frames (i8x16), the 16-bit ones 8 (i16x8).
 * Every pointer is a byte offset into the imported memory, laid out by the host
 * (src/coding/simd-min-sum.ts):
 *   rowStart  i32[m + 1]   edge offsets of the check rows (compressed rows)
 *   colOff    i32[edges]   byte offset of each edge's column in L (column x 16)
 *   L         v128[n]      posteriors, one vector a column, lane f = frame f
 *   R         v128[edges]  check-to-variable messages, one vector an edge
 *   Q         v128[dmax]   scratch: one row's variable-to-check messages
 *   input     f64[n]       one frame's channel LLRs, for quantize
 *   frames    i16[16 n]    quantized frames, frame after frame, for interleave / insertLane
 *   bits      u8[n]        one lane's hard decisions, from hardLane
 *   values    i32[n]       one lane's posteriors, from laneValues
 * The arithmetic is src/coding/fixed-point-min-sum.ts's, bit for bit: saturating lanes,
 * message magnitude max(0, min - betaQ) * alphaQ >> 8 with min clipped to satQ.
 */

/** One layered iteration over every check row, 16 frames in i8x16 lanes. */
export function pass8(
  rowStart: usize,
  colOff: usize,
  m: i32,
  L: usize,
  R: usize,
  Q: usize,
  alphaQ: i32,
  betaQ: i32,
  satQ: i32,
): void {
  const vSat = i8x16.splat(<i8>satQ);
  const vBeta = i8x16.splat(<i8>betaQ);
  const vAlpha = i16x8.splat(<i16>alphaQ);
  const zero = i8x16.splat(0);
  let e = load<i32>(rowStart);
  let rp = R + ((<usize>e) << 4);
  for (let row = 0; row < m; row++) {
    const end = load<i32>(rowStart + ((<usize>(row + 1)) << 2));
    let min1 = vSat;
    let min2 = vSat;
    let sgn = i8x16.splat(0);
    let qp = Q;
    let ep = rp;
    for (let j = e; j < end; j++) {
      const c = <usize>load<i32>(colOff + ((<usize>j) << 2));
      const q = i8x16.sub_sat_s(v128.load(L + c), v128.load(ep));
      v128.store(qp, q);
      sgn = v128.xor(sgn, q);
      const mag = i8x16.abs(q);
      min2 = i8x16.min_u(min2, i8x16.max_u(min1, mag));
      min1 = i8x16.min_u(min1, mag);
      qp += 16;
      ep += 16;
    }
    const a = i8x16.sub_sat_u(min1, vBeta);
    const b = i8x16.sub_sat_u(min2, vBeta);
    const m1 = i8x16.narrow_i16x8_u(
      i16x8.shr_u(i16x8.mul(i16x8.extend_low_i8x16_u(a), vAlpha), 8),
      i16x8.shr_u(i16x8.mul(i16x8.extend_high_i8x16_u(a), vAlpha), 8),
    );
    const m2 = i8x16.narrow_i16x8_u(
      i16x8.shr_u(i16x8.mul(i16x8.extend_low_i8x16_u(b), vAlpha), 8),
      i16x8.shr_u(i16x8.mul(i16x8.extend_high_i8x16_u(b), vAlpha), 8),
    );
    // The row's sign applied once; each edge then flips by its own sign. Signs are masks from
    // lt_s (one instruction; x64 has no 8-bit arithmetic shift) and the select is an xor pair.
    const rs = i8x16.lt_s(sgn, zero);
    const m1s = i8x16.sub(v128.xor(m1, rs), rs);
    const m2s = i8x16.sub(v128.xor(m2, rs), rs);
    const x12 = v128.xor(m1s, m2s);
    qp = Q;
    for (let j = e; j < end; j++) {
      const c = <usize>load<i32>(colOff + ((<usize>j) << 2));
      const q = v128.load(qp);
      const sel = i8x16.eq(i8x16.abs(q), min1);
      const t = v128.xor(m1s, v128.and(x12, sel));
      const qs = i8x16.lt_s(q, zero);
      const rn = i8x16.sub(v128.xor(t, qs), qs);
      v128.store(rp, rn);
      v128.store(L + c, i8x16.add_sat_s(q, rn));
      qp += 16;
      rp += 16;
    }
    e = end;
  }
}

/** One layered iteration over every check row, 8 frames in i16x8 lanes. */
export function pass16(
  rowStart: usize,
  colOff: usize,
  m: i32,
  L: usize,
  R: usize,
  Q: usize,
  alphaQ: i32,
  betaQ: i32,
  satQ: i32,
): void {
  const vSat = i16x8.splat(<i16>satQ);
  const vBeta = i16x8.splat(<i16>betaQ);
  const vAlpha = i32x4.splat(alphaQ);
  const zero = i16x8.splat(0);
  let e = load<i32>(rowStart);
  let rp = R + ((<usize>e) << 4);
  for (let row = 0; row < m; row++) {
    const end = load<i32>(rowStart + ((<usize>(row + 1)) << 2));
    let min1 = vSat;
    let min2 = vSat;
    let sgn = i16x8.splat(0);
    let qp = Q;
    let ep = rp;
    for (let j = e; j < end; j++) {
      const c = <usize>load<i32>(colOff + ((<usize>j) << 2));
      const q = i16x8.sub_sat_s(v128.load(L + c), v128.load(ep));
      v128.store(qp, q);
      sgn = v128.xor(sgn, q);
      const mag = i16x8.abs(q);
      min2 = i16x8.min_u(min2, i16x8.max_u(min1, mag));
      min1 = i16x8.min_u(min1, mag);
      qp += 16;
      ep += 16;
    }
    const a = i16x8.sub_sat_u(min1, vBeta);
    const b = i16x8.sub_sat_u(min2, vBeta);
    const m1 = i16x8.narrow_i32x4_u(
      i32x4.shr_u(i32x4.mul(i32x4.extend_low_i16x8_u(a), vAlpha), 8),
      i32x4.shr_u(i32x4.mul(i32x4.extend_high_i16x8_u(a), vAlpha), 8),
    );
    const m2 = i16x8.narrow_i32x4_u(
      i32x4.shr_u(i32x4.mul(i32x4.extend_low_i16x8_u(b), vAlpha), 8),
      i32x4.shr_u(i32x4.mul(i32x4.extend_high_i16x8_u(b), vAlpha), 8),
    );
    const rs = i16x8.lt_s(sgn, zero);
    const m1s = i16x8.sub(v128.xor(m1, rs), rs);
    const m2s = i16x8.sub(v128.xor(m2, rs), rs);
    const x12 = v128.xor(m1s, m2s);
    qp = Q;
    for (let j = e; j < end; j++) {
      const c = <usize>load<i32>(colOff + ((<usize>j) << 2));
      const q = v128.load(qp);
      const sel = i16x8.eq(i16x8.abs(q), min1);
      const t = v128.xor(m1s, v128.and(x12, sel));
      const qs = i16x8.lt_s(q, zero);
      const rn = i16x8.sub(v128.xor(t, qs), qs);
      v128.store(rp, rn);
      v128.store(L + c, i16x8.add_sat_s(q, rn));
      qp += 16;
      rp += 16;
    }
    e = end;
  }
}

/** max(0, m - betaQ) already taken: m * alphaQ >> 8 on u8 lanes (through u16). */
function normalize8(m: v128, vAlpha: v128): v128 {
  return i8x16.narrow_i16x8_u(
    i16x8.shr_u(i16x8.mul(i16x8.extend_low_i8x16_u(m), vAlpha), 8),
    i16x8.shr_u(i16x8.mul(i16x8.extend_high_i8x16_u(m), vAlpha), 8),
  );
}

/** max(0, m - betaQ) already taken: m * alphaQ >> 8 on u16 lanes (through u32). */
function normalize16(m: v128, vAlpha: v128): v128 {
  return i16x8.narrow_i32x4_u(
    i32x4.shr_u(i32x4.mul(i32x4.extend_low_i16x8_u(m), vAlpha), 8),
    i32x4.shr_u(i32x4.mul(i32x4.extend_high_i16x8_u(m), vAlpha), 8),
  );
}

/**
 * pass8's iteration two rows at a time, for a parity check whose rows pair up (rows 2i and 2i + 1
 * of equal degree with no column in common, as in a QC code's layer of even z): the two rows'
 * updates are independent, so running them side by side doubles the work in flight (the
 * minimum and sign chains of one row are serial). Q holds 2 dmax vectors.
 */
export function pairs8(
  rowStart: usize,
  colOff: usize,
  m: i32,
  L: usize,
  R: usize,
  Q: usize,
  dmax: i32,
  alphaQ: i32,
  betaQ: i32,
  satQ: i32,
): void {
  const vSat = i8x16.splat(<i8>satQ);
  const vBeta = i8x16.splat(<i8>betaQ);
  const vAlpha = i16x8.splat(<i16>alphaQ);
  const zero = i8x16.splat(0);
  const QB = Q + ((<usize>dmax) << 4);
  for (let row = 0; row < m; row += 2) {
    const ea = load<i32>(rowStart + ((<usize>row) << 2));
    const eb = load<i32>(rowStart + ((<usize>(row + 1)) << 2));
    const d = eb - ea;
    let a1 = vSat;
    let a2 = vSat;
    let b1 = vSat;
    let b2 = vSat;
    let sa = zero;
    let sb = zero;
    const ra = R + ((<usize>ea) << 4);
    const rb = R + ((<usize>eb) << 4);
    const ca = colOff + ((<usize>ea) << 2);
    const cb = colOff + ((<usize>eb) << 2);
    for (let j = 0; j < d; j++) {
      const o4 = (<usize>j) << 2;
      const o16 = (<usize>j) << 4;
      const qa = i8x16.sub_sat_s(v128.load(L + <usize>load<i32>(ca + o4)), v128.load(ra + o16));
      const qb = i8x16.sub_sat_s(v128.load(L + <usize>load<i32>(cb + o4)), v128.load(rb + o16));
      v128.store(Q + o16, qa);
      v128.store(QB + o16, qb);
      sa = v128.xor(sa, qa);
      sb = v128.xor(sb, qb);
      const ma = i8x16.abs(qa);
      const mb = i8x16.abs(qb);
      a2 = i8x16.min_u(a2, i8x16.max_u(a1, ma));
      a1 = i8x16.min_u(a1, ma);
      b2 = i8x16.min_u(b2, i8x16.max_u(b1, mb));
      b1 = i8x16.min_u(b1, mb);
    }
    const na1 = normalize8(i8x16.sub_sat_u(a1, vBeta), vAlpha);
    const na2 = normalize8(i8x16.sub_sat_u(a2, vBeta), vAlpha);
    const nb1 = normalize8(i8x16.sub_sat_u(b1, vBeta), vAlpha);
    const nb2 = normalize8(i8x16.sub_sat_u(b2, vBeta), vAlpha);
    const rsa = i8x16.lt_s(sa, zero);
    const rsb = i8x16.lt_s(sb, zero);
    const ma1 = i8x16.sub(v128.xor(na1, rsa), rsa);
    const xa = v128.xor(ma1, i8x16.sub(v128.xor(na2, rsa), rsa));
    const mb1 = i8x16.sub(v128.xor(nb1, rsb), rsb);
    const xb = v128.xor(mb1, i8x16.sub(v128.xor(nb2, rsb), rsb));
    for (let j = 0; j < d; j++) {
      const o4 = (<usize>j) << 2;
      const o16 = (<usize>j) << 4;
      const qa = v128.load(Q + o16);
      const qb = v128.load(QB + o16);
      const ta = v128.xor(ma1, v128.and(xa, i8x16.eq(i8x16.abs(qa), a1)));
      const tb = v128.xor(mb1, v128.and(xb, i8x16.eq(i8x16.abs(qb), b1)));
      const ga = i8x16.lt_s(qa, zero);
      const gb = i8x16.lt_s(qb, zero);
      const na = i8x16.sub(v128.xor(ta, ga), ga);
      const nb = i8x16.sub(v128.xor(tb, gb), gb);
      v128.store(ra + o16, na);
      v128.store(rb + o16, nb);
      v128.store(L + <usize>load<i32>(ca + o4), i8x16.add_sat_s(qa, na));
      v128.store(L + <usize>load<i32>(cb + o4), i8x16.add_sat_s(qb, nb));
    }
  }
}

/**
 * pass16's iteration two rows at a time, for a parity check whose rows pair up (rows 2i and 2i + 1
 * of equal degree with no column in common, as in a QC code's layer of even z): the two rows'
 * updates are independent, so running them side by side doubles the work in flight (the
 * minimum and sign chains of one row are serial). Q holds 2 dmax vectors.
 */
export function pairs16(
  rowStart: usize,
  colOff: usize,
  m: i32,
  L: usize,
  R: usize,
  Q: usize,
  dmax: i32,
  alphaQ: i32,
  betaQ: i32,
  satQ: i32,
): void {
  const vSat = i16x8.splat(<i16>satQ);
  const vBeta = i16x8.splat(<i16>betaQ);
  const vAlpha = i32x4.splat(<i32>alphaQ);
  const zero = i16x8.splat(0);
  const QB = Q + ((<usize>dmax) << 4);
  for (let row = 0; row < m; row += 2) {
    const ea = load<i32>(rowStart + ((<usize>row) << 2));
    const eb = load<i32>(rowStart + ((<usize>(row + 1)) << 2));
    const d = eb - ea;
    let a1 = vSat;
    let a2 = vSat;
    let b1 = vSat;
    let b2 = vSat;
    let sa = zero;
    let sb = zero;
    const ra = R + ((<usize>ea) << 4);
    const rb = R + ((<usize>eb) << 4);
    const ca = colOff + ((<usize>ea) << 2);
    const cb = colOff + ((<usize>eb) << 2);
    for (let j = 0; j < d; j++) {
      const o4 = (<usize>j) << 2;
      const o16 = (<usize>j) << 4;
      const qa = i16x8.sub_sat_s(v128.load(L + <usize>load<i32>(ca + o4)), v128.load(ra + o16));
      const qb = i16x8.sub_sat_s(v128.load(L + <usize>load<i32>(cb + o4)), v128.load(rb + o16));
      v128.store(Q + o16, qa);
      v128.store(QB + o16, qb);
      sa = v128.xor(sa, qa);
      sb = v128.xor(sb, qb);
      const ma = i16x8.abs(qa);
      const mb = i16x8.abs(qb);
      a2 = i16x8.min_u(a2, i16x8.max_u(a1, ma));
      a1 = i16x8.min_u(a1, ma);
      b2 = i16x8.min_u(b2, i16x8.max_u(b1, mb));
      b1 = i16x8.min_u(b1, mb);
    }
    const na1 = normalize16(i16x8.sub_sat_u(a1, vBeta), vAlpha);
    const na2 = normalize16(i16x8.sub_sat_u(a2, vBeta), vAlpha);
    const nb1 = normalize16(i16x8.sub_sat_u(b1, vBeta), vAlpha);
    const nb2 = normalize16(i16x8.sub_sat_u(b2, vBeta), vAlpha);
    const rsa = i16x8.lt_s(sa, zero);
    const rsb = i16x8.lt_s(sb, zero);
    const ma1 = i16x8.sub(v128.xor(na1, rsa), rsa);
    const xa = v128.xor(ma1, i16x8.sub(v128.xor(na2, rsa), rsa));
    const mb1 = i16x8.sub(v128.xor(nb1, rsb), rsb);
    const xb = v128.xor(mb1, i16x8.sub(v128.xor(nb2, rsb), rsb));
    for (let j = 0; j < d; j++) {
      const o4 = (<usize>j) << 2;
      const o16 = (<usize>j) << 4;
      const qa = v128.load(Q + o16);
      const qb = v128.load(QB + o16);
      const ta = v128.xor(ma1, v128.and(xa, i16x8.eq(i16x8.abs(qa), a1)));
      const tb = v128.xor(mb1, v128.and(xb, i16x8.eq(i16x8.abs(qb), b1)));
      const ga = i16x8.lt_s(qa, zero);
      const gb = i16x8.lt_s(qb, zero);
      const na = i16x8.sub(v128.xor(ta, ga), ga);
      const nb = i16x8.sub(v128.xor(tb, gb), gb);
      v128.store(ra + o16, na);
      v128.store(rb + o16, nb);
      v128.store(L + <usize>load<i32>(ca + o4), i16x8.add_sat_s(qa, na));
      v128.store(L + <usize>load<i32>(cb + o4), i16x8.add_sat_s(qb, nb));
    }
  }
}

/** Bit f set where lane f's hard decisions (8-bit lanes) break some check (16 lanes). */
export function syndrome8(rowStart: usize, colOff: usize, m: i32, L: usize): i32 {
  let acc = i8x16.splat(0);
  let e = load<i32>(rowStart);
  for (let row = 0; row < m; row++) {
    const end = load<i32>(rowStart + ((<usize>(row + 1)) << 2));
    let x = i8x16.splat(0);
    for (let j = e; j < end; j++) x = v128.xor(x, v128.load(L + <usize>load<i32>(colOff + ((<usize>j) << 2))));
    acc = v128.or(acc, x);
    e = end;
  }
  return i8x16.bitmask(acc);
}

/** Bit f set where lane f's hard decisions (16-bit lanes) break some check (8 lanes). */
export function syndrome16(rowStart: usize, colOff: usize, m: i32, L: usize): i32 {
  let acc = i16x8.splat(0);
  let e = load<i32>(rowStart);
  for (let row = 0; row < m; row++) {
    const end = load<i32>(rowStart + ((<usize>(row + 1)) << 2));
    let x = i16x8.splat(0);
    for (let j = e; j < end; j++) x = v128.xor(x, v128.load(L + <usize>load<i32>(colOff + ((<usize>j) << 2))));
    acc = v128.or(acc, x);
    e = end;
  }
  return i16x8.bitmask(acc);
}

/**
 * Quantizes one frame's n channel LLRs (f64 at `input`) to i16 at `out`: clip to [-clip, clip]
 * (LLR units), then floor(v * scale + 0.5), two values a vector. Returns the index of the first LLR
 * that is not finite (the output is then incomplete), or -1. Values fit the lanes: clip * scale is
 * at most the lane's largest value.
 */
export function quantize(input: usize, n: i32, out: usize, clip: f64, scale: f64): i32 {
  const hi = f64x2.splat(clip);
  const lo = f64x2.splat(-clip);
  const vs = f64x2.splat(scale);
  const half = f64x2.splat(0.5);
  const zero = f64x2.splat(0);
  let finite = i64x2.splat(-1);
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const p = input + ((<usize>i) << 3);
    const a = v128.load(p);
    const b = v128.load(p, 16);
    finite = v128.and(finite, v128.and(f64x2.eq(f64x2.sub(a, a), zero), f64x2.eq(f64x2.sub(b, b), zero)));
    const qa = i32x4.trunc_sat_f64x2_s_zero(
      f64x2.floor(f64x2.add(f64x2.mul(f64x2.pmin(f64x2.pmax(a, lo), hi), vs), half)),
    );
    const qb = i32x4.trunc_sat_f64x2_s_zero(
      f64x2.floor(f64x2.add(f64x2.mul(f64x2.pmin(f64x2.pmax(b, lo), hi), vs), half)),
    );
    const q = i16x8.narrow_i32x4_s(v128.shuffle<i32>(qa, qb, 0, 1, 4, 5), zero);
    v128.store64_lane(out + ((<usize>i) << 1), q, 0);
  }
  for (; i < n; i++) {
    let v = load<f64>(input + ((<usize>i) << 3));
    if (!(v - v == 0)) return i;
    v = v > clip ? clip : v < -clip ? -clip : v;
    store<i16>(out + ((<usize>i) << 1), <i16>(<i32>Math.floor(v * scale + 0.5)));
  }
  if (!i64x2.all_true(finite)) {
    for (let j = 0; j < n; j++) {
      const v = load<f64>(input + ((<usize>j) << 3));
      if (!(v - v == 0)) return j;
    }
  }
  return -1;
}

/**
 * Interleaves `count` quantized frames (i16, frame after frame, n each, at `frames`) into lanes
 * 0 .. count - 1 of L (the other lanes 0): `bytes` 1 for i8 lanes (16 a vector), 2 for i16 (8).
 */
export function interleave(bytes: i32, frames: usize, count: i32, n: i32, L: usize): void {
  const stride = (<usize>n) << 1;
  for (let i = 0; i < n; i++) {
    const p = frames + ((<usize>i) << 1);
    let v = i8x16.splat(0);
    if (bytes === 1) {
      // Each lane's byte is the low byte of its i16 (little-endian); lanes past count stay 0.
      if (count > 0) v = v128.load8_lane(p, v, 0);
      if (count > 1) v = v128.load8_lane(p + stride, v, 1);
      if (count > 2) v = v128.load8_lane(p + 2 * stride, v, 2);
      if (count > 3) v = v128.load8_lane(p + 3 * stride, v, 3);
      if (count > 4) v = v128.load8_lane(p + 4 * stride, v, 4);
      if (count > 5) v = v128.load8_lane(p + 5 * stride, v, 5);
      if (count > 6) v = v128.load8_lane(p + 6 * stride, v, 6);
      if (count > 7) v = v128.load8_lane(p + 7 * stride, v, 7);
      if (count > 8) v = v128.load8_lane(p + 8 * stride, v, 8);
      if (count > 9) v = v128.load8_lane(p + 9 * stride, v, 9);
      if (count > 10) v = v128.load8_lane(p + 10 * stride, v, 10);
      if (count > 11) v = v128.load8_lane(p + 11 * stride, v, 11);
      if (count > 12) v = v128.load8_lane(p + 12 * stride, v, 12);
      if (count > 13) v = v128.load8_lane(p + 13 * stride, v, 13);
      if (count > 14) v = v128.load8_lane(p + 14 * stride, v, 14);
      if (count > 15) v = v128.load8_lane(p + 15 * stride, v, 15);
    } else {
      if (count > 0) v = v128.load16_lane(p, v, 0);
      if (count > 1) v = v128.load16_lane(p + stride, v, 1);
      if (count > 2) v = v128.load16_lane(p + 2 * stride, v, 2);
      if (count > 3) v = v128.load16_lane(p + 3 * stride, v, 3);
      if (count > 4) v = v128.load16_lane(p + 4 * stride, v, 4);
      if (count > 5) v = v128.load16_lane(p + 5 * stride, v, 5);
      if (count > 6) v = v128.load16_lane(p + 6 * stride, v, 6);
      if (count > 7) v = v128.load16_lane(p + 7 * stride, v, 7);
    }
    v128.store(L + ((<usize>i) << 4), v);
  }
}

/** Writes one quantized frame (i16 at `frame`, n values) into lane `lane` of L. */
export function insertLane(lane: i32, bytes: i32, frame: usize, n: i32, L: usize): void {
  let p = L + <usize>(lane * bytes);
  for (let i = 0; i < n; i++) {
    const q = load<i16>(frame + ((<usize>i) << 1));
    if (bytes === 1) store<i8>(p, <i8>q);
    else store<i16>(p, q);
    p += 16;
  }
}

/** Zeroes lane `lane`'s check-to-variable messages (edges vectors at R). */
export function clearLane(lane: i32, bytes: i32, R: usize, edges: i32): void {
  let p = R + <usize>(lane * bytes);
  if (bytes === 1) {
    for (let j = 0; j < edges; j++) {
      store<i8>(p, 0);
      p += 16;
    }
  } else {
    for (let j = 0; j < edges; j++) {
      store<i16>(p, 0);
      p += 16;
    }
  }
}

/** Lane `lane`'s n hard decisions (1 where the posterior is negative) as bytes at `bits`. */
export function hardLane(lane: i32, bytes: i32, L: usize, n: i32, bits: usize): void {
  // The sign lives in the lane's most significant byte.
  let p = L + <usize>(lane * bytes + bytes - 1);
  for (let i = 0; i < n; i++) {
    store<u8>(bits + <usize>i, load<u8>(p) >> 7);
    p += 16;
  }
}

/** Lane `lane`'s n posteriors, in the lane's fixed point, as i32 at `values`. */
export function laneValues(lane: i32, bytes: i32, L: usize, n: i32, values: usize): void {
  let p = L + <usize>(lane * bytes);
  for (let i = 0; i < n; i++) {
    store<i32>(values + ((<usize>i) << 2), bytes === 1 ? <i32>load<i8>(p) : <i32>load<i16>(p));
    p += 16;
  }
}
