/**
 * What the caller of reduce() gets when a basis of a batch fails: a typed error of the class the
 * reducer threw (across worker threads too), whose details name the basis (and the vector where
 * there is one) and whose message names the basis where the batch has more than one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { IterationLimitError, LatticeMimoError, RankDeficientError } from '../../src/core/errors.js';
import { makeBatch } from '../../src/core/matrix.js';
import { reduce, reduceSync } from '../../src/lattice/reduce.js';

/** `batch` random integer n x n bases (entries in [-50, 50], full rank almost surely). */
function integerBatch(batch: number, n: number): Float64Array {
  const data = new Float64Array(batch * n * n);
  for (let i = 0; i < data.length; i++) data[i] = randomInt(-50, 51);
  return data;
}

async function rejection(p: Promise<unknown>): Promise<LatticeMimoError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  assert.ok(e instanceof LatticeMimoError, `expected a typed error, got ${String(e)}`);
  return e;
}

test('a dependent basis in a batch (worker threads or this thread) is a RankDeficientError naming the basis and the vector', async () => {
  for (const threads of [1, 2]) {
    // 10 x 10 bases, enough of them for worker threads
    const n = 10,
      batch = 500 + randomInt(300);
    const data = integerBatch(batch, n);
    const k = randomInt(batch),
      a = randomInt(n - 2),
      b = a + 1 + randomInt(n - 2 - a),
      j = b + 1 + randomInt(n - 1 - b);
    // column j of basis k = column a + column b: dependent on the vectors before it
    for (let t = 0; t < n; t++)
      data[k * n * n + j * n + t] = data[k * n * n + a * n + t]! + data[k * n * n + b * n + t]!;
    const e = await rejection(reduce(makeBatch(data, batch, n, n), { engine: 'cpu', threads }));
    assert.ok(e instanceof RankDeficientError, `${e.name}: ${e.message}`);
    assert.equal(e.details?.basis, k);
    assert.equal(e.details?.vector, j);
    assert.ok(e.message.startsWith(`basis ${k}: basis vector ${j} is linearly dependent`), e.message);
  }
});

test('one basis alone: the details name basis 0, the words need not', () => {
  const n = 4 + randomInt(4);
  const data = integerBatch(1, n);
  const j = 1 + randomInt(n - 1);
  for (let t = 0; t < n; t++) data[j * n + t] = 2 * data[t]!;
  assert.throws(
    () => reduceSync(makeBatch(data, 1, n, n)),
    (e: unknown) =>
      e instanceof RankDeficientError &&
      e.details?.basis === 0 &&
      e.details?.vector === j &&
      e.message.startsWith(`basis vector ${j} `),
  );
});

test("the iteration limit on worker threads: the reducer's class, the basis in details and words", async () => {
  const n = 10,
    batch = 500 + randomInt(300);
  const e = await rejection(
    reduce(makeBatch(integerBatch(batch, n), batch, n, n), { engine: 'cpu', threads: 2, maxIterations: 1 }),
  );
  assert.ok(e instanceof IterationLimitError, `${e.name}: ${e.message}`);
  const k = e.details?.basis as number;
  assert.ok(Number.isInteger(k) && k >= 0 && k < batch, String(k));
  assert.equal(e.context.basis, k);
  assert.ok(e.message.startsWith(`basis ${k}: `), e.message);
});
