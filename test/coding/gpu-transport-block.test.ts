/**
 * The GPU transport block checks (src/coding/gpu/crc-blocks.cu, crc-verdict.cu,
 * transport-block-check.ts) and rate
 * recovery (rate-recovery.cu, rate-recovery.ts). Through the CUDA emulator (CI, no GPU):
 * crc_blocks + crc_verdict's per-block and per-transport-block verdicts equal checkTransportBlock's on random
 * transport blocks segmented on the CPU (CRC16 and CRC24A, C = 1 and C > 1 on both base graphs,
 * more code blocks than warps), some with flipped bits in payload, block CRC or transport block
 * CRC, some with bytes other than 0 / 1 (the low bit is read); rate_recovery's output equals
 * nrRateRecover into a Float32Array bit for bit (NR: repeats, fillers, punctured columns; frames
 * with a stride above E). On a device (skipped with the reason otherwise): the plans' enqueue()
 * gives the same, and their typed errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ldpcCode, type LdpcCode } from '../../src/coding/code.js';
import { crcOf, NR_CRCS } from '../../src/coding/crc.js';
import { rateRecoveryColumns } from '../../src/coding/gpu/rate-recovery.js';
import { crcBlockShifts, gf2MulMod, gf2PowMod } from '../../src/coding/gpu/transport-block-check.js';
import { nrRateMatchMap, nrRateRecover, type NrBaseGraph } from '../../src/coding/nr.js';
import { checkTransportBlock, segmentTransportBlock } from '../../src/coding/transport-block.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const cuda = cudaAvailable();
const skipGpu = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;
const KERNEL = (file: string): string => fileURLToPath(new URL(`../../src/coding/gpu/${file}`, import.meta.url));

const concat = (parts: ArrayBufferView[]): Uint8Array =>
  Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
const randomBits = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => randomInt(2));

/** A 38.214 5.1.3.2 size for C blocks (A + 24 a multiple of 8 C), about `near` bits. */
const tbsFor = (C: number, near: number): number => 8 * C * Math.ceil((near + 24) / (8 * C)) - 24;

// ---------------------------------------------------------------------------------------------
// Transport block checks

interface CheckCase {
  A: number;
  bg: NrBaseGraph;
  C: number;
  Kprime: number;
  tbs: number;
  /** tbs x C x K' decisions as the decoder leaves them. */
  bits: Uint8Array;
  /** checkTransportBlock's verdicts: tbs x C, tbs. */
  blockOk: Uint8Array;
  tbOk: Uint8Array;
  /** What was done to each transport block (for failure messages). */
  damage: string[];
}

/** `tbs` random transport blocks of A bits, segmented on the CPU, some damaged, and the CPU's verdicts. */
function checkCase(A: number, bg: NrBaseGraph, tbs: number): CheckCase {
  let C = 0,
    Kprime = 0;
  const frames: Uint8Array[] = [];
  const blockOk: number[] = [],
    tbOk: number[] = [],
    done: string[] = [];
  for (let t = 0; t < tbs; t++) {
    const seg = segmentTransportBlock(randomBits(A), bg);
    C = seg.C;
    Kprime = seg.Kprime;
    const blocks = seg.blocks;
    // the first passes, the second fails, the rest at random
    const damage = t === 0 ? 0 : t === 1 ? 1 + randomInt(3) : randomInt(5);
    if (damage === 1 || damage === 2) {
      // flips anywhere: payload, block CRC, transport block CRC
      const at = Array.from({ length: damage }, () => [randomInt(C), randomInt(Kprime)] as const);
      for (const [r, i] of at) blocks[r]![i] ^= 1;
      done.push(`flips ${at.map(([r, i]) => `${r}:${i}`).join(' ')}`);
    } else if (damage === 3) {
      // the transport block CRC's last bit, at the end of the last block's part
      blocks[C - 1]![seg.perBlock - 1] ^= 1;
      done.push('last TB CRC bit');
    } else done.push(damage === 4 ? 'non-bit bytes' : 'none');
    const got = checkTransportBlock(blocks, A, bg);
    if (damage === 4) {
      // bytes other than 0 / 1 that the kernel reads by their low bit (the CPU would refuse them)
      for (const blk of blocks) for (let i = 0; i < 5; i++) blk[randomInt(Kprime)] += 2 * (1 + randomInt(100));
    }
    frames.push(...blocks);
    blockOk.push(...got.blockCrcOk.map(Number));
    tbOk.push(Number(got.tbCrcOk));
  }
  const bits = new Uint8Array(tbs * C * Kprime);
  frames.forEach((f, i) => {
    bits.set(f, i * Kprime);
  });
  return {
    A,
    bg,
    C,
    Kprime,
    tbs,
    bits,
    blockOk: Uint8Array.from(blockOk),
    tbOk: Uint8Array.from(tbOk),
    damage: done,
  };
}

