/**
 * The TDL models on fresh seeds: taps against the tables (delay-spread scaling, the K-factor), the
 * frequency correlation against the power delay profile's Fourier transform, the time correlation
 * against J0 (2 pi f_D t), 38.104's antenna correlation, the exact Gaussian marginal of a tap (a
 * zero delay spread is flat Rayleigh fading), span pieces equal to the whole, draw() as the
 * response at time and frequency 0, strict parameters; generateChannels() on the OFDM grid.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { InvalidArgumentError } from '../../src/core/errors.js';
import {
  CHANNEL_REGISTRY,
  type ChannelSpan,
  channelResponse,
  checkChannel,
  generateChannels,
  subcarrierFrequencies,
  symbolTimes,
} from '../../src/channels/index.js';
import { nrCorrelation, tdlTaps } from '../../src/channels/tdl/cpu.js';
import { TDL_TABLES, type TdlName } from '../../src/channels/tdl/tables.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
/** z-scores allowed: each check fails by chance with probability under 1e-6. */
const Z = 5.5;

function spanOf(count: number): ChannelSpan {
  return { seed, stream0: randomInt(2 ** 30), streamStep: 4, perStream: 1 << 20, first: randomInt(50), count };
}

/** J0 by the integral (1/pi) int_0^pi cos(x sin th) d th, Simpson's rule on 400 intervals. */
function besselJ0(x: number): number {
  const n = 400,
    h = Math.PI / n;
  let s = 0;
  for (let i = 0; i <= n; i++) s += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * Math.cos(x * Math.sin(i * h));
  return (s * h) / 3 / Math.PI;
}

/** The sample mean of a_k conj(b_k) over pairs (complex, interleaved) with its standard error. */
function crossMean(pairs: [number, number, number, number][]): { re: number; im: number; se: number } {
  let re = 0,
    im = 0,
    m2 = 0;
  for (const [ar, ai, br, bi] of pairs) {
    re += ar * br + ai * bi;
    im += ai * br - ar * bi;
    m2 += (ar * ar + ai * ai) * (br * br + bi * bi);
  }
  const n = pairs.length;
  return { re: re / n, im: im / n, se: Math.sqrt(m2 / n / n) };
}

const NAMES = Object.keys(TDL_TABLES) as TdlName[];

test('tdl: taps are the tables scaled (38.901 by the delay spread, 38.104 in ns), powers summing to 1', () => {
  const ds = (10 + Math.random() * 990) * 1e-9;
  for (const name of NAMES) {
    const table = TDL_TABLES[name];
    const taps = tdlTaps(name, { delaySpread: ds });
    const sum = taps.powers.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-12, msg(`${name} powers sum ${sum}`));
    for (let i = 0; i < table.delays.length; i++) {
      const want = table.delays[i]! * (table.normalized ? ds : 1e-9);
      assert.ok(Math.abs(taps.delays[i]! - want) <= 1e-15 + 1e-12 * want, msg(`${name} delay ${i}`));
      const dB = 10 * Math.log10(taps.powers[i]! / taps.powers[0]!);
      assert.ok(Math.abs(dB - (table.powersDb[i]! - table.powersDb[0]!)) < 1e-9, msg(`${name} power ${i}`));
    }
  }
  const file = new URL('../../../../shared/data/channels/', import.meta.url);
  if (!existsSync(file)) return;
  for (const name of NAMES) {
    const rows = readFileSync(new URL(`${name}.tsv`, file), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#') && !l.startsWith('delay'))
      .map((l) => l.split('\t').map(Number));
    assert.deepEqual(
      rows.map((r) => [r[0], r[1]]),
      TDL_TABLES[name].delays.map((d, i) => [d, TDL_TABLES[name].powersDb[i]]),
      `${name}: the embedded table equals ../shared/data/channels/${name}.tsv`,
    );
  }
});

