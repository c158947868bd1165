/**
 * The channel models' registry (src/channels): every entry's shape; the CPU generators draw the
 * streams the link drew before the registry, bit for bit (rayleighChannels on a chunk's stream, a
 * channel alone from its words, spans over several streams, and fixed chunks' SHA-256 taken from
 * the code before the registry); awgn's H = I and its shape rule; checkChannel's typed errors; and
 * a model added at run time that reaches simulate(), its command-line flags, help and plots.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomInt } from 'node:crypto';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { number, option, type OptionSpec } from '../../src/core/options.js';
import { Philox } from '../../src/core/rng.js';
import {
  type AnyChannelEntry,
  CHANNEL_MODELS,
  CHANNEL_REGISTRY,
  channelEntry,
  checkChannel,
  type ChannelSpan,
  DEFAULT_CHANNEL_MODEL,
  rayleighChannels,
  registerChannelModel,
} from '../../src/channels/index.js';
import { unitStream, generateLinkChunk, linkChannels, STREAM_PURPOSE } from '../../src/sim/link.js';
import { simulate } from '../../src/sim/simulate.js';
import { plotSpec } from '../../src/sim/plot.js';
import { parseSimulateArgs, simulateHelp } from '../../src/cli/simulate.js';
import type { ChannelModel } from '../../src/channels/index.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

test('every model: its name is its key, a description and a title, documented parameters, a shape rule, a CPU generator and a CUDA one', () => {
  assert.ok(CHANNEL_MODELS.includes(DEFAULT_CHANNEL_MODEL));
  for (const m of CHANNEL_MODELS) {
    const e = channelEntry(m)!;
    assert.equal(e.name, m);
    assert.ok(e.description.length > 10 && !e.description.includes('\n'), m);
    assert.ok(e.title.length > 3, m);
    for (const [k, spec] of Object.entries(e.options) as [string, OptionSpec][]) {
      assert.ok(spec.doc.length > 5, `${m}.${k}`);
      if (spec.default !== undefined) assert.deepEqual(spec.check(spec.default, k), spec.default);
    }
    assert.equal(typeof e.checkShape, 'function');
    assert.equal(typeof e.cuda, 'function', `${m}: a CUDA generator`);
    const H = e.cpu({ nt: 2, nr: 3 }, {}).draw({ seed, stream0: 5, streamStep: 4, perStream: 7, first: 3, count: 6 });
    assert.equal(H.length, 6 * 2 * 3 * 2);
    assert.ok(H.every(Number.isFinite));
  }
});

/** A fresh span of a few streams: channels of a run cut into streams of perStream. */
const spanArb = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 40 }),
  snrIndex: fc.integer({ min: 0, max: 2 ** 19 - 1 }),
  chunk: fc.integer({ min: 0, max: 2 ** 32 - 100 }),
  perStream: fc.integer({ min: 1, max: 9 }),
  first: fc.integer({ min: 0, max: 30 }),
  count: fc.integer({ min: 0, max: 30 }),
  nt: fc.integer({ min: 1, max: 4 }),
  nr: fc.integer({ min: 1, max: 4 }),
});

test("rayleigh: a span's channels are rayleighChannels on each chunk's stream, read from the channel's words, as the link drew them", () => {
  fc.assert(
    fc.property(spanArb, (s) => {
      const { nt, nr } = s;
      const span: ChannelSpan = {
        seed: s.seed,
        stream0: unitStream(s.snrIndex, s.chunk, STREAM_PURPOSE.channels),
        streamStep: 4,
        perStream: s.perStream,
        first: s.first,
        count: s.count,
      };
      const got = CHANNEL_REGISTRY.rayleigh.cpu({ nt, nr }, {}).draw(span);
      const per = 2 * nr * nt;
      assert.equal(got.length, s.count * per);
      for (let c = 0; c < s.count; c++) {
        const q = s.first + c,
          k = s.chunk + Math.floor(q / s.perStream),
          at = q % s.perStream;
        // the old generateLinkChunk: the whole chunk from a fresh reader of its stream
        const whole = rayleighChannels(new Philox(s.seed, unitStream(s.snrIndex, k, 1)), at + 1, nt, nr);
        assert.deepEqual(got.subarray(c * per, (c + 1) * per), whole.subarray(at * per), msg(`channel ${q}`));
        // the old CPU redo (cpu-vector.ts): the channel alone, its words sought
        const alone = rayleighChannels(
          new Philox(s.seed, unitStream(s.snrIndex, k, 1)).seek(4 * at * nr * nt),
          1,
          nt,
          nr,
        );
        assert.deepEqual(got.subarray(c * per, (c + 1) * per), alone, msg(`channel ${q} alone`));
      }
    }),
    { numRuns: 150 },
  );
});

