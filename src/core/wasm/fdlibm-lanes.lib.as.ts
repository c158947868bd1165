/**
 * AssemblyScript helpers the kernels share: fdlibm's log and sin / cos (fdlibm.lib.as.ts) on two
 * doubles at once in f64x2 lanes, each lane's result equal to the scalar function's bit for bit.
 * Every branch of the common path is computed in both lanes and the lane's own chosen by its mask
 * (no branch mispredicted on random inputs: Box-Muller's uniforms pick the branches at random), as
 * the scalar code computes it, operation for operation:
 *   - log: both of the polynomial's final forms (fdlibm's i > 0 or not) and both of k = 0 or not;
 *   - sin, cos: the reduction x - n pi / 2 in fdlibm's first step (33 + 53 bits of pi / 2), which
 *     for pi / 4 < |x| < 3 pi / 4 is the n = 1 special case's arithmetic too; |x| <= pi / 4 taken as
 *     (x, 0) with sin's iy = 0 form; cos's two forms (|y| < 0.3, and the qx one); the quadrant by
 *     masks.
 * The rare cases go to the scalar function, lane by lane: log's |f| < 2^-20 (and inputs that are not
 * positive normal doubles), a reduced argument below 2^-27, an |x| whose high word is n pi / 2's
 * (fdlibm's second and third reductions), n >= 32 (where fdlibm checks the cancellation of every n), x negative or beyond 2^19 pi / 2, NaN.
 */
import { cosOut, fdlibmLog, sinCos, sinOut } from './fdlibm.lib.as';

const SIGN = i64x2.splat(0x8000000000000000);

/** Bytes of the constants' table (writeLaneConstants). */
export const LANE_CONSTANT_BYTES: usize = 832;

/** Each lane's high word (unsigned: a negative double's is 2^31 or more), as an i64 lane. */
@inline
function hiWords(x: v128): v128 {
  return i64x2.shr_u(x, 32);
}

/** Each lane's i64 (a small integer) as a double. */
@inline
function i64ToF64(k: v128): v128 {
  return f64x2.convert_low_i32x4_s(v128.shuffle<i32>(k, k, 0, 2, 0, 2));
}

