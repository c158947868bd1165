/**
 * The external LLL reference: fplll's command-line tools (`fplll`, `latticegen`, Debian package
 * fplll-tools) and fpylll's `LLL.is_reduced` (python3-fpylll, under Debian's /usr/bin/python3, not
 * a pyenv python). Every run is a child process bounded by a timeout, killed with SIGKILL when it
 * runs over, so a stuck tool can never hang the caller. A missing tool is an ExternalToolError.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ExternalToolError, InvalidArgumentError } from '../../src/core/errors.js';

/** Debian's python, the one that has python3-fpylll (the python3 on PATH may be another one). */
export const FPYLLL_PYTHON = process.env.FPYLLL_PYTHON ?? '/usr/bin/python3';
const DEFAULT_TIMEOUT_MS = 60_000;
/** Bound on captured output, so a runaway tool cannot exhaust memory. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

export interface References {
  fplll: boolean;
  latticegen: boolean;
  fpylll: boolean;
  /** Why each missing one is missing (empty when all are there). */
  missing: string[];
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return null;
}

let cachedReferences: References | undefined;

/** Which reference tools exist on this machine (probed once, then cached). */
export function availableReferences(): References {
  if (cachedReferences) return cachedReferences;
  const missing: string[] = [];
  const fplll = onPath('fplll') !== null;
  if (!fplll) missing.push("'fplll' is not on PATH (install the Debian package fplll-tools)");
  const latticegen = onPath('latticegen') !== null;
  if (!latticegen) missing.push("'latticegen' is not on PATH (install the Debian package fplll-tools)");
  const probe = spawnSync(FPYLLL_PYTHON, ['-c', 'import fpylll'], { timeout: 20_000, encoding: 'utf8' });
  const fpylll = probe.status === 0;
  if (!fpylll) {
    const why = probe.error ? probe.error.message : (probe.stderr ?? '').trim().split('\n').pop();
    missing.push(`fpylll cannot be imported by ${FPYLLL_PYTHON} (install python3-fpylll): ${why}`);
  }
  cachedReferences = { fplll, latticegen, fpylll, missing };
  return cachedReferences;
}

function requireTool(name: 'fplll' | 'latticegen' | 'fpylll'): void {
  const refs = availableReferences();
  if (!refs[name]) {
    throw new ExternalToolError(
      `${name} is not available: ${refs.missing.filter((m) => m.includes(name)).join('; ')}`,
      { tool: name },
    );
  }
}

export interface ProcessResult {
  stdout: string;
  stderr: string;
  /** Exit code; null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Wall time of the whole process (start, parse, run, print, exit), in ms. */
  timeMs: number;
}

/** Runs a command with stdin, bounded by a timeout (SIGKILL past it) and an output cap; `env` replaces the environment. */
export function runProcess(
  cmd: string,
  args: readonly string[],
  input: string,
  timeoutMs: number,
  env?: NodeJS.ProcessEnv,
): Promise<ProcessResult> {
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs))
    throw new InvalidArgumentError(`timeoutMs must be a positive finite number, got ${timeoutMs}`);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...(env ? { env } : {}) });
    const out: Buffer[] = [],
      err: Buffer[] = [];
    let bytes = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_OUTPUT_BYTES) {
        child.kill('SIGKILL');
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new ExternalToolError(`cannot run ${cmd}: ${e.message}`, { cmd }));
    });
    child.stdin.on('error', () => {
      /* the tool may exit before reading all of stdin; its exit status says why */
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        code,
        signal,
        timedOut,
        timeMs: performance.now() - t0,
      });
    });
    child.stdin.end(input);
  });
}

export type FplllMethod = 'default' | 'wrapper' | 'fast' | 'heuristic' | 'proved';
export type FplllFloat = 'mpfr' | 'dd' | 'qd' | 'dpe' | 'double' | 'longdouble';
export type FplllInteger = 'mpz' | 'int' | 'long' | 'double';

export interface FplllOptions {
  delta?: number;
  eta?: number;
  /** LLL variant (-m); 'default' leaves fplll's wrapper choice. */
  method?: FplllMethod;
  /** Floating-point type (-f). */
  floatType?: FplllFloat;
  /** Integer type (-z). */
  integerType?: FplllInteger;
  timeoutMs?: number;
}

export interface FplllResult {
  /** fplll's stdout: the reduced basis in its format (empty on failure). */
  text: string;
  /** Wall time of the process, including fplll's parsing and printing, in ms. */
  timeMs: number;
  ok: boolean;
  stderr: string;
  timedOut: boolean;
  /** One line saying why a failed run failed ('timeout after 60000 ms', fplll's own message, ...). */
  failure?: string;
  /** The command line that was run (stdin held the basis). */
  command: string;
}

