import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { LatticeMimoError } from '../../src/core/errors.js';
import { matrixAt } from '../../src/core/matrix.js';
import { bareissDet, gramSchmidt } from '../../src/lattice/check.js';
import { blockToeplitzBases, gaussianBases, integerScale } from '../../src/lattice/generators.js';

/** A fresh seed per run, printed in every assertion message so a failure can be replayed. */
const SEED = randomInt(0, 2 ** 47);
const at = `(seed ${SEED})`;

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof LatticeMimoError, `expected a typed error, got ${e}`);
    return e.code;
  }
  assert.fail('expected an error');
}

function meanVar(a: ArrayLike<number>): { mean: number; variance: number } {
  let s = 0,
    s2 = 0;
  for (let i = 0; i < a.length; i++) {
    s += a[i]!;
    s2 += a[i]! * a[i]!;
  }
  const mean = s / a.length;
  return { mean, variance: s2 / a.length - mean * mean };
}

test('gaussianBases: shape, N(0,1) moments, reproducible, matrix k independent of the batch size', () => {
  const n = 32 + randomInt(0, 16),
    m = n - randomInt(0, 8);
  const g = gaussianBases({ batch: 24, n, m, seed: SEED });
  assert.equal(g.batch, 24);
  assert.equal(g.rows, n);
  assert.equal(g.cols, m);
  assert.ok(g.data instanceof Float64Array);
  const N = g.data.length;
  const { mean, variance } = meanVar(g.data);
  // 6 standard errors: a false alarm has probability ~1e-9
  assert.ok(Math.abs(mean) < 6 / Math.sqrt(N), `mean ${mean} ${at}`);
  assert.ok(Math.abs(variance - 1) < 6 * Math.sqrt(2 / N), `variance ${variance} ${at}`);

  assert.deepEqual(gaussianBases({ batch: 24, n, m, seed: SEED }).data, g.data, `not reproducible ${at}`);
  const other = gaussianBases({ batch: 1, n, m, seed: SEED + 1 });
  assert.notDeepEqual(other.data, matrixAt(g, 0), `seed ignored ${at}`);
  const k = randomInt(0, 24);
  const alone = gaussianBases({ batch: k + 1, n, m, seed: SEED });
  assert.deepEqual(matrixAt(alone, k), matrixAt(g, k), `matrix ${k} depends on the batch size ${at}`);

  const f32 = gaussianBases({ batch: 2, n, m, seed: SEED, precision: 'float32' });
  assert.ok(f32.data instanceof Float32Array);
  for (let i = 0; i < f32.data.length; i++)
    assert.equal(f32.data[i], Math.fround(g.data[i]!), `float32 entry ${i} ${at}`);
});

