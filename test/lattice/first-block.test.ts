/**
 * The first block's shortest vector put first (src/lattice/recursive/first-block.ts): the block's
 * lattice kept by an exact unimodular transform, every later vector untouched, b_0 never longer;
 * a planted short vector found; recursiveReduce with it (the default) against without it (svpBlock
 * 0): both proven, b_0 no longer; the command line's --svp-block.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { determinantBig } from '../../src/lattice/precision/exact.js';
import { formatIntegerRows } from '../../src/lattice/fplll-format.js';
import { prefixTours, shortestFirst } from '../../src/lattice/recursive/first-block.js';
import { recursiveReduce } from '../../src/lattice/recursive/integral.js';
import { identity } from '../../src/lattice/recursive/iterate.js';

const seed = Number(process.env.TEST_SEED ?? Date.now() % 1e9);
const rng = new Philox(seed);
const int = (k: number) => rng.int(k);
const msg = (s: string) => `${s} (TEST_SEED=${seed})`;

/** A random integer below 2^bits. */
function bigBelow(bits: number): bigint {
  let v = 0n;
  for (let b = 0; b < bits; b += 26) v = (v << 26n) | BigInt(int(1 << 26));
  return v & ((1n << BigInt(bits)) - 1n);
}

/** A knapsack-like basis: rows (a_i, e_i) with a_i of `bits` bits. */
function knapsack(m: number, bits: number): bigint[][] {
  return Array.from({ length: m }, (_, i) => {
    const r = new Array<bigint>(m + 1).fill(0n);
    r[0] = bigBelow(bits) | 1n;
    r[i + 1] = 1n;
    return r;
  });
}

const norm2 = (v: readonly bigint[]): bigint => v.reduce((s, x) => s + x * x, 0n);

/** B U: columns of B (basis vectors) combined by the columns of U, exactly. */
function times(B: bigint[][], U: bigint[][]): bigint[][] {
  return U.map((u) => B[0]!.map((_, t) => u.reduce((s, c, i) => s + c * B[i]![t]!, 0n)));
}

test('shortestFirst: B_out = B_in U with U unimodular and the identity past the block, b_0 never longer (shorter where it says so)', () => {
  for (let round = 0; round < 4; round++) {
    const m = 24 + int(24),
      bits = 100 + int(400);
    // an LLL-reduced basis (the recursive reduction without the search), as the search finds them
    const Bin = recursiveReduce(knapsack(m, bits), { delta: 0.99, svpBlock: 0, bkzBlock: 0 }).basis;
    const B = Bin.map((c) => c.slice()),
      U = identity(m);
    const k = 4 + int(m - 3),
      nodes = 1 + int(200_000);
    const r = shortestFirst(B, U, k, nodes);
    const label = msg(`m ${m}, ${bits} bits, block ${k}, budget ${nodes}`);
    assert.deepEqual(times(Bin, U), B, `${label}: B_out = B_in U`);
    const det = determinantBig(U);
    assert.ok(det === 1n || det === -1n, `${label}: det U = ${det}`);
    for (let j = k; j < m; j++) assert.deepEqual(B[j], Bin[j], `${label}: vector ${j} past the block untouched`);
    assert.ok(r.nodes <= nodes + 1, `${label}: ${r.nodes} nodes`);
    const before = norm2(Bin[0]!),
      after = norm2(B[0]!);
    if (r.improved) {
      assert.ok(after < before, `${label}: improved, yet |b_0|^2 ${after} against ${before}`);
      assert.ok(Math.abs(r.ratio - Number(after) / Number(before)) < 1e-5, `${label}: ratio ${r.ratio}`);
    } else assert.deepEqual(B, Bin, `${label}: not improved, the basis as it was`);
  }
});

test('prefixTours: B_out = B_in U with U unimodular and the identity past the prefix; the tours put vectors on a knapsack basis', () => {
  const m = 30 + int(30),
    bits = 200 + int(600);
  const Bin = recursiveReduce(knapsack(m, bits), { delta: 0.99, svpBlock: 0, bkzBlock: 0 }).basis;
  const B = Bin.map((c) => c.slice()),
    U = identity(m);
  const prefix = 10 + int(m - 9),
    block = 2 + int(24);
  const r = prefixTours(B, U, prefix, block, 1 + int(3), 100_000, 0.99);
  const label = msg(`m ${m}, ${bits} bits, prefix ${prefix}, block ${block}`);
  assert.deepEqual(times(Bin, U), B, `${label}: B_out = B_in U`);
  const det = determinantBig(U);
  assert.ok(det === 1n || det === -1n, `${label}: det U = ${det}`);
  for (let j = prefix; j < m; j++) assert.deepEqual(B[j], Bin[j], `${label}: vector ${j} past the prefix untouched`);
  if (block >= 16 && prefix >= 30)
    assert.ok(r.inserted > 0, `${label}: an LLL-reduced knapsack basis has shorter projected vectors`);
});

