// psd_warp: the PSD search (detectors/psd/cpu.ts, Alg. 1 of Jozsa et al.) with a group of
// PSD_LANES lanes (1 .. 32, a power of two) a received vector, 32 / PSD_LANES vectors a warp and
// PSD_WARPS warps a block (no block barriers).
//
// The same tree walk as the CPU and the paper's block mapping (psd-block.cu): stage x expands a
// chunk of paths_lvl_{x-1} nodes of buffer x-1 (its nodes taken in (metric, slot) order) into all
// their children; below the leaves it descends, at the leaves it keeps the best (metric, slot) and
// shrinks the radius; a buffer whose next node is at or beyond the radius is done (back up).
// Instead of sorting a buffer it extracts its next node by an argmin over the group's nodes not yet
// taken (taken nodes are set to +inf): the order is the sort's order, and most buffers give only
// one or two chunks before the radius closes them, so a full sort is mostly wasted work.
//
// The groups of a warp step together: each pass, every stage that some group is at runs once for
// the whole warp, predicated on the groups at that stage (so warp shuffles and redux always see
// the full warp); at high SNR all vectors walk the same first descent, so little is predicated off.
//
// In:  y (vectors x nr complex), fac (psd_prep's factors per channel), status ([flags, nodes] a
//      vector; a vector whose flags are already set is skipped).
// Out: symbols (vectors x nt), status (flags |= NODE_BUDGET / FLOAT32_UNSAFE / the channel's, nodes);
//      summary: null, or the channels' summaries (status-summary.cuh) that each real vector
//      (v < real) it searches or flags adds its flags and node count to.
//
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull -DPSD_WARPS=4 -DPSD_LANES=32
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=2 -DPSD_S=2 -DPSD_L0=9 -DPSD_L1=4 -DPSD_L2=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_LABELS=0x1ull -DPSD_WARPS=4 -DPSD_LANES=8
// nvcc-variant: -DPSD_NT=2 -DPSD_NR=2 -DPSD_BPSK=1 -DPSD_Q=2 -DPSD_S=1 -DPSD_L0=3 -DPSD_L1=1 -DPSD_P0=1 -DPSD_WARPS=2 -DPSD_LANES=4
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull -DPSD_WARPS=2 -DPSD_LANES=1

#include "psd-common.cuh"

#define PSD_GROUPS (32 / PSD_LANES)

// Offset of buffer x (1 .. S-1) in a vector's metric array.
__host__ __device__ constexpr int psd_buf_off(int x) { return x <= 1 ? 0 : psd_buf_off(x - 1) + psd_expanded(x - 1); }
#define PSD_BUF_WORDS (PSD_S > 1 ? psd_buf_off(PSD_S) : 1)
#define PSD_PMAX (psd_max_paths() > 0 ? psd_max_paths() : 1)
#define PSD_WMAX psd_max_width()

// One vector's search state in shared memory.
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
// Bytes between consecutive vectors' states: an odd number of words, so that the lanes of a warp
// reading the same field of different vectors hit different shared-memory banks.
#define PSD_WARP_STRIDE ((sizeof(PsdWarp) / 4 | 1) * 4)

// Argmin of (metric, slot) keys over the lanes of each group (the whole warp calls it).
__device__ __forceinline__ unsigned long long psd_group_min(unsigned long long k) {
#if PSD_LANES == 32
  return psd_warp_min(k);
#else
  return psd_shfl_min<PSD_LANES>(k);
#endif
}

