/**
 * PUSCH DM-RS channel estimation (src/channels/estimation), on fresh random seeds and
 * configurations: the DM-RS symbols, combs, OCC and values against 38.211 written out here (the Gold
 * sequence of 5.2.1 by its recursions on arrays, c_init of 6.4.1.1.1.1 in BigInt); the LS error at
 * the pilots, N0 / (2 Ep), and exact interpolation of a channel linear in frequency and time; the
 * LMMSE's empirical error against its closed form on channels drawn from the profile, and below
 * LS's at low SNR; the noise estimators against N0; strict arguments.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { SYMBOLS_PER_SLOT, slotDuration, subcarrierFrequencies } from '../../src/channels/index.js';
import {
  type DmrsConfig,
  type DmrsPilots,
  dataMask,
  dmrsCinit,
  dmrsConfig,
  dmrsPilots,
  estimateNoise,
  estimateSlot,
  goldSequence,
  lmmseEstimate,
  lmmseFilter,
  lmmseNoise,
  lsEstimate,
  lsPilotEstimates,
  meanErrorVariance,
  pilotGrid,
  slotsPerFrame,
  lmmseErrorVariance,
  lsErrorScale,
  timeInterpolationTerms,
} from '../../src/channels/estimation/index.js';
import { jakesCorrelation } from '../../src/channels/time-correlation.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const rng = new Philox(seed, 7);

/** z-scores allowed: every statistical check below fails by chance with probability under 1e-6. */
const Z = 5.5;

const SCS = [15e3, 30e3, 60e3, 120e3] as const;

/** A random valid configuration (layers and positions drawn unless given). */
function randomConfig(more: { prbs?: number; layers?: number; additionalPosition?: number } = {}): DmrsConfig {
  const typeAPosition = 2 + rng.int(2);
  return dmrsConfig({
    scs: SCS[rng.int(4)]!,
    prbs: more.prbs ?? 1 + rng.int(20),
    layers: more.layers ?? 1 + rng.int(4),
    typeAPosition,
    additionalPosition: more.additionalPosition ?? rng.int(typeAPosition === 2 ? 4 : 3),
    scramblingId: rng.int(65536),
    nScid: rng.int(2),
  });
}

const describe = (c: DmrsConfig) =>
  `${c.prbs} PRBs at ${c.scs / 1e3} kHz, ${c.layers} layers, l0 ${c.typeAPosition}, pos${c.additionalPosition}`;

/** A CN(0, v) draw. */
function cn(v = 1): [number, number] {
  const s = Math.sqrt(v / 2);
  return [s * rng.normal(), s * rng.normal()];
}

/**
 * The received slot y = sum_j H_j x_j + w on the DM-RS symbols; the data symbols hold NaN, so an
 * estimator reading them shows it. `h(l, k, i, j)` gives the channel.
 */
function receive(
  pilots: DmrsPilots,
  nr: number,
  N0: number,
  h: (l: number, k: number, i: number, j: number) => [number, number],
): Float64Array {
  const { config } = pilots;
  const K = config.subcarriers,
    L = config.layers;
  const x = pilotGrid(pilots);
  const y = new Float64Array(2 * SYMBOLS_PER_SLOT * K * nr).fill(Number.NaN);
  for (const l of config.symbols)
    for (let k = 0; k < K; k++)
      for (let i = 0; i < nr; i++) {
        let [re, im] = cn(N0);
        for (let j = 0; j < L; j++) {
          const xr = x[2 * ((l * K + k) * L + j)]!,
            xi = x[2 * ((l * K + k) * L + j) + 1]!;
          if (xr === 0 && xi === 0) continue;
          const [hr, hi] = h(l, k, i, j);
          re += hr * xr - hi * xi;
          im += hr * xi + hi * xr;
        }
        y[2 * ((l * K + k) * nr + i)] = re;
        y[2 * ((l * K + k) * nr + i) + 1] = im;
      }
  return y;
}

/** 38.211 5.2.1 as written: x1, x2 as arrays of bits, c(n) = x1(n + Nc) + x2(n + Nc) mod 2. */
function referenceGold(cInit: number, length: number): number[] {
  const Nc = 1600;
  const x1 = new Array<number>(Nc + length + 31).fill(0),
    x2 = new Array<number>(Nc + length + 31).fill(0);
  x1[0] = 1;
  for (let i = 0; i < 31; i++) x2[i] = Math.floor(cInit / 2 ** i) % 2;
  for (let n = 0; n + 31 < x1.length; n++) {
    x1[n + 31] = (x1[n + 3]! + x1[n]!) % 2;
    x2[n + 31] = (x2[n + 3]! + x2[n + 2]! + x2[n + 1]! + x2[n]!) % 2;
  }
  const c: number[] = [];
  for (let n = 0; n < length; n++) c.push((x1[n + Nc]! + x2[n + Nc]!) % 2);
  return c;
}