/** The shapes checked: CRC16 and CRC24A, one block and several, both base graphs. */
const CHECK_SHAPES: [number, NrBaseGraph][] = [
  [24, 2],
  [100 + randomInt(3700), 2],
  [3824, 1],
  [tbsFor(1, 4000 + randomInt(4000)), 1],
  [tbsFor(2, 3900), 2],
  [tbsFor(3, 9000), 2],
  [tbsFor(2, 9000 + randomInt(5000)), 1],
  [tbsFor(11, 90000), 1],
];

const CHECK_MAIN = String.raw`
int main() {
  int h[6];
  if (fread(h, 4, 6, stdin) != 6) return 1;
  const int tbs = h[0], C = h[1], K = h[2], tbLen = h[4], noBlock = h[5];
  const unsigned tbPoly = (unsigned)h[3];
  std::vector<unsigned char> bits((size_t)tbs * C * K), blockOk((size_t)tbs * C, 7), tbOk(tbs, 7);
  std::vector<unsigned> shifts(2 * CRC_THREADS + C), partial((size_t)tbs * C);
  if (fread(bits.data(), 1, bits.size(), stdin) != bits.size()) return 1;
  if (fread(shifts.data(), 4, shifts.size(), stdin) != shifts.size()) return 1;
  unsigned char* bo = noBlock ? nullptr : blockOk.data();
  const size_t shared = ((K + 31) / 32 + 2 * (CRC_THREADS / 32)) * 4;
  if (emu_launch(tbs * C, dim3{CRC_THREADS, 1, 1}, shared, [&] { crc_blocks(bits.data(), shifts.data(), partial.data(), bo, C, K, tbPoly, tbLen); })) return 2;
  if (emu_launch((tbs + VERDICT_WARPS - 1) / VERDICT_WARPS, dim3{32 * VERDICT_WARPS, 1, 1}, 0, [&] { crc_verdict(partial.data(), bo, tbOk.data(), tbs, C); })) return 2;
  fwrite(blockOk.data(), 1, blockOk.size(), stdout); fwrite(tbOk.data(), 1, tbOk.size(), stdout);
  return 0;
}
`;

test('emulated transport block checks (crc-blocks.cu, crc-verdict.cu) equal checkTransportBlock', {
  skip: skipEmu,
}, () => {
  for (const [threads, warps] of [
    [64, 1],
    [256, 8],
  ] as const) {
    const { exe, error } = compileEmulated(
      CHECK_MAIN,
      [KERNEL('crc-blocks.cu'), KERNEL('crc-verdict.cu')],
      [`-DCRC_THREADS=${threads}`, `-DVERDICT_WARPS=${warps}`],
    );
    assert.equal(error, null);
    for (const [A, bg] of CHECK_SHAPES) {
      const c = checkCase(A, bg, 2 + randomInt(5));
      const crc = NR_CRCS[A > 3824 ? 'crc24a' : 'crc16'];
      const noBlock = randomInt(4) === 0 ? 1 : 0;
      const out = runEmulated(
        exe,
        concat([
          new Int32Array([c.tbs, c.C, c.Kprime, crc.poly, crc.length, noBlock]),
          c.bits,
          crcBlockShifts(c.Kprime, c.C, crc.poly, crc.length, threads),
        ]),
      );
      const n = c.tbs * c.C;
      const blockOk = out.subarray(0, n),
        tbOk = out.subarray(n, n + c.tbs);
      const what = `${threads} threads, A ${A} bg ${bg} (C ${c.C}, K' ${c.Kprime}; ${c.damage.join(', ')})`;
      assert.deepEqual(Uint8Array.from(tbOk), c.tbOk, `${what}: transport block verdicts`);
      if (noBlock)
        assert.ok(
          blockOk.every((v) => v === 7),
          `${what}: blockOk written though null`,
        );
      else assert.deepEqual(Uint8Array.from(blockOk), c.blockOk, `${what}: code block verdicts`);
    }
  }
});

