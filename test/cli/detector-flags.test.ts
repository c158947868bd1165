/**
 * The detector flags of `detect` and `simulate`, generated from the registry (src/cli/detector-
 * options.ts): every option with a flag is in both commands' help with its owner, doc line and
 * default; a flag is taken for the detectors whose option it is and refused, saying why, for the
 * others; the command line takes exactly the values the API takes (the same checks); and the
 * --detector list's name:ARG forms come from the entries' list arguments.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { InvalidArgumentError } from '../../src/core/errors.js';
import type { OptionSpec, ValueCheck } from '../../src/core/options.js';
import { checkDetectOptions, inapplicableReason } from '../../src/mimo/options.js';
import { DETECTORS, detectorEntry } from '../../src/mimo/registry.js';
import type { Detector } from '../../src/mimo/types.js';
import { type DetectorFlag, detectorFlags, listForms } from '../../src/cli/detector-options.js';
import { detectHelp, parseDetectArgs } from '../../src/cli/detect.js';
import { parseSimulateArgs, simulateHelp } from '../../src/cli/simulate.js';

const DETECT_COMMON = ['engine', 'soft', 'llrClip', 'maxNodes', 'onBudget'] as const;
const SIMULATE_COMMON = ['llrClip', 'maxNodes', 'onBudget'] as const;

/** A text the flag's check accepts: the low end of an integer range, a choice, a list of one. */
function validText(check: ValueCheck<unknown>): string {
  if (check.item) return validText(check.item);
  if (check.kind === 'integer') return /^\[(-?\d+)/.exec(check.range ?? '')?.[1] ?? '1';
  if (check.kind === 'number') {
    // the middle of a bounded range ('[0, 1]', '(0, 1)'), else 1.5
    const m = /^[[(](-?[\d.e+-]+), (-?[\d.e+-]+)[\])]$/.exec(check.range ?? '');
    return m ? String((Number(m[1]) + Number(m[2])) / 2) : '1.5';
  }
  if (check.kind === 'choice') return check.choices![check.choices!.length - 1]!;
  return 'x';
}

/** The value the API gets for a flag's valid text. */
const flagArgs = (f: DetectorFlag): string[] => [`--${f.flag}`, validText(f.spec)];

/** Flags some detector takes on 4x4 16-QAM without another option to go with it. */
function applies(f: DetectorFlag, d: Detector): boolean {
  return inapplicableReason(f.path[0]!, d) === null;
}

test('every detector option with a flag is in both commands, in help with whose it is, its doc line and its default', () => {
  for (const [help, flags] of [
    [detectHelp(), detectorFlags(DETECT_COMMON)],
    [simulateHelp(), detectorFlags(SIMULATE_COMMON)],
  ] as const) {
    const flat = help.replace(/\s+/g, ' ');
    for (const f of flags) {
      const head = `--${f.flag}${f.metavar ? ` ${f.metavar}` : ''}`;
      assert.ok(flat.includes(head), `help lists ${head}`);
      assert.ok(flat.includes(f.spec.doc), `help has the doc line of ${head}`);
      if (f.owners)
        assert.ok(flat.includes(`${head} ${f.owners.join(', ')} only:`), `help names ${f.owners} for ${head}`);
      if (f.spec.default !== undefined) assert.ok(flat.includes(`(default ${String(f.spec.default)})`), head);
    }
    for (const d of DETECTORS) assert.ok(flat.includes(`${d} ${detectorEntry(d)!.description}`), `help describes ${d}`);
  }
  // every entry option with a CliFlag (or nested fields with them) has its flag, once
  const flags = detectorFlags(DETECT_COMMON).map((f) => f.flag);
  assert.equal(new Set(flags).size, flags.length, 'no flag twice');
  for (const d of DETECTORS) {
    for (const spec of Object.values(detectorEntry(d)!.options) as OptionSpec[]) {
      for (const s of [spec, ...(Object.values(spec.fields ?? {}) as OptionSpec[])])
        if (s.cli) assert.ok(flags.includes(s.cli.flag), `${d}: --${s.cli.flag}`);
    }
  }
  assert.deepEqual(listForms(), ['kbest:K', 'nway:N', 'ep:N', 'mmse-pic:N']);
});

test('detect: each flag is taken for the detectors it applies to and refused, naming it and why, for the others', () => {
  const flags = detectorFlags(DETECT_COMMON);
  fc.assert(
    fc.property(fc.constantFrom(...DETECTORS), fc.constantFrom(...flags), (d, f) => {
      const argv = ['--detector', d, '--mod', '16qam', ...flagArgs(f)];
      if (applies(f, d)) {
        const opts = parseDetectArgs(argv).opts as unknown as Record<string, unknown>;
        let at: unknown = opts;
        for (const k of f.path) at = (at as Record<string, unknown>)[k];
        assert.notEqual(at, undefined, `${d} --${f.flag} lands at ${f.path.join('.')}`);
        // what the command line builds, the API takes
        checkDetectOptions(opts, 'detect()');
      } else {
        assert.throws(
          () => parseDetectArgs(argv),
          (e: unknown) =>
            e instanceof InvalidArgumentError &&
            e.details?.option === `--${f.flag}` &&
            e.message.startsWith(`--${f.flag} does not apply: `) &&
            e.message.includes(d),
          `${d} --${f.flag}`,
        );
      }
    }),
    { numRuns: 300 },
  );
});

test('the command line takes exactly the integers the API takes (--k, --passes, --max-nodes, --psd-paths)', () => {
  const cases: [Detector, string, (n: number) => Record<string, unknown>][] = [
    ['kbest', 'k', (n) => ({ k: n })],
    ['nway', 'passes', (n) => ({ passes: n })],
    ['sphere', 'max-nodes', (n) => ({ maxNodes: n })],
    ['psd', 'psd-paths', (n) => ({ psd: { paths: [n] } })],
  ];
  fc.assert(
    fc.property(fc.constantFrom(...cases), fc.integer({ min: -10, max: 1 << 17 }), ([d, flag, opt], n) => {
      let api = true;
      try {
        checkDetectOptions({ detector: d, modulation: 'qpsk', ...opt(n) }, 'detect()');
      } catch (e) {
        assert.ok(e instanceof InvalidArgumentError);
        api = false;
      }
      let cli = true;
      try {
        parseDetectArgs(['--detector', d, '--mod', 'qpsk', `--${flag}`, String(n)]);
      } catch (e) {
        assert.ok(e instanceof InvalidArgumentError && e.message.includes(`--${flag}`), String(e));
        cli = false;
      }
      assert.equal(cli, api, `${d} --${flag} ${n}: command line ${cli}, API ${api}`);
    }),
    { numRuns: 400 },
  );
});

test('simulate: a flag goes to every listed detector that takes it, and is refused when none does', () => {
  const flags = detectorFlags(SIMULATE_COMMON).filter((f) => f.flag !== 'llr-clip');
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.constantFrom(...DETECTORS), { minLength: 1, maxLength: 4 }),
      fc.constantFrom(...flags),
      (list, f) => {
        const argv = ['--detector', list.join(','), ...flagArgs(f)];
        if (list.some((d) => applies(f, d))) {
          const got = parseSimulateArgs(argv).options.detectors;
          for (const [i, d] of list.entries()) {
            const o = got[i] as unknown as Record<string, unknown>;
            assert.equal(o.detector, d);
            assert.equal(o[f.path[0]!] !== undefined, applies(f, d), `${d} --${f.flag}`);
          }
        } else {
          assert.throws(
            () => parseSimulateArgs(argv),
            (e: unknown) =>
              e instanceof InvalidArgumentError && e.message.startsWith(`--${f.flag} does not apply: no `),
            `${list} --${f.flag}`,
          );
        }
      },
    ),
    { numRuns: 300 },
  );
  // name:ARG sets the entry's list option, before the flag; other detectors take no argument
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 64 }), (a, b) => {
      const d = parseSimulateArgs(['--detector', `kbest:${a},kbest,nway:${b}`, '--k', String(b)]).options.detectors;
      assert.deepEqual(d, [
        { detector: 'kbest', k: a },
        { detector: 'kbest', k: b },
        { detector: 'nway', passes: b },
      ]);
    }),
  );
  for (const bad of ['zf:2', 'sphere:1', 'kbest:0', 'nway:65', 'kbest:2:3', 'kbest:x'])
    assert.throws(() => parseSimulateArgs(['--detector', bad]), InvalidArgumentError, bad);
});
