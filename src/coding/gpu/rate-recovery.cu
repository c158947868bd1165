// The decoder's input from a frame's channel LLRs (src/coding/gpu/rate-recovery.ts; the CPU's
// src/coding/nr.ts nrRateRecover and src/sim/coded.ts frameLlrs): column c of frame f is the sum
// of the frame's channel LLRs sent as c (the positions col[start[c]] .. col[start[c + 1] - 1], in
// channel order, as the CPU adds them), plus the saturation on the filler columns
// [fillStart, fillEnd) (known zeros); unsent (punctured) columns get 0.
//   llr    float32, channel LLRs: frame f = q groupFrames + r starts at q groupStride + r per
//          (per >= the code's n; groupFrames = 1, groupStride = per: frames per apart)
//   start  int32, nFull + 1; col int32, the channel positions column by column
//   out    float32 out, frames x nFull
//   signs  uint8, groupFrames x per, or null: where 1, the LLR's sign is flipped (descrambling)
// One thread per column of a frame.
// nvcc-variant: -DRR_BLOCK=256

#ifndef RR_BLOCK
#define RR_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(RR_BLOCK) rate_recovery(
    const float* __restrict__ llr, const int* __restrict__ start, const int* __restrict__ col, float* __restrict__ out,
    int frames, int per, int nFull, int fillStart, int fillEnd, float saturation, const unsigned char* __restrict__ signs,
    int groupFrames, long long groupStride) {
  const long long g = (long long)blockIdx.x * RR_BLOCK + threadIdx.x;
  if (g >= (long long)frames * nFull) return;
  const long long f = g / nFull;
  const int c = (int)(g - f * nFull);
  float v = c >= fillStart && c < fillEnd ? saturation : 0.0f;
  const long long q = f / groupFrames;
  const int r = (int)(f - q * groupFrames);
  const float* frame = llr + q * groupStride + (long long)r * per;
  if (signs) {
    const unsigned char* sg = signs + (long long)r * per;
    for (int e = start[c]; e < start[c + 1]; e++) {
      const int at = col[e];
      const float x = frame[at];
      v += sg[at] ? -x : x;
    }
  } else {
    for (int e = start[c]; e < start[c + 1]; e++) v += frame[col[e]];
  }
  out[g] = v;
}
