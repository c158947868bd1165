// MB-LLL and CR-MB-LLL, host-stream scheduling (Algorithm 3; persistent-kernel.cu describes both
// schedulings): step 2, block_rest, the boundary checks and the round logic.
//
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#include "block-device.cuh"

// Host-stream scheduling, step 2: block i takes the sub-bases' results of basis active[i] (up to
// the first that stopped; the later ones are restored and rerun in order), then the boundary
// checks and the round logic; exch[i] = 1 while the basis needs another block round.
extern "C" __global__ void block_rest(BLOCK_STREAM_PARAMS) {
  const int basis = active[blockIdx.x];
  Work w;
  setup(w, ws, wsBytes, basis, 0, n, m, maxIterations, delta, bound, size, mb);
  if (w.ctl[C_DONE]) { if (w.tid == 0) exch[blockIdx.x] = 0; return; }
  const real* B0 = Bin + (size_t)basis * n * m;
  const int count = w.count;
  int first = count;
  for (int b = 0; b < count; b++) {
    const int* rec = record(w, b);
    if (flagged(w)[b] && (rec[R_STOPPED] || rec[R_STATUS])) { first = b; break; }
  }
  __syncthreads();
  if (w.tid == 0) {
    for (int b = 0; b < first; b++) {
      if (!flagged(w)[b]) { if (mb) stale(w)[b] = 0; continue; }
      const int* rec = record(w, b);
      w.ctl[C_SWAPS] += rec[R_SWAPS];
      w.ctl[C_REDS] += rec[R_REDS];
      if (w.regionPeak[b] > *w.zPeak) *w.zPeak = w.regionPeak[b];
      if (mb) stale(w)[b] = rec[R_SWAPS] + rec[R_REDS] > 0; else flagged(w)[b] = 0;
    }
  }
  for (int b = first; b < count; b++) {
    if (!flagged(w)[b]) continue;
    const int lo = b * size, hi = imin(m, (b + 1) * size);
    snapshot_columns<true>(w, lo, hi, n, m);
  }
  __syncthreads();
  int column = 0;
  bool done = false;
  int status = sub_bases_seq(w, first, &column);
  if (status == STATUS_OK) status = after_sub_bases(w, B0, &done, &column);
  if (status != STATUS_OK || done) finish(w, status, column, Bout + (size_t)basis * n * m, Zout + (size_t)basis * m * m, stats + (size_t)basis * STATS_WIDTH);
  if (w.tid == 0) exch[blockIdx.x] = (status != STATUS_OK || done) ? 0 : 1;
}
