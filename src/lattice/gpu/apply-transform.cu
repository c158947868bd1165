// B_out = B_in Z, a tile of `cols` output columns of one basis a thread block (the grid holds
// ceil(m / cols) tiles a basis), summed in the CPU engine's order (check.ts applyTransform through
// lll/columns.ts addProduct: k ascending, zero multipliers skipped, a separate multiply and add;
// compiled with -fmad=false) so that the GPU's output basis equals the CPU's bit for bit. Runs after
// product-check.cu: a basis whose status is not STATUS_OK is left alone.
#include "../lll-common.cuh"

extern "C" __global__ void apply_transform(
    const real* __restrict__ Bin, const double* __restrict__ Z, real* __restrict__ Bout, const int* __restrict__ stats,
    int n, int m, int cols) {
  const int tiles = (m + cols - 1) / cols;
  const int b = blockIdx.x / tiles, j0 = (blockIdx.x % tiles) * cols;
  if (stats[(size_t)b * STATS_WIDTH + 3] != STATUS_OK) return;
  const real* A = Bin + (size_t)b * n * m;
  const double* X = Z + (size_t)b * m * m;
  real* out = Bout + (size_t)b * n * m;
  const int j1 = min(m, j0 + cols);
  for (int t = threadIdx.x + j0 * n; t < j1 * n; t += blockDim.x) {
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
