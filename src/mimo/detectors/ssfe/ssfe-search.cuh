// One SSFE path (the N-way paper's Alg. 2) for the thread that owns it: the CPU's ssfeSearch
// (search.ts) for one k, in float32. The tree of E = [R | z] (R upper triangular ND x ND,
// column-major; z = Q^T y) is searched from level ND - 1 down; the first two levels are fully
// expanded (path k takes level index k div QL on level ND - 1 and k mod QL on level ND - 2) and
// every later level keeps the best child only: gamma = b_i / R_ii rounded to the nearest PAM level
// and clipped (floor((gamma + QL - 1) / 2 + 1/2), as search.ts). A level index l stands for the odd
// integer p = 2 l - (QL - 1).
#ifndef MIMO_SSFE_SEARCH_CUH
#define MIMO_SSFE_SEARCH_CUH

// SSFE_R_REGS 1: R's upper triangle loaded into registers up front by 16-byte loads (more registers,
// fewer load instructions); 0 (default): each entry read where it is used.
#ifndef SSFE_R_REGS
#define SSFE_R_REGS 0
#endif

// R's upper triangle and 1 / R_ii into registers (16-byte loads where ND is a multiple of 4: the
// record keeps R and invDiag 16-byte aligned then).
template <int ND>
__device__ __forceinline__ void ssfe_load_r(const float* __restrict__ R, const float* __restrict__ invDiag, float (&Rr)[ND][ND], float (&iv)[ND]) {
  if (ND % 4 == 0) {
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
      iv[4 * r4] = q.x; iv[4 * r4 + 1] = q.y; iv[4 * r4 + 2] = q.z; iv[4 * r4 + 3] = q.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < ND; j++) {
#pragma unroll
      for (int i = 0; i <= j; i++) Rr[i][j] = __ldg(R + i + j * ND);
      iv[j] = __ldg(invDiag + j);
    }
  }
}

// Path k's metric |z - R p|^2, its level indices in lev[0 .. ND) (by column). R and invDiag are
// read through the read-only cache (a channel's record serves all its vectors' threads); z may be
// in shared memory. ND and QL are compile-time, so R, p and lev[] stay in registers.
template <int ND, int QL>
__device__ __forceinline__ float ssfe_path(const float* __restrict__ R, const float* __restrict__ invDiag, const float* z, int k, int (&lev)[ND]) {
  constexpr float half = (float)(QL - 1);
  if (ND == 1) {
    const float e = z[0] - __ldg(R) * (2.f * k - half);
    lev[0] = k;
    return e * e;
  }
#if SSFE_R_REGS
  float Rr[ND][ND], iv[ND];
  ssfe_load_r<ND>(R, invDiag, Rr, iv);
#define SSFE_R(i, j) Rr[i][j]
#define SSFE_IV(i) iv[i]
#else
#define SSFE_R(i, j) __ldg(R + (i) + (j) * ND)
#define SSFE_IV(i) __ldg(invDiag + (i))
#endif
  constexpr int top = ND - 1, second = ND - 2;
  const int i0 = k / QL, i1 = k - i0 * QL;
  const float pa = 2.f * i0 - half, pb = 2.f * i1 - half;
  float p[ND];
  p[top] = pa;
  p[second] = pb;
  lev[top] = i0;
  lev[second] = i1;
  float e = z[top] - SSFE_R(top, top) * pa;
  float d = e * e;
  e = (z[second] - SSFE_R(second, top) * pa) - SSFE_R(second, second) * pb;
  d += e * e;
#pragma unroll
  for (int i = second - 1; i >= 0; i--) {
    float b = (z[i] - SSFE_R(i, top) * pa) - SSFE_R(i, second) * pb;
#pragma unroll
    for (int j = i + 1; j < second; j++) b -= SSFE_R(i, j) * p[j];
    int li = (int)floorf((b * SSFE_IV(i) + half) * 0.5f + 0.5f);
    li = li < 0 ? 0 : li > QL - 1 ? QL - 1 : li;
    const float pi = 2.f * li - half;
    p[i] = pi;
    lev[i] = li;
    e = b - SSFE_R(i, i) * pi;
    d += e * e;
  }
  return d;
#undef SSFE_R
#undef SSFE_IV
}

#endif
