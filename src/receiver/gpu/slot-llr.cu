// The code blocks' LLRs of a launch of slots, descrambled, one thread a bit: block c of slot s
// holds the slot's channel bits c E .. (c + 1) E - 1 (options.ts), its sign flipped where the
// scrambling sequence has a 1 (LLR = ln P(b = 0) / P(b = 1) of the scrambled bit).
//   llr       slots x G floats: the detector's LLRs of the slot's data vectors (vectors x layers x Qm)
//   scramble  C E bytes, 0/1: the scrambling sequence (the same every slot)
//   out       slots x C x E floats: frame s C + c is block c of slot s
// nvcc-variant: -DRX_BLOCK=256

#ifndef RX_BLOCK
#define RX_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(RX_BLOCK) slot_llr(
    const float* __restrict__ llr, const unsigned char* __restrict__ scramble, float* __restrict__ out, int slots,
    long long G, long long CE) {
  const long long g = (long long)blockIdx.x * RX_BLOCK + threadIdx.x;
  if (g >= slots * CE) return;
  const long long s = g / CE, b = g - s * CE;
  const float x = llr[s * G + b];
  out[g] = scramble[b] ? -x : x;
}
