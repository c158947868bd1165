// The AWGN channel (src/channels/awgn/cpu.ts identityChannels): H = I, nr >= nt, no Philox words read,
// in float64 (the simulated link's y = H s + w reads it) and float32 (the detectors' H). One thread a
// complex entry; entry k of a channel is (k mod nr, k / nr), column-major.
// nvcc-variant: -DCHANNEL_BLOCK=256

#ifndef CHANNEL_BLOCK
#define CHANNEL_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(CHANNEL_BLOCK) identity_channels(double* __restrict__ H64, float* __restrict__ H32, int count,
                                                                              int pairsPerChannel, int nr) {
  const long long g = (long long)blockIdx.x * CHANNEL_BLOCK + threadIdx.x;
  if (g >= (long long)count * pairsPerChannel) return;
  const int k = (int)(g % pairsPerChannel);
  const double one = k % nr == k / nr ? 1.0 : 0.0;
  const long long e = g * 2;
  H64[e] = one;
  H64[e + 1] = 0.0;
  H32[e] = (float)one;
  H32[e + 1] = 0.0f;
}
