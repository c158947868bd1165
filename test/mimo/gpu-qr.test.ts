/**
 * The batched MGS QR kernel (src/mimo/gpu/preprocess/qr-batch.cu on mgs.cuh, the N-way paper's
 * Alg. 1): on fresh Rayleigh channels each record (Q, R, 1/R_ii, perm, flags) of every (channel,
 * rotated pass) equals the CPU's qrInto of the same MRVD matrix within float32 rounding, plain and
 * sorted (SQRD), QAM and BPSK, square and tall; a zero column is flagged RANK_DEFICIENT and a
 * dependent column flagged too. The z build (QR_Z, one received vector per channel) writes the same
 * R, 1/R_ii, perm and flags bit for bit, and z = Q^T y summed in the order the detector sums it. Runs in the CUDA emulator (no GPU needed) and, where a device
 * answers, on the GPU with many channels.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { Modulation } from '../../src/mimo/types.js';
import { realModel, type RealModel } from '../../src/mimo/soft/real-model.js';
import { mgsInPlace, qrInto } from '../../src/mimo/preprocess/qr.js';
import {
  defaultQrMapping,
  QR_BATCH_URL,
  QR_THREAD_BLOCK,
  QR_THREAD_MAX_ENTRIES,
  QR_THREAD_URL,
  QrBatchPlan,
  qrBatchDefines,
  qrBatchSharedBytes,
  qrGroupsPerBlock,
  qrRecordLayout,
  qrThreadDefines,
  qrThreadSharedBytes,
  type QrMapping,
  type QrThreadLaunch,
} from '../../src/mimo/gpu/preprocess/qr-batch.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream } from '../../src/gpu/stream.js';
import { CudaContext } from '../../src/gpu/context.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';
import { emulatorShims, float32Channels, QR_CALL, referenceQr } from './nway-emulation.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const cuda = cudaAvailable();
const skipGpu = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

/** Emulated program (QR_CALL: qr_batch or qr_thread): reads [problems, threads, sharedBytes, recordFloats, hFloats, yFloats] (int32), scale (float32), H, y; writes the records. */
const QR_MAIN =
  QR_CALL +
  String.raw`
int main() {
  int h[6]; float scale;
  if (fread(h, 4, 6, stdin) != 6 || fread(&scale, 4, 1, stdin) != 1) return 1;
  const int problems = h[0], threads = h[1], shared = h[2], record = h[3], hf = h[4], yf = h[5];
  std::vector<float> H(hf), y(yf), out((size_t)problems * record, -12345.f);
  if (fread(H.data(), 4, hf, stdin) != (size_t)hf || fread(y.data(), 4, yf, stdin) != (size_t)yf) return 1;
  const unsigned grid = (problems + QR_GROUPS - 1) / QR_GROUPS;
  if (emu_launch(grid, dim3{(unsigned)threads, 1, 1}, shared, [&] { QR_CALL(H.data(), yf ? y.data() : nullptr, out.data(), problems, scale); })) return 2;
  fwrite(out.data(), 4, out.size(), stdout);
  return 0;
}
`;

interface QrCase {
  nr: number;
  nt: number;
  mod: Modulation;
  passes: number;
  sorted: boolean;
  channels: number;
}

function modelOf(c: QrCase): RealModel {
  return realModel(constellation(c.mod), c.nt, c.nr);
}

/**
 * The kernel's records of the channels H (Q records; with y, one vector per channel, z records: the
 * QR_Z build), by qr-batch.cu (mapping 'column') or qr-thread.cu ('thread'), launched as QrBatchPlan does.
 */
function emulateQr(
  c: QrCase,
  H: Float32Array,
  y?: Float32Array,
  mapping: QrMapping = 'column',
  launch: QrThreadLaunch = {},
): Float32Array {
  const m = modelOf(c);
  const zOfVector = y !== undefined;
  const layout = qrRecordLayout(c.nr, c.nt, m.dimsPerStream, zOfVector);
  const shape = { nr: c.nr, nt: c.nt, dimsPerStream: m.dimsPerStream, passes: c.passes, sorted: c.sorted, zOfVector };
  const thread = mapping === 'thread';
  const groups = thread ? (launch.threads ?? QR_THREAD_BLOCK) : qrGroupsPerBlock(m.nd, c.passes);
  const threads = thread ? groups : groups * m.nd;
  const shared = thread
    ? qrThreadSharedBytes(layout.floats, threads, launch.chunk)
    : qrBatchSharedBytes(m.rows, m.nd, groups, layout.qRows);
  const defs = thread ? qrThreadDefines(shape, threads, launch.chunk) : qrBatchDefines(shape, groups);
  const defines = [...Object.entries(defs).map(([k, v]) => `-D${k}=${v}`), `-DQR_THREAD_KERNEL=${thread ? 1 : 0}`];
  const { exe, error } = compileEmulated(
    QR_MAIN,
    [emulatorShims(), fileURLToPath(thread ? QR_THREAD_URL : QR_BATCH_URL)],
    defines,
  );
  if (error) throw new Error(error);
  const problems = c.channels * c.passes;
  const yv = y ?? new Float32Array(0);
  const head = new Int32Array([problems, threads, shared, layout.floats, H.length, yv.length]);
  const input = Buffer.concat([
    Buffer.from(head.buffer),
    Buffer.from(new Float32Array([m.scale]).buffer),
    Buffer.from(H.buffer, H.byteOffset, H.byteLength),
    Buffer.from(yv.buffer, yv.byteOffset, yv.byteLength),
  ]);
  const out = runEmulated(exe, input);
  return new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4).slice();
}

