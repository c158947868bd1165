// IT++ reference harness for lattice-mimo (src/mimo/itpp-reference.ts builds and runs it).
//
// Usage: itpp-harness <mode> <input.bin> <output.bin> [rmin-factor stepup rmax]
//   mode = maxlog | logmap : Modulator_NCD (ND_UQAM) demodulate_soft_bits with FULL_ENUM_MAXLOG /
//                            FULL_ENUM_LOGMAP; output: float64 LLRs, vectors x nt x bps (stream-major).
//   mode = sphere          : ND_UPAM::sphere_decoding on the real-valued (RVD) system; output: int32
//                            PAM level indices (ascending amplitude), vectors x 2nt, real parts of all
//                            streams first, then the imaginary parts (-1 where the search failed).
// Prints one JSON line on stdout: mode, vectors, seconds (the IT++ calls only), failures, dint1.
//
// Input (little-endian), our layout (column-major H, interleaved re/im):
//   char magic[8] = "LMITPP01"; int32 nt, nr, channels, vectorsPerChannel, bitsPerSymbol, dint1;
//   float64 points[2 M]      our constellation, point index = bit label (MSB = first bit)
//   float64 H[2 channels nr nt], y[2 vectors nr], noiseVar[vectors]   (N0, complex, per vector)
//
// Labelling: IT++'s ND_UQAM has its own Gray map, so we hand it OUR points with bits2symbols = the
// identity (bit pattern i -> point i, which is how IT++ reads bits2symbols), and check, before
// anything else, that modulate_bits() of every label gives our point: the LLRs then come out in our
// bit order directly (no permutation). IT++'s sign convention (LLR = ln P(0)/P(1)) and its sigma2
// (N0 per complex dimension) are the same as ours. It computes in fixed point (QLLR, step 2^-dint1,
// saturating at 2^(27 - dint1)), the per-point metrics |y - Hs|^2 / N0 included: its LLRs match a
// float64 computation to one step only while every metric stays below the saturation value.
#include <itpp/itcomm.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace itpp;

namespace {

struct Input {
  int nt = 0, nr = 0, channels = 0, vpc = 0, bps = 0, dint1 = 12;
  std::vector<double> points, H, y, noiseVar;
  int vectors() const { return channels * vpc; }
};

[[noreturn]] void fail(const std::string& msg) {
  std::cerr << "itpp-harness: " << msg << std::endl;
  std::exit(2);
}

Input readInput(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(std::string("cannot open ") + path);
  char magic[8];
  f.read(magic, 8);
  if (!f || std::memcmp(magic, "LMITPP01", 8) != 0) fail("bad magic (expected LMITPP01)");
  Input in;
  int32_t hdr[6];
  f.read(reinterpret_cast<char*>(hdr), sizeof hdr);
  in.nt = hdr[0]; in.nr = hdr[1]; in.channels = hdr[2]; in.vpc = hdr[3]; in.bps = hdr[4]; in.dint1 = hdr[5];
  if (in.nt < 1 || in.nr < 1 || in.channels < 1 || in.vpc < 1 || in.bps < 2 || in.bps > 8 || (in.bps & 1))
    fail("bad header (nt, nr, channels, vectorsPerChannel >= 1; bitsPerSymbol in {2, 4, 6, 8})");
  auto readVec = [&](std::vector<double>& v, size_t n, const char* what) {
    v.resize(n);
    f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(double)));
    if (!f) fail(std::string("input truncated in ") + what);
  };
  const size_t M = size_t(1) << in.bps;
  readVec(in.points, 2 * M, "points");
  readVec(in.H, size_t(2) * in.channels * in.nr * in.nt, "H");
  readVec(in.y, size_t(2) * in.vectors() * in.nr, "y");
  readVec(in.noiseVar, size_t(in.vectors()), "noiseVar");
  return in;
}

