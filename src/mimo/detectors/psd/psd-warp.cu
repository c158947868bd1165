// psd_warp: the PSD search (detectors/psd/cpu.ts, Alg. 1 of Jozsa et al.) with one warp a
// received vector and PSD_WARPS vectors a block (no block barriers: each warp runs on its own).
//
// The same tree walk as the CPU and the paper's block mapping (psd-block.cu): stage x expands a
// chunk of paths_lvl_{x-1} nodes of buffer x-1 (its nodes taken in (metric, slot) order) into all
// their children; below the leaves it descends, at the leaves it keeps the best (metric, slot) and
// shrinks the radius; a buffer whose next node is at or beyond the radius is done (back up).
// Instead of sorting a buffer it extracts its next node by a warp argmin over the nodes not yet
// taken (taken nodes are set to +inf): the order is the sort's order, and most buffers give only
// one or two chunks before the radius closes them, so a full sort is mostly wasted work.
//
// In:  y (vectors x nr complex), fac (psd_prep's factors per channel), status ([flags, nodes] a
//      vector; a vector whose flags are already set is skipped).
// Out: symbols (vectors x nt), status (flags |= NODE_BUDGET / FLOAT32_UNSAFE / the channel's, nodes).
//
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull -DPSD_WARPS=4
// nvcc-variant: -DPSD_NT=2 -DPSD_NR=2 -DPSD_BPSK=1 -DPSD_Q=2 -DPSD_S=1 -DPSD_L0=3 -DPSD_L1=1 -DPSD_P0=1 -DPSD_WARPS=2

#include "psd-common.cuh"

// Offset of buffer x (1 .. S-1) in a warp's metric array.
__host__ __device__ constexpr int psd_buf_off(int x) { return x <= 1 ? 0 : psd_buf_off(x - 1) + psd_expanded(x - 1); }
#define PSD_BUF_WORDS (PSD_S > 1 ? psd_buf_off(PSD_S) : 1)
#define PSD_PMAX (psd_max_paths() > 0 ? psd_max_paths() : 1)
#define PSD_WMAX psd_max_width()

struct PsdWarp {
  float R[PSD_N * PSD_N];
  float yh[PSD_N];
  float met[PSD_BUF_WORDS];
  float base[PSD_S + 1][PSD_PMAX][PSD_WMAX];
  float pm[PSD_S + 1][PSD_PMAX];
  int perm[PSD_N];
  unsigned char sym[PSD_S + 1][PSD_PMAX][PSD_N];
  unsigned char best[PSD_N];
};

// Level index of tree position k of node `slot` of buffer x (its chunk parent's, or its own digit).
template <int X>
__device__ __forceinline__ int psd_node_level(const PsdWarp& w, int slot, int k) {
  constexpr int C = psd_children(X), hi = psd_hi(X), lo = psd_lo(X);
  if (k > hi) return w.sym[X][slot / C][k];
  return ((slot % C) >> (psd_qbits() * (k - lo))) & (PSD_Q - 1);
}

// Stage X: expands the chunk parents in w.sym[X] / w.pm[X] (alive: metric below d2). Below the
// leaves it writes the children's metrics to buffer X; at the leaves it updates d2 and w.best.
template <int X>
__device__ __forceinline__ void psd_expand(PsdWarp& w, int lane, float& d2, long long& nodes, float scale) {
  constexpr int C = psd_children(X), P = psd_paths(X - 1), E = P * C;
  constexpr int hi = psd_hi(X), lo = psd_lo(X), W = psd_width(X);
  // Each parent's residual on the rows fixed here after its fixed positions.
  for (int t = lane; t < P * W; t += 32) {
    const int p = t / W, k = lo + t % W;
    float e = w.yh[k];
#pragma unroll
    for (int j = hi + 1; j < PSD_N; j++) e -= w.R[k * PSD_N + j] * psd_amp(w.sym[X][p][j], scale);
    w.base[X][p][t % W] = e;
  }
  __syncwarp();
  int alive = 0;
#pragma unroll
  for (int p = 0; p < P; p++) alive += w.pm[X][p] < d2;
  nodes += (long long)alive * C;
  unsigned long long bestKey = ~0ull;
#pragma unroll
  for (int i = 0; i < (E + 31) / 32; i++) {
    const int j = lane + 32 * i;
    if (E % 32 != 0 && j >= E) break;
    const int p = j / C, c = j % C;
    const float pmv = w.pm[X][p];
    float metric = __uint_as_float(PSD_INF_BITS);
    if (pmv < d2) {
      metric = pmv;
      float amp[W];
#pragma unroll
      for (int k = hi; k >= lo; k--) {
        amp[k - lo] = psd_amp((c >> (psd_qbits() * (k - lo))) & (PSD_Q - 1), scale);
        float e = w.base[X][p][k - lo];
#pragma unroll
        for (int jj = k; jj <= hi; jj++) e -= w.R[k * PSD_N + jj] * amp[jj - lo];
        metric += e * e;
      }
    }
    if constexpr (X < PSD_S) {
      w.met[psd_buf_off(X) + j] = metric;
    } else {
      const unsigned long long key = psd_key(metric, j);
      bestKey = key < bestKey ? key : bestKey;
    }
  }
  if constexpr (X == PSD_S) {
    bestKey = psd_warp_min(bestKey);
    const float m = psd_key_metric(bestKey);
    if (m < d2) {
      d2 = m;
      const int slot = psd_key_slot(bestKey);
      for (int k = lane; k < PSD_N; k += 32) w.best[k] = (unsigned char)psd_node_level<X>(w, slot, k);
    }
  }
  __syncwarp();
}

