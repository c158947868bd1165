/**
 * AssemblyScript source of the layered min-sum LDPC kernels on WebAssembly SIMD (built to
 * layered-min-sum.wasm by scripts/build-wasm.mjs; not compiled by tsc). Frames are interleaved
 * across the lanes of a v128: the 8-bit kernels hold 16 frames (i8x16), the 16-bit ones 8 (i16x8),
 * and the layered pass runs two groups of such frames at once (two vectors a column).
 * Every pointer is a byte offset into the imported memory, laid out by the host
 * (src/coding/simd-min-sum.ts):
 *   rowStart  i32[m + 1]    edge offsets of the check rows (compressed rows)
 *   rowAddr   i32[edges]    byte address of each edge's column in group 0's L, in row order
 *   L         v128[2 n]     posteriors, column after column (COLUMN bytes apart), a column's two
 *                           groups' vectors side by side (group g at + 16 g), lane f = the
 *                           group's frame f
 *   R         v128[2 edges] check-to-variable messages, an edge's two groups' vectors side by side
 *   Q         v128[2 dmax]  scratch: a row's variable-to-check messages (two vectors an edge)
 *   input     f64[n]        one frame's LLRs on the code's columns, for quantize
 *   channel   f64[E]        one frame's channel LLRs, for recover (codes whose channel bits are not
 *                           the columns: NR's rate matching); gather's output
 *   map       i32[E]        the column of each channel bit, for recover; or, where the map is
 *                           mostly runs of consecutive columns, i32 triples (first channel bit,
 *                           first column, length) of its runs in channel order
 *   frames    i8[32 n] or i16[16 n]  quantized frames (the lanes' width), lane after lane, for
 *                           interleave / insertLane and extrinsic
 *   bits      u8[32 n]      hard decisions: every lane's from hardAll (lane l at l n), one lane's
 *                           from hardLane
 *   values    f64[n]        one lane's extrinsic LLRs, from extrinsic (gather's input)
 *   scratch   256 bytes     hardAll's transposes
 * The arithmetic is src/coding/fixed-point-min-sum.ts's, bit for bit: saturating lanes,
 * message magnitude max(0, min - betaQ) * alphaQ >> 8 with min clipped to satQ.
 */

/**
 * Bytes from one column's posteriors to the next's in L: the two groups' vectors side by side, so
 * that an edge's two loads share a cache line and group 1's is an immediate offset (16) off group 0's.
 */
const COLUMN: usize = 32;

// Lane-width generic helpers: T is i8 (16 lanes) or i16 (8 lanes); sizeof<T>() folds at compile time.

// @ts-ignore: decorator
@inline function splat<T>(x: i32): v128 {
  return sizeof<T>() == 1 ? i8x16.splat(<i8>x) : i16x8.splat(<i16>x);
}
// @ts-ignore: decorator
@inline function subSat<T>(a: v128, b: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.sub_sat_s(a, b) : i16x8.sub_sat_s(a, b);
}
// @ts-ignore: decorator
@inline function addSat<T>(a: v128, b: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.add_sat_s(a, b) : i16x8.add_sat_s(a, b);
}
// @ts-ignore: decorator
@inline function abs<T>(a: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.abs(a) : i16x8.abs(a);
}
// @ts-ignore: decorator
@inline function minU<T>(a: v128, b: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.min_u(a, b) : i16x8.min_u(a, b);
}
// @ts-ignore: decorator
@inline function maxU<T>(a: v128, b: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.max_u(a, b) : i16x8.max_u(a, b);
}
// @ts-ignore: decorator
@inline function eq<T>(a: v128, b: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.eq(a, b) : i16x8.eq(a, b);
}
/** All ones where a lane is negative (one compare: x64 has no 8-bit arithmetic shift). */
// @ts-ignore: decorator
@inline function negMask<T>(a: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.lt_s(a, i8x16.splat(0)) : i16x8.lt_s(a, i16x8.splat(0));
}
/** a negated where mask s is all ones: (a ^ s) - s. */
// @ts-ignore: decorator
@inline function negIf<T>(a: v128, s: v128): v128 {
  return sizeof<T>() == 1 ? i8x16.sub(v128.xor(a, s), s) : i16x8.sub(v128.xor(a, s), s);
}

// The normalizations of a message magnitude, each computing max(0, m - betaQ) * alphaQ >> 8 (the
// host picks the pass of its setting: simd-min-sum.ts's passKernels).
// Through widened lanes: any setting.
const NORM_ANY = 0;
// alphaQ = 192, betaQ = 0 (nms at alpha 3/4, the default): floor(3 m / 4) = m - ceil(m / 4), in the lanes.
const NORM_THREE_QUARTERS = 1;
// alphaQ = 256 (oms, or nms at alpha 1): max(0, m - betaQ), one saturating subtraction.
const NORM_OFFSET = 2;

/**
 * A message magnitude from a minimum: max(0, m - betaQ) * alphaQ >> 8, by the cheapest form the
 * setting allows (mode: a NORM_ constant, folded at compile time in each exported pass).
 */
