/**
 * Test-basis generators: iid Gaussian bases and the block-Toeplitz bases of MIMO with inter-symbol
 * interference (the CR-MB-LLL paper's test family), plus integer scaling so that float families
 * can be handed to integer tools such as fplll.
 *
 * Randomness is Philox (src/core/rng.ts) with one stream per matrix: matrix k of a batch reads
 * stream k of the seed, so matrix k does not depend on the batch size and a GPU generator can
 * produce the same numbers. Bases are column-major, columns are basis vectors.
 */
import { InvalidArgumentError, RankDeficientError } from '../core/errors.js';
import { allocReal, makeBatch, type MatrixBatch, type Precision } from '../core/matrix.js';
import { Philox } from '../core/rng.js';
import { assertIndependent, firstZeroColumn } from './validate.js';

/** Upper bounds that keep a generator call from allocating absurd amounts by mistake. */
const MAX_DIM = 1 << 16;
const MAX_ELEMENTS = 1 << 28;

function positiveInt(name: string, v: unknown, max = MAX_DIM): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new InvalidArgumentError(`${name} must be an integer in [1, ${max}], got ${String(v)}`, { [name]: v });
  }
  return v;
}

function checkSeed(seed: unknown): number | bigint {
  const ok =
    (typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0) ||
    (typeof seed === 'bigint' && seed >= 0n && seed < 1n << 64n);
  if (!ok)
    throw new InvalidArgumentError(`seed must be a non-negative integer below 2^64, got ${String(seed)}`, { seed });
  return seed as number | bigint;
}

function checkPrecision(p: unknown): Precision {
  if (p === undefined) return 'float64';
  if (p !== 'float32' && p !== 'float64')
    throw new InvalidArgumentError(`precision must be 'float32' or 'float64', got ${String(p)}`);
  return p;
}

function checkSize(batch: number, rows: number, cols: number): void {
  if (batch * rows * cols > MAX_ELEMENTS) {
    throw new InvalidArgumentError(
      `batch x rows x cols = ${batch} x ${rows} x ${cols} exceeds ${MAX_ELEMENTS} elements`,
    );
  }
}

/** Options of gaussianBases(): the output is batch x n x m, column-major. */
export interface GaussianBasesOptions {
  /** Number of bases. */
  batch: number;
  /** Rows (dimension of the space). */
  n: number;
  /** Columns (basis vectors), m <= n; default n. */
  m?: number;
  /** Philox key: the same seed gives the same bases. */
  seed: number | bigint;
  /** Array kind of the output; default float64. */
  precision?: Precision;
}

/** Bases with iid N(0, 1) entries; matrix k fills column-major from Philox stream k. */
export function gaussianBases(opts: GaussianBasesOptions): MatrixBatch {
  const batch = positiveInt('batch', opts.batch, 1 << 24);
  const n = positiveInt('n', opts.n);
  const m = opts.m === undefined ? n : positiveInt('m', opts.m);
  if (m > n) throw new InvalidArgumentError(`m (${m} basis vectors) must not exceed n (${n} rows)`, { n, m });
  const seed = checkSeed(opts.seed);
  const precision = checkPrecision(opts.precision);
  checkSize(batch, n, m);
  const size = n * m;
  const data = allocReal(precision, batch * size);
  for (let k = 0; k < batch; k++) {
    const rng = new Philox(seed, k);
    for (let i = 0; i < size; i++) data[k * size + i] = rng.normal();
  }
  return makeBatch(data, batch, n, m);
}

/** Options of blockToeplitzBases(): see that function for the output's shape. */
export interface BlockToeplitzOptions {
  /** Number of bases. */
  batch: number;
  /** Number of block rows (= block columns). */
  blocks: number;
  /** Size b of each tap H_l (b x b; complex taps give 2b x 2b real blocks). */
  blockSize: number;
  /** Number of taps L (channel memory), 1 <= L <= blocks. */
  taps: number;
  /** Complex taps CN(0, 1) in their real-valued decomposition [[Re, -Im], [Im, Re]]. */
  complex?: boolean;
  /**
   * 'square' (default): blocks x blocks block rows/columns, the convolution truncated at the last
   * transmitted block. 'full': blocks + L - 1 block rows (the whole linear convolution, tail
   * included), a tall matrix. The square one is ill-conditioned, exponentially in `blocks`, when
   * the channel polynomial H_0 + H_1 z + ... has roots inside the unit circle (often, for random
   * taps); the full one stays well-conditioned.
   */
  shape?: 'square' | 'full';
  /** Philox key: the same seed gives the same bases. */
  seed: number | bigint;
  /** Array kind of the output; default float64. */
  precision?: Precision;
}

/**
 * Block-Toeplitz (block lower-triangular, banded) channel matrices of MIMO with ISI: block (i, j)
 * is H_{i-j} for 0 <= i - j < L, zero elsewhere. m = blocks * rb columns with rb = b (real) or 2b
 * (complex); rows n = m ('square', determinant det(H_0)^blocks, nonzero almost surely) or
 * (blocks + L - 1) * rb ('full').
 *
 * Draw order of matrix k (Philox stream k): taps H_0 .. H_{L-1}, each column-major; a complex tap
 * entry takes two normals (re, then im), each scaled by 1/sqrt(2) so that E|h|^2 = 1.
 */
