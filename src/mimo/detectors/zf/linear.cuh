// Device code shared by the linear detectors' kernels (zf, mmse: linear-prep.cu, linear-detect.cu;
// sic: sic-prep.cu, sic-detect.cu), float32 mirrors of the CPU engine's preprocess/complex.ts
// (gramInto, invertInPlace without row exchanges, filterInto) and modulation.ts (sliceSymbol).
//
// -D parameters (the host passes all of them, cuda-linear.ts):
//   LIN_NT, LIN_NR   streams and receive antennas (LIN_NT <= 16, LIN_NR <= 32: the per-channel
//                    thread keeps the Gram matrix in registers up to 8 x 8, in local memory above)
//   PAM_Q            levels per dimension (2, 4, 8, 16), 0 for BPSK
//   PAM_SCALE        the PAM half-spacing (float literal), unused for BPSK
//   LIN_STAGE        1: the preprocessing kernels stage their channels through shared memory
// Complex data interleaved re, im; matrices column-major.
#pragma once

#ifndef LIN_NT
#define LIN_NT 4
#endif
#ifndef LIN_NR
#define LIN_NR 4
#endif
#ifndef PAM_Q
#define PAM_Q 4
#endif
#ifndef PAM_SCALE
#define PAM_SCALE 0.31622776601683794f
#endif

// MIMO_STATUS bits (src/mimo/gpu/status.ts)
#define ST_RANK_DEFICIENT 8
#define ST_FLOAT32_UNSAFE 16

// A Gauss-Jordan pivot at or under LIN_PIVOT_TOL times the Gram matrix's largest entry: float32
// cannot carry the inverse (condition number past ~1e5), the vector goes back to the CPU engine.
#define LIN_PIVOT_TOL 1.52587890625e-5f

struct Cf { float r, i; };

// Loops over streams in the per-channel code: unrolled up to 8 x 8 (every index known at compile
// time, the Gram matrix in registers), plain loops above (compile time; the matrix in local memory).
#if LIN_NT <= 8
#define UNROLL_NT _Pragma("unroll")
#else
#define UNROLL_NT _Pragma("unroll 1")
#endif

// Per-channel record of the zf / mmse scratch (floats, channel after channel, 16-byte aligned):
//   W (LIN_NT x LIN_NR complex, row-major: entry (k, i) at 2 (k LIN_NR + i)), 1 / mu_k (LIN_NT),
//   the N0 the filter was made with, the channel's status flags (as a float).
#define LIN_W_OFF 0
#define LIN_UNBIAS_OFF (2 * LIN_NT * LIN_NR)
#define LIN_N0_OFF (LIN_UNBIAS_OFF + LIN_NT)
#define LIN_FLAGS_OFF (LIN_N0_OFF + 1)
#define LIN_STRIDE ((LIN_FLAGS_OFF + 1 + 3) / 4 * 4)

// Per-channel record of the sic scratch: the steps' filter rows (LIN_NT x LIN_NR complex, step t's
// row at 2 t LIN_NR), 1 / mu of each step, the stream of each step (as floats), N0, flags.
#define SIC_F_OFF 0
#define SIC_UNBIAS_OFF (2 * LIN_NT * LIN_NR)
#define SIC_ORDER_OFF (SIC_UNBIAS_OFF + LIN_NT)
#define SIC_N0_OFF (SIC_ORDER_OFF + LIN_NT)
#define SIC_FLAGS_OFF (SIC_N0_OFF + 1)
#define SIC_STRIDE ((SIC_FLAGS_OFF + 1 + 3) / 4 * 4)

// The N0 the channel's filters use: that of its first vector the engine has not flagged (its
// status flags 0); returns false when every vector of the channel is flagged (nothing to do).
__device__ inline bool reference_noise(const float* noise, const int* status, int c, int vpc, float* n0) {
  for (int v = c * vpc; v < (c + 1) * vpc; v++) {
    if (status[2 * v] == 0) { *n0 = noise[v]; return true; }
  }
  return false;
}

// Staging through shared memory (LIN_STAGE = 1, the host's choice for small systems): a
// block's channels come in, and their records go out, in coalesced copies, while each thread reads
// and writes its own channel at an odd stride (no bank conflicts). Without it (larger systems) each
// thread reads its channel and writes its record in global memory directly.
#ifndef LIN_STAGE
#define LIN_STAGE 0
#endif
#define LIN_HS (2 * LIN_NR * LIN_NT)
__device__ inline void stage_in(const float* __restrict__ H, float* sh, int c0, int nch) {
  for (int e = threadIdx.x; e < nch * LIN_HS; e += blockDim.x) sh[(e / LIN_HS) * (LIN_HS + 1) + e % LIN_HS] = H[(size_t)c0 * LIN_HS + e];
}
__device__ inline void stage_out(const float* sr, float* __restrict__ rec, int c0, int nch, int stride) {
  for (int e = threadIdx.x; e < nch * stride; e += blockDim.x) rec[(size_t)c0 * stride + e] = sr[(e / stride) * (stride + 1) + e % stride];
}

