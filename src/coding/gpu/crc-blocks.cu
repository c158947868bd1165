// The first half of the receiver's transport block checks (src/coding/transport-block.ts
// checkTransportBlock) on the layered decoder's decisions: each code block's CRC24B verdict
// (C > 1) and its share of its transport block's CRC remainder; crc-verdict.cu XORs the shares.
//   bits     uint8, tbs x C x K decisions (0/1, the low bit is read): code block r of transport
//            block t is frame t C + r of the decoder's frames x k output (k = K = K')
//   shifts   uint32, 2 CRC_THREADS + C: D^(K - e_i) mod g24B and D^(part - min(e_i, part)) mod g
//            for thread i's chunk ending at e_i, then D^((C - 1 - r) part) mod g for block r (g: the
//            transport block CRC's generator; the plan works them out once on the host)
//   partial  uint32 out, tbs x C: block r's part of transport block t's bits, times its shift
//            D^((C - 1 - r) part), mod g
//   blockOk  uint8 out, tbs x C: 1 where the block's CRC24B passes (C > 1 only); null: not written
//   tbPoly, tbLen   the transport block CRC's generator without its D^L term, and L (24 or 16)
// A code block carries the transport block's bits at its first part = K - 24 positions (C > 1)
// or all K.
//
// Linearity: a message m(D) is the sum of its chunks c_j(D) D^(bits after chunk j), so m mod g is
// the XOR of (c_j mod g)(D^(bits after) mod g). A thread block checks one code block: its warps
// first pack the block's decisions into 32-bit words in shared memory (a coalesced byte a lane,
// one ballot a word), then each thread divides its contiguous chunk of about K / CRC_THREADS bits,
// moves the remainder to its place with one GF(2) product and the block XORs its threads.
// Spreading the code blocks over the grid keeps every SM busy: a transport block's blocks are
// checked side by side.
// Launch: grid tbs C, block CRC_THREADS, dynamic shared (ceil(K / 32) + 2 CRC_WARPS) x 4 bytes.
// nvcc-variant: -DCRC_THREADS=256

#ifndef CRC_THREADS
#define CRC_THREADS 256
#endif
#define CRC_WARPS (CRC_THREADS / 32)
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

// (r D + bit) mod g: one more bit of a chunk
__device__ __forceinline__ unsigned crc_step(unsigned r, unsigned bit, unsigned poly, int L) {
  r = (r << 1) | bit;
  return (r >> L) & 1u ? r ^ ((1u << L) | poly) : r;
}

extern "C" __global__ void __launch_bounds__(CRC_THREADS)
    crc_blocks(const unsigned char* __restrict__ bits, const unsigned* __restrict__ shifts,
               unsigned* __restrict__ partial, unsigned char* __restrict__ blockOk, int C, int K,
               unsigned tbPoly, int tbLen) {
  extern __shared__ unsigned char smem[];
  const int nWords = (K + 31) / 32;
  unsigned* words = (unsigned*)smem;          // nWords
  unsigned* warpRem = words + nWords;         // 2 x CRC_WARPS
  const long long f = blockIdx.x;  // t C + r
  const int r = (int)(f % C);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned char* blk = bits + f * K;
  for (int q = warp; q < nWords; q += CRC_WARPS) {
    const int i = q * 32 + lane;
    const unsigned w = __ballot_sync(0xffffffffu, i < K ? blk[i] & 1u : 0u);
    if (lane == 0) words[q] = w;
  }
  __syncthreads();

  const bool blockCrc = C > 1;
  const int part = blockCrc ? K - 24 : K;
  const int per = (K + CRC_THREADS - 1) / CRC_THREADS;
  const int s = min(K, (int)threadIdx.x * per), e = min(K, s + per), ep = min(e, part);
  unsigned rb = 0, rt = 0;
  for (int i = s; i < e; i++) {
    const unsigned b = (words[i >> 5] >> (i & 31)) & 1u;
    if (i < ep) rt = crc_step(rt, b, tbPoly, tbLen);
    if (blockCrc) rb = crc_step(rb, b, CRC24B_POLY, 24);
  }
  rt = crc_mulmod(rt, shifts[CRC_THREADS + threadIdx.x], tbPoly, tbLen);
  if (blockCrc) rb = crc_mulmod(rb, shifts[threadIdx.x], CRC24B_POLY, 24);
  for (int o = 16; o > 0; o >>= 1) {
    rt ^= __shfl_xor_sync(0xffffffffu, rt, o);
    rb ^= __shfl_xor_sync(0xffffffffu, rb, o);
  }
  if (lane == 0) {
    warpRem[warp] = rt;
    warpRem[CRC_WARPS + warp] = rb;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned mt = 0, mb = 0;
    for (int w = 0; w < CRC_WARPS; w++) {
      mt ^= warpRem[w];
      mb ^= warpRem[CRC_WARPS + w];
    }
    partial[f] = crc_mulmod(mt, shifts[2 * CRC_THREADS + r], tbPoly, tbLen);
    if (blockCrc && blockOk) blockOk[f] = mb == 0u;
  }
}
