// The decoder's input from a frame's channel LLRs (src/coding/gpu/rate-recovery.ts; the CPU's
// src/coding/nr.ts nrRateRecover and src/sim/coded.ts frameLlrs): column c of frame f is the sum
// of the frame's channel LLRs sent as c (the positions col[start[c]] .. col[start[c + 1] - 1], in
// channel order, as the CPU adds them), plus the saturation on the filler columns
// [fillStart, fillEnd) (known zeros); unsent (punctured) columns get 0.
//   llr    float32, frames x per channel LLRs (per >= the code's n: a frame's stride)
//   start  int32, nFull + 1; col int32, the channel positions column by column
//   out    float32 out, frames x nFull
// One thread per column of a frame.
// nvcc-variant: -DRR_BLOCK=256

#ifndef RR_BLOCK
#define RR_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(RR_BLOCK) rate_recovery(
    const float* __restrict__ llr, const int* __restrict__ start, const int* __restrict__ col, float* __restrict__ out,
    int frames, int per, int nFull, int fillStart, int fillEnd, float saturation) {
  const long long g = (long long)blockIdx.x * RR_BLOCK + threadIdx.x;
  if (g >= (long long)frames * nFull) return;
  const long long f = g / nFull;
  const int c = (int)(g - f * nFull);
  float v = c >= fillStart && c < fillEnd ? saturation : 0.0f;
  const float* frame = llr + f * per;
  for (int e = start[c]; e < start[c + 1]; e++) v += frame[col[e]];
  out[g] = v;
}
