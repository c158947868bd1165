/**
 * What every benchmark needs to report a figure honestly: the median of repeated timings, the
 * commit it was measured at, the device, and a marked section of bench/RESULTS.md that a re-run
 * replaces (other sections stay as they are).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((p, q) => p - q);
  const k = s.length >> 1;
  return s.length % 2 ? s[k]! : (s[k - 1]! + s[k]!) / 2;
}

/** The commit, marked when tracked files differ from it (read-only git calls). */
export function gitCommit(): string {
  const git = (args: string[]) =>
    execFileSync('git', ['--no-optional-locks', ...args], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    const head = git(['rev-parse', '--short', 'HEAD']);
    return git(['status', '--porcelain', '--untracked-files=no']) ? `${head} + uncommitted changes` : head;
  } catch {
    return process.env.LATTICE_MIMO_COMMIT ?? 'unknown';
  }
}

export function cpuDescription(): string {
  return `${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${availableParallelism()} logical cores), Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** Replaces the section between `<!-- name:start -->` and `<!-- name:end -->` (appends it if absent). */
export function writeResultsSection(path: string, name: string, section: string): void {
  const start = `<!-- ${name}:start -->`,
    end = `<!-- ${name}:end -->`;
  const block = `${start}\n${section.trimEnd()}\n${end}\n`;
  const old = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmark results\n';
  const s = old.indexOf(start),
    e = old.indexOf(end);
  const next =
    s >= 0 && e > s
      ? old.slice(0, s) + block + old.slice(e + end.length).replace(/^\n/, '')
      : old.replace(/\n*$/, '\n\n') + block;
  writeFileSync(path, next);
}
