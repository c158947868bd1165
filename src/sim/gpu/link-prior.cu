// The a-priori LLRs of the next detection pass of iterative detection and decoding (src/sim/coded.ts
// decodeRange with the decoder's extrinsic output, then framePriors): channel bit j of frame f gets
// the extrinsic LLR of the codeword column it was sent as, map[j] (j itself for a code sent whole),
// so a repeated column's goes to each of its positions and a punctured or filler column's to none;
// the frame's pad bits past its n channel bits get 0 (no prior). A column's extrinsic LLR is the
// decoder's posterior minus its input as the decoder took it (ldpc.cuh ldpc_load, the CPU decoder's
// run(): clipped to +-saturation, non-finite as 0; min-sum: rounded to the 1/16 step), which for
// min-sum is exact in float32 (both are multiples of 1/16 below 2^20).
//   post    float32, frames x nFull: the decoder's posterior LLRs (LdpcCudaPlan's `posteriors`)
//   input   float32, frames x nFull: the decoder's input (its `llr`)
//   map     int32, n: channel position -> column (null: the identity)
//   prior   float32 out, frames x per (per = vectorsPerFrame x nt x bitsPerSymbol, the detector's layout)
// One thread per prior entry.
// nvcc-variant: -DLINK_BLOCK=256

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_prior(
    const float* __restrict__ post, const float* __restrict__ input, const int* __restrict__ map, float* __restrict__ prior,
    int frames, int per, int n, int nFull, double saturation, int minSum) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= (long long)frames * per) return;
  const long long f = g / per;
  const int j = (int)(g - f * per);
  float e = 0.0f;
  if (j < n) {
    const long long at = f * nFull + (map ? map[j] : j);
    double v = (double)input[at];
    if (!(v - v == 0.0)) v = 0.0;
    v = v > saturation ? saturation : v < -saturation ? -saturation : v;
    const float taken = minSum ? (float)(floor(v * 16.0 + 0.5) * 0.0625) : (float)v;
    e = post[at] - taken;
  }
  prior[g] = e;
}
