// CR-AS-LLL's block kernel (block-kernel.cu: the algorithm, step by step) in the column-owner layout,
// one thread block per basis: the same entry (allswap-kernel.cuh) and phases; Gram-Schmidt, step 3
// and step 0 keep each column in the registers of four threads (below, "Column owners").
//
// -D parameters: REAL = float | double; COL_N = n (one module per column length); COL_SMEM (the
// host builds it only with the workspace's small arrays, B and B* in shared memory); COL_F32_ARITH
// (float32 arithmetic, below); ALLSWAP_THREADS and ALLSWAP_MIN_BLOCKS as in block-kernel.cu. The
// workspace is carved in allswap-kernel.cuh and must match allswapColumnPlan in cuda.ts.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false -DCOL_N=68 -DCOL_SMEM=1 -DALLSWAP_THREADS=256 -DALLSWAP_MIN_BLOCKS=3
// nvcc-variant: -DREAL=double -fmad=false -DCOL_N=64 -DALLSWAP_THREADS=256 -DALLSWAP_MIN_BLOCKS=3
// nvcc-variant: -DREAL=float -fmad=false -DCOL_N=66
// nvcc-variant: -DREAL=float -fmad=false -DCOL_N=68 -DCOL_SMEM=1 -DCOL_F32_ARITH=1 -DALLSWAP_THREADS=256 -DALLSWAP_MIN_BLOCKS=4

#ifndef COL_N
#error "column-kernel.cu needs -DCOL_N=n"
#endif

#include "../lll-common.cuh"

#ifndef COL_F32_ARITH
#define COL_F32_ARITH 0
#endif
#if COL_F32_ARITH
typedef float bs_t;  // (float32 arithmetic: below, "Column owners")
#else
typedef double bs_t;
#endif

#include "allswap-work.cuh"

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
//   latencies and no conversions, and the smaller footprint lets four bases share a multiprocessor.
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
// and the quads of a warp do not diverge on Z's pattern. (Each row is summed over all of B_in, not
// only over a sparse B_in's band: that form needs more registers, and NVRTC's build of it spills.)
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

// Gram-Schmidt's quotient from 1 / r_i (below): double arithmetic on float data only
#define COL_FASTDIV (is_float((real)0) && !COL_F32_ARITH)

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
  const bool sparse = __syncthreads_or(own && (lo > 0 || hi < COL_N - 1));
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
    if (GS_BREAKDOWN(rStored, ri, w.norm0[i])) {
      const int status = gs_breakdown_status(f32, w.norm0[i]);
      *column = i;
      return status;
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
  const bool sparse = __syncthreads_or(own && (lo > 0 || hi < COL_N - 1));
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
  return of ? STATUS_TRANSFORM_OVERFLOW : STATUS_OK;
}

#include "allswap-kernel.cuh"
