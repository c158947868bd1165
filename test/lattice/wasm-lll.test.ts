/**
 * The sequential LLL's WebAssembly kernel (src/lattice/lll/lll-kernel.as.ts) against the TypeScript
 * reference (cpu.ts) on fresh random bases (fast-check; its seed printed on failure):
 *  - the dot product every row, norm and Gram entry goes through: the reference's partial sums;
 *  - real (Gaussian) and integral bases (scaled and rounded, up to 2^40), square and tall, m 2 to
 *    24, random delta and eta, batches of 1 to 9: the output bases, transforms and per-basis counts
 *    equal bit for bit, every output proven (reduceSync's float64 check and |det Z| = 1); and for
 *    one basis of each what the run leaves inside (the working basis, the rows mu and R);
 *  - a batch past one run of the kernel's memory, and reduce() on two worker threads;
 *  - bases the kernel hands back (a column of Z near 2^53, the iteration limit, a dependent basis,
 *    float64 breaking down into double-double): the reference's result or error;
 *  - the fallback: cpuKernel 'typescript', LATTICE_MIMO_WASM=off ('auto' runs TypeScript, 'wasm'
 *    refused), and where cpuKernel applies (lll, float64, the CPU engine);
 *  - the public lllBatchInPlace on many small channel-like bases (2 [Ha; beta I], 2 to 16 columns):
 *    bases, transforms and counts equal lllInPlace's one basis at a time bit for bit, with the
 *    kernel and forced off; an error names the basis the reference refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EngineUnavailableError, InvalidArgumentError, LatticeMimoError } from '../../src/core/errors.js';
import { makeBatch, type MatrixBatch } from '../../src/core/matrix.js';
import { Philox } from '../../src/core/rng.js';
import { WASM_ENV, wasmUnavailableReason } from '../../src/core/wasm-kernels.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../../src/lattice/generators.js';
import { reduce, reduceSync, type ReduceResult } from '../../src/lattice/reduce.js';
import type { ReduceOptions } from '../../src/lattice/types.js';
import { dotCols } from '../../src/lattice/lll/columns.js';
import { lllKernelDot, lllKernelRows } from '../../src/lattice/lll/wasm.js';
import { lllCpuRows } from '../../src/lattice/lll/cpu.js';
import { defaultMaxIterations } from '../../src/lattice/validate.js';
import { lllBatchInPlace, lllInPlace, type AlgoParams, type BasisStats } from '../../src/lattice/index.js';

// Where the kernels cannot run (no SIMD, or LATTICE_MIMO_WASM=off), 'auto' runs the reference.
const simd = wasmUnavailableReason() === null;
const expected = simd ? 'wasm-simd' : 'typescript';

/** Equal bit for bit (Object.is: -0 and NaN too). */
function sameArray(a: ArrayLike<number>, b: ArrayLike<number>, what: string): void {
  assert.equal(a.length, b.length, `${what}: length`);
  for (let i = 0; i < a.length; i++)
    if (!Object.is(a[i], b[i])) assert.fail(`${what}: entry ${i} is ${b[i]}, the reference's ${a[i]}`);
}

function sameResult(ref: ReduceResult, got: ReduceResult, what: string): void {
  sameArray(ref.basis.data, got.basis.data, `${what}: basis`);
  sameArray(ref.transform.data, got.transform.data, `${what}: transform`);
  assert.deepEqual(got.stats.perBasis, ref.stats.perBasis, `${what}: counts`);
}

/**
 * The reference and the kernel ('auto') on the same bases: equal results, each output proven; or,
 * where the reference raises (a rounded small basis may be dependent), the same error (then null).
 */
function both(bases: MatrixBatch, opts: ReduceOptions, what: string): ReduceResult | null {
  let ref: ReduceResult;
  try {
    ref = reduceSync(bases, { ...opts, cpuKernel: 'typescript' });
  } catch (e) {
    assert.throws(
      () => reduceSync(bases, opts),
      (f) => f instanceof LatticeMimoError && f.message === (e as Error).message,
      what,
    );
    return null;
  }
  assert.equal(ref.stats.kernel, 'typescript');
  const got = reduceSync(bases, opts);
  assert.equal(got.stats.kernel, expected, what);
  sameResult(ref, got, what);
  for (const [k, c] of got.checks!.entries()) assert.ok(c.ok, `${what}: basis ${k} not proven`);
  return got;
}

