/**
 * The CUDA generators of the rician and kronecker models (rician.cu, kronecker.cu) against their
 * CPU generators, on fresh seeds, spans, shapes and parameters, through the CUDA emulator
 * (test/gpu/cuda-emulator.ts: CI, no GPU) and on a device (skipped without one, saying so):
 *  - the operation order: each kernel's H equals, bit for bit, the CPU's formula (rician's
 *    los L + scatter Hw, kronecker's correlate()) applied to the Hw that rayleigh.cu draws for the
 *    same span on the same side, so a kernel differs from the CPU only through Hw's normals;
 *  - against the CPU generator: Hw's normals within 8 ulps (the last-ulp differences of log, sin,
 *    cos, as test/sim/gpu-link.test.ts bounds them), H64 within (16 + 2 (nr + nt)) 2^-52 S of the
 *    CPU's, S the entry's sum of the moduli of its terms (|Lr| |Hw| |Lt|^T; rician
 *    |los L| + scatter |Hw|): 8 2^-52 S from the normals' differences carried through the sums,
 *    and twice the error bound of sums of nr + nt + 4 terms for the two sides' own roundings;
 *  - H32 is Math.fround of H64, entry for entry.
 * And the engine choice: simulate() with engine 'auto' takes the GPU for both where a device is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  CHANNEL_REGISTRY,
  type ChannelShape,
  type ChannelSpan,
  type CorrelationMatrix,
  type KroneckerParams,
  type RicianParams,
} from '../../src/channels/index.js';
import { correlate, kroneckerFactors } from '../../src/channels/kronecker/cpu.js';
import { ricianParts } from '../../src/channels/rician/cpu.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { resolveEngine } from '../../src/sim/simulate.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;

const EPS = 2 ** -52;

type Case =
  | { model: 'rician'; shape: ChannelShape; params: RicianParams; span: ChannelSpan }
  | { model: 'kronecker'; shape: ChannelShape; params: KroneckerParams; span: ChannelSpan };

/** What a kernel wrote: Hw (rayleigh.cu on the same span), H64 and H32 (the model's kernel). */
interface Output {
  Hw: Float64Array;
  H64: Float64Array;
  H32: Float32Array;
}

/** A fresh span of `count` channels over a few streams. */
function spanOf(count: number): ChannelSpan {
  return {
    seed: randomInt(2 ** 40),
    stream0: randomInt(2 ** 40),
    streamStep: 1 + randomInt(5),
    perStream: 1 + randomInt(9),
    first: randomInt(30),
    count,
  };
}

const uniform = (a: number, b: number) => a + (b - a) * Math.random();

/** A fresh complex coefficient, |rho| < 0.99. */
const freshRho = () => {
  const m = uniform(0, 0.99),
    p = uniform(-Math.PI, Math.PI);
  return { re: m * Math.cos(p), im: m * Math.sin(p) };
};

/** A fresh Hermitian positive definite n x n matrix with a unit diagonal: B B^H + I/2, scaled to it. */
function freshMatrix(n: number): CorrelationMatrix {
  const B = Array.from({ length: n }, () => Array.from({ length: n }, () => [uniform(-1, 1), uniform(-1, 1)]));
  const re = Array.from({ length: n }, () => new Array<number>(n).fill(0)),
    im = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let r = i === j ? 0.5 : 0,
        s = 0;
      for (let k = 0; k < n; k++) {
        const [a, b] = B[i]![k]!,
          [c, d] = B[j]![k]!;
        r += a * c + b * d;
        s += b * c - a * d;
      }
      re[i]![j] = r;
      im[i]![j] = s;
    }
  const dg = re.map((row, i) => Math.sqrt(row[i]!));
  // the upper half scaled, the lower half its conjugate exactly (rows in order: row j < i is done)
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      if (i === j) {
        re[i]![j] = 1;
        im[i]![j] = 0;
      } else if (j > i) {
        re[i]![j] = re[i]![j]! / (dg[i]! * dg[j]!);
        im[i]![j] = im[i]![j]! / (dg[i]! * dg[j]!);
      } else {
        re[i]![j] = re[j]![i]!;
        im[i]![j] = -im[j]![i]!;
      }
    }
  return { re, im };
}

