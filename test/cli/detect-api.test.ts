/**
 * The CLI and the API accept the same things: `detect` on the command line gives what detect()
 * gives on the same input and options (vectors per channel, initial radius, PSD configuration, soft
 * output, a noise variance per vector, nr < nt), the same output or the same typed error code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { LatticeMimoError } from '../../src/core/errors.js';
import { detect } from '../../src/mimo/detect.js';
import type { DetectOptions, Modulation } from '../../src/mimo/types.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

const pair = fc.tuple(fc.double({ min: -2, max: 2, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true }));

const problem = fc.record({
  nt: fc.integer({ min: 1, max: 3 }),
  nr: fc.integer({ min: 1, max: 4 }),
  channels: fc.integer({ min: 1, max: 3 }),
  vpc: fc.integer({ min: 1, max: 3 }),
  giveVpc: fc.boolean(),
  modulation: fc.constantFrom<Modulation>('bpsk', 'qpsk', '16qam'),
  noiseVar: fc.double({ min: 0.01, max: 2, noNaN: true }),
  /** the noise variance per vector in the JSON (the API's Float64Array) instead of --noise-var */
  noisePerVector: fc.boolean(),
  seedPairs: fc.array(pair, { minLength: 64, maxLength: 64 }),
  options: fc.oneof(
    fc.record({
      detector: fc.constant('sphere' as const),
      initialRadius: fc.constantFrom('infinity' as const, 'babai' as const),
    }),
    fc.record({
      detector: fc.constant('psd' as const),
      levels: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
      paths: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      detector: fc.constant('kbest' as const),
      k: fc.integer({ min: 1, max: 8 }),
      soft: fc.constantFrom('maxlog' as const, 'none' as const),
    }),
    fc.record({ detector: fc.constantFrom('zf' as const, 'mmse' as const) }),
  ),
});

test('detect on the command line = detect() on the same input and options (or the same error code)', () => {
  fc.assert(
    fc.property(problem, (p) => {
      let at = 0;
      const next = () => p.seedPairs[at++ % p.seedPairs.length]!;
      const Hs = Array.from({ length: p.channels }, () =>
        Array.from({ length: p.nr }, () => Array.from({ length: p.nt }, next)),
      );
      const ys = Array.from({ length: p.channels * p.vpc }, () => Array.from({ length: p.nr }, next));
      const H = new Float64Array(2 * p.channels * p.nr * p.nt),
        y = new Float64Array(2 * ys.length * p.nr);
      Hs.forEach((Hc, c) => {
        Hc.forEach((row, i) => {
          row.forEach(([re, im], j) => {
            H[2 * (c * p.nr * p.nt + i + j * p.nr)] = re;
            H[2 * (c * p.nr * p.nt + i + j * p.nr) + 1] = im;
          });
        });
      });
      ys.forEach((yv, v) => {
        yv.forEach(([re, im], i) => {
          y[2 * (v * p.nr + i)] = re;
          y[2 * (v * p.nr + i) + 1] = im;
        });
      });

      const o = p.options;
      const opts: DetectOptions = { detector: o.detector, modulation: p.modulation, engine: 'cpu' };
      const noiseVar = p.noisePerVector ? Float64Array.from(ys, (_, v) => p.noiseVar * (1 + v)) : p.noiseVar;
      // both sides on the CPU engine: this compares the command line with the API (GPU = CPU is the GPU tests' job)
      const args = [
        'detect',
        '--engine',
        'cpu',
        '--detector',
        o.detector,
        '--mod',
        p.modulation,
        ...(p.noisePerVector ? [] : ['--noise-var', String(p.noiseVar)]),
      ];
      if ('initialRadius' in o) {
        opts.initialRadius = o.initialRadius;
        args.push('--initial-radius', o.initialRadius);
      }
      if ('levels' in o) {
        opts.psd = { levels: o.levels, paths: o.paths };
        args.push('--psd-levels', o.levels.join(','), '--psd-paths', o.paths.join(','));
      }
      if ('k' in o) {
        opts.k = o.k;
        opts.soft = o.soft;
        args.push('--k', String(o.k), '--soft', o.soft);
      }
      if (p.giveVpc) args.push('--vectors-per-channel', String(p.vpc));

      let expected: { symbols: number[]; bits: number[]; llr?: number[] } | { code: string };
      try {
        const r = detect(
          { nt: p.nt, nr: p.nr, H, y, noiseVar, ...(p.giveVpc ? { vectorsPerChannel: p.vpc } : {}) },
          opts,
        );
        expected = { symbols: [...r.symbols], bits: [...r.bits], ...(r.llr ? { llr: [...r.llr] } : {}) };
      } catch (err) {
        expected = { code: err instanceof LatticeMimoError ? err.code : 'INTERNAL' };
      }
      const run = spawnSync(process.execPath, [MAIN, ...args], {
        input: JSON.stringify({
          H: Hs,
          y: ys,
          ...(p.noisePerVector ? { noiseVar: [...(noiseVar as Float64Array)] } : {}),
        }),
        encoding: 'utf8',
        timeout: 60_000,
      });
      if ('code' in expected) {
        assert.equal(run.status, 2, `API threw ${expected.code}, CLI: ${run.stderr}`);
        assert.match(run.stderr, new RegExp(`^lattice-mimo: error \\[${expected.code}\\]`), args.join(' '));
        return;
      }
      assert.equal(run.status, 0, `${args.join(' ')}: ${run.stderr}`);
      const out = JSON.parse(run.stdout) as { symbols: number[][]; bits: number[][]; llr?: number[][] };
      assert.deepEqual(out.symbols.flat(), expected.symbols);
      assert.deepEqual(out.bits.flat(), expected.bits);
      assert.deepEqual(out.llr?.flat(), expected.llr);
    }),
    { numRuns: 15 },
  );
});

test('the API validates threads as simulate does: the same values are refused on both', async () => {
  const { parseSimulateArgs } = await import('../../src/cli/simulate.js');
  const { simulate } = await import('../../src/sim/simulate.js');
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(fc.integer({ min: -3, max: 300 }), fc.double({ min: -3, max: 300, noNaN: true })),
      async (threads) => {
        let cliOk = true;
        try {
          parseSimulateArgs(['--threads', String(threads)]);
        } catch (err) {
          cliOk = false;
          assert.equal((err as LatticeMimoError).code, 'INVALID_ARGUMENT');
        }
        // an aborted signal: every option is checked, then nothing runs
        const signal = AbortSignal.abort();
        let apiOk = true;
        try {
          await simulate({
            nt: 1,
            nr: 1,
            modulation: 'qpsk',
            detectors: [{ detector: 'zf' }],
            snrs: [0],
            threads,
            signal,
          });
        } catch (err) {
          apiOk = false;
          assert.equal((err as LatticeMimoError).code, 'INVALID_ARGUMENT');
        }
        assert.equal(
          cliOk,
          apiOk,
          `threads ${threads}: CLI ${cliOk ? 'accepts' : 'refuses'}, API ${apiOk ? 'accepts' : 'refuses'}`,
        );
      },
    ),
  );
});