/**
 * Checks every record against qrInto: R and Q within 2e-5 relative to the column norm (float32 MGS
 * on well-conditioned Rayleigh channels; a channel the kernel flags FLOAT32_UNSAFE is skipped), the
 * same perm (sorted: or another valid SQRD order where residual norms tie within float32, R then
 * checked against the QR in that order), 1/R_ii, and zeros below the diagonal.
 */
function checkRecords(c: QrCase, H: Float32Array, out: Float32Array): { flagged: number; permTies: number } {
  const m = modelOf(c);
  const L = qrRecordLayout(c.nr, c.nt, m.dimsPerStream);
  const ints = new Int32Array(out.buffer, out.byteOffset, out.length);
  let flagged = 0,
    permTies = 0;
  for (let ch = 0; ch < c.channels; ch++) {
    for (let p = 0; p < c.passes; p++) {
      const base = (ch * c.passes + p) * L.floats;
      const flags = ints[base + L.flags]!;
      assert.ok((flags & ~(MIMO_STATUS.FLOAT32_UNSAFE | MIMO_STATUS.RANK_DEFICIENT)) === 0, `unknown flags ${flags}`);
      if (flags !== 0) {
        flagged++;
        continue;
      }
      const perm = Int32Array.from({ length: m.nd }, (_, j) => ints[base + L.perm + j]!);
      let ref = referenceQr(m, H, ch, p, c.sorted);
      if (c.sorted && perm.some((v, j) => v !== ref.perm[j])) {
        // MRVD pairs (Re, Im of one stream) have equal residual norms in exact arithmetic, so SQRD
        // pivots tie by construction and rounding picks either: the kernel's order must be an SQRD
        // order up to float32 ties, and its R the QR of the columns in that order.
        permTies++;
        ref = permutedQr(m, ref.A, perm);
        for (let i = 0; i < m.nd; i++) {
          const res = (j: number, from: number): number => {
            let r = 0;
            for (let l = from; l <= j; l++) r += ref.R[l + j * m.nd]! ** 2;
            return r;
          };
          for (let j = i + 1; j < m.nd; j++) {
            // residual^2 of position j after i steps: |a_j|^2 - sum_{l<i} R_lj^2 = sum_{l>=i} R_lj^2; the
            // kernel downdates |a_j|^2 in float32, so its residuals are good to a few ulps of |a_j|^2
            const slack = 64 * 2 ** -24 * Math.max(res(i, 0), res(j, 0));
            assert.ok(
              res(i, i) <= res(j, i) + slack,
              `channel ${ch} pass ${p}: pivot ${i} is no SQRD choice (${res(i, i)} > ${res(j, i)} + ${slack})`,
            );
          }
        }
      }
      assert.deepEqual(Array.from(perm), Array.from(ref.perm), `channel ${ch} pass ${p}: perm`);
      let scale = 0;
      for (let k = 0; k < m.nd; k++)
        scale = Math.max(scale, Math.abs(ref.R[k + k * m.nd]!), Math.abs(ref.R[k * m.nd]!));
      for (let j = 0; j < m.nd; j++) {
        let colNorm = 0;
        for (let i = 0; i <= j; i++) colNorm += ref.R[i + j * m.nd]! ** 2;
        colNorm = Math.sqrt(colNorm);
        for (let i = 0; i < m.nd; i++) {
          const got = out[base + L.r + i + j * m.nd]!,
            want = ref.R[i + j * m.nd]!;
          if (i > j) assert.equal(got, 0, `R(${i}, ${j}) below the diagonal`);
          else
            assert.ok(
              Math.abs(got - want) <= 2e-5 * colNorm,
              `channel ${ch} pass ${p} R(${i}, ${j}) = ${got}, qrInto ${want}`,
            );
        }
        // R_jj comes from a downdated residual good to a few ulps of |a_j|^2: relative to R_jj that is
        // ulps times (|a_j| / R_jj)^2, large where the channel is close to singular
        const inv = out[base + L.invDiag + j]!,
          rjj = Math.abs(ref.R[j + j * m.nd]!);
        assert.ok(
          Math.abs(inv * ref.R[j + j * m.nd]! - 1) <= 1e-4 + 64 * 2 ** -24 * (colNorm / rjj) ** 2,
          `channel ${ch} pass ${p}: 1/R(${j}, ${j}) = ${inv}, qrInto R_jj ${ref.R[j + j * m.nd]}`,
        );
        for (let r = 0; r < m.rows; r++) {
          const got = out[base + r + j * m.rows]!,
            want = ref.Q[r + j * m.rows]!;
          // Q's column j carries the error of R_jj relative to the rest of the column.
          assert.ok(
            Math.abs(got - want) <= (2e-5 * scale) / ref.R[j + j * m.nd]!,
            `channel ${ch} pass ${p} Q(${r}, ${j}) = ${got}, qrInto ${want}`,
          );
        }
      }
    }
  }
  return { flagged, permTies };
}

/** x's float32 neighbour toward +inf (dir 1) or -inf (dir -1). */
function nextFloat32(x: number, dir: 1 | -1): number {
  if (x === 0) return dir * 2 ** -149;
  const f = new Float32Array([x]),
    i = new Int32Array(f.buffer);
  i[0]! += x > 0 === dir > 0 ? 1 : -1;
  return f[0]!;
}

/** a b + c rounded once to float32 (the GPU's fma) for float32 a, b, c: a b is exact in double, the sum's error (TwoSum) settles a float32 midpoint. */
function fmaf32(a: number, b: number, c: number): number {
  const p = a * b,
    s = p + c;
  const bb = s - p,
    err = p - (s - bb) + (c - bb);
  const f = Math.fround(s);
  if (f === s || err === 0) return f;
  const other = nextFloat32(f, f > s ? -1 : 1);
  if (Math.abs(f - s) !== Math.abs(other - s)) return f;
  return err > 0 ? Math.max(f, other) : Math.min(f, other);
}

