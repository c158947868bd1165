import {
  allocReal,
  checkArrayLength,
  checkOptions,
  choice,
  integer,
  makeBatch,
  option,
  type MatrixBatch,
  type Precision,
} from '../core/index.js';
import { allocPinned, cudaAvailable, requireCuda } from '../gpu/index.js';

/** hostBatch()'s shape: every key but precision required. */
const HOST_BATCH_SCHEMA = {
  batch: option(integer(1), 'number of matrices', { required: true }),
  rows: option(integer(1), 'rows of each matrix', { required: true }),
  cols: option(integer(1), 'columns of each matrix', { required: true }),
  precision: option(choice(['float32', 'float64'] as const), 'the array kind', { default: 'float64' }),
};

/** The size of hostBatch()'s batch: `batch` matrices of rows x cols. */
export interface HostBatchShape {
  /** Number of matrices. */
  batch: number;
  /** Rows of each matrix. */
  rows: number;
  /** Columns of each matrix. */
  cols: number;
}

/**
 * An empty batch of `batch` matrices of rows x cols (column-major, back to back) for the caller to
 * fill in place: on pinned host memory when a CUDA device answers, so that reduce() on the GPU copies
 * it (and results written into such arrays, ReduceOptions.out) with no staging copy; ordinary memory
 * otherwise. The memory returns to a pool when the array is garbage-collected. A shape past what
 * an array may hold is an UnsupportedError naming its size and the limit.
 * @returns MatrixBatch with data of batch x rows x cols (contents unspecified): a Float32Array for
 * precision 'float32', a Float64Array for 'float64' (the default).
 */
export async function hostBatch(shape: HostBatchShape & { precision: 'float32' }): Promise<MatrixBatch<Float32Array>>;
export async function hostBatch(shape: HostBatchShape & { precision?: 'float64' }): Promise<MatrixBatch<Float64Array>>;
export async function hostBatch(shape: HostBatchShape & { precision?: Precision }): Promise<MatrixBatch>;
export async function hostBatch(shape: HostBatchShape & { precision?: Precision }): Promise<MatrixBatch> {
  const s = checkOptions(shape, HOST_BATCH_SCHEMA, 'hostBatch()');
  const { batch, rows, cols } = s as Required<typeof s>;
  const precision = s.precision ?? 'float64';
  const length = batch * rows * cols;
  const what = `hostBatch() batch x rows x cols = ${batch} x ${rows} x ${cols}`;
  checkArrayLength(length, what, precision === 'float32' ? 4 : 8);
  if (!cudaAvailable().ok) return makeBatch(allocReal(precision, length, what), batch, rows, cols);
  const ctx = requireCuda();
  const data =
    precision === 'float32' ? allocPinned(ctx, Float32Array, length) : allocPinned(ctx, Float64Array, length);
  return makeBatch(data, batch, rows, cols);
}
