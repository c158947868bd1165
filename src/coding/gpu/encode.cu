// Systematic encoding of QC LDPC codes with the dual-diagonal parity part (src/coding/encoder.ts
// QcEncoder, step for step): Z threads a frame, thread i computing bit i of every block; the
// frame's codeword and its row sums lambda in shared memory.
//   lambda_r      = sum over the information blocks (c, s) of row r of P^s u_c ((P^s x)[i] = x[(i + s) mod Z])
//   special block = P^-s (sum of lambda over the core rows)
//   each step     = P^-s (lambda_row + the row's known parity blocks), in the schedule's order
// A step writes only its own block and reads only blocks already fixed, so one barrier a step.
//
// Defines (src/coding/gpu/cuda-encoder.ts sets them from the code):
//   Z, NCOLS, NLAYERS, NEDGES, QC_TABLE, QC_START   the parity check (qc-code.cuh), as the decoders read it
//   KB        information block columns; K_INFO information bits given a frame (the rest of KB Z
//             are zero fillers, as NR pads K to Kldpc)
//   ENC_NCORE, ENC_CORE     the core rows ('_'-separated)
//   ENC_SPECIAL             row_col_shift of the special parity block
//   ENC_NSTEPS, ENC_STEPS   row_col_shift of each later step, in order
//   FPB       frames a block (blockDim = Z x FPB)
// In:  info  frames x K_INFO bytes (0/1)
// Out: cw    frames x NCOLS Z bytes (0/1), the full codeword (information bits first)
// Launch: grid ceil(frames / FPB), block (Z, FPB), dynamic shared FPB (NCOLS + NLAYERS) Z bytes.
//
// nvcc-variant: -DZ=96 -DNCOLS=24 -DNLAYERS=12 -DNEDGES=76 -DQC_TABLE=1_94_2_73_8_55_9_83_12_7_13_0_1_27_5_22_6_79_7_9_11_12_13_0_14_0_3_24_4_22_5_81_7_33_11_0_14_0_15_0_0_61_2_47_8_65_9_25_15_0_16_0_2_39_6_84_9_41_10_72_16_0_17_0_4_46_5_40_7_82_11_79_12_0_17_0_18_0_2_95_3_53_9_14_10_18_18_0_19_0_1_11_2_73_6_2_9_47_19_0_20_0_0_12_4_83_5_24_7_43_11_51_20_0_21_0_5_94_7_59_10_70_11_72_21_0_22_0_2_7_3_65_8_39_9_49_22_0_23_0_0_43_5_66_7_41_11_26_12_7_23_0 -DQC_START=0_6_13_20_26_32_39_45_51_58_64_70_76 -DKB=12 -DK_INFO=1152 -DENC_NCORE=12 -DENC_CORE=0_1_2_3_4_5_6_7_8_9_10_11 -DENC_SPECIAL=5_12_0 -DENC_NSTEPS=11 -DENC_STEPS=0_13_0_1_14_0_2_15_0_3_16_0_4_17_0_5_18_0_6_19_0_7_20_0_8_21_0_9_22_0_10_23_0 -DFPB=2

#include "qc-code.cuh"

struct EncTables {
  QcTables qc;
  int core[ENC_NCORE];
  int special[3];
  int steps[3 * ENC_NSTEPS + 1];
};

__host__ __device__ constexpr EncTables enc_tables() {
  EncTables t{};
  t.qc = qc_tables();
  qc_parse(QC_STR(ENC_CORE), t.core, ENC_NCORE);
  qc_parse(QC_STR(ENC_SPECIAL), t.special, 3);
  qc_parse(QC_STR(ENC_STEPS), t.steps, 3 * ENC_NSTEPS);
  return t;
}

static __constant__ const EncTables kEnc = enc_tables();

// (i + s) mod Z for i, s in [0, Z).
__device__ __forceinline__ int enc_rot(int i, int s) {
  const int t = i + s;
  return t >= Z ? t - Z : t;
}

extern "C" __global__ void __launch_bounds__(Z * FPB) ldpc_encode(const unsigned char* __restrict__ info, unsigned char* __restrict__ cw, int frames) {
  extern __shared__ unsigned char smem[];
  const int i = threadIdx.x;
  const long long f = (long long)blockIdx.x * FPB + threadIdx.y;
  const bool live = f < frames;
  unsigned char* c = smem + threadIdx.y * (NCOLS + NLAYERS) * Z;
  unsigned char* lam = c + NCOLS * Z;
  for (int j = i; j < NCOLS * Z; j += Z) c[j] = live && j < K_INFO ? info[f * K_INFO + j] : 0;
  __syncthreads();
  // lambda: thread i's bit of every row (it alone reads it back)
  for (int r = 0; r < NLAYERS; r++) {
    unsigned a = 0;
    for (int e = kEnc.qc.start[r]; e < kEnc.qc.start[r + 1]; e++) {
      const int col = kEnc.qc.pairs[2 * e];
      if (col < KB) a ^= c[col * Z + enc_rot(i, kEnc.qc.pairs[2 * e + 1])];
    }
    lam[r * Z + i] = (unsigned char)a;
  }
  unsigned acc = 0;
  for (int t = 0; t < ENC_NCORE; t++) acc ^= lam[kEnc.core[t] * Z + i];
  c[kEnc.special[1] * Z + enc_rot(i, kEnc.special[2])] = (unsigned char)acc;
  __syncthreads();
  for (int st = 0; st < ENC_NSTEPS; st++) {
    const int row = kEnc.steps[3 * st], target = kEnc.steps[3 * st + 1];
    acc = lam[row * Z + i];
    for (int e = kEnc.qc.start[row]; e < kEnc.qc.start[row + 1]; e++) {
      const int col = kEnc.qc.pairs[2 * e];
      if (col >= KB && col != target) acc ^= c[col * Z + enc_rot(i, kEnc.qc.pairs[2 * e + 1])];
    }
    c[target * Z + enc_rot(i, kEnc.steps[3 * st + 2])] = (unsigned char)acc;
    __syncthreads();
  }
  if (live) {
    for (int j = i; j < NCOLS * Z; j += Z) cw[f * (NCOLS * Z) + j] = c[j];
  }
}