/**
 * q . y in the detector's order (nway-detect.cu: d = 0, d += q_r y_r for r = 0, 1, ...): each step one
 * fma on the GPU (fused), a float32 product then a float32 sum in the emulator (-ffp-contract=off).
 */
function dotInKernelOrder(q: Float32Array, y: Float32Array, fused: boolean): number {
  let d = 0;
  for (let r = 0; r < q.length; r++) d = fused ? fmaf32(q[r]!, y[r]!, d) : Math.fround(d + Math.fround(q[r]! * y[r]!));
  return d;
}

const bitsOf = (x: number): number => new Int32Array(new Float32Array([x]).buffer)[0]!;

/**
 * The z records (zOfVector) against the Q records of the same channels: the same R, 1/R_ii, perm and
 * flags bit for bit, z_k = Q's column k . y (channel ch's vector at y[ch rows ..]) in the detector's
 * order bit for bit, zero padding, and the record size QR_REC_FLOATS(1, nd).
 */
function checkZRecords(c: QrCase, qOut: Float32Array, zOut: Float32Array, y: Float32Array, fused: boolean): void {
  const m = modelOf(c);
  const LQ = qrRecordLayout(c.nr, c.nt, m.dimsPerStream),
    LZ = qrRecordLayout(c.nr, c.nt, m.dimsPerStream, true);
  const nd = m.nd,
    rows = m.rows;
  assert.equal(LZ.qRows, 1);
  assert.equal(LZ.r, nd);
  assert.equal(LZ.floats, Math.ceil((nd + nd * nd + 2 * nd + 1) / 4) * 4);
  assert.equal(zOut.length, c.channels * c.passes * LZ.floats);
  const qi = new Int32Array(qOut.buffer, qOut.byteOffset, qOut.length),
    zi = new Int32Array(zOut.buffer, zOut.byteOffset, zOut.length);
  for (let ch = 0; ch < c.channels; ch++) {
    const yc = y.subarray(ch * rows, (ch + 1) * rows);
    for (let p = 0; p < c.passes; p++) {
      const bq = (ch * c.passes + p) * LQ.floats,
        bz = (ch * c.passes + p) * LZ.floats;
      for (let e = 0; e < LZ.flags + 1 - LZ.r; e++) {
        assert.equal(
          zi[bz + LZ.r + e],
          qi[bq + LQ.r + e],
          `channel ${ch} pass ${p}: word ${e} after z (R, 1/R_ii, perm, flags)`,
        );
      }
      for (let e = LZ.flags + 1; e < LZ.floats; e++)
        assert.equal(zi[bz + e], 0, `channel ${ch} pass ${p}: padding word ${e}`);
      for (let k = 0; k < nd; k++) {
        const want = dotInKernelOrder(qOut.subarray(bq + k * rows, bq + (k + 1) * rows), yc, fused);
        assert.equal(
          zi[bz + k],
          bitsOf(want),
          `channel ${ch} pass ${p}: z_${k} = ${zOut[bz + k]}, Q^T y in the kernel's order ${want}`,
        );
      }
    }
  }
}

/** The unsorted QR of A's columns taken in `perm`'s order, its perm set to `perm`. */
function permutedQr(
  m: RealModel,
  A: Float64Array,
  perm: Int32Array,
): { Q: Float64Array; R: Float64Array; perm: Int32Array; A: Float64Array } {
  const P = new Float64Array(A.length);
  for (let j = 0; j < m.nd; j++) P.set(A.subarray(perm[j]! * m.rows, (perm[j]! + 1) * m.rows), j * m.rows);
  const Q = new Float64Array(m.rows * m.nd),
    R = new Float64Array(m.nd * m.nd),
    unused = new Int32Array(m.nd);
  qrInto(P, 0, m.rows, m.nd, 'none', Q, R, unused);
  return { Q, R, perm: Int32Array.from(perm), A: P };
}

const CASES: QrCase[] = [
  { nr: 4, nt: 4, mod: '16qam', passes: 4, sorted: false, channels: 24 },
  { nr: 2, nt: 2, mod: 'qpsk', passes: 2, sorted: false, channels: 40 },
  { nr: 4, nt: 2, mod: '64qam', passes: 1, sorted: true, channels: 40 },
  { nr: 3, nt: 3, mod: 'bpsk', passes: 3, sorted: true, channels: 30 },
  { nr: 4, nt: 4, mod: '64qam', passes: 2, sorted: true, channels: 20 },
  { nr: 8, nt: 8, mod: 'qpsk', passes: 2, sorted: false, channels: 6 },
];

test('QR kernel (emulated): every rotated pass equals qrInto on fresh Rayleigh channels', { skip: skipEmu }, () => {
  for (const c of CASES) {
    const H = float32Channels(new Philox(randomInt(2 ** 31)), c.channels, c.nt, c.nr);
    const { flagged } = checkRecords(c, H, emulateQr(c, H));
    const total = c.channels * c.passes;
    assert.ok(flagged <= Math.max(1, total / 20), `${JSON.stringify(c)}: ${flagged} of ${total} flagged`);
  }
});

test("QR kernel (emulated): the z build (one vector per channel) writes the Q build's R, 1/R_ii, perm and flags and z = Q^T y in the detector's order, bit for bit", {
  skip: skipEmu,
}, () => {
  for (const c of CASES) {
    const rng = new Philox(randomInt(2 ** 31));
    const H = float32Channels(rng, c.channels, c.nt, c.nr);
    const y = new Float32Array(c.channels * 2 * c.nr).map(() => rng.normal());
    const qOut = emulateQr(c, H);
    checkZRecords(c, qOut, emulateQr(c, H, y), y, false);
  }
});

