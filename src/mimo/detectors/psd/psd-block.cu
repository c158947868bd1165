// psd_block: the paper's mapping of the PSD (Jozsa et al., Section 5 and Alg. 1): one thread block
// a received vector, PSD_THREADS threads (Table 1's tt: the largest stage's expanded nodes, in
// warps). Stage x expands its chunk of paths_lvl_{x-1} parents into buffer x in shared memory (one
// thread a child node), bitonic-sorts the buffer on (path metric, slot) keys (the CPU's order and
// tie rule), and descends; at the leaf level a block-wide min reduction finds the best leaf and the
// shared radius d^2 shrinks to it; PROCESS's offsets per buffer drive the backtracking. Step for
// step the walk of detectors/psd/cpu.ts in float32.
//
// In:  y (vectors x nr complex), fac (psd_prep's factors per channel), status ([flags, nodes] a
//      vector; a vector whose flags are already set is skipped).
// Out: symbols (vectors x nt), status (flags |= NODE_BUDGET / FLOAT32_UNSAFE / the channel's, nodes);
//      summary: null, or the channels' summaries (status-summary.cuh) that each real vector
//      (v < real) it searches or flags adds its flags and node count to.
//
// nvcc-variant: -DPSD_NT=4 -DPSD_NR=4 -DPSD_BPSK=0 -DPSD_Q=4 -DPSD_S=3 -DPSD_L0=9 -DPSD_L1=6 -DPSD_L2=4 -DPSD_L3=1 -DPSD_P0=1 -DPSD_P1=4 -DPSD_P2=1 -DPSD_LABELS=0x1023ull -DPSD_THREADS=64
// nvcc-variant: -DPSD_NT=2 -DPSD_NR=2 -DPSD_BPSK=1 -DPSD_Q=2 -DPSD_S=1 -DPSD_L0=3 -DPSD_L1=1 -DPSD_P0=1 -DPSD_THREADS=32

#include "psd-common.cuh"

__host__ __device__ constexpr int psd_pow2(int e) { return e <= 1 ? 1 : 2 * psd_pow2((e + 1) / 2); }
// Offset of buffer x (1 .. S-1) in the block's key array (each buffer padded to a power of two).
__host__ __device__ constexpr int psd_key_off(int x) { return x <= 1 ? 0 : psd_key_off(x - 1) + psd_pow2(psd_expanded(x - 1)); }
#define PSD_KEY_WORDS (PSD_S > 1 ? psd_key_off(PSD_S) : 1)
#define PSD_PMAX (psd_max_paths() > 0 ? psd_max_paths() : 1)
#define PSD_WMAX psd_max_width()

struct PsdBlock {
  unsigned long long key[PSD_KEY_WORDS];
  unsigned long long red[PSD_THREADS / 32];
  float R[PSD_N * PSD_N];
  float yh[PSD_N];
  float base[PSD_S + 1][PSD_PMAX][PSD_WMAX];
  float pm[PSD_S + 1][PSD_PMAX];
  int off[PSD_S + 1];
  int cnt[PSD_S + 1];
  int perm[PSD_N];
  unsigned char sym[PSD_S + 1][PSD_PMAX][PSD_N];
  unsigned char best[PSD_N];
};