/** batch x n x m bases: Gaussian, or Gaussian scaled by 2^bits and rounded (integral). */
function bases(batch: number, n: number, m: number, bits: number, seed: number): MatrixBatch {
  const g = gaussianBases({ batch, n, m, seed });
  if (bits === 0) return g;
  return makeBatch(
    g.data.map((v) => Math.round(v * 2 ** bits)),
    batch,
    n,
    m,
  );
}

test("the kernel's dot product (every row, norm and Gram entry) is the reference's partial sums, bit for bit", () => {
  if (!simd) return;
  // entries over 2^+-40: sums with cancellation, where another order of the additions rounds otherwise
  const entry = fc
    .tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.integer({ min: -40, max: 40 }))
    .map(([x, e]) => x * 2 ** e);
  fc.assert(
    fc.property(
      fc
        .integer({ min: 1, max: 40 })
        .chain((len) =>
          fc.tuple(
            fc.array(entry, { minLength: len, maxLength: len }),
            fc.array(entry, { minLength: len, maxLength: len }),
          ),
        ),
      ([a, c]) => {
        const A = Float64Array.from(a),
          C = Float64Array.from(c);
        assert.ok(Object.is(lllKernelDot(A, C), dotCols(A, 0, C, 0, A.length)));
      },
    ),
    { numRuns: 300 },
  );
});

test('the kernel equals the reference bit for bit on random bases, every output proven', () => {
  const run = fc.check(
    fc.property(
      fc.integer({ min: 2, max: 24 }),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 9 }),
      fc.constantFrom(0, 0, 4, 20, 40),
      fc.double({ min: 0.3, max: 0.99, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      (m, extra, batch, bits, delta, etaT, seed) => {
        const eta = 0.5 + etaT * (Math.min(Math.sqrt(delta), 0.95) - 0.5) * 0.99;
        const b = bases(batch, m + extra, m, bits, seed);
        const what = `${batch} x ${m + extra}x${m}, ${bits} bits, delta ${delta}, eta ${eta}`;
        if (!both(b, { delta, eta }, what) || !simd) return;
        // the first basis again, with what the run leaves inside: the working basis (its column
        // operations' roundings) and the last coefficient rows, where a rounding apart shows
        const n = m + extra;
        const p = { delta, eta, blockSize: 8, maxIterations: defaultMaxIterations(m) };
        const B0 = Float64Array.from(b.data.subarray(0, n * m));
        const kernel = lllKernelRows(B0, n, m, p);
        // (handed back: the Gram matrix's error estimate asked for the reference's verification)
        if (!kernel) return;
        const Z = new Float64Array(m * m);
        for (let i = 0; i < m; i++) Z[i * (m + 1)] = 1;
        const ref = lllCpuRows(B0, Z, n, m, p);
        sameArray(B0, kernel.B, `${what}: working basis`);
        sameArray(Z, kernel.Z, `${what}: transform`);
        sameArray(ref.mu, kernel.mu, `${what}: mu`);
        sameArray(ref.R, kernel.R, `${what}: R`);
        assert.deepEqual(kernel.stats, ref.stats);
      },
    ),
    { numRuns: 60 },
  );
  if (run.failed) assert.fail(`seed ${run.seed}, ${JSON.stringify(run.counterexample)}: ${run.errorInstance}`);
});

test('a batch past one run of the kernel, a block-Toeplitz batch, and reduce() on worker threads', async () => {
  const seed = new Philox(Date.now(), 0).nextUint32();
  // 8x8: about 250 bases a run of the kernel's memory
  both(bases(700, 8, 8, 0, seed), {}, `700 8x8 (seed ${seed})`);
  const t = blockToeplitzBases({ batch: 3, blocks: 10, blockSize: 1, complex: true, taps: 3, shape: 'full', seed });
  both(t, { delta: 0.99 }, `3 block-Toeplitz 24x20 (seed ${seed})`);
  // enough work that reduce() splits it over the workers
  const b = bases(160, 16, 16, 0, seed + 1);
  const ref = reduceSync(b, { cpuKernel: 'typescript' });
  const got = await reduce(b, { engine: 'cpu', threads: 2 });
  assert.equal(got.stats.kernel, expected);
  sameResult(ref, got, `160 16x16 on 2 threads (seed ${seed})`);
});

