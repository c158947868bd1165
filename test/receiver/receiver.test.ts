/**
 * The slot receiver: its options resolve to slots that hold their code blocks; a transport block
 * sent through a TDL channel with noise comes back bit for bit with every CRC passing (LS and
 * LMMSE, several detectors), and a slot that cannot be decoded says so in its CRC flags rather than
 * returning a wrong block as good; its kernels in the emulator equal the CPU's split and packing
 * (descrambling is the rate recovery plan's, tested with it); on a device the CUDA receiver's
 * decoded bits and CRC flags equal the CPU's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { channelEntry, channelResponse, subcarrierFrequencies, symbolTimes } from '../../src/channels/index.js';
import { InvalidArgumentError, InvalidInputError, Philox } from '../../src/core/index.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import {
  receivedGrid,
  receiveSlots,
  receiveSlotsCpu,
  type ResolvedReceiver,
  resolveReceiver,
  type SlotReceiverOptions,
  transmitSlot,
} from '../../src/receiver/index.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const cuda = cudaAvailable();
const skip = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const emu = emulatorUnavailable();
const emuSkip = emu ? `CUDA emulator unavailable: ${emu}` : false;

const BASE: SlotReceiverOptions = {
  layers: 2,
  nr: 4,
  scs: 30e3,
  prbs: 8,
  modulation: '16qam',
  rate: 0.5,
  detector: { detector: 'mmse' },
  engine: 'cpu',
};

/** A TDL-C response of one slot for the receiver's shape (14 x K x (nr x layers) complex). */
function tdlResponse(r: ResolvedReceiver, seed: number): Float64Array {
  const shape = { nt: r.config.layers, nr: r.options.nr };
  const grid = { scs: r.options.scs, prbs: r.options.prbs };
  return channelResponse(
    channelEntry('tdl-c')!.cpu(shape, { delaySpread: 100e-9, speed: 3 } as never),
    shape,
    { seed, stream0: 0, streamStep: 1, perStream: 1, first: 0, count: 1 },
    { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) },
  );
}

/** n random slots: their transport blocks and received grids (float32) at noise variance n0. */
function slotsOf(r: ResolvedReceiver, n: number, n0: number, seed: number) {
  const rng = new Philox(seed, 1);
  const slot0 = randomInt(0, 40);
  return Array.from({ length: n }, (_, s) => {
    const tb = new Uint8Array(r.A);
    for (let i = 0; i < tb.length; i++) tb[i] = rng.uniform() < 0.5 ? 1 : 0;
    const X = transmitSlot(r, tb, slot0 + s);
    const Y = receivedGrid(r, X, tdlResponse(r, seed + s), n0, rng);
    return { tb, slot: { grid: Float32Array.from(Y), slot: slot0 + s } };
  });
}

test('options: the slot holds C blocks of E bits, A fills them, strict checks name the option', () => {
  for (let t = 0; t < 6; t++) {
    const layers = randomInt(1, 5),
      prbs = randomInt(4, 40);
    const modulation = (['qpsk', '16qam', '64qam'] as const)[randomInt(0, 3)]!;
    const rate = 0.2 + Math.random() * 0.7;
    const r = resolveReceiver({ ...BASE, layers, prbs, modulation, rate });
    assert.ok(r.C >= 1 && r.C * r.E <= r.G, `C ${r.C} E ${r.E} G ${r.G}`);
    assert.equal(r.E % (layers * r.qm), 0);
    assert.ok(r.G - r.C * r.E < r.C * layers * r.qm, 'fewer than C REs stay empty');
    assert.equal(r.A % 8, 0);
    // the largest transport block at the rate: its CRC'd bits within rate G, and 8 C bits more would not be
    const crc = r.A > 3824 ? 24 : 16;
    assert.ok(r.A + crc <= rate * r.G + 1e-9, `A ${r.A} rate ${rate} G ${r.G}`);
    assert.ok(rate * r.G - (r.A + crc) < 8 * 16 * r.C + 32, `A ${r.A} is near the largest at rate ${rate}`);
    assert.ok(r.code.k / r.E <= 0.95);
  }
  const bad: Array<[Partial<SlotReceiverOptions> & Record<string, unknown>, string]> = [
    [{ layers: 5 }, 'layers'],
    [{ rate: 0.99 }, 'rate'],
    [{ rate: 0.001 }, 'rate'],
    [{ baseGraph: 3 as never }, 'baseGraph'],
    [{ detector: { detector: 'zf' } }, 'detector'],
    [{ csi: 'perfect' as never }, 'csi'],
    [{ channel: 'rayleigh', csi: 'lmmse' }, 'channel'],
    [{ colour: 1 }, 'colour'],
  ];
  for (const [o, option] of bad) {
    assert.throws(
      () => resolveReceiver({ ...BASE, ...o } as SlotReceiverOptions),
      (e: unknown) => e instanceof InvalidArgumentError && JSON.stringify(e.details ?? {}).includes(option),
      `option ${option}`,
    );
  }
});

