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
// One round (at most MAX_ROUNDS, until one changes nothing):
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
//      columns j < k as they were before this step (a snapshot), j from k-1 down.
//
// -D parameters: REAL = float | double. The workspace (B, B*, snapshots, Z, partial sums, per-pair
// decisions) lives in shared memory when the host found room (wsInShared), else in global scratch;
// its layout is carved below and must match allswapPlan in cuda.ts.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#ifndef REAL
#define REAL double
#endif

typedef REAL real;

#define MAX_ROUNDS 8
#define STATUS_OK 0
#define STATUS_NON_FINITE 1
#define STATUS_ZERO_VECTOR 2
#define STATUS_ITERATION_LIMIT 3
#define STATUS_RANK_DEFICIENT 4
#define STATUS_PRECISION_FAILURE 5
#define STATUS_TRANSFORM_OVERFLOW 6

// stats per basis: [iterations (phases), swaps, size reductions, status, detail (a column)]
#define STATS_WIDTH 5

#define EXACT_INTEGER_LIMIT 9007199254740992.0  // 2^53

__device__ __forceinline__ bool is_float(float) { return true; }
__device__ __forceinline__ bool is_float(double) { return false; }

// JavaScript's Math.round: nearest integer, halves towards +infinity (exact for every double).
__device__ __forceinline__ double round_half_up(double x) {
  const double f = floor(x);
  return x - f >= 0.5 ? f + 1.0 : f;
}

// The four partial sums of dotCols for lane q of a dot product of length n.
__device__ __forceinline__ double dot_partial(const real* a, const real* c, int n, int q) {
  double s = 0;
  const int main = n & ~3;
  for (int t = q; t < main; t += 4) s += (double)a[t] * (double)c[t];
  if (q == 0) for (int t = main; t < n; t++) s += (double)a[t] * (double)c[t];
  return s;
}

__device__ __forceinline__ double combine4(const double* s) { return (s[0] + s[1]) + (s[2] + s[3]); }

