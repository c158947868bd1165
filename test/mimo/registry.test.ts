/**
 * The detector registry (src/mimo/registry.ts, options.ts): every entry's shape (name, description,
 * traits, options with doc lines, defaults their own checks accept, flags; labels; list arguments),
 * the strict checks of detect() / simulate()'s detector options on fresh random keys and values
 * (unknown keys with the nearest suggested, keys that do not apply refused saying why, values of
 * the wrong type or range named), and a fake detector added at run time that shows up in the
 * names, validation, labels, the commands' flags, list syntax and help without any other edit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import fc from 'fast-check';
import { InvalidArgumentError, LatticeMimoError } from '../../src/core/errors.js';
import { integer, nearest, option, type OptionSpec } from '../../src/core/options.js';
import { Philox } from '../../src/core/rng.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { addNoise, randomSymbols, transmit } from '../../src/mimo/channel.js';
import { detect } from '../../src/mimo/detect.js';
import {
  COMMON_DETECT_OPTIONS,
  checkDetectOptions,
  detectorOptionsLabel,
  inapplicableReason,
} from '../../src/mimo/options.js';
import {
  type AnyDetectorEntry,
  DETECTORS,
  detectorEntry,
  registerDetector,
  SOFT_DETECTORS,
  WIDE_DETECTORS,
} from '../../src/mimo/registry.js';
import type { DetectionInput, DetectOptions, Detector } from '../../src/mimo/types.js';
import { parseDetectArgs, detectHelp } from '../../src/cli/detect.js';
import { parseSimulateArgs, simulateHelp } from '../../src/cli/simulate.js';
import { simulate } from '../../src/sim/simulate.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;

/** Every key a detector options object may hold: the common ones and every entry's own. */
function allKeys(): string[] {
  return [
    ...new Set([...Object.keys(COMMON_DETECT_OPTIONS), ...DETECTORS.flatMap((d) => Object.keys(entry(d).options))]),
  ];
}

const entry = (d: string): AnyDetectorEntry => detectorEntry(d)!;

/** A value each key accepts on a 2x2 QPSK problem (a detector option's check and the detector's own rules). */
const GOOD: Record<string, unknown> = {
  engine: 'cpu',
  soft: 'maxlog',
  llrClip: 5,
  maxNodes: 1_000_000,
  onBudget: 'flag',
  gpuBatch: { maxChunk: 0 },
  cpuKernel: 'typescript',
  k: 4,
  passes: 1,
  initialRadius: 'babai',
  psd: { gpuMapping: 'block' },
  iterations: 5,
  beta: 0.5,
  epsilon: 1e-5,
  picIterations: 2,
};

function problem(nt = 2, nr = 2): DetectionInput {
  const rng = new Philox(seed, 5);
  const H = rayleighChannels(rng, 3, nt, nr);
  const { symbols } = randomSymbols(rng, 3 * nt, 'qpsk');
  return { nt, nr, H, y: addNoise(rng, transmit(H, symbols, nt, nr), 0.1), noiseVar: 0.1 };
}

function refusedFor(f: () => unknown, key: string, what: string, re?: RegExp): void {
  assert.throws(
    f,
    (e: unknown) => {
      assert.ok(e instanceof InvalidArgumentError, msg(`${what}: not an InvalidArgumentError: ${String(e)}`));
      const named = String(e.details?.option);
      assert.ok(
        named === key || named.startsWith(`${key}.`) || named.startsWith(`${key}[`),
        msg(`${what}: names ${named}: ${e.message}`),
      );
      if (re) assert.match(e.message, re, msg(what));
      return true;
    },
    msg(what),
  );
}