test('shortestFirst: a planted short vector of the block (b_0 - b_1, far shorter than every basis vector) is found', () => {
  for (let round = 0; round < 6; round++) {
    const k = 3 + int(10),
      n = k + 1,
      bits = 20 + int(20);
    // b_1 .. b_{k-1}: reduced vectors in the first k coordinates; b_0 = b_1 + s, s short and in the
    // last coordinate (with a small random part), so s = b_0 - b_1 is a lattice vector
    const rest = recursiveReduce(
      Array.from({ length: k - 1 }, () =>
        Array.from({ length: k }, () => bigBelow(bits) - (1n << BigInt(bits - 1))),
      ).concat([]),
      { delta: 0.99, svpBlock: 0, bkzBlock: 0 },
    ).basis.map((c) => [...c, 0n]);
    const s = Array.from({ length: n }, (_, t) => (t === n - 1 ? 1n + BigInt(int(3)) : BigInt(int(3) - 1)));
    const B = [rest[0]!.map((v, t) => v + s[t]!), ...rest];
    const U = identity(k);
    const Bin = B.map((c) => c.slice());
    const r = shortestFirst(B, U, k, 1_000_000);
    const label = msg(`k ${k}, ${bits} bits`);
    assert.ok(r.improved, `${label}: not improved (${r.nodes} nodes)`);
    assert.ok(norm2(B[0]!) <= norm2(s), `${label}: |b_0|^2 ${norm2(B[0]!)} against the planted ${norm2(s)}`);
    assert.deepEqual(times(Bin, U), B, `${label}: B_out = B_in U`);
  }
});

test('recursiveReduce with its first vectors shortened (the default) and without (svpBlock 0, bkzBlock 0): both proven LLL-reduced, b_0 no longer with it', () => {
  const m = 40 + int(20),
    bits = 200 + int(800);
  const Bin = knapsack(m, bits);
  const without = recursiveReduce(Bin, { delta: 0.99, svpBlock: 0, bkzBlock: 0 });
  const withIt = recursiveReduce(Bin, { delta: 0.99 });
  const label = msg(`knapsack ${m} x ${bits} bits`);
  for (const r of [without, withIt]) {
    assert.equal(r.proof.lll, true, label);
    assert.ok(r.proof.transform && r.proof.unimodular, label);
  }
  assert.equal(without.stats.svpNodes, 0, `${label}: svpBlock 0 and bkzBlock 0 search nothing`);
  assert.ok(withIt.stats.svpNodes > 0, `${label}: the default searches`);
  assert.ok(
    norm2(withIt.basis[0]!) <= norm2(without.basis[0]!),
    `${label}: |b_0|^2 ${norm2(withIt.basis[0]!)} with the search, ${norm2(without.basis[0]!)} without`,
  );
  assert.ok(withIt.rootHermiteFactor <= without.rootHermiteFactor + 1e-12, label);
});

test('reduce -a recursive --svp-block / --svp-nodes: taken, checked, and reported under --check', () => {
  const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
  const input = formatIntegerRows(knapsack(30, 300));
  const ok = spawnSync(
    process.execPath,
    [cli, 'reduce', '-a', 'recursive', '--check', '--svp-block', '30', '--svp-nodes', '100000'],
    {
      input,
      encoding: 'utf8',
    },
  );
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /check: PASS/);
  assert.match(ok.stderr, /first vectors \d+ ms \(\d+ put by BKZ tours, \d+ nodes/);
  const off = spawnSync(
    process.execPath,
    [cli, 'reduce', '-a', 'recursive', '--check', '--svp-block', '0', '--bkz-block', '0'],
    {
      input,
      encoding: 'utf8',
    },
  );
  assert.equal(off.status, 0, off.stderr);
  assert.doesNotMatch(off.stderr, /first vectors/);
  for (const bad of [
    ['--svp-block', '-1'],
    ['--svp-block', 'x'],
    ['--svp-nodes', '0'],
    ['--bkz-block', '-2'],
    ['--bkz-prefix', '1'],
  ]) {
    const r = spawnSync(process.execPath, [cli, 'reduce', '-a', 'recursive', ...bad], { input, encoding: 'utf8' });
    assert.equal(r.status, 2, `${bad.join(' ')}: exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, /(svp|bkz)-?([bB]lock|[nN]odes|[pP]refix)/, r.stderr);
  }
});
