// The Rayleigh channels of a launch of the link (src/sim/link.ts generateLinkChunk, channel.ts
// rayleighChannels): entry e of channel c of a chunk is normal number e of the chunk's channel
// stream times sqrt(1/2), computed in float64 as the CPU does, then kept twice: in float64 for the
// received vectors (link-vectors.cu) and rounded to float32 for the detector.
//
// A launch covers the channels of `vectors` consecutive vectors of one SNR point, starting at
// vector v0 of chunk chunk0 (v0 a multiple of vpc; chunks of chunkVectors vectors each, a multiple
// of vpc). One thread per pair of entries (one Philox block: entries 2q, 2q + 1 of a channel).
//   H64  launch channels x (nr x nt complex, column-major) doubles, in the CPU's draw order
//   H32  the same as floats (the CUDA detectors' layout, src/mimo/gpu/cuda-detector.ts)
// identity != 0: the AWGN channel (link.ts identityChannels): H = I, no channel draws.
// nvcc-variant: -DLINK_BLOCK=256

#include "philox.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_channels(
    double* __restrict__ H64, float* __restrict__ H32, unsigned long long seed, unsigned snrIndex,
    unsigned long long chunk0, unsigned long long v0, unsigned long long chunkVectors, int channels, int vpc, int pairsPerChannel, int nr, int identity) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= (long long)channels * pairsPerChannel) return;
  const long long c = g / pairsPerChannel;          // channel of the launch
  const int q = (int)(g - c * pairsPerChannel);      // pair within the channel
  const long long e = g * 2;
  if (identity) {
    H64[e] = q % nr == q / nr ? 1.0 : 0.0;  // entry (q mod nr, q / nr), column-major
    H64[e + 1] = 0.0;
    H32[e] = (float)H64[e];
    H32[e + 1] = 0.0f;
    return;
  }
  const unsigned long long chunkChannels = chunkVectors / vpc;
  const unsigned long long p = v0 / vpc + c;         // channel counted from the start of chunk0
  const unsigned long long chunk = chunk0 + p / chunkChannels;
  const unsigned long long inChunk = p % chunkChannels;
  const philox_words w = philox_block(seed, link_stream(snrIndex, chunk, LINK_PURPOSE_CHANNELS), inChunk * pairsPerChannel + q);
  double a, b;
  philox_normal_pair(w, &a, &b);
  a = __dmul_rn(a, 0.7071067811865476);  // Math.SQRT1_2
  b = __dmul_rn(b, 0.7071067811865476);
  H64[e] = a;
  H64[e + 1] = b;
  H32[e] = (float)a;
  H32[e + 1] = (float)b;
}
