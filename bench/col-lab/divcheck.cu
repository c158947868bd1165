// nvcc -arch=sm_90 bench/col-lab/divcheck.cu -o dc && ./dc
// Markstein division check: c = fma(fma(-r, q0, s), y, q0), q0 = s * y, y = drcp_rn(r), r a positive
// float, s a double; against s / r, on many random pairs (and hard patterns)
#include <cstdio>
#include <cstdint>
__device__ uint64_t mix(uint64_t x) { x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33; return x; }
__global__ void k(unsigned long long* bad, unsigned long long seed, int iters) {
  const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  unsigned long long mine = 0;
  for (int it = 0; it < iters; it++) {
    const uint64_t a = mix(seed ^ (t * 1315423911ULL + it)), b = mix(a + 0x9e3779b97f4a7c15ULL);
    // r: a positive float with a random exponent in [-126, 127] (sometimes all-ones significand)
    uint32_t rb = (uint32_t)(b & 0x7fffff) | ((uint32_t)(1 + (b >> 23) % 254) << 23);
    if ((b >> 40) % 8 == 0) rb |= 0x7fffff;
    const float rf = __uint_as_float(rb);
    const double r = rf;
    // s: a double with a random significand and exponent in [-200, 200], random sign
    uint64_t sb = (a & 0xfffffffffffffULL) | ((uint64_t)(1023 - 200 + (a >> 52) % 401) << 52) | ((b >> 63) << 63);
    if ((b >> 44) % 8 == 0) sb |= 0xfffffffffffffULL;
    if ((b >> 48) % 16 == 0) sb &= ~0xffffffffULL;  // short significands (products of floats)
    const double s = __longlong_as_double((long long)sb);
    const double y = __drcp_rn(r);
    const double q0 = s * y;
    const double c = __fma_rn(__fma_rn(-r, q0, s), y, q0);
    const double e = s / r;
    if (__double_as_longlong(c) != __double_as_longlong(e)) mine++;
  }
  if (mine) atomicAdd(bad, mine);
}
int main() {
  unsigned long long* d; cudaMalloc(&d, 8); cudaMemset(d, 0, 8);
  const int blocks = 132 * 16, threads = 256, iters = 2048;
  for (int rep = 0; rep < 4; rep++) k<<<blocks, threads>>>(d, 12345 + rep, iters);
  unsigned long long h; cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost);
  printf("markstein division: %llu mismatches in %.3g pairs\n", h, 4.0 * blocks * threads * iters);
}
