// CR-AS-LLL, the cost-reduced all-swap LLL (Algorithm 2 of the CR-MB-LLL paper), batched: one
// thread block per basis. It mirrors the CPU reference (allswap/cpu.ts, allswap/phases.ts and
// lll/gso.ts) step for step, so that with -fmad=false it gives the same Z and basis bit for bit:
// like the reference, all arithmetic is in double and only stored values are rounded to REAL.
//
// The paper's 2-D thread block TB(Tx, Ty): Ty pairs (or columns) at a time, Tx threads along each
// vector. Here Tx = 4: every dot product is four partial sums s_q over t = q (mod 4) (the tail
// t >= 4 floor(n/4) goes to s_0) combined as (s_0 + s_1) + (s_2 + s_3), exactly the reference's
// dotCols; the partial sums go through shared memory and block-wide barriers (no warp shuffles).
//
// One round (at most MAX_ROUNDS, until one changes nothing; the growth watch is allswap/phases.ts'):
//   0. from the second round on, non-integral input: B = B_in Z (double accumulation, zero
//      entries of Z skipped)
//   1. modified Gram-Schmidt, right-looking: for i = 0..m-1, r_i = ||b*_i||^2 (stored REAL; a
//      breakdown stops the basis), then for every j > i at once: c = <b*_j, b*_i> / r_i and
//      b*_j -= c b*_i. Column j sees exactly the operations, in the order, of the reference's
//      left-looking loop.
//   2. odd/even all-swap phases until the last phase of each parity swapped nothing; a phase
//      takes every pair (k-1, k) of its parity at once: three dot products, then per pair
//      mu = <b_k, b*_{k-1}> / ||b*_{k-1}||^2, SimpleSizeReduce, the Lovasz test and SimpleSwap's
//      coefficients, then every element of B, B* and Z at once.
//   3. r_j = ||b*_j||^2, then the delayed size reduction of every column k at once against the
//      columns j < k as they were before this step (a snapshot), j from k-1 down; zLimit =
//      growthFactor * max |Z|.
//   Growth watch: when a phase's size reductions wrote an entry of Z larger than zLimit (set at the
//   round's start and by each step 3), step 3 and then step 1 run right after that phase.
//
// -D parameters: REAL = float | double; ALLSWAP_THREADS and ALLSWAP_MIN_BLOCKS (both or neither: the
// block size and resident blocks the registers are capped for). The workspace (B, B*, snapshots, Z,
// partial sums, per-pair decisions) lives in shared memory when the host found room (wsInShared),
// else in global scratch; its layout is carved in allswap-kernel.cuh and must match allswapBlockPlan
// in cuda.ts. The column-owner layout of the same kernel is column-kernel.cu; the per-thread kernel
// for small bases is lane-kernel.cu.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false
// nvcc-variant: -DREAL=float -fmad=false -DALLSWAP_THREADS=128 -DALLSWAP_MIN_BLOCKS=4

#include "../lll-common.cuh"

typedef real bs_t;

#include "allswap-work.cuh"

// Step 1: modified Gram-Schmidt, right-looking. Returns a status (STATUS_OK or a breakdown) and the column.
__device__ int gram_schmidt(Work& w, bool f32, int* column) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt, ld = w.ld;
  for (int e = tid; e < ld * m; e += nt) w.Bs[e] = w.B[e];
  for (int e = tid; e < 4 * m; e += nt) w.part[e] = dot_partial(w.B + (size_t)(e >> 2) * ld, w.B + (size_t)(e >> 2) * ld, n, e & 3);
  __syncthreads();
  for (int j = tid; j < m; j += nt) w.norm0[j] = combine4(w.part + 4 * j);
  __syncthreads();
  for (int i = 0; i < m; i++) {
    // dot 0: <b*_i, b*_i>; dot d >= 1: <b*_{i+d}, b*_i>
    const int dots = m - i;
    if (4 * dots > nt) {
      // more partial sums than threads: two columns per thread, b*_i loaded and widened once
      for (int e = tid; e < 4 * ((dots + 1) >> 1); e += nt) {
        const int d = 2 * (e >> 2), q = e & 3;
        if (d + 1 < dots) {
          double s0, s1;
          dot_partial2(w.Bs + (size_t)(i + d) * ld, w.Bs + (size_t)(i + d + 1) * ld, w.Bs + (size_t)i * ld, n, q, &s0, &s1);
          w.part[4 * d + q] = s0;
          w.part[4 * d + 4 + q] = s1;
        } else {
          w.part[4 * d + q] = dot_partial(w.Bs + (size_t)(i + d) * ld, w.Bs + (size_t)i * ld, n, q);
        }
      }
    } else for (int e = tid; e < 4 * dots; e += nt) {
      const int d = e >> 2;
      w.part[e] = dot_partial(w.Bs + (size_t)(i + d) * ld, w.Bs + (size_t)i * ld, n, e & 3);
    }
    __syncthreads();
    // every thread computes r_i from the same partial sums: the breakdown test is uniform
    const double ri = combine4(w.part);
    const real rStored = (real)ri;
    if (GS_BREAKDOWN(rStored, ri, w.norm0[i])) {
      const int status = gs_breakdown_status(f32, w.norm0[i]);
      *column = i;
      return status;
    }
    if (tid == 0) w.r[i] = rStored;
    for (int d = 1 + tid; d < dots; d += nt) w.cval[d] = combine4(w.part + 4 * d) / (double)rStored;
    __syncthreads();
    // element t of column i + d, d >= 1, walked without a division per element
    const real* bi = w.Bs + (size_t)i * ld;
    if (nt % n == 0) {
      // each thread keeps its row t: b*_i[t] loaded and widened once
      const int t = tid % n, dq = nt / n;
      const double xi = (double)bi[t];
      for (int d = 1 + tid / n; d < dots; d += dq) {
        real* bj = w.Bs + (size_t)(i + d) * ld;
        bj[t] = (real)((double)bj[t] - w.cval[d] * xi);
      }
    } else for (int d = 1 + tid / n, t = tid % n, dq = nt / n, dr = nt % n; d < dots;) {
      real* bj = w.Bs + (size_t)(i + d) * ld;
      bj[t] = (real)((double)bj[t] - w.cval[d] * (double)bi[t]);
      t += dr; d += dq;
      if (t >= n) { t -= n; d++; }
    }
    __syncthreads();
  }
  return STATUS_OK;
}

