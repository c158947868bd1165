// Ordered MMSE-SIC, per channel (one thread a channel, a block of channels): the V-BLAST order and
// each step's unbiased MMSE filter row, as the prepare of sic/cpu.ts in float32: at step t the Gram
// matrix of the remaining columns (+ N0 I) is inverted, the stream with the smallest diagonal entry
// of the inverse goes next, with its row of Ginv H_S^H and 1 / mu. Into the channel's scratch record
// (linear.cuh: SIC_STRIDE floats); N0 as in linear-prep.cu.
//
// -D: LIN_NT, LIN_NR, PAM_Q, PAM_SCALE (linear.cuh).
// nvcc-variant: -DLIN_NT=4 -DLIN_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f
// nvcc-variant: -DLIN_NT=16 -DLIN_NR=32 -DPAM_Q=0 -DPAM_SCALE=1.f

#include "../zf/linear.cuh"

extern "C" __global__ void sic_prep(const float* __restrict__ H, const float* __restrict__ noise, const int* __restrict__ status,
                                    float* __restrict__ rec, int channels, int vpc) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= channels) return;
  float* out = rec + (size_t)c * SIC_STRIDE;
  float n0 = 0.f;
  if (!reference_noise(noise, status, c, vpc, &n0)) { out[SIC_FLAGS_OFF] = 0.f; return; }
  Cf h[LIN_NR * LIN_NT], G[LIN_NT * LIN_NT], inv[LIN_NT * LIN_NT];
  int remaining[LIN_NT];
  for (int j = 0; j < LIN_NT; j++) remaining[j] = j;
  load_channel(H, c, h);
  int flags = 0;
  for (int t = 0; t < LIN_NT; t++) {
    const int n = LIN_NT - t;
    gram(h, remaining, n, n0, G);
    flags = invert(G, inv, n);
    if (flags) break;
    int best = 0;
    for (int k = 1; k < n; k++) if (inv[k + k * n].r < inv[best + best * n].r) best = k;
    Cf row[LIN_NR];
    filter_row(inv, h, remaining, n, best, row);
    for (int i = 0; i < LIN_NR; i++) {
      out[SIC_F_OFF + 2 * (t * LIN_NR + i)] = row[i].r;
      out[SIC_F_OFF + 2 * (t * LIN_NR + i) + 1] = row[i].i;
    }
    out[SIC_UNBIAS_OFF + t] = unbias_of(n0, inv[best + best * n].r);
    out[SIC_ORDER_OFF + t] = (float)remaining[best];
    for (int k = best; k + 1 < n; k++) remaining[k] = remaining[k + 1];  // drop it, keep the order
  }
  out[SIC_N0_OFF] = n0;
  out[SIC_FLAGS_OFF] = (float)flags;
}