test("tdl: the K-factor of TDL-D and -E is the table's by default and the one asked for otherwise", () => {
  for (const [name, tableK] of [
    ['tdl-d', 13.3],
    ['tdl-e', 22],
  ] as const) {
    const t = tdlTaps(name, {});
    assert.ok(Math.abs(10 * Math.log10(t.powers[0]! / t.powers[1]!) - tableK) < 1e-9, name);
    const k = -10 + Math.random() * 40;
    const s = tdlTaps(name, { kFactorDb: k });
    assert.ok(Math.abs(10 * Math.log10(s.powers[0]! / s.powers[1]!) - k) < 1e-9, msg(`${name} K ${k}`));
  }
  // the specular path's power shows in the fourth moment: E|h|^4 = (2 + 4K' + K'^2) / (1 + K')^2,
  // K' the line of sight over all scattered power (zero delay spread: one tap at f = 0)
  const k = 5 + Math.random() * 10;
  const pLos = tdlTaps('tdl-d', { kFactorDb: k }).powers[0]!;
  const Kp = pLos / (1 - pLos);
  const N = 20000;
  const H = CHANNEL_REGISTRY['tdl-d'].cpu({ nt: 1, nr: 1 }, { kFactorDb: k, delaySpread: 0 }).draw(spanOf(N));
  let m2 = 0,
    m4 = 0,
    m8 = 0;
  for (let i = 0; i < N; i++) {
    const p = H[2 * i]! ** 2 + H[2 * i + 1]! ** 2;
    m2 += p;
    m4 += p * p;
    m8 += p ** 4;
  }
  m2 /= N;
  m4 /= N;
  const want = (2 + 4 * Kp + Kp * Kp) / (1 + Kp) ** 2;
  const se = Math.sqrt(m8 / N - m4 * m4) / Math.sqrt(N);
  assert.ok(Math.abs(m2 - 1) < 0.05, msg(`E|h|^2 ${m2}`));
  assert.ok(Math.abs(m4 - want) < Z * se, msg(`E|h|^4 ${m4} vs ${want} (K ${k} dB)`));
});

test('tdl: a zero delay spread is flat Rayleigh fading: CN(0, 1) entries, independent across antennas', () => {
  const name = (['tdl-a', 'tdl-b', 'tdl-c'] as const)[randomInt(3)];
  const N = 20000;
  const H = CHANNEL_REGISTRY[name]
    .cpu({ nt: 2, nr: 1 }, { delaySpread: 0, speed: 30, sinusoids: 1 + randomInt(8) })
    .draw(spanOf(N / 2));
  let m2 = 0,
    m4 = 0,
    pr = 0,
    x = 0;
  for (let i = 0; i < N; i++) {
    const a = H[2 * i]!,
      b = H[2 * i + 1]!;
    m2 += a * a + b * b;
    m4 += (a * a + b * b) ** 2;
    pr += a * a - b * b; // E[h^2] = 0 for a circular h
  }
  for (let c = 0; c < N / 2; c++) x += H[4 * c]! * H[4 * c + 2]! + H[4 * c + 1]! * H[4 * c + 3]!;
  m2 /= N;
  m4 /= N;
  assert.ok(Math.abs(m2 - 1) < Z * Math.sqrt(1 / N), msg(`${name} E|h|^2 ${m2}`));
  assert.ok(Math.abs(m4 - 2) < Z * Math.sqrt(20 / N), msg(`${name} E|h|^4 ${m4}, Rayleigh 2`));
  assert.ok(Math.abs(pr / N) < Z * Math.sqrt(1 / N), msg(`${name} E[re^2 - im^2]`));
  assert.ok(Math.abs(x / (N / 2)) < Z * Math.sqrt(1 / N), msg(`${name} antennas correlated`));
});

