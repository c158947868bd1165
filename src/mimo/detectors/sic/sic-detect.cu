// Ordered MMSE-SIC, per received vector (one thread a vector): at each step the step's filter row
// on the residual, slicing at s~ / mu, and the cancellation of the decided symbol times its column
// of H, as the detect of sic/cpu.ts in float32; the order, rows and 1 / mu from the channel's scratch
// record (sic-prep.cu). Flags as in linear-detect.cu (N0 always matters here).
//
// -D: LIN_NT, LIN_NR, PAM_Q, PAM_SCALE (linear.cuh).
// nvcc-variant: -DLIN_NT=4 -DLIN_NR=4 -DPAM_Q=4 -DPAM_SCALE=0.31622776601683794f
// nvcc-variant: -DLIN_NT=3 -DLIN_NR=5 -DPAM_Q=8 -DPAM_SCALE=0.1543033499620919f
// nvcc-variant: -DLIN_NT=16 -DLIN_NR=32 -DPAM_Q=0 -DPAM_SCALE=1.f

#include "../zf/linear.cuh"

extern "C" __global__ void sic_detect(const float* __restrict__ H, const float* __restrict__ y, const float* __restrict__ noise,
                                      const float* __restrict__ rec, int* __restrict__ symbols, int* __restrict__ status,
                                      int vectors, int vpc) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= vectors || status[2 * v] != 0) return;
  const int c = v / vpc;
  const float* r = rec + (size_t)c * SIC_STRIDE;
  int flags = (int)r[SIC_FLAGS_OFF];
  if (noise[v] != r[SIC_N0_OFF]) flags |= ST_FLOAT32_UNSAFE;
  if (flags) { status[2 * v] = flags; return; }
  const float* h = H + (size_t)c * 2 * LIN_NR * LIN_NT;
  Cf res[LIN_NR];
  load_row(y + (size_t)v * 2 * LIN_NR, res);
#pragma unroll 1
  for (int t = 0; t < LIN_NT; t++) {
    Cf f[LIN_NR];
    load_row(r + SIC_F_OFF + 2 * t * LIN_NR, f);
    const Cf z = apply_row(f, res);
    const float u = r[SIC_UNBIAS_OFF + t];
    Cf a;
    const int s = slice_symbol(z.r * u, z.i * u, &a);
    const int k = (int)r[SIC_ORDER_OFF + t];
    symbols[(size_t)v * LIN_NT + k] = s;
    Cf hk[LIN_NR];
    load_row(h + 2 * k * LIN_NR, hk);
#pragma unroll
    for (int i = 0; i < LIN_NR; i++) {
      res[i].r -= hk[i].r * a.r - hk[i].i * a.i;
      res[i].i -= hk[i].r * a.i + hk[i].i * a.r;
    }
  }
}
