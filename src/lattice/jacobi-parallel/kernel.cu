// Parallel Jacobi lattice reduction (Jeremic and Qiao, Algorithm 3), batched: one thread block per
// basis. It mirrors the CPU reference (jacobi-parallel/cpu.ts with jacobi/driver.ts and
// jacobi/arith.ts) step for step, so that with -fmad=false it gives the same Z and the same basis
// bit for bit, in float64 and in float32:
//
//   G = B^T B (entry (i,j) summed over t = 0..n-1 in order); stop on a zero or non-finite norm.
//   E = diag(G) (drift scales), potential = sum log G(j,j).
//   repeat sweeps of players - 1 chess-tournament rounds until a sweep changes nothing; a round:
//     phase a: thread k < half takes pair k of the round, (i, j) = (min, max), pi = perm[i],
//              pj = perm[j]; if |G(pi,pj)| > G(pi,pi)/2 (with a tiny slack, reduction_limit):
//              r_k = round(G(pi,pj) / G(pi,pi)), vetoed
//              (r_k = 0, overflow) when Z(:,pj) - r_k Z(:,pi) would leave the exact integers;
//              E[pj] = max(E[pj], r_k^2 E[pi])
//     phase b: G(:,pj) -= r_k G(:,pi), Z(:,pj) -= r_k Z(:,pi)     (a group of up to 32 lanes
//     phase c: G(pj,:) -= r_k G(pi,:)                              per pair, lanes along the vector)
//     phase d: drift if G(pj,pj) <= E[pj] * driftRatio; if G(pi,pi) > G(pj,pj) swap perm[i],
//              perm[j] (the paper's permutation array: swaps move indices, not data)
//   with a barrier after each phase; a round with drift or overflow ends the sweep. Phases b and
//   c (and their barriers) are skipped in a round where no pair has a multiplier (the barrier
//   after phase a is a __syncthreads_or that says so): most rounds of a large basis. Within a
//   phase each pair writes only its own column / row pj and reads only columns / rows no pair
//   writes, so the order of the pairs does not matter.
//   Then Z is gathered into logical order and B = B_in Z (summed over k in order, zero entries of
//   Z skipped). Done on overflow, or when the sweeps converged with no size reduction since the
//   last refresh (or in exact integer arithmetic); otherwise G is recomputed from B (a refresh), E = diag(G), and the sweeps go on
//   unless the potential stopped falling MAX_STALLS times or the refreshes ran out.
//
// The chess-tournament pairs are computed in closed form from the round number (the arrays of the
// paper turn one place round a circle each round, arr1[0] fixed; see chess-ordering.ts).
//
// -D parameters: REAL = float | double, the working precision of B and G (Z is always double).
// G and the working Z (in permuted column order) live in shared memory when the host found room
// (flags gInShared, zInShared), else in global scratch; generic pointers reach either.
//
// The variants the host compiles (cuda.ts), which scripts/nvcc-all.mjs also compiles in CI:
// nvcc-variant: -DREAL=float -fmad=false
// nvcc-variant: -DREAL=double -fmad=false

#ifndef REAL
#define REAL double
#endif

typedef REAL real;

#define MAX_STALLS 3
#define STATUS_OK 0
#define STATUS_NON_FINITE 1
#define STATUS_ZERO_VECTOR 2
#define STATUS_ITERATION_LIMIT 3

// stats per basis: [iterations (sweeps), swaps, size reductions, status, detail (the bad column)]
#define STATS_WIDTH 5

#define OUTCOME_CHANGED 0
#define OUTCOME_UNCHANGED 1
#define OUTCOME_DRIFT 2
#define OUTCOME_OVERFLOW 3

#define EXACT_INTEGER_LIMIT 9007199254740992.0  // 2^53

// Drift ratio (driver.ts, driftRatioFor) and the exact-integer Gram limit, per precision.
__device__ __forceinline__ double drift_ratio(float) { return 1.0 / 4096.0; }            // 2^-12
__device__ __forceinline__ double drift_ratio(double) { return 1.0 / 67108864.0; }       // 2^-26
__device__ __forceinline__ double exact_gram_limit(float) { return 4194304.0; }          // 2^22
__device__ __forceinline__ double exact_gram_limit(double) { return 2251799813685248.0; } // 2^51

