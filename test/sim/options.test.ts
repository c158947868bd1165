/** Parsing of SNR lists, antenna configurations, detector lists and the simulate command line. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseSnrList, toEbN0Db, toEsN0Db } from '../../src/sim/snr.js';
import { parseMimo } from '../../src/cli/mimo-values.js';
import { detectorFlags, parseDetectorList } from '../../src/cli/detector-options.js';
import { givenFlags, parseFlags } from '../../src/cli/option-flags.js';
import { parseSimulateArgs } from '../../src/cli/simulate.js';

test('start:step:stop gives the inclusive arithmetic progression', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -300, max: 300 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 0, max: 40 }),
      fc.boolean(),
      (start10, step10, count, down) => {
        // Tenths of a dB, the way people write them (0.1 steps are not exact in binary).
        const step = (down ? -step10 : step10) / 10,
          start = start10 / 10,
          stop = Number((start + count * step).toFixed(1));
        const list = parseSnrList(`${start}:${step}:${stop}`);
        assert.equal(list.length, count + 1);
        list.forEach((v, i) => {
          assert.ok(Math.abs(v - (start + i * step)) < 1e-9);
        });
        assert.ok(Math.abs(list[list.length - 1]! - stop) < 1e-9);
      },
    ),
    { numRuns: 200 },
  );
});

test('comma lists keep their values; bad lists are typed errors', () => {
  fc.assert(
    fc.property(fc.array(fc.double({ min: -50, max: 80, noNaN: true }), { minLength: 1, maxLength: 20 }), (xs) => {
      assert.deepEqual(
        parseSnrList(xs.map(String).join(',')),
        xs.map((x) => Number(String(x))),
      );
    }),
  );
  for (const bad of ['', '0:1', '0:0:5', '10:1:0', '0:1:x', '1,,2', 'abc', '0:0.001:100']) {
    assert.throws(() => parseSnrList(bad), { code: 'INVALID_ARGUMENT' }, bad);
  }
});

test('Es/N0 and Eb/N0 convert both ways', () => {
  fc.assert(
    fc.property(fc.double({ min: -20, max: 40, noNaN: true }), fc.constantFrom(1, 2, 4, 6, 8), (snr, bps) => {
      assert.ok(Math.abs(toEbN0Db(toEsN0Db(snr, 'ebn0', bps), 'esn0', bps) - snr) < 1e-9);
      assert.ok(Math.abs(toEsN0Db(snr, 'ebn0', bps) - snr - 10 * Math.log10(bps)) < 1e-12);
    }),
  );
});

test('antenna and detector options', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 10 }), (nt, extra) => {
      const nr = Math.min(64, nt + extra);
      assert.deepEqual(parseMimo(`${nt}x${nr}`), { nt, nr });
    }),
  );
  for (const bad of ['4', '4x', 'x4', '0x4', '65x65', '4y4', '-1x2'])
    assert.throws(() => parseMimo(bad), { code: 'INVALID_ARGUMENT' }, bad);
  const flags = detectorFlags(['llrClip']);
  const values = { k: '4', passes: '2', 'llr-clip': '8' };
  const dets = parseDetectorList('zf, kbest:16,nway:3,kbest', parseFlags(values, givenFlags(values, flags)));
  assert.deepEqual(dets, [
    { detector: 'zf' },
    { detector: 'kbest', k: 16, llrClip: 8 },
    { detector: 'nway', passes: 3, llrClip: 8 },
    { detector: 'kbest', k: 4, llrClip: 8 },
  ]);
  for (const bad of ['', 'zz', 'zf:2', 'kbest:0', 'kbest:x', 'nway:1:2'])
    assert.throws(() => parseDetectorList(bad, new Map()), { code: 'INVALID_ARGUMENT' }, bad);
});

test('simulate command line: values land in the options; bad values are typed errors', () => {
  const cmd = parseSimulateArgs([
    '--mimo',
    '2x3',
    '--mod',
    '16QAM',
    '--detector',
    'zf,sphere',
    '--snr',
    '0:5:10',
    '--snr-type',
    'ebn0',
    '--max-errors',
    '50',
    '--max-vectors',
    '1e4',
    '--vectors-per-channel',
    '4',
    '--seed',
    '9',
    '--threads',
    '2',
    '--plot',
    'a.png',
  ]);
  assert.equal(cmd.help, false);
  assert.deepEqual(
    { ...cmd.options },
    {
      nt: 2,
      nr: 3,
      modulation: '16qam',
      detectors: [{ detector: 'zf' }, { detector: 'sphere' }],
      snrs: [0, 5, 10],
      snrType: 'ebn0',
      maxErrors: 50,
      maxVectors: 10000,
      vectorsPerChannel: 4,
      seed: 9,
      engine: 'auto',
      threads: 2,
    },
  );
  assert.equal(cmd.files.plot, 'a.png');
  for (const bad of [
    ['--mod', '8psk'],
    ['--snr-type', 'snr'],
    ['--max-errors', '0'],
    ['--threads', '1.5'],
    ['--plot', 'a.pdf'],
    ['--engine', 'gpu'],
    ['--llr-clip=-1'],
    ['--seed=-3'],
  ]) {
    assert.throws(() => parseSimulateArgs(bad), { code: 'INVALID_ARGUMENT' }, bad.join(' '));
  }
  assert.throws(() => parseSimulateArgs(['--bogus']), { code: 'INVALID_ARGUMENT', message: /--bogus/ });
});
