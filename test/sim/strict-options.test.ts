/**
 * simulate()'s top-level options are as strict as the command line: unknown keys (with the
 * nearest suggested), values of the wrong type or range, missing required keys, options that need
 * a code on an uncoded run, and a decoder option its algorithm does not read are refused naming
 * the key, before any work; chunks that would not hold whole channel groups and frames are refused
 * by the one chunk rule (sim/chunking.ts), and chunks whose buffers could not be held by an array
 * are typed errors before anything is allocated. Valid options of every kind are taken.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UnsupportedError } from '../../src/core/errors.js';
import { checkChunkVectors, chunkUnit } from '../../src/sim/chunking.js';
import { generateLinkChunk } from '../../src/sim/link.js';
import { SIMULATION_SCHEMA } from '../../src/sim/simulation-options.js';
import { simulate } from '../../src/sim/simulate.js';
import type { SimulationOptions } from '../../src/sim/types.js';
import { assertUnknownKeyRefusal, refused, refusedSync, unknownKey, wrongValue } from '../core/strict-options.js';

const BASE: SimulationOptions = {
  nt: 2,
  nr: 2,
  modulation: 'qpsk',
  detectors: [{ detector: 'zf' }],
  snrs: [10],
  maxVectors: 64,
  unitVectors: 32,
  threads: 1,
  engine: 'cpu',
};

test('simulate(): unknown keys are refused with the nearest key suggested', async () => {
  await fc.assert(
    fc.asyncProperty(unknownKey(SIMULATION_SCHEMA), async (key) => {
      const e = await refused(() => simulate({ ...BASE, [key]: 1 } as SimulationOptions), key);
      assertUnknownKeyRefusal(e, key, SIMULATION_SCHEMA);
    }),
    { numRuns: 60 },
  );
});

test('simulate(): a value of the wrong type or range is refused naming its key; required keys are required', async () => {
  const keys = (Object.keys(SIMULATION_SCHEMA) as (keyof typeof SIMULATION_SCHEMA)[]).filter((k) => k !== 'channel');
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...keys).chain((k) => fc.tuple(fc.constant(k), wrongValue(SIMULATION_SCHEMA[k]))),
      async ([key, bad]) => {
        await refused(() => simulate({ ...BASE, [key]: bad } as SimulationOptions), key, `${key}: ${String(bad)}`);
      },
    ),
    { numRuns: 150 },
  );
  for (const key of ['nt', 'nr', 'modulation', 'detectors', 'snrs'] as const) {
    const { [key]: _dropped, ...rest } = BASE;
    await refused(() => simulate(rest as SimulationOptions), key);
  }
  await refused(() => simulate({ ...BASE, threads: 1.5 }), 'threads');
  await refused(() => simulate({ ...BASE, onProgress: 3 as never }), 'onProgress');
  await refused(() => simulate({ ...BASE, snrs: [0, Number.NaN] }), 'snrs');
  await refused(() => simulate(null as never), 'simulate()');
  await refused(() => simulate({ ...BASE, decoder: { algorithm: 'nms' } }), 'decoder');
  await refused(() => simulate({ ...BASE, maxFrames: 2 }), 'maxFrames');
  const coded = { ...BASE, detectors: [{ detector: 'kbest' as const }], code: 'wimax:576:1/2', chunkVectors: 144 };
  await refused(() => simulate({ ...coded, decoder: { algorithm: 'spa', alpha: 0.8 } }), 'decoder.alpha');
  await refused(() => simulate({ ...coded, decoder: { iterations: 5 } as never }), 'decoder.iterations');
});

test('the chunk rule: a chunk holds whole channel groups and whole frames, everywhere it is checked', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 64 }),
      fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
      fc.integer({ min: 1, max: 5000 }),
      (vpc, vpf, vectors) => {
        const grain = { vectorsPerChannel: vpc, ...(vpf !== undefined ? { vectorsPerFrame: vpf } : {}) };
        const unit = chunkUnit(grain);
        // the least common multiple
        assert.equal(unit % vpc, 0);
        assert.equal(unit % (vpf ?? 1), 0);
        for (let u = 1; u < unit; u++) assert.ok(u % vpc !== 0 || u % (vpf ?? 1) !== 0);
        const whole = vectors % vpc === 0 && vectors % (vpf ?? 1) === 0;
        if (whole) checkChunkVectors(vectors, grain);
        else refusedSync(() => checkChunkVectors(vectors, grain), 'chunkVectors');
      },
    ),
  );
  // simulate()'s plan and each chunk's generator say the same
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 1, max: 200 }), (vpc, chunk) => {
      fc.pre(chunk % vpc !== 0);
      refusedSync(
        () =>
          generateLinkChunk({
            nt: 2,
            nr: 2,
            modulation: 'qpsk',
            vectorsPerChannel: vpc,
            seed: 1,
            snrIndex: 0,
            unitIndex: 0,
            vectors: chunk,
            noiseVar: 1,
          }),
        "a chunk's vectors",
      );
    }),
  );
});

test('simulate(): units that break the grain rule, chunks of broken units, or units whose buffers no array could hold, are refused before any work', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 1, max: 200 }), async (vpc, n) => {
      fc.pre(n % vpc !== 0);
      // a unit of broken channel groups; a chunk of a unit and a piece
      await refused(() => simulate({ ...BASE, vectorsPerChannel: vpc, unitVectors: n }), 'unitVectors');
      const unitVectors = vpc * (2 + (n % 7));
      await refused(
        () =>
          simulate({
            ...BASE,
            vectorsPerChannel: vpc,
            unitVectors,
            chunkVectors: unitVectors + vpc * (1 + (n % (unitVectors / vpc - 1 || 1))),
          }),
        'chunkVectors',
      );
    }),
    { numRuns: 20 },
  );
  const t0 = performance.now();
  await assert.rejects(
    () => simulate({ ...BASE, nt: 64, nr: 64, unitVectors: 1 << 24, maxVectors: 1 << 24 }),
    (e: unknown) =>
      e instanceof UnsupportedError &&
      e.details?.option === 'unitVectors' &&
      (e.details.elements as number) > (e.details.limit as number) &&
      (e.details.largest as number) * 2 * 64 * 64 <= (e.details.limit as number),
  );
  assert.ok(performance.now() - t0 < 5000, 'refused before any work');
});

test('simulate(): valid options of every kind are taken, and explicit defaults change nothing', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        vpc: fc.integer({ min: 1, max: 4 }),
        chunks: fc.integer({ min: 1, max: 4 }),
        seed: fc.nat(1e6),
        snrType: fc.constantFrom('esn0' as const, 'ebn0' as const),
        maxErrors: fc.integer({ min: 1, max: 1000 }),
      }),
      async ({ vpc, chunks, seed, snrType, maxErrors }) => {
        const opts: SimulationOptions = {
          ...BASE,
          vectorsPerChannel: vpc,
          unitVectors: 16 * vpc,
          maxVectors: 16 * vpc * chunks,
          seed,
          snrType,
          maxErrors,
        };
        const events: number[] = [];
        const a = await simulate({
          ...opts,
          maxTimeSeconds: 3600,
          signal: new AbortController().signal,
          completedPoints: [],
          onProgress: (e) => events.push(e.snrIndex),
        });
        const b = await simulate(opts);
        assert.deepEqual(
          a.points.map((p) => [p.bitErrors, p.vectors]),
          b.points.map((p) => [p.bitErrors, p.vectors]),
        );
        assert.ok(events.length > 0);
      },
    ),
    { numRuns: 15 },
  );
  const counts = (r: Awaited<ReturnType<typeof simulate>>) =>
    r.points.map((p) => [p.bitErrors, p.symbolErrors, p.vectors]);
  const plain = await simulate(BASE);
  const explicit = await simulate({ ...BASE, seed: 1, snrType: 'esn0', vectorsPerChannel: 1, maxErrors: 200 });
  assert.deepEqual(counts(explicit), counts(plain));
});
