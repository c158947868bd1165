// Philox4x32-10 on the device: the function of src/core/rng.ts (philox4x32), word for word, and the
// values rng.ts derives from its words, so that a kernel draws exactly the CPU's streams. Shared by
// every part's kernels that draw (the channel models, the simulated link).
//
// Counter layout (rng.ts): c0, c1 = block index (low, high), c2, c3 = stream (low, high); key =
// the 64-bit seed (low, high). A stream is read four words a block, in order.
//   uniform64(w0, w1) = ((w0 >> 5) 2^26 + (w1 >> 6) + 0.5) 2^-53       Philox.uniform()
//   int(w, n)         = floor(w n / 2^32)                               Philox.int(n), n <= 2^32
//   normal pair       = Box-Muller on the uniforms of one whole block:  two Philox.normal() calls
//                       u1 = uniform64(w0, w1), u2 = uniform64(w2, w3), r = sqrt(-2 ln u1),
//                       t = (2 pi) u2, first r cos t, then r sin t (the CPU's spare normal)
// Stream positions: Philox.normal() consumes a whole block per pair when the stream is read from
// a block boundary with normal() only, so the k-th pair of such a stream is block k.
//
// Integer words are bit for bit the CPU's. The float64 pair uses CUDA's log, sqrt and sincos:
// sqrt is correctly rounded on both sides; log, sin and cos may differ from V8's in the last ulp
// (both are faithful, neither is correctly rounded), which test/sim/gpu-link.test.ts measures. Every
// other operation is one IEEE operation rounded on its own (explicit _rn intrinsics: no
// contraction into FMAs), so it equals the CPU's for equal operands.

#pragma once

#if !defined(__CUDACC__)
// Host compilers (the CUDA emulator in the tests): the same operations in plain C++.
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
#endif

#define PHILOX_M0 0xd2511f53u
#define PHILOX_M1 0xcd9e8d57u
#define PHILOX_W0 0x9e3779b9u
#define PHILOX_W1 0xbb67ae85u

struct philox_words { unsigned w0, w1, w2, w3; };

/** One Philox4x32-10 block: key (k0, k1), counter (c0..c3) -> four words (rng.ts philox4x32). */
__device__ __forceinline__ philox_words philox4x32_10(unsigned k0, unsigned k1, unsigned c0, unsigned c1, unsigned c2, unsigned c3) {
  unsigned x0 = c0, x1 = c1, x2 = c2, x3 = c3;
#pragma unroll
  for (int r = 0; r < 10; r++) {
    const unsigned hi0 = __umulhi(PHILOX_M0, x0), lo0 = PHILOX_M0 * x0;
    const unsigned hi1 = __umulhi(PHILOX_M1, x2), lo1 = PHILOX_M1 * x2;
    x0 = hi1 ^ x1 ^ k0;
    x1 = lo1;
    x2 = hi0 ^ x3 ^ k1;
    x3 = lo0;
    k0 += PHILOX_W0;
    k1 += PHILOX_W1;
  }
  philox_words w = {x0, x1, x2, x3};
  return w;
}

/** Block `block` of stream `stream` under key `seed` (both 64-bit, as rng.ts splits them). */
__device__ __forceinline__ philox_words philox_block(unsigned long long seed, unsigned long long stream, unsigned long long block) {
  return philox4x32_10((unsigned)seed, (unsigned)(seed >> 32), (unsigned)block, (unsigned)(block >> 32), (unsigned)stream, (unsigned)(stream >> 32));
}

/** Word `word` of a stream (rng.ts: Philox.seek(word) then nextUint32()). */
__device__ __forceinline__ unsigned philox_word(unsigned long long seed, unsigned long long stream, unsigned long long word) {
  const philox_words w = philox_block(seed, stream, word >> 2);
  const unsigned k = (unsigned)(word & 3);
  return k == 0 ? w.w0 : k == 1 ? w.w1 : k == 2 ? w.w2 : w.w3;
}

/** Philox.uniform(): two words to a double in (0, 1) with 53 random bits (every step exact but the + 0.5). */
__device__ __forceinline__ double philox_uniform64(unsigned a, unsigned b) {
  return __dmul_rn(__dadd_rn(__dadd_rn((double)(a >> 5) * 67108864.0, (double)(b >> 6)), 0.5), 1.1102230246251565e-16);
}

/** Philox.int(n): floor((w / 2^32) n), exact in integers (w n < 2^64). */
__device__ __forceinline__ unsigned philox_int(unsigned w, unsigned n) {
  return (unsigned)(((unsigned long long)w * n) >> 32);
}

/** Two consecutive Philox.normal() values from one block: (r cos t, r sin t). */
__device__ __forceinline__ void philox_normal_pair(const philox_words& w, double* first, double* second) {
  const double u1 = philox_uniform64(w.w0, w.w1), u2 = philox_uniform64(w.w2, w.w3);
  const double r = sqrt(__dmul_rn(-2.0, log(u1)));
  const double t = __dmul_rn(6.283185307179586, u2);  // 2 * Math.PI (exact) times u2
  double s, c;
  sincos(t, &s, &c);
  *first = __dmul_rn(r, c);
  *second = __dmul_rn(r, s);
}
