/**
 * AssemblyScript source of the link generator's kernel (built to link-lanes.wasm by
 * scripts/build-wasm.mjs; not compiled by tsc): link.ts's generateLinkChunk for the flat link,
 * a piece of a unit at a time, with the TypeScript's arithmetic operation for operation, so every
 * symbol index, channel entry and received sample equals it bit for bit:
 *   - Philox4x32-10 words eight blocks a pass in 32-bit lanes (philox.lib.as.ts; symbols four);
 *   - the uniforms (rng.ts's uniform, ((w0 >>> 5) 2^26 + (w1 >>> 6) + 0.5) 2^-53) in f64x2 lanes;
 *   - Box-Muller as Philox.normal: sqrt(-2 log u1) (cos, sin)(2 pi u2), log, sin and cos those of
 *     fdlibm as V8 runs them, two at a time in f64x2 lanes (fdlibm-lanes.lib.as.ts, its rare cases
 *     by fdlibm.lib.as.ts), a normal pair a Philox block;
 *   - symbols as randomSymbols: index = word >>> (32 - log2 q) (= floor(word / 2^32 q) exactly);
 *   - y = H s + w as transmit and addNoise: each complex product and sum in f64x2 lanes (re, im),
 *     in the reference's order, then the noise sample added.
 * Every pointer is a byte offset into the imported memory, laid out by the host (link-wasm.ts).
 */
import { cosOut, fdlibmLog, sinCos, sinOut } from '../../core/wasm/fdlibm.lib.as';
import { cosLanes, logLanes, sinCosLanes, sinLanes, writeLaneConstants } from '../../core/wasm/fdlibm-lanes.lib.as';
import { philox4, philox8 } from '../../core/wasm/philox.lib.as';

/** The four uniforms of word pairs (w0, w1) of four blocks: lanes 0, 1 into lo, 2, 3 into hi (stored at out, out + 16). */
@inline
function uniforms(w0: v128, w1: v128, out: usize): void {
  const a = i32x4.shr_u(w0, 5);
  const b = i32x4.shr_u(w1, 6);
  const scale = f64x2.splat(67108864);
  const half = f64x2.splat(0.5);
  const ulp = f64x2.splat(1.1102230246251565e-16);
  const lo = f64x2.mul(
    f64x2.add(f64x2.add(f64x2.mul(f64x2.convert_low_i32x4_u(a), scale), f64x2.convert_low_i32x4_u(b)), half),
    ulp,
  );
  const a2 = v128.shuffle<i32>(a, a, 2, 3, 0, 1);
  const b2 = v128.shuffle<i32>(b, b, 2, 3, 0, 1);
  const hi = f64x2.mul(
    f64x2.add(f64x2.add(f64x2.mul(f64x2.convert_low_i32x4_u(a2), scale), f64x2.convert_low_i32x4_u(b2)), half),
    ulp,
  );
  v128.store(out, lo);
  v128.store(out, hi, 16);
}

/**
 * `pairs` normal pairs of blocks block .. block + pairs - 1 of stream (s0, s1), each times `scale`
 * (Philox.normal() * scale, cos's then sin's): f64[2 pairs] at out. scratch: 512 bytes and the
 * lanes' constants (LANE_CONSTANT_BYTES).
 * The caller keeps block + pairs + 7 below 2^32.
 */
export function normals(
  k0: u32,
  k1: u32,
  s0: u32,
  s1: u32,
  block: u32,
  pairs: i32,
  scale: f64,
  out: usize,
  scratch: usize,
): void {
  // scratch: Philox words of 8 blocks (128 bytes), u1 of 8 (64), u2 of 8 (64), r of 8 (64)
  const u1 = scratch + 128;
  const u2 = scratch + 192;
  const rr = scratch + 256;
  const tab = scratch + 512;
  writeLaneConstants(tab);
  const m2 = f64x2.splat(-2);
  const twoPi = f64x2.splat(2 * Math.PI);
  const sc = f64x2.splat(scale);
  for (let p = 0; p < pairs; p += 8) {
    philox8(k0, k1, block + <u32>p, s0, s1, scratch);
    uniforms(v128.load(scratch), v128.load(scratch, 16), u1);
    uniforms(v128.load(scratch, 64), v128.load(scratch, 80), u1 + 32);
    uniforms(v128.load(scratch, 32), v128.load(scratch, 48), u2);
    uniforms(v128.load(scratch, 96), v128.load(scratch, 112), u2 + 32);
    // the four lane pairs' logarithms, then their angles: independent chains side by side
    for (let q: usize = 0; q < 64; q += 16) v128.store(rr + q, f64x2.sqrt(f64x2.mul(m2, logLanes(v128.load(u1 + q), tab))));
    const m = pairs - p < 8 ? pairs - p : 8;
    const o = out + ((<usize>p) << 4);
    for (let l = 0; l < m; l += 2) {
      const q = (<usize>l) << 3;
      const r = v128.load(rr + q);
      sinCosLanes(f64x2.mul(twoPi, v128.load(u2 + q)), tab);
      const c = f64x2.mul(f64x2.mul(r, cosLanes), sc);
      const s = f64x2.mul(f64x2.mul(r, sinLanes), sc);
      // pairs (cos, sin) of the two lanes; the second only where it is one of the `pairs`
      v128.store(o + (q << 1), v128.shuffle<f64>(c, s, 0, 2));
      if (l + 1 < m) v128.store(o + (q << 1), v128.shuffle<f64>(c, s, 1, 3), 16);
    }
  }
}

