// The N-way soft detector's search kernel (the N-way paper, Section IV-B..D), SSFE being its
// one-pass case: NW_PASSES passes over the channel's streams rotated by p (the QR records of
// qr-batch.cu, once per channel, in scratch), each M = QL^2 paths (Alg. 2, ssfe-search.cuh),
// one thread per path: M * NW_PASSES threads a received vector (padded, NW_PP), NW_VPB vectors a block.
//
// Per vector (the CPU's runSsfePass + BitMetricMinima, nway/cpu.ts):
//   1. z_p = Q_p^T y for every pass (the pass's threads share the ND dot products) -> shared;
//   2. every thread searches its path: metric d and a level index per real dimension;
//   3. Alg. 3 and the merge over passes at once: levelMin[dim][level] = least d of a candidate
//      (of any pass) with that level in that real dimension (the float's bits, d >= 0, reduced
//      within the warp, then a shared atomicMin), and the best candidate = the least (d, pass,
//      path) (a warp shuffle reduction of a 64-bit key), which is the CPU's first strictly smaller
//      candidate in pass order then path order;
//   4. the best candidate's thread writes the symbol indices; one thread per bit writes the
//      max-log LLR (min over levels whose label has the bit 1, minus min over those with 0) / N0,
//      clipped to [-clip, clip] (a side without candidates is +inf, so the LLR clips), and
//      the status word's node count (the CPU's count: passes x (QL + M (ND - 1))).
// Square QAM's bit b of a stream depends on one real dimension only (its Gray PAM label), so the
// min over symbols with the bit 0 (the CPU's symbolMin) equals the min over that dimension's
// levels with the bit 0: the same numbers, exactly (minima are not rounded).
//
// A vector whose status flags are set on entry is skipped (nothing written); one whose channel's
// QR is flagged (RANK_DEFICIENT, FLOAT32_UNSAFE) gets those flags and nothing else.
//
// -D parameters: NW_NR, NW_NT, NW_DPS (2: QAM, 1: BPSK), NW_QL (PAM levels per real dimension),
// NW_PASSES, NW_VPB, NW_SOFT (0/1: write LLRs), and the symbol-index bits each real / imaginary level
// index carries (symbol = reBits[lr] | imBits[li]; BPSK: reBits = {1, 0}, imBits unused), one byte a
// level: NW_RE_BITS0 levels 0-7 (level l in bits 8l .. 8l+7), NW_RE_BITS1 levels 8-15, NW_IM_BITS0, NW_IM_BITS1
// (hex integers: nvcc splits a -D value at commas, so no brace lists).
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=1 -DNW_VPB=8 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=8 -DNW_PASSES=4 -DNW_VPB=1 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=8 -DNW_RE_BITS0=0xa0800022220282aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x504000111101415ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=2 -DNW_NT=2 -DNW_DPS=2 -DNW_QL=2 -DNW_PASSES=2 -DNW_VPB=16 -DNW_SOFT=0 -DNW_MODE=0 -DNW_MINB=16 -DNW_RE_BITS0=0x2ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=3 -DNW_NT=3 -DNW_DPS=1 -DNW_QL=2 -DNW_PASSES=3 -DNW_VPB=8 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=16 -DNW_RE_BITS0=0x1ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x0ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=2 -DNW_NT=2 -DNW_DPS=2 -DNW_QL=16 -DNW_PASSES=1 -DNW_VPB=1 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=8 -DNW_RE_BITS0=0x8a888082a2a0a8aaull -DNW_RE_BITS1=0x2a2820220200080aull -DNW_IM_BITS0=0x4544404151505455ull -DNW_IM_BITS1=0x1514101101000405ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=3 -DNW_VPB=2 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=8 -DNW_NT=8 -DNW_DPS=2 -DNW_QL=2 -DNW_PASSES=2 -DNW_VPB=16 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=8 -DNW_RE_BITS0=0x2ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=8 -DNW_NT=8 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=2 -DNW_VPB=4 -DNW_SOFT=1 -DNW_MODE=0 -DNW_MINB=8 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=8 -DNW_PASSES=4 -DNW_VPB=1 -DNW_SOFT=1 -DNW_MODE=2 -DNW_MINB=1 -DNW_RE_BITS0=0xa0800022220282aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x504000111101415ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=1 -DNW_VPB=8 -DNW_SOFT=1 -DNW_MODE=1 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull

