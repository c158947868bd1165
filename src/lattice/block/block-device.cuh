// MB-LLL and CR-MB-LLL's device code, shared by the kernels of both schedulings (persistent-kernel.cu;
// init-kernel.cu, sub-kernel.cu and rest-kernel.cu for the host streams): the per-basis state in global
// scratch and the steps of a block round. persistent-kernel.cu describes the algorithm.

#ifndef BLOCK_DEVICE_CUH
#define BLOCK_DEVICE_CUH

#include "../lll-common.cuh"
#include "../phase-arrays.cuh"

#define STATUS_STOPPED 100  // internal: a speculative sub-basis run reached the growth watch

// control words per basis
#define C_STATUS 0
#define C_DETAIL 1
#define C_DONE 2
#define C_ROUND 3
#define C_BEFORE 4
#define C_ITER 5
#define C_SWAPS 6
#define C_REDS 7
#define C_INTEGRAL 8
#define C_WORDS 10
// then flagged[count], stale[count], records[count][4]: swaps, reductions, stopped, status
#define R_SWAPS 0
#define R_REDS 1
#define R_STOPPED 2
#define R_STATUS 3

__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }


// dotCols by one thread.
__device__ double dot_serial(const real* a, const real* c, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int t = 0;
  for (; t + 3 < n; t += 4) {
    s0 += (double)a[t] * (double)c[t];
    s1 += (double)a[t + 1] * (double)c[t + 1];
    s2 += (double)a[t + 2] * (double)c[t + 2];
    s3 += (double)a[t + 3] * (double)c[t + 3];
  }
  for (; t < n; t++) s0 += (double)a[t] * (double)c[t];
  return (s0 + s1) + (s2 + s3);
}

__device__ __forceinline__ unsigned long long dbits(double x) { return (unsigned long long)__double_as_longlong(x); }
__device__ __forceinline__ double bitsd(unsigned long long x) { return __longlong_as_double((long long)x); }

struct Work {
  real *B, *Bs, *Bold, *Bsnap, *Bssnap, *U, *r;
  double *Z, *Zold, *Zsnap;
  // region (per sub-basis in block_sub, region 0 otherwise)
  double *part, *norm0, *dX, *dMu, *dMuNew, *dC, *cval;
  unsigned long long* zstat;  // [1]: max |Z| being accumulated
  int *flags, *dSwap;
  int* cnt;                   // [0] swaps, [1] size reductions (counters this code adds to)
  unsigned long long* zPeak;  // bits of the growth watch's peak (non-negative doubles order like their bits)
  double* zLimit;
  int* ctl;
  unsigned long long* regionPeak;  // per sub-basis peak of block_sub
  int n, m, tid, nt, size, count, mb, maxIter;
  double delta, bound;
  bool f32;
};

__device__ __forceinline__ int* flagged(Work& w) { return w.ctl + C_WORDS; }
__device__ __forceinline__ int* stale(Work& w) { return w.ctl + C_WORDS + w.count; }
__device__ __forceinline__ int* record(Work& w, int b) { return w.ctl + C_WORDS + 2 * w.count + 4 * b; }

__device__ __forceinline__ size_t a16(size_t x) { return (x + 15) & ~(size_t)15; }

// Bytes of one region; must match blockRegionBytes in cuda.ts.
__device__ __forceinline__ size_t region_bytes(int m) {
  const int slots = m > 2 ? m : 2;
  return a16((size_t)18 * slots * 8 + 16 + 16 + (size_t)slots * 4);
}

