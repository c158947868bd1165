/**
 * AssemblyScript helpers the kernels share: the logarithm, sine and cosine of fdlibm (Sun's
 * freely distributable libm, the C library V8 ports as base::ieee754 and runs for Math.log,
 * Math.sin and Math.cos in Node 20), operation for operation in float64, so each result equals
 * JavaScript's bit for bit. WebAssembly has no fused multiply-add and rounds every operation as
 * IEEE 754 does, as V8's compiled C does on x64. The host checks a sample against Math at startup
 * all the same (a build of V8 on another libm, or a C compiler that fuses products, would differ),
 * and runs its TypeScript where they disagree.
 *
 * Covered: log of any double; sin and cos of |x| below 2^19 pi / 2 (fdlibm's medium range, the
 * only one a Box-Muller angle in (0, 2 pi) reaches), and NaN outside it (the caller stays inside).
 */

/** The high 32 bits of a double. */
@inline
function hiWord(x: f64): i32 {
  return <i32>(reinterpret<i64>(x) >> 32);
}

/** x with its high 32 bits replaced by h. */
@inline
function withHiWord(x: f64, h: i32): f64 {
  return reinterpret<f64>((reinterpret<i64>(x) & 0xffffffff) | ((<i64>h) << 32));
}

/** fdlibm's e_log.c: the natural logarithm. */
export function fdlibmLog(x: f64): f64 {
  const ln2_hi = 6.93147180369123816490e-1,
    ln2_lo = 1.90821492927058770002e-10,
    two54 = 1.80143985094819840000e16,
    Lg1 = 6.666666666666735130e-1,
    Lg2 = 3.999999999940941908e-1,
    Lg3 = 2.857142874366239149e-1,
    Lg4 = 2.222219843214978396e-1,
    Lg5 = 1.818357216161805012e-1,
    Lg6 = 1.531383769920937332e-1,
    Lg7 = 1.479819860511658591e-1;
  const bits = reinterpret<i64>(x);
  let hx = <i32>(bits >> 32);
  const lx = <i32>bits;
  let k: i32 = 0;
  if (hx < 0x00100000) {
    if (((hx & 0x7fffffff) | lx) == 0) return -Infinity;
    if (hx < 0) return NaN;
    k -= 54;
    x *= two54;
    hx = hiWord(x);
  }
  if (hx >= 0x7ff00000) return x + x;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  let i = (hx + 0x95f64) & 0x100000;
  x = withHiWord(x, hx | (i ^ 0x3ff00000));
  k += i >> 20;
  const f = x - 1.0;
  if ((0x000fffff & (2 + hx)) < 3) {
    if (f == 0) {
      if (k == 0) return 0;
      const dk = <f64>k;
      return dk * ln2_hi + dk * ln2_lo;
    }
    const R = f * f * (0.5 - 0.33333333333333333 * f);
    if (k == 0) return f - R;
    const dk = <f64>k;
    return dk * ln2_hi - (R - dk * ln2_lo - f);
  }
  const s = f / (2.0 + f);
  const dk = <f64>k;
  const z = s * s;
  i = hx - 0x6147a;
  const w = z * z;
  const j = 0x6b851 - hx;
  const t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  const t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  i |= j;
  const R = t2 + t1;
  if (i > 0) {
    const hfsq = 0.5 * f * f;
    if (k == 0) return f - (hfsq - s * (hfsq + R));
    return dk * ln2_hi - (hfsq - (s * (hfsq + R) + dk * ln2_lo) - f);
  }
  if (k == 0) return f - s * (f - R);
  return dk * ln2_hi - (s * (f - R) - dk * ln2_lo - f);
}

/** fdlibm's k_sin.c: sin(x + y) for |x| <= pi / 4, y the tail of x (iy 0: y is 0). */
@inline
function kernelSin(x: f64, y: f64, iy: i32): f64 {
  const S1 = -1.66666666666666324348e-1,
    S2 = 8.33333333332248946124e-3,
    S3 = -1.98412698298579493134e-4,
    S4 = 2.75573137070700676789e-6,
    S5 = -2.50507602534068634195e-8,
    S6 = 1.58969099521155010221e-10;
  if ((hiWord(x) & 0x7fffffff) < 0x3e400000) return x;
  const z = x * x;
  const v = z * x;
  const r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  if (iy == 0) return x + v * (S1 + z * r);
  return x - (z * (0.5 * y - v * r) - y - v * S1);
}

