// Batched unsorted QR of MIMO channels with ONE THREAD PER (channel, pass) problem: the same records
// as qr-batch.cu's unsorted build (QR_SORTED = 0), bit for bit, without its per-step barriers,
// idle column threads and pivot branches. For every channel c of a chunk and every pass p <
// QR_PASSES, thread (c QR_PASSES + p) loads the real MRVD matrix with its streams rotated by p
// (mgs.cuh's mgs_load_mrvd) into registers (ROWS x ND floats: 64 for 4x4 QAM), runs MGS there with
// mgs_factor's operations in its order (so nvcc contracts them alike: pivot nn = sum v_r v_r,
// norm = sqrtf(nn), s = norm > 0 ? 1/norm : 0, q_r = v_r s; for each later column d = sum q_r v_r,
// v_r = v_r - d q_r), the flags as mgs_factor sets them, and with QR_Z = 1 forms z = Q^T y as
// qr-batch.cu does (d = 0, d += q_r y_r in row order).
//
// Output: qr-batch.cu's records (qr-record.cuh), one per problem at out + prob * QR_RECORD floats.
// Stores: each warp's 32 records are contiguous in global memory; they go out in pieces of at most
// QT_CH 16-byte words a record: every thread writes its piece to its warp's shared staging area
// (row stride QT_SLD, odd, so the 8 threads of a 16-byte shared access phase hit distinct banks),
// then the warp copies the 32 pieces with consecutive lanes on consecutive 16-byte words (runs of
// QT_CH x 16 bytes in global memory).
//
// -D parameters: QR_NR, QR_NT, QR_DPS (2: square QAM, 1: BPSK), QR_PASSES, QR_Z (0/1), QR_GROUPS
// (threads a block = problems a block, a multiple of 32), QR_CHUNK (optional, default 8: the most
// 16-byte words of a record staged at a time; the whole record when it is at least QR_RECORD / 4).
// Dynamic shared memory: QR_GROUPS x QT_SLD x 16 bytes (qrThreadSharedBytes in qr-batch.ts).
// nvcc-variant: -DQR_NR=4 -DQR_NT=4 -DQR_DPS=2 -DQR_PASSES=4 -DQR_Z=1 -DQR_GROUPS=128
// nvcc-variant: -DQR_NR=4 -DQR_NT=4 -DQR_DPS=2 -DQR_PASSES=4 -DQR_Z=0 -DQR_GROUPS=128
// nvcc-variant: -DQR_NR=4 -DQR_NT=4 -DQR_DPS=2 -DQR_PASSES=4 -DQR_Z=1 -DQR_GROUPS=64 -DQR_CHUNK=64
// nvcc-variant: -DQR_NR=2 -DQR_NT=2 -DQR_DPS=2 -DQR_PASSES=1 -DQR_Z=0 -DQR_GROUPS=128
// nvcc-variant: -DQR_NR=8 -DQR_NT=8 -DQR_DPS=2 -DQR_PASSES=2 -DQR_Z=1 -DQR_GROUPS=128
// nvcc-variant: -DQR_NR=4 -DQR_NT=2 -DQR_DPS=2 -DQR_PASSES=2 -DQR_Z=1 -DQR_GROUPS=64
// nvcc-variant: -DQR_NR=3 -DQR_NT=3 -DQR_DPS=1 -DQR_PASSES=3 -DQR_Z=0 -DQR_GROUPS=128

#include "mgs.cuh"
#include "qr-record.cuh"

#if !defined(QR_NR) || !defined(QR_Z) || !defined(QR_GROUPS)
#error "qr-thread.cu needs -DQR_NR, -DQR_NT, -DQR_DPS, -DQR_PASSES, -DQR_Z, -DQR_GROUPS"
#endif
#if QR_GROUPS % 32 != 0
#error "qr-thread.cu needs QR_GROUPS (threads a block) a multiple of 32"
#endif

// 16-byte words a record, and a staged piece of one record (QT_CH words) with its shared row stride
#define QT_REC4 (QR_RECORD / 4)
#ifndef QR_CHUNK
#define QR_CHUNK 8
#endif
#define QT_CH (QT_REC4 < QR_CHUNK ? QT_REC4 : QR_CHUNK)
#define QT_SLD (QT_CH | 1)

