/**
 * `lattice-mimo bench lattice|mimo`: benchmark tables. The benchmarks are their own part (bench/ in
 * the repository: bench/lattice/run.ts, bench/mimo/run.ts), loaded on demand; a package installed
 * without bench/ says so with UnsupportedError.
 */
import { existsSync } from 'node:fs';
import { InvalidArgumentError, UnsupportedError } from '../core/index.js';

type BenchPart = { run(argv: string[]): Promise<number> };

/** The bench part `what`, or UnsupportedError when this installation does not have bench/. */
async function load(what: 'lattice' | 'mimo'): Promise<BenchPart> {
  // decided on the file, not on the words of an import error (a missing module inside the part is a bug to report)
  if (!existsSync(new URL(`../../bench/${what}/run.js`, import.meta.url))) {
    throw new UnsupportedError(
      `the benchmarks are not part of this installation (bench/${what}/run.js missing): run them from a repository checkout (npm run build, then lattice-mimo bench ${what})`,
    );
  }
  return what === 'lattice' ? await import('../../bench/lattice/run.js') : await import('../../bench/mimo/run.js');
}

export async function run(argv: string[]): Promise<number> {
  const [what, ...rest] = argv;
  if (what === 'mimo' || what === 'lattice') return (await load(what)).run(rest);
  if (!what || what === '--help' || what === '-h') {
    process.stdout.write(
      'usage: lattice-mimo bench lattice|mimo [options]   (--help after the kind lists its options)\n',
    );
    return what ? 0 : 2;
  }
  throw new InvalidArgumentError(`unknown benchmark '${what}' (expected lattice or mimo)`);
}
