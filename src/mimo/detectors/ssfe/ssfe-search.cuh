// The SSFE search (the N-way paper's Alg. 2) for a thread that owns QL paths of one pass: the
// CPU's ssfeSearch (search.ts) in float32. The tree of E = [R | z] (R upper triangular ND x ND,
// column-major; z = Q^T y) is searched from level ND - 1 down; the first two levels are fully
// expanded (path k takes level index k div QL on level ND - 1 and k mod QL on level ND - 2) and
// every later level keeps the best child only: gamma = b_i / R_ii rounded to the nearest PAM level
// and clipped (floor((gamma + QL - 1) / 2 + 1/2), as search.ts). A level index l stands for the odd
// integer p = 2 l - (QL - 1).
//
// A thread takes the QL paths that share the first level's index i0 (k = i0 QL + i1, i1 = 0 .. QL-1,
// unrolled): R, z and the first level's terms are loaded and formed once for all of them, and the
// QL paths are independent work for the scheduler.
//
// A-priori costs (IDD; search.ts's LevelPriors): a Prior type with on = true adds cost(col, l) (the
// max-log a-priori cost of level l in column col, N0 units as the metric) to every path's metric
// for its levels, and a lower level whose column is active(col) takes the child of least distance
// plus cost over all QL levels (the first of equals, as search.ts) where rounding would ignore the
// cost. An inactive column rounds and adds nothing, so zero costs with no active column give the
// prior-free search's numbers exactly. SsfeNoPrior (on = false) compiles to the plain search.
#ifndef MIMO_SSFE_SEARCH_CUH
#define MIMO_SSFE_SEARCH_CUH

// 1.5 * 2^23: for 0 <= x < 2^22, x + SSFE_MAGIC rounded down is SSFE_MAGIC + floor(x) exactly (the
// floor without a float-to-integer conversion, a quarter-rate instruction).
#define SSFE_MAGIC 12582912.f
#define SSFE_MAGIC_BITS 0x4b400000
// 1 / R_ii -> the rounding's scale 1 / (2 (QL - 1) R_ii) (QL > 1)
#define SSFE_IVH(iv) ((iv) * (0.5f / (float)(QL - 1)))

// The best child's level of a lower level: floor((b / R_ii + QL - 1) / 2 + 1/2) clipped to
// [0, QL - 1] (search.ts), as the float p = 2 li - (QL - 1) and the level index biased,
// lb = li + SSFE_MAGIC_BITS (the bits of the rounded float; callers fold the bias into their
// address and packing arithmetic). With ivh = 1 / (2 (QL - 1) R_ii) the argument over QL - 1 is one
// fma, saturated to [0, 1] (the clip, before the floor: the same integer), and x (QL - 1) +
// SSFE_MAGIC rounded down is SSFE_MAGIC + li (the product exact inside the fma): float32 rounding
// but for the one of the argument.
template <int QL>
__device__ __forceinline__ float ssfe_child(float b, float ivh, int& lb) {
  constexpr float half = (float)(QL - 1);
  const float xs = __saturatef(fmaf(b, ivh, 0.5f * (half + 1.f) / half));
  const float t = __fmaf_rd(xs, half, SSFE_MAGIC);
  lb = __float_as_int(t);
  return fmaf(2.f, t - SSFE_MAGIC, -half);
}

// R's upper triangle and 1 / (2 (QL - 1) R_ii) into registers (ND <= 8), by 16- or 8-byte loads (a record keeps
// R and invDiag 16-byte aligned): loaded once before the paths, which the shared-memory atomics
// between them would otherwise make the compiler reload.
template <int ND, int QL>
__device__ __forceinline__ void ssfe_load_r(const float* __restrict__ R, const float* __restrict__ invDiag, float (&Rr)[ND][ND], float (&iv)[ND]) {
  if constexpr (ND % 4 == 0) {
#pragma unroll
    for (int j = 0; j < ND; j++) {
#pragma unroll
      for (int r4 = 0; 4 * r4 <= j; r4++) {
        const float4 q = __ldg((const float4*)(R + j * ND + 4 * r4));
        Rr[4 * r4][j] = q.x; Rr[4 * r4 + 1][j] = q.y; Rr[4 * r4 + 2][j] = q.z; Rr[4 * r4 + 3][j] = q.w;
      }
    }
#pragma unroll
    for (int r4 = 0; r4 < ND / 4; r4++) {
      const float4 q = __ldg((const float4*)(invDiag + 4 * r4));
      iv[4 * r4] = SSFE_IVH(q.x); iv[4 * r4 + 1] = SSFE_IVH(q.y); iv[4 * r4 + 2] = SSFE_IVH(q.z); iv[4 * r4 + 3] = SSFE_IVH(q.w);
    }
  } else if constexpr (ND % 2 == 0) {
#pragma unroll
    for (int j = 0; j < ND; j++) {
#pragma unroll
      for (int r2 = 0; 2 * r2 <= j; r2++) {
        const float2 q = __ldg((const float2*)(R + j * ND + 2 * r2));
        Rr[2 * r2][j] = q.x; Rr[2 * r2 + 1][j] = q.y;
      }
    }
#pragma unroll
    for (int r2 = 0; r2 < ND / 2; r2++) {
      const float2 q = __ldg((const float2*)(invDiag + 2 * r2));
      iv[2 * r2] = SSFE_IVH(q.x); iv[2 * r2 + 1] = SSFE_IVH(q.y);
    }
  } else {
#pragma unroll
    for (int j = 0; j < ND; j++) {
#pragma unroll
      for (int i = 0; i <= j; i++) Rr[i][j] = __ldg(R + i + j * ND);
      iv[j] = SSFE_IVH(__ldg(invDiag + j));
    }
  }
}

