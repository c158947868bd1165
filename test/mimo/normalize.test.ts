/**
 * The GPU engine's first detection stage (src/mimo/gpu/normalize.cu, and normalize-single.cu for
 * chunks of one vector a channel) in the CUDA emulator, against
 * the scaling the CPU engine applies, in float32: per channel 2^p with p = -exponent(max |H|) scales
 * H, the channel's vectors and N0 (by 2^2p, clamped to [2^-100, 2^100] when positive); non-finite H,
 * y or N0 flags NON_FINITE, a vector that overflows once scaled FLOAT32_UNSAFE; when asked, each
 * channel's summary head (its real vectors' flags or-ed, no nodes). Fresh random
 * channels of every width the kernel treats apart (several vectors a warp, one vector wider than a
 * warp), tiny and huge scales, zero channels, NaN and infinities. Skips where g++ is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { exponentOf } from '../../src/mimo/detect.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const unavailable = emulatorUnavailable();
const skip = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;

const WARPS = 4;
const NON_FINITE = 2,
  FLOAT32_UNSAFE = 16;

const MAIN = String.raw`
int main() {
  int h[7]; float scalar;
  if (fread(h, 4, 7, stdin) != 7 || fread(&scalar, 4, 1, stdin) != 1) return 1;
  const int channels = h[0], vpc = h[1], hLen = h[2], yLen = h[3], perVector = h[4], withSummary = h[5], valid = h[6];
  const size_t vectors = (size_t)channels * vpc;
  std::vector<float> H((size_t)channels * hLen), y(vectors * yLen), noise(vectors), noiseOut(vectors, -7.0f);
  std::vector<int> status(vectors * 2, -7), summary((size_t)channels * 4, -7);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()) return 1;
  if (perVector && fread(noise.data(), 4, noise.size(), stdin) != noise.size()) return 1;
  if (emu_launch(LAUNCH_GRID, dim3{32 * WARPS, 1, 1}, 0, [&] { LAUNCH_CALL; })) return 2;
  fwrite(H.data(), 4, H.size(), stdout);
  fwrite(y.data(), 4, y.size(), stdout);
  fwrite(noiseOut.data(), 4, noiseOut.size(), stdout);
  fwrite(status.data(), 4, status.size(), stdout);
  fwrite(summary.data(), 4, summary.size(), stdout);
  return 0;
}
`;

const f32 = Math.fround;
const finite = (x: number): boolean => Number.isFinite(x);

/** A float32 of random sign with its exponent drawn from [lo, hi]; now and then 0, NaN or an infinity when `odd`. */
function entry(lo: number, hi: number, odd: boolean): number {
  if (odd && randomInt(40) === 0) return [NaN, Infinity, -Infinity][randomInt(3)]!;
  if (randomInt(30) === 0) return 0;
  return f32((randomInt(2) ? 1 : -1) * (1 + randomInt(1 << 23) / 2 ** 23) * 2 ** (lo + randomInt(hi - lo + 1)));
}

interface Case {
  channels: number;
  vpc: number;
  nr: number;
  nt: number;
  H: Float32Array;
  y: Float32Array;
  noise: Float32Array | null;
  scalar: number;
}

/** The two kernels: the launch's grid and call in MAIN. */
const KERNELS = {
  warp: {
    file: 'normalize.cu',
    defines: [
      `-DWARPS=${WARPS}`,
      '-DLAUNCH_GRID=(channels+WARPS-1)/WARPS',
      '-DLAUNCH_CALL=mimo_normalize(H.data(),y.data(),perVector?noise.data():nullptr,scalar,noiseOut.data(),status.data(),withSummary?summary.data():nullptr,channels,vpc,hLen,yLen,valid)',
    ],
  },
  single: {
    file: 'normalize-single.cu',
    defines: [
      `-DWARPS=${WARPS}`,
      '-DNORM_LANES=8',
      '-DLAUNCH_GRID=(channels+WARPS*4-1)/(WARPS*4)',
      '-DLAUNCH_CALL=mimo_normalize_single(H.data(),y.data(),perVector?noise.data():nullptr,scalar,noiseOut.data(),status.data(),withSummary?summary.data():nullptr,channels,hLen,yLen,valid)',
    ],
  },
} as const;

