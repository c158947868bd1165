/**
 * The N-way / SSFE float64 kernel (nway-float64.cu), which redoes on the device the vectors whose
 * channel float32 cannot carry, against the CPU engine on fresh channels, many of them nearly
 * singular (the ones that need it), some exactly singular or with a zero column, at random scales:
 *  - symbols, LLRs (float64) and node counts equal the CPU engine's bit for bit; a channel the CPU
 *    engine calls singular is RANK_DEFICIENT in the kernel, nothing else written;
 *  - the host's inputs (float64RedoInputs) are the CPU engine's scaled channel, vector and N0, and a
 *    vector the CPU engine refuses (too large for its channel) is left to it;
 *  - on the GPU, detectAsync redoes flagged vectors with the kernel (stats.redoneInFloat64) and
 *    returns the CPU engine's answer for them; a singular channel is still the CPU engine's
 *    RankDeficientError.
 * Emulated (CUDA emulator, no GPU needed) and on the GPU where one answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { RankDeficientError } from '../../src/core/errors.js';
import { detect, validateDetection } from '../../src/mimo/detect.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { addNoise, randomSymbols, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { constellation } from '../../src/mimo/modulation.js';
import { detectorRealModel } from '../../src/mimo/soft/real-model.js';
import { realModelDefines } from '../../src/mimo/detectors/kbest/gpu-model.js';
import { float64RedoInputs } from '../../src/mimo/gpu/detect-batch.js';
import { nwayFloat64Shape } from '../../src/mimo/detectors/nway/cuda.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import type { DetectionInput, DetectOptions, Modulation } from '../../src/mimo/types.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';
import { cutOutput, stdinOf } from './gpu-test-env.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const cuda = cudaAvailable();
const skipGpu = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

const SEED = randomInt(0, 2 ** 31);
const at = `(seed ${SEED})`;

interface Case {
  nr: number;
  nt: number;
  mod: Modulation;
  detector: 'nway' | 'ssfe';
  passes: number;
}

/**
 * `channels` channels of `vpc` vectors each: Rayleigh, each scaled by a random power of two; kinds
 * by channel index mod 6: 0, 1 nearly singular (one column another's multiple plus 2^-14 .. 2^-22 of
 * noise: float32 QR cannot carry these), 2 exactly singular (a repeated column), 3 a zero column,
 * 4, 5 plain. N0 per vector at random; y from random symbols.
 */
function problem(
  rng: Philox,
  c: Case,
  channels: number,
  vpc: number,
  f32: boolean,
): DetectionInput & { noiseVar: Float64Array } {
  const { nr, nt, mod } = c;
  const hLen = 2 * nr * nt;
  const H = rayleighChannels(rng, channels, nt, nr);
  for (let ch = 0; ch < channels; ch++) {
    const o = ch * hLen,
      kind = ch % 6;
    if (nt >= 2 && (kind === 0 || kind === 1)) {
      const eps = 2 ** -(14 + rng.int(9)),
        a = rng.uniform() + 0.5,
        b = rng.uniform() - 0.5;
      for (let i = 0; i < nr; i++) {
        const re = H[o + 2 * i]!,
          im = H[o + 2 * i + 1]!;
        H[o + 2 * nr + 2 * i] = a * re - b * im + eps * (rng.uniform() - 0.5);
        H[o + 2 * nr + 2 * i + 1] = a * im + b * re + eps * (rng.uniform() - 0.5);
      }
    } else if (nt >= 2 && kind === 2) {
      for (let i = 0; i < 2 * nr; i++) H[o + 2 * nr * (nt - 1) + i] = H[o + i]!;
    } else if (kind === 3) {
      for (let i = 0; i < 2 * nr; i++) H[o + 2 * nr * rng.int(nt) + i] = 0;
    }
    const s = 2 ** (rng.int(41) - 20);
    for (let i = 0; i < hLen; i++) H[o + i] = H[o + i]! * s;
  }
  const { symbols } = randomSymbols(rng, channels * vpc * nt, mod);
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), 0.01);
  const noiseVar = Float64Array.from({ length: channels * vpc }, () => 10 ** (-3 + 3 * rng.uniform()));
  const input = { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar };
  return f32 ? { ...input, H: Float32Array.from(H), y: Float32Array.from(y) } : input;
}

