/**
 * The OFDM link on fresh seeds: a slot's vectors are its data resource elements with the model's
 * response as their channel (perfect CSI), the received vectors H s plus noise of the point's
 * variance; an LS estimate of a block-faded channel at vanishing noise is the channel; estimation
 * costs errors (perfect CSI beats LS at the same SNR); the same counts on 1 and 2 threads; coded
 * slots hold whole frames; strict options; the command line's flags and a resumed run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineUnavailableError, InvalidArgumentError } from '../../src/core/errors.js';
import {
  CHANNEL_REGISTRY,
  channelResponse,
  dmrsConfig,
  subcarrierFrequencies,
  symbolTimes,
} from '../../src/channels/index.js';
import { randomSymbols } from '../../src/mimo/index.js';
import { Philox } from '../../src/core/rng.js';
import { unitStream, generateLinkChunk, STREAM_PURPOSE } from '../../src/sim/link.js';
import { parseSimulateArgs } from '../../src/cli/simulate.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions } from '../../src/sim/types.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

test('ofdm link: vectors are the data resource elements, their channel the response, y = H s + noise', () => {
  const nt = 1 + randomInt(4),
    nr = nt + randomInt(2);
  const prbs = 1 + randomInt(3),
    scs = 30e3,
    dmrsAdditional = randomInt(4);
  const config = dmrsConfig({ scs, prbs, layers: nt, additionalPosition: dmrsAdditional });
  const K = 12 * prbs;
  const vectors = config.dataSymbols.length * K;
  const noiseVar = 0.05 + Math.random() * 0.2;
  const spec = {
    nt,
    nr,
    modulation: 'qpsk' as const,
    vectorsPerChannel: 1,
    seed,
    snrIndex: randomInt(4),
    unitIndex: randomInt(40),
    vectors,
    noiseVar,
    channel: 'tdl-c' as const,
    channelOptions: { speed: 30 },
    ofdm: { scs, prbs, csi: 'perfect' as const, dmrsAdditional },
  };
  const link = generateLinkChunk(spec);
  assert.equal(link.noiseVar, noiseVar, 'perfect CSI: the channel noise variance');
  const shape = { nt, nr };
  const grid = { scs, prbs };
  const H = channelResponse(
    CHANNEL_REGISTRY['tdl-c'].cpu(shape, { speed: 30 }),
    shape,
    {
      seed,
      stream0: unitStream(spec.snrIndex, spec.unitIndex, STREAM_PURPOSE.channels),
      streamStep: 1,
      perStream: 1,
      first: 0,
      count: 1,
    },
    { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) },
  );
  const E = nr * nt;
  const { symbols } = randomSymbols(
    new Philox(seed, unitStream(spec.snrIndex, spec.unitIndex, STREAM_PURPOSE.symbols)),
    vectors * nt,
    'qpsk',
  );
  let v = 0,
    noise = 0;
  for (const l of config.dataSymbols)
    for (let k = 0; k < K; k++, v++) {
      const at = (l * K + k) * E;
      assert.deepEqual(
        link.H.subarray(2 * v * E, 2 * (v + 1) * E),
        H.subarray(2 * at, 2 * (at + E)),
        msg(`RE ${l},${k}`),
      );
      for (let i = 0; i < nr; i++) {
        let re = 0,
          im = 0;
        for (let j = 0; j < nt; j++) {
          const hr = H[2 * (at + i + j * nr)]!,
            hi = H[2 * (at + i + j * nr) + 1]!,
            sr = symbols[2 * (v * nt + j)]!,
            si = symbols[2 * (v * nt + j) + 1]!;
          re += hr * sr - hi * si;
          im += hr * si + hi * sr;
        }
        noise += (link.y[2 * (v * nr + i)]! - re) ** 2 + (link.y[2 * (v * nr + i) + 1]! - im) ** 2;
      }
    }
  const n = vectors * nr;
  const mean = noise / n;
  // |w|^2 has mean N0 and variance N0^2: a 6 sigma bound
  assert.ok(Math.abs(mean - noiseVar) < (6 * noiseVar) / Math.sqrt(n), msg(`noise ${mean} vs ${noiseVar}`));
});

test('ofdm link: LS and LMMSE estimates of a block-faded channel at vanishing noise are the channel', () => {
  const nt = 1 + randomInt(4),
    nr = nt + randomInt(2),
    prbs = 1 + randomInt(4);
  for (const csi of ['ls', 'lmmse'] as const) {
    const spec = {
      nt,
      nr,
      modulation: '16qam' as const,
      vectorsPerChannel: 1,
      seed,
      snrIndex: 0,
      unitIndex: randomInt(100),
      vectors: 12 * prbs * 11,
      noiseVar: 1e-12,
      ofdm: { scs: 15e3, prbs, csi, dmrsAdditional: 2 },
    };
    const est = generateLinkChunk(spec);
    const truth = generateLinkChunk({ ...spec, ofdm: { ...spec.ofdm, csi: 'perfect' } });
    let err = 0;
    for (let i = 0; i < est.H.length; i++) err = Math.max(err, Math.abs(est.H[i]! - truth.H[i]!));
    assert.ok(err < 1e-4, msg(`${csi} ${nt}x${nr}: max error ${err}`));
    assert.ok(est.noiseVar! < 1e-6, msg(`${csi}: detectors' noise variance ${est.noiseVar}`));
    assert.deepEqual(est.y, truth.y, 'the same received vectors');
  }
});

const base = (): SimulationOptions => ({
  nt: 2,
  nr: 2,
  modulation: 'qpsk',
  detectors: [{ detector: 'mmse' }],
  snrs: [8],
  channel: 'tdl-a',
  channelOptions: { speed: 20 },
  ofdm: { scs: 30e3, prbs: 4 },
  maxVectors: 40_000,
  maxErrors: 1e9,
  seed,
});

test('ofdm link: estimated channels cost errors; the counts do not depend on the threads', async () => {
  const perfect = await simulate({ ...base(), threads: 1 });
  const two = await simulate({ ...base(), threads: 2 });
  assert.deepEqual(
    two.points.map(({ timeMs: _t, ...p }) => p),
    perfect.points.map(({ timeMs: _t, ...p }) => p),
    msg('threads'),
  );
  const ls = await simulate({ ...base(), ofdm: { scs: 30e3, prbs: 4, csi: 'ls' }, threads: 2 });
  const p = perfect.points[0]!,
    q = ls.points[0]!;
  assert.equal(p.vectors, q.vectors);
  // LS doubles the channel's error power at this SNR: far more than the counts' spread
  const se = Math.sqrt(p.bitErrors + q.bitErrors);
  assert.ok(q.bitErrors - p.bitErrors > 3 * se, msg(`ls ${q.bitErrors} vs perfect ${p.bitErrors} bit errors`));
  assert.deepEqual(perfect.ofdm, { scs: 30e3, prbs: 4, csi: 'perfect', dmrsAdditional: 2 });
  assert.equal(perfect.chunkVectors, 12 * 4 * 11, 'a chunk is a slot: 11 data symbols');
});

test('ofdm link: a coded slot holds whole frames', async () => {
  const r = await simulate({
    ...base(),
    nt: 1,
    nr: 2,
    detectors: [{ detector: 'kbest' }],
    code: 'wimax:576:1/2',
    ofdm: { scs: 15e3, prbs: 3, dmrsAdditional: 0 },
    maxVectors: 5000,
  });
  // 3 PRBs, 13 data symbols: 468 REs, a frame of 576 QPSK bits spans 288 vectors: one frame a slot
  assert.equal(r.chunkVectors, 288);
  assert.equal(r.points[0]!.frames, r.points[0]!.vectors / 288);
});

test('ofdm link: NR code blocks rate-matched onto the slot, decoded error-free at high SNR', async () => {
  const nt = 1 + randomInt(2),
    prbs = 2 + randomInt(4),
    dmrsAdditional = randomInt(4);
  const data = dmrsConfig({ scs: 30e3, prbs, layers: nt, additionalPosition: dmrsAdditional });
  const slot = data.dataSymbols.length * data.subcarriers;
  // one to several blocks a slot
  const K = 100 + randomInt(Math.min(600, slot * nt - 100));
  const ofdm = { scs: 30e3, prbs, dmrsAdditional };
  const r = await simulate({
    ...base(),
    nt,
    nr: nt + 1,
    modulation: 'qpsk',
    snrs: [30],
    detectors: [{ detector: 'kbest' }],
    code: `nr:bg2:${K}:1/2`,
    ofdm,
    maxVectors: 1,
  });
  // at the spec's rate 1/2, E = 2 K bits: a block spans ceil(K / nt) vectors, and the slot carries C of them
  const nominal = Math.ceil(K / nt);
  const C = Math.floor(slot / nominal);
  const E = r.rateMatchedLength!;
  assert.equal(E % (2 * nt), 0, msg(`E = ${E} fills whole resource elements of ${nt} layers`));
  const vpf = E / (2 * nt);
  assert.equal(r.chunkVectors, C * vpf, msg('a slot carries C blocks'));
  assert.ok(
    C * vpf <= slot && slot - C * vpf < C,
    msg(`${C} blocks of ${vpf} REs fill ${slot} REs but for fewer than C`),
  );
  assert.ok(E >= 2 * K, msg('rate matching onto the slot never raises the rate'));
  assert.equal(r.codeRate, K / E);
  const p = r.points[0]!;
  assert.equal(p.frames, C, msg('one slot, C frames'));
  assert.equal(p.frameErrors, 0, msg(`30 dB: every block of ${K} bits decodes (E = ${E})`));
});

test('ofdm link: strict options', async () => {
  const refused = async (o: Partial<SimulationOptions>, option: string) =>
    assert.rejects(
      simulate({ ...base(), ...o }),
      (e: unknown) =>
        e instanceof InvalidArgumentError &&
        String((e.details as { option?: string } | undefined)?.option).includes(option),
      JSON.stringify(o),
    );
  await refused({ ofdm: { scs: 20e3, prbs: 4 } }, 'scs');
  await refused({ ofdm: { scs: 30e3, prbs: 0 } }, 'prbs');
  await refused({ ofdm: { scs: 30e3, prbs: 4, csi: 'ideal' as never } }, 'ofdm.csi');
  await refused({ ofdm: { scs: 30e3, prbs: 4, dmrsAdditional: 4 } }, 'ofdm.dmrsAdditional');
  await refused({ ofdm: { scs: 30e3, prbs: 4, extra: 1 } as never }, 'ofdm.extra');
  await refused({ nt: 5, nr: 5 }, 'nt');
  await refused({ vectorsPerChannel: 2 }, 'vectorsPerChannel');
  await refused({ chunkVectors: 1000 }, 'chunkVectors');
  await refused(
    { code: 'wimax:2304:1/2', detectors: [{ detector: 'kbest' }], ofdm: { scs: 30e3, prbs: 1 } },
    'ofdm.prbs',
  );
  await assert.rejects(simulate({ ...base(), engine: 'cuda' }), EngineUnavailableError);
});

test('ofdm link: the command line flags, and a run resumed from its JSON', () => {
  const cmd = parseSimulateArgs(['--channel', 'tdl-c', '--prbs', '6', '--csi', 'lmmse', '--dmrs-additional', '1']);
  assert.deepEqual(cmd.options.ofdm, { scs: 30e3, prbs: 6, csi: 'lmmse', dmrsAdditional: 1 });
  assert.equal(parseSimulateArgs(['--mimo', '2x2']).options.ofdm, undefined, 'no OFDM flag: the flat link');
  assert.throws(() => parseSimulateArgs(['--csi', 'genie']), InvalidArgumentError);
  assert.throws(() => parseSimulateArgs(['--prbs', '274']), InvalidArgumentError);
  const dir = mkdtempSync(join(tmpdir(), 'ofdm-'));
  try {
    const json = join(dir, 'run.json');
    const args = ['--mimo', '2x2', '--channel', 'tdl-b', '--speed', '3', '--prbs', '2', '--csi', 'ls'];
    const more = [
      '--snr',
      '0,10',
      '--max-vectors',
      '2000',
      '--seed',
      String(seed),
      '--detector',
      'mmse',
      '--threads',
      '1',
    ];
    const first = spawnSync(process.execPath, [MAIN, 'simulate', ...args, ...more, '--json', json], {
      encoding: 'utf8',
    });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /OFDM 2 PRBs at 30 kHz, ls CSI/);
    const run = JSON.parse(readFileSync(json, 'utf8'));
    assert.deepEqual(run.ofdm, { scs: 30e3, prbs: 2, csi: 'ls', dmrsAdditional: 2 });
    // drop the last point and resume: the same counts
    const whole = run.points;
    writeFileSync(json, JSON.stringify({ ...run, points: whole.slice(0, 1), interrupted: true }));
    const again = spawnSync(process.execPath, [MAIN, 'simulate', '--resume', json], { encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    const resumed = JSON.parse(readFileSync(json, 'utf8')).points;
    assert.deepEqual(
      resumed.map(({ timeMs: _t, ...p }: { timeMs: number }) => p),
      whole.map(({ timeMs: _t, ...p }: { timeMs: number }) => p),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