test("the check's shifts: D^d mod g equals the CRC of a one followed by d - L zeros; products add exponents", () => {
  for (const kind of ['crc24a', 'crc24b', 'crc16', 'crc11', 'crc6'] as const) {
    const { poly, length: L } = NR_CRCS[kind];
    for (let k = 0; k < 20; k++) {
      const d = randomInt(20_000),
        e = randomInt(20_000);
      const msg = new Uint8Array(d + 1);
      msg[0] = 1;
      assert.equal(gf2PowMod(d + L, poly, L), crcOf(kind, msg), `${kind} D^${d + L}`);
      assert.equal(
        gf2MulMod(gf2PowMod(d, poly, L), gf2PowMod(e, poly, L), poly, L),
        gf2PowMod(d + e, poly, L),
        `${kind} D^${d} D^${e}`,
      );
    }
  }
  const t = crcBlockShifts(8448, 68, NR_CRCS.crc24a.poly, 24, 256);
  assert.equal(t.length, 2 * 256 + 68);
  assert.equal(t[255], 1, 'the last chunk ends the code block: D^0');
  assert.equal(t[2 * 256 + 67], 1, 'the last code block ends the transport block: D^0');
});

// ---------------------------------------------------------------------------------------------
// Rate recovery

/** Frames in groups (a slot's code blocks) and a sign pattern (descrambling) for the recovery. */
interface RecoveryLayout {
  groupFrames: number;
  groupStride: number;
  /** groupFrames x perFrame bytes 0/1, or null. */
  signs: Uint8Array | null;
}

/**
 * Random float32 channel LLRs laid out as `layout` says (default: frames perFrame apart, no signs)
 * and the CPU's recovery of each frame into float32 (signs flipped first, then nrRateRecover).
 */
function recoveryCase(code: LdpcCode, frames: number, perFrame: number, saturation: number, layout?: RecoveryLayout) {
  const nFull = code.H.n;
  const { groupFrames, groupStride, signs } = layout ?? { groupFrames: 1, groupStride: perFrame, signs: null };
  const groups = Math.ceil(frames / groupFrames);
  const llr = new Float32Array(groups * groupStride);
  for (let i = 0; i < llr.length; i++) llr[i] = Math.fround((Math.random() - 0.5) * 40);
  const want = new Float32Array(frames * nFull);
  const map = code.nr ? nrRateMatchMap(code.nr, 0) : null;
  for (let f = 0; f < frames; f++) {
    const q = Math.floor(f / groupFrames),
      r = f % groupFrames;
    const frame = llr.slice(q * groupStride + r * perFrame, q * groupStride + (r + 1) * perFrame);
    if (signs) for (let i = 0; i < perFrame; i++) if (signs[r * perFrame + i]) frame[i] = -frame[i]!;
    const out = want.subarray(f * nFull, (f + 1) * nFull);
    if (map) nrRateRecover(code.nr!, map, frame, out, true, saturation, 0);
    else out.set(frame.subarray(0, code.n));
  }
  return { llr, want, nFull, groupFrames, groupStride, signs };
}

