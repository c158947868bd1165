// Device primitives shared by the LLL-family kernels (allswap/*-kernel.cu, allswap/grid-kernel.cu,
// block/*-kernel.cu), each the exact counterpart of a CPU reference function, so that the kernels
// round as the references do; and their common definitions: the element type `real` (-DREAL, double
// by default), the rounds' bound, the status words (lattice/gpu/status.ts: STATUS) and the stats layout.
// Included textually: readKernelSource (src/gpu/module-cache.ts) inlines it for NVRTC, and nvcc and
// the g++ emulator resolve the #include themselves.

#ifndef LLL_COMMON_CUH
#define LLL_COMMON_CUH

#ifndef REAL
#define REAL double
#endif

typedef REAL real;

#define MAX_ROUNDS 8  // allswap/cpu.ts: MAX_ROUNDS
#define STATUS_OK 0
#define STATUS_NON_FINITE 1
#define STATUS_ZERO_VECTOR 2
#define STATUS_ITERATION_LIMIT 3
#define STATUS_RANK_DEFICIENT 4
#define STATUS_PRECISION_FAILURE 5
#define STATUS_TRANSFORM_OVERFLOW 6

// stats per basis: [iterations, swaps, size reductions, status, detail (a column)]
#define STATS_WIDTH 5

#define EXACT_INTEGER_LIMIT 9007199254740992.0  // 2^53

__device__ __forceinline__ bool is_float(float) { return true; }
__device__ __forceinline__ bool is_float(double) { return false; }

// 2^6 in float32, 2^16 in float64 (growthFactor in allswap/phases.ts).
__device__ __forceinline__ double growth_factor(float) { return 64.0; }
__device__ __forceinline__ double growth_factor(double) { return 65536.0; }

// JavaScript's Math.round: nearest integer, halves towards +infinity (exact for every double).
__device__ __forceinline__ double round_half_up(double x) {
  const double f = floor(x);
  return x - f >= 0.5 ? f + 1.0 : f;
}

// The four partial sums of dotCols (lll/columns.ts) for lane q of a dot product of length n. The
// operands may be held in either precision (allswap/column-kernel.cu keeps B* as doubles in its
// column-owner layout): every term is widened to double, so the sum is the same.
template <typename A, typename C>
__device__ __forceinline__ double dot_partial(const A* a, const C* c, int n, int q) {
  double s = 0;
  const int main = n & ~3;
  for (int t = q; t < main; t += 4) s += (double)a[t] * (double)c[t];
  if (q == 0) for (int t = main; t < n; t++) s += (double)a[t] * (double)c[t];
  return s;
}

// dot_partial of two columns a1, a2 against one column c (c read and widened once per term); each
// sum is accumulated in the same order as dot_partial's.
__device__ __forceinline__ void dot_partial2(const real* a1, const real* a2, const real* c, int n, int q, double* s1, double* s2) {
  double u = 0, v = 0;
  const int main = n & ~3;
  for (int t = q; t < main; t += 4) {
    const double x = (double)c[t];
    u += (double)a1[t] * x;
    v += (double)a2[t] * x;
  }
  if (q == 0) for (int t = main; t < n; t++) {
    const double x = (double)c[t];
    u += (double)a1[t] * x;
    v += (double)a2[t] * x;
  }
  *s1 = u;
  *s2 = v;
}

__device__ __forceinline__ double combine4(const double* s) { return (s[0] + s[1]) + (s[2] + s[3]); }

// Entry (t, j) of the re-anchored basis B = B_in Z (basisFromTransform in lll/gso.ts), in double:
// summed over k in order, zero entries of Z skipped. B0: B_in (n x m); Z: m x m, column j at j m.
template <typename ZA>
__device__ __forceinline__ double reanchor_entry(const real* B0, const ZA& Z, int n, int m, int t, int j) {
  double acc = 0;
  for (int k = 0; k < m; k++) {
    const double z = Z[k + j * m];
    if (z == 0) continue;
    acc = acc + (double)B0[t + (size_t)k * n] * z;
  }
  return acc;
}

// The Gram-Schmidt breakdown test of gramSchmidtInto (lll/gso.ts) on column j: r_j = ||b*_j||^2 as
// stored (rStored) not positive, or (rj, in double) no more than 1e-28 of the column's squared norm
// before its projections (norm0), i.e. the column is, numerically, dependent on those before it.
// (A macro: as an inlined function's result the test compiles to a different branch layout.)
#define GS_BREAKDOWN(rStored, rj, norm0) (!((rStored) > 0) || !((rj) > 1e-28 * (norm0)))

// The status of that breakdown (breakdown in lll/gso.ts): ZERO_VECTOR for a zero column, else a
// precision failure in float32 (f32: the basis is redone in float64), RANK_DEFICIENT in float64.
__device__ __forceinline__ int gs_breakdown_status(bool f32, double norm0) {
  const bool zero = norm0 == 0;
  return f32 && !zero ? STATUS_PRECISION_FAILURE : zero ? STATUS_ZERO_VECTOR : STATUS_RANK_DEFICIENT;
}