/** Writes the lanes' constants (LANE_CONSTANT_BYTES bytes) at tab, which logLanes and sinCosLanes read (a load each: no constant built in the loop). */
export function writeLaneConstants(tab: usize): void {
  v128.store(tab, f64x2.splat(6.93147180369123816490e-1), 0);
  v128.store(tab, f64x2.splat(1.90821492927058770002e-10), 16);
  v128.store(tab, f64x2.splat(6.666666666666735130e-1), 32);
  v128.store(tab, f64x2.splat(3.999999999940941908e-1), 48);
  v128.store(tab, f64x2.splat(2.857142874366239149e-1), 64);
  v128.store(tab, f64x2.splat(2.222219843214978396e-1), 80);
  v128.store(tab, f64x2.splat(1.818357216161805012e-1), 96);
  v128.store(tab, f64x2.splat(1.531383769920937332e-1), 112);
  v128.store(tab, f64x2.splat(1.479819860511658591e-1), 128);
  v128.store(tab, i64x2.splat(0x000fffff), 144);
  v128.store(tab, i64x2.splat(0x95f64), 160);
  v128.store(tab, i64x2.splat(0x100000), 176);
  v128.store(tab, i64x2.splat(1023), 192);
  v128.store(tab, i64x2.splat(0xffffffff), 208);
  v128.store(tab, i64x2.splat(0x3ff00000), 224);
  v128.store(tab, f64x2.splat(1.0), 240);
  v128.store(tab, i64x2.splat(0x00100000), 256);
  v128.store(tab, i64x2.splat(0x7ff00000), 272);
  v128.store(tab, i64x2.splat(2), 288);
  v128.store(tab, i64x2.splat(3), 304);
  v128.store(tab, f64x2.splat(2.0), 320);
  v128.store(tab, i64x2.splat(0x6147a), 336);
  v128.store(tab, i64x2.splat(0x6b851), 352);
  v128.store(tab, i64x2.splat(0), 368);
  v128.store(tab, f64x2.splat(0.5), 384);
  v128.store(tab, f64x2.splat(6.36619772367581382433e-1), 400);
  v128.store(tab, f64x2.splat(1.57079632673412561417), 416);
  v128.store(tab, f64x2.splat(6.07710050650619224932e-11), 432);
  v128.store(tab, f64x2.splat(1.5707963267948966), 448);
  v128.store(tab, f64x2.splat(-1.66666666666666324348e-1), 464);
  v128.store(tab, f64x2.splat(8.33333333332248946124e-3), 480);
  v128.store(tab, f64x2.splat(-1.98412698298579493134e-4), 496);
  v128.store(tab, f64x2.splat(2.75573137070700676789e-6), 512);
  v128.store(tab, f64x2.splat(-2.50507602534068634195e-8), 528);
  v128.store(tab, f64x2.splat(1.58969099521155010221e-10), 544);
  v128.store(tab, f64x2.splat(4.16666666666666019037e-2), 560);
  v128.store(tab, f64x2.splat(-1.38888888888741095749e-3), 576);
  v128.store(tab, f64x2.splat(2.48015872894767294178e-5), 592);
  v128.store(tab, f64x2.splat(-2.75573143513906633035e-7), 608);
  v128.store(tab, f64x2.splat(2.08757232129817482790e-9), 624);
  v128.store(tab, f64x2.splat(-1.13596475577881948265e-11), 640);
  v128.store(tab, i64x2.splat(0x7fffffff), 656);
  v128.store(tab, i64x2.splat(0x3fe921fb), 672);
  v128.store(tab, i64x2.splat(0x4002d97c), 688);
  v128.store(tab, i64x2.splat(1), 704);
  v128.store(tab, i64x2.splat(0x413921fb), 720);
  v128.store(tab, i64x2.splat(32), 736);
  v128.store(tab, i64x2.splat(0x3e400000), 752);
  v128.store(tab, f64x2.splat(0.28125), 768);
  v128.store(tab, i64x2.splat(0x00200000), 784);
  v128.store(tab, i64x2.splat(0x3fe90000), 800);
  v128.store(tab, i64x2.splat(0x3fd33333), 816);
}

