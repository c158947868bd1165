// The record qr-batch.cu writes per (channel, pass) and the detectors that read it (nway-detect.cu):
// offsets in floats from the record's start (qrRecordLayout in qr-batch.ts gives the same numbers).
//   Q or z   rows x ND, column-major: Q (rows = ROWS = 2 nr), or z = Q^T y of the channel's one
//            received vector (rows = 1: qr-batch.cu's QR_Z);
//   R        ND x ND, column-major, upper triangular;
//   invDiag  ND;  perm  ND int32;  flags  1 int32 (MIMO_STATUS bits);  padding to 4 floats.
#ifndef MIMO_QR_RECORD_CUH
#define MIMO_QR_RECORD_CUH
#define QR_REC_R(rows, nd) ((rows) * (nd))
#define QR_REC_INVDIAG(rows, nd) ((rows) * (nd) + (nd) * (nd))
#define QR_REC_PERM(rows, nd) ((rows) * (nd) + (nd) * (nd) + (nd))
#define QR_REC_FLAGS(rows, nd) ((rows) * (nd) + (nd) * (nd) + 2 * (nd))
#define QR_REC_FLOATS(rows, nd) ((QR_REC_FLAGS(rows, nd) + 1 + 3) / 4 * 4)

// The writers' record (qr-batch.cu, qr-thread.cu) from their -D parameters QR_NR, QR_NT, QR_DPS, QR_Z.
#ifdef QR_NR
#define QR_ROWS (2 * QR_NR)
#define QR_ND (QR_DPS * QR_NT)
// rows of the record's first part: Q's, or z's one
#define QR_QROWS (QR_Z ? 1 : QR_ROWS)
#define QR_RECORD QR_REC_FLOATS(QR_QROWS, QR_ND)

// An unsorted QR's column k of the record (position k is column k): R's column k (rik(i) = R_ik for
// i <= k, zeros below the diagonal), 1 / R_kk (0 when R_kk is not positive) and perm[k] = k.
template <class Rik>
__device__ __forceinline__ void qr_record_column(float* rec, int k, Rik rik) {
#pragma unroll
  for (int i = 0; i < QR_ND; i++) rec[QR_REC_R(QR_QROWS, QR_ND) + i + k * QR_ND] = i <= k ? rik(i) : 0.f;
  const float d = rik(k);
  rec[QR_REC_INVDIAG(QR_QROWS, QR_ND) + k] = d > 0.f ? 1.f / d : 0.f;
  rec[QR_REC_PERM(QR_QROWS, QR_ND) + k] = __int_as_float(k);
}

// The record's flags word and its padding (zeros).
__device__ __forceinline__ void qr_record_tail(float* rec, int flags) {
  rec[QR_REC_FLAGS(QR_QROWS, QR_ND)] = __int_as_float(flags);
  for (int e = QR_REC_FLAGS(QR_QROWS, QR_ND) + 1; e < QR_RECORD; e++) rec[e] = 0.f;
}
#endif
#endif
