// Layered LDPC decoding of a batch of frames: one thread per check row of a layer (Z threads a
// frame), FPB frames per block, the frame's posteriors L in shared memory, each thread's
// check-to-variable messages in registers: one float per nonzero block of the base matrix, or for
// min-sum on a large code (LDPC_CNS) compressed to two words a layer. Rows of a layer touch
// disjoint columns, so Z rows at once give the CPU's row-by-row layered schedule.
//
// Min-sum (ALGO 0 / 1) runs on integer values held in float32 (|values| < 2^24, checked by the
// host), so every sum, min and the alpha step floor(m alphaQ / 256) are exact: decisions,
// iteration counts and verdicts are the CPU decoder's (src/coding/decoder.ts) bit for bit.
// Sum-product (ALGO 2) is the CPU's check node (tanh products from prefix and suffix products) in float32.
//
// In:  llr    frames x NCOLS Z channel LLRs (ldpc_llr_t, codeword order; punctured bits 0)
// Out: bits   frames x K_INFO hard decisions (uint8 0/1) of the first K_INFO code bits
//      status frames int32: iterations run | ok << 16 (zero syndrome at the end) | non-finite input << 17
//      post   frames x NCOLS Z float32 posterior LLRs at the end (null: none; min-sum's in LLR units)
// Launch: grid ceil(frames / FPB), block (Z, FPB), dynamic shared FPB (NCOLS Z 4 + 12) bytes.
//
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=0 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=1 -DALPHA_Q=256 -DBETA_Q=8 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=1 -DEARLY_STOP=0
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=2 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=1 -DALPHA_Q=256 -DBETA_Q=8 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1 -DLDPC_CNS=1
// (the last two: the compressed messages forced on the toy code with 2 frames a block, and 5G NR BG1 with Z = 384)
// nvcc-variant: -DZ=384 -DNCOLS=68 -DNLAYERS=46 -DNEDGES=316 -DMAXDEG=19 -DQC_TABLE=0_307_1_19_2_50_3_369_5_181_6_216_9_317_10_288_11_109_12_17_13_357_15_215_16_106_18_242_19_180_20_330_21_346_22_1_23_0_0_76_2_76_3_73_4_288_5_144_7_331_8_331_9_178_11_295_12_342_14_217_15_99_16_354_17_114_19_331_21_112_22_0_23_0_24_0_0_205_1_250_2_328_4_332_5_256_6_161_7_267_8_160_9_63_10_129_13_200_14_88_15_53_17_131_18_240_19_205_20_13_24_0_25_0_0_276_1_87_3_0_4_275_6_199_7_153_8_56_10_132_11_305_12_231_13_341_14_212_16_304_17_300_18_271_20_39_21_357_22_1_25_0_0_332_1_181_26_0_0_195_1_14_3_115_12_166_16_241_21_51_22_157_27_0_0_278_6_257_10_1_11_351_13_92_17_253_18_18_20_225_28_0_0_9_1_62_4_316_7_333_8_290_14_114_29_0_0_307_1_179_3_165_12_18_16_39_19_224_21_368_22_67_24_170_30_0_0_366_1_232_10_321_11_133_13_57_17_303_18_63_20_82_31_0_1_101_2_339_4_274_7_111_8_383_14_354_32_0_0_48_1_102_12_8_16_47_21_188_22_334_23_115_33_0_0_77_1_186_10_174_11_232_13_50_18_74_34_0_0_313_3_177_7_266_20_115_23_370_35_0_0_142_12_248_15_137_16_89_17_347_21_12_36_0_0_241_1_2_10_210_13_318_18_55_25_269_37_0_1_13_3_338_11_57_20_289_22_57_38_0_0_260_14_303_16_81_17_358_21_375_39_0_1_130_12_163_13_280_18_132_19_4_40_0_0_145_1_213_7_344_8_242_10_197_41_0_0_187_3_206_9_264_11_341_22_59_42_0_1_205_5_102_16_328_20_213_21_97_43_0_0_30_12_11_13_233_17_22_44_0_1_24_2_89_10_61_18_27_45_0_0_298_3_158_4_235_11_339_22_234_46_0_1_72_6_17_7_383_14_312_47_0_0_71_2_81_4_76_15_136_48_0_1_194_6_194_8_101_49_0_0_222_4_19_19_244_21_274_50_0_1_252_14_5_18_147_25_78_51_0_0_159_10_229_13_260_24_90_52_0_1_100_7_215_22_258_25_256_53_0_0_102_12_201_14_175_24_287_54_0_1_323_2_8_11_361_21_105_55_0_0_230_7_148_15_202_17_312_56_0_1_320_6_335_12_2_22_266_57_0_0_210_14_313_15_297_18_21_58_0_1_269_13_82_23_115_59_0_0_185_9_177_10_289_12_214_60_0_1_258_3_93_7_346_19_297_61_0_0_175_8_37_17_312_62_0_1_52_3_314_9_139_18_288_63_0_0_113_4_14_24_218_64_0_1_113_16_132_18_114_25_168_65_0_0_80_7_78_9_163_22_274_66_0_1_135_6_149_10_15_67_0 -DQC_START=0_19_38_57_76_79_87_96_103_113_122_129_137_144_150_157_164_170_176_182_188_194_200_205_210_216_221_226_230_235_240_245_250_255_260_265_270_275_279_284_289_293_298_302_307_312_316 -DK_INFO=8448 -DFPB=1 -DALGO=0 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=1 -DEARLY_STOP=1
#include "ldpc.cuh"