/** fdlibmLog of each lane. */
@inline
export function logLanes(x: v128, tab: usize): v128 {
  const ln2_hi = v128.load(tab, 0),
    ln2_lo = v128.load(tab, 16),
    Lg1 = v128.load(tab, 32),
    Lg2 = v128.load(tab, 48),
    Lg3 = v128.load(tab, 64),
    Lg4 = v128.load(tab, 80),
    Lg5 = v128.load(tab, 96),
    Lg6 = v128.load(tab, 112),
    Lg7 = v128.load(tab, 128);
  const hx = hiWords(x);
  const mant = v128.load(tab, 144);
  const hm = v128.and(hx, mant);
  const i = v128.and(i64x2.add(hm, v128.load(tab, 160)), v128.load(tab, 176));
  const k = i64x2.add(i64x2.sub(i64x2.shr_u(hx, 20), v128.load(tab, 192)), i64x2.shr_u(i, 20));
  const xn = v128.or(
    v128.and(x, v128.load(tab, 208)),
    i64x2.shl(v128.or(hm, v128.xor(i, v128.load(tab, 224))), 32),
  );
  const f = f64x2.sub(xn, v128.load(tab, 240));
  const rare = v128.or(
    v128.or(i64x2.lt_s(hx, v128.load(tab, 256)), i64x2.ge_s(hx, v128.load(tab, 272))),
    i64x2.lt_s(v128.and(i64x2.add(hm, v128.load(tab, 288)), mant), v128.load(tab, 304)),
  );
  const s = f64x2.div(f, f64x2.add(v128.load(tab, 320), f));
  const dk = i64ToF64(k);
  const z = f64x2.mul(s, s);
  const w = f64x2.mul(z, z);
  const t1 = f64x2.mul(w, f64x2.add(Lg2, f64x2.mul(w, f64x2.add(Lg4, f64x2.mul(w, Lg6)))));
  const t2 = f64x2.mul(
    z,
    f64x2.add(Lg1, f64x2.mul(w, f64x2.add(Lg3, f64x2.mul(w, f64x2.add(Lg5, f64x2.mul(w, Lg7)))))),
  );
  const R = f64x2.add(t2, t1);
  const iPos = i64x2.gt_s(
    v128.or(i64x2.sub(hm, v128.load(tab, 336)), i64x2.sub(v128.load(tab, 352), hm)),
    v128.load(tab, 368),
  );
  const kZero = i64x2.eq(k, v128.load(tab, 368));
  const hfsq = f64x2.mul(f64x2.mul(v128.load(tab, 384), f), f);
  const sh = f64x2.mul(s, f64x2.add(hfsq, R));
  const sf = f64x2.mul(s, f64x2.sub(f, R));
  const dkHi = f64x2.mul(dk, ln2_hi);
  const dkLo = f64x2.mul(dk, ln2_lo);
  const a = f64x2.sub(f, f64x2.sub(hfsq, sh));
  const b = f64x2.sub(dkHi, f64x2.sub(f64x2.sub(hfsq, f64x2.add(sh, dkLo)), f));
  const c = f64x2.sub(f, sf);
  const d = f64x2.sub(dkHi, f64x2.sub(f64x2.sub(sf, dkLo), f));
  let out = v128.bitselect(v128.bitselect(a, b, kZero), v128.bitselect(c, d, kZero), iPos);
  if (v128.any_true(rare)) {
    if (i64x2.extract_lane(rare, 0) != 0) out = f64x2.replace_lane(out, 0, fdlibmLog(f64x2.extract_lane(x, 0)));
    if (i64x2.extract_lane(rare, 1) != 0) out = f64x2.replace_lane(out, 1, fdlibmLog(f64x2.extract_lane(x, 1)));
  }
  return out;
}

/** The sines of the last sinCosLanes. */
export let sinLanes: v128 = i64x2.splat(0);
/** The cosines of the last sinCosLanes. */
export let cosLanes: v128 = i64x2.splat(0);

