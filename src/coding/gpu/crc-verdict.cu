// The second half of the receiver's transport block checks: each transport block's CRC verdict
// from its code blocks' shares of the remainder (crc-blocks.cu), XORed by a warp.
//   partial  uint32, tbs x C: crc_blocks' shares
//   blockOk  uint8 out, tbs: for C = 1 (no block CRC) the transport block's verdict; written
//            only then, and not when null
//   tbOk     uint8 out, tbs: 1 where the transport block CRC passes
// Launch: grid ceil(tbs / VERDICT_WARPS), block 32 VERDICT_WARPS: a warp a transport block.
// nvcc-variant: -DVERDICT_WARPS=8

#ifndef VERDICT_WARPS
#define VERDICT_WARPS 8
#endif

extern "C" __global__ void __launch_bounds__(32 * VERDICT_WARPS)
    crc_verdict(const unsigned* __restrict__ partial, unsigned char* __restrict__ blockOk,
                unsigned char* __restrict__ tbOk, int tbs, int C) {
  const long long t = (long long)blockIdx.x * VERDICT_WARPS + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (t >= tbs) return;
  unsigned m = 0;
  for (int r = lane; r < C; r += 32) m ^= partial[t * C + r];
  for (int o = 16; o > 0; o >>= 1) m ^= __shfl_xor_sync(0xffffffffu, m, o);
  if (lane == 0) {
    tbOk[t] = m == 0u;
    if (C == 1 && blockOk) blockOk[t] = m == 0u;
  }
}
