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
#endif
