/**
 * The CDL models (3GPP TR 38.901 7.7.1), on fresh random seeds and parameters: the power delay
 * profile against the tables after scaling; E|h_ij|^2 = 1 per entry; the frequency correlation
 * against the profile's Fourier transform; the time correlation against the rays' Doppler sum over
 * every coupling; the line of sight's K-factor and Doppler; a span drawn in pieces equals it drawn
 * whole; draw() is the response at time 0 and frequency 0; the element pattern; strict parameters
 * (through the registry, the command line included, with the models registered here when the
 * registry does not hold them yet). Tolerances come from the sample sizes: every statistical check
 * fails by chance with probability under about 1e-6.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { checkOptions } from '../../src/core/options.js';
import {
  type AnyChannelEntry,
  type ChannelSpan,
  channelEntry,
  checkChannel,
  registerChannelModel,
} from '../../src/channels/index.js';
import {
  CDL_ENTRIES,
  CDL_TABLES,
  type CdlLosParams,
  type CdlModel,
  cdlDropWords,
  DEFAULT_DELAY_SPREAD,
  elementField,
  RAY_OFFSETS,
} from '../../src/channels/cdl/index.js';
import { parseSimulateArgs } from '../../src/cli/simulate.js';
import { refusedSync } from '../core/strict-options.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const MODELS = Object.keys(CDL_ENTRIES) as CdlModel[];
const NLOS: CdlModel[] = ['cdl-a', 'cdl-b', 'cdl-c'];
const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;
const uniform = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const Z = 5.5;
const C = 299_792_458;

/** A span of `count` drops from a fresh stream. */
function spanOf(count: number, perStream = 1 + randomInt(5000)): ChannelSpan {
  return { seed, stream0: randomInt(2 ** 30), streamStep: 1 + randomInt(4), perStream, first: randomInt(100), count };
}

/** The generator of a model by name, untyped parameters (each entry checks its own). */
function entryOf(model: CdlModel): AnyChannelEntry {
  return CDL_ENTRIES[model] as AnyChannelEntry;
}

/** Models registered for the registry's and the command line's checks, when the registry lacks them. */
function withRegistered<T>(f: () => T): T {
  const removes = MODELS.filter((m) => !channelEntry(m)).map((m) => registerChannelModel(entryOf(m)));
  try {
    return f();
  } finally {
    for (const r of removes.reverse()) r();
  }
}

test('cdl: the power delay profile is the table scaled: delays times the delay spread, powers summing to 1, K on the first cluster', () => {
  for (const model of MODELS) {
    const table = CDL_TABLES[model];
    const ds = uniform(10e-9, 1e-6);
    const kDb = table.los ? uniform(-10, 30) : undefined;
    const params: CdlLosParams = { delaySpread: ds, ...(kDb === undefined ? {} : { kFactorDb: kDb }) };
    const what = msg(`${model}, DS ${ds}, K ${kDb}`);
    const { delays, powers } = CDL_ENTRIES[model].powerDelayProfile(params);
    assert.equal(delays.length, table.rows.length, what);
    const sum = powers.reduce((a: number, x: number) => a + x, 0);
    assert.ok(Math.abs(sum - 1) < 1e-12, `${what}: powers sum to ${sum}`);
    const ref = table.los ? 1 : 0;
    for (let n = 0; n < delays.length; n++) {
      const [tau, pDb] = table.rows[n]!;
      assert.ok(Math.abs(delays[n]! - tau * ds) <= 1e-15 * Math.max(1, tau * ds), `${what}: delay ${n}`);
      // the table's power ratios between the scattered clusters are kept
      if (n > ref) {
        const ratio = powers[n]! / powers[ref]!,
          want = 10 ** ((pDb - table.rows[ref]![1]) / 10);
        assert.ok(Math.abs(ratio / want - 1) < 1e-12, `${what}: power ratio of ${n}`);
      }
    }
    if (table.los) {
      assert.ok(Math.abs(10 * Math.log10(powers[0]! / powers[1]!) - kDb!) < 1e-9, `${what}: K`);
      // the default is the table's own powers
      const def = CDL_ENTRIES[model].powerDelayProfile({});
      const t = table.rows.map((r) => 10 ** (r[1] / 10));
      const ts = t.reduce((a, x) => a + x, 0);
      for (let n = 0; n < t.length; n++)
        assert.ok(Math.abs(def.powers[n]! - t[n]! / ts) < 1e-3 * def.powers[n]!, `${model}: default power ${n}`);
    }
    assert.ok(
      Math.abs(CDL_ENTRIES[model].powerDelayProfile({}).delays.at(-1)! - table.rows.at(-1)![0] * DEFAULT_DELAY_SPREAD) <
        1e-15,
    );
  }
});

