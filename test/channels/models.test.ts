/**
 * The rician and kronecker channel models (issue 29), on fresh random seeds and parameters: the
 * K-factor (entry means, scattered power, E|h|^2 = 1) and the Kronecker covariance of vec(H)
 * against R_tx^T ⊗ R_rx with complex rho, within tolerances from the sample size; the limits that
 * are rayleigh's numbers (rho = 0, K -> 0) or the line of sight (K large); a span drawn in pieces
 * equals it drawn whole; strict parameters; simulate() on the CPU (the same counts on 1 and 2
 * threads, correlation hurting mmse; the engine 'auto' takes the GPU for both where a device is, the
 * CPU for a model without a CUDA generator, where 'cuda' is refused);
 * the command line's flags, a run's JSON and its resume.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { EngineUnavailableError, InvalidArgumentError } from '../../src/core/errors.js';
import type { OptionSpec } from '../../src/core/options.js';
import {
  CHANNEL_REGISTRY,
  type ChannelModel,
  type ChannelSpan,
  checkChannel,
  exponentialCorrelation,
  losMatrix,
  registerChannelModel,
} from '../../src/channels/index.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { parseSimulateArgs, simulateHelp } from '../../src/cli/simulate.js';
import { resolveEngine, simulate } from '../../src/sim/simulate.js';
import type { SimPoint, SimulationOptions } from '../../src/sim/types.js';
import { refusedSync, unknownKey, wrongValue } from '../core/strict-options.js';

const device = cudaAvailable();
const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

/** A span of `count` channels from a fresh stream, a few streams long. */
function spanOf(count: number, s = seed): ChannelSpan {
  return { seed: s, stream0: randomInt(2 ** 30), streamStep: 4, perStream: 4096, first: randomInt(100), count };
}

/** z-scores allowed: every check below fails by chance with probability under 1e-6. */
const Z = 5.5;

test('rician: entry means are sqrt(K/(K+1)) H_LOS, the scattered power 1/(K+1), E|h|^2 = 1', () => {
  const nt = 1 + randomInt(4),
    nr = 1 + randomInt(4);
  const kDb = -5 + Math.random() * 20,
    aoa = -90 + Math.random() * 180,
    aod = -90 + Math.random() * 180;
  const what = msg(`${nt}x${nr}, K ${kDb.toFixed(2)} dB, aoa ${aoa.toFixed(1)}, aod ${aod.toFixed(1)}`);
  const N = 20_000;
  const H = CHANNEL_REGISTRY.rician.cpu({ nt, nr }, { kFactorDb: kDb, aoaDeg: aoa, aodDeg: aod }).draw(spanOf(N));
  const K = 10 ** (kDb / 10);
  const a = Math.sqrt(K / (K + 1)),
    s2 = 1 / (K + 1);
  const per = 2 * nr * nt;
  for (let i = 0; i < nr; i++)
    for (let j = 0; j < nt; j++) {
      // the line of sight written out here: a_r(aoa) a_t(aod)^H of half-wavelength arrays
      const ph = Math.PI * (i * Math.sin((aoa * Math.PI) / 180) - j * Math.sin((aod * Math.PI) / 180));
      const mr = a * Math.cos(ph),
        mi = a * Math.sin(ph);
      let sr = 0,
        si = 0,
        scatter = 0,
        power = 0;
      for (let c = 0; c < N; c++) {
        const at = c * per + 2 * (i + j * nr);
        const re = H[at]!,
          im = H[at + 1]!;
        sr += re;
        si += im;
        scatter += (re - mr) ** 2 + (im - mi) ** 2;
        power += re * re + im * im;
      }
      const sd = Math.sqrt(s2 / 2 / N);
      assert.ok(Math.abs(sr / N - mr) < Z * sd, `${what}: mean re of (${i}, ${j}) ${sr / N} vs ${mr}`);
      assert.ok(Math.abs(si / N - mi) < Z * sd, `${what}: mean im of (${i}, ${j}) ${si / N} vs ${mi}`);
      // |scatter|^2 is exponential: sd its mean; |h|^2's variance is 2 a^2 s2 + s2^2
      assert.ok(
        Math.abs(scatter / N - s2) < (Z * s2) / Math.sqrt(N),
        `${what}: scattered power ${scatter / N} vs ${s2}`,
      );
      const pSd = Math.sqrt((2 * a * a * s2 + s2 * s2) / N);
      assert.ok(Math.abs(power / N - 1) < Z * pSd, `${what}: E|h|^2 ${power / N}`);
    }
});

