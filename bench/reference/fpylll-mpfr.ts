/**
 * fpylll's LLL.is_reduced on a Gram-Schmidt in MPFR at a chosen precision: fpylll's default check
 * runs in double and wrongly rejects reduced bases with entries of 100 bits and more, so the
 * ladder's cross-checks give it enough bits (twice the largest entry's, plus 128).
 */
import { ExternalToolError } from '../../src/core/errors.js';
import { FPYLLL_PYTHON, runProcess } from './fplll.js';

const SCRIPT = `
import re, sys
from fpylll import IntegerMatrix, LLL, GSO, FPLLL
delta, eta, prec = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
rows = [[int(t) for t in r.split()] for r in re.findall(r"\\[([^\\[\\]]*)\\]", sys.stdin.read())]
FPLLL.set_precision(prec)
M = GSO.Mat(IntegerMatrix.from_matrix(rows), float_type="mpfr")
M.update_gso()
print("REDUCED" if LLL.is_reduced(M, delta=delta, eta=eta) else "NOT_REDUCED")
`;

/** Text in fplll's format; true when fpylll (MPFR, `bits` of precision) finds it LLL-reduced. */
export async function fpylllIsReducedMpfr(
  basisText: string,
  delta: number,
  eta: number,
  bits: number,
  timeoutMs = 120_000,
): Promise<boolean> {
  const r = await runProcess(
    FPYLLL_PYTHON,
    ['-c', SCRIPT, String(delta), String(eta), String(Math.max(53, Math.ceil(bits)))],
    basisText,
    timeoutMs,
  );
  const out = r.stdout.trim();
  if (r.timedOut) throw new ExternalToolError(`fpylll is_reduced timed out after ${timeoutMs} ms`);
  if (r.code !== 0 || (out !== 'REDUCED' && out !== 'NOT_REDUCED')) {
    throw new ExternalToolError(
      `fpylll is_reduced failed (exit ${r.code ?? r.signal}): ${r.stderr.trim().split('\n').pop() ?? ''}`,
    );
  }
  return out === 'REDUCED';
}
