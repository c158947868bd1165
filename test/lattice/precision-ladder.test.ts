/**
 * The precision ladder (src/lattice/precision): each rung exercised on bases that need it, every
 * output proven exactly (integral Gram-Schmidt: checkLLLExactBig; B_in Z = B_out in BigInt; equal
 * Gram determinants), the all-rungs-failed error, the CLI with integers past 2^53 in and out, and a
 * cross-check with fpylll on fresh latticegen bases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { LatticeMimoError } from '../../src/core/errors.js';
import { formatIntegerRows, parseFplll } from '../../src/lattice/fplll-format.js';
import { availableReferences, runLatticegen } from '../../bench/reference/fplll.js';
import { fpylllIsReducedMpfr } from '../../bench/reference/fpylll-mpfr.js';
import {
  applyTransformBig,
  checkLLLExactBig,
  determinantBig,
  type BigBasis,
} from '../../src/lattice/precision/exact.js';
import {
  ladderMaxIterations,
  lllIntegral,
  type LadderProgress,
  type Rung,
} from '../../src/lattice/precision/ladder.js';
import { defaultMaxIterations } from '../../src/lattice/validate.js';
import { reduceSync } from '../../src/lattice/reduce.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

/** Everything the ladder promises about one result, checked independently of its own proof. */
function assertProven(rows: bigint[][], r: ReturnType<typeof lllIntegral>, delta: number, eta = 0.51): void {
  const Bin: BigBasis = rows.map((x) => x.slice());
  const c = checkLLLExactBig(r.basis, delta, eta);
  assert.ok(c.ok, c.violations.join('; '));
  assert.deepEqual(applyTransformBig(Bin, r.transform), r.basis);
  const det = determinantBig(r.transform);
  assert.ok(det === 1n || det === -1n, `det U = ${det}`);
  assert.ok(r.proof.transform);
  // the ladder's own proof: the exact rung's integral Gram-Schmidt, or the certified float64 bound
  const exactRan = r.rungs.some((x) => x.rung === 'exact' && x.ok);
  const certified = !exactRan && r.certificate?.status === 'proven';
  assert.equal(
    r.proof.method,
    exactRan ? 'exact' : certified ? (r.certificate!.by === 'interval' ? 'interval' : 'certificate') : null,
  );
  assert.equal(r.proof.lll, exactRan || certified);
}

/** m x n integer rows with `bits`-bit entries (fast-check), full rank almost surely. */
const bigRows = (m: number, n: number, bits: number) =>
  fc
    .array(
      fc.array(fc.bigInt({ min: -(2n ** BigInt(bits)), max: 2n ** BigInt(bits) }), { minLength: n, maxLength: n }),
      { minLength: m, maxLength: m },
    )
    .filter((r) => checkLLLExactBig(r, 0.75, 1e9).violations.every((v) => !v.includes('depends')));

test('each rung alone, on random integer bases of 5 to 120 bits: output LLL-reduced exactly, B_in U = B_out, |det U| = 1', () => {
  const cases: [Rung[], number][] = [
    [['float64', 'exact'], 20],
    [['double-double', 'exact'], 40],
    [['quad-double', 'exact'], 120],
    [['exact'], 120],
  ];
  for (const [rungs, bits] of cases) {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 7 }),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(0.75, 0.99),
        fc.integer({ min: 5, max: bits }),
        (m, extra, delta, b) => {
          const rows = fc.sample(bigRows(m, m + extra, b), 1)[0]!;
          const r = lllIntegral(rows, { delta, rungs, prove: true });
          assert.equal(r.rungs[0]!.rung, rungs[0]);
          assert.ok(
            r.rungs.every((x) => x.ok),
            JSON.stringify(r.rungs),
          );
          assertProven(rows, r, delta);
        },
      ),
      { numRuns: 12 },
    );
  }
});

test('double-double rung with a wide exponent: entries near 2^700 (norms past the double range) reduced alone; with a small perturbation (dynamic range past the float64 certificate) proven by interval arithmetic or the exact rung; all proven exactly', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 600, max: 700 }), (m, e) => {
      const small = fc.sample(bigRows(m, m, 12), 1)[0]!;
      const c = 3n ** BigInt(Math.round(e / Math.log2(3)));
      const rows = small.map((r) => r.map((v) => v * c));
      const r = lllIntegral(rows, { rungs: ['double-double'] });
      assert.deepEqual(
        r.rungs.map((x) => [x.rung, x.ok]),
        [['double-double', true]],
      );
      assertProven(rows, r, 0.75);
      const perturbed = rows.map((row, i) => row.map((v, t) => v + BigInt((i + t) % 3)));
      const q = lllIntegral(perturbed);
      assert.ok(q.rungs.at(-1)!.rung === 'exact' || q.proof.method === 'interval', JSON.stringify(q.proof));
      assert.notEqual(q.proof.method, 'certificate');
      assertProven(perturbed, q, 0.75);
    }),
    { numRuns: 10 },
  );
});