const RECOVERY_MAIN = String.raw`
int main() {
  int h[9]; float sat;
  if (fread(h, 4, 9, stdin) != 9 || fread(&sat, 4, 1, stdin) != 1) return 1;
  const int frames = h[0], per = h[1], nFull = h[2], n = h[3], fill0 = h[4], fill1 = h[5], groupFrames = h[6], groupStride = h[7], withSigns = h[8];
  const int groups = (frames + groupFrames - 1) / groupFrames;
  std::vector<float> llr((size_t)groups * groupStride), out((size_t)frames * nFull);
  std::vector<int> start(nFull + 1), col(n);
  std::vector<unsigned char> signs(withSigns ? (size_t)groupFrames * per : 0);
  if (fread(llr.data(), 4, llr.size(), stdin) != llr.size() || fread(start.data(), 4, start.size(), stdin) != start.size() || fread(col.data(), 4, n, stdin) != (size_t)n) return 1;
  if (withSigns && fread(signs.data(), 1, signs.size(), stdin) != signs.size()) return 1;
  if (emu_launch((frames * nFull + RR_BLOCK - 1) / RR_BLOCK, dim3{RR_BLOCK, 1, 1}, 0, [&] { rate_recovery(llr.data(), start.data(), col.data(), out.data(), frames, per, nFull, fill0, fill1, sat, withSigns ? signs.data() : nullptr, groupFrames, (long long)groupStride); })) return 2;
  fwrite(out.data(), 4, out.size(), stdout);
  return 0;
}
`;

test('emulated rate recovery (rate-recovery.cu) equals nrRateRecover in float32, bit for bit', {
  skip: skipEmu,
}, () => {
  const { exe, error } = compileEmulated(RECOVERY_MAIN, KERNEL('rate-recovery.cu'), ['-DRR_BLOCK=256']);
  assert.equal(error, null);
  for (const [spec, Qm] of [
    [`nr:bg2:${40 + randomInt(200)}:1/3`, 2],
    [`nr:bg1:${300 + randomInt(200)}:1/2`, 4],
    [`nr:bg1:${100 + randomInt(100)}:0.05`, 2], // E above N: every column repeated
    ['wimax:576', undefined],
  ] as const) {
    const code = ldpcCode(spec, Qm ? { Qm } : {});
    const frames = 3 + randomInt(3),
      perFrame = code.n + randomInt(30),
      sat = 20;
    // half the time a slot's layout: blocks in groups with a gap after each group, and a sign pattern
    const grouped = randomInt(2) === 0;
    const groupFrames = grouped ? 2 : 1;
    const layout: RecoveryLayout = grouped
      ? {
          groupFrames,
          groupStride: groupFrames * perFrame + randomInt(50),
          signs: Uint8Array.from({ length: groupFrames * perFrame }, () => randomInt(2)),
        }
      : { groupFrames, groupStride: perFrame, signs: null };
    const c = recoveryCase(code, frames, perFrame, sat, layout);
    const { start, col, fill } = rateRecoveryColumns(code);
    const raw = runEmulated(
      exe,
      concat([
        new Int32Array([
          frames,
          perFrame,
          c.nFull,
          code.n,
          fill[0],
          fill[1],
          groupFrames,
          layout.groupStride,
          grouped ? 1 : 0,
        ]),
        new Float32Array([sat]),
        c.llr,
        start,
        col,
        ...(layout.signs ? [layout.signs] : []),
      ]),
    );
    const got = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    assert.equal(got.length, c.want.length);
    for (let i = 0; i < got.length; i++) assert.equal(got[i], c.want[i], `${spec} (grouped ${grouped}) entry ${i}`);
  }
});

test('rateRecoveryColumns: every channel position once, in channel order per column', () => {
  const code = ldpcCode(`nr:bg2:${100 + randomInt(100)}:0.1`, { Qm: 2 });
  const { start, col, fill } = rateRecoveryColumns(code);
  const map = nrRateMatchMap(code.nr!, 0);
  assert.deepEqual(fill, [code.nr!.K, code.nr!.Kldpc]);
  assert.equal(start[code.H.n], code.n);
  assert.deepEqual(
    Array.from(col).sort((a, b) => a - b),
    Array.from({ length: code.n }, (_, j) => j),
  );
  for (let c = 0; c < code.H.n; c++)
    for (let e = start[c]!; e < start[c + 1]!; e++) {
      assert.equal(map[col[e]!], c);
      if (e > start[c]!) assert.ok(col[e]! > col[e - 1]!);
    }
});

// ---------------------------------------------------------------------------------------------
// On the device