extern "C" __global__ void allswap(
    const real* __restrict__ Bin,   // batch x n x m, column-major bases
    real* __restrict__ Bout,        // batch x n x m, reduced bases
    double* __restrict__ Zout,      // batch x m x m, unimodular transforms
    unsigned char* __restrict__ wsGlobal,  // batch x wsBytes, used when the workspace is not in shared memory
    int* __restrict__ stats,        // batch x STATS_WIDTH, zero on entry
    int n, int m, int maxIterations, double delta, double bound, int wsInShared, int wsBytes) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int basis = blockIdx.x;
  const int tid = threadIdx.x;
  const int nt = blockDim.x;
  const int slots = m > 2 ? m : 2;  // per-column arrays (pairs <= m / 2, columns m)

  // workspace: [Zw, Zold (m*m doubles each)][part (12 * slots doubles)][norm0, dX, dMu, dMuNew,
  //             dC, cval (slots doubles each)][B, Bs, Bold (n*m reals each, padded to 16)]
  //             [r (slots reals, padded)][dSwap (slots ints)][flags (4 ints)]
  unsigned char* p = wsInShared ? smem : wsGlobal + (size_t)basis * wsBytes;
  double* Zw = (double*)p; p += (size_t)m * m * 8;
  double* Zold = (double*)p; p += (size_t)m * m * 8;
  double* part = (double*)p; p += (size_t)12 * slots * 8;
  double* norm0 = (double*)p; p += (size_t)slots * 8;
  double* dX = (double*)p; p += (size_t)slots * 8;
  double* dMu = (double*)p; p += (size_t)slots * 8;
  double* dMuNew = (double*)p; p += (size_t)slots * 8;
  double* dC = (double*)p; p += (size_t)slots * 8;
  double* cval = (double*)p; p += (size_t)slots * 8;
  const size_t basisBytes = ((size_t)n * m * sizeof(real) + 15) & ~(size_t)15;
  real* B = (real*)p; p += basisBytes;
  real* Bs = (real*)p; p += basisBytes;
  real* Bold = (real*)p; p += basisBytes;
  real* r = (real*)p; p += ((size_t)slots * sizeof(real) + 15) & ~(size_t)15;
  int* dSwap = (int*)p; p += (size_t)slots * 4;
  int* flags = (int*)p;  // [0], [1]: swap flag by phase parity; [2]: transform overflow; [3]: spare

  const real* B0 = Bin + (size_t)basis * n * m;
  real* B1 = Bout + (size_t)basis * n * m;
  double* Zo = Zout + (size_t)basis * m * m;
  int* st = stats + (size_t)basis * STATS_WIDTH;
  const bool f32 = is_float((real)0);

  // load, identity Z, input checks (non-finite entries; integral input needs no re-anchoring)
  int nonFinite = 0, nonInteger = 0;
  for (int e = tid; e < n * m; e += nt) {
    const real x = B0[e];
    B[e] = x;
    if (!isfinite(x)) nonFinite = 1;
    else if (x != floor(x)) nonInteger = 1;
  }
  for (int e = tid; e < m * m; e += nt) Zw[e] = (e % (m + 1) == 0) ? 1.0 : 0.0;
  if (tid < 4) flags[tid] = 0;
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
  if (m >= 2) {
    for (int round = 0; round < MAX_ROUNDS; round++) {
      int changed = 0;  // this thread's swaps or size reductions in this round
      // 0. re-anchor: B = B_in Z
      if (round > 0 && !integral) {
        for (int e = tid; e < n * m; e += nt) {
          const int j = e / n, t = e - j * n;
          double acc = 0;
          for (int k = 0; k < m; k++) {
            const double z = Zw[k + j * m];
            if (z == 0) continue;
            acc = acc + (double)B0[t + (size_t)k * n] * z;
          }
          B[e] = (real)acc;
        }
        __syncthreads();
      }
      // 1. Gram-Schmidt: B* = B, norm0_j = ||b_j||^2, then right-looking MGS
      for (int e = tid; e < n * m; e += nt) Bs[e] = B[e];
      for (int e = tid; e < 4 * m; e += nt) part[e] = dot_partial(B + (size_t)(e >> 2) * n, B + (size_t)(e >> 2) * n, n, e & 3);
      __syncthreads();
      for (int j = tid; j < m; j += nt) norm0[j] = combine4(part + 4 * j);
      __syncthreads();
      for (int i = 0; i < m && status == STATUS_OK; i++) {
        // dot 0: <b*_i, b*_i>; dot d >= 1: <b*_{i+d}, b*_i>
        const int dots = m - i;
        for (int e = tid; e < 4 * dots; e += nt) {
          const int d = e >> 2;
          part[e] = dot_partial(Bs + (size_t)(i + d) * n, Bs + (size_t)i * n, n, e & 3);
        }
        __syncthreads();
        // every thread computes r_i from the same partial sums: the breakdown test is uniform
        const double ri = combine4(part);
        const real rStored = (real)ri;
        if (!(rStored > 0) || !(ri > 1e-28 * norm0[i])) {
          const bool zero = norm0[i] == 0;
          status = f32 && !zero ? STATUS_PRECISION_FAILURE : zero ? STATUS_ZERO_VECTOR : STATUS_RANK_DEFICIENT;
          detail = i;
          break;
        }
        if (tid == 0) r[i] = rStored;
        for (int d = 1 + tid; d < dots; d += nt) cval[d] = combine4(part + 4 * d) / (double)rStored;
        __syncthreads();
        for (int e = tid; e < (dots - 1) * n; e += nt) {
          const int d = 1 + e / n, t = e - (d - 1) * n;
          real* bj = Bs + (size_t)(i + d) * n;
          bj[t] = (real)((double)bj[t] - cval[d] * (double)Bs[(size_t)i * n + t]);
        }
        __syncthreads();
      }
      if (status != STATUS_OK) break;

      // 2. all-swap phases, odd first, until the last phase of each parity swapped nothing
      bool oddDirty = true, evenDirty = true;
      int parity = 1;
      while (oddDirty || evenDirty) {
        if (phases >= maxIterations) { status = STATUS_ITERATION_LIMIT; break; }
        phases++;
        int* swapFlag = flags + (phaseCount & 1);
        const int first = parity == 1 ? 1 : 2;
        const int pairs = first < m ? (m - first + 1) / 2 : 0;
        // dots of pair p (k = first + 2p): 0 <b_k, b*_{k-1}>, 1 ||b*_{k-1}||^2, 2 ||b*_k||^2
        for (int e = tid; e < 12 * pairs; e += nt) {
          const int pr = e / 12, d = (e >> 2) % 3, q = e & 3;
          const int k = first + 2 * pr;
          const real* a = d == 2 ? Bs + (size_t)k * n : Bs + (size_t)(k - 1) * n;
          const real* c = d == 0 ? B + (size_t)k * n : d == 1 ? Bs + (size_t)(k - 1) * n : Bs + (size_t)k * n;
          part[e] = dot_partial(c, a, n, q);
        }
        __syncthreads();
        if (tid == 0) flags[(phaseCount + 1) & 1] = 0;  // the next phase's word, last read a phase ago
        // per pair: SimpleSizeReduce of mu_{k,k-1}, Lovasz test, SimpleSwap's coefficients
        for (int pr = tid; pr < pairs; pr += nt) {
          const double d0 = combine4(part + 12 * pr), r1 = combine4(part + 12 * pr + 4), rk = combine4(part + 12 * pr + 8);
          double mu = (double)(real)(d0 / r1);
          double X = 0;
          if (fabs(mu) > bound) {
            X = round_half_up(mu);
            mu = (double)(real)(mu - X);
            myReductions++;
            changed = 1;
          }
          const int swap = rk < (delta - mu * mu) * r1;
          dX[pr] = X;
          dSwap[pr] = swap;
          if (swap) {
            const double r1New = rk + mu * mu * r1;
            dMu[pr] = mu;
            dMuNew[pr] = (mu * r1) / r1New;
            dC[pr] = rk / r1New;
            mySwaps++;
            changed = 1;
            atomicOr(swapFlag, 1);
          }
        }
        __syncthreads();
        // every element of the pairs' columns: size reduction, then the swap of B and Z and the
        // new GS vectors
        const int perPair = n + m;
        for (int e = tid; e < pairs * perPair; e += nt) {
          const int pr = e / perPair, t = e - pr * perPair;
          const int k = first + 2 * pr;
          const double X = dX[pr];
          const int swap = dSwap[pr];
          if (t < n) {
            real* bk = B + (size_t)k * n;
            real* bk1 = B + (size_t)(k - 1) * n;
            real vk = bk[t];
            if (X != 0) vk = (real)((double)vk - X * (double)bk1[t]);
            if (swap) {
              bk[t] = bk1[t];
              bk1[t] = vk;
              real* sk = Bs + (size_t)k * n;
              real* sk1 = Bs + (size_t)(k - 1) * n;
              const double x = (double)sk1[t], y = (double)sk[t];
              sk1[t] = (real)(y + dMu[pr] * x);
              sk[t] = (real)(dC[pr] * x - dMuNew[pr] * y);
            } else {
              bk[t] = vk;
            }
          } else {
            const int u = t - n;
            double* zk = Zw + (size_t)k * m;
            double* zk1 = Zw + (size_t)(k - 1) * m;
            double vk = zk[u];
            if (X != 0) {
              vk = vk - X * zk1[u];
              if (fabs(vk) >= EXACT_INTEGER_LIMIT) atomicOr(&flags[2], 1);
            }
            if (swap) { zk[u] = zk1[u]; zk1[u] = vk; } else zk[u] = vk;
          }
        }
        __syncthreads();
        const bool swapped = *swapFlag != 0;
        if (flags[2]) { status = STATUS_TRANSFORM_OVERFLOW; break; }
        phaseCount++;
        if (parity == 1) oddDirty = swapped; else evenDirty = swapped;
        parity = parity == 1 ? 0 : 1;
      }
      if (status != STATUS_OK) break;

      // 3. r_j = ||b*_j||^2, snapshot of B and Z, then every column k against j = k-1 .. 0
      for (int e = tid; e < 4 * m; e += nt) part[e] = dot_partial(Bs + (size_t)(e >> 2) * n, Bs + (size_t)(e >> 2) * n, n, e & 3);
      for (int e = tid; e < n * m; e += nt) Bold[e] = B[e];
      for (int e = tid; e < m * m; e += nt) Zold[e] = Zw[e];
      __syncthreads();
      for (int j = tid; j < m; j += nt) r[j] = (real)combine4(part + 4 * j);
      __syncthreads();
      for (int step = 0; step < m - 1; step++) {
        // column k (1 <= k < m) works on j = k - 1 - step while that is >= 0: columns k > step
        const int active = m - 1 - step;  // columns k = step + 1 .. m - 1
        for (int e = tid; e < 4 * active; e += nt) {
          const int k = step + 1 + (e >> 2), j = k - 1 - step;
          part[e] = dot_partial(B + (size_t)k * n, Bs + (size_t)j * n, n, e & 3);
        }
        __syncthreads();
        for (int a = tid; a < active; a += nt) {
          const int k = step + 1 + a, j = k - 1 - step;
          const double mu = combine4(part + 4 * a) / (double)r[j];
          double X = 0;
          if (fabs(mu) > bound) { X = round_half_up(mu); myReductions++; changed = 1; }
          dX[a] = X;
        }
        __syncthreads();
        for (int e = tid; e < active * (n + m); e += nt) {
          const int a = e / (n + m), t = e - a * (n + m);
          const double X = dX[a];
          if (X == 0) continue;
          const int k = step + 1 + a, j = k - 1 - step;
          if (t < n) {
            B[(size_t)k * n + t] = (real)((double)B[(size_t)k * n + t] - X * (double)Bold[(size_t)j * n + t]);
          } else {
            const int u = t - n;
            const double v = Zw[(size_t)k * m + u] - X * Zold[(size_t)j * m + u];
            Zw[(size_t)k * m + u] = v;
            if (fabs(v) >= EXACT_INTEGER_LIMIT) atomicOr(&flags[2], 1);
          }
        }
        __syncthreads();
        if (flags[2]) { status = STATUS_TRANSFORM_OVERFLOW; break; }
      }
      if (status != STATUS_OK) break;
      if (!__syncthreads_or(changed)) break;
    }
  }

  if (status == STATUS_OK) {
    for (int e = tid; e < n * m; e += nt) B1[e] = B[e];
    for (int e = tid; e < m * m; e += nt) Zo[e] = Zw[e];
  }
  if (mySwaps) atomicAdd(&st[1], mySwaps);
  if (myReductions) atomicAdd(&st[2], myReductions);
  if (tid == 0) { st[0] = phases; st[3] = status; st[4] = detail; }
}