test("rician: K -> 0 is rayleigh's channels number for number; a large K is the line of sight", () => {
  const nt = 1 + randomInt(4),
    nr = 1 + randomInt(4);
  const span = spanOf(50);
  const rayleigh = CHANNEL_REGISTRY.rayleigh.cpu({ nt, nr }, {}).draw(span);
  assert.deepEqual(CHANNEL_REGISTRY.rician.cpu({ nt, nr }, { kFactorDb: -4000 }).draw(span), rayleigh, msg('K = 0'));
  const aoa = -90 + Math.random() * 180,
    aod = -90 + Math.random() * 180;
  const H = CHANNEL_REGISTRY.rician.cpu({ nt, nr }, { kFactorDb: 300, aoaDeg: aoa, aodDeg: aod }).draw(span);
  const L = losMatrix(nt, nr, aoa, aod);
  for (let e = 0; e < H.length; e++) assert.ok(Math.abs(H[e]! - L[e % L.length]!) < 1e-13, msg(`entry ${e}`));
  // any finite K, however large or small, draws finite channels
  for (const kFactorDb of [-1e300, 1e300])
    assert.ok(CHANNEL_REGISTRY.rician.cpu({ nt, nr }, { kFactorDb }).draw(span).every(Number.isFinite));
});

/** A fresh coefficient: |rho| < 0.95, any phase. */
const freshRho = () => {
  const m = Math.random() * 0.95,
    p = Math.random() * 2 * Math.PI;
  return { re: m * Math.cos(p), im: m * Math.sin(p) };
};

/** R_ij of the exponential model, from the polar form (|rho|^|j-i| e^{i phase (j-i)}). */
function rEntry(rho: { re: number; im: number }, i: number, j: number): [number, number] {
  const m = Math.hypot(rho.re, rho.im) ** Math.abs(j - i),
    p = Math.atan2(rho.im, rho.re) * (j - i);
  return [m * Math.cos(p), m * Math.sin(p)];
}

test('kronecker: the sample covariance of vec(H) is R_tx^T ⊗ R_rx (complex rho)', () => {
  const nt = 2 + randomInt(3),
    nr = 2 + randomInt(3);
  const rhoTx = freshRho(),
    rhoRx = freshRho();
  const what = msg(`${nt}x${nr}, rhoTx ${JSON.stringify(rhoTx)}, rhoRx ${JSON.stringify(rhoRx)}`);
  const N = 40_000;
  const H = CHANNEL_REGISTRY.kronecker.cpu({ nt, nr }, { rhoTx, rhoRx }).draw(spanOf(N));
  const n = nr * nt;
  const C = new Float64Array(2 * n * n);
  for (let c = 0; c < N; c++) {
    const v = H.subarray(2 * c * n, 2 * (c + 1) * n);
    for (let p = 0; p < n; p++)
      for (let q = 0; q < n; q++) {
        // v_p conj(v_q)
        C[2 * (p * n + q)] += v[2 * p]! * v[2 * q]! + v[2 * p + 1]! * v[2 * q + 1]!;
        C[2 * (p * n + q) + 1] += v[2 * p + 1]! * v[2 * q]! - v[2 * p]! * v[2 * q + 1]!;
      }
  }
  // each estimate's error has E|err|^2 = E|v_p|^2 E|v_q|^2 / N = 1 / N; a bound of 8 / sqrt(N) on
  // its modulus keeps each part past 5.6 standard deviations
  const tol = 8 / Math.sqrt(N);
  for (let p = 0; p < n; p++)
    for (let q = 0; q < n; q++) {
      const [i, j] = [p % nr, Math.floor(p / nr)],
        [i2, j2] = [q % nr, Math.floor(q / nr)];
      // E[H_ij conj(H_i'j')] = R_rx(i, i') R_tx(j', j)
      const [ar, ai] = rEntry(rhoRx, i, i2),
        [br, bi] = rEntry(rhoTx, j2, j);
      const wr = ar * br - ai * bi,
        wi = ar * bi + ai * br;
      const gr = C[2 * (p * n + q)]! / N,
        gi = C[2 * (p * n + q) + 1]! / N;
      assert.ok(Math.hypot(gr - wr, gi - wi) < tol, `${what}: entry (${p}, ${q}) ${gr} ${gi} vs ${wr} ${wi}`);
    }
});

