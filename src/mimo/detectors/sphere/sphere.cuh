// The sphere decoder's device code shared by its kernels (prep-kernel.cu, thread-kernel.cu,
// warp-kernel.cu): sizes, the per-channel scratch layout, the rotation of a received vector, the
// sliced zero-forcing point, the depth-first search's steps (open, descend, next candidate) and
// the symbols of a solution. Mirrors cpu.ts and preprocess/real-system.ts.
//
// Defines: SP_NT, SP_NR, SP_BPS (bits a symbol; 1 = BPSK). Real model: SP_N = 2 nt unknowns (nt for
// BPSK), SP_Q levels a dimension (amplitude (2 i - (q-1)) scale), rows m = 2 nr.
#pragma once
#include "../ml/qam.cuh"

#if SP_BPS == 1
#define SP_N SP_NT
#define SP_Q 2
#else
#define SP_N (2 * SP_NT)
#define SP_Q (1 << (SP_BPS / 2))
#endif
#define SP_M (2 * SP_NR)
#define SP_BIG 3.0e38f

// Per-channel scratch, floats (region 0): Q (2 nr nt: complex nr x nt column-major for QAM, real
// m x n column-major for BPSK), R by rows (n n: rows[k n + j] = R_kj), 1 / R_kk (n), the metric
// weight (2 scale R_kk)^2 (n). Ints (region 1): perm (n: tree position k is column perm[k] of H_r,
// RVD numbering), then the channel's status flags (0, or MIMO_STATUS.FLOAT32_UNSAFE).
#define SP_OFF_Q 0
#define SP_OFF_ROWS (2 * SP_NR * SP_NT)
#define SP_OFF_INVDIAG (SP_OFF_ROWS + SP_N * SP_N)
#define SP_OFF_WEIGHT (SP_OFF_INVDIAG + SP_N)
#define SP_FLOATS (SP_OFF_WEIGHT + SP_N)
#define SP_INTS (SP_N + 1)

// MIMO_STATUS bits (src/mimo/gpu/status.ts).
#define SP_STATUS_NODE_BUDGET 1
#define SP_STATUS_FLOAT32_UNSAFE 16

__device__ __forceinline__ float sp_scale() {
#if SP_BPS == 1
  return 1.0f;
#else
  return qam_scale(SP_BPS);
#endif
}

// yHat = Q^T y_r of the vector at yv (Q^H y interleaved for the complex factorisation).
__device__ __forceinline__ void sp_rotate(const float* __restrict__ Q, const float* __restrict__ yv, float* yHat) {
#if SP_BPS == 1
  for (int k = 0; k < SP_N; k++) {
    float d = 0.0f;
    for (int r = 0; r < SP_NR; r++) d += Q[r + k * SP_M] * yv[2 * r];
    for (int r = 0; r < SP_NR; r++) d += Q[SP_NR + r + k * SP_M] * yv[2 * r + 1];
    yHat[k] = d;
  }
#else
  for (int k = 0; k < SP_NT; k++) {
    float re = 0.0f, im = 0.0f;
    const int c = 2 * k * SP_NR;
    for (int i = 0; i < SP_NR; i++) {
      const float qr = Q[c + 2 * i], qi = Q[c + 2 * i + 1], a = yv[2 * i], b = yv[2 * i + 1];
      re += qr * a + qi * b;
      im += qr * b - qi * a;
    }
    yHat[2 * k] = re; yHat[2 * k + 1] = im;
  }
#endif
}

// Nearest level index of a position in level units (round half up, as Math.round, and clamp).
__device__ __forceinline__ int sp_slice(float u) {
  int i = (int)floorf(u + 0.5f);
  return i < 0 ? 0 : i > SP_Q - 1 ? SP_Q - 1 : i;
}

// The sliced unconstrained least-squares point into idx and its squared distance ||yHat - R x||^2
// (cpu.ts zfRadius). amp is scratch of n.
__device__ __forceinline__ float sp_zf(const float* __restrict__ rows, const float* __restrict__ invDiag, const float* yHat, float* amp, int* idx) {
  const float scale = sp_scale(), half = 0.5f * (SP_Q - 1);
  for (int k = SP_N - 1; k >= 0; k--) {
    float s = yHat[k];
    for (int j = k + 1; j < SP_N; j++) s -= rows[k * SP_N + j] * amp[j];
    amp[k] = s * invDiag[k];
  }
  for (int k = 0; k < SP_N; k++) idx[k] = sp_slice(amp[k] / (2.0f * scale) + half);
  for (int k = 0; k < SP_N; k++) amp[k] = (float)(2 * idx[k] - (SP_Q - 1)) * scale;
  float d = 0.0f;
  for (int k = 0; k < SP_N; k++) {
    float s = yHat[k];
    for (int j = k; j < SP_N; j++) s -= rows[k * SP_N + j] * amp[j];
    d += s * s;
  }
  return d;
}

// Centre of position k (level units) given the amplitudes of positions above it.
__device__ __forceinline__ float sp_centre(const float* rows, const float* invDiag, const float* yHat, const float* amp, int k, float toIndex, float half) {
  float s = yHat[k];
  for (int j = k + 1; j < SP_N; j++) s -= rows[k * SP_N + j] * amp[j];
  return s * invDiag[k] * toIndex + half;
}

// Opens position k at centre u (level units): its first candidate is the nearest level, the next
// ones zig-zag outwards from it (lo below, hi above).
__device__ __forceinline__ void sp_open(int k, float u, float* centre, int* idx, int* lo, int* hi) {
  const int i0 = sp_slice(u);
  centre[k] = u; idx[k] = i0; lo[k] = i0 - 1; hi[k] = i0 + 1;
}

// One step down from position k (k >= 1), whose candidate idx[k] has partial metric m: fixes its
// amplitude and metric, then opens position k - 1 at its centre given the positions above it.
__device__ __forceinline__ void sp_descend(int k, float m, const float* rows, const float* invDiag, const float* yHat, float* amp, float* pd,
                                           float* centre, int* idx, int* lo, int* hi, float toIndex, float half) {
  amp[k] = (float)(2 * idx[k] - (SP_Q - 1)) * sp_scale();
  pd[k] = m;
  sp_open(k - 1, sp_centre(rows, invDiag, yHat, amp, k - 1, toIndex, half), centre, idx, lo, hi);
}

// Schnorr-Euchner's next candidate of position k: its next level in zig-zag order from the centre
// (the nearer of the two sides first, ties below) into idx[k]; false when both sides are exhausted.
__device__ __forceinline__ bool sp_next_candidate(int k, const float* centre, int* idx, int* lo, int* hi) {
  const int l = lo[k], h = hi[k];
  const float u = centre[k];
  const bool lOk = l >= 0, hOk = h <= SP_Q - 1;
  if (lOk && (!hOk || u - (float)l <= (float)h - u)) { idx[k] = l; lo[k] = l - 1; return true; }
  if (hOk) { idx[k] = h; hi[k] = h + 1; return true; }
  return false;
}

// Writes the nt symbols of the solution whose level index at tree position k is lev[k].
__device__ __forceinline__ void sp_write_symbols(const int* __restrict__ perm, const int* lev, int* out) {
  int at[SP_N];
  for (int k = 0; k < SP_N; k++) at[perm[k]] = lev[k];
#if SP_BPS == 1
  for (int j = 0; j < SP_NT; j++) out[j] = at[j] == 1 ? 0 : 1;
#else
  for (int j = 0; j < SP_NT; j++) out[j] = qam_symbol_of_levels(at[j], at[SP_NT + j], SP_BPS);
#endif
}