test('CPU receiver: transport blocks through TDL-C come back whole, every CRC passing (LS and LMMSE; mmse and nway)', () => {
  const cases: SlotReceiverOptions[] = [
    { ...BASE, csi: 'lmmse', n0: 0.01 },
    { ...BASE, csi: 'lmmse', n0: 0.01, prbs: 30 },
    { ...BASE, csi: 'ls', layers: 1, modulation: 'qpsk' },
    { ...BASE, detector: { detector: 'nway', passes: 2 } as never, layers: 2, nr: 2, modulation: 'qpsk' },
  ];
  assert.ok(
    cases.some((o) => resolveReceiver(o).C > 1),
    'a case of several code blocks',
  );
  for (const o of cases) {
    const r = resolveReceiver(o);
    const slots = slotsOf(r, 2, 0.005, randomInt(1, 1e9));
    const got = receiveSlotsCpu(
      r,
      slots.map((s) => s.slot),
    );
    got.forEach((g, s) => {
      assert.ok(g.tbCrcOk, `${o.detector.detector} ${o.csi}: slot ${s} TB CRC`);
      assert.ok(g.blockCrcOk.every(Boolean), `slot ${s} block CRCs`);
      assert.deepEqual(g.tb, slots[s]!.tb, `slot ${s} decoded bits`);
      assert.equal(g.blockCrcOk.length, r.C);
    });
  }
});

test('CPU receiver: an undecodable slot, or the wrong scrambling, fails its CRCs rather than passing wrong bits', () => {
  const r = resolveReceiver({ ...BASE, csi: 'ls' });
  const [s] = slotsOf(r, 1, 30, randomInt(1, 1e9));
  const [noisy] = receiveSlotsCpu(r, [s!.slot]);
  assert.equal(noisy!.tbCrcOk, false, 'noise at -15 dB decodes');
  const clean = slotsOf(r, 1, 0.001, randomInt(1, 1e9))[0]!;
  const other = resolveReceiver({ ...BASE, csi: 'ls', rnti: 1234 });
  const [wrong] = receiveSlotsCpu(other, [clean.slot]);
  assert.equal(wrong!.tbCrcOk, false);
  assert.ok(wrong!.blockCrcOk.some((ok) => !ok));
});

test('receiveSlots: bad grids are typed errors naming the slot', async () => {
  const r = resolveReceiver(BASE);
  const good = slotsOf(r, 1, 0.01, 7)[0]!.slot;
  await assert.rejects(
    receiveSlots([good, { grid: new Float32Array(10), slot: 1 }], BASE),
    (e: unknown) => e instanceof InvalidInputError && (e.details as { slot?: number }).slot === 1,
  );
  const nan = Float32Array.from(good.grid);
  nan[5] = Number.NaN;
  await assert.rejects(receiveSlots([{ grid: nan, slot: 0 }], BASE), InvalidInputError);
  await assert.rejects(receiveSlots([{ grid: good.grid, slot: -1 }], BASE), InvalidArgumentError);
});