const optsOf = (c: Case): DetectOptions => ({
  detector: c.detector,
  modulation: c.mod,
  engine: 'cpu',
  ...(c.detector === 'nway' ? { passes: c.passes } : {}),
});

/** The CPU engine's answer for each channel alone (null where it throws RankDeficientError). */
function cpuPerChannel(
  input: DetectionInput & { noiseVar: Float64Array },
  opts: DetectOptions,
  channels: number,
): (ReturnType<typeof detect> | null)[] {
  const { nr, nt } = input,
    vpc = input.vectorsPerChannel!,
    hLen = 2 * nr * nt,
    yLen = 2 * nr;
  return Array.from({ length: channels }, (_, ch) => {
    try {
      return detect(
        {
          nt,
          nr,
          vectorsPerChannel: vpc,
          H: Float64Array.from(input.H.subarray(ch * hLen, (ch + 1) * hLen)),
          y: Float64Array.from(input.y.subarray(ch * vpc * yLen, (ch + 1) * vpc * yLen)),
          noiseVar: input.noiseVar.subarray(ch * vpc, (ch + 1) * vpc),
        },
        opts,
      );
    } catch (e) {
      if (e instanceof RankDeficientError) return null;
      throw e;
    }
  });
}

const MAIN = String.raw`
int main() {
  int count, shared; double scale, clip;
  if (fread(&count, 4, 1, stdin) != 1 || fread(&shared, 4, 1, stdin) != 1 || fread(&scale, 8, 1, stdin) != 1 || fread(&clip, 8, 1, stdin) != 1) return 1;
  std::vector<double> H((size_t)count * 2 * NR * NT), y((size_t)count * ROWS), noise(count);
  if (fread(H.data(), 8, H.size(), stdin) != H.size() || fread(y.data(), 8, y.size(), stdin) != y.size() || fread(noise.data(), 8, noise.size(), stdin) != noise.size()) return 1;
  std::vector<int> sym((size_t)count * NT, -1), status((size_t)count * 2, -1);
  std::vector<double> llr((size_t)count * NT * BPS, 12345.0);
  if (emu_launch((count + VPB - 1) / VPB, dim3{(unsigned)(NW64_T * VPB), 1, 1}, shared, [&] { nway_float64(H.data(), y.data(), noise.data(), sym.data(), SOFT ? llr.data() : nullptr, status.data(), count, scale, clip); })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 8, llr.size(), stdout);
  fwrite(status.data(), 4, status.size(), stdout);
  return 0;
}
`;

const KERNEL = fileURLToPath(new URL('../../src/mimo/detectors/nway/nway-float64.cu', import.meta.url));