// @ts-ignore: decorator
@inline function magnitude<T>(m: v128, vBeta: v128, vAlpha: v128, mode: i32): v128 {
  if (sizeof<T>() == 1) {
    if (mode == NORM_THREE_QUARTERS) {
      // (m + 3) >> 2 in 16-bit lanes pulls the odd byte's low bits into the even byte's top two: masked off.
      return i8x16.sub(m, v128.and(i16x8.shr_u(i8x16.add(m, i8x16.splat(3)), 2), i8x16.splat(0x3f)));
    }
    const a = i8x16.sub_sat_u(m, vBeta);
    if (mode == NORM_OFFSET) return a;
    return i8x16.narrow_i16x8_u(
      i16x8.shr_u(i16x8.mul(i16x8.extend_low_i8x16_u(a), vAlpha), 8),
      i16x8.shr_u(i16x8.mul(i16x8.extend_high_i8x16_u(a), vAlpha), 8),
    );
  }
  // m <= 32767: m + 3 fits the unsigned 16-bit lane the shift reads.
  if (mode == NORM_THREE_QUARTERS) return i16x8.sub(m, i16x8.shr_u(i16x8.add(m, i16x8.splat(3)), 2));
  const a = i16x8.sub_sat_u(m, vBeta);
  if (mode == NORM_OFFSET) return a;
  return i16x8.narrow_i32x4_u(
    i32x4.shr_u(i32x4.mul(i32x4.extend_low_i16x8_u(a), vAlpha), 8),
    i32x4.shr_u(i32x4.mul(i32x4.extend_high_i16x8_u(a), vAlpha), 8),
  );
}
// @ts-ignore: decorator
@inline function alphaSplat<T>(alphaQ: i32): v128 {
  return sizeof<T>() == 1 ? i16x8.splat(<i16>alphaQ) : i32x4.splat(alphaQ);
}

/**
 * One layered iteration over every check row, a row at a time, on two groups of frames at once:
 * edge e (row order) reads group 0's column at byte address addr[e] and group 1's 16 bytes further
 * (COLUMN's layout), and owns the two message vectors at R + 32 e. One address load, pointer step
 * and loop test serve both vectors, and the two groups' minimum and sign chains run side by side. Q holds an edge's
 * two q next to each other. mode (a NORM_ constant) and first are compile-time constants of each
 * exported pass: first takes every message as 0 (fresh frames).
 */
// @ts-ignore: decorator
@inline function rowsWide<T>(
  rowStart: usize,
  addr: usize,
  m: i32,
  R: usize,
  Q: usize,
  alphaQ: i32,
  betaQ: i32,
  satQ: i32,
  mode: i32,
  first: bool,
): void {
  const vSat = splat<T>(satQ);
  const vBeta = splat<T>(betaQ);
  const vAlpha = alphaSplat<T>(alphaQ);
  const e = load<i32>(rowStart);
  let cp = addr + ((<usize>e) << 2);
  let rp = R + ((<usize>e) << 5);
  const end = addr + ((<usize>load<i32>(rowStart + ((<usize>m) << 2))) << 2);
  let rs = rowStart + 4;
  while (cp < end) {
    const ce = addr + ((<usize>load<i32>(rs)) << 2);
    rs += 4;
    if (ce == cp) continue;
    let a1 = vSat;
    let a2 = vSat;
    let b1 = vSat;
    let b2 = vSat;
    let sa = v128.splat<i32>(0);
    let sb = v128.splat<i32>(0);
    let c = cp;
    let r = rp;
    let qp = Q;
    do {
      const p = <usize>load<i32>(c);
      // The first pass of fresh frames: every message 0, so q = L and R is neither read nor cleared.
      const qa = first ? v128.load(p) : subSat<T>(v128.load(p), v128.load(r));
      const qb = first ? v128.load(p, 16) : subSat<T>(v128.load(p, 16), v128.load(r, 16));
      v128.store(qp, qa);
      v128.store(qp, qb, 16);
      sa = v128.xor(sa, qa);
      sb = v128.xor(sb, qb);
      const ma = abs<T>(qa);
      const mb = abs<T>(qb);
      a2 = minU<T>(a2, maxU<T>(a1, ma));
      a1 = minU<T>(a1, ma);
      b2 = minU<T>(b2, maxU<T>(b1, mb));
      b1 = minU<T>(b1, mb);
      c += 4;
      r += 32;
      qp += 32;
    } while (c < ce);
    const rsa = negMask<T>(sa);
    const rsb = negMask<T>(sb);
    const ma1 = negIf<T>(magnitude<T>(a1, vBeta, vAlpha, mode), rsa);
    const xa = v128.xor(ma1, negIf<T>(magnitude<T>(a2, vBeta, vAlpha, mode), rsa));
    const mb1 = negIf<T>(magnitude<T>(b1, vBeta, vAlpha, mode), rsb);
    const xb = v128.xor(mb1, negIf<T>(magnitude<T>(b2, vBeta, vAlpha, mode), rsb));
    qp = Q;
    do {
      const p = <usize>load<i32>(cp);
      const ua = v128.load(qp);
      const ub = v128.load(qp, 16);
      const na = negIf<T>(v128.xor(ma1, v128.and(xa, eq<T>(abs<T>(ua), a1))), negMask<T>(ua));
      const nb = negIf<T>(v128.xor(mb1, v128.and(xb, eq<T>(abs<T>(ub), b1))), negMask<T>(ub));
      v128.store(rp, na);
      v128.store(rp, nb, 16);
      v128.store(p, addSat<T>(ua, na));
      v128.store(p, addSat<T>(ub, nb), 16);
      cp += 4;
      rp += 32;
      qp += 32;
    } while (cp < ce);
  }
}