test("tdl: the frequency correlation is the power delay profile's Fourier transform", () => {
  const name = NAMES[randomInt(NAMES.length)]!;
  const ds = (100 + Math.random() * 400) * 1e-9;
  const params = TDL_TABLES[name].normalized ? { delaySpread: ds } : {};
  const shape = { nt: 2, nr: 2 };
  const gen = CHANNEL_REGISTRY[name].cpu(shape, params);
  const dfs = [0, 15e3 * (1 + randomInt(20)), 30e3 * (20 + randomInt(100))];
  const freqs = Float64Array.from([0, ...dfs.slice(1)]);
  const N = 1500;
  const R = channelResponse(gen, shape, spanOf(N), { times: new Float64Array(1), freqs });
  const taps = tdlTaps(name, params);
  for (let k = 1; k < freqs.length; k++) {
    const pairs: [number, number, number, number][] = [];
    for (let d = 0; d < N; d++)
      for (let e = 0; e < 4; e++) {
        const a = (d * freqs.length + 0) * 8 + 2 * e,
          b = (d * freqs.length + k) * 8 + 2 * e;
        pairs.push([R[a]!, R[a + 1]!, R[b]!, R[b + 1]!]);
      }
    const got = crossMean(pairs);
    // E[H(0) conj(H(df))] = sum_l p_l exp(+j 2 pi df tau_l) (LOS path included: the same delay term)
    let re = 0,
      im = 0;
    for (let l = 0; l < taps.delays.length; l++) {
      re += taps.powers[l]! * Math.cos(2 * Math.PI * freqs[k]! * taps.delays[l]!);
      im += taps.powers[l]! * Math.sin(2 * Math.PI * freqs[k]! * taps.delays[l]!);
    }
    // pairs of one drop's 4 entries are independent; the LOS part is common to them: a wider bound
    const tol = Z * got.se * (taps.los ? 2 : 1);
    assert.ok(
      Math.hypot(got.re - re, got.im - im) < tol,
      msg(`${name} df ${freqs[k]}: ${got.re.toFixed(3)} ${got.im.toFixed(3)} vs ${re.toFixed(3)} ${im.toFixed(3)}`),
    );
  }
});

test('tdl: the time correlation of the Rayleigh taps is J0(2 pi f_D t)', () => {
  const name = (['tdl-a', 'tdl-b', 'tdl-c', 'tdl-a30'] as const)[randomInt(4)];
  const speed = 10 + Math.random() * 50,
    carrier = 2e9 + Math.random() * 4e9;
  const fD = (speed * carrier) / 299_792_458;
  const shape = { nt: 2, nr: 2 };
  const gen = CHANNEL_REGISTRY[name].cpu(shape, { speed, carrier, sinusoids: 1 + randomInt(20) });
  const lags = [0, 0.1 / fD, 0.25 / fD, 0.4 / fD, 1 / fD];
  const N = 1500;
  const R = channelResponse(gen, shape, spanOf(N), { times: Float64Array.from(lags), freqs: new Float64Array(1) });
  for (let k = 1; k < lags.length; k++) {
    const pairs: [number, number, number, number][] = [];
    for (let d = 0; d < N; d++)
      for (let e = 0; e < 4; e++) {
        const a = d * lags.length * 8 + 2 * e,
          b = (d * lags.length + k) * 8 + 2 * e;
        pairs.push([R[a]!, R[a + 1]!, R[b]!, R[b + 1]!]);
      }
    const got = crossMean(pairs);
    const want = besselJ0(2 * Math.PI * fD * lags[k]!);
    const rho = CHANNEL_REGISTRY[name].timeCorrelation!({ speed, carrier })(lags[k]!);
    assert.ok(Math.abs(rho - want) < 1e-12, msg(`${name} timeCorrelation ${rho} vs J0 ${want}`));
    assert.ok(
      Math.hypot(got.re - want, got.im) < Z * got.se,
      msg(
        `${name} fD ${fD.toFixed(1)} lag ${lags[k]}: ${got.re.toFixed(3)} ${got.im.toFixed(3)} vs J0 ${want.toFixed(3)}`,
      ),
    );
  }
});

test("tdl: with a line of sight (D, E) the time correlation is the taps' J0 and the LOS's cos(2 pi 0.7 f_D t), as timeCorrelation gives it", () => {
  const name = (['tdl-d', 'tdl-e'] as const)[randomInt(2)];
  const speed = 10 + Math.random() * 50,
    carrier = 2e9 + Math.random() * 4e9,
    kFactorDb = -5 + Math.random() * 15;
  const fD = (speed * carrier) / 299_792_458;
  const shape = { nt: 1, nr: 1 };
  const params = { speed, carrier, kFactorDb };
  const rho = CHANNEL_REGISTRY[name].timeCorrelation!(params);
  const lags = [0, 0.15 / fD, 0.4 / fD, 1.3 / fD];
  const N = 4000;
  const R = channelResponse(CHANNEL_REGISTRY[name].cpu(shape, params), shape, spanOf(N), {
    times: Float64Array.from(lags),
    freqs: new Float64Array(1),
  });
  assert.equal(rho(0), 1);
  for (let k = 1; k < lags.length; k++) {
    const pairs: [number, number, number, number][] = [];
    for (let d = 0; d < N; d++) {
      const a = d * lags.length * 2,
        b = (d * lags.length + k) * 2;
      pairs.push([R[b]!, R[b + 1]!, R[a]!, R[a + 1]!]);
    }
    const got = crossMean(pairs);
    const want = rho(lags[k]!);
    assert.ok(
      Math.abs(got.re - want) < Z * got.se,
      msg(
        `${name} K ${kFactorDb.toFixed(1)} dB, fD ${fD.toFixed(1)}, lag ${lags[k]}: Re ${got.re.toFixed(4)} vs ${want.toFixed(4)}`,
      ),
    );
  }
});

