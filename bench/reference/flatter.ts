/**
 * flatter (Ryan and Heninger's lattice reduction by iterated compression, LGPL-3) as a reference to
 * measure against, as fplll is one. Its source lies beside ../shared/reference/build-flatter.sh,
 * which builds it (Debian packages it needs installed first, where it may) into a cache folder; we
 * never copy its code. Where it cannot be built (no source, no compiler, no network for the
 * packages) every caller gets the reason and skips, saying so.
 *
 * Runs are child processes bounded by a timeout (runProcess), one thread unless asked
 * (OMP_NUM_THREADS), the basis in fplll's format on stdin, the reduced basis on stdout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExternalToolError, InvalidArgumentError } from '../../src/core/errors.js';
import { runProcess } from './fplll.js';

/** The build script: FLATTER_BUILD_SCRIPT, else ../shared/reference/build-flatter.sh beside the repository. */
export function flatterBuildScript(): string {
  if (process.env.FLATTER_BUILD_SCRIPT) return process.env.FLATTER_BUILD_SCRIPT;
  const repo = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
  for (const base of [repo, resolve(repo, '..')]) {
    const p = join(base, '..', 'shared', 'reference', 'build-flatter.sh');
    if (existsSync(p)) return p;
  }
  return join(repo, '..', 'shared', 'reference', 'build-flatter.sh');
}

/** Where the build goes: FLATTER_CACHE, else $XDG_CACHE_HOME (or ~/.cache)/lattice-mimo/flatter. */
export function flatterCacheDir(): string {
  return (
    process.env.FLATTER_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lattice-mimo', 'flatter')
  );
}

/** A built flatter (binary and its library folder), or why there is none. */
export type FlatterTool = { ok: true; binary: string; libDir: string } | { ok: false; reason: string };

let cached: FlatterTool | undefined;

/**
 * The flatter binary, built on first use (minutes; the script installs Debian packages it needs
 * where it may) and found in the cache afterwards. Never throws: a failure is { ok: false, reason }.
 * `build: false` only looks in the cache.
 */
export function flatterTool(opts: { build?: boolean; timeoutMs?: number } = {}): FlatterTool {
  if (cached?.ok) return cached;
  const dir = flatterCacheDir();
  const binary = join(dir, 'bin', 'flatter');
  if (existsSync(binary)) return (cached = { ok: true, binary, libDir: join(dir, 'lib') });
  if (opts.build === false) return { ok: false, reason: `flatter is not built in ${dir} (build-flatter.sh builds it)` };
  if (cached) return cached;
  const script = flatterBuildScript();
  if (!existsSync(script))
    return (cached = { ok: false, reason: `no build script at ${script} (FLATTER_BUILD_SCRIPT names another)` });
  const r = spawnSync('bash', [script, dir], { encoding: 'utf8', timeout: opts.timeoutMs ?? 1_800_000 });
  if (r.status !== 0 || !existsSync(binary)) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' / ');
    return (cached = { ok: false, reason: `build-flatter.sh failed (exit ${r.status ?? r.signal}): ${why}` });
  }
  return (cached = { ok: true, binary, libDir: join(dir, 'lib') });
}

/** flatter's quality: up to one of them (its default: rhf 1.0219). */
export interface FlatterOptions {
  /** -delta: "analogous to LLL with delta (approximate)". */
  delta?: number;
  /** -rhf: the root Hermite factor aimed at. */
  rhf?: number;
  /** -alpha: flatter's alpha (a profile slope, log2 per index: not recursiveReduce()'s alpha). */
  alpha?: number;
  /** OMP_NUM_THREADS (default 1). */
  threads?: number;
  timeoutMs?: number;
}

export interface FlatterResult {
  /** The reduced basis in fplll's format (empty on failure). */
  text: string;
  /** Wall time of the process (start, parse, reduce, print, exit), ms. */
  timeMs: number;
  ok: boolean;
  failure?: string;
  /** The command that ran (stdin held the basis). */
  command: string;
}

/** The argument list of flatter for these options. */
export function flatterArgs(o: FlatterOptions): string[] {
  const asked = (['delta', 'rhf', 'alpha'] as const).filter((k) => o[k] !== undefined);
  if (asked.length > 1)
    throw new InvalidArgumentError(`flatter takes one of delta, rhf, alpha; got ${asked.join(', ')}`);
  const k = asked[0];
  return k ? [`-${k}`, String(o[k])] : [];
}

/** Reduces `basisText` (fplll's format) with flatter; only a flatter that cannot be had throws (ExternalToolError with the reason). */
export async function runFlatter(basisText: string, o: FlatterOptions = {}): Promise<FlatterResult> {
  const args = flatterArgs(o);
  const tool = flatterTool();
  if (!tool.ok) throw new ExternalToolError(`flatter is not available: ${tool.reason}`, { tool: 'flatter' });
  const env = {
    ...process.env,
    OMP_NUM_THREADS: String(o.threads ?? 1),
    LD_LIBRARY_PATH: [tool.libDir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
  };
  const timeoutMs = o.timeoutMs ?? 600_000;
  const r = await runProcess(tool.binary, args, basisText, timeoutMs, env);
  const command = `OMP_NUM_THREADS=${o.threads ?? 1} flatter ${args.join(' ')}`.trim();
  let failure: string | undefined;
  if (r.timedOut) failure = `timeout after ${timeoutMs} ms`;
  else if (r.code !== 0) failure = `exit ${r.code ?? r.signal}: ${r.stderr.trim().split('\n')[0] ?? ''}`;
  else if (!r.stdout.trimStart().startsWith('[')) failure = 'no matrix on stdout';
  return {
    text: failure ? '' : r.stdout,
    timeMs: r.timeMs,
    ok: failure === undefined,
    ...(failure ? { failure } : {}),
    command,
  };
}
