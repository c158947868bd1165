// The N-way soft detector's search kernel (the N-way paper, Section IV-B..D), SSFE being its
// one-pass case: NW_PASSES passes over the channel's streams rotated by p (the QR records of
// qr-batch.cu, once per channel, in scratch), each M = QL^2 paths (Alg. 2, ssfe-search.cuh),
// one thread per path: M * NW_PASSES threads a received vector (padded, NW_PP), NW_VPB vectors a block.
//
// Per vector (the CPU's runSsfePass + BitMetricMinima, nway/cpu.ts):
//   1. z_p = Q_p^T y for every pass (the pass's threads share the ND dot products) -> shared;
//   2. every thread searches its path: metric d and a level index per real dimension;
//   3. Alg. 3 and the merge over passes at once: levelMin[dim][level] = least d of a candidate
//      (of any pass) with that level in that real dimension (the float's bits, d >= 0, a shared
//      atomicMin per path and dimension: the kernel is latency bound, and this measured faster
//      than warp reductions or the paper's candidate scan, bench/mimo/gpu-nway-notes.md), and the
//      best candidate = the least (d, pass, path) (a warp shuffle reduction of a 64-bit key), which
//      is the CPU's first strictly smaller candidate in pass order then path order;
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
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=1 -DNW_VPB=8 -DNW_SOFT=1 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=8 -DNW_PASSES=4 -DNW_VPB=1 -DNW_SOFT=1 -DNW_MINB=8 -DNW_RE_BITS0=0xa0800022220282aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x504000111101415ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=2 -DNW_NT=2 -DNW_DPS=2 -DNW_QL=2 -DNW_PASSES=2 -DNW_VPB=16 -DNW_SOFT=0 -DNW_MINB=16 -DNW_RE_BITS0=0x2ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=3 -DNW_NT=3 -DNW_DPS=1 -DNW_QL=2 -DNW_PASSES=3 -DNW_VPB=8 -DNW_SOFT=1 -DNW_MINB=16 -DNW_RE_BITS0=0x1ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x0ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=2 -DNW_NT=2 -DNW_DPS=2 -DNW_QL=16 -DNW_PASSES=1 -DNW_VPB=1 -DNW_SOFT=1 -DNW_MINB=8 -DNW_RE_BITS0=0x8a888082a2a0a8aaull -DNW_RE_BITS1=0x2a2820220200080aull -DNW_IM_BITS0=0x4544404151505455ull -DNW_IM_BITS1=0x1514101101000405ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=3 -DNW_VPB=2 -DNW_SOFT=1 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=8 -DNW_NT=8 -DNW_DPS=2 -DNW_QL=2 -DNW_PASSES=2 -DNW_VPB=16 -DNW_SOFT=1 -DNW_MINB=8 -DNW_RE_BITS0=0x2ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=8 -DNW_NT=8 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=2 -DNW_VPB=4 -DNW_SOFT=1 -DNW_MINB=8 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull

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
#ifndef NW_MINB
#define NW_MINB 1  // resident blocks the registers are capped for (__launch_bounds__)
#endif
// the candidate scan's work split (a task a bit, NW_SLICES slices of the candidate list): it sizes
// the regions below
#define NW_TASKS (NW_SOFT ? NW_NBITS : 1)
#define NW_SLICES (NW_PP / NW_TASKS > 1 ? NW_PP / NW_TASKS : 1)

// Shared memory per block (nwayLaunchShape in cuda.ts), region by region, each NW_VPB vector slots:
//   cand     NW_P uint4       } used by the candidate-scan measurement build only
//   part     NW_PART uint4    } (bench/kernels/traced/nway-detect.cu.patch), which shares this
//   bestPart NW_BESTPART uint4} layout and launch shape
//   key      NW_WARPS_PER_VEC u64 (the best key of each warp)
//   flags    1 int
//   z        NW_PASSES x ND floats
//   levelMin ND x QL uint (the float bits of the least metric per dimension and level)
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
    if (NW_SOFT) {
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
      if (act) atomicMin(&lm[entry], bits);
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
}