// NaN without host headers (NVRTC has no NAN macro).
__device__ __forceinline__ double quiet_nan() { return __longlong_as_double(0x7ff8000000000000LL); }

// The size-reduction test |G(i,j)| > G(i,i) * bound, bound = 1/2 (1 + 2^-40) in float64 and
// 1/2 (1 + 2^-20) in float32, the product rounded to the working precision (reductionLimit in
// arith.ts: a slack above rounding noise, so that pairs tied at 1/2 are not flipped by noise).
__device__ __forceinline__ float reduction_limit(float gii) { return gii * (0.5f + 1.0f / 2097152.0f); }              // 2^-21
__device__ __forceinline__ double reduction_limit(double gii) { return gii * (0.5 + 1.0 / 2199023255552.0); }       // 2^-41

// Round halves away from zero (C's round; roundHalfAway in arith.ts).
__device__ __forceinline__ float round_half_away(float q) { return roundf(q); }
__device__ __forceinline__ double round_half_away(double q) { return round(q); }

// Player at position s of the tournament circle in round r (see chess-ordering.ts): the circle of
// players - 1 places holds arr1[1..half-1] then arr2[half-1..0] and turns one place per round.
// Both s and r lie in [0, players - 1), so one conditional add replaces the modulo.
__device__ __forceinline__ int circle_at(int s, int r, int players, int half) {
  const int len = players - 1;
  int s0 = s - r;
  if (s0 < 0) s0 += len;
  return s0 < half - 1 ? s0 + 1 : players + half - 2 - s0;
}

// G = B^T B into g (leading dimension ldg), both triangles; entry (i, j) summed in order over t.
// A thread computes a GT x GT tile of entries at once (tiles on and above the diagonal): 2 GT
// loads feed GT^2 independent sums, fewer loads and more independent work than one entry per
// thread; each entry's own sum keeps the reference's order. Diagonal tiles compute (i, j) and
// (j, i) alike (same products, same order, same value). GT = 4 in float32, 2 in float64 (the
// registers of 1024 threads).
#ifndef GT
#define GT (sizeof(real) == 4 ? 4 : 2)
#endif
__device__ void gram(const real* __restrict__ B, real* g, int ldg, int n, int m) {
  const int T = (m + GT - 1) / GT;
  const int tiles = T * (T + 1) / 2;
  for (int e = threadIdx.x; e < tiles; e += blockDim.x) {
    // e enumerates tiles (I, J), I <= J, tile column by tile column
    int J = (int)((sqrt(8.0 * e + 1.0) - 1.0) * 0.5);
    while ((J + 1) * (J + 2) / 2 <= e) J++;
    while (J * (J + 1) / 2 > e) J--;
    const int I = e - J * (J + 1) / 2;
    // columns past the last one repeat it (their sums are computed and never stored)
    int oi[GT], oj[GT];
#pragma unroll
    for (int q = 0; q < GT; q++) {
      oi[q] = (GT * I + q < m ? GT * I + q : m - 1) * n;
      oj[q] = (GT * J + q < m ? GT * J + q : m - 1) * n;
    }
    real s[GT][GT];
#pragma unroll
    for (int a = 0; a < GT; a++)
#pragma unroll
      for (int b = 0; b < GT; b++) s[a][b] = 0;
    for (int t = 0; t < n; t++) {
      real x[GT], y[GT];
#pragma unroll
      for (int q = 0; q < GT; q++) { x[q] = B[oi[q] + t]; y[q] = B[oj[q] + t]; }
#pragma unroll
      for (int a = 0; a < GT; a++)
#pragma unroll
        for (int b = 0; b < GT; b++) s[a][b] = s[a][b] + x[a] * y[b];
    }
#pragma unroll
    for (int a = 0; a < GT; a++) {
      const int i = GT * I + a;
#pragma unroll
      for (int b = 0; b < GT; b++) {
        const int j = GT * J + b;
        if (i < m && j < m) {
          g[i + j * ldg] = s[a][b];
          g[j + i * ldg] = s[a][b];
        }
      }
    }
  }
}

