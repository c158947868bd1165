// K-best breadth-first search with max-log soft output from the final list (search.ts and cpu.ts
// beside it are the reference): a group of TPV threads per received vector, VPB vectors per block
// (TPV = 32: a warp each; TPV > 32: one vector per block). Per level, every survivor's QL children
// get their partial metric; when there are more than KB children they are sorted by (metric, child
// index), the CPU's tie rule (search.ts: less), with a bitonic network over 64-bit keys (metric
// bits, positive floats ordering as integers, above the child index; in registers for a warp per
// vector, else in shared memory), and the first KB survive.
// As on the CPU, a level whose children all survive keeps them in child order, unsorted.
// Afterwards the best survivor (least metric, then least slot: BitMetricMinima.add) is the hard
// decision and, per bit, the least metric among survivors with the other bit value is the
// counter-hypothesis (absent: +-clip). Launched by cuda.ts after kbest-prep.cu.
//
// A-priori LLRs (IDD), the KB_PRIOR = 1 build (search.ts and cpu.ts with priors: ssfe/search.ts's
// LevelPriors): before the search the group fills its cost table in shared memory, word i QL + l =
// N0 sum over the bits of column i's real dimension of max(0, -s_b L_a(b)) (s_b = +1 where level
// l's label has the bit 0; float32, bits in label order), each child's metric (distance + e^2) then
// gains its level's cost, so the K survivors are ranked, and ties broken, on distance plus cost
// (the node count is unchanged), and the LLRs written are extrinsic: the list's max-log LLR minus
// L_a, then clipped. A column without priors has all-zero costs, added exactly: all-zero priors
// give the KB_PRIOR = 0 build's outputs bit for bit (in the emulator; the builds' FMA contraction
// may differ on a device). KB_PRIOR = 0 (default) reads no priors.
//
// nvcc-variant: -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DBPS=4 -DKB=16 -DCPAD=64 -DTPV=32 -DVPB=4 -DGROUP_BYTES=1376 -DMIMO_COMPILE_CHECK
// nvcc-variant: -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=8 -DBPS=6 -DKB=256 -DCPAD=2048 -DTPV=256 -DVPB=1 -DGROUP_BYTES=25632 -DMIMO_COMPILE_CHECK
// nvcc-variant: -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=4 -DBPS=4 -DKB=16 -DCPAD=64 -DTPV=32 -DVPB=4 -DGROUP_BYTES=1504 -DKB_PRIOR=1 -DMIMO_COMPILE_CHECK
// nvcc-variant: -DNR=4 -DNT=4 -DND=8 -DROWS=8 -DDPS=2 -DQL=8 -DBPS=6 -DKB=256 -DCPAD=2048 -DTPV=256 -DVPB=1 -DGROUP_BYTES=25888 -DKB_PRIOR=1 -DMIMO_COMPILE_CHECK
// nvcc-variant: -DNR=2 -DNT=2 -DND=2 -DROWS=4 -DDPS=1 -DQL=2 -DBPS=1 -DKB=2 -DCPAD=4 -DTPV=32 -DVPB=8 -DGROUP_BYTES=352 -DKB_PRIOR=1 -DMIMO_COMPILE_CHECK

#include "real-model.cuh"

typedef unsigned long long u64;

#ifndef KB_PRIOR
#define KB_PRIOR 0
#endif
// Floats of the a-priori cost table (ND x QL, by column) in a group's shared memory.
#define KB_PCOST (KB_PRIOR ? ND * QL : 0)

#if TPV <= 32
#define GROUP_SYNC() __syncwarp()
#else
#define GROUP_SYNC() __syncthreads()
#endif

#define HALF (QL - 1)

