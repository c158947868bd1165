// The information bits of a coded launch (src/sim/coded.ts codedSymbols): a unit's frames x k
// information bits are its info-bit stream's words in order, 32 bits a word, low bit first, so
// bit i of frame f of a unit is bit b & 31 of word b >> 5, b = f k + i.
//
// One thread per bit of the launch (frames of whole units from frame v0 / vpf of unit unit0;
// units of unitVectors vectors, vpf vectors a frame):
//   info  uint8 out, launch frames x k bits (0/1)
// nvcc-variant: -DLINK_BLOCK=256

#include "link-stream.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_info(
    unsigned char* __restrict__ info, unsigned long long seed, unsigned snrIndex, unsigned long long unit0,
    unsigned long long v0, unsigned long long unitVectors, int frames, int vpf, int k) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= (long long)frames * k) return;
  const long long f = g / k;
  const unsigned long long i = (unsigned long long)(g - f * k);
  const unsigned long long unitFrames = unitVectors / vpf;
  const unsigned long long p = v0 / vpf + f;  // frame counted from the start of unit0
  const unsigned long long b = (p % unitFrames) * k + i;
  const unsigned w = philox_word(seed, link_stream(snrIndex, unit0 + p / unitFrames, LINK_PURPOSE_INFO), b >> 5);
  info[g] = (unsigned char)((w >> (b & 31)) & 1u);
}