/** The shapes of a run (with channels each): the corners asked for, a fresh one, and the largest, 64 x 64. */
function shapes(): [ChannelShape, number][] {
  return [
    [{ nt: 1, nr: 1 }, 200],
    [{ nt: 4, nr: 4 }, 40],
    [{ nt: 8, nr: 3 }, 30],
    [{ nt: 3, nr: 8 }, 30],
    [{ nt: 1 + randomInt(16), nr: 1 + randomInt(16) }, 12],
    [{ nt: 64, nr: 64 }, 1],
  ];
}

/** Shapes for blocks of 32 threads: channels of more than 32 lanes (the lanes' loops) and packed small ones. */
function narrowShapes(): [ChannelShape, number][] {
  return [
    [{ nt: 64, nr: 64 }, 1],
    [{ nt: 3, nr: 40 }, 5],
    [{ nt: 33, nr: 2 }, 5],
    [{ nt: 3, nr: 5 }, 30],
  ];
}

/** Parameter sets of each model for a shape: defaults, fresh values, identity sides, given matrices. */
function cases(shape: ChannelShape, count: number): Case[] {
  const { nt, nr } = shape;
  const rician = (params: RicianParams): Case => ({ model: 'rician', shape, params, span: spanOf(count) });
  const kron = (params: KroneckerParams): Case => {
    CHANNEL_REGISTRY.kronecker.checkShape(shape, params);
    return { model: 'kronecker', shape, params, span: spanOf(count) };
  };
  return [
    rician({}),
    rician({ kFactorDb: uniform(-10, 30), aoaDeg: uniform(-90, 90), aodDeg: uniform(-90, 90) }),
    kron({}),
    kron({ rhoTx: uniform(-0.99, 0.99) }),
    kron({ rhoRx: freshRho() }),
    kron({ rhoTx: freshRho(), rhoRx: uniform(-0.99, 0.99) }),
    kron({ Rtx: freshMatrix(nt), Rrx: freshMatrix(nr) }),
    kron({ Rrx: freshMatrix(nr), rhoTx: freshRho() }),
  ];
}

const caseName = (c: Case) =>
  `${c.model} ${c.shape.nt}x${c.shape.nr} ${JSON.stringify(c.params).slice(0, 120)} span ${JSON.stringify(c.span)}`;

/** Distance in units in the last place between two doubles of the same sign. */
function ulps(a: number, b: number): number {
  if (a === b) return 0;
  if (Math.sign(a) !== Math.sign(b)) return Number.POSITIVE_INFINITY;
  const i = new BigInt64Array(new Float64Array([a, b]).buffer);
  const d = i[0]! - i[1]!;
  return Number(d < 0n ? -d : d);
}

const abs = (v: Float64Array, e: number) => Math.hypot(v[2 * e]!, v[2 * e + 1]!);

/** S: each entry's sum of the moduli of its terms, over the span's channels (2 nr nt numbers a channel, re = im). */
function termSizes(c: Case, Hw: Float64Array): Float64Array {
  const { nt, nr } = c.shape;
  const per = nr * nt;
  const S = new Float64Array(Hw.length);
  if (c.model === 'rician') {
    const { los, scatter, L } = ricianParts(c.shape, c.params);
    for (let e = 0; e < Hw.length / 2; e++) S[2 * e] = S[2 * e + 1] = los * abs(L, e % per) + scatter * abs(Hw, e);
    return S;
  }
  const { Lr, Lt } = kroneckerFactors(c.shape, c.params);
  const mod = (L: Float64Array | null, n: number, i: number, k: number) =>
    L ? Math.hypot(L[2 * (i * n + k)]!, L[2 * (i * n + k) + 1]!) : i === k ? 1 : 0;
  const T = new Float64Array(per);
  for (let ch = 0; ch < Hw.length / (2 * per); ch++) {
    // T = |Lr| |Hw|, then S = T |Lt|^T
    for (let j = 0; j < nt; j++)
      for (let i = 0; i < nr; i++) {
        let t = 0;
        for (let m = 0; m < nr; m++) t += mod(Lr, nr, i, m) * abs(Hw, ch * per + m + j * nr);
        T[i + j * nr] = t;
      }
    for (let j = 0; j < nt; j++)
      for (let i = 0; i < nr; i++) {
        let s = 0;
        for (let k = 0; k < nt; k++) s += T[i + k * nr]! * mod(Lt, nt, j, k);
        S[2 * (ch * per + i + j * nr)] = S[2 * (ch * per + i + j * nr) + 1] = s;
      }
  }
  return S;
}

