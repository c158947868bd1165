// Exhaustive maximum-likelihood detection (the reference) on the complex model, as cpu.ts: every
// one of the M^nt hypotheses is scored by the expanded metric
//   ||y - H s||^2 - ||y||^2 = s^H G s - 2 Re(s^H z),   G = H^H H (gram-kernel.cu), z = H^H y,
// in float32. ML_GROUP lanes of a warp share one received vector: a hypothesis is its index
// p M + a, p the prefix (streams nt-1 .. 1, stream nt-1 most significant) and a the symbol of
// stream 0, so index order is cpu.ts's tree order. Lane l scores the prefixes l, l + ML_GROUP, ..,
// each with its M leaves (stream 0 only moves T_0 = z_0 - sum_{k>0} G_0k s_k, O(1) a leaf); then
// butterfly shuffles reduce the group: the least metric (ties to the lower index, cpu.ts's first
// strict minimum) and, for soft output, per stream and bit the least metric with that bit 0 and 1.
//  - ML_SOFT 0: symbols only; 1: max-log LLR (min_1 - min_0) / N0;
//  - ML_SOFT 2: exact log-MAP, in float32 without overflow or underflow: a second pass sums, per
//    stream, bit and value, exp(-(metric - min)/N0) relative to that side's own least metric min, so
//    each side's sum S lies in [1, M^nt]; LLR = (min_1 - min_0) / N0 + ln S_0 - ln S_1.
// LLRs are clipped to [-llrClip, llrClip]. A vector whose status flags are set on entry is skipped.
//
// A-priori LLRs L_a (IDD), the ML_PRIOR = 1 build (cpu.ts's setPrior and writeLlr with priors):
// every hypothesis's metric gains, stream by stream, N0 sum_b c_b L_a(b) over its symbols' bits c_b
// (float32, bits in label order, times N0 after the sum, as cpu.ts), in both passes, so the decision
// is the MAP vector; the LLRs written are extrinsic: the a-posteriori LLR (max-log or log-MAP)
// minus L_a, then clipped. Each lane of an active vector holds the vector's nt x bps priors. The
// ML_PRIOR = 0 build (default) reads no priors and is the prior-free kernel unchanged.
//
// Defines: ML_NT, ML_NR, ML_BPS (bits a symbol; 1 = BPSK), ML_GROUP (lanes a vector: a power of two
// up to 32), ML_SOFT, ML_PRIOR (0/1, default 0). Blocks of whole warps; vector v = global thread / ML_GROUP.
//
// nvcc-variant: -DML_NT=2 -DML_NR=2 -DML_BPS=2 -DML_GROUP=4 -DML_SOFT=1
// nvcc-variant: -DML_NT=4 -DML_NR=4 -DML_BPS=4 -DML_GROUP=32 -DML_SOFT=0
// nvcc-variant: -DML_NT=4 -DML_NR=4 -DML_BPS=4 -DML_GROUP=32 -DML_SOFT=2
// nvcc-variant: -DML_NT=2 -DML_NR=2 -DML_BPS=6 -DML_GROUP=32 -DML_SOFT=1
// nvcc-variant: -DML_NT=3 -DML_NR=2 -DML_BPS=1 -DML_GROUP=4 -DML_SOFT=2
// nvcc-variant: -DML_NT=2 -DML_NR=2 -DML_BPS=2 -DML_GROUP=4 -DML_SOFT=1 -DML_PRIOR=1
// nvcc-variant: -DML_NT=4 -DML_NR=4 -DML_BPS=4 -DML_GROUP=32 -DML_SOFT=2 -DML_PRIOR=1
// nvcc-variant: -DML_NT=2 -DML_NR=2 -DML_BPS=6 -DML_GROUP=32 -DML_SOFT=1 -DML_PRIOR=1
// nvcc-variant: -DML_NT=3 -DML_NR=2 -DML_BPS=1 -DML_GROUP=4 -DML_SOFT=0 -DML_PRIOR=1

#include "qam.cuh"

#ifndef ML_PRIOR
#define ML_PRIOR 0
#endif

#define ML_M (1 << ML_BPS)
#define ML_PREFIXES (1 << (ML_BPS * (ML_NT - 1)))
#define ML_SLOTS (ML_NT * ML_BPS * 2)
#define ML_BIG 3.0e38f
#define ML_FULL 0xffffffffu

// Per-vector constants of the search: z = H^H y and G's diagonal and strict upper triangle.
struct MlVector {
  float zr[ML_NT], zi[ML_NT];
  float gd[ML_NT];
  float gr[ML_NT][ML_NT], gi[ML_NT][ML_NT];  // [j][k], j < k
#if ML_PRIOR
  float la[ML_NT * ML_BPS];  // the vector's a-priori LLRs, stream-major
  float n0;                  // its noise variance
#endif
};

__device__ __forceinline__ int ml_bit(int a, int b) { return (a >> (ML_BPS - 1 - b)) & 1; }

