/**
 * The input checks and scale of a lane kernel's run, in f64x2 lanes over the caller's H and y
 * copied into the kernel's memory as they are (imported and exported by the kernels that take
 * them: sphere-kernel.as.ts, ssfe-lanes.as.ts). detect()'s scalar passes (checkFinite,
 * channelShift, firstTooLarge, scaleInto) cost it more than the search of an easy vector; here
 * they are one read of the run, with the same results: each channel's power of two, the same
 * products where the kernel wants its inputs scaled, and a refusal wherever detect()'s checks
 * would throw (detect() then runs them to name the first problem).
 */

/** 2^e for a normal exponent e, from its bits. */
@inline
function pow2(e: i32): f64 {
  return reinterpret<f64>((<u64>(e + 1023)) << 52);
}

/** floor(log2 x) of a finite x > 0, subnormals included (detect()'s exponentOf). */
@inline
function exponentOf(x: f64): i32 {
  if (x < 2.2250738585072014e-308) return (<i32>((reinterpret<u64>(x * 18446744073709551616.0) >> 52) & 0x7ff)) - 1023 - 64;
  return (<i32>((reinterpret<u64>(x) >> 52) & 0x7ff)) - 1023;
}

/** The len floats at p times 2^s (detect()'s timesPow2 where s is beyond +-1000: the same steps). */
function scaleFar(p: usize, len: i32, s: i32): void {
  for (let i = 0; i < len; i++) {
    const at = p + ((<usize>i) << 3);
    let x = load<f64>(at),
      k = s;
    while (k > 1000) {
      x *= pow2(1000);
      k -= 1000;
    }
    while (k < -1000) {
      x *= pow2(-1000);
      k += 1000;
    }
    // 2^k for k in [-1000, 1000]: normal
    store<f64>(at, x * pow2(k));
  }
}

/** The len floats at p (len even) times f, two a step. */
@inline
function scaleNear(p: usize, len: i32, f: f64): void {
  const fv = f64x2.splat(f);
  for (let i = 0; i < len; i += 2) {
    const at = p + ((<usize>i) << 3);
    v128.store(at, f64x2.mul(v128.load(at), fv));
  }
}

/**
 * The run's `channels` channels at H (hLen floats each, even) and `vectors` vectors at y (yLen
 * floats each, even), vector v of run channel chan[v]: writes each channel's power of two
 * (-floor(log2) of its largest |entry|, 0 for a zero channel) to shift, then checks that every
 * entry is finite and no vector has an entry at or over 2^(501 - shift) (detect()'s
 * firstTooLarge), scaling channels and vectors in place by 2^shift where `scaled`. 1 where all is
 * well, 0 (the inputs then partly scaled) where a check fails.
 */
export function scanRun(
  H: usize,
  channels: i32,
  hLen: i32,
  y: usize,
  chan: usize,
  vectors: i32,
  yLen: i32,
  shift: usize,
  scaled: i32,
): i32 {
  for (let c = 0; c < channels; c++) {
    const base = H + (<usize>(c * hLen) << 3);
    // the max of |entries| (pmax: one instruction, where max's NaN rule takes several), infinity
    // where one is infinite; a NaN flagged beside it (x != x)
    let m = f64x2.splat(0),
      nan = i64x2.splat(0);
    for (let i = 0; i < hLen; i += 2) {
      const x = v128.load(base + ((<usize>i) << 3));
      m = f64x2.pmax(m, f64x2.abs(x));
      nan = v128.or(nan, f64x2.ne(x, x));
    }
    const top = Math.max(f64x2.extract_lane(m, 0), f64x2.extract_lane(m, 1));
    if (v128.any_true(nan) || !(top < Infinity)) return 0;
    const s = top > 0 ? -exponentOf(top) : 0;
    store<i32>(shift + ((<usize>c) << 2), s);
    if (scaled) {
      if (s >= -1000 && s <= 1000) scaleNear(base, hLen, pow2(s));
      else scaleFar(base, hLen, s);
    }
  }
  for (let v = 0; v < vectors; v++) {
    const s = load<i32>(shift + ((<usize>load<i32>(chan + ((<usize>v) << 2))) << 2)),
      e = 501 - s;
    const bound = f64x2.splat(e <= 1023 ? pow2(e) : Infinity),
      base = y + (<usize>(v * yLen) << 3);
    // every |entry| < bound: false for a NaN, an infinity, or one too large
    let ok = i64x2.splat(-1);
    for (let i = 0; i < yLen; i += 2) ok = v128.and(ok, f64x2.lt(f64x2.abs(v128.load(base + ((<usize>i) << 3))), bound));
    if (!i64x2.all_true(ok)) return 0;
    if (scaled) {
      if (s >= -1000 && s <= 1000) scaleNear(base, yLen, pow2(s));
      else scaleFar(base, yLen, s);
    }
  }
  return 1;
}
