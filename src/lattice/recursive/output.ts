/**
 * What `lattice-mimo reduce -a recursive` prints: fplll's format (or JSON, integers past 2^53 as
 * strings of digits) on stdout; with --check the proof and the quality reached on stderr.
 */
import { formatIntegerRows } from '../fplll-format.js';
import type { RecursiveResult } from './integral.js';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function jsonInteger(v: bigint): number | string {
  return v <= SAFE && v >= -SAFE ? Number(v) : v.toString();
}

/** The goal as words: 'LLL (delta 0.99, eta 0.51), proven', 'rhf <= 1.02', 'alpha <= 1.2'. */
export function goalText(r: RecursiveResult, delta: number, eta: number): string {
  const g = r.goal;
  if (g.kind === 'rhf') return `root Hermite factor <= ${g.rhf}`;
  if (g.kind === 'alpha') return `every drop r_ii / r_(i+1)(i+1) <= ${g.alpha}`;
  return g.finish
    ? `LLL-reduced at delta ${delta}, eta ${eta} (LLL finish)`
    : `the compressed reduction at delta ${delta}`;
}

/** `of`: 'b' | 'u' | 'bu' as fplll's -of. Returns the text for stdout and, with `check`, for stderr. */
export function formatRecursiveResult(
  r: RecursiveResult,
  of: string,
  json: boolean,
  check: boolean,
  delta: number,
  eta: number,
): { stdout: string; stderr: string } {
  const m = r.basis.length,
    n = r.basis[0]!.length;
  const ok = r.proof.transform && r.proof.unimodular && r.goal.reached && r.proof.lll !== false;
  let stdout = '';
  if (json) {
    const doc: Record<string, unknown> = {
      stats: { algorithm: 'recursive', engine: 'cpu', n, m, goal: r.goal, ...r.stats, timeMs: r.timeMs },
    };
    if (of.includes('b')) doc.basis = r.basis.map((row) => row.map(jsonInteger));
    if (of.includes('u')) doc.transform = r.transform.map((row) => row.map(jsonInteger));
    doc.check = {
      ok,
      kind: r.proof.lll === null ? 'quality' : 'lll',
      proven: r.proof.lll,
      method: r.proof.method,
      transform: r.proof.transform,
      unimodular: r.proof.unimodular,
      rootHermiteFactor: r.rootHermiteFactor,
      maxDrop: r.maxDrop,
      profile: r.profile,
    };
    stdout = `${JSON.stringify(doc)}\n`;
  } else {
    if (of.includes('b')) stdout += formatIntegerRows(r.basis);
    if (of.includes('u')) stdout += formatIntegerRows(r.transform);
  }
  const s = r.stats;
  const stderr = check
    ? `${[
        `check: ${ok ? 'PASS' : 'FAIL'} (${goalText(r, delta, eta)}${r.proof.lll ? `: LLL conditions proven ${r.proof.method === 'certificate' ? 'by a float64 Gram-Schmidt with a rigorous error bound' : r.proof.method === 'interval' ? 'by interval arithmetic on the exact Gram matrix' : 'exactly by the integral Gram-Schmidt'}` : r.goal.reached ? ': reached' : ': NOT reached'}; U B_in = B_out and |det U| = 1 proven exactly)`,
        `  recursive: root Hermite factor ${r.rootHermiteFactor.toFixed(6)}, largest profile drop ${r.maxDrop.toFixed(4)}, log2 |b*_i| from ${r.profile[0]!.toFixed(2)} to ${r.profile[m - 1]!.toFixed(2)}`,
        `  recursive on cpu: n = ${n}, m = ${m}, ${r.timeMs.toFixed(0)} ms (compressed reduction ${s.reduceMs.toFixed(0)} ms: ${s.rounds} rounds, ${s.leaves} leaves, ${s.swaps} swaps, ${s.factorisations} QR, depth ${s.depth}${s.workerBlocks ? `, ${s.workerBlocks} blocks on worker threads` : ''}${s.svpNodes ? `; first vectors ${s.svpMs.toFixed(0)} ms (${s.bkzInserted} put by BKZ tours, ${s.svpNodes} nodes, |b_0|^2 x ${s.svpRatio.toFixed(4)})` : ''}; LLL finish ${s.finishMs.toFixed(0)} ms, ${s.finishSwaps} swaps; proof ${s.proofMs.toFixed(0)} ms)`,
      ].join('\n')}\n`
    : '';
  return { stdout, stderr };
}