test('device plans: transport block checks and rate recovery equal the CPU; typed errors', {
  skip: skipGpu,
}, async () => {
  const { requireCuda } = await import('../../src/gpu/context.js');
  const { DeviceBuffer } = await import('../../src/gpu/memory.js');
  const { Stream } = await import('../../src/gpu/stream.js');
  const { transportBlockCheckCudaPlan } = await import('../../src/coding/gpu/transport-block-check.js');
  const { rateRecoveryCudaPlan } = await import('../../src/coding/gpu/rate-recovery.js');
  const ctx = requireCuda();
  const stream = Stream.create(ctx);
  for (const [A, bg] of CHECK_SHAPES) {
    const c = checkCase(A, bg, 50 + randomInt(50));
    const plan = transportBlockCheckCudaPlan(ctx, { bg, Kprime: c.Kprime, C: c.C });
    assert.equal(plan.segmentation.A, A);
    const bits = DeviceBuffer.alloc(ctx, c.bits.byteLength),
      blockOk = DeviceBuffer.alloc(ctx, c.tbs * c.C),
      tbOk = DeviceBuffer.alloc(ctx, c.tbs),
      scratch = DeviceBuffer.alloc(ctx, plan.scratchBytes(c.tbs));
    bits.upload(c.bits);
    plan.enqueue(stream, { bits: bits.ptr, tbs: c.tbs, blockOk: blockOk.ptr, tbOk: tbOk.ptr, scratch: scratch.ptr });
    stream.synchronize();
    const gotBlock = new Uint8Array(c.tbs * c.C),
      gotTb = new Uint8Array(c.tbs);
    blockOk.download(gotBlock);
    tbOk.download(gotTb);
    assert.deepEqual(gotTb, c.tbOk, `A ${A} bg ${bg}`);
    assert.deepEqual(gotBlock, c.blockOk, `A ${A} bg ${bg}`);
    for (const b of [bits, blockOk, tbOk, scratch]) b.free();
    plan.free();
  }
  assert.throws(() => transportBlockCheckCudaPlan(ctx, { bg: 1, Kprime: 100, C: 2 }), InvalidArgumentError);

  const code = ldpcCode(`nr:bg1:${500 + randomInt(1000)}:1/3`, { Qm: 4 });
  const frames = 40,
    perFrame = code.n + 12,
    sat = 16;
  const plan = rateRecoveryCudaPlan(ctx, code, { perFrame, saturation: sat });
  for (const grouped of [false, true]) {
    const layout: RecoveryLayout = grouped
      ? {
          groupFrames: 8,
          groupStride: 8 * perFrame + 37,
          signs: Uint8Array.from({ length: 8 * perFrame }, () => randomInt(2)),
        }
      : { groupFrames: 1, groupStride: perFrame, signs: null };
    const c = recoveryCase(code, frames, perFrame, sat, layout);
    const llr = DeviceBuffer.alloc(ctx, c.llr.byteLength),
      input = DeviceBuffer.alloc(ctx, c.want.byteLength),
      signs = layout.signs ? DeviceBuffer.alloc(ctx, layout.signs.byteLength) : null;
    llr.upload(c.llr);
    if (signs && layout.signs) signs.upload(layout.signs);
    plan.enqueue(stream, {
      llr: llr.ptr,
      input: input.ptr,
      frames,
      ...(grouped ? { groups: { groupFrames: 8, groupStride: layout.groupStride }, signs: signs!.ptr } : {}),
    });
    stream.synchronize();
    const got = new Float32Array(c.want.length);
    input.download(got);
    assert.deepEqual(got, c.want, `grouped ${grouped}`);
    llr.free();
    input.free();
    signs?.free();
  }
  assert.throws(
    () => plan.enqueue(stream, { llr: 0n, input: 0n, frames: 1, groups: { groupFrames: 2, groupStride: perFrame } }),
    InvalidArgumentError,
  );
  plan.free();
  assert.throws(() => rateRecoveryCudaPlan(ctx, code, { perFrame: code.n - 1 }), InvalidArgumentError);
  assert.throws(() => rateRecoveryCudaPlan(ctx, code, { perFrame: code.n, stride: 3 } as never), InvalidArgumentError);
  stream.destroy();
});