/** Unsorted shapes for the thread-per-QR kernel: 4x4 QAM with 1..4 passes, 2x2, 8x8, tall, BPSK square and tall, 3x3 QPSK (nd = 6). */
const THREAD_CASES: QrCase[] = [
  { nr: 4, nt: 4, mod: '16qam', passes: 4, sorted: false, channels: 45 },
  { nr: 4, nt: 4, mod: '16qam', passes: 3, sorted: false, channels: 23 },
  { nr: 4, nt: 4, mod: '64qam', passes: 2, sorted: false, channels: 70 },
  { nr: 4, nt: 4, mod: '16qam', passes: 1, sorted: false, channels: 140 },
  { nr: 2, nt: 2, mod: 'qpsk', passes: 2, sorted: false, channels: 75 },
  { nr: 8, nt: 8, mod: 'qpsk', passes: 2, sorted: false, channels: 9 },
  { nr: 4, nt: 2, mod: '64qam', passes: 2, sorted: false, channels: 50 },
  { nr: 3, nt: 3, mod: 'bpsk', passes: 3, sorted: false, channels: 50 },
  { nr: 6, nt: 4, mod: 'bpsk', passes: 4, sorted: false, channels: 33 },
  { nr: 3, nt: 3, mod: 'qpsk', passes: 3, sorted: false, channels: 40 },
];

/**
 * Fresh Rayleigh channels, some of them degraded so that every flag path runs: a zero stream, a
 * stream twice another (dependent), a stream another plus 1e-5 noise (near-dependent: FLOAT32_UNSAFE
 * or RANK_DEFICIENT), a stream of 1e30 entries (its norm, and its residuals', overflow), a stream of 1e-30 entries (its
 * norm underflows). Returns the channels and the degraded ones with their kind (0 .. 4 in that order).
 */
function degradedChannels(rng: Philox, c: QrCase): { H: Float32Array; degraded: { ch: number; kind: number }[] } {
  const H = float32Channels(rng, c.channels, c.nt, c.nr);
  const col = (ch: number, j: number): number => 2 * (ch * c.nr * c.nt + j * c.nr);
  const n = 2 * c.nr;
  const degraded: { ch: number; kind: number }[] = [];
  const kinds = [
    (ch: number, a: number): void => {
      for (let i = 0; i < n; i++) H[col(ch, a) + i] = 0;
    },
    (ch: number, a: number, b: number): void => {
      for (let i = 0; i < n; i++) H[col(ch, a) + i] = 2 * H[col(ch, b) + i]!;
    },
    (ch: number, a: number, b: number): void => {
      for (let i = 0; i < n; i++) H[col(ch, a) + i] = H[col(ch, b) + i]! + 1e-5 * rng.normal();
    },
    (ch: number, a: number): void => {
      for (let i = 0; i < n; i++) H[col(ch, a) + i] = 1e30 * (1 + rng.uniform());
    },
    (ch: number, a: number): void => {
      for (let i = 0; i < n; i++) H[col(ch, a) + i] = 1e-30 * rng.normal();
    },
  ];
  for (const [i, kind] of kinds.entries()) {
    const ch = (7 * i + rng.int(5)) % c.channels;
    if (degraded.some((d) => d.ch === ch)) continue;
    const a = rng.int(c.nt);
    kind(ch, a, (a + 1 + rng.int(c.nt - 1)) % c.nt);
    degraded.push({ ch, kind: i });
  }
  return { H, degraded };
}

/** Two runs' records equal word for word (raw 32-bit words: NaN payloads, signed zeros and flags included). */
function assertSameWords(want: Float32Array, got: Float32Array, recordFloats: number, what: string): void {
  assert.equal(got.length, want.length, `${what}: record floats`);
  const a = new Int32Array(want.buffer, want.byteOffset, want.length),
    b = new Int32Array(got.buffer, got.byteOffset, got.length);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i])
      assert.fail(
        `${what}: record ${Math.floor(i / recordFloats)} word ${i % recordFloats}: column mapping ${want[i]} (0x${(a[i]! >>> 0).toString(16)}), thread mapping ${got[i]} (0x${(b[i]! >>> 0).toString(16)})`,
      );
  }
}

/**
 * The flags are what the degraded channels call for in every pass: RANK_DEFICIENT for a zero,
 * overflowing or underflowing stream, some flag for a (near-)dependent one; returns the number of
 * healthy records left unflagged.
 */
function checkDegradedFlags(
  c: QrCase,
  out: Float32Array,
  zOfVector: boolean,
  degraded: { ch: number; kind: number }[],
): number {
  const L = qrRecordLayout(c.nr, c.nt, modelOf(c).dimsPerStream, zOfVector);
  const ints = new Int32Array(out.buffer, out.byteOffset, out.length);
  let clean = 0;
  for (let ch = 0; ch < c.channels; ch++) {
    const d = degraded.find((x) => x.ch === ch);
    for (let p = 0; p < c.passes; p++) {
      const f = ints[(ch * c.passes + p) * L.floats + L.flags]!;
      if (!d) {
        if (f === 0) clean++;
        continue;
      }
      if (d.kind === 1 || d.kind === 2)
        assert.ok(
          f & (MIMO_STATUS.RANK_DEFICIENT | MIMO_STATUS.FLOAT32_UNSAFE),
          `${JSON.stringify(c)} channel ${ch} (dependent stream) pass ${p}: flags ${f}`,
        );
      else
        assert.ok(
          f & MIMO_STATUS.RANK_DEFICIENT,
          `${JSON.stringify(c)} channel ${ch} (degraded kind ${d.kind}) pass ${p}: flags ${f}`,
        );
    }
  }
  return clean;
}