test('cdl: E|h_ij|^2 = 1 on every entry (omni elements; any polarisation without a line of sight)', () => {
  for (const model of MODELS) {
    const nt = 1 + randomInt(3),
      nr = 1 + randomInt(3);
    const params: Record<string, unknown> = {};
    if (NLOS.includes(model)) {
      params.rxPolarization = pick(['single', 'cross']);
      params.txPolarization = pick(['single', 'cross']);
    }
    const shape = {
      nt: params.txPolarization === 'cross' ? 2 * nt : nt,
      nr: params.rxPolarization === 'cross' ? 2 * nr : nr,
    };
    params.rxArray = pick(['ula', 'upa']);
    params.delaySpread = uniform(0, 1e-6);
    const what = msg(`${model} ${shape.nt}x${shape.nr} ${JSON.stringify(params)}`);
    const N = 3000;
    const H = entryOf(model).cpu(shape, params).draw(spanOf(N));
    const per = 2 * shape.nr * shape.nt;
    for (let e = 0; e < per / 2; e++) {
      let p = 0;
      for (let c = 0; c < N; c++) p += H[c * per + 2 * e]! ** 2 + H[c * per + 2 * e + 1]! ** 2;
      // |h|^2 of a sum of random-phase rays: variance at most 1
      assert.ok(Math.abs(p / N - 1) < Z / Math.sqrt(N), `${what}: entry ${e} power ${p / N}`);
    }
  }
});

test('cdl: the frequency correlation E[h(f + df) conj(h(f))] is sum_n P_n exp(-j 2 pi df tau_n)', () => {
  const model = pick(NLOS);
  const ds = uniform(30e-9, 1e-6);
  const f0 = uniform(-50e6, 50e6);
  const dfs = [0, uniform(0, 0.3), uniform(0.3, 1), uniform(1, 3)].map((x) => x / ds / (2 * Math.PI));
  const what = msg(`${model}, DS ${ds}, f0 ${f0}, df ${dfs}`);
  const N = 3000;
  const freqs = Float64Array.from(dfs, (d) => f0 + d);
  const H = entryOf(model).cpu({ nt: 2, nr: 2 }, { delaySpread: ds }).response!(spanOf(N), {
    times: new Float64Array([uniform(0, 1)]),
    freqs,
  });
  const { delays, powers } = CDL_ENTRIES[model].powerDelayProfile({ delaySpread: ds });
  const per = 8,
    F = freqs.length;
  for (let k = 1; k < F; k++)
    for (let e = 0; e < 4; e++) {
      let re = 0,
        im = 0;
      for (let c = 0; c < N; c++) {
        const a = (c * F + k) * per + 2 * e,
          b = c * F * per + 2 * e;
        // h(f + df) conj(h(f))
        re += H[a]! * H[b]! + H[a + 1]! * H[b + 1]!;
        im += H[a + 1]! * H[b]! - H[a]! * H[b + 1]!;
      }
      let wr = 0,
        wi = 0;
      for (let n = 0; n < delays.length; n++) {
        wr += powers[n]! * Math.cos(2 * Math.PI * dfs[k]! * delays[n]!);
        wi -= powers[n]! * Math.sin(2 * Math.PI * dfs[k]! * delays[n]!);
      }
      // each part's variance is at most E|h|^2 |h'|^2 / 2 <= 1 / N
      const tol = Z / Math.sqrt(N);
      assert.ok(
        Math.abs(re / N - wr) < tol && Math.abs(im / N - wi) < tol,
        `${what}: df ${dfs[k]}, entry ${e}: ${re / N} ${im / N} vs ${wr} ${wi}`,
      );
    }
});

/** The Doppler (Hz) of a ray reaching the UE from (zenith, azimuth) degrees, written out here. */
function doppler(fd: number, zen: number, az: number, vZen: number, vAz: number): number {
  const r = (d: number) => (d * Math.PI) / 180;
  return (
    fd *
    (Math.sin(r(zen)) * Math.cos(r(az)) * Math.sin(r(vZen)) * Math.cos(r(vAz)) +
      Math.sin(r(zen)) * Math.sin(r(az)) * Math.sin(r(vZen)) * Math.sin(r(vAz)) +
      Math.cos(r(zen)) * Math.cos(r(vZen)))
  );
}

