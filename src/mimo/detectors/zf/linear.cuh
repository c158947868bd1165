// Device code shared by the linear detectors' kernels (zf, mmse: linear-prep.cu, linear-detect.cu;
// sic: sic-prep.cu, sic-detect.cu), float32 mirrors of the CPU engine's preprocess/complex.ts
// (gramInto, invertInPlace, filterInto) and modulation.ts (sliceSymbol), loop for loop.
//
// -D parameters (the host passes all of them, cuda.ts):
//   LIN_NT, LIN_NR   streams and receive antennas (LIN_NT <= 16, LIN_NR <= 32: the per-channel
//                    thread keeps H, the Gram matrix and its inverse in local arrays)
//   PAM_Q            levels per dimension (2, 4, 8, 16), 0 for BPSK
//   PAM_SCALE        the PAM half-spacing (float literal), unused for BPSK
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

// Per-channel record of the zf / mmse scratch (floats, channel after channel):
//   W (LIN_NT x LIN_NR complex, column-major: entry (k, i) at 2 (k + i LIN_NT)), 1 / mu_k (LIN_NT),
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

// The channel (LIN_NR x LIN_NT) into a local array.
__device__ inline void load_channel(const float* H, int c, Cf* h) {
  const float* src = H + (size_t)c * 2 * LIN_NR * LIN_NT;
  for (int e = 0; e < LIN_NR * LIN_NT; e++) { h[e].r = src[2 * e]; h[e].i = src[2 * e + 1]; }
}

// G = H_cols^H H_cols + diag I (n x n, leading dimension n), as gramInto.
__device__ inline void gram(const Cf* h, const int* cols, int n, float diag, Cf* G) {
  for (int a = 0; a < n; a++) {
    const Cf* ca = h + cols[a] * LIN_NR;
    for (int b = a; b < n; b++) {
      const Cf* cb = h + cols[b] * LIN_NR;
      float re = 0.f, im = 0.f;
      for (int i = 0; i < LIN_NR; i++) {
        re += ca[i].r * cb[i].r + ca[i].i * cb[i].i;  // conj(a) * b
        im += ca[i].r * cb[i].i - ca[i].i * cb[i].r;
      }
      if (a == b) { re += diag; im = 0.f; }
      G[a + b * n].r = re; G[a + b * n].i = im;
      G[b + a * n].r = re; G[b + a * n].i = -im;
    }
  }
}

// inv = A^{-1} (n x n) by Gauss-Jordan elimination with partial pivoting, as invertInPlace (A is
// overwritten). Returns 0, or the status flag of a breakdown: RANK_DEFICIENT for a zero pivot (a
// zero column: the CPU engine's RankDeficientError too), FLOAT32_UNSAFE for a pivot under
// LIN_PIVOT_TOL times A's largest entry (float64 may still invert it: the CPU engine decides).
__device__ inline int invert(Cf* A, Cf* inv, int n) {
  float scale = 0.f;
  for (int e = 0; e < n * n; e++) {
    inv[e].r = 0.f; inv[e].i = 0.f;
    scale = fmaxf(scale, fmaxf(fabsf(A[e].r), fabsf(A[e].i)));
  }
  for (int e = 0; e < n; e++) inv[e + e * n].r = 1.f;
  for (int c = 0; c < n; c++) {
    int p = c;
    float best = -1.f;
    for (int r = c; r < n; r++) {
      const float m = hypotf(A[r + c * n].r, A[r + c * n].i);
      if (m > best) { best = m; p = r; }
    }
    if (!(best > 0.f)) return ST_RANK_DEFICIENT;
    if (!(best > LIN_PIVOT_TOL * scale)) return ST_FLOAT32_UNSAFE;
    if (p != c) {
      for (int k = 0; k < n; k++) {
        Cf t = A[c + k * n]; A[c + k * n] = A[p + k * n]; A[p + k * n] = t;
        t = inv[c + k * n]; inv[c + k * n] = inv[p + k * n]; inv[p + k * n] = t;
      }
    }
    const float pr = A[c + c * n].r, pi = A[c + c * n].i;
    const float d = pr * pr + pi * pi, qr = pr / d, qi = -pi / d;
    for (int k = 0; k < n; k++) {
      Cf x = A[c + k * n];
      A[c + k * n].r = x.r * qr - x.i * qi; A[c + k * n].i = x.r * qi + x.i * qr;
      x = inv[c + k * n];
      inv[c + k * n].r = x.r * qr - x.i * qi; inv[c + k * n].i = x.r * qi + x.i * qr;
    }
    for (int r = 0; r < n; r++) {
      if (r == c) continue;
      const float fr = A[r + c * n].r, fi = A[r + c * n].i;
      if (fr == 0.f && fi == 0.f) continue;
      for (int k = 0; k < n; k++) {
        const Cf a = A[c + k * n], b = inv[c + k * n];
        A[r + k * n].r -= fr * a.r - fi * a.i; A[r + k * n].i -= fr * a.i + fi * a.r;
        inv[r + k * n].r -= fr * b.r - fi * b.i; inv[r + k * n].i -= fr * b.i + fi * b.r;
      }
    }
  }
  return 0;
}

// Row k of W = Ginv H_cols^H (n columns selected), as filterInto: out[i] for i < LIN_NR.
__device__ inline void filter_row(const Cf* Ginv, const Cf* h, const int* cols, int n, int k, Cf* out) {
  for (int i = 0; i < LIN_NR; i++) {
    float re = 0.f, im = 0.f;
    for (int j = 0; j < n; j++) {
      const Cf g = Ginv[k + j * n];
      const float hr = h[i + cols[j] * LIN_NR].r, hi = -h[i + cols[j] * LIN_NR].i;  // conj(H_ij)
      re += g.r * hr - g.i * hi;
      im += g.r * hi + g.i * hr;
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
