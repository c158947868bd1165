/**
 * reduce() on fresh random bases, for every algorithm: the float64 check passes, Z is exactly
 * unimodular, and the output equals B_in Z (exactly for integer input), re-verified here
 * independently of reduce()'s own checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Philox } from '../../src/core/rng.js';
import { makeBatch, matrixAt, type MatrixBatch } from '../../src/core/matrix.js';
import { LatticeMimoError } from '../../src/core/errors.js';
import { bareissDet, checkLagrangePairs, checkLLL, checkUnimodular, gramSchmidt } from '../../src/lattice/check.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../../src/lattice/generators.js';
import { BasisRecords, reduce, reduceSync, type ReduceResult } from '../../src/lattice/reduce.js';
import { countArrays } from '../../src/lattice/gpu/batch.js';
import { ALGORITHMS, type Algorithm, type BasisStats } from '../../src/lattice/types.js';
import { ALGORITHM_REGISTRY, CUDA_ALGORITHMS } from '../../src/lattice/registry.js';
import { cudaAvailable } from '../../src/gpu/index.js';
import { knapsackBasis } from '../gpu/grid-cases.js';
import { firstDependentColumn } from '../../src/lattice/validate.js';

/** Fresh per run; replay a failure with REDUCE_TEST_SEED=<seed> (and the same --test-name-pattern). */
const seed = process.env.REDUCE_TEST_SEED ? Number(process.env.REDUCE_TEST_SEED) : Math.floor(Math.random() * 2 ** 31);
const rng = new Philox(seed, 99);
const why = (s: string) => `${s} [seed ${seed}]`;

/** Z of basis k as BigInts: the wide transform where Z outgrew float64, else the float64 one. */
function transformOf(res: ReduceResult, k: number): bigint[] {
  const m = res.basis.cols;
  const wide = res.wideTransforms?.get(k);
  if (wide) {
    assert.ok(
      res.transform.data.subarray(k * m * m, (k + 1) * m * m).every(Number.isNaN),
      'a wide transform leaves NaN in transform',
    );
    return wide;
  }
  return Array.from(res.transform.data.subarray(k * m * m, (k + 1) * m * m), (v) => BigInt(v));
}

/** Independent verification of one reduce() output against its input. */
function verify(
  input: MatrixBatch,
  res: ReduceResult,
  k: number,
  alg: Algorithm,
  delta: number,
  eta: number,
  label: string,
): void {
  const { rows: n, cols: m } = input;
  const Bin = matrixAt(input, k);
  const Bout = matrixAt(res.basis, k);
  const Zk = transformOf(res, k);
  const integral = Bin.every(Number.isInteger);
  if (res.wideTransforms?.has(k)) {
    // only integral input may get a wide Z; unimodular: det B_out = +-det B_in exactly (square) and B Z = B_out below
    assert.ok(integral, why(`${label}: wide Z for input that is not integral`));
    if (n === m) assert.equal(abs(bareissDet(Bout, m)), abs(bareissDet(Bin, m)), why(`${label}: |det| kept`));
  } else {
    assert.ok(checkUnimodular(Zk.map(Number), m).ok, why(`${label}: Z unimodular`));
  }
  let maxErr = 0,
    scale = 0;
  for (let j = 0; j < m; j++)
    for (let i = 0; i < n; i++) {
      if (integral) {
        let s = 0n;
        for (let t = 0; t < m; t++) s += BigInt(Bin[i + t * n]!) * Zk[t + j * m]!;
        assert.equal(BigInt(Bout[i + j * n]!), s, why(`${label}: B Z exact at (${i}, ${j})`));
      } else {
        let s = 0;
        for (let t = 0; t < m; t++) s += Bin[i + t * n]! * Number(Zk[t + j * m]!);
        maxErr = Math.max(maxErr, Math.abs(s - Bout[i + j * n]!));
        scale = Math.max(scale, Math.abs(s));
      }
    }
  assert.ok(maxErr <= 1e-9 * Math.max(1, scale), why(`${label}: B Z = output (err ${maxErr})`));
  const ok =
    alg === 'jacobi' || alg === 'jacobi-parallel'
      ? checkLagrangePairs(Bout, n, m).ok
      : checkLLL(Bout, n, m, delta, eta).ok;
  assert.ok(ok, why(`${label}: conditions hold`));
}

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