// Stage X for the groups with `on`: expands the chunk parents in w.sym[X] / w.pm[X] (alive: metric
// below d2). Below the leaves it writes the children's metrics to buffer X; at the leaves it
// updates d2 and w.best. gl: the lane's index in its group.
template <int X>
__device__ __forceinline__ void psd_expand(PsdWarp& w, int gl, bool on, float& d2, long long& nodes, float scale) {
  constexpr int C = psd_children(X), P = psd_paths(X - 1), E = P * C;
  constexpr int lo = psd_lo(X), W = psd_width(X);
  if (on) {
    // Each parent's residual on the rows fixed here after its fixed positions.
    for (int t = gl; t < P * W; t += PSD_LANES) {
      const int p = t / W, k = lo + t % W;
      w.base[X][p][t % W] = psd_parent_residual<X>(w, p, k, scale);
    }
  }
  __syncwarp();
  unsigned long long bestKey = ~0ull;
  if (on) {
    int alive = 0;
#pragma unroll
    for (int p = 0; p < P; p++) alive += w.pm[X][p] < d2;
    nodes += (long long)alive * C;
#pragma unroll
    for (int i = 0; i < (E + PSD_LANES - 1) / PSD_LANES; i++) {
      const int j = gl + PSD_LANES * i;
      if (E % PSD_LANES != 0 && j >= E) break;
      const float metric = psd_child_metric<X>(w, j / C, j % C, d2, scale);
      if constexpr (X < PSD_S) {
        w.met[psd_buf_off(X) + j] = metric;
      } else {
        const unsigned long long key = psd_key(metric, j);
        bestKey = key < bestKey ? key : bestKey;
      }
    }
  }
  if constexpr (X == PSD_S) {
    bestKey = psd_group_min(bestKey);
    const float m = psd_key_metric(bestKey);
    if (on && m < d2) {
      d2 = m;
      const int slot = psd_key_slot(bestKey);
      for (int k = gl; k < PSD_N; k += PSD_LANES) w.best[k] = (unsigned char)psd_node_level<X>(w, slot, k);
    }
  }
  __syncwarp();
}

// For the groups with `on`: the next chunk of buffer X for stage X + 1, up to paths_lvl_X nodes in
// (metric, slot) order. False when the buffer is done (its next node is at or beyond d2).
template <int X>
__device__ __forceinline__ bool psd_take(PsdWarp& w, int gl, bool on, float d2) {
  constexpr int E = psd_expanded(X), P = psd_paths(X);
  float* met = w.met + psd_buf_off(X);
  bool have = true;
#pragma unroll 1
  for (int p = 0; p < P; p++) {
    unsigned long long key = ~0ull;
    if (on) {
#pragma unroll
      for (int i = 0; i < (E + PSD_LANES - 1) / PSD_LANES; i++) {
        const int j = gl + PSD_LANES * i;
        if (E % PSD_LANES != 0 && j >= E) break;
        const unsigned long long k = psd_key(met[j], j);
        key = k < key ? k : key;
      }
    }
    key = psd_group_min(key);
    const float m = psd_key_metric(key);
    if (p == 0 && !(m < d2)) have = false;
    const bool write = on && have;
    const int slot = psd_key_slot(key);
    if (write && slot < E) {
      for (int k = gl; k < PSD_N; k += PSD_LANES) w.sym[X + 1][p][k] = (unsigned char)psd_node_level<X>(w, slot, k);
      if (gl == 0) {
        w.pm[X + 1][p] = m;
        met[slot] = __uint_as_float(PSD_INF_BITS);
      }
    }
    __syncwarp();
  }
  return have;
}

