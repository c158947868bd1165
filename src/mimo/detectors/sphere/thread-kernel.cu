// Depth-first Schnorr-Euchner sphere decoder, one thread a received vector: cpu.ts SphereSearch
// .search step for step in float32 (zig-zag candidates from the rounded centre, a branch cut once
// its partial metric reaches the squared radius, the radius shrunk to every leaf, the node count
// and budget), on the per-channel factors of prep-kernel.cu. Past maxNodes nodes the vector gets
// MIMO_STATUS.NODE_BUDGET and the best leaf found (the sliced ZF point if none); status word 1
// gets the nodes visited. A vector whose status flags are set on entry, or whose channel is flagged,
// is skipped (the channel's flag is added to its status).
//
// Defines: SP_NT, SP_NR, SP_BPS (sphere.cuh); SP_BABAI 1: the initial radius is the sliced ZF
// point's distance (cpu.ts 'babai'), inflated by 2^-12 so that float32 rounding cannot exclude it.
//
// nvcc-variant: -DSP_NT=4 -DSP_NR=4 -DSP_BPS=2 -DSP_BABAI=0
// nvcc-variant: -DSP_NT=4 -DSP_NR=4 -DSP_BPS=4 -DSP_BABAI=1
// nvcc-variant: -DSP_NT=8 -DSP_NR=8 -DSP_BPS=6 -DSP_BABAI=0
// nvcc-variant: -DSP_NT=3 -DSP_NR=2 -DSP_BPS=1 -DSP_BABAI=0

#include "sphere.cuh"

// F, I: prep-kernel.cu's scratch; y, symbols, status: the chunk layouts of src/mimo/gpu/cuda-detector.ts.
extern "C" __global__ void __launch_bounds__(128) sphere_thread(
    const float* __restrict__ F, const int* __restrict__ I, const float* __restrict__ y,
    int* __restrict__ symbols, int* __restrict__ status, int vectors, int vpc, int maxNodes) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors || status[2 * v] != 0) return;
  const int c = v / vpc;
  const float* f = F + (size_t)c * SP_FLOATS;
  const int* perm = I + (size_t)c * SP_INTS;
  if (perm[SP_N] != 0) { status[2 * v] |= perm[SP_N]; return; }
  const float* rows = f + SP_OFF_ROWS;
  const float* invDiag = f + SP_OFF_INVDIAG;
  const float* weight = f + SP_OFF_WEIGHT;
  float yHat[SP_N], amp[SP_N], pd[SP_N + 1], centre[SP_N];
  int idx[SP_N], lo[SP_N], hi[SP_N], best[SP_N];
  sp_rotate(f + SP_OFF_Q, y + (size_t)v * 2 * SP_NR, yHat);
  const float scale = sp_scale(), half = 0.5f * (SP_Q - 1), toIndex = 1.0f / (2.0f * scale);
#if SP_BABAI
  float r2 = sp_zf(rows, invDiag, yHat, amp, best) * 1.000244140625f + 1e-30f;
#else
  float r2 = SP_BIG;
#endif
  bool found = false, stopped = false;
  int nodes = 0, k = SP_N - 1;
  pd[SP_N] = 0.0f;
  sp_open(k, yHat[k] * invDiag[k] * toIndex + half, centre, idx, lo, hi);
  for (;;) {
    const float dlt = (float)idx[k] - centre[k];
    const float m = pd[k + 1] + weight[k] * dlt * dlt;
    if (++nodes > maxNodes) { nodes--; stopped = true; break; }
    if (m < r2) {
      if (k == 0) {
        r2 = m;
        found = true;
        for (int j = 0; j < SP_N; j++) best[j] = idx[j];
        k = 1;
      } else {
        sp_descend(k, m, rows, invDiag, yHat, amp, pd, centre, idx, lo, hi, toIndex, half);
        k--;
        continue;
      }
    } else {
      k++;
    }
    bool more = false;
    while (k < SP_N) {
      if (sp_next_candidate(k, centre, idx, lo, hi)) { more = true; break; }
      k++;
    }
    if (!more) break;
  }
  if (!found) sp_zf(rows, invDiag, yHat, amp, best);
  sp_write_symbols(perm, best, symbols + (size_t)v * SP_NT);
  if (stopped) status[2 * v] |= SP_STATUS_NODE_BUDGET;
  status[2 * v + 1] = nodes;
}
