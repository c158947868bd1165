/**
 * The Kronecker correlated channel on the CPU: H = L_rx Hw L_tx^H, where Hw is rayleigh's draw of
 * the same words (4 nr nt a channel: rayleighChannels) and L L^H = R is the complex Cholesky factor
 * of each side's correlation, so E[vec(H) vec(H)^H] = R_tx^T ⊗ R_rx and every entry keeps power 1.
 * Reading rayleigh's words keeps any channel drawable alone (and by the GPU generator, kronecker.cu), and
 * makes rho = 0 on both sides rayleigh's channels, number for number. A side's R is the exponential
 * model of its rho, or a matrix given whole.
 */
import { InvalidArgumentError } from '../../core/index.js';
import { rayleighChannels } from '../rayleigh/cpu.js';
import { drawSpan } from '../span.js';
import type { ChannelGenerator, ChannelShape } from '../types.js';

/** A correlation coefficient: real, or complex as { re, im }; |rho| < 1. */
export type Correlation = number | { readonly re: number; readonly im: number };

/** A correlation matrix n x n given by rows: real parts, and imaginary parts (absent: real). */
export interface CorrelationMatrix {
  readonly re: readonly (readonly number[])[];
  readonly im?: readonly (readonly number[])[];
}

/** The parameters of the kronecker model (SimulationOptions.channelOptions). */
export interface KroneckerParams {
  /** The transmit side's coefficient of the exponential model (default 0: uncorrelated). */
  rhoTx?: Correlation;
  /** The receive side's coefficient of the exponential model (default 0: uncorrelated). */
  rhoRx?: Correlation;
  /** The transmit correlation matrix, nt x nt Hermitian positive definite (instead of rhoTx). */
  Rtx?: CorrelationMatrix;
  /** The receive correlation matrix, nr x nr Hermitian positive definite (instead of rhoRx). */
  Rrx?: CorrelationMatrix;
}

/** A given matrix in the layout of exponentialCorrelation (row-major, interleaved). */
export function matrixOf(m: CorrelationMatrix): Float64Array {
  const n = m.re.length;
  const R = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      R[2 * (i * n + j)] = m.re[i]![j]!;
      R[2 * (i * n + j) + 1] = m.im ? m.im[i]![j]! : 0;
    }
  return R;
}

/**
 * Checks a given matrix against its side's antennas: n x n, Hermitian (to 1e-12 of its largest
 * entry) and positive definite; InvalidArgumentError naming `what` otherwise.
 */
export function checkCorrelationMatrix(m: CorrelationMatrix, n: number, what: string): void {
  if (m.re.length !== n)
    throw new InvalidArgumentError(
      `${what} must be ${n} x ${n} (the side's antennas), got ${m.re.length} x ${m.re.length}`,
      {
        option: what,
      },
    );
  const R = matrixOf(m);
  const scale = R.reduce((a, x) => Math.max(a, Math.abs(x)), 0);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      const dr = R[2 * (i * n + j)]! - R[2 * (j * n + i)]!,
        di = R[2 * (i * n + j) + 1]! + R[2 * (j * n + i) + 1]!;
      if (Math.hypot(dr, di) > 1e-12 * scale)
        throw new InvalidArgumentError(
          `${what} must be Hermitian: entries (${i}, ${j}) and (${j}, ${i}) are not conjugates`,
          {
            option: what,
          },
        );
    }
  choleskyLower(R, n, what);
}

/** A coefficient as [re, im]. */
export function complexOf(rho: Correlation): [number, number] {
  return typeof rho === 'number' ? [rho, 0] : [rho.re, rho.im];
}

/**
 * The exponential correlation matrix n x n (row-major, interleaved re/im): R_ij = rho^(j-i) for
 * j >= i and conj(rho)^(i-j) below the diagonal (Hermitian, positive definite for |rho| < 1).
 */
export function exponentialCorrelation(n: number, rho: Correlation): Float64Array {
  const [a, b] = complexOf(rho);
  const R = new Float64Array(2 * n * n);
  // powers rho^d, d = 0 .. n-1, by repeated products
  const pr = [1],
    pi = [0];
  for (let d = 1; d < n; d++) {
    pr.push(pr[d - 1]! * a - pi[d - 1]! * b);
    pi.push(pr[d - 1]! * b + pi[d - 1]! * a);
  }
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const d = Math.abs(j - i);
      R[2 * (i * n + j)] = pr[d]!;
      R[2 * (i * n + j) + 1] = j >= i ? pi[d]! : -pi[d]!;
    }
  return R;
}

/**
 * The lower Cholesky factor L of a Hermitian positive definite R (both n x n row-major, interleaved):
 * L L^H = R. InvalidArgumentError (naming `what`) when R is not positive definite.
 */