extern "C" __global__ void __launch_bounds__(32 * PSD_WARPS) psd_warp(
    const float* __restrict__ y, const float* __restrict__ fac, int* __restrict__ symbols, int* __restrict__ status,
    int vectors, int vpc, long long maxNodes, float scale, int* __restrict__ summary, long long real) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = threadIdx.x & 31, gl = lane % PSD_LANES;
  const int slotInBlock = (threadIdx.x >> 5) * PSD_GROUPS + lane / PSD_LANES;
  PsdWarp& w = *reinterpret_cast<PsdWarp*>(smem + (size_t)slotInBlock * PSD_WARP_STRIDE);
  const int v = blockIdx.x * (PSD_WARPS * PSD_GROUPS) + slotInBlock;
  // A group without a vector to search (past the end, flags already set, a flagged channel) steps
  // along with its warp, switched off.
  bool done = v >= vectors;
  const float* f = fac;
  if (!done && status[2 * v] != 0) done = true;
  if (!done) {
    f = fac + (size_t)(v / vpc) * PSD_FAC_WORDS;
    const int chFlags = (int)__float_as_uint(f[PSD_FAC_FLAGS]);
    if (chFlags != 0) {
      if (gl == 0) psd_flag_vector(status, summary, v, vpc, real, chFlags);
      done = true;
    }
  }
  if (!__any_sync(0xffffffffu, !done)) return;
  if (!done) {
    psd_load_vector<PSD_LANES>(w, f, y, v, gl);
    if (gl == 0) w.pm[1][0] = 0.f;
  }
  __syncwarp();

  const bool searching = !done;
  float d2 = __uint_as_float(PSD_INF_BITS);
  long long nodes = 0;
  int flags = 0;
  bool rootTaken = false;
  int x = 1;
  while (__any_sync(0xffffffffu, !done)) {
    // The next chunk for stage x (the root for x = 1), per stage some group is at.
    bool have = false;
    if (!done && x == 1) { have = !rootTaken; rootTaken = true; }
#pragma unroll
    for (int X = 1; X < PSD_S; X++) {
      const bool on = !done && x == X + 1;
      if (__any_sync(0xffffffffu, on)) {
        bool h = false;
        // X is a compile-time constant after unrolling; the switch picks its instantiation.
        switch (X) {
#define PSD_TAKE_CASE(K) case K: if constexpr (K < PSD_S) h = psd_take<(K < PSD_S ? K : 1)>(w, gl, on, d2); break;
          PSD_TAKE_CASE(1) PSD_TAKE_CASE(2) PSD_TAKE_CASE(3) PSD_TAKE_CASE(4) PSD_TAKE_CASE(5) PSD_TAKE_CASE(6)
          PSD_TAKE_CASE(7) PSD_TAKE_CASE(8) PSD_TAKE_CASE(9) PSD_TAKE_CASE(10) PSD_TAKE_CASE(11) PSD_TAKE_CASE(12)
          PSD_TAKE_CASE(13) PSD_TAKE_CASE(14) PSD_TAKE_CASE(15) PSD_TAKE_CASE(16)
#undef PSD_TAKE_CASE
        }
        if (on) have = h;
      }
    }
    const bool expandNow = !done && have;
    if (!done && !have) {
      if (x == 1) done = true;
      else x--;
    }
#pragma unroll
    for (int X = 1; X <= PSD_S; X++) {
      const bool on = expandNow && x == X;
      if (__any_sync(0xffffffffu, on)) {
        switch (X) {
#define PSD_EXPAND_CASE(K) case K: if constexpr (K <= PSD_S) psd_expand<(K <= PSD_S ? K : 1)>(w, gl, on, d2, nodes, scale); break;
          PSD_EXPAND_CASE(1) PSD_EXPAND_CASE(2) PSD_EXPAND_CASE(3) PSD_EXPAND_CASE(4) PSD_EXPAND_CASE(5) PSD_EXPAND_CASE(6)
          PSD_EXPAND_CASE(7) PSD_EXPAND_CASE(8) PSD_EXPAND_CASE(9) PSD_EXPAND_CASE(10) PSD_EXPAND_CASE(11) PSD_EXPAND_CASE(12)
          PSD_EXPAND_CASE(13) PSD_EXPAND_CASE(14) PSD_EXPAND_CASE(15) PSD_EXPAND_CASE(16) PSD_EXPAND_CASE(17)
#undef PSD_EXPAND_CASE
        }
      }
    }
    if (expandNow) {
      if (x < PSD_S) x++;
      if (nodes >= maxNodes && d2 < __uint_as_float(PSD_INF_BITS)) { flags |= PSD_ST_NODE_BUDGET; done = true; }
    }
  }
  if (!searching) return;
  psd_finish<PSD_LANES>(w, gl, v, d2, nodes, flags, symbols, status, summary, vpc, real);
}
