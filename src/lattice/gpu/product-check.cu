// Before the product stage (apply-transform.cu), one thread block a basis: whether B_in Z can be
// summed in float64 as the CPU engine sums it. For integral input whose product could pass 2^53
// (check.ts applyTransform's test, maxB * maxZ * m >= 2^53) the basis gets STATUS_HOST_PRODUCT and
// the host computes it exactly; a basis whose reduction did not end with STATUS_OK is left alone.
#include "../lll-common.cuh"

#define STATUS_HOST_PRODUCT 8

extern "C" __global__ void product_check(const real* __restrict__ Bin, const double* __restrict__ Z, int* __restrict__ stats, int n, int m) {
  int* st = stats + (size_t)blockIdx.x * STATS_WIDTH;
  if (st[3] != STATUS_OK) return;  // the same word for every thread of the block
  const real* A = Bin + (size_t)blockIdx.x * n * m;
  const double* X = Z + (size_t)blockIdx.x * m * m;
  __shared__ double s_max[2][32];
  __shared__ int s_frac[32];
  double ma = 0.0, mx = 0.0;
  int frac = 0;
  for (int t = threadIdx.x; t < n * m; t += blockDim.x) {
    const double a = (double)A[t];
    ma = fmax(ma, fabs(a));
    frac |= a != rint(a);
  }
  for (int t = threadIdx.x; t < m * m; t += blockDim.x) mx = fmax(mx, fabs(X[t]));
  for (int o = 16; o > 0; o >>= 1) {
    ma = fmax(ma, __shfl_xor_sync(0xffffffffu, ma, o));
    mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    frac |= __shfl_xor_sync(0xffffffffu, frac, o);
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) { s_max[0][warp] = ma; s_max[1][warp] = mx; s_frac[warp] = frac; }
  __syncthreads();
  if (threadIdx.x != 0) return;
  ma = 0.0; mx = 0.0; frac = 0;
  for (int w = 0; w < (int)((blockDim.x + 31) >> 5); w++) { ma = fmax(ma, s_max[0][w]); mx = fmax(mx, s_max[1][w]); frac |= s_frac[w]; }
  if (!frac && __dmul_rn(__dmul_rn(ma, mx), (double)m) >= EXACT_INTEGER_LIMIT) st[3] = STATUS_HOST_PRODUCT;
}
