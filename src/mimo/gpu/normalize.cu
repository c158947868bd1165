// The GPU engine's first stage of a detection chunk whose detector does not normalize in its own
// first kernel: normalize.cuh on every channel, one warp a channel, WARPS channels a block.
// Arguments as mimo_normalize_channel's (normalize.cuh); summary may be null.
// nvcc-variant: -DWARPS=4

#include "normalize.cuh"

#ifndef WARPS
#define WARPS 4
#endif

extern "C" __global__ void __launch_bounds__(32 * WARPS) mimo_normalize(
    float* __restrict__ H, float* __restrict__ y, const float* __restrict__ noiseIn, float noiseScalar,
    float* __restrict__ noiseOut, int* __restrict__ status, int* __restrict__ summary, int channels, int vpc, int hLen, int yLen,
    long long valid) {
  const int lane = threadIdx.x & 31;
  const int c = blockIdx.x * WARPS + (threadIdx.x >> 5);
  if (c >= channels) return;  // the whole warp: c is the warp's
  mimo_normalize_channel(lane, c, H, y, noiseIn, noiseScalar, noiseOut, status, summary, vpc, hLen, yLen, valid);
}