test("tdl: 38.104's antenna correlation: E[vec(H) vec(H)^H] = R_UE^T ⊗ R_gNB", () => {
  const level = (['medium', 'high'] as const)[randomInt(2)];
  const [a, b] = level === 'medium' ? [0.9, 0.3] : [0.9, 0.9];
  const r4 = nrCorrelation(4, a);
  const row = [0, 1, 2, 3].map((j) => r4[2 * j]!);
  for (const [j, e] of [1 / 9, 4 / 9, 1].entries()) assert.ok(Math.abs(row[j + 1]! - a ** e) < 1e-15, `4-antenna row`);
  const nr = 2 + randomInt(3),
    nt = 2;
  const shape = { nt, nr };
  const N = 6000;
  const H = CHANNEL_REGISTRY['tdl-c'].cpu(shape, { correlation: level }).draw(spanOf(N));
  const Rr = nrCorrelation(nr, a),
    Rt = nrCorrelation(nt, b);
  const E = nr * nt;
  for (let p = 0; p < E; p++)
    for (let q = 0; q < E; q++) {
      const pairs: [number, number, number, number][] = [];
      for (let c = 0; c < N; c++) {
        const o = 2 * c * E;
        pairs.push([H[o + 2 * p]!, H[o + 2 * p + 1]!, H[o + 2 * q]!, H[o + 2 * q + 1]!]);
      }
      const got = crossMean(pairs);
      // entry p = i + j nr: rx i, tx j
      const [ip, jp, iq, jq] = [p % nr, Math.floor(p / nr), q % nr, Math.floor(q / nr)];
      const want = Rr[2 * (ip * nr + iq)]! * Rt[2 * (jp * nt + jq)]!;
      assert.ok(
        Math.hypot(got.re - want, got.im) < Z * got.se,
        msg(`${level} (${p}, ${q}): ${got.re.toFixed(3)} vs ${want.toFixed(3)}`),
      );
    }
});

test('tdl: a span drawn in pieces equals it whole; draw() is the response at (0, 0)', () => {
  const name = NAMES[randomInt(NAMES.length)]!;
  const shape = { nt: 1 + randomInt(3), nr: 1 + randomInt(3) };
  const gen = CHANNEL_REGISTRY[name].cpu(shape, { speed: 3, correlation: 'medium' });
  const span: ChannelSpan = { seed, stream0: randomInt(1000), streamStep: 4, perStream: 3, first: 1, count: 7 };
  const at = { times: Float64Array.of(0, 1e-4, 3e-3), freqs: Float64Array.of(-1e6, 0, 2e5) };
  const whole = gen.response!(span, at);
  const per = whole.length / span.count;
  for (let c = 0; c < span.count; c++)
    assert.deepEqual(
      gen.response!({ ...span, first: span.first + c, count: 1 }, at),
      whole.subarray(c * per, (c + 1) * per),
      msg(`${name} drop ${c}`),
    );
  const flat = gen.draw(span);
  const origin = gen.response!(span, { times: new Float64Array(1), freqs: new Float64Array(1) });
  assert.deepEqual(flat, origin, msg(`${name} draw`));
});

