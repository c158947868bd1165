/**
 * The certified float64 proof of LLL reducedness (src/lattice/precision/certify.ts) against the
 * exact integral Gram-Schmidt (checkLLLExactBig) on fresh random bases: it may say 'inconclusive',
 * but never 'proven' for a basis that is not reduced nor 'not-reduced' for one that is, including
 * bases that meet or miss a condition by one unit at scales past 2^53; and it does prove bases that
 * are reduced with a margin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { certifyLLL } from '../../src/lattice/precision/certify.js';
import { checkLLLExactBig, exactLLL, integralGramSchmidt, type BigBasis } from '../../src/lattice/precision/exact.js';
import { lllIntegral } from '../../src/lattice/precision/ladder.js';

const ETA = 0.51;
const MARGIN = 2 ** -20;

/** m columns of n integers with up to `bits` bits, independent (checked exactly). */
const basis = (m: number, n: number, bits: number) =>
  fc
    .array(
      fc.array(fc.bigInt({ min: -(2n ** BigInt(bits)), max: 2n ** BigInt(bits) }), { minLength: n, maxLength: n }),
      { minLength: m, maxLength: m },
    )
    .filter((cols) => checkLLLExactBig(cols, 0.75, 1e9).violations.every((v) => !v.includes('depends')));

/** The certificate never contradicts the exact check; returns both verdicts. */
function agree(cols: BigBasis, delta: number): { status: string; exact: boolean } {
  const cert = certifyLLL(cols, cols[0]!.length, cols.length, delta, ETA);
  const exact = checkLLLExactBig(cols, delta, ETA).ok;
  if (cert.status === 'proven')
    assert.ok(
      exact,
      `certified a basis the exact check rejects: ${checkLLLExactBig(cols, delta, ETA).violations.join('; ')}`,
    );
  if (cert.status === 'not-reduced') assert.ok(!exact, `disproved a reduced basis: ${cert.reason}`);
  return { status: cert.status, exact };
}

/** Reduced with room to spare: the conditions hold with delta + 2^-20 and eta - 2^-20. */
const clearlyReduced = (cols: BigBasis, delta: number) => checkLLLExactBig(cols, delta + MARGIN, ETA - MARGIN).ok;

/** Whether float64 computes every Gram entry exactly: each sum of |products| at most 2^52. */
function exactGram(cols: BigBasis): boolean {
  for (const a of cols)
    for (const b of cols) {
      let s = 0n;
      for (let t = 0; t < a.length; t++) {
        const p = a[t]! * b[t]!;
        s += p < 0n ? -p : p;
      }
      if (s > 2n ** 52n) return false;
    }
  return true;
}

test('random bases of 2 to 12 vectors, 3 to 200 bits, reduced exactly or not at all: the certificate agrees with the exact check, and proves every basis reduced with a margin (Gram products past 2^53 included)', () => {
  let decided = 0,
    wideGram = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 12 }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 3, max: 200 }),
      fc.constantFrom(0.75, 0.99),
      fc.boolean(),
      fc.integer(),
      (m, extra, bits, delta, reduce, seed) => {
        const cols = fc.sample(basis(m, m + extra, bits), { numRuns: 1, seed })[0]!;
        if (reduce)
          exactLLL(
            cols,
            cols.map(() => []),
            delta,
            ETA,
            1e6,
            { swaps: 0, sizeReductions: 0, iterations: 0 },
          );
        const { status } = agree(cols, delta);
        if (clearlyReduced(cols, delta)) {
          assert.equal(status, 'proven');
          decided++;
          if (!exactGram(cols)) wideGram++;
        }
      },
    ),
    { numRuns: 200 },
  );
  assert.ok(
    decided >= 20 && wideGram >= 5,
    `only ${decided} bases were reduced with a margin, ${wideGram} with products past 2^53`,
  );
});

/**
 * b_0 = (N, 0), b_1 = (x, y) at scale N = 2^e (Gram entries past 2^53 for e > 26): |mu_10| = x / N
 * and the Lovasz condition delta N^2 <= x^2 + y^2 sit at their bounds, then move by -2..2 units;
 * further vectors M e_i plus small noise keep the rest reduced. Coordinates are permuted and signs
 * flipped at random.
 */
