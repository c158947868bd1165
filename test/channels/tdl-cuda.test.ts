/**
 * The TDL models' CUDA generator (tdl-taps.cu, tdl-correlate.cu, tdl-grid.cu) against the CPU generator on fresh
 * seeds, spans, shapes and parameters (Doppler, LOS, correlation): in the CUDA emulator here, on
 * the device where there is one. float64 within a few ulps of the sum's magnitude (the device's cos,
 * sin and log may differ from V8's in the last ulp), float32 the float64 rounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CHANNEL_REGISTRY, type ChannelSpan, type ResponsePoints } from '../../src/channels/index.js';
import { losRate, type TdlParams, tapRotations, tdlSetup } from '../../src/channels/tdl/cpu.js';
import type { TdlName } from '../../src/channels/tdl/tables.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;

interface Case {
  name: TdlName;
  nt: number;
  nr: number;
  params: TdlParams;
  span: ChannelSpan;
  at: ResponsePoints;
}

function randomCase(): Case {
  const names: TdlName[] = ['tdl-a', 'tdl-c', 'tdl-d', 'tdl-e', 'tdl-b100'];
  const name = names[randomInt(names.length)]!;
  const corr = randomInt(3);
  const params: TdlParams = {
    speed: Math.random() * 60,
    sinusoids: 1 + randomInt(12),
    ...(corr === 1 ? { correlation: 'high' as const } : corr === 2 ? { rhoTx: { re: 0.3, im: -0.5 }, rhoRx: 0.6 } : {}),
  };
  const T = 1 + randomInt(4),
    F = 1 + randomInt(30);
  return {
    name,
    nt: 1 + randomInt(4),
    nr: 1 + randomInt(4),
    params,
    span: {
      seed,
      stream0: randomInt(2 ** 30),
      streamStep: 4,
      perStream: 1 + randomInt(3),
      first: randomInt(5),
      count: 1 + randomInt(4),
    },
    at: {
      times: Float64Array.from({ length: T }, () => Math.random() * 2e-3),
      freqs: Float64Array.from({ length: F }, () => (Math.random() - 0.5) * 1e8),
    },
  };
}

/** Largest |gpu - cpu| over the scale of the entry (its magnitude, at least 1), and float32 rounding. */
function compare(c: Case, H64: Float64Array, H32: Float32Array): number {
  const want = CHANNEL_REGISTRY[c.name].cpu({ nt: c.nt, nr: c.nr }, c.params).response!(c.span, c.at);
  assert.equal(H64.length, want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    worst = Math.max(worst, Math.abs(H64[i]! - want[i]!) / Math.max(1, Math.abs(want[i]!)));
    assert.equal(H32[i], Math.fround(H64[i]!), `H32[${i}]`);
  }
  // each tap is a sum of M terms of ulp-level differences, then up to 24 taps: 1e-12 is far above
  // that and far below any indexing error
  assert.ok(worst < 1e-12, msg(`${c.name} ${c.nt}x${c.nr} ${JSON.stringify(c.params)}: relative error ${worst}`));
  return worst;
}

const MAIN = String.raw`
int main() {
  long long h[14]; double d[3];
  if (fread(h, 8, 14, stdin) != 14 || fread(d, 8, 3, stdin) != 3) return 1;
  const int count = (int)h[5], T = (int)h[6], F = (int)h[7], nt = (int)h[8], nr = (int)h[9], L = (int)h[10], los = (int)h[11], M = (int)h[12], hasL = (int)h[13];
  const int E = nr * nt, taps = L + los;
  std::vector<double> times(T), rot(2 * (size_t)F * taps), Lr(2 * nr * nr), Lt(2 * nt * nt);
  if (fread(times.data(), 8, T, stdin) != (size_t)T || fread(rot.data(), 8, rot.size(), stdin) != rot.size()) return 1;
  if (hasL && (fread(Lr.data(), 8, Lr.size(), stdin) != Lr.size() || fread(Lt.data(), 8, Lt.size(), stdin) != Lt.size())) return 1;
  std::vector<double> A(2 * (size_t)count * T * taps * E), tmp(A.size()), H64(2 * (size_t)count * T * F * E);
  std::vector<float> H32(H64.size());
  const int n1 = count * T * taps * E, n2 = count * T * ((F + 3) / 4) * E, n3 = count * T * L;
  if (emu_launch((n1 + 127) / 128, dim3{128, 1, 1}, 0, [&] { tdl_taps(A.data(), times.data(), h[0], h[1], h[2], h[3], h[4], count, T, nt, nr, L, los, M, d[0], d[1], d[2]); })) return 2;
  if (hasL && emu_launch((n3 + 127) / 128, dim3{128, 1, 1}, 0, [&] { tdl_correlate(A.data(), tmp.data(), Lr.data(), Lt.data(), count, T, nt, nr, L, los); })) return 2;
  // one TDL_BLOCK for every kernel (the emulated build defines it once)
  if (emu_launch((n2 + 127) / 128, dim3{128, 1, 1}, 0, [&] { tdl_grid(H64.data(), H32.data(), A.data(), rot.data(), count, T, F, taps, E); })) return 2;
  fwrite(H64.data(), 8, H64.size(), stdout); fwrite(H32.data(), 4, H32.size(), stdout);
  return 0;
}
`;