test('Gold sequence: 38.211 5.2.1 written out on arrays, any c_init and length', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 3000 }), (cInit, length) => {
      assert.deepEqual(Array.from(goldSequence(cInit, length)), referenceGold(cInit, length), msg(`c_init ${cInit}`));
    }),
    { seed, numRuns: 40 },
  );
  // c_init = 0: x2 stays zero, so c is x1 alone, whose first 31 states are 1, 0, ..., 0
  assert.deepEqual(Array.from(goldSequence(0, 64)), referenceGold(0, 64));
});

test('DM-RS: symbols of Table 6.4.1.1.3-3, combs, OCC orthogonality, |r| = 1 QPSK, c_init of 6.4.1.1.1.1', () => {
  const table: Record<string, number[]> = {
    '2,0': [2],
    '2,1': [2, 11],
    '2,2': [2, 7, 11],
    '2,3': [2, 5, 8, 11],
    '3,0': [3],
    '3,1': [3, 11],
    '3,2': [3, 7, 11],
  };
  for (let trial = 0; trial < 20; trial++) {
    const c = randomConfig();
    const what = msg(describe(c));
    assert.deepEqual(c.symbols, table[`${c.typeAPosition},${c.additionalPosition}`], what);
    assert.deepEqual(
      c.dataSymbols,
      Array.from({ length: 14 }, (_, l) => l).filter((l) => !c.symbols.includes(l)),
      what,
    );
    const mask = dataMask(c);
    for (let l = 0; l < 14; l++)
      for (let k = 0; k < c.subcarriers; k++) assert.equal(mask[l * c.subcarriers + k], c.symbols.includes(l) ? 0 : 1);
    const slot = rng.int(slotsPerFrame(c.scs));
    const p = dmrsPilots(c, slot);
    const K = c.subcarriers,
      M = K / 2,
      D = c.symbols.length;
    // the sequence: r(m) = (1 - 2 c(2m) + j (1 - 2 c(2m + 1))) / sqrt 2 with c_init in BigInt
    c.symbols.forEach((l, d) => {
      const N = BigInt(c.scramblingId);
      const cInit = Number(
        ((1n << 17n) * BigInt(14 * slot + l + 1) * (2n * N + 1n) + 2n * N + BigInt(c.nScid)) % (1n << 31n),
      );
      assert.equal(dmrsCinit(c.scramblingId, c.nScid, slot, l), cInit, what);
      const bits = referenceGold(cInit, K);
      for (let m = 0; m < M; m++) {
        assert.ok(Math.abs(p.sequence[2 * (d * M + m)]! - (1 - 2 * bits[2 * m]!) / Math.SQRT2) < 1e-15, what);
        assert.ok(Math.abs(p.sequence[2 * (d * M + m) + 1]! - (1 - 2 * bits[2 * m + 1]!) / Math.SQRT2) < 1e-15, what);
        assert.ok(Math.abs(p.sequence[2 * (d * M + m)]! ** 2 + p.sequence[2 * (d * M + m) + 1]! ** 2 - 1) < 1e-15);
      }
    });
    const used = new Set<number>();
    for (let j = 0; j < c.layers; j++) {
      const port = c.ports[j]!;
      assert.equal(port.port, j, what);
      assert.equal(port.cdmGroup, j >> 1, what);
      assert.equal(port.delta, j >> 1, what);
      const k = p.subcarriers[j]!;
      assert.equal(k.length, M, what);
      for (let m = 0; m < M; m++) {
        assert.equal(k[m], 4 * (m >> 1) + 2 * (m & 1) + port.delta, what);
        used.add(k[m]!);
      }
      for (let d = 0; d < D; d++)
        for (let m = 0; m < M; m++) {
          const w = m & 1 && j & 1 ? -1 : 1;
          const beta = Math.sqrt(c.pilotPower);
          assert.ok(Math.abs(p.values[j]![2 * (d * M + m)]! - beta * w * p.sequence[2 * (d * M + m)]!) < 1e-15, what);
          assert.ok(
            Math.abs(p.values[j]![2 * (d * M + m) + 1]! - beta * w * p.sequence[2 * (d * M + m) + 1]!) < 1e-15,
            what,
          );
        }
    }
    // the combs: group 0 on even subcarriers, group 1 on odd ones, nothing else
    assert.equal(used.size, c.layers > 2 ? K : M, what);
    // OCC: the two ports of a group are orthogonal over every pair, sum_k' a_p conj(a_q) = 0
    if (c.layers >= 2)
      for (let g = 0; 2 * g + 1 < c.layers; g++) {
        const a = p.values[2 * g]!,
          b = p.values[2 * g + 1]!;
        for (let q = 0; q < (D * M) / 2; q++) {
          let re = 0,
            im = 0;
          for (const m of [2 * q, 2 * q + 1]) {
            re += a[2 * m]! * b[2 * m]! + a[2 * m + 1]! * b[2 * m + 1]!;
            im += a[2 * m + 1]! * b[2 * m]! - a[2 * m]! * b[2 * m + 1]!;
          }
          assert.ok(Math.abs(re) < 1e-14 && Math.abs(im) < 1e-14, what);
        }
      }
    // the pilot grid: each layer's values on its comb in the DM-RS symbols, zero elsewhere
    const x = pilotGrid(p);
    let energy = 0;
    for (let q = 0; q < x.length; q++) energy += x[q]! ** 2;
    assert.ok(Math.abs(energy - c.layers * D * M * c.pilotPower) < 1e-9 * energy, what);
  }
});

