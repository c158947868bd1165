// A launch of received slots split for the receiver's stages, one thread a resource element and
// receive antenna: the DM-RS symbols' elements to the estimation plan's Yp (float64), the data
// symbols' to the detectors' received vectors (data RE v = data symbol v / K, subcarrier v % K).
//   grid   slots x 14 x K x NR complex float32, (symbol l, subcarrier k, antenna i) at ((s 14 + l) K + k) NR + i
//   Yp     out, slots x D x K x NR complex doubles (DM-RS symbol d, subcarrier k, antenna i)
//   y32    out, slots x dataRes x NR complex float32 (slot s's vector v at s dataRes + v)
// nvcc-variant: -DRX_BLOCK=256 -DNR=4

#ifndef RX_BLOCK
#define RX_BLOCK 256
#endif
#ifndef NR
#define NR 4
#endif

extern "C" __global__ void __launch_bounds__(RX_BLOCK) slot_gather(
    const float* __restrict__ grid, double* __restrict__ Yp, float* __restrict__ y32, int slots, int K, int dmrsMask,
    int D, int dataRes) {
  const long long g = (long long)blockIdx.x * RX_BLOCK + threadIdx.x;
  if (g >= (long long)slots * 14 * K * NR) return;
  const int i = (int)(g % NR);
  const long long r = g / NR;
  const int k = (int)(r % K);
  const long long sl = r / K;
  const int l = (int)(sl % 14);
  const long long s = sl / 14;
  const int below = __popc(dmrsMask & ((1 << l) - 1));
  const float re = grid[2 * g], im = grid[2 * g + 1];
  if ((dmrsMask >> l) & 1) {
    const long long o = ((s * D + below) * K + k) * NR + i;
    Yp[2 * o] = (double)re;
    Yp[2 * o + 1] = (double)im;
  } else {
    const long long o = (s * dataRes + (long long)(l - below) * K + k) * NR + i;
    y32[2 * o] = re;
    y32[2 * o + 1] = im;
  }
}