// The preprocessing kernels' body (linear-prep.cu, sic-prep.cu): thread t of the block runs
// CHANNEL(h, noise, status, c, vpc, out) on channel c = blockIdx.x blockDim.x + t, its H (nr x nt
// complex) at h and its record (STRIDE floats) to out, staged through shared memory when LIN_STAGE.
// H: channels x LIN_NR x LIN_NT complex; noise, status: one N0 and two status words per vector.
typedef void (*LinChannel)(const float*, const float* __restrict__, const int* __restrict__, int, int, float*);
template <int STRIDE, LinChannel CHANNEL>
__device__ __forceinline__ void prep_channels(const float* __restrict__ H, const float* __restrict__ noise, const int* __restrict__ status,
                                              float* __restrict__ rec, int channels, int vpc) {
  const int c0 = blockIdx.x * blockDim.x, c = c0 + threadIdx.x;
#if LIN_STAGE
  extern __shared__ unsigned char smem[];
  const int nch = min((int)blockDim.x, channels - c0);
  float* sh = reinterpret_cast<float*>(smem);
  float* sr = sh + blockDim.x * (LIN_HS + 1);
  stage_in(H, sh, c0, nch);
  __syncthreads();
  if (c < channels) CHANNEL(sh + threadIdx.x * (LIN_HS + 1), noise, status, c, vpc, sr + threadIdx.x * (STRIDE + 1));
  __syncthreads();
  stage_out(sr, rec, c0, nch, STRIDE);
#else
  if (c < channels) CHANNEL(H + (size_t)c * LIN_HS, noise, status, c, vpc, rec + (size_t)c * STRIDE);
#endif
}

// Reads LIN_NR complex numbers (a row of a record, a received vector, a column of H) into registers:
// 16-byte loads where LIN_NR is even (every such row starts 16-byte aligned), else 8-byte loads.
struct __align__(16) F4 { float x, y, z, w; };
struct __align__(8) F2 { float x, y; };
__device__ __forceinline__ void load_row(const float* p, Cf* out) {
#if LIN_NR % 2 == 0
  const F4* q = reinterpret_cast<const F4*>(p);
#pragma unroll
  for (int i = 0; i < LIN_NR / 2; i++) { const F4 v = q[i]; out[2 * i].r = v.x; out[2 * i].i = v.y; out[2 * i + 1].r = v.z; out[2 * i + 1].i = v.w; }
#else
  const F2* q = reinterpret_cast<const F2*>(p);
#pragma unroll
  for (int i = 0; i < LIN_NR; i++) { const F2 v = q[i]; out[i].r = v.x; out[i].i = v.y; }
#endif
}

// G = H_S^H H_S + diag I on the streams of `mask` (bit j: stream j), the identity on the others
// (LIN_NT x LIN_NT, column-major; indices known at compile time, so G stays in registers where it
// fits). Its entries on S are gramInto's on the columns S, operation for operation. Returns the
// largest |re|, |im| on S (invertInPlace's scale).
__device__ __forceinline__ float gram_masked(const float* h, unsigned mask, float diag, Cf* G) {
  float scale = 0.f;
UNROLL_NT
  for (int a = 0; a < LIN_NT; a++) {
UNROLL_NT
    for (int b = a; b < LIN_NT; b++) {
      float re = 0.f, im = 0.f;
#pragma unroll
      for (int i = 0; i < LIN_NR; i++) {
        const float ar = h[2 * (i + a * LIN_NR)], ai = h[2 * (i + a * LIN_NR) + 1];
        const float br = h[2 * (i + b * LIN_NR)], bi = h[2 * (i + b * LIN_NR) + 1];
        re += ar * br + ai * bi;  // conj(a) * b
        im += ar * bi - ai * br;
      }
      if (a == b) { re += diag; im = 0.f; }
      if (((mask >> a) & (mask >> b) & 1u) != 0u) {
        scale = fmaxf(scale, fmaxf(fabsf(re), fabsf(im)));
      } else {
        re = a == b ? 1.f : 0.f; im = 0.f;
      }
      G[a + b * LIN_NT].r = re; G[a + b * LIN_NT].i = im;
      G[b + a * LIN_NT].r = re; G[b + a * LIN_NT].i = -im;
    }
  }
  return scale;
}

