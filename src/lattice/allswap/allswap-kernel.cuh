// The block kernels' entry `allswap`, one basis per thread block: the workspace carved, the input
// loaded and checked, the rounds of steps 0-3 and the growth watch, the outputs written. Included
// by block-kernel.cu and column-kernel.cu after their gram_schmidt and reduce_all (and, for the
// column-owner layout, -DCOL_N, col_reanchor); where the two layouts differ (the workspace, step 0,
// the zLimit of round 0) the column-owner lines are under COL_N.

#include "../phase-arrays.cuh"

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
  CARVE_PHASE_ARRAYS(w, p, 6, slots);
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
  if (m >= 2) {
    for (int round = 0; round < MAX_ROUNDS; round++) {
      const int reductionsBefore = myReductions, swapsBefore = mySwaps;
      // 0. re-anchor: B = B_in Z
      double zMaxKnown = -1;  // max |Z| when known without z_max_abs (zPeak then reset too)
      if (round > 0 && !integral) {
#ifdef COL_N
        zMaxKnown = col_reanchor(w, B0);
#else
        for (int e = tid; e < n * m; e += nt) {
          const int j = e / n, t = e - j * n;
          B[t + (size_t)j * ld] = (real)reanchor_entry(B0, Zw, n, m, t, j);
        }
        __syncthreads();
#endif
      }
      // 1. Gram-Schmidt; the growth watch's limit
      status = gram_schmidt(w, f32, &detail);
      if (status != STATUS_OK) break;
#ifdef COL_N
      // round 0: Z is the identity (zPeak was cleared at the start)
      if (round == 0) zMaxKnown = 1.0;
#endif
      double zLimit = growth * (zMaxKnown >= 0 ? zMaxKnown : z_max_abs(w));

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
        const PhaseCounts c = phase_coefficients(w, part, pairs, bound, delta, swapFlag, PhaseCounts{mySwaps, myReductions});
        mySwaps = c.swaps;
        myReductions = c.reductions;
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

      // 3. the delayed GS-coefficient update and size reduction of everything
      status = reduce_all(w, bound, &myReductions);
      if (status != STATUS_OK) break;
#ifndef COL_N
      z_max_abs(w);  // (the reference's zLimit after step 3: unused before the next round's reset)
#endif
      if (!__syncthreads_or(myReductions != reductionsBefore || mySwaps != swapsBefore)) break;
    }
  }

  if (status == STATUS_OK) {
    for (int e = tid; e < n * m; e += nt) B1[e] = B[e + (e / n) * (ld - n)];
    for (int e = tid; e < m * m; e += nt) Zo[e] = Zw[e];
  }
  if (mySwaps) atomicAdd(&st[1], mySwaps);
  if (myReductions) atomicAdd(&st[2], myReductions);
  if (tid == 0) { st[0] = phases; st[3] = status; st[4] = detail; }
}