/** fdlibm's k_cos.c: cos(x + y) for |x| <= pi / 4, y the tail of x. */
@inline
function kernelCos(x: f64, y: f64): f64 {
  const C1 = 4.16666666666666019037e-2,
    C2 = -1.38888888888741095749e-3,
    C3 = 2.48015872894767294178e-5,
    C4 = -2.75573143513906633035e-7,
    C5 = 2.08757232129817482790e-9,
    C6 = -1.13596475577881948265e-11;
  const ix = hiWord(x) & 0x7fffffff;
  if (ix < 0x3e400000) return 1.0;
  const z = x * x;
  const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  if (ix < 0x3fd33333) return 1.0 - (0.5 * z - (z * r - x * y));
  const qx = ix > 0x3fe90000 ? 0.28125 : reinterpret<f64>((<i64>(ix - 0x00200000)) << 32);
  const hz = 0.5 * z - qx;
  const a = 1.0 - qx;
  return a - (hz - (z * r - x * y));
}

/** The reduced argument of the last remPio2: y0 + y1 = x - n pi / 2, |y0| <= pi / 4. */
let red0: f64 = 0;
let red1: f64 = 0;

/**
 * fdlibm's e_rem_pio2.c for pi / 4 < |x| <= 2^19 pi / 2: returns n and leaves x - n pi / 2 in
 * (red0, red1). NaN's n (0) for a larger |x|, with (NaN, NaN).
 */
function remPio2(x: f64): i32 {
  const invpio2 = 6.36619772367581382433e-1,
    pio2_1 = 1.57079632673412561417,
    pio2_1t = 6.07710050650619224932e-11,
    pio2_2 = 6.07710050630396597660e-11,
    pio2_2t = 2.02226624879595063154e-21,
    pio2_3 = 2.02226624871116645580e-21,
    pio2_3t = 8.47842766036889956997e-32;
  const hx = hiWord(x);
  const ix = hx & 0x7fffffff;
  if (ix < 0x4002d97c) {
    // |x| < 3 pi / 4: n = +-1
    if (hx > 0) {
      let z = x - pio2_1;
      if (ix != 0x3ff921fb) {
        red0 = z - pio2_1t;
        red1 = z - red0 - pio2_1t;
      } else {
        z -= pio2_2;
        red0 = z - pio2_2t;
        red1 = z - red0 - pio2_2t;
      }
      return 1;
    }
    let z = x + pio2_1;
    if (ix != 0x3ff921fb) {
      red0 = z + pio2_1t;
      red1 = z - red0 + pio2_1t;
    } else {
      z += pio2_2;
      red0 = z + pio2_2t;
      red1 = z - red0 + pio2_2t;
    }
    return -1;
  }
  if (ix > 0x413921fb) {
    red0 = NaN;
    red1 = NaN;
    return 0;
  }
  let t = Math.abs(x);
  const n = <i32>(t * invpio2 + 0.5);
  const fn = <f64>n;
  let r = t - fn * pio2_1;
  let w = fn * pio2_1t;
  // npio2_hw[n - 1]: the high word of n pi / 2, for n < 32
  if (n < 32 && ix != hiWord(<f64>n * 1.5707963267948966)) {
    red0 = r - w;
  } else {
    const j = ix >> 20;
    red0 = r - w;
    let i = j - ((hiWord(red0) >> 20) & 0x7ff);
    if (i > 16) {
      t = r;
      w = fn * pio2_2;
      r = t - w;
      w = fn * pio2_2t - (t - r - w);
      red0 = r - w;
      i = j - ((hiWord(red0) >> 20) & 0x7ff);
      if (i > 49) {
        t = r;
        w = fn * pio2_3;
        r = t - w;
        w = fn * pio2_3t - (t - r - w);
        red0 = r - w;
      }
    }
  }
  red1 = r - red0 - w;
  if (hx < 0) {
    red0 = -red0;
    red1 = -red1;
    return -n;
  }
  return n;
}

/** The sine of the last sinCos. */
export let sinOut: f64 = 0;
/** The cosine of the last sinCos. */
export let cosOut: f64 = 0;

/** fdlibm's s_sin.c and s_cos.c of the same x, one reduction for both: (sinOut, cosOut). */
export function sinCos(x: f64): void {
  if ((hiWord(x) & 0x7fffffff) <= 0x3fe921fb) {
    sinOut = kernelSin(x, 0, 0);
    cosOut = kernelCos(x, 0);
    return;
  }
  const n = remPio2(x);
  const s = kernelSin(red0, red1, 1);
  const c = kernelCos(red0, red1);
  switch (n & 3) {
    case 0:
      sinOut = s;
      cosOut = c;
      break;
    case 1:
      sinOut = c;
      cosOut = -s;
      break;
    case 2:
      sinOut = -s;
      cosOut = -c;
      break;
    default:
      sinOut = -c;
      cosOut = s;
  }
}