test('LS: E|h^ - h|^2 = N0 / (2 Ep) at the pilot pairs of a channel flat over each pair', () => {
  const c = randomConfig({ prbs: 10 + rng.int(20) });
  const nr = 1 + rng.int(4);
  const N0 = 0.05 + rng.uniform();
  const what = msg(`${describe(c)}, nr ${nr}, N0 ${N0.toFixed(3)}`);
  const N = c.subcarriers / 4;
  let sum = 0,
    count = 0;
  for (let trial = 0; trial < 6; trial++) {
    const p = dmrsPilots(c, rng.int(slotsPerFrame(c.scs)));
    // one channel draw per (symbol, pair, antenna, layer)
    const g = new Float64Array(2 * 14 * N * nr * c.layers);
    for (let q = 0; q < g.length; q += 2) [g[q], g[q + 1]] = cn();
    const at = (l: number, k: number, i: number, j: number) =>
      2 * (((l * N + Math.floor(Math.max(k - c.ports[j]!.delta, 0) / 4)) * nr + i) * c.layers + j);
    const y = receive(p, nr, N0, (l, k, i, j) => [g[at(l, k, i, j)]!, g[at(l, k, i, j) + 1]!]);
    const est = lsPilotEstimates(p, y, nr);
    c.symbols.forEach((l, d) => {
      for (let j = 0; j < c.layers; j++)
        for (let i = 0; i < nr; i++)
          for (let n = 0; n < N; n++) {
            const e = 2 * (((d * c.layers + j) * nr + i) * N + n);
            const h = at(l, 4 * n + c.ports[j]!.delta, i, j);
            sum += (est.values[e]! - g[h]!) ** 2 + (est.values[e + 1]! - g[h + 1]!) ** 2;
            count++;
          }
    });
  }
  const want = N0 / (2 * c.pilotPower);
  // |e|^2 is exponential: its sd is its mean
  assert.ok(Math.abs(sum / count - want) < (Z * want) / Math.sqrt(count), `${what}: ${sum / count} vs ${want}`);
});

test('LS: a noiseless channel linear in frequency and time is recovered exactly between the outer pilots', () => {
  for (let trial = 0; trial < 8; trial++) {
    // one layer per CDM group in use (1 layer, or ports 0 and 2 of 3 layers' odd one) leaves OCC leakage out:
    // a channel linear in frequency is not flat over a pair, so a shared group's ports leak into each other
    const c = randomConfig({ layers: 1, additionalPosition: 1 + rng.int(2) });
    const nr = 1 + rng.int(3);
    const a = Array.from({ length: nr }, () => [cn(), cn(), cn()] as const);
    const h = (l: number, k: number, i: number): [number, number] => {
      const [u, v, w] = a[i]!;
      return [u[0] + v[0] * k * 0.01 + w[0] * l * 0.05, u[1] + v[1] * k * 0.01 + w[1] * l * 0.05];
    };
    const p = dmrsPilots(c, 0);
    const H = lsEstimate(p, receive(p, nr, 0, h), nr);
    const K = c.subcarriers;
    const first = c.symbols[0]!,
      last = c.symbols[c.symbols.length - 1]!;
    for (let l = first; l <= last; l++)
      for (let k = 1; k <= 4 * (K / 4 - 1) + 1; k++)
        for (let i = 0; i < nr; i++) {
          const [re, im] = h(l, k, i);
          const at = 2 * ((l * K + k) * nr + i);
          assert.ok(
            Math.abs(H[at]! - re) < 1e-12 && Math.abs(H[at + 1]! - im) < 1e-12,
            msg(`${describe(c)}: (${l}, ${k}, ${i}): ${H[at]}, ${H[at + 1]} vs ${re}, ${im}`),
          );
        }
    // held flat outside: symbol 0 is the first DM-RS symbol's estimate, subcarrier 0 the first centre's
    const size = 2 * K * nr;
    assert.deepEqual(H.subarray(0, size), H.subarray(first * size, (first + 1) * size));
    assert.deepEqual(H.subarray(13 * size, 14 * size), H.subarray(last * size, (last + 1) * size));
    assert.deepEqual(H.subarray(0, 2 * nr), H.subarray(2 * nr, 4 * nr));
  }
});