#if ML_PRIOR
// A-priori cost of symbol a on stream j: N0 sum_b c_b L_a(b) (cpu.ts's prior[j M + a]).
__device__ __forceinline__ float ml_cost(const MlVector& w, int j, int a) {
  float c = 0.0f;
#pragma unroll
  for (int b = 0; b < ML_BPS; b++)
    if (ml_bit(a, b)) c += w.la[j * ML_BPS + b];
  return w.n0 * c;
}
#endif

// Metric of prefix p's streams 1 .. nt-1 (relative to ||y||^2) and T_0 of its leaves.
__device__ __forceinline__ void ml_prefix(const MlVector& w, int p, float& pm, float& t0r, float& t0i, int* sym) {
  float ar[ML_NT], ai[ML_NT];
#pragma unroll
  for (int j = 1; j < ML_NT; j++) {
    sym[j] = (p >> (ML_BPS * (j - 1))) & (ML_M - 1);
    qam_point(sym[j], ML_BPS, ar[j], ai[j]);
  }
  pm = 0.0f;
#pragma unroll
  for (int j = ML_NT - 1; j >= 1; j--) {
    float tr = w.zr[j], ti = w.zi[j];
#pragma unroll
    for (int k = j + 1; k < ML_NT; k++) {
      tr -= w.gr[j][k] * ar[k] - w.gi[j][k] * ai[k];
      ti -= w.gr[j][k] * ai[k] + w.gi[j][k] * ar[k];
    }
    pm += (ar[j] * ar[j] + ai[j] * ai[j]) * w.gd[j] - 2.0f * (ar[j] * tr + ai[j] * ti);
#if ML_PRIOR
    pm += ml_cost(w, j, sym[j]);
#endif
  }
  t0r = w.zr[0]; t0i = w.zi[0];
#pragma unroll
  for (int k = 1; k < ML_NT; k++) {
    t0r -= w.gr[0][k] * ar[k] - w.gi[0][k] * ai[k];
    t0i -= w.gr[0][k] * ai[k] + w.gi[0][k] * ar[k];
  }
}

// Metric of leaf a under a prefix (pm, T_0).
__device__ __forceinline__ float ml_leaf(const MlVector& w, int a, float pm, float t0r, float t0i) {
  float pr, pi;
  qam_point(a, ML_BPS, pr, pi);
#if ML_PRIOR
  return pm + (pr * pr + pi * pi) * w.gd[0] - 2.0f * (pr * t0r + pi * t0i) + ml_cost(w, 0, a);
#else
  return pm + (pr * pr + pi * pi) * w.gd[0] - 2.0f * (pr * t0r + pi * t0i);
#endif
}

