// B_out = B_in Z for large bases, a 64 x 32 tile of outputs a thread block (the grid holds
// ceil(n / 64) x ceil(m / 32) tiles a basis), k in slices of 16 through shared memory. Each output is
// still one sum in the CPU engine's order (check.ts applyTransform through lll/columns.ts addProduct:
// k ascending, zero multipliers skipped, a separate multiply and add; compiled with -fmad=false), so
// it equals apply-transform.cu's and the CPU's bit for bit. Runs after product-check.cu: a basis whose
// status is not STATUS_OK is left alone.
#include "../lll-common.cuh"

#define TILE_M 64
#define TILE_N 32
#define TILE_K 16
#define ROWS_PER_THREAD 8  // 256 threads: 32 columns x 8 row groups of 8

extern "C" __global__ void __launch_bounds__(256) apply_transform_tiled(
    const real* __restrict__ Bin, const double* __restrict__ Z, real* __restrict__ Bout, const int* __restrict__ stats,
    int n, int m) {
  const int rowTiles = (n + TILE_M - 1) / TILE_M, colTiles = (m + TILE_N - 1) / TILE_N;
  const int per = rowTiles * colTiles;
  const int b = blockIdx.x / per, t = blockIdx.x % per;
  if (stats[(size_t)b * STATS_WIDTH + 3] != STATUS_OK) return;
  const int i0 = (t / colTiles) * TILE_M, j0 = (t % colTiles) * TILE_N;
  const real* A = Bin + (size_t)b * n * m;
  const double* X = Z + (size_t)b * m * m;
  real* out = Bout + (size_t)b * n * m;

  __shared__ double sA[TILE_K][TILE_M];
  __shared__ double sZ[TILE_K][TILE_N + 1];
  const int c = threadIdx.x % TILE_N, r0 = (threadIdx.x / TILE_N) * ROWS_PER_THREAD;
  double s[ROWS_PER_THREAD];
#pragma unroll
  for (int r = 0; r < ROWS_PER_THREAD; r++) s[r] = 0.0;
  for (int k0 = 0; k0 < m; k0 += TILE_K) {
    for (int e = threadIdx.x; e < TILE_K * TILE_M; e += blockDim.x) {
      const int kk = e / TILE_M, ii = e % TILE_M;
      const int i = i0 + ii, k = k0 + kk;
      sA[kk][ii] = i < n && k < m ? (double)A[i + (size_t)k * n] : 0.0;
    }
    for (int e = threadIdx.x; e < TILE_K * TILE_N; e += blockDim.x) {
      const int jj = e / TILE_K, kk = e % TILE_K;
      const int j = j0 + jj, k = k0 + kk;
      sZ[kk][jj] = j < m && k < m ? X[k + (size_t)j * m] : 0.0;
    }
    __syncthreads();
    const int kEnd = min(TILE_K, m - k0);
    for (int kk = 0; kk < kEnd; kk++) {
      const double z = sZ[kk][c];
      if (z != 0.0) {
#pragma unroll
        for (int r = 0; r < ROWS_PER_THREAD; r++) s[r] = __dadd_rn(s[r], __dmul_rn(sA[kk][r0 + r], z));
      }
    }
    __syncthreads();
  }
  const int j = j0 + c;
  if (j >= m) return;
#pragma unroll
  for (int r = 0; r < ROWS_PER_THREAD; r++) {
    const int i = i0 + r0 + r;
    if (i < n) out[i + (size_t)j * n] = (real)s[r];
  }
}