// out = B_in Z: column j sums B_in(:, k) Z(k, j) over k in order, skipping zero entries of Z.
// Z is mostly zeros (near a permutation): the entries are loaded eight at a time, all eight loads
// in flight before the first test, instead of one dependent load per k.
__device__ void basis_times_z(const real* __restrict__ Bin, const double* Z, real* out, int n, int m) {
  for (int e = threadIdx.x; e < n * m; e += blockDim.x) {
    const int j = e / n, t = e - j * n;
    const double* zj = Z + (size_t)j * m;
    real acc = 0;
    for (int k0 = 0; k0 < m; k0 += 8) {
      double z[8];
#pragma unroll
      for (int q = 0; q < 8; q++) z[q] = k0 + q < m ? zj[k0 + q] : 0.0;
#pragma unroll
      for (int q = 0; q < 8; q++) {
        if (z[q] != 0) acc = acc + (real)((double)Bin[t + (size_t)(k0 + q) * n] * z[q]);
      }
    }
    out[e] = acc;
  }
}

// Does Z(:, cj) - r Z(:, ci) keep every entry an exact integer (transformUpdateFits in arith.ts)?
// zbound[c] bounds max |Z(:, c)| from above, so most calls answer without looking at Z.
__device__ bool transform_update_fits(const double* Z, const double* zbound, int m, int ci, int cj, double r) {
  const double ar = fabs(r);
  if (zbound[cj] + ar * zbound[ci] < 0.5 * EXACT_INTEGER_LIMIT) return true;
  for (int t = 0; t < m; t++) {
    if (!(fabs(Z[t + cj * m]) + ar * fabs(Z[t + ci * m]) < EXACT_INTEGER_LIMIT)) return false;
  }
  return true;
}