/** A fresh Hermitian positive definite n x n matrix A A^H / n + I / 2, as { re, im } rows. */
function freshMatrix(n: number): { re: number[][]; im: number[][] } {
  const A = Array.from({ length: n }, () =>
    Array.from({ length: n }, () => [Math.random() - 0.5, Math.random() - 0.5]),
  );
  const re: number[][] = [],
    im: number[][] = [];
  for (let i = 0; i < n; i++) {
    re.push([]);
    im.push([]);
    for (let j = 0; j < n; j++) {
      let r = i === j ? 0.5 : 0,
        m = 0;
      for (let k = 0; k < n; k++) {
        const [ar, ai] = A[i]![k]!,
          [br, bi] = A[j]![k]!;
        r += (ar * br + ai * bi) / n;
        m += (ai * br - ar * bi) / n;
      }
      re[i]!.push(r);
      im[i]!.push(i === j ? 0 : m);
    }
  }
  return { re, im };
}

test('kronecker, given matrices: the sample covariance of vec(H) is R_tx^T ⊗ R_rx; the exponential matrix given is rho', () => {
  const nt = 2 + randomInt(3),
    nr = 2 + randomInt(3);
  const Rtx = freshMatrix(nt),
    Rrx = freshMatrix(nr);
  const what = msg(`${nt}x${nr}, Rtx ${JSON.stringify(Rtx)}, Rrx ${JSON.stringify(Rrx)}`);
  checkChannel('kronecker', { Rtx, Rrx }, { nt, nr }, 't()');
  const N = 40_000;
  const H = CHANNEL_REGISTRY.kronecker.cpu({ nt, nr }, { Rtx, Rrx }).draw(spanOf(N));
  const n = nr * nt;
  for (let p = 0; p < n; p++)
    for (let q = 0; q < n; q++) {
      const [i, j] = [p % nr, Math.floor(p / nr)],
        [i2, j2] = [q % nr, Math.floor(q / nr)];
      let gr = 0,
        gi = 0;
      for (let c = 0; c < N; c++) {
        const v = 2 * c * n;
        gr += H[v + 2 * p]! * H[v + 2 * q]! + H[v + 2 * p + 1]! * H[v + 2 * q + 1]!;
        gi += H[v + 2 * p + 1]! * H[v + 2 * q]! - H[v + 2 * p]! * H[v + 2 * q + 1]!;
      }
      const ar = Rrx.re[i]![i2]!,
        ai = Rrx.im[i]![i2]!,
        br = Rtx.re[j2]![j]!,
        bi = Rtx.im[j2]![j]!;
      const wr = ar * br - ai * bi,
        wi = ar * bi + ai * br;
      // E|err|^2 = E|v_p|^2 E|v_q|^2 / N
      const tol = 8 * Math.sqrt((Rrx.re[i]![i]! * Rtx.re[j]![j]! * Rrx.re[i2]![i2]! * Rtx.re[j2]![j2]!) / N);
      assert.ok(Math.hypot(gr / N - wr, gi / N - wi) < tol, `${what}: entry (${p}, ${q})`);
    }
  const rho = freshRho();
  const E = exponentialCorrelation(nt, rho);
  const rows = (part: number) =>
    Array.from({ length: nt }, (_, i) => Array.from({ length: nt }, (_, j) => E[2 * (i * nt + j) + part]!));
  const span = spanOf(20);
  assert.deepEqual(
    CHANNEL_REGISTRY.kronecker.cpu({ nt, nr }, { Rtx: { re: rows(0), im: rows(1) } }).draw(span),
    CHANNEL_REGISTRY.kronecker.cpu({ nt, nr }, { rhoTx: rho }).draw(span),
    msg('the exponential matrix given'),
  );
});

