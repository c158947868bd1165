// A measurement copy of the block kernels (bench/kernels/traced.ts says what its switches do),
// not built by the library; the production kernels are src/lattice/allswap/*-kernel.cu.
//
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
// -D parameters: REAL = float | double. The workspace (B, B*, snapshots, Z, partial sums, per-pair
// decisions) lives in shared memory when the host found room (wsInShared), else in global scratch;
// its layout is carved below and must match allswapPlan in cuda.ts.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false -DCOL_N=68 -DCOL_SMEM=1 -DALLSWAP_THREADS=256 -DALLSWAP_MIN_BLOCKS=3 -DCOL_PROFILE=1
// nvcc-variant: -DREAL=float -fmad=false -DCOL_N=68 -DCOL_NO_SUPPORT=1 -DCOL_NO_FASTDIV=1

#include "../../../src/lattice/lll-common.cuh"

// One basis' state: the workspace arrays and the sizes. Every function below is called by all the
// threads of the block (it contains barriers).
// -DCOL_N=n: the column-owner layout (below, "Column owners"): B* held as doubles (bs_t; floats
// with -DCOL_F32_ARITH=1), every other function unchanged.
#ifdef COL_N
#ifndef COL_F32_ARITH
#define COL_F32_ARITH 0
#endif
#if COL_F32_ARITH
typedef float bs_t;  // (float32 arithmetic: below, "Column owners")
#else
typedef double bs_t;
#endif
#else
typedef real bs_t;
#endif

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

