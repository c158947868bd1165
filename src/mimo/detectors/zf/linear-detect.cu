// zf and mmse, per received vector: one thread a (vector, stream), s~_k = W_k y, sliced at s~_k / mu_k
// (linearDetect in zf/linear.ts, float32); W and 1 / mu from the channel's scratch record
// (linear-prep.cu). A vector the engine flagged is skipped; one whose channel's Gram matrix broke
// down gets the channel's flag, and (mmse) one whose N0 differs from the N0 of the channel's filter
// gets FLOAT32_UNSAFE: the engine redoes those on the CPU. Blocks hold whole vectors.
//
// -D: LIN_NT, LIN_NR, PAM_Q, PAM_SCALE (linear.cuh), LIN_MMSE (1: the filter depends on N0).
// nvcc-variant: -DLIN_NT=4 -DLIN_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DLIN_MMSE=0
// nvcc-variant: -DLIN_NT=8 -DLIN_NR=8 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DLIN_MMSE=1
// nvcc-variant: -DLIN_NT=16 -DLIN_NR=32 -DPAM_Q=0 -DPAM_SCALE=1.f -DLIN_MMSE=1

#include "linear.cuh"

#ifndef LIN_MMSE
#define LIN_MMSE 0
#endif

extern "C" __global__ void linear_detect(const float* __restrict__ y, const float* __restrict__ noise, const float* __restrict__ rec,
                                         int* __restrict__ symbols, int* status, int vectors, int vpc) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = g / LIN_NT, k = g - v * LIN_NT;
  const bool here = threadIdx.x < (blockDim.x / LIN_NT) * LIN_NT && v < vectors;
  const int pre = here ? status[2 * v] : 1;
  __syncthreads();  // every stream of a vector has read its flags before stream 0 adds to them
  if (pre != 0) return;
  const float* r = rec + (size_t)(v / vpc) * LIN_STRIDE;
  int flags = (int)r[LIN_FLAGS_OFF];
  if (LIN_MMSE && noise[v] != r[LIN_N0_OFF]) flags |= ST_FLOAT32_UNSAFE;
  if (flags) {
    if (k == 0) status[2 * v] = flags;
    return;
  }
  Cf w[LIN_NR], yv[LIN_NR];
  load_row(r + LIN_W_OFF + 2 * k * LIN_NR, w);
  load_row(y + (size_t)v * 2 * LIN_NR, yv);
  const Cf z = apply_row(w, yv);
  const float u = r[LIN_UNBIAS_OFF + k];
  Cf pt;
  symbols[(size_t)v * LIN_NT + k] = slice_symbol(z.r * u, z.i * u, &pt);
}