// Bytes of one group's shared memory, in this order: keys (CPAD u64), red (TPV u64), metric and
// partial (KB floats each), z (ND floats), with KB_PRIOR the cost table (ND x QL floats), levels
// (2 x KB x ND bytes), symbols (KB x NT bytes).
#define KB_LAYOUT_BYTES (CPAD * 8 + TPV * 8 + 2 * KB * 4 + ND * 4 + KB_PCOST * 4 + 2 * KB * ND + KB * NT)
static_assert(KB_LAYOUT_BYTES <= GROUP_BYTES, "GROUP_BYTES too small");
static_assert(CPAD >= 2 && (CPAD & (CPAD - 1)) == 0, "CPAD a power of two");

// Sort in registers (a warp per vector, up to 512 children: KB_KE keys a lane, shuffles between
// lanes) rather than in shared memory.
#if TPV == 32 && CPAD <= 512
#define KB_REG_SORT 1
#define KB_KE (CPAD < 32 ? 1 : CPAD / 32)
#else
#define KB_REG_SORT 0
#endif

// Key of child t (survivor t / QL extended by level t % QL): its metric's bits above its index;
// past the children, the largest key (padding). KB_PRIOR: pc is the level's QL costs.
#if KB_PRIOR
__device__ __forceinline__ u64 child_key(int t, int children, const float* partial, const float* metric, float rii, const float* pc) {
  if (t >= children) return ~0ull;
  const int s = t / QL, cc = t - s * QL;
  const float e = partial[s] - rii * (float)(2 * cc - HALF);
  float m = metric[s] + e * e;
  m = m + pc[cc];
  return ((u64)__float_as_uint(m) << 32) | (unsigned)t;
}
#define CHILD_KEY(t) child_key((t), children, partial, metric, rii, pcost + i * QL)

// Bit b of symbol index sym's label (the LLRs' convention: b0 the most significant).
__device__ __forceinline__ int kb_bit(int sym, int b) { return (sym >> (BPS - 1 - b)) & 1; }
// The symbol of real level re (and imaginary level im with DPS = 2).
__device__ __forceinline__ int kb_sym(int re, int im) { return c_symbolOfLevels[DPS == 2 ? re * QL + im : re]; }
#else
__device__ __forceinline__ u64 child_key(int t, int children, const float* partial, const float* metric, float rii) {
  if (t >= children) return ~0ull;
  const int s = t / QL, cc = t - s * QL;
  const float e = partial[s] - rii * (float)(2 * cc - HALF);
  const float m = metric[s] + e * e;
  return ((u64)__float_as_uint(m) << 32) | (unsigned)t;
}
#define CHILD_KEY(t) child_key((t), children, partial, metric, rii)
#endif