test('LS and LMMSE: a noiseless flat channel is exact on every resource element, any layers', () => {
  for (let trial = 0; trial < 6; trial++) {
    const c = randomConfig();
    const nr = 1 + rng.int(4);
    const g = Array.from({ length: nr * c.layers }, () => cn());
    const p = dmrsPilots(c, rng.int(slotsPerFrame(c.scs)));
    const y = receive(p, nr, 0, (_l, _k, i, j) => g[i + j * nr]!);
    const filter = lmmseFilter(c, { pdp: { delays: [0], powers: [1] }, noiseVariance: 1e-6 });
    assert.equal(filter.window, Math.min(8, c.subcarriers / 4), msg(describe(c)));
    const out = new Float64Array(2 * 14 * c.subcarriers * nr * c.layers);
    assert.equal(lsEstimate(p, y, nr, out), out);
    assert.equal(lmmseEstimate(filter, p, y, nr, out), out);
    for (const [name, H] of [
      ['ls', lsEstimate(p, y, nr)],
      ['lmmse', lmmseEstimate(filter, p, y, nr)],
    ] as const)
      for (let q = 0; q < H.length / 2; q++) {
        const [re, im] = g[q % (nr * c.layers)]!;
        assert.ok(
          Math.abs(H[2 * q]! - re) < 1e-5 && Math.abs(H[2 * q + 1]! - im) < 1e-5,
          msg(`${name} ${describe(c)}`),
        );
      }
  }
});

/** A random profile: 2 to 6 taps within `spread` seconds, powers summing to 1. */
function randomPdp(spread: number): { delays: number[]; powers: number[] } {
  const taps = 2 + rng.int(5);
  const delays = Array.from({ length: taps }, (_, t) => (t === 0 ? 0 : rng.uniform() * spread));
  const raw = delays.map(() => 0.1 + rng.uniform());
  const s = raw.reduce((a, b) => a + b, 0);
  return { delays, powers: raw.map((x) => x / s) };
}

test('LMMSE: the empirical error matches the closed form on channels drawn from the profile; below LS at low SNR', () => {
  const c = randomConfig({ prbs: 4 + rng.int(6), additionalPosition: rng.int(2) });
  const nr = 1 + rng.int(2);
  const N0 = 0.1 + 1.9 * rng.uniform();
  // delay spreads up to a few hundredths of the symbol: coherence over some PRBs
  const pdp = randomPdp((0.05 + 0.1 * rng.uniform()) / c.scs);
  const window = 2 + rng.int(10);
  const what = msg(
    `${describe(c)}, nr ${nr}, N0 ${N0.toFixed(3)}, W ${window}, pdp ${JSON.stringify(pdp.delays.map((d) => d * c.scs))} symbols`,
  );
  const filter = lmmseFilter(c, { pdp, noiseVariance: N0, window });
  const K = c.subcarriers,
    L = c.layers;
  const f = subcarrierFrequencies(c);
  const edge = (k: number) => k < 6 || k >= K - 6;
  // per-trial means (edges and interior apart) of |e|^2 / closed form, for LMMSE and LS
  const stats = { edge: [] as number[], inner: [] as number[], ls: [] as number[], lmmse: [] as number[] };
  let evEdge = 0,
    evInner = 0;
  for (let k = 0; k < K; k++)
    for (let j = 0; j < L; j++)
      if (edge(k)) evEdge += filter.errorVariance[j * K + k]!;
      else evInner += filter.errorVariance[j * K + k]!;
  const T = 150;
  for (let t = 0; t < T; t++) {
    // H(f) = sum_l g_l exp(-j 2 pi f tau_l), g_l ~ CN(0, p_l), static over the slot
    const H = new Float64Array(2 * K * nr * L);
    for (let q = 0; q < nr * L; q++) {
      const g = pdp.powers.map((pw) => cn(pw));
      for (let k = 0; k < K; k++) {
        let re = 0,
          im = 0;
        pdp.delays.forEach((tau, l) => {
          const ph = -2 * Math.PI * f[k]! * tau;
          re += g[l]![0] * Math.cos(ph) - g[l]![1] * Math.sin(ph);
          im += g[l]![0] * Math.sin(ph) + g[l]![1] * Math.cos(ph);
        });
        H[2 * (k * nr * L + q)] = re;
        H[2 * (k * nr * L + q) + 1] = im;
      }
    }
    const p = dmrsPilots(c, rng.int(slotsPerFrame(c.scs)));
    const y = receive(p, nr, N0, (_l, k, i, j) => [
      H[2 * (k * nr * L + i + j * nr)]!,
      H[2 * (k * nr * L + i + j * nr) + 1]!,
    ]);
    const Hm = lmmseEstimate(filter, p, y, nr);
    const Hl = lsEstimate(p, y, nr);
    let sEdge = 0,
      sInner = 0,
      sLs = 0;
    for (const l of c.symbols)
      for (let k = 0; k < K; k++)
        for (let q = 0; q < nr * L; q++) {
          const at = 2 * ((l * K + k) * nr * L + q),
            h = 2 * (k * nr * L + q);
          const e = (Hm[at]! - H[h]!) ** 2 + (Hm[at + 1]! - H[h + 1]!) ** 2;
          if (edge(k)) sEdge += e;
          else sInner += e;
          sLs += (Hl[at]! - H[h]!) ** 2 + (Hl[at + 1]! - H[h + 1]!) ** 2;
        }
    const per = c.symbols.length * nr;
    stats.edge.push(sEdge / per / evEdge);
    stats.inner.push(sInner / per / evInner);
    stats.lmmse.push((sEdge + sInner) / per);
    stats.ls.push(sLs / per);
  }
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  const sd = (a: number[]) => Math.sqrt(a.reduce((x, y) => x + (y - mean(a)) ** 2, 0) / (a.length - 1));
  for (const part of ['edge', 'inner'] as const) {
    const m = mean(stats[part]),
      s = sd(stats[part]);
    assert.ok(Math.abs(m - 1) < (Z * s) / Math.sqrt(T), `${what}: ${part} empirical / closed form ${m} (sd ${s})`);
  }
  // LS's interpolation error plus N0 / (2 Ep) against the LMMSE's: at these SNRs LMMSE is well below
  const ls = mean(stats.ls),
    lmmse = mean(stats.lmmse);
  assert.ok(lmmse < ls, `${what}: LMMSE ${lmmse} vs LS ${ls}`);
});