test("cdl: the time correlation E[h(t) conj(h(0))] is the rays' Doppler sum over every coupling", () => {
  const model = pick(MODELS);
  const table = CDL_TABLES[model];
  const speed = uniform(1, 40),
    carrier = uniform(1e9, 6e9),
    vAz = uniform(-180, 180),
    vZen = uniform(60, 120);
  const fd = (speed * carrier) / C;
  const times = [0, uniform(0, 0.2), uniform(0.2, 1)].map((x) => x / fd);
  const what = msg(`${model}, speed ${speed}, carrier ${carrier}, travel ${vAz}/${vZen}, t ${times}`);
  const params = { speed, carrier, travelAzimuthDeg: vAz, travelZenithDeg: vZen, delaySpread: uniform(0, 1e-6) };
  const N = 3000;
  const H = entryOf(model).cpu({ nt: 1, nr: 2 }, params).response!(spanOf(N), {
    times: Float64Array.from(times),
    freqs: new Float64Array([uniform(-1e6, 1e6)]),
  });
  const { powers } = CDL_ENTRIES[model].powerDelayProfile(params);
  const fold = (z: number) => (z > 180 ? 360 - z : z < 0 ? -z : z);
  const T = times.length,
    per = 4;
  for (let k = 1; k < T; k++) {
    // the ray of AOA offset a and ZOA offset z: every pair equally likely under random coupling
    let wr = 0,
      wi = 0;
    for (let n = 0; n < table.rows.length; n++) {
      const row = table.rows[n]!;
      if (table.los && n === 0) {
        const nu = doppler(fd, row[5], row[3], vZen, vAz);
        wr += powers[0]! * Math.cos(2 * Math.PI * nu * times[k]!);
        wi += powers[0]! * Math.sin(2 * Math.PI * nu * times[k]!);
        continue;
      }
      for (const a of RAY_OFFSETS)
        for (const z of RAY_OFFSETS) {
          const nu = doppler(fd, fold(row[5] + table.cZSA * z), row[3] + table.cASA * a, vZen, vAz);
          wr += (powers[n]! / 400) * Math.cos(2 * Math.PI * nu * times[k]!);
          wi += (powers[n]! / 400) * Math.sin(2 * Math.PI * nu * times[k]!);
        }
    }
    // the entry's time correlation (what estimators assume) is this sum's real part
    const rho = CDL_ENTRIES[model].timeCorrelation!(params)(times[k]!);
    assert.ok(Math.abs(rho - wr) < 1e-12, `${what}: timeCorrelation ${rho} vs ${wr}`);
    for (let e = 0; e < 2; e++) {
      let re = 0,
        im = 0;
      for (let c = 0; c < N; c++) {
        const a = (c * T + k) * per + 2 * e,
          b = c * T * per + 2 * e;
        re += H[a]! * H[b]! + H[a + 1]! * H[b + 1]!;
        im += H[a + 1]! * H[b]! - H[a]! * H[b + 1]!;
      }
      const tol = Z / Math.sqrt(N);
      assert.ok(
        Math.abs(re / N - wr) < tol && Math.abs(im / N - wi) < tol,
        `${what}: t ${times[k]}, entry ${e}: ${re / N} ${im / N} vs ${wr} ${wi}`,
      );
    }
  }
});