test('every entry: its name is its key, one line of description, traits from the allowed values, options with doc lines whose defaults pass their checks', () => {
  const common = new Set(Object.keys(COMMON_DETECT_OPTIONS));
  const specOf = new Map<string, OptionSpec>();
  for (const d of DETECTORS) {
    const e = entry(d);
    assert.equal(e.name, d);
    assert.equal(e.cpu.name, d, `${d}: its CPU detector's name`);
    assert.equal(e.cpu.soft, e.traits.soft, `${d}: the CPU detector's soft output is the trait's`);
    assert.ok(e.description.length > 10 && !e.description.includes('\n'), `${d}: description`);
    assert.ok(['search', 'size', 'none'].includes(e.traits.nodeBudget), d);
    assert.ok(['no', 'yes', 'regularized'].includes(e.traits.wideChannels), d);
    assert.ok(['complex', 'real'].includes(e.traits.model), d);
    for (const [key, spec] of Object.entries(e.options) as [string, OptionSpec][]) {
      assert.ok(!common.has(key), `${d}: option ${key} is a common option's name`);
      const seen = specOf.get(key);
      assert.ok(seen === undefined || seen === spec, `${d}: option ${key} shared with another spec`);
      specOf.set(key, spec);
      assert.ok(spec.doc.length > 5, `${d}.${key}: doc line`);
      if (spec.default !== undefined)
        assert.deepEqual(spec.check(spec.default, key), spec.default, `${d}.${key}: default`);
      for (const s of [spec, ...Object.values(spec.fields ?? {})] as OptionSpec[])
        if (s.cli) assert.match(s.cli.flag, /^[a-z][a-z0-9-]*$/, `${d}.${key}: flag --${s.cli.flag}`);
    }
    if (e.listArgument) {
      const spec = e.options[e.listArgument.option] as OptionSpec;
      assert.ok(spec && spec.kind === 'integer', `${d}: the list argument sets an integer option`);
    }
    assert.deepEqual(e.label?.({}) ?? [], [], `${d}: no words without options`);
  }
  assert.deepEqual(
    [...SOFT_DETECTORS],
    DETECTORS.filter((d) => entry(d).traits.soft),
  );
  assert.deepEqual(
    [...WIDE_DETECTORS],
    DETECTORS.filter((d) => entry(d).traits.wideChannels !== 'no'),
  );
});

test("labels: the detector and the words its options add ('kbest K=8', 'nway N=2', 'sphere babai', 'ml logmap')", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1 << 16 }), fc.integer({ min: 1, max: 64 }), (k, n) => {
      assert.equal(detectorOptionsLabel({ detector: 'kbest', k } as DetectOptions), `kbest K=${k}`);
      assert.equal(detectorOptionsLabel({ detector: 'nway', passes: n } as DetectOptions), `nway N=${n}`);
    }),
  );
  assert.equal(detectorOptionsLabel({ detector: 'sphere', initialRadius: 'babai' } as DetectOptions), 'sphere babai');
  assert.equal(detectorOptionsLabel({ detector: 'sphere', initialRadius: 'infinity' } as DetectOptions), 'sphere');
  assert.equal(detectorOptionsLabel({ detector: 'ml', soft: 'logmap' } as DetectOptions), 'ml logmap');
  assert.equal(detectorOptionsLabel({ detector: 'zf' } as DetectOptions), 'zf');
});

test('detect(): every key with a valid value is taken where it applies and refused, naming it and the detector, where it does not', () => {
  const inp = problem();
  const keys = allKeys();
  assert.deepEqual(keys.filter((k) => !(k in GOOD)).sort(), ['detector', 'modulation'], 'GOOD covers every option');
  fc.assert(
    fc.property(fc.constantFrom(...DETECTORS), fc.constantFrom(...Object.keys(GOOD)), (d, key) => {
      const opts = { detector: d, modulation: 'qpsk', [key]: GOOD[key] } as DetectOptions;
      const why = inapplicableReason(key, d);
      if (why === null) {
        const r = detect(inp, opts);
        assert.equal(r.symbols.length, 3 * 2, msg(`${d} ${key}`));
      } else {
        assert.equal(typeof why, 'string');
        refusedFor(() => detect(inp, opts), key, `${d} ${key}`, new RegExp(`does not apply: .*\\b${d}\\b`));
      }
    }),
    { numRuns: 200 },
  );
  // the reasons come from the traits and the entries that own the key
  assert.match(inapplicableReason('k', 'zf')!, /kbest/);
  assert.match(inapplicableReason('llrClip', 'zf')!, /hard decisions only/);
  assert.match(inapplicableReason('onBudget', 'ml')!, /sphere and psd/);
  assert.equal(inapplicableReason('maxNodes', 'ml'), null);
  assert.equal(inapplicableReason('noSuchKey', 'ml'), undefined);
});

test('detect(): unknown keys are refused with the nearest known key suggested', () => {
  const inp = problem();
  const keys = allKeys();
  const typo = fc
    .tuple(fc.constantFrom(...keys.filter((k) => k.length >= 4)), fc.nat(), fc.constantFrom('drop', 'double', 'case'))
    .map(([k, at, how]) => {
      const i = at % k.length;
      if (how === 'drop') return k.slice(0, i) + k.slice(i + 1);
      if (how === 'double') return k.slice(0, i) + k[i] + k.slice(i);
      return k.toLowerCase() === k ? k.toUpperCase() : k.toLowerCase();
    })
    .filter((t) => !keys.includes(t));
  fc.assert(
    fc.property(fc.constantFrom(...DETECTORS), typo, (d, key) => {
      assert.throws(
        () => detect(inp, { detector: d, modulation: 'qpsk', [key]: 1 } as DetectOptions),
        (e: unknown) =>
          e instanceof InvalidArgumentError &&
          e.details?.option === key &&
          (e.details?.suggestion ?? null) === nearest(key, keys) &&
          e.message.includes(`unknown option '${key}'`),
        msg(`${d} ${key}`),
      );
    }),
    { numRuns: 200 },
  );
  const odd = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !keys.includes(s) && s !== '__proto__');
  fc.assert(
    fc.property(fc.constantFrom(...DETECTORS), odd, (d, key) => {
      refusedFor(
        () => detect(inp, { detector: d, modulation: 'qpsk', [key]: 0 } as DetectOptions),
        key,
        `${d} '${key}'`,
      );
    }),
    { numRuns: 200 },
  );
});