function makeCase(nr: number, one: boolean): Case {
  const nt = 1 + randomInt(4),
    channels = 1 + randomInt(one ? 80 : 40),
    vpc = one ? 1 : 1 + randomInt(40);
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  const H = new Float32Array(channels * hLen),
    y = new Float32Array(channels * vpc * yLen);
  for (let c = 0; c < channels; c++) {
    // channels from tiny to huge (p far from 0 either way), some all zero, some with a non-finite entry
    const kind = randomInt(6),
      e = kind === 0 ? -120 : kind === 1 ? 100 : -10 + randomInt(20);
    for (let i = 0; i < hLen; i++) H[c * hLen + i] = kind === 2 ? 0 : entry(e - 6, e, kind === 3);
    for (let k = 0; k < vpc; k++) {
      // vectors near the channel's scale, or far above it (overflow once scaled up), now and then non-finite
      const ye = randomInt(5) === 0 ? Math.min(127, e + 60 + randomInt(100)) : e;
      for (let i = 0; i < yLen; i++) y[(c * vpc + k) * yLen + i] = entry(ye - 8, ye, true);
    }
  }
  const perVector = randomInt(2) === 0;
  const noiseValue = (): number =>
    [f32(10 ** (-3 + 6 * Math.random())), 0, NaN, Infinity, f32(2 ** -140), f32(2 ** 120)][
      randomInt(12) < 7 ? 0 : 1 + randomInt(5)
    ]!;
  const noise = perVector ? Float32Array.from({ length: channels * vpc }, noiseValue) : null;
  return { channels, vpc, nr, nt, H, y, noise, scalar: noiseValue() };
}

/** The kernel's results computed here: the CPU engine's scaling, rounded to float32. */
function reference(k: Case): { H: Float32Array; y: Float32Array; noise: Float32Array; status: Int32Array } {
  const hLen = 2 * k.nr * k.nt,
    yLen = 2 * k.nr;
  const H = Float32Array.from(k.H),
    y = Float32Array.from(k.y);
  const noise = new Float32Array(k.channels * k.vpc),
    status = new Int32Array(2 * k.channels * k.vpc);
  for (let c = 0; c < k.channels; c++) {
    const h = H.subarray(c * hLen, (c + 1) * hLen);
    const ok = h.every(finite);
    const m = h.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
    const p = ok && m > 0 ? -exponentOf(m) : 0;
    if (p !== 0) for (let i = 0; i < hLen; i++) h[i] = f32(h[i]! * 2 ** p);
    for (let j = 0; j < k.vpc; j++) {
      const v = c * k.vpc + j,
        yv = y.subarray(v * yLen, (v + 1) * yLen);
      let fin = ok,
        fits = true;
      for (let i = 0; i < yLen; i++) {
        const x = yv[i]!;
        fin &&= finite(x);
        if (p !== 0) {
          const s = f32(x * 2 ** p);
          fits &&= finite(s) || !finite(x);
          yv[i] = s;
        }
      }
      let n0 = k.noise ? k.noise[v]! : k.scalar;
      status[2 * v] = !fin || !finite(n0) ? NON_FINITE : !fits ? FLOAT32_UNSAFE : 0;
      if (n0 > 0) n0 = Math.min(Math.max(f32(f32(n0 * 2 ** p) * 2 ** p), 2 ** -100), 2 ** 100);
      noise[v] = n0;
    }
  }
  return { H, y, noise, status };
}