function hairBasis(
  e: number,
  m: number,
  which: 'size' | 'lovasz',
  o1: number,
  o2: number,
  delta: number,
  noise: bigint[],
  perm: number[],
  signs: boolean[],
): BigBasis {
  const N = 1n << BigInt(e);
  const eta = BigInt(Math.round(ETA * 100));
  const x = which === 'size' ? (eta * N) / 100n + BigInt(o1) : (N >> 3n) + BigInt(o1);
  const dn = BigInt(Math.round(delta * 100));
  const target = (dn * N * N) / 100n - x * x;
  let y = sqrtBig(target);
  if (y * y < target) y++;
  y += BigInt(o2);
  if (which === 'size') y = N; // Lovasz comfortably met
  const n = m;
  const cols: BigBasis = [];
  const v0 = new Array<bigint>(n).fill(0n);
  v0[0] = N;
  cols.push(v0);
  const v1 = new Array<bigint>(n).fill(0n);
  v1[0] = x;
  v1[1] = y;
  cols.push(v1);
  for (let i = 2; i < m; i++) {
    const v = new Array<bigint>(n).fill(0n);
    v[0] = noise[(2 * i) % noise.length]!;
    v[1] = noise[(2 * i + 1) % noise.length]!;
    v[i] = 4n * N;
    cols.push(v);
  }
  return cols.map((c) => perm.map((p, t) => (signs[t] ? -c[p]! : c[p]!)));
}

/** floor(sqrt(a)) by Newton's iteration on integers. */
function sqrtBig(a: bigint): bigint {
  if (a < 2n) return a < 0n ? 0n : a;
  let x = a,
    y = (x + 1n) >> 1n;
  while (y < x) {
    x = y;
    y = (x + a / x) >> 1n;
  }
  return x;
}

test('bases reduced or not by one unit (size and Lovasz at their bounds, scales 2^10 to 2^70): never a wrong proof nor a wrong disproof', () => {
  const counts = { proven: 0, 'not-reduced': 0, inconclusive: 0 };
  fc.assert(
    fc.property(
      fc.integer({ min: 10, max: 70 }),
      fc.integer({ min: 2, max: 7 }),
      fc.constantFrom('size' as const, 'lovasz' as const),
      fc.integer({ min: -2, max: 2 }),
      fc.integer({ min: -2, max: 2 }),
      fc.constantFrom(0.75, 0.99),
      fc.array(fc.bigInt({ min: -3n, max: 3n }), { minLength: 4, maxLength: 4 }),
      fc.integer(),
      fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
      (e, m, which, o1, o2, delta, noise, seed, signs) => {
        const perm = fc.sample(fc.shuffledSubarray([...Array(m).keys()], { minLength: m, maxLength: m }), {
          numRuns: 1,
          seed,
        })[0]!;
        const cols = hairBasis(e, m, which, o1, o2, delta, noise, perm, signs);
        if (checkLLLExactBig(cols, 0.75, 1e9).violations.some((v) => v.includes('depends'))) return;
        counts[agree(cols, delta).status as keyof typeof counts]++;
      },
    ),
    { numRuns: 300 },
  );
  // the family does reach both sides of each bound, and the certificate decides the small scales
  assert.ok(counts.proven > 0 && counts['not-reduced'] > 0, JSON.stringify(counts));
});

test('float64 and BigInt inputs give the same verdict; a basis with a dependent vector is never proven', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 10 }),
      fc.integer({ min: 3, max: 40 }),
      fc.constantFrom(0.75, 0.99),
      fc.integer(),
      (m, bits, delta, seed) => {
        const cols = fc.sample(basis(m, m, bits), { numRuns: 1, seed })[0]!;
        exactLLL(
          cols,
          cols.map(() => []),
          delta,
          ETA,
          1e6,
          { swaps: 0, sizeReductions: 0, iterations: 0 },
        );
        const f = new Float64Array(m * m);
        cols.forEach((c, j) => {
          c.forEach((v, t) => {
            f[j * m + t] = Number(v);
          });
        });
        assert.equal(certifyLLL(f, m, m, delta, ETA).status, certifyLLL(cols, m, m, delta, ETA).status);
        // b_{m-1} replaced by 2 b_0 (+ b_1 where m > 2): dependent
        const dep = cols.map((c) => c.slice());
        dep[m - 1] = cols[0]!.map((v, t) => 2n * v + (m > 2 ? cols[1]![t]! : 0n));
        assert.notEqual(certifyLLL(dep, m, m, delta, ETA).status, 'proven');
      },
    ),
    { numRuns: 60 },
  );
});

