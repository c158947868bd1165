/**
 * rebuildTransform: the exact integer Z with B_in Z = B_out, past 2^53, on fresh random lattices
 * built so that Z is known (block-diagonal 2 x 2 unimodular blocks with 30-bit entries, whose
 * products have about 60-bit entries), square and tall; and its refusals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Philox } from '../../src/core/rng.js';
import { CheckFailedError } from '../../src/core/errors.js';
import { readTransform, rebuildTransform, unitCoordinates } from '../../src/lattice/exact-transform.js';
import { applyTransformBig } from '../../src/lattice/precision/exact.js';

const seed = Math.floor(Math.random() * 2 ** 31);
const rng = new Philox(seed, 7);
const why = (s: string) => `${s} [seed ${seed}]`;

/** A random 2 x 2 integer matrix [[a, b], [c, d]] with ad - bc = 1 and |a|, |b| about 2^30. */
function unimodular2(): [bigint, bigint, bigint, bigint] {
  for (;;) {
    const a = BigInt(2 ** 29 + rng.int(2 ** 29)),
      b = BigInt(2 ** 29 + rng.int(2 ** 29));
    // extended Euclid: x a - y b = 1 with gcd(a, b) = 1
    let [r0, r1, s0, s1, t0, t1] = [a, b, 1n, 0n, 0n, 1n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1] = [r1, r0 - q * r1];
      [s0, s1] = [s1, s0 - q * s1];
      [t0, t1] = [t1, t0 - q * t1];
    }
    if (r0 !== 1n) continue;
    // s0 a + t0 b = 1: [[a, b], [-t0, s0]] has det a s0 + b t0 = 1
    return [a, b, -t0, s0];
  }
}

/** n x m column-major Float64Array with 2 x 2 blocks on the diagonal (m even), plus tall rows = row sums. */
function blockDiagonal(
  blocks: [bigint, bigint, bigint, bigint][],
  extraRows: number,
): { data: Float64Array; n: number; m: number } {
  const m = 2 * blocks.length,
    n = m + extraRows;
  const data = new Float64Array(n * m);
  blocks.forEach(([a, b, c, d], i) => {
    const r = 2 * i;
    data[r + r * n] = Number(a);
    data[r + (r + 1) * n] = Number(b);
    data[r + 1 + r * n] = Number(c);
    data[r + 1 + (r + 1) * n] = Number(d);
  });
  for (let e = 0; e < extraRows; e++)
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let i = e; i < m; i += extraRows + 1) s += data[i + j * n]!;
      data[m + e + j * n] = s;
    }
  return { data, n, m };
}

test('rebuildTransform finds the exact Z past 2^53, square and tall, with det Z', () => {
  // the expected Z: blockdiag(M1_i^-1 M2_i), M1^-1 = [[d, -b], [-c, a]]; entries (0,0), (1,0), (0,1), (1,1)
  const expected = (M1: ReturnType<typeof unimodular2>[], M2: ReturnType<typeof unimodular2>[]): bigint[][] =>
    M1.map(([a, b, c, d], i) => {
      const [e, f, g, h] = M2[i]!;
      return [d * e - b * g, -c * e + a * g, d * f - b * h, -c * f + a * h];
    });
  const abs = (v: bigint): bigint => (v < 0n ? -v : v);
  for (let rep = 0; rep < 6; rep++) {
    const k = 1 + rng.int(6),
      extra = rng.int(3);
    // redraw until the expected Z has an entry past 2^53 (cancellation, or a small Bezout
    // coefficient, can keep all of a small draw below it): that is what this test is about
    let M1: ReturnType<typeof unimodular2>[], M2: ReturnType<typeof unimodular2>[], zs: bigint[][];
    do {
      M1 = Array.from({ length: k }, unimodular2);
      M2 = Array.from({ length: k }, unimodular2);
      zs = expected(M1, M2);
    } while (!zs.some((z) => z.some((v) => abs(v) > 2n ** 53n)));
    const A = blockDiagonal(M1, extra),
      C = blockDiagonal(M2, extra);
    const res = rebuildTransform(A.data, C.data, A.n, A.m, true);
    const m = A.m;
    for (let i = 0; i < k; i++) {
      const z = zs[i]!;
      const r = 2 * i;
      assert.equal(res.Z[r + r * m], z[0], why(`Z(${r},${r})`));
      assert.equal(res.Z[r + 1 + r * m], z[1], why(`Z(${r + 1},${r})`));
      assert.equal(res.Z[r + (r + 1) * m], z[2], why(`Z(${r},${r + 1})`));
      assert.equal(res.Z[r + 1 + (r + 1) * m], z[3], why(`Z(${r + 1},${r + 1})`));
    }
    const big = res.Z.reduce((x, v) => ((v < 0n ? -v : v) > x ? (v < 0n ? -v : v) : x), 0n);
    assert.ok(big > 2n ** 53n, why(`the test wants Z past 2^53, got ${big}`));
    assert.equal(res.det, 1n, why('det Z = det M2 / det M1 = 1'));
  }
});