// No a-priori costs: the plain SSFE search (the Prior argument of ssfe_paths).
struct SsfeNoPrior {
  static constexpr bool on = false;
  __device__ __forceinline__ bool active(int) const { return false; }
  __device__ __forceinline__ float cost(int, int) const { return 0.f; }
};

// The thread's paths k = i0 QL + i1 (ND >= 2), or k = i1 (ND == 1: one level, all QL paths), one at
// a time in i1 order: visit(i1, d, lev) with the path's metric d = |z - R p|^2 and its level
// indices by column, biased, lev[0 .. ND) (lev[col] = level + SSFE_MAGIC_BITS; lev[ND-1] = i0 + bias,
// lev[ND-2] = i1 + bias), d including the levels' a-priori costs when Prior::on (file comment). R and invDiag come through the
// read-only cache (a channel's record serves all its vectors' threads): into registers first when
// ND <= 8, read where used when larger (8x8's 136 entries would not fit).
template <int ND, int QL, class Prior, class Visit>
__device__ __forceinline__ void ssfe_paths(const float* __restrict__ R, const float* __restrict__ invDiag, const float (&z)[ND], int i0, const Prior& pr, Visit&& visit) {
  constexpr float half = (float)(QL - 1);
  constexpr bool inRegs = ND <= 8;
  float Rr[inRegs ? ND : 1][inRegs ? ND : 1]{}, iv[inRegs ? ND : 1]{};
  if constexpr (inRegs) ssfe_load_r<ND, QL>(R, invDiag, Rr, iv);
#define SSFE_R(i, j) (inRegs ? Rr[inRegs ? (i) : 0][inRegs ? (j) : 0] : __ldg(R + (i) + (j) * ND))
#define SSFE_IVH_OF(i) (inRegs ? iv[inRegs ? (i) : 0] : SSFE_IVH(__ldg(invDiag + (i))))
  if constexpr (ND == 1) {
    const float r00 = SSFE_R(0, 0);
#pragma unroll
    for (int i1 = 0; i1 < QL; i1++) {
      const float e = z[0] - r00 * (2.f * i1 - half);
      int lev[1] = {i1 + SSFE_MAGIC_BITS};
      float d = e * e;
      if constexpr (Prior::on) d += pr.cost(0, i1);
      visit(i1, d, lev);
    }
  } else {
    constexpr int top = ND - 1, second = ND - 2;
    const float pa = 2.f * i0 - half;
    float e = z[top] - SSFE_R(top, top) * pa;
    float d0 = e * e;
    if constexpr (Prior::on) d0 += pr.cost(top, i0);
    // z_i - R_{i,top} p(i0): the first level's term of every lower level, once for the QL paths
    float zt[ND - 1];
#pragma unroll
    for (int i = 0; i < top; i++) zt[i] = z[i] - SSFE_R(i, top) * pa;
#pragma unroll
    for (int i1 = 0; i1 < QL; i1++) {
      const float pb = 2.f * i1 - half;
      float p[ND];
      int lev[ND];
      lev[top] = i0 + SSFE_MAGIC_BITS;
      lev[second] = i1 + SSFE_MAGIC_BITS;
      e = zt[second] - SSFE_R(second, second) * pb;
      float d = d0;
      d += e * e;
      if constexpr (Prior::on) d += pr.cost(second, i1);
#pragma unroll
      for (int i = second - 1; i >= 0; i--) {
        float b = zt[i] - SSFE_R(i, second) * pb;
#pragma unroll
        for (int j = i + 1; j < second; j++) b -= SSFE_R(i, j) * p[j];
        bool searchAll = false;
        if constexpr (Prior::on) searchAll = pr.active(i);
        if (searchAll) {
          // the prior moves the best child off the nearest level: least distance plus cost over
          // every level, the first of equals (search.ts)
          float bestT = __uint_as_float(0x7f800000u);
          int li = 0;
#pragma unroll
          for (int l = 0; l < QL; l++) {
            const float el = b - SSFE_R(i, i) * (2.f * l - half);
            const float t = el * el + pr.cost(i, l);
            if (t < bestT) {
              bestT = t;
              li = l;
            }
          }
          p[i] = 2.f * li - half;
          lev[i] = li + SSFE_MAGIC_BITS;
          d += bestT;
        } else {
          p[i] = ssfe_child<QL>(b, SSFE_IVH_OF(i), lev[i]);
          e = b - SSFE_R(i, i) * p[i];
          d += e * e;
        }
      }
      visit(i1, d, lev);
    }
  }
#undef SSFE_R
#undef SSFE_IVH_OF
}

#endif
