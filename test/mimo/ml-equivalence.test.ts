/**
 * Acceptance: the sphere decoder (both initial radii) and the PSD (Table 1 configurations) return
 * the exhaustive-ML solution on every one of 10^4 fresh random vectors, for 2x2 and 4x4 with QPSK
 * and 16-QAM and 2x2 64-QAM, at 0, 10 and 20 dB Es/N0 (a fresh Rayleigh channel per vector).
 * For 2x2 QPSK and 16-QAM the exhaustive ML itself is checked against a brute force written here.
 * A symbol difference is accepted only as an exact tie: equal metrics ||y - H s||^2 (computed here)
 * within 1e-9 relative. Extra: BPSK, random PSD configurations, and 4x4 64-QAM PSD against the
 * sphere decoder (exhaustive ML at 2^24 hypotheses per vector is too slow for a test).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { CpuDetector, DetectorInstance, DetectorOutput } from '../../src/mimo/detectors/detector.js';
import { detector as ml } from '../../src/mimo/detectors/ml/cpu.js';
import { detector as sphere } from '../../src/mimo/detectors/sphere/cpu.js';
import { detector as psd } from '../../src/mimo/detectors/psd/cpu.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';
import { DEFAULT_MAX_NODES } from '../../src/mimo/budget.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const COUNT = 10_000;

/** ||y - H s||^2 for vector v (complex, written independently of the detectors). */
function metric(
  H: Float64Array,
  y: Float64Array,
  nr: number,
  nt: number,
  con: ReturnType<typeof constellation>,
  sym: ArrayLike<number>,
  v: number,
): number {
  let d = 0;
  for (let i = 0; i < nr; i++) {
    let re = y[2 * (v * nr + i)]!,
      im = y[2 * (v * nr + i) + 1]!;
    for (let j = 0; j < nt; j++) {
      const hr = H[2 * (v * nr * nt + i + j * nr)]!,
        hi = H[2 * (v * nr * nt + i + j * nr) + 1]!;
      const sr = con.points[2 * sym[j]!]!,
        si = con.points[2 * sym[j]! + 1]!;
      re -= hr * sr - hi * si;
      im -= hr * si + hi * sr;
    }
    d += re * re + im * im;
  }
  return d;
}

function instance(
  d: CpuDetector,
  nr: number,
  nt: number,
  mod: Modulation,
  opts: Partial<DetectOptions> = {},
): DetectorInstance {
  return d.create({
    nr,
    nt,
    modulation: mod,
    constellation: constellation(mod),
    opts: { detector: d.name, modulation: mod, ...opts },
    soft: false,
    maxNodes: opts.maxNodes ?? DEFAULT_MAX_NODES,
  });
}

interface Problem {
  H: Float64Array;
  y: Float64Array;
  noiseVar: number;
}

function problem(rng: Philox, count: number, nr: number, nt: number, mod: Modulation, snrDb: number): Problem {
  const H = rayleighChannels(rng, count, nt, nr);
  const { symbols } = randomSymbols(rng, count * nt, mod);
  const noiseVar = snrToNoiseVar(snrDb, 'esn0', 1);
  const y = addNoise(rng, transmit(H, symbols, nt, nr, 1), noiseVar);
  return { H, y, noiseVar };
}

/** Runs each detector on every vector (one channel per vector); returns symbols per detector. */
function runAll(p: Problem, count: number, nr: number, nt: number, dets: DetectorInstance[]): Int32Array[] {
  return dets.map((det) => {
    const out: DetectorOutput = { symbols: new Int32Array(count * nt), llr: null, unproven: new Uint8Array(count) };
    for (let v = 0; v < count; v++)
      det.detect(det.prepare(p.H, 2 * v * nr * nt, p.noiseVar), p.y, 2 * v * nr, p.noiseVar, out, v);
    return out.symbols;
  });
}

/** Asserts b equals the reference a on every vector up to exact ties; returns the number of ties. */
function assertSameAsMl(
  p: Problem,
  count: number,
  nr: number,
  nt: number,
  mod: Modulation,
  ref: Int32Array,
  got: Int32Array,
  what: string,
): number {
  const con = constellation(mod);
  let ties = 0;
  for (let v = 0; v < count; v++) {
    let same = true;
    for (let j = 0; j < nt; j++) if (ref[v * nt + j] !== got[v * nt + j]) same = false;
    if (same) continue;
    const a = ref.subarray(v * nt, (v + 1) * nt),
      b = got.subarray(v * nt, (v + 1) * nt);
    const ma = metric(p.H, p.y, nr, nt, con, a, v),
      mb = metric(p.H, p.y, nr, nt, con, b, v);
    assert.ok(
      Math.abs(ma - mb) <= 1e-9 * (1 + ma),
      msg(`${what}: vector ${v} gives [${[...b]}] (metric ${mb}) but ML is [${[...a]}] (metric ${ma})`),
    );
    ties++;
  }
  return ties;
}

const CASES: [number, Modulation][] = [
  [2, 'qpsk'],
  [2, '16qam'],
  [4, 'qpsk'],
  [4, '16qam'],
  [2, '64qam'],
];

