/**
 * Shared pieces of the QR and N-way kernel tests: the device intrinsics the MIMO kernels use that
 * the CUDA emulator (test/gpu/cuda-emulator.ts) lacks, as a header included before the kernel
 * files, and float32 Rayleigh channels with the CPU reference of the kernels' per-pass QR.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../gpu/cuda-emulator.js';
import { createHash } from 'node:crypto';
import type { Philox } from '../../src/core/rng.js';
import { qrInto } from '../../src/mimo/preprocess/qr.js';
import { dimOrderOfStreams, fillRealMatrix, type RealModel } from '../../src/mimo/soft/real-model.js';
import { rotatedStreams } from '../../src/mimo/detectors/ssfe/search.js';

const SHIMS = String.raw`
#pragma once
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; std::memcpy(&x, &f, 4); return x; }
template <class T> inline T __ldg(const T* p) { return *p; }
struct float4 { float x, y, z, w; };
inline float2 __ldg(const float2* p) { float2 r; std::memcpy(&r, (const void*)p, 8); return r; }
// fma rounded toward -inf (a x b + c exact in long double for floats, then rounded down)
inline float __fmaf_rd(float a, float b, float c) {
  const long double s = (long double)a * (long double)b + (long double)c;
  float f = (float)s;
  if ((long double)f > s) f = std::nextafter(f, -HUGE_VALF);
  return f;
}
// float addition rounded toward -inf (exact in double for floats, then rounded down)
inline float __fadd_rd(float a, float b) {
  const double s = (double)a + (double)b;
  float f = (float)s;
  if ((double)f > s) f = std::nextafter(f, -HUGE_VALF);
  return f;
}
inline float4 __ldg(const float4* p) { float4 r; std::memcpy(&r, (const void*)p, 16); return r; }
// __match_any_sync / __reduce_min_sync: every lane of the warp calls them together (as the MIMO
// kernels do), each with its own group's mask for the reduction.
inline unsigned __match_any_sync(unsigned, unsigned v) {
  const int w = emu_warp();
  emu_warp_slots[w].v[emu_lane()] = v;
  emu_warp_barriers[w]->arrive_and_wait();
  unsigned r = 0;
  for (unsigned l = 0; l < emu_warp_size(); l++) if (emu_warp_slots[w].v[l] == v) r |= 1u << l;
  emu_warp_barriers[w]->arrive_and_wait();
  return r;
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) {
  const int w = emu_warp();
  emu_warp_slots[w].v[emu_lane()] = v;
  emu_warp_barriers[w]->arrive_and_wait();
  unsigned r = 0xffffffffu;
  for (unsigned l = 0; l < emu_warp_size(); l++) if ((mask >> l) & 1u) r = (unsigned)emu_warp_slots[w].v[l] < r ? (unsigned)emu_warp_slots[w].v[l] : r;
  emu_warp_barriers[w]->arrive_and_wait();
  return r;
}
`;

/**
 * QR_CALL(H, y, out, problems, scale): the QR kernel of the build (-DQR_THREAD_KERNEL=1: qr-thread.cu,
 * 0: qr-batch.cu without its normalize stage), for the emulated programs' main().
 */
export const QR_CALL = String.raw`
#if QR_THREAD_KERNEL
#define QR_CALL(H, y, out, problems, scale) qr_thread(H, y, out, problems, scale)
#else
#define QR_CALL(H, y, out, problems, scale) qr_batch(H, y, out, problems, scale, nullptr, 0.f, nullptr, nullptr, nullptr, 0, 0LL)
#endif
`;

/**
 * Path of the intrinsics header for compileEmulated's kernel list, named by its content's hash so
 * that checkouts with other shims running at the same time never write over it.
 */
export function emulatorShims(): string {
  const dir = join(tmpdir(), 'lattice-mimo-emu');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `mimo-shims-${createHash('sha256').update(SHIMS).digest('hex').slice(0, 16)}.hpp`);
  writeFileAtomic(path, SHIMS);
  return path;
}

/** `count` Rayleigh channels (nr x nt complex, column-major) with float32 entries, so host and device see the same H. */
export function float32Channels(rng: Philox, count: number, nt: number, nr: number): Float32Array {
  const H = new Float32Array(2 * count * nr * nt);
  for (let i = 0; i < H.length; i++) H[i] = rng.normal() * Math.SQRT1_2;
  return H;
}

/** The CPU reference of one kernel QR: the MRVD channel c with streams rotated by `rotation`, factored by qrInto. */
export function referenceQr(
  m: RealModel,
  H: Float32Array,
  c: number,
  rotation: number,
  sorted: boolean,
): { Q: Float64Array; R: Float64Array; perm: Int32Array; A: Float64Array } {
  const H64 = Float64Array.from(H.subarray(2 * c * m.nr * m.nt, 2 * (c + 1) * m.nr * m.nt));
  const A = new Float64Array(m.rows * m.nd);
  fillRealMatrix(m, H64, 0, dimOrderOfStreams(m, rotatedStreams(m.nt, rotation)), A);
  const Q = new Float64Array(m.rows * m.nd),
    R = new Float64Array(m.nd * m.nd),
    perm = new Int32Array(m.nd);
  qrInto(A, 0, m.rows, m.nd, sorted ? 'ascending' : 'none', Q, R, perm);
  return { Q, R, perm, A };
}
