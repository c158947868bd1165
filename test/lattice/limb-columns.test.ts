/**
 * The hybrid store's exact columns (limb-columns.ts): every column update b_k -= sum_j X_j b_j,
 * whichever tiers its columns sit in (float64, limb pairs, 26-bit digits, BigInt), equals the BigInt
 * computation exactly, through growth, shrinking and swaps; and the ladder on 200-bit NTRU-like and
 * knapsack bases (digit-tier columns from the start) gives proven LLL-reduced output with B_in Z = B_out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ColumnSet, DIGIT_LIMIT, X_EXACT } from '../../src/lattice/precision/limb-columns.js';
import {
  applyTransformBig,
  checkLLLExactBig,
  determinantBig,
  type BigBasis,
} from '../../src/lattice/precision/exact.js';
import { lllIntegral } from '../../src/lattice/precision/ladder.js';
import { knapsack, ntru } from './families.js';

/** Bit sizes at and around every tier boundary (2^52, 2^101, the digit tier's 2^390) and between. */
const SIZES = [
  0, 1, 25, 26, 27, 51, 52, 53, 54, 77, 78, 99, 100, 101, 102, 103, 104, 130, 150, 200, 260, 312, 388, 389, 390, 391,
  420,
];

/** An entry below 2^bits: uniform, or at the edge (+-(2^bits - 1), +-2^(bits - 1)). */
const entry = (bits: number) =>
  bits === 0
    ? fc.constant(0n)
    : fc.oneof(
        fc.bigInt({ min: -(2n ** BigInt(bits)) + 1n, max: 2n ** BigInt(bits) - 1n }),
        fc.constantFrom(
          2n ** BigInt(bits) - 1n,
          -(2n ** BigInt(bits)) + 1n,
          2n ** BigInt(bits - 1),
          -(2n ** BigInt(bits - 1)),
        ),
        fc.constant(0n),
      );

/** A column of len entries below 2^bits, bits one of SIZES (then the column's tier follows). */
const column = (len: number) =>
  fc.constantFrom(...SIZES).chain((bits) => fc.array(entry(bits), { minLength: len, maxLength: len }));

/** A size-reduction multiplier: small, around 2^25 and 2^26 (the split into digits), up to 2^52, or wide (BigInt beside it). */
const multiplier = fc.oneof(
  fc.bigInt({ min: -3n, max: 3n }),
  fc.bigInt({ min: -(2n ** 26n) - 3n, max: 2n ** 26n + 3n }),
  fc.constantFrom(
    2n ** 25n,
    -(2n ** 25n),
    2n ** 25n + 1n,
    2n ** 26n - 1n,
    -(2n ** 26n) + 1n,
    2n ** 52n - 1n,
    -(2n ** 52n) + 1n,
  ),
  fc.bigInt({ min: -(2n ** 52n) + 1n, max: 2n ** 52n - 1n }),
  fc.bigInt({ min: 2n ** 52n, max: 2n ** 80n }).map((x) => -x),
  fc.bigInt({ min: 2n ** 52n, max: 2n ** 80n }),
);

/** One operation on the column set: an update of k by the columns nz below it, or a swap of k - 1 and k. */
type Op =
  | { kind: 'update'; k: number; js: number[]; xs: bigint[] }
  | { kind: 'reduce'; k: number; j: number }
  | { kind: 'swap'; k: number };

const op = (m: number): fc.Arbitrary<Op> =>
  fc.integer({ min: 1, max: m - 1 }).chain((k) =>
    fc.oneof(
      fc
        .uniqueArray(fc.integer({ min: 0, max: k - 1 }), { minLength: 1, maxLength: k })
        .chain((js) =>
          fc
            .array(multiplier, { minLength: js.length, maxLength: js.length })
            .map((xs): Op => ({ kind: 'update', k, js, xs })),
        ),
      fc.integer({ min: 0, max: k - 1 }).map((j): Op => ({ kind: 'reduce', k, j })),
      fc.constant<Op>({ kind: 'swap', k }),
    ),
  );

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

/**
 * Applies op to the column set and to the reference columns. 'reduce' takes X = round(<c_k, c_j> /
 * <c_j, c_j>) (size reduction: columns shrink and fall back a tier); 'update' the given multipliers.
 */