test("float64 N-way kernel (emulated): the CPU engine's symbols, LLRs and node counts bit for bit; singular channels RANK_DEFICIENT", {
  skip: skipEmu,
  timeout: 600_000,
}, () => {
  const rng = new Philox(SEED, 41);
  const cases: Case[] = [
    { nr: 4, nt: 4, mod: '64qam', detector: 'nway', passes: 4 },
    { nr: 2, nt: 2, mod: '16qam', detector: 'nway', passes: 2 },
    { nr: 3, nt: 2, mod: 'qpsk', detector: 'ssfe', passes: 1 },
    { nr: 4, nt: 3, mod: 'bpsk', detector: 'nway', passes: 2 },
    { nr: 2, nt: 1, mod: 'bpsk', detector: 'ssfe', passes: 1 },
    { nr: 8, nt: 8, mod: '16qam', detector: 'nway', passes: 2 },
    { nr: 2, nt: 2, mod: '256qam', detector: 'nway', passes: 2 },
  ];
  let compared = 0,
    singular = 0;
  for (const c of cases) {
    const channels = 12,
      vpc = 3,
      opts = optsOf(c);
    const input = problem(rng, c, channels, vpc, rng.int(2) === 0);
    const val = validateDetection(input, opts);
    const all = Array.from({ length: channels * vpc }, (_, v) => v);
    const prep = float64RedoInputs(input, val, all);
    assert.deepEqual(prep.left, [], `no vector is too large here ${at}`);
    const model = detectorRealModel(c.detector, constellation(c.mod), c.nt, c.nr);
    const shape = nwayFloat64Shape(model, c.passes);
    const defines = Object.entries({
      ...realModelDefines(model),
      PASSES: c.passes,
      VPB: shape.vectorsPerBlock,
      SOFT: 1,
    }).map(([k, v]) => `-D${k}=${v}`);
    const { exe, error } = compileEmulated(MAIN, KERNEL, [
      ...defines,
      `-DSYM_OF_LEVELS={${Array.from(model.symbolOfLevels).join(',')}}`,
    ]);
    if (error) throw new Error(error);
    const head = new ArrayBuffer(24),
      dv = new DataView(head);
    dv.setInt32(0, all.length, true);
    dv.setInt32(4, shape.vectorsPerBlock * shape.sharedBytesPerVector, true);
    dv.setFloat64(8, model.scale, true);
    dv.setFloat64(16, 8, true);
    const out = runEmulated(exe, stdinOf([new Uint8Array(head), prep.H, prep.y, prep.noise]));
    const nb = c.nt * model.bitsPerSymbol;
    const [sym, llr, status] = cutOutput(out, [
      ['i32', all.length * c.nt],
      ['f64', all.length * nb],
      ['i32', 2 * all.length],
    ]);
    const cpu = cpuPerChannel(input, opts, channels);
    for (let v = 0; v < all.length; v++) {
      const ch = Math.floor(v / vpc),
        k = v % vpc,
        ref = cpu[ch],
        what = `${c.detector} ${c.nr}x${c.nt} ${c.mod} vector ${v} ${at}`;
      if (!ref) {
        assert.equal(status[2 * v], MIMO_STATUS.RANK_DEFICIENT, `${what}: the CPU engine calls the channel singular`);
        singular++;
        continue;
      }
      assert.equal(status[2 * v], 0, `${what}: flagged ${status[2 * v]}`);
      assert.deepEqual(
        [...sym.subarray(v * c.nt, (v + 1) * c.nt)],
        [...ref.symbols.subarray(k * c.nt, (k + 1) * c.nt)],
        `${what}: symbols`,
      );
      assert.deepEqual(
        [...llr.subarray(v * nb, (v + 1) * nb)],
        [...ref.llr!.subarray(k * nb, (k + 1) * nb)],
        `${what}: LLRs`,
      );
      assert.equal(status[2 * v + 1] * vpc, ref.stats.nodesVisited, `${what}: nodes`);
      compared++;
    }
  }
  assert.ok(compared >= 150 && singular >= 10, `${compared} vectors compared, ${singular} singular ${at}`);
});

test("float64 redo inputs: the CPU engine's scaled channel, vector and N0; a vector too large for its channel is left to the CPU engine", () => {
  const rng = new Philox(SEED, 43);
  const c: Case = { nr: 2, nt: 2, mod: '16qam', detector: 'nway', passes: 2 };
  const input = problem(rng, c, 6, 2, false);
  const big = 5;
  input.y[big * 4] = 2 ** 600 * Math.max(...Array.from(input.H.subarray(2 * 8, 3 * 8), Math.abs));
  const val = validateDetection(input, optsOf(c));
  const vs = [1, 4, big, 9];
  const prep = float64RedoInputs(input, val, vs);
  assert.deepEqual(prep.left, [big]);
  assert.deepEqual(prep.todo, [1, 4, 9]);
  prep.todo.forEach((v, i) => {
    const ch = Math.floor(v / 2);
    const hs = input.H.subarray(ch * 8, ch * 8 + 8),
      m = Math.max(...Array.from(hs, Math.abs));
    let e = Math.floor(Math.log2(m));
    if (2 ** e > m) e--;
    else if (2 ** (e + 1) <= m) e++;
    const f = 2 ** -e;
    assert.deepEqual(
      [...prep.H.subarray(i * 8, i * 8 + 8)],
      Array.from(hs, (x) => x * f),
      `H of vector ${v}`,
    );
    assert.deepEqual(
      [...prep.y.subarray(i * 4, i * 4 + 4)],
      Array.from(input.y.subarray(v * 4, v * 4 + 4), (x) => x * f),
      `y of vector ${v}`,
    );
    assert.equal(prep.noise[i], input.noiseVar[v]! * f * f, `N0 of vector ${v}`);
    const top = Math.max(...Array.from(prep.H.subarray(i * 8, i * 8 + 8), Math.abs));
    assert.ok(top >= 1 && top < 2, `largest scaled entry ${top}`);
  });
});

