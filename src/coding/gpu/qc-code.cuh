// The code's QC structure as compile-time tables, shared by the LDPC kernels (encode.cu, and the
// decoders through ldpc.cuh). The host sets each table as a define whose value is one pp-number
// (numbers joined by '_': nvcc would split a value with commas into a list):
//   QC_TABLE  blockCol0_shift0_blockCol1_shift1_... layer after layer (shifts mod Z); NEDGES pairs
//   QC_START  0_..._NEDGES: layer r's blocks are QC_START[r] .. QC_START[r+1]-1; NLAYERS + 1 numbers
#pragma once

#if !defined(__CUDACC__) && !defined(__constant__)
#define __constant__
#endif

#define QC_STR2(x) #x
#define QC_STR(x) QC_STR2(x)

// Reads the '_'-separated decimal numbers of s into out[0 .. count) in one pass (compile time).
__host__ __device__ constexpr void qc_parse(const char* s, int* out, int count) {
  for (int i = 0; i < count; i++) {
    int v = 0;
    while (*s >= '0' && *s <= '9') { v = v * 10 + (*s - '0'); s++; }
    out[i] = v;
    if (*s == '_') s++;
  }
}

struct QcTables { int pairs[2 * NEDGES]; int start[NLAYERS + 1]; };

__host__ __device__ constexpr QcTables qc_tables() {
  QcTables q{};
  qc_parse(QC_STR(QC_TABLE), q.pairs, 2 * NEDGES);
  qc_parse(QC_STR(QC_START), q.start, NLAYERS + 1);
  return q;
}