const KERNELS_MAIN = String.raw`
#include <cstdio>
#include <vector>
int main() {
  int slots, K, mask, D, dataRes, C, k, P, A;
  if (fread(&slots, 4, 1, stdin) != 1) return 1;
  fread(&K, 4, 1, stdin); fread(&mask, 4, 1, stdin); fread(&D, 4, 1, stdin); fread(&dataRes, 4, 1, stdin);
  fread(&C, 4, 1, stdin); fread(&k, 4, 1, stdin); fread(&P, 4, 1, stdin); fread(&A, 4, 1, stdin);
  std::vector<float> grid(2 * (size_t)slots * 14 * K * NR);
  std::vector<unsigned char> bits((size_t)slots * C * k);
  fread(grid.data(), 4, grid.size(), stdin); fread(bits.data(), 1, bits.size(), stdin);
  std::vector<double> Yp(2 * (size_t)slots * D * K * NR);
  std::vector<float> y32(2 * (size_t)slots * dataRes * NR);
  int bytes = (A + 7) / 8;
  std::vector<unsigned char> packed((size_t)slots * bytes);
  auto blocks = [](long long n) { return (unsigned)((n + 255) / 256); };
  if (emu_launch(blocks((long long)slots * 14 * K * NR), dim3{256, 1, 1}, 0, [&] { slot_gather(grid.data(), Yp.data(), y32.data(), slots, K, mask, D, dataRes); })) return 2;
  if (emu_launch(blocks((long long)slots * bytes), dim3{256, 1, 1}, 0, [&] { slot_pack(bits.data(), packed.data(), slots, C, k, P, A); })) return 2;
  fwrite(Yp.data(), 8, Yp.size(), stdout); fwrite(y32.data(), 4, y32.size(), stdout);
  fwrite(packed.data(), 1, packed.size(), stdout);
  return 0;
}
`;

test("emulated receiver kernels: the grid split and the packed transport blocks equal the CPU's", {
  skip: emuSkip,
}, () => {
  const r = resolveReceiver({ ...BASE, layers: randomInt(1, 5), nr: 3, prbs: randomInt(6, 12) });
  const { config, K, C, dataRes, code } = r;
  const nr = r.options.nr,
    D = config.symbols.length,
    slots = 2;
  const dir = fileURLToPath(new URL('../../src/receiver/gpu/', import.meta.url));
  const { exe, error } = compileEmulated(
    KERNELS_MAIN,
    ['slot-gather.cu', 'slot-pack.cu'].map((f) => `${dir}${f}`),
    ['-DRX_BLOCK=256', `-DNR=${nr}`],
  );
  assert.equal(error, null);
  const rng = new Philox(randomInt(1, 1e9), 3);
  const grid = Float32Array.from({ length: 2 * slots * 14 * K * nr }, () => rng.normal());
  const bits = Uint8Array.from({ length: slots * C * code.k }, () => (rng.uniform() < 0.5 ? 1 : 0));
  const P = C > 1 ? code.k - 24 : code.k;
  const mask = config.symbols.reduce((m, l) => m | (1 << l), 0);
  const head = new Int32Array([slots, K, mask, D, dataRes, C, code.k, P, r.A]);
  const input = Buffer.concat([Buffer.from(head.buffer), Buffer.from(grid.buffer), Buffer.from(bits)]);
  const out = runEmulated(exe!, input);
  let at = 0;
  const take = <T>(n: number, bytes: number, f: (b: ArrayBuffer, o: number, n: number) => T): T => {
    const copy = new Uint8Array(out.subarray(at, at + n * bytes)).buffer;
    at += n * bytes;
    return f(copy, 0, n);
  };
  const Yp = take(2 * slots * D * K * nr, 8, (b, o, n) => new Float64Array(b, o, n));
  const y32 = take(2 * slots * dataRes * nr, 4, (b, o, n) => new Float32Array(b, o, n));
  const packed = take(slots * Math.ceil(r.A / 8), 1, (b, o, n) => new Uint8Array(b, o, n));
  for (let s = 0; s < slots; s++) {
    config.symbols.forEach((l, d) => {
      for (let q = 0; q < 2 * K * nr; q++)
        assert.equal(Yp[2 * (s * D + d) * K * nr + q], grid[2 * (s * 14 + l) * K * nr + q]);
    });
    config.dataSymbols.forEach((l, u) => {
      for (let q = 0; q < 2 * K * nr; q++)
        assert.equal(y32[2 * (s * dataRes + u * K) * nr + q], grid[2 * (s * 14 + l) * K * nr + q]);
    });
    const bytes = Math.ceil(r.A / 8);
    for (let t = 0; t < r.A; t++) {
      const want = bits[(s * C + Math.floor(t / P)) * code.k + (t % P)]!;
      assert.equal((packed[s * bytes + (t >> 3)]! >> (7 - (t & 7))) & 1, want, `slot ${s} TB bit ${t}`);
    }
  }
});