test('rebuildTransform refuses a B_out outside the lattice of B_in, and a transform that is not unimodular', () => {
  const M1 = [unimodular2(), unimodular2()],
    M2 = [unimodular2(), unimodular2()];
  const A = blockDiagonal(M1, 1),
    C = blockDiagonal(M2, 1);
  const bad = Float64Array.from(C.data);
  bad[0]! += 1; // no longer B_in times an integer matrix (nor consistent with the tall row)
  assert.throws(() => rebuildTransform(A.data, bad, A.n, A.m, false), CheckFailedError);
  // B_out = 2 B_in: Z = 2 I is integral but not unimodular; B_in is not in the lattice of B_out
  const twice = A.data.map((v) => 2 * v);
  assert.equal(rebuildTransform(A.data, twice, A.n, A.m, false).Z[0], 2n);
  assert.throws(() => rebuildTransform(A.data, twice, A.n, A.m, true), CheckFailedError);
});

/** A random 200-bit-ish BigInt (sign random). */
function wide(bits: number): bigint {
  let v = 0n;
  for (let b = 0; b < bits; b += 30) v = (v << 30n) + BigInt(rng.int(2 ** 30));
  return rng.int(2) ? v : -v;
}

test('unitCoordinates finds a signed identity on permuted coordinates (knapsack bases), and none where a vector lacks one; readTransform then gives the Z of any B_out = B_in Z', () => {
  for (let rep = 0; rep < 40; rep++) {
    const m = 2 + rng.int(12),
      extra = 1 + rng.int(3),
      n = m + extra;
    // coordinates: a random permutation; the first m carry the signed identity, the rest wide entries
    const perm = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    const signs = Array.from({ length: m }, () => (rng.int(2) ? 1n : -1n));
    const Bin = Array.from({ length: m }, (_, i) => {
      const row = new Array<bigint>(n).fill(0n);
      row[perm[i]!] = signs[i]!;
      for (let e = 0; e < extra; e++) row[perm[m + e]!] = wide(60 + rng.int(200));
      return row;
    });
    const u = unitCoordinates(Bin);
    assert.ok(u, why('a signed identity is found'));
    for (let i = 0; i < m; i++) {
      assert.equal(u.coord[i], perm[i], why('coordinate'));
      assert.equal(BigInt(u.sign[i]!), signs[i], why('sign'));
    }
    // a random unimodular Z0 (elementary column operations), B_out = B_in Z0: read back exactly
    const Z0 = Array.from({ length: m }, (_, j) => Array.from({ length: m }, (_, i): bigint => (i === j ? 1n : 0n)));
    for (let s = 0; s < 4 * m; s++) {
      const a = rng.int(m),
        b = rng.int(m);
      if (a === b) continue;
      const x = BigInt(rng.int(2 ** 20)) - 2n ** 19n;
      for (let i = 0; i < m; i++) Z0[a]![i] = Z0[a]![i]! + x * Z0[b]![i]!;
    }
    const Bout = applyTransformBig(Bin, Z0);
    assert.deepEqual(readTransform(Bout, u), Z0, why('Z read off B_out'));
    // a second nonzero in one vector's unit coordinate (and nowhere else a unit): none
    const k = rng.int(m),
      other = (k + 1) % m;
    const broken = Bin.map((r) => r.slice());
    broken[other]![perm[k]!] = 1n + BigInt(rng.int(5));
    assert.equal(unitCoordinates(broken), null, why('vector without a unit coordinate'));
    // a unit coordinate holding 2 is not one
    const two = Bin.map((r) => r.slice());
    two[k]![perm[k]!] = 2n * signs[k]!;
    assert.equal(unitCoordinates(two), null, why('entry 2 is not a unit'));
  }
});
