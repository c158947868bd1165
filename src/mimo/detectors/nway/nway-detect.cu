// The N-way soft detector's search kernel (the N-way paper, Section IV-B..D), SSFE being its
// one-pass case: NW_PASSES passes over the channel's streams rotated by p (the QR records of
// qr-batch.cu, once per channel, in scratch), each M = QL^2 paths (Alg. 2, ssfe-search.cuh).
// A thread owns the QL paths of one pass that share the first level's index i0 (QL threads a pass,
// NW_T = QL x NW_PASSES threads a received vector, padded to NW_TP), NW_VPB vectors a block.
//
// Per vector (the CPU's runSsfePass + BitMetricMinima, nway/cpu.ts):
//   1. z_p = Q_p^T y: the QL threads of a pass each take every QL-th entry, then exchange them by
//      warp shuffles (a pass's threads share a warp); with NW_ZREC the record holds z_p already
//      (qr-batch.cu's QR_Z, one vector per channel: the same numbers), read by every thread;
//   2. every thread searches its QL paths (R loaded into registers and the first level's terms
//      formed once for them; the QL paths are independent work for the scheduler);
//   3. Alg. 3 and the merge over passes at once: levelMin[dim][level] = least d of a candidate (of
//      any pass) with that level in that real dimension, by a shared red.min on the float's bits
//      (d >= 0). NW_COPIES copies of the table, the thread of index i0 updating copy i0 mod
//      NW_COPIES, so that the threads of a pass, which take the same step of their paths together,
//      meet on one address less often; the table is laid out so that the passes' threads fall in
//      different banks. The first level needs one update a thread (its QL paths share i0), the
//      others one a path. The best candidate: the least (d, pass, path), i.e. the least d of a
//      thread (first in i1 order), then a reduction over the vector's threads whose ties go to the
//      lowest thread, which is the CPU's first strictly smaller candidate in pass then path order;
//   4. the best candidate's thread writes the symbol indices; a thread per bit (per stream when a
//      vector has no more threads than streams) writes the max-log LLR (min over levels whose label has the bit 1, minus min over those with 0) / N0,
//      clipped to [-clip, clip] (a side without candidates is +inf, so the LLR clips), and the
//      status word's node count (the CPU's count: passes x (QL + M (ND - 1))).
// Square QAM's bit b of a stream depends on one real dimension only (its Gray PAM label), so the
// min over symbols with the bit 0 (the CPU's symbolMin) equals the min over that dimension's
// levels with the bit 0: the same numbers, exactly (minima are not rounded).
//
// A-priori LLRs (IDD), the NW_PRIOR = 1 build (the CPU's LevelPriors and writeLlr with priors,
// ssfe/search.ts, soft/maxlog.ts): before the search the vector's threads fill its cost table in
// shared memory, word d QL + l = N0 sum over the bits of real dimension d of max(0, -s_b L_a(b))
// (s_b = +1 where level l's label has the bit 0; float32, bits in label order), and its active
// flags (dimension d has a non-zero L_a); every path's metric gains its levels' costs, a lower level
// of an active dimension takes the child of least distance plus cost over all QL levels
// (ssfe-search.cuh), the node count adds M (QL - 1) a pass for each such level (the CPU's count),
// and the LLRs written are extrinsic: the max-log LLR minus L_a, then clipped. All-zero priors give
// the NW_PRIOR = 0 build's outputs bit for bit (zero costs are added exactly, no level is active).
//
// A vector whose status flags are set on entry is skipped (nothing written); one whose channel's
// QR is flagged (RANK_DEFICIENT, FLOAT32_UNSAFE) gets those flags and nothing else.
//
// -D parameters: NW_NR, NW_NT, NW_DPS (2: QAM, 1: BPSK), NW_QL (PAM levels per real dimension, a
// power of two), NW_PASSES, NW_VPB, NW_SOFT (0/1: write LLRs), NW_COPIES (a power of two dividing
// the threads of a pass), NW_MINB (resident blocks the registers are capped for), and the
// symbol-index bits each real / imaginary level index carries (symbol = reBits[lr] | imBits[li];
// BPSK: reBits = {1, 0}, imBits unused), one byte a level: NW_RE_BITS0 levels 0-7 (level l in bits
// 8l .. 8l+7), NW_RE_BITS1 levels 8-15, NW_IM_BITS0, NW_IM_BITS1 (hex integers: nvcc splits a -D
// value at commas, so no brace lists). NW_PRIOR (0/1, default 0): the a-priori build (above; reads
// `prior`, which the 0 build ignores). NW_ZREC (0/1, default 0): the QR records hold z = Q^T y in place
// of Q (qr-record.cuh with rows = 1; vpc must be 1, y is then not read); 0: they hold Q (rows = 2 NR).
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=4 -DNW_VPB=4 -DNW_SOFT=1 -DNW_COPIES=2 -DNW_MINB=16 -DNW_ZREC=1 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=3 -DNW_NT=3 -DNW_DPS=1 -DNW_QL=2 -DNW_PASSES=3 -DNW_VPB=8 -DNW_SOFT=1 -DNW_COPIES=1 -DNW_MINB=16 -DNW_ZREC=1 -DNW_RE_BITS0=0x1ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x0ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=1 -DNW_VPB=16 -DNW_SOFT=1 -DNW_COPIES=2 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=8 -DNW_PASSES=4 -DNW_VPB=2 -DNW_SOFT=1 -DNW_COPIES=4 -DNW_MINB=12 -DNW_RE_BITS0=0xa0800022220282aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x504000111101415ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=2 -DNW_NT=2 -DNW_DPS=2 -DNW_QL=2 -DNW_PASSES=2 -DNW_VPB=16 -DNW_SOFT=0 -DNW_COPIES=1 -DNW_MINB=16 -DNW_RE_BITS0=0x2ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=3 -DNW_NT=3 -DNW_DPS=1 -DNW_QL=2 -DNW_PASSES=3 -DNW_VPB=8 -DNW_SOFT=1 -DNW_COPIES=1 -DNW_MINB=16 -DNW_RE_BITS0=0x1ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x0ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=2 -DNW_NT=2 -DNW_DPS=2 -DNW_QL=16 -DNW_PASSES=1 -DNW_VPB=4 -DNW_SOFT=1 -DNW_COPIES=8 -DNW_MINB=8 -DNW_RE_BITS0=0x8a888082a2a0a8aaull -DNW_RE_BITS1=0x2a2820220200080aull -DNW_IM_BITS0=0x4544404151505455ull -DNW_IM_BITS1=0x1514101101000405ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=3 -DNW_VPB=4 -DNW_SOFT=1 -DNW_COPIES=2 -DNW_MINB=16 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=8 -DNW_NT=8 -DNW_DPS=2 -DNW_QL=2 -DNW_PASSES=8 -DNW_VPB=4 -DNW_SOFT=1 -DNW_COPIES=1 -DNW_MINB=8 -DNW_RE_BITS0=0x2ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=8 -DNW_NT=8 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=2 -DNW_VPB=8 -DNW_SOFT=1 -DNW_COPIES=2 -DNW_MINB=8 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=16 -DNW_PASSES=3 -DNW_VPB=1 -DNW_SOFT=1 -DNW_COPIES=8 -DNW_MINB=8 -DNW_RE_BITS0=0x8a888082a2a0a8aaull -DNW_RE_BITS1=0x2a2820220200080aull -DNW_IM_BITS0=0x4544404151505455ull -DNW_IM_BITS1=0x1514101101000405ull
// nvcc-variant: -DNW_NR=1 -DNW_NT=1 -DNW_DPS=1 -DNW_QL=2 -DNW_PASSES=1 -DNW_VPB=64 -DNW_SOFT=1 -DNW_COPIES=1 -DNW_MINB=16 -DNW_RE_BITS0=0x1ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x0ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=4 -DNW_PASSES=4 -DNW_VPB=4 -DNW_SOFT=1 -DNW_COPIES=2 -DNW_MINB=16 -DNW_ZREC=1 -DNW_PRIOR=1 -DNW_RE_BITS0=0x200080aull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x1000405ull -DNW_IM_BITS1=0x0ull
// nvcc-variant: -DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_QL=16 -DNW_PASSES=3 -DNW_VPB=1 -DNW_SOFT=1 -DNW_COPIES=8 -DNW_MINB=8 -DNW_PRIOR=1 -DNW_RE_BITS0=0x8a888082a2a0a8aaull -DNW_RE_BITS1=0x2a2820220200080aull -DNW_IM_BITS0=0x4544404151505455ull -DNW_IM_BITS1=0x1514101101000405ull
// nvcc-variant: -DNW_NR=3 -DNW_NT=3 -DNW_DPS=1 -DNW_QL=2 -DNW_PASSES=3 -DNW_VPB=8 -DNW_SOFT=0 -DNW_COPIES=1 -DNW_MINB=16 -DNW_PRIOR=1 -DNW_RE_BITS0=0x1ull -DNW_RE_BITS1=0x0ull -DNW_IM_BITS0=0x0ull -DNW_IM_BITS1=0x0ull

