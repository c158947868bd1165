/**
 * The recursive reduction by iterated compression (src/lattice/recursive/), on fresh random integer
 * bases each run: every claim of its result re-derived here independently of its code (B_out =
 * U B_in by our own BigInt product, det U = +-1 by exact elimination, the LLL conditions by the
 * exact integral Gram-Schmidt, the rhf and profile drops from exact Gram determinants), its options'
 * typed errors, reduce() and the command line, and beside flatter and fpylll where they are there.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  CheckFailedError,
  EngineUnavailableError,
  InvalidArgumentError,
  InvalidInputError,
  type LatticeMimoError,
  RankDeficientError,
} from '../../src/core/errors.js';
import { makeBatch } from '../../src/core/matrix.js';
import { Philox } from '../../src/core/rng.js';
import { formatIntegerRows } from '../../src/lattice/fplll-format.js';
import {
  checkLLLExactBig,
  determinantBig,
  integralGramSchmidt,
  type BigBasis,
} from '../../src/lattice/precision/exact.js';
import { fixedQR } from '../../src/lattice/recursive/fixed-qr.js';
import { recursiveReduce } from '../../src/lattice/recursive/integral.js';
import { finishMargin, reduceLevel } from '../../src/lattice/recursive/iterate.js';
import { rebuildTransformBig } from '../../src/lattice/exact-transform.js';
import { reduce } from '../../src/lattice/reduce.js';
import { availableReferences } from '../../bench/reference/fplll.js';
import { fpylllIsReducedMpfr } from '../../bench/reference/fpylll-mpfr.js';
import { flatterTool, runFlatter } from '../../bench/reference/flatter.js';

const seed = Number(process.env.TEST_SEED ?? Date.now() % 1e9);
console.log(`# recursive.test seed ${seed} (TEST_SEED=${seed} repeats it)`);
const rng = new Philox(seed);
const int = (k: number) => rng.int(k);

/** A random integer below 2^bits. */
function bigBelow(bits: number): bigint {
  let v = 0n;
  for (let b = 0; b < bits; b += 26) v = (v << 26n) | BigInt(int(1 << 26));
  return v & ((1n << BigInt(bits)) - 1n);
}