function randomFamily(n: number, m: number): { basis: MatrixBatch; family: string } {
  const s = rng.int(2 ** 30);
  switch (rng.int(4)) {
    case 0:
      return { basis: gaussianBases({ batch: 1, n, m, seed: s }), family: 'gaussian' };
    case 1: {
      // small scales can round to dependent columns: integerScale refuses those, so draw again
      for (let t = 0; ; t++) {
        try {
          return {
            basis: integerScale(gaussianBases({ batch: 1, n, m, seed: s + t }), 1 + rng.int(1000)),
            family: 'integer',
          };
        } catch (e) {
          if (!(e instanceof LatticeMimoError) || t === 99) throw e;
        }
      }
    }
    case 2: {
      const b = 1 + rng.int(2);
      const blocks = Math.max(1, Math.floor(n / b));
      // the whole convolution ('full', (blocks + L - 1) b x blocks b): the square truncation is
      // numerically singular in float64 for many channels (integer-scaled square ones are tested below)
      return {
        basis: blockToeplitzBases({
          batch: 1,
          blocks,
          blockSize: b,
          taps: Math.min(blocks, 1 + rng.int(3)),
          shape: 'full',
          seed: s,
        }),
        family: 'block-toeplitz',
      };
    }
    default: {
      // integer entries with a knapsack-like first row: hard for reduction, exact arithmetic
      const data = new Float64Array(n * m);
      for (let j = 0; j < m; j++) {
        data[j * n + (j % n)] = 1;
        data[j * n + ((j + 1) % n)] += rng.int(2 ** 16);
      }
      return { basis: makeBatch(data, 1, n, m), family: 'integer-knapsack' };
    }
  }
}

/** Whether float64 Gram-Schmidt of the basis leaves some ||b*_k||^2 below 1e-28 ||b_k||^2 (lll/gso.ts: the reducers' breakdown test). */
function float64LosesAVector(b: MatrixBatch): boolean {
  const { rows: n, cols: m, data } = b;
  return firstDependentColumn(data, n, m, gramSchmidt(data, n, m).r, 1e-28) >= 0;
}

for (const algorithm of ALGORITHMS) {
  test(`${algorithm}: fresh random bases, n = 2..64, square and rectangular, pass every check`, async () => {
    const cases = 14;
    for (let c = 0; c < cases; c++) {
      const n = c < 10 ? 2 + rng.int(23) : 32 + rng.int(33);
      const rect = rng.int(3) === 0;
      const m = rect ? Math.max(1, n - 1 - rng.int(Math.max(1, n - 1))) : n;
      let { basis, family } = randomFamily(n, m);
      if (basis.rows !== n)
        ({ basis, family } = { basis: gaussianBases({ batch: 1, n, m, seed: rng.int(1e9) }), family: 'gaussian' });
      const delta = rng.int(2) ? 0.75 : 0.99;
      const eta = 0.51;
      const label = `${algorithm} ${family} n=${basis.rows} m=${basis.cols} delta=${delta}`;
      let res: Awaited<ReturnType<typeof reduce>>;
      try {
        // the parameters the algorithm reads (its registry traits): reduce() refuses the others
        const params = ALGORITHM_REGISTRY[algorithm].traits.params;
        res = await reduce(basis, {
          algorithm,
          engine: 'cpu',
          ...(params.includes('delta') ? { delta, eta } : {}),
          ...(params.includes('blockSize') ? { blockSize: 2 + rng.int(6) } : {}),
        });
      } catch (e) {
        // the documented limit (README, Limits): only lll goes on past float64 Gram-Schmidt; the
        // others may stop with PRECISION_FAILURE, but only on an input whose own float64
        // Gram-Schmidt already lost a vector (one of the knapsack-like family did: 1.8e-122)
        if (
          algorithm !== 'lll' &&
          e instanceof LatticeMimoError &&
          e.code === 'PRECISION_FAILURE' &&
          float64LosesAVector(basis)
        ) {
          process.stderr.write(
            `note: ${label}: too ill-conditioned for float64 Gram-Schmidt from the start; ${algorithm} says so (${why('')})\n`,
          );
          continue;
        }
        assert.fail(why(`${label}: ${(e as Error).message}`));
      }
      if (res.wideTransforms)
        process.stderr.write(
          `note: ${label}: Z outgrew float64 (${res.stats.perBasis[0]!.wideTransformBits} bits) and was rebuilt exactly\n`,
        );
      assert.ok(
        res.checks!.every((x) => x.ok),
        why(label),
      );
      verify(basis, res, 0, algorithm, delta, eta, label);
    }
  });
}