// Gauss-Jordan's updates of one entry at pivot c (A with leading dimension ld), shared by the
// fixed-size and the compacted inversions below. The pivot row's entry k times q = 1 / A_cc (its
// own entry becomes q: the identity's column moved in):
__device__ __forceinline__ void gj_scale_entry(Cf* A, int ld, int c, int k, float qr, float qi) {
  if (k == c) { A[c + k * ld].r = qr; A[c + k * ld].i = qi; return; }
  const Cf x = A[c + k * ld];
  A[c + k * ld].r = x.r * qr - x.i * qi; A[c + k * ld].i = x.r * qi + x.i * qr;
}
// Row r's entry k less f times the (scaled) pivot row's, f = A_rc (entry c: -f times it, the
// identity's column):
__device__ __forceinline__ void gj_eliminate_entry(Cf* A, int ld, int c, int r, int k, float fr, float fi) {
  const Cf b = A[c + k * ld];
  if (k == c) {
    A[r + k * ld].r = -(fr * b.r - fi * b.i); A[r + k * ld].i = -(fr * b.i + fi * b.r);
  } else {
    A[r + k * ld].r -= fr * b.r - fi * b.i; A[r + k * ld].i -= fr * b.i + fi * b.r;
  }
}

// A = A^{-1} in place (LIN_NT x LIN_NT) by Gauss-Jordan elimination: invertInPlace's operations
// on [A | I], with the identity's columns kept where A's eliminated columns were (the values are
// the same), and without row exchanges: A = G + a I is Hermitian positive (semi)definite, where
// elimination in diagonal order is stable, and every index is then known at compile time. The
// identity block of gram_masked's removed streams costs exact no-ops (pivot 1, multipliers 0).
// Returns 0, or the flag of a breakdown: RANK_DEFICIENT for a zero pivot (a zero column: the CPU
// engine's RankDeficientError too), FLOAT32_UNSAFE for a pivot at or under LIN_PIVOT_TOL times
// `scale` (float64 may still invert it: the engine redoes the vectors on the CPU, which decides).
__device__ __forceinline__ int invert_in_place(Cf* A, float scale) {
UNROLL_NT
  for (int c = 0; c < LIN_NT; c++) {
    const float pr = A[c + c * LIN_NT].r, pi = A[c + c * LIN_NT].i;
    const float m = hypotf(pr, pi);
    if (!(m > 0.f)) return ST_RANK_DEFICIENT;
    if (!(m > LIN_PIVOT_TOL * scale)) return ST_FLOAT32_UNSAFE;
    const float d = pr * pr + pi * pi, qr = pr / d, qi = -pi / d;
UNROLL_NT
    for (int k = 0; k < LIN_NT; k++) gj_scale_entry(A, LIN_NT, c, k, qr, qi);
UNROLL_NT
    for (int r = 0; r < LIN_NT; r++) {
      if (r == c) continue;
      const float fr = A[r + c * LIN_NT].r, fi = A[r + c * LIN_NT].i;
UNROLL_NT
      for (int k = 0; k < LIN_NT; k++) gj_eliminate_entry(A, LIN_NT, c, r, k, fr, fi);
    }
  }
  return 0;
}

// The same two steps on the compacted matrix of the streams in cols[0 .. n) (leading dimension n,
// indices known at run time): sic's path above 8 x 8, where a matrix of the remaining streams only
// (n = nt - t at step t) saves the work the identity block of the masked form would cost.
__device__ inline float gram_cols(const float* h, const int* cols, int n, float diag, Cf* G) {
  float scale = 0.f;
  for (int a = 0; a < n; a++) {
    for (int b = a; b < n; b++) {
      float re = 0.f, im = 0.f;
      for (int i = 0; i < LIN_NR; i++) {
        const float ar = h[2 * (i + cols[a] * LIN_NR)], ai = h[2 * (i + cols[a] * LIN_NR) + 1];
        const float br = h[2 * (i + cols[b] * LIN_NR)], bi = h[2 * (i + cols[b] * LIN_NR) + 1];
        re += ar * br + ai * bi;
        im += ar * bi - ai * br;
      }
      if (a == b) { re += diag; im = 0.f; }
      scale = fmaxf(scale, fmaxf(fabsf(re), fabsf(im)));
      G[a + b * n].r = re; G[a + b * n].i = im;
      G[b + a * n].r = re; G[b + a * n].i = -im;
    }
  }
  return scale;
}

