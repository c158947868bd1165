// iid Rayleigh flat fading (src/channels/rayleigh/cpu.ts rayleighChannels): entry e of a channel is
// the e-th normal of the channel's words times sqrt(1/2), computed in float64 as the CPU computes it,
// then kept twice: in float64 (the simulated link's y = H s + w reads it) and rounded to float32 for
// the detectors.
//
// A launch draws channels first .. first + count - 1 of a run of Philox streams (ChannelSpan of
// src/channels/types.ts): channel q of the run is the (q mod perStream)-th of stream
// stream0 + floor(q / perStream) * streamStep, and its entries are the Philox blocks
// (q mod perStream) * pairsPerChannel + k of that stream, a block (two normals) an entry. One thread a
// complex entry.
//   H64  count x (nr x nt complex, column-major) doubles, in the CPU's draw order
//   H32  the same as floats (the CUDA detectors' layout, src/mimo/gpu/cuda-detector.ts)
// nvcc-variant: -DCHANNEL_BLOCK=256

#include "../../core/philox.cuh"

#ifndef CHANNEL_BLOCK
#define CHANNEL_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(CHANNEL_BLOCK) rayleigh_channels(
    double* __restrict__ H64, float* __restrict__ H32, unsigned long long seed, unsigned long long stream0,
    unsigned long long streamStep, unsigned long long perStream, unsigned long long first, int count, int pairsPerChannel) {
  const long long g = (long long)blockIdx.x * CHANNEL_BLOCK + threadIdx.x;
  if (g >= (long long)count * pairsPerChannel) return;
  const long long c = g / pairsPerChannel;           // channel of the launch
  const int k = (int)(g - c * pairsPerChannel);       // entry within the channel
  const unsigned long long q = first + c;             // channel of the run
  const unsigned long long stream = stream0 + (q / perStream) * streamStep;
  const philox_words w = philox_block(seed, stream, (q % perStream) * pairsPerChannel + k);
  double a, b;
  philox_normal_pair(w, &a, &b);
  a = __dmul_rn(a, 0.7071067811865476);  // Math.SQRT1_2
  b = __dmul_rn(b, 0.7071067811865476);
  const long long e = g * 2;
  H64[e] = a;
  H64[e + 1] = b;
  H32[e] = (float)a;
  H32[e + 1] = (float)b;
}
