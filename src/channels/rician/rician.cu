// Flat Rician fading (src/channels/rician/cpu.ts ricianGenerator): entry e of a channel is
// los * L[e] + scatter * Hw[e], Hw[e] rayleigh's entry of the same Philox block (rayleigh.cu), each
// product and the sum one IEEE operation as the CPU computes them, then kept in float64 and rounded
// to float32. L (H_LOS) and the two gains come from the host (ricianParts), so they are the CPU's
// numbers; L is a device buffer because at 64 x 64 it outgrows the kernel parameters.
//
// A launch draws channels first .. first + count - 1 of a run of Philox streams (ChannelSpan of
// src/channels/types.ts), as rayleigh.cu does. One thread a complex entry.
//   L    nr x nt complex, column-major (2 nr nt doubles): H_LOS
//   H64  count x (nr x nt complex, column-major) doubles, in the CPU's draw order
//   H32  the same as floats (the CUDA detectors' layout)
// nvcc-variant: -DCHANNEL_BLOCK=256

#include "../../core/philox.cuh"

#ifndef CHANNEL_BLOCK
#define CHANNEL_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(CHANNEL_BLOCK) rician_channels(
    double* __restrict__ H64, float* __restrict__ H32, const double* __restrict__ L, double los, double scatter,
    unsigned long long seed, unsigned long long stream0, unsigned long long streamStep, unsigned long long perStream,
    unsigned long long first, int count, int pairsPerChannel) {
  const long long g = (long long)blockIdx.x * CHANNEL_BLOCK + threadIdx.x;
  if (g >= (long long)count * pairsPerChannel) return;
  const long long c = g / pairsPerChannel;           // channel of the launch
  const int k = (int)(g - c * pairsPerChannel);       // entry within the channel
  const unsigned long long q = first + c;             // channel of the run
  const unsigned long long stream = stream0 + (q / perStream) * streamStep;
  const philox_words w = philox_block(seed, stream, (q % perStream) * pairsPerChannel + k);
  double a, b;
  philox_normal_pair(w, &a, &b);
  a = __dmul_rn(a, 0.7071067811865476);  // Math.SQRT1_2: rayleigh's entry
  b = __dmul_rn(b, 0.7071067811865476);
  a = __dadd_rn(__dmul_rn(los, L[2 * k]), __dmul_rn(scatter, a));
  b = __dadd_rn(__dmul_rn(los, L[2 * k + 1]), __dmul_rn(scatter, b));
  const long long e = g * 2;
  H64[e] = a;
  H64[e + 1] = b;
  H32[e] = (float)a;
  H32[e + 1] = (float)b;
}