test("QR kernel, one thread per QR (emulated): qr-thread.cu writes qr-batch.cu's records bit for bit, Q and z records, healthy and degraded channels, other block sizes and staging chunks", {
  skip: skipEmu,
}, () => {
  // the default launch, and for every third shape 64 threads staging whole records or 32 staging 3 words at a time
  const launchOf = (ci: number): QrThreadLaunch =>
    ci % 3 !== 1 ? {} : ci % 2 === 1 ? { threads: 64, chunk: 64 } : { threads: 32, chunk: 3 };
  for (const [ci, c] of THREAD_CASES.entries()) {
    const launch = launchOf(ci);
    const rng = new Philox(randomInt(2 ** 31));
    const { H, degraded } = degradedChannels(rng, c);
    const y = new Float32Array(c.channels * 2 * c.nr).map(() => rng.normal());
    const m = modelOf(c);
    for (const zOfVector of [false, true]) {
      const want = emulateQr(c, H, zOfVector ? y : undefined, 'column');
      const got = emulateQr(c, H, zOfVector ? y : undefined, 'thread', launch);
      assertSameWords(
        want,
        got,
        qrRecordLayout(c.nr, c.nt, m.dimsPerStream, zOfVector).floats,
        `${JSON.stringify(c)} ${JSON.stringify(launch)} z=${zOfVector}`,
      );
      const clean = checkDegradedFlags(c, got, zOfVector, degraded);
      assert.ok(
        clean >= 0.9 * (c.channels - degraded.length) * c.passes,
        `${JSON.stringify(c)}: ${clean} healthy records unflagged`,
      );
    }
  }
});

test('QR plan: the thread mapping refuses SQRD and bad launch choices, defaultQrMapping is the thread one for unsorted shapes up to QR_THREAD_MAX_ENTRIES real entries', () => {
  assert.equal(QR_THREAD_MAX_ENTRIES, 96);
  assert.equal(defaultQrMapping(4, 4, 2, false), 'thread');
  assert.equal(defaultQrMapping(6, 6, 1, false), 'thread');
  assert.equal(defaultQrMapping(8, 4, 2, false), 'column');
  assert.equal(defaultQrMapping(8, 8, 2, false), 'column');
  assert.equal(defaultQrMapping(8, 8, 1, false), 'column');
  assert.equal(defaultQrMapping(4, 4, 2, true), 'column');
  // shared memory: by default a whole record a thread (4x4 z record: 92 floats, 23 16-byte words, odd
  // already); 8 words at a time when asked (made odd: 9)
  assert.equal(qrThreadSharedBytes(qrRecordLayout(4, 4, 2, true).floats, 128), 128 * 23 * 16);
  assert.equal(qrThreadSharedBytes(qrRecordLayout(4, 4, 2, true).floats, 128, 8), 128 * 9 * 16);
  // 1x1 BPSK z record: 5 floats padded to 8, 2 words staged at a time, stride 3
  assert.equal(qrThreadSharedBytes(qrRecordLayout(1, 1, 1, true).floats, 32), 32 * 3 * 16);
  // the shape checks come before any compile: no device needed
  const noDevice = null as unknown as CudaContext;
  assert.throws(
    () =>
      new QrBatchPlan(
        noDevice,
        { nr: 4, nt: 4, dimsPerStream: 2, passes: 2, sorted: true, zOfVector: false, mapping: 'thread' },
        1,
      ),
    InvalidArgumentError,
  );
  assert.throws(
    () =>
      new QrBatchPlan(
        noDevice,
        { nr: 4, nt: 4, dimsPerStream: 2, passes: 2, sorted: false, zOfVector: false, mapping: 'rows' as QrMapping },
        1,
      ),
    InvalidArgumentError,
  );
  for (const bad of [{ threads: 48 }, { threads: 2048 }, { chunk: 0 }, { chunk: 2.5 }, { chunk: 65 }]) {
    assert.throws(
      () =>
        new QrBatchPlan(
          noDevice,
          { nr: 4, nt: 4, dimsPerStream: 2, passes: 2, sorted: false, zOfVector: true, mapping: 'thread' },
          1,
          undefined,
          bad,
        ),
      InvalidArgumentError,
      JSON.stringify(bad),
    );
  }
});

test('QR kernel launch: a block holds whole channels (a multiple of the passes) and at least a full warp, at most 1024 threads, for every shape', () => {
  for (let nt = 1; nt <= 16; nt++) {
    for (const dps of [1, 2]) {
      const nd = dps * nt;
      for (let passes = 1; passes <= nt; passes++) {
        const groups = qrGroupsPerBlock(nd, passes),
          threads = groups * nd;
        assert.equal(groups % passes, 0, `nd ${nd}, ${passes} passes: ${groups} QRs a block`);
        assert.ok(threads >= 32 && threads <= 1024, `nd ${nd}, ${passes} passes: ${threads} threads a block`);
      }
    }
  }
});