test('cdl: the spatial correlation E[h_i0 conj(h_00)] across the base station UPA, and E[h_0j conj(h_00)] across the UE ULA', () => {
  const model = pick(MODELS);
  const table = CDL_TABLES[model];
  const rows = pick([1, 2, 3]),
    cols = 1 + randomInt(3);
  const nr = rows * cols,
    nt = 3;
  const rxSpacing = uniform(0.1, 1),
    txSpacing = uniform(0.1, 1);
  const params: CdlLosParams = { rxArray: 'upa', rxRows: rows, rxSpacing, txSpacing };
  const what = msg(`${model}, ${rows}x${cols} UPA spacing ${rxSpacing}, ULA spacing ${txSpacing}`);
  const N = 3000;
  const H = entryOf(model).cpu({ nt, nr }, params).draw(spanOf(N));
  const { powers } = CDL_ENTRIES[model].powerDelayProfile(params);
  const rad = (d: number) => (d * Math.PI) / 180;
  const fold = (z: number) => (z > 180 ? 360 - z : z < 0 ? -z : z);
  /** sum_n P_n E exp(j phase(zenith, azimuth)) over the couplings (the specular ray as it is). */
  const expect = (phase: (zen: number, az: number) => number, zc: number, ac: number, zs: number, as: number) => {
    let wr = 0,
      wi = 0;
    for (let n = 0; n < table.rows.length; n++) {
      const row = table.rows[n]!;
      if (table.los && n === 0) {
        wr += powers[0]! * Math.cos(phase(row[zc]!, row[ac]!));
        wi += powers[0]! * Math.sin(phase(row[zc]!, row[ac]!));
        continue;
      }
      for (const a of RAY_OFFSETS)
        for (const z of RAY_OFFSETS) {
          const p = phase(fold(row[zc]! + zs * z), row[ac]! + as * a);
          wr += (powers[n]! / 400) * Math.cos(p);
          wi += (powers[n]! / 400) * Math.sin(p);
        }
    }
    return [wr, wi] as const;
  };
  const check = (e: number, want: readonly [number, number], label: string) => {
    let re = 0,
      im = 0;
    for (let c = 0; c < N; c++) {
      const a = c * 2 * nr * nt + 2 * e,
        b = c * 2 * nr * nt;
      re += H[a]! * H[b]! + H[a + 1]! * H[b + 1]!;
      im += H[a + 1]! * H[b]! - H[a]! * H[b + 1]!;
    }
    const tol = Z / Math.sqrt(N);
    assert.ok(
      Math.abs(re / N - want[0]) < tol && Math.abs(im / N - want[1]) < tol,
      `${what}: ${label}: ${re / N} ${im / N} vs ${want}`,
    );
  };
  // base station: row along y, columns up z; the rays at the departure angles (ZOD col 4, AOD col 2)
  for (let i = 1; i < nr; i++) {
    const y = (i % cols) * rxSpacing,
      z = Math.floor(i / cols) * rxSpacing;
    const phase = (zen: number, az: number) =>
      2 * Math.PI * (Math.sin(rad(zen)) * Math.sin(rad(az)) * y + Math.cos(rad(zen)) * z);
    check(i, expect(phase, 4, 2, table.cZSD, table.cASD), `rx element ${i}`);
  }
  // UE: turned by 180 degrees, its row along -y; the arrival angles (ZOA col 5, AOA col 3)
  for (let j = 1; j < nt; j++) {
    const phase = (zen: number, az: number) => -2 * Math.PI * Math.sin(rad(zen)) * Math.sin(rad(az)) * j * txSpacing;
    check(j * nr, expect(phase, 5, 3, table.cZSA, table.cASA), `tx element ${j}`);
  }
});

test('cdl: cross-polarised pairs: E[h_+45 conj(h_-45)] = (XPR - 1) / (XPR + 1) from a vertical element, each of power 1', () => {
  const model = pick(NLOS);
  const kappa = 10 ** (CDL_TABLES[model].xprDb / 10);
  const N = 4000;
  const H = entryOf(model).cpu({ nt: 1, nr: 2 }, { rxPolarization: 'cross' }).draw(spanOf(N));
  let re = 0,
    im = 0,
    p0 = 0,
    p1 = 0;
  for (let c = 0; c < N; c++) {
    const [ar, ai, br, bi] = [H[4 * c]!, H[4 * c + 1]!, H[4 * c + 2]!, H[4 * c + 3]!];
    re += ar * br + ai * bi;
    im += ai * br - ar * bi;
    p0 += ar * ar + ai * ai;
    p1 += br * br + bi * bi;
  }
  const want = (kappa - 1) / (kappa + 1),
    tol = Z / Math.sqrt(N);
  const what = msg(`${model}: ${re / N} ${im / N} vs ${want}; powers ${p0 / N} ${p1 / N}`);
  assert.ok(Math.abs(re / N - want) < tol && Math.abs(im / N) < tol, what);
  assert.ok(Math.abs(p0 / N - 1) < tol && Math.abs(p1 / N - 1) < tol, what);
});

