/**
 * `lattice-mimo bench lattice recursive`: large integer lattices, ours (reduce -a recursive) beside
 * fplll and flatter, one thread each, on fplll's latticegen q-ary bases (`latticegen -randseed S q
 * d d/2 bits b`): median wall time of each process (start, parse, reduce, print, exit) over --reps
 * runs, and the root Hermite factor of each output (its profile computed exactly here, from a
 * fixed-point QR of the output). Ours runs at delta 0.99 with the LLL finish (output proven), and
 * its JSON stats split the time into the compressed reduction, the finish and the proof; fplll at
 * `-a lll -d 0.99`; flatter at its default quality (rhf 1.0219), OMP_NUM_THREADS=1. flatter is
 * built by ../shared/reference/build-flatter.sh where it can be, else its column says why not.
 * The markdown table goes to stdout and, with --out, into the section `bench-lattice-recursive`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../../src/cli/args.js';
import { intListOption, intOption } from '../../src/cli/values.js';
import { checkOutputPath } from '../../src/core/io.js';
import { parseFplll } from '../../src/lattice/fplll-format.js';
import { fixedQR, maxBitLength } from '../../src/lattice/recursive/fixed-qr.js';
import { rhfOf } from '../../src/lattice/recursive/integral.js';
import { availableReferences, runFplll, runProcess } from '../reference/fplll.js';
import { flatterTool, runFlatter } from '../reference/flatter.js';
import { cpuDescription, gitCommit, median, writeResultsSection } from '../report.js';

const HELP = `usage: lattice-mimo bench lattice recursive [options]

  --dims LIST        lattice dimensions d of latticegen q d d/2 BITS b (default 100,160)
  --bits B           bits of q (default 100)
  --seed S           latticegen -randseed (default 3)
  --reps N           timed runs of each tool on each basis (default 1)
  --timeout S        per run (default 900)
  --no-fplll         no fplll column
  --no-flatter       no flatter column
  --out FILE         also write the section into FILE (e.g. bench/RESULTS.md)`;

/** One tool's figure on one basis: median seconds and the output's rhf, or why there is none. */
interface Figure {
  seconds?: number;
  rhf?: number;
  note?: string;
}

/** Root Hermite factor of a basis in fplll's format (exact integer rows). */
export function rhfOfText(text: string): number {
  const rows = parseFplll(text).bigValues!;
  const n = rows[0]!.length,
    m = rows.length;
  const F = maxBitLength(rows) + Math.ceil(Math.log2(n * m)) + 48;
  return rhfOf(fixedQR(rows, F).profile);
}

