// B_out = B_in Z for each basis of a chunk, one thread block a basis, summed in the CPU engine's
// order (check.ts applyTransform through lll/columns.ts addProduct: k ascending, zero multipliers
// skipped, a separate multiply and add; compiled with -fmad=false) so that the GPU's output basis
// equals the CPU's bit for bit. A basis whose reduction did not end with STATUS_OK is left alone;
// an integral basis whose product could pass 2^53 gets STATUS_HOST_PRODUCT, and the host computes
// that one exactly (check.ts applyTransform's BigInt path).
#include "../lll-common.cuh"

#define STATUS_HOST_PRODUCT 8

extern "C" __global__ void apply_transform(
    const real* __restrict__ Bin, const double* __restrict__ Z, real* __restrict__ Bout, int* __restrict__ stats,
    int n, int m) {
  const int b = blockIdx.x;
  int* st = stats + (size_t)b * STATS_WIDTH;
  if (st[3] != STATUS_OK) return;  // the same word for every thread of the block
  const real* A = Bin + (size_t)b * n * m;
  const double* X = Z + (size_t)b * m * m;
  real* out = Bout + (size_t)b * n * m;

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
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) { s_max[0][warp] = ma; s_max[1][warp] = mx; s_frac[warp] = frac; }
  __syncthreads();
  ma = 0.0; mx = 0.0; frac = 0;
  for (int w = 0; w < warps; w++) { ma = fmax(ma, s_max[0][w]); mx = fmax(mx, s_max[1][w]); frac |= s_frac[w]; }
  // applyTransform's test: integral input whose float64 product could round (maxB * maxZ * m >= 2^53)
  if (!frac && __dmul_rn(__dmul_rn(ma, mx), (double)m) >= EXACT_INTEGER_LIMIT) {
    if (threadIdx.x == 0) st[3] = STATUS_HOST_PRODUCT;
    return;
  }
  for (int t = threadIdx.x; t < n * m; t += blockDim.x) {
    const int i = t % n, j = t / n;
    const double* x = X + (size_t)j * m;
    double s = 0.0;
    for (int k = 0; k < m; k++) {
      const double z = x[k];
      if (z != 0.0) s = __dadd_rn(s, __dmul_rn((double)A[i + (size_t)k * n], z));
    }
    out[t] = (real)s;
  }
}