// Carves basis `basis`'s workspace (layout: blockWorkspaceBytes in cuda.ts).
__device__ void carve(Work& w, unsigned char* ws, size_t wsBytes, int basis, int region, int n, int m, int size) {
  const int count = (m + size - 1) / size;
  const int slots = m > 2 ? m : 2;
  unsigned char* p = ws + (size_t)basis * wsBytes;
  w.Z = (double*)p; p += (size_t)m * m * 8;
  w.Zold = (double*)p; p += (size_t)m * m * 8;
  w.Zsnap = (double*)p; p += (size_t)m * m * 8;
  w.zLimit = (double*)p; p += 8;
  w.zPeak = (unsigned long long*)p; p += 8;
  w.regionPeak = (unsigned long long*)p; p += (size_t)count * 8;
  unsigned char* regions = p; p += (size_t)count * region_bytes(m);
  const size_t nb = a16((size_t)n * m * sizeof(real));
  w.B = (real*)p; p += nb;
  w.Bs = (real*)p; p += nb;
  w.Bold = (real*)p; p += nb;
  w.Bsnap = (real*)p; p += nb;
  w.Bssnap = (real*)p; p += nb;
  w.U = (real*)p; p += a16((size_t)m * m * sizeof(real));
  w.r = (real*)p; p += a16((size_t)slots * sizeof(real));
  w.ctl = (int*)p;
  unsigned char* q = regions + (size_t)region * region_bytes(m);
  CARVE_PHASE_ARRAYS(w, q, 12, slots);
  w.flags = (int*)q; q += 16;
  w.dSwap = (int*)q;
  w.n = n; w.m = m; w.size = size; w.count = count;
  w.tid = threadIdx.x; w.nt = blockDim.x;
  w.f32 = is_float((real)0);
}

__device__ __forceinline__ double peak(Work& w) { return bitsd(*(volatile unsigned long long*)w.zPeak); }

// max |Z_ij|.
__device__ double z_max_abs(Work& w) {
  if (w.tid == 0) w.zstat[1] = 0ull;
  __syncthreads();
  unsigned long long mine = 0ull;
  for (int e = w.tid; e < w.m * w.m; e += w.nt) {
    const unsigned long long b = dbits(fabs(w.Z[e]));
    if (b > mine) mine = b;
  }
  if (mine) atomicMax(&w.zstat[1], mine);
  __syncthreads();
  const double v = bitsd(*(volatile unsigned long long*)&w.zstat[1]);
  __syncthreads();
  return v;
}

// gramSchmidtInto (with U when withU), right-looking; a breakdown returns its status and column.
__device__ int gram_schmidt(Work& w, bool withU, int* column) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  for (int e = tid; e < n * m; e += nt) w.Bs[e] = w.B[e];
  for (int e = tid; e < 4 * m; e += nt) w.part[e] = dot_partial(w.B + (size_t)(e >> 2) * n, w.B + (size_t)(e >> 2) * n, n, e & 3);
  __syncthreads();
  for (int j = tid; j < m; j += nt) w.norm0[j] = combine4(w.part + 4 * j);
  __syncthreads();
  for (int i = 0; i < m; i++) {
    const int dots = m - i;
    for (int e = tid; e < 4 * dots; e += nt) {
      const int d = e >> 2;
      w.part[e] = dot_partial(w.Bs + (size_t)(i + d) * n, w.Bs + (size_t)i * n, n, e & 3);
    }
    __syncthreads();
    const double ri = combine4(w.part);
    const real rStored = (real)ri;
    if (GS_BREAKDOWN(rStored, ri, w.norm0[i])) {
      const int status = gs_breakdown_status(w.f32, w.norm0[i]);
      *column = i;
      __syncthreads();
      return status;
    }
    if (tid == 0) w.r[i] = rStored;
    for (int d = 1 + tid; d < dots; d += nt) {
      const double c = combine4(w.part + 4 * d) / (double)rStored;
      w.cval[d] = c;
      if (withU) w.U[(size_t)(i + d) * m + i] = (real)c;
    }
    __syncthreads();
    for (int e = tid; e < (dots - 1) * n; e += nt) {
      const int d = 1 + e / n, t = e - (d - 1) * n;
      real* bj = w.Bs + (size_t)(i + d) * n;
      bj[t] = (real)((double)bj[t] - w.cval[d] * (double)w.Bs[(size_t)i * n + t]);
    }
    __syncthreads();
  }
  return STATUS_OK;
}

