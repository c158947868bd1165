// MB-LLL and CR-MB-LLL, host-stream scheduling (Algorithm 3; persistent-kernel.cu describes both
// schedulings): step 1, block_sub, a sub-basis's phases run speculatively.
//
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#include "block-device.cuh"

// Host-stream scheduling, step 1: block (i, b) runs the phases of sub-basis b of basis active[i],
// speculatively (persistent-kernel.cu says why).
extern "C" __global__ void block_sub(BLOCK_STREAM_PARAMS) {
  const int count = (m + size - 1) / size;
  const int b = blockIdx.x % count;
  const int basis = active[blockIdx.x / count];
  Work w;
  setup(w, ws, wsBytes, basis, b, n, m, maxIterations, delta, bound, size, mb);
  if (w.ctl[C_DONE] || !flagged(w)[b]) return;
  int* rec = record(w, b);
  const int lo = b * size, hi = imin(m, (b + 1) * size);
  snapshot_columns<false>(w, lo, hi, n, m);
  if (w.tid == 0) { rec[R_SWAPS] = 0; rec[R_REDS] = 0; w.regionPeak[b] = *w.zPeak; }
  __syncthreads();
  w.cnt = rec;
  w.zPeak = &w.regionPeak[b];
  int column = 0;
  const int st = run_phases(w, lo, hi, true, &column);
  if (w.tid == 0) { rec[R_STOPPED] = st == STATUS_STOPPED; rec[R_STATUS] = st == STATUS_STOPPED ? 0 : st; }
}
