// MB-LLL and CR-MB-LLL, host-stream scheduling (Algorithm 3; persistent-kernel.cu describes both
// schedulings): step 0, block_init.
//
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#include "block-device.cuh"

// Host-stream scheduling, step 0: block i initialises basis active[i].
extern "C" __global__ void block_init(BLOCK_STREAM_PARAMS) {
  const int basis = active[blockIdx.x];
  Work w;
  setup(w, ws, wsBytes, basis, 0, n, m, maxIterations, delta, bound, size, mb);
  const real* B0 = Bin + (size_t)basis * n * m;
  int column = 0;
  bool done = false;
  const int status = init_basis(w, B0, &done, &column);
  if (status != STATUS_OK || done) finish(w, status, column, Bout + (size_t)basis * n * m, Zout + (size_t)basis * m * m, stats + (size_t)basis * STATS_WIDTH);
  if (w.tid == 0) exch[blockIdx.x] = (status != STATUS_OK || done) ? 0 : 1;
}