// The next chunk of buffer X for stage X + 1: up to paths_lvl_X nodes in (metric, slot) order.
// False when the buffer is done (its next node is at or beyond d2, or none is left).
template <int X>
__device__ __forceinline__ bool psd_take(PsdWarp& w, int lane, float d2) {
  constexpr int E = psd_expanded(X), P = psd_paths(X);
  float* met = w.met + psd_buf_off(X);
#pragma unroll 1
  for (int p = 0; p < P; p++) {
    unsigned long long key = ~0ull;
#pragma unroll
    for (int i = 0; i < (E + 31) / 32; i++) {
      const int j = lane + 32 * i;
      if (E % 32 != 0 && j >= E) break;
      const unsigned long long k = psd_key(met[j], j);
      key = k < key ? k : key;
    }
    key = psd_warp_min(key);
    const float m = psd_key_metric(key);
    if (p == 0 && !(m < d2)) return false;
    const int slot = psd_key_slot(key);
    const bool real = slot < E;
    for (int k = lane; k < PSD_N; k += 32) if (real) w.sym[X + 1][p][k] = (unsigned char)psd_node_level<X>(w, slot, k);
    if (lane == 0) {
      w.pm[X + 1][p] = m;
      if (real) met[slot] = __uint_as_float(PSD_INF_BITS);
    }
    __syncwarp();
  }
  return true;
}

template <int X>
__device__ __forceinline__ void psd_expand_at(int x, PsdWarp& w, int lane, float& d2, long long& nodes, float scale) {
  if (x == X) psd_expand<X>(w, lane, d2, nodes, scale);
  else if constexpr (X < PSD_S) psd_expand_at<X + 1>(x, w, lane, d2, nodes, scale);
}

template <int X>
__device__ __forceinline__ bool psd_take_at(int x, PsdWarp& w, int lane, float d2) {
  if constexpr (X >= PSD_S) return false;
  else {
    if (x == X) return psd_take<X>(w, lane, d2);
    return psd_take_at<X + 1>(x, w, lane, d2);
  }
}

extern "C" __global__ void __launch_bounds__(32 * PSD_WARPS) psd_warp(
    const float* __restrict__ y, const float* __restrict__ fac, int* __restrict__ symbols, int* __restrict__ status,
    int vectors, int vpc, long long maxNodes, float scale) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  PsdWarp& w = reinterpret_cast<PsdWarp*>(smem)[warp];
  const int v = blockIdx.x * PSD_WARPS + warp;
  if (v >= vectors) return;
  const int st = status[2 * v];
  if (st != 0) return;
  const float* f = fac + (size_t)(v / vpc) * PSD_FAC_WORDS;
  const int chFlags = (int)__float_as_uint(f[PSD_FAC_FLAGS]);
  if (chFlags != 0) {
    if (lane == 0) status[2 * v] = chFlags;
    return;
  }
  for (int i = lane; i < PSD_N * PSD_N; i += 32) w.R[i] = f[PSD_FAC_R + i];
  for (int k = lane; k < PSD_N; k += 32) {
    w.yh[k] = psd_rotate(f + PSD_FAC_QT, y + (size_t)v * 2 * PSD_NR, k);
    w.perm[k] = (int)__float_as_uint(f[PSD_FAC_PERM + k]);
  }
  if (lane == 0) w.pm[1][0] = 0.f;
  __syncwarp();

  float d2 = __uint_as_float(PSD_INF_BITS);
  long long nodes = 0;
  int flags = 0;
  bool rootTaken = false;
  int x = 1;
  for (;;) {
    bool have;
    if (x == 1) { have = !rootTaken; rootTaken = true; }
    else have = psd_take_at<1>(x - 1, w, lane, d2);
    if (!have) {
      if (x == 1) break;
      x--;
      continue;
    }
    psd_expand_at<1>(x, w, lane, d2, nodes, scale);
    if (x < PSD_S) x++;
    if (nodes >= maxNodes && d2 < __uint_as_float(PSD_INF_BITS)) { flags |= PSD_ST_NODE_BUDGET; break; }
  }
  if (!(d2 < __uint_as_float(PSD_INF_BITS))) flags |= PSD_ST_FLOAT32_UNSAFE;
  for (int j = lane; j < PSD_NT; j += 32) symbols[(size_t)v * PSD_NT + j] = psd_symbol(w.best, w.perm, j);
  if (lane == 0) {
    status[2 * v] = flags;
    status[2 * v + 1] = nodes > 0x7fffffffLL ? 0x7fffffff : (int)nodes;
  }
}