// One exported pass a lane width, normalization and kind (the first pass of fresh frames, whose
// messages are all 0, or any other), so that no row branches on the setting (the host picks the
// export: simd-min-sum.ts's passKernels).
/** One layered iteration on two groups of 16 frames (i8x16 lanes, two vectors a column), any setting. */
export function wide8(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i8>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_ANY, false);
}

/** wide8 on fresh frames: every message 0 (R is written, not read). */
export function wide8First(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i8>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_ANY, true);
}

/** wide8 for alphaQ 192 without offset (NORM_THREE_QUARTERS). */
export function wide8ThreeQuarters(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i8>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_THREE_QUARTERS, false);
}

/** wide8ThreeQuarters on fresh frames: every message 0 (R is written, not read). */
export function wide8ThreeQuartersFirst(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i8>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_THREE_QUARTERS, true);
}

/** wide8 for alphaQ 256 (NORM_OFFSET). */
export function wide8Offset(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i8>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_OFFSET, false);
}

/** wide8Offset on fresh frames: every message 0 (R is written, not read). */
export function wide8OffsetFirst(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i8>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_OFFSET, true);
}

/** One layered iteration on two groups of 8 frames (i16x8 lanes, two vectors a column), any setting. */
export function wide16(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i16>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_ANY, false);
}

/** wide16 on fresh frames: every message 0 (R is written, not read). */
export function wide16First(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i16>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_ANY, true);
}

/** wide16 for alphaQ 192 without offset (NORM_THREE_QUARTERS). */
export function wide16ThreeQuarters(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i16>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_THREE_QUARTERS, false);
}

/** wide16ThreeQuarters on fresh frames: every message 0 (R is written, not read). */
export function wide16ThreeQuartersFirst(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i16>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_THREE_QUARTERS, true);
}

/** wide16 for alphaQ 256 (NORM_OFFSET). */
export function wide16Offset(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i16>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_OFFSET, false);
}

/** wide16Offset on fresh frames: every message 0 (R is written, not read). */
export function wide16OffsetFirst(rowStart: usize, addr: usize, m: i32, R: usize, Q: usize, alphaQ: i32, betaQ: i32, satQ: i32): void {
  rowsWide<i16>(rowStart, addr, m, R, Q, alphaQ, betaQ, satQ, NORM_OFFSET, true);
}

/**
 * Bit l set where lane l's hard decisions (8-bit lanes) break some check: lanes 0 .. 15 group 0's,
 * 16 .. 31 group 1's.
 */
export function syndrome8(rowStart: usize, addr: usize, m: i32): i32 {
  return syndromeBoth<i8>(rowStart, addr, m);
}

/** syndrome8 for 16-bit lanes: lanes 0 .. 7 group 0's, 8 .. 15 group 1's. */
export function syndrome16(rowStart: usize, addr: usize, m: i32): i32 {
  return syndromeBoth<i16>(rowStart, addr, m);
}

/**
 * The or over the rows of each row's xor of its columns (addr's, in row order), both groups in one
 * walk: a lane's sign bit is set where a check fails, as bits of a lane.
 */
// @ts-ignore: decorator
@inline function syndromeBoth<T>(rowStart: usize, addr: usize, m: i32): i32 {
  let acc0 = v128.splat<i32>(0);
  let acc1 = acc0;
  let e = load<i32>(rowStart);
  let cp = addr + ((<usize>e) << 2);
  for (let row = 0; row < m; row++) {
    const end = load<i32>(rowStart + ((<usize>row) << 2), 4);
    let x0 = v128.splat<i32>(0);
    let x1 = x0;
    for (; e < end; e++) {
      const p = <usize>load<i32>(cp);
      x0 = v128.xor(x0, v128.load(p));
      x1 = v128.xor(x1, v128.load(p, 16));
      cp += 4;
    }
    acc0 = v128.or(acc0, x0);
    acc1 = v128.or(acc1, x1);
  }
  return sizeof<T>() == 1
    ? i8x16.bitmask(acc0) | (i8x16.bitmask(acc1) << 16)
    : i16x8.bitmask(acc0) | (i16x8.bitmask(acc1) << 8);
}

/**
 * The inverse of a rate matching (a channel bit k carries column map[k]): input[i] = 0 for every
 * column i but fillFrom .. fillTo - 1 (fillValue: known bits), then input[map[k]] += channel[k]
 * for k = 0 .. E - 1 in order (a column sent twice gets the sum), in float64 as the host's
 * nrRateRecover adds. `runs` > 0: map holds that many runs (first channel bit, first column,
 * length), added two LLRs a vector op, in the same order. Returns 0, input incomplete, where some
 * channel LLR is not finite (the host then names it), else 1.
 */