test('kronecker, given matrices: the wrong size, not Hermitian, not positive definite, or with rho are refused naming the matrix', () => {
  const shape = { nt: 2, nr: 3 };
  const I2 = {
    re: [
      [1, 0],
      [0, 1],
    ],
  };
  refusedSync(() => checkChannel('kronecker', { Rrx: I2 }, shape, 't()'), 'channelOptions.Rrx', 'size');
  refusedSync(
    () =>
      checkChannel(
        'kronecker',
        {
          Rtx: {
            re: [
              [1, 0.5],
              [0.4, 1],
            ],
          },
        },
        shape,
        't()',
      ),
    'channelOptions.Rtx',
    'symmetric',
  );
  refusedSync(
    () =>
      checkChannel(
        'kronecker',
        {
          Rtx: {
            re: [
              [1, 0],
              [0, 1],
            ],
            im: [
              [0, 0.5],
              [0.5, 0],
            ],
          },
        },
        shape,
        't()',
      ),
    'channelOptions.Rtx',
    'Hermitian',
  );
  refusedSync(
    () =>
      checkChannel(
        'kronecker',
        {
          Rtx: {
            re: [
              [1, 2],
              [2, 1],
            ],
          },
        },
        shape,
        't()',
      ),
    'channelOptions.Rtx',
    'definite',
  );
  refusedSync(() => checkChannel('kronecker', { Rtx: I2, rhoTx: 0.5 }, shape, 't()'), 'channelOptions.Rtx', 'both');
  for (const bad of [
    { re: [[1, 0]] },
    { re: [[1]], im: [[0], [0]] },
    { re: [[Number.NaN]] },
    { re: [[1]], x: 1 },
    [[1]],
  ])
    refusedSync(() => checkChannel('kronecker', { Rtx: bad }, { nt: 1, nr: 1 }, 't()'), 'channelOptions.Rtx');
  assert.deepEqual(checkChannel('kronecker', { Rtx: I2, rhoRx: 0.5 }, shape, 't()').params, { Rtx: I2, rhoRx: 0.5 });
});

test("kronecker: rho = 0 on both sides is rayleigh's channels number for number", () => {
  const nt = 1 + randomInt(4),
    nr = 1 + randomInt(4);
  const span = spanOf(1 + randomInt(60));
  const rayleigh = CHANNEL_REGISTRY.rayleigh.cpu({ nt, nr }, {}).draw(span);
  for (const p of [{}, { rhoTx: 0, rhoRx: { re: 0, im: 0 } }])
    assert.deepEqual(CHANNEL_REGISTRY.kronecker.cpu({ nt, nr }, p).draw(span), rayleigh, msg(JSON.stringify(p)));
});

test('rician and kronecker: a span drawn in two pieces equals it drawn whole', () => {
  fc.assert(
    fc.property(
      fc.record({
        seed: fc.integer({ min: 0, max: 2 ** 40 }),
        stream0: fc.integer({ min: 0, max: 2 ** 32 }),
        perStream: fc.integer({ min: 1, max: 9 }),
        first: fc.integer({ min: 0, max: 30 }),
        count: fc.integer({ min: 0, max: 30 }),
        cut: fc.double({ min: 0, max: 1, noNaN: true }),
        nt: fc.integer({ min: 1, max: 4 }),
        nr: fc.integer({ min: 1, max: 4 }),
        kFactorDb: fc.double({ min: -30, max: 30, noNaN: true }),
        rho: fc.tuple(fc.double({ min: 0, max: 0.99, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true })),
      }),
      fc.constantFrom('rician', 'kronecker'),
      (s, model) => {
        const params =
          model === 'rician'
            ? { kFactorDb: s.kFactorDb }
            : { rhoRx: s.rho[0], rhoTx: { re: s.rho[0] * Math.cos(s.rho[1]), im: s.rho[0] * Math.sin(s.rho[1]) } };
        const g = CHANNEL_REGISTRY[model].cpu({ nt: s.nt, nr: s.nr }, params);
        const span = { seed: s.seed, stream0: s.stream0, streamStep: 4, perStream: s.perStream, first: s.first };
        const whole = g.draw({ ...span, count: s.count });
        const k = Math.floor(s.cut * s.count);
        const a = g.draw({ ...span, count: k }),
          b = g.draw({ ...span, first: s.first + k, count: s.count - k });
        assert.deepEqual(Float64Array.from([...a, ...b]), whole);
      },
    ),
    { numRuns: 100 },
  );
});