test('square block-Toeplitz bases whose Z outgrows float64 get the exact wide Z (integral input) or a typed error (input that is not integral)', async () => {
  // channels found to need Z past 2^53 at delta 0.99 (72 and 94 bits): the square truncation of
  // a channel with a root inside the unit circle
  for (const [blocks, seed] of [
    [24, 7],
    [24, 10],
    [32, 7],
  ] as const) {
    const basis = integerScale(
      blockToeplitzBases({ batch: 1, blocks, blockSize: 1, taps: 3, complex: true, seed }),
      2 ** 20,
    );
    const label = `square toeplitz n=${basis.rows} seed ${seed}`;
    for (const check of [true, false]) {
      const res = await reduce(basis, { algorithm: 'lll', delta: 0.99, engine: 'cpu', check });
      assert.ok(res.wideTransforms?.has(0), why(`${label}: expected a wide Z`));
      assert.ok(res.stats.perBasis[0]!.wideTransformBits! > 53);
      if (check) {
        assert.equal(res.checks![0]!.unimodular.method, 'lattice');
        assert.ok(res.checks![0]!.ok);
      }
      verify(basis, res, 0, 'lll', 0.99, 0.51, label);
    }
    // the same lattice scaled by 2^-10 is not integral: no exact Gram matrix and no exact rebuild, so
    // a typed error (Z past 2^53, or float64 losing the basis), never a wrong answer
    const fractional = makeBatch(
      basis.data.map((v) => v / 1024),
      1,
      basis.rows,
      basis.cols,
    );
    await assert.rejects(
      reduce(fractional, { algorithm: 'lll', delta: 0.99, engine: 'cpu' }),
      (e: unknown) =>
        e instanceof LatticeMimoError && ['UNSUPPORTED', 'RANK_DEFICIENT', 'PRECISION_FAILURE'].includes(e.code),
    );
  }
});

test('lll goes on in double-double where float64 breaks down on an integral basis (fplll fast: "infinite loop in babai")', async () => {
  // a square block-Toeplitz channel found to break float64 Gram-Schmidt at delta 0.99
  const basis = integerScale(
    blockToeplitzBases({ batch: 1, blocks: 64, blockSize: 1, taps: 3, complex: true, seed: 14 }),
    2 ** 20,
  );
  const res = await reduce(basis, { algorithm: 'lll', delta: 0.99, engine: 'cpu' });
  assert.equal(res.stats.perBasis[0]!.extendedPrecision, 'double-double');
  assert.ok(res.checks![0]!.ok);
  verify(basis, res, 0, 'lll', 0.99, 0.51, 'square toeplitz n=128 seed 14');
});