export function recover(channel: usize, E: i32, map: usize, runs: i32, input: usize, n: i32, fillFrom: i32, fillTo: i32, fillValue: f64): i32 {
  // Finiteness first, four running sums of the channel's LLRs (quantize's test).
  let sa = f64x2.splat(0);
  let sb = sa;
  let k = 0;
  for (; k + 4 <= E; k += 4) {
    const p = channel + ((<usize>k) << 3);
    sa = f64x2.add(sa, v128.load(p));
    sb = f64x2.add(sb, v128.load(p, 16));
  }
  let rest = 0.0;
  for (; k < E; k++) rest += load<f64>(channel + ((<usize>k) << 3));
  const sum = f64x2.add(sa, sb);
  if (v128.any_true(f64x2.sub(sum, sum)) || !(rest - rest == 0)) {
    for (let j = 0; j < E; j++) {
      const v = load<f64>(channel + ((<usize>j) << 3));
      if (!(v - v == 0)) return 0;
    }
  }
  const zero = f64x2.splat(0);
  let i = 0;
  for (; i + 2 <= n; i += 2) v128.store(input + ((<usize>i) << 3), zero);
  if (i < n) store<f64>(input + ((<usize>i) << 3), 0);
  for (let j = fillFrom; j < fillTo; j++) store<f64>(input + ((<usize>j) << 3), fillValue);
  if (runs > 0) {
    for (let r = 0; r < runs; r++) {
      const t = map + <usize>(r * 12);
      let from = channel + ((<usize>load<i32>(t)) << 3);
      let to = input + ((<usize>load<i32>(t, 4)) << 3);
      const end = from + ((<usize>load<i32>(t, 8)) << 3);
      for (; from + 16 <= end; from += 16, to += 16) v128.store(to, f64x2.add(v128.load(to), v128.load(from)));
      if (from < end) store<f64>(to, load<f64>(to) + load<f64>(from));
    }
    return 1;
  }
  for (let j = 0; j < E; j++) {
    const p = input + ((<usize>load<i32>(map + ((<usize>j) << 2))) << 3);
    store<f64>(p, load<f64>(p) + load<f64>(channel + ((<usize>j) << 3)));
  }
  return 1;
}

/**
 * recover's map the other way: out[k] = values[map[k]] for the E channel bits (f64), from the map
 * or its `runs` (recover's layout), two values a vector op along a run.
 */
export function gather(values: usize, map: usize, runs: i32, E: i32, out: usize): void {
  if (runs > 0) {
    for (let r = 0; r < runs; r++) {
      const t = map + <usize>(r * 12);
      let to = out + ((<usize>load<i32>(t)) << 3);
      let from = values + ((<usize>load<i32>(t, 4)) << 3);
      const end = to + ((<usize>load<i32>(t, 8)) << 3);
      for (; to + 16 <= end; to += 16, from += 16) v128.store(to, v128.load(from));
      if (to < end) store<f64>(to, load<f64>(from));
    }
    return;
  }
  for (let k = 0; k < E; k++)
    store<f64>(out + ((<usize>k) << 3), load<f64>(values + ((<usize>load<i32>(map + ((<usize>k) << 2))) << 3)));
}

/**
 * Quantizes one frame's n channel LLRs (f64 at `input`) into `out`, as bytes (`bytes` 1) or i16
 * (2): clip to [-clip, clip] (LLR units), then floor(v * scale + 0.5). Returns the index of the
 * first LLR that is not finite (the output is then incomplete), or -1. Values fit the lanes: clip *
 * scale is at most the lane's largest value.
 *
 * The clip is taken in the lanes' integers where that gives the same values ({@link quantizeLanes}:
 * every frame of LLRs a channel gives); a frame it refuses (an LLR not finite, or the magnitudes'
 * sum past 2^24) is quantized again with the clip on the doubles ({@link quantizeClipped}).
 */
export function quantize(input: usize, n: i32, out: usize, clip: f64, scale: f64, bytes: i32): i32 {
  if (bytes == 1 ? quantizeLanes<i8>(input, n, out, clip, scale) : quantizeLanes<i16>(input, n, out, clip, scale))
    return -1;
  return quantizeClipped(input, n, out, clip, scale, bytes);
}

/** Two LLRs (f64x2) quantized without the clip, each integer in the low 32 bits of its lane (floor(.) + 2^52 + 2^51). */
// @ts-ignore: decorator
@inline function round2(a: v128, vs: v128, half: v128, magic: v128): v128 {
  return f64x2.add(f64x2.floor(f64x2.add(f64x2.mul(a, vs), half)), magic);
}

/** The magnitudes of four f64x2 summed, lane by lane. */
// @ts-ignore: decorator
@inline function absSum(a: v128, b: v128, c: v128, d: v128): v128 {
  return f64x2.add(f64x2.add(f64x2.abs(a), f64x2.abs(b)), f64x2.add(f64x2.abs(c), f64x2.abs(d)));
}

/** Four f64x2 quantized without the clip ({@link round2}), as i16x8 (saturating). */
// @ts-ignore: decorator
@inline function round8(a: v128, b: v128, c: v128, d: v128, vs: v128, half: v128, magic: v128): v128 {
  return i16x8.narrow_i32x4_s(
    v128.shuffle<i32>(round2(a, vs, half, magic), round2(b, vs, half, magic), 0, 2, 4, 6),
    v128.shuffle<i32>(round2(c, vs, half, magic), round2(d, vs, half, magic), 0, 2, 4, 6),
  );
}

/**
 * quantize's values with the clip taken after the rounding, on the lanes' integers: floor(v * scale
 * + 0.5) is non-decreasing in v, so clamping it to [q(-clip), q(clip)] gives q(clip(v)), as long as
 * it is computed without wrapping: every |v| at most the sum of the magnitudes, which must stay
 * below 2^24 (|v * scale| < 2^28 for scale up to 16; floor(.) + 2^52 + 2^51 then holds the integer
 * in its low 32 bits, and the saturating narrows keep the order). Returns false, its output
 * incomplete, where that sum is not below 2^24 (an LLR not finite makes it NaN or infinite).
 * 16 LLRs an iteration (i8: one byte vector) or 8 (i16), the rest one at a time.
 */
