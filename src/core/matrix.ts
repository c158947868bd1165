/**
 * Batched dense matrices. Column-major (element (i, j) of a rows x cols matrix at i + j*rows, so a
 * basis is its columns, as in the papers); a batch holds `batch` matrices back to back in one typed
 * array. float32 and float64 are both first-class: the typed array's kind is the precision.
 */
import { allocArray } from './alloc.js';
import { InvalidArgumentError, InvalidInputError } from './errors.js';

/** Element precision of a batch; the typed array's kind says it (Float32Array / Float64Array). */
export type Precision = 'float32' | 'float64';
/** The typed arrays a batch may hold: the kind is the precision. */
export type RealArray = Float32Array | Float64Array;

/**
 * A batch of equal-shape real matrices in one typed array: `data` is batch x rows x cols,
 * column-major, matrix k at offset k * rows * cols (element (i, j) at i + j * rows).
 */
export interface MatrixBatch<A extends RealArray = RealArray> {
  /** Number of matrices. */
  readonly batch: number;
  /** Rows of each matrix (n, the dimension of a basis vector). */
  readonly rows: number;
  /** Columns of each matrix (m, the number of basis vectors). */
  readonly cols: number;
  /** batch x rows x cols elements, column-major, matrices back to back. */
  readonly data: A;
}

/** The precision a typed array stands for: Float32Array is 'float32', anything else 'float64'. */
export function precisionOf(a: RealArray): Precision {
  return a instanceof Float32Array ? 'float32' : 'float64';
}

/** A new zero-filled array of `precision`; UnsupportedError naming `what` when it cannot be had (core/alloc.ts). */
export function allocReal(precision: Precision, length: number, what = 'an array'): RealArray {
  return precision === 'float32' ? allocArray(Float32Array, length, what) : allocArray(Float64Array, length, what);
}

/** A new array of the same kind (precision) as `like`; UnsupportedError naming `what` when it cannot be had. */
export function allocLike<A extends RealArray>(like: A, length: number, what = 'an array'): A {
  return allocArray<RealArray>(like instanceof Float32Array ? Float32Array : Float64Array, length, what) as A;
}

/** A copy of `a` (any length) converted to `precision`, rounding to nearest when narrowing. */
export function toPrecision(a: RealArray, precision: Precision): RealArray {
  const out = allocReal(precision, a.length, `a ${precision} copy`);
  out.set(a);
  return out;
}

/**
 * Wraps `data` (batch x rows x cols elements, column-major, no copy) as a batch; throws
 * SHAPE_MISMATCH when its length is not batch * rows * cols.
 */
export function makeBatch<A extends RealArray>(data: A, batch: number, rows: number, cols: number): MatrixBatch<A> {
  for (const [name, v] of [
    ['batch', batch],
    ['rows', rows],
    ['cols', cols],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new InvalidArgumentError(`${name} must be a positive integer, got ${v}`);
  }
  if (data.length !== batch * rows * cols) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `data has ${data.length} elements but batch x rows x cols = ${batch} x ${rows} x ${cols} = ${batch * rows * cols}`,
    );
  }
  return { batch, rows, cols, data };
}

/** A zero-filled batch of `batch` rows x cols matrices in `precision`. */
export function zerosBatch(precision: Precision, batch: number, rows: number, cols: number): MatrixBatch {
  return makeBatch(allocReal(precision, batch * rows * cols), batch, rows, cols);
}

/** The k-th matrix of a batch (rows x cols, column-major), as a view sharing memory. */
export function matrixAt<A extends RealArray>(b: MatrixBatch<A>, k: number): A {
  const size = b.rows * b.cols;
  return b.data.subarray(k * size, (k + 1) * size) as A;
}

/** A batch of one column-major rows x cols matrix from row-major nested arrays (rows[i][j]). */
export function fromRows(rows: readonly (readonly number[])[], precision: Precision = 'float64'): MatrixBatch {
  if (rows.length === 0) throw new InvalidInputError('INVALID_INPUT', 'matrix has no rows');
  const r = rows.length;
  const c = rows[0]!.length;
  if (c === 0) throw new InvalidInputError('INVALID_INPUT', 'matrix has an empty row');
  const data = allocReal(precision, r * c);
  rows.forEach((row, i) => {
    if (row.length !== c)
      throw new InvalidInputError('SHAPE_MISMATCH', `row ${i} has ${row.length} entries, row 0 has ${c}`);
    row.forEach((v, j) => {
      data[i + j * r] = v;
    });
  });
  return makeBatch(data, 1, r, c);
}

/** Row-major nested arrays out[i][j] (rows x cols) of one column-major matrix. */
export function toRows(a: ArrayLike<number>, rows: number, cols: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < rows; i++) {
    const row: number[] = [];
    for (let j = 0; j < cols; j++) row.push(a[i + j * rows]!);
    out.push(row);
  }
  return out;
}

/** C = A * B for column-major A (n x k) and B (k x m); C is n x m, column-major float64. */
export function matMul(a: ArrayLike<number>, b: ArrayLike<number>, n: number, k: number, m: number): Float64Array {
  const c = new Float64Array(n * m);
  for (let j = 0; j < m; j++) {
    for (let l = 0; l < k; l++) {
      const blj = b[l + j * k]!;
      if (blj === 0) continue;
      const ao = l * n;
      const co = j * n;
      for (let i = 0; i < n; i++) c[co + i]! += a[ao + i]! * blj;
    }
  }
  return c;
}

/** The m x m identity, column-major float64 (m * m elements). */
export function identity(m: number): Float64Array {
  const z = new Float64Array(m * m);
  for (let i = 0; i < m; i++) z[i + i * m] = 1;
  return z;
}
