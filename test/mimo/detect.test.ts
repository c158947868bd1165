/**
 * detect(): every hard detector recovers noise-free symbols; error rates ordered ML <= SIC <= MMSE
 * <= ZF; ZF BER against its closed form; soft ML against brute-force max-log and log-MAP LLRs;
 * channel grouping and per-vector noise; and typed errors for bad input. Fresh seed, printed on failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import {
  EngineUnavailableError,
  InvalidArgumentError,
  InvalidInputError,
  NodeBudgetError,
  RankDeficientError,
  UnsupportedError,
} from '../../src/core/errors.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { constellation, symbolsToBits } from '../../src/mimo/modulation.js';
import type { DetectionInput, DetectOptions, Detector, Modulation } from '../../src/mimo/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const MINE: Detector[] = ['zf', 'mmse', 'sic', 'ml', 'sphere', 'psd'];

function link(rng: Philox, vectors: number, nr: number, nt: number, mod: Modulation, snrDb: number, vpc = 1) {
  const H = rayleighChannels(rng, Math.ceil(vectors / vpc), nt, nr);
  const { indices, symbols } = randomSymbols(rng, vectors * nt, mod);
  const noiseVar = snrToNoiseVar(snrDb, 'esn0', 1);
  const clean = transmit(H, symbols, nt, nr, vpc);
  const y = addNoise(rng, clean.slice(), noiseVar);
  return { H, y, clean, indices, noiseVar };
}

function errors(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let e = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) e++;
  return e;
}

test('noise-free: every detector recovers the transmitted symbols; bits follow the symbols', () => {
  const rng = new Philox(seed, 1);
  for (const [nr, nt, mod] of [
    [4, 4, '16qam'],
    [4, 2, '64qam'],
    [2, 2, 'bpsk'],
    [3, 3, 'qpsk'],
  ] as const) {
    const l = link(rng, 200, nr, nt, mod, 30, 4);
    for (const d of MINE) {
      const r = detect(
        { nr, nt, H: l.H, y: l.clean, noiseVar: d === 'ml' ? 1e-6 : 0, vectorsPerChannel: 4 },
        { detector: d, modulation: mod },
      );
      assert.equal(errors(r.symbols, l.indices), 0, msg(`${d} ${nr}x${nt} ${mod}`));
      assert.deepEqual([...r.bits], [...symbolsToBits(r.symbols, mod)], msg(`${d} bits`));
      assert.equal(r.stats.vectors, 200);
      assert.equal(r.llr !== undefined, d === 'ml', `${d}: LLRs only from soft detectors`);
      if (d === 'sphere' || d === 'psd') assert.ok(r.stats.nodesVisited! > 0, `${d} counts nodes`);
    }
  }
});

test('error rates at 10 dB, 4x4 16-QAM: ML = sphere = PSD <= SIC <= MMSE <= ZF', () => {
  const rng = new Philox(seed, 2);
  const l = link(rng, 2000, 4, 4, '16qam', 10, 10);
  const input: DetectionInput = { nr: 4, nt: 4, H: l.H, y: l.y, noiseVar: l.noiseVar, vectorsPerChannel: 10 };
  const ser: Record<string, number> = {};
  const sym: Record<string, Int32Array> = {};
  for (const d of MINE) {
    const r = detect(input, { detector: d, modulation: '16qam' });
    sym[d] = r.symbols;
    ser[d] = errors(r.symbols, l.indices) / l.indices.length;
  }
  assert.equal(errors(sym.sphere!, sym.ml!), 0, msg('sphere = ml'));
  assert.equal(errors(sym.psd!, sym.ml!), 0, msg('psd = ml'));
  const s = JSON.stringify(ser);
  assert.ok(ser.ml! < ser.sic! && ser.sic! < ser.mmse! && ser.mmse! < ser.zf!, msg(`SER order ${s}`));
  assert.ok(ser.zf! < 0.6 && ser.ml! > 0.01, msg(`SER plausible ${s}`));
});

test('ZF BER of 2x2 QPSK matches the closed form 0.5 (1 - sqrt(g / (1 + g))), g = Es / (2 N0)', () => {
  const rng = new Philox(seed, 3);
  const vectors = 40000;
  for (const snr of [5, 10]) {
    const l = link(rng, vectors, 2, 2, 'qpsk', snr);
    const r = detect({ nr: 2, nt: 2, H: l.H, y: l.y, noiseVar: l.noiseVar }, { detector: 'zf', modulation: 'qpsk' });
    const ber = errors(r.bits, symbolsToBits(l.indices, 'qpsk')) / (vectors * 4);
    const g = 1 / (2 * l.noiseVar);
    const theory = 0.5 * (1 - Math.sqrt(g / (1 + g)));
    assert.ok(Math.abs(ber - theory) < 0.08 * theory, msg(`${snr} dB: ZF BER ${ber} vs theory ${theory}`));
  }
});

test('soft ML: max-log and log-MAP LLRs equal brute-force sums; sign agrees with the ML bits; clipping', () => {
  const rng = new Philox(seed, 4);
  for (const [n, mod] of [
    [2, 'qpsk'],
    [2, '16qam'],
    [1, '64qam'],
    [3, 'bpsk'],
  ] as const) {
    const l = link(rng, 100, n, n, mod, 3 + rng.int(12));
    const input: DetectionInput = { nr: n, nt: n, H: l.H, y: l.y, noiseVar: l.noiseVar };
    const maxlog = detect(input, { detector: 'ml', modulation: mod });
    const logmap = detect(input, { detector: 'ml', modulation: mod, soft: 'logmap' });
    const clipped = detect(input, { detector: 'ml', modulation: mod, llrClip: 2.5 });
    const c = constellation(mod),
      bps = c.bitsPerSymbol,
      M = c.size;
    for (let v = 0; v < 100; v++) {
      // Brute force over all M^n hypotheses.
      const metrics: { m: number; s: number[] }[] = [];
      for (let h = 0; h < M ** n; h++) {
        const s = Array.from({ length: n }, (_, j) => Math.floor(h / M ** j) % M);
        let d = 0;
        for (let i = 0; i < n; i++) {
          let re = l.y[2 * (v * n + i)]!,
            im = l.y[2 * (v * n + i) + 1]!;
          for (let j = 0; j < n; j++) {
            const hr = l.H[2 * (v * n * n + i + j * n)]!,
              hi = l.H[2 * (v * n * n + i + j * n) + 1]!;
            re -= hr * c.points[2 * s[j]!]! - hi * c.points[2 * s[j]! + 1]!;
            im -= hr * c.points[2 * s[j]! + 1]! + hi * c.points[2 * s[j]!]!;
          }
          d += re * re + im * im;
        }
        metrics.push({ m: d, s });
      }
      const mMin = Math.min(...metrics.map((x) => x.m));
      for (let j = 0; j < n; j++) {
        for (let b = 0; b < bps; b++) {
          let m0 = Infinity,
            m1 = Infinity,
            s0 = 0,
            s1 = 0;
          for (const { m, s } of metrics) {
            const bit = c.bitTable[s[j]! * bps + b];
            const w = Math.exp(-(m - mMin) / l.noiseVar);
            if (bit === 0) {
              m0 = Math.min(m0, m);
              s0 += w;
            } else {
              m1 = Math.min(m1, m);
              s1 += w;
            }
          }
          const k = (v * n + j) * bps + b;
          const refMax = (m1 - m0) / l.noiseVar;
          assert.ok(
            Math.abs(maxlog.llr![k]! - refMax) < 1e-7 * (1 + Math.abs(refMax)),
            msg(`${mod} v${v} s${j} b${b}: max-log ${maxlog.llr![k]} vs ${refMax}`),
          );
          if (s0 > 1e-200 && s1 > 1e-200) {
            const refExact = Math.log(s0) - Math.log(s1);
            assert.ok(
              Math.abs(logmap.llr![k]! - refExact) < 1e-6 * (1 + Math.abs(refExact)),
              msg(`${mod} v${v} s${j} b${b}: log-MAP ${logmap.llr![k]} vs ${refExact}`),
            );
          }
          if (Math.abs(refMax) > 1e-9)
            assert.equal(maxlog.llr![k]! > 0 ? 0 : 1, maxlog.bits[k], msg(`${mod}: LLR sign vs ML bit`));
          assert.ok(
            Math.abs(clipped.llr![k]!) <= 2.5 &&
              Math.abs(clipped.llr![k]! - Math.max(-2.5, Math.min(2.5, maxlog.llr![k]!))) < 1e-12,
            'clip',
          );
        }
      }
    }
  }
});

test('channel groups and per-vector noise: same result as one call per vector', () => {
  const rng = new Philox(seed, 5);
  const vpc = 5,
    vectors = 40,
    nr = 3,
    nt = 2;
  const l = link(rng, vectors, nr, nt, '16qam', 8, vpc);
  const noise = new Float64Array(vectors);
  for (let v = 0; v < vectors; v++) noise[v] = l.noiseVar * (0.5 + rng.uniform());
  for (const d of ['mmse', 'sic', 'ml', 'sphere', 'psd'] as const) {
    const all = detect(
      { nr, nt, H: l.H, y: l.y, noiseVar: noise, vectorsPerChannel: vpc },
      { detector: d, modulation: '16qam' },
    );
    for (let v = 0; v < vectors; v++) {
      const c = Math.floor(v / vpc);
      const one = detect(
        {
          nr,
          nt,
          H: l.H.slice(2 * c * nr * nt, 2 * (c + 1) * nr * nt),
          y: l.y.slice(2 * v * nr, 2 * (v + 1) * nr),
          noiseVar: noise[v]!,
        },
        { detector: d, modulation: '16qam' },
      );
      assert.deepEqual([...one.symbols], [...all.symbols.subarray(v * nt, (v + 1) * nt)], msg(`${d} vector ${v}`));
      if (one.llr)
        assert.deepEqual(
          [...one.llr],
          [...all.llr!.subarray(v * nt * 4, (v + 1) * nt * 4)],
          msg(`${d} LLRs of vector ${v}`),
        );
    }
  }
});

test('bad input gets typed errors that name the problem', () => {
  const rng = new Philox(seed, 6);
  const l = link(rng, 4, 2, 2, 'qpsk', 10);
  const ok: DetectionInput = { nr: 2, nt: 2, H: l.H, y: l.y, noiseVar: l.noiseVar };
  const opts = { detector: 'sphere', modulation: 'qpsk' } as const;
  const nanH = l.H.slice();
  nanH[3] = NaN;
  const infY = l.y.slice();
  infY[0] = Infinity;
  const cases: [string, () => unknown, (e: unknown) => boolean][] = [
    [
      'NaN in H',
      () => detect({ ...ok, H: nanH }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'NON_FINITE' && /H/.test(e.message),
    ],
    [
      'Inf in y',
      () => detect({ ...ok, y: infY }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'NON_FINITE' && /y/.test(e.message),
    ],
    [
      'negative noise',
      () => detect({ ...ok, noiseVar: -1 }, opts),
      (e) => e instanceof InvalidArgumentError && /noiseVar/.test(e.message),
    ],
    [
      'NaN noise',
      () => detect({ ...ok, noiseVar: NaN }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'NON_FINITE',
    ],
    [
      'zero noise for soft ML',
      () => detect({ ...ok, noiseVar: 0 }, { detector: 'ml', modulation: 'qpsk' }),
      (e) => e instanceof InvalidArgumentError && /soft/.test(e.message),
    ],
    [
      'noise array length',
      () => detect({ ...ok, noiseVar: new Float64Array(3).fill(0.1) }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
    ],
    [
      'H length',
      () => detect({ ...ok, H: l.H.subarray(1) }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH' && /H/.test(e.message),
    ],
    [
      'y length',
      () => detect({ ...ok, y: l.y.subarray(1) }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH' && /y/.test(e.message),
    ],
    ['empty y', () => detect({ ...ok, y: new Float64Array(0) }, opts), (e) => e instanceof InvalidInputError],
    [
      'vectorsPerChannel mismatch',
      () => detect({ ...ok, vectorsPerChannel: 2 }, opts),
      (e) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
    ],
    ['nt = 0', () => detect({ ...ok, nt: 0 }, opts), (e) => e instanceof InvalidArgumentError && /nt/.test(e.message)],
    [
      'unknown detector',
      () => detect(ok, { detector: 'magic' as Detector, modulation: 'qpsk' }),
      (e) => e instanceof InvalidArgumentError && /detector/.test(e.message),
    ],
    [
      'unknown modulation',
      () => detect(ok, { detector: 'zf', modulation: '32qam' as Modulation }),
      (e) => e instanceof InvalidArgumentError && /modulation/.test(e.message),
    ],
    [
      'bad llrClip',
      () => detect(ok, { detector: 'ml', modulation: 'qpsk', llrClip: -1 }),
      (e) => e instanceof InvalidArgumentError,
    ],
    [
      'gpuBatch not an object',
      () => detect(ok, { ...opts, gpuBatch: 3 as unknown as DetectOptions['gpuBatch'] }),
      (e) => e instanceof InvalidArgumentError && /gpuBatch must be an object/.test(e.message),
    ],
    [
      'gpuBatch.streams too many',
      () => detect(ok, { ...opts, gpuBatch: { streams: 4 } }),
      (e) => e instanceof InvalidArgumentError && /gpuBatch\.streams/.test(e.message),
    ],
    [
      'bad initial radius',
      () => detect(ok, { detector: 'sphere', modulation: 'qpsk', initialRadius: 'zero' as 'babai' }),
      (e) => e instanceof InvalidArgumentError,
    ],
    [
      'cuda engine from the synchronous detect()',
      () => detect(ok, { ...opts, engine: 'cuda' }),
      (e) => e instanceof EngineUnavailableError && e.details?.cause === 'synchronous-call',
    ],
    [
      'ML too large',
      () =>
        detect(
          { nr: 8, nt: 8, H: new Float64Array(128).fill(1), y: new Float64Array(16), noiseVar: 1 },
          { detector: 'ml', modulation: '16qam' },
        ),
      (e) => e instanceof NodeBudgetError && e.code === 'NODE_BUDGET' && /maxNodes = 16777216/.test(e.message),
    ],
    [
      'sphere nr < nt',
      () => detect({ nr: 1, nt: 2, H: new Float64Array(4).fill(1), y: new Float64Array(2), noiseVar: 1 }, opts),
      (e) => e instanceof UnsupportedError,
    ],
    [
      'bad PSD levels',
      () => detect(ok, { detector: 'psd', modulation: 'qpsk', psd: { levels: [5, 3, 4, 1], paths: [1, 1, 1] } }),
      (e) => e instanceof InvalidArgumentError && /levels/.test(e.message),
    ],
    [
      'bad PSD paths',
      () => detect(ok, { detector: 'psd', modulation: 'qpsk', psd: { levels: [5, 3, 1], paths: [1, 99] } }),
      (e) => e instanceof InvalidArgumentError && /paths/.test(e.message),
    ],
    [
      'zero channel',
      () => detect({ ...ok, H: new Float64Array(l.H.length) }, { detector: 'zf', modulation: 'qpsk' }),
      (e) => e instanceof RankDeficientError && /channel 0/.test(e.message),
    ],
    [
      'zero channel (sphere)',
      () => detect({ ...ok, H: new Float64Array(l.H.length) }, opts),
      (e) => e instanceof RankDeficientError,
    ],
  ];
  for (const [name, f, check] of cases) assert.throws(f, check, name);
});

test("soft: 'none' gives the same hard decisions without LLRs, for every soft detector", () => {
  const rng = new Philox(seed, 77);
  for (const detector of ['ml', 'kbest', 'ssfe', 'nway'] as Detector[]) {
    const { H, y, noiseVar } = link(rng, 300, 2, 2, '16qam', 12);
    const input: DetectionInput = { nt: 2, nr: 2, H, y, noiseVar };
    const soft = detect(input, { detector, modulation: '16qam' });
    const hard = detect(input, { detector, modulation: '16qam', soft: 'none' });
    assert.ok(soft.llr, msg(`${detector}: LLRs by default`));
    assert.equal(hard.llr, undefined, msg(`${detector}: no LLRs with soft 'none'`));
    assert.deepEqual(hard.symbols, soft.symbols, msg(`${detector}: same decisions`));
    assert.deepEqual(hard.bits, soft.bits, msg(`${detector}: same bits`));
  }
  assert.throws(
    () =>
      detect(
        { nt: 1, nr: 1, H: new Float64Array(2).fill(1), y: new Float64Array(2), noiseVar: 1 },
        { detector: 'ml', modulation: 'qpsk', soft: 'exact' as 'none' },
      ),
    { name: 'InvalidArgumentError', message: /option soft must be one of maxlog, logmap, none/ },
  );
});
