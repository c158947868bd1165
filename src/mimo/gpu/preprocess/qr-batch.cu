// Batched QR of MIMO channels (the N-way paper's QR kernel, Alg. 1; Table I times it): for every
// channel of a chunk and every pass p < QR_PASSES, the MGS QR (mgs.cuh) of the real MRVD channel with
// its streams rotated by p (pass 0 is the channel as given), or its sorted QR (SQRD) with QR_SORTED.
// 2 nt threads a QR (one per real column), QR_GROUPS QRs a block.
//
// Output: one record per (channel c, pass p) at out + (c QR_PASSES + p) * QR_RECORD floats, laid
// out as qr-record.cuh's QR_REC_*(QROWS, ND) (ROWS = 2 nr; ND = 2 nt, or nt for BPSK):
//   Q or z   QR_Z = 0: Q, ROWS x ND column-major (QROWS = ROWS);
//            QR_Z = 1: z = Q^T y, ND floats (QROWS = 1), for chunks of one received vector per
//            channel (vector c is channel c's), so that the record need not hold Q;
//   R        ND x ND, column-major, upper triangular (zeros below);
//   invDiag  ND: 1 / R_ii;
//   perm     ND int32: the rotated column at position j (j itself unless QR_SORTED);
//   flags    1 int32: MIMO_STATUS bits (RANK_DEFICIENT, FLOAT32_UNSAFE) of this QR;
//   padding to a multiple of 4 floats (16 bytes). qrRecordLayout in qr-batch.ts gives the offsets.
// z_k = sum over r of Q[r, k] y[r] is summed as nway-detect.cu sums it from Q (d = 0, d += q_r y_r for
// r = 0 .. ROWS-1 in order, contracted alike), so detection from z is bit for bit detection from Q.
//
// With `status` not null the kernel is also the engine's normalize stage (normalize.cuh): first the
// block's channels are normalized (whole channels a block: QR_GROUPS is a multiple of QR_PASSES; one
// full warp a channel), then factored, so that a chunk needs no kernel of its own for it. H and y
// are then written before they are read in one kernel, so they are read by plain loads (no
// read-only cache path). The normalize arguments are normalize.cuh's; all null when not asked.
//
// -D parameters: QR_NR, QR_NT, QR_DPS (2: square QAM, 1: BPSK), QR_PASSES, QR_SORTED (0/1), QR_Z
// (0/1), QR_GROUPS (QRs per block; the block has QR_GROUPS * ND threads). Dynamic shared memory:
// (QR_GROUPS * MgsLayout::GROUP_FLOATS rounded up to 4, + QR_GROUPS * max(ROWS * ND + 1, QR_RECORD)) * 4
// bytes (qrBatchSharedBytes in qr-batch.ts): the MGS regions, then the sorted build's Q and flags or
// the unsorted build's record staging.
// nvcc-variant: -DQR_NR=4 -DQR_NT=4 -DQR_DPS=2 -DQR_PASSES=4 -DQR_SORTED=0 -DQR_Z=0 -DQR_GROUPS=16
// nvcc-variant: -DQR_NR=4 -DQR_NT=4 -DQR_DPS=2 -DQR_PASSES=4 -DQR_SORTED=0 -DQR_Z=1 -DQR_GROUPS=16
// nvcc-variant: -DQR_NR=2 -DQR_NT=2 -DQR_DPS=2 -DQR_PASSES=1 -DQR_SORTED=0 -DQR_Z=0 -DQR_GROUPS=32
// nvcc-variant: -DQR_NR=8 -DQR_NT=8 -DQR_DPS=2 -DQR_PASSES=2 -DQR_SORTED=1 -DQR_Z=0 -DQR_GROUPS=8
// nvcc-variant: -DQR_NR=4 -DQR_NT=2 -DQR_DPS=2 -DQR_PASSES=2 -DQR_SORTED=1 -DQR_Z=1 -DQR_GROUPS=32
// nvcc-variant: -DQR_NR=4 -DQR_NT=4 -DQR_DPS=1 -DQR_PASSES=3 -DQR_SORTED=0 -DQR_Z=0 -DQR_GROUPS=30
// nvcc-variant: -DQR_NR=3 -DQR_NT=3 -DQR_DPS=1 -DQR_PASSES=3 -DQR_SORTED=0 -DQR_Z=1 -DQR_GROUPS=42

#include "mgs.cuh"
#include "qr-record.cuh"
#include "../normalize.cuh"

#if !defined(QR_NR) || !defined(QR_Z)
#error "qr-batch.cu needs -DQR_NR, -DQR_NT, -DQR_DPS, -DQR_PASSES, -DQR_SORTED, -DQR_Z, -DQR_GROUPS"
#endif

typedef MgsLayout<QR_ROWS, QR_ND, QR_ND> QrLayout;
// the unsorted build's record staging area (QR_GROUPS records), after the groups' MGS regions, 16-byte aligned
#define QR_STAGE ((QR_GROUPS * QrLayout::GROUP_FLOATS + 3) / 4 * 4)

// z_k = q . y, q a column of Q (ROWS floats), y channel c's received vector; the order of nway-detect.cu's Q^T y.
__device__ __forceinline__ float qr_z_entry(const float* q, const float* yc) {
  float d = 0.f;
#pragma unroll
  for (int r = 0; r < QR_ROWS; r++) d += q[r] * yc[r];
  return d;
}

