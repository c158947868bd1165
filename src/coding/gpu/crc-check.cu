// The receiver's transport block checks (src/coding/transport-block.ts checkTransportBlock) on the
// layered decoder's decisions: each code block's CRC24B (when C > 1) and each transport block's
// CRC (CRC24A or CRC16) over the B bits its code blocks carry.
//   bits     uint8, tbs x C x K decisions (0/1, the low bit is read): code block r of transport
//            block t is frame t C + r of the decoder's frames x k output (k = K = K')
//   blockOk  uint8 out, tbs x C: 1 where the block's CRC24B passes; for C = 1 (no block CRC) the
//            transport block's verdict; null: not written
//   tbOk     uint8 out, tbs: 1 where the transport block CRC passes
//   tbPoly, tbLen   the transport block CRC's generator without its D^L term, and L (24 or 16)
// A code block carries the transport block's bits at its first K - 24 positions (C > 1) or all K.
//
// Linearity: a message m(D) is the sum of its chunks c_j(D) D^(bits after chunk j), so m mod g is
// the XOR of (c_j mod g)(D^(bits after) mod g). A lane divides its own contiguous chunk of a code
// block (a bit a step, no table), then moves the remainder to its place with one GF(2) product;
// a warp XORs its lanes. A lane's shifts are the same in every code block, so they are worked out
// once; only the shift of a block's part within the B transport block bits changes per block.
//
// One block of CRC_BLOCK threads (a multiple of 32) a transport block; warp w checks code blocks
// w, w + CRC_BLOCK / 32, ...; the warps' transport block remainders meet in shared memory.
// Launch: grid tbs, block CRC_BLOCK, dynamic shared CRC_BLOCK / 32 x 4 bytes.
// nvcc-variant: -DCRC_BLOCK=1024

#ifndef CRC_BLOCK
#define CRC_BLOCK 1024
#endif
#define CRC_WARPS (CRC_BLOCK / 32)
// 38.212 5.1 gCRC24B without D^24
#define CRC24B_POLY 0x800063u

// a(D) b(D) mod g(D), g = D^L + poly, a and b of degree < L
__device__ __forceinline__ unsigned crc_mulmod(unsigned a, unsigned b, unsigned poly, int L) {
  const unsigned top = 1u << L;
  unsigned r = 0;
  for (int i = L - 1; i >= 0; i--) {
    r <<= 1;
    if (r & top) r ^= top | poly;
    if ((b >> i) & 1u) r ^= a;
  }
  return r;
}

// D^d mod g, by squaring (L > 1, so D mod g = D)
__device__ unsigned crc_pow(int d, unsigned poly, int L) {
  unsigned r = 1u, p = 2u;
  for (; d > 0; d >>= 1) {
    if (d & 1) r = crc_mulmod(r, p, poly, L);
    p = crc_mulmod(p, p, poly, L);
  }
  return r;
}

// (r D + bit) mod g: one more bit of a chunk
__device__ __forceinline__ unsigned crc_step(unsigned r, unsigned bit, unsigned poly, int L) {
  r = (r << 1) | bit;
  return (r >> L) & 1u ? r ^ ((1u << L) | poly) : r;
}

extern "C" __global__ void __launch_bounds__(CRC_BLOCK)
    crc_check(const unsigned char* __restrict__ bits, unsigned char* __restrict__ blockOk,
              unsigned char* __restrict__ tbOk, int C, int K, unsigned tbPoly, int tbLen) {
  extern __shared__ unsigned char smem[];
  unsigned* warpRem = (unsigned*)smem;
  const long long t = blockIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const bool blockCrc = C > 1;
  const int part = blockCrc ? K - 24 : K;
  const int per = (K + 31) / 32;
  const int s = min(K, lane * per), e = min(K, s + per), ep = min(e, part);
  const unsigned shiftBlock = blockCrc ? crc_pow(K - e, CRC24B_POLY, 24) : 0u;
  const unsigned shiftPart = crc_pow(part - ep, tbPoly, tbLen);
  unsigned tbRem = 0;
  for (int r = warp; r < C; r += CRC_WARPS) {
    const unsigned char* blk = bits + (t * C + r) * K;
    unsigned rb = 0, rt = 0;
    for (int i = s; i < ep; i++) {
      const unsigned b = blk[i] & 1u;
      rt = crc_step(rt, b, tbPoly, tbLen);
      if (blockCrc) rb = crc_step(rb, b, CRC24B_POLY, 24);
    }
    rt = crc_mulmod(rt, shiftPart, tbPoly, tbLen);
    for (int o = 16; o > 0; o >>= 1) rt ^= __shfl_xor_sync(0xffffffffu, rt, o);
    if (blockCrc) {
      for (int i = max(s, ep); i < e; i++) rb = crc_step(rb, blk[i] & 1u, CRC24B_POLY, 24);
      rb = crc_mulmod(rb, shiftBlock, CRC24B_POLY, 24);
      for (int o = 16; o > 0; o >>= 1) rb ^= __shfl_xor_sync(0xffffffffu, rb, o);
      if (lane == 0 && blockOk) blockOk[t * C + r] = rb == 0u;
    }
    if (lane == 0) tbRem ^= crc_mulmod(rt, crc_pow((C - 1 - r) * part, tbPoly, tbLen), tbPoly, tbLen);
  }
  if (lane == 0) warpRem[warp] = tbRem;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned m = 0;
    for (int w = 0; w < CRC_WARPS; w++) m ^= warpRem[w];
    tbOk[t] = m == 0u;
    if (!blockCrc && blockOk) blockOk[t] = m == 0u;
  }
}
