/**
 * The coded link of simulate(): noiseless frames decode without error (every frame layout, padded
 * or not), the n = 2304 waterfall over BPSK / AWGN, the code rate in Eb/N0, determinism for a seed
 * whatever the threads, frame errors as the stop rule, coded below uncoded, and the typed errors.
 * Every test draws a fresh seed and prints it on failure.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { EngineUnavailableError, InvalidArgumentError, type LatticeMimoError } from '../../src/core/errors.js';
import { simulate } from '../../src/sim/simulate.js';
import { generateLinkChunk } from '../../src/sim/link.js';
import { codeOf, vectorsPerFrame } from '../../src/sim/coded.js';
import { cudaAvailable } from '../../src/gpu/context.js';
import { parseSimulateArgs, resumeOptions } from '../../src/cli/simulate.js';
import { resultToJson } from '../../src/sim/output.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { SimPoint, SimulationOptions } from '../../src/sim/types.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

function counts(p: SimPoint) {
  const { timeMs: _t, ...rest } = p;
  return rest;
}

test('noiseless coded frames decode without error, padded layouts included', async () => {
  // (nt, modulation, code): exact fits and frames whose last vector carries pad bits
  const cases: [number, SimulationOptions['modulation'], string][] = [
    [2, 'qpsk', 'wimax:576'],
    [3, '16qam', `wimax:${576 + 96 * randomInt(4)}`], // 12 bits a vector: 576 + 96 j bits fill whole vectors
    [2, '16qam', `nr:bg2:${40 + randomInt(200)}:1/3`], // E = 4 ceil(3K / 4) bits: pad in the last vector unless 8 | E
    [3, '64qam', `nr:bg1:${500 + randomInt(500)}:2/3`],
  ];
  for (const [nt, modulation, code] of cases) {
    const c = codeOf(code, modulation);
    const bps = constellation(modulation).bitsPerSymbol;
    const vpf = vectorsPerFrame(c.n, nt, bps);
    const r = await simulate({
      nt,
      nr: nt,
      modulation,
      code,
      detectors: [{ detector: 'nway' }, { detector: 'kbest', k: 8 }],
      snrs: [120],
      maxFrames: 6,
      maxErrors: 1,
      threads: 1,
      seed,
      decoder: { maxIterations: 5 },
    });
    for (const p of r.points) {
      assert.equal(p.frameErrors, 0, msg(`${code} ${nt} ${modulation} ${p.detector}: frame errors`));
      assert.equal(p.bitErrors, 0, msg(`${code}: bit errors`));
      assert.equal(p.symbolErrors, 0, msg(`${code}: symbol errors`));
      assert.ok(p.frames >= 6, msg(`${code}: ${p.frames} frames`));
      assert.equal(p.vectors, p.frames * vpf);
      assert.equal(p.bits, p.frames * c.k);
      assert.equal(p.code, code);
      assert.ok(
        p.meanIterations! >= 1 && p.meanIterations! <= 2,
        msg(`${code}: ${p.meanIterations} iterations on clean LLRs`),
      );
    }
  }
});

test('a coded chunk sends the encoded information bits, frame by frame, stream-major', () => {
  const code = `nr:bg2:${40 + randomInt(300)}:1/2`;
  const nt = 2,
    nr = 2,
    modulation = '16qam' as const;
  const c = codeOf(code, modulation);
  const vpf = vectorsPerFrame(c.n, nt, 4);
  const frames = 3;
  const link = generateLinkChunk({
    nt,
    nr,
    modulation,
    vectorsPerChannel: 1,
    seed,
    snrIndex: 0,
    unitIndex: randomInt(1000),
    vectors: frames * vpf,
    noiseVar: 0,
    coded: { code, decoder: {} },
  });
  assert.equal(link.info!.length, frames * c.k);
  const bitTable = constellation(modulation).bitTable;
  for (let f = 0; f < frames; f++) {
    const sent = c.encode(link.info!.subarray(f * c.k, (f + 1) * c.k));
    for (let j = 0; j < c.n; j++) {
      const s = f * vpf * nt + Math.floor(j / 4);
      assert.equal(bitTable[link.txIndices[s]! * 4 + (j % 4)], sent[j], msg(`frame ${f} bit ${j}`));
    }
  }
  // information bits are fair coins (a stuck generator would fail this: 5 sigma)
  const ones = link.info!.reduce((a, b) => a + b, 0);
  assert.ok(
    Math.abs(ones - link.info!.length / 2) < 5 * Math.sqrt(link.info!.length / 4),
    msg(`${ones} ones of ${link.info!.length}`),
  );
});

test('n = 2304 rate 1/2 over BPSK / AWGN: the waterfall, and Eb/N0 counts the code rate', async () => {
  const r = await simulate({
    nt: 1,
    nr: 1,
    modulation: 'bpsk',
    detectors: [{ detector: 'ml' }],
    channel: 'awgn',
    code: 'wimax:2304:1/2',
    decoder: { algorithm: 'nms', maxIterations: 20 },
    snrs: [1, 2.5],
    snrType: 'ebn0',
    maxErrors: 1000,
    maxFrames: 40,
    threads: 1,
    seed,
  });
  const [low, high] = r.points as [SimPoint, SimPoint];
  assert.equal(r.codeRate, 0.5);
  assert.ok(Math.abs(low.esn0Db - (1 - 10 * Math.log10(2))) < 1e-12, msg(`Es/N0 ${low.esn0Db}`));
  assert.ok(Math.abs(low.noiseVar - 10 ** (-low.esn0Db / 10)) < 1e-12);
  assert.equal(low.frames, 40);
  assert.ok(low.fer >= 0.3, msg(`FER ${low.fer} at 1 dB`));
  assert.ok(high.fer <= 0.05, msg(`FER ${high.fer} at 2.5 dB`));
  assert.ok(high.meanIterations! < low.meanIterations!, msg('fewer iterations at the higher SNR'));
});

test('same seed, same counts with 1 and 2 threads; frame errors stop the point', async () => {
  const base: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: '16qam',
    code: 'wimax:576',
    detectors: [{ detector: 'nway' }, { detector: 'ssfe' }],
    snrs: [1, 4],
    snrType: 'ebn0',
    maxErrors: 5,
    maxFrames: 60,
    unitVectors: 2 * 72,
    seed,
    decoder: { maxIterations: 10 },
  };
  const one = await simulate({ ...base, threads: 1 });
  const two = await simulate({ ...base, threads: 2 });
  assert.deepEqual(two.points.map(counts), one.points.map(counts), msg('1 vs 2 threads'));
  const again = await simulate({ ...base, threads: 1 });
  assert.deepEqual(again.points.map(counts), one.points.map(counts), msg('same seed again'));
  const other = await simulate({ ...base, threads: 2, seed: seed + 1 });
  assert.notDeepEqual(other.points.map(counts), one.points.map(counts), msg('seed + 1 gave the same counts'));
  for (const p of one.points) {
    // chunks of 2 frames: stopped at the first chunk reaching 5 frame errors, or at 60 frames
    if (p.stoppedBy === 'errors')
      assert.ok(p.frameErrors >= 5 && p.frameErrors - 2 < 5, msg(`${p.detector}: ${p.frameErrors} frame errors`));
    else assert.equal(p.frames, 60, msg(`${p.detector}: ${p.frames} frames`));
    assert.equal(p.frames % 2, 0);
  }
  assert.equal(one.points[0]!.stoppedBy, 'errors', msg('FER near 1 at 1 dB'));
});

test('4x4 16-QAM nway: coded FER and BER below uncoded at the same Eb/N0', async () => {
  // 6 or 7 dB: the uncoded FER well above 0.02 (at 8 dB it is about 0.02 itself)
  const ebn0 = 6 + randomInt(2);
  const common = {
    nt: 4,
    nr: 4,
    modulation: '16qam' as const,
    detectors: [{ detector: 'nway' as const }],
    snrs: [ebn0],
    snrType: 'ebn0' as const,
    threads: 2,
    seed,
  };
  const coded = await simulate({ ...common, code: 'wimax:2304:1/2', maxFrames: 21, maxErrors: 1000 });
  const uncoded = await simulate({ ...common, maxVectors: 21 * 144, maxErrors: 1e9 });
  const c = coded.points[0]!,
    u = uncoded.points[0]!;
  assert.ok(u.fer > 0.02, msg(`uncoded FER ${u.fer} at ${ebn0} dB`));
  assert.ok(c.fer < u.fer, msg(`coded FER ${c.fer} vs uncoded ${u.fer} at ${ebn0} dB`));
  assert.ok(c.ber < u.ber, msg(`coded BER ${c.ber} vs uncoded ${u.ber}`));
  // the same Eb/N0 is 3 dB less Es/N0 with the rate-1/2 code (more noise per symbol)
  assert.ok(Math.abs(c.esn0Db - (u.esn0Db - 10 * Math.log10(2))) < 1e-9);
});

test('typed errors: hard detector, unknown code, K outside 38.212, frames that do not fit, engines', async () => {
  const base: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'nway' }],
    snrs: [0],
    code: 'wimax:576',
    maxFrames: 1,
    threads: 1,
    seed,
  };
  const bad: [Partial<SimulationOptions>, RegExp, abstract new (...args: never[]) => LatticeMimoError][] = [
    [{ detectors: [{ detector: 'mmse' }] }, /soft detectors.*'mmse'/, InvalidArgumentError],
    [{ detectors: [{ detector: 'ml', soft: 'none' }] }, /needs LLRs/, InvalidArgumentError],
    [{ code: 'turbo:100' }, /unknown code 'turbo:100'/, InvalidArgumentError],
    [{ code: 'wimax:600' }, /600/, InvalidArgumentError],
    [{ code: `nr:bg1:${8449 + randomInt(1000)}:1/3` }, /outside 1 \.\. 8448/, InvalidArgumentError],
    [{ code: 'nr:bg2:1000:0.97' }, /rate|0\.97/, InvalidArgumentError],
    [{ unitVectors: 100 }, /whole frames.*multiple of 144/, InvalidArgumentError],
    [
      { unitVectors: 144, chunkVectors: 144 * 3 + 72 },
      /whole units: a multiple of unitVectors \(144\)/,
      InvalidArgumentError,
    ],
    [
      { vectorsPerChannel: 5, unitVectors: (144 * 5) / 2 },
      /whole frames and channel groups: a multiple of 720/,
      InvalidArgumentError,
    ],
    [{ code: undefined, decoder: { maxIterations: 5 } }, /decoder options need a code/, InvalidArgumentError],
    [{ code: undefined, maxFrames: 5 }, /maxFrames needs a code/, InvalidArgumentError],
    [{ decoder: { algorithm: 'bp' as never } }, /bp/, InvalidArgumentError],
    [{ channel: 'awgn', nr: 1 }, /nr >= nt/, InvalidArgumentError],
    [{ channel: 'no-such-model' as never }, /channel must be/, InvalidArgumentError],
  ];
  for (const [o, re, cls] of bad) {
    await assert.rejects(
      simulate({ ...base, ...o }),
      (e: unknown) => e instanceof cls && re.test((e as Error).message),
      `${JSON.stringify(o)}`,
    );
  }
  // without a device, engine cuda is unavailable; auto runs a coded link on the CPU engine
  if (!cudaAvailable().ok) await assert.rejects(simulate({ ...base, engine: 'cuda' }), EngineUnavailableError);
  else
    await assert.rejects(
      simulate({ ...base, engine: 'cuda', decoder: { algorithm: 'nms', saturation: 5000 } }),
      /cannot decode this run/,
    );
  // auto runs a coded link on the device where there is one (the whole link on the GPU), else on the CPU
  const r = await simulate({ ...base, engine: 'auto' });
  assert.equal(r.engine, cudaAvailable().ok ? 'cuda' : 'cpu');
});

test('CLI: --code, --decoder, --iterations, --channel, --max-frames', () => {
  const it = 1 + randomInt(50);
  const { options } = parseSimulateArgs([
    '--code',
    'wimax:2304:1/2',
    '--decoder',
    'oms',
    '--iterations',
    String(it),
    '--channel',
    'awgn',
    '--mimo',
    '2x2',
    '--detector',
    'nway,kbest:16',
    '--max-frames',
    '7',
    '--llr-clip',
    '8',
  ]);
  assert.equal(options.code, 'wimax:2304:1/2');
  assert.deepEqual(options.decoder, { algorithm: 'oms', maxIterations: it });
  assert.equal(options.channel, 'awgn');
  assert.equal(options.maxFrames, 7);
  assert.deepEqual(
    options.detectors.map((d) => d.llrClip),
    [8, 8],
  );
  for (const argv of [
    ['--code', 'wimax:2304', '--detector', 'zf'],
    ['--code', 'wimax:2304', '--decoder', 'bp'],
    ['--code', 'nr:bg2:5000:1/3'],
    ['--iterations', '5'],
    ['--decoder', 'nms'],
    ['--max-frames', '5'],
    ['--llr-clip', '8'],
    ['--channel', 'no-such-model'],
    ['--arithmetic', 'int8'],
    ['--code', 'wimax:2304', '--arithmetic', 'int4'],
  ]) {
    assert.throws(() => parseSimulateArgs(argv), InvalidArgumentError, argv.join(' '));
  }
});

test("CLI: --arithmetic reaches the decoder; int16 gives the float decoder's counts", async () => {
  const arithmetic = (['int16', 'int8'] as const)[randomInt(2)];
  const argv = ['--code', 'wimax:576', '--mimo', '2x2', '--detector', 'mmse-pic', '--snr', '2,4', '--snr-type', 'ebn0'];
  const { options } = parseSimulateArgs([...argv, '--arithmetic', arithmetic]);
  assert.deepEqual(options.decoder, { algorithm: 'nms', maxIterations: 20, arithmetic });
  const run = (o: SimulationOptions) =>
    simulate({ ...o, maxErrors: 1e9, maxFrames: 64, threads: 1, seed, engine: 'cpu' });
  const float = await run(parseSimulateArgs(argv).options);
  const int16 = await run(parseSimulateArgs([...argv, '--arithmetic', 'int16']).options);
  assert.deepEqual(
    int16.points.map((p) => [p.bitErrors, p.frameErrors, p.meanIterations]),
    float.points.map((p) => [p.bitErrors, p.frameErrors, p.meanIterations]),
    `seed ${seed}`,
  );
});

test('a coded run resumes from its JSON: settings and finished points', async () => {
  const opts: SimulationOptions = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    code: 'wimax:576',
    decoder: { algorithm: 'oms', maxIterations: 8 },
    channel: 'awgn',
    detectors: [{ detector: 'kbest', k: 4 }],
    snrs: [0, 2],
    snrType: 'ebn0',
    maxErrors: 3,
    maxFrames: 8,
    threads: 1,
    seed,
  };
  const full = await simulate(opts);
  const firstOnly = { ...full, points: full.points.filter((p) => p.snrIndex === 0) };
  const resumed = resumeOptions(resultToJson(firstOnly), 'run.json');
  assert.equal(resumed.code, 'wimax:576');
  assert.deepEqual(resumed.decoder, { algorithm: 'oms', maxIterations: 8 });
  assert.equal(resumed.channel, 'awgn');
  assert.equal(resumed.maxFrames, 8);
  const again = await simulate({ ...resumed, threads: 1 });
  assert.deepEqual(again.points.map(counts), full.points.map(counts), msg('resumed run'));
  assert.equal(again.codeRate, 0.5);
});