test('bases the kernel hands back get the reference result or error', () => {
  // b_1 = (2^53 - 1) b_0 + e_1: Z's entry reaches 2^53 - 1, which the kernel leaves to the reference's exact path
  const wide = makeBatch(Float64Array.from([1, 0, 2 ** 53 - 1, 1, 3, 1, 2, 5]), 2, 2, 2);
  const got = both(wide, {}, 'a transform near 2^53')!;
  if (simd) assert.equal(got.stats.redoneInTypescript, 1);
  // the iteration limit: the same error, naming the basis
  const many = bases(4, 12, 12, 0, 7);
  const err = (opts: ReduceOptions) => {
    try {
      reduceSync(many, { maxIterations: 20, ...opts });
    } catch (e) {
      return e as LatticeMimoError;
    }
    assert.fail('no error');
  };
  const a = err({ cpuKernel: 'typescript' }),
    b = err({});
  assert.equal(b.code, a.code);
  assert.equal(b.message, a.message);
  assert.deepEqual(b.details, a.details);
  // a dependent basis (its third column the sum of the first two): the reference's error
  const dep = makeBatch(Float64Array.from([1, 2, 0, 3, 1, 1, 4, 3, 1]), 1, 3, 3);
  const c = (() => {
    try {
      reduceSync(dep);
    } catch (e) {
      return e as LatticeMimoError;
    }
  })();
  assert.ok(c instanceof LatticeMimoError && ['RANK_DEFICIENT', 'ZERO_VECTOR'].includes(c.code), String(c));
  // float64 breaking down on an integral basis: the reference's double-double rows
  const dd = integerScale(
    blockToeplitzBases({ batch: 1, blocks: 64, blockSize: 1, taps: 3, complex: true, seed: 14 }),
    2 ** 20,
  );
  const res = both(dd, { delta: 0.99 }, 'double-double')!;
  assert.equal(res.stats.perBasis[0]!.extendedPrecision, 'double-double');
});

test('the fallback: LATTICE_MIMO_WASM=off, and where cpuKernel applies', () => {
  const b = bases(3, 6, 6, 0, 11);
  const before = process.env[WASM_ENV];
  process.env[WASM_ENV] = 'off';
  try {
    const r = reduceSync(b);
    assert.equal(r.stats.kernel, 'typescript');
    sameResult(reduceSync(b, { cpuKernel: 'typescript' }), r, 'off');
    assert.throws(
      () => reduceSync(b, { cpuKernel: 'wasm' }),
      (e) => e instanceof EngineUnavailableError && e.message.includes(WASM_ENV),
    );
  } finally {
    if (before === undefined) delete process.env[WASM_ENV];
    else process.env[WASM_ENV] = before;
  }
  assert.equal(reduceSync(b, { cpuKernel: 'typescript' }).stats.kernel, 'typescript');
  // other algorithms, float32 and the GPU engine: refused, naming why; 'auto' is accepted everywhere
  assert.equal(reduceSync(b, { algorithm: 'allswap', cpuKernel: 'auto' }).stats.kernel, 'typescript');
  assert.throws(
    () => reduceSync(b, { algorithm: 'allswap', cpuKernel: 'wasm' }),
    (e) => e instanceof InvalidArgumentError && e.message.includes('algorithms with a WebAssembly kernel: lll'),
  );
  assert.throws(
    () => reduceSync(b, { precision: 'float32', cpuKernel: 'typescript' }),
    (e) => e instanceof InvalidArgumentError && e.message.includes('float64'),
  );
  assert.throws(
    () => reduceSync(b, { cpuKernel: 'fast' as never }),
    (e) => e instanceof InvalidArgumentError && e.message.includes('cpuKernel'),
  );
  // float32 bases under 'auto': the reference
  assert.equal(reduceSync(b, { precision: 'float32' }).stats.kernel, 'typescript');
  // a basis of one vector: nothing for the kernel; 'auto' runs the reference, 'wasm' says why not
  const one = bases(2, 3, 1, 0, 5);
  assert.equal(reduceSync(one).stats.kernel, 'typescript');
  if (simd)
    assert.throws(
      () => reduceSync(one, { cpuKernel: 'wasm' }),
      (e) => e instanceof EngineUnavailableError && e.message.includes('3 x 1'),
    );
});

