// CR-AS-LLL with one thread per basis (allswap_lane), for batches of small bases; the block kernel
// (block-kernel.cu) describes the algorithm. Launched by allswapLanePlan in cuda.ts.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false
// nvcc-variant: -DREAL=float -fmad=false -DLANE_N=12 -DLANE_M=8 -DLANE_L=32
// nvcc-variant: -DREAL=double -fmad=false -DLANE_N=8 -DLANE_M=8 -DLANE_L=32

#include "../lll-common.cuh"

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
    if (GS_BREAKDOWN((double)w.r[j], rj, norm0)) {
      const int status = gs_breakdown_status(f32, norm0);
      *column = j;
      return status;
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
  double muNew, c;
  swap_coefficients(mu, r1, rk, muNew, c);
  for (int t = 0; t < n; t++) swap_bstar_entry(w.Bs[a + t], w.Bs[b + t], mu, muNew, c);
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
        for (int j = 0; j < m; j++)
          for (int t = 0; t < n; t++) w.B[t + j * n] = (real)reanchor_entry(B0, w.Z, n, m, t, j);
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