test('LMMSE at low SNR, a short profile: error below LS, and the closed form below N0 / (2 Ep)', () => {
  const c = randomConfig({ prbs: 20, layers: 1 + rng.int(4) });
  const pdp = randomPdp(0.02 / c.scs);
  const N0 = 2 + 2 * rng.uniform();
  const filter = lmmseFilter(c, { pdp, noiseVariance: N0 });
  const ls = N0 / (2 * c.pilotPower);
  const K = c.subcarriers;
  for (let q = 0; q < c.layers * K; q++)
    assert.ok(filter.errorVariance[q]! < ls, msg(`${describe(c)}: ${filter.errorVariance[q]} vs LS ${ls}`));
  // the interior uses W = 8 pairs: near an 8-fold gain on a nearly flat channel
  assert.ok(filter.errorVariance[c.layers * K - K / 2]! < ls / 3, msg(describe(c)));
});

test("LMMSE separates a CDM group's two ports: at high SNR on a long profile, 2 or 4 layers lose little to 1", () => {
  // the OCC pair spans 2 subcarriers: a channel that turns over them leaks the other port into a
  // despread pair, which LS keeps and LMMSE must estimate away from the pairs despread both ways
  const prbs = 8 + rng.int(8),
    scs = SCS[rng.int(2)]!,
    additionalPosition = rng.int(4);
  const pdp = randomPdp((0.06 + 0.04 * rng.uniform()) / scs);
  const N0 = 1e-4 * (1 + rng.uniform());
  const mean = (layers: number) => {
    const f = lmmseFilter(dmrsConfig({ scs, prbs, layers, additionalPosition }), { pdp, noiseVariance: N0 });
    return f.errorVariance.reduce((a, b) => a + b, 0) / f.errorVariance.length;
  };
  const one = mean(1);
  for (const layers of [2, 4]) {
    const e = mean(layers);
    assert.ok(e < 2 * one, msg(`${layers} layers: error ${e.toExponential(3)} vs 1 layer ${one.toExponential(3)}`));
  }
});