// 1024 threads fit the register file (a single basis uses them all).
extern "C" __global__ void __launch_bounds__(1024, 1) jacobi_parallel(
    const real* __restrict__ Bin,   // batch x n x m, column-major bases
    real* __restrict__ Bout,        // batch x n x m, reduced bases
    double* __restrict__ Zout,      // batch x m x m, unimodular transforms (logical order)
    double* __restrict__ Zscratch,  // batch x m x m, used when Z is not in shared memory
    real* __restrict__ Gscratch,    // batch x m x (m|1), used when G is not in shared memory
    int* __restrict__ stats,        // batch x STATS_WIDTH, zero on entry
    int n, int m, int maxIterations, int gInShared, int zInShared) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int basis = blockIdx.x;
  const int tid = threadIdx.x;
  const int nt = blockDim.x;
  const int ldg = m | 1;  // odd leading dimension: a row's elements fall in different banks
  const int players = m + (m & 1);
  const int half = players / 2;
  const int rounds = players - 1;
  // lanes per pair in the update phases: a power of two up to a warp, no more than m needs
  int width = 1;
  while (width < 32 && width < m && 2 * width <= nt) width <<= 1;
  const int groups = nt / width, grp = tid / width, lane = tid - grp * width;

  // shared layout (jacobiParallelPlan in cuda.ts sizes it): [G][Z][E (m doubles)]
  //   [zbound (m doubles)][mult (half reals)][perm (m)][li (half)][lj (half)][flags (2)][decision (1)]
  unsigned char* p = smem;
  real* G;
  if (gInShared) { G = (real*)p; p += ((size_t)m * ldg * sizeof(real) + 15) & ~(size_t)15; }
  else G = Gscratch + (size_t)basis * m * ldg;
  double* Z;
  if (zInShared) { Z = (double*)p; p += (size_t)m * m * sizeof(double); }
  else Z = Zscratch + (size_t)basis * m * m;
  double* E = (double*)p; p += (size_t)m * sizeof(double);
  double* zbound = (double*)p; p += (size_t)m * sizeof(double);
  real* mult = (real*)p; p += ((size_t)half * sizeof(real) + 15) & ~(size_t)15;
  int* perm = (int*)p; p += (size_t)m * sizeof(int);
  int* li = (int*)p; p += (size_t)half * sizeof(int);
  int* lj = (int*)p; p += (size_t)half * sizeof(int);
  int* flags = (int*)p; p += 2 * sizeof(int);  // per round parity: 1 = overflow, 2 = drift
  int* decision = (int*)p;

  const real* B0 = Bin + (size_t)basis * n * m;
  real* B1 = Bout + (size_t)basis * n * m;
  double* Zo = Zout + (size_t)basis * m * m;
  int* st = stats + (size_t)basis * STATS_WIDTH;

  for (int e = tid; e < m * m; e += nt) Z[e] = (e % (m + 1) == 0) ? 1.0 : 0.0;
  for (int c = tid; c < m; c += nt) { perm[c] = c; zbound[c] = 1.0; }
  if (tid == 0) { flags[0] = 0; flags[1] = 0; }

  if (m < 2) {
    for (int e = tid; e < n * m; e += nt) B1[e] = B0[e];
    for (int e = tid; e < m * m; e += nt) Zo[e] = Z[e];
    return;
  }

  gram(B0, G, ldg, n, m);
  // integer input whose Gram entries stay small updates G exactly: no drift test then
  int nonInteger = 0;
  for (int e = tid; e < n * m; e += nt) {
    const real x = B0[e];
    if (!(isfinite(x) && x == floor(x))) nonInteger = 1;
  }
  const int anyNonInteger = __syncthreads_or(nonInteger);  // also the barrier after gram()
  double potential = 0, bestPotential = 0;
  if (tid == 0) {
    // the first zero or non-finite norm, in column order (as the CPU reference reports it)
    int bad = 0, small = 1;
    for (int c = 0; c < m && !bad; c++) {
      const real d = G[c + c * ldg];
      if (!isfinite(d)) bad = STATUS_NON_FINITE; else if (d == 0) bad = STATUS_ZERO_VECTOR;
      if (bad) { st[3] = bad; st[4] = c; }
      if (!((double)d < exact_gram_limit((real)0))) small = 0;
    }
    decision[0] = bad ? -1 : (!anyNonInteger && small);
  }
  __syncthreads();
  if (decision[0] < 0) return;
  const double driftRatio = decision[0] ? 0.0 : drift_ratio((real)0);
  // E = diag(G) and the potential sum log G(j,j) (resetScales in driver.ts); thread 0 keeps it
  for (int c = tid; c < m; c += nt) E[c] = (double)G[c + c * ldg];
  if (tid == 0) {
    for (int c = 0; c < m; c++) { const double g = (double)G[c + c * ldg]; potential += g > 0 ? log(g) : quiet_nan(); }
    bestPotential = potential;
  }
  __syncthreads();

  int sweeps = 0, mySwaps = 0, myReductions = 0, status = STATUS_OK;
  int stalls = 0;
  int anyMult = 0;  // this thread gave a pair of the current round a multiplier
  unsigned roundCount = 0;  // rounds run so far, all sweeps: picks the flag word
  for (int refresh = 0;; refresh++) {
    int passReductions = 0;  // this thread's size reductions since the last refresh
    int outcome;
    do {
      if (sweeps >= maxIterations) { status = STATUS_ITERATION_LIMIT; break; }
      sweeps++;
      int changed = 0;
      outcome = OUTCOME_UNCHANGED;
      for (int r = 0; r < rounds; r++, roundCount++) {
        int* flag = flags + (roundCount & 1);
        // phase a: one thread per pair decides the multiplier
        for (int k = tid; k < half; k += nt) {
          const int a = k == 0 ? 0 : circle_at(k - 1, r, players, half);
          const int b = circle_at(k == 0 ? players - 2 : players - 2 - k, r, players, half);
          real rk = 0;
          if (a >= m || b >= m) {
            li[k] = -1;  // bye
          } else {
            const int i = a < b ? a : b, j = a < b ? b : a;
            li[k] = i; lj[k] = j;
            const int pi = perm[i], pj = perm[j];
            const real gij = G[pi + pj * ldg], gii = G[pi + pi * ldg];
            if (fabs(gij) > reduction_limit(gii)) {
              const real q = round_half_away(gij / gii);
              const double rq = (double)q;
              if (!transform_update_fits(Z, zbound, m, pi, pj, rq)) {
                atomicOr(flag, 1);  // overflow: no update, the run ends after this round
              } else {
                rk = q;
                E[pj] = fmax(E[pj], rq * rq * E[pi]);
                zbound[pj] = (zbound[pj] + fabs(rq) * zbound[pi]) * (1.0 + 1.0 / 1125899906842624.0);
                myReductions++;
                passReductions++;
                changed = 1;
              }
            }
          }
          mult[k] = rk;
          if (rk != 0) anyMult = 1;
        }
        // (the barrier after phase a, which also tells every thread whether any pair reduces)
        const int reducing = __syncthreads_or(anyMult);
        anyMult = 0;
        if (tid == 0) flags[(roundCount + 1) & 1] = 0;  // next round's word; last read a round ago
        // phases b and c change nothing when no pair reduces: skipped with their barriers
        if (reducing) {
        // phase b: column updates of G and Z; a group of g lanes per pair (pairs without a
        // reduction cost their group one test)
        if (grp < groups) {
          for (int k = grp; k < half; k += groups) {
            const real rk = mult[k];
            if (rk == 0) continue;
            const int pi = perm[li[k]], pj = perm[lj[k]];
            const double rz = (double)rk;
            for (int t = lane; t < m; t += width) {
              G[t + pj * ldg] = G[t + pj * ldg] - rk * G[t + pi * ldg];
              Z[t + pj * m] = Z[t + pj * m] - rz * Z[t + pi * m];
            }
          }
        }
        __syncthreads();
        // phase c: row updates of G
        if (grp < groups) {
          for (int k = grp; k < half; k += groups) {
            const real rk = mult[k];
            if (rk == 0) continue;
            const int pi = perm[li[k]], pj = perm[lj[k]];
            for (int c = lane; c < m; c += width) G[pj + c * ldg] = G[pj + c * ldg] - rk * G[pi + c * ldg];
          }
        }
        __syncthreads();
        }
        // phase d: drift test of the updated norms, then swaps through the permutation array
        for (int k = tid; k < half; k += nt) {
          const int i = li[k];
          if (i < 0) continue;
          const int j = lj[k];
          const int pi = perm[i], pj = perm[j];
          if (mult[k] != 0 && !((double)G[pj + pj * ldg] > E[pj] * driftRatio)) atomicOr(flag, 2);
          if (G[pi + pi * ldg] > G[pj + pj * ldg]) {
            perm[i] = pj; perm[j] = pi;
            mySwaps++;
            changed = 1;
          }
        }
        __syncthreads();
        const int f = *flag;
        if (f & 1) { outcome = OUTCOME_OVERFLOW; roundCount++; break; }
        if (f & 2) { outcome = OUTCOME_DRIFT; roundCount++; break; }
      }
      if (outcome == OUTCOME_UNCHANGED && __syncthreads_or(changed)) outcome = OUTCOME_CHANGED;
    } while (outcome == OUTCOME_CHANGED);
    if (status != STATUS_OK) break;

    // Z in logical order: Zo(:, c) = Z(:, perm[c]); the bounds follow their columns
    for (int e = tid; e < m * m; e += nt) {
      const int c = e / m, t = e - c * m;
      Zo[e] = Z[t + perm[c] * m];
    }
    __syncthreads();
    basis_times_z(B0, Zo, B1, n, m);
    if (outcome == OUTCOME_OVERFLOW) break;
    // converged on a G that is exactly B's Gram matrix (only swaps since it was computed from a
    // basis, or exact integer arithmetic): the result is final
    if (!__syncthreads_or(passReductions) && outcome == OUTCOME_UNCHANGED) break;
    if (outcome == OUTCOME_UNCHANGED && driftRatio == 0) break;
    // refresh: G from the new basis, E = diag(G), working Z = logical Z, identity permutation,
    // and the bounds on |Z| recomputed from Z itself
    __syncthreads();
    gram(B1, G, ldg, n, m);
    for (int e = tid; e < m * m; e += nt) Z[e] = Zo[e];
    for (int c = tid; c < m; c += nt) {
      perm[c] = c;
      double mx = 0;
      for (int t = 0; t < m; t++) mx = fmax(mx, fabs(Zo[t + c * m]));
      zbound[c] = mx;
    }
    __syncthreads();
    for (int c = tid; c < m; c += nt) E[c] = (double)G[c + c * ldg];
    if (tid == 0) {
      potential = 0;
      for (int c = 0; c < m; c++) { const double g = (double)G[c + c * ldg]; potential += g > 0 ? log(g) : quiet_nan(); }
      int stop = 0;
      if (potential < bestPotential) bestPotential = potential;
      else if (++stalls >= MAX_STALLS || !isfinite(potential)) stop = 1;  // precision exhausted
      if (refresh >= 100 + 10 * m) stop = 1;
      decision[0] = stop;
    }
    __syncthreads();
    if (decision[0]) break;
  }

  if (mySwaps) atomicAdd(&st[1], mySwaps);
  if (myReductions) atomicAdd(&st[2], myReductions);
  if (tid == 0) { st[0] = sweeps; st[3] = status; }
}