test("device slot receiver: decoded bits and CRC flags equal the CPU receiver's (mmse, nway, ep; LS and LMMSE)", {
  skip,
}, async () => {
  const cases: SlotReceiverOptions[] = [
    { ...BASE, csi: 'lmmse', n0: 0.02, prbs: 48, layers: 4, modulation: '16qam', rate: 0.6 },
    { ...BASE, csi: 'ls', detector: { detector: 'nway', passes: 2 } as never, layers: 2, modulation: '64qam' },
    { ...BASE, csi: 'lmmse', detector: { detector: 'ep' }, layers: 2 },
  ];
  for (const o of cases) {
    const r = resolveReceiver(o);
    // one slot near the waterfall (some blocks fail), the rest clean
    const slots = [...slotsOf(r, 3, 0.01, randomInt(1, 1e9)), ...slotsOf(r, 1, 0.2, randomInt(1, 1e9))];
    const cpu = receiveSlotsCpu(
      r,
      slots.map((s) => s.slot),
    );
    const gpu = await receiveSlots(
      slots.map((s) => s.slot),
      { ...o, engine: 'cuda' },
    );
    gpu.forEach((g, s) => {
      assert.deepEqual(g.blockCrcOk, cpu[s]!.blockCrcOk, `${o.detector.detector}: slot ${s} block CRCs`);
      assert.equal(g.tbCrcOk, cpu[s]!.tbCrcOk, `slot ${s} TB CRC`);
      if (g.tbCrcOk) assert.deepEqual(g.tb, slots[s]!.tb, `slot ${s} bits`);
    });
    assert.ok(
      gpu.slice(0, 3).every((g) => g.tbCrcOk),
      'the clean slots decode',
    );
  }
});

test('lattice-mimo receive: made slots and an --input file round trip; flags checked', async () => {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'receive-'));
  const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'receive', ...args], { encoding: 'utf8' });
  const made = run(
    '--make',
    '2',
    '--prbs',
    '8',
    '--engine',
    'cpu',
    '--detector',
    'mmse',
    '--json',
    join(dir, 'made.json'),
  );
  assert.equal(made.status, 0, made.stderr);
  assert.match(made.stderr, /2 transport block\(s\) pass their CRC, 2 equal the bits sent/);
  const doc = JSON.parse(readFileSync(join(dir, 'made.json'), 'utf8'));
  assert.equal(doc.slots.length, 2);
  // --input: slots made here, their transport blocks read back as hex
  const r = resolveReceiver({ ...BASE, prbs: 8, rnti: 77 });
  const slots = slotsOf(r, 2, 0.005, randomInt(1, 1e9));
  writeFileSync(
    join(dir, 'in.json'),
    JSON.stringify({ slots: slots.map((s) => ({ slot: s.slot.slot, grid: Array.from(s.slot.grid) })) }),
  );
  const read = run(
    '--input',
    join(dir, 'in.json'),
    '--prbs',
    '8',
    '--rnti',
    '77',
    '--engine',
    'cpu',
    '--detector',
    'mmse',
    '--rate',
    '0.5',
    '--json',
    join(dir, 'out.json'),
  );
  assert.equal(read.status, 0, read.stderr);
  const out = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
  out.slots.forEach((s: { tbCrcOk: boolean; tb: string }, i: number) => {
    assert.ok(s.tbCrcOk);
    const bits = slots[i]!.tb;
    let hex = '';
    for (let b = 0; b < bits.length; b += 4)
      hex += ((bits[b]! << 3) | ((bits[b + 1] ?? 0) << 2) | ((bits[b + 2] ?? 0) << 1) | (bits[b + 3] ?? 0)).toString(
        16,
      );
    assert.equal(s.tb, hex);
  });
  for (const [args, word] of [
    [['--input', join(dir, 'in.json'), '--make', '2'], '--make'],
    [['--passes', '2', '--detector', 'mmse'], '--passes'],
    [['--layers', '5'], 'layers'],
    [['--rate', '0.99'], 'rate'],
  ] as const) {
    const bad = run(...args, '--engine', 'cpu');
    assert.equal(bad.status, 2, `${args.join(' ')}: ${bad.stderr}`);
    assert.match(bad.stderr, new RegExp(word));
  }
});
