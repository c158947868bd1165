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
 *   input     f64[n]       one frame's channel LLRs, for loadLane
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
    // The row's sign applied once; each edge then flips by its own sign.
    const rs = i8x16.shr_s(sgn, 7);
    const m1s = i8x16.sub(v128.xor(m1, rs), rs);
    const m2s = i8x16.sub(v128.xor(m2, rs), rs);
    qp = Q;
    for (let j = e; j < end; j++) {
      const c = <usize>load<i32>(colOff + ((<usize>j) << 2));
      const q = v128.load(qp);
      const sel = i8x16.eq(i8x16.abs(q), min1);
      const t = v128.bitselect(m2s, m1s, sel);
      const qs = i8x16.shr_s(q, 7);
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
    const rs = i16x8.shr_s(sgn, 15);
    const m1s = i16x8.sub(v128.xor(m1, rs), rs);
    const m2s = i16x8.sub(v128.xor(m2, rs), rs);
    qp = Q;
    for (let j = e; j < end; j++) {
      const c = <usize>load<i32>(colOff + ((<usize>j) << 2));
      const q = v128.load(qp);
      const sel = i16x8.eq(i16x8.abs(q), min1);
      const t = v128.bitselect(m2s, m1s, sel);
      const qs = i16x8.shr_s(q, 15);
      const rn = i16x8.sub(v128.xor(t, qs), qs);
      v128.store(rp, rn);
      v128.store(L + c, i16x8.add_sat_s(q, rn));
      qp += 16;
      rp += 16;
    }
    e = end;
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

/** JavaScript's Math.round: nearest integer, ties toward +infinity. */
function roundHalfUp(y: f64): f64 {
  const r = Math.floor(y);
  return y - r >= 0.5 ? r + 1 : r;
}

/**
 * Quantizes one frame's n channel LLRs (f64 at `input`) into lane `lane` of L: clip to
 * [-clip, clip] (LLR units), times `scale`, rounded as Math.round; `bytes` is 1 (i8 lanes, 16 a
 * vector) or 2 (i16 lanes, 8 a vector). Returns the index of the first LLR that is not finite
 * (the lane is then incomplete), or -1. The lane's messages in R are left to the caller.
 */
export function loadLane(lane: i32, bytes: i32, input: usize, n: i32, L: usize, clip: f64, scale: f64): i32 {
  let p = L + <usize>(lane * bytes);
  for (let i = 0; i < n; i++) {
    let v = load<f64>(input + ((<usize>i) << 3));
    if (!(v - v == 0)) return i;
    v = v > clip ? clip : v < -clip ? -clip : v;
    const q = <i32>roundHalfUp(v * scale);
    if (bytes === 1) store<i8>(p, <i8>q);
    else store<i16>(p, <i16>q);
    p += 16;
  }
  return -1;
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
