// Shared by the PSD kernels (psd-prep.cu, psd-warp.cu, psd-block.cu): the problem's sizes and the
// search configuration as compile-time constants, the per-channel factor layout, and small warp
// helpers. The host (cuda.ts) compiles one module per (nt, nr, modulation, configuration):
//   PSD_NT, PSD_NR   antennas; PSD_BPSK 1 for BPSK (n = nt real positions), else 0 (n = 2 nt, RVD)
//   PSD_Q            real alphabet size (levels 0 .. Q-1, amplitude (2 i - (Q - 1)) * scale)
//   PSD_S            stages; PSD_L0 .. PSD_L<S>: lvl_0 = n + 1 > .. > lvl_S = 1; PSD_P0 .. PSD_P<S-1>:
//                    paths_lvl_0 = 1, .. (scalars: nvcc reads commas in a -D value as a list)
//   PSD_LABELS       the PAM label of level i in bits 4i .. 4i+3 (QAM; a 64-bit literal)
// The model and conventions are the CPU's (preprocess/real-system.ts, detectors/psd/cpu.ts).
#pragma once

#include "../../gpu/status-summary.cuh"

#define PSD_N (PSD_BPSK ? PSD_NT : 2 * PSD_NT)
#define PSD_M (2 * PSD_NR)

// Per-channel factors written by psd_prep, read by the search kernels (floats, PSD_FAC_WORDS a
// channel): Q^T (n x m, row-major: rotates y_r), R (n x n, row-major, upper), perm (n ints: tree
// position k is column perm[k] of H_r), flags (MIMO_STATUS bits for every vector of the channel).
#define PSD_FAC_QT 0
#define PSD_FAC_R (PSD_N * PSD_M)
#define PSD_FAC_PERM (PSD_FAC_R + PSD_N * PSD_N)
#define PSD_FAC_FLAGS (PSD_FAC_PERM + PSD_N)
#define PSD_FAC_WORDS (((PSD_FAC_FLAGS + 1) + 3) / 4 * 4)

// MIMO_STATUS (src/mimo/gpu/status.ts).
#define PSD_ST_NODE_BUDGET 1
#define PSD_ST_RANK_DEFICIENT 8
#define PSD_ST_FLOAT32_UNSAFE 16

#define PSD_INF_BITS 0x7f800000u