#include "../../gpu/preprocess/qr-record.cuh"
#include "../../gpu/status-summary.cuh"
#include "../ssfe/ssfe-search.cuh"

#ifndef NW_NR
#error "nway-detect.cu needs -DNW_NR, -DNW_NT, -DNW_DPS, -DNW_QL, -DNW_PASSES, -DNW_VPB, -DNW_SOFT, -DNW_COPIES, -DNW_MINB, -DNW_RE_BITS0/1, -DNW_IM_BITS0/1"
#endif

#ifndef NW_ZREC
#define NW_ZREC 0
#endif
#ifndef NW_PRIOR
#define NW_PRIOR 0
#endif

#define NW_ROWS (2 * NW_NR)
#define NW_ND (NW_DPS * NW_NT)
// rows of a record's first part: Q's, or z's one
#define NW_QROWS (NW_ZREC ? 1 : NW_ROWS)
#define NW_M (NW_ND >= 2 ? NW_QL * NW_QL : NW_QL)
// threads a pass (one per first-level index; one thread takes the single level's QL paths when ND = 1)
#define NW_G (NW_ND >= 2 ? NW_QL : 1)
#define NW_T (NW_G * NW_PASSES)
// threads a vector: NW_T padded to a power of two up to 32, or to a multiple of 32, so that no
// vector straddles a warp and a pass's threads share one (nwayLaunchShape in cuda.ts)
#define NW_TP (NW_T > 32 ? (NW_T + 31) / 32 * 32 : NW_T > 16 ? 32 : NW_T > 8 ? 16 : NW_T > 4 ? 8 : NW_T > 2 ? 4 : NW_T > 1 ? 2 : 1)
#define NW_WPV (NW_TP > 32 ? NW_TP / 32 : 1)
#define NW_BPS (NW_DPS == 1 ? 1 : NW_QL >= 16 ? 8 : NW_QL >= 8 ? 6 : NW_QL >= 4 ? 4 : 2)
#define NW_NBITS (NW_NT * NW_BPS)
#define NW_REC QR_REC_FLOATS(NW_QROWS, NW_ND)
#define NW_NODES (NW_PASSES * (NW_ND >= 2 ? NW_QL + NW_M * (NW_ND - 1) : NW_M))
#define NW_NZ ((NW_ND + NW_G - 1) / NW_G)
#define NW_INF_BITS 0x7f800000u
#define NW_FULL 0xffffffffu
// Shared memory per block (nwayLaunchShape in cuda.ts): NW_VPB vector slots of NW_VSTRIDE words, the
// level minima of a vector, word ((part QL + level) NT + stream) NW_COPIES + copy for real dimension
// stream DPS + part (at one step the passes' threads touch different streams, so different banks;
// the stride shifts the next vector of a warp past them); then NW_VPB x NW_WPV words (the least
// metric of each warp of a vector, when a vector spans warps).
#define NW_TABLE (NW_SOFT ? NW_ND * NW_QL * NW_COPIES : 0)
#define NW_VSTRIDE ((NW_TABLE + 31) / 32 * 32 + (NW_TP < 32 ? NW_TP * NW_COPIES / NW_G : 0))
// With NW_PRIOR, after those: NW_VPB x NW_PWORDS words, each vector's a-priori cost table (ND x QL
// floats, word d QL + l) and its ND active flags.
#define NW_PWORDS (NW_PRIOR ? NW_ND * NW_QL + NW_ND : 0)
#define NW_PBASE (NW_VPB * (NW_VSTRIDE + (NW_WPV > 1 ? NW_WPV : 0)))

