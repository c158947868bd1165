// The GPU engine's normalization of one channel, by one warp (normalize.cu runs it as its own
// kernel; a detector's first kernel may run it first, as qr-batch.cu does): the power of two 2^p
// that brings the largest entry of H into [1, 2) scales H, the channel's vectors and their N0 (N0
// by 2^2p, held in [2^-100, 2^100] when > 0), exactly as the CPU engine does (detection is
// invariant under (H, y, N0) -> (a H, a y, a^2 N0)). Non-finite input sets the vector's NON_FINITE
// flag; a vector that overflows float32 once scaled gets FLOAT32_UNSAFE (the engine redoes it on
// the CPU). It writes both status words of each vector, and, when `summary` is not null, the
// channel's summary head (status-summary.cuh: the flags of its real vectors, no nodes).
//
// The channel's vectors go through the warp 32 / yLen at a time (a group of yLen lanes a vector),
// NORM_UNROLL passes loaded before any is written, so the warp waits on memory about
// vpc yLen / (32 NORM_UNROLL) times rather than vpc times. Arguments:
//   H      channels x hLen floats (hLen = 2 nr nt), scaled in place
//   y      channels x vpc x yLen floats (yLen = 2 nr), scaled in place
//   noiseIn  per-vector N0 (channels x vpc), or null: then every vector's N0 is noiseScalar
//   noiseOut per-vector scaled N0 (channels x vpc)
//   status STATUS_WORDS (2) int32 a vector: written, [flags, 0 nodes]
//   summary  MIMO_SUMMARY_WORDS int32 a channel, or null
//   valid  vectors that are real, counted from the chunk's first (a padded last channel's are not)

#ifndef MIMO_NORMALIZE_CUH
#define MIMO_NORMALIZE_CUH

#include "status-summary.cuh"

#define NORM_UNROLL 4
#define NORM_FULL_MASK 0xffffffffu
#define NORM_FLAG_NON_FINITE 2
#define NORM_FLAG_FLOAT32_UNSAFE 16

__device__ __forceinline__ bool norm_finite(float x) { return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u; }

// Vector v's scaled N0 and status words, once its entries are known finite (fin) and within float32
// once scaled (fits); returns its flags.
__device__ __forceinline__ int norm_finish_vector(long long v, bool fin, bool fits, int p, const float* noiseIn, float noiseScalar,
                                                  float* noiseOut, int* status) {
  float n0 = noiseIn ? noiseIn[v] : noiseScalar;
  int flags = 0;
  if (!fin || !norm_finite(n0)) flags |= NORM_FLAG_NON_FINITE;
  else if (!fits) flags |= NORM_FLAG_FLOAT32_UNSAFE;
  if (n0 > 0.0f) {
    // 2^2p may leave float32's range: scale in two halves, then clamp
    n0 = ldexpf(ldexpf(n0, p), p);
    n0 = fminf(fmaxf(n0, 7.888609052210118e-31f), 1.2676506002282294e30f);  // [2^-100, 2^100]
  }
  noiseOut[v] = n0;
  status[2 * v] = flags;  // the first stage: it writes every vector's status words
  status[2 * v + 1] = 0;
  return flags;
}

