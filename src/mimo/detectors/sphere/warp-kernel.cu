// Depth-first Schnorr-Euchner sphere decoder, SP_LANES lanes of a warp a received vector (one
// radius among them). The top SP_TOP levels' candidates, in zig-zag order level by level, make
// SP_COMBOS = q^SP_TOP subtrees numbered t (digits base q, the top level most significant, digit r
// = the r-th candidate of its level in Schnorr-Euchner order); lane l searches t = l, l + SP_LANES,
// .. in turn, each depth-first as cpu.ts below the subtree's root. After every step (a node; the
// descent to a subtree's root counts its SP_TOP nodes) the group takes the least radius of its
// lanes, so a lane prunes with the best leaf any of them found: the result is exact ML, as a leaf
// better than the final radius could only have been cut by a partial metric at or above a radius
// at least that final one. Ties between lanes go to the lower lane. Nodes = the group's total; past
// maxNodes every lane stops, the vector gets MIMO_STATUS.NODE_BUDGET and the best leaf found (the
// sliced ZF point if none). Flagged vectors and channels are skipped as in thread-kernel.cu.
//
// Defines: SP_NT, SP_NR, SP_BPS, SP_BABAI (thread-kernel.cu), SP_LANES (a power of two up to 32).
//
// nvcc-variant: -DSP_NT=4 -DSP_NR=4 -DSP_BPS=2 -DSP_BABAI=0 -DSP_LANES=8
// nvcc-variant: -DSP_NT=4 -DSP_NR=4 -DSP_BPS=4 -DSP_BABAI=1 -DSP_LANES=8
// nvcc-variant: -DSP_NT=8 -DSP_NR=8 -DSP_BPS=6 -DSP_BABAI=0 -DSP_LANES=4
// nvcc-variant: -DSP_NT=3 -DSP_NR=2 -DSP_BPS=1 -DSP_BABAI=0 -DSP_LANES=8

#include "sphere.cuh"

#define SP_FULL 0xffffffffu

// Levels fixed at a subtree's root: the fewest whose q^SP_TOP candidates give every lane one, at most n.
__host__ __device__ constexpr int sp_top_levels() {
  int d = 1, c = SP_Q;
  while (c < SP_LANES && d < SP_N) { d++; c *= SP_Q; }
  return d;
}
__host__ __device__ constexpr int sp_combos() {
  int c = 1;
  for (int d = 0; d < sp_top_levels(); d++) c *= SP_Q;
  return c;
}
#define SP_TOP (sp_top_levels())
#define SP_COMBOS (sp_combos())

// The r-th candidate of a level centred at u in cpu.ts's zig-zag order (r < q).
__device__ __forceinline__ int sp_rank_candidate(float u, int r) {
  const int i0 = sp_slice(u);
  int lo = i0 - 1, hi = i0 + 1, cand = i0;
  for (int s = 0; s < r; s++) {
    const bool lOk = lo >= 0, hOk = hi <= SP_Q - 1;
    if (lOk && (!hOk || u - (float)lo <= (float)hi - u)) { cand = lo; lo--; } else { cand = hi; hi++; }
  }
  return cand;
}

