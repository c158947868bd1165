/**
 * The precision ladder (lllIntegral) beside fplll's default on latticegen bases.
 *
 *   node dist/bench/ladder-sweep.js [--cases "q 80 40 30 b;n 40 30 b;r 20 200"] [--deltas 0.75,0.99]
 *        [--seed S] [--timeout 600] [--warmup N]
 *
 * Each case is latticegen's arguments (family and sizes) with -randseed S. fplll: `fplll -d delta`
 * (its wrapper: heuristic, then proved), wall and CPU time (user + system, /usr/bin/time) of the
 * process, bounded by --timeout. Ours: lllIntegral in this process (wall and CPU time of the call,
 * parse excluded; CPU time is the steadier figure on a shared machine), its output then proven exactly
 * (checkLLLExactBig, B_in U = B_out) and given to fpylll's LLL.is_reduced on an MPFR Gram-Schmidt (2 x entry bits + 128). One markdown row per
 * case and delta on stdout (the rungs ours took, how the ladder proved its output: the certified
 * float64 bound, interval arithmetic or the exact rung, times, ratio); progress and the load average on stderr.
 * --warmup N: before each timed call, N untimed calls on the same case with another seed (latticegen
 * -randseed S + 1000), so that the timed call runs compiled code as a long-lived process would
 * (fplll's binary is compiled ahead of time); without it the first case also pays for the JIT.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { formatIntegerRows, parseFplll } from '../src/lattice/fplll-format.js';
import { runLatticegen } from './reference/fplll.js';
import { fpylllIsReducedMpfr } from './reference/fpylll-mpfr.js';
import { applyTransformBig, checkLLLExactBig } from '../src/lattice/precision/exact.js';
import { lllIntegral } from '../src/lattice/precision/ladder.js';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}

const cases = arg('cases', 'q 80 40 30 b;n 40 30 b')
  .split(';')
  .map((c) => c.trim().split(/\s+/));
const deltas = arg('deltas', '0.75,0.99').split(',').map(Number);
const seed = arg('seed', '2');
const timeoutMs = Number(arg('timeout', '600')) * 1000;
const warmup = Number(arg('warmup', '0'));

/** `fplll -d delta` under /usr/bin/time: wall and CPU seconds, or null on failure / timeout. */
function timeFplll(text: string, delta: number): { wall: number; cpu: number } | null {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %U %S', 'fplll', '-d', String(delta)], {
    input: text,
    timeout: timeoutMs,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const line = r.stderr?.split('\n').find((l) => l.startsWith('TIME '));
  if (r.status !== 0 || !line || !r.stdout.trimStart().startsWith('[')) {
    process.stderr.write(`  fplll: ${r.error?.message ?? r.stderr?.trim().split('\n')[0] ?? 'failed'}\n`);
    return null;
  }
  const [, wall, user, sys] = line.split(' ').map(Number);
  return { wall: wall!, cpu: user! + sys! };
}

process.stderr.write(
  `load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}${warmup ? `, ${warmup} warm-up calls per case` : ''}\n`,
);
console.log(
  '| latticegen | delta | fplll wall | fplll CPU | ours wall | ours CPU | ours / fplll (CPU) | rungs (ms) | proof (ms) | proven exactly | fpylll |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const c of cases) {
  const text = await runLatticegen(['-randseed', seed, ...c]);
  const rows = parseFplll(text).bigValues!;
  for (const delta of deltas) {
    process.stderr.write(`${c.join(' ')} delta ${delta}: fplll...\n`);
    const fp = timeFplll(text, delta);
    if (fp) process.stderr.write(`  fplll: ${fp.wall.toFixed(2)} s wall, ${fp.cpu.toFixed(2)} s CPU\n`);
    if (warmup) {
      const other = parseFplll(await runLatticegen(['-randseed', String(Number(seed) + 1000), ...c])).bigValues!;
      for (let w = 0; w < warmup; w++) lllIntegral(other, { delta, prove: false });
    }
    process.stderr.write('  ours...\n');
    const t1 = performance.now(),
      c1 = process.cpuUsage();
    const r = lllIntegral(rows, { delta, prove: false });
    const oursMs = performance.now() - t1,
      cu = process.cpuUsage(c1),
      oursCpu = (cu.user + cu.system) / 1e6;
    const proven =
      checkLLLExactBig(r.basis, delta, 0.51).ok &&
      applyTransformBig(rows, r.transform).every((col, j) => col.every((v, t) => v === r.basis[j]![t]));
    const bits = Math.max(...r.basis.flat().map((v) => (v < 0n ? -v : v).toString(2).length));
    const fpylll = await fpylllIsReducedMpfr(formatIntegerRows(r.basis), delta, 0.51, 2 * bits + 128, timeoutMs);
    const rungs = r.rungs.map((x) => `${x.rung} ${x.ok ? 'ok' : 'failed'} ${x.ms.toFixed(0)}`).join(', ');
    const cert = r.certificate
      ? `${r.certificate.by === 'interval' ? 'interval proof' : 'certificate'} ${r.certificate.status} ${r.certificate.ms.toFixed(1)}`
      : '';
    const how =
      r.proof.method === 'certificate' || r.proof.method === 'interval' ? cert : `exact${cert ? ` (${cert})` : ''}`;
    const f = fp === null ? 'failed / timeout | -' : `${fp.wall.toFixed(2)} s | ${fp.cpu.toFixed(2)} s`;
    const ratio = fp === null ? '-' : `${(oursCpu / Math.max(fp.cpu, 0.01)).toFixed(2)}x`;
    console.log(
      `| ${c.join(' ')} | ${delta} | ${f} | ${(oursMs / 1000).toFixed(2)} s | ${oursCpu.toFixed(2)} s | ${ratio} | ${rungs} | ${how} | ${proven ? 'yes' : 'NO'} | ${fpylll ? 'reduced' : 'NOT reduced'} |`,
    );
  }
}
