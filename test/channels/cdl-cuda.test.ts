/**
 * The CDL models' CUDA generator (cdl-rays.cu, cdl-clusters.cu, tdl-grid.cu) against the CPU
 * generator on fresh seeds, spans, shapes and parameters: in the CUDA emulator here, on the device
 * where there is one. The kernels repeat the CPU's arithmetic on the host's numbers (every sine,
 * cosine, power and square root is the CPU's own, computed on the host), so float64 must equal the
 * CPU's bit for bit (signed zeros included), and float32 is the float64 rounded.
 *
 * The cases cover, each time with fresh values: ULA and UPA at both ends, the omni and the 38.901
 * element, single and cross polarisation (at one end and at both), the line-of-sight models D and E
 * (with a fresh K-factor), speed 0 and a moving UE, several times (the first one not always 0) and
 * frequencies, count > 1, perStream > 1 and first > 0, and draw() (the response at time and
 * frequency 0).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CDL_ENTRIES, type CdlLosParams, type CdlModel } from '../../src/channels/cdl/index.js';
import { cdlSetup } from '../../src/channels/cdl/cpu.js';
import { cdlDeviceTables, cdlPointTables } from '../../src/channels/cdl/device-tables.js';
import { CDL_TABLES } from '../../src/channels/cdl/tables.js';
import type { ChannelEntry, ChannelSpan, ResponsePoints } from '../../src/channels/index.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;

interface Case {
  name: CdlModel;
  nt: number;
  nr: number;
  params: CdlLosParams;
  span: ChannelSpan;
  at: ResponsePoints;
  /** The points are time 0 and frequency 0: the response is draw()'s channel. */
  origin: boolean;
}

const entry = (name: CdlModel) => CDL_ENTRIES[name] as unknown as ChannelEntry<CdlModel, CdlLosParams>;
const uniform = (a: number, b: number) => a + (b - a) * Math.random();
const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;

/** A fresh span over several streams (count > 1, perStream > 1, first > 0 unless `any`). */
function spanOf(any: boolean): ChannelSpan {
  return {
    seed: randomInt(2 ** 40),
    stream0: randomInt(2 ** 40),
    streamStep: 1 + randomInt(5),
    perStream: (any ? 1 : 2) + randomInt(3),
    first: (any ? 0 : 1) + randomInt(5),
    count: (any ? 1 : 2) + randomInt(2),
  };
}

/** T times (from a fresh start, or 0) and F frequency offsets (within +-50 MHz). */
function pointsOf(T: number, F: number): ResponsePoints {
  const t0 = Math.random() < 0.5 ? 0 : uniform(0, 1e-3);
  return {
    times: Float64Array.from({ length: T }, (_, k) => t0 + k * uniform(1e-5, 5e-4)),
    freqs: Float64Array.from({ length: F }, () => uniform(-5e7, 5e7)),
  };
}

/** One end's fresh array parameters: `upa` and `cross` as asked, the rest drawn. */
function end(side: 'rx' | 'tx', upa: boolean, cross: boolean, pattern: 'omni' | '38.901'): CdlLosParams {
  return {
    [`${side}Array`]: upa ? 'upa' : 'ula',
    [`${side}Pattern`]: pattern,
    [`${side}Polarization`]: cross ? 'cross' : 'single',
    [`${side}Spacing`]: uniform(0.2, 2),
  };
}