test("noise variance from the LMMSE fit's residual: unbiased on channels drawn from a long profile, any layers, where the second differences are not", () => {
  const c = randomConfig({ prbs: 4 + rng.int(8), additionalPosition: rng.int(2) });
  const nr = 1 + rng.int(2);
  const N0 = 10 ** -(2.5 + 1.5 * rng.uniform());
  const pdp = randomPdp((0.05 + 0.05 * rng.uniform()) / c.scs);
  const filter = lmmseFilter(c, { pdp, noiseVariance: N0 });
  const K = c.subcarriers,
    L = c.layers;
  const f = subcarrierFrequencies(c);
  const what = msg(`${describe(c)}, nr ${nr}, N0 ${N0.toExponential(2)}`);
  const T = 60;
  const got: number[] = [],
    second: number[] = [];
  for (let t = 0; t < T; t++) {
    const H = new Float64Array(2 * K * nr * L);
    for (let q = 0; q < nr * L; q++) {
      const g = pdp.powers.map((pw) => cn(pw));
      for (let k = 0; k < K; k++)
        pdp.delays.forEach((tau, l) => {
          const ph = -2 * Math.PI * f[k]! * tau;
          H[2 * (k * nr * L + q)]! += g[l]![0] * Math.cos(ph) - g[l]![1] * Math.sin(ph);
          H[2 * (k * nr * L + q) + 1]! += g[l]![0] * Math.sin(ph) + g[l]![1] * Math.cos(ph);
        });
    }
    const p = dmrsPilots(c, rng.int(slotsPerFrame(c.scs)));
    const y = receive(p, nr, N0, (_l, k, i, j) => [
      H[2 * (k * nr * L + i + j * nr)]!,
      H[2 * (k * nr * L + i + j * nr) + 1]!,
    ]);
    const e = lmmseNoise(filter, p, y, nr);
    assert.equal(e.windows, c.symbols.length * L * nr * Math.floor(K / 4 / filter.window));
    got.push(e.noiseVariance / N0);
    second.push(estimateNoise(p, y, nr, { method: 'residual' }).noiseVariance / N0);
  }
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  const sd = (a: number[]) => Math.sqrt(a.reduce((x, y) => x + (y - mean(a)) ** 2, 0) / (a.length - 1));
  const m = mean(got);
  assert.ok(Math.abs(m - 1) < (Z * sd(got)) / Math.sqrt(T), `${what}: N0^ / N0 ${m} (sd ${sd(got)})`);
  // the second differences see the channel's curvature as noise: far above N0 at these SNRs
  assert.ok(mean(second) > 2, `${what}: second differences ${mean(second)} N0`);
});

test('noise variance: the free dimensions and the second differences estimate N0 on a flat channel', () => {
  for (let trial = 0; trial < 8; trial++) {
    const c = randomConfig({ prbs: 20 + rng.int(30) });
    const nr = 1 + rng.int(4);
    const N0 = 10 ** (-2 + 2 * rng.uniform());
    const g = Array.from({ length: nr * c.layers }, () => cn());
    const p = dmrsPilots(c, rng.int(slotsPerFrame(c.scs)));
    const y = receive(p, nr, N0, (_l, _k, i, j) => g[i + j * nr]!);
    for (const method of c.layers < 4 ? (['free', 'residual'] as const) : (['residual'] as const)) {
      const e = estimateNoise(p, y, nr, { method });
      assert.equal(e.method, method);
      // |z|^2 exponential for 'free'; the second differences' correlation (lags 1, 2: -2/3, 1/6) widens 'residual'
      const tol = ((method === 'free' ? 1 : 1.5) * Z) / Math.sqrt(e.samples);
      assert.ok(
        Math.abs(e.noiseVariance / N0 - 1) < tol,
        msg(`${describe(c)}, nr ${nr}, ${method}: ${e.noiseVariance} vs ${N0}`),
      );
    }
    assert.equal(estimateNoise(p, y, nr).method, c.layers < 4 ? 'free' : 'residual');
  }
  // 1 or 2 layers: the empty comb is noise alone on any channel, however selective
  const c = randomConfig({ prbs: 30, layers: 2 });
  const N0 = 0.3;
  const p = dmrsPilots(c, 0);
  const y = receive(p, 2, N0, () => cn(4));
  const e = estimateNoise(p, y, 2);
  assert.ok(Math.abs(e.noiseVariance / N0 - 1) < Z / Math.sqrt(e.samples), msg(`${describe(c)}: ${e.noiseVariance}`));
});

/** Throws InvalidArgumentError with details.option `option`. */
function refuses(f: () => unknown, option: string): void {
  assert.throws(
    f,
    (e: unknown) => e instanceof InvalidArgumentError && (e.details as { option?: unknown }).option === option,
    `expected an InvalidArgumentError naming ${option}`,
  );
}

