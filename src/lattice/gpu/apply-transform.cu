// B_out = B_in Z for small bases, one warp a basis (blocks of 8 warps): first the warp decides
// whether float64 sums it as exactly as the host would (for integral input whose product could
// pass 2^53, check.ts applyTransform's test maxB * maxZ * m >= 2^53, the basis gets
// STATUS_HOST_PRODUCT and the host computes it exactly), then sums each output in the CPU engine's
// order (lll/columns.ts addProduct: k ascending, zero multipliers skipped, a separate multiply and
// add; compiled with -fmad=false), so that the GPU's output basis equals the CPU's bit for bit. A
// basis whose reduction did not end with STATUS_OK is left alone.
#include "../lll-common.cuh"

#define STATUS_HOST_PRODUCT 8

extern "C" __global__ void __launch_bounds__(256) apply_transform(
    const real* __restrict__ Bin, const double* __restrict__ Z, real* __restrict__ Bout, int* __restrict__ stats,
    int n, int m, int count) {
  const int b = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (b >= count) return;
  int* st = stats + (size_t)b * STATS_WIDTH;
  if (st[3] != STATUS_OK) return;  // the same word for the whole warp
  const real* A = Bin + (size_t)b * n * m;
  const double* X = Z + (size_t)b * m * m;
  real* out = Bout + (size_t)b * n * m;
  double ma = 0.0, mx = 0.0;
  int frac = 0;
  for (int t = lane; t < n * m; t += 32) {
    const double a = (double)A[t];
    ma = fmax(ma, fabs(a));
    frac |= a != rint(a);
  }
  for (int t = lane; t < m * m; t += 32) mx = fmax(mx, fabs(X[t]));
  for (int o = 16; o > 0; o >>= 1) {
    ma = fmax(ma, __shfl_xor_sync(0xffffffffu, ma, o));
    mx = fmax(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    frac |= __shfl_xor_sync(0xffffffffu, frac, o);
  }
  if (!frac && __dmul_rn(__dmul_rn(ma, mx), (double)m) >= EXACT_INTEGER_LIMIT) {
    if (lane == 0) st[3] = STATUS_HOST_PRODUCT;
    return;
  }
  for (int t = lane; t < n * m; t += 32) {
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
