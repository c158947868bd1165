// Ordered MMSE-SIC, per channel (one thread a channel, a block of channels): the V-BLAST order and
// each step's unbiased MMSE filter row, as the prepare of sic/cpu.ts in float32: at step t the Gram
// matrix of the remaining columns (+ N0 I; the identity on the detected ones, linear.cuh) is inverted, the stream with the smallest diagonal entry
// of the inverse goes next, with its row of Ginv H_S^H and 1 / mu. Into the channel's scratch record
// (linear.cuh: SIC_STRIDE floats); N0 as in linear-prep.cu.
//
// -D: LIN_NT, LIN_NR, PAM_Q, PAM_SCALE, LIN_STAGE (linear.cuh).
// nvcc-variant: -DLIN_NT=4 -DLIN_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f -DLIN_STAGE=1
// nvcc-variant: -DLIN_NT=3 -DLIN_NR=5 -DPAM_Q=8 -DPAM_SCALE=0.1543033499620919f
// nvcc-variant: -DLIN_NT=16 -DLIN_NR=32 -DPAM_Q=0 -DPAM_SCALE=1.f

#include "../zf/linear.cuh"

// One channel: its H at h (nr x nt complex), its record to out.
__device__ __forceinline__ void sic_channel(const float* h, const float* __restrict__ noise, const int* __restrict__ status, int c, int vpc, float* out) {
  float n0 = 0.f;
  if (!reference_noise(noise, status, c, vpc, &n0)) { out[SIC_FLAGS_OFF] = 0.f; return; }
  int flags = 0;
#if LIN_NT <= 8
  unsigned remaining = (1u << LIN_NT) - 1u;  // bit j: stream j not detected yet
#pragma unroll 1
  for (int t = 0; t < LIN_NT; t++) {
    Cf G[LIN_NT * LIN_NT];
    const float scale = gram_masked(h, remaining, n0, G);
    flags = invert_in_place(G, scale);
    if (flags) break;
    // the remaining stream of least [Ginv]_kk, the first in stream order on a tie
    int best = -1;
    float bd = 0.f;
UNROLL_NT
    for (int j = 0; j < LIN_NT; j++) {
      const float dj = G[j + j * LIN_NT].r;
      if (((remaining >> j) & 1u) && (best < 0 || dj < bd)) { best = j; bd = dj; }
    }
    Cf g[LIN_NT], row[LIN_NR];
UNROLL_NT
    for (int j = 0; j < LIN_NT; j++) {
      g[j].r = 0.f; g[j].i = 0.f;
UNROLL_NT
      for (int k = 0; k < LIN_NT; k++) if (k == best) g[j] = G[k + j * LIN_NT];
    }
    filter_row(h, g, row);
    const int stream = best;
    remaining &= ~(1u << best);
#else
  int cols[LIN_NT];  // the remaining streams in stream order
  for (int j = 0; j < LIN_NT; j++) cols[j] = j;
  for (int t = 0; t < LIN_NT; t++) {
    const int n = LIN_NT - t;
    Cf G[LIN_NT * LIN_NT];
    const float scale = gram_cols(h, cols, n, n0, G);
    flags = invert_cols(G, n, scale);
    if (flags) break;
    int best = 0;
    for (int k = 1; k < n; k++) if (G[k + k * n].r < G[best + best * n].r) best = k;
    const float bd = G[best + best * n].r;
    Cf g[LIN_NT], row[LIN_NR];
    for (int j = 0; j < LIN_NT; j++) { g[j].r = 0.f; g[j].i = 0.f; }
    for (int j = 0; j < n; j++) g[cols[j]] = G[best + j * n];  // Ginv's row, by stream
    filter_row(h, g, row);
    const int stream = cols[best];
    for (int k = best; k + 1 < n; k++) cols[k] = cols[k + 1];
#endif
#pragma unroll
    for (int i = 0; i < LIN_NR; i++) {
      out[SIC_F_OFF + 2 * (t * LIN_NR + i)] = row[i].r;
      out[SIC_F_OFF + 2 * (t * LIN_NR + i) + 1] = row[i].i;
    }
    out[SIC_UNBIAS_OFF + t] = unbias_of(n0, bd);
    out[SIC_ORDER_OFF + t] = (float)stream;
  }
  out[SIC_N0_OFF] = n0;
  out[SIC_FLAGS_OFF] = (float)flags;
}

extern "C" __global__ void sic_prep(const float* __restrict__ H, const float* __restrict__ noise, const int* __restrict__ status,
                                    float* __restrict__ rec, int channels, int vpc) {
  prep_channels<SIC_STRIDE, sic_channel>(H, noise, status, rec, channels, vpc);
}
