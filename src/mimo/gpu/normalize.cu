// The GPU engine's first stage of every detection chunk: per channel, the power of two 2^p that
// brings the largest entry of H into [1, 2) scales H, its vectors and their N0 (N0 by 2^2p, held in
// [2^-100, 2^100] when > 0), exactly as the CPU engine does (detection is invariant under
// (H, y, N0) -> (a H, a y, a^2 N0)). Non-finite input sets the vector's NON_FINITE flag; a vector
// that overflows float32 once scaled gets FLOAT32_UNSAFE (the engine redoes it on the CPU).
//
// One warp a channel, WARPS channels a block. Arguments:
//   H      channels x hLen floats (hLen = 2 nr nt), scaled in place
//   y      channels x vpc x yLen floats (yLen = 2 nr), scaled in place
//   noiseIn  per-vector N0 (channels x vpc), or null: then every vector's N0 is noiseScalar
//   noiseOut per-vector scaled N0 (channels x vpc)
//   status STATUS_WORDS (2) int32 a vector: written, [flags, 0 nodes]
// nvcc-variant: -DWARPS=4

#ifndef WARPS
#define WARPS 4
#endif

#define FLAG_NON_FINITE 2
#define FLAG_FLOAT32_UNSAFE 16

__device__ __forceinline__ bool finite_f(float x) { return (__float_as_uint(x) & 0x7f800000u) != 0x7f800000u; }

extern "C" __global__ void __launch_bounds__(32 * WARPS) mimo_normalize(
    float* __restrict__ H, float* __restrict__ y, const float* __restrict__ noiseIn, float noiseScalar,
    float* __restrict__ noiseOut, int* __restrict__ status, int channels, int vpc, int hLen, int yLen) {
  const int lane = threadIdx.x & 31;
  const int c = blockIdx.x * WARPS + (threadIdx.x >> 5);
  if (c >= channels) return;
  float* h = H + (long long)c * hLen;
  float m = 0.0f;
  bool ok = true;
  for (int i = lane; i < hLen; i += 32) {
    float v = h[i];
    ok = ok && finite_f(v);
    m = fmaxf(m, fabsf(v));
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  ok = __all_sync(0xffffffffu, ok);
  int p = 0;
  if (ok && m > 0.0f) {
    int e;
    frexpf(m, &e);  // m = f 2^e, f in [0.5, 1)
    p = 1 - e;
  }
  if (ok && p != 0) for (int i = lane; i < hLen; i += 32) h[i] = ldexpf(h[i], p);
  for (int k = 0; k < vpc; k++) {
    const long long v = (long long)c * vpc + k;
    float* yv = y + v * yLen;
    bool fin = ok, fits = true;
    for (int i = lane; i < yLen; i += 32) {
      float x = yv[i];
      fin = fin && finite_f(x);
      if (p != 0) {
        float s = ldexpf(x, p);
        fits = fits && (finite_f(s) || !finite_f(x));
        yv[i] = s;
      }
    }
    fin = __all_sync(0xffffffffu, fin);
    fits = __all_sync(0xffffffffu, fits);
    if (lane == 0) {
      float n0 = noiseIn ? noiseIn[v] : noiseScalar;
      int flags = 0;
      if (!fin || !finite_f(n0)) flags |= FLAG_NON_FINITE;
      else if (!fits) flags |= FLAG_FLOAT32_UNSAFE;
      if (n0 > 0.0f) {
        // 2^2p may leave float32's range: scale in two halves, then clamp
        n0 = ldexpf(ldexpf(n0, p), p);
        n0 = fminf(fmaxf(n0, 7.888609052210118e-31f), 1.2676506002282294e30f);  // [2^-100, 2^100]
      }
      noiseOut[v] = n0;
      status[2 * v] = flags;  // the first stage: it writes every vector's status words
      status[2 * v + 1] = 0;
    }
  }
}
