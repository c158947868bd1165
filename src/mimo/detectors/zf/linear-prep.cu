// zf and mmse, per channel (one thread a channel, a block of channels): W = (H^H H + a I)^{-1} H^H
// (a = 0 for zf, a = N0 for mmse) and 1 / mu_k with mu_k = 1 - a [(H^H H + a I)^{-1}]_kk, into the
// channel's scratch record (linear.cuh: LIN_STRIDE floats); the mirror of createLinear's prepare
// (zf/linear.ts) in float32. N0 is that of the channel's first vector not flagged by the engine
// (linear-detect.cu sends a vector with another N0 back to the CPU engine). A singular or
// float32-unsafe Gram matrix leaves its flag in the record for linear-detect.cu to give each vector.
//
// -D: LIN_NT, LIN_NR, PAM_Q, PAM_SCALE, LIN_STAGE (linear.cuh), LIN_MMSE (0: zf, 1: mmse).
// nvcc-variant: -DLIN_NT=4 -DLIN_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DLIN_MMSE=0 -DLIN_STAGE=1
// nvcc-variant: -DLIN_NT=8 -DLIN_NR=8 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DLIN_MMSE=1
// nvcc-variant: -DLIN_NT=9 -DLIN_NR=12 -DPAM_Q=16 -DPAM_SCALE=0.07669649888473704f -DLIN_MMSE=0
// nvcc-variant: -DLIN_NT=16 -DLIN_NR=32 -DPAM_Q=0 -DPAM_SCALE=1.f -DLIN_MMSE=1

#include "linear.cuh"

#ifndef LIN_MMSE
#define LIN_MMSE 0
#endif

// One channel: its H at h (nr x nt complex), its record to out.
__device__ __forceinline__ void linear_channel(const float* h, const float* __restrict__ noise, const int* __restrict__ status, int c, int vpc, float* out) {
  float n0 = 0.f;
  if (!reference_noise(noise, status, c, vpc, &n0)) { out[LIN_FLAGS_OFF] = 0.f; return; }
  const float a = LIN_MMSE ? n0 : 0.f;
  Cf G[LIN_NT * LIN_NT];
  const float scale = gram_masked(h, (1u << LIN_NT) - 1u, a, G);
  const int flags = invert_in_place(G, scale);
  out[LIN_N0_OFF] = n0;
  out[LIN_FLAGS_OFF] = (float)flags;
  if (flags) return;
UNROLL_NT
  for (int k = 0; k < LIN_NT; k++) {
    Cf g[LIN_NT], row[LIN_NR];
UNROLL_NT
    for (int j = 0; j < LIN_NT; j++) g[j] = G[k + j * LIN_NT];
    filter_row(h, g, row);
#pragma unroll
    for (int i = 0; i < LIN_NR; i++) {
      out[LIN_W_OFF + 2 * (k * LIN_NR + i)] = row[i].r;
      out[LIN_W_OFF + 2 * (k * LIN_NR + i) + 1] = row[i].i;
    }
    out[LIN_UNBIAS_OFF + k] = unbias_of(a, G[k + k * LIN_NT].r);
  }
}

// H: channels x LIN_NR x LIN_NT complex (normalized by the engine); noise, status: one N0 and two
// status words per vector; rec: the channels' scratch records.
extern "C" __global__ void linear_prep(const float* __restrict__ H, const float* __restrict__ noise, const int* __restrict__ status,
                                       float* __restrict__ rec, int channels, int vpc) {
  prep_channels<LIN_STRIDE, linear_channel>(H, noise, status, rec, channels, vpc);
}