test('float32 runs return checked results (failed float32 bases are redone in float64)', async () => {
  for (const algorithm of ALGORITHMS) {
    const basis = gaussianBases({ batch: 6, n: 12, seed: rng.int(1e9) });
    const res = await reduce(basis, { algorithm, precision: 'float32', engine: 'cpu' });
    assert.equal(res.stats.precision, 'float32');
    for (let k = 0; k < 6; k++) verify(basis, res, k, algorithm, 0.75, 0.51, `${algorithm} float32 #${k}`);
    assert.ok(res.stats.redoneInFloat64 >= 0 && res.stats.redoneInFloat64 <= 6);
  }
});

test('a batch on worker threads gives exactly the single-thread result', async () => {
  const basis = gaussianBases({ batch: 64, n: 16, seed: rng.int(1e9) });
  const one = await reduce(basis, { threads: 1 });
  const two = await reduce(basis, { threads: 2 });
  assert.deepEqual(two.transform.data, one.transform.data);
  assert.deepEqual(two.basis.data, one.basis.data);
  const sync = reduceSync(basis);
  assert.deepEqual(sync.transform.data, one.transform.data);
});

/** `counts` (out.counts, 3 x batch) holds every basis' counts of stats.perBasis, and they sum to the batch's. */
function assertCounts(res: ReduceResult, counts: Int32Array, what: string): void {
  const b = res.stats.batch,
    per = res.stats.perBasis;
  for (let k = 0; k < b; k++) {
    assert.deepEqual(
      [counts[k], counts[b + k], counts[2 * b + k]],
      [per[k]!.iterations, per[k]!.swaps, per[k]!.sizeReductions],
      `${what}: basis ${k}`,
    );
  }
  const sum = (from: number) => counts.subarray(from * b, (from + 1) * b).reduce((a, x) => a + x, 0);
  assert.deepEqual(
    [sum(0), sum(1), sum(2)],
    [res.stats.iterations, res.stats.swaps, res.stats.sizeReductions],
    `${what}: sums`,
  );
}

test("out.counts receives each basis' iterations, swaps and size reductions on every engine (scaled input too); a wrong array is a typed error", async () => {
  const engines = cudaAvailable().ok ? (['cpu', 'cuda'] as const) : (['cpu'] as const);
  for (const engine of engines) {
    for (const algorithm of engine === 'cpu' ? ALGORITHMS : CUDA_ALGORITHMS) {
      const batch = 1 + rng.int(12),
        n = 4 + rng.int(12);
      const basis = gaussianBases({ batch, n, seed: rng.int(1e9), precision: rng.int(2) ? 'float32' : 'float64' });
      // now and then entries past 2^128: reduce() works on a scaled copy and writes back through out
      if (engine === 'cpu' && rng.int(3) === 0) for (let i = 0; i < basis.data.length; i++) basis.data[i] *= 2 ** 200;
      if (basis.data instanceof Float32Array && !basis.data.every(Number.isFinite)) continue;
      const counts = new Int32Array(3 * batch).fill(-1);
      const res = await reduce(basis, { algorithm, engine, out: { counts } });
      assertCounts(res, counts, `${engine} ${algorithm} ${batch} x ${n}`);
      const again = await reduce(basis, { algorithm, engine });
      assert.deepEqual(
        again.stats.perBasis,
        res.stats.perBasis,
        `${engine} ${algorithm}: the same counts without out.counts`,
      );
    }
  }
  const ok = gaussianBases({ batch: 2, n: 3, seed: 1 });
  const basis = new Float64Array(18),
    transform = new Float64Array(18);
  for (const counts of [
    new Int32Array(5),
    new Int32Array(7),
    new Float64Array(6),
    new Int32Array(transform.buffer, 0, 6),
  ]) {
    await expectCode(() => reduce(ok, { out: { basis, transform, counts: counts as Int32Array } }), 'INVALID_ARGUMENT');
  }
});