/** The CPU's formula on the kernels' own Hw (the operation-order check). */
function cpuOnHw(c: Case, Hw: Float64Array): Float64Array {
  const H = Float64Array.from(Hw);
  if (c.model === 'rician') {
    const { los, scatter, L } = ricianParts(c.shape, c.params);
    for (let e = 0; e < H.length; e++) H[e] = los * L[e % L.length]! + scatter * H[e]!;
  } else {
    const { Lr, Lt } = kroneckerFactors(c.shape, c.params);
    correlate(H, c.span.count, c.shape.nt, c.shape.nr, Lr, Lt);
  }
  return H;
}

interface Stats {
  hwUlps: number;
  hwInexact: number;
  entries: number;
  /** The largest |H64 - CPU| / (eps S). */
  ratio: number;
}

/** Checks one case's output against the CPU generator (see the file's comment); returns what it measured. */
function check(c: Case, got: Output): Stats {
  const what = caseName(c);
  const { nt, nr } = c.shape;
  const n = 2 * nr * nt * c.span.count;
  assert.equal(got.H64.length, n);
  const hw = CHANNEL_REGISTRY.rayleigh.cpu(c.shape, {}).draw(c.span);
  let hwUlps = 0,
    hwInexact = 0;
  for (let i = 0; i < n; i++) {
    const u = ulps(got.Hw[i]!, hw[i]!);
    if (u > 0) hwInexact++;
    hwUlps = Math.max(hwUlps, u);
  }
  assert.ok(hwUlps <= 8, `${what}: Hw ${hwUlps} ulps from rayleigh's CPU draw`);
  const exact = cpuOnHw(c, got.Hw);
  for (let i = 0; i < n; i++)
    if (!Object.is(got.H64[i], exact[i]))
      assert.fail(`${what}: H64[${i}] ${got.H64[i]} is not the CPU's formula on the kernel's Hw, ${exact[i]}`);
  const want =
    c.model === 'rician'
      ? CHANNEL_REGISTRY.rician.cpu(c.shape, c.params).draw(c.span)
      : CHANNEL_REGISTRY.kronecker.cpu(c.shape, c.params).draw(c.span);
  const S = termSizes(c, hw);
  const bound = 16 + 2 * (nr + nt);
  let ratio = 0;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(got.H64[i]! - want[i]!);
    if (d === 0) continue;
    const r = d / (EPS * S[i]!);
    ratio = Math.max(ratio, r);
    assert.ok(r <= bound, `${what}: H64[${i}] ${got.H64[i]} vs the CPU's ${want[i]}: ${r.toFixed(1)} eps S > ${bound}`);
  }
  for (let i = 0; i < n; i++)
    if (!Object.is(got.H32[i], Math.fround(got.H64[i]!))) assert.fail(`${what}: H32[${i}] is not H64 rounded`);
  return { hwUlps, hwInexact, entries: n, ratio };
}

function merge(a: Stats, b: Stats): Stats {
  return {
    hwUlps: Math.max(a.hwUlps, b.hwUlps),
    hwInexact: a.hwInexact + b.hwInexact,
    entries: a.entries + b.entries,
    ratio: Math.max(a.ratio, b.ratio),
  };
}

const report = (s: Stats) =>
  `${s.entries} entries: ${s.hwInexact} of Hw's not bit-equal to the CPU's (at most ${s.hwUlps} ulps); H64 at most ${s.ratio.toFixed(2)} eps S from the CPU generator's; every H64 the CPU's formula on the kernel's Hw bit for bit`;