/** The argument list for `fplll -a lll` with these options. */
export function fplllArgs(opts: FplllOptions): string[] {
  const delta = opts.delta ?? 0.99;
  const eta = opts.eta ?? 0.51;
  if (!(delta > 0.25 && delta < 1)) throw new InvalidArgumentError(`delta must be in (0.25, 1), got ${delta}`);
  if (!(eta >= 0.5 && eta < Math.sqrt(delta)))
    throw new InvalidArgumentError(`eta must be in [0.5, sqrt(delta)), got ${eta}`);
  const args = ['-a', 'lll', '-d', String(delta), '-e', String(eta)];
  if (opts.method && opts.method !== 'default') args.push('-m', opts.method);
  if (opts.floatType) args.push('-f', opts.floatType);
  if (opts.integerType) args.push('-z', opts.integerType);
  return args;
}

/**
 * LLL-reduces `basisText` (fplll's format, rows are basis vectors) with the fplll binary. A run
 * that fails (non-zero exit, a message such as "infinite loop in babai", a timeout, no matrix on
 * stdout) comes back with ok = false and `failure` saying why; only a missing tool throws.
 */
export async function runFplll(basisText: string, opts: FplllOptions = {}): Promise<FplllResult> {
  const args = fplllArgs(opts); // bad options are the caller's error, tool or no tool
  requireTool('fplll');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const r = await runProcess('fplll', args, basisText, timeoutMs);
  const command = ['fplll', ...args].join(' ');
  const stderr = r.stderr.trim();
  let failure: string | undefined;
  if (r.timedOut) failure = `timeout after ${timeoutMs} ms`;
  else if (r.code !== 0) failure = `exit ${r.code ?? r.signal}${stderr ? `: ${firstLine(stderr)}` : ''}`;
  else if (!r.stdout.trimStart().startsWith('['))
    failure = `no matrix on stdout${stderr ? `: ${firstLine(stderr)}` : ''}`;
  else if (/infinite loop|failure|error/i.test(stderr)) failure = firstLine(stderr);
  return {
    text: failure ? '' : r.stdout,
    timeMs: r.timeMs,
    ok: failure === undefined,
    stderr: r.stderr,
    timedOut: r.timedOut,
    failure,
    command,
  };
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? s
  );
}

/** Runs `latticegen` with these arguments (e.g. ['-randseed', '7', 'u', '10', '30']) and returns its matrix. */
export async function runLatticegen(args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  requireTool('latticegen');
  if (!Array.isArray(args) || args.length === 0 || !args.every((a) => typeof a === 'string')) {
    throw new InvalidArgumentError('latticegen needs a non-empty list of string arguments');
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const r = await runProcess('latticegen', args, '', timeoutMs);
  const cmd = ['latticegen', ...args].join(' ');
  if (r.timedOut) throw new ExternalToolError(`${cmd} timed out after ${timeoutMs} ms`, { args });
  if (r.code !== 0 || !r.stdout.trimStart().startsWith('[')) {
    throw new ExternalToolError(
      `${cmd} failed (exit ${r.code ?? r.signal}): ${firstLine(r.stderr.trim() || r.stdout.trim())}`,
      { args },
    );
  }
  return r.stdout;
}

/**
 * fpylll's verdict: reads the matrix (rows are basis vectors, integers only; Python ints, so no
 * size limit) into an IntegerMatrix and prints LLL.is_reduced(A, delta, eta). fpylll answers True
 * only when the basis is definitely reduced.
 */
const IS_REDUCED_SCRIPT = `
import re, sys
from fpylll import IntegerMatrix, LLL
delta, eta = float(sys.argv[1]), float(sys.argv[2])
rows = [[int(t) for t in r.split()] for r in re.findall(r"\\[([^\\[\\]]*)\\]", sys.stdin.read())]
A = IntegerMatrix.from_matrix(rows)
print("REDUCED" if LLL.is_reduced(A, delta=delta, eta=eta) else "NOT_REDUCED")
`;

export async function fpyllIsReduced(
  basisText: string,
  delta: number,
  eta: number,
  opts: { timeoutMs?: number } = {},
): Promise<boolean> {
  requireTool('fpylll');
  if (!(delta > 0.25 && delta < 1)) throw new InvalidArgumentError(`delta must be in (0.25, 1), got ${delta}`);
  if (!(eta >= 0.5)) throw new InvalidArgumentError(`eta must be at least 0.5, got ${eta}`);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const r = await runProcess(
    FPYLLL_PYTHON,
    ['-c', IS_REDUCED_SCRIPT, String(delta), String(eta)],
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
