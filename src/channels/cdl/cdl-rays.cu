// The CDL models' per-drop random parts (src/channels/cdl/cpu.ts drawDrop): for drop c of a
// ChannelSpan and non-specular cluster n, the three shuffles of the 20 ray indices and the rays'
// initial phases, read from the drop's Philox words as the CPU reads them (its file's header gives
// the layout). Integer steps are the CPU's exactly; a phase is a product of two entries of the
// host's tables (the CPU's), so every value written equals the CPU's bit for bit. One thread a
// (drop, cluster).
//   idx     count x clusters x 20 x 2 ints: ray r's base-station pairing (n 20 + r) 20 + pZOD(r) and
//           UE pairing (n 20 + pAOA(r)) 20 + pZOA(r), indices into the host's per-pairing arrays
//   M       count x clusters x 20 x 8 doubles: the ray's polarisation matrix [m00, m01, m10, m11],
//           re and im each, the cross terms times xpr = 1 / sqrt(kappa); with single (vertical
//           elements at both ends) only m00 is drawn and the rest is 0
//   phase   4096 complex coarse entries exp(j 2 pi k / 4096), then 4096 fine ones exp(j 2 pi (k +
//           0.5) / 2^24), interleaved (cpu.ts phaseTables)
// nvcc-variant: -DCDL_BLOCK=64

#include "../../core/philox.cuh"

#ifndef CDL_BLOCK
#define CDL_BLOCK 64
#endif

// cpu.ts RAYS, PERM_BLOCK (where a cluster's phases start) and CLUSTER_WORDS
#define CDL_RAYS 20
#define CDL_PERM_WORDS 24
#define CDL_CLUSTER_WORDS 104

/** A stream's words in order, a Philox block computed once for its four words. */
struct cdl_reader {
  unsigned long long seed, stream, block;
  unsigned w[4];
};

__device__ __forceinline__ unsigned cdl_word(cdl_reader& r, unsigned long long word) {
  if (word >> 2 != r.block) {
    r.block = word >> 2;
    const philox_words b = philox_block(r.seed, r.stream, r.block);
    r.w[0] = b.w0;
    r.w[1] = b.w1;
    r.w[2] = b.w2;
    r.w[3] = b.w3;
  }
  return r.w[word & 3];
}

/** Fisher-Yates of 0 .. 19 into p, three swaps a word from word w0 on (cpu.ts shuffle); returns the next word. */
__device__ __forceinline__ unsigned long long cdl_shuffle(cdl_reader& rd, unsigned long long w0, int* p) {
  for (int i = 0; i < CDL_RAYS; i++) p[i] = i;
  unsigned long long word = w0;
  for (int i = CDL_RAYS - 1; i >= 1;) {
    const int k = i < 3 ? i : 3;
    unsigned long long choices = 1;
    for (int q = 0; q < k; q++) choices *= (unsigned long long)(i + 1 - q);
    // floor(w choices / 2^32), exact (w choices < 2^45)
    unsigned long long x = ((unsigned long long)cdl_word(rd, word++) * choices) >> 32;
    for (int q = 0; q < k; q++, i--) {
      const unsigned long long n = (unsigned long long)(i + 1);
      const int j = (int)(x % n);
      x /= n;
      const int y = p[i];
      p[i] = p[j];
      p[j] = y;
    }
  }
  return word;
}

extern "C" __global__ void __launch_bounds__(CDL_BLOCK) cdl_rays(
    int* __restrict__ idx, double* __restrict__ M, const double* __restrict__ phase, unsigned long long seed,
    unsigned long long stream0, unsigned long long streamStep, unsigned long long perStream, unsigned long long first,
    int count, int clusters, int single, double xpr) {
  const long long g = (long long)blockIdx.x * CDL_BLOCK + threadIdx.x;
  if (g >= (long long)count * clusters) return;
  const int n = (int)(g % clusters);
  const long long c = g / clusters;
  const unsigned long long q = first + c;
  const unsigned long long stream = stream0 + (q / perStream) * streamStep;
  const unsigned long long base = (q % perStream) * (unsigned long long)clusters * CDL_CLUSTER_WORDS + (unsigned long long)n * CDL_CLUSTER_WORDS;
  cdl_reader rd;
  rd.seed = seed;
  rd.stream = stream;
  rd.block = ~0ull;
  int perm[3 * CDL_RAYS];
  unsigned long long word = base;
  for (int k = 0; k < 3; k++) word = cdl_shuffle(rd, word, perm + k * CDL_RAYS);
  int* id = idx + 2 * g * CDL_RAYS;
  double* m = M + 8 * g * CDL_RAYS;
  for (int r = 0; r < CDL_RAYS; r++) {
    id[2 * r] = (n * CDL_RAYS + r) * CDL_RAYS + perm[CDL_RAYS + r];
    id[2 * r + 1] = (n * CDL_RAYS + perm[r]) * CDL_RAYS + perm[2 * CDL_RAYS + r];
    for (int e = 0; e < 8; e++) m[8 * r + e] = 0;
  }
  const double* coarse = phase;
  const double* fine = phase + 2 * 4096;
  // theta-theta of every ray, then theta-phi, phi-theta, phi-phi (not drawn for vertical elements)
  for (int p = 0; p < (single ? 1 : 4); p++) {
    const double w = p == 1 || p == 2 ? xpr : 1.0;
    for (int r = 0; r < CDL_RAYS; r++) {
      const unsigned k = cdl_word(rd, base + CDL_PERM_WORDS + p * CDL_RAYS + r) >> 8;
      const int cc = 2 * (int)(k >> 12), ff = 2 * (int)(k & 4095u);
      const double cr = coarse[cc], ci = coarse[cc + 1], fr = fine[ff], fi = fine[ff + 1];
      const double pr = -__dsub_rn(__dmul_rn(cr, fr), __dmul_rn(ci, fi));
      const double pi = -__dadd_rn(__dmul_rn(cr, fi), __dmul_rn(ci, fr));
      m[8 * r + 2 * p] = __dmul_rn(w, pr);
      m[8 * r + 2 * p + 1] = __dmul_rn(w, pi);
    }
  }
}