test('invalid arguments: InvalidArgumentError naming the option', () => {
  const ok = { scs: 30e3, prbs: 4, layers: 2 };
  refuses(() => dmrsConfig({ ...ok, scs: 20e3 }), 'scs');
  refuses(() => dmrsConfig({ ...ok, prbs: 0 }), 'prbs');
  refuses(() => dmrsConfig({ ...ok, prbs: 274 }), 'prbs');
  for (const layers of [0, 5, 1.5, Number.NaN]) refuses(() => dmrsConfig({ ...ok, layers }), 'layers');
  refuses(() => dmrsConfig({ scs: 30e3, prbs: 4 } as never), 'layers');
  refuses(() => dmrsConfig({ ...ok, typeAPosition: 4 }), 'typeAPosition');
  refuses(() => dmrsConfig({ ...ok, additionalPosition: 4 }), 'additionalPosition');
  refuses(() => dmrsConfig({ ...ok, typeAPosition: 3, additionalPosition: 3 }), 'additionalPosition');
  refuses(() => dmrsConfig({ ...ok, scramblingId: 65536 }), 'scramblingId');
  refuses(() => dmrsConfig({ ...ok, nScid: 2 }), 'nScid');
  refuses(() => dmrsConfig({ ...ok, pilotPower: 0 }), 'pilotPower');
  refuses(() => dmrsConfig({ ...ok, layer: 2 } as never), 'layer');
  const c = dmrsConfig(ok);
  refuses(() => dmrsPilots(c, 20), 'slot');
  refuses(() => dmrsPilots(c, -1), 'slot');
  const p = dmrsPilots(c, 3);
  const y = new Float64Array(2 * 14 * c.subcarriers * 2);
  refuses(() => lsEstimate(p, y, 0), 'nr');
  refuses(() => lsEstimate(p, y, 3), 'y');
  refuses(() => lsEstimate(p, y, 2, new Float64Array(5)), 'out');
  refuses(() => lsPilotEstimates(p, [] as never, 2), 'y');
  const pdp = { delays: [0, 1e-7], powers: [0.5, 0.5] };
  refuses(() => lmmseFilter(c, { pdp: { ...pdp, powers: [0.5, 0.4] }, noiseVariance: 1 }), 'pdp.powers');
  refuses(() => lmmseFilter(c, { pdp: { ...pdp, powers: [1] }, noiseVariance: 1 }), 'pdp.powers');
  refuses(() => lmmseFilter(c, { pdp: { ...pdp, delays: [0, Number.NaN] }, noiseVariance: 1 }), 'pdp.delays');
  refuses(() => lmmseFilter(c, { pdp: null as never, noiseVariance: 1 }), 'pdp');
  refuses(() => lmmseFilter(c, { pdp, noiseVariance: 0 }), 'noiseVariance');
  refuses(() => lmmseFilter(c, { pdp } as never), 'noiseVariance');
  refuses(() => lmmseFilter(c, { pdp, noiseVariance: 1, window: 0 }), 'window');
  const other = lmmseFilter(dmrsConfig({ ...ok, prbs: 5 }), { pdp, noiseVariance: 1 });
  refuses(() => lmmseEstimate(other, p, y, 2), 'filter');
  refuses(() => lmmseNoise(other, p, y, 2), 'filter');
  refuses(
    () => lmmseNoise(lmmseFilter(p.config, { pdp: { delays: [0], powers: [1] }, noiseVariance: 1 }), p, y, 0),
    'nr',
  );
  refuses(() => estimateNoise(p, y, 2, { method: 'bogus' as never }), 'method');
  const four = dmrsPilots(dmrsConfig({ ...ok, layers: 4 }), 0);
  refuses(() => estimateNoise(four, y, 2, { method: 'free' }), 'method');
  refuses(() => goldSequence(2 ** 31, 4), 'cInit');
});

test('estimateSlot: LS and LMMSE as their estimators and noise estimates give them, the detectors noise with the error variance', () => {
  for (let t = 0; t < 6; t++) {
    const config = randomConfig();
    const nr = 1 + rng.int(4);
    const pilots = dmrsPilots(config, rng.int(slotsPerFrame(config.scs)));
    const N0 = 0.01 + rng.uniform() * 0.3;
    const y = receive(pilots, nr, N0, () => cn());
    const filter = lmmseFilter(config, {
      pdp: { delays: [0, 100e-9, 300e-9], powers: [0.6, 0.3, 0.1] },
      noiseVariance: N0,
    });
    const l = estimateSlot(pilots, y, nr, { csi: 'lmmse', filter });
    assert.deepEqual(l.H, lmmseEstimate(filter, pilots, y, nr), msg(describe(config)));
    assert.equal(l.n0, lmmseNoise(filter, pilots, y, nr).noiseVariance);
    const still = timeInterpolationTerms(config);
    assert.equal(l.noiseVar, l.n0 + config.layers * lmmseErrorVariance(filter, still));
    const s = estimateSlot(pilots, y, nr, { csi: 'ls' });
    assert.deepEqual(s.H, lsEstimate(pilots, y, nr));
    assert.equal(s.n0, estimateNoise(pilots, y, nr).noiseVariance);
    assert.equal(s.noiseVar, s.n0 + config.layers * (s.n0 / lsErrorScale(config, still) + still.doppler));
    // a static channel: no Doppler term; interpolating averages the DM-RS symbols' errors down
    assert.equal(still.doppler, 0);
    assert.ok(still.own <= 1 && still.own >= 0.5, msg(`own ${still.own}`));
    assert.ok(lmmseErrorVariance(filter, still) <= meanErrorVariance(filter) * (1 + 1e-12));
    // with a time correlation the estimator is told, the detectors' noise grows by the Doppler term
    const moving = timeInterpolationTerms(config, jakesCorrelation(300));
    const m = estimateSlot(pilots, y, nr, { csi: 'ls', time: moving });
    assert.ok(moving.doppler > 0 && m.noiseVar > s.noiseVar, msg(`doppler ${moving.doppler}`));
  }
});