for (const [n, mod] of CASES) {
  for (const snr of [0, 10, 20]) {
    test(`sphere and PSD equal exhaustive ML on ${COUNT} vectors: ${n}x${n} ${mod} at ${snr} dB Es/N0`, () => {
      const rng = new Philox(seed, 1000 * n + 10 * snr + mod.length);
      const p = problem(rng, COUNT, n, n, mod, snr);
      const [ref, sd, sdBabai, ps] = runAll(p, COUNT, n, n, [
        instance(ml, n, n, mod),
        instance(sphere, n, n, mod),
        instance(sphere, n, n, mod, { initialRadius: 'babai' }),
        instance(psd, n, n, mod),
      ]);
      const what = `${n}x${n} ${mod} ${snr} dB`;
      if (n === 2 && mod !== '64qam') {
        // The reference itself against brute force over all M^2 hypotheses.
        const con = constellation(mod);
        for (let v = 0; v < COUNT; v++) {
          let best = Infinity;
          for (let a = 0; a < con.size; a++)
            for (let b = 0; b < con.size; b++) best = Math.min(best, metric(p.H, p.y, n, n, con, [a, b], v));
          const m = metric(p.H, p.y, n, n, con, ref!.subarray(2 * v, 2 * v + 2), v);
          assert.ok(
            m <= best * (1 + 1e-9) + 1e-12,
            msg(`${what}: ML metric ${m} above brute force ${best} at vector ${v}`),
          );
        }
      }
      const ties =
        assertSameAsMl(p, COUNT, n, n, mod, ref!, sd!, `sphere ${what}`) +
        assertSameAsMl(p, COUNT, n, n, mod, ref!, sdBabai!, `sphere (babai radius) ${what}`) +
        assertSameAsMl(p, COUNT, n, n, mod, ref!, ps!, `psd ${what}`);
      assert.ok(ties <= 3, msg(`${what}: ${ties} exact ties (expected essentially none with continuous noise)`));
    });
  }
}

test('BPSK (one real dimension per stream): sphere and PSD equal exhaustive ML, 4x4, 3x2 and nr < nt (2 receive, 3 and 4 transmit)', () => {
  const rng = new Philox(seed, 77);
  for (const [nr, nt] of [
    [4, 4],
    [3, 2],
    [2, 3],
    [2, 4],
  ] as const) {
    for (const snr of [0, 10]) {
      const p = problem(rng, 2000, nr, nt, 'bpsk', snr);
      const [ref, sd, ps] = runAll(p, 2000, nr, nt, [
        instance(ml, nr, nt, 'bpsk'),
        instance(sphere, nr, nt, 'bpsk'),
        instance(psd, nr, nt, 'bpsk'),
      ]);
      assertSameAsMl(p, 2000, nr, nt, 'bpsk', ref!, sd!, `sphere bpsk ${nr}x${nt}`);
      assertSameAsMl(p, 2000, nr, nt, 'bpsk', ref!, ps!, `psd bpsk ${nr}x${nt}`);
    }
  }
});

test('PSD with random valid level/path configurations equals exhaustive ML (4x4 QPSK, 3x3 16-QAM)', () => {
  const rng = new Philox(seed, 78);
  for (const [n, mod, q] of [
    [4, 'qpsk', 2],
    [3, '16qam', 4],
  ] as const) {
    const depth = 2 * n;
    for (let t = 0; t < 12; t++) {
      // Random strictly decreasing levels from depth+1 to 1, random paths within the expanded counts.
      const levels = [depth + 1];
      while (levels[levels.length - 1]! > 1) levels.push(Math.max(1, levels[levels.length - 1]! - 1 - rng.int(3)));
      const paths = [1];
      let exp = q ** (levels[0]! - levels[1]!);
      for (let x = 1; x < levels.length - 1; x++) {
        const pth = 1 + rng.int(Math.min(exp, 6));
        paths.push(pth);
        exp = pth * q ** (levels[x]! - levels[x + 1]!);
      }
      const p = problem(rng, 300, n, n, mod, 5 + rng.int(15));
      const [ref, ps] = runAll(p, 300, n, n, [
        instance(ml, n, n, mod),
        instance(psd, n, n, mod, { psd: { levels, paths } }),
      ]);
      assertSameAsMl(
        p,
        300,
        n,
        n,
        mod,
        ref!,
        ps!,
        `psd levels ${JSON.stringify(levels)} paths ${JSON.stringify(paths)} ${n}x${n} ${mod}`,
      );
    }
  }
});

test('4x4 64-QAM: PSD (Table 1b configuration) equals the sphere decoder', () => {
  const rng = new Philox(seed, 79);
  for (const snr of [15, 25]) {
    const p = problem(rng, 200, 4, 4, '64qam', snr);
    const [sd, ps] = runAll(p, 200, 4, 4, [instance(sphere, 4, 4, '64qam'), instance(psd, 4, 4, '64qam')]);
    assertSameAsMl(p, 200, 4, 4, '64qam', sd!, ps!, `psd 4x4 64qam ${snr} dB`);
  }
});