test('awgn: every channel is I; the shape rule refuses nr < nt, as simulate() does', async () => {
  fc.assert(
    fc.property(spanArb, (s) => {
      const span = { seed: s.seed, stream0: 1, streamStep: 4, perStream: s.perStream, first: s.first, count: s.count };
      const H = CHANNEL_REGISTRY.awgn.cpu(s, {}).draw(span);
      for (let c = 0; c < s.count; c++)
        for (let j = 0; j < s.nt; j++)
          for (let i = 0; i < s.nr; i++) {
            const at = 2 * (c * s.nr * s.nt + i + j * s.nr);
            assert.equal(H[at], i === j ? 1 : 0);
            assert.equal(H[at + 1], 0);
          }
      const shape = () => checkChannel('awgn', undefined, s, 't()');
      if (s.nr >= s.nt) assert.equal(shape().model, 'awgn');
      else assert.throws(shape, (e: unknown) => e instanceof InvalidArgumentError && /nr >= nt/.test(e.message));
    }),
  );
  await assert.rejects(
    simulate({ nt: 3, nr: 2, modulation: 'qpsk', detectors: [{ detector: 'ml' }], snrs: [0], channel: 'awgn' }),
    (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === 'channel',
  );
});

test('generateLinkChunk draws what it drew before the channel registry, bit for bit (fixed chunks, SHA-256 of the code before)', () => {
  const specs = [
    {
      nt: 4,
      nr: 4,
      modulation: '16qam',
      vectorsPerChannel: 1,
      seed: 12345,
      snrIndex: 3,
      unitIndex: 77,
      vectors: 64,
      noiseVar: 0.1,
    },
    {
      nt: 2,
      nr: 3,
      modulation: 'qpsk',
      vectorsPerChannel: 4,
      seed: 2 ** 40 + 17,
      snrIndex: 0,
      unitIndex: 2 ** 31 + 5,
      vectors: 40,
      noiseVar: 0.5,
    },
    {
      nt: 3,
      nr: 3,
      modulation: '64qam',
      vectorsPerChannel: 2,
      seed: 9,
      snrIndex: 5,
      unitIndex: 1,
      vectors: 30,
      noiseVar: 0.01,
      channel: 'awgn',
    },
    {
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      vectorsPerChannel: 1,
      seed: 31,
      snrIndex: 1,
      unitIndex: 4,
      vectors: 576,
      noiseVar: 0.3,
      coded: { code: 'wimax:576', decoder: {} },
    },
  ] as const;
  const want = [
    'e7539f66fee33aa0fb2ab025747c0ef3',
    '1d43f042daa597fe0b6a483e9bc0fab6',
    '77249b1f4a4f6721790240f4941b07f3',
    'da250a169fa566320cee450516564d6f',
  ];
  specs.forEach((s, i) => {
    const c = generateLinkChunk(s as Parameters<typeof generateLinkChunk>[0]);
    const h = createHash('sha256');
    for (const a of [c.txIndices, c.H, c.y, ...(c.info ? [c.info] : [])])
      h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    assert.equal(h.digest('hex').slice(0, 32), want[i], `chunk ${i}`);
  });
});

test('linkChannels: any piece of a chunk equals the same piece of the whole chunk', () => {
  fc.assert(
    fc.property(spanArb, fc.constantFrom<ChannelModel>('rayleigh', 'awgn'), (s, channel) => {
      const nr = channel === 'awgn' ? Math.max(s.nr, s.nt) : s.nr;
      const spec = { nt: s.nt, nr, seed: s.seed, snrIndex: s.snrIndex, unitIndex: s.chunk, channel };
      const total = s.first + s.count + 1;
      const whole = linkChannels(spec, 0, total, total);
      const per = 2 * nr * s.nt;
      assert.deepEqual(
        linkChannels(spec, s.first, s.count, total),
        whole.subarray(s.first * per, (s.first + s.count) * per),
      );
    }),
    { numRuns: 100 },
  );
});

test('checkChannel: the default model, unknown models with the nearest named, parameters a model does not take, bad spans', () => {
  assert.equal(checkChannel(undefined, undefined, { nt: 2, nr: 2 }, 't()').model, DEFAULT_CHANNEL_MODEL);
  assert.throws(
    () => checkChannel('raleigh', undefined, { nt: 2, nr: 2 }, 't()'),
    (e: unknown) =>
      e instanceof InvalidArgumentError && e.details?.suggestion === 'rayleigh' && e.details?.option === 'channel',
  );
  for (const bad of [3, null, '', 'AWGN '])
    assert.throws(() => checkChannel(bad, undefined, { nt: 1, nr: 1 }, 't()'), InvalidArgumentError);
  for (const m of CHANNEL_MODELS) {
    assert.throws(
      () => checkChannel(m, { kFactor: 3 }, { nt: 1, nr: 1 }, 't()'),
      (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === 'channelOptions.kFactor',
    );
    for (const bad of [3, 'x', [1]])
      assert.throws(() => checkChannel(m, bad, { nt: 1, nr: 1 }, 't()'), InvalidArgumentError);
  }
  const g = CHANNEL_REGISTRY.rayleigh.cpu({ nt: 1, nr: 1 }, {});
  for (const k of ['first', 'count', 'perStream', 'streamStep', 'seed'] as const)
    assert.throws(
      () => g.draw({ seed: 1, stream0: 1, streamStep: 4, perStream: 2, first: 0, count: 1, [k]: -1 }),
      InvalidArgumentError,
      k,
    );
});

/** A fake model: rayleigh scaled by a gain parameter (with a flag). */
function scaledModel(): AnyChannelEntry {
  const rayleigh = CHANNEL_REGISTRY.rayleigh;
  return {
    name: 'scaled',
    description: 'rayleigh times a gain (registered by the test)',
    title: 'scaled Rayleigh',
    options: {
      gain: option(number({ min: 0, minOpen: true }), 'the amplitude gain', {
        default: 1,
        cli: { flag: 'gain', metavar: 'G' },
      }),
    },
    checkShape: () => {},
    cpu: (shape, p: { gain?: number }) => ({
      draw: (span) =>
        rayleigh
          .cpu(shape, {})
          .draw(span)
          .map((x) => x * (p.gain ?? 1)),
    }),
  };
}

test('a model added to the registry reaches simulate(), the command line (its flags where they apply), help, results and plots', async () => {
  const remove = registerChannelModel(scaledModel());
  try {
    const gain = 1 + randomInt(4);
    const cmd = parseSimulateArgs(['--channel', 'scaled', '--gain', String(gain), '--detector', 'zf', '--snr', '30']);
    assert.equal(cmd.options.channel, 'scaled');
    assert.deepEqual(cmd.options.channelOptions, { gain });
    assert.throws(
      () => parseSimulateArgs(['--gain', '2']),
      /--gain does not apply: it is a parameter of scaled, not of rayleigh/,
    );
    assert.throws(() => parseSimulateArgs(['--channel', 'scaled', '--gain', '0']), InvalidArgumentError);
    const flat = simulateHelp().replace(/\s+/g, ' ');
    assert.ok(flat.includes('--gain G scaled only: the amplitude gain (default 1)'), 'the flag in help');
    assert.ok(flat.includes('scaled rayleigh times a gain'), 'the model in help');
    const r = await simulate({ ...cmd.options, maxVectors: 64, threads: 1, engine: 'cpu' });
    assert.equal(r.channel, 'scaled');
    assert.deepEqual(r.channelOptions, { gain });
    assert.ok(JSON.stringify(plotSpec(r)).includes('scaled Rayleigh'), 'the plot names the model');
    await assert.rejects(
      simulate({ ...cmd.options, channelOptions: { gain: -1 }, threads: 1 }),
      (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === 'channelOptions.gain',
    );
  } finally {
    remove();
  }
  assert.ok(!CHANNEL_MODELS.includes('scaled' as ChannelModel));
  assert.throws(() => parseSimulateArgs(['--channel', 'scaled']), InvalidArgumentError);
});