#ifndef COL_N
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
    if (!(rStored > 0) || !(ri > 1e-28 * w.norm0[i])) {
      const bool zero = w.norm0[i] == 0;
      *column = i;
      return f32 && !zero ? STATUS_PRECISION_FAILURE : zero ? STATUS_ZERO_VECTOR : STATUS_RANK_DEFICIENT;
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

#endif  // !COL_N

#ifdef COL_N
// ------------------------------------------------------------------------------------------------
// Column owners (-DCOL_N=n, the host's choice for 64 x 64 and similar sizes; blockDim.x >= 4 m, a
// multiple of 32): thread 4 j + q owns entries t = q, q + 4, ... (and, for q = 0, the tail
// t >= 4 floor(n/4)) of column j, in registers as doubles, through Gram-Schmidt and step 3. Those
// are exactly the terms of partial sum s_q of dotCols, so a quad's four partial sums combined by two
// shuffles, (s0 + s1) + (s2 + s3), are the reference's dot product bit for bit: the arithmetic is
// the generic path's, only where values live changes. B* is kept widened (bs_t = double, values
// rounded to REAL before they are stored), so no dot product widens a float.
//   Gram-Schmidt: step i, the owners of column i publish b*_i (their registers) into Bs and their
//   partial norms; one barrier; every column j > i takes its dot with b*_i from Bs, its quad's sum
//   by shuffles, and updates its registers.
//   Step 3, pivots j = m-2 down to 0: every column k > j takes mu_{k,j} with b*_j (constant in step
//   3) and its own b_k (registers); B in shared memory stays the snapshot (each column's own b_k is
//   written back at the end), so no barrier between pivots. The Z updates are deferred: each column
//   lists its (j, X); at the end a thread per row u of Z applies them, k from the last column down,
//   j in the order listed: each entry sees the reference's operations in its order (the columns
//   j < k of a row are still unchanged when k is done). A pivot whose |<b_k, b*_j>| is below
//   bound r_j by a margin needs no division (no reduction).
//   Zero entries: a warp skips a pivot its columns are disjoint from (below, before col_support):
//   exact, the same B and Z bit for bit.
//   -DCOL_F32_ARITH=1 (REAL = float; AlgoParams.float32Arithmetic 'float32'): Gram-Schmidt's and
//   step 3's dot products and updates in float32 arithmetic (step 3's only for multipliers below
//   2^24), B* and the lane's entries as floats, as the papers' float32 kernels compute. Not the reference's results (each output is proven in
//   float64, as every GPU output; failures are redone in float64), but a step's chain has float
//   latencies and no conversions, and the smaller footprint lets four bases share a multiprocessor
//   (bench/gpu-notes.md v13).
// ------------------------------------------------------------------------------------------------
#define COL_K (COL_N / 4)
#define COL_T (COL_N % 4)
#define COL_R (COL_K + COL_T)
#if COL_F32_ARITH
typedef float colv_t;
#else
typedef double colv_t;
#endif
#define FULL_MASK 0xffffffffu
#ifdef COL_PROFILE
// (measurement build: cycles of thread 0 per section, printed by block 0 at the end)
__shared__ long long col_prof[8];
#define PROF_START long long prof_t0 = clock64()
#define PROF_ADD(i) do { if (threadIdx.x == 0) { const long long t1 = clock64(); col_prof[i] += t1 - prof_t0; prof_t0 = t1; } } while (0)
#else
#define PROF_START
#define PROF_ADD(i)
#endif

// s_q of the dot product of the registers x with the column c of B* (colv_t arithmetic).
__device__ __forceinline__ colv_t col_dot(const colv_t (&x)[COL_R], const bs_t* c, int q) {
  colv_t s = 0;
#pragma unroll
  for (int k = 0; k < COL_K; k++) s += x[k] * c[q + 4 * k];
  if (COL_T && q == 0) {
#pragma unroll
    for (int u = 0; u < COL_T; u++) s += x[COL_K + u] * c[4 * COL_K + u];
  }
  return s;
}

__device__ __forceinline__ colv_t col_norm(const colv_t (&x)[COL_R], int q) {
  colv_t s = 0;
#pragma unroll
  for (int k = 0; k < COL_K; k++) s += x[k] * x[k];
  if (COL_T && q == 0) {
#pragma unroll
    for (int u = 0; u < COL_T; u++) s += x[COL_K + u] * x[COL_K + u];
  }
  return s;
}

// (s0 + s1) + (s2 + s3) over the quad (every lane of the warp calls it).
template <typename S>
__device__ __forceinline__ S quad_sum(S s) {
  const int lane = threadIdx.x & 31;
  s = s + __shfl_sync(FULL_MASK, s, lane ^ 1);
  return s + __shfl_sync(FULL_MASK, s, lane ^ 2);
}

template <typename T>
__device__ __forceinline__ void col_load(colv_t (&x)[COL_R], const T* c, int q) {
#pragma unroll
  for (int k = 0; k < COL_K; k++) x[k] = (colv_t)c[q + 4 * k];
#pragma unroll
  for (int u = 0; u < COL_T; u++) x[COL_K + u] = q == 0 ? (colv_t)c[4 * COL_K + u] : (colv_t)0;
}

template <typename X, typename T>
__device__ __forceinline__ void col_store(const X (&x)[COL_R], T* c, int q) {
#pragma unroll
  for (int k = 0; k < COL_K; k++) c[q + 4 * k] = (T)x[k];
  if (COL_T && q == 0) {
#pragma unroll
    for (int u = 0; u < COL_T; u++) c[4 * COL_K + u] = (T)x[COL_K + u];
  }
}

// x -= f c, each entry rounded to REAL (and held widened).
template <typename T>
__device__ __forceinline__ void col_axpy(colv_t (&x)[COL_R], double f, const T* c, int q) {
#pragma unroll
  for (int k = 0; k < COL_K; k++) x[k] = (colv_t)(real)((double)x[k] - f * (double)c[q + 4 * k]);
  if (COL_T && q == 0) {
#pragma unroll
    for (int u = 0; u < COL_T; u++) x[COL_K + u] = (colv_t)(real)((double)x[COL_K + u] - f * (double)c[4 * COL_K + u]);
  }
}

// The update with float32 arithmetic (COL_F32_ARITH): x -= f c in float. (Step 3 takes it only for
// multipliers below 2^24, which a float holds exactly as Z does; larger ones go to col_axpy.)
template <typename T>
__device__ __forceinline__ void col_axpy_f32(colv_t (&x)[COL_R], double f, const T* c, int q) {
  const float g = (float)f;
#pragma unroll
  for (int k = 0; k < COL_K; k++) x[k] = (colv_t)((float)x[k] - g * (float)c[q + 4 * k]);
  if (COL_T && q == 0) {
#pragma unroll
    for (int u = 0; u < COL_T; u++) x[COL_K + u] = (colv_t)((float)x[COL_K + u] - g * (float)c[4 * COL_K + u]);
  }
}

// Zero entries and disjoint columns. Block-Toeplitz bases are banded (about six nonzero rows a
// column), so many of the dot products below are sums of +-0 terms. Two exact shortcuts use that;
// none changes B or Z, bit for bit:
//   - the support of a column: rows lo..hi outside which its entries are zero (quad-uniform; lo > hi
//     when the column is zero). The dot product of two columns with disjoint supports is +0 exactly
//     (every term is +-0 and the sum starts at +0), so a warp whose columns are all disjoint from a
//     pivot skips that step: Gram-Schmidt's update with c = +0 would change nothing but the sign of
//     a zero entry (a zero's sign reaches only other zeros: no multiplier, test, B or Z sees it),
//     step 3's mu would be 0 (no reduction). An update b -= c p keeps b within both supports' union.
//   - a zero dot product gives c = s (0 / r is that for r > 0) without the division, whose slow
//     path zero takes.
__device__ __forceinline__ void col_support(const colv_t (&x)[COL_R], int q, int* lo, int* hi) {
  int l = COL_N, h = -1;
#pragma unroll
  for (int k = 0; k < COL_K; k++) if (x[k] != 0) { l = min(l, q + 4 * k); h = q + 4 * k; }
  if (COL_T && q == 0) {
#pragma unroll
    for (int u = 0; u < COL_T; u++) if (x[COL_K + u] != 0) { l = min(l, 4 * COL_K + u); h = 4 * COL_K + u; }
  }
  const int lane = threadIdx.x & 31;
  l = min(l, __shfl_sync(FULL_MASK, l, lane ^ 1));
  h = max(h, __shfl_sync(FULL_MASK, h, lane ^ 1));
  *lo = min(l, __shfl_sync(FULL_MASK, l, lane ^ 2));
  *hi = max(h, __shfl_sync(FULL_MASK, h, lane ^ 2));
}

__device__ __forceinline__ bool col_overlap(int lo, int hi, int plo, int phi) { return lo <= phi && plo <= hi; }

// Step 0 (column owners): B = B_in Z, column j by its quad, each entry summed over k in order. B_in
// is widened once into Bs (free until Gram-Schmidt rewrites it). The generic loop skips the zero
// entries of Z; here every k is added: with b finite, b z = +-0 for z = 0, and acc + (+-0) = acc
// bit for bit (acc starts at +0 and a sum that is exactly zero is +0), so the sums are the same,
// and the quads of a warp do not diverge on Z's pattern. (Summing each row over its band of a
// sparse B_in only, with a quarter column per thread, was 2 % faster built by nvcc and 7 % slower
// built by NVRTC, whose build of it spilled: bench/gpu-notes.md v11.)
// Also returns max |Z| (read here anyway; the growth watch's limit needs it) and resets zPeak, as
// z_max_abs does.
__device__ double col_reanchor(Work& w, const real* __restrict__ B0) {
  const int m = w.m, tid = w.tid, nt = w.nt, ld = w.ld, q = tid & 3, j = tid >> 2;
  for (int e = tid; e < COL_N * m; e += nt) {
    const int k = e / COL_N, t = e - k * COL_N;
    w.Bs[(size_t)k * ld + t] = (double)B0[e];
  }
  if (tid == 0) { w.zstat[0] = 0ull; w.zstat[1] = 0ull; }
  double zmax = 0;
  __syncthreads();
  if (j < m) {
    double acc[COL_R];
#pragma unroll
    for (int s = 0; s < COL_R; s++) acc[s] = 0;
    const double* zj = w.Zw + (size_t)j * m;
#pragma unroll 2
    for (int k = 0; k < m; k++) {
      const double z = zj[k];
      zmax = fmax(zmax, fabs(z));
      const bs_t* b = w.Bs + (size_t)k * ld;
#pragma unroll
      for (int s = 0; s < COL_K; s++) acc[s] = acc[s] + b[q + 4 * s] * z;
      if (COL_T && q == 0) {
#pragma unroll
        for (int s = 0; s < COL_T; s++) acc[COL_K + s] = acc[COL_K + s] + b[4 * COL_K + s] * z;
      }
    }
    col_store(acc, w.B + (size_t)j * ld, q);  // (rounded to REAL by the store)
  }
  if (q == 0 && zmax > 0) atomicMax(&w.zstat[1], (unsigned long long)__double_as_longlong(zmax));
  __syncthreads();
  return __longlong_as_double((long long)w.zstat[1]);
}

// (measurement switches, 0 in every build the host makes: bench/gpu-notes.md v11)
#ifndef COL_NO_SUPPORT
#define COL_NO_SUPPORT 0
#endif
#ifndef COL_NO_FASTDIV
#define COL_NO_FASTDIV 0
#endif
// Gram-Schmidt's quotient from 1 / r_i (below): double arithmetic on float data only
#define COL_FASTDIV (is_float((real)0) && !COL_NO_FASTDIV && !COL_F32_ARITH)

// Gram-Schmidt's update of column j (when `active`) by pivot b*_i: c = s / r_i, b*_j -= c b*_i;
// whether column j changed (c != 0). c = s when s = +-0. float32: c from y = 1 / r_i rounded to
// nearest (taken beside the dot product, off the chain) by one correction: with y within half an
// ulp of 1 / r and q0 = RN(s y) within an ulp of s / r, the remainder s - r q0 is exact in an FMA
// and RN(q0 + rem y) is the correctly rounded s / r (Markstein's theorem; s and r lie far inside
// double's range for float data; checked against the division on 4.4e9 pairs, bench/col-lab).
// Three dependent operations instead of the division's ten.
__device__ __forceinline__ bool col_gs_update(colv_t (&x)[COL_R], bool active, double s, double r, double y, const bs_t* bi, int q) {
  double c = s;
  if (active && s != 0) {
    if (COL_FASTDIV) {
      const double q0 = s * y;
      c = __fma_rn(__fma_rn(-r, q0, s), y, q0);
    } else {
      c = COL_F32_ARITH ? (double)((float)s / (float)r) : s / r;
    }
  }
  if (active) {
    if (COL_F32_ARITH) col_axpy_f32(x, c, bi, q); else col_axpy(x, c, bi, q);
  }
  return active && c != 0;
}

// Step 1 (column owners). Same results as the generic gram_schmidt.
__device__ int gram_schmidt(Work& w, bool f32, int* column) {
  const int m = w.m, tid = w.tid, ld = w.ld, q = tid & 3, j = tid >> 2;
  const bool own = j < m;
  // the warp's columns: 8 w .. 8 w + 7 (the warp skips a step when none of them is right of the pivot)
  const int warpLast = ((tid >> 5) << 3) + 7;
  colv_t x[COL_R];
  col_load(x, w.B + (size_t)(own ? j : 0) * ld, q);
  const double n0 = quad_sum(col_norm(x, q));
  if (own && q == 0) w.norm0[j] = n0;
  int lo, hi;
  col_support(x, q, &lo, &hi);
  int* sup = (int*)(w.part + 8);  // [2 i], [2 i + 1]: b*_i's support, published with it
  // (a basis without zero entries has nothing to skip: no votes then; block-uniform)
  const bool sparse = __syncthreads_or(own && (lo > 0 || hi < COL_N - 1)) && !COL_NO_SUPPORT;
  for (int i = 0; i < m; i++) {
    double* part = w.part + 4 * (i & 1);  // double-buffered: the previous step's readers may lag
    if (j == i) {
      part[q] = col_norm(x, q);
      col_store(x, w.Bs + (size_t)i * ld, q);
      if (q == 0) { sup[2 * i] = lo; sup[2 * i + 1] = hi; }
    }
    __syncthreads();
    const double ri = combine4(part);
    const real rStored = (real)ri;
    if (!(rStored > 0) || !(ri > 1e-28 * w.norm0[i])) {
      const bool zero = w.norm0[i] == 0;
      *column = i;
      return f32 && !zero ? STATUS_PRECISION_FAILURE : zero ? STATUS_ZERO_VECTOR : STATUS_RANK_DEFICIENT;
    }
    if (tid == 0) w.r[i] = rStored;
    if (warpLast <= i || warpLast - 7 >= m) continue;  // warp-uniform
    const int plo = sup[2 * i], phi = sup[2 * i + 1];
    if (sparse && !__any_sync(FULL_MASK, own && j > i && col_overlap(lo, hi, plo, phi))) continue;
    const double y = COL_FASTDIV ? __drcp_rn((double)rStored) : 0.0;
    const bs_t* bi = w.Bs + (size_t)i * ld;
    const double s = quad_sum(col_dot(x, bi, q));
    if (col_gs_update(x, own && j > i, s, (double)rStored, y, bi, q)) { lo = min(lo, plo); hi = max(hi, phi); }
  }
  __syncthreads();
  return STATUS_OK;
}

// Step 3 (column owners). Same results, counts and overflow status as the generic reduce_all.
__device__ int reduce_all(Work& w, double bound, int* reductions) {
  const int m = w.m, tid = w.tid, ld = w.ld, q = tid & 3, j = tid >> 2;
  const bool own = j < m;
  const int warpLast = ((tid >> 5) << 3) + 7;
  // supports of b*_j at sup[2 j], [2 j + 1] and of the snapshot's b_j at sup[2 m + 2 j], [.. + 1]
  int* sup = (int*)(w.part + 8);
  int lo, hi;
  colv_t x[COL_R];
  col_load(x, w.Bs + (size_t)(own ? j : 0) * ld, q);
  const double rj = quad_sum(col_norm(x, q));
  col_support(x, q, &lo, &hi);
  if (own && q == 0) { w.r[j] = (real)rj; w.cnt[j] = 0; sup[2 * j] = lo; sup[2 * j + 1] = hi; }
  col_load(x, w.B + (size_t)(own ? j : 0) * ld, q);
  col_support(x, q, &lo, &hi);
  if (own && q == 0) { sup[2 * m + 2 * j] = lo; sup[2 * m + 2 * j + 1] = hi; }
  bool changed = false;
  // (the barrier before the pivots; a basis without zero entries has nothing to skip)
  const bool sparse = __syncthreads_or(own && (lo > 0 || hi < COL_N - 1)) && !COL_NO_SUPPORT;
  PROF_START;
  // |s| <= bm r implies |s / r| < bound, so RN(s / r) <= bound: no reduction, and no division
  const double bm = bound * (1.0 - 0x1p-20);
  for (int p = m - 2; p >= 0; p--) {
    if (warpLast <= p || warpLast - 7 >= m) continue;  // warp-uniform
    if (sparse && !__any_sync(FULL_MASK, own && j > p && col_overlap(lo, hi, sup[2 * p], sup[2 * p + 1]))) continue;
    const double s = quad_sum(col_dot(x, w.Bs + (size_t)p * ld, q));
    if (!own || j <= p) continue;
    const double rp = (double)w.r[p];
    if (fabs(s) <= bm * rp) continue;
    const double mu = s / rp;
    if (!(fabs(mu) > bound)) continue;
    const double X = round_half_up(mu);
    if (q == 0) {
      (*reductions)++;
      const int c = w.cnt[j]++;
      w.Lj[(size_t)j * m + c] = p;
      w.LX[(size_t)j * m + c] = X;
    }
    // (float32 arithmetic: in float while X fits a float exactly, so that Z gets the same multiplier)
    if (COL_F32_ARITH && fabs(X) < 0x1p24) col_axpy_f32(x, X, w.B + (size_t)p * ld, q);
    else col_axpy(x, X, w.B + (size_t)p * ld, q);
    lo = min(lo, sup[2 * m + 2 * p]); hi = max(hi, sup[2 * m + 2 * p + 1]);
    changed = true;
  }
  __syncthreads();  // every reader of the snapshot B is done
  PROF_ADD(4);
  if (changed) col_store(x, w.B + (size_t)j * ld, q);
  __syncthreads();  // the lists are complete
  // Z: thread (u, g) = (tid % m, tid / m), g < 4, takes the columns k = g, g + 4, ... of row u:
  // new values from the unchanged Z into Zn, one barrier, then copied back
  int overflow = 0;
  const int u = tid % m, g = tid / m;
  if (tid < 4 * m) {
    for (int k = g; k < m; k += 4) {
      const int cn = w.cnt[k];
      if (cn == 0) continue;
      const double* lx = w.LX + (size_t)k * m;
      const int* lj = w.Lj + (size_t)k * m;
      double v = w.Zw[(size_t)k * m + u];
      for (int e = 0; e < cn; e++) {
        v = v - lx[e] * w.Zw[(size_t)lj[e] * m + u];
        if (fabs(v) >= EXACT_INTEGER_LIMIT) overflow = 1;
      }
      w.Zn[(size_t)k * m + u] = v;
    }
  }
  __syncthreads();
  if (tid < 4 * m) {
    for (int k = g; k < m; k += 4) if (w.cnt[k]) w.Zw[(size_t)k * m + u] = w.Zn[(size_t)k * m + u];
  }
  const int of = __syncthreads_or(overflow);
  PROF_ADD(5);
  return of ? STATUS_TRANSFORM_OVERFLOW : STATUS_OK;
}
#endif  // COL_N

// -DALLSWAP_THREADS=T -DALLSWAP_MIN_BLOCKS=b (the host passes both or neither): the module is built
// for blocks of T threads with b of them resident per multiprocessor (the compiler caps the registers
// at 65536 / (T b)), so that several bases share a multiprocessor when their workspaces fit.
#if defined(ALLSWAP_THREADS) && defined(ALLSWAP_MIN_BLOCKS)
#define ALLSWAP_BOUNDS __launch_bounds__(ALLSWAP_THREADS, ALLSWAP_MIN_BLOCKS)
#else
#define ALLSWAP_BOUNDS
#endif

extern "C" __global__ void ALLSWAP_BOUNDS allswap(
    const real* __restrict__ Bin,   // batch x n x m, column-major bases
    real* __restrict__ Bout,        // batch x n x m, reduced bases
    double* __restrict__ Zout,      // batch x m x m, unimodular transforms
    unsigned char* __restrict__ wsGlobal,  // batch x wsBytes, used when the workspace is not in shared memory
    int* __restrict__ stats,        // batch x STATS_WIDTH, zero on entry
    int n, int m, int maxIterations, double delta, double bound, int wsInShared, int wsBytes) {
  // wsInShared: 0 the whole workspace in global scratch, 1 all in shared memory, 2 Z and its
  // snapshot (Zw, Zold) in global scratch and the rest in shared memory (a smaller block footprint:
  // several bases per multiprocessor). wsBytes: the global scratch of one basis.
  extern __shared__ __align__(16) unsigned char smem[];
  const int basis = blockIdx.x;
  const int tid = threadIdx.x;
  const int nt = blockDim.x;
  const int slots = m > 2 ? m : 2;  // per-column arrays (pairs <= m / 2, columns m)

  // workspace (allswapWorkspaceBytes in cuda.ts sizes it): [Zw, Zold (m*m doubles each)]
  //   [part (6 * slots doubles: 12 per pair, 4 per column)][norm0, dX, dMu, dMuNew, dC, cval (slots doubles each)]
  //   [zstat (2 x 8 bytes)][B, Bs, Bold ((n|1)*m reals each, padded to 16)][r (slots reals, padded)]
  //   [dSwap (slots ints)][flags (4 ints)]
  Work w;
  unsigned char* g = wsGlobal + (size_t)basis * wsBytes;
#if defined(COL_N) && defined(COL_SMEM)
  // (the host builds this module only for wsInShared 1 or 2: B, B* and the small arrays are known to
  // be in shared memory, so their accesses compile to shared-memory loads and stores, not generic ones)
  unsigned char* p = smem;
#else
  unsigned char* p = wsInShared == 0 ? g : smem;
#endif
  unsigned char* pz = wsInShared == 2 ? g : p;
  w.Zw = (double*)pz; pz += (size_t)m * m * 8;
#ifdef COL_N
  // column owners: no snapshots; step 3's lists (multipliers, then their columns) instead
  w.Zold = nullptr; w.Bold = nullptr;
  w.LX = (double*)pz; pz += (size_t)m * m * 8;
  w.Lj = (int*)pz; pz += ((size_t)m * m * 4 + 15) & ~(size_t)15;
  w.Zn = (double*)pz; pz += (size_t)m * m * 8;
#else
  w.Zold = (double*)pz; pz += (size_t)m * m * 8;
  w.LX = nullptr; w.Lj = nullptr; w.cnt = nullptr; w.Zn = nullptr;
#endif
#if defined(COL_N) && defined(COL_SMEM)
  if (wsInShared != 2) p = smem + (pz - smem);  // (p stays derived from smem alone)
#else
  if (wsInShared != 2) p = pz;
#endif
  w.part = (double*)p; p += (size_t)6 * slots * 8;
  w.norm0 = (double*)p; p += (size_t)slots * 8;
  w.dX = (double*)p; p += (size_t)slots * 8;
  w.dMu = (double*)p; p += (size_t)slots * 8;
  w.dMuNew = (double*)p; p += (size_t)slots * 8;
  w.dC = (double*)p; p += (size_t)slots * 8;
  w.cval = (double*)p; p += (size_t)slots * 8;
  w.zstat = (unsigned long long*)p; p += 16;
  const int ld = n | 1;
  const size_t basisBytes = ((size_t)ld * m * sizeof(real) + 15) & ~(size_t)15;
  w.B = (real*)p; p += basisBytes;
#ifdef COL_N
  w.Bs = (bs_t*)p; p += ((size_t)ld * m * sizeof(bs_t) + 15) & ~(size_t)15;  // B* widened (floats with COL_F32_ARITH)
#else
  w.Bs = (real*)p; p += basisBytes;
  w.Bold = (real*)p; p += basisBytes;
#endif
  w.r = (real*)p; p += ((size_t)slots * sizeof(real) + 15) & ~(size_t)15;
  w.dSwap = (int*)p; p += (size_t)slots * 4;
#ifdef COL_N
  w.cnt = (int*)p; p += (size_t)slots * 4;
#endif
  w.flags = (int*)p;  // [0], [1]: swap flag by phase parity; [2]: transform overflow; [3]: length of step 3's list
  w.n = n; w.m = m; w.tid = tid; w.nt = nt; w.ld = ld;
  real* B = w.B;
  bs_t* Bs = w.Bs;
  double* Zw = w.Zw;
  double* part = w.part;

  const real* B0 = Bin + (size_t)basis * n * m;
  real* B1 = Bout + (size_t)basis * n * m;
  double* Zo = Zout + (size_t)basis * m * m;
  int* st = stats + (size_t)basis * STATS_WIDTH;
  const bool f32 = is_float((real)0);
  const double growth = growth_factor((real)0);

  // load, identity Z, input checks (non-finite entries; integral input needs no re-anchoring)
  int nonFinite = 0, nonInteger = 0;
  for (int e = tid; e < n * m; e += nt) {
    const real x = B0[e];
    const int j = e / n;
    B[e + j * (ld - n)] = x;
    if (!isfinite(x)) nonFinite = 1;
    else if (x != floor(x)) nonInteger = 1;
  }
  for (int e = tid; e < m * m; e += nt) Zw[e] = (e % (m + 1) == 0) ? 1.0 : 0.0;
  if (tid < 4) w.flags[tid] = 0;
  if (tid == 0) { w.zstat[0] = 0ull; w.zstat[1] = 0ull; }
  if (__syncthreads_or(nonFinite)) {
    if (tid == 0) {
      int c = 0;
      for (int e = 0; e < n * m; e++) if (!isfinite(B0[e])) { c = e / n; break; }
      st[3] = STATUS_NON_FINITE; st[4] = c;
    }
    return;
  }
  const bool integral = !__syncthreads_or(nonInteger);

  int phases = 0, mySwaps = 0, myReductions = 0, status = STATUS_OK, detail = 0;
  unsigned phaseCount = 0;  // phases run so far: picks the swap-flag word
#ifdef COL_PROFILE
  if (tid < 8) col_prof[tid] = 0;
  __syncthreads();
  const long long profBegin = clock64();
#define KPROF_START long long kt0 = clock64()
#define KPROF(i) do { if (tid == 0) { const long long t1 = clock64(); col_prof[i] += t1 - kt0; kt0 = t1; } } while (0)
#else
#define KPROF_START
#define KPROF(i)
#endif
  if (m >= 2) {
    for (int round = 0; round < MAX_ROUNDS; round++) {
      const int reductionsBefore = myReductions, swapsBefore = mySwaps;
      KPROF_START;
      // 0. re-anchor: B = B_in Z
      double zMaxKnown = -1;  // max |Z| when known without z_max_abs (zPeak then reset too)
      if (round > 0 && !integral) {
#ifdef COL_N
        zMaxKnown = col_reanchor(w, B0);
#else
        for (int e = tid; e < n * m; e += nt) {
          const int j = e / n, t = e - j * n;
          double acc = 0;
          for (int k = 0; k < m; k++) {
            const double z = Zw[k + j * m];
            if (z == 0) continue;
            acc = acc + (double)B0[t + (size_t)k * n] * z;
          }
          B[t + (size_t)j * ld] = (real)acc;
        }
        __syncthreads();
#endif
      }
      // 1. Gram-Schmidt; the growth watch's limit
      KPROF(0);
      status = gram_schmidt(w, f32, &detail);
      if (status != STATUS_OK) break;
      KPROF(1);
#ifdef COL_N
      // round 0: Z is the identity (zPeak was cleared at the start)
      if (round == 0) zMaxKnown = 1.0;
#endif
      double zLimit = growth * (zMaxKnown >= 0 ? zMaxKnown : z_max_abs(w));
      KPROF(2);

      // 2. all-swap phases, odd first, until the last phase of each parity swapped nothing
      bool oddDirty = true, evenDirty = true;
      int parity = 1;
      while (oddDirty || evenDirty) {
        if (phases >= maxIterations) { status = STATUS_ITERATION_LIMIT; break; }
        phases++;
        int* swapFlag = w.flags + (phaseCount & 1);
        const int first = parity == 1 ? 1 : 2;
        const int pairs = first < m ? (m - first + 1) / 2 : 0;
        // dots of pair p (k = first + 2p): 0 <b_k, b*_{k-1}>, 1 ||b*_{k-1}||^2, 2 ||b*_k||^2
        for (int e = tid; e < 12 * pairs; e += nt) {
          const int pr = e / 12, d = (e >> 2) % 3, q = e & 3;
          const int k = first + 2 * pr;
          const bs_t* a = d == 2 ? Bs + (size_t)k * ld : Bs + (size_t)(k - 1) * ld;
          part[e] = d == 0 ? dot_partial(B + (size_t)k * ld, a, n, q) : dot_partial(a, a, n, q);
        }
        __syncthreads();
        if (tid == 0) w.flags[(phaseCount + 1) & 1] = 0;  // the next phase's word, last read a phase ago
        // per pair: SimpleSizeReduce of mu_{k,k-1}, Lovasz test, SimpleSwap's coefficients
        for (int pr = tid; pr < pairs; pr += nt) {
          const double d0 = combine4(part + 12 * pr), r1 = combine4(part + 12 * pr + 4), rk = combine4(part + 12 * pr + 8);
          double mu = (double)(real)(d0 / r1);
          double X = 0;
          if (fabs(mu) > bound) {
            X = round_half_up(mu);
            mu = (double)(real)(mu - X);
            myReductions++;
          }
          const int swap = rk < (delta - mu * mu) * r1;
          w.dX[pr] = X;
          w.dSwap[pr] = swap;
          if (swap) {
            const double r1New = rk + mu * mu * r1;
            w.dMu[pr] = mu;
            w.dMuNew[pr] = (mu * r1) / r1New;
            w.dC[pr] = rk / r1New;
            mySwaps++;
            atomicOr(swapFlag, 1);
          }
        }
        __syncthreads();
        // every element of the pairs' columns: size reduction, then the swap of B and Z and the
        // new GS vectors; the largest new |Z| entry feeds the growth watch
        const int perPair = n + m;
        unsigned long long zPeakMine = 0ull;
        // element t of pair pr (B then Z), walked without a division per element
        for (int pr = tid / perPair, t = tid % perPair, dq = nt / perPair, dr = nt % perPair; pr < pairs;) {
          const int k = first + 2 * pr;
          const double X = w.dX[pr];
          const int swap = w.dSwap[pr];
          pair_element(B, Bs, Zw, ld, n, m, k, t, X, swap, w.dMu[pr], w.dMuNew[pr], w.dC[pr], &zPeakMine, &w.flags[2]);
          t += dr; pr += dq;
          if (t >= perPair) { t -= perPair; pr++; }
        }
        if (zPeakMine) atomicMax(&w.zstat[0], zPeakMine);
        __syncthreads();
        const bool swapped = *swapFlag != 0;
        if (w.flags[2]) { status = STATUS_TRANSFORM_OVERFLOW; break; }
        phaseCount++;
        if (parity == 1) oddDirty = swapped; else evenDirty = swapped;
        parity = parity == 1 ? 0 : 1;
        // growth watch: step 3 now, then a fresh Gram-Schmidt
        if (__longlong_as_double((long long)w.zstat[0]) > zLimit) {
          status = reduce_all(w, bound, &myReductions);
          if (status != STATUS_OK) break;
          zLimit = growth * z_max_abs(w);
          status = gram_schmidt(w, f32, &detail);
          if (status != STATUS_OK) break;
        }
      }
      if (status != STATUS_OK) break;
      KPROF(3);

      // 3. the delayed GS-coefficient update and size reduction of everything
      status = reduce_all(w, bound, &myReductions);
      if (status != STATUS_OK) break;
#ifndef COL_N
      z_max_abs(w);  // (the reference's zLimit after step 3: unused before the next round's reset)
#endif
#ifdef COL_PROFILE
      if (tid == 0) col_prof[7]++;
#endif
      if (!__syncthreads_or(myReductions != reductionsBefore || mySwaps != swapsBefore)) break;
    }
  }

#ifdef COL_PROFILE
  if (tid == 0 && basis == 0) {
    printf("COLPROF total %lld rounds %lld anchor %lld gs %lld zmax %lld phases %lld s3dots %lld s3z %lld phasesN %d red %d\n", clock64() - profBegin, col_prof[7],
           col_prof[0], col_prof[1], col_prof[2], col_prof[3], col_prof[4], col_prof[5], phases, myReductions);
  }
#endif
  if (status == STATUS_OK) {
    for (int e = tid; e < n * m; e += nt) B1[e] = B[e + (e / n) * (ld - n)];
    for (int e = tid; e < m * m; e += nt) Zo[e] = Zw[e];
  }
  if (mySwaps) atomicAdd(&st[1], mySwaps);
  if (myReductions) atomicAdd(&st[2], myReductions);
  if (tid == 0) { st[0] = phases; st[3] = status; st[4] = detail; }
}

// ------------------------------------------------------------------------------------------------
// allswap_lane: the same algorithm with one thread per basis, for small bases. A block per basis
// leaves most of its lanes idle on an 8 x 8 basis (four pairs, dot products of length 8) and spends
// its time in barriers; here each thread runs the CPU reference's serial order literally (cpu.ts,
// phases.ts and the left-looking Gram-Schmidt, size reduction and B_in Z of lll/gso.ts), so no step
// needs a barrier, and the 32 lanes of a warp reduce 32 bases in lockstep. Every product and sum
// is rounded on its own in double (-fmad=false), stored values are rounded to REAL: the same Z and
// basis as the reference, bit for bit.
//
// Workspace, interleaved by lane so that the lanes of a warp touch consecutive words (no shared
// memory bank conflicts; coalesced in global memory): element e of a thread's array X lies at
// X[e * L + lane], L = blockDim.x. Per thread: Z (m*m doubles), then B, B* (n*m reals each) and
// r (m reals). Z lies in shared memory when zInShared, else in the global scratch; B, B*, r in
// shared memory when bInShared, else in the global scratch. Shared memory holds, per block, the
// shared arrays in that order; the global scratch holds, per block of L bases, the others in that
// order (allswapLanePlan in cuda.ts sizes both).
// ------------------------------------------------------------------------------------------------

// Specialisation: with -DLANE_N=n -DLANE_M=m -DLANE_L=L (the host compiles one module per small
// size) the sizes are compile-time constants: every loop over a column unrolls, and every offset
// into the interleaved workspace is an immediate of the load or store.
#ifdef LANE_N
#define LANE_SIZE_N LANE_N
#define LANE_SIZE_M LANE_M
#define LANE_STRIDE LANE_L
#else
#define LANE_SIZE_N w.n
#define LANE_SIZE_M w.m
#define LANE_STRIDE L
#endif

// One thread's view of an interleaved array.
template <typename T> struct Strided {
  T* p;
  int L;
  __device__ __forceinline__ T& operator[](int e) const { return p[(size_t)e * LANE_STRIDE]; }
};

// dotCols: four partial sums over t = q (mod 4), the tail into s_0, combined (s0 + s1) + (s2 + s3).
template <typename A, typename C>
__device__ __forceinline__ double lane_dot(const Strided<A>& a, int ao, const Strided<C>& c, int co, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int t = 0;
  for (; t + 3 < n; t += 4) {
    s0 += (double)a[ao + t] * (double)c[co + t];
    s1 += (double)a[ao + t + 1] * (double)c[co + t + 1];
    s2 += (double)a[ao + t + 2] * (double)c[co + t + 2];
    s3 += (double)a[ao + t + 3] * (double)c[co + t + 3];
  }
  for (; t < n; t++) s0 += (double)a[ao + t] * (double)c[co + t];
  return (s0 + s1) + (s2 + s3);
}

struct LaneWork {
  Strided<real> B, Bs, r;
  Strided<double> Z;
  int n, m;
  double delta, bound, growth;
  double zPeak, zLimit;
  int swaps, reductions;
};

// b_k -= x b_j on B and Z (reduceColumn: subMulCol, subMulColExact). Returns the largest new |Z|
// entry of column k; a value >= 2^53 is the reference's transform overflow.
__device__ __forceinline__ double lane_reduce_column(LaneWork& w, int k, int j, double x) {
  const int n = LANE_SIZE_N, m = LANE_SIZE_M;
  for (int t = 0; t < n; t++) w.B[k * n + t] = (real)((double)w.B[k * n + t] - x * (double)w.B[j * n + t]);
  double big = 0;
  for (int t = 0; t < m; t++) {
    const double v = w.Z[k * m + t] - x * w.Z[j * m + t];
    w.Z[k * m + t] = v;
    const double a = fabs(v);
    if (a > big) big = a;
  }
  return big;
}

__device__ __forceinline__ double lane_max_abs_z(const LaneWork& w) {
  const int m = LANE_SIZE_M;
  double big = 0;
  for (int e = 0; e < m * m; e++) {
    const double a = fabs(w.Z[e]);
    if (a > big) big = a;
  }
  return big;
}

// gramSchmidtInto (left-looking modified Gram-Schmidt); a breakdown returns its status and column.
__device__ __forceinline__ int lane_gram_schmidt(LaneWork& w, bool f32, int* column) {
  const int n = LANE_SIZE_N, m = LANE_SIZE_M;
  for (int e = 0; e < n * m; e++) w.Bs[e] = w.B[e];
  for (int j = 0; j < m; j++) {
    const int jo = j * n;
    const double norm0 = lane_dot(w.Bs, jo, w.Bs, jo, n);
    for (int i = 0; i < j; i++) {
      const int io = i * n;
      const double c = lane_dot(w.Bs, jo, w.Bs, io, n) / (double)w.r[i];
      for (int t = 0; t < n; t++) w.Bs[jo + t] = (real)((double)w.Bs[jo + t] - c * (double)w.Bs[io + t]);
    }
    const double rj = lane_dot(w.Bs, jo, w.Bs, jo, n);
    w.r[j] = (real)rj;
    if (!((double)w.r[j] > 0) || !(rj > 1e-28 * norm0)) {
      const bool zero = norm0 == 0;
      *column = j;
      return f32 && !zero ? STATUS_PRECISION_FAILURE : zero ? STATUS_ZERO_VECTOR : STATUS_RANK_DEFICIENT;
    }
  }
  return STATUS_OK;
}

// The closing step (reduceAll in cpu.ts): r_j = ||b*_j||^2, then sizeReduceFromBstar over every
// column, k from the last down, j from k-1 down; then the growth watch's new limit.
__device__ __forceinline__ int lane_reduce_all(LaneWork& w) {
  const int n = LANE_SIZE_N, m = LANE_SIZE_M;
  for (int j = 0; j < m; j++) w.r[j] = (real)lane_dot(w.Bs, j * n, w.Bs, j * n, n);
  for (int k = m - 1; k >= 1; k--) {
    for (int j = k - 1; j >= 0; j--) {
      const double mu = lane_dot(w.B, k * n, w.Bs, j * n, n) / (double)w.r[j];
      if (fabs(mu) > w.bound) {
        w.reductions++;
        if (lane_reduce_column(w, k, j, round_half_up(mu)) >= EXACT_INTEGER_LIMIT) return STATUS_TRANSFORM_OVERFLOW;
      }
    }
  }
  w.zLimit = w.growth * lane_max_abs_z(w);
  w.zPeak = 0;
  return STATUS_OK;
}

// pairStep (phases.ts) on the pair (k-1, k): SimpleSizeReduce, the Lovasz test, SimpleSwap.
// Returns 1 on a swap, 0 without, or -1 on a transform overflow.
__device__ __forceinline__ int lane_pair_step(LaneWork& w, int k) {
  const int n = LANE_SIZE_N, m = LANE_SIZE_M;
  const int a = (k - 1) * n, b = k * n;
  const double r1 = lane_dot(w.Bs, a, w.Bs, a, n);
  double mu = (double)(real)(lane_dot(w.B, b, w.Bs, a, n) / r1);
  if (fabs(mu) > w.bound) {
    const double X = round_half_up(mu);
    const double big = lane_reduce_column(w, k, k - 1, X);
    if (big >= EXACT_INTEGER_LIMIT) return -1;
    if (big > w.zPeak) w.zPeak = big;
    mu = (double)(real)(mu - X);
    w.reductions++;
  }
  const double rk = lane_dot(w.Bs, b, w.Bs, b, n);
  if (!(rk < (w.delta - mu * mu) * r1)) return 0;
  for (int t = 0; t < n; t++) { const real v = w.B[a + t]; w.B[a + t] = w.B[b + t]; w.B[b + t] = v; }
  for (int t = 0; t < m; t++) { const double v = w.Z[(k - 1) * m + t]; w.Z[(k - 1) * m + t] = w.Z[k * m + t]; w.Z[k * m + t] = v; }
  // simpleSwapBstar
  const double r1New = rk + mu * mu * r1;
  const double muNew = (mu * r1) / r1New;
  const double c = rk / r1New;
  for (int t = 0; t < n; t++) {
    const double x = (double)w.Bs[a + t], y = (double)w.Bs[b + t];
    w.Bs[a + t] = (real)(y + mu * x);
    w.Bs[b + t] = (real)(c * x - muNew * y);
  }
  w.swaps++;
  return 1;
}

extern "C" __global__ void allswap_lane(
    const real* __restrict__ Bin,   // batch x n x m, column-major bases
    real* __restrict__ Bout,        // batch x n x m, reduced bases
    double* __restrict__ Zout,      // batch x m x m, unimodular transforms
    unsigned char* __restrict__ wsGlobal,  // per block of L bases: the arrays not in shared memory
    int* __restrict__ stats,        // batch x STATS_WIDTH
    int n, int m, int maxIterations, double delta, double bound, int zInShared, int bInShared, int count) {
  extern __shared__ __align__(16) unsigned char smem[];
#ifdef LANE_N
  n = LANE_N; m = LANE_M;  // the host launches a specialised module only for its own size
  const int L = LANE_L;
#else
  const int L = blockDim.x;
#endif
  const int lane = threadIdx.x;
  const int basis = blockIdx.x * L + lane;
  if (basis >= count) return;
  const size_t zBytes = (size_t)m * m * 8 * L;
  const size_t bBytes = (size_t)n * m * sizeof(real) * L;
  const size_t globalPerBlock = (zInShared ? 0 : zBytes) + (bInShared ? 0 : 2 * bBytes + (size_t)m * sizeof(real) * L);
  unsigned char* gl = wsGlobal + (size_t)blockIdx.x * globalPerBlock;
  // Z first in whichever space holds it, then B, B*, r after Z when they share the space
  unsigned char* zp = zInShared ? smem : gl;
  unsigned char* bp = bInShared ? smem : gl;
  if (zInShared == bInShared) bp += zBytes;
  LaneWork w;
  w.Z = Strided<double>{(double*)zp + lane, L};
  w.B = Strided<real>{(real*)bp + lane, L};
  w.Bs = Strided<real>{(real*)(bp + bBytes) + lane, L};
  w.r = Strided<real>{(real*)(bp + 2 * bBytes) + lane, L};
  w.n = n; w.m = m; w.delta = delta; w.bound = bound;
  w.growth = growth_factor((real)0);
  w.zPeak = 0; w.zLimit = 0; w.swaps = 0; w.reductions = 0;
  const bool f32 = is_float((real)0);

  const real* B0 = Bin + (size_t)basis * n * m;
  int* st = stats + (size_t)basis * STATS_WIDTH;
  bool integral = true;
  for (int e = 0; e < n * m; e++) {
    const real x = B0[e];
    if (!isfinite(x)) {
      st[0] = 0; st[1] = 0; st[2] = 0; st[3] = STATUS_NON_FINITE; st[4] = e / n;
      return;
    }
    if (x != floor(x)) integral = false;
    w.B[e] = x;
  }
  for (int e = 0; e < m * m; e++) w.Z[e] = (e % (m + 1) == 0) ? 1.0 : 0.0;

  int phases = 0, status = STATUS_OK, detail = 0;
  if (m >= 2) {
    for (int round = 0; round < MAX_ROUNDS && status == STATUS_OK; round++) {
      const int before = w.swaps + w.reductions;
      if (round > 0 && !integral) {
        // basisFromTransform: B = B_in Z, each entry summed over k in order, zero entries skipped
        for (int j = 0; j < m; j++) {
          for (int t = 0; t < n; t++) {
            double acc = 0;
            for (int k = 0; k < m; k++) {
              const double z = w.Z[k + j * m];
              if (z == 0) continue;
              acc = acc + (double)B0[t + (size_t)k * n] * z;
            }
            w.B[t + j * n] = (real)acc;
          }
        }
      }
      status = lane_gram_schmidt(w, f32, &detail);
      if (status != STATUS_OK) break;
      w.zLimit = w.growth * lane_max_abs_z(w);
      w.zPeak = 0;
      // runPhases: odd first, until the latest phase of each parity swapped nothing
      bool oddDirty = true, evenDirty = true;
      int parity = 1;
      while (oddDirty || evenDirty) {
        if (phases >= maxIterations) { status = STATUS_ITERATION_LIMIT; break; }
        phases++;
        bool swapped = false;
        for (int k = parity == 1 ? 1 : 2; k < m; k += 2) {
          const int s = lane_pair_step(w, k);
          if (s < 0) { status = STATUS_TRANSFORM_OVERFLOW; break; }
          if (s) swapped = true;
        }
        if (status != STATUS_OK) break;
        if (parity == 1) oddDirty = swapped; else evenDirty = swapped;
        parity = parity == 1 ? 0 : 1;
        if (w.zPeak > w.zLimit) {  // the growth watch
          status = lane_reduce_all(w);
          if (status != STATUS_OK) break;
          status = lane_gram_schmidt(w, f32, &detail);
          if (status != STATUS_OK) break;
        }
      }
      if (status != STATUS_OK) break;
      status = lane_reduce_all(w);
      if (status != STATUS_OK) break;
      if (w.swaps + w.reductions == before) break;
    }
  }

  if (status == STATUS_OK) {
    real* B1 = Bout + (size_t)basis * n * m;
    double* Zo = Zout + (size_t)basis * m * m;
    for (int e = 0; e < n * m; e++) B1[e] = w.B[e];
    for (int e = 0; e < m * m; e++) Zo[e] = w.Z[e];
  }
  st[0] = phases; st[1] = w.swaps; st[2] = w.reductions; st[3] = status; st[4] = detail;
}