// @ts-ignore: decorator
@inline function quantizeLanes<T>(input: usize, n: i32, out: usize, clip: f64, scale: f64): bool {
  const qhi = <i32>Math.floor(clip * scale + 0.5);
  const qlo = <i32>Math.floor(-clip * scale + 0.5);
  const vlo = splat<T>(qlo);
  const vhi = splat<T>(qhi);
  const vs = f64x2.splat(scale);
  const half = f64x2.splat(0.5);
  const magic = f64x2.splat(6755399441055744.0);
  let sa = f64x2.splat(0);
  let sb = sa;
  let i = 0;
  const step = sizeof<T>() == 1 ? 16 : 8;
  for (; i + step <= n; i += step) {
    const p = input + ((<usize>i) << 3);
    const a = v128.load(p);
    const b = v128.load(p, 16);
    const c = v128.load(p, 32);
    const d = v128.load(p, 48);
    sa = f64x2.add(sa, absSum(a, b, c, d));
    const q0 = round8(a, b, c, d, vs, half, magic);
    if (sizeof<T>() == 1) {
      const e = v128.load(p, 64);
      const f = v128.load(p, 80);
      const g = v128.load(p, 96);
      const h = v128.load(p, 112);
      sb = f64x2.add(sb, absSum(e, f, g, h));
      const q1 = round8(e, f, g, h, vs, half, magic);
      v128.store(out + <usize>i, i8x16.min_s(i8x16.max_s(i8x16.narrow_i16x8_s(q0, q1), vlo), vhi));
    } else {
      v128.store(out + ((<usize>i) << 1), i16x8.min_s(i16x8.max_s(q0, vlo), vhi));
    }
  }
  for (; i < n; i++) {
    let v = load<f64>(input + ((<usize>i) << 3));
    if (!(v - v == 0)) return false;
    v = v > clip ? clip : v < -clip ? -clip : v;
    const q = <i32>Math.floor(v * scale + 0.5);
    if (sizeof<T>() == 1) store<i8>(out + <usize>i, <i8>q);
    else store<i16>(out + ((<usize>i) << 1), <i16>q);
  }
  const sum = f64x2.add(sa, sb);
  return f64x2.extract_lane(sum, 0) + f64x2.extract_lane(sum, 1) < 16777216.0;
}

/**
 * quantize with the clip on the doubles (any finite LLRs), eight values an iteration: the index of
 * the first LLR that is not finite, or -1.
 */
function quantizeClipped(input: usize, n: i32, out: usize, clip: f64, scale: f64, bytes: i32): i32 {
  const hi = f64x2.splat(clip);
  const lo = f64x2.splat(-clip);
  const vs = f64x2.splat(scale);
  const half = f64x2.splat(0.5);
  // An integer-valued double k plus 2^52 + 2^51 holds k in its low 32 bits (two's complement).
  const magic = f64x2.splat(6755399441055744.0);
  // Sums of the inputs: finite unless some input is not (or the sum overflows: then the scalar
  // rescan below finds every input finite). One add a vector, where v - v and an or took two.
  let sa = f64x2.splat(0);
  let sb = sa;
  let sc = sa;
  let sd = sa;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const p = input + ((<usize>i) << 3);
    const a = v128.load(p);
    const b = v128.load(p, 16);
    const c = v128.load(p, 32);
    const d = v128.load(p, 48);
    sa = f64x2.add(sa, a);
    sb = f64x2.add(sb, b);
    sc = f64x2.add(sc, c);
    sd = f64x2.add(sd, d);
    const qa = quantize2(a, lo, hi, vs, half, magic);
    const qb = quantize2(b, lo, hi, vs, half, magic);
    const qc = quantize2(c, lo, hi, vs, half, magic);
    const qd = quantize2(d, lo, hi, vs, half, magic);
    const q = i16x8.narrow_i32x4_s(v128.shuffle<i32>(qa, qb, 0, 2, 4, 6), v128.shuffle<i32>(qc, qd, 0, 2, 4, 6));
    if (bytes == 1) v128.store_lane<i64>(out + <usize>i, i8x16.narrow_i16x8_s(q, q), 0);
    else v128.store(out + ((<usize>i) << 1), q);
  }
  for (; i < n; i++) {
    let v = load<f64>(input + ((<usize>i) << 3));
    if (!(v - v == 0)) return i;
    v = v > clip ? clip : v < -clip ? -clip : v;
    const q = <i32>Math.floor(v * scale + 0.5);
    if (bytes == 1) store<i8>(out + <usize>i, <i8>q);
    else store<i16>(out + ((<usize>i) << 1), <i16>q);
  }
  const sum = f64x2.add(f64x2.add(sa, sb), f64x2.add(sc, sd));
  if (v128.any_true(f64x2.sub(sum, sum))) {
    for (let j = 0; j < n; j++) {
      const v = load<f64>(input + ((<usize>j) << 3));
      if (!(v - v == 0)) return j;
    }
  }
  return -1;
}