extern "C" __global__ void __launch_bounds__(128) sphere_warp(
    const float* __restrict__ F, const int* __restrict__ I, const float* __restrict__ y,
    int* __restrict__ symbols, int* __restrict__ status, int vectors, int vpc, int maxNodes) {
  const int gt = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = gt / SP_LANES, gl = gt % SP_LANES, lane = threadIdx.x % 32;
  bool active = v < vectors && status[2 * v] == 0;
  const int c = active ? v / vpc : 0;
  const float* f = F + (size_t)c * SP_FLOATS;
  const int* perm = I + (size_t)c * SP_INTS;
  if (active && perm[SP_N] != 0) {
    if (gl == 0) status[2 * v] |= perm[SP_N];
    active = false;
  }
  const float* rows = f + SP_OFF_ROWS;
  const float* invDiag = f + SP_OFF_INVDIAG;
  const float* weight = f + SP_OFF_WEIGHT;
  float yHat[SP_N], amp[SP_N], pd[SP_N + 1], centre[SP_N];
  int idx[SP_N], lo[SP_N], hi[SP_N], best[SP_N];
  const float scale = sp_scale(), half = 0.5f * (SP_Q - 1), toIndex = 1.0f / (2.0f * scale);
  const int qMax = SP_Q - 1, kTop = SP_N - SP_TOP;  // positions >= kTop are a subtree's root
  float r2 = SP_BIG, mine = SP_BIG;  // shared radius; this lane's best leaf
  if (active) {
    sp_rotate(f + SP_OFF_Q, y + (size_t)v * 2 * SP_NR, yHat);
#if SP_BABAI
    r2 = sp_zf(rows, invDiag, yHat, amp, best) * 1.000244140625f + 1e-30f;
#endif
  }
  pd[SP_N] = 0.0f;
  int t = gl, k = 0, nodes = 0;
  bool inTree = false, done = !active || t >= SP_COMBOS, stopped = false;
  while (__any_sync(SP_FULL, !done)) {
    if (!done) {
      if (!inTree) {
        // Descend to subtree t's root, level by level.
        bool cut = false;
        int digits = t;
        for (int d = 0; d < SP_TOP; d++) {
          const int kk = SP_N - 1 - d;
          int div = 1;
          for (int e = d + 1; e < SP_TOP; e++) div *= SP_Q;
          const int r = (digits / div) % SP_Q;
          const float u = sp_centre(rows, invDiag, yHat, amp, kk, toIndex, half);
          const int cand = sp_rank_candidate(u, r);
          const float dlt = (float)cand - u;
          const float m = pd[kk + 1] + weight[kk] * dlt * dlt;
          nodes++;
          if (!(m < r2)) { cut = true; break; }
          idx[kk] = cand; pd[kk] = m; amp[kk] = (float)(2 * cand - qMax) * scale;
        }
        if (!cut && kTop == 0) {
          // the root is a leaf (tiny trees)
          r2 = pd[0]; mine = r2;
          for (int j = 0; j < SP_N; j++) best[j] = idx[j];
        } else if (!cut) {
          k = kTop - 1;
          sp_open(k, sp_centre(rows, invDiag, yHat, amp, k, toIndex, half), centre, idx, lo, hi);
          inTree = true;
        }
        if (!inTree) { t += SP_LANES; done = t >= SP_COMBOS; }
      } else {
        // One step of cpu.ts's search below the root.
        const float dlt = (float)idx[k] - centre[k];
        const float m = pd[k + 1] + weight[k] * dlt * dlt;
        nodes++;
        bool next = true;
        if (m < r2) {
          if (k == 0) {
            r2 = m; mine = m;
            for (int j = 0; j < SP_N; j++) best[j] = idx[j];
            k = 1;
          } else {
            sp_descend(k, m, rows, invDiag, yHat, amp, pd, centre, idx, lo, hi, toIndex, half);
            k--;
            next = false;
          }
        } else {
          k++;
        }
        if (next) {
          bool more = false;
          while (k < kTop) {
            if (sp_next_candidate(k, centre, idx, lo, hi)) { more = true; break; }
            k++;
          }
          if (!more) { inTree = false; t += SP_LANES; done = t >= SP_COMBOS; }
        }
      }
    }
    // The group's radius and node total (lanes of other vectors in the warp exchange their own).
    int total = nodes;
#pragma unroll
    for (int off = SP_LANES / 2; off > 0; off >>= 1) {
      r2 = fminf(r2, __shfl_sync(SP_FULL, r2, lane ^ off));
      total += __shfl_sync(SP_FULL, total, lane ^ off);
    }
    if (active && total > maxNodes && !stopped) { stopped = true; done = true; }
  }
  // The lane holding the least leaf writes the vector.
  float bm = mine;
  int bl = gl;
  int total = nodes;
#pragma unroll
  for (int off = SP_LANES / 2; off > 0; off >>= 1) {
    const float om = __shfl_sync(SP_FULL, bm, lane ^ off);
    const int ol = __shfl_sync(SP_FULL, bl, lane ^ off);
    if (om < bm || (om == bm && ol < bl)) { bm = om; bl = ol; }
    total += __shfl_sync(SP_FULL, total, lane ^ off);
  }
  if (!active) return;
  if (bm == SP_BIG) {
    // no leaf inside the radius (or none before the budget): the sliced ZF point
    if (gl != 0) return;
    sp_zf(rows, invDiag, yHat, amp, best);
  } else if (gl != bl) {
    return;
  }
  sp_write_symbols(perm, best, symbols + (size_t)v * SP_NT);
  if (stopped) status[2 * v] |= SP_STATUS_NODE_BUDGET;
  status[2 * v + 1] = stopped ? (total < maxNodes ? total : maxNodes) : total;
}