#ifndef PSD_L0
#define PSD_L0 0
#endif
#ifndef PSD_P0
#define PSD_P0 0
#endif
#ifndef PSD_L1
#define PSD_L1 0
#endif
#ifndef PSD_P1
#define PSD_P1 0
#endif
#ifndef PSD_L2
#define PSD_L2 0
#endif
#ifndef PSD_P2
#define PSD_P2 0
#endif
#ifndef PSD_L3
#define PSD_L3 0
#endif
#ifndef PSD_P3
#define PSD_P3 0
#endif
#ifndef PSD_L4
#define PSD_L4 0
#endif
#ifndef PSD_P4
#define PSD_P4 0
#endif
#ifndef PSD_L5
#define PSD_L5 0
#endif
#ifndef PSD_P5
#define PSD_P5 0
#endif
#ifndef PSD_L6
#define PSD_L6 0
#endif
#ifndef PSD_P6
#define PSD_P6 0
#endif
#ifndef PSD_L7
#define PSD_L7 0
#endif
#ifndef PSD_P7
#define PSD_P7 0
#endif
#ifndef PSD_L8
#define PSD_L8 0
#endif
#ifndef PSD_P8
#define PSD_P8 0
#endif
#ifndef PSD_L9
#define PSD_L9 0
#endif
#ifndef PSD_P9
#define PSD_P9 0
#endif
#ifndef PSD_L10
#define PSD_L10 0
#endif
#ifndef PSD_P10
#define PSD_P10 0
#endif
#ifndef PSD_L11
#define PSD_L11 0
#endif
#ifndef PSD_P11
#define PSD_P11 0
#endif
#ifndef PSD_L12
#define PSD_L12 0
#endif
#ifndef PSD_P12
#define PSD_P12 0
#endif
#ifndef PSD_L13
#define PSD_L13 0
#endif
#ifndef PSD_P13
#define PSD_P13 0
#endif
#ifndef PSD_L14
#define PSD_L14 0
#endif
#ifndef PSD_P14
#define PSD_P14 0
#endif
#ifndef PSD_L15
#define PSD_L15 0
#endif
#ifndef PSD_P15
#define PSD_P15 0
#endif
#ifndef PSD_L16
#define PSD_L16 0
#endif
#ifndef PSD_P16
#define PSD_P16 0
#endif
#ifndef PSD_L17
#define PSD_L17 0
#endif
#ifndef PSD_P17
#define PSD_P17 0
#endif
__host__ __device__ constexpr int psd_level(int x) { return x == 0 ? PSD_L0 : x == 1 ? PSD_L1 : x == 2 ? PSD_L2 : x == 3 ? PSD_L3 : x == 4 ? PSD_L4 : x == 5 ? PSD_L5 : x == 6 ? PSD_L6 : x == 7 ? PSD_L7 : x == 8 ? PSD_L8 : x == 9 ? PSD_L9 : x == 10 ? PSD_L10 : x == 11 ? PSD_L11 : x == 12 ? PSD_L12 : x == 13 ? PSD_L13 : x == 14 ? PSD_L14 : x == 15 ? PSD_L15 : x == 16 ? PSD_L16 : x == 17 ? PSD_L17 : 0; }
__host__ __device__ constexpr int psd_paths(int x) { return x == 0 ? PSD_P0 : x == 1 ? PSD_P1 : x == 2 ? PSD_P2 : x == 3 ? PSD_P3 : x == 4 ? PSD_P4 : x == 5 ? PSD_P5 : x == 6 ? PSD_P6 : x == 7 ? PSD_P7 : x == 8 ? PSD_P8 : x == 9 ? PSD_P9 : x == 10 ? PSD_P10 : x == 11 ? PSD_P11 : x == 12 ? PSD_P12 : x == 13 ? PSD_P13 : x == 14 ? PSD_P14 : x == 15 ? PSD_P15 : x == 16 ? PSD_P16 : x == 17 ? PSD_P17 : 0; }
// Stage x (1 .. S) fixes tree positions lo(x) .. hi(x); its parents are paths(x-1) nodes of stage x-1.
__host__ __device__ constexpr int psd_hi(int x) { return psd_level(x - 1) - 2; }
__host__ __device__ constexpr int psd_lo(int x) { return psd_level(x) - 1; }
__host__ __device__ constexpr int psd_width(int x) { return psd_hi(x) - psd_lo(x) + 1; }
__host__ __device__ constexpr int psd_ipow(int b, int e) { return e == 0 ? 1 : b * psd_ipow(b, e - 1); }
__host__ __device__ constexpr int psd_children(int x) { return psd_ipow(PSD_Q, psd_width(x)); }
__host__ __device__ constexpr int psd_expanded(int x) { return psd_paths(x - 1) * psd_children(x); }
__host__ __device__ constexpr int psd_qbits() { return PSD_Q == 2 ? 1 : PSD_Q == 4 ? 2 : PSD_Q == 8 ? 3 : 4; }
__host__ __device__ constexpr int psd_max_paths(int x = 0) { return x >= PSD_S ? 0 : (psd_paths(x) > psd_max_paths(x + 1) ? psd_paths(x) : psd_max_paths(x + 1)); }
__host__ __device__ constexpr int psd_max_width(int x = 1) { return x > PSD_S ? 0 : (psd_width(x) > psd_max_width(x + 1) ? psd_width(x) : psd_max_width(x + 1)); }
__host__ __device__ constexpr int psd_max_expanded(int x = 1) { return x > PSD_S ? 0 : (psd_expanded(x) > psd_max_expanded(x + 1) ? psd_expanded(x) : psd_max_expanded(x + 1)); }