cmat channelMatrix(const Input& in, int c) {
  cmat H(in.nr, in.nt);
  const double* h = &in.H[size_t(2) * c * in.nr * in.nt];
  for (int j = 0; j < in.nt; j++)
    for (int i = 0; i < in.nr; i++) H(i, j) = std::complex<double>(h[2 * (i + j * in.nr)], h[2 * (i + j * in.nr) + 1]);
  return H;
}

cvec receivedVector(const Input& in, int v) {
  cvec y(in.nr);
  for (int i = 0; i < in.nr; i++) y(i) = std::complex<double>(in.y[size_t(2) * (v * in.nr + i)], in.y[size_t(2) * (v * in.nr + i) + 1]);
  return y;
}

// ND_UQAM carrying our constellation and labels on every stream; verified with modulate_bits.
void installOurConstellation(ND_UQAM& mod, const Input& in) {
  const int M = 1 << in.bps;
  cvec pts(M);
  ivec b2s(M);
  for (int i = 0; i < M; i++) { pts(i) = std::complex<double>(in.points[2 * i], in.points[2 * i + 1]); b2s(i) = i; }
  for (int j = 0; j < in.nt; j++) mod.set_constellation_points(j, pts, b2s);
  for (int label = 0; label < M; label++) {
    bvec bits(in.nt * in.bps);
    for (int j = 0; j < in.nt; j++) {
      const int lab = (label + j) % M;  // a different label per stream, so stream order is checked too
      for (int b = 0; b < in.bps; b++) bits(j * in.bps + b) = bin((lab >> (in.bps - 1 - b)) & 1);
    }
    cvec x = mod.modulate_bits(bits);
    for (int j = 0; j < in.nt; j++) {
      const int lab = (label + j) % M;
      if (std::abs(x(j) - pts(lab)) > 1e-12) fail("label check failed: IT++ does not map our bit labels to our points");
    }
  }
}

int runDemod(const Input& in, Modulator_ND::Soft_Demod_Method method, const char* outPath, const char* name) {
  const int M = 1 << in.bps;
  ND_UQAM mod(in.nt, M);
  mod.set_llrcalc(LLR_calc_unit(static_cast<short>(in.dint1), 300, 7));
  installOurConstellation(mod, in);
  const int nb = in.nt * in.bps;
  std::vector<double> out(size_t(in.vectors()) * nb);
  QLLRvec prior = zeros_i(nb), llr;
  std::vector<cmat> Hs;
  for (int c = 0; c < in.channels; c++) Hs.push_back(channelMatrix(in, c));
  double seconds = 0;
  for (int v = 0; v < in.vectors(); v++) {
    cvec y = receivedVector(in, v);
    auto t0 = std::chrono::steady_clock::now();
    mod.demodulate_soft_bits(y, Hs[v / in.vpc], in.noiseVar[v], prior, llr, method);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    vec l = mod.get_llrcalc().to_double(llr);
    for (int b = 0; b < nb; b++) out[size_t(v) * nb + b] = l(b);
  }
  std::ofstream f(outPath, std::ios::binary);
  f.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(double)));
  if (!f) fail(std::string("cannot write ") + outPath);
  std::printf("{\"mode\":\"%s\",\"vectors\":%d,\"seconds\":%.9g,\"failures\":0,\"dint1\":%d}\n", name, in.vectors(), seconds, in.dint1);
  return 0;
}