// Step 3: r_j = ||b*_j||^2 and the size reduction of every column against the snapshot. Adds its
// column operations to *reductions; returns STATUS_OK or STATUS_TRANSFORM_OVERFLOW.
__device__ int reduce_all(Work& w, double bound, int* reductions) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt, ld = w.ld;
  for (int e = tid; e < 4 * m; e += nt) w.part[e] = dot_partial(w.Bs + (size_t)(e >> 2) * ld, w.Bs + (size_t)(e >> 2) * ld, n, e & 3);
  for (int e = tid; e < ld * m; e += nt) w.Bold[e] = w.B[e];
  for (int e = tid; e < m * m; e += nt) w.Zold[e] = w.Zw[e];
  __syncthreads();
  for (int j = tid; j < m; j += nt) w.r[j] = (real)combine4(w.part + 4 * j);
  __syncthreads();
  for (int step = 0; step < m - 1; step++) {
    // column k (1 <= k < m) works on j = k - 1 - step: the columns k = step + 1 .. m - 1
    const int active = m - 1 - step;
    if (tid == 0) w.flags[3] = 0;  // the list of reducing columns (its readers passed the last barrier)
    for (int e = tid; e < 4 * active; e += nt) {
      const int k = step + 1 + (e >> 2), j = k - 1 - step;
      w.part[e] = dot_partial(w.B + (size_t)k * ld, w.Bs + (size_t)j * ld, n, e & 3);
    }
    __syncthreads();
    // the columns that reduce go to a list (in any order: each column's update is its own)
    for (int a = tid; a < active; a += nt) {
      const int k = step + 1 + a, j = k - 1 - step;
      const double mu = combine4(w.part + 4 * a) / (double)w.r[j];
      if (fabs(mu) > bound) {
        (*reductions)++;
        w.dX[a] = round_half_up(mu);
        w.dSwap[atomicAdd(&w.flags[3], 1)] = a;
      }
    }
    __syncthreads();
    // element t of listed column c (B then Z: n + m elements), walked without a division per element
    const int listed = w.flags[3], per = n + m;
    for (int c = tid / per, t = tid % per, dq = nt / per, dr = nt % per; c < listed;) {
      const int a = w.dSwap[c];
      const double X = w.dX[a];
      const int k = step + 1 + a, j = k - 1 - step;
      if (t < n) {
        w.B[(size_t)k * ld + t] = (real)((double)w.B[(size_t)k * ld + t] - X * (double)w.Bold[(size_t)j * ld + t]);
      } else {
        const int u = t - n;
        const double v = w.Zw[(size_t)k * m + u] - X * w.Zold[(size_t)j * m + u];
        w.Zw[(size_t)k * m + u] = v;
        if (fabs(v) >= EXACT_INTEGER_LIMIT) atomicOr(&w.flags[2], 1);
      }
      t += dr; c += dq;
      if (t >= per) { t -= per; c++; }
    }
    __syncthreads();
    if (w.flags[2]) return STATUS_TRANSFORM_OVERFLOW;
  }
  return STATUS_OK;
}


#include "allswap-kernel.cuh"