test('tdl: strict parameters', () => {
  const call = 'simulate()';
  const shape = { nt: 2, nr: 2 };
  const refused = (model: string, params: object, option: string) =>
    assert.throws(
      () => checkChannel(model, params, shape, call),
      (e: unknown) => e instanceof InvalidArgumentError && (e.details as { option?: string }).option === option,
      `${model} ${JSON.stringify(params)}`,
    );
  refused('tdl-a30', { delaySpread: 1e-7 }, 'channelOptions.delaySpread');
  refused('tdl-a', { kFactorDb: 3 }, 'channelOptions.kFactorDb');
  refused('tdl-c', { correlation: 'medium', rhoTx: 0.5 }, 'channelOptions.correlation');
  refused('tdl-c', { correlation: 'strong' }, 'channelOptions.correlation');
  refused('tdl-c', { speed: -1 }, 'channelOptions.speed');
  refused('tdl-c', { delaySpread: Number.NaN }, 'channelOptions.delaySpread');
  refused('tdl-b', { sinusoids: 0 }, 'channelOptions.sinusoids');
  const ok = checkChannel('tdl-d', { kFactorDb: 7, speed: 3, carrier: 28e9 }, shape, call);
  assert.equal(ok.model, 'tdl-d');
});

test('generateChannels: the grid of slots, symbols and subcarriers; time runs on across slots', () => {
  const prbs = 1 + randomInt(4),
    scs = [15e3, 30e3, 60e3, 120e3][randomInt(4)]!;
  const opts = { model: 'tdl-c' as const, channelOptions: { speed: 30 }, nt: 2, nr: 3, scs, prbs, seed };
  const two = generateChannels({ ...opts, slots: 2 });
  assert.equal(two.H.length, 2 * 14 * 12 * prbs * 2 * 6);
  assert.equal(two.subcarriers, 12 * prbs);
  // the second slot is the drop's response at the second slot's symbol times
  const gen = CHANNEL_REGISTRY['tdl-c'].cpu({ nt: 2, nr: 3 }, { speed: 30 });
  const span = { seed, stream0: 0, streamStep: 1, perStream: 1, first: 0, count: 1 };
  const grid = { scs, prbs };
  const slot1 = channelResponse(gen, { nt: 2, nr: 3 }, span, {
    times: symbolTimes(grid, 1, 1),
    freqs: subcarrierFrequencies(grid),
  });
  assert.deepEqual(two.H.subarray(two.H.length / 2), slot1, msg('slot 1'));
  // a flat model is the same matrix on every resource element of a drop
  const flat = generateChannels({ ...opts, model: 'rayleigh', channelOptions: {}, slots: 1 });
  for (let r = 1; r < 14 * 12 * prbs; r++)
    assert.deepEqual(flat.H.subarray(r * 12, r * 12 + 12), flat.H.subarray(0, 12), 'block fading');
  for (const bad of [{ scs: 20e3 }, { prbs: 274 }, { prbs: 0 }, { slots: 0 }, { nt: 0 }, { drop: -1 }])
    assert.throws(() => generateChannels({ ...opts, ...bad }), InvalidArgumentError, JSON.stringify(bad));
});

test('lattice-mimo channels: the JSON holds H[slot][symbol][subcarrier][rx][tx]; a file past one string is refused before any work', async () => {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const main = new URL('../../src/cli/main.js', import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), 'channels-'));
  try {
    const file = join(dir, 'h.json');
    const ok = spawnSync(
      process.execPath,
      [
        main,
        'channels',
        '--model',
        'tdl-a',
        '--mimo',
        '2x3',
        '--prbs',
        '1',
        '--slots',
        '2',
        '--seed',
        String(seed),
        '--json',
        file,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(ok.status, 0, ok.stderr);
    const d = JSON.parse(readFileSync(file, 'utf8'));
    const want = generateChannels({ model: 'tdl-a', nt: 2, nr: 3, scs: 30e3, prbs: 1, slots: 2, seed });
    assert.deepEqual(
      [d.H.length, d.H[0].length, d.H[0][0].length, d.H[0][0][0].length, d.H[0][0][0][0].length],
      [2, 14, 12, 3, 2],
    );
    // entry (rx 2, tx 1) of slot 1, symbol 5, subcarrier 7
    const o = 2 * (((1 * 14 + 5) * 12 + 7) * 6 + 2 + 1 * 3);
    assert.deepEqual(d.H[1][5][7][2][1], [want.H[o], want.H[o + 1]]);
    const big = spawnSync(process.execPath, [main, 'channels', '--model', 'tdl-c', '--slots', '40', '--json', file], {
      encoding: 'utf8',
    });
    assert.equal(big.status, 2);
    assert.match(big.stderr, /INVALID_ARGUMENT.*--json: 40 slot\(s\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