test('detect(): a value of the wrong type or range is an InvalidArgumentError naming the option, never a TypeError', () => {
  const inp = problem();
  fc.assert(
    fc.property(fc.constantFrom(...DETECTORS), fc.constantFrom(...Object.keys(GOOD)), fc.anything(), (d, key, v) => {
      if (inapplicableReason(key, d) !== null || v === undefined) return;
      const spec = (entry(d).options[key] ?? (COMMON_DETECT_OPTIONS as Record<string, OptionSpec>)[key]) as OptionSpec;
      let valid = true;
      try {
        spec.check(v, key);
      } catch {
        valid = false;
      }
      const run = () => detect(inp, { detector: d, modulation: 'qpsk', [key]: v } as DetectOptions);
      if (!valid) refusedFor(run, key, `${d} ${key} = ${fc.stringify(v)}`);
      else {
        try {
          run();
        } catch (e) {
          // a value the check accepts may still break a detector's own rule (psd levels, soft 'none' with ml): typed
          assert.ok(e instanceof LatticeMimoError, msg(`${d} ${key} = ${fc.stringify(v)}: ${String(e)}`));
        }
      }
    }),
    { numRuns: 400 },
  );
  for (const bad of [null, 3, 'zf', [], () => 0]) {
    assert.throws(() => detect(inp, bad as unknown as DetectOptions), InvalidArgumentError, String(bad));
  }
  refusedFor(() => detect(inp, { modulation: 'qpsk' } as DetectOptions), 'detector', 'no detector');
  refusedFor(() => detect(inp, { detector: 'zf' } as DetectOptions), 'modulation', 'no modulation');
  refusedFor(
    () => detect(inp, { detector: 'kbst', modulation: 'qpsk' } as unknown as DetectOptions),
    'detector',
    'kbst',
    /did you mean 'kbest'/,
  );
  refusedFor(
    () => detect(inp, { detector: 'ml', modulation: 'qpsk', soft: 'none', llrClip: 3 }),
    'llrClip',
    "llrClip with soft 'none'",
    /computes no LLRs/,
  );
});

