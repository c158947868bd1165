/**
 * Runs a CUDA kernel on the CPU, for CI machines without a GPU: the .cu file is compiled as C++
 * with g++ against a small emulation of the CUDA execution model (one std::thread per CUDA thread,
 * one block at a time, __syncthreads as a std::barrier, dynamic shared memory as one static array).
 * That is faithful for kernels whose threads meet only at block-wide barriers (from any place in the
 * code: the barrier counts threads) and at warp-wide calls made by every thread of a warp together
 * (__syncwarp, __shfl_sync, __ballot_sync, __any_sync: each a barrier over the warp's threads; no
 * implicit warp lockstep) or of a named barrier's group (emu_bar_red_or), which is what the lattice kernels are written to; it catches logic errors, wrong indices and missing barriers that
 * show up as different results, not performance problems.
 *
 * Arithmetic: g++ with -ffp-contract=off does what nvcc does with -fmad=false (every product and
 * sum rounded on its own), so results can be compared bit for bit with the GPU and with the CPU
 * reference in TypeScript.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readKernelSource } from '../../src/gpu/module-cache.js';

export const EMULATION_HEADER = String.raw`
#pragma once
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>
#include <sys/mman.h>
using std::fabs; using std::isfinite; using std::round; using std::sqrt; using std::floor; using std::fmin; using std::fmax;
struct dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local dim3 threadIdx;
static dim3 emu_block_idx, blockDim, gridDim;
#define blockIdx emu_block_idx
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__
#define __shared__
#define __constant__
#define __align__(x) __attribute__((aligned(x)))
#define __launch_bounds__(...)
// dynamic shared memory: the kernel's "extern __shared__ unsigned char smem[]" names this pointer
unsigned char (*emu_smem)[];
#define smem (*emu_smem)
static std::barrier<>* emu_barrier;
static std::atomic<int> emu_or[3];
thread_local int emu_generation = 0;
inline void __syncthreads() { emu_barrier->arrive_and_wait(); }
// __syncwarp: a barrier over the threads of the caller's warp (all of them must call it, which is
// how the kernels here use it: the whole first warp, or the whole block when it is smaller)
static std::vector<std::barrier<>*> emu_warp_barriers;
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp_barriers[(threadIdx.x + threadIdx.y * blockDim.x) / 32]->arrive_and_wait(); }
// Warp exchanges: every thread of the warp writes its value, all meet, each reads the one it asked
// for, all meet again (the mask is not checked: all threads of the warp must call, as on the GPU
// with a full mask).
struct EmuWarpSlots { unsigned long long v[32]; };
static std::vector<EmuWarpSlots> emu_warp_slots;
inline int emu_warp() { return (threadIdx.x + threadIdx.y * blockDim.x) / 32; }
inline int emu_lane() { return (threadIdx.x + threadIdx.y * blockDim.x) % 32; }
inline unsigned emu_warp_size() { const unsigned nt = blockDim.x * blockDim.y, w0 = emu_warp() * 32; return nt - w0 < 32 ? nt - w0 : 32; }
template <class T> T __shfl_sync(unsigned, T v, int src, int = 32) {
  static_assert(sizeof(T) <= 8, "shuffle of a value wider than 8 bytes");
  unsigned long long bits = 0; std::memcpy(&bits, &v, sizeof(T));
  const int w = emu_warp();
  emu_warp_slots[w].v[emu_lane()] = bits;
  emu_warp_barriers[w]->arrive_and_wait();
  const unsigned long long got = emu_warp_slots[w].v[src & 31];
  emu_warp_barriers[w]->arrive_and_wait();
  T r; std::memcpy(&r, &got, sizeof(T)); return r;
}
template <class T> T __shfl_xor_sync(unsigned mask, T v, int laneMask, int = 32) { return __shfl_sync(mask, v, emu_lane() ^ laneMask); }
inline unsigned __ballot_sync(unsigned, int p) {
  const int w = emu_warp();
  emu_warp_slots[w].v[emu_lane()] = p ? 1 : 0;
  emu_warp_barriers[w]->arrive_and_wait();
  unsigned r = 0;
  for (unsigned l = 0; l < emu_warp_size(); l++) if (emu_warp_slots[w].v[l]) r |= 1u << l;
  emu_warp_barriers[w]->arrive_and_wait();
  return r;
}
inline int __any_sync(unsigned mask, int p) { return __ballot_sync(mask, p) != 0; }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
[[noreturn]] inline void __trap() { std::abort(); }
// Named barriers with an OR over the arriving threads (bar.red.or.pred id, count): made by the
// first caller of each launch with its count.
struct EmuNamed { std::mutex mu; std::unique_ptr<std::barrier<>> bar; std::atomic<int> orv[3]; };
static EmuNamed emu_named[4];
thread_local int emu_named_gen[4];
inline int emu_bar_red_or(int id, unsigned count, int p) {
  EmuNamed& e = emu_named[id];
  { std::lock_guard<std::mutex> lock(e.mu); if (!e.bar) e.bar.reset(new std::barrier<>(count)); }
  const int g = emu_named_gen[id]; emu_named_gen[id] = (g + 1) % 3;
  if (p) e.orv[g].store(1);
  e.bar->arrive_and_wait();
  const int r = e.orv[g].load();
  if (threadIdx.x == 0 && threadIdx.y == 0) e.orv[(g + 2) % 3].store(0);
  return r;
}
inline int __syncthreads_or(int p) {
  const int g = emu_generation; emu_generation = (emu_generation + 1) % 3;
  if (p) emu_or[g].store(1);
  emu_barrier->arrive_and_wait();
  const int r = emu_or[g].load();
  if (threadIdx.x == 0 && threadIdx.y == 0) emu_or[(g + 2) % 3].store(0);
  return r;
}
inline int atomicAdd(int* a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline int atomicOr(int* a, int v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
struct int2 { int x, y; };
struct int4 { int x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
struct float2 { float x, y; };
inline float2 make_float2(float x, float y) { return float2{x, y}; }
struct alignas(16) double2 { double x, y; };
inline double2 make_double2(double x, double y) { return double2{x, y}; }
inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned __float_as_uint(float x) { unsigned r; std::memcpy(&r, &x, 4); return r; }
// PRMT: result byte i is byte (s >> 4 i) & 7 of y:x (the CUDA default mode)
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (unsigned long long)y << 32 | x;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (unsigned)(v >> (8 * ((s >> (4 * i)) & 7)) & 0xff) << (8 * i);
  return r;
}
inline float __saturatef(float x) { return x >= 1.f ? 1.f : x > 0.f ? x : 0.f; }
// a b + c rounded toward zero: exact in long double where a b + c spans at most 64 bits (the kernels'
// fixed-point values), then truncated to float
inline float __fmaf_rz(float a, float b, float c) {
  const long double s = (long double)a * b + c;
  float f = (float)s;
  if (std::fabs((long double)f) > std::fabs(s)) f = std::nextafter(f, 0.f);
  return f;
}
inline float __fadd_rz(float a, float b) { return __fmaf_rz(a, 1.f, b); }
inline float __uint_as_float(unsigned x) { float r; std::memcpy(&r, &x, 4); return r; }

inline unsigned atomicMin(unsigned* a, unsigned v) {
  unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline unsigned long long atomicMin(unsigned long long* a, unsigned long long v) {
  unsigned long long old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline unsigned long long atomicMax(unsigned long long* a, unsigned long long v) {
  unsigned long long old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  while (old < v && !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline long long __double_as_longlong(double x) { long long r; std::memcpy(&r, &x, 8); return r; }
inline float roundf(float x) { return std::round(x); }
inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
// Runs the grid block after block. The dynamic shared memory (sharedBytes, what the host asks
// for) ends exactly at an inaccessible page, so a kernel that uses more than the host gave it
// crashes here as it would fault on the GPU; it is filled with 0xff bytes (NaN) before each block,
// so reads of shared memory the kernel never wrote show up in the results.
template <class F> int emu_launch(unsigned grid, dim3 block, size_t sharedBytes, F kernel) {
  gridDim = dim3{grid, 1, 1}; blockDim = block;
  const unsigned nt = block.x * block.y;
  const size_t page = 4096, body = (sharedBytes + page - 1) / page * page + page;
  unsigned char* base = (unsigned char*)mmap(nullptr, body + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED || mprotect(base + body, page, PROT_NONE) != 0) return 1;
  unsigned char* start = base + body - sharedBytes;
  emu_smem = (unsigned char (*)[])start;
  for (unsigned b = 0; b < grid; b++) {
    emu_block_idx.x = b;
    std::memset(start, 0xff, sharedBytes);
    std::barrier<> bar(nt); emu_barrier = &bar;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    emu_warp_barriers.clear();
    emu_warp_slots.assign((nt + 31) / 32, EmuWarpSlots{});
    for (unsigned w0 = 0; w0 < nt; w0 += 32) {
      warps.emplace_back(new std::barrier<>(nt - w0 < 32 ? nt - w0 : 32));
      emu_warp_barriers.push_back(warps.back().get());
    }
    for (auto& o : emu_or) o = 0;
    for (auto& e : emu_named) { e.bar.reset(); for (auto& o : e.orv) o = 0; }
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < nt; t++) threads.emplace_back([&, t] {
      threadIdx = dim3{t % block.x, t / block.x, 1}; emu_generation = 0;
      for (auto& g : emu_named_gen) g = 0;
      kernel();
    });
    for (auto& t : threads) t.join();
  }
  munmap(base, body + page);
  return 0;
}
`;

/** Why the emulator cannot run here (no g++ with C++20), or null when it can. */
export function emulatorUnavailable(): string | null {
  const r = spawnSync('g++', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return 'no g++ on this machine';
  // a compiler without C++20 barriers cannot emulate; one that has them must build the header (a
  // broken header is a defect, not a reason for every emulated test to skip)
  const plain = spawnSync('g++', ['-std=c++20', '-pthread', '-x', 'c++', '-o', '/dev/null', '-'], {
    input: '#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n',
    encoding: 'utf8',
  });
  if (plain.status !== 0)
    return `g++ has no C++20 <barrier>: ${(plain.stderr || plain.error?.message || '').slice(0, 500)}`;
  const probe = compileEmulated('int main() { std::barrier<> b(1); b.arrive_and_wait(); return 0; }', '', []);
  if (probe.error) throw new Error(`the CUDA emulation header does not compile: ${probe.error}`);
  return null;
}

/**
 * Compiles `main` (C++ that calls emu_launch) after the kernel files (one path or several, each
 * #included: a kernel per file) into an executable, cached by content (the kernels' text with their
 * includes) under the temp directory. `how.gxxFlags` (opt-in, none by default): further g++ flags
 * after the usual ones, e.g. ['-fsanitize=address,undefined', '-fno-sanitize-recover=all'] for a
 * build that stops at the first out-of-bounds access with its place (part of the cache key; such a
 * build parses the header itself, the precompiled one having other flags).
 */
export function compileEmulated(
  main: string,
  kernelPaths: string | readonly string[],
  defines: readonly string[],
  how: { gxxFlags?: readonly string[] } = {},
): { exe: string; error: string | null } {
  const dir = join(tmpdir(), 'lattice-mimo-emu');
  mkdirSync(dir, { recursive: true });
  const paths = (typeof kernelPaths === 'string' ? [kernelPaths] : kernelPaths).filter(Boolean);
  const extra = how.gxxFlags ?? [];
  const h = createHash('sha256').update(EMULATION_HEADER).update(main).update(defines.join(' '));
  if (extra.length > 0) h.update(`\0gxx ${extra.join(' ')}`);
  for (const path of paths) h.update(path).update(existsSync(path) ? readKernelSource(pathToFileURL(path)) : '');
  const key = h.digest('hex').slice(0, 24);
  const exe = join(dir, `emu-${key}`);
  if (existsSync(exe)) return { exe, error: null };
  const header = `cuda_emulation-${createHash('sha256').update(EMULATION_HEADER).digest('hex').slice(0, 16)}.hpp`;
  writeFileAtomic(join(dir, header), EMULATION_HEADER);
  precompileHeader(join(dir, header));
  const src = join(dir, `emu-${key}-${process.pid}.cpp`);
  writeFileSync(src, `#include "${header}"\n${paths.map((path) => `#include "${path}"\n`).join('')}${main}\n`);
  const tmpExe = `${exe}.${process.pid}.tmp`;
  const r = spawnSync('g++', [...GXX_FLAGS, ...extra, ...defines, '-o', tmpExe, src], {
    encoding: 'utf8',
  });
  if (r.status !== 0) return { exe, error: `g++ failed: ${(r.stderr || r.error?.message || '').slice(0, 2000)}` };
  renameSync(tmpExe, exe);
  return { exe, error: null };
}

/** The flags of every emulated build; the precompiled header must be built with the same ones. */
const GXX_FLAGS = ['-std=c++20', '-O1', '-ffp-contract=off', '-pthread'] as const;

/**
 * Builds `header`.gch beside the header once: parsing the header's standard library (threads,
 * barriers) is most of a build's time, and g++ takes the .gch in its place where the flags match
 * (the kernels' -D macros do not appear in it). A failed build leaves none: g++ then reads the
 * header itself, as before.
 */
function precompileHeader(header: string): void {
  const gch = `${header}.gch`;
  if (existsSync(gch)) return;
  const tmp = `${gch}.${process.pid}.tmp`;
  const r = spawnSync('g++', [...GXX_FLAGS, '-x', 'c++-header', '-o', tmp, header], { encoding: 'utf8' });
  if (r.status === 0) renameSync(tmp, gch);
  else rmSync(tmp, { force: true });
}

/**
 * Writes a file other test processes may read at the same moment (the suite runs files in
 * parallel, all sharing the temp directory): a temporary name, then rename, so a reader sees the
 * old or the new content, never a half-written one.
 */
export function writeFileAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Longest an emulated kernel program may run (the slowest emulated test case takes a few seconds):
 * past it the threads of a block wait at different barriers, a deadlock on the GPU too.
 */
const EMULATED_TIMEOUT_MS = 120_000;

/**
 * Runs an emulated kernel program: binary input on stdin, binary output from stdout. A program
 * still running after EMULATED_TIMEOUT_MS is killed and reported as a deadlock (an error naming
 * the program), never left to hang the test run.
 */
export function runEmulated(exe: string, input: Uint8Array): Buffer {
  try {
    return execFileSync(exe, { input, maxBuffer: 1 << 28, timeout: EMULATED_TIMEOUT_MS, killSignal: 'SIGKILL' });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { signal?: string };
    if (err.code === 'ETIMEDOUT' || err.signal === 'SIGKILL') {
      throw new Error(
        `emulated kernel program ${exe} did not finish in ${EMULATED_TIMEOUT_MS / 1000} s: the threads of a block wait at different barriers (a deadlock on the GPU as well)`,
      );
    }
    throw e;
  }
}

/**
 * The cases a run of an emulated test checks: all of them up to `keep`, else the first (the
 * host's choice, or the case the test is about) and keep - 1 others drawn afresh by `rng` (every
 * case compiles its own emulated build, seconds each); successive runs cover them all. EMU_ALL=1
 * takes all.
 */
export function someCases<V>(cases: readonly V[], rng: { int(n: number): number }, keep = 6): readonly V[] {
  if (cases.length <= keep || process.env.EMU_ALL === '1') return cases;
  const rest = cases.slice(1);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
  }
  return [cases[0]!, ...rest.slice(0, keep - 1)];
}