#include "../../gpu/preprocess/qr-record.cuh"
#include "../ssfe/ssfe-search.cuh"

#ifndef NW_NR
#error "nway-detect.cu needs -DNW_NR, -DNW_NT, -DNW_DPS, -DNW_QL, -DNW_PASSES, -DNW_VPB, -DNW_SOFT, -DNW_RE_BITS0/1, -DNW_IM_BITS0/1"
#endif

#define NW_ROWS (2 * NW_NR)
#define NW_ND (NW_DPS * NW_NT)
#define NW_M (NW_ND >= 2 ? NW_QL * NW_QL : NW_QL)
#define NW_P (NW_M * NW_PASSES)
// threads a vector: NW_P padded to a power of two up to 32, or to a multiple of 32, so that no
// vector straddles a warp (the warp-level reductions below)
#define NW_PP (NW_P > 32 ? (NW_P + 31) / 32 * 32 : NW_P > 16 ? 32 : NW_P > 8 ? 16 : NW_P > 4 ? 8 : NW_P > 2 ? 4 : 2)
#define NW_SEG (NW_PP < 32 ? NW_PP : 32)
#define NW_WARPS_PER_VEC (NW_PP < 32 ? 1 : NW_PP / 32)
#define NW_BPS (NW_DPS == 1 ? 1 : NW_QL >= 16 ? 8 : NW_QL >= 8 ? 6 : NW_QL >= 4 ? 4 : 2)
#define NW_NBITS (NW_NT * NW_BPS)
#define NW_REC QR_REC_FLOATS(NW_ROWS, NW_ND)
#define NW_NODES (NW_PASSES * (NW_ND >= 2 ? NW_QL + NW_M * (NW_ND - 1) : NW_M))
#define NW_INF_BITS 0x7f800000u
#define NW_FULL 0xffffffffu
// How Alg. 3's minima are formed (the same numbers every way; nwayDefines picks, 0 by default):
//   0: every path's thread an atomicMin per real dimension on the shared level minima;
//   1: the two expanded levels by shuffles, the others by a warp reduction (redux) per level, then
//      one conflict-free atomicMin per group;
//   2: the paper's Alg. 3: every path leaves its candidate (metric, levels by dimension) in shared
//      memory and one thread per bit (and per slice of the candidates, NW_SLICES) takes the minima.
#ifndef NW_MODE
#define NW_MODE 0
#endif
#ifndef NW_MINB
#define NW_MINB 1  // resident blocks the registers are capped for (__launch_bounds__)
#endif
// mode 2: the work of a vector's threads: a bit each (the best candidate alone without LLRs),
// NW_SLICES slices of the candidate list each
#define NW_TASKS (NW_SOFT ? NW_NBITS : 1)
#define NW_SLICES (NW_PP / NW_TASKS > 1 ? NW_PP / NW_TASKS : 1)
#define NW_LV_WORDS (NW_ND > 8 ? 2 : 1)

// Shared memory per block (nwayLaunchShape in cuda.ts), region by region, each NW_VPB vector slots:
//   cand     NW_P uint4 (mode 2: metric bits, levels by dimension (4 bits each, 2 words), 0)
//   part     NW_SLICES x NW_TASKS uint4 (mode 2, NW_SLICES > 1: each slice's d0, d1 per bit)
//   bestPart NW_SLICES uint4 (mode 2, NW_SLICES > 1: each slice's best key and its levels)
//   key      NW_WARPS_PER_VEC u64 (modes 0, 1: the best key of each warp)
//   flags    1 int
//   z        NW_PASSES x ND floats
//   levelMin ND x QL uint (modes 0, 1: the float bits of the least metric per dimension and level)
#define NW_PART (NW_SLICES > 1 ? NW_SLICES * NW_TASKS : 0)
#define NW_BESTPART (NW_SLICES > 1 ? NW_SLICES : 0)
struct NwSmem {
  uint4* cand;
  uint4* part;
  uint4* bestPart;
  unsigned long long* key;
  int* flags;
  float* z;
  unsigned* levelMin;
  __device__ explicit NwSmem(unsigned char* base) {
    cand = (uint4*)base;
    part = cand + NW_P * NW_VPB;
    bestPart = part + NW_PART * NW_VPB;
    key = (unsigned long long*)(bestPart + NW_BESTPART * NW_VPB);
    flags = (int*)(key + NW_WARPS_PER_VEC * NW_VPB);
    z = (float*)(flags + NW_VPB);
    levelMin = (unsigned*)(z + NW_VPB * NW_PASSES * NW_ND);
  }
};