// G: channels x nt x nt complex (gram-kernel.cu); H, y, noise, symbols, llr, status: the chunk
// layouts of src/mimo/gpu/cuda-detector.ts (llr unused when ML_SOFT is 0); prior: the chunk's
// a-priori LLRs, vectors x ML_NT x ML_BPS float32 (read by the ML_PRIOR build only, last so that the
// other build's parameters keep their offsets; may be null there).
extern "C" __global__ void __launch_bounds__(128) ml_detect(
    const float* __restrict__ G, const float* __restrict__ H, const float* __restrict__ y, const float* __restrict__ noise,
    int* __restrict__ symbols, float* __restrict__ llr, int* __restrict__ status, int vectors, int vpc, float llrClip,
    const float* __restrict__ prior) {
  const int gt = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = gt / ML_GROUP, glane = gt % ML_GROUP, lane = threadIdx.x % 32;
  // Every lane of the warp takes part in the shuffles; lanes of an absent or flagged vector score nothing.
  const bool active = v < vectors && status[2 * v] == 0;
  MlVector w;
  if (active) {
    const int c = v / vpc;
    const float* h = H + (size_t)c * 2 * ML_NR * ML_NT;
    const float* g = G + (size_t)c * 2 * ML_NT * ML_NT;
    const float* yv = y + (size_t)v * 2 * ML_NR;
#pragma unroll
    for (int j = 0; j < ML_NT; j++) {
      float re = 0.0f, im = 0.0f;
      for (int i = 0; i < ML_NR; i++) {
        const float hr = h[2 * (i + j * ML_NR)], hi = h[2 * (i + j * ML_NR) + 1], yr = yv[2 * i], yi = yv[2 * i + 1];
        re += hr * yr + hi * yi;
        im += hr * yi - hi * yr;
      }
      w.zr[j] = re; w.zi[j] = im;
      w.gd[j] = g[2 * (j + j * ML_NT)];
#pragma unroll
      for (int k = j + 1; k < ML_NT; k++) { w.gr[j][k] = g[2 * (j + k * ML_NT)]; w.gi[j][k] = g[2 * (j + k * ML_NT) + 1]; }
    }
#if ML_PRIOR
    const float* pv = prior + (size_t)v * ML_NT * ML_BPS;
#pragma unroll
    for (int i = 0; i < ML_NT * ML_BPS; i++) w.la[i] = pv[i];
    w.n0 = noise[v];
#endif
  }
  float best = ML_BIG;
  int bestIdx = 0x7fffffff;
#if ML_SOFT
  float mn[ML_SLOTS];
#pragma unroll
  for (int s = 0; s < ML_SLOTS; s++) mn[s] = ML_BIG;
#endif
  if (active) {
    for (int p = glane; p < ML_PREFIXES; p += ML_GROUP) {
      int sym[ML_NT];
      float pm, t0r, t0i;
      ml_prefix(w, p, pm, t0r, t0i, sym);
      float pmin = ML_BIG;
      int parg = 0;
#pragma unroll
      for (int a = 0; a < ML_M; a++) {
        const float m = ml_leaf(w, a, pm, t0r, t0i);
        if (m < pmin) { pmin = m; parg = a; }
#if ML_SOFT
#pragma unroll
        for (int b = 0; b < ML_BPS; b++) {
          float& s = mn[b * 2 + ml_bit(a, b)];
          s = fminf(s, m);
        }
#endif
      }
      if (pmin < best) { best = pmin; bestIdx = p * ML_M + parg; }
#if ML_SOFT
#pragma unroll
      for (int j = 1; j < ML_NT; j++) {
#pragma unroll
        for (int b = 0; b < ML_BPS; b++) {
          float& s0 = mn[(j * ML_BPS + b) * 2];
          float& s1 = mn[(j * ML_BPS + b) * 2 + 1];
          if (ml_bit(sym[j], b)) s1 = fminf(s1, pmin); else s0 = fminf(s0, pmin);
        }
      }
#endif
    }
  }
#pragma unroll
  for (int off = ML_GROUP / 2; off > 0; off >>= 1) {
    const float ob = __shfl_sync(ML_FULL, best, lane ^ off);
    const int oi = __shfl_sync(ML_FULL, bestIdx, lane ^ off);
    if (ob < best || (ob == best && oi < bestIdx)) { best = ob; bestIdx = oi; }
#if ML_SOFT
#pragma unroll
    for (int s = 0; s < ML_SLOTS; s++) mn[s] = fminf(mn[s], __shfl_sync(ML_FULL, mn[s], lane ^ off));
#endif
  }
#if ML_SOFT == 2
  // Second pass: per side sums of exp(-(metric - min) / N0) >= 1 (the side's least metric gives 1).
  float invN0 = 0.0f;
  float sum[ML_SLOTS];
#pragma unroll
  for (int s = 0; s < ML_SLOTS; s++) sum[s] = 0.0f;
  if (active) {
    invN0 = 1.0f / noise[v];
    for (int p = glane; p < ML_PREFIXES; p += ML_GROUP) {
      int sym[ML_NT];
      float pm, t0r, t0i;
      ml_prefix(w, p, pm, t0r, t0i, sym);
      float lm[ML_M];
      float pmin = ML_BIG;
#pragma unroll
      for (int a = 0; a < ML_M; a++) { lm[a] = ml_leaf(w, a, pm, t0r, t0i); pmin = fminf(pmin, lm[a]); }
      // Stream 0: each leaf adds to the side of each of its bits.
      float leaves = 0.0f;  // sum over the leaves of exp(-(metric - pmin) / N0), in [1, M]
#pragma unroll
      for (int a = 0; a < ML_M; a++) {
        leaves += expf((pmin - lm[a]) * invN0);
#pragma unroll
        for (int b = 0; b < ML_BPS; b++) {
          const int s = b * 2 + ml_bit(a, b);
          sum[s] += expf((mn[s] - lm[a]) * invN0);
        }
      }
      // Streams 1 .. nt-1: the prefix's leaves all carry sym[j]; its side's min is <= pmin.
#pragma unroll
      for (int j = 1; j < ML_NT; j++) {
#pragma unroll
        for (int b = 0; b < ML_BPS; b++) {
          const int s0 = (j * ML_BPS + b) * 2;
          if (ml_bit(sym[j], b)) sum[s0 + 1] += expf((mn[s0 + 1] - pmin) * invN0) * leaves;
          else sum[s0] += expf((mn[s0] - pmin) * invN0) * leaves;
        }
      }
    }
  }
#pragma unroll
  for (int off = ML_GROUP / 2; off > 0; off >>= 1) {
#pragma unroll
    for (int s = 0; s < ML_SLOTS; s++) sum[s] += __shfl_sync(ML_FULL, sum[s], lane ^ off);
  }
#endif
  if (!active || glane != 0) return;
#pragma unroll
  for (int j = 0; j < ML_NT; j++) symbols[(size_t)v * ML_NT + j] = (bestIdx >> (ML_BPS * j)) & (ML_M - 1);
#if ML_SOFT
#if ML_SOFT == 1
  const float invN0 = 1.0f / noise[v];
#endif
#pragma unroll
  for (int j = 0; j < ML_NT; j++) {
#pragma unroll
    for (int b = 0; b < ML_BPS; b++) {
      const int s0 = (j * ML_BPS + b) * 2;
      float l = (mn[s0 + 1] - mn[s0]) * invN0;
#if ML_SOFT == 2
      l += logf(sum[s0]) - logf(sum[s0 + 1]);
#endif
#if ML_PRIOR
      l -= w.la[j * ML_BPS + b];
#endif
      llr[((size_t)v * ML_NT + j) * ML_BPS + b] = fminf(fmaxf(l, -llrClip), llrClip);
    }
  }
#endif
}