// SimpleSwap of b_{k-1}, b_k (simpleSwapBstar in allswap/phases.ts) with mu = mu_{k,k-1},
// r1 = r_{k-1}, rk = r_k: the new mu_{k,k-1} (muNew) and the coefficient c of the new Gram-Schmidt
// vectors (swap_bstar_entry).
__device__ __forceinline__ void swap_coefficients(double mu, double r1, double rk, double& muNew, double& c) {
  const double r1New = rk + mu * mu * r1;
  muNew = (mu * r1) / r1New;
  c = rk / r1New;
}

// One entry of SimpleSwap's new Gram-Schmidt vectors: b*_{k-1}' = b*_k + mu b*_{k-1} into s1 (an
// entry of b*_{k-1}), b*_k' = c b*_{k-1} - muNew b*_k into s (the same entry of b*_k). B* may be held
// as doubles (S = double: the column-owner layout of allswap/column-kernel.cu); every value stored
// into it is first rounded to REAL, so it holds the same numbers either way.
template <typename S>
__device__ __forceinline__ void swap_bstar_entry(S& s1, S& s, double mu, double muNew, double c) {
  const double x = (double)s1, y = (double)s;
  s1 = (S)(real)(y + mu * x);
  s = (S)(real)(c * x - muNew * y);
}

// Row t of B (and of B* when swapping) in the pair k-1, k (pairStep in allswap/phases.ts, one
// entry): SimpleSizeReduce b_k -= X b_{k-1}, then SimpleSwap. Column j of B and B* at j ld.
template <typename S>
__device__ __forceinline__ void pair_basis_entry(real* B, S* Bs, size_t ld, int k, int t, double X, bool swap, double mu,
                                                 double muNew, double c) {
  real* bk = B + (size_t)k * ld;
  real* bk1 = B + (size_t)(k - 1) * ld;
  real vk = bk[t];
  if (X != 0) vk = (real)((double)vk - X * (double)bk1[t]);
  if (swap) {
    bk[t] = bk1[t];
    bk1[t] = vk;
    S* sk = Bs + (size_t)k * ld;
    S* sk1 = Bs + (size_t)(k - 1) * ld;
    swap_bstar_entry(sk1[t], sk[t], mu, muNew, c);
  } else {
    bk[t] = vk;
  }
}

// Row u of Z in the pair k-1, k: z_k -= X z_{k-1}, then the swap (column j of Z at j m). A new entry
// feeds the growth watch (zPeak, the largest |z| as bits); one at 2^53 or more calls overflow() (the
// transform overflowed).
template <typename F>
__device__ __forceinline__ void pair_transform_entry(double* Z, int m, int k, int u, double X, bool swap,
                                                     unsigned long long& zPeak, F overflow) {
  double* zk = Z + (size_t)k * m;
  double* zk1 = Z + (size_t)(k - 1) * m;
  double vk = zk[u];
  if (X != 0) {
    vk = vk - X * zk1[u];
    const unsigned long long b = (unsigned long long)__double_as_longlong(fabs(vk));
    if (b > zPeak) zPeak = b;
    if (fabs(vk) >= EXACT_INTEGER_LIMIT) overflow();
  }
  if (swap) { zk[u] = zk1[u]; zk1[u] = vk; } else zk[u] = vk;
}

// Element t of pair k-1, k in an all-swap phase: t < n is a row of B (and of B*), t >= n a row of
// Z (pair_basis_entry, pair_transform_entry); an overflow raises *overflow.
template <typename S>
__device__ __forceinline__ void pair_element(real* B, S* Bs, double* Z, size_t ld, int n, int m, int k, int t,
                                             double X, int swap, double mu, double muNew, double c,
                                             unsigned long long* zPeak, int* overflow) {
  if (X == 0 && !swap) return;  // nothing changes in this pair
  if (t < n) {
    pair_basis_entry(B, Bs, ld, k, t, X, swap, mu, muNew, c);
  } else {
    pair_transform_entry(Z, m, k, t - n, X, swap, *zPeak, [&] { atomicOr(overflow, 1); });
  }
}

// The coefficients of an all-swap phase's pairs (pairStep in allswap/phases.ts), pair pr from its
// dots in part[12 pr ..] (four partial sums each: <b_k, b*_{k-1}>, ||b*_{k-1}||^2, ||b*_k||^2):
// SimpleSizeReduce of mu_{k,k-1} (multiplier X), the Lovasz test, and SimpleSwap's coefficients,
// into w.dX, w.dSwap, w.dMu, w.dMuNew, w.dC at pr. W: the block kernels' or MB-LLL's workspace;
// thread tid takes pr = tid, tid + nt, ... A swap raises *swapFlag. Returns c plus this thread's
// swaps and size reductions.
struct PhaseCounts { int swaps, reductions; };
template <typename W>
__device__ __forceinline__ PhaseCounts phase_coefficients(W& w, const double* part, int pairs, double bound, double delta,
                                                          int* swapFlag, PhaseCounts c) {
  int mySwaps = c.swaps, myReductions = c.reductions;
  for (int pr = w.tid; pr < pairs; pr += w.nt) {
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
      w.dMu[pr] = mu;
      swap_coefficients(mu, r1, rk, w.dMuNew[pr], w.dC[pr]);
      mySwaps++;
      atomicOr(swapFlag, 1);
    }
  }
  return PhaseCounts{mySwaps, myReductions};
}

#endif  // LLL_COMMON_CUH
