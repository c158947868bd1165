// IT++ LDPC reference runner for lattice-mimo (bench/coding/itpp-ldpc.ts builds and runs it).
//
// Usage: itpp-ldpc <input.bin> <output.bin>
// Decode mode (magic LMLDPC01): decodes the given channel LLRs with IT++'s LDPC_Code::bp_decode
// (flooding sum-product on QLLRs, Dint1 = 12 fixed point, table-lookup boxplus) on the given
// parity-check matrix. Encode mode (magic LMLDPE01): expands a QC base matrix with IT++'s own
// BLDPC_Parity (block = identity shifted right by s mod z) and encodes with its BLDPC_Generator, an
// encoder written independently of ours.
//
// Encode input: char magic[8] = "LMLDPE01"; int32 rows, cols, z, frames; int32 shifts[rows cols]
//   (row-major, -1 = zero block); uint8 info[frames (cols - rows) z]. Output: uint8 codewords[frames cols z].
//
// Decode input (little-endian):
//   char magic[8] = "LMLDPC01"; int32 n, m, edges, frames, maxIterations, earlyStop (0/1)
//   int32 rowStart[m + 1], col[edges]     the parity check in compressed rows (check r: columns
//                                         col[rowStart[r]] .. col[rowStart[r+1]-1])
//   float64 llr[frames n]                 ln P(b=0)/P(b=1), frame after frame
// Output: uint8 bits[frames n] (hard decisions of IT++'s output LLRs, 1 where negative), then
//   int32 iterations[frames] (bp_decode's return: iterations run, negative when the syndrome is not zero).
// Prints one JSON line on stdout: frames, seconds and cpuSeconds (wall and process CPU time inside bp_decode only).
#include <itpp/itcomm.h>

#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace itpp;

namespace {

[[noreturn]] void fail(const std::string& msg) {
  std::cerr << "itpp-ldpc: " << msg << std::endl;
  std::exit(2);
}

template <typename T>
void readVec(std::ifstream& f, std::vector<T>& v, size_t n, const char* what) {
  v.resize(n);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
  if (!f) fail(std::string("input truncated in ") + what);
}

}  // namespace

int encodeMode(std::ifstream& f, const char* outPath) {
  int32_t hdr[4];
  f.read(reinterpret_cast<char*>(hdr), sizeof hdr);
  if (!f) fail("input truncated in the header");
  const int rows = hdr[0], cols = hdr[1], z = hdr[2], frames = hdr[3];
  if (rows < 1 || cols <= rows || z < 1 || frames < 0) fail("bad header (cols > rows >= 1, z >= 1, frames >= 0)");
  std::vector<int32_t> shifts;
  readVec(f, shifts, size_t(rows) * cols, "shifts");
  const int k = (cols - rows) * z, n = cols * z;
  std::vector<uint8_t> info;
  readVec(f, info, size_t(frames) * k, "info");
  imat base(rows, cols);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) base(r, c) = shifts[size_t(r) * cols + c];
  BLDPC_Parity H(base, z);
  BLDPC_Generator G(&H);
  std::vector<uint8_t> out(size_t(frames) * n);
  bvec in(k), cw;
  for (int fr = 0; fr < frames; fr++) {
    for (int i = 0; i < k; i++) in[i] = info[size_t(fr) * k + i];
    G.encode(in, cw);
    if (cw.size() != n) fail("IT++ returned a codeword of the wrong length");
    for (int i = 0; i < n; i++) out[size_t(fr) * n + i] = cw[i] == bin(1) ? 1 : 0;
  }
  std::ofstream o(outPath, std::ios::binary);
  o.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
  if (!o) fail(std::string("cannot write ") + outPath);
  std::printf("{\"frames\":%d}\n", frames);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 3) fail("usage: itpp-ldpc <input.bin> <output.bin>");
  std::ifstream f(argv[1], std::ios::binary);
  if (!f) fail(std::string("cannot open ") + argv[1]);
  char magic[8];
  f.read(magic, 8);
  if (f && std::memcmp(magic, "LMLDPE01", 8) == 0) return encodeMode(f, argv[2]);
  if (!f || std::memcmp(magic, "LMLDPC01", 8) != 0) fail("bad magic (expected LMLDPC01 or LMLDPE01)");
  int32_t hdr[6];
  f.read(reinterpret_cast<char*>(hdr), sizeof hdr);
  if (!f) fail("input truncated in the header");
  const int n = hdr[0], m = hdr[1], edges = hdr[2], frames = hdr[3], maxIter = hdr[4], early = hdr[5];
  if (n < 2 || m < 1 || m >= n || edges < 1 || frames < 0 || maxIter < 1) fail("bad header (n > m >= 1, edges >= 1, frames >= 0, maxIterations >= 1)");
  std::vector<int32_t> rowStart, col;
  std::vector<double> llr;
  readVec(f, rowStart, size_t(m) + 1, "rowStart");
  readVec(f, col, size_t(edges), "col");
  readVec(f, llr, size_t(frames) * n, "llr");
  if (rowStart[0] != 0 || rowStart[m] != edges) fail("rowStart must run from 0 to edges");

  LDPC_Parity H(m, n);
  for (int r = 0; r < m; r++) {
    if (rowStart[r + 1] < rowStart[r]) fail("rowStart is not increasing");
    for (int e = rowStart[r]; e < rowStart[r + 1]; e++) {
      if (col[e] < 0 || col[e] >= n) fail("column index out of range");
      H.set(r, col[e], 1);
    }
  }
  LDPC_Code code(&H, nullptr, false);
  code.set_exit_conditions(maxIter, early != 0, false);
  const LLR_calc_unit& calc = code.get_llrcalc();

  std::vector<uint8_t> bits(size_t(frames) * n);
  std::vector<int32_t> iters(frames);
  vec in(n);
  QLLRvec qin, qout;
  double seconds = 0, cpuSeconds = 0;
  for (int fr = 0; fr < frames; fr++) {
    for (int i = 0; i < n; i++) in[i] = llr[size_t(fr) * n + i];
    qin = calc.to_qllr(in);
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    iters[fr] = code.bp_decode(qin, qout);
    cpuSeconds += double(std::clock() - c0) / CLOCKS_PER_SEC;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (int i = 0; i < n; i++) bits[size_t(fr) * n + i] = qout[i] < 0 ? 1 : 0;
  }
  std::ofstream o(argv[2], std::ios::binary);
  o.write(reinterpret_cast<const char*>(bits.data()), static_cast<std::streamsize>(bits.size()));
  o.write(reinterpret_cast<const char*>(iters.data()), static_cast<std::streamsize>(iters.size() * sizeof(int32_t)));
  if (!o) fail(std::string("cannot write ") + argv[2]);
  std::printf("{\"frames\":%d,\"seconds\":%.9f,\"cpuSeconds\":%.9f}\n", frames, seconds, cpuSeconds);
  return 0;
}