/** A q-ary basis (fplll's latticegen q d k b): rows (e_i, h_i) for i < k, then q e_i; q of `bits` bits. */
function qary(d: number, k: number, bits: number): bigint[][] {
  const q = bigBelow(bits) | (1n << BigInt(bits - 1)) | 1n;
  const rows: bigint[][] = [];
  for (let i = 0; i < k; i++) {
    const r = new Array<bigint>(d).fill(0n);
    r[i] = 1n;
    for (let j = k; j < d; j++) r[j] = bigBelow(bits) % q;
    rows.push(r);
  }
  for (let i = k; i < d; i++) {
    const r = new Array<bigint>(d).fill(0n);
    r[i] = q;
    rows.push(r);
  }
  return rows;
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

/**
 * Z^m in disguise: rows (a_i, e_i) for i < m - 1 and (1 + sum a_i, 1, ..., 1), a_i of `bits` bits:
 * det 1 under a first vector of `bits` bits, so its later Gram-Schmidt norms fall to about 2^-bits
 * (a first factor must find them and be redone with the bits they need).
 */
function disguisedIdentity(m: number, bits: number): bigint[][] {
  const rows: bigint[][] = [];
  let sum = 1n;
  for (let i = 0; i + 1 < m; i++) {
    const r = new Array<bigint>(m).fill(0n);
    r[0] = bigBelow(bits) | (1n << BigInt(bits - 1));
    r[i + 1] = 1n;
    sum += r[0];
    rows.push(r);
  }
  rows.push([sum, ...new Array<bigint>(m - 1).fill(1n)]);
  return rows;
}

/** A square basis of uniform entries of `bits` bits (signed). */
function uniform(m: number, bits: number): bigint[][] {
  return Array.from({ length: m }, () => Array.from({ length: m }, () => bigBelow(bits) - (1n << BigInt(bits - 1))));
}

/** U B_in by our own product (rows). */
function times(U: bigint[][], B: bigint[][]): bigint[][] {
  return U.map((u) => B[0]!.map((_, t) => u.reduce((s, c, i) => s + c * B[i]![t]!, 0n)));
}

/** log2 ||b*_i|| from exact Gram determinants (d_{i+1} / d_i = ||b*_i||^2). */
function exactProfile(rows: BigBasis): number[] {
  const gs = integralGramSchmidt(rows);
  assert.ok(!('dependent' in gs));
  const lg = (x: bigint) => {
    const s = x.toString(2).length;
    return s > 1000 ? Math.log2(Number(x >> BigInt(s - 64))) + s - 64 : Math.log2(Number(x));
  };
  return rows.map((_, i) => (lg(gs.d[i + 1]!) - lg(gs.d[i]!)) / 2);
}

function rhfOfProfile(p: number[]): number {
  const mean = p.reduce((a, b) => a + b, 0) / p.length;
  return 2 ** ((p[0]! - mean) / p.length);
}

/** Every claim of a result, re-derived. */
function verify(Bin: bigint[][], r: ReturnType<typeof recursiveReduce>, label: string): number[] {
  assert.deepEqual(times(r.transform, Bin), r.basis, `${label}: U B_in = B_out`);
  const det = determinantBig(r.transform);
  assert.ok(det === 1n || det === -1n, `${label}: det U = ${det}`);
  assert.ok(r.proof.transform && r.proof.unimodular, label);
  const p = exactProfile(r.basis);
  assert.ok(Math.abs(rhfOfProfile(p) - r.rootHermiteFactor) < 1e-9, `${label}: the reported rhf is the output's`);
  return p;
}

const families: [string, () => bigint[][]][] = [
  ['q-ary 24/12, 60 bits', () => qary(24, 12, 60)],
  ['q-ary 30/15, 120 bits', () => qary(30, 15, 120)],
  ['knapsack 16, 200 bits', () => knapsack(16, 200)],
  ['uniform 16, 40 bits', () => uniform(16, 40)],
  // near-reduced and past float64: the double-double first factor, one LLL of the whole, the finish
  ['uniform 24, 200 bits', () => uniform(24, 200)],
  // a factor's scale past 1024 bits: each block's factor is the whole basis' (iterate.ts, DEAR_BITS)
  ['knapsack 12, 1400 bits', () => knapsack(12, 1400)],
  // Gram-Schmidt norms far below 2^-8: the first factor found them and was redone
  ['Z^10 disguised, 300 bits', () => disguisedIdentity(10, 300)],
];

test('recursiveReduce at delta: fresh q-ary, knapsack and uniform bases come out LLL-reduced (exact check), U B_in = B_out, det U = +-1', () => {
  for (const [name, make] of families) {
    const Bin = make();
    const delta = int(2) ? 0.99 : 0.75;
    const r = recursiveReduce(Bin, { delta });
    verify(Bin, r, `${name} delta ${delta}`);
    assert.equal(r.proof.lll, true, name);
    assert.ok(checkLLLExactBig(r.basis, delta, 0.51).ok, `${name}: LLL conditions, exactly`);
  }
});

test('recursiveReduce without the finish (rhf, alpha): the asked quality is reached on the exact output, and proven to span the lattice', () => {
  const Bin = qary(30, 15, 80);
  const r = recursiveReduce(Bin, { rhf: 1.04 });
  const p = verify(Bin, r, 'rhf 1.04');
  assert.equal(r.proof.lll, null);
  assert.ok(r.goal.reached && rhfOfProfile(p) <= 1.04, `rhf ${rhfOfProfile(p)}`);
  const alpha = 1.2 + rng.uniform() * 0.3;
  const a = recursiveReduce(Bin, { alpha });
  const pa = verify(Bin, a, `alpha ${alpha}`);
  let drop = 0;
  for (let i = 0; i + 1 < pa.length; i++) drop = Math.max(drop, pa[i]! - pa[i + 1]!);
  assert.ok(a.goal.reached && 2 ** drop <= alpha + 1e-9, `largest drop ${2 ** drop} against alpha ${alpha}`);
});

test('reduceLevel whose top level never takes one leaf of the whole: converged with its blocks at innerDelta, it reduces them again at its delta, and ends LLL-reduced exactly at the finish delta below it', () => {
  // guard 20, leaves of 27 bits: a leaf of the whole needs 20 + log2 m + 2 bits and more, past 27
  // for m >= 40, so only the blocks reduce (as past about dimension 250 with 50-bit leaves)
  const m = 40 + 2 * int(6);
  const B = qary(m, m >> 1, 50 + int(30));
  const stats = { rounds: 0, leaves: 0, swaps: 0, factorisations: 0, depth: 0, workerBlocks: 0 };
  const delta = int(2) ? 0.99 : 0.75 + 0.2 * rng.uniform();
  const top = finishMargin(delta);
  assert.ok(top > delta && top < 1 && top - delta <= 0.005 + 1e-12, `finishMargin(${delta}) = ${top}`);
  reduceLevel(B, null, { delta: top, innerDelta: 0.9, eta: 0.51, guard: 20, leafBits: 27, maxRounds: 5000, stats });
  assert.ok(stats.depth > 0, 'blocks reduced below the top level');
  const check = checkLLLExactBig(B, delta, 0.51);
  assert.ok(check.ok, `LLL at ${delta} exactly: ${check.violations.join('; ')}`);
});

test('recursiveReduce at delta 0.99: an output reduced with a margin is proven as it is (no finish swaps), by the certificate or interval arithmetic', () => {
  const Bin = qary(40, 20, 60 + int(40));
  const r = recursiveReduce(Bin, { delta: 0.99 });
  verify(Bin, r, 'q-ary 40');
  assert.equal(r.proof.lll, true);
  assert.ok(r.proof.method === 'certificate' || r.proof.method === 'interval', `proven by ${r.proof.method}`);
  assert.equal(r.stats.finishSwaps, 0, 'nothing left to the finish');
  assert.ok(checkLLLExactBig(r.basis, 0.99, 0.51).ok, 'LLL conditions, exactly');
});

test('recursiveReduce with threads: the halves on a worker give the one-thread output, operation for operation, proven', () => {
  // wide enough (spread past one leaf) and large enough (32 vectors) for the top level's halves
  const Bin = int(2) ? qary(32, 16, 90) : knapsack(32, 300);
  const one = recursiveReduce(Bin, { delta: 0.99 });
  const two = recursiveReduce(Bin, { delta: 0.99, threads: 2 + int(2) });
  verify(Bin, two, 'threads');
  assert.equal(two.proof.lll, true);
  assert.ok(checkLLLExactBig(two.basis, 0.99, 0.51).ok, 'LLL conditions, exactly');
  assert.deepEqual(two.basis, one.basis, 'the same output as one thread');
  assert.equal(two.stats.swaps, one.stats.swaps, 'the same swaps');
  assert.ok(two.stats.workerBlocks > 0 && one.stats.workerBlocks === 0, 'halves reduced on a worker');
});

test('fixedQR: the profile of a wide-spread basis matches the exact Gram determinants', () => {
  const Bin = qary(20, 10, 150);
  const f = fixedQR(Bin, 150 + 10 + 40);
  const exact = exactProfile(Bin);
  for (let i = 0; i < exact.length; i++) assert.ok(Math.abs(f.profile[i]! - exact[i]!) < 1e-9, `r_${i}${i}`);
});

test('rebuildTransformBig: the integer Z of a product of big integers is rebuilt and proven; a B_out off the lattice is refused', () => {
  const m = 3 + int(6),
    n = m + int(3);
  const Bin: BigBasis = Array.from({ length: m }, () => Array.from({ length: n }, () => bigBelow(90) - (1n << 89n)));
  // a unimodular Z: unit upper triangular times a permutation-free lower one
  const Z: BigBasis = Array.from({ length: m }, (_, j) =>
    Array.from({ length: m }, (_, i) => (i === j ? 1n : i < j ? bigBelow(30) - (1n << 29n) : 0n)),
  );
  const Bout = Z.map((z) => Bin[0]!.map((_, t) => z.reduce((s, c, i) => s + c * Bin[i]![t]!, 0n)));
  const r = rebuildTransformBig(Bin, Bout, true);
  assert.deepEqual(
    Array.from({ length: m }, (_, j) => r.Z.slice(j * m, (j + 1) * m)),
    Z,
  );
  assert.equal(r.det, 1n);
  const j = int(m),
    t = int(n);
  Bout[j]![t] = Bout[j]![t]! + (int(2) ? 1n : 1n << BigInt(60 + int(60)));
  assert.throws(() => rebuildTransformBig(Bin, Bout, true), CheckFailedError, `entry (${j}, ${t}) changed`);
});

test('recursiveReduce: bad options and bad bases are typed errors naming the problem', () => {
  const B = qary(8, 4, 20);
  const bad: [unknown, new (...a: never[]) => LatticeMimoError, RegExp][] = [
    [{ delta: 0.99, rhf: 1.02 }, InvalidArgumentError, /one quality/],
    [{ alpha: 1.3, rhf: 1.02 }, InvalidArgumentError, /one quality/],
    [{ rhf: 1.02, finish: true }, InvalidArgumentError, /finish/],
    [{ rhf: 1 }, InvalidArgumentError, /rhf/],
    [{ alpha: 1.1 }, InvalidArgumentError, /alpha/],
    [{ delta: 1 }, InvalidArgumentError, /delta/],
    [{ delta: 0.6, eta: 0.8 }, InvalidArgumentError, /eta/],
    [{ engine: 'cuda' }, EngineUnavailableError, /CUDA/],
    [{ threads: 0 }, InvalidArgumentError, /threads/],
    [{ guard: 4 }, InvalidArgumentError, /guard/],
    [{ rfh: 1.02 }, InvalidArgumentError, /did you mean 'rhf'/],
    [null, InvalidArgumentError, /object/],
  ];
  for (const [opts, type, words] of bad)
    assert.throws(
      () => recursiveReduce(B, opts as never),
      (e: unknown) => e instanceof type && words.test((e as Error).message),
      JSON.stringify(opts),
    );
  assert.throws(() => recursiveReduce([[1n, 2n], [3n]]), InvalidInputError);
  assert.throws(
    () =>
      recursiveReduce([
        [1, 2],
        [0.5, 1],
      ]),
    InvalidInputError,
  );
  assert.throws(() => recursiveReduce([[1n, 2n, 3n]].concat([[0n, 0n, 0n]])), RankDeficientError);
  // dependent vectors: a combination of the others
  const D = uniform(6, 30);
  const c = BigInt(1 + int(5));
  D[3] = D[0]!.map((v, t) => c * v - D[1]![t]!);
  assert.throws(() => recursiveReduce(D), RankDeficientError);
});

test("reduce() with algorithm 'recursive' on an integral float64 basis: checked as every LLL output", async () => {
  const m = 20;
  const d = Float64Array.from({ length: m * m }, () => int(2 ** 24) - 2 ** 23);
  const res = await reduce(makeBatch(d, 1, m, m), { algorithm: 'recursive', delta: 0.99, engine: 'cpu' });
  assert.ok(res.checks![0]!.ok);
  assert.equal(res.stats.algorithm, 'recursive');
});

const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
function lm(args: string[], input: string) {
  return spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8', timeout: 60_000 });
}

test('reduce -a recursive: proven with -d, the quality alone with --rhf / --alpha; its flags refused elsewhere', () => {
  const text = formatIntegerRows(qary(20, 10, 50));
  const d = lm(['reduce', '-a', 'recursive', '-d', '0.99', '--check'], text);
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stderr, /check: PASS .*LLL conditions proven/);
  const r = lm(['reduce', '-a', 'recursive', '--rhf', '1.05', '--check'], text);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /root Hermite factor <= 1.05: reached/);
  assert.equal(lm(['reduce', '-a', 'recursive', '--alpha', '1.4'], text).status, 0);
  for (const args of [
    ['-a', 'lll', '--rhf', '1.02'],
    ['-a', 'recursive', '--rhf', '1.02', '-d', '0.99'],
    ['-a', 'recursive', '--precision', 'float32'],
    ['-a', 'recursive', '--threads', 'x'],
  ]) {
    const e = lm(['reduce', ...args], text);
    assert.equal(e.status, 2, args.join(' '));
    assert.match(e.stderr, /error \[/, args.join(' '));
  }
  assert.match(lm(['reduce', '-a', 'recursive'], '[[1 0][0.5 1]]').stderr, /integer bases/);
});