// EXPAND AND EVALUATE for stage X with `parents` nodes of buffer X-1 from offset o (the root for
// X = 1), then the sort (below the leaves) or the reduction and radius update (leaves).
template <int X>
__device__ __forceinline__ void psd_stage(PsdBlock& b, int tid, int o, int parents, float& d2, long long& nodes, float scale) {
  constexpr int C = psd_children(X), P = psd_paths(X - 1);
  constexpr int lo = psd_lo(X), W = psd_width(X);
  if constexpr (X > 1) {
    for (int t = tid; t < parents * PSD_N; t += PSD_THREADS) {
      const int p = t / PSD_N, k = t % PSD_N;
      const unsigned long long key = b.key[psd_key_off(X - 1) + o + p];
      b.sym[X][p][k] = (unsigned char)psd_node_level<X - 1>(b, psd_key_slot(key), k);
      if (k == 0) b.pm[X][p] = psd_key_metric(key);
    }
    __syncthreads();
  }
  for (int t = tid; t < parents * W; t += PSD_THREADS) {
    const int p = t / W, k = lo + t % W;
    b.base[X][p][t % W] = psd_parent_residual<X>(b, p, k, scale);
  }
  __syncthreads();
  int alive = 0;
  for (int p = 0; p < parents; p++) alive += b.pm[X][p] < d2;
  nodes += (long long)alive * C;
  const int written = parents * C;
  unsigned long long bestKey = ~0ull;
  constexpr int PAD = X < PSD_S ? psd_pow2(P * C) : P * C;
  for (int j = tid; j < PAD; j += PSD_THREADS) {
    unsigned long long key = ~0ull;
    if (j < written) {
      const float metric = psd_child_metric<X>(b, j / C, j % C, d2, scale);
      key = psd_key(metric, j);
    }
    if constexpr (X < PSD_S) b.key[psd_key_off(X) + j] = key;
    else bestKey = key < bestKey ? key : bestKey;
  }
  if constexpr (X < PSD_S) {
    // Bitonic sort of the buffer's keys (padding keys ~0 sort last).
    __syncthreads();
    unsigned long long* k = b.key + psd_key_off(X);
    for (int size = 2; size <= PAD; size <<= 1) {
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        for (int i = tid; i < PAD; i += PSD_THREADS) {
          const int ixj = i ^ stride;
          if (ixj > i) {
            const unsigned long long a = k[i], c2 = k[ixj];
            if ((a > c2) == ((i & size) == 0)) { k[i] = c2; k[ixj] = a; }
          }
        }
        __syncthreads();
      }
    }
    if (tid == 0) { b.cnt[X] = written; b.off[X] = 0; b.off[X - 1] = o + parents; }
  } else {
    // Best leaf: warp minima, then the block's.
    bestKey = psd_warp_min(bestKey);
    if ((tid & 31) == 0) b.red[tid >> 5] = bestKey;
    __syncthreads();
    bestKey = b.red[0];
    for (int i = 1; i < PSD_THREADS / 32; i++) bestKey = b.red[i] < bestKey ? b.red[i] : bestKey;
    const float m = psd_key_metric(bestKey);
    if (m < d2) {
      d2 = m;
      const int slot = psd_key_slot(bestKey);
      for (int k = tid; k < PSD_N; k += PSD_THREADS) b.best[k] = (unsigned char)psd_node_level<X>(b, slot, k);
    }
    if (tid == 0) b.off[X - 1] = o + parents;
  }
  __syncthreads();
}

template <int X>
__device__ __forceinline__ void psd_stage_at(int x, PsdBlock& b, int tid, int o, int parents, float& d2, long long& nodes, float scale) {
  if (x == X) psd_stage<X>(b, tid, o, parents, d2, nodes, scale);
  else if constexpr (X < PSD_S) psd_stage_at<X + 1>(x, b, tid, o, parents, d2, nodes, scale);
}

// Metric of the node at offset o of buffer X's sorted keys (x given at run time).
template <int X>
__device__ __forceinline__ float psd_first_at(int x, const PsdBlock& b, int o) {
  if constexpr (X >= PSD_S) return 0.f;
  else {
    if (x == X) return psd_key_metric(b.key[psd_key_off(X) + o]);
    return psd_first_at<X + 1>(x, b, o);
  }
}

__device__ __forceinline__ int psd_paths_at(int x) {
  int p = 1;
#pragma unroll
  for (int i = 0; i < PSD_S; i++) if (i == x) p = psd_paths(i);
  return p;
}

extern "C" __global__ void __launch_bounds__(PSD_THREADS) psd_block(
    const float* __restrict__ y, const float* __restrict__ fac, int* __restrict__ symbols, int* __restrict__ status,
    int vectors, int vpc, long long maxNodes, float scale, int* __restrict__ summary, long long real) {
  extern __shared__ __align__(16) unsigned char smem[];
  PsdBlock& b = *reinterpret_cast<PsdBlock*>(smem);
  const int tid = threadIdx.x;
  const int v = blockIdx.x;
  if (v >= vectors) return;
  if (status[2 * v] != 0) return;
  const float* f = fac + (size_t)(v / vpc) * PSD_FAC_WORDS;
  const int chFlags = (int)__float_as_uint(f[PSD_FAC_FLAGS]);
  if (chFlags != 0) {
    if (tid == 0) psd_flag_vector(status, summary, v, vpc, real, chFlags);
    return;
  }
  psd_load_vector<PSD_THREADS>(b, f, y, v, tid);
  if (tid == 0) { b.pm[1][0] = 0.f; b.off[0] = 0; b.cnt[0] = 1; }
  __syncthreads();

  float d2 = __uint_as_float(PSD_INF_BITS);
  long long nodes = 0;
  int flags = 0;
  int x = 1;
  // PROCESS: expand the next chunk of buffer x-1 while its first node is inside the radius, else
  // go back up (done at the root).
  for (;;) {
    const int o = b.off[x - 1], c = b.cnt[x - 1];
    if (o < c && (x == 1 || psd_first_at<1>(x - 1, b, o) < d2)) {
      const int parents = min(psd_paths_at(x - 1), c - o);
      psd_stage_at<1>(x, b, tid, o, parents, d2, nodes, scale);
      if (x < PSD_S) x++;
      if (nodes >= maxNodes && d2 < __uint_as_float(PSD_INF_BITS)) { flags |= PSD_ST_NODE_BUDGET; break; }
    } else {
      if (x == 1) break;
      x--;
    }
  }
  psd_finish<PSD_THREADS>(b, tid, v, d2, nodes, flags, symbols, status, summary, vpc, real);
}
