import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Philox } from '../../src/core/rng.js';
import { identity } from '../../src/core/matrix.js';
import {
  applyTransform,
  bareissDet,
  checkLagrangePairs,
  checkLLL,
  checkUnimodular,
  gramSchmidt,
  qualityMetrics,
} from '../../src/lattice/check.js';

const seed = Math.floor(Math.random() * 2 ** 31);
const rng = new Philox(seed, 11);
const msg = (s: string) => `${s} (seed ${seed})`;

/** A random unimodular matrix: a product of random elementary integer column operations and swaps. */
function randomUnimodular(m: number, ops: number): Float64Array {
  const z = identity(m);
  for (let t = 0; t < ops; t++) {
    const i = rng.int(m),
      j = rng.int(m);
    if (i === j) continue;
    if (rng.int(4) === 0) {
      for (let r = 0; r < m; r++) {
        const a = z[r + i * m]!;
        z[r + i * m] = z[r + j * m]!;
        z[r + j * m] = a;
      }
    } else {
      const q = rng.int(5) - 2;
      for (let r = 0; r < m; r++) z[r + j * m]! += q * z[r + i * m]!;
    }
  }
  return z;
}

test('checkUnimodular accepts random unimodular matrices with det +-1', () => {
  for (let trial = 0; trial < 30; trial++) {
    const m = 2 + rng.int(20);
    const z = randomUnimodular(m, 5 * m);
    const c = checkUnimodular(z, m);
    assert.ok(c.ok, msg(`m=${m}`));
    assert.ok(c.det === 1n || c.det === -1n);
    assert.equal(c.det, bareissDet(z, m), msg('sign of det agrees with Bareiss'));
  }
});

test('checkUnimodular rejects non-unimodular and non-integer matrices', () => {
  for (let trial = 0; trial < 30; trial++) {
    const m = 2 + rng.int(8);
    const z = randomUnimodular(m, 4 * m);
    const k = rng.int(m);
    for (let r = 0; r < m; r++) z[r + k * m]! *= 2; // det doubles
    const c = checkUnimodular(z, m);
    assert.equal(c.ok, false, msg('scaled column'));
    assert.equal(c.det! * c.det!, 4n);
  }
  const z = identity(3);
  z[4] = 0.5;
  assert.equal(checkUnimodular(z, 3).integer, false);
});

test('bareissDet equals the float determinant of small random integer matrices', () => {
  for (let trial = 0; trial < 30; trial++) {
    const a = Float64Array.from({ length: 9 }, () => rng.int(21) - 10);
    const det =
      a[0]! * (a[4]! * a[8]! - a[7]! * a[5]!) -
      a[3]! * (a[1]! * a[8]! - a[7]! * a[2]!) +
      a[6]! * (a[1]! * a[5]! - a[4]! * a[2]!);
    assert.equal(bareissDet(a, 3), BigInt(det));
  }
});

test('checkLLL: a non-size-reduced basis fails, and its Gram-Schmidt reconstructs B', () => {
  const n = 5,
    m = 4;
  const B = Float64Array.from({ length: n * m }, () => rng.normal());
  const { mu, r } = gramSchmidt(B, n, m);
  for (let j = 0; j < m; j++) assert.ok(r[j]! > 0);
  // b_1 += 7 b_0 adds 7 to mu_10 = <b_1, b_0> / |b_0|^2
  let d10 = 0,
    d00 = 0;
  for (let t = 0; t < n; t++) {
    d10 += B[n + t]! * B[t]!;
    d00 += B[t]! * B[t]!;
  }
  const mu10 = d10 / d00 + 7;
  for (let t = 0; t < n; t++) B[n + t]! += 7 * B[t]!;
  const c = checkLLL(B, n, m, 0.75, 0.51);
  assert.equal(c.ok, false);
  assert.ok(c.maxMu >= Math.abs(mu10) * (1 - 1e-9), `maxMu ${c.maxMu}, |mu_10| ${Math.abs(mu10)}`);
  assert.ok(Math.abs(mu[1]!) < 1e300);
});

test('checkLLL: the Lovasz condition is tested with delta', () => {
  // b0 = (1, 0), b1 = (0.3, 0.5): mu = 0.3, |b1*|^2 = 0.25 < (0.75 - 0.09) * 1
  const B = Float64Array.from([1, 0, 0.3, 0.5]);
  assert.equal(checkLLL(B, 2, 2, 0.75, 0.51).ok, false);
  assert.equal(checkLLL(B, 2, 2, 0.3, 0.51).ok, true);
});

test('checkLagrangePairs detects a pair that is not Lagrange-reduced', () => {
  assert.equal(checkLagrangePairs(Float64Array.from([1, 0, 0, 1]), 2, 2).ok, true);
  assert.equal(checkLagrangePairs(Float64Array.from([1, 0, 0.7, 1]), 2, 2).ok, false);
});

/** applyTransform(B, Z) against B Z in BigInt: every entry exact, null exactly when one does not fit a double. */
function assertExactProduct(B: Float64Array, Z: Float64Array, n: number, m: number, what: string): void {
  const out = applyTransform(B, Z, n, m);
  let fits = true;
  for (let j = 0; j < m; j++)
    for (let i = 0; i < n; i++) {
      let s = 0n;
      for (let k = 0; k < m; k++) s += BigInt(B[i + k * n]!) * BigInt(Z[k + j * m]!);
      if (BigInt(Number(s)) !== s) fits = false;
      else if (out) assert.equal(BigInt(out[i + j * n]!), s, msg(`exact entry${what}`));
    }
  assert.equal(out !== null, fits, msg(`null exactly when an entry does not fit a double${what}`));
}

test('applyTransform is exact on integer bases where float64 partial sums would round', () => {
  const n = 3,
    m = 3;
  // entries near 2^48 times |z| up to ~20 pass 2^53 in the bound, so the BigInt path runs
  const B = Float64Array.from({ length: n * m }, () => 2 ** 48 + rng.int(1000) * (rng.int(2) ? 1 : -1));
  const Z = randomUnimodular(m, 6);
  assertExactProduct(B, Z, n, m, '');
});

test('applyTransform is exact on random integer B and Z of every size (the limb path and the BigInt path)', () => {
  for (let rep = 0; rep < 150; rep++) {
    const n = 1 + rng.int(16),
      m = 1 + rng.int(n);
    const bitsB = rng.int(40),
      bitsZ = rng.int(53);
    const draw = (bits: number) => Math.floor(rng.uniform() * 2 ** bits) * (rng.int(2) ? 1 : -1);
    const B = Float64Array.from({ length: n * m }, () => draw(bitsB));
    const Z = Float64Array.from({ length: m * m }, () => draw(bitsZ));
    assertExactProduct(B, Z, n, m, `, B ${bitsB} bits, Z ${bitsZ} bits`);
  }
});

test('qualityMetrics: an orthogonal basis has Hadamard ratio 1 and defect 1; a skewed one less', () => {
  const q = qualityMetrics(Float64Array.from([2, 0, 0, 3]), 2, 2);
  assert.ok(Math.abs(q.hadamardRatio - 1) < 1e-12 && Math.abs(q.orthogonalityDefect - 1) < 1e-12);
  const s = qualityMetrics(Float64Array.from([1, 0, 5, 1]), 2, 2);
  assert.ok(s.hadamardRatio < 0.5 && s.orthogonalityDefect > 4);
});