// The symbol index of a stream from its level indices (reBits / imBits as in the header).
__device__ __forceinline__ int nw_symbol(int lr, int li, const int (&reBits)[NW_QL], const int (&imBits)[NW_QL]) {
  int sym = 0;
#pragma unroll
  for (int l = 0; l < NW_QL; l++) {
    if (lr == l) sym |= reBits[l];
    if (NW_DPS == 2 && li == l) sym |= imBits[l];
  }
  return sym;
}

// Mode 2: one task's scan of a slice of a vector's candidate list (cand: NW_P records).
struct NwScan {
  float d0, d1;
  unsigned long long bestKey;
  unsigned lv0, lv1;
};

__device__ __forceinline__ NwScan nw_scan(const uint4* cand, int task, int slice, const int (&reBits)[NW_QL], const int (&imBits)[NW_QL]) {
  NwScan r;
  r.d0 = __uint_as_float(NW_INF_BITS);
  r.d1 = r.d0;
  r.bestKey = ~0ull;
  r.lv0 = 0u;
  r.lv1 = 0u;
  if (NW_SOFT) {
    // bit bb of stream j follows one real dimension (part 0: Re, 1: Im); `ones`: its levels whose label has the bit
    const int j = task / NW_BPS, bb = task - j * NW_BPS;
    const int mask = 1 << (NW_BPS - 1 - bb);
    int reAll = 0;
#pragma unroll
    for (int l = 0; l < NW_QL; l++) reAll |= reBits[l];
    const int part = (reAll & mask) ? 0 : 1;
    const int dim = j * NW_DPS + part;
    unsigned ones = 0;
#pragma unroll
    for (int l = 0; l < NW_QL; l++) if (((part ? imBits[l] : reBits[l]) & mask) != 0) ones |= 1u << l;
    const int word = dim >> 3, shift = 4 * (dim & 7);
#pragma unroll 4
    for (int i = slice; i < NW_P; i += NW_SLICES) {
      const uint4 cd = cand[i];
      const unsigned l = ((word ? cd.z : cd.y) >> shift) & 15u;
      const float m = __uint_as_float(cd.x);
      if ((ones >> l) & 1u) r.d1 = fminf(r.d1, m);
      else r.d0 = fminf(r.d0, m);
      if (task == 0) {
        const unsigned long long key = ((unsigned long long)cd.x << 32) | (unsigned)i;
        if (key < r.bestKey) { r.bestKey = key; r.lv0 = cd.y; r.lv1 = cd.z; }
      }
    }
  } else {
    for (int i = slice; i < NW_P; i += NW_SLICES) {
      const uint4 cd = cand[i];
      const unsigned long long key = ((unsigned long long)cd.x << 32) | (unsigned)i;
      if (key < r.bestKey) { r.bestKey = key; r.lv0 = cd.y; r.lv1 = cd.z; }
    }
  }
  return r;
}

