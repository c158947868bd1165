// The normalize stage (normalize.cuh's scaling, flags and summary heads, the same numbers) for
// chunks of one vector a channel, as OFDM grids give (a channel per resource element): a group of
// NORM_LANES lanes a channel, 32 / NORM_LANES channels a warp, so that the per-channel steps (the
// max, the ballots, the status words) are shared by a warp's channels instead of taking a warp
// each. Arguments as mimo_normalize's (normalize.cu) with vpc = 1.
// Launch: grid ceil(channels / (WARPS 32 / NORM_LANES)), block 32 WARPS.
// nvcc-variant: -DWARPS=4 -DNORM_LANES=8

#include "normalize.cuh"

#ifndef WARPS
#define WARPS 4
#endif
#ifndef NORM_LANES
#define NORM_LANES 8
#endif
#define NORM_GROUPS (32 / NORM_LANES)

extern "C" __global__ void __launch_bounds__(32 * WARPS) mimo_normalize_single(
    float* __restrict__ H, float* __restrict__ y, const float* __restrict__ noiseIn, float noiseScalar,
    float* __restrict__ noiseOut, int* __restrict__ status, int* __restrict__ summary, int channels, int hLen, int yLen,
    long long valid) {
  const int lane = threadIdx.x & 31, sub = lane % NORM_LANES, grp = lane / NORM_LANES;
  const long long warp0 = ((long long)blockIdx.x * WARPS + (threadIdx.x >> 5)) * NORM_GROUPS;
  if (warp0 >= channels) return;  // the whole warp
  const long long c = warp0 + grp;
  const bool mine = c < channels;
  const unsigned group = (NORM_LANES == 32 ? NORM_FULL_MASK : (1u << NORM_LANES) - 1u) << (grp * NORM_LANES);
  float* h = H + c * hLen;
  float m = 0.0f;
  bool ok = true;
  if (mine)
    for (int i = sub; i < hLen; i += NORM_LANES) {
      const float v = h[i];
      ok = ok && norm_finite(v);
      m = fmaxf(m, fabsf(v));
    }
  for (int o = NORM_LANES / 2; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(NORM_FULL_MASK, m, o));
  ok = (__ballot_sync(NORM_FULL_MASK, !ok) & group) == 0;
  int p = 0;
  if (ok && m > 0.0f) {
    int e;
    frexpf(m, &e);  // m = f 2^e, f in [0.5, 1)
    p = 1 - e;
  }
  if (mine && ok && p != 0)
    for (int i = sub; i < hLen; i += NORM_LANES) h[i] = ldexpf(h[i], p);
  bool fin = true, fits = true;
  if (mine) {
    float* yv = y + c * yLen;
    for (int i = sub; i < yLen; i += NORM_LANES) {
      const float x = yv[i];
      fin = fin && norm_finite(x);
      if (p != 0) {
        const float s = ldexpf(x, p);
        fits = fits && (norm_finite(s) || !norm_finite(x));
        yv[i] = s;
      }
    }
  }
  fin = (__ballot_sync(NORM_FULL_MASK, !fin) & group) == 0;
  fits = (__ballot_sync(NORM_FULL_MASK, !fits) & group) == 0;
  if (mine && sub == 0) {
    const int f = norm_finish_vector(c, ok && fin, fits, p, noiseIn, noiseScalar, noiseOut, status);
    if (summary) mimo_summary_head(summary, c, c < valid ? f : 0);
  }
}