/** count bases of n x m like the lattice-aided detectors': 2 Ha over 2 beta I (beta 0: Ha alone, n = m). */
function channelBases(rng: Philox, count: number, n: number, m: number, beta: number): Float64Array {
  const B = new Float64Array(count * n * m);
  for (let k = 0; k < count; k++)
    for (let j = 0; j < m; j++) {
      const col = (k * m + j) * n;
      for (let i = 0; i < n - (beta > 0 ? m : 0); i++) B[col + i] = 2 * rng.normal() * Math.SQRT1_2;
      if (beta > 0) B[col + n - m + j] = 2 * beta;
    }
  return B;
}

test('lllBatchInPlace equals lllInPlace one basis at a time, bit for bit, with the kernel and forced off', () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const rng = new Philox(seed, 21);
  const seedMsg = `(Philox seed ${seed})`;
  const p: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 2, maxIterations: 100_000 };
  for (let trial = 0; trial < 24; trial++) {
    const m = 2 * (1 + (rng.nextUint32() % 8)),
      beta = trial % 2 ? 0.05 + rng.uniform() : 0;
    const n = beta > 0 ? 2 * m : m + 2 * (rng.nextUint32() % 2),
      count = 1 + (rng.nextUint32() % 40);
    const input = channelBases(rng, count, n, m, beta);
    const ref = Float64Array.from(input),
      refZ = new Float64Array(count * m * m),
      refStats: BasisStats[] = [];
    for (let k = 0; k < count; k++) {
      const Z = refZ.subarray(k * m * m, (k + 1) * m * m);
      for (let i = 0; i < m; i++) Z[i * (m + 1)] = 1;
      refStats.push(lllInPlace(ref.subarray(k * n * m, (k + 1) * n * m), Z, n, m, p));
    }
    const what = `trial ${trial}: ${count} bases of ${n} x ${m}, beta ${beta} ${seedMsg}`;
    for (const off of [false, true]) {
      const before = process.env[WASM_ENV];
      if (off) process.env[WASM_ENV] = 'off';
      try {
        const B = Float64Array.from(input),
          Z = new Float64Array(count * m * m).fill(NaN),
          stats: BasisStats[] = [];
        const r = lllBatchInPlace(B, Z, count, n, m, p, stats);
        assert.equal(r.kernel, off ? 'typescript' : expected, what);
        sameArray(ref, B, `${what}, off ${off}: bases`);
        sameArray(refZ, Z, `${what}, off ${off}: transforms`);
        assert.deepEqual(stats, refStats, `${what}, off ${off}: counts`);
      } finally {
        if (before === undefined) delete process.env[WASM_ENV];
        else process.env[WASM_ENV] = before;
      }
    }
  }
  // count 0: the kernel a batch of the shape would run, and 'wasm' where it cannot
  const none = new Float64Array(0);
  assert.equal(lllBatchInPlace(none, none, 0, 8, 8, p).kernel, expected);
  assert.equal(lllBatchInPlace(none, none, 0, 3, 1, p).kernel, 'typescript');
  assert.throws(
    () => lllBatchInPlace(none, none, 0, 3, 1, { ...p, cpuKernel: 'wasm' }),
    (e) => e instanceof EngineUnavailableError,
  );
  // a dependent basis among good ones: the reference's error, naming the basis
  const B = channelBases(rng, 5, 6, 6, 0);
  for (let i = 0; i < 6; i++) B[3 * 36 + 6 + i] = B[3 * 36 + i]!;
  const refErr = (() => {
    const Z = new Float64Array(36);
    for (let i = 0; i < 6; i++) Z[i * 7] = 1;
    try {
      lllInPlace(B.slice(3 * 36, 4 * 36), Z, 6, 6, p);
    } catch (e) {
      return e as LatticeMimoError;
    }
    assert.fail('the dependent basis was reduced');
  })();
  assert.throws(
    () => lllBatchInPlace(B, new Float64Array(5 * 36), 5, 6, 6, p),
    (e) =>
      e instanceof LatticeMimoError &&
      e.code === refErr.code &&
      e.context.basis === 3 &&
      e.message.includes(refErr.reason) &&
      e.message.includes('basis 3'),
  );
});
