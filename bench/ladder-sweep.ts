/**
 * The precision ladder (lllIntegral) beside fplll's default on latticegen bases.
 *
 *   node dist/bench/ladder-sweep.js [--cases "q 80 40 30 b;n 40 30 b;r 20 200"] [--deltas 0.75,0.99]
 *        [--seed S] [--timeout 600]
 *
 * Each case is latticegen's arguments (family and sizes) with -randseed S. fplll: `fplll -d delta`
 * (its wrapper: heuristic, then proved), wall time of the process, bounded by --timeout. Ours:
 * lllIntegral in this process (wall time, parse excluded), its output then proven exactly
 * (checkLLLExactBig, B_in U = B_out) and given to fpylll's LLL.is_reduced on an MPFR Gram-Schmidt (2 x entry bits + 128). One markdown row per
 * case and delta on stdout (the rungs ours took, times, ratio); progress on stderr.
 */
import { performance } from 'node:perf_hooks';
import { formatIntegerRows, parseFplll } from '../src/lattice/fplll-format.js';
import { runFplll, runLatticegen } from './reference/fplll.js';
import { fpylllIsReducedMpfr } from './reference/fpylll-mpfr.js';
import { applyTransformBig, checkLLLExactBig } from '../src/lattice/precision/exact.js';
import { lllIntegral } from '../src/lattice/precision/ladder.js';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const cases = arg('cases', 'q 80 40 30 b;n 40 30 b').split(';').map((c) => c.trim().split(/\s+/));
const deltas = arg('deltas', '0.75,0.99').split(',').map(Number);
const seed = arg('seed', '2');
const timeoutMs = Number(arg('timeout', '600')) * 1000;

console.log('| latticegen | delta | fplll | ours | ours / fplll | rungs (ms) | proven exactly | fpylll |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of cases) {
  const text = await runLatticegen(['-randseed', seed, ...c]);
  const rows = parseFplll(text).bigValues!;
  for (const delta of deltas) {
    process.stderr.write(`${c.join(' ')} delta ${delta}: fplll...\n`);
    const t0 = performance.now();
    let fplllMs: number | null = null;
    try {
      await runFplll(text, { delta, timeoutMs });
      fplllMs = performance.now() - t0;
    } catch (e) {
      process.stderr.write(`  fplll: ${(e as Error).message}\n`);
    }
    process.stderr.write('  ours...\n');
    const t1 = performance.now();
    const r = lllIntegral(rows, { delta, prove: false });
    const oursMs = performance.now() - t1;
    const proven = checkLLLExactBig(r.basis, delta, 0.51).ok
      && applyTransformBig(rows, r.transform).every((col, j) => col.every((v, t) => v === r.basis[j]![t]));
    const bits = Math.max(...r.basis.flat().map((v) => (v < 0n ? -v : v).toString(2).length));
    const fpylll = await fpylllIsReducedMpfr(formatIntegerRows(r.basis), delta, 0.51, 2 * bits + 128, timeoutMs);
    const rungs = r.rungs.map((x) => `${x.rung} ${x.ok ? 'ok' : 'failed'} ${x.ms.toFixed(0)}`).join(', ');
    const f = fplllMs === null ? 'failed / timeout' : `${(fplllMs / 1000).toFixed(2)} s`;
    const ratio = fplllMs === null ? '-' : `${(oursMs / fplllMs).toFixed(2)}x`;
    console.log(`| ${c.join(' ')} | ${delta} | ${f} | ${(oursMs / 1000).toFixed(2)} s | ${ratio} | ${rungs} | ${proven ? 'yes' : 'NO'} | ${fpylll ? 'reduced' : 'NOT reduced'} |`);
  }
}
