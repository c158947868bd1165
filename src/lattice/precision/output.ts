/**
 * What `lattice-mimo reduce` prints for a basis reduced on the precision ladder (integers of any
 * size): fplll's format (or JSON, integers past 2^53 as strings of digits, so none rounds) on
 * stdout, the proof and the rungs tried on stderr.
 */
import { formatIntegerRows } from '../fplll-format.js';
import type { IntegralLLLResult } from './ladder.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A JSON number where it reads back exactly, else a string of digits (as the float64 path prints a wide U). */
function jsonInteger(v: bigint): number | string {
  return v <= SAFE && v >= -SAFE ? Number(v) : v.toString();
}

/** `of`: 'b' | 'u' | 'bu' as fplll's -of. Returns the text for stdout and, with `check`, for stderr. */
export function formatIntegralResult(
  r: IntegralLLLResult,
  of: string,
  json: boolean,
  check: boolean,
  delta: number,
): { stdout: string; stderr: string } {
  const m = r.basis.length,
    n = r.basis[0]!.length;
  const ladder = r.rungs
    .map(
      (x) =>
        `${x.rung} ${x.ok ? 'ok' : 'failed'} (${x.ms.toFixed(0)} ms${x.error ? `: ${x.error.code}: ${x.error.message}` : ''})`,
    )
    .join(', ');
  let stdout = '';
  if (json) {
    const doc: Record<string, unknown> = {
      stats: { algorithm: 'lll', engine: 'cpu', precision: 'ladder', n, m, delta, rungs: r.rungs, timeMs: r.timeMs },
    };
    if (of.includes('b')) doc.basis = r.basis.map((row) => row.map(jsonInteger));
    if (of.includes('u')) doc.transform = r.transform.map((row) => row.map(jsonInteger));
    doc.check = {
      ok: r.proof.lll && r.proof.transform,
      kind: 'lll',
      exact: r.proof.method === 'exact',
      proven: r.proof.lll,
      method: r.proof.method,
      transform: r.proof.transform,
      unimodular: r.proof.unimodular,
    };
    stdout = `${JSON.stringify(doc)}\n`;
  } else {
    if (of.includes('b')) stdout += formatIntegerRows(r.basis);
    if (of.includes('u')) stdout += formatIntegerRows(r.transform);
  }
  const stderr = check
    ? `${[
        `check: ${r.proof.lll && r.proof.transform ? 'PASS' : 'FAIL'} (LLL conditions proven ${r.proof.method === 'certificate' ? 'by a float64 Gram-Schmidt with a rigorous error bound' : r.proof.method === 'interval' ? 'by interval arithmetic on the exact Gram matrix' : 'exactly by the integral Gram-Schmidt'}; B_out = U B_in exactly${r.proof.unimodular ? '; |det U| = 1 proven (a rebuilt U: U and its inverse integral; else det U modulo primes, or equal Gram determinants)' : '; U unimodular by construction (exact elementary operations)'})`,
        `  lll on cpu (precision ladder: ${ladder}): n = ${n}, m = ${m}, ${r.timeMs.toFixed(2)} ms`,
      ].join('\n')}\n`
    : '';
  return { stdout, stderr };
}
