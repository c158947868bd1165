/**
 * `lattice-mimo bench lattice recursive`: large integer lattices, ours (reduce -a recursive) beside
 * fplll and flatter, one thread each, on fplll's latticegen q-ary bases (`latticegen -randseed S q
 * d d/2 bits b`): median CPU time (user + system, GNU time; the shared cores' load moves wall times)
 * and wall time of each process (start, parse, reduce, print, exit) over --reps runs, and the root
 * Hermite factor of each output (its profile computed exactly here, from a
 * fixed-point QR of the output). Ours runs at delta 0.99 with the LLL finish (output proven), and
 * its JSON stats split the time into the compressed reduction, the finish and the proof; fplll at
 * `-a lll -d 0.99`; flatter at its default quality (rhf 1.0219), OMP_NUM_THREADS=1 (--threads N: ours
 * with N threads, flatter with N, ratios of wall time). flatter is
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
import { existsSync } from 'node:fs';
import { availableReferences, fplllArgs, runProcess } from '../reference/fplll.js';
import { flatterArgs, flatterTool } from '../reference/flatter.js';
import { cpuDescription, gitCommit, median, writeResultsSection } from '../report.js';

const HELP = `usage: lattice-mimo bench lattice recursive [options]

  --dims LIST        lattice dimensions d of latticegen q d d/2 BITS b (default 100,160)
  --bits B           bits of q (default 100)
  --cases LIST       other latticegen families instead, ';'-separated latticegen arguments after
                     -randseed S ("n 50 100 b;r 100 1000;u 100 200": NTRU-like, knapsack, uniform)
  --seed S           latticegen -randseed (default 3)
  --reps N           timed runs of each tool on each basis (default 1)
  --timeout S        per run (default 900)
  --fplll-timeout S  per fplll run (default --timeout): a capped run is reported as such
  --threads N        ours with --threads N, flatter with OMP_NUM_THREADS=N (default 1; fplll has
                     one thread); past 1 the ratios are of wall time, the section its own
  --no-fplll         no fplll column
  --no-flatter       no flatter column
  --out FILE         also write the section into FILE (e.g. bench/RESULTS.md)`;

/** One tool's figure on one basis: median seconds and the output's rhf, or why there is none. */
interface Figure {
  /** CPU seconds (user + system). */
  seconds?: number;
  /** Wall seconds. */
  wall?: number;
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

function latticegen(seed: number, args: string[]): string {
  const r = spawnSync('latticegen', ['-randseed', String(seed), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`latticegen failed: ${r.stderr}`);
  return r.stdout;
}

/** A process's run under GNU time: its stdout, CPU seconds (user + system), wall ms. */
async function measured(
  cmd: string,
  args: string[],
  input: string,
  timeoutMs: number,
  env?: NodeJS.ProcessEnv,
): Promise<{ ok: boolean; ms: number; cpu: number; text: string; failure?: string }> {
  // the tool runs under timeout(1) too: the bound ends the tool itself, not only GNU time above it
  // (137: timeout killed it)
  const secs = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  const r = await runProcess(
    TIME,
    ['-f', '__cpu %U %S', 'timeout', '-s', 'KILL', secs, cmd, ...args],
    input,
    timeoutMs + 5000,
    env,
  );
  const m = /__cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  const failure =
    r.timedOut || r.code === 137
      ? `timeout after ${timeoutMs} ms`
      : r.code !== 0
        ? `exit ${r.code ?? r.signal}: ${r.stderr.trim().split('\n')[0] ?? ''}`
        : !m
          ? 'no CPU time from GNU time'
          : undefined;
  return {
    ok: failure === undefined,
    ms: r.timeMs,
    cpu: m ? Number(m[1]) + Number(m[2]) : Number.NaN,
    text: r.stdout,
    ...(failure ? { failure } : {}),
  };
}

const TIME = '/usr/bin/time';

async function timed(
  reps: number,
  once: () => Promise<{ ok: boolean; ms: number; cpu: number; text: string; failure?: string; extra?: string }>,
): Promise<Figure & { extra?: string }> {
  const ms: number[] = [],
    cpu: number[] = [];
  let text = '',
    extra: string | undefined;
  for (let i = 0; i < reps; i++) {
    const r = await once();
    if (!r.ok) return { note: r.failure ?? 'failed' };
    ms.push(r.ms);
    cpu.push(r.cpu);
    text = r.text;
    extra = r.extra;
  }
  return { seconds: median(cpu), wall: median(ms) / 1000, rhf: rhfOfText(text), ...(extra ? { extra } : {}) };
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(
    argv,
    {
      dims: { type: 'string' },
      bits: { type: 'string' },
      cases: { type: 'string' },
      seed: { type: 'string' },
      reps: { type: 'string' },
      timeout: { type: 'string' },
      'fplll-timeout': { type: 'string' },
      threads: { type: 'string' },
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
  const fplllTimeoutMs = intOption('fplll-timeout', values['fplll-timeout'], timeoutMs / 1000, 1) * 1000;
  const threads = intOption('threads', values.threads, 1, 1, 256);
  if (values.out) checkOutputPath('out', values.out);
  const refs = availableReferences();
  const fplll = !values['no-fplll'] && refs.fplll;
  const flatter = values['no-flatter'] ? null : flatterTool();
  if (!refs.latticegen) throw new Error(`latticegen is needed for the inputs: ${refs.missing.join('; ')}`);
  if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time, Debian package time) is needed for the CPU times`);
  if (flatter && !flatter.ok) process.stderr.write(`flatter skipped: ${flatter.reason}\n`);
  const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
  const rows: string[] = [];
  const cases: string[][] = values.cases
    ? values.cases.split(';').map((c) => c.trim().split(/\s+/))
    : dims.map((d) => ['q', String(d), String(d >> 1), String(bits), 'b']);
  for (const args of cases) {
    const name = args.join(' ');
    const text = latticegen(seed, args);
    process.stderr.write(`${name}: ours\n`);
    const ours = await timed(reps, async () => {
      const r = await measured(
        process.execPath,
        [
          cli,
          'reduce',
          '-a',
          'recursive',
          '-d',
          '0.99',
          '--json',
          ...(threads > 1 ? ['--threads', String(threads)] : []),
        ],
        text,
        timeoutMs,
      );
      if (!r.ok) return r;
      const doc = JSON.parse(r.text) as { basis: (number | string)[][]; stats: Record<string, number> };
      const s = doc.stats;
      const basisText = `[${doc.basis.map((row) => `[${row.join(' ')}]`).join('\n')}]\n`;
      return {
        ok: true,
        ms: r.ms,
        cpu: r.cpu,
        text: basisText,
        extra: `compressed ${(s.reduceMs! / 1000).toFixed(1)} s, finish ${(s.finishMs! / 1000).toFixed(1)} s, proof ${(s.proofMs! / 1000).toFixed(1)} s`,
      };
    });
    let f: Figure = { note: values['no-fplll'] ? 'not run' : 'fplll not on PATH' };
    if (fplll) {
      process.stderr.write(`${name}: fplll\n`);
      f = await timed(reps, () => measured('fplll', fplllArgs({ delta: 0.99, eta: 0.51 }), text, fplllTimeoutMs));
    }
    let g: Figure = { note: flatter ? (flatter.ok ? '' : 'not built') : 'not run' };
    if (flatter?.ok) {
      process.stderr.write(`${name}: flatter\n`);
      const tool = flatter;
      const env = {
        ...process.env,
        OMP_NUM_THREADS: String(threads),
        LD_LIBRARY_PATH: [tool.libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      };
      g = await timed(reps, () => measured(tool.binary, flatterArgs({}), text, timeoutMs, env));
    }
    const cell = (x: Figure) =>
      x.seconds !== undefined
        ? `${x.seconds.toFixed(2)} s CPU, ${x.wall!.toFixed(1)} s wall (rhf ${x.rhf!.toFixed(4)})`
        : (x.note ?? '');
    // one thread: CPU time (the shared cores' load moves wall times); more: wall time
    const ratio = (x: Figure) =>
      threads > 1
        ? x.wall !== undefined && ours.wall !== undefined
          ? `${(ours.wall / x.wall).toFixed(2)}x`
          : '-'
        : x.seconds !== undefined && ours.seconds !== undefined && x.seconds > 0
          ? `${(ours.seconds / x.seconds).toFixed(2)}x`
          : '-';
    rows.push(
      `| ${name} | ${cell(ours)} | ${ours.extra ?? ''} | ${cell(f)} | ${cell(g)} | ${ratio(f)} | ${ratio(g)} |`,
    );
    process.stderr.write(`${rows.at(-1)}\n`);
  }
  const section = [
    threads > 1
      ? `### Large integer lattices: recursive (ours) / fplll / flatter, ${threads} threads (fplll one)`
      : `### Large integer lattices: recursive (ours) / fplll / flatter, one thread each`,
    '',
    `${cpuDescription()}; ${new Date().toISOString().slice(0, 10)}; commit ${gitCommit()}; median of ${reps} run${reps > 1 ? 's' : ''}; inputs \`latticegen -randseed ${seed} ARGS\``,
    `Command: \`lattice-mimo bench lattice recursive ${values.cases ? `--cases "${values.cases}"` : `--dims ${dims.join(',')} --bits ${bits}`} --seed ${seed} --reps ${reps}${threads > 1 ? ` --threads ${threads}` : ''}${values['fplll-timeout'] ? ` --fplll-timeout ${fplllTimeoutMs / 1000}` : ''}\`. Ours: \`reduce -a recursive -d 0.99${threads > 1 ? ` --threads ${threads}` : ''}\` (LLL finish, proven); fplll: \`fplll -a lll -d 0.99\`${values['fplll-timeout'] ? ` (stopped at ${fplllTimeoutMs / 1000} s)` : ''}; flatter: default (rhf 1.0219), OMP_NUM_THREADS=${threads}. CPU time (user + system) and wall time of each process, ratios of ${threads > 1 ? 'wall' : 'CPU'} time; rhf of each output computed exactly here.`,
    '',
    '| basis | ours | ours: split | fplll | flatter | ours / fplll | ours / flatter |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (values.out)
    writeResultsSection(
      values.out,
      `${values.cases ? 'bench-lattice-recursive-families' : 'bench-lattice-recursive'}${threads > 1 ? '-threads' : ''}`,
      section,
    );
  return 0;
}