__device__ inline int invert_cols(Cf* A, int n, float scale) {
  for (int c = 0; c < n; c++) {
    const float pr = A[c + c * n].r, pi = A[c + c * n].i;
    const float m = hypotf(pr, pi);
    if (!(m > 0.f)) return ST_RANK_DEFICIENT;
    if (!(m > LIN_PIVOT_TOL * scale)) return ST_FLOAT32_UNSAFE;
    const float d = pr * pr + pi * pi, qr = pr / d, qi = -pi / d;
    for (int k = 0; k < n; k++) gj_scale_entry(A, n, c, k, qr, qi);
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      const float fr = A[r + c * n].r, fi = A[r + c * n].i;
      for (int k = 0; k < n; k++) gj_eliminate_entry(A, n, c, r, k, fr, fi);
    }
  }
  return 0;
}

// sum_i f[i] x[i] over i = 0 .. LIN_NR - 1 in order (complex, no conjugate): a filter row applied
// to a received vector or residual (the detection kernels).
__device__ __forceinline__ Cf apply_row(const Cf* f, const Cf* x) {
  Cf z{0.f, 0.f};
#pragma unroll
  for (int i = 0; i < LIN_NR; i++) {
    z.r += f[i].r * x[i].r - f[i].i * x[i].i;
    z.i += f[i].r * x[i].i + f[i].i * x[i].r;
  }
  return z;
}

// out[i] = sum_j g[j] conj(H_ij), j = 0 .. LIN_NT - 1 in order (filterInto's sum for one row of W;
// g is that row of Ginv, exactly zero on removed streams, whose terms then add nothing).
__device__ __forceinline__ void filter_row(const float* h, const Cf* g, Cf* out) {
#pragma unroll
  for (int i = 0; i < LIN_NR; i++) {
    float re = 0.f, im = 0.f;
UNROLL_NT
    for (int j = 0; j < LIN_NT; j++) {
      const float hr = h[2 * (i + j * LIN_NR)], hi = -h[2 * (i + j * LIN_NR) + 1];  // conj(H_ij)
      re += g[j].r * hr - g[j].i * hi;
      im += g[j].r * hi + g[j].i * hr;
    }
    out[i].r = re; out[i].i = im;
  }
}

// 1 / mu with mu = 1 - a [Ginv]_kk, 1 where mu is not clearly positive (as linear.ts and sic/cpu.ts).
__device__ inline float unbias_of(float a, float ginvKK) {
  const float mu = 1.f - a * ginvKK;
  return mu > 1e-12f ? 1.f / mu : 1.f;
}

#if PAM_Q > 0
// Nearest level index of one PAM dimension, as slicePam: round half up, then clamp.
__device__ inline int slice_pam(float x) {
  float t = floorf((x / PAM_SCALE + (float)(PAM_Q - 1)) / 2.f + 0.5f);
  if (!(t >= 0.f)) t = 0.f;  // (also NaN)
  if (t > (float)(PAM_Q - 1)) t = (float)(PAM_Q - 1);
  return (int)t;
}

// The 38.211 PAM label of level index l (ascending amplitude): the complement of its Gray code.
__device__ inline int pam_label(int l) { return (l ^ (l >> 1)) ^ (PAM_Q - 1); }

// Bits of x moved to the even positions (bit p to bit 2p).
__device__ inline int spread_bits(int x) {
  int s = 0;
  for (int p = 0; (1 << p) < PAM_Q; p++) s |= ((x >> p) & 1) << (2 * p);
  return s;
}

// The amplitude of level index l: (2 l - (Q - 1)) * scale.
__device__ inline float pam_level(int l) { return (float)(2 * l - (PAM_Q - 1)) * PAM_SCALE; }
#endif

// Nearest constellation point of one complex sample, as sliceSymbol: its symbol index (b0 = MSB;
// the real part carries the even bits b0, b2, .., the imaginary part the odd bits) and the point.
__device__ inline int slice_symbol(float re, float im, Cf* point) {
#if PAM_Q == 0
  const float a = 0.70710678118654752f;
  const int s = re + im >= 0.f ? 0 : 1;
  point->r = s == 0 ? a : -a; point->i = point->r;
  return s;
#else
  const int lr = slice_pam(re), li = slice_pam(im);
  point->r = pam_level(lr); point->i = pam_level(li);
  return (spread_bits(pam_label(lr)) << 1) | spread_bits(pam_label(li));
#endif
}