// Amplitude of level i: (2 i - (Q - 1)) * scale.
__device__ __forceinline__ float psd_amp(int i, float scale) { return (float)(2 * i - (PSD_Q - 1)) * scale; }

// Level index of tree position k of node `slot` of buffer X (its chunk parent's, or its own digit).
// S: a kernel's shared state (psd-block.cu PsdBlock, psd-warp.cu PsdWarp).
template <int X, class S>
__device__ __forceinline__ int psd_node_level(const S& s, int slot, int k) {
  constexpr int C = psd_children(X), hi = psd_hi(X), lo = psd_lo(X);
  if (k > hi) return s.sym[X][slot / C][k];
  return ((slot % C) >> (psd_qbits() * (k - lo))) & (PSD_Q - 1);
}

// Residual of chunk parent p of stage X on row k (lo <= k <= hi) after the positions it fixed
// (above hi): yHat[k] less their terms R[k][j] amp.
template <int X, class S>
__device__ __forceinline__ float psd_parent_residual(const S& s, int p, int k, float scale) {
  float e = s.yh[k];
#pragma unroll
  for (int j = psd_hi(X) + 1; j < PSD_N; j++) e -= s.R[k * PSD_N + j] * psd_amp(s.sym[X][p][j], scale);
  return e;
}

// Metric of child c (its digits: the levels of positions lo(X) .. hi(X)) of chunk parent p at stage
// X: the parent's metric plus the squared residuals of those rows (the parent's residuals in
// s.base[X][p]); +inf for a parent at or beyond the radius d2 (its children are not evaluated).
template <int X, class S>
__device__ __forceinline__ float psd_child_metric(const S& s, int p, int c, float d2, float scale) {
  constexpr int hi = psd_hi(X), lo = psd_lo(X), W = psd_width(X);
  const float pmv = s.pm[X][p];
  float metric = __uint_as_float(PSD_INF_BITS);
  if (pmv < d2) {
    metric = pmv;
    float amp[W];
#pragma unroll
    for (int k = hi; k >= lo; k--) {
      amp[k - lo] = psd_amp((c >> (psd_qbits() * (k - lo))) & (PSD_Q - 1), scale);
      float e = s.base[X][p][k - lo];
#pragma unroll
      for (int jj = k; jj <= hi; jj++) e -= s.R[k * PSD_N + jj] * amp[jj - lo];
      metric += e * e;
    }
  }
  return metric;
}

// Least key over each aligned group of W lanes (W a power of two; the whole warp calls it).
template <int W>
__device__ __forceinline__ unsigned long long psd_shfl_min(unsigned long long k) {
#pragma unroll
  for (int o = W / 2; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_sync(0xffffffffu, k, (threadIdx.x & 31) ^ o);
    k = other < k ? other : k;
  }
  return k;
}

// Warp argmin of (metric, slot) keys: the least metric, ties to the least slot (the CPU's sort
// order). Metrics are >= 0 or +inf, so their bit patterns order as the values do.
__device__ __forceinline__ unsigned long long psd_warp_min(unsigned long long k) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // Two warp reductions (redux.sync): the least metric, then the least slot among its holders.
  const unsigned hi = (unsigned)(k >> 32);
  const unsigned least = __reduce_min_sync(0xffffffffu, hi);
  const unsigned slot = __reduce_min_sync(0xffffffffu, hi == least ? (unsigned)k : 0xffffffffu);
  return ((unsigned long long)least << 32) | slot;
#else
  return psd_shfl_min<32>(k);
#endif
}

__device__ __forceinline__ unsigned long long psd_key(float metric, int slot) {
  return ((unsigned long long)__float_as_uint(metric) << 32) | (unsigned)slot;
}
__device__ __forceinline__ float psd_key_metric(unsigned long long k) { return __uint_as_float((unsigned)(k >> 32)); }
__device__ __forceinline__ int psd_key_slot(unsigned long long k) { return (int)(unsigned)(k & 0xffffffffu); }

