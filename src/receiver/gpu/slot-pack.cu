// The transport blocks of a launch of slots packed into bytes, one thread a byte: TB bit t is bit
// t mod P of block t / P (P = K' - 24 bits of payload a block when C > 1, else K': the block holds
// the TB and its CRC), 38.212's order (the first bit the most significant of the first byte).
//   bits  slots x C x k bytes, 0/1: the decoder's decisions (k = K' information bits a block)
//   out   slots x ceil(A / 8) bytes
// nvcc-variant: -DRX_BLOCK=256

#ifndef RX_BLOCK
#define RX_BLOCK 256
#endif

extern "C" __global__ void __launch_bounds__(RX_BLOCK) slot_pack(
    const unsigned char* __restrict__ bits, unsigned char* __restrict__ out, int slots, int C, int k, int P, int A) {
  const int bytes = (A + 7) / 8;
  const long long g = (long long)blockIdx.x * RX_BLOCK + threadIdx.x;
  if (g >= (long long)slots * bytes) return;
  const long long s = g / bytes;
  const int j = (int)(g - s * bytes);
  unsigned v = 0;
  for (int q = 0; q < 8; q++) {
    const int t = 8 * j + q;
    if (t < A) v |= (unsigned)bits[(s * C + t / P) * k + t % P] << (7 - q);
  }
  out[g] = (unsigned char)v;
}
