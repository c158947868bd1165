// Latencies on the device (measurement only): cycles per link of dependent chains of double adds,
// multiplies, float rounding pairs, shared loads, 64-bit shuffles and divisions, one and eight warps.
//   nvcc -arch=sm_90 -fmad=false bench/col-lab/lat.cu -o lat && ./lat
// (modes 6 and 7 are 19-operation chains per iteration: divide their figure by 19/4.)
#include <cstdio>
__global__ void k(double* out, long long* t, double a, double b, float f, int mode) {
  __shared__ double sh[64];
  if (threadIdx.x < 64) sh[threadIdx.x] = a + threadIdx.x;
  __syncthreads();
  double x = a; (void)f; int idx = threadIdx.x & 1;
  long long t0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < 256; i++) {
    if (mode == 0) { x = x + b; x = x + b; x = x + b; x = x + b; }
    else if (mode == 1) { x = x * b; x = x * b; x = x * b; x = x * b; }
    else if (mode == 2) { x = (double)(float)x; x = (double)(float)(x + b); x = (double)(float)x; x = (double)(float)(x + b); }
    else if (mode == 3) { x = sh[idx]; idx = (int)x & 1; x = sh[idx]; idx = (int)x & 1; x = sh[idx]; idx = (int)x & 1; x = sh[idx]; idx = (int)x & 1; }
    else if (mode == 4) { x = __shfl_xor_sync(0xffffffffu, x, 1); x = __shfl_xor_sync(0xffffffffu, x, 2); x = __shfl_xor_sync(0xffffffffu, x, 1); x = __shfl_xor_sync(0xffffffffu, x, 2); }
    else if (mode == 5) { x = x / b; x = x / b; x = x / b; x = x / b; }
    else if (mode == 6) { // throughput: 16 independent F2F pairs
      double v[16];
      #pragma unroll
      for (int u = 0; u < 16; u++) v[u] = x + u;
      #pragma unroll
      for (int u = 0; u < 16; u++) v[u] = (double)(float)v[u];
      double s = 0;
      #pragma unroll
      for (int u = 0; u < 16; u++) s += v[u];
      x = s * 1e-3;
    }
    else if (mode == 7) { // throughput: 16 independent DADD
      double v[16];
      #pragma unroll
      for (int u = 0; u < 16; u++) v[u] = x + u;
      #pragma unroll
      for (int u = 0; u < 16; u++) v[u] = v[u] * b;
      double s = 0;
      #pragma unroll
      for (int u = 0; u < 16; u++) s += v[u];
      x = s * 1e-3;
    }
  }
  long long t1 = clock64();
  out[threadIdx.x] = x;
  if (threadIdx.x == 0) t[0] = t1 - t0;
}
int main() {
  double* o; long long* t; cudaMalloc(&o, 8 * 1024); cudaMalloc(&t, 8);
  const char* names[] = {"DADD chain", "DMUL chain", "F2F pair chain (+DADD every other)", "LDS chain (+F2I,LOP)", "SHFL.64 chain", "DDIV chain", "16 indep F2F pairs + 16-DADD chain", "16 DMUL + 16-DADD chain"};
  for (int warps = 1; warps <= 8; warps *= 8)
  for (int mode = 0; mode < 8; mode++) {
    k<<<1, 32 * warps>>>(o, t, 1.0, 1.0000001, 1.0f, mode); long long h;
    k<<<1, 32 * warps>>>(o, t, 1.0, 1.0000001, 1.0f, mode);
    cudaMemcpy(&h, t, 8, cudaMemcpyDeviceToHost);
    printf("warps %d %-40s %.1f cycles per link (of 4 per iteration)\n", warps, names[mode], h / 1024.0);
  }
}