/**
 * Symbol indices and symbols of words word .. word + count - 1 of stream (s0, s1): index = word
 * >>> shift into i32[count] at idx, the constellation's point (f64 pairs at points) into
 * f64[2 count] at sym. scratch: 64 bytes. The caller keeps (word + count) / 4 + 4 below 2^32.
 */
export function symbols(
  k0: u32,
  k1: u32,
  s0: u32,
  s1: u32,
  word: u32,
  count: i32,
  shift: u32,
  points: usize,
  idx: usize,
  sym: usize,
  scratch: usize,
): void {
  let block = word >> 2;
  let at = word & 3;
  philox4(k0, k1, block, s0, s1, scratch);
  let lane: u32 = 0;
  for (let i = 0; i < count; i++) {
    const w = load<u32>(scratch + ((<usize>at) << 4) + ((<usize>lane) << 2));
    const k = w >>> shift;
    store<i32>(idx + ((<usize>i) << 2), <i32>k);
    v128.store(sym + ((<usize>i) << 4), v128.load(points + ((<usize>k) << 4)));
    if (++at == 4) {
      at = 0;
      if (++lane == 4) {
        lane = 0;
        block += 4;
        philox4(k0, k1, block, s0, s1, scratch);
      }
    }
  }
}

/**
 * y = H s + noise for `vectors` vectors: H f64[vectors / vpc][2 nr nt] (column-major complex), s
 * f64[vectors][2 nt], noise and y f64[vectors][2 nr] (y may be noise: each sample is read before
 * it is written). Each entry as transmit: re += hr sr - hi si, im += hr si + hi sr from 0, in j
 * order; then + noise (addNoise).
 */
export function transmitNoise(
  H: usize,
  s: usize,
  nt: i32,
  nr: i32,
  vpc: i32,
  vectors: i32,
  noise: usize,
  y: usize,
): void {
  const flip = f64x2(-1, 1);
  const hStride = (<usize>(nr * nt)) << 4;
  const colStride = (<usize>nr) << 4;
  for (let v = 0; v < vectors; v++) {
    const hb = H + <usize>(v / vpc) * hStride;
    const sv = s + ((<usize>(v * nt)) << 4);
    const yv = (<usize>(v * nr)) << 4;
    for (let i = 0; i < nr; i++) {
      let acc = f64x2.splat(0);
      let hp = hb + ((<usize>i) << 4);
      for (let j = 0; j < nt; j++) {
        const h = v128.load(hp);
        const sp = sv + ((<usize>j) << 4);
        const sr = v128.load64_splat(sp);
        const si = v128.load64_splat(sp, 8);
        const hs = v128.shuffle<f64>(h, h, 1, 0);
        acc = f64x2.add(acc, f64x2.add(f64x2.mul(h, sr), f64x2.mul(f64x2.mul(hs, si), flip)));
        hp += colStride;
      }
      const o = yv + ((<usize>i) << 4);
      v128.store(y + o, f64x2.add(acc, v128.load(noise + o)));
    }
  }
}

/**
 * Math on a batch, for the host's startup check and the tests: op 0 log, 1 sin, 2 cos of f64[n] at
 * x into out, in lanes as normals() computes them; 3, 4, 5 the same by the scalar functions.
 */
export function math(op: i32, x: usize, n: i32, out: usize, scratch: usize): void {
  if (op < 3) {
    const tab = scratch + 512;
    writeLaneConstants(tab);
    for (let i = 0; i < n; i += 2) {
      const at = (<usize>i) << 3;
      // (an odd n's last value in both lanes)
      const v = i + 1 < n ? v128.load(x + at) : v128.load64_splat(x + at);
      let r: v128;
      if (op == 0) r = logLanes(v, tab);
      else {
        sinCosLanes(v, tab);
        r = op == 1 ? sinLanes : cosLanes;
      }
      if (i + 1 < n) v128.store(out + at, r);
      else store<f64>(out + at, f64x2.extract_lane(r, 0));
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const v = load<f64>(x + ((<usize>i) << 3));
    let r: f64;
    if (op == 3) r = fdlibmLog(v);
    else {
      sinCos(v);
      r = op == 4 ? sinOut : cosOut;
    }
    store<f64>(out + ((<usize>i) << 3), r);
  }
}
