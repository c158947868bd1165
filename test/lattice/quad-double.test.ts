/**
 * Quad-double arithmetic (quad-double.ts) against exact rational arithmetic in BigInt: s - a b and
 * a / b to about 2^-210 of their terms (also where the difference cancels to a tiny fraction of
 * them), renormalisation exact, integers rounded to quad-doubles and back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { div, fromBig, renorm, roundToBig, subMul } from '../../src/lattice/precision/quad-double.js';

/** An exact dyadic number n 2^e. */
interface Exact {
  n: bigint;
  e: number;
}

/** A finite double exactly. */
function exactOf(x: number): Exact {
  assert.ok(Number.isFinite(x), `${x} is not finite`);
  let y = x,
    e = 0;
  while (!Number.isInteger(y)) {
    y *= 2;
    e--;
  }
  return { n: BigInt(y), e };
}
const align = (a: Exact, e: number): bigint => a.n << BigInt(a.e - e);
const add = (a: Exact, b: Exact): Exact => {
  const e = Math.min(a.e, b.e);
  return { n: align(a, e) + align(b, e), e };
};
const neg = (a: Exact): Exact => ({ n: -a.n, e: a.e });
const mul = (a: Exact, b: Exact): Exact => ({ n: a.n * b.n, e: a.e + b.e });
const abs = (a: Exact): Exact => ({ n: a.n < 0n ? -a.n : a.n, e: a.e });
/** a <= b 2^-bits. */
const within = (a: Exact, b: Exact, bits: number): boolean => {
  const e = Math.min(a.e, b.e - bits);
  return align(abs(a), e) <= align(abs(b), e + bits);
};
const sum = (xs: ArrayLike<number>): Exact => Array.from(xs).map(exactOf).reduce(add, { n: 0n, e: 0 });

/** A quad-double: a random integer of 1 to 320 bits rounded (fromBig), times 2^scale (products stay in the double range). */
const qd = fc
  .tuple(fc.integer({ min: 1, max: 320 }), fc.integer({ min: -150, max: 150 }), fc.boolean())
  .chain(([bits, scale, negative]) =>
    fc.bigInt({ min: 1n, max: 2n ** BigInt(bits) }).map((v) => {
      const out = new Float64Array(4);
      fromBig(negative ? -v : v, out);
      for (let i = 0; i < 4; i++) out[i] = out[i]! * 2 ** scale;
      return out;
    }),
  );

const limbsOrdered = (q: Float64Array): boolean =>
  q.every((v, i) => i === 0 || Math.abs(v) <= Math.abs(q[i - 1]!) * 2 ** -48 || v === 0);

test('subMul: s - a b within 2^-205 of |s| + |a b|, also where s cancels a b to a tiny fraction; limbs in decreasing order', () => {
  const out = new Float64Array(4);
  fc.assert(
    fc.property(qd, qd, qd, fc.boolean(), (s0, a, b, cancel) => {
      const s = s0.slice();
      if (cancel) {
        // s = a b rounded to a quad-double (plus s's own low part): the difference is far below the terms
        const p = mul(sum(a), sum(b));
        fromBig(p.n, s);
        const scale = 2 ** p.e;
        if (!Number.isFinite(scale) || scale === 0) return;
        for (let i = 0; i < 4; i++) s[i] = s[i]! * scale;
      }
      subMul(s[0]!, s[1]!, s[2]!, s[3]!, a[0]!, a[1]!, a[2]!, a[3]!, b[0]!, b[1]!, b[2]!, b[3]!, out);
      const want = add(sum(s), neg(mul(sum(a), sum(b))));
      const err = add(sum(out), neg(want));
      assert.ok(within(err, add(abs(sum(s)), abs(mul(sum(a), sum(b)))), 205), `error ${err.n} 2^${err.e}`);
      assert.ok(limbsOrdered(out), `limbs ${Array.from(out)}`);
    }),
    { numRuns: 400 },
  );
});

test('div: a / b within 2^-205 relative (|q b - a| <= 2^-205 |a|)', () => {
  const out = new Float64Array(4);
  fc.assert(
    fc.property(qd, qd, (a, b) => {
      div(a[0]!, a[1]!, a[2]!, a[3]!, b[0]!, b[1]!, b[2]!, b[3]!, out);
      const err = add(mul(sum(out), sum(b)), neg(sum(a)));
      assert.ok(within(err, sum(a), 205), `a / b off by ${err.n} 2^${err.e}`);
    }),
    { numRuns: 400 },
  );
});

test('renorm: the four limbs sum exactly to the four inputs, largest first', () => {
  const out = new Float64Array(4);
  const part = fc
    .tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.integer({ min: -200, max: 200 }))
    .map(([x, e]) => x * 2 ** e);
  fc.assert(
    fc.property(part, part, part, part, (a, b, c, d) => {
      renorm(a, b, c, d, out);
      const e = add(sum(out), neg(add(sum([a, b]), sum([c, d]))));
      assert.equal(e.n, 0n, 'renorm is exact');
      assert.ok(Math.abs(out[1]!) <= Math.abs(out[0]!) * 2 ** -52 || out[1] === 0, `limbs ${Array.from(out)}`);
    }),
    { numRuns: 400 },
  );
});

test('fromBig and roundToBig: integers of up to 1000 bits to a quad-double within 2^-210, and back to the nearest integer exactly', () => {
  const out = new Float64Array(4);
  fc.assert(
    fc.property(
      fc.bigInt({ min: -(2n ** 900n), max: 2n ** 900n }),
      fc.integer({ min: 0, max: 100 }),
      fc.bigInt({ min: 0n, max: 2n ** 60n }),
      (v, up, frac) => {
        const x = v << BigInt(up);
        fromBig(x, out);
        const err = add(sum(out), neg({ n: x, e: 0 }));
        assert.ok(within(err, { n: x, e: 0 }, 210), `${x}: off by ${err.n} 2^${err.e}`);
        // a quad-double with a fraction: v + frac / 2^60 rounds to v or v + 1
        fromBig((v << 60n) + frac, out);
        for (let i = 0; i < 4; i++) out[i] = out[i]! * 2 ** -60;
        const exact = sum(out);
        const r = roundToBig(out[0]!, out[1]!, out[2]!, out[3]!);
        assert.ok(
          within(add({ n: r, e: 0 }, neg(exact)), { n: 1n, e: -1 }, 0),
          `round(${exact.n} 2^${exact.e}) = ${r}`,
        );
      },
    ),
    { numRuns: 300 },
  );
});
