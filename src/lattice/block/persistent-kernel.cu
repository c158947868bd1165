// MB-LLL and CR-MB-LLL (Section 3.2 and Algorithm 3 of the CR-MB-LLL paper), batched, mirroring the
// CPU references (block/cpu.ts, block/coefficients.ts, allswap/phases.ts, lll/gso.ts) step for step:
// all arithmetic in double, stored values rounded to REAL, four-way dot products (dotCols); with
// -fmad=false the result (basis, Z, counts) equals the reference bit for bit.
//
// Two schedulings over the same device functions (the per-basis state lives in global scratch):
//  - persistent (block_persistent): one thread block per basis loops over block rounds internally:
//    sub-bases in order, GS-coefficient update (MB-LLL), boundary checks, closing step, rounds.
//  - host streams (Algorithm 3): block_init once, then per host round on each stream
//    block_sub (one thread block per (unfinished basis, sub-basis): the all-swap phases of that
//    sub-basis) and block_rest (one thread block per unfinished basis: the boundary checks and the
//    control logic), and the exch flags back to the host, which shrinks the next launch.
//    Sub-bases touch disjoint columns, so running them at once equals the reference's in-order loop
//    except when the growth watch (allswap/phases.ts) fires inside one: it runs the closing step on
//    the whole basis, which the later sub-bases see. So block_sub runs speculatively: it snapshots its
//    columns and stops where the reference would run the closing step; block_rest accepts the
//    sub-bases before the first stopped one, restores the later ones, and runs the rest of the
//    round's sub-bases in order (the persistent code path). The result is the same either way.
//    The boundary checks stay in order inside block_rest for the same reason (the growth watch runs
//    between them in CR-MB-LLL); each is one pair step.
//
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#include "block-device.cuh"

// Persistent scheduling: one block per basis, the whole algorithm.
extern "C" __global__ void block_persistent(
    const real* __restrict__ Bin, real* __restrict__ Bout, double* __restrict__ Zout, unsigned char* __restrict__ ws,
    int* __restrict__ stats, int n, int m, int maxIterations, double delta, double bound, int size, int mb, int wsBytes) {
  const int basis = blockIdx.x;
  Work w;
  setup(w, ws, wsBytes, basis, 0, n, m, maxIterations, delta, bound, size, mb);
  const real* B0 = Bin + (size_t)basis * n * m;
  int column = 0;
  bool done = false;
  int status = init_basis(w, B0, &done, &column);
  // each pass is one block round; after_sub_bases bounds them (maxIterations, MAX_ROUNDS)
  while (status == STATUS_OK && !done) {
    status = sub_bases_seq(w, 0, &column);
    if (status == STATUS_OK) status = after_sub_bases(w, B0, &done, &column);
  }
  finish(w, status, column, Bout + (size_t)basis * n * m, Zout + (size_t)basis * m * m, stats + (size_t)basis * STATS_WIDTH);
}