test('parameters: unknown keys, wrong types, |rho| >= 1, a non-finite K, angles past 90 degrees are refused naming the option', () => {
  const shape = { nt: 2, nr: 2 };
  for (const model of ['rician', 'kronecker'] as const) {
    const schema = CHANNEL_REGISTRY[model].options;
    fc.assert(
      fc.property(unknownKey(schema), (key) => {
        const owned = ['rician', 'kronecker'].some((m) => Object.hasOwn(CHANNEL_REGISTRY[m as 'rician'].options, key));
        if (!owned) refusedSync(() => checkChannel(model, { [key]: 1 }, shape, 't()'), `channelOptions.${key}`, key);
      }),
      { numRuns: 40 },
    );
    for (const [key, spec] of Object.entries(schema) as [string, OptionSpec][])
      fc.assert(
        fc.property(wrongValue(spec), (bad) => {
          refusedSync(() => checkChannel(model, { [key]: bad }, shape, 't()'), `channelOptions.${key}`, String(bad));
        }),
        { numRuns: 30 },
      );
  }
  for (const bad of [1, -1, 1.5, { re: 0.6, im: 0.8 }, { re: 0, im: -1 }, { re: 0.1 }, { re: 0.1, im: 0, x: 0 }])
    for (const key of ['rhoTx', 'rhoRx'])
      refusedSync(() => checkChannel('kronecker', { [key]: bad }, shape, 't()'), `channelOptions.${key}`);
  for (const bad of [Number.NaN, Infinity, -Infinity, '6'])
    refusedSync(() => checkChannel('rician', { kFactorDb: bad }, shape, 't()'), 'channelOptions.kFactorDb');
  for (const bad of [90.5, -91])
    refusedSync(() => checkChannel('rician', { aoaDeg: bad }, shape, 't()'), 'channelOptions.aoaDeg');
  // another model's parameter is refused as such
  assert.throws(
    () => checkChannel('rician', { rhoTx: 0.5 }, shape, 't()'),
    (e: unknown) =>
      e instanceof InvalidArgumentError && /a parameter of kronecker, tdl-[a-z0-9-, ]*, not of rician/.test(e.message),
  );
  // what is taken is kept as given
  assert.deepEqual(checkChannel('kronecker', { rhoTx: { re: 0.3, im: -0.4 } }, shape, 't()').params, {
    rhoTx: { re: 0.3, im: -0.4 },
  });
});

/** A short CPU run of the model. */
function run(channel: 'rician' | 'kronecker' | 'rayleigh', more: Partial<SimulationOptions> = {}): SimulationOptions {
  return {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
    snrs: [6, 12],
    maxVectors: 384,
    unitVectors: 64,
    seed,
    threads: 1,
    engine: 'cpu',
    channel,
    ...more,
  };
}

const counts = (ps: readonly SimPoint[]) =>
  ps.map((p) => [p.detector, p.snrIndex, p.bitErrors, p.symbolErrors, p.frameErrors, p.vectors]);

test("simulate(): each model on the CPU, the same counts on 1 and 2 threads; auto takes the GPU where a device is, a model without a CUDA generator the CPU, and 'cuda' refuses that one", async () => {
  for (const [channel, channelOptions] of [
    ['rician', { kFactorDb: 3, aoaDeg: 20 }],
    ['kronecker', { rhoTx: 0.5, rhoRx: freshRho() }],
  ] as const) {
    const one = await simulate(run(channel, { channelOptions }));
    const two = await simulate(run(channel, { channelOptions, threads: 2 }));
    assert.equal(one.channel, channel);
    assert.deepEqual(one.channelOptions, channelOptions);
    assert.deepEqual(counts(two.points), counts(one.points), msg(channel));
    const decision = await resolveEngine('auto', [{ detector: 'zf' }], { channel });
    if (device.ok) assert.equal(decision.engine, 'cuda', decision.reason);
    else assert.deepEqual(decision, { engine: 'cpu', reason: `auto: no CUDA device (${device.reason})` });
  }
  // a model with no CUDA generator (rician's CPU side under another name)
  const { cuda: _, ...cpuSide } = CHANNEL_REGISTRY.rician;
  const remove = registerChannelModel({ ...cpuSide, name: 'cpu-rician' });
  try {
    const channel = 'cpu-rician' as ChannelModel;
    const decision = await resolveEngine('auto', [{ detector: 'zf' }], { channel });
    assert.deepEqual(decision, {
      engine: 'cpu',
      reason: `auto: no CUDA generator of the '${channel}' channel model`,
    });
    const opts = { ...run('rician', { channelOptions: { kFactorDb: 3 } }), channel };
    const cpu = await simulate(opts);
    assert.deepEqual(
      counts(cpu.points),
      counts((await simulate(run('rician', { channelOptions: { kFactorDb: 3 } }))).points),
      msg('the same draws as rician'),
    );
    await assert.rejects(
      simulate({ ...opts, engine: 'cuda' }),
      (e: unknown) =>
        e instanceof EngineUnavailableError &&
        e.details?.cause === 'no-gpu-implementation' &&
        e.message.includes(`no CUDA generator of the '${channel}' channel model`),
    );
  } finally {
    remove();
  }
});