export function choleskyLower(R: Float64Array, n: number, what: string): Float64Array {
  const L = new Float64Array(2 * n * n);
  for (let j = 0; j < n; j++) {
    let d = R[2 * (j * n + j)]!;
    for (let k = 0; k < j; k++) d -= L[2 * (j * n + k)]! ** 2 + L[2 * (j * n + k) + 1]! ** 2;
    if (!(d > 0))
      throw new InvalidArgumentError(`${what}: the correlation matrix is not positive definite`, { option: what });
    const djj = Math.sqrt(d);
    L[2 * (j * n + j)] = djj;
    for (let i = j + 1; i < n; i++) {
      // L_ij = (R_ij - sum_k L_ik conj(L_jk)) / L_jj
      let re = R[2 * (i * n + j)]!,
        im = R[2 * (i * n + j) + 1]!;
      for (let k = 0; k < j; k++) {
        const xr = L[2 * (i * n + k)]!,
          xi = L[2 * (i * n + k) + 1]!,
          yr = L[2 * (j * n + k)]!,
          yi = L[2 * (j * n + k) + 1]!;
        re -= xr * yr + xi * yi;
        im -= xi * yr - xr * yi;
      }
      L[2 * (i * n + j)] = re / djj;
      L[2 * (i * n + j) + 1] = im / djj;
    }
  }
  return L;
}

/** The factor of a side, or null for rho = 0 (the identity: that side is left as drawn). */
function factorOf(
  n: number,
  rho: Correlation | undefined,
  given: CorrelationMatrix | undefined,
  what: string,
): Float64Array | null {
  if (given) return choleskyLower(matrixOf(given), n, what);
  const [a, b] = complexOf(rho ?? 0);
  return a === 0 && b === 0 ? null : choleskyLower(exponentialCorrelation(n, rho!), n, what);
}

/**
 * Applies H <- Lr H Lt^H in place to `count` channels nr x nt (the channels' layout); a null factor
 * is the identity. Lr is nr x nr, Lt nt x nt, both lower triangular (row-major, interleaved).
 */
export function correlate(
  H: Float64Array,
  count: number,
  nt: number,
  nr: number,
  Lr: Float64Array | null,
  Lt: Float64Array | null,
): void {
  const size = nr * nt;
  const tmp = new Float64Array(2 * size);
  for (let c = 0; c < count; c++) {
    const base = 2 * c * size;
    if (Lr) {
      // column j of Lr Hw: row i sums L_ik h_kj over k <= i
      for (let j = 0; j < nt; j++)
        for (let i = 0; i < nr; i++) {
          let re = 0,
            im = 0;
          for (let k = 0; k <= i; k++) {
            const lr = Lr[2 * (i * nr + k)]!,
              li = Lr[2 * (i * nr + k) + 1]!,
              hr = H[base + 2 * (k + j * nr)]!,
              hi = H[base + 2 * (k + j * nr) + 1]!;
            re += lr * hr - li * hi;
            im += lr * hi + li * hr;
          }
          tmp[2 * (i + j * nr)] = re;
          tmp[2 * (i + j * nr) + 1] = im;
        }
      H.set(tmp, base);
    }
    if (Lt) {
      // column j of H Lt^H: sums column k of H times conj(Lt_jk) over k <= j
      for (let j = 0; j < nt; j++)
        for (let i = 0; i < nr; i++) {
          let re = 0,
            im = 0;
          for (let k = 0; k <= j; k++) {
            const lr = Lt[2 * (j * nt + k)]!,
              li = -Lt[2 * (j * nt + k) + 1]!,
              hr = H[base + 2 * (i + k * nr)]!,
              hi = H[base + 2 * (i + k * nr) + 1]!;
            re += hr * lr - hi * li;
            im += hr * li + hi * lr;
          }
          tmp[2 * (i + j * nr)] = re;
          tmp[2 * (i + j * nr) + 1] = im;
        }
      H.set(tmp, base);
    }
  }
}

/**
 * The two sides' Cholesky factors of the parameters (Lr nr x nr, Lt nt x nt, row-major,
 * interleaved; null for the identity, rho = 0). The CPU and the CUDA generator both take them from here.
 */
export function kroneckerFactors(
  shape: ChannelShape,
  params: KroneckerParams,
): { Lr: Float64Array | null; Lt: Float64Array | null } {
  return {
    Lr: factorOf(shape.nr, params.rhoRx, params.Rrx, 'channelOptions.Rrx'),
    Lt: factorOf(shape.nt, params.rhoTx, params.Rtx, 'channelOptions.Rtx'),
  };
}

/** The model's CPU generator: rayleigh's channels of the span, correlated on each side. */
export function kroneckerGenerator(shape: ChannelShape, params: KroneckerParams): ChannelGenerator {
  const { nt, nr } = shape;
  const { Lr, Lt } = kroneckerFactors(shape, params);
  return {
    draw: (span) =>
      drawSpan(span, 4 * nr * nt, 2 * nr * nt, (rng, n) => {
        const H = rayleighChannels(rng, n, nt, nr);
        correlate(H, n, nt, nr, Lr, Lt);
        return H;
      }),
  };
}