test('knapsack bases of 800 to 1000 bits: double-double (106 bits) and quad-double (212) do not settle and the exact rung finishes from where they stopped; every rung failing is one typed error naming each', () => {
  let ddFailed = 0;
  fc.assert(
    fc.property(fc.integer({ min: 5, max: 9 }), fc.integer({ min: 800, max: 1000 }), (m, bits) => {
      // latticegen's r family: a column of random numbers of `bits` bits, then the identity
      const a = fc.sample(fc.bigInt({ min: 2n ** BigInt(bits - 1), max: 2n ** BigInt(bits) }), m);
      const rows = a.map((v, i) => [v, ...Array.from({ length: m }, (_, j) => (i === j ? 1n : 0n))]);
      const r = lllIntegral(rows, { delta: 0.99 });
      assert.deepEqual(
        r.rungs.map((x) => x.rung),
        ['double-double', 'quad-double', 'exact'],
      );
      if (!r.rungs[0]!.ok) ddFailed++;
      assertProven(rows, r, 0.99);
    }),
    { numRuns: 8 },
  );
  assert.ok(
    ddFailed > 0,
    'double-double settled on every knapsack of 800+ bits: this test no longer exercises the exact rung',
  );
  const rows = [
    [12345678901234567890123n, 1n, 0n, 0n],
    [98765432109876543210987n, 0n, 1n, 0n],
    [55555555555555555555557n, 0n, 0n, 1n],
  ];
  let err: unknown;
  try {
    lllIntegral(rows, { maxIterations: 1 });
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof LatticeMimoError && err.code === 'PRECISION_FAILURE', String(err));
  assert.match(
    err.message,
    /every rung of the precision ladder: double-double \(.*\); quad-double \(.*\); exact \(ITERATION_LIMIT/,
  );
});

test('bad input to lllIntegral: typed errors naming the problem', () => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as LatticeMimoError).code;
    }
    return 'none';
  };
  assert.equal(
    code(() =>
      lllIntegral([
        [1, 2],
        [2, 4],
      ]),
    ),
    'RANK_DEFICIENT',
  );
  assert.equal(
    code(() =>
      lllIntegral([
        [0n, 0n],
        [1n, 2n],
      ]),
    ),
    'ZERO_VECTOR',
  );
  assert.equal(
    code(() =>
      lllIntegral([
        [1.5, 2],
        [3, 4],
      ]),
    ),
    'INVALID_INPUT',
  );
  assert.equal(
    code(() =>
      lllIntegral([
        [1, 2, 3],
        [4, 5],
      ]),
    ),
    'SHAPE_MISMATCH',
  );
  assert.equal(
    code(() =>
      lllIntegral(
        [
          [1, 2],
          [3, 4],
        ],
        { delta: '0.9' as unknown as number },
      ),
    ),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() =>
      lllIntegral(
        [
          [1, 2],
          [3, 4],
        ],
        { rungs: ['quad' as Rung] },
      ),
    ),
    'INVALID_ARGUMENT',
  );
});

test('reduce command: integers past 2^53 in and out, fplll format, U B_in = B_out exactly', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 60, max: 300 }), (m, bits) => {
      const rows = fc.sample(bigRows(m, m, bits), 1)[0]!;
      const p = spawnSync(process.execPath, [CLI, 'reduce', '-of', 'bu', '-d', '0.99', '--check'], {
        input: formatIntegerRows(rows),
        encoding: 'utf8',
      });
      assert.equal(p.status, 0, p.stderr);
      assert.match(p.stderr, /check: PASS/);
      const [bText, uText] = p.stdout
        .split(/\n\]\n/)
        .filter((t) => t.trim() !== '')
        .map((t) => `${t}\n]\n`);
      const B = parseFplll(bText!).bigValues!,
        U = parseFplll(uText!).bigValues!;
      assert.deepEqual(applyTransformBig(rows, U), B);
      assert.ok(checkLLLExactBig(B, 0.99, 0.51).ok);
    }),
    { numRuns: 6 },
  );
});