// problems = channels * QR_PASSES; scale = the PAM amplitude of p = 1 (unused for BPSK).
// y: QR_Z = 1: the chunk's received vectors, one per channel (channel c's element r at y[c ROWS + r],
// float32, normalized as H); QR_Z = 0: unused (may be null).
extern "C" __global__ void __launch_bounds__(QR_GROUPS) qr_thread(const float* __restrict__ H, const float* __restrict__ y, float* __restrict__ out, int problems, float scale) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int t = threadIdx.x, lane = t & 31;
  const int warpFirst = blockIdx.x * QR_GROUPS + (t - lane);
  if (warpFirst >= problems) return;  // the whole warp (uniform)
  // a thread past the end factors the last problem again and stores nothing, so that the warp stays whole
  const int prob = min(warpFirst + lane, problems - 1);
  const int c = prob / QR_PASSES, p = prob - c * QR_PASSES;

  float v[QR_ND][QR_ROWS];
  const float* Hc = H + (size_t)c * 2 * QR_NR * QR_NT;
#pragma unroll
  for (int k = 0; k < QR_ND; k++) mgs_load_mrvd<QR_NR, QR_NT, QR_DPS>(v[k], Hc, k, p, scale);
  // each column's norm before the QR (mgs_factor's orig)
  float orig[QR_ND];
#pragma unroll
  for (int k = 0; k < QR_ND; k++) {
    float nn = 0.f;
#pragma unroll
    for (int r = 0; r < QR_ROWS; r++) nn += v[k][r] * v[k][r];
    orig[k] = sqrtf(nn);
  }
  // E[i][k]: R's row i, column k (k >= i); v[i] becomes q_i at step i
  float E[QR_ND][QR_ND];
  int flags = 0;
#pragma unroll
  for (int i = 0; i < QR_ND; i++) {
    float nn = 0.f;
#pragma unroll
    for (int r = 0; r < QR_ROWS; r++) nn += v[i][r] * v[i][r];
    const float norm = sqrtf(nn);
    const float s = norm > 0.f ? 1.f / norm : 0.f;
    E[i][i] = norm;
#pragma unroll
    for (int r = 0; r < QR_ROWS; r++) v[i][r] = v[i][r] * s;
    if (!(norm > 0.f) || !(norm <= 3.0e38f)) flags |= MGS_RANK_DEFICIENT;
    else if (!(norm > MGS_UNSAFE_REL * orig[i])) flags |= MGS_FLOAT32_UNSAFE;
#pragma unroll
    for (int k = i + 1; k < QR_ND; k++) {
      float d = 0.f;
#pragma unroll
      for (int r = 0; r < QR_ROWS; r++) d += v[i][r] * v[k][r];
      E[i][k] = d;
#pragma unroll
      for (int r = 0; r < QR_ROWS; r++) v[k][r] = v[k][r] - d * v[i][r];
    }
  }

  // the record, element by element (every index a compile-time constant once unrolled: registers)
  float rec[QR_RECORD];
#if QR_Z
  {
    const float* yc = y + (size_t)c * QR_ROWS;
    float yr[QR_ROWS];
#pragma unroll
    for (int r = 0; r < QR_ROWS; r++) yr[r] = __ldg(yc + r);
#pragma unroll
    for (int k = 0; k < QR_ND; k++) {
      float d = 0.f;
#pragma unroll
      for (int r = 0; r < QR_ROWS; r++) d += v[k][r] * yr[r];
      rec[k] = d;
    }
  }
#else
#pragma unroll
  for (int k = 0; k < QR_ND; k++) {
#pragma unroll
    for (int r = 0; r < QR_ROWS; r++) rec[r + k * QR_ROWS] = v[k][r];
  }
#endif
#pragma unroll
  for (int k = 0; k < QR_ND; k++) qr_record_column(rec, k, [&](int i) { return E[i][k]; });
  qr_record_tail(rec, flags);

  // staged stores: the warp's 32 records, QT_CH 16-byte words of each at a time
  float4* stage = (float4*)smem + (t - lane) * QT_SLD;
  const int count = min(32, problems - warpFirst);
  float4* dst = (float4*)out + (size_t)warpFirst * QT_REC4;
#pragma unroll
  for (int c0 = 0; c0 < QT_REC4; c0 += QT_CH) {
    const int n = QT_REC4 - c0 < QT_CH ? QT_REC4 - c0 : QT_CH;
#pragma unroll
    for (int f = 0; f < QT_CH; f++) {
      if (c0 + f < QT_REC4) {
        float4 w;
        w.x = rec[4 * (c0 + f)]; w.y = rec[4 * (c0 + f) + 1]; w.z = rec[4 * (c0 + f) + 2]; w.w = rec[4 * (c0 + f) + 3];
        stage[lane * QT_SLD + f] = w;
      }
    }
    __syncwarp();
    for (int idx = lane; idx < count * n; idx += 32) {
      const int j = idx / n, f = idx - j * n;
      dst[j * QT_REC4 + c0 + f] = stage[j * QT_SLD + f];
    }
    __syncwarp();
  }
}