test("per-basis records: sums() is the sum of every basis' counts, the same before and after writeCounts() (engine totals, host records over them)", () => {
  for (let rep = 0; rep < 20; rep++) {
    const batch = 1 + rng.int(30),
      counts = new Int32Array(3 * batch);
    const c = countArrays(batch, rng.int(2) ? counts : undefined);
    const totals = { iterations: 0, swaps: 0, sizeReductions: 0 };
    for (let k = 0; k < batch; k++) {
      c.iterations[k] = rng.int(100);
      c.swaps[k] = rng.int(1000);
      c.sizeReductions[k] = rng.int(1000);
      totals.iterations += c.iterations[k]!;
      totals.swaps += c.swaps[k]!;
      totals.sizeReductions += c.sizeReductions[k]!;
    }
    const records = new BasisRecords(
      batch,
      (k) => ({ iterations: c.iterations[k]!, swaps: c.swaps[k]!, sizeReductions: c.sizeReductions[k]! }),
      { ...c, ...(rng.int(2) ? { totals } : {}) },
    );
    for (let r = rng.int(batch + 1); r > 0; r--)
      records.set(rng.int(batch), { iterations: rng.int(50), swaps: rng.int(50), sizeReductions: rng.int(50) });
    const brute = (xs: BasisStats[]) => ({
      iterations: xs.reduce((a, b) => a + b.iterations, 0),
      swaps: xs.reduce((a, b) => a + b.swaps, 0),
      sizeReductions: xs.reduce((a, b) => a + b.sizeReductions, 0),
    });
    const want = brute(records.toArray());
    assert.deepEqual(records.sums(), want);
    records.writeCounts(counts);
    assert.deepEqual(records.sums(), want, 'after writeCounts');
    for (let k = 0; k < batch; k++)
      assert.deepEqual(
        [counts[k], counts[batch + k], counts[2 * batch + k]],
        [records.get(k).iterations, records.get(k).swaps, records.get(k).sizeReductions],
      );
  }
});

function expectCode(fn: () => unknown, code: string) {
  return assert.rejects(
    async () => {
      await fn();
    },
    (e: unknown) => e instanceof LatticeMimoError && e.code === code,
  );
}

test('bad input gets typed errors naming the problem', async () => {
  const ok = gaussianBases({ batch: 1, n: 3, seed: 1 });
  const bad = (f: (d: Float64Array) => void) => {
    const d = Float64Array.from(ok.data);
    f(d);
    return makeBatch(d, 1, 3, 3);
  };
  await expectCode(
    () =>
      reduce(
        bad((d) => {
          d[4] = NaN;
        }),
      ),
    'NON_FINITE',
  );
  await expectCode(
    () =>
      reduce(
        bad((d) => {
          d[2] = Infinity;
        }),
      ),
    'NON_FINITE',
  );
  await expectCode(
    () =>
      reduce(
        bad((d) => {
          d.fill(0, 3, 6);
        }),
      ),
    'ZERO_VECTOR',
  );
  await expectCode(
    () =>
      reduce(
        bad((d) => {
          for (let i = 0; i < 3; i++) d[6 + i] = 2 * d[i]! - d[3 + i]!;
        }),
      ),
    'RANK_DEFICIENT',
  );
  await expectCode(() => reduce({ batch: 1, rows: 3, cols: 3, data: new Float64Array(8) }), 'SHAPE_MISMATCH');
  await expectCode(() => reduce({ batch: 1, rows: 2, cols: 3, data: new Float64Array(6) }), 'SHAPE_MISMATCH');
  await expectCode(() => reduce({ batch: 0, rows: 2, cols: 2, data: new Float64Array(0) }), 'INVALID_INPUT');
  for (const delta of [0.25, 1, 1.5, -1, NaN]) await expectCode(() => reduce(ok, { delta }), 'INVALID_ARGUMENT');
  for (const eta of [0.49, 0.87, NaN]) await expectCode(() => reduce(ok, { eta }), 'INVALID_ARGUMENT');
  await expectCode(() => reduce(ok, { algorithm: 'bkz' as Algorithm }), 'INVALID_ARGUMENT');
  await expectCode(() => reduce(ok, { blockSize: 1 }), 'INVALID_ARGUMENT');
  await expectCode(() => reduce(ok, { maxIterations: 0 }), 'INVALID_ARGUMENT');
  await expectCode(() => reduce(ok, { driftWatch: 'yes' as unknown as boolean }), 'INVALID_ARGUMENT');
  await expectCode(() => reduce(ok, { float32Arithmetic: 'half' as unknown as 'float32' }), 'INVALID_ARGUMENT');
});

