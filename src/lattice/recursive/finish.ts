/**
 * The LLL finish of the recursive reduction: its compressed output at (delta, eta), proven. The top
 * level reduces a little above delta (iterate.ts, finishMargin), so its output is most often
 * LLL-reduced at delta already, with a margin: it is proven as it is, first by the float64
 * Gram-Schmidt with a rigorous error bound (certify.ts), where that cannot say by interval
 * arithmetic on the exact Gram matrix (interval-proof.ts), without an LLL run. Otherwise the
 * precision ladder (lllIntegral) reduces it and proves its own output. The ladder's first rung is
 * not run on a reduced basis: its float64 Gram-Schmidt, inexact at hundreds of dimensions, may swap
 * pairs that are in fact reduced and leave pairs its certificate cannot prove (the exact integral
 * Gram-Schmidt then, a hundred times the cost).
 *
 * Shapes: B is m columns of n BigInts (column j = basis vector j); the result's basis likewise.
 */
import type { BigBasis } from '../precision/exact.js';
import { certifyLLL } from '../precision/certify.js';
import { intervalLLLProof } from '../precision/interval-proof.js';
import { lllIntegral, type IntegralLLLResult } from '../precision/ladder.js';

/** The finish's output, its proof and its swaps. */
export interface FinishResult {
  /** The LLL-reduced basis (B itself where it was reduced already). */
  basis: BigBasis;
  /** Whether the LLL conditions at (delta, eta) were proven. */
  lll: boolean;
  /** How: the float64 certificate, interval arithmetic, or the exact integral Gram-Schmidt. */
  method: IntegralLLLResult['proof']['method'];
  /** Swaps of the ladder (0 where B was proven as it is). */
  swaps: number;
}

/** B at (delta, eta), proven: as it is where it is LLL-reduced already, else by lllIntegral. */
export function lllFinish(B: BigBasis, delta: number, eta: number): FinishResult {
  const m = B.length,
    n = B[0]!.length;
  const cert = certifyLLL(B, n, m, delta, eta);
  if (cert.status === 'proven') return { basis: B, lll: true, method: 'certificate', swaps: 0 };
  if (cert.status === 'inconclusive' && intervalLLLProof(B, delta, eta) === 'proven')
    return { basis: B, lll: true, method: 'interval', swaps: 0 };
  const f = lllIntegral(B, { delta, eta });
  return {
    basis: f.basis,
    lll: f.proof.lll === true,
    method: f.proof.method,
    swaps: f.rungs.reduce((s, r) => s + r.swaps, 0),
  };
}