test("simulate(): a detector's options are checked as detect() checks them, the run's own keys refused, a label taken", async () => {
  const base = {
    nt: 2,
    nr: 2,
    modulation: 'qpsk' as const,
    snrs: [10],
    maxVectors: 8,
    threads: 1,
    engine: 'cpu' as const,
  };
  const cases: [object, string, RegExp][] = [
    [{ detector: 'zf', k: 4 }, 'k', /kbest/],
    [{ detector: 'zf', modulation: 'qpsk' }, 'modulation', /simulation's modulation/],
    [{ detector: 'zf', engine: 'cpu' }, 'engine', /simulation's engine/],
    [{ detector: 'zf', gpuBatch: {} }, 'gpuBatch', /chunkVectors/],
    [{ detector: 'kbest', llrClip: 4 }, 'llrClip', /uncoded/],
    [{ detector: 'kbest', kk: 4 }, 'kk', /did you mean 'k'/],
    [{ detector: 'nway', passes: 0 }, 'passes', /\[1, 64\]/],
  ];
  for (const [d, key, re] of cases) {
    await assert.rejects(
      simulate({ ...base, detectors: [{ detector: 'zf' }, d as never] }),
      (e: unknown) => e instanceof InvalidArgumentError && e.details?.option === key && re.test(e.message),
      `${JSON.stringify(d)}`,
    );
  }
  const r = await simulate({
    ...base,
    detectors: [
      { detector: 'kbest', k: 2, label: 'mine' },
      { detector: 'kbest', k: 3 },
    ],
  });
  assert.deepEqual(
    r.points.map((p) => p.detector),
    ['mine', 'kbest K=3'],
  );
});

/** A fake detector: soft, a search that stops at its budget, with one option of its own and a list argument. */
function fakeEntry(): AnyDetectorEntry {
  const ssfe = entry('ssfe');
  return {
    name: 'fake',
    description: 'a detector registered by the test (the SSFE search under another name)',
    traits: { ...ssfe.traits, nodeBudget: 'search' },
    options: {
      depth: option(integer(1, 9), 'the fake depth', { default: 3, cli: { flag: 'fake-depth', metavar: 'D' } }),
    },
    listArgument: { option: 'depth', metavar: 'D' },
    label: (o: { depth?: number }) => (o.depth !== undefined ? [`D=${o.depth}`] : []),
    cpu: ssfe.cpu,
  };
}

test('a detector added to the registry shows up in the names, validation, labels, flags, list syntax and help, and leaves with it', async () => {
  const inp = problem();
  const fake = 'fake' as Detector;
  const remove = registerDetector(fakeEntry());
  try {
    assert.ok(DETECTORS.includes(fake) && SOFT_DETECTORS.includes(fake));
    const depth = 1 + randomInt(9);
    const r = detect(inp, { detector: fake, modulation: 'qpsk', depth, onBudget: 'flag', llrClip: 3 } as DetectOptions);
    assert.ok(r.llr, 'soft output');
    assert.equal(detect(inp, { detector: 'ssfe', modulation: 'qpsk', llrClip: 3 }).symbols.join(), r.symbols.join());
    refusedFor(
      () => detect(inp, { detector: 'zf', modulation: 'qpsk', depth } as DetectOptions),
      'depth',
      'depth with zf',
      /fake's/,
    );
    refusedFor(
      () => detect(inp, { detector: fake, modulation: 'qpsk', depth: 10 } as DetectOptions),
      'depth',
      'depth 10',
    );
    refusedFor(
      () => detect(inp, { detector: fake, modulation: 'qpsk', k: 4 } as DetectOptions),
      'k',
      'k with fake',
      /kbest/,
    );
    assert.equal(detectorOptionsLabel({ detector: fake, depth } as { detector: string }), `fake D=${depth}`);
    // the detect command: the flag, its check, and where it does not apply
    const cmd = parseDetectArgs([
      '--detector',
      'fake',
      '--mod',
      'qpsk',
      '--fake-depth',
      String(depth),
      '--on-budget',
      'flag',
    ]);
    assert.equal((cmd.opts as { depth?: number }).depth, depth);
    assert.equal(cmd.opts.onBudget, 'flag');
    refusedFor(
      () => parseDetectArgs(['--detector', 'zf', '--mod', 'qpsk', '--fake-depth', '2']),
      '--fake-depth',
      'zf',
      /fake's/,
    );
    assert.throws(
      () => parseDetectArgs(['--detector', 'fake', '--mod', 'qpsk', '--fake-depth', '0']),
      InvalidArgumentError,
    );
    for (const help of [detectHelp(), simulateHelp()]) {
      assert.match(help, /--fake-depth D\s+fake\s+only:\s+the\s+fake\s+depth\s+\(default\s+3\)/);
      assert.match(help, /\n {2}fake\s+a detector registered by the test/);
    }
    assert.match(simulateHelp(), /fake:D\s+sets\s+depth/);
    // the simulate command: list syntax and flags go to the detectors that take them
    const sim = parseSimulateArgs(['--detector', `fake:${depth},zf,fake`, '--fake-depth', '2', '--snr', '10']);
    assert.deepEqual(sim.options.detectors, [
      { detector: fake, depth },
      { detector: 'zf' },
      { detector: fake, depth: 2 },
    ]);
    assert.throws(() => parseSimulateArgs(['--detector', 'zf', '--fake-depth', '2']), /no fake in --detector/);
    // simulate() runs it (in this thread: worker threads load the registry without it)
    const run = await simulate({
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      detectors: [{ detector: fake, depth } as never],
      snrs: [8],
      maxVectors: 16,
      threads: 1,
      engine: 'cpu',
    });
    assert.equal(run.points[0]!.detector, `fake D=${depth}`);
  } finally {
    remove();
  }
  assert.ok(!DETECTORS.includes(fake) && !SOFT_DETECTORS.includes(fake));
  refusedFor(() => detect(inp, { detector: fake, modulation: 'qpsk' }), 'detector', 'fake after removal');
  assert.doesNotMatch(detectHelp(), /fake/);
});

test('checkDetectOptions keeps the values given (the modulation in its canonical spelling) and leaves absent ones out', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('16QAM', 'qam16', '16-qam', '16qam'),
      fc.integer({ min: 1, max: 64 }),
      (mod, passes) => {
        const o = checkDetectOptions({ detector: 'nway', modulation: mod, passes, llrClip: undefined }, 't()');
        assert.deepEqual(o, { detector: 'nway', modulation: '16qam', passes });
      },
    ),
  );
});