test('cdl: the line of sight: the mean channel, the scattered power and K; a huge K turns at the LOS Doppler', () => {
  const model = pick<CdlModel>(['cdl-d', 'cdl-e']);
  const kDb = uniform(-5, 20);
  const what = msg(`${model}, K ${kDb} dB`);
  const N = 4000;
  const H = entryOf(model).cpu({ nt: 1, nr: 1 }, { kFactorDb: kDb }).draw(spanOf(N));
  const { powers } = CDL_ENTRIES[model].powerDelayProfile({ kFactorDb: kDb });
  const los = powers[0]!;
  let mr = 0,
    mi = 0;
  for (let c = 0; c < N; c++) {
    mr += H[2 * c]! / N;
    mi += H[2 * c + 1]! / N;
  }
  let scatter = 0;
  for (let c = 0; c < N; c++) scatter += ((H[2 * c]! - mr) ** 2 + (H[2 * c + 1]! - mi) ** 2) / N;
  // the specular ray at the elements at the origin: sqrt(P_LOS), phase 0
  const sd = Math.sqrt((1 - los) / 2 / N);
  assert.ok(
    Math.abs(mr - Math.sqrt(los)) < Z * sd && Math.abs(mi) < Z * sd,
    `${what}: mean ${mr} ${mi} vs ${Math.sqrt(los)}`,
  );
  assert.ok(
    Math.abs(scatter - (1 - los)) < (Z * (1 - los)) / Math.sqrt(N),
    `${what}: scattered ${scatter} vs ${1 - los}`,
  );
  assert.ok(Math.abs(10 * Math.log10(los / powers[1]!) - kDb) < 1e-9, what);

  // K = 300 dB: the specular ray alone, exp(j 2 pi nu t) with nu its Doppler at the UE
  const speed = uniform(1, 100),
    carrier = uniform(1e9, 30e9),
    vAz = uniform(-180, 180);
  const row = CDL_TABLES[model].rows[0]!;
  const fd = (speed * carrier) / C;
  const nu = doppler(fd, row[5], row[3], 90, vAz);
  const times = Float64Array.from([0, uniform(0, 1), uniform(1, 10)], (x) => x / fd);
  const R = entryOf(model).cpu({ nt: 2, nr: 2 }, { kFactorDb: 300, speed, carrier, travelAzimuthDeg: vAz }).response!(
    spanOf(1),
    { times, freqs: new Float64Array([0]) },
  );
  for (let k = 0; k < 3; k++) {
    const h0 = [R[k * 8]!, R[k * 8 + 1]!];
    const want = [Math.cos(2 * Math.PI * nu * times[k]!), Math.sin(2 * Math.PI * nu * times[k]!)];
    assert.ok(Math.hypot(h0[0]! - want[0]!, h0[1]! - want[1]!) < 1e-9, msg(`LOS at t ${times[k]}: ${h0} vs ${want}`));
  }
});

test('cdl: a span drawn in pieces equals it drawn whole (draw and response), on any stream layout', () => {
  for (const model of MODELS) {
    const nt = 1 + randomInt(4),
      nr = 2 * (1 + randomInt(2));
    const params = { speed: uniform(0, 30), rxPolarization: 'cross', txPattern: '38.901' };
    const g = entryOf(model).cpu({ nt, nr }, params);
    const span = spanOf(5 + randomInt(8), 1 + randomInt(4));
    const at = { times: Float64Array.from([0, uniform(0, 1e-3)]), freqs: Float64Array.from([uniform(-1e7, 1e7), 0]) };
    const whole = g.response!(span, at),
      wholeDraw = g.draw(span);
    const per = 2 * nr * nt,
      reals = 4 * per;
    let first = span.first,
      done = 0;
    while (done < span.count) {
      const n = Math.min(span.count - done, 1 + randomInt(3));
      const piece = { ...span, first, count: n };
      assert.deepEqual(
        g.response!(piece, at),
        whole.subarray(done * reals, (done + n) * reals),
        msg(`${model} response piece ${first}+${n}`),
      );
      assert.deepEqual(
        g.draw(piece),
        wholeDraw.subarray(done * per, (done + n) * per),
        msg(`${model} draw piece ${first}+${n}`),
      );
      first += n;
      done += n;
    }
    // draw() is the response at time 0 and frequency 0 (point (0, 1) of `at`'s grid)
    for (let d = 0; d < span.count; d++)
      assert.deepEqual(
        whole.subarray(d * reals + per, d * reals + 2 * per),
        wholeDraw.subarray(d * per, (d + 1) * per),
        msg(`${model} drop ${d}: draw vs response(0, 0)`),
      );
  }
});

test('cdl: a drop reads a fixed number of words: a drop drawn alone is the same drop of a run', () => {
  const model = pick(MODELS);
  assert.equal(cdlDropWords(CDL_TABLES[model]) % 4, 0);
  const g = entryOf(model).cpu({ nt: 2, nr: 2 }, {});
  const run = g.draw({ seed, stream0: 7, streamStep: 1, perStream: 1000, first: 0, count: 20 });
  const q = randomInt(20);
  assert.deepEqual(
    g.draw({ seed, stream0: 7, streamStep: 1, perStream: 1000, first: q, count: 1 }),
    run.subarray(8 * q, 8 * q + 8),
  );
});