test('lllIntegral proves its output with the certificate where it can, and the exact rung runs where it cannot; every output exactly LLL-reduced', () => {
  let certified = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 10 }),
      fc.integer({ min: 5, max: 120 }),
      fc.constantFrom(0.75, 0.99),
      fc.integer(),
      (m, bits, delta, seed) => {
        const cols = fc.sample(basis(m, m + 1, bits), { numRuns: 1, seed })[0]!;
        const r = lllIntegral(cols, { delta });
        assert.ok(checkLLLExactBig(r.basis, delta, ETA).ok);
        const exactRan = r.rungs.some((x) => x.rung === 'exact' && x.ok);
        // where the float64 bound cannot decide, interval arithmetic may prove it before the exact rung
        assert.equal(
          r.proof.method,
          exactRan ? 'exact' : r.certificate?.by === 'interval' ? 'interval' : 'certificate',
        );
        if (!exactRan) {
          assert.equal(r.certificate?.status, 'proven');
          certified++;
        } else if (r.certificate) assert.notEqual(r.certificate.status, 'proven');
        // without the certificate, the exact rung always proves it
        const e = lllIntegral(cols, { delta, certify: false });
        assert.equal(e.proof.method, 'exact');
      },
    ),
    { numRuns: 40 },
  );
  assert.ok(certified > 20, `certified ${certified} of 40`);
});

/** num / den as a double, rounded (BigInt operands of any size). */
function ratio(num: bigint, den: bigint): number {
  const shift = BigInt(Math.max(0, den.toString(2).length - num.toString(2).length + 60));
  return Number((num << shift) / den) / 2 ** Number(shift);
}

test('reduced bases of 3 to 20 vectors, 10 to 120 bits, checked with delta and eta set at their own tightest Lovasz ratio and largest |mu|, moved by 2^-8 to 2^-50 either way: never a wrong proof nor a wrong disproof', () => {
  const counts = { proven: 0, 'not-reduced': 0, inconclusive: 0 };
  fc.assert(
    fc.property(
      fc.integer({ min: 3, max: 20 }),
      fc.integer({ min: 10, max: 120 }),
      fc.constantFrom(0.75, 0.99),
      fc.integer({ min: -1, max: 1 }),
      fc.integer({ min: 8, max: 50 }),
      fc.boolean(),
      fc.integer(),
      (m, bits, delta, side, e, onLovasz, seed) => {
        const cols = fc.sample(basis(m, m + 1, bits), { numRuns: 1, seed })[0]!;
        exactLLL(
          cols,
          cols.map(() => []),
          delta,
          ETA,
          1e6,
          { swaps: 0, sizeReductions: 0, iterations: 0 },
        );
        const gs = integralGramSchmidt(cols);
        if ('dependent' in gs) return;
        const { d, lambda } = gs;
        let tight = Infinity,
          mu = 0;
        for (let k = 1; k < m; k++) {
          const l = lambda[k]![k - 1]!;
          tight = Math.min(tight, ratio(d[k + 1]! * d[k - 1]! + l * l, d[k]! * d[k]!));
          for (let j = 0; j < k; j++) {
            const a = lambda[k]![j]!;
            mu = Math.max(mu, ratio(a < 0n ? -a : a, d[j + 1]!));
          }
        }
        const dlt = onLovasz ? tight + side * 2 ** -e : delta;
        const eta = onLovasz ? ETA : mu + side * 2 ** -e;
        if (!(dlt > 0.25 && dlt < 1) || !(eta > 0)) return;
        const cert = certifyLLL(cols, m + 1, m, dlt, eta);
        const exact = checkLLLExactBig(cols, dlt, eta).ok;
        if (cert.status === 'proven')
          assert.ok(
            exact,
            `certified at delta ${dlt}, eta ${eta}: ${checkLLLExactBig(cols, dlt, eta).violations.join('; ')}`,
          );
        if (cert.status === 'not-reduced') assert.ok(!exact, `disproved a reduced basis: ${cert.reason}`);
        counts[cert.status]++;
      },
    ),
    { numRuns: 150 },
  );
  // the wider margins are decided, on both sides
  assert.ok(counts.proven > 10 && counts['not-reduced'] > 10, JSON.stringify(counts));
});

test("the exact rung's progress watch: each Gram-Schmidt row as it starts (0 .. m-1 in order), then main-loop positions inside the basis; the output is reduced", () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 14 }), fc.integer({ min: 3, max: 60 }), fc.integer(), (m, bits, seed) => {
      const cols = fc.sample(basis(m, m, bits), { numRuns: 1, seed })[0]!;
      const seen: number[] = [];
      exactLLL(
        cols,
        cols.map(() => []),
        0.99,
        ETA,
        1e6,
        { swaps: 0, sizeReductions: 0, iterations: 0, watch: (k) => seen.push(k) },
      );
      assert.deepEqual(
        seen.slice(0, m),
        Array.from({ length: m }, (_, i) => i),
        'the rows first, in order',
      );
      assert.ok(
        seen.slice(m).every((k) => k >= 1 && k < m),
        `main-loop positions ${seen.slice(m).join(' ')}`,
      );
      assert.ok(checkLLLExactBig(cols, 0.99, ETA).ok);
    }),
    { numRuns: 100 },
  );
});