test('simulate(): mmse at 20 dB is worse on kronecker with rho 0.95 than on rayleigh', async () => {
  const more = { detectors: [{ detector: 'mmse' as const }], snrs: [20], maxVectors: 4096, chunkVectors: 1024 };
  const [flat] = (await simulate(run('rayleigh', more))).points;
  const [corr] = (await simulate(run('kronecker', { ...more, channelOptions: { rhoTx: 0.95, rhoRx: 0.95 } }))).points;
  // about 3e-3 (some 50 errors) against about 0.1 (some 400): five times is far inside
  assert.ok(corr!.ber > 5 * flat!.ber, msg(`BER ${corr!.ber} vs rayleigh's ${flat!.ber}`));
});

test("command line: the models take their flags, refuse the other model's and bad values naming the flag; help lists them", () => {
  const k = parseSimulateArgs(['--channel', 'kronecker', '--rho-tx', '0.5', '--rho-rx', '0.7@90']).options;
  assert.equal(k.channel, 'kronecker');
  const rx = k.channelOptions!.rhoRx as { re: number; im: number };
  assert.equal(k.channelOptions!.rhoTx, 0.5);
  assert.ok(Math.abs(rx.re) < 1e-15 && rx.im === 0.7);
  const r = parseSimulateArgs(['--channel', 'rician', '--k-factor', '6', '--aod', '-30']).options;
  assert.deepEqual(r.channelOptions, { kFactorDb: 6, aodDeg: -30 });
  assert.throws(
    () => parseSimulateArgs(['--channel', 'rician', '--rho-tx', '0.5']),
    /--rho-tx does not apply: it is a parameter of kronecker, tdl-\*, not of rician/,
  );
  assert.throws(
    () => parseSimulateArgs(['--k-factor', '6']),
    /--k-factor does not apply: it is a parameter of rician, tdl-d, tdl-e, cdl-d, cdl-e, not of rayleigh/,
  );
  for (const [flag, text] of [
    ['rho-tx', '1'],
    ['rho-tx', '0.99@'],
    ['rho-rx', '1.2@10'],
    ['rho-rx', '-0.5@10'],
    ['rho-rx', '0.5@10@2'],
    ['rho-rx', 'x'],
  ])
    refusedSync(() => parseSimulateArgs(['--channel', 'kronecker', `--${flag}`, text!]), `--${flag}`, text);
  for (const text of ['inf', 'nan', '', '6dB'])
    refusedSync(() => parseSimulateArgs(['--channel', 'rician', '--k-factor', text]), '--k-factor', text);
  const help = simulateHelp().replace(/\s+/g, ' ');
  for (const flag of [
    '--k-factor DB rician, tdl-d, tdl-e, cdl-d, cdl-e only',
    '--aoa DEG',
    '--rho-tx R kronecker, tdl-* only',
    '--rho-rx R',
  ])
    assert.ok(help.includes(flag), flag);
});

test('command line: a run of each model writes its channel and parameters; its resume computes the rest as a whole run does', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'channels-'));
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [MAIN, 'simulate', ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r;
  };
  const base = [
    '--mimo',
    '2x2',
    '--detector',
    'zf,mmse',
    '--max-vectors',
    '256',
    '--threads',
    '1',
    '--seed',
    `${seed}`,
  ];
  try {
    for (const [flags, channelOptions] of [
      [['--channel', 'rician', '--k-factor', '6'], { kFactorDb: 6 }],
      [['--channel', 'kronecker', '--rho-tx', '0.5', '--rho-rx', '0.7@0'], { rhoTx: 0.5, rhoRx: { re: 0.7, im: 0 } }],
    ] as const) {
      const file = join(dir, 'run.json');
      // a run stopped after two SNR values, then resumed
      const first = cli([...base, ...flags, '--snr', '4,8', '--json', file]);
      // auto: the GPU where a device is (both models have a CUDA generator), else the CPU
      assert.match(first.stderr, device.ok ? /engine cuda \(auto: / : /engine cpu \(auto: no CUDA device/);
      const cut = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(cut.channel, flags[1]);
      assert.deepEqual(cut.channelOptions, channelOptions);
      cut.snrs = [4, 8, 12];
      writeFileSync(file, JSON.stringify(cut));
      assert.match(cli(['--resume', file]).stderr, /holds 4 points/);
      const done = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(done.channel, flags[1]);
      assert.deepEqual(done.channelOptions, channelOptions);
      // the whole run, as the command line sets it up
      const whole = await simulate({ ...parseSimulateArgs([...base, ...flags, '--snr', '4,8,12']).options });
      assert.deepEqual(counts(done.points), counts(whole.points), msg(flags[1]));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