/** Two LLRs quantized, each as an integer in the low 32 bits of its f64 lane. */
// @ts-ignore: decorator
@inline function quantize2(a: v128, lo: v128, hi: v128, vs: v128, half: v128, magic: v128): v128 {
  return f64x2.add(f64x2.floor(f64x2.add(f64x2.mul(f64x2.pmin(f64x2.pmax(a, lo), hi), vs), half)), magic);
}

/**
 * Interleaves `count` quantized frames (frame after frame, n each, at `frames`: bytes for i8 lanes,
 * `bytes` 1, 16 a vector; i16 for i16 lanes, `bytes` 2, 8 a vector) into lanes 0 .. count - 1 of L
 * (the other lanes 0).
 */
export function interleave(bytes: i32, frames: usize, count: i32, n: i32, L: usize): void {
  const stride = (<usize>n) * bytes;
  let from = 0;
  if (bytes === 1 && count === 16) {
    // Whole blocks of 16 columns: each frame's 16 bytes, transposed.
    for (; from + 16 <= n; from += 16) {
      const p = frames + <usize>from;
      transpose16(
        v128.load(p + 0 * stride),
        v128.load(p + 1 * stride),
        v128.load(p + 2 * stride),
        v128.load(p + 3 * stride),
        v128.load(p + 4 * stride),
        v128.load(p + 5 * stride),
        v128.load(p + 6 * stride),
        v128.load(p + 7 * stride),
        v128.load(p + 8 * stride),
        v128.load(p + 9 * stride),
        v128.load(p + 10 * stride),
        v128.load(p + 11 * stride),
        v128.load(p + 12 * stride),
        v128.load(p + 13 * stride),
        v128.load(p + 14 * stride),
        v128.load(p + 15 * stride),
        L + (<usize>from) * COLUMN,
        COLUMN,
      );
    }
  }
  for (let i = from; i < n; i++) {
    let v = i8x16.splat(0);
    if (bytes === 1) {
      const p = frames + <usize>i;
      // Lanes past count stay 0.
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
      const p = frames + ((<usize>i) << 1);
      if (count > 0) v = v128.load16_lane(p, v, 0);
      if (count > 1) v = v128.load16_lane(p + stride, v, 1);
      if (count > 2) v = v128.load16_lane(p + 2 * stride, v, 2);
      if (count > 3) v = v128.load16_lane(p + 3 * stride, v, 3);
      if (count > 4) v = v128.load16_lane(p + 4 * stride, v, 4);
      if (count > 5) v = v128.load16_lane(p + 5 * stride, v, 5);
      if (count > 6) v = v128.load16_lane(p + 6 * stride, v, 6);
      if (count > 7) v = v128.load16_lane(p + 7 * stride, v, 7);
    }
    v128.store(L + (<usize>i) * COLUMN, v);
  }
}

/** Writes one quantized frame (n values at `frame`: bytes for `bytes` 1, i16 for 2) into lane `lane` of L. */
export function insertLane(lane: i32, bytes: i32, frame: usize, n: i32, L: usize): void {
  let p = L + <usize>(lane * bytes);
  for (let i = 0; i < n; i++) {
    if (bytes === 1) store<i8>(p, load<i8>(frame + <usize>i));
    else store<i16>(p, load<i16>(frame + ((<usize>i) << 1)));
    p += COLUMN;
  }
}

/** Zeroes lane `lane`'s check-to-variable messages (edges vectors at R, `step` bytes apart). */
export function clearLane(lane: i32, bytes: i32, R: usize, edges: i32, step: usize): void {
  let p = R + <usize>(lane * bytes);
  if (bytes === 1) {
    for (let j = 0; j < edges; j++) {
      store<i8>(p, 0);
      p += step;
    }
  } else {
    for (let j = 0; j < edges; j++) {
      store<i16>(p, 0);
      p += step;
    }
  }
}

/**
 * The 16 x 16 byte transpose of v0 .. v15 stored at out (16 vectors, `step` bytes apart): vector
 * l's byte k is byte l of vk (four rounds of interleaving unpacks).
 */