function latticegen(seed: number, d: number, bits: number): string {
  const r = spawnSync('latticegen', ['-randseed', String(seed), 'q', String(d), String(d >> 1), String(bits), 'b'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`latticegen failed: ${r.stderr}`);
  return r.stdout;
}

async function timed(
  reps: number,
  once: () => Promise<{ ok: boolean; ms: number; text: string; failure?: string; extra?: string }>,
): Promise<Figure & { extra?: string }> {
  const ms: number[] = [];
  let text = '',
    extra: string | undefined;
  for (let i = 0; i < reps; i++) {
    const r = await once();
    if (!r.ok) return { note: r.failure ?? 'failed' };
    ms.push(r.ms);
    text = r.text;
    extra = r.extra;
  }
  return { seconds: median(ms) / 1000, rhf: rhfOfText(text), ...(extra ? { extra } : {}) };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(
    argv,
    {
      dims: { type: 'string' },
      bits: { type: 'string' },
      seed: { type: 'string' },
      reps: { type: 'string' },
      timeout: { type: 'string' },
      'no-fplll': { type: 'boolean' },
      'no-flatter': { type: 'boolean' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    { command: 'bench lattice recursive' },
  );
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const dims = values.dims ? intListOption('dims', values.dims, 4, 1000) : [100, 160];
  const bits = intOption('bits', values.bits, 100, 2, 100_000);
  const seed = intOption('seed', values.seed, 3, 0);
  const reps = intOption('reps', values.reps, 1, 1, 100);
  const timeoutMs = intOption('timeout', values.timeout, 900, 1) * 1000;
  if (values.out) checkOutputPath('out', values.out);
  const refs = availableReferences();
  const fplll = !values['no-fplll'] && refs.fplll;
  const flatter = values['no-flatter'] ? null : flatterTool();
  if (!refs.latticegen) throw new Error(`latticegen is needed for the inputs: ${refs.missing.join('; ')}`);
  if (flatter && !flatter.ok) process.stderr.write(`flatter skipped: ${flatter.reason}\n`);
  const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
  const rows: string[] = [];
  for (const d of dims) {
    const text = latticegen(seed, d, bits);
    process.stderr.write(`q ${d} ${d >> 1} ${bits}: ours\n`);
    const ours = await timed(reps, async () => {
      const r = await runProcess(
        process.execPath,
        [cli, 'reduce', '-a', 'recursive', '-d', '0.99', '--json'],
        text,
        timeoutMs,
      );
      if (r.code !== 0) return { ok: false, ms: r.timeMs, text: '', failure: r.timedOut ? 'timeout' : r.stderr.trim() };
      const doc = JSON.parse(r.stdout) as { basis: (number | string)[][]; stats: Record<string, number> };
      const s = doc.stats;
      const basisText = `[${doc.basis.map((row) => `[${row.join(' ')}]`).join('\n')}]\n`;
      return {
        ok: true,
        ms: r.timeMs,
        text: basisText,
        extra: `compressed ${(s.reduceMs! / 1000).toFixed(1)} s, finish ${(s.finishMs! / 1000).toFixed(1)} s, proof ${(s.proofMs! / 1000).toFixed(1)} s`,
      };
    });
    let f: Figure = { note: values['no-fplll'] ? 'not run' : 'fplll not on PATH' };
    if (fplll) {
      process.stderr.write(`q ${d} ${d >> 1} ${bits}: fplll\n`);
      f = await timed(reps, async () => {
        const r = await runFplll(text, { delta: 0.99, eta: 0.51, timeoutMs });
        return { ok: r.ok, ms: r.timeMs, text: r.text, ...(r.failure ? { failure: r.failure } : {}) };
      });
    }
    let g: Figure = { note: flatter ? (flatter.ok ? '' : 'not built') : 'not run' };
    if (flatter?.ok) {
      process.stderr.write(`q ${d} ${d >> 1} ${bits}: flatter\n`);
      g = await timed(reps, async () => {
        const r = await runFlatter(text, { threads: 1, timeoutMs });
        return { ok: r.ok, ms: r.timeMs, text: r.text, ...(r.failure ? { failure: r.failure } : {}) };
      });
    }
    const cell = (x: Figure) =>
      x.seconds !== undefined ? `${x.seconds.toFixed(1)} s (rhf ${x.rhf!.toFixed(4)})` : (x.note ?? '');
    const ratio = (x: Figure) =>
      x.seconds !== undefined && ours.seconds !== undefined ? `${(ours.seconds / x.seconds).toFixed(2)}x` : '-';
    rows.push(
      `| q ${d} ${d >> 1} ${bits} | ${cell(ours)} | ${ours.extra ?? ''} | ${cell(f)} | ${cell(g)} | ${ratio(f)} | ${ratio(g)} |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  const section = [
    `### Large integer lattices: recursive (ours) / fplll / flatter, one thread each`,
    '',
    `${cpuDescription()}; ${new Date().toISOString().slice(0, 10)}; commit ${gitCommit()}; median of ${reps} run${reps > 1 ? 's' : ''}; inputs \`latticegen -randseed ${seed} q d d/2 ${bits} b\``,
    `Command: \`lattice-mimo bench lattice recursive --dims ${dims.join(',')} --bits ${bits} --seed ${seed} --reps ${reps}\`. Ours: \`reduce -a recursive -d 0.99\` (LLL finish, proven); fplll: \`fplll -a lll -d 0.99\`; flatter: default (rhf 1.0219), OMP_NUM_THREADS=1. Wall time of each process; rhf of each output computed exactly here.`,
    '',
    '| basis | ours | ours: split | fplll | flatter | ours / fplll | ours / flatter |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (values.out) writeResultsSection(values.out, 'bench-lattice-recursive', section);
  return 0;
}