// ---------------------------------------------------------------------------------------------
// Emulated

const EMU_MAIN = String.raw`
int main() {
  long long h[12];
  if (fread(h, 8, 12, stdin) != 12) return 1;
  const int kind = (int)h[0], nr = (int)h[1], nt = (int)h[2], count = (int)h[3];
  const unsigned long long seed = h[4], stream0 = h[5], streamStep = h[6], perStream = h[7], first = h[8];
  const int hasRx = (int)h[9], hasTx = (int)h[10];
  double gains[2];
  if (fread(gains, 8, 2, stdin) != 2) return 1;
  std::vector<double> table((size_t)h[11]);
  if (fread(table.data(), 8, table.size(), stdin) != table.size()) return 1;
  const int pairs = nr * nt, B = CHANNEL_BLOCK;
  std::vector<double> Hw((size_t)count * 2 * pairs), H64(Hw.size());
  std::vector<float> Hw32(Hw.size()), H32(Hw.size());
  if (count > 0) {
    const unsigned entryGrid = (unsigned)(((long long)count * pairs + B - 1) / B);
    if (emu_launch(entryGrid, dim3{(unsigned)B, 1, 1}, 0, [&] { rayleigh_channels(Hw.data(), Hw32.data(), seed, stream0, streamStep, perStream, first, count, pairs); })) return 2;
    if (kind == 1) {
      if (emu_launch(entryGrid, dim3{(unsigned)B, 1, 1}, 0, [&] { rician_channels(H64.data(), H32.data(), table.data(), gains[0], gains[1], seed, stream0, streamStep, perStream, first, count, pairs); })) return 2;
    } else {
      const int lanes = min(max(nr, nt), B), perBlock = B / lanes;
      if (emu_launch((unsigned)((count + perBlock - 1) / perBlock), dim3{(unsigned)B, 1, 1}, 0, [&] { kronecker_channels(H64.data(), H32.data(), table.data(), hasRx, hasTx, seed, stream0, streamStep, perStream, first, count, nr, nt, lanes); })) return 2;
    }
  }
  fwrite(Hw.data(), 8, Hw.size(), stdout); fwrite(H64.data(), 8, H64.size(), stdout); fwrite(H32.data(), 4, H32.size(), stdout);
  return 0;
}
`;

function concat(parts: ArrayBufferView[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((t, p) => t + p.byteLength, 0));
  let o = 0;
  for (const p of parts) {
    out.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += p.byteLength;
  }
  return out;
}

/** What the plans upload (the same helpers): [gains, table, hasRx, hasTx]. */
function tablesOf(c: Case): [Float64Array, Float64Array, number, number] {
  if (c.model === 'rician') {
    const { los, scatter, L } = ricianParts(c.shape, c.params);
    return [new Float64Array([los, scatter]), L, 0, 0];
  }
  const { nt, nr } = c.shape;
  const { Lr, Lt } = kroneckerFactors(c.shape, c.params);
  const t = new Float64Array(2 * (nr * nr + nt * nt));
  if (Lr) t.set(Lr, 0);
  if (Lt) t.set(Lt, 2 * nr * nr);
  return [new Float64Array(2), t, Lr ? 1 : 0, Lt ? 1 : 0];
}

function runEmulatedCase(exe: string, c: Case): Output {
  const { nt, nr } = c.shape;
  const [gains, table, hasRx, hasTx] = tablesOf(c);
  const s = c.span;
  const head = new BigInt64Array(
    [
      c.model === 'rician' ? 1 : 2,
      nr,
      nt,
      s.count,
      s.seed,
      s.stream0,
      s.streamStep,
      s.perStream,
      s.first,
      hasRx,
      hasTx,
      table.length,
    ].map(BigInt),
  );
  const raw = runEmulated(exe, concat([head, gains, table]));
  const buf = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer;
  const n = 2 * nr * nt * s.count;
  assert.equal(buf.byteLength, n * 20);
  return {
    Hw: new Float64Array(buf, 0, n),
    H64: new Float64Array(buf, 8 * n, n),
    H32: new Float32Array(buf, 16 * n, n),
  };
}

