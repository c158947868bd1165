/**
 * Test-basis generators: iid Gaussian bases and the block-Toeplitz bases of MIMO with inter-symbol
 * interference (the CR-MB-LLL paper's test family), plus integer scaling so that float families
 * can be handed to integer tools such as fplll.
 *
 * Randomness is Philox (src/core/rng.ts) with one stream per matrix: matrix k of a batch reads
 * stream k of the seed, so matrix k does not depend on the batch size and a GPU generator can
 * produce the same numbers. Bases are column-major, columns are basis vectors.
 */
import {
  allocArray,
  allocReal,
  boolean,
  checkOptions,
  choice,
  integer,
  InvalidArgumentError,
  makeBatch,
  option,
  Philox,
  RankDeficientError,
  satisfying,
  show,
  type MatrixBatch,
  type Precision,
} from '../core/index.js';
import { assertIndependent, firstZeroColumn, validateShape } from './validate.js';

/** Upper bounds that keep a generator call from allocating absurd amounts by mistake. */
const MAX_DIM = 1 << 16;
const MAX_BATCH = 1 << 24;
const MAX_ELEMENTS = 1 << 28;

const seedCheck = satisfying<number | bigint>(
  'a non-negative integer below 2^64 (a safe integer or a BigInt)',
  (v) =>
    (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || (typeof v === 'bigint' && v >= 0n && v < 1n << 64n),
);
const precisionCheck = choice(['float32', 'float64'] as const);

/** gaussianBases()'s options. */
const GAUSSIAN_SCHEMA = {
  batch: option(integer(1, MAX_BATCH), 'number of bases', { required: true }),
  n: option(integer(1, MAX_DIM), 'rows (dimension of the space)', { required: true }),
  m: option(integer(1, MAX_DIM), 'columns (basis vectors), m <= n; default n'),
  seed: option(seedCheck, 'Philox key: the same seed gives the same bases', { required: true }),
  precision: option(precisionCheck, 'array kind of the output', { default: 'float64' }),
};

/** blockToeplitzBases()'s options. */
const BLOCK_TOEPLITZ_SCHEMA = {
  batch: option(integer(1, MAX_BATCH), 'number of bases', { required: true }),
  blocks: option(integer(1, MAX_DIM), 'number of block rows (= block columns)', { required: true }),
  blockSize: option(integer(1, MAX_DIM), 'size b of each tap (b x b)', { required: true }),
  taps: option(integer(1, MAX_DIM), 'number of taps L, at most blocks', { required: true }),
  complex: option(boolean(), 'complex taps CN(0, 1) in their real-valued decomposition', { default: false }),
  shape: option(choice(['square', 'full'] as const), "'square' truncated convolution or 'full' (tall)", {
    default: 'square',
  }),
  seed: option(seedCheck, 'Philox key: the same seed gives the same bases', { required: true }),
  precision: option(precisionCheck, 'array kind of the output', { default: 'float64' }),
};

/** The generators' own bound on batch x rows x cols (a call past it is a mistake, not a workload). */
function checkSize(call: string, batch: number, rows: number, cols: number): void {
  const elements = batch * rows * cols;
  if (elements > MAX_ELEMENTS) {
    throw new InvalidArgumentError(
      `${call}: batch x rows x cols = ${batch} x ${rows} x ${cols} = ${elements} elements, past the generators' ${MAX_ELEMENTS}`,
      { what: 'batch x rows x cols', elements, limit: MAX_ELEMENTS },
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
  const call = 'gaussianBases()';
  const o = checkOptions(opts, GAUSSIAN_SCHEMA, call);
  const { batch, n, seed } = o as Required<typeof o>;
  const m = o.m ?? n;
  if (m > n)
    throw new InvalidArgumentError(`${call}: m (${m} basis vectors) must not exceed n (${n} rows)`, {
      option: 'm',
      n,
      m,
    });
  const precision = o.precision ?? 'float64';
  checkSize(call, batch, n, m);
  const size = n * m;
  const data = allocReal(precision, batch * size, `${call} bases`);
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
  const call = 'blockToeplitzBases()';
  const o = checkOptions(opts, BLOCK_TOEPLITZ_SCHEMA, call);
  const { batch, blocks, blockSize: b, taps, seed } = o as Required<typeof o>;
  if (taps > blocks) {
    throw new InvalidArgumentError(
      `${call}: taps (${taps}) must not exceed blocks (${blocks}): taps past the last block row never appear`,
      { option: 'taps', taps, blocks },
    );
  }
  const complex = o.complex ?? false;
  const shape = o.shape ?? 'square';
  const precision = o.precision ?? 'float64';
  const rb = complex ? 2 * b : b; // rows/cols of one real block
  const m = blocks * rb;
  const blockRows = shape === 'full' ? blocks + taps - 1 : blocks;
  const n = blockRows * rb;
  if (n > MAX_DIM)
    throw new InvalidArgumentError(`${call}: matrix size ${n} exceeds ${MAX_DIM}`, { n, limit: MAX_DIM });
  checkSize(call, batch, n, m);

  const size = n * m;
  const data = allocReal(precision, batch * size, `${call} bases`);
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
    throw new InvalidArgumentError(`integerScale(): scale must be a finite positive number, got ${show(scale)}`, {
      option: 'scale',
      scale: typeof scale === 'number' ? scale : String(scale),
    });
  }
  validateShape(basis);
  const { batch, rows, cols, data } = basis;
  const out = allocArray(Float64Array, data.length, 'integerScale() result');
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