// reduceAll of cpu.ts: r from B*, size reduction of everything from B* (column-parallel form with a
// snapshot), a fresh Gram-Schmidt (and U for MB-LLL), zLimit = growth * max |Z|, zPeak = 0.
__device__ int reduce_all(Work& w, int* column) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  int myReductions = 0;
  for (int e = tid; e < 4 * m; e += nt) w.part[e] = dot_partial(w.Bs + (size_t)(e >> 2) * n, w.Bs + (size_t)(e >> 2) * n, n, e & 3);
  for (int e = tid; e < n * m; e += nt) w.Bold[e] = w.B[e];
  for (int e = tid; e < m * m; e += nt) w.Zold[e] = w.Z[e];
  if (tid == 0) w.flags[2] = 0;
  __syncthreads();
  for (int j = tid; j < m; j += nt) w.r[j] = (real)combine4(w.part + 4 * j);
  __syncthreads();
  for (int step = 0; step < m - 1; step++) {
    const int active = m - 1 - step;
    for (int e = tid; e < 4 * active; e += nt) {
      const int k = step + 1 + (e >> 2), j = k - 1 - step;
      w.part[e] = dot_partial(w.B + (size_t)k * n, w.Bs + (size_t)j * n, n, e & 3);
    }
    __syncthreads();
    for (int a = tid; a < active; a += nt) {
      const int k = step + 1 + a, j = k - 1 - step;
      const double mu = combine4(w.part + 4 * a) / (double)w.r[j];
      double X = 0;
      if (fabs(mu) > w.bound) { X = round_half_up(mu); myReductions++; }
      w.dX[a] = X;
    }
    __syncthreads();
    for (int e = tid; e < active * (n + m); e += nt) {
      const int a = e / (n + m), t = e - a * (n + m);
      const double X = w.dX[a];
      if (X == 0) continue;
      const int k = step + 1 + a, j = k - 1 - step;
      if (t < n) {
        w.B[(size_t)k * n + t] = (real)((double)w.B[(size_t)k * n + t] - X * (double)w.Bold[(size_t)j * n + t]);
      } else {
        const int u = t - n;
        const double v = w.Z[(size_t)k * m + u] - X * w.Zold[(size_t)j * m + u];
        w.Z[(size_t)k * m + u] = v;
        if (fabs(v) >= EXACT_INTEGER_LIMIT) atomicOr(&w.flags[2], 1);
      }
    }
    __syncthreads();
    if (w.flags[2]) { if (myReductions) atomicAdd(&w.cnt[1], myReductions); __syncthreads(); return STATUS_TRANSFORM_OVERFLOW; }
  }
  if (myReductions) atomicAdd(&w.cnt[1], myReductions);
  __syncthreads();
  const int st = gram_schmidt(w, w.mb != 0, column);
  if (st != STATUS_OK) return st;
  const double limit = growth_factor((real)0) * z_max_abs(w);
  if (tid == 0) { *w.zLimit = limit; *w.zPeak = 0ull; }
  __syncthreads();
  return STATUS_OK;
}

// One all-swap phase over the pairs (k-1, k), lo < k < hi, k % 2 == parity (allSwapPhase).
__device__ int phase(Work& w, int lo, int hi, int parity, bool* swapped) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  real* B = w.B;
  real* Bs = w.Bs;
  double* Z = w.Z;
  if (tid == 0) { w.flags[0] = 0; w.flags[2] = 0; }
  int first = lo + 1;
  if ((first & 1) != parity) first++;
  const int pairs = first < hi ? (hi - first + 1) / 2 : 0;
  for (int e = tid; e < 12 * pairs; e += nt) {
    const int pr = e / 12, d = (e >> 2) % 3, q = e & 3;
    const int k = first + 2 * pr;
    const real* a = d == 2 ? Bs + (size_t)k * n : Bs + (size_t)(k - 1) * n;
    const real* c = d == 0 ? B + (size_t)k * n : d == 1 ? Bs + (size_t)(k - 1) * n : Bs + (size_t)k * n;
    w.part[e] = dot_partial(c, a, n, q);
  }
  __syncthreads();
  const PhaseCounts c = phase_coefficients(w, w.part, pairs, w.bound, w.delta, &w.flags[0], PhaseCounts{0, 0});
  const int mySwaps = c.swaps, myReductions = c.reductions;
  __syncthreads();
  const int perPair = n + m;
  unsigned long long zPeakMine = 0ull;
  for (int e = tid; e < pairs * perPair; e += nt) {
    const int pr = e / perPair, t = e - pr * perPair;
    const int k = first + 2 * pr;
    const double X = w.dX[pr];
    const int swap = w.dSwap[pr];
    pair_element(B, Bs, Z, n, n, m, k, t, X, swap, w.dMu[pr], w.dMuNew[pr], w.dC[pr], &zPeakMine, &w.flags[2]);
  }
  if (zPeakMine) atomicMax(w.zPeak, zPeakMine);
  if (mySwaps) atomicAdd(&w.cnt[0], mySwaps);
  if (myReductions) atomicAdd(&w.cnt[1], myReductions);
  __syncthreads();
  *swapped = *(volatile int*)&w.flags[0] != 0;
  const bool overflow = *(volatile int*)&w.flags[2] != 0;
  __syncthreads();
  return overflow ? STATUS_TRANSFORM_OVERFLOW : STATUS_OK;
}

