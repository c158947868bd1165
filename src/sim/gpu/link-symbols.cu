// The transmitted symbols of a coded launch (src/sim/coded.ts codedSymbols, frame layout): a
// frame's channel bits fill consecutive symbols, bitsPerSymbol bits each, first bit as the most
// significant of the symbol index (modulation.ts bit labels), symbols fill the frame's vectors
// stream-major. Channel bit j of a frame is its codeword's bit map[j] (NR rate matching) or bit j
// (map null, a code sent whole); bits past n are pad, drawn from the unit's info-bit stream after
// all its information words: pad bit t of frame f of a unit is bit t & 31 of word
// ceil(unitFrames k / 32) + f padWords + (t >> 5).
//
// One thread per symbol of the launch (vectors from vector v0 of unit unit0):
//   cw     uint8, launch frames x nFull codeword bits (cuda-encoder.ts)
//   map    int32, n codeword columns, or null
//   tx     int32 out, vectors x nt symbol indices
// lastUnit, lastVectors: the launch's last unit (counted from unit0) may be shorter (the last of
// an SNR point): its frames, and so where its pad words start, follow from lastVectors.
// nvcc-variant: -DLINK_BLOCK=256

#include "link-stream.cuh"

#ifndef LINK_BLOCK
#define LINK_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(LINK_BLOCK) link_symbols(
    const unsigned char* __restrict__ cw, const int* __restrict__ map, int* __restrict__ tx,
    unsigned long long seed, unsigned snrIndex, unsigned long long unit0, unsigned long long v0, unsigned long long unitVectors,
    unsigned long long lastUnit, unsigned long long lastVectors,
    int vectors, int nt, int bps, int vpf, int n, int nFull, int k, int padWords) {
  const long long g = (long long)blockIdx.x * LINK_BLOCK + threadIdx.x;
  if (g >= (long long)vectors * nt) return;
  const long long v = g / nt;            // vector of the launch
  const int j = (int)(g - v * nt);       // stream
  const long long lf = v / vpf;          // frame of the launch
  const int s = (int)(v - lf * vpf) * nt + j;  // symbol within the frame
  const unsigned long long p = v0 + v;
  const unsigned long long kc = p / unitVectors;  // unit counted from unit0
  const unsigned long long fc = (p % unitVectors) / vpf;  // frame within its unit
  const unsigned long long unitFrames = (kc == lastUnit ? lastVectors : unitVectors) / vpf;
  const unsigned long long padBase = (unitFrames * k + 31) / 32 + fc * padWords;
  const unsigned long long stream = link_stream(snrIndex, unit0 + kc, LINK_PURPOSE_INFO);
  const unsigned char* frame = cw + lf * nFull;
  int idx = 0;
  for (int b = 0; b < bps; b++) {
    const int c = s * bps + b;
    int bit;
    if (c < n) {
      bit = frame[map ? map[c] : c];
    } else {
      const int t = c - n;
      bit = (int)((philox_word(seed, stream, padBase + (t >> 5)) >> (t & 31)) & 1u);
    }
    idx = (idx << 1) | bit;
  }
  tx[g] = idx;
}
