import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Philox } from '../../src/core/rng.js';
import { bareissDet } from '../../src/lattice/check.js';
import { provablyFullRank, rankModP } from '../../src/lattice/exact-rank.js';
import { assertIndependent } from '../../src/lattice/validate.js';

const seed = Math.floor(Math.random() * 2 ** 31);
const rng = new Philox(seed, 17);

test('full rank modulo p agrees with the exact Bareiss determinant on random small integer matrices', () => {
  for (let t = 0; t < 200; t++) {
    const m = 2 + rng.int(5);
    const a = Float64Array.from({ length: m * m }, () => rng.int(5) - 2);
    const det = bareissDet(a, m);
    assert.equal(provablyFullRank(a, m, m), det !== 0n, `seed ${seed}: det ${det}`);
  }
});

test('a planted integer dependency is found; entries near 2^50 are handled exactly', () => {
  for (let t = 0; t < 20; t++) {
    const n = 3 + rng.int(10),
      m = 2 + rng.int(n - 1);
    const a = Float64Array.from({ length: n * m }, () => rng.int(2 ** 20) - 2 ** 19);
    const k = 1 + rng.int(m - 1);
    const c = rng.int(7) - 3,
      d = 1 + rng.int(3);
    for (let i = 0; i < n; i++) a[i + k * n] = c * a[i]! + d * a[i + (k - 1) * n]!;
    assert.equal(provablyFullRank(a, n, m), false, `seed ${seed}`);
    assert.ok(rankModP(a, n, m, 67108859) < m);
  }
  // x + 2^50 e_i style columns: independent, huge entries
  const big = Float64Array.from([2 ** 50, 1, 0, 2 ** 50 + 1, 1, 0, 0, 0, 1]);
  assert.equal(provablyFullRank(big, 3, 3), true);
});

test('assertIndependent accepts an exactly independent integer basis that float64 calls dependent', () => {
  // The third column is the sum of the first two plus (0, 0, 1): det = e^2, independent, but its
  // Gram-Schmidt residual is about 2^-45 of its length, below the float64 test's 1e-12.
  const e = 2 ** 45;
  const B = Float64Array.from([e, 0, 1, 0, e, 1, e, e, 3]);
  assert.doesNotThrow(() => assertIndependent(B, 3, 3));
  const dep = Float64Array.from([e, 0, 1, 0, e, 1, e, e, 2]);
  assert.throws(() => assertIndependent(dep, 3, 3), /dependent/);
});