test('reduce --json on integers past 2^53: numbers where exact, strings of digits past 2^53; other algorithms refuse them, naming the entry and lll', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 5 }), fc.integer({ min: 54, max: 200 }), (m, bits) => {
      const rows = fc.sample(bigRows(m, m, bits), 1)[0]!;
      // fast-check leans towards small values: make sure one entry is past 2^53, or jacobi takes the basis
      if (rows.flat().every((v) => (v < 0n ? -v : v) <= 2n ** 53n)) rows[0]![0] = 2n ** BigInt(bits) - 1n;
      const p = spawnSync(process.execPath, [CLI, 'reduce', '--json', '-of', 'bu'], {
        input: formatIntegerRows(rows),
        encoding: 'utf8',
      });
      assert.equal(p.status, 0, p.stderr);
      const doc = JSON.parse(p.stdout) as {
        basis: (number | string)[][];
        transform: (number | string)[][];
        check: { ok: boolean };
      };
      const big = (x: (number | string)[][]) =>
        x.map((r) =>
          r.map((v) => {
            assert.ok(
              typeof v === 'string'
                ? BigInt(v) > BigInt(Number.MAX_SAFE_INTEGER) || -BigInt(v) > BigInt(Number.MAX_SAFE_INTEGER)
                : Number.isSafeInteger(v),
            );
            return BigInt(v);
          }),
        );
      const B = big(doc.basis);
      assert.deepEqual(applyTransformBig(rows, big(doc.transform)), B);
      assert.ok(doc.check.ok && checkLLLExactBig(B, 0.75, 0.51).ok);
      const q = spawnSync(process.execPath, [CLI, 'reduce', '-a', 'jacobi'], {
        input: formatIntegerRows(rows),
        encoding: 'utf8',
      });
      assert.equal(q.status, 2);
      assert.match(q.stderr, /INVALID_INPUT.*exceeds 2\^53 - 1.*lll takes integer bases of any size/);
    }),
    { numRuns: 4 },
  );
});

test('a float64 breakdown that points to lll (lllIntegral) does so only where the ladder then succeeds: knapsack bases of 40 to 52 bits, lll / allswap / block; non-integral bases get no such advice', () => {
  let advised = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 8, max: 18 }),
      fc.integer({ min: 40, max: 52 }),
      fc.constantFrom('lll', 'allswap', 'block'),
      fc.boolean(),
      (m, bits, algorithm, integral) => {
        const n = m + 1;
        const xs = fc.sample(fc.bigInt({ min: 1n, max: 2n ** BigInt(bits) }), m);
        const rows = xs.map((x, j) => Array.from({ length: n }, (_, t) => (t === 0 ? x : t === j + 1 ? 1n : 0n)));
        const scale = integral ? 1 : 0.75;
        const data = Float64Array.from(rows.flat(), (v) => Number(v) * scale);
        try {
          reduceSync({ data, batch: 1, rows: n, cols: m }, { algorithm: algorithm as 'lll' });
        } catch (err) {
          assert.ok(err instanceof LatticeMimoError, String(err));
          // the advice names lllIntegral(); other messages may name the algorithm lll without advising it
          if (!/lllIntegral/.test(err.message)) return;
          assert.ok(integral, `advice for a non-integral basis: ${err.message}`);
          advised++;
          const r = lllIntegral(rows);
          assert.ok(r.proof.lll && r.proof.transform);
          assert.ok(checkLLLExactBig(r.basis, 0.75, 0.51).ok);
        }
      },
    ),
    { numRuns: 30 },
  );
  assert.ok(advised > 0, 'some of these bases break down in float64 (else the property says nothing)');
});

const refs = availableReferences();
const skip = !refs.latticegen || !refs.fpylll ? `reference tools missing: ${refs.missing.join('; ')}` : false;

test('fresh latticegen bases (u, r, q, n, knapsack-sized r), 20 to 200 bits: the ladder reduces each, proven exactly and accepted by fpylll', {
  skip,
}, async () => {
  const seed = String(Math.floor(Math.random() * 2 ** 30));
  const gens: string[][] = [
    ['u', '12', '20'],
    ['r', '10', '200'],
    ['q', '16', '8', '30', 'b'],
    ['n', '8', '20', 'b'],
    ['r', '14', '100'],
  ];
  for (const g of gens) {
    for (const delta of [0.75, 0.99]) {
      const text = await runLatticegen(['-randseed', seed, ...g]);
      const rows = parseFplll(text).bigValues!;
      const r = lllIntegral(rows, { delta, prove: true });
      assertProven(rows, r, delta);
      assert.ok(
        await fpylllIsReducedMpfr(formatIntegerRows(r.basis), delta, 0.51, 528),
        `fpylll rejects ${g.join(' ')} (seed ${seed}) at delta ${delta}`,
      );
    }
  }
});

