// Parallel Jacobi's jacobi_gram: G = B^T B by many blocks for a few large bases, launched before
// jacobi_parallel (jacobi-kernel.cu) on the same stream when the host's plan says preGram.
//
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#include "jacobi-common.cuh"

// G = B^T B by many blocks, before jacobi_parallel on the same stream, for a few large bases (with
// one block's gram() a basis, most multiprocessors would idle): block b takes tile b % (T T) of
// basis b / (T T), GP x GP entries (I, J) with I <= J (the others return), one entry per thread,
// summed over t in order with the same products as gram() (so the same value; both triangles
// written from one sum). B is staged GR rows at a time through the dynamic shared
// memory (2 GR GP reals); the results go to Gscratch (leading dimension m | 1).
#define GP 16
#define GR 32
extern "C" __global__ void __launch_bounds__(GP * GP) jacobi_gram(const real* __restrict__ Bin, real* __restrict__ Gscratch, int n, int m) {
  const int T = (m + GP - 1) / GP;
  const int basis = blockIdx.x / (T * T), tile = blockIdx.x - basis * T * T;
  const int I = tile / T, J = tile - I * T;
  if (I > J) return;
  const int tid = threadIdx.x, ti = tid % GP, tj = tid / GP;
  const int ldg = m | 1;
  real* si = (real*)smem;
  real* sj = si + GR * GP;
  const real* B = Bin + (size_t)basis * n * m;
  real s = 0;
  for (int t0 = 0; t0 < n; t0 += GR) {
    const int rows = n - t0 < GR ? n - t0 : GR;
    __syncthreads();
    for (int x = tid; x < rows * GP; x += GP * GP) {
      const int c = x / rows, tt = x - c * rows;
      const int ci = I * GP + c, cj = J * GP + c;
      si[tt * GP + c] = ci < m ? B[(size_t)ci * n + t0 + tt] : (real)0;
      sj[tt * GP + c] = cj < m ? B[(size_t)cj * n + t0 + tt] : (real)0;
    }
    __syncthreads();
    for (int tt = 0; tt < rows; tt++) s = s + si[tt * GP + ti] * sj[tt * GP + tj];
  }
  const int i = I * GP + ti, j = J * GP + tj;
  if (i < m && j < m) {
    real* g = Gscratch + (size_t)basis * m * ldg;
    g[i + j * ldg] = s;
    g[j + i * ldg] = s;
  }
}