#if NW_TP > 32
#define NW_SYNC() __syncthreads()
#else
#define NW_SYNC() __syncwarp()
#endif

// A path's level indices, 4 bits a column.
template <bool WIDE> struct NwPack { typedef unsigned T; };
template <> struct NwPack<true> { typedef unsigned long long T; };

// Addresses of the level-minimum table: the shared window's byte address on the device (the update
// one red.shared at a multiply-add of a kept base; nw_keep stops the compiler from recomputing the
// bases from their parts at every update), a host address under the CUDA emulator.
#ifdef __CUDA_ARCH__
typedef unsigned NwAddr;
__device__ __forceinline__ NwAddr nw_addr(const unsigned* p) { return (NwAddr)__cvta_generic_to_shared(p); }
__device__ __forceinline__ NwAddr nw_keep(NwAddr a) { asm("mov.b32 %0, %0;" : "+r"(a)); return a; }
__device__ __forceinline__ void nw_min(NwAddr a, unsigned v) { asm volatile("red.shared.min.u32 [%0], %1;" :: "r"(a), "r"(v) : "memory"); }
#else
typedef unsigned long long NwAddr;
inline NwAddr nw_addr(const unsigned* p) { return (NwAddr)(uintptr_t)p; }
inline NwAddr nw_keep(NwAddr a) { return a; }
inline void nw_min(NwAddr a, unsigned v) { atomicMin((unsigned*)(uintptr_t)a, v); }
#endif