// @ts-ignore: decorator
@inline function transpose16(
  v0: v128,
  v1: v128,
  v2: v128,
  v3: v128,
  v4: v128,
  v5: v128,
  v6: v128,
  v7: v128,
  v8: v128,
  v9: v128,
  v10: v128,
  v11: v128,
  v12: v128,
  v13: v128,
  v14: v128,
  v15: v128,
  out: usize,
  step: usize,
): void {
  const s0 = i8x16.shuffle(v0, v1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s1 = i8x16.shuffle(v0, v1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s2 = i8x16.shuffle(v2, v3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s3 = i8x16.shuffle(v2, v3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s4 = i8x16.shuffle(v4, v5, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s5 = i8x16.shuffle(v4, v5, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s6 = i8x16.shuffle(v6, v7, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s7 = i8x16.shuffle(v6, v7, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s8 = i8x16.shuffle(v8, v9, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s9 = i8x16.shuffle(v8, v9, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s10 = i8x16.shuffle(v10, v11, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s11 = i8x16.shuffle(v10, v11, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s12 = i8x16.shuffle(v12, v13, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s13 = i8x16.shuffle(v12, v13, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const s14 = i8x16.shuffle(v14, v15, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const s15 = i8x16.shuffle(v14, v15, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const t0 = i8x16.shuffle(s0, s2, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t1 = i8x16.shuffle(s0, s2, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t2 = i8x16.shuffle(s1, s3, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t3 = i8x16.shuffle(s1, s3, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t4 = i8x16.shuffle(s4, s6, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t5 = i8x16.shuffle(s4, s6, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t6 = i8x16.shuffle(s5, s7, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t7 = i8x16.shuffle(s5, s7, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t8 = i8x16.shuffle(s8, s10, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t9 = i8x16.shuffle(s8, s10, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t10 = i8x16.shuffle(s9, s11, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t11 = i8x16.shuffle(s9, s11, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t12 = i8x16.shuffle(s12, s14, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t13 = i8x16.shuffle(s12, s14, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const t14 = i8x16.shuffle(s13, s15, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const t15 = i8x16.shuffle(s13, s15, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const u0 = i8x16.shuffle(t0, t4, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u1 = i8x16.shuffle(t0, t4, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u2 = i8x16.shuffle(t1, t5, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u3 = i8x16.shuffle(t1, t5, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u4 = i8x16.shuffle(t2, t6, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u5 = i8x16.shuffle(t2, t6, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u6 = i8x16.shuffle(t3, t7, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u7 = i8x16.shuffle(t3, t7, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u8 = i8x16.shuffle(t8, t12, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u9 = i8x16.shuffle(t8, t12, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u10 = i8x16.shuffle(t9, t13, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u11 = i8x16.shuffle(t9, t13, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u12 = i8x16.shuffle(t10, t14, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u13 = i8x16.shuffle(t10, t14, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const u14 = i8x16.shuffle(t11, t15, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const u15 = i8x16.shuffle(t11, t15, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  const w0 = i8x16.shuffle(u0, u8, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w1 = i8x16.shuffle(u0, u8, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w2 = i8x16.shuffle(u1, u9, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w3 = i8x16.shuffle(u1, u9, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w4 = i8x16.shuffle(u2, u10, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w5 = i8x16.shuffle(u2, u10, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w6 = i8x16.shuffle(u3, u11, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w7 = i8x16.shuffle(u3, u11, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w8 = i8x16.shuffle(u4, u12, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w9 = i8x16.shuffle(u4, u12, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w10 = i8x16.shuffle(u5, u13, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w11 = i8x16.shuffle(u5, u13, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w12 = i8x16.shuffle(u6, u14, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w13 = i8x16.shuffle(u6, u14, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const w14 = i8x16.shuffle(u7, u15, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const w15 = i8x16.shuffle(u7, u15, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  v128.store(out + 0 * step, w0);
  v128.store(out + 1 * step, w1);
  v128.store(out + 2 * step, w2);
  v128.store(out + 3 * step, w3);
  v128.store(out + 4 * step, w4);
  v128.store(out + 5 * step, w5);
  v128.store(out + 6 * step, w6);
  v128.store(out + 7 * step, w7);
  v128.store(out + 8 * step, w8);
  v128.store(out + 9 * step, w9);
  v128.store(out + 10 * step, w10);
  v128.store(out + 11 * step, w11);
  v128.store(out + 12 * step, w12);
  v128.store(out + 13 * step, w13);
  v128.store(out + 14 * step, w14);
  v128.store(out + 15 * step, w15);
}

/** A block's k-th byte vector: column k's (i8 lanes), or columns k and k + 16 narrowed, signs kept (i16 lanes). */
// @ts-ignore: decorator
@inline function column<T>(p: usize, k: usize): v128 {
  if (sizeof<T>() == 1) return v128.load(p + k * COLUMN);
  return i8x16.narrow_i16x8_s(v128.load(p + k * COLUMN), v128.load(p + (k + 16) * COLUMN));
}

// @ts-ignore: decorator
@inline function hardBlocks<T>(L: usize, n: i32, cols: i32, count: i32, bits: usize, scratch: usize): i32 {
  // A block: 16 byte vectors of a group, transposed so that vector l holds 16 columns of the group's
  // lane l (i8), or lane l % 8's columns (l < 8 the block's first 16, else its last 16; i16).
  const block = sizeof<T>() == 1 ? 16 : 32;
  const v = sizeof<T>() == 1 ? 16 : 8;
  let i = 0;
  for (; i + block <= cols; i += block) {
    for (let g = 0; g < 2; g++) {
      const c = min(v, count - g * v);
      if (c <= 0) break;
      const p = L + (<usize>i) * COLUMN + ((<usize>g) << 4);
      transpose16(column<T>(p, 0), column<T>(p, 1), column<T>(p, 2), column<T>(p, 3), column<T>(p, 4), column<T>(p, 5), column<T>(p, 6), column<T>(p, 7), column<T>(p, 8), column<T>(p, 9), column<T>(p, 10), column<T>(p, 11), column<T>(p, 12), column<T>(p, 13), column<T>(p, 14), column<T>(p, 15), scratch, 16);
      // The group's lane l's 16 decisions (and, i16, its next 16), sign bits to 0 / 1.
      for (let l = 0; l < c; l++) {
        const o = bits + <usize>((g * v + l) * n + i);
        const t = scratch + ((<usize>l) << 4);
        v128.store(o, i8x16.shr_u(v128.load(t), 7));
        if (sizeof<T>() == 2) v128.store(o, i8x16.shr_u(v128.load(t, 128), 7), 16);
      }
    }
  }
  return i;
}

/**
 * Lanes 0 .. count - 1's hard decisions (1 where the posterior is negative) on columns 0 .. cols - 1
 * (cols <= n: those the caller reads) as bytes, lane l's at bits + l n (lane l: the lane l % v of
 * group l / v, v the lanes a vector), both groups a block of columns at a time: whole blocks by
 * byte transposes (through 256 bytes at scratch), the rest a column at a time.
 */
export function hardAll(bytes: i32, L: usize, n: i32, cols: i32, count: i32, bits: usize, scratch: usize): void {
  const from =
    bytes === 1 ? hardBlocks<i8>(L, n, cols, count, bits, scratch) : hardBlocks<i16>(L, n, cols, count, bits, scratch);
  const v = 16 / bytes;
  for (let l = 0; l < count; l++) {
    let p = L + (<usize>(l / v) << 4) + <usize>((l % v) * bytes + bytes - 1) + (<usize>from) * COLUMN;
    for (let i = from; i < cols; i++) {
      store<u8>(bits + <usize>(l * n + i), load<u8>(p) >> 7);
      p += COLUMN;
    }
  }
}

/** Lane `lane`'s hard decisions on columns 0 .. n - 1 (1 where the posterior is negative) as bytes at `bits`. */
export function hardLane(lane: i32, bytes: i32, L: usize, n: i32, bits: usize): void {
  // The sign lives in the lane's most significant byte.
  let p = L + <usize>(lane * bytes + bytes - 1);
  for (let i = 0; i < n; i++) {
    store<u8>(bits + <usize>i, load<u8>(p) >> 7);
    p += COLUMN;
  }
}

/**
 * Lane `lane`'s n extrinsic LLRs as f64 at `out`: (posterior - the frame's input as quantized, at
 * `frame`: bytes for `bytes` 1, i16 for 2) x inverse, inverse = 1 / scale for a power-of-two scale:
 * the host's float64 quotient exactly. Eight columns a step: the lane's posteriors gathered into a
 * vector (a lane load a column), the differences widened to i32 and converted two a vector op.
 */
export function extrinsic(lane: i32, bytes: i32, L: usize, n: i32, frame: usize, inverse: f64, out: usize): void {
  let p = L + <usize>(lane * bytes);
  const inv = f64x2.splat(inverse);
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    let d: v128;
    if (bytes === 1) {
      let v = i8x16.splat(0);
      v = v128.load8_lane(p, v, 0);
      v = v128.load8_lane(p + COLUMN, v, 1);
      v = v128.load8_lane(p + 2 * COLUMN, v, 2);
      v = v128.load8_lane(p + 3 * COLUMN, v, 3);
      v = v128.load8_lane(p + 4 * COLUMN, v, 4);
      v = v128.load8_lane(p + 5 * COLUMN, v, 5);
      v = v128.load8_lane(p + 6 * COLUMN, v, 6);
      v = v128.load8_lane(p + 7 * COLUMN, v, 7);
      // Posterior and input in [-128, 127]: the difference fits i16.
      d = i16x8.sub(i16x8.extend_low_i8x16_s(v), i16x8.extend_low_i8x16_s(v128.load64_zero(frame + <usize>i)));
    } else {
      let v = i16x8.splat(0);
      v = v128.load16_lane(p, v, 0);
      v = v128.load16_lane(p + COLUMN, v, 1);
      v = v128.load16_lane(p + 2 * COLUMN, v, 2);
      v = v128.load16_lane(p + 3 * COLUMN, v, 3);
      v = v128.load16_lane(p + 4 * COLUMN, v, 4);
      v = v128.load16_lane(p + 5 * COLUMN, v, 5);
      v = v128.load16_lane(p + 6 * COLUMN, v, 6);
      v = v128.load16_lane(p + 7 * COLUMN, v, 7);
      // Saturated posteriors and inputs: the difference can pass i16 (to +-65535), so in i32.
      const q = v128.load(frame + ((<usize>i) << 1));
      const lo = i32x4.sub(i32x4.extend_low_i16x8_s(v), i32x4.extend_low_i16x8_s(q));
      const hi = i32x4.sub(i32x4.extend_high_i16x8_s(v), i32x4.extend_high_i16x8_s(q));
      store4(out + ((<usize>i) << 3), lo, inv);
      store4(out + ((<usize>i) << 3) + 32, hi, inv);
      p += 8 * COLUMN;
      continue;
    }
    store4(out + ((<usize>i) << 3), i32x4.extend_low_i16x8_s(d), inv);
    store4(out + ((<usize>i) << 3) + 32, i32x4.extend_high_i16x8_s(d), inv);
    p += 8 * COLUMN;
  }
  for (; i < n; i++) {
    const d = bytes === 1 ? <i32>load<i8>(p) - <i32>load<i8>(frame + <usize>i) : <i32>load<i16>(p) - <i32>load<i16>(frame + ((<usize>i) << 1));
    store<f64>(out + ((<usize>i) << 3), <f64>d * inverse);
    p += COLUMN;
  }
}

/** Four i32 (i32x4) times inv (f64x2 splat) as four f64 at out. */
// @ts-ignore: decorator
@inline function store4(out: usize, d: v128, inv: v128): void {
  v128.store(out, f64x2.mul(f64x2.convert_low_i32x4_s(d), inv));
  v128.store(out, f64x2.mul(f64x2.convert_low_i32x4_s(v128.shuffle<i32>(d, d, 2, 3, 2, 3)), inv), 16);
}
