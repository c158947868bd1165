// The device's arithmetic ceilings for the benchmark floors (bench/gpu/ceilings.ts): each
// thread runs CHAINS independent multiply-add chains for `iters` steps on values that stay finite
// and never become zero, so the compiler can neither fold nor skip them.
//
// Compiled with the default -fmad=true the step is one fused multiply-add (FMA, 2 flops); with
// -fmad=false it is a separate multiply and add (2 instructions, 2 operations), which is how the
// lattice kernels run (they must round like JavaScript). Either way: 2 operations per step.
//
// nvcc-variant: -DREAL=float
// nvcc-variant: -DREAL=double
// nvcc-variant: -DREAL=double -fmad=false

#ifndef REAL
#define REAL double
#endif

#define CHAINS 8

extern "C" __global__ void mad_chains(REAL* out, REAL a, REAL b, int iters) {
  REAL x[CHAINS];
  for (int c = 0; c < CHAINS; c++) x[c] = (REAL)(threadIdx.x + c + 1) * (REAL)0.001;
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++) x[c] = x[c] * a + b;
  }
  REAL s = 0;
  for (int c = 0; c < CHAINS; c++) s += x[c];
  // a data-dependent store the compiler cannot prove dead (s is never exactly -1 here)
  if (s == (REAL)-1) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