test('onProgress: a report as each rung starts, then one every 1024 main-loop steps (progressEveryMs 0); positions inside the basis, furthest never falls within a rung, counts and time never fall; the double-double rung names its pass', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 18, max: 22 }),
      fc.integer({ min: 280, max: 320 }),
      fc.constantFrom(0.75, 0.99),
      (m, bits, delta) => {
        // latticegen's r family: a column of random numbers of `bits` bits (uniform: no bias to the
        // bounds, which would make an easy basis), then the identity
        const a = fc.sample(fc.noBias(fc.bigInt({ min: 2n ** BigInt(bits - 1), max: 2n ** BigInt(bits) })), m);
        const rows = a.map((v, i) => [v, ...Array.from({ length: m }, (_, j) => (i === j ? 1n : 0n))]);
        const reports: LadderProgress[] = [];
        const r = lllIntegral(rows, { delta, progressEveryMs: 0, onProgress: (p) => reports.push({ ...p }) });
        assertProven(rows, r, delta);
        const rungStages = new Set<string>(['float64', 'double-double', 'quad-double', 'exact']);
        const starts = reports.filter((p) => rungStages.has(p.stage) && p.vector === 0);
        assert.deepEqual(
          starts.map((p) => p.stage),
          r.rungs.map((x) => x.rung),
          'one start report a rung tried, in order',
        );
        let inRung = 0;
        reports.forEach((p, i) => {
          assert.equal(p.vectors, m);
          assert.ok(p.vector >= 0 && p.vector < m && p.furthest <= m, JSON.stringify(p));
          const q = reports[i - 1];
          if (!q) return;
          assert.ok(
            p.swaps >= q.swaps && p.iterations >= q.iterations && p.elapsedMs >= q.elapsedMs,
            `${JSON.stringify(q)} then ${JSON.stringify(p)}`,
          );
          const dd = [
            'double-double Gram-Schmidt',
            'double-double Gram-Schmidt, exact products past 2^100',
            'double-double Gram-Schmidt, exact G',
          ];
          if (p.stage === 'double-double' && p.vector > 0) {
            // the double-double rung names its pass: a float64 Gram-Schmidt first, double-double where that stops
            assert.ok(['float64 Gram-Schmidt', ...dd].includes(p.pass ?? ''), JSON.stringify(p));
          } else if (p.stage === 'quad-double' && p.vector > 0) {
            // the quad-double rung hands back to the double-double passes
            assert.ok(['quad-double Gram-Schmidt', ...dd].includes(p.pass ?? ''), JSON.stringify(p));
          } else assert.equal(p.pass, undefined, JSON.stringify(p));
          if (p.stage === q.stage && p.vector > 0) {
            inRung++;
            assert.ok(
              p.furthest >= q.furthest && p.furthest >= p.vector,
              `${JSON.stringify(q)} then ${JSON.stringify(p)}`,
            );
          }
        });
        // every 1024th step of a rung reports (these bases take thousands of swaps)
        assert.ok(
          r.rungs.some((x) => x.swaps >= 1024),
          `too easy a basis to watch: ${JSON.stringify(r.rungs)}`,
        );
        assert.ok(inRung > 0, `no report inside a rung (${JSON.stringify(r.rungs)})`);
      },
    ),
    { numRuns: 6 },
  );
  assert.throws(
    () =>
      lllIntegral(
        [
          [1n, 0n],
          [0n, 1n],
        ],
        { progressEveryMs: -1, onProgress: () => {} },
      ),
    (e: unknown) => e instanceof LatticeMimoError && e.code === 'INVALID_ARGUMENT',
  );
});

test("the ladder's default step bound: reduce()'s for entries within 53 bits, and as many times that as 53-bit words an entry takes", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 400 }),
      fc.integer({ min: 1, max: 2000 }),
      fc.integer({ min: 1, max: 200 }),
      (m, bits, more) => {
        const base = defaultMaxIterations(m);
        const b = ladderMaxIterations(m, bits);
        assert.equal(b, bits <= 53 ? base : base * Math.ceil(bits / 53));
        assert.ok(
          ladderMaxIterations(m, bits + more) >= b && ladderMaxIterations(m + 1, bits) >= b,
          'never smaller for larger entries or more vectors',
        );
      },
    ),
  );
});