// runPhases over [lo, hi); speculative: stop (STATUS_STOPPED) where the growth watch would fire.
__device__ int run_phases(Work& w, int lo, int hi, bool speculative, int* column) {
  bool oddDirty = true, evenDirty = true;
  int parity = 1, phases = 0;
  while (oddDirty || evenDirty) {
    if (phases >= w.maxIter) return STATUS_ITERATION_LIMIT;
    phases++;
    bool swapped;
    const int st = phase(w, lo, hi, parity, &swapped);
    if (st != STATUS_OK) return st;
    if (parity == 1) oddDirty = swapped; else evenDirty = swapped;
    parity = parity == 1 ? 0 : 1;
    if (peak(w) > *w.zLimit) {
      if (speculative) return STATUS_STOPPED;
      const int s2 = reduce_all(w, column);
      if (s2 != STATUS_OK) return s2;
    }
  }
  return STATUS_OK;
}

// Reads a global counter after a barrier.
__device__ __forceinline__ int vread(int* p) { return *(volatile int*)p; }

// The sub-bases from `from` on, in order (the reference's loop). Returns a status.
__device__ int sub_bases_seq(Work& w, int from, int* column) {
  for (int b = from; b < w.count; b++) {
    const int lo = b * w.size, hi = imin(w.m, (b + 1) * w.size);
    __syncthreads();
    if (!vread(flagged(w) + b)) {
      if (w.mb && w.tid == 0) stale(w)[b] = 0;
      continue;
    }
    const int before = vread(&w.cnt[0]) + vread(&w.cnt[1]);
    __syncthreads();
    const int st = run_phases(w, lo, hi, false, column);
    if (st != STATUS_OK) return st;
    const int after = vread(&w.cnt[0]) + vread(&w.cnt[1]);
    __syncthreads();
    if (w.mb) {
      if (w.tid == 0) stale(w)[b] = after != before;
    } else {
      if (w.tid == 0) flagged(w)[b] = 0;
      if (peak(w) > *w.zLimit) {  // watchGrowth
        const int s2 = reduce_all(w, column);
        if (s2 != STATUS_OK) return s2;
      }
    }
  }
  __syncthreads();
  return STATUS_OK;
}

// U's rows and columns of stale blocks: mu_{i,j} = <b_i, b*_j> / r_j (updateCoefficients).
__device__ void update_coefficients(Work& w) {
  const int n = w.n, m = w.m;
  for (int e = w.tid; e < m * m; e += w.nt) {
    const int i = e / m, j = e - i * m;
    if (j >= i) continue;
    if (stale(w)[i / w.size] || stale(w)[j / w.size]) {
      w.U[(size_t)i * m + j] = (real)(dot_serial(w.B + (size_t)i * n, w.Bs + (size_t)j * n, n) / (double)w.r[j]);
    }
  }
  __syncthreads();
}

// Column k -= X column j in B and Z, and row k -= X row j in U's first j entries (U(k, 0..j-1)), by
// the whole block, one element per thread; the new |Z| entries feed the growth watch (*w.zPeak) and
// raise w.flags[2] past 2^53. The caller's barrier ends it.
__device__ __forceinline__ void reduce_with_u(Work& w, int k, int j, double X) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  unsigned long long mine = 0ull;
  for (int e = tid; e < n + m + j; e += nt) {
    if (e < n) {
      w.B[(size_t)k * n + e] = (real)((double)w.B[(size_t)k * n + e] - X * (double)w.B[(size_t)j * n + e]);
    } else if (e < n + m) {
      const int u = e - n;
      const double v = w.Z[(size_t)k * m + u] - X * w.Z[(size_t)j * m + u];
      w.Z[(size_t)k * m + u] = v;
      const unsigned long long bb = dbits(fabs(v));
      if (bb > mine) mine = bb;
      if (fabs(v) >= EXACT_INTEGER_LIMIT) atomicOr(&w.flags[2], 1);
    } else {
      const int i = e - n - m;
      w.U[(size_t)k * m + i] = (real)((double)w.U[(size_t)k * m + i] - X * (double)w.U[(size_t)j * m + i]);
    }
  }
  if (mine) atomicMax(w.zPeak, mine);
}