test("GPU engine: vectors float32 cannot carry are redone by the float64 kernel (nway, ssfe): the CPU engine's answer; a singular channel stays the CPU engine's RankDeficientError", {
  skip: skipGpu,
  timeout: 300_000,
}, async () => {
  const rng = new Philox(SEED, 47);
  for (const [c, f32] of [
    [{ nr: 4, nt: 4, mod: '64qam', detector: 'nway', passes: 4 }, true],
    [{ nr: 4, nt: 4, mod: '16qam', detector: 'ssfe', passes: 1 }, false],
    [{ nr: 2, nt: 2, mod: 'qpsk', detector: 'nway', passes: 2 }, true],
  ] as const) {
    const channels = 240,
      vpc = 14,
      opts = optsOf(c);
    const input = problem(rng, c, channels, vpc, f32);
    const cpu = cpuPerChannel(input, opts, channels);
    // first without the singular channels (kinds 2 and 3), then with one of them
    const keep = Array.from({ length: channels }, (_, ch) => ch).filter((ch) => cpu[ch] !== null);
    const hLen = 2 * c.nr * c.nt,
      yLen = 2 * c.nr,
      nb = c.nt * constellation(c.mod).bitsPerSymbol;
    const pick = <T extends Float64Array | Float32Array>(a: T, len: number): T => {
      const out = new (a.constructor as new (n: number) => T)(keep.length * len);
      keep.forEach((ch, i) => {
        out.set(a.subarray(ch * len, (ch + 1) * len), i * len);
      });
      return out;
    };
    const ok = {
      nt: c.nt,
      nr: c.nr,
      vectorsPerChannel: vpc,
      H: pick(input.H, hLen),
      y: pick(input.y, vpc * yLen),
      noiseVar: pick(input.noiseVar, vpc),
    };
    const gpu = await detectAsync(ok, { ...opts, engine: 'cuda' });
    const nearlySingular = keep.filter((ch) => ch % 6 < 2).length;
    const what = `${c.detector} ${c.nr}x${c.nt} ${c.mod} ${f32 ? 'float32' : 'float64'} input ${at}`;
    assert.ok(
      (gpu.stats.redoneInFloat64 ?? 0) >= nearlySingular * vpc,
      `${what}: ${gpu.stats.redoneInFloat64} redone in float64, ${nearlySingular} nearly singular channels`,
    );
    assert.equal(gpu.stats.redoneOnCpu, undefined, what);
    keep.forEach((ch, i) => {
      if (ch % 6 >= 2) return;
      const ref = cpu[ch]!;
      for (let k = 0; k < vpc; k++) {
        const v = i * vpc + k;
        assert.deepEqual(
          [...gpu.symbols.subarray(v * c.nt, (v + 1) * c.nt)],
          [...ref.symbols.subarray(k * c.nt, (k + 1) * c.nt)],
          `${what}: symbols of channel ${ch} vector ${k}`,
        );
        assert.deepEqual(
          [...gpu.llr!.subarray(v * nb, (v + 1) * nb)],
          Array.from(ref.llr!.subarray(k * nb, (k + 1) * nb), Math.fround),
          `${what}: LLRs of channel ${ch} vector ${k}`,
        );
      }
    });
    const bad = cpu.indexOf(null);
    await assert.rejects(
      detectAsync({ ...input, engine: 'cuda' } as never, { ...opts, engine: 'cuda' }),
      (e: unknown) => {
        assert.ok(e instanceof RankDeficientError, `${what}: ${String(e)}`);
        // the place as context (channel and vector of the caller's batch), composed once into the message
        assert.deepEqual([e.context.channel, e.context.vector], [bad, bad * vpc], what);
        assert.match(e.message, new RegExp(`^channel ${bad}, vector ${bad * vpc}: `), what);
        return true;
      },
    );
  }
});