for (const block of [128, 32])
  test(`emulated rician.cu and kronecker.cu (blocks of ${block}): the CPU generators' channels, bit for bit on the same Hw`, {
    skip: emuSkip,
  }, (t) => {
    const src = fileURLToPath(new URL('../../src/channels/', import.meta.url));
    const { exe, error } = compileEmulated(
      EMU_MAIN,
      [`${src}rayleigh/rayleigh.cu`, `${src}rician/rician.cu`, `${src}kronecker/kronecker.cu`],
      [`-DCHANNEL_BLOCK=${block}`],
    );
    assert.equal(error, null);
    let stats: Stats = { hwUlps: 0, hwInexact: 0, entries: 0, ratio: 0 };
    // blocks of 32 are for kronecker's lanes; rician's thread an entry does not see the block size
    const picked = block === 32 ? narrowShapes() : shapes();
    for (const [shape, count] of picked)
      for (const c of cases(shape, count))
        if (block !== 32 || c.model === 'kronecker') stats = merge(stats, check(c, runEmulatedCase(exe, c)));
    // an empty span writes nothing
    const none = cases({ nt: 2, nr: 3 }, 0);
    for (const c of none) assert.equal(runEmulatedCase(exe, c).H64.length, 0);
    t.diagnostic(`emulated (glibc log/sin/cos): ${report(stats)}`);
  });

// ---------------------------------------------------------------------------------------------
// On the device

test("device rician and kronecker generators: the CPU generators' channels, bit for bit on the same Hw", {
  skip,
}, async (t) => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { Stream } = await import('../../src/gpu/stream.js');
  const ctx = requireCuda();
  const stream = Stream.create(ctx);
  const rayleigh = await CHANNEL_REGISTRY.rayleigh.cuda!();
  let stats: Stats = { hwUlps: 0, hwInexact: 0, entries: 0, ratio: 0 };
  for (const [shape, count] of shapes())
    for (const small of cases(shape, count)) {
      // the device takes many more channels: a launch of thousands of blocks
      const c = { ...small, span: { ...small.span, count: Math.ceil(200_000 / (shape.nt * shape.nr)) } } as Case;
      const n = 2 * shape.nr * shape.nt * c.span.count;
      const bufs = {
        Hw: DeviceBuffer.alloc(ctx, n * 8),
        Hw32: DeviceBuffer.alloc(ctx, n * 4),
        H64: DeviceBuffer.alloc(ctx, n * 8),
        H32: DeviceBuffer.alloc(ctx, n * 4),
      };
      const plan =
        c.model === 'rician'
          ? (await CHANNEL_REGISTRY.rician.cuda!()).plan(ctx, c.shape, c.params)
          : (await CHANNEL_REGISTRY.kronecker.cuda!()).plan(ctx, c.shape, c.params);
      const hwPlan = rayleigh.plan(ctx, c.shape, {});
      hwPlan.enqueue(stream, c.span, { H64: bufs.Hw.ptr, H32: bufs.Hw32.ptr });
      plan.enqueue(stream, c.span, { H64: bufs.H64.ptr, H32: bufs.H32.ptr });
      stream.synchronize();
      const got: Output = { Hw: new Float64Array(n), H64: new Float64Array(n), H32: new Float32Array(n) };
      bufs.Hw.download(got.Hw);
      bufs.H64.download(got.H64);
      bufs.H32.download(got.H32);
      plan.free?.();
      for (const b of Object.values(bufs)) b.free();
      stats = merge(stats, check(c, got));
    }
  stream.destroy();
  t.diagnostic(`device (CUDA log/sincos): ${report(stats)}`);
});

test("engine 'auto' takes the GPU for rician and kronecker where a device is, the CPU (no device) where none is", async () => {
  for (const channel of ['rician', 'kronecker'] as const) {
    const d = await resolveEngine('auto', [{ detector: 'zf' }], { channel });
    if (cuda.ok) assert.equal(d.engine, 'cuda', `${channel}: ${d.reason}`);
    else assert.deepEqual(d, { engine: 'cpu', reason: `auto: no CUDA device (${cuda.reason})` });
  }
});