// LDPC_CNS (compile-time switch; default: min-sum on a code with more than 128 blocks, whose
// messages would not fit registers in full): the messages of a row kept compressed instead of one
// float per block (see LdpcCompressed).
#ifndef LDPC_CNS
#define LDPC_CNS (ALGO <= 1 && NEDGES > 128 && MAXDEG <= 27)
#endif
#if LDPC_CNS && (ALGO > 1 || MAXDEG > 27)
#error "compressed check-node messages (LDPC_CNS) are for min-sum (ALGO 0 / 1) with at most 27 blocks a layer"
#endif

#if ALGO == 2
// Layer r's check rows by sum-product, written into the posteriors in place.
template <int r>
__device__ __forceinline__ void ldpc_layer(float* L, float* R, unsigned t4) { ldpc_spa_layer<r, false>(L, L, R, t4); }
#elif !LDPC_CNS
// Layer r's check rows by min-sum, the CPU's minSumPass: min1, min2 of |v| (min1 starts at SAT_Q),
// magnitude floor(max(0, min - BETA_Q) ALPHA_Q / 256), the edge whose |v| equals min1 gets min2's.
template <int r>
__device__ __forceinline__ void ldpc_layer(float* L, float* R, unsigned t4) {
  constexpr int a = qc_start(r), d = qc_start(r + 1) - qc_start(r);
  float v[d];
  unsigned at[d];
  float min1 = (float)SAT_Q, min2 = (float)SAT_Q;
  unsigned sgn = 0;
#pragma unroll
  for (int j = 0; j < d; j++) {
    at[j] = ldpc_off(a + j, t4);
    v[j] = LDPC_AT(L, at[j]) - R[a + j];
    const float m = fabsf(v[j]);
    min2 = fminf(min2, fmaxf(min1, m));
    min1 = fminf(min1, m);
    sgn ^= __float_as_uint(v[j]);
  }
  sgn &= 0x80000000u;
  const float m1 = floorf(fmaxf(min1 - (float)BETA_Q, 0.f) * (float)ALPHA_Q * 0.00390625f);
  const float m2 = floorf(fmaxf(min2 - (float)BETA_Q, 0.f) * (float)ALPHA_Q * 0.00390625f);
  const unsigned m1s = __float_as_uint(m1) ^ sgn, m2s = __float_as_uint(m2) ^ sgn;
#pragma unroll
  for (int j = 0; j < d; j++) {
    const unsigned mag = fabsf(v[j]) == min1 ? m2s : m1s;
    const float rn = __uint_as_float(mag ^ (__float_as_uint(v[j]) & 0x80000000u));
    R[a + j] = rn;
    LDPC_AT(L, at[j]) = v[j] + rn;
  }
}
#else
// The thread's messages compressed: a row's min-sum messages are all one magnitude m1 but on one
// edge (idx, the edge whose |v| was min1), which has m2, each with its own sign. Two words a layer:
//   W[2 r]     = m1 | m2 << 16   (after the alpha / beta step: 0 .. SAT_Q, and SAT_Q < 2^16, checked by the host)
//   W[2 r + 1] = the signs (edge j's at bit d - 1 - j, 1: negative) | idx << 27   (d <= 27)
// (value-initialised: every message 0). 2 NLAYERS registers instead of NEDGES (BG1: 92, not 316).
struct LdpcCompressed {
  unsigned W[2 * NLAYERS];
};

// min1 <= min2, the two smallest of |v[lo]| .. |v[lo + n - 1]| (n >= 2; n = 1: min2 is not set), by a
// tournament: as many min / max as the CPU's sequential update, a short dependency chain.
template <int lo, int n, int d>
__device__ __forceinline__ void ldpc_min12(const float (&v)[d], float& min1, float& min2) {
  if constexpr (n == 1) {
    min1 = fabsf(v[lo]);
  } else if constexpr (n == 2) {
    min1 = fminf(fabsf(v[lo]), fabsf(v[lo + 1]));
    min2 = fmaxf(fabsf(v[lo]), fabsf(v[lo + 1]));
  } else {
    constexpr int h = n / 2;
    float a1, a2, b1, b2;
    ldpc_min12<lo, h, d>(v, a1, a2);
    ldpc_min12<lo + h, n - h, d>(v, b1, b2);
    min1 = fminf(a1, b1);
    const float hi = fmaxf(a1, b1);
    if constexpr (h == 1) min2 = fminf(hi, b2);
    else min2 = fminf(hi, fminf(a2, b2));
  }
}

