/**
 * AssemblyScript helpers the kernels share: Philox4x32-10 (rng.ts's philox4x32) on four
 * consecutive blocks of one stream at once, a block a 32-bit lane. Integer arithmetic, so the
 * words are rng.ts's exactly: the 32 x 32 -> 64-bit products by i64x2.extmul (their low halves by
 * i32x4.mul), the high halves gathered by a shuffle.
 */

const M0: u32 = 0xd2511f53;
const M1: u32 = 0xcd9e8d57;
const W0: u32 = 0x9e3779b9;
const W1: u32 = 0xbb67ae85;

/** The high 32 bits of each lane's 64-bit product a b (unsigned). */
@inline
function mulhi(a: v128, b: v128): v128 {
  const lo = i64x2.extmul_low_i32x4_u(a, b);
  const hi = i64x2.extmul_high_i32x4_u(a, b);
  return v128.shuffle<i32>(lo, hi, 1, 3, 5, 7);
}

/**
 * Blocks block .. block + 3 of stream (s0, s1) under key (k0, k1) (counter c0 = block + lane,
 * c1 = 0: the caller keeps block + 3 below 2^32), stored as four v128 at out: word w of every
 * block at out + 16 w, lane b block + b's (64 bytes).
 */
@inline
export function philox4(k0: u32, k1: u32, block: u32, s0: u32, s1: u32, out: usize): void {
  let x0 = i32x4.add(i32x4.splat(block), i32x4(0, 1, 2, 3));
  let x1 = i32x4.splat(0);
  let x2 = i32x4.splat(s0);
  let x3 = i32x4.splat(s1);
  const m0 = i32x4.splat(M0);
  const m1 = i32x4.splat(M1);
  let a = k0,
    b = k1;
  for (let r = 0; r < 10; r++) {
    const hi0 = mulhi(m0, x0);
    const lo0 = i32x4.mul(m0, x0);
    const hi1 = mulhi(m1, x2);
    const lo1 = i32x4.mul(m1, x2);
    x0 = v128.xor(v128.xor(hi1, x1), i32x4.splat(a));
    x1 = lo1;
    x2 = v128.xor(v128.xor(hi0, x3), i32x4.splat(b));
    x3 = lo0;
    a += W0;
    b += W1;
  }
  v128.store(out, x0);
  v128.store(out, x1, 16);
  v128.store(out, x2, 32);
  v128.store(out, x3, 48);
}

/**
 * philox4 of blocks block .. block + 3 and block + 4 .. block + 7 in one pass of the rounds (two
 * independent chains of products in flight), stored as two philox4 outputs at out and out + 64.
 */
@inline
export function philox8(k0: u32, k1: u32, block: u32, s0: u32, s1: u32, out: usize): void {
  let a0 = i32x4.add(i32x4.splat(block), i32x4(0, 1, 2, 3));
  let b0 = i32x4.add(i32x4.splat(block), i32x4(4, 5, 6, 7));
  let a1 = i32x4.splat(0);
  let b1 = a1;
  let a2 = i32x4.splat(s0);
  let b2 = a2;
  let a3 = i32x4.splat(s1);
  let b3 = a3;
  const m0 = i32x4.splat(M0);
  const m1 = i32x4.splat(M1);
  let ka = k0,
    kb = k1;
  for (let r = 0; r < 10; r++) {
    const ka4 = i32x4.splat(ka);
    const kb4 = i32x4.splat(kb);
    const ah0 = mulhi(m0, a0);
    const bh0 = mulhi(m0, b0);
    const al0 = i32x4.mul(m0, a0);
    const bl0 = i32x4.mul(m0, b0);
    const ah1 = mulhi(m1, a2);
    const bh1 = mulhi(m1, b2);
    const al1 = i32x4.mul(m1, a2);
    const bl1 = i32x4.mul(m1, b2);
    a0 = v128.xor(v128.xor(ah1, a1), ka4);
    b0 = v128.xor(v128.xor(bh1, b1), ka4);
    a1 = al1;
    b1 = bl1;
    a2 = v128.xor(v128.xor(ah0, a3), kb4);
    b2 = v128.xor(v128.xor(bh0, b3), kb4);
    a3 = al0;
    b3 = bl0;
    ka += W0;
    kb += W1;
  }
  v128.store(out, a0);
  v128.store(out, a1, 16);
  v128.store(out, a2, 32);
  v128.store(out, a3, 48);
  v128.store(out, b0, 64);
  v128.store(out, b1, 80);
  v128.store(out, b2, 96);
  v128.store(out, b3, 112);
}