// The least of a table entry's NW_COPIES copies (q: the first), by 16- or 8-byte loads where the
// layout keeps them aligned (NW_VEC words).
#define NW_VEC ((NW_VSTRIDE % 4 == 0 && NW_COPIES % 4 == 0) ? 4 : (NW_VSTRIDE % 2 == 0 && NW_COPIES % 2 == 0) ? 2 : 1)
__device__ __forceinline__ float nw_min_copies(const unsigned* q) {
  float m = __uint_as_float(NW_INF_BITS);
#pragma unroll
  for (int c = 0; c < NW_COPIES; c += NW_VEC) {
    if (NW_VEC == 4) {
      const uint4 x = *(const uint4*)(q + c);
      m = fminf(m, fminf(fminf(__uint_as_float(x.x), __uint_as_float(x.y)), fminf(__uint_as_float(x.z), __uint_as_float(x.w))));
    } else if (NW_VEC == 2) {
      const uint2 x = *(const uint2*)(q + c);
      m = fminf(m, fminf(__uint_as_float(x.x), __uint_as_float(x.y)));
    } else {
      m = fminf(m, __uint_as_float(q[c]));
    }
  }
  return m;
}

// The bits level l carries of the symbol index (the packed byte tables of the header).
__device__ __forceinline__ int nw_level_bits(unsigned long long lo, unsigned long long hi, int l) {
  return (int)(((l < 8 ? lo : hi) >> (8 * (l & 7))) & 255ull);
}

// The real dimension in column col of pass p: part col mod DPS of stream (col / DPS + p) mod NT.
__device__ __forceinline__ int nw_dim(int col, int p) {
  int j = col / NW_DPS + p;
  if (j >= NW_NT) j -= NW_NT;
  return j * NW_DPS + col % NW_DPS;
}

// A thread's a-priori costs by column (ssfe-search.cuh's Prior): its pass's view of the vector's
// cost table (tab, dimension-major) and active flags (mask, bit col).
struct NwPrior {
  static constexpr bool on = true;
  const float* tab;
  unsigned mask;
  int off[NW_ND];
  __device__ __forceinline__ bool active(int col) const { return (mask >> col) & 1u; }
  __device__ __forceinline__ float cost(int col, int l) const { return tab[off[col] + l]; }
};