function apply(cs: ColumnSet, ref: bigint[][], o: Op): void {
  const m = ref.length;
  if (o.kind === 'swap') {
    cs.swap(o.k, o.k - 1);
    [ref[o.k], ref[o.k - 1]] = [ref[o.k - 1]!, ref[o.k]!];
    return;
  }
  const xd = new Float64Array(m),
    xs = new Array<bigint>(m).fill(0n),
    nz: number[] = [];
  const put = (j: number, X: bigint): void => {
    if (X === 0n) return;
    xd[j] = Number(X);
    if (!(Math.abs(xd[j]!) < X_EXACT)) xs[j] = X;
    nz.push(j);
  };
  if (o.kind === 'reduce') {
    const a = ref[o.k]!,
      b = ref[o.j]!;
    let n = 0n,
      d = 0n;
    for (let t = 0; t < a.length; t++) {
      n += a[t]! * b[t]!;
      d += b[t]! * b[t]!;
    }
    if (d === 0n) return;
    const q = (2n * abs(n) + d) / (2n * d);
    put(o.j, n < 0n ? -q : q);
  } else
    o.js.forEach((j, i) => {
      put(j, o.xs[i]!);
    });
  nz.sort((a, b) => a - b);
  if (nz.length === 0) return;
  cs.update(o.k, xd, xs, nz);
  const ck = ref[o.k]!;
  for (const j of nz) {
    const X = Math.abs(xd[j]!) < X_EXACT ? BigInt(xd[j]!) : xs[j]!;
    for (let t = 0; t < ck.length; t++) ck[t] = ck[t]! - X * ref[j]![t]!;
  }
}

/** Every column of cs equals the reference; tiers 1 to 3 keep |entry| <= max, and their ranges. */
function same(cs: ColumnSet, ref: bigint[][], what: string): void {
  for (let j = 0; j < ref.length; j++) {
    // a copy: big() writes into the set's own arrays
    assert.deepEqual(cs.big(j).slice(), ref[j], `${what}: column ${j} (tier ${cs.tier[j]})`);
    const top = ref[j]!.reduce((a, v) => (abs(v) > a ? abs(v) : a), 0n);
    const tier = cs.tier[j]!;
    if (tier <= 3)
      assert.ok(
        Number(top) <= cs.max[j]!,
        `${what}: column ${j} (tier ${tier}) has |entry| ${top} above its bound ${cs.max[j]}`,
      );
    if (tier === 1) assert.ok(top < 2n ** 53n);
    if (tier === 2) assert.ok(top < 2n ** 101n);
    // a digit-tier bound carries a 2^-30 relative margin over the result, itself below DIGIT_LIMIT
    if (tier === 3)
      assert.ok(
        cs.max[j]! < DIGIT_LIMIT * (1 + 2 ** -29),
        `${what}: column ${j} in the digit tier with bound ${cs.max[j]}`,
      );
    if (tier === 4) assert.ok(top >= 2n ** 388n, `${what}: column ${j} in BigInt while below 2^388`);
  }
}

test('column updates in every tier equal BigInt arithmetic exactly: random columns at the tier boundaries (2^52, 2^101, 2^150, 2^390), signs, zeros, multipliers up to 2^80, sequences of growth, size reduction and swaps', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 2, max: 7 }), fc.integer({ min: 1, max: 6 }))
        .chain(([m, len]) =>
          fc.tuple(
            fc.array(column(len), { minLength: m, maxLength: m }),
            fc.array(op(m), { minLength: 1, maxLength: 25 }),
          ),
        ),
      ([cols, ops]) => {
        const ref = cols.map((c) => c.slice());
        const cs = new ColumnSet(
          cols.map((c) => c.slice()),
          cols[0]!.length,
        );
        same(cs, ref, 'settled');
        ops.forEach((o, i) => {
          apply(cs, ref, o);
          same(cs, ref, `after op ${i} (${o.kind} at ${o.k})`);
        });
      },
    ),
    { numRuns: 400 },
  );
});

test('digit-tier columns shrink exactly: b_k = sum_j X_j b_j + r, updated by the X_j, leaves r (from 2^390 down to every tier), and copyDigits is within 2^-100 of the entry', () => {
  fc.assert(
    fc.property(
      fc
        .tuple(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 1, max: 6 }), fc.constantFrom(...SIZES))
        .chain(([m, len, rbits]) =>
          fc.tuple(
            fc.array(column(len), { minLength: m - 1, maxLength: m - 1 }),
            fc.array(fc.bigInt({ min: -(2n ** 52n) + 1n, max: 2n ** 52n - 1n }), {
              minLength: m - 1,
              maxLength: m - 1,
            }),
            fc.array(entry(rbits), { minLength: len, maxLength: len }),
          ),
        ),
      ([js, X, r]) => {
        const len = r.length,
          m = js.length + 1;
        // b_k = sum_j X_j b_j + r (below the digit tier's bound, or the case is skipped)
        const bk = r.slice();
        js.forEach((c, j) => {
          for (let t = 0; t < len; t++) bk[t] = bk[t]! + X[j]! * c[t]!;
        });
        const cols = [...js, bk];
        const cs = new ColumnSet(
          cols.map((c) => c.slice()),
          len,
        );
        const xd = new Float64Array(m),
          xs = new Array<bigint>(m).fill(0n),
          nz: number[] = [];
        X.forEach((x, j) => {
          if (x !== 0n) {
            xd[j] = Number(x);
            nz.push(j);
          }
        });
        cs.update(m - 1, xd, xs, nz);
        assert.deepEqual(cs.big(m - 1).slice(), r);
        const ref = [...js, r];
        same(cs, ref, 'shrunk');
        // the double-double copy of digit-tier columns
        const hi = new Float64Array(len),
          lo = new Float64Array(len);
        for (let j = 0; j < m; j++) {
          if (cs.tier[j] !== 3) continue;
          cs.copyDigits(j, hi, lo, 0);
          for (let t = 0; t < len; t++) {
            const v = ref[j]![t]!,
              err = abs(BigInt(hi[t]!) + BigInt(lo[t]!) - v);
            assert.ok(err <= abs(v) >> 100n, `copy of ${v}: ${hi[t]} + ${lo[t]}`);
          }
        }
      },
    ),
    { numRuns: 400 },
  );
});