test('time interpolation: the error on the data symbols under Jakes fading matches the terms, LS on a flat channel and LMMSE on a profile', () => {
  for (const csi of ['ls', 'lmmse'] as const) {
    const c = randomConfig({ prbs: 2 + rng.int(5), layers: 1 + rng.int(2) });
    const K = c.subcarriers,
      L = c.layers;
    const N0 = 0.005 + 0.05 * rng.uniform();
    const Tslot = slotDuration(c);
    // 0.15 to 0.5 Doppler cycles a slot: the channel turns visibly between DM-RS symbols
    const fD = (0.15 + 0.35 * rng.uniform()) / Tslot;
    const pdp = csi === 'ls' ? { delays: [0], powers: [1] } : randomPdp((0.05 + 0.1 * rng.uniform()) / c.scs);
    const filter = csi === 'lmmse' ? lmmseFilter(c, { pdp, noiseVariance: N0 }) : null;
    const terms = timeInterpolationTerms(c, jakesCorrelation(fD));
    const want = filter ? lmmseErrorVariance(filter, terms) : N0 / lsErrorScale(c, terms) + terms.doppler;
    const what = msg(`${csi}: ${describe(c)}, N0 ${N0.toFixed(4)}, fD T ${(fD * Tslot).toFixed(2)}, predicted ${want}`);
    assert.ok(terms.doppler > 0, what);
    const f = subcarrierFrequencies(c);
    const symbolT = Tslot / SYMBOLS_PER_SLOT;
    const M = 12;
    const trials = 120;
    const ratios: number[] = [];
    for (let t = 0; t < trials; t++) {
      // per layer and tap: g(t) = sum_m a_m exp(j 2 pi fD cos(alpha_m) t), a_m ~ CN(0, p / M): Jakes over draws
      const H = new Float64Array(2 * SYMBOLS_PER_SLOT * K * L);
      for (let j = 0; j < L; j++)
        pdp.powers.forEach((pw, tap) => {
          const rays = Array.from({ length: M }, () => ({
            a: cn(pw / M),
            nu: fD * Math.cos(2 * Math.PI * rng.uniform()),
          }));
          for (let l = 0; l < SYMBOLS_PER_SLOT; l++) {
            let gr = 0,
              gi = 0;
            for (const r of rays) {
              const ph = 2 * Math.PI * r.nu * l * symbolT;
              gr += r.a[0] * Math.cos(ph) - r.a[1] * Math.sin(ph);
              gi += r.a[0] * Math.sin(ph) + r.a[1] * Math.cos(ph);
            }
            for (let k = 0; k < K; k++) {
              const ph = -2 * Math.PI * f[k]! * pdp.delays[tap]!;
              const at = 2 * ((l * K + k) * L + j);
              H[at]! += gr * Math.cos(ph) - gi * Math.sin(ph);
              H[at + 1]! += gr * Math.sin(ph) + gi * Math.cos(ph);
            }
          }
        });
      const p = dmrsPilots(c, rng.int(slotsPerFrame(c.scs)));
      const y = receive(p, 1, N0, (l, k, _i, j) => [H[2 * ((l * K + k) * L + j)]!, H[2 * ((l * K + k) * L + j) + 1]!]);
      const est = filter ? lmmseEstimate(filter, p, y, 1) : lsEstimate(p, y, 1);
      let e = 0;
      for (const l of c.dataSymbols)
        for (let q = 2 * l * K * L; q < 2 * (l + 1) * K * L; q++) e += (est[q]! - H[q]!) ** 2;
      ratios.push(e / (c.dataSymbols.length * K * L) / want);
    }
    const mean = ratios.reduce((a, b) => a + b, 0) / trials;
    const sd = Math.sqrt(ratios.reduce((a, b) => a + (b - mean) ** 2, 0) / (trials - 1));
    assert.ok(Math.abs(mean - 1) < (Z * sd) / Math.sqrt(trials), `${what}: empirical / predicted ${mean} (sd ${sd})`);
  }
});
