/**
 * What the lattice kernels' status words mean. Every lattice kernel writes STATS_WIDTH int32 words
 * per basis: [iterations, swaps, sizeReductions, status, detail] (lll-common.cuh); status and detail
 * become the same typed errors the CPU reducers throw.
 */
import {
  InvalidInputError,
  IterationLimitError,
  LatticeMimoError,
  RankDeficientError,
  UnsupportedError,
} from '../../core/index.js';
import type { AlgoParams } from '../types.js';

export const STATS_WIDTH = 5;

export const STATUS = {
  OK: 0,
  NON_FINITE: 1,
  ZERO_VECTOR: 2,
  ITERATION_LIMIT: 3,
  RANK_DEFICIENT: 4,
  PRECISION_FAILURE: 5,
  TRANSFORM_OVERFLOW: 6,
  /** A persistent kernel's wait (grid barrier, flag) passed its time limit: it gave up instead of hanging. */
  TIMEOUT: 7,
  /** Reduced; the product B_in Z could pass 2^53, so the host computes it exactly (apply-transform.cu). */
  HOST_PRODUCT: 8,
} as const;

/** The error code each breakdown status stands for (the codes the fallback policy reads). */
export function statusCode(status: number): string {
  switch (status) {
    case STATUS.NON_FINITE:
      return 'NON_FINITE';
    case STATUS.ZERO_VECTOR:
      return 'ZERO_VECTOR';
    case STATUS.ITERATION_LIMIT:
      return 'ITERATION_LIMIT';
    case STATUS.RANK_DEFICIENT:
      return 'RANK_DEFICIENT';
    case STATUS.PRECISION_FAILURE:
      return 'PRECISION_FAILURE';
    case STATUS.TRANSFORM_OVERFLOW:
      return 'UNSUPPORTED';
    case STATUS.TIMEOUT:
      return 'KERNEL_TIMEOUT';
    default:
      return 'UNSUPPORTED';
  }
}

/** The typed error the CPU reducer would have thrown for basis `index` (s: its STATS_WIDTH words). */
export function statusError(
  name: string,
  index: number,
  s: ArrayLike<number>,
  params: Pick<AlgoParams, 'maxIterations'>,
): LatticeMimoError {
  const status = s[3]!;
  const detail = s[4]!;
  const where = `basis ${index} of the batch`;
  switch (status) {
    case STATUS.NON_FINITE:
      return new InvalidInputError(
        'NON_FINITE',
        `${where}: basis vector ${detail} has non-finite entries or a non-finite norm (NaN/Inf or overflow)`,
        { basis: index, vector: detail },
      );
    case STATUS.ZERO_VECTOR:
      return new RankDeficientError('ZERO_VECTOR', `${where}: basis vector ${detail} is zero`, {
        basis: index,
        vector: detail,
      });
    case STATUS.RANK_DEFICIENT:
      return new RankDeficientError(
        'RANK_DEFICIENT',
        `${where}: basis vector ${detail} is linearly dependent on the vectors before it (numerically)`,
        { basis: index, vector: detail },
      );
    case STATUS.PRECISION_FAILURE:
      return new LatticeMimoError(
        'PRECISION_FAILURE',
        `${where}: Gram-Schmidt vector ${detail} vanished in the working precision`,
        { basis: index, vector: detail },
      );
    case STATUS.ITERATION_LIMIT:
      return new IterationLimitError(
        `${name}: ${where}: no convergence within maxIterations = ${params.maxIterations}`,
        {
          basis: index,
          iterations: s[0],
          swaps: s[1],
          sizeReductions: s[2],
        },
      );
    case STATUS.TRANSFORM_OVERFLOW:
      return new UnsupportedError(
        `${name}: ${where}: an entry of the unimodular transform Z reached 2^53: it cannot be held exactly in float64 (the basis is too ill-conditioned for this engine)`,
        { basis: index },
      );
    case STATUS.TIMEOUT:
      return new LatticeMimoError(
        'KERNEL_TIMEOUT',
        `${name}: ${where}: a wait inside the kernel passed its time limit; the kernel gave up (a bug, or a device shared with other work)`,
        { basis: index },
      );
    default:
      return new UnsupportedError(`${name}: ${where}: the kernel reported an unknown status ${status}`, {
        basis: index,
        status,
      });
  }
}