extern "C" __global__ void __launch_bounds__(TPV * VPB) kbest_search(
    const float* __restrict__ y,      // vectors x ROWS (the complex vector, interleaved)
    const float* __restrict__ noise,  // N0 per vector
    const float* __restrict__ Qs,     // per channel ROWS x ND (kbest-prep.cu)
    const float* __restrict__ Rs,     // per channel ND x ND
    const int* __restrict__ info,     // per channel [flags, perm[ND]]
    int* __restrict__ symbols,        // vectors x NT
    float* __restrict__ llr,          // vectors x NT x BPS, or null
    int* __restrict__ status,         // vectors x 2: [flags, nodes]
    int vectors, int vpc, float clip,
    const float* __restrict__ prior) {  // vectors x NT x BPS a-priori LLRs (KB_PRIOR only, last so that the
                                        // other build's parameters keep their offsets; may be null there)
  extern __shared__ __align__(16) unsigned char smem[];
  const int g = threadIdx.x / TPV, lane = threadIdx.x % TPV;
  const int v = blockIdx.x * VPB + g;
  if (v >= vectors) return;
  if (status[2 * v] != 0) return;  // flagged by the engine's normalize kernel
  const int c = v / vpc;
  const int* inf = info + (size_t)c * (1 + ND);
  if (inf[0] != 0) {
    if (lane == 0) status[2 * v] = inf[0];
    return;
  }
  unsigned char* base = smem + (size_t)g * GROUP_BYTES;
  u64* keys = (u64*)base;
  u64* red = keys + CPAD;
  float* metric = (float*)(red + TPV);
  float* partial = metric + KB;
  float* z = partial + KB;
  float* pcost = z + ND;
  unsigned char* lev0 = (unsigned char*)(pcost + KB_PCOST);
  unsigned char* lev1 = lev0 + KB * ND;
  unsigned char* syms = lev1 + KB * ND;
  const float* R = Rs + (size_t)c * ND * ND;

  // z = Q^T y
  {
    const float* Q = Qs + (size_t)c * ROWS * ND;
    const float* yv = y + (size_t)v * ROWS;
    for (int k = lane; k < ND; k += TPV) {
      float d = 0;
      for (int r = 0; r < ROWS; r++) d += Q[k * ROWS + r] * yv[r];
      z[k] = d;
    }
  }
#if KB_PRIOR
  // the cost table by column: column i holds real dimension inf[1 + i] (stream d / DPS, part d % DPS)
  {
    const float n0 = noise[v];
    const float* la = prior + (size_t)v * NT * BPS;
    for (int t = lane; t < ND * QL; t += TPV) {
      const int col = t / QL, l = t - col * QL;
      const int d = inf[1 + col], j = d / DPS, part = DPS == 2 ? d % DPS : 0;
      float cost = 0.0f;
      for (int b = 0; b < BPS; b++) {
        // the part whose level alone fixes bit b (Gray square QAM labels each PAM separately)
        int bp = 0, one;
        if (DPS == 2) {
          bp = 1;
          for (int re = 1; re < QL; re++) if (kb_bit(kb_sym(re, 0), b) != kb_bit(kb_sym(0, 0), b)) bp = 0;
          one = bp == 0 ? kb_bit(kb_sym(l, 0), b) : kb_bit(kb_sym(0, l), b);
        } else {
          one = kb_bit(kb_sym(l, 0), b);
        }
        if (bp != part) continue;
        const float L = la[j * BPS + b];
        // max(0, -s L): L for a 1 bit when L > 0, -L for a 0 bit when L < 0
        if (one ? L > 0.0f : L < 0.0f) cost += n0 * fabsf(L);
      }
      pcost[t] = cost;
    }
  }
#endif
  if (lane == 0) metric[0] = 0;
  GROUP_SYNC();
  int count = 1, nodes = 0;
  unsigned char* cur = lev0;
  unsigned char* nxt = lev1;
  for (int i = ND - 1; i >= 0; i--) {
    const float rii = R[i + i * ND];
    for (int s = lane; s < count; s += TPV) {
      float b = z[i];
      for (int j = i + 1; j < ND; j++) b -= R[i + j * ND] * (float)(2 * (int)cur[s * ND + j] - HALF);
      partial[s] = b;
    }
    GROUP_SYNC();
    const int children = count * QL;
    nodes += children;
    const int keep = children < KB ? children : KB;
#if KB_REG_SORT
    // a warp's keys in registers, element e of lane l at position 32 e + l
    u64 kr[KB_KE];
    for (int e = 0; e < KB_KE; e++) kr[e] = CHILD_KEY(32 * e + lane);
    if (keep < children) {
      int P = 32;
      while (P < children) P <<= 1;
      for (int k = 2; k <= P; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
          if (j >= 32) {
            // partners in the same lane: elements e and e ^ (j / 32)
            const int je = j >> 5;
            for (int e = 0; e < KB_KE; e++) {
              for (int f = e + 1; f < KB_KE; f++) {
                if ((e ^ f) == je && 32 * f < P) {
                  const bool up = ((32 * e + lane) & k) == 0;
                  const u64 a = kr[e], b = kr[f];
                  if ((a > b) == up) { kr[e] = b; kr[f] = a; }
                }
              }
            }
          } else {
            for (int e = 0; e < KB_KE; e++) {
              if (32 * e < P) {
                const int i = 32 * e + lane;
                const u64 other = __shfl_sync(0xffffffffu, kr[e], lane ^ j);
                const bool takeMin = ((i & j) == 0) == ((i & k) == 0);
                kr[e] = takeMin ? (other < kr[e] ? other : kr[e]) : (other > kr[e] ? other : kr[e]);
              }
            }
          }
        }
      }
    }
    for (int e = 0; e < KB_KE; e++) if (32 * e + lane < keep) keys[32 * e + lane] = kr[e];
    GROUP_SYNC();
#else
    for (int t = lane; t < children; t += TPV) keys[t] = CHILD_KEY(t);
    if (keep < children) {
      int P = 2;
      while (P < children) P <<= 1;
      for (int t = children + lane; t < P; t += TPV) keys[t] = ~0ull;
      GROUP_SYNC();
      for (int k = 2; k <= P; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
          for (int t = lane; t < (P >> 1); t += TPV) {
            const int a = 2 * t - (t & (j - 1)), b = a + j;
            const u64 ka = keys[a], kb = keys[b];
            if ((ka > kb) == ((a & k) == 0)) { keys[a] = kb; keys[b] = ka; }
          }
          GROUP_SYNC();
        }
      }
    } else {
      GROUP_SYNC();
    }