// yHat[k] = (Q^T y_r)[k] of vector y (nr complex, interleaved) with y_r = [Re y; Im y].
__device__ __forceinline__ float psd_rotate(const float* __restrict__ qt, const float* __restrict__ y, int k) {
  float s = 0.f;
#pragma unroll
  for (int r = 0; r < PSD_M; r++) {
    const float yr = r < PSD_NR ? y[2 * r] : y[2 * (r - PSD_NR) + 1];
    s += qt[k * PSD_M + r] * yr;
  }
  return s;
}

// Symbol index of stream j from the level index of every tree position (levelAt[k] at column
// perm[k] of H_r), as symbolsFromLevels in real-system.ts.
__device__ __forceinline__ int psd_symbol(const unsigned char* levelAt, const int* perm, int j) {
  int re = 0, im = 0;
#pragma unroll
  for (int k = 0; k < PSD_N; k++) {
    if (perm[k] == j) re = levelAt[k];
    if (!PSD_BPSK && perm[k] == PSD_NT + j) im = levelAt[k];
  }
#if PSD_BPSK
  (void)im;
  return re == 1 ? 0 : 1;
#else
  // 38.211 bit order: the real label's bits at even positions from the MSB, the imaginary's at odd.
  const unsigned long long labels = PSD_LABELS;
  const int rl = (int)((labels >> (4 * re)) & 15u), il = (int)((labels >> (4 * im)) & 15u);
  constexpr int k = psd_qbits();
  int idx = 0;
#pragma unroll
  for (int j = 0; j < k; j++) idx = (idx << 2) | (((rl >> (k - 1 - j)) & 1) << 1) | ((il >> (k - 1 - j)) & 1);
  return idx;
#endif
}

// A vector of a flagged channel is not searched: its flags are the channel's (from one thread).
__device__ __forceinline__ void psd_flag_vector(int* status, int* summary, int v, int vpc, long long real, int chFlags) {
  status[2 * v] = chFlags;
  if (summary && v < real) mimo_summary_add(summary, v / vpc, chFlags, 0);
}

// Vector v's search inputs into s (a search kernel's shared state): R and the tree order from its
// channel's factors f, and yHat = Q^T y_r; t is the thread's index among the T threads of the vector.
template <int T, class S>
__device__ __forceinline__ void psd_load_vector(S& s, const float* __restrict__ f, const float* __restrict__ y, int v, int t) {
  for (int i = t; i < PSD_N * PSD_N; i += T) s.R[i] = f[PSD_FAC_R + i];
  for (int k = t; k < PSD_N; k += T) {
    s.yh[k] = psd_rotate(f + PSD_FAC_QT, y + (size_t)v * 2 * PSD_NR, k);
    s.perm[k] = (int)__float_as_uint(f[PSD_FAC_PERM + k]);
  }
}

// End of vector v's search: FLOAT32_UNSAFE when no leaf came inside the radius (d2 still +inf), the
// best leaf's symbols, and from thread 0 of the vector's T its status words and its summary share.
template <int T, class S>
__device__ __forceinline__ void psd_finish(const S& s, int t, int v, float d2, long long nodes, int flags, int* symbols,
                                           int* status, int* summary, int vpc, long long real) {
  if (!(d2 < __uint_as_float(PSD_INF_BITS))) flags |= PSD_ST_FLOAT32_UNSAFE;
  for (int j = t; j < PSD_NT; j += T) symbols[(size_t)v * PSD_NT + j] = psd_symbol(s.best, s.perm, j);
  if (t == 0) {
    const int counted = nodes > 0x7fffffffLL ? 0x7fffffff : (int)nodes;
    status[2 * v] = flags;
    status[2 * v + 1] = counted;
    if (summary && v < real) mimo_summary_add(summary, v / vpc, flags, (unsigned)counted);
  }
}