// sizeReduceWithU: columns k in [kLo, kHi) against j in [jLo, k), k and j descending, in order.
__device__ int size_reduce_with_u(Work& w, int kLo, int kHi, int jLo) {
  const int m = w.m, tid = w.tid;
  int count = 0;
  if (tid == 0) w.flags[2] = 0;
  __syncthreads();
  for (int k = kHi - 1; k >= kLo && k > jLo; k--) {
    for (int j = k - 1; j >= jLo; j--) {
      const double x = (double)*(volatile real*)&w.U[(size_t)k * m + j];
      if (!(fabs(x) > w.bound)) continue;
      const double X = round_half_up(x);
      reduce_with_u(w, k, j, X);
      count++;
      // the overflow decided at the barrier, the same for every thread: a flag read after it could
      // already hold the next reduction's overflow from a thread gone on, and the block would split
      const int overflow = __syncthreads_or(vread(&w.flags[2]));
      // written after the barrier: every thread has read x (nothing reads this entry again)
      if (tid == 0) w.U[(size_t)k * m + j] = (real)(x - X);
      if (overflow) {
        if (tid == 0) w.cnt[1] += count;
        __syncthreads();
        return STATUS_TRANSFORM_OVERFLOW;
      }
    }
  }
  if (tid == 0) w.cnt[1] += count;
  __syncthreads();
  return STATUS_OK;
}

// boundaryStepWithU on (k-1, k) (MB-LLL: Swap, Procedure 3).
__device__ int boundary_u(Work& w, int k, bool* swapped) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  const int a = k - 1;
  const size_t ko = (size_t)k * m, po = (size_t)a * m;
  if (tid == 0) w.flags[2] = 0;
  for (int e = tid; e < 12; e += nt) {
    const int d = e >> 2, q = e & 3;
    const real* x = d == 0 ? w.Bs + (size_t)a * n : d == 1 ? w.B + (size_t)k * n : w.Bs + (size_t)k * n;
    const real* y = d == 2 ? w.Bs + (size_t)k * n : w.Bs + (size_t)a * n;
    w.part[e] = dot_partial(x, y, n, q);
  }
  __syncthreads();
  const double r1 = combine4(w.part), d1 = combine4(w.part + 4), rk = combine4(w.part + 8);
  double mu = (double)(real)(d1 / r1);
  if (fabs(mu) > w.bound) {
    const double X = round_half_up(mu);
    reduce_with_u(w, k, a, X);
    mu = (double)(real)(mu - X);
    if (tid == 0) w.cnt[1]++;
  }
  if (tid == 0) w.U[ko + a] = (real)mu;
  __syncthreads();
  if (vread(&w.flags[2])) return STATUS_TRANSFORM_OVERFLOW;
  *swapped = rk < (w.delta - mu * mu) * r1;
  if (!*swapped) return STATUS_OK;
  double muNew, c;
  swap_coefficients(mu, r1, rk, muNew, c);
  const double ratio = rk / (rk + mu * mu * r1);
  // columns of B, Z and B*; rows k-1, k of U (j < k-1); columns k-1, k of the later rows
  const int later = m - k - 1;
  for (int e = tid; e < n + m + a + later; e += nt) {
    if (e < n) {
      const real v = w.B[(size_t)a * n + e];
      w.B[(size_t)a * n + e] = w.B[(size_t)k * n + e];
      w.B[(size_t)k * n + e] = v;
      swap_bstar_entry(w.Bs[(size_t)a * n + e], w.Bs[(size_t)k * n + e], mu, muNew, c);
    } else if (e < n + m) {
      const int u = e - n;
      const double v = w.Z[po + u];
      w.Z[po + u] = w.Z[ko + u];
      w.Z[ko + u] = v;
    } else if (e < n + m + a) {
      const int j = e - n - m;
      const real t = w.U[ko + j];
      w.U[ko + j] = w.U[po + j];
      w.U[po + j] = t;
    } else {
      const size_t io = (size_t)(k + 1 + e - n - m - a) * m;
      const double x = (double)w.U[io + a], y = (double)w.U[io + k];
      w.U[io + a] = (real)(x * muNew + y * ratio);
      w.U[io + k] = (real)(x - y * mu);
    }
  }
  if (tid == 0) { w.U[ko + a] = (real)muNew; w.cnt[0]++; }
  __syncthreads();
  return STATUS_OK;
}