// Mode 2: a task's outputs: its bit's clipped LLR; task 0 also the symbols of the best candidate and the node count.
__device__ __forceinline__ void nw_output(const NwScan& sc, int task, int v, float n0, float clip, int* symbols, float* llr, int* status,
                                          const int (&reBits)[NW_QL], const int (&imBits)[NW_QL]) {
  if (NW_SOFT) {
    float x = (sc.d1 - sc.d0) * (1.f / n0);
    x = x > clip ? clip : x < -clip ? -clip : x;
    llr[(size_t)v * NW_NBITS + task] = x;
  }
  if (task == 0) {
    status[2 * v + 1] = NW_NODES;
#pragma unroll
    for (int j = 0; j < NW_NT; j++) {
      const int dr = j * NW_DPS, di = dr + NW_DPS - 1;
      const int lr = (int)(((dr >> 3 ? sc.lv1 : sc.lv0) >> (4 * (dr & 7))) & 15u);
      const int li = (int)(((di >> 3 ? sc.lv1 : sc.lv0) >> (4 * (di & 7))) & 15u);
      symbols[(size_t)v * NW_NT + j] = nw_symbol(lr, li, reBits, imBits);
    }
  }
}

// vectors = channels * vpc of this chunk; qr = the chunk's QR records (channel c, pass p at
// (c NW_PASSES + p) NW_REC floats); llr may be null when NW_SOFT = 0. Block: NW_PP * NW_VPB threads
// (a multiple of 32).
extern "C" __global__ void __launch_bounds__(NW_PP * NW_VPB, NW_MINB) nway_detect(
    const float* __restrict__ y, const float* __restrict__ noise, const float* __restrict__ qr,
    int* __restrict__ symbols, float* __restrict__ llr, int* __restrict__ status, int vectors, int vpc, float clip) {
  extern __shared__ __align__(16) unsigned char smem[];
  const NwSmem S(smem);
  int reBits[NW_QL], imBits[NW_QL];
#pragma unroll
  for (int l = 0; l < NW_QL; l++) {
    reBits[l] = (int)(((l < 8 ? (unsigned long long)NW_RE_BITS0 : (unsigned long long)NW_RE_BITS1) >> (8 * (l & 7))) & 255);
    imBits[l] = (int)(((l < 8 ? (unsigned long long)NW_IM_BITS0 : (unsigned long long)NW_IM_BITS1) >> (8 * (l & 7))) & 255);
  }
  const int t = threadIdx.x;
  const int lane = t & 31;
  const int w = t / NW_PP, u = t - w * NW_PP;
  const bool hasPath = u < NW_P;
  const int p = hasPath ? u / NW_M : 0, k = u - p * NW_M;
  const int v = blockIdx.x * NW_VPB + w;
  const bool valid = v < vectors;
  const int c = valid ? v / vpc : 0;
  const float* rec = qr + (size_t)(c * NW_PASSES + p) * NW_REC;
  const float n0 = (NW_SOFT && valid) ? __ldg(noise + v) : 1.f;

  // 1. flags, initial minima, z = Q^T y per pass.
  if (valid) {
    if (u == 0) {
      int f = status[2 * v];
      if (f == 0) {
#pragma unroll
        for (int pp = 0; pp < NW_PASSES; pp++) f |= __float_as_int(__ldg(qr + (size_t)(c * NW_PASSES + pp) * NW_REC + QR_REC_FLAGS(NW_ROWS, NW_ND)));
        if (f != 0) status[2 * v] = f;
      } else {
        f = -1;  // set on entry: leave the vector alone
      }
      S.flags[w] = f;
    }
    if (NW_SOFT && NW_MODE != 2) {
      for (int e = u; e < NW_ND * NW_QL; e += NW_PP) S.levelMin[w * NW_ND * NW_QL + e] = NW_INF_BITS;
    }
    if (hasPath) {
      const float* yv = y + (size_t)v * NW_ROWS;
      for (int e = k; e < NW_ND; e += NW_M) {
        float d = 0.f;
#pragma unroll
        for (int r = 0; r < NW_ROWS; r++) d += __ldg(rec + r + e * NW_ROWS) * __ldg(yv + r);
        S.z[(w * NW_PASSES + p) * NW_ND + e] = d;
      }
    }
  }
  __syncthreads();
  const bool run = valid && S.flags[w] == 0;
  const bool act = run && hasPath;

  // 2. the path (every lane goes on: the warp-level reductions need the whole warp).
  int lev[NW_ND];
  float d = 0.f;
  if (act) {
    d = ssfe_path<NW_ND, NW_QL>(rec + QR_REC_R(NW_ROWS, NW_ND), rec + QR_REC_INVDIAG(NW_ROWS, NW_ND), S.z + (w * NW_PASSES + p) * NW_ND, k, lev);
  } else {
#pragma unroll
    for (int col = 0; col < NW_ND; col++) lev[col] = 0;
  }
  const unsigned bits = act ? __float_as_uint(d) : NW_INF_BITS;

#if NW_MODE == 2
  // 3. The candidate list in shared memory, levels by real dimension (the pass's rotation undone).
  if (act) {
    unsigned lv[2] = {0u, 0u};
#pragma unroll
    for (int col = 0; col < NW_ND; col++) {
      int j = col / NW_DPS + p;
      if (j >= NW_NT) j -= NW_NT;
      const int dim = j * NW_DPS + (col % NW_DPS);
      lv[dim >> 3] |= (unsigned)lev[col] << (4 * (dim & 7));
    }
    S.cand[w * NW_P + u] = make_uint4(bits, lv[0], NW_LV_WORDS > 1 ? lv[1] : 0u, 0u);
  }
  __syncthreads();
  // 4. Alg. 3: task b (a bit, or the best candidate) over slice s of the candidates: the least
  // metric with the bit 0 and with 1 (or the least (metric, index) and its levels).
  const uint4* cand = S.cand + w * NW_P;
#if NW_SLICES > 1
  const int task = u % NW_TASKS, slice = u / NW_TASKS;
  NwScan sc;
  if (run && u < NW_SLICES * NW_TASKS) {
    sc = nw_scan(cand, task, slice, reBits, imBits);
    if (NW_SOFT) S.part[(w * NW_SLICES + slice) * NW_TASKS + task] = make_uint4(__float_as_uint(sc.d0), __float_as_uint(sc.d1), 0u, 0u);
    if (task == 0) S.bestPart[w * NW_SLICES + slice] = make_uint4((unsigned)(sc.bestKey >> 32), (unsigned)sc.bestKey, sc.lv0, sc.lv1);
  }
  __syncthreads();
  if (run && u < NW_TASKS) {
    for (int s2 = 1; s2 < NW_SLICES; s2++) {
      if (NW_SOFT) {
        const uint4 q = S.part[(w * NW_SLICES + s2) * NW_TASKS + task];
        sc.d0 = fminf(sc.d0, __uint_as_float(q.x));
        sc.d1 = fminf(sc.d1, __uint_as_float(q.y));
      }
      if (task == 0) {
        const uint4 q = S.bestPart[w * NW_SLICES + s2];
        const unsigned long long key = ((unsigned long long)q.x << 32) | q.y;
        if (key < sc.bestKey) { sc.bestKey = key; sc.lv0 = q.z; sc.lv1 = q.w; }
      }
    }
    nw_output(sc, task, v, n0, clip, symbols, llr, status, reBits, imBits);
  }
#else
  if (run) {
    for (int task = u; task < NW_TASKS; task += NW_PP) nw_output(nw_scan(cand, task, 0, reBits, imBits), task, v, n0, clip, symbols, llr, status, reBits, imBits);
  }
#endif
#else
  // 3a. Alg. 3 and the merge: per (real dimension, level), the least metric.
  if (NW_SOFT) {
    unsigned* lm = S.levelMin + w * NW_ND * NW_QL;
#pragma unroll
    for (int col = 0; col < NW_ND; col++) {
      // column col of pass p holds real dimension (stream (col / DPS + p) mod NT, part col mod DPS)
      int j = col / NW_DPS + p;
      if (j >= NW_NT) j -= NW_NT;
      const int dimBase = (j * NW_DPS + (col % NW_DPS)) * NW_QL;
      const int entry = dimBase + lev[col];
      if (NW_MODE == 1 && NW_ND >= 2 && col == NW_ND - 1) {
        // the first level expanded: path k has level k / QL there, so a group is QL aligned lanes
        unsigned m = bits;
#pragma unroll
        for (int off = 1; off < NW_QL; off <<= 1) { const unsigned o = __shfl_xor_sync(NW_FULL, m, off); m = o < m ? o : m; }
        if (act && k % NW_QL == 0) atomicMin(&lm[entry], m);
      } else if (NW_MODE == 1 && NW_ND >= 2 && col == NW_ND - 2) {
        // the second: level k mod QL, a group is the pass's lanes of this warp QL apart
        constexpr int span = NW_M < 32 ? NW_M : 32;
        unsigned m = bits;
#pragma unroll
        for (int off = NW_QL; off < span; off <<= 1) { const unsigned o = __shfl_xor_sync(NW_FULL, m, off); m = o < m ? o : m; }
        if (act && (k / NW_QL) % (span / NW_QL) == 0) atomicMin(&lm[entry], m);
      } else if (NW_MODE == 1 && NW_M >= NW_QL && NW_ND >= 2) {
        // the others: a reduction per level over the pass's lanes of this warp (aligned, span lanes)
        constexpr int span = NW_M < 32 ? NW_M : 32;
        const unsigned seg = span == 32 ? NW_FULL : ((1u << span) - 1u) << (lane & ~(span - 1));
#pragma unroll
        for (int l = 0; l < NW_QL; l++) {
          const unsigned m = __reduce_min_sync(seg, lev[col] == l ? bits : NW_INF_BITS);
          if (act && (lane & (span - 1)) == l && m != NW_INF_BITS) atomicMin(&lm[dimBase + l], m);
        }
      } else if (act) {
        atomicMin(&lm[entry], bits);
      }
    }
  }

  // 3b. The best candidate: the least (metric, pass, path), reduced over the vector's lanes of
  // this warp; a vector of several warps leaves one key a warp for after the barrier.
  const unsigned long long myKey = act ? ((unsigned long long)bits << 32) | (unsigned)u : ~0ull;
  unsigned long long best = myKey;
#pragma unroll
  for (int off = NW_SEG / 2; off >= 1; off >>= 1) {
    const unsigned long long o = __shfl_xor_sync(NW_FULL, best, off);
    best = o < best ? o : best;
  }
  if (NW_WARPS_PER_VEC > 1 && lane == 0) S.key[w * NW_WARPS_PER_VEC + u / 32] = best;
  __syncthreads();

  // 4. outputs.
  if (act && myKey == best) {
    bool winner = true;
    if (NW_WARPS_PER_VEC > 1) {
#pragma unroll 1
      for (int i = 0; i < NW_WARPS_PER_VEC; i++) if (S.key[w * NW_WARPS_PER_VEC + i] < myKey) winner = false;
    }
    if (winner) {
#pragma unroll
      for (int cc = 0; cc < NW_NT; cc++) {
        int j = cc + p;
        if (j >= NW_NT) j -= NW_NT;
        symbols[(size_t)v * NW_NT + j] = nw_symbol(lev[cc * NW_DPS], lev[cc * NW_DPS + NW_DPS - 1], reBits, imBits);
      }
    }
  }
  if (run) {
    if (u == 0) status[2 * v + 1] = NW_NODES;
    if (NW_SOFT) {
      int reAll = 0;
#pragma unroll
      for (int l = 0; l < NW_QL; l++) reAll |= reBits[l];
      const float inv = 1.f / n0;
      const unsigned* lm = S.levelMin + w * NW_ND * NW_QL;
      for (int b = u; b < NW_NBITS; b += NW_PP) {
        const int j = b / NW_BPS, bb = b - j * NW_BPS;
        const int mask = 1 << (NW_BPS - 1 - bb);
        const int part = (reAll & mask) ? 0 : 1;
        const unsigned* row = lm + (j * NW_DPS + part) * NW_QL;
        float e0 = __uint_as_float(NW_INF_BITS), e1 = e0;
#pragma unroll
        for (int l = 0; l < NW_QL; l++) {
          const float mm = __uint_as_float(row[l]);
          const int labels = part ? imBits[l] : reBits[l];
          if (labels & mask) e1 = fminf(e1, mm);
          else e0 = fminf(e0, mm);
        }
        float x = (e1 - e0) * inv;
        x = x > clip ? clip : x < -clip ? -clip : x;
        llr[(size_t)v * NW_NBITS + b] = x;
      }
    }
  }
#endif
}