test('cdl: the 38.901 element: 8 dBi at boresight, 30 dB down behind and below', () => {
  assert.ok(Math.abs(20 * Math.log10(elementField('38.901', 90, 0)) - 8) < 1e-12);
  assert.ok(Math.abs(20 * Math.log10(elementField('38.901', 90, 180)) + 22) < 1e-12);
  assert.ok(Math.abs(20 * Math.log10(elementField('38.901', 90, (65 / Math.sqrt(12)) * 1)) - 7) < 1e-12);
  assert.ok(Math.abs(20 * Math.log10(elementField('38.901', 0, 0)) - (8 - 12 * (90 / 65) ** 2)) < 1e-12);
  assert.equal(elementField('omni', 12, 34), 1);
  // a turned array: the UE's boresight at azimuth 180
  assert.ok(Math.abs(20 * Math.log10(elementField('38.901', 90, -180, 180)) - 8) < 1e-12);
});

test('cdl: strict parameters: InvalidArgumentError naming the option', () => {
  withRegistered(() => {
    const model = pick(MODELS);
    const shape = { nt: 2, nr: 4 };
    const bad: [Record<string, unknown>, string, { nt: number; nr: number }?][] = [
      [{ delaySpread: -1e-9 }, 'channelOptions.delaySpread'],
      [{ speed: -1 }, 'channelOptions.speed'],
      [{ carrier: 0 }, 'channelOptions.carrier'],
      [{ travelZenithDeg: 181 }, 'channelOptions.travelZenithDeg'],
      [{ rxArray: 'circle' }, 'channelOptions.rxArray'],
      [{ txPattern: 'dipole' }, 'channelOptions.txPattern'],
      [{ rxSpacing: 0 }, 'channelOptions.rxSpacing'],
      [{ rxPolarization: 'cross' }, 'channelOptions.rxPolarization', { nt: 2, nr: 3 }],
      [{ txPolarization: 'cross' }, 'channelOptions.txPolarization', { nt: 3, nr: 4 }],
      [{ rxArray: 'upa', rxRows: 3 }, 'channelOptions.rxRows'],
      [{ txRows: 2 }, 'channelOptions.txRows'],
      [{ rxRows: 1.5 }, 'channelOptions.rxRows'],
      [{ delaySpreed: 1e-7 }, 'channelOptions.delaySpreed'],
    ];
    for (const [params, option, s] of bad)
      refusedSync(
        () => checkChannel(model, params, s ?? shape, 't()'),
        option,
        msg(`${model} ${JSON.stringify(params)}`),
      );
    // the K-factor is the line-of-sight models' (and rician's) only
    refusedSync(() => checkChannel(pick(NLOS), { kFactorDb: 3 }, shape, 't()'), 'channelOptions.kFactorDb');
    checkChannel(pick<CdlModel>(['cdl-d', 'cdl-e']), { kFactorDb: 3 }, shape, 't()');
    // what is accepted
    checkChannel(model, { rxArray: 'upa', rxPolarization: 'cross', rxPattern: '38.901' }, { nt: 2, nr: 8 }, 't()');
    checkChannel(model, { rxArray: 'upa', rxRows: 4 }, { nt: 2, nr: 4 }, 't()');
    assert.throws(() => checkOptions({ speed: Number.NaN }, entryOf(model).options, 't()'), InvalidArgumentError);
  });
});

test('cdl: the command line takes the parameters as flags (--k-factor shared with rician)', () => {
  withRegistered(() => {
    const o = parseSimulateArgs([
      '--channel',
      'cdl-d',
      '--k-factor',
      '5',
      '--speed',
      '3',
      '--carrier',
      '2e9',
      '--delay-spread',
      '1e-7',
      '--rx-array',
      'upa',
      '--rx-polarization',
      'cross',
      '--mimo',
      '2x8',
    ]).options;
    assert.equal(o.channel, 'cdl-d');
    assert.deepEqual(o.channelOptions, {
      kFactorDb: 5,
      speed: 3,
      carrier: 2e9,
      delaySpread: 1e-7,
      rxArray: 'upa',
      rxPolarization: 'cross',
    });
    assert.throws(() => parseSimulateArgs(['--channel', 'cdl-a', '--k-factor', '5']), InvalidArgumentError);
  });
});
