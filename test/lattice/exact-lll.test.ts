import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { checkLLL, gramSchmidt } from '../../src/lattice/check.js';
import { checkLLLExact } from '../../src/lattice/exact-lll.js';
import { reduce } from '../../src/lattice/reduce.js';
import { basisFromRows } from '../../src/lattice/fplll-format.js';

const seed = Math.floor(Math.random() * 2 ** 31);
const rng = new Philox(seed, 23);

test('a Lovasz condition that holds with equality is reduced, exactly; a delta one ulp-ish above is not', () => {
  // b_0 = (2, 0, 0), b_1 = (1, 1, 1): mu = 1/2, ||b*_1||^2 = 2 = (3/4 - 1/4) 4
  const B = [2, 0, 0, 1, 1, 1];
  assert.equal(checkLLLExact(B, 3, 2, 0.75, 0.51).ok, true);
  assert.deepEqual(checkLLLExact(B, 3, 2, 0.75 + 2 ** -40, 0.51).violations, ['Lovasz fails at k = 1']);
  // |mu| = 1/2 exactly against eta = 0.5: allowed; eta just below: not
  assert.equal(checkLLLExact(B, 3, 2, 0.5, 0.5).ok, true);
  assert.equal(checkLLLExact(B, 3, 2, 0.5, 0.5 - 2 ** -40).ok, false);
});

test('away from ties the exact verdict equals the float64 check, on random integer bases and their LLL reductions', async () => {
  let compared = 0;
  for (let t = 0; t < 60; t++) {
    const n = 2 + rng.int(8),
      m = 1 + rng.int(n);
    const B = Float64Array.from({ length: n * m }, () => rng.int(41) - 20);
    const delta = [0.75, 0.99, 0.5 + rng.int(50) / 100][rng.int(3)]!,
      eta = 0.51;
    const { mu, r } = gramSchmidt(B, n, m);
    if (r.some((x) => !(x > 1e-9))) {
      assert.equal(checkLLLExact(B, n, m, delta, eta).ok, false, `seed ${seed}: dependent columns`);
      continue;
    }
    // margins of every condition: skip bases with one within 1e-9 of its bound
    let near = false;
    for (let i = 0; i < m; i++) for (let j = 0; j < i; j++) near ||= Math.abs(Math.abs(mu[i + j * m]!) - eta) < 1e-9;
    for (let k = 1; k < m; k++) {
      const m1 = mu[k + (k - 1) * m]!;
      near ||= Math.abs((r[k]! + m1 * m1 * r[k - 1]!) / r[k - 1]! - delta) < 1e-9;
    }
    if (near) continue;
    assert.equal(
      checkLLLExact(B, n, m, delta, eta).ok,
      checkLLL(B, n, m, delta, eta, 0).ok,
      `seed ${seed}, basis ${t}`,
    );
    compared++;
    const rows = Array.from({ length: m }, (_, j) => Array.from(B.subarray(j * n, (j + 1) * n)));
    const red = await reduce(basisFromRows(rows), { engine: 'cpu', algorithm: 'lll', delta, eta });
    assert.equal(checkLLLExact(red.basis.data, n, m, delta, eta).ok, true, `seed ${seed}, basis ${t}: our LLL output`);
  }
  assert.ok(compared > 20, `seed ${seed}: only ${compared} bases away from ties`);
});

test('exact check: bad input gets a typed error', () => {
  assert.throws(() => checkLLLExact([1.5, 0, 0, 1], 2, 2, 0.75, 0.51), InvalidArgumentError);
  assert.throws(() => checkLLLExact([2 ** 60, 0, 0, 1], 2, 2, 0.75, 0.51), InvalidArgumentError);
  assert.throws(() => checkLLLExact([1, 0, 0, 1], 2, 2, NaN, 0.51), InvalidArgumentError);
});