/** The cases of a run: each feature at least once, every value fresh. */
function cases(): Case[] {
  const moving = () => ({
    speed: uniform(1, 120),
    carrier: uniform(1e9, 6e9),
    travelAzimuthDeg: uniform(-180, 180),
    travelZenithDeg: uniform(0, 180),
    delaySpread: uniform(1e-8, 1e-6),
  });
  const one = (
    name: CdlModel,
    nr: number,
    nt: number,
    params: CdlLosParams,
    T: number,
    F: number,
    any = false,
  ): Case => ({ name, nr, nt, params, span: spanOf(any), at: pointsOf(T, F), origin: false });
  const fresh = (): Case => {
    const cr = Math.random() < 0.5,
      ct = Math.random() < 0.5;
    const nr = (cr ? 2 : 1) * (1 + randomInt(3)),
      nt = (ct ? 2 : 1) * (1 + randomInt(3));
    const params: CdlLosParams = {
      ...end('rx', Math.random() < 0.5, cr, pick(['omni', '38.901'] as const)),
      ...end('tx', Math.random() < 0.5, ct, pick(['omni', '38.901'] as const)),
      ...(Math.random() < 0.5 ? moving() : {}),
    };
    return one(pick(Object.keys(CDL_ENTRIES) as CdlModel[]), nr, nt, params, 1 + randomInt(3), 1 + randomInt(4), true);
  };
  const draw: Case = {
    ...one(
      'cdl-d',
      2,
      4,
      { ...end('rx', false, false, 'omni'), ...end('tx', true, true, '38.901'), ...moving() },
      1,
      1,
    ),
    at: { times: new Float64Array(1), freqs: new Float64Array(1) },
    origin: true,
  };
  return [
    one('cdl-a', 4, 2, { ...end('rx', false, false, 'omni'), ...end('tx', false, false, 'omni'), ...moving() }, 3, 3),
    one('cdl-b', 4, 2, { ...end('rx', true, false, '38.901'), ...end('tx', false, true, 'omni') }, 3, 4),
    one(
      'cdl-c',
      4,
      4,
      { ...end('rx', true, true, '38.901'), ...end('tx', true, true, '38.901'), rxRows: 2, ...moving() },
      2,
      3,
    ),
    one(
      'cdl-d',
      2,
      3,
      {
        ...end('rx', false, true, 'omni'),
        ...end('tx', false, false, '38.901'),
        kFactorDb: uniform(-10, 25),
        ...moving(),
      },
      3,
      2,
    ),
    one('cdl-e', 3, 4, { ...end('rx', false, false, '38.901'), ...end('tx', true, false, 'omni') }, 2, 3),
    one('cdl-e', 2, 2, { ...end('rx', true, true, 'omni'), ...end('tx', false, true, 'omni'), ...moving() }, 2, 2),
    // a larger array: 4 x 1 positions of cross-polarised pairs against a 2 x 2 UPA
    one(
      'cdl-b',
      8,
      4,
      { ...end('rx', true, true, '38.901'), rxRows: 4, ...end('tx', true, false, 'omni'), ...moving() },
      2,
      2,
    ),
    draw,
    fresh(),
    fresh(),
  ];
}

/** The CPU's values for a case: its response, or draw() at the origin. */
function cpuOf(c: Case): Float64Array {
  const g = entry(c.name).cpu({ nt: c.nt, nr: c.nr }, c.params);
  return c.origin ? g.draw(c.span) : g.response!(c.span, c.at);
}

/** Bit-for-bit equality of H64 with the CPU's values, and H32 the float64 rounded. */
function compare(c: Case, want: Float64Array, H64: Float64Array, H32: Float32Array, what: string): void {
  assert.equal(H64.length, want.length);
  const where = `${what} ${c.name} ${c.nr}x${c.nt} ${JSON.stringify(c.params)} ${JSON.stringify(c.span)}`;
  for (let i = 0; i < want.length; i++) {
    if (!Object.is(H64[i], want[i])) assert.fail(msg(`${where}: H64[${i}] = ${H64[i]}, the CPU's ${want[i]}`));
    if (!Object.is(H32[i], Math.fround(want[i]!))) assert.fail(msg(`${where}: H32[${i}] = ${H32[i]}`));
  }
}

const MAIN = String.raw`
template <class V> static bool rd(V& v) { return fread(v.data(), sizeof(v[0]), v.size(), stdin) == v.size(); }
int main() {
  long long h[15]; double xpr;
  if (fread(h, 8, 15, stdin) != 15 || fread(&xpr, 8, 1, stdin) != 1) return 1;
  const int count = (int)h[5], T = (int)h[6], F = (int)h[7], nt = (int)h[8], nr = (int)h[9], clusters = (int)h[10];
  const int los = (int)h[11], single = (int)h[12], still = (int)h[13], Tt = (int)h[14];
  const int E = nr * nt, slots = clusters + los, pairs = clusters * 400;
  std::vector<double> phase(16384), rxField(pairs), rxSteer(2 * (size_t)pairs * nr), txField(pairs),
      txSteer(2 * (size_t)pairs * nt), amp(clusters), rxSlant(2 * nr), txSlant(2 * nt), losG(2 * E),
      turns(2 * (size_t)Tt * (pairs + los)), rot(2 * (size_t)F * slots);
  if (!rd(phase) || !rd(rxField) || !rd(rxSteer) || !rd(txField) || !rd(txSteer) || !rd(amp) || !rd(rxSlant) ||
      !rd(txSlant) || !rd(losG) || !rd(turns) || !rd(rot)) return 1;
  std::vector<int> idx(2 * (size_t)count * clusters * 20);
  std::vector<double> M(8 * (size_t)count * clusters * 20), A(2 * (size_t)count * T * slots * E),
      H64(2 * (size_t)count * T * F * E);
  std::vector<float> H32(H64.size());
  const int n1 = count * clusters, n2 = count * T * slots * E, n3 = count * T * ((F + 3) / 4) * E;
  // one CDL_BLOCK (64) for both CDL kernels, TDL_BLOCK (128) for the grid (the emulated build defines each once)
  if (emu_launch((n1 + 63) / 64, dim3{64, 1, 1}, 0, [&] { cdl_rays(idx.data(), M.data(), phase.data(), h[0], h[1], h[2], h[3], h[4], count, clusters, single, xpr); })) return 2;
  if (emu_launch((n2 + 63) / 64, dim3{64, 1, 1}, 0, [&] { cdl_clusters(A.data(), idx.data(), M.data(), rxField.data(), rxSteer.data(), txField.data(), txSteer.data(), amp.data(), rxSlant.data(), txSlant.data(), los ? losG.data() : nullptr, turns.data(), count, T, clusters, los, nr, nt, single, still); })) return 2;
  if (emu_launch((n3 + 127) / 128, dim3{128, 1, 1}, 0, [&] { tdl_grid(H64.data(), H32.data(), A.data(), rot.data(), count, T, F, slots, E); })) return 2;
  fwrite(H64.data(), 8, H64.size(), stdout); fwrite(H32.data(), 4, H32.size(), stdout);
  return 0;
}
`;