for (const [name, kernel] of Object.entries(KERNELS)) {
  test(`normalize (emulated, ${kernel.file}): H, y and N0 scaled as the CPU engine scales them, flags for non-finite and overflowing vectors, summary heads`, {
    skip,
  }, () => {
    const path = fileURLToPath(new URL(`../../src/mimo/gpu/${kernel.file}`, import.meta.url));
    const { exe, error } = compileEmulated(MAIN, path, kernel.defines);
    assert.equal(error, null, error ?? '');
    const seen = { unsafe: 0, nonFinite: 0, scaled: 0 };
    // 1 to 16 receive antennas: 32 / 2nr vectors a warp pass (uneven ones too); 17: a vector wider than a warp
    for (const nr of [1, 2, 3, 4, 5, 8, 16, 17]) {
      for (let rep = 0; rep < 3; rep++) {
        const k = makeCase(nr, name === 'single');
        const hLen = 2 * nr * k.nt,
          yLen = 2 * nr;
        // the summary heads now and then not asked for; the last channel's vectors past `valid` are padding
        const withSummary = rep > 0,
          valid = k.channels * k.vpc - randomInt(k.vpc === 1 ? Math.min(3, k.channels) : k.vpc);
        const head = Buffer.alloc(32);
        [k.channels, k.vpc, hLen, yLen, k.noise ? 1 : 0, withSummary ? 1 : 0, valid].forEach((x, i) => {
          head.writeInt32LE(x, 4 * i);
        });
        head.writeFloatLE(k.scalar, 28);
        const input = Buffer.concat([
          head,
          Buffer.from(k.H.buffer),
          Buffer.from(k.y.buffer),
          ...(k.noise ? [Buffer.from(k.noise.buffer)] : []),
        ]);
        const out = runEmulated(exe, input);
        const vectors = k.channels * k.vpc;
        let o = out.byteOffset;
        const take = <T>(make: (b: ArrayBufferLike, at: number, n: number) => T, n: number): T => {
          const r = make(out.buffer, o, n);
          o += 4 * n;
          return r;
        };
        const got = {
          H: take((b, at, n) => new Float32Array(b, at, n), k.channels * hLen),
          y: take((b, at, n) => new Float32Array(b, at, n), vectors * yLen),
          noise: take((b, at, n) => new Float32Array(b, at, n), vectors),
          status: take((b, at, n) => new Int32Array(b, at, n), 2 * vectors),
          summary: take((b, at, n) => new Int32Array(b, at, n), 4 * k.channels),
        };
        const want = reference(k);
        const where = `nr ${nr}, nt ${k.nt}, ${k.channels} channels x ${k.vpc}`;
        for (const key of ['H', 'y', 'noise'] as const) {
          for (let i = 0; i < want[key].length; i++)
            assert.ok(
              Object.is(got[key][i], want[key][i]),
              `${where}: ${key}[${i}] = ${got[key][i]}, expected ${want[key][i]}`,
            );
        }
        assert.deepEqual(Array.from(got.status), Array.from(want.status), `${where}: status words`);
        for (let c = 0; c < k.channels; c++) {
          let flags = 0;
          for (let v = c * k.vpc; v < Math.min(valid, (c + 1) * k.vpc); v++) flags |= want.status[2 * v]!;
          const head = withSummary ? [flags, 0, 0, 0] : [-7, -7, -7, -7];
          assert.deepEqual(
            Array.from(got.summary.subarray(4 * c, 4 * c + 4)),
            head,
            `${where}: channel ${c}'s summary head`,
          );
        }
        for (let v = 0; v < vectors; v++) {
          if (want.status[2 * v] === FLOAT32_UNSAFE) seen.unsafe++;
          if (want.status[2 * v] === NON_FINITE) seen.nonFinite++;
        }
        seen.scaled += want.H.filter((x, i) => x !== k.H[i]).length;
      }
    }
    // the draws reached every branch (else the comparison above proved less than it says)
    assert.ok(seen.unsafe > 0 && seen.nonFinite > 0 && seen.scaled > 0, JSON.stringify(seen));
  });
}