// problems = channels * QR_PASSES; scale = the PAM amplitude of p = 1 (unused for BPSK).
// y: QR_Z = 1: the chunk's received vectors, one per channel (channel c's element r at y[c ROWS + r],
// float32, normalized as H); QR_Z = 0: unused (may be null) unless the kernel normalizes.
extern "C" __global__ void __launch_bounds__(QR_GROUPS * QR_ND) qr_batch(float* H, float* y, float* __restrict__ out, int problems, float scale,
    const float* __restrict__ noiseIn, float noiseScalar, float* __restrict__ noiseOut, int* __restrict__ status, int* __restrict__ summary,
    int vpc, long long valid) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* base = (float*)smem;
  const int t = threadIdx.x;
  const int g = t / QR_ND, k = t - g * QR_ND;
  if (status != nullptr) {
#if QR_GROUPS % QR_PASSES == 0
    const int per = QR_GROUPS / QR_PASSES, c0 = blockIdx.x * per;
    mimo_normalize_block(c0, min(per, problems / QR_PASSES - c0), H, y, noiseIn, noiseScalar, noiseOut, status, summary, vpc, 2 * QR_NR * QR_NT, QR_ROWS, valid);
#else
    __trap();  // a channel's QRs would span two blocks: the host never asks (QrBatchPlan)
#endif
    __syncthreads();
  }
  const int prob = blockIdx.x * QR_GROUPS + g;
  const bool active = g < QR_GROUPS && prob < problems;
  QrLayout L(base, QR_GROUPS, g < QR_GROUPS ? g : 0);
  if (active) {
    const int c = prob / QR_PASSES, p = prob - c * QR_PASSES;
    mgs_load_mrvd<QR_NR, QR_NT, QR_DPS>(L.V + k * QrLayout::LD, H + (size_t)c * 2 * QR_NR * QR_NT, k, p, scale);
  }
#if !QR_SORTED
  // Unsorted: position j is column j, so thread k stages its own parts of the record (q_k, which
  // mgs_factor left in its V column, R's column k, 1 / R_kk, perm[k]) in shared memory, and the block
  // stores its records (contiguous) by coalesced 16-byte copies.
  const int flags = mgs_factor<QR_ROWS, QR_ND, QR_ND, false>(L, nullptr, 0, k, active);
  float* stage = base + QR_STAGE;
  if (active) {
    float* rec = stage + g * QR_RECORD;
    const float* q = L.V + k * QrLayout::LD;
#if QR_Z
    rec[k] = qr_z_entry(q, y + (size_t)(prob / QR_PASSES) * QR_ROWS);
#else
#pragma unroll
    for (int r = 0; r < QR_ROWS; r++) rec[r + k * QR_ROWS] = q[r];
#endif
    qr_record_column(rec, k, [&](int i) { return L.E[i + k * QR_ND]; });
    if (k == 0) qr_record_tail(rec, flags);
  }
  __syncthreads();
  const int first = blockIdx.x * QR_GROUPS;
  const int count = min(QR_GROUPS, problems - first);
  float4* dst = (float4*)(out + (size_t)first * QR_RECORD);
  const float4* src = (const float4*)stage;
  for (int idx = t; idx < count * (QR_RECORD / 4); idx += blockDim.x) dst[idx] = src[idx];
#else
  float* Qs = base + QR_GROUPS * QrLayout::GROUP_FLOATS;  // QR_GROUPS x ROWS x ND
  float* myQ = Qs + (g < QR_GROUPS ? g : 0) * QR_ROWS * QR_ND;
  int* flagsS = (int*)(Qs + QR_GROUPS * QR_ROWS * QR_ND);  // QR_GROUPS
  const int flags = mgs_factor<QR_ROWS, QR_ND, QR_ND, true>(L, myQ, QR_ROWS, k, active);
  if (active && k == 0) flagsS[g] = flags;
  __syncthreads();
  // Records of this block's problems are contiguous: store them together, coalesced.
  const int first = blockIdx.x * QR_GROUPS;
  const int count = min(QR_GROUPS, problems - first);
  float* dst = out + (size_t)first * QR_RECORD;
  for (int idx = t; idx < count * QR_RECORD; idx += blockDim.x) {
    const int gg = idx / QR_RECORD, e = idx - gg * QR_RECORD;
    const QrLayout M(base, QR_GROUPS, gg);
    float v = 0.f;
    if (e < QR_REC_R(QR_QROWS, QR_ND)) {
#if QR_Z
      v = qr_z_entry(Qs + gg * QR_ROWS * QR_ND + e * QR_ROWS, y + (size_t)((first + gg) / QR_PASSES) * QR_ROWS);
#else
      v = Qs[gg * QR_ROWS * QR_ND + e];
#endif
    } else if (e < QR_REC_INVDIAG(QR_QROWS, QR_ND)) {
      const int f = e - QR_REC_R(QR_QROWS, QR_ND), j = f / QR_ND, i = f - j * QR_ND;
      v = i <= j ? M.E[i + mgs_phys<QR_ND, true>(M.colOf, j) * QR_ND] : 0.f;
    } else if (e < QR_REC_PERM(QR_QROWS, QR_ND)) {
      const int i = e - QR_REC_INVDIAG(QR_QROWS, QR_ND);
      const float d = M.E[i + mgs_phys<QR_ND, true>(M.colOf, i) * QR_ND];
      v = d > 0.f ? 1.f / d : 0.f;
    } else if (e < QR_REC_FLAGS(QR_QROWS, QR_ND)) {
      const int j = e - QR_REC_PERM(QR_QROWS, QR_ND);
      v = __int_as_float(mgs_phys<QR_ND, true>(M.colOf, j));
    } else if (e == QR_REC_FLAGS(QR_QROWS, QR_ND)) {
      v = __int_as_float(flagsS[gg]);
    }
    dst[idx] = v;
  }
#endif
}