test("emulated CDL kernels: the CPU generator's response and draw(), bit for bit", { skip: emuSkip }, (t) => {
  const cdl = fileURLToPath(new URL('../../src/channels/cdl/', import.meta.url));
  const tdl = fileURLToPath(new URL('../../src/channels/tdl/', import.meta.url));
  const { exe, error } = compileEmulated(
    MAIN,
    [`${cdl}cdl-rays.cu`, `${cdl}cdl-clusters.cu`, `${tdl}tdl-grid.cu`],
    ['-DCDL_BLOCK=64', '-DTDL_BLOCK=128'],
  );
  assert.equal(error, null);
  let values = 0;
  for (const c of cases()) {
    const m = cdlSetup({ nt: c.nt, nr: c.nr }, CDL_TABLES[c.name], c.params);
    const d = cdlDeviceTables(m);
    const p = cdlPointTables(m, c.at);
    const los = m.table.los ? 1 : 0;
    const T = c.at.times.length,
      F = c.at.freqs.length;
    const head = new BigInt64Array(
      [
        c.span.seed,
        c.span.stream0,
        c.span.streamStep,
        c.span.perStream,
        c.span.first,
        c.span.count,
        T,
        F,
        c.nt,
        c.nr,
        m.clusters,
        los,
        m.single ? 1 : 0,
        m.still ? 1 : 0,
        p.turns.length / (2 * (m.clusters * 400 + los)),
      ].map(BigInt),
    );
    const parts: ArrayBufferView[] = [
      head,
      Float64Array.of(m.cross),
      d.phase,
      d.rxField,
      d.rxSteer,
      d.txField,
      d.txSteer,
      d.amp,
      d.rxSlant,
      d.txSlant,
      d.losG,
      p.turns,
      p.rot,
    ];
    const raw = runEmulated(exe, Buffer.concat(parts.map((x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength))));
    const n = c.span.count * T * F * 2 * c.nr * c.nt;
    assert.equal(raw.byteLength, 12 * n);
    const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
    compare(c, cpuOf(c), new Float64Array(buf, 0, n), new Float32Array(buf, 8 * n, n), 'emulated');
    values += n;
  }
  t.diagnostic(`emulated CDL: ${values} float64 values, each the CPU's bit for bit`);
});

test("CDL on the device: enqueueResponse and enqueue give the CPU generator's values bit for bit", {
  skip,
}, async (t) => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { Stream } = await import('../../src/gpu/stream.js');
  const ctx = requireCuda();
  const stream = Stream.create(ctx);
  let values = 0;
  for (const c of [...cases(), ...cases()]) {
    const shape = { nt: c.nt, nr: c.nr };
    const plan = (await entry(c.name).cuda!()).plan(ctx, shape, c.params);
    const n = c.span.count * c.at.times.length * c.at.freqs.length * 2 * c.nr * c.nt;
    const H64 = DeviceBuffer.alloc(ctx, n * 8),
      H32 = DeviceBuffer.alloc(ctx, n * 4);
    const read = (count: number) => {
      stream.synchronize();
      const h64 = new Float64Array(count),
        h32 = new Float32Array(count);
      H64.download(h64);
      H32.download(h32);
      return { h64, h32 };
    };
    plan.enqueueResponse!(stream, c.span, c.at, { H64: H64.ptr, H32: H32.ptr });
    const r = read(n);
    compare(c, cpuOf(c), r.h64, r.h32, 'device response');
    // a second call on the same points (their device copies reused)
    plan.enqueueResponse!(stream, c.span, c.at, { H64: H64.ptr, H32: H32.ptr });
    const again = read(n);
    compare(c, cpuOf(c), again.h64, again.h32, 'device response again');
    // draw(): the response at (0, 0)
    const m = c.span.count * 2 * c.nr * c.nt;
    plan.enqueue(stream, c.span, { H64: H64.ptr, H32: H32.ptr });
    const dr = read(m);
    compare({ ...c, origin: true }, entry(c.name).cpu(shape, c.params).draw(c.span), dr.h64, dr.h32, 'device draw');
    values += n + m;
    H64.free();
    H32.free();
    plan.free?.();
  }
  t.diagnostic(`device CDL: ${values} float64 values, each the CPU's bit for bit`);
});