test('gaussianBases: bad parameters get typed errors', () => {
  assert.equal(
    code(() => gaussianBases({ batch: 0, n: 4, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => gaussianBases({ batch: 1, n: 4.5, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => gaussianBases({ batch: 1, n: 4, m: 5, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => gaussianBases({ batch: 1, n: 4, seed: -1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => gaussianBases({ batch: 1, n: 4, seed: 1, precision: 'float16' as never })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => gaussianBases({ batch: 1 << 20, n: 1 << 10, seed: 1 })),
    'INVALID_ARGUMENT',
  );
});

/** Block (bi, bj) of size rb of a column-major n x n matrix, as a column-major array. */
function blockOf(a: ArrayLike<number>, n: number, rb: number, bi: number, bj: number): number[] {
  const out: number[] = [];
  for (let c = 0; c < rb; c++) for (let r = 0; r < rb; r++) out.push(a[(bj * rb + c) * n + bi * rb + r]!);
  return out;
}

test('blockToeplitzBases (real taps): banded block-Toeplitz structure, square or full, full rank, N(0,1) taps', () => {
  const blocks = 3 + randomInt(0, 6),
    b = 1 + randomInt(0, 4),
    taps = 1 + randomInt(0, blocks);
  const shape = randomInt(0, 2) ? 'full' : 'square';
  const batch = 5;
  const t = blockToeplitzBases({ batch, blocks, blockSize: b, taps, shape, seed: SEED });
  const blockRows = shape === 'full' ? blocks + taps - 1 : blocks;
  const n = blockRows * b,
    m = blocks * b;
  const ctx = `blocks ${blocks}, b ${b}, L ${taps}, ${shape} ${at}`;
  assert.equal(t.rows, n);
  assert.equal(t.cols, m);
  const tapValues: number[] = [];
  for (let k = 0; k < batch; k++) {
    const a = matrixAt(t, k);
    for (let bi = 0; bi < blockRows; bi++)
      for (let bj = 0; bj < blocks; bj++) {
        const blk = blockOf(a, n, b, bi, bj);
        const l = bi - bj;
        if (l < 0 || l >= taps)
          assert.ok(
            blk.every((v) => v === 0),
            `block (${bi}, ${bj}) should be zero, ${ctx}`,
          );
        else {
          assert.deepEqual(blk, blockOf(a, n, b, l, 0), `block (${bi}, ${bj}) != H_${l}, ${ctx}`);
          if (bj === 0) tapValues.push(...blk);
        }
      }
    const { r } = gramSchmidt(a, n, m);
    assert.ok(
      r.every((x) => x > 0),
      `rank-deficient block-Toeplitz matrix ${k}, ${ctx}`,
    );
  }
  if (shape === 'square') {
    const sq = blockToeplitzBases({ batch, blocks, blockSize: b, taps, seed: SEED, shape: 'full' });
    // the square matrix is the top of the full one: same taps, same columns
    for (let k = 0; k < batch; k++)
      for (let j = 0; j < m; j++)
        for (let i = 0; i < n; i++) {
          assert.equal(matrixAt(t, k)[i + j * n], matrixAt(sq, k)[i + j * sq.rows], `square != top of full, ${ctx}`);
        }
  }
  assert.ok(
    tapValues.every((v) => v !== 0),
    `a tap entry is exactly zero, ${ctx}`,
  );
  const { mean, variance } = meanVar(tapValues);
  const N = tapValues.length;
  assert.ok(Math.abs(mean) < 6 / Math.sqrt(N), `tap mean ${mean}, ${ctx}`);
  assert.ok(Math.abs(variance - 1) < 7 * Math.sqrt(2 / N), `tap variance ${variance}, ${ctx}`);
});

test('blockToeplitzBases (complex taps): real-valued decomposition [[Re, -Im], [Im, Re]] with E|h|^2 = 1', () => {
  const blocks = 2 + randomInt(0, 8),
    b = 1 + randomInt(0, 3),
    taps = 1 + randomInt(0, Math.min(blocks, 4));
  const t = blockToeplitzBases({
    batch: 40,
    blocks,
    blockSize: b,
    taps,
    complex: true,
    seed: SEED,
    precision: 'float32',
  });
  const rb = 2 * b,
    n = blocks * rb;
  const ctx = `blocks ${blocks}, b ${b}, L ${taps} ${at}`;
  assert.equal(t.rows, n);
  assert.ok(t.data instanceof Float32Array);
  let power = 0,
    count = 0;
  for (let k = 0; k < t.batch; k++) {
    const a = matrixAt(t, k);
    for (let l = 0; l < taps; l++) {
      const blk = blockOf(a, n, rb, l, 0);
      const e = (r: number, c: number) => blk[r + c * rb]!;
      for (let r = 0; r < b; r++)
        for (let c = 0; c < b; c++) {
          assert.equal(e(r + b, c + b), e(r, c), `Re blocks differ, ${ctx}`);
          assert.equal(e(r, c + b), -e(r + b, c), `Im blocks not antisymmetric, ${ctx}`);
          power += e(r, c) ** 2 + e(r + b, c) ** 2;
          count++;
        }
    }
  }
  const meanPower = power / count;
  // |h|^2 is Exp(1): standard deviation 1 per sample
  assert.ok(Math.abs(meanPower - 1) < 6 / Math.sqrt(count), `E|h|^2 = ${meanPower} over ${count} taps, ${ctx}`);
});

test('blockToeplitzBases: bad parameters get typed errors', () => {
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 3, blockSize: 2, taps: 4, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 3, blockSize: 2, taps: 0, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 0, blockSize: 2, taps: 1, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 3, blockSize: -2, taps: 1, seed: 1 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 3, blockSize: 2, taps: 1, seed: 1, complex: 'yes' as never })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 3, blockSize: 2, taps: 1, seed: 0.5 })),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => blockToeplitzBases({ batch: 1, blocks: 3, blockSize: 2, taps: 1, seed: 1, shape: 'tall' as never })),
    'INVALID_ARGUMENT',
  );
});

test('integerScale: nearest integers of scale * B, float64, typed errors', () => {
  const scale = 2 ** randomInt(4, 30) * (1 + Math.random());
  const g = gaussianBases({ batch: 3, n: 12, m: 9, seed: SEED, precision: randomInt(0, 2) ? 'float32' : 'float64' });
  const s = integerScale(g, scale);
  assert.ok(s.data instanceof Float64Array);
  assert.deepEqual([s.batch, s.rows, s.cols], [g.batch, g.rows, g.cols]);
  for (let i = 0; i < s.data.length; i++) {
    const v = s.data[i]!;
    assert.ok(Number.isSafeInteger(v) && !Object.is(v, -0), `entry ${i} = ${v} ${at}`);
    assert.ok(Math.abs(v - scale * g.data[i]!) <= 0.5, `entry ${i}: ${v} is not round(${scale} * ${g.data[i]}) ${at}`);
  }
  assert.equal(
    code(() => integerScale(g, 0)),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => integerScale(g, Number.NaN)),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => integerScale(g, 2 ** 60)),
    'INVALID_ARGUMENT',
  );
  assert.equal(
    code(() => integerScale(g, 1e-12)),
    'ZERO_VECTOR',
  );
});

test('integerScale: a rounding whose columns are dependent is a typed error, never a returned "basis"', () => {
  // 3 x 3 Gaussian bases at scale 1 round to entries in {-2..2}: singular often enough to see both outcomes
  let refused = 0,
    returned = 0;
  for (let t = 0; t < 300; t++) {
    const seed = randomInt(0, 2 ** 30);
    const g = gaussianBases({ batch: 1, n: 3, seed });
    const rounded = Array.from(g.data, (v) => Math.round(v) || 0);
    const singular =
      rounded.some((_, j) => j % 3 === 0 && rounded.slice(j, j + 3).every((v) => v === 0)) ||
      bareissDet(rounded, 3) === 0n;
    let c: string | undefined;
    try {
      integerScale(g, 1);
    } catch (e) {
      c = (e as { code?: string }).code;
    }
    if (singular) {
      assert.ok(
        c === 'RANK_DEFICIENT' || c === 'ZERO_VECTOR',
        `singular rounding [${rounded}] gave ${c ?? 'a result'} (gaussianBases seed ${seed})`,
      );
      refused++;
    } else {
      assert.equal(c, undefined, `nonsingular rounding [${rounded}] refused (${c}) (gaussianBases seed ${seed})`);
      returned++;
    }
  }
  assert.ok(refused > 0 && returned > 0, `both outcomes drawn: ${refused} refused, ${returned} returned`);
});