// vectors = channels * vpc of this chunk (vpc = 1 with NW_ZREC; y then unused); qr = the chunk's QR
// records (channel c, pass p at (c NW_PASSES + p) NW_REC floats); llr may be null when NW_SOFT = 0;
// summary: null, or the channels' summaries (status-summary.cuh) that each real vector (v < real)
// adds its flags and nodes to; prior: the chunk's a-priori LLRs, vectors x NT x BPS float32 (read
// by the NW_PRIOR build only, last so that the other build's parameters keep their offsets; may be
// null there). Block: NW_TP * NW_VPB threads.
extern "C" __global__ void __launch_bounds__(NW_TP * NW_VPB, NW_MINB) nway_detect(
    const float* __restrict__ y, const float* __restrict__ noise, const float* __restrict__ qr,
    int* __restrict__ symbols, float* __restrict__ llr, int* __restrict__ status, int vectors, int vpc, float clip,
    int* __restrict__ summary, long long real, const float* __restrict__ prior) {
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned* const words = (unsigned*)smem;
  const int t = threadIdx.x;
  const int lane = t & 31;
  const int w = t / NW_TP, u = t - w * NW_TP;
  const bool hasThr = u < NW_T;
  const int p = hasThr ? u / NW_G : 0, g = hasThr ? u - p * NW_G : 0;
  const int v = blockIdx.x * NW_VPB + w;
  const bool valid = v < vectors;
  const int vv = valid ? v : 0;
  const int c = vv / vpc;
  const float* recs = qr + (size_t)c * NW_PASSES * NW_REC;
  const float* rec = recs + p * NW_REC;
  unsigned* lm = words + w * NW_VSTRIDE;

  // 1. flags (set on entry: leave the vector alone; a flagged QR: its flags, nothing else).
  const int st = valid ? status[2 * vv] : -1;
  int qf = 0;
#pragma unroll
  for (int pp = 0; pp < NW_PASSES; pp++) qf |= __float_as_int(__ldg(recs + pp * NW_REC + QR_REC_FLAGS(NW_QROWS, NW_ND)));
  if (valid && u == 0 && st == 0 && qf != 0) status[2 * v] = qf;
  const bool run = valid && st == 0 && qf == 0;
  // the channel's summary (its head written by the normalize stage, which saw the flags set on entry);
  // with priors once the node count is known (after the cost table)
#if !NW_PRIOR
  if (summary && valid && u == 0 && st == 0 && v < real) mimo_summary_add(summary, c, qf, run ? NW_NODES : 0);
#endif
  const bool act = run && hasThr;
  int reAll = 0, imAll = 0;
#pragma unroll
  for (int l = 0; l < NW_QL; l++) {
    reAll |= nw_level_bits(NW_RE_BITS0, NW_RE_BITS1, l);
    imAll |= nw_level_bits(NW_IM_BITS0, NW_IM_BITS1, l);
  }
  (void)imAll;
#if NW_PRIOR
  // the vector's a-priori cost table and active flags (file comment), read after the sync below
  float* const pTab = (float*)(words + NW_PBASE) + w * NW_PWORDS;
  int* const pAct = (int*)(pTab + NW_ND * NW_QL);
  if (run) {
    const float n0 = __ldg(noise + v);
    const float* la = prior + (size_t)v * NW_NBITS;
    for (int e = u; e < NW_PWORDS; e += NW_TP) {
      const bool isCost = e < NW_ND * NW_QL;
      const int d = isCost ? e / NW_QL : e - NW_ND * NW_QL, l = isCost ? e - d * NW_QL : 0;
      const int j = d / NW_DPS, part = d - j * NW_DPS;
      const int partAll = part ? imAll : reAll;
      const int labels = part ? nw_level_bits(NW_IM_BITS0, NW_IM_BITS1, l) : nw_level_bits(NW_RE_BITS0, NW_RE_BITS1, l);
      float cst = 0.f;
      int any = 0;
#pragma unroll
      for (int bb = 0; bb < NW_BPS; bb++) {
        const int mask = 1 << (NW_BPS - 1 - bb);
        if (!(partAll & mask)) continue;
        const float L = __ldg(la + j * NW_BPS + bb);
        if (L == 0.f) continue;
        any = 1;
        // max(0, -s L): L for a 1 bit when L > 0, -L for a 0 bit when L < 0
        if ((labels & mask) ? L > 0.f : L < 0.f) cst += n0 * fabsf(L);
      }
      if (isCost) pTab[e] = cst;
      else pAct[d] = any;
    }
  }
#endif
  if (NW_SOFT) {
    if (NW_VSTRIDE % 4 == 0 && NW_TABLE % 4 == 0) {
      for (int e = u; e < NW_TABLE / 4; e += NW_TP) ((uint4*)lm)[e] = make_uint4(NW_INF_BITS, NW_INF_BITS, NW_INF_BITS, NW_INF_BITS);
    } else {
      for (int e = u; e < NW_TABLE; e += NW_TP) lm[e] = NW_INF_BITS;
    }
  }

  float z[NW_ND];
#if NW_ZREC
  // z = Q_p^T y, formed by the QR kernel: every entry from the record (16- or 8-byte loads where ND allows)
  if (NW_ND % 4 == 0) {
#pragma unroll
    for (int e = 0; e < NW_ND; e += 4) {
      const float4 q = __ldg((const float4*)(rec + e));
      z[e] = q.x; z[e + 1] = q.y; z[e + 2] = q.z; z[e + 3] = q.w;
    }
  } else if (NW_ND % 2 == 0) {
#pragma unroll
    for (int e = 0; e < NW_ND; e += 2) {
      const float2 q = __ldg((const float2*)(rec + e));
      z[e] = q.x; z[e + 1] = q.y;
    }
  } else {
#pragma unroll
    for (int e = 0; e < NW_ND; e++) z[e] = __ldg(rec + e);
  }
#else
  // z = Q_p^T y: this thread's entries g, g + G, ..., then every entry from the pass's threads.
  float zl[NW_NZ];
  {
    float yv[NW_ROWS];
    const float2* y2 = (const float2*)(y + (size_t)vv * NW_ROWS);
#pragma unroll
    for (int r = 0; r < NW_ROWS / 2; r++) {
      const float2 q = __ldg(y2 + r);
      yv[2 * r] = q.x;
      yv[2 * r + 1] = q.y;
    }
#pragma unroll
    for (int i = 0; i < NW_NZ; i++) {
      const int e = g + i * NW_G;
      float d = 0.f;
      if (e < NW_ND) {
        const float2* col = (const float2*)(rec + e * NW_ROWS);
#pragma unroll
        for (int r = 0; r < NW_ROWS / 2; r++) {
          const float2 q = __ldg(col + r);
          d += q.x * yv[2 * r];
          d += q.y * yv[2 * r + 1];
        }
      }
      zl[i] = d;
    }
  }
  const int passLane0 = (t - g) & 31;
#pragma unroll
  for (int e = 0; e < NW_ND; e++) z[e] = __shfl_sync(NW_FULL, zl[e / NW_G], (passLane0 + e % NW_G) & 31);
#endif
  NW_SYNC();  // the table's initial values (and the cost table) before any update

  int nodes = NW_NODES;
#if NW_PRIOR
  NwPrior pr;
  pr.tab = pTab;
  pr.mask = 0;
#pragma unroll
  for (int col = 0; col < NW_ND; col++) {
    const int d = nw_dim(col, p);
    pr.off[col] = d * NW_QL;
    if (act && pAct[d]) pr.mask |= 1u << col;
  }
  if (run && u == 0 && NW_ND >= 3) {
    // a lower level (columns below the two expanded ones) of an active dimension: QL distances a path
    int lower = 0;
#pragma unroll
    for (int pp = 0; pp < NW_PASSES; pp++)
#pragma unroll
      for (int col = 0; col < NW_ND - 2; col++) lower += pAct[nw_dim(col, pp)];
    nodes += NW_M * (NW_QL - 1) * lower;
  }
  if (summary && valid && u == 0 && st == 0 && v < real) mimo_summary_add(summary, c, qf, run ? nodes : 0);
#else
  const SsfeNoPrior pr;
#endif

  // 2-3. The paths, each entering the level minima; the thread's best (least d, first in i1 order).
  // Column col of pass p holds real dimension (stream (col / DPS + p) mod NT, part col mod DPS); its
  // entry of level l is at colAddr[col] + l levBytes (levels come biased by SSFE_MAGIC_BITS: the
  // bias is taken off colAddr, modulo the address width, so an entry's address is one multiply-add).
  constexpr unsigned levBytes = 4 * NW_NT * NW_COPIES;
  NwAddr colAddr[NW_ND];
#pragma unroll
  for (int col = 0; col < NW_ND; col++) {
    int j = col / NW_DPS + p;
    if (j >= NW_NT) j -= NW_NT;
    const unsigned word = ((col % NW_DPS) * NW_QL * NW_NT + j) * NW_COPIES + (g & (NW_COPIES - 1));
    colAddr[col] = nw_keep(nw_addr(lm) + 4 * word - (NwAddr)SSFE_MAGIC_BITS * levBytes);
  }
  typedef NwPack<(NW_ND > 8)>::T Pack;
  // a path's levels, 4 bits a column, summed biased; kBias: the bias's share, taken off at the end
  constexpr Pack kOne = 1;
  Pack kBias = 0;
#pragma unroll
  for (int col = 0; col < NW_ND; col++) if (!(NW_ND >= 2 && col == NW_ND - 1)) kBias += (Pack)(unsigned)SSFE_MAGIC_BITS << (4 * col);
  float best = __uint_as_float(NW_INF_BITS);
  Pack bestPack = 0;
  if (act) {
    ssfe_paths<NW_ND, NW_QL>(rec + QR_REC_R(NW_QROWS, NW_ND), rec + QR_REC_INVDIAG(NW_QROWS, NW_ND), z, g, pr, [&](int i1, float d, const int (&lev)[NW_ND]) {
      const unsigned bits = __float_as_uint(d);
      Pack pack = 0;
#pragma unroll
      for (int col = 0; col < NW_ND; col++) {
        if (NW_ND >= 2 && col == NW_ND - 1) continue;  // the first level: once, below
        if (NW_SOFT) nw_min(colAddr[col] + (NwAddr)(unsigned)lev[col] * levBytes, bits);
        pack += (Pack)(unsigned)lev[col] * (kOne << (4 * col));
      }
      if (d < best) {
        best = d;
        bestPack = pack;
      }
    });
    bestPack -= kBias;
    if (NW_ND >= 2) {
      if (NW_SOFT) nw_min(colAddr[NW_ND - 1] + (NwAddr)(unsigned)(g + SSFE_MAGIC_BITS) * levBytes, __float_as_uint(best));
      bestPack |= (Pack)g << (4 * (NW_ND - 1));
    }
  }

  // The vector's best: the least metric over its threads, ties to the lowest thread.
  unsigned key = act ? __float_as_uint(best) : NW_INF_BITS;
  unsigned m = key;
#pragma unroll
  for (int off = (NW_TP < 32 ? NW_TP : 32) / 2; off >= 1; off >>= 1) {
    const unsigned o = __shfl_xor_sync(NW_FULL, m, off);
    m = o < m ? o : m;
  }
  unsigned winners = __ballot_sync(NW_FULL, key == m);
#if NW_TP > 32
  {
    unsigned* wmin = words + NW_VPB * NW_VSTRIDE + w * NW_WPV;
    if (lane == 0) wmin[u / 32] = m;
    __syncthreads();
    unsigned vm = m;
    int firstWarp = NW_WPV;
#pragma unroll
    for (int i = NW_WPV - 1; i >= 0; i--) {
      const unsigned x = wmin[i];
      if (x <= vm) { vm = x; }
    }
#pragma unroll
    for (int i = NW_WPV - 1; i >= 0; i--) if (wmin[i] == vm) firstWarp = i;
    if (m != vm || u / 32 != firstWarp) winners = 0;
  }
#else
  if (NW_TP < 32) winners &= ((1u << (NW_TP & 31)) - 1u) << (lane & ~(NW_TP - 1));
#endif
  NW_SYNC();

  // 4. outputs.
  if (act && key == m && lane == __ffs(winners) - 1) {
#pragma unroll
    for (int cc = 0; cc < NW_NT; cc++) {
      int j = cc + p;
      if (j >= NW_NT) j -= NW_NT;
      const int lr = (int)(bestPack >> (4 * cc * NW_DPS)) & 15;
      const int li = (int)(bestPack >> (4 * (cc * NW_DPS + NW_DPS - 1))) & 15;
      int sym = nw_level_bits(NW_RE_BITS0, NW_RE_BITS1, lr);
      if (NW_DPS == 2) sym |= nw_level_bits(NW_IM_BITS0, NW_IM_BITS1, li);
      symbols[(size_t)v * NW_NT + j] = sym;
    }
  }
  if (run) {
    if (u == 0) status[2 * v + 1] = nodes;
    if (NW_SOFT) {
      const float inv = 1.f / __ldg(noise + v);
#if NW_NT >= NW_TP
      // a stream a thread: every level's minimum read once and entered into each of the stream's
      // bits by its (compile-time) label
      for (int j = u; j < NW_NT; j += NW_TP) {
        float e0[NW_BPS], e1[NW_BPS];
#pragma unroll
        for (int bb = 0; bb < NW_BPS; bb++) e0[bb] = e1[bb] = __uint_as_float(NW_INF_BITS);
#pragma unroll
        for (int part = 0; part < NW_DPS; part++) {
          const int partAll = part ? imAll : reAll;
#pragma unroll
          for (int l = 0; l < NW_QL; l++) {
            const int labels = part ? nw_level_bits(NW_IM_BITS0, NW_IM_BITS1, l) : nw_level_bits(NW_RE_BITS0, NW_RE_BITS1, l);
            const float mm = nw_min_copies(lm + ((part * NW_QL + l) * NW_NT + j) * NW_COPIES);
#pragma unroll
            for (int bb = 0; bb < NW_BPS; bb++) {
              const int mask = 1 << (NW_BPS - 1 - bb);
              if (!(partAll & mask)) continue;
              if (labels & mask) e1[bb] = fminf(e1[bb], mm);
              else e0[bb] = fminf(e0[bb], mm);
            }
          }
        }
#pragma unroll
        for (int bb = 0; bb < NW_BPS; bb++) {
          float x = (e1[bb] - e0[bb]) * inv;
#if NW_PRIOR
          x -= __ldg(prior + (size_t)v * NW_NBITS + j * NW_BPS + bb);  // extrinsic
#endif
          x = x > clip ? clip : x < -clip ? -clip : x;
          llr[(size_t)v * NW_NBITS + j * NW_BPS + bb] = x;
        }
      }
#else
      // a bit a thread
      for (int b = u; b < NW_NBITS; b += NW_TP) {
        const int j = b / NW_BPS, bb = b - j * NW_BPS;
        const int mask = 1 << (NW_BPS - 1 - bb);
        const int part = (reAll & mask) ? 0 : 1;
        const unsigned* row = lm + (part * NW_QL * NW_NT + j) * NW_COPIES;
        float e0 = __uint_as_float(NW_INF_BITS), e1 = e0;
#pragma unroll
        for (int l = 0; l < NW_QL; l++) {
          const int labels = part ? nw_level_bits(NW_IM_BITS0, NW_IM_BITS1, l) : nw_level_bits(NW_RE_BITS0, NW_RE_BITS1, l);
          const float mm = nw_min_copies(row + l * NW_NT * NW_COPIES);
          if (labels & mask) e1 = fminf(e1, mm);
          else e0 = fminf(e0, mm);
        }
        float x = (e1 - e0) * inv;
#if NW_PRIOR
        x -= __ldg(prior + (size_t)v * NW_NBITS + b);  // extrinsic
#endif
        x = x > clip ? clip : x < -clip ? -clip : x;
        llr[(size_t)v * NW_NBITS + b] = x;
      }
#endif
    }
  }
}