test('every algorithm reports dependent vectors as RANK_DEFICIENT (float64 and float32), never a basis with a zero vector', async () => {
  for (const algorithm of ALGORITHMS) {
    for (const precision of ['float64', 'float32'] as const) {
      const n = 3 + rng.int(6),
        m = 2 + rng.int(n - 1);
      const d = Float64Array.from({ length: n * m }, () => rng.int(41) - 20);
      const k = 1 + rng.int(m - 1),
        c = 1 + rng.int(3);
      for (let i = 0; i < n; i++) d[i + k * n] = c * d[i]! - d[i + (k - 1) * n]!;
      await assert.rejects(
        reduce(makeBatch(d, 1, n, m), { algorithm, precision, engine: 'cpu' }),
        (e: unknown) => e instanceof LatticeMimoError && (e.code === 'RANK_DEFICIENT' || e.code === 'ZERO_VECTOR'),
        why(`${algorithm} ${precision} n=${n} m=${m}`),
      );
    }
  }
});

test('maxIterations bounds every algorithm: a hard basis with a tiny bound is an ITERATION_LIMIT error', async () => {
  const n = 24;
  const d = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    d[j * n + j] = 1;
    d[j * n] += 2 ** 20 + rng.int(2 ** 20);
  }
  const hard = makeBatch(d, 1, n, n);
  for (const algorithm of ALGORITHMS) {
    await expectCode(() => reduce(hard, { algorithm, maxIterations: 2 }), 'ITERATION_LIMIT');
  }
});

test("engine 'cuda' never falls back silently: no GPU version or no device is ENGINE_UNAVAILABLE", async () => {
  const basis = gaussianBases({ batch: 4, n: 8, seed: rng.int(1e9) });
  await expectCode(() => reduce(basis, { algorithm: 'lll', engine: 'cuda' }), 'ENGINE_UNAVAILABLE');
  const dev = cudaAvailable();
  for (const algorithm of CUDA_ALGORITHMS) {
    if (!dev.ok) {
      await expectCode(() => reduce(basis, { algorithm, engine: 'cuda' }), 'ENGINE_UNAVAILABLE');
      const auto = await reduce(basis, { algorithm, engine: 'auto' });
      assert.equal(auto.stats.engine, 'cpu');
    } else {
      const res = await reduce(basis, { algorithm, engine: 'cuda' });
      assert.equal(res.stats.engine, 'cuda');
      for (let k = 0; k < 4; k++) verify(basis, res, k, algorithm, 0.75, 0.51, `${algorithm} cuda #${k}`);
    }
  }
});