// The alpha / beta step of a minimum in fixed point, floor(max(0, m - BETA_Q) ALPHA_Q / 256), as the
// float 2^23 + that integer (bits 0x4b000000 | integer): exact, the sum rounded toward zero.
__device__ __forceinline__ float ldpc_scaled(float m) {
  if (BETA_Q != 0) m = fmaxf(m - (float)BETA_Q, 0.f);
  return __fmaf_rz(m, (float)ALPHA_Q * 0.00390625f, 8388608.f);
}

// Layer r's check rows by min-sum (as the full form above: the CPU's minSumPass), the last
// iteration's messages rebuilt from W and this iteration's written back to it. A message m1 + h (m2 -
// m1), h = 1 on the edge whose |v| is min1 (every such edge when tied: then m1 = m2) and 0 on the
// others, is exact in float32 (integers below 2^24), as every other step.
template <int r>
__device__ __forceinline__ void ldpc_layer(float* L, unsigned* W, unsigned t4) {
  constexpr int a = qc_start(r), d = qc_start(r + 1) - qc_start(r);
  constexpr float TWO23 = 8388608.f;
  LDPC_OPAQUE_U(t4);  // the layer's addresses computed here, not kept in registers from one iteration to the next
  const unsigned A = W[2 * r], B = W[2 * r + 1];
  float m1o = __uint_as_float((A & 0xffffu) | 0x4b000000u) - TWO23;
  float m2o = __uint_as_float(__byte_perm(A, 0x4b000000u, 0x7632)) - TWO23;
  LDPC_OPAQUE(m1o);  // one subtraction a layer, not one an edge after the select below
  LDPC_OPAQUE(m2o);
  const unsigned idx = B >> 27;
  float v[d];
  unsigned at[d], sv = 0;
#pragma unroll
  for (int j = 0; j < d; j++) {
    at[j] = ldpc_off(a + j, t4);
    const float mag = idx == (unsigned)j ? m2o : m1o;
    const float ro = __uint_as_float(__float_as_uint(mag) | ((B << (32 - d + j)) & 0x80000000u));
    v[j] = LDPC_AT(L, at[j]) - ro;
    sv = sv << 1 | __float_as_uint(v[j]) >> 31;  // the sign of v[j] at bit d - 1 - j
  }
  float min1, min2 = (float)SAT_Q;
  ldpc_min12<0, d, d>(v, min1, min2);
  min1 = fminf(min1, (float)SAT_Q);
  min2 = fminf(min2, (float)SAT_Q);
  const float b1 = ldpc_scaled(min1), b2 = ldpc_scaled(min2);
  const unsigned odd = __popc(sv) & 1u;  // the product of the signs: every message's sign but v[j]'s
  const unsigned sgn = odd << 31;
  const float m1 = __uint_as_float(__float_as_uint(b1 - TWO23) ^ sgn), dm = __uint_as_float(__float_as_uint(b2 - b1) ^ sgn);
  const float c1 = min1 + 1.f;
  float ix = 0.f;
#pragma unroll
  for (int j = 0; j < d; j++) {
    const float h = __saturatef(c1 - fabsf(v[j]));
    if (j > 0) ix = fmaf(h, (float)j, ix);
    const float rn = __uint_as_float(__float_as_uint(fmaf(h, dm, m1)) ^ (__float_as_uint(v[j]) & 0x80000000u));
    LDPC_AT(L, at[j]) = v[j] + rn;
  }
  W[2 * r] = __byte_perm(__float_as_uint(b1), __float_as_uint(b2), 0x5410);
  W[2 * r + 1] = __float_as_uint(ix + TWO23) << 27 | (sv ^ (odd ? (1u << d) - 1u : 0u));
}
#endif

// One layer of the layered schedule, as ldpc_each_layer calls it (a functor: NVRTC's JIT mode takes a
// generic lambda's call operator for a host function).
template <class T>
struct LayeredLayer {
  float* L;
  T* R;
  unsigned t4;
  template <class Layer>
  __device__ __forceinline__ void operator()(Layer) const { ldpc_layer<Layer::index>(L, R, t4); }
};

// The frame's posteriors L, updated in place layer after layer.
struct LayeredSchedule {
  static constexpr int BUFFERS = 1;
  static constexpr bool KEEP_CHANNEL = false;
#if LDPC_CNS
  typedef LdpcCompressed Messages;
#else
  typedef LdpcMessages Messages;
#endif
  float* L;
  __device__ explicit LayeredSchedule(float* base) : L(base) {}
  __device__ float* posteriors() const { return L; }
  __device__ float* channel() const { return nullptr; }
  __device__ __forceinline__ void iterate(Messages& m, int t, bool active) {
    unsigned t4 = 4u * t;
#if LDPC_CNS
    ldpc_each_layer(active, LayeredLayer<unsigned>{L, m.W, t4});
#else
    ldpc_each_layer(active, LayeredLayer<float>{L, m.R, t4});
#endif
  }
};

extern "C" __global__ void __launch_bounds__(Z * FPB)
ldpc_layered(const ldpc_llr_t* __restrict__ llr, unsigned char* __restrict__ bits, int* __restrict__ status, int frames, int maxIter,
             float* __restrict__ post) {
  extern __shared__ unsigned char smem[];
  ldpc_decode<LayeredSchedule>(smem, llr, bits, status, frames, maxIter, post);
}
