import { allocReal, makeBatch, type MatrixBatch, type Precision } from '../core/matrix.js';
import { InvalidArgumentError } from '../core/errors.js';
import { cudaAvailable, requireCuda } from '../gpu/context.js';
import { allocPinned } from '../gpu/host-memory.js';

/**
 * An empty batch of `batch` matrices of rows x cols (column-major, back to back) for the caller to
 * fill in place: on pinned host memory when a CUDA device answers, so that reduce() on the GPU copies
 * it (and results written into such arrays, ReduceOptions.out) with no staging copy; ordinary memory
 * otherwise. The memory returns to a pool when the array is garbage-collected.
 * @returns MatrixBatch with data: Float32Array or Float64Array of batch x rows x cols (contents unspecified).
 */
export async function hostBatch(shape: {
  batch: number;
  rows: number;
  cols: number;
  precision?: Precision;
}): Promise<MatrixBatch> {
  const { batch, rows, cols } = shape;
  const precision = shape.precision ?? 'float64';
  if (precision !== 'float32' && precision !== 'float64')
    throw new InvalidArgumentError(`precision must be 'float32' or 'float64', got ${String(precision)}`);
  for (const [name, v] of [
    ['batch', batch],
    ['rows', rows],
    ['cols', cols],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer, got ${v}`);
  }
  const length = batch * rows * cols;
  if (!cudaAvailable().ok) return makeBatch(allocReal(precision, length), batch, rows, cols);
  const ctx = requireCuda();
  const data =
    precision === 'float32' ? allocPinned(ctx, Float32Array, length) : allocPinned(ctx, Float64Array, length);
  return makeBatch(data, batch, rows, cols);
}