test('GPU float32: a basis that breaks down in float32 is redone in float64, the rest of the batch stands', async (t) => {
  const dev = cudaAvailable();
  if (!dev.ok) {
    t.skip(`no CUDA device: ${dev.reason}`);
    return;
  }
  const batch = 6,
    n = 24,
    hard = rng.int(batch);
  // float64 data, float32 working precision (the outputs are B_in Z in float64)
  const basis = gaussianBases({ batch, n, seed: rng.int(1e9) });
  // a square block-Toeplitz channel whose transform passes 2^53 in float32 (checked on the CPU reference)
  basis.data.set(
    blockToeplitzBases({ batch: 1, blocks: 12, blockSize: 1, taps: 3, complex: true, seed: 1 }).data,
    hard * n * n,
  );
  for (const algorithm of ['allswap', 'block', 'cr-block'] as const) {
    const counts = new Int32Array(3 * batch).fill(-1);
    const res = await reduce(basis, { algorithm, precision: 'float32', engine: 'cuda', out: { counts } });
    assert.equal(res.stats.engine, 'cuda');
    assertCounts(res, counts, `${algorithm} cuda float32`);
    assert.ok(res.checks![hard]!.redoneInFloat64, why(`${algorithm}: basis ${hard} redone in float64`));
    assert.ok(res.stats.redoneInFloat64 >= 1);
    for (let k = 0; k < batch; k++) verify(basis, res, k, algorithm, 0.75, 0.51, `${algorithm} cuda float32 #${k}`);
  }
});

// The drift watch (allswap/phases.ts) on the CPU engine: knapsack seed 108 (test/gpu/grid-cases.ts,
// 131 x 130), on which MB-LLL as the paper has it loses B* to its swap updates and stops with a typed
// error; with the watch it is reduced, and the output is proven.
test('CPU MB-LLL: the drift watch turns a precision failure on a knapsack basis into a proven reduction', async () => {
  const { B, n } = knapsackBasis(new Philox(108, 32), 130);
  const basis = makeBatch(B, 1, n, 130);
  const res = await reduce(basis, { algorithm: 'block', engine: 'cpu', blockSize: 8 });
  assert.ok(res.checks![0]!.ok);
  await assert.rejects(
    reduce(basis, { algorithm: 'block', engine: 'cpu', blockSize: 8, driftWatch: false }),
    (e: unknown) => e instanceof LatticeMimoError && ['PRECISION_FAILURE', 'CHECK_FAILED'].includes(e.code),
  );
});

// The per-basis GPU kernels run MB-LLL as the paper has it, without the drift watch: on knapsack
// seeds 108 and 120 it breaks down (as the CPU reference does with driftWatch false). reduce() redoes
// such a basis on the CPU engine, whose reducers have the watch, and keeps the GPU's other results.
test('GPU float64: a basis on which a per-basis kernel breaks down is redone on the CPU (drift watch), the rest of the batch stands', async (t) => {
  const dev = cudaAvailable();
  if (!dev.ok) {
    t.skip(`no CUDA device: ${dev.reason}`);
    return;
  }
  const m = 130,
    n = m + 1,
    seeds = [108, rng.int(1e9), 120];
  const data = new Float64Array(seeds.length * n * m);
  seeds.forEach((s, k) => {
    data.set(knapsackBasis(new Philox(s, 32), m).B, k * n * m);
  });
  const basis = makeBatch(data, seeds.length, n, m);
  for (const algorithm of ['block', 'cr-block'] as const) {
    const res = await reduce(basis, { algorithm, engine: 'cuda', blockSize: 8 });
    // three bases of 130 columns take the per-basis kernel; the parts around a breakdown may be few
    // enough for the whole-device kernel ('grid')
    assert.ok(['persistent', 'grid'].includes(res.stats.gpu!.variant), `${algorithm}: ${res.stats.gpu!.variant}`);
    assert.ok(
      res.checks!.every((c) => c.ok),
      why(`${algorithm}: every output proven`),
    );
    // seed 108 comes first, so the whole batch is on the per-basis kernel when it breaks down; the
    // bases after it run again, as a part of two, on the whole-device kernel (which has a watch)
    if (algorithm === 'block')
      assert.ok(
        res.checks![0]!.redoneOnCpu && res.stats.redoneOnCpu >= 1,
        why(`${algorithm}: seed 108 redone on the CPU`),
      );
    for (let k = 0; k < seeds.length; k++)
      verify(basis, res, k, algorithm, 0.75, 0.51, `${algorithm} cuda knapsack seed ${seeds[k]}`);
  }
});