// Channel c by the calling warp (every lane of a full warp calls it together).
__device__ __forceinline__ void mimo_normalize_channel(int lane, long long c, float* H, float* y, const float* noiseIn, float noiseScalar,
                                                       float* noiseOut, int* status, int* summary, int vpc, int hLen, int yLen, long long valid) {
  float* h = H + c * hLen;
  float m = 0.0f;
  bool ok = true;
  for (int i = lane; i < hLen; i += 32) {
    float v = h[i];
    ok = ok && norm_finite(v);
    m = fmaxf(m, fabsf(v));
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(NORM_FULL_MASK, m, o));
  ok = __ballot_sync(NORM_FULL_MASK, !ok) == 0;
  int p = 0;
  if (ok && m > 0.0f) {
    int e;
    frexpf(m, &e);  // m = f 2^e, f in [0.5, 1)
    p = 1 - e;
  }
  if (ok && p != 0) for (int i = lane; i < hLen; i += 32) h[i] = ldexpf(h[i], p);
  const long long v0 = c * vpc;
  int seen = 0;  // flags of this lane's real vectors
  if (yLen <= 32) {
    const int G = 32 / yLen, g = lane / yLen, e = lane - g * yLen;
    const unsigned group = (yLen == 32 ? NORM_FULL_MASK : (1u << yLen) - 1u) << (g < G ? g * yLen : 0);
    for (int k0 = 0; k0 < vpc; k0 += NORM_UNROLL * G) {
      float x[NORM_UNROLL];
#pragma unroll
      for (int r = 0; r < NORM_UNROLL; r++) {
        const int k = k0 + r * G + g;
        x[r] = g < G && k < vpc ? y[(v0 + k) * yLen + e] : 0.0f;
      }
#pragma unroll
      for (int r = 0; r < NORM_UNROLL; r++) {
        const int k = k0 + r * G + g;
        const bool mine = g < G && k < vpc;
        bool fits = true;
        if (mine && p != 0) {
          const float s = ldexpf(x[r], p);
          fits = norm_finite(s) || !norm_finite(x[r]);
          y[(v0 + k) * yLen + e] = s;
        }
        const unsigned bad = __ballot_sync(NORM_FULL_MASK, mine && !norm_finite(x[r]));
        const unsigned over = __ballot_sync(NORM_FULL_MASK, !fits);
        if (mine && e == 0) {
          const int f = norm_finish_vector(v0 + k, ok && (bad & group) == 0, (over & group) == 0, p, noiseIn, noiseScalar, noiseOut, status);
          if (v0 + k < valid) seen |= f;
        }
      }
    }
  } else {
    // a vector wider than a warp (nr > 16): one at a time, the lanes striding over its entries
    for (int k = 0; k < vpc; k++) {
      float* yv = y + (v0 + k) * yLen;
      bool fin = true, fits = true;
      for (int i = lane; i < yLen; i += 32) {
        const float x = yv[i];
        fin = fin && norm_finite(x);
        if (p != 0) {
          const float s = ldexpf(x, p);
          fits = fits && (norm_finite(s) || !norm_finite(x));
          yv[i] = s;
        }
      }
      fin = __ballot_sync(NORM_FULL_MASK, !fin) == 0;
      fits = __ballot_sync(NORM_FULL_MASK, !fits) == 0;
      if (lane == 0) {
        const int f = norm_finish_vector(v0 + k, ok && fin, fits, p, noiseIn, noiseScalar, noiseOut, status);
        if (v0 + k < valid) seen |= f;
      }
    }
  }
  if (summary) {
    for (int o = 16; o > 0; o >>= 1) seen |= __shfl_xor_sync(NORM_FULL_MASK, seen, o);
    if (lane == 0) mimo_summary_head(summary, c, seen);
  }
}

// Channels c0 .. c0 + count - 1 by the calling block's full warps, a channel a warp at a time: the
// engine's normalize stage at the start of a detector's first kernel (qr-batch.cu, psd-prep.cu),
// whose block holds those channels whole. The caller syncs the block before it reads them.
__device__ __forceinline__ void mimo_normalize_block(long long c0, int count, float* H, float* y, const float* noiseIn, float noiseScalar,
                                                     float* noiseOut, int* status, int* summary, int vpc, int hLen, int yLen, long long valid) {
  const int warp = (int)(threadIdx.x >> 5), warps = (int)(blockDim.x >> 5);
  if (warp >= warps) return;  // a partial last warp takes no channel
  for (int cc = warp; cc < count; cc += warps) {
    mimo_normalize_channel(threadIdx.x & 31, c0 + cc, H, y, noiseIn, noiseScalar, noiseOut, status, summary, vpc, hLen, yLen, valid);
  }
}

#endif