/** The identity as a Cholesky factor (a side without correlation, in the emulated run). */
function identity(n: number): Float64Array {
  const I = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) I[2 * (i * n + i)] = 1;
  return I;
}

test("emulated TDL kernels: the CPU generator's response", { skip: emuSkip }, (t) => {
  const src = fileURLToPath(new URL('../../src/channels/tdl/', import.meta.url));
  const { exe, error } = compileEmulated(
    MAIN,
    [`${src}tdl-taps.cu`, `${src}tdl-correlate.cu`, `${src}tdl-grid.cu`],
    ['-DTDL_BLOCK=128'],
  );
  assert.equal(error, null);
  let worst = 0;
  for (let trial = 0; trial < 6; trial++) {
    const c = randomCase();
    const s = tdlSetup(c.name, { nt: c.nt, nr: c.nr }, c.params);
    const los = s.taps.los ? 1 : 0;
    const hasL = s.Lr !== null || s.Lt !== null;
    const head = new BigInt64Array(
      [
        seed,
        c.span.stream0,
        c.span.streamStep,
        c.span.perStream,
        c.span.first,
        c.span.count,
        c.at.times.length,
        c.at.freqs.length,
        c.nt,
        c.nr,
        s.L,
        los,
        s.M,
        hasL ? 1 : 0,
      ].map(BigInt),
    );
    const parts: ArrayBufferView[] = [
      head,
      Float64Array.of(1 / Math.sqrt(2 * s.M), 2 * Math.PI * s.fD, losRate(s.fD)),
      c.at.times,
      tapRotations(s.taps, c.at.freqs),
      ...(hasL ? [s.Lr ?? identity(c.nr), s.Lt ?? identity(c.nt)] : []),
    ];
    const bytes = Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
    const raw = runEmulated(exe, bytes);
    const n = c.span.count * c.at.times.length * c.at.freqs.length * 2 * c.nr * c.nt;
    const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
    worst = Math.max(worst, compare(c, new Float64Array(buf, 0, n), new Float32Array(buf, 8 * n, n)));
  }
  t.diagnostic(`emulated TDL: relative difference from the CPU at most ${worst.toExponential(2)}`);
});

test("TDL on the device: the CPU generator's draw() and response", { skip }, async (t) => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { Stream } = await import('../../src/gpu/stream.js');
  const ctx = requireCuda();
  const stream = Stream.create(ctx);
  let worst = 0;
  for (let trial = 0; trial < 12; trial++) {
    const c = randomCase();
    const plan = (await CHANNEL_REGISTRY[c.name].cuda!()).plan(ctx, { nt: c.nt, nr: c.nr }, c.params);
    const n = c.span.count * c.at.times.length * c.at.freqs.length * 2 * c.nr * c.nt;
    const H64 = DeviceBuffer.alloc(ctx, n * 8),
      H32 = DeviceBuffer.alloc(ctx, n * 4);
    plan.enqueueResponse!(stream, c.span, c.at, { H64: H64.ptr, H32: H32.ptr });
    stream.synchronize();
    const h64 = new Float64Array(n),
      h32 = new Float32Array(n);
    H64.download(h64);
    H32.download(h32);
    worst = Math.max(worst, compare(c, h64, h32));
    // draw(): the response at (0, 0)
    const m = c.span.count * 2 * c.nr * c.nt;
    plan.enqueue(stream, c.span, { H64: H64.ptr, H32: H32.ptr });
    stream.synchronize();
    const d64 = new Float64Array(m);
    H64.download(d64);
    const want = CHANNEL_REGISTRY[c.name].cpu({ nt: c.nt, nr: c.nr }, c.params).draw(c.span);
    for (let i = 0; i < m; i++)
      assert.ok(Math.abs(d64[i]! - want[i]!) <= 1e-12 * Math.max(1, Math.abs(want[i]!)), msg(`draw ${i}`));
    H64.free();
    H32.free();
  }
  t.diagnostic(`device TDL: relative difference from the CPU at most ${worst.toExponential(2)}`);
});