/** <a, b> exactly. */
const dotBig = (a: readonly bigint[], b: readonly bigint[]): bigint => a.reduce((s, x, t) => s + x * b[t]!, 0n);

test('dotDigits: <b_i, b_j> of columns in tiers 1 to 3 exact before its rounding to a double-double (within 2^-100), also where the sum cancels to a tiny fraction of its terms, over 3000 entries of 15 digits of 2^26 - 1', () => {
  const big = 2n ** 388n - 1n;
  fc.assert(
    fc.property(
      fc.oneof(
        {
          weight: 9,
          arbitrary: fc
            .tuple(
              fc.integer({ min: 1, max: 40 }),
              fc.constantFrom(...SIZES.filter((b) => b < 389)),
              fc.constantFrom(...SIZES.filter((b) => b < 389)),
            )
            .chain(([len, bi, bj]) =>
              fc.tuple(
                fc.array(entry(bi), { minLength: len, maxLength: len }),
                fc.array(entry(bj), { minLength: len, maxLength: len }),
                fc.boolean(),
              ),
            ),
        },
        // the sums per 13-bit position pass 2^53 here unless carried between blocks of entries; the
        // crosswise pairing cancels all but <x, r>, so a lost bit in any position shows
        {
          weight: 1,
          arbitrary: fc
            .array(fc.bigInt({ min: -(2n ** 20n), max: 2n ** 20n }), { minLength: 3000, maxLength: 3000 })
            .map((r) => [new Array<bigint>(3000).fill(big), r, true] as const),
        },
      ),
      ([x, r, cancel]) => {
        // cancel: y pairs x's entries crosswise (x_2s y_2s + x_2s+1 y_2s+1 = 0) plus r, so <x, y> = <x, r>
        const y = cancel ? x.map((_, t) => (t % 2 === 0 ? (x[t + 1] ?? 0n) : -x[t - 1]!) + r[t]!) : r.slice();
        const cs = new ColumnSet([x.slice(), y.slice()], x.length);
        if (cs.tier[0] === 4 || cs.tier[1] === 4) return;
        const out = new Float64Array(2),
          s = dotBig(x, y);
        for (const [i, j] of [
          [0, 1],
          [1, 0],
          [0, 0],
          [1, 1],
        ] as const) {
          cs.dotDigits(i, j, out);
          const want = i === j ? dotBig(i ? y : x, i ? y : x) : s;
          const err = abs(BigInt(out[0]!) + BigInt(out[1]!) - want);
          assert.ok(err <= abs(want) >> 100n, `<${i}, ${j}> = ${want}, got ${out[0]} + ${out[1]}`);
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('ladder on NTRU-like (150 to 260 bits) and knapsack (150 to 300 bits) bases: reduced through the double-double rung, proven LLL-reduced, B_in Z = B_out exactly, det Z = +-1', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc
          .tuple(fc.integer({ min: 3, max: 9 }), fc.integer({ min: 150, max: 260 }))
          .chain(([d, bits]) => ntru(d, bits)),
        fc
          .tuple(fc.integer({ min: 5, max: 16 }), fc.integer({ min: 150, max: 300 }))
          .chain(([m, bits]) => knapsack(m, bits)),
      ),
      fc.constantFrom(0.75, 0.99),
      (rows, delta) => {
        const r = lllIntegral(rows, { delta });
        assert.ok(
          r.rungs.some((x) => x.rung === 'double-double' && x.ok),
          JSON.stringify(r.rungs),
        );
        assert.ok(r.proof.lll && r.proof.transform && r.proof.unimodular);
        const c = checkLLLExactBig(r.basis, delta, 0.51);
        assert.ok(c.ok, c.violations.join('; '));
        assert.deepEqual(applyTransformBig(rows as BigBasis, r.transform), r.basis);
        const det = determinantBig(r.transform);
        assert.ok(det === 1n || det === -1n, `det Z = ${det}`);
      },
    ),
    { numRuns: 16 },
  );
});
