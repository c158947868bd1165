// The block kernels' (block-kernel.cu, column-kernel.cu) state of one basis: the workspace arrays
// and the sizes, and the block-wide max |Z|. The including file defines bs_t, the type B* is held in
// (REAL in the block kernel; double, or float with float32 arithmetic, in the column-owner layout).
// Every function below is called by all the threads of the block (it contains barriers).

struct Work {
  real *B, *Bold, *r;
  bs_t* Bs;
  double *Zw, *Zold, *part, *norm0, *dX, *dMu, *dMuNew, *dC, *cval;
  int *dSwap, *flags;
  double* LX;  // column-owner step 3: the multipliers of column k at LX[k m + c], c < cnt[k]
  int *Lj, *cnt;  // ... and their columns j (Lj, same index); cnt: per column
  double* Zn;  // ... and the new columns of Z
  unsigned long long *zstat;  // [0] zPeak, [1] the max |Z| being accumulated (non-negative doubles' bits order like the doubles)
  int n, m, tid, nt;
  int ld;  // leading dimension of B, B*, Bold in the workspace: n | 1 (odd: the columns that the
           // dot products of one warp read at once fall in different shared-memory banks)
};

// max |Z_ij| over the block; also resets zPeak (nobody reads it between a phase's test and here).
__device__ double z_max_abs(Work& w) {
  if (w.tid == 0) { w.zstat[0] = 0ull; w.zstat[1] = 0ull; }
  __syncthreads();
  unsigned long long mine = 0ull;
  for (int e = w.tid; e < w.m * w.m; e += w.nt) {
    const unsigned long long b = (unsigned long long)__double_as_longlong(fabs(w.Zw[e]));
    if (b > mine) mine = b;
  }
  if (mine) atomicMax(&w.zstat[1], mine);
  __syncthreads();
  const double v = __longlong_as_double((long long)w.zstat[1]);
  __syncthreads();
  return v;
}