const refs = availableReferences();
test('fpylll (MPFR Gram-Schmidt) accepts the finished output', {
  skip: refs.fpylll ? false : `fpylll missing: ${refs.missing.filter((x) => x.includes('fpylll')).join('; ')}`,
}, async () => {
  const Bin = qary(40, 20, 100);
  const r = recursiveReduce(Bin, { delta: 0.99 });
  assert.ok(await fpylllIsReducedMpfr(formatIntegerRows(r.basis), 0.99, 0.51, 2 * 110 + 128));
});

const flatter = flatterTool({ build: false });
test('beside flatter: at delta 0.99 our rhf is within 0.015 of flatter-default rhf on a fresh 40-dimensional q-ary basis (at this dimension either varies by about 0.007 from basis to basis)', {
  skip: flatter.ok ? false : `flatter not built (${flatter.reason}): run ../shared/reference/build-flatter.sh`,
}, async () => {
  const Bin = qary(40, 20, 60);
  const text = formatIntegerRows(Bin);
  const f = await runFlatter(text, { threads: 1, timeoutMs: 60_000 });
  assert.ok(f.ok, f.failure);
  const ours = recursiveReduce(Bin, { delta: 0.99 });
  const theirs = rhfOfProfile(exactProfile(parseRows(f.text)));
  assert.ok(ours.rootHermiteFactor <= theirs + 0.015, `ours ${ours.rootHermiteFactor}, flatter ${theirs}`);
});

function parseRows(text: string): bigint[][] {
  return [...text.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!.trim().split(/\s+/).map(BigInt));
}