// Counts a block round (nextRound): ITERATION_LIMIT past maxIterations.
__device__ int next_round(Work& w) {
  const int it = vread(w.ctl + C_ITER);
  __syncthreads();
  if (it >= w.maxIter) return STATUS_ITERATION_LIMIT;
  if (w.tid == 0) w.ctl[C_ITER] = it + 1;
  __syncthreads();
  return STATUS_OK;
}

// Start of a round: re-anchor B = B_in Z (non-integral input, round > 0), Gram-Schmidt (and U),
// every sub-basis flagged, zLimit, zPeak = 0, then the first block round.
__device__ int round_start(Work& w, const real* B0, int* column) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  if (tid == 0) w.ctl[C_BEFORE] = w.ctl[C_SWAPS] + w.ctl[C_REDS];
  if (vread(w.ctl + C_ROUND) > 0 && !vread(w.ctl + C_INTEGRAL)) {
    for (int e = tid; e < n * m; e += nt) {
      const int j = e / n, t = e - j * n;
      w.B[e] = (real)reanchor_entry(B0, w.Z, n, m, t, j);
    }
  }
  __syncthreads();
  const int st = gram_schmidt(w, w.mb != 0, column);
  if (st != STATUS_OK) return st;
  for (int b = tid; b < w.count; b += nt) { flagged(w)[b] = 1; stale(w)[b] = 0; }
  const double limit = growth_factor((real)0) * z_max_abs(w);
  if (tid == 0) { *w.zLimit = limit; *w.zPeak = 0ull; }
  __syncthreads();
  return next_round(w);
}

// Everything of a block round after the sub-bases, and the round logic. Sets *done when the basis
// is finished (or failed: status).
__device__ int after_sub_bases(Work& w, const real* B0, bool* done, int* column) {
  *done = false;
  int st;
  if (w.mb) {
    int anyStale = 0;
    for (int b = 0; b < w.count; b++) anyStale |= vread(stale(w) + b);
    if (anyStale) {
      for (int e = w.tid; e < 4 * w.m; e += w.nt) w.part[e] = dot_partial(w.Bs + (size_t)(e >> 2) * w.n, w.Bs + (size_t)(e >> 2) * w.n, w.n, e & 3);
      __syncthreads();
      for (int j = w.tid; j < w.m; j += w.nt) w.r[j] = (real)combine4(w.part + 4 * j);
      __syncthreads();
      update_coefficients(w);
    }
    for (int b = 0; b < w.count; b++) {
      if (!vread(flagged(w) + b)) continue;
      const int lo = b * w.size;
      st = size_reduce_with_u(w, lo + 1, imin(w.m, lo + w.size), lo);
      if (st != STATUS_OK) return st;
      if (w.tid == 0) flagged(w)[b] = 0;
    }
  }
  __syncthreads();
  bool any = false;
  for (int b = 1; b < w.count; b++) {
    const int k = b * w.size;
    bool swapped;
    if (w.mb) {
      st = boundary_u(w, k, &swapped);
    } else {
      st = phase(w, k - 1, k + 1, k & 1, &swapped);
      if (st == STATUS_OK && peak(w) > *w.zLimit) st = reduce_all(w, column);
    }
    if (st != STATUS_OK) return st;
    if (swapped) {
      any = true;
      if (w.tid == 0) { flagged(w)[b - 1] = 1; flagged(w)[b] = 1; }
    }
  }
  __syncthreads();
  if (any) {
    if (w.mb && peak(w) > *w.zLimit) {
      st = reduce_all(w, column);
      if (st != STATUS_OK) return st;
    }
    return next_round(w);
  }
  // the closing step, then the round's verdict
  st = w.mb ? size_reduce_with_u(w, 1, w.m, 0) : reduce_all(w, column);
  if (st != STATUS_OK) return st;
  const int total = vread(w.ctl + C_SWAPS) + vread(w.ctl + C_REDS);
  const int round = vread(w.ctl + C_ROUND) + 1;
  __syncthreads();
  if (total == vread(w.ctl + C_BEFORE) || round >= MAX_ROUNDS) { *done = true; return STATUS_OK; }
  if (w.tid == 0) w.ctl[C_ROUND] = round;
  __syncthreads();
  return round_start(w, B0, column);
}

