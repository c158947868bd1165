import { InvalidArgumentError, option, satisfying, type ValueCheck } from '../../core/index.js';
import type { ChannelEntry } from '../types.js';
import {
  type Correlation,
  type CorrelationMatrix,
  checkCorrelationMatrix,
  type KroneckerParams,
  kroneckerGenerator,
} from './cpu.js';

/** A square array of rows of finite numbers, 1 to 64 of them. */
function isSquare(v: unknown): v is number[][] {
  return (
    Array.isArray(v) &&
    v.length >= 1 &&
    v.length <= 64 &&
    v.every(
      (row) =>
        Array.isArray(row) && row.length === v.length && row.every((x) => typeof x === 'number' && Number.isFinite(x)),
    )
  );
}

/** { re, im? }: square arrays of one size (its Hermitian and definite rule is checkShape's). */
const matrix = satisfying<CorrelationMatrix>(
  "{ re, im? }: square arrays of rows of finite numbers, 1 to 64 rows, im of re's size",
  (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const { re, im, ...rest } = v as Record<string, unknown>;
    return (
      Object.keys(rest).length === 0 && isSquare(re) && (im === undefined || (isSquare(im) && im.length === re.length))
    );
  },
);

/** A plain object holding exactly the keys re and im, finite numbers. */
function isReIm(v: unknown): v is { re: number; im: number } {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype)
    return false;
  const keys = Object.keys(v);
  const { re, im } = v as Record<string, unknown>;
  return (
    keys.length === 2 && typeof re === 'number' && typeof im === 'number' && Number.isFinite(re) && Number.isFinite(im)
  );
}

/**
 * A correlation coefficient: a real number in (-1, 1) or { re, im } with |rho| < 1; the command line
 * writes it `0.7` (real) or `0.7@30` (magnitude 0.7, phase 30 degrees).
 */
export function correlation(): ValueCheck<Correlation> {
  return {
    ...satisfying<Correlation>(
      'a number in (-1, 1) or { re, im } with |rho| < 1 (command line: R or MAGNITUDE@DEGREES)',
      (v) =>
        (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < 1) || (isReIm(v) && Math.hypot(v.re, v.im) < 1),
    ),
    parse: (text, readNumber) => {
      const parts = text.split('@');
      if (parts.length === 1) return readNumber(text);
      if (parts.length !== 2) return text;
      const mag = readNumber(parts[0]!),
        deg = readNumber(parts[1]!);
      if (mag < 0) return text;
      const rad = (deg * Math.PI) / 180;
      return { re: mag * Math.cos(rad), im: mag * Math.sin(rad) };
    },
  };
}

/**
 * Kronecker correlated Rayleigh fading: H = R_rx^{1/2} Hw R_tx^{1/2} with Hw iid CN(0, 1) and the
 * exponential correlation model on each side (R_ij = rho^(j-i) above the diagonal, its conjugate
 * below), so E[vec(H) vec(H)^H] = R_tx^T ⊗ R_rx. Its CUDA generator (kronecker.cu) draws the CPU
 * generator's values.
 */
export const kroneckerEntry: ChannelEntry<'kronecker', KroneckerParams> = {
  name: 'kronecker',
  description: 'Kronecker correlated Rayleigh fading: exponential correlation rho^|i-j| (complex rho) at each side',
  title: 'Kronecker correlated Rayleigh fading',
  options: {
    rhoTx: option(correlation(), 'transmit correlation coefficient of the exponential model (R or MAG@DEG)', {
      default: 0,
      cli: { flag: 'rho-tx', metavar: 'R' },
    }),
    rhoRx: option(correlation(), 'receive correlation coefficient of the exponential model (R or MAG@DEG)', {
      default: 0,
      cli: { flag: 'rho-rx', metavar: 'R' },
    }),
    Rtx: option(matrix, 'transmit correlation matrix, nt x nt Hermitian positive definite (instead of rhoTx)'),
    Rrx: option(matrix, 'receive correlation matrix, nr x nr Hermitian positive definite (instead of rhoRx)'),
  },
  checkShape: ({ nt, nr }, p) => {
    for (const [side, rho, R, n] of [
      ['Tx', p.rhoTx, p.Rtx, nt],
      ['Rx', p.rhoRx, p.Rrx, nr],
    ] as const) {
      if (R === undefined) continue;
      if (rho !== undefined)
        throw new InvalidArgumentError(`kronecker: give rho${side} or R${side.toLowerCase()}, not both`, {
          option: `channelOptions.R${side.toLowerCase()}`,
        });
      checkCorrelationMatrix(R, n, `channelOptions.R${side.toLowerCase()}`);
    }
  },
  cpu: (shape, params) => kroneckerGenerator(shape, params),
  cuda: () => import('./cuda.js').then((m) => m.kroneckerCuda),
};
