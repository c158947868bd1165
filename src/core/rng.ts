/**
 * Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the
 * counter-based generator CUDA's cuRAND also offers. A 64-bit key (the seed) and a 128-bit counter
 * map to four 32-bit words with no state between calls, so a GPU thread can produce exactly the
 * words that the CPU produces for the same (seed, stream, position): a GPU run can be checked
 * against a CPU run bit for bit.
 *
 * Layout of the counter: c0 = block index (low 32 bits), c1 = block index (high 32 bits),
 * c2 = stream (low), c3 = stream (high). A stream is read four words per block, in order.
 * Derived values (the same formulas are used in the kernels):
 *   uniform64 = ((w0 >>> 5) * 2^26 + (w1 >>> 6) + 0.5) * 2^-53     in (0, 1), from two words
 *   uniform32 = ((w >>> 8) + 0.5) * 2^-24                           in (0, 1), from one word
 *   normal    = Box-Muller on two uniforms: sqrt(-2 ln u1) * (cos, sin)(2 pi u2)
 */
import { InvalidArgumentError } from './errors.js';

const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;

/** High 32 bits of the 64-bit product of two uint32 values, exactly (no BigInt). */
function mulhi32(a: number, b: number): number {
  const al = a & 0xffff,
    ah = a >>> 16,
    bl = b & 0xffff,
    bh = b >>> 16;
  const ll = al * bl,
    lh = al * bh,
    hl = ah * bl,
    hh = ah * bh;
  const mid = (ll >>> 16) + (lh & 0xffff) + (hl & 0xffff);
  return (hh + (lh >>> 16) + (hl >>> 16) + (mid >>> 16)) >>> 0;
}

/**
 * One Philox4x32-10 block: key (key0, key1) and counter (c0..c3), each a uint32, map to four
 * words written into `out` (length >= 4); stateless, so CPU and GPU agree word for word.
 */
export function philox4x32(
  key0: number,
  key1: number,
  c0: number,
  c1: number,
  c2: number,
  c3: number,
  out: Uint32Array,
): void {
  let k0 = key0 >>> 0,
    k1 = key1 >>> 0;
  let x0 = c0 >>> 0,
    x1 = c1 >>> 0,
    x2 = c2 >>> 0,
    x3 = c3 >>> 0;
  for (let r = 0; r < 10; r++) {
    const hi0 = mulhi32(M0, x0),
      lo0 = Math.imul(M0, x0) >>> 0;
    const hi1 = mulhi32(M1, x2),
      lo1 = Math.imul(M1, x2) >>> 0;
    x0 = (hi1 ^ x1 ^ k0) >>> 0;
    x1 = lo1;
    x2 = (hi0 ^ x3 ^ k1) >>> 0;
    x3 = lo0;
    k0 = (k0 + W0) >>> 0;
    k1 = (k1 + W1) >>> 0;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
}

const TWO_POW_32 = 4294967296;

function splitU64(v: number | bigint, what: string): [number, number] {
  if (typeof v === 'bigint') {
    if (v < 0n || v >= 1n << 64n) throw new InvalidArgumentError(`${what} must be in [0, 2^64), got ${v}`);
    return [Number(v & 0xffffffffn), Number(v >> 32n)];
  }
  if (!Number.isSafeInteger(v) || v < 0)
    throw new InvalidArgumentError(`${what} must be a non-negative safe integer, got ${v}`);
  return [v % TWO_POW_32, Math.floor(v / TWO_POW_32)];
}

/**
 * The key and the stream's counter words of (seed, stream) as Philox reads them: [key0, key1,
 * stream low, stream high], each a uint32 (for a kernel that computes the stream's blocks itself).
 */
export function philoxWords(seed: number | bigint, stream: number | bigint): [number, number, number, number] {
  return [...splitU64(seed, 'seed'), ...splitU64(stream, 'stream')];
}

/** Sequential reader of one Philox stream: (seed, stream) fixes the sequence. */
export class Philox {
  private readonly k0: number;
  private readonly k1: number;
  private readonly s0: number;
  private readonly s1: number;
  private block = 0;
  private readonly buf = new Uint32Array(4);
  private used = 4;
  private spareNormal: number | undefined;

  /** `seed` is the 64-bit key, `stream` the high counter words: each (seed, stream) pair is its own sequence. */
  constructor(seed: number | bigint = 0, stream: number | bigint = 0) {
    [this.k0, this.k1] = splitU64(seed, 'seed');
    [this.s0, this.s1] = splitU64(stream, 'stream');
  }

  /** Start reading at word position `word` of the stream (a multiple of 4 keeps blocks aligned). */
  seek(word: number): this {
    this.block = Math.floor(word / 4);
    this.refill();
    this.used = word % 4;
    this.spareNormal = undefined;
    return this;
  }

  private refill(): void {
    philox4x32(
      this.k0,
      this.k1,
      this.block % TWO_POW_32,
      Math.floor(this.block / TWO_POW_32),
      this.s0,
      this.s1,
      this.buf,
    );
    this.block++;
    this.used = 0;
  }

  /** The next 32-bit word of the stream, as an integer in [0, 2^32). */
  nextUint32(): number {
    if (this.used === 4) this.refill();
    return this.buf[this.used++]!;
  }

  /** Uniform in (0, 1) with 53 random bits. */
  uniform(): number {
    const a = this.nextUint32() >>> 5,
      b = this.nextUint32() >>> 6;
    return (a * 67108864 + b + 0.5) * 1.1102230246251565e-16;
  }

  /** Uniform in (0, 1) with 24 random bits (the float32 formula). */
  uniform32(): number {
    return ((this.nextUint32() >>> 8) + 0.5) * 2 ** -24;
  }

  /** Standard normal N(0, 1) by Box-Muller; deviates come in pairs (cos, then sin). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const s = this.spareNormal;
      this.spareNormal = undefined;
      return s;
    }
    const u1 = this.uniform(),
      u2 = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    const t = 2 * Math.PI * u2;
    this.spareNormal = r * Math.sin(t);
    return r * Math.cos(t);
  }

  /** Integer in [0, n) (n <= 2^32), by multiply-shift (bias below 2^-32 * n). */
  int(n: number): number {
    return Math.floor((this.nextUint32() / TWO_POW_32) * n);
  }

  /** Fills `out` (any length) with N(0, scale^2) deviates in stream order and returns it. */
  fillNormal<A extends Float32Array | Float64Array>(out: A, scale = 1): A {
    for (let i = 0; i < out.length; i++) out[i] = this.normal() * scale;
    return out;
  }
}