/** sinCos of each lane: (sinLanes, cosLanes). */
@inline
export function sinCosLanes(x: v128, tab: usize): void {
  const invpio2 = v128.load(tab, 400),
    pio2_1 = v128.load(tab, 416),
    pio2_1t = v128.load(tab, 432),
    pio2 = v128.load(tab, 448),
    S1 = v128.load(tab, 464),
    S2 = v128.load(tab, 480),
    S3 = v128.load(tab, 496),
    S4 = v128.load(tab, 512),
    S5 = v128.load(tab, 528),
    S6 = v128.load(tab, 544),
    C1 = v128.load(tab, 560),
    C2 = v128.load(tab, 576),
    C3 = v128.load(tab, 592),
    C4 = v128.load(tab, 608),
    C5 = v128.load(tab, 624),
    C6 = v128.load(tab, 640);
  const one = v128.load(tab, 240);
  const half = v128.load(tab, 384);
  const low31 = v128.load(tab, 656);
  const hx = hiWords(x);
  const ix = v128.and(hx, low31);
  const small = i64x2.le_s(ix, v128.load(tab, 672));
  const nOne = i64x2.lt_s(ix, v128.load(tab, 688));
  // n = (int)(|x| 2 / pi + 1/2), 1 below 3 pi / 4, 0 at or below pi / 4 (as an i32 in each i64 lane's low half)
  const nTrunc = i32x4.trunc_sat_f64x2_s_zero(f64x2.add(f64x2.mul(x, invpio2), half));
  let n = i64x2.extend_low_i32x4_s(nTrunc);
  n = v128.bitselect(v128.load(tab, 704), n, nOne);
  n = v128.andnot(n, small);
  const fn = i64ToF64(n);
  const r = f64x2.sub(x, f64x2.mul(fn, pio2_1));
  const w = f64x2.mul(fn, pio2_1t);
  let y0 = f64x2.sub(r, w);
  let y1 = f64x2.sub(f64x2.sub(r, y0), w);
  y0 = v128.bitselect(x, y0, small);
  y1 = v128.andnot(y1, small);
  const ky = v128.and(hiWords(y0), low31);
  const rare = v128.or(
    v128.or(
      v128.or(i64x2.gt_s(hx, v128.load(tab, 656)), i64x2.gt_s(ix, v128.load(tab, 720))),
      i64x2.ge_s(n, v128.load(tab, 736)),
    ),
    v128.or(
      v128.andnot(i64x2.eq(v128.and(hiWords(f64x2.mul(fn, pio2)), low31), ix), small),
      i64x2.lt_s(ky, v128.load(tab, 752)),
    ),
  );
  const z = f64x2.mul(y0, y0);
  const v = f64x2.mul(z, y0);
  // S2 + z (S3 + z (S4 + z (S5 + z S6)))
  let rs = f64x2.add(S5, f64x2.mul(z, S6));
  rs = f64x2.add(S4, f64x2.mul(z, rs));
  rs = f64x2.add(S3, f64x2.mul(z, rs));
  rs = f64x2.add(S2, f64x2.mul(z, rs));
  const sin0 = f64x2.add(y0, f64x2.mul(v, f64x2.add(S1, f64x2.mul(z, rs))));
  const sin1 = f64x2.sub(
    y0,
    f64x2.sub(f64x2.sub(f64x2.mul(z, f64x2.sub(f64x2.mul(half, y1), f64x2.mul(v, rs))), y1), f64x2.mul(v, S1)),
  );
  const sv = v128.bitselect(sin0, sin1, small);
  // z (C1 + z (C2 + z (C3 + z (C4 + z (C5 + z C6)))))
  let rc = f64x2.add(C5, f64x2.mul(z, C6));
  rc = f64x2.add(C4, f64x2.mul(z, rc));
  rc = f64x2.add(C3, f64x2.mul(z, rc));
  rc = f64x2.add(C2, f64x2.mul(z, rc));
  rc = f64x2.mul(z, f64x2.add(C1, f64x2.mul(z, rc)));
  const tail = f64x2.sub(f64x2.mul(z, rc), f64x2.mul(y0, y1));
  const cosA = f64x2.sub(one, f64x2.sub(f64x2.mul(half, z), tail));
  const qx = v128.bitselect(
    v128.load(tab, 768),
    i64x2.shl(i64x2.sub(ky, v128.load(tab, 784)), 32),
    i64x2.gt_s(ky, v128.load(tab, 800)),
  );
  const cosB = f64x2.sub(f64x2.sub(one, qx), f64x2.sub(f64x2.sub(f64x2.mul(half, z), qx), tail));
  const cv = v128.bitselect(cosA, cosB, i64x2.lt_s(ky, v128.load(tab, 816)));
  // quadrant n & 3: sin = s, c, -s, -c; cos = c, -s, -c, s
  const swap = i64x2.ne(v128.and(n, v128.load(tab, 704)), v128.load(tab, 368));
  const sinNeg = v128.and(i64x2.shl(n, 62), SIGN);
  const cosNeg = v128.and(i64x2.shl(i64x2.add(n, v128.load(tab, 704)), 62), SIGN);
  let so = v128.xor(v128.bitselect(cv, sv, swap), sinNeg);
  let co = v128.xor(v128.bitselect(sv, cv, swap), cosNeg);
  if (v128.any_true(rare)) {
    if (i64x2.extract_lane(rare, 0) != 0) {
      sinCos(f64x2.extract_lane(x, 0));
      so = f64x2.replace_lane(so, 0, sinOut);
      co = f64x2.replace_lane(co, 0, cosOut);
    }
    if (i64x2.extract_lane(rare, 1) != 0) {
      sinCos(f64x2.extract_lane(x, 1));
      so = f64x2.replace_lane(so, 1, sinOut);
      co = f64x2.replace_lane(co, 1, cosOut);
    }
  }
  sinLanes = so;
  cosLanes = co;
}