// Load, checks, identity Z, first round's start. Sets *done for m < 2 or a failure.
__device__ int init_basis(Work& w, const real* B0, bool* done, int* column) {
  const int n = w.n, m = w.m, tid = w.tid, nt = w.nt;
  int nonFinite = 0, nonInteger = 0;
  for (int e = tid; e < n * m; e += nt) {
    const real x = B0[e];
    w.B[e] = x;
    if (!isfinite(x)) nonFinite = 1;
    else if (x != floor(x)) nonInteger = 1;
  }
  for (int e = tid; e < m * m; e += nt) w.Z[e] = (e % (m + 1) == 0) ? 1.0 : 0.0;
  for (int e = tid; e < C_WORDS + 6 * w.count; e += nt) w.ctl[e] = 0;
  if (__syncthreads_or(nonFinite)) {
    int c = 0;
    for (int e = 0; e < n * m; e++) if (!isfinite(B0[e])) { c = e / n; break; }
    *column = c;
    *done = true;
    return STATUS_NON_FINITE;
  }
  const int integral = !__syncthreads_or(nonInteger);
  if (tid == 0) w.ctl[C_INTEGRAL] = integral;
  __syncthreads();
  *done = m < 2;
  if (*done) return STATUS_OK;
  return round_start(w, B0, column);
}

// Writes the result and stats of a finished basis.
__device__ void finish(Work& w, int status, int detail, real* B1, double* Zo, int* st) {
  if (status == STATUS_OK) {
    for (int e = w.tid; e < w.n * w.m; e += w.nt) B1[e] = w.B[e];
    for (int e = w.tid; e < w.m * w.m; e += w.nt) Zo[e] = w.Z[e];
  }
  if (w.tid == 0) {
    st[0] = w.ctl[C_ITER]; st[1] = w.ctl[C_SWAPS]; st[2] = w.ctl[C_REDS]; st[3] = status; st[4] = detail;
    w.ctl[C_DONE] = 1; w.ctl[C_STATUS] = status; w.ctl[C_DETAIL] = detail;
  }
  __syncthreads();
}

__device__ void setup(Work& w, unsigned char* ws, int wsBytes, int basis, int region, int n, int m, int maxIterations,
                      double delta, double bound, int size, int mb) {
  carve(w, ws, (size_t)wsBytes, basis, region, n, m, size);
  w.mb = mb; w.maxIter = maxIterations; w.delta = delta; w.bound = bound;
  w.cnt = w.ctl + C_SWAPS;
}

// The parameter list of the host-stream kernels block_init, block_sub and block_rest
// (gpu-host-streams.ts passes the same arguments to all three): the batch's input, output and
// transforms, the workspace, the stats, the unfinished bases (active) and their exch flags.
#define BLOCK_STREAM_PARAMS \
    const real* __restrict__ Bin, real* __restrict__ Bout, double* __restrict__ Zout, unsigned char* __restrict__ ws, \
    int* __restrict__ stats, const int* __restrict__ active, int* __restrict__ exch, \
    int n, int m, int maxIterations, double delta, double bound, int size, int mb, int wsBytes

// Columns lo..hi-1 of B, B* and Z (n and m rows) copied into their snapshots, or back from them
// (Restore): block_sub keeps its sub-basis' columns before it runs speculatively, block_rest puts
// back those of the sub-bases after the first that stopped. Every thread of the block calls it.
template <bool Restore>
__device__ __forceinline__ void snapshot_columns(Work& w, int lo, int hi, int n, int m) {
  for (int e = w.tid; e < (hi - lo) * n; e += w.nt) {
    const size_t o = (size_t)lo * n + e;
    if (Restore) { w.B[o] = w.Bsnap[o]; w.Bs[o] = w.Bssnap[o]; }
    else { w.Bsnap[o] = w.B[o]; w.Bssnap[o] = w.Bs[o]; }
  }
  for (int e = w.tid; e < (hi - lo) * m; e += w.nt) {
    const size_t o = (size_t)lo * m + e;
    if (Restore) w.Z[o] = w.Zsnap[o];
    else w.Zsnap[o] = w.Z[o];
  }
}

#endif  // BLOCK_DEVICE_CUH