test("fmaf32 (the GPU check's fma) rounds a b + c once to the nearest float32, ties to even", () => {
  // exact: every float32 is an integer multiple of 2^-149
  const S = 2n ** 149n,
    big = (x: number): bigint => BigInt(x * 2 ** 149);
  const check = (a: number, b: number, c: number): void => {
    const f = fmaf32(a, b, c),
      n = big(a) * big(b) + big(c) * S;
    const dist = (x: number): bigint => {
      const d = n - big(x) * S;
      return d < 0n ? -d : d;
    };
    const d = dist(f),
      lo = dist(nextFloat32(f, -1)),
      hi = dist(nextFloat32(f, 1));
    assert.ok(d <= lo && d <= hi, `fmaf32(${a}, ${b}, ${c}) = ${f} is not the nearest float32`);
    if (d === lo || d === hi) assert.equal(bitsOf(f) & 1, 0, `fmaf32(${a}, ${b}, ${c}) = ${f}: a tie not to even`);
  };
  // a b + c where the double sum lands on a float32 midpoint: 2^46 + 1 = 8392705 x 8384513, 2^46 - 1 = (2^23 - 1)(2^23 + 1)
  check(8392705 * 2 ** -23, 8384513 * 2 ** -47, 1 + 2 ** -22);
  check((2 ** 23 - 1) * 2 ** -23, (2 ** 23 + 1) * 2 ** -47, 1 + 2 ** -23);
  assert.equal(fmaf32(8392705 * 2 ** -23, 8384513 * 2 ** -47, 1 + 2 ** -22), 1 + 2 ** -22 + 2 ** -23);
  assert.equal(fmaf32((2 ** 23 - 1) * 2 ** -23, (2 ** 23 + 1) * 2 ** -47, 1 + 2 ** -23), 1 + 2 ** -23);
  const f32 = fc.float({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
  fc.assert(
    fc.property(f32, f32, f32, (a, b, c) => check(a, b, c)),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(f32, f32, fc.integer({ min: -64, max: 64 }), (a, b, k) =>
      check(a, b, Math.fround(-Math.fround(a * b) * (1 + k * 2 ** -23))),
    ),
    { numRuns: 2000 },
  );
});

test('QR kernel (emulated): a zero column is RANK_DEFICIENT, a dependent column is flagged, the others not', {
  skip: skipEmu,
}, () => {
  const c: QrCase = { nr: 4, nt: 4, mod: '16qam', passes: 4, sorted: false, channels: 4 };
  const H = float32Channels(new Philox(randomInt(2 ** 31)), c.channels, c.nt, c.nr);
  const col = (ch: number, j: number): number => 2 * (ch * c.nr * c.nt + j * c.nr);
  for (let i = 0; i < 2 * c.nr; i++) H[col(1, 2) + i] = 0; // channel 1: stream 2 is zero
  for (let i = 0; i < 2 * c.nr; i++) H[col(2, 3) + i] = 2 * H[col(2, 0) + i]!; // channel 2: stream 3 = 2 stream 0
  const out = emulateQr(c, H);
  const L = qrRecordLayout(c.nr, c.nt, 2);
  const ints = new Int32Array(out.buffer);
  for (let ch = 0; ch < c.channels; ch++) {
    for (let p = 0; p < c.passes; p++) {
      const f = ints[(ch * c.passes + p) * L.floats + L.flags]!;
      if (ch === 1) assert.ok(f & MIMO_STATUS.RANK_DEFICIENT, `zero column: flags ${f}`);
      else if (ch === 2)
        assert.ok(f & (MIMO_STATUS.RANK_DEFICIENT | MIMO_STATUS.FLOAT32_UNSAFE), `dependent column: flags ${f}`);
      else assert.equal(f, 0, `channel ${ch} pass ${p}: flags ${f}`);
    }
  }
});

/**
 * mgs.cuh on the extended matrix [A | Y] (the paper's V = [H~ | y~]), in a kernel of the test's own:
 * G groups a block, ROWS x (ND + X) matrices; writes E (ND x (ND + X), by position: R then Q^T Y) and
 * the residual columns of Y.
 */
const MGS_EXT_MAIN = String.raw`
#include "${'MGS_PATH'}"
typedef MgsLayout<X_ROWS, X_ND, X_NCOLS> L_t;
void ext_kernel(const float* A, float* E, float* res, int count) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* base = (float*)smem;
  const int t = threadIdx.x, g = t / X_NCOLS, k = t - g * X_NCOLS, prob = blockIdx.x * X_G + g;
  const bool active = prob < count;
  L_t L(base, X_G, g);
  if (active) for (int r = 0; r < X_ROWS; r++) L.V[k * L_t::LD + r] = A[(size_t)prob * X_ROWS * X_NCOLS + k * X_ROWS + r];
  const int flags = mgs_factor<X_ROWS, X_ND, X_NCOLS, X_SORTED != 0>(L, nullptr, 0, k, active);
  if (!active) return;
  for (int i = 0; i < X_ND; i++) {
    // column k's entry of row i: R's columns by position (mgs_phys), the extra columns as they are
    const int phys = k < X_ND ? mgs_phys<X_ND, X_SORTED != 0>(L.colOf, k) : k;
    E[(size_t)prob * X_ND * X_NCOLS + i + k * X_ND] = (k < X_ND && i > k) ? 0.f : L.E[i + phys * X_ND];
  }
  if (k >= X_ND) for (int r = 0; r < X_ROWS; r++) res[(size_t)prob * X_ROWS * (X_NCOLS - X_ND) + (k - X_ND) * X_ROWS + r] = L.V[k * L_t::LD + r];
  if (k == 0) E[(size_t)prob * X_ND * X_NCOLS] = flags ? -1.f : E[(size_t)prob * X_ND * X_NCOLS];
}
int main() {
  int h[2];
  if (fread(h, 4, 2, stdin) != 2) return 1;
  const int count = h[0], shared = h[1];
  std::vector<float> A((size_t)count * X_ROWS * X_NCOLS), E((size_t)count * X_ND * X_NCOLS, -5.f), R((size_t)count * X_ROWS * (X_NCOLS - X_ND), -5.f);
  if (fread(A.data(), 4, A.size(), stdin) != A.size()) return 1;
  if (emu_launch((count + X_G - 1) / X_G, dim3{(unsigned)(X_G * X_NCOLS), 1, 1}, shared, [&] { ext_kernel(A.data(), E.data(), R.data(), count); })) return 2;
  fwrite(E.data(), 4, E.size(), stdout);
  fwrite(R.data(), 4, R.size(), stdout);
  return 0;
}
`;

test('mgs.cuh (emulated) on the extended matrix [A | Y]: E = [R | Q^T Y] and the residuals of Y equal mgsInPlace (plain) and qrInto (sorted)', {
  skip: skipEmu,
}, () => {
  const mgsPath = fileURLToPath(new URL('./mgs.cuh', QR_BATCH_URL));
  for (const [rows, nd, extra, sorted] of [
    [8, 8, 3, false],
    [8, 4, 1, true],
    [6, 6, 2, true],
    [16, 16, 1, false],
  ] as const) {
    const ncols = nd + extra,
      count = 20,
      G = 4;
    const rng = new Philox(randomInt(2 ** 31));
    const A = new Float32Array(count * rows * ncols).map(() => rng.normal());
    const { exe, error } = compileEmulated(
      MGS_EXT_MAIN.replace('MGS_PATH', mgsPath),
      [emulatorShims()],
      [`-DX_ROWS=${rows}`, `-DX_ND=${nd}`, `-DX_NCOLS=${ncols}`, `-DX_SORTED=${sorted ? 1 : 0}`, `-DX_G=${G}`],
    );
    if (error) throw new Error(error);
    const groupFloats = ncols * (rows | 1) + nd * ncols + ncols + 2 * ncols + 2 * nd;
    const out = runEmulated(
      exe,
      Buffer.concat([Buffer.from(new Int32Array([count, G * groupFloats * 4]).buffer), Buffer.from(A.buffer)]),
    );
    const f = new Float32Array(out.buffer, out.byteOffset, out.byteLength / 4);
    for (let b = 0; b < count; b++) {
      const V = Float64Array.from(A.subarray(b * rows * ncols, (b + 1) * rows * ncols));
      let E: Float64Array;
      if (!sorted) {
        E = new Float64Array(nd * ncols);
        mgsInPlace(V, 0, rows, ncols, nd, E);
      } else {
        const Q = new Float64Array(rows * nd),
          R = new Float64Array(nd * nd),
          perm = new Int32Array(nd);
        qrInto(V, 0, rows, nd, 'ascending', Q, R, perm);
        E = new Float64Array(nd * ncols);
        E.set(R);
        for (let x = nd; x < ncols; x++) {
          // Q^T y and y's residual y - Q Q^T y
          for (let i = 0; i < nd; i++) {
            let d = 0;
            for (let r = 0; r < rows; r++) d += Q[r + i * rows]! * V[r + x * rows]!;
            E[i + x * nd] = d;
          }
          for (let r = 0; r < rows; r++) {
            let s = V[r + x * rows]!;
            for (let i = 0; i < nd; i++) s -= Q[r + i * rows]! * E[i + x * nd]!;
            V[r + x * rows] = s;
          }
        }
      }
      let scale = 0;
      for (const x of A.subarray(b * rows * ncols, (b + 1) * rows * ncols)) scale = Math.max(scale, Math.abs(x));
      if (f[b * nd * ncols] === -1) {
        // flagged: a random Gaussian matrix is that ill-conditioned about once in 2000 (a pivot's
        // residual within 2^-12 of its column's norm); the float64 QR must show it (within float32's margin)
        let minDiag = Infinity,
          maxCol = 0;
        for (let i = 0; i < nd; i++) {
          minDiag = Math.min(minDiag, Math.abs(E[i + i * nd]!));
          let c2 = 0;
          for (let r = 0; r < rows; r++) c2 += A[b * rows * ncols + i * rows + r]! ** 2;
          maxCol = Math.max(maxCol, Math.sqrt(c2));
        }
        assert.ok(
          minDiag <= 2 ** -10 * maxCol,
          `${rows}x${nd}+${extra} sorted=${sorted} problem ${b}: flagged, but its least |R_ii| is ${minDiag} of a column norm up to ${maxCol}`,
        );
        continue;
      }
      // Y's columns ride on Q: float32 projections lose Q's orthogonality by about eps * kappa(A), so
      // Q^T Y and Y's residual (zero for a square A) carry that much of |Y|; kappa from R's diagonal
      // (a lower bound of A's condition number; measured errors stay below 0.013 kappa of 2e-5 scale rows)
      let minR = Infinity,
        maxR = 0;
      for (let i = 0; i < nd; i++) {
        minR = Math.min(minR, Math.abs(E[i + i * nd]!));
        maxR = Math.max(maxR, Math.abs(E[i + i * nd]!));
      }
      const tolR = 2e-5 * scale * rows,
        tolY = tolR * Math.max(1, maxR / minR / 16);
      for (let i = 0; i < nd * ncols; i++) {
        assert.ok(
          Math.abs(f[b * nd * ncols + i]! - E[i]!) <= (i < nd * nd ? tolR : tolY),
          `${rows}x${nd}+${extra} sorted=${sorted} problem ${b}: E[${i}] = ${f[b * nd * ncols + i]}, reference ${E[i]}`,
        );
      }
      const resOff = count * nd * ncols + b * rows * extra;
      for (let i = 0; i < rows * extra; i++) {
        assert.ok(
          Math.abs(f[resOff + i]! - V[nd * rows + i]!) <= tolY,
          `${rows}x${nd}+${extra} sorted=${sorted} problem ${b}: residual ${i} = ${f[resOff + i]}, reference ${V[nd * rows + i]}`,
        );
      }
    }
  }
});

test('QR kernel (GPU): 10^4 channels per shape equal qrInto', { skip: skipGpu }, () => {
  const ctx = CudaContext.get(0);
  ctx.makeCurrent();
  const stream = Stream.create(ctx);
  for (const base of CASES) {
    const c = { ...base, channels: 10_000 };
    const m = modelOf(c);
    const H = float32Channels(new Philox(randomInt(2 ** 31)), c.channels, c.nt, c.nr);
    const plan = new QrBatchPlan(
      ctx,
      { nr: c.nr, nt: c.nt, dimsPerStream: m.dimsPerStream, passes: c.passes, sorted: c.sorted, zOfVector: false },
      m.scale,
    );
    const dH = DeviceBuffer.alloc(ctx, H.byteLength),
      dOut = DeviceBuffer.alloc(ctx, c.channels * plan.bytesPerChannel);
    dH.upload(H);
    dOut.fill(0xff);
    plan.enqueue(stream, dH.ptr, 0n, dOut.ptr, c.channels);
    stream.synchronize();
    const out = new Float32Array((c.channels * plan.bytesPerChannel) / 4);
    dOut.download(out);
    dH.free();
    dOut.free();
    const { flagged, permTies } = checkRecords(c, H, out);
    console.log(
      `QR ${JSON.stringify(base)} x 10^4: ${flagged} flagged FLOAT32_UNSAFE, ${permTies} SQRD pivot ties resolved the other way`,
    );
    assert.ok(flagged <= (c.channels * c.passes) / 200, `${JSON.stringify(base)}: ${flagged} flagged`);
    // the z build on the same channels and one vector each
    const zPlan = new QrBatchPlan(
      ctx,
      { nr: c.nr, nt: c.nt, dimsPerStream: m.dimsPerStream, passes: c.passes, sorted: c.sorted, zOfVector: true },
      m.scale,
    );
    const rng = new Philox(randomInt(2 ** 31));
    const y = new Float32Array(c.channels * 2 * c.nr).map(() => rng.normal());
    const zH = DeviceBuffer.alloc(ctx, H.byteLength),
      zY = DeviceBuffer.alloc(ctx, y.byteLength),
      zOut = DeviceBuffer.alloc(ctx, c.channels * zPlan.bytesPerChannel);
    zH.upload(H);
    zY.upload(y);
    zOut.fill(0xff);
    assert.throws(() => zPlan.enqueue(stream, zH.ptr, 0n, zOut.ptr, c.channels), InvalidArgumentError);
    zPlan.enqueue(stream, zH.ptr, zY.ptr, zOut.ptr, c.channels);
    stream.synchronize();
    const zRec = new Float32Array((c.channels * zPlan.bytesPerChannel) / 4);
    zOut.download(zRec);
    zH.free();
    zY.free();
    zOut.free();
    checkZRecords(c, out, zRec, y, true);
  }
  stream.destroy();
});

/** The plan's records on the GPU (mapping 'column' or 'thread'; with y, z records). */
function gpuRecords(
  ctx: CudaContext,
  stream: Stream,
  c: QrCase,
  H: Float32Array,
  y: Float32Array | undefined,
  mapping: QrMapping,
  launch: QrThreadLaunch = {},
): Float32Array {
  const m = modelOf(c);
  const plan = new QrBatchPlan(
    ctx,
    {
      nr: c.nr,
      nt: c.nt,
      dimsPerStream: m.dimsPerStream,
      passes: c.passes,
      sorted: false,
      zOfVector: y !== undefined,
      mapping,
    },
    m.scale,
    undefined,
    launch,
  );
  assert.equal(plan.mapping, mapping);
  const dH = DeviceBuffer.alloc(ctx, H.byteLength),
    dY = DeviceBuffer.alloc(ctx, Math.max(4, y?.byteLength ?? 0)),
    dOut = DeviceBuffer.alloc(ctx, c.channels * plan.bytesPerChannel);
  dH.upload(H);
  if (y) dY.upload(y);
  dOut.fill(0xff);
  plan.enqueue(stream, dH.ptr, y ? dY.ptr : 0n, dOut.ptr, c.channels);
  stream.synchronize();
  const out = new Float32Array((c.channels * plan.bytesPerChannel) / 4);
  dOut.download(out);
  dH.free();
  dY.free();
  dOut.free();
  return out;
}

test("QR kernel, one thread per QR (GPU): 10^4+ channels per shape, Q and z records equal qr-batch.cu's bit for bit (nvcc's fma contraction included)", {
  skip: skipGpu,
}, () => {
  const ctx = CudaContext.get(0);
  ctx.makeCurrent();
  const stream = Stream.create(ctx);
  for (const base of THREAD_CASES) {
    // an odd count: the last block and warp are partial
    const c = { ...base, channels: 10_000 + 2 * base.passes + 1 };
    const rng = new Philox(randomInt(2 ** 31));
    const { H, degraded } = degradedChannels(rng, c);
    const y = new Float32Array(c.channels * 2 * c.nr).map(() => rng.normal());
    const m = modelOf(c);
    for (const zOfVector of [false, true]) {
      const yy = zOfVector ? y : undefined;
      const want = gpuRecords(ctx, stream, c, H, yy, 'column'),
        got = gpuRecords(ctx, stream, c, H, yy, 'thread');
      assertSameWords(
        want,
        got,
        qrRecordLayout(c.nr, c.nt, m.dimsPerStream, zOfVector).floats,
        `GPU ${JSON.stringify(base)} z=${zOfVector}`,
      );
      const clean = checkDegradedFlags(c, got, zOfVector, degraded);
      assert.ok(
        clean >= 0.99 * (c.channels - degraded.length) * c.passes,
        `${JSON.stringify(base)}: ${clean} healthy records unflagged`,
      );
      // other launch choices: 64 threads staging whole records, 256 staging 3 words at a time
      for (const launch of [
        { threads: 64, chunk: 64 },
        { threads: 256, chunk: 3 },
      ]) {
        assertSameWords(
          want,
          gpuRecords(ctx, stream, c, H, yy, 'thread', launch),
          qrRecordLayout(c.nr, c.nt, m.dimsPerStream, zOfVector).floats,
          `GPU ${JSON.stringify(base)} ${JSON.stringify(launch)} z=${zOfVector}`,
        );
      }
    }
  }
  stream.destroy();
});