// Sphere decoding on the RVD system x = [Re s; Im s], y_r = [Re y; Im y], H_r = [Re H -Im H; Im H Re H].
// ND_UPAM's Q-PAM has its own amplitude scale: the columns of H_r are scaled by ours / IT++'s.
int runSphere(const Input& in, const char* outPath, double rminFactor, double stepup, double rmax) {
  const int Q = 1 << (in.bps / 2);
  const int nd = 2 * in.nt, rows = 2 * in.nr;
  ND_UPAM pam(nd, Q);
  const vec itppLevels = pam.get_symbols()(0);
  double itppMax = 0, ourMax = 0;
  for (int i = 0; i < Q; i++) itppMax = std::max(itppMax, std::abs(itppLevels(i)));
  for (int i = 0; i < (1 << in.bps); i++) ourMax = std::max(ourMax, std::abs(in.points[2 * i]));
  const double ratio = ourMax / itppMax;
  const double ourStep = ourMax / (Q - 1);  // our levels are (2i - (Q - 1)) * ourStep
  const ivec b2s = pam.get_bits2symbols()(0);
  const int k = in.bps / 2;

  std::vector<mat> Hs;
  for (int c = 0; c < in.channels; c++) {
    cmat Hc = channelMatrix(in, c);
    mat Hr(rows, nd);
    for (int i = 0; i < in.nr; i++)
      for (int j = 0; j < in.nt; j++) {
        const double re = Hc(i, j).real() * ratio, im = Hc(i, j).imag() * ratio;
        Hr(i, j) = re; Hr(i, j + in.nt) = -im;
        Hr(i + in.nr, j) = im; Hr(i + in.nr, j + in.nt) = re;
      }
    Hs.push_back(Hr);
  }
  std::vector<int32_t> out(size_t(in.vectors()) * nd, -1);
  int failures = 0;
  double seconds = 0;
  QLLRvec det;
  for (int v = 0; v < in.vectors(); v++) {
    vec yr(rows);
    for (int i = 0; i < in.nr; i++) {
      yr(i) = in.y[size_t(2) * (v * in.nr + i)];
      yr(i + in.nr) = in.y[size_t(2) * (v * in.nr + i) + 1];
    }
    const double rmin = rminFactor * std::sqrt(in.nr * in.noiseVar[v]);
    auto t0 = std::chrono::steady_clock::now();
    const int status = pam.sphere_decoding(yr, Hs[v / in.vpc], rmin, rmax, stepup, det);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (status != 0) { failures++; continue; }
    for (int d = 0; d < nd; d++) {
      int pattern = 0;  // a positive QLLR is bit 0 (checked: noise-free input decodes to its bits)
      for (int b = 0; b < k; b++) pattern = (pattern << 1) | (det(d * k + b) < 0 ? 1 : 0);
      const double amp = itppLevels(b2s(pattern)) * ratio;
      out[size_t(v) * nd + d] = static_cast<int32_t>(std::lround((amp / ourStep + (Q - 1)) / 2));
    }
  }
  std::ofstream f(outPath, std::ios::binary);
  f.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(int32_t)));
  if (!f) fail(std::string("cannot write ") + outPath);
  std::printf("{\"mode\":\"sphere\",\"vectors\":%d,\"seconds\":%.9g,\"failures\":%d,\"dint1\":%d}\n", in.vectors(), seconds, failures, in.dint1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) fail("usage: itpp-harness maxlog|logmap|sphere <input.bin> <output.bin> [rmin-factor stepup rmax]");
  const std::string mode = argv[1];
  const Input in = readInput(argv[2]);
  if (mode == "maxlog") return runDemod(in, Modulator_ND::FULL_ENUM_MAXLOG, argv[3], "maxlog");
  if (mode == "logmap") return runDemod(in, Modulator_ND::FULL_ENUM_LOGMAP, argv[3], "logmap");
  if (mode == "sphere") {
    const double rminFactor = argc > 4 ? std::atof(argv[4]) : 1.0;
    const double stepup = argc > 5 ? std::atof(argv[5]) : 2.0;
    const double rmax = argc > 6 ? std::atof(argv[6]) : 1e3;
    if (!(rminFactor > 0) || !(stepup > 1) || !(rmax > 0)) fail("need rmin-factor > 0, stepup > 1, rmax > 0");
    return runSphere(in, argv[3], rminFactor, stepup, rmax);
  }
  fail("unknown mode '" + mode + "' (maxlog, logmap, sphere)");
}