export function blockToeplitzBases(opts: BlockToeplitzOptions): MatrixBatch {
  const batch = positiveInt('batch', opts.batch, 1 << 24);
  const blocks = positiveInt('blocks', opts.blocks);
  const b = positiveInt('blockSize', opts.blockSize);
  const taps = positiveInt('taps', opts.taps);
  if (taps > blocks) {
    throw new InvalidArgumentError(
      `taps (${taps}) must not exceed blocks (${blocks}): taps past the last block row never appear`,
      { taps, blocks },
    );
  }
  const complex = opts.complex ?? false;
  if (typeof complex !== 'boolean') throw new InvalidArgumentError(`complex must be a boolean, got ${String(complex)}`);
  const shape = opts.shape ?? 'square';
  if (shape !== 'square' && shape !== 'full')
    throw new InvalidArgumentError(`shape must be 'square' or 'full', got ${String(shape)}`);
  const seed = checkSeed(opts.seed);
  const precision = checkPrecision(opts.precision);
  const rb = complex ? 2 * b : b; // rows/cols of one real block
  const m = blocks * rb;
  const blockRows = shape === 'full' ? blocks + taps - 1 : blocks;
  const n = blockRows * rb;
  if (n > MAX_DIM) throw new InvalidArgumentError(`matrix size ${n} exceeds ${MAX_DIM}`);
  checkSize(batch, n, m);

  const size = n * m;
  const data = allocReal(precision, batch * size);
  const tapData = new Float64Array(taps * rb * rb); // real blocks, each rb x rb column-major
  for (let k = 0; k < batch; k++) {
    drawRealBlocks(new Philox(seed, k), tapData, taps, b, complex);
    const base = k * size;
    // block (i, j) = tap i - j: element (r, c) of that block lands at (i*rb + r, j*rb + c)
    for (let j = 0; j < blocks; j++) {
      for (let l = 0; l < taps && j + l < blockRows; l++) {
        const i = j + l;
        const t0 = l * rb * rb;
        for (let c = 0; c < rb; c++) {
          const col = base + (j * rb + c) * n + i * rb;
          for (let r = 0; r < rb; r++) data[col + r] = tapData[t0 + r + c * rb]!;
        }
      }
    }
  }
  return makeBatch(data, batch, n, m);
}

/** Fills `out` with `taps` real blocks (rb x rb, column-major), real-decomposing complex taps. */
function drawRealBlocks(rng: Philox, out: Float64Array, taps: number, b: number, complex: boolean): void {
  if (!complex) {
    for (let i = 0; i < taps * b * b; i++) out[i] = rng.normal();
    return;
  }
  const rb = 2 * b;
  const s = Math.SQRT1_2;
  for (let l = 0; l < taps; l++) {
    const t0 = l * rb * rb;
    for (let c = 0; c < b; c++) {
      for (let r = 0; r < b; r++) {
        const re = rng.normal() * s,
          im = rng.normal() * s;
        // [[Re, -Im], [Im, Re]]
        out[t0 + r + c * rb] = re;
        out[t0 + r + (c + b) * rb] = -im;
        out[t0 + (r + b) + c * rb] = im;
        out[t0 + (r + b) + (c + b) * rb] = re;
      }
    }
  }
}

/**
 * round(scale * B), entry by entry, as a float64 batch (integers above 2^24 are not exact in
 * float32). Throws when an entry would pass 2^53 (no longer an exact integer in a double), when a
 * column rounds to zero, or when the rounded columns are dependent (scale too small for the data).
 */
export function integerScale(basis: MatrixBatch, scale: number): MatrixBatch<Float64Array> {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0) {
    throw new InvalidArgumentError(`scale must be a finite positive number, got ${String(scale)}`, { scale });
  }
  const { batch, rows, cols, data } = basis;
  const out = new Float64Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = Math.round(scale * data[i]!);
    if (!Number.isSafeInteger(v)) {
      throw new InvalidArgumentError(
        `scale ${scale} x entry ${data[i]} (element ${i}) is not a safe integer (|v| must stay below 2^53)`,
        { scale, index: i },
      );
    }
    out[i] = v === 0 ? 0 : v; // no -0
  }
  const size = rows * cols;
  for (let k = 0; k < batch; k++) {
    const B = out.subarray(k * size, (k + 1) * size);
    const j = firstZeroColumn(B, rows, cols);
    if (j >= 0) {
      throw new RankDeficientError(
        'ZERO_VECTOR',
        `column ${j} of matrix ${k} rounds to zero at scale ${scale}; use a larger scale`,
        { matrix: k, column: j, scale },
      );
    }
    // rounding can make independent columns dependent (small scales, few rows): a basis or an error
    try {
      assertIndependent(B, rows, cols);
    } catch (e) {
      if (!(e instanceof RankDeficientError)) throw e;
      throw new RankDeficientError(
        'RANK_DEFICIENT',
        `matrix ${k} rounded at scale ${scale} is not a basis: ${e.reason}; use a larger scale`,
        { matrix: k, scale, ...e.details },
      );
    }
  }
  return makeBatch(out, batch, rows, cols);
}