#endif
    for (int t = lane; t < keep; t += TPV) {
      const u64 key = keys[t];
      const int child = (int)(unsigned)key;
      const int parent = child / QL;
      for (int j = i + 1; j < ND; j++) nxt[t * ND + j] = cur[parent * ND + j];
      nxt[t * ND + i] = (unsigned char)(child - parent * QL);
      metric[t] = __uint_as_float((unsigned)(key >> 32));
    }
    GROUP_SYNC();
    unsigned char* tl = cur; cur = nxt; nxt = tl;
    count = keep;
  }

  // Survivors' symbols, and the best survivor: least (metric, slot).
  u64 best = ~0ull;
  for (int s = lane; s < count; s += TPV) {
    real_model_symbols(cur + s * ND, inf + 1, syms + s * NT);
    const u64 key = ((u64)__float_as_uint(metric[s]) << 32) | (unsigned)s;
    if (key < best) best = key;
  }
  red[lane] = best;
  GROUP_SYNC();
  for (int h = TPV >> 1; h > 0; h >>= 1) {
    if (lane < h && red[lane + h] < red[lane]) red[lane] = red[lane + h];
    GROUP_SYNC();
  }
  const int bs = (int)(unsigned)red[0];
  const float bestMetric = metric[bs];
  const unsigned char* bestSyms = syms + bs * NT;
  for (int j = lane; j < NT; j += TPV) symbols[(size_t)v * NT + j] = bestSyms[j];
  if (llr) {
    const float inv = 1.0f / noise[v];
    for (int t = lane; t < NT * BPS; t += TPV) {
      const int j = t / BPS, b = t - j * BPS, shift = BPS - 1 - b;
      const int hyp = (bestSyms[j] >> shift) & 1;
      float other = F32_INFINITY;
      for (int s = 0; s < count; s++) {
        if (((syms[s * NT + j] >> shift) & 1) != hyp && metric[s] < other) other = metric[s];
      }
      float l;
      if (other == F32_INFINITY) l = hyp ? -clip : clip;
      else {
        l = (hyp ? bestMetric - other : other - bestMetric) * inv;
#if KB_PRIOR
        l -= prior[(size_t)v * NT * BPS + t];  // extrinsic: the a-posteriori LLR minus L_a, then clipped
#endif
        l = l > clip ? clip : l < -clip ? -clip : l;
      }
      llr[(size_t)v * NT * BPS + t] = l;
    }
  }
  if (lane == 0) status[2 * v + 1] = nodes;
}
