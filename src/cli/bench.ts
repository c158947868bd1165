/**
 * `lattice-mimo bench lattice|mimo|receiver`: benchmark tables. The benchmarks are their own part
 * (bench/ in the repository: bench/lattice/run.ts, bench/mimo/run.ts, bench/receiver/run.ts), loaded on demand; a package installed
 * without bench/ says so with UnsupportedError.
 */
import { existsSync } from 'node:fs';
import { InvalidArgumentError, UnsupportedError } from '../core/index.js';

type BenchPart = { run(argv: string[]): Promise<number> };

const PARTS = ['lattice', 'mimo', 'receiver'] as const;
type PartName = (typeof PARTS)[number];

/** The bench part `what`, or UnsupportedError when this installation does not have bench/. */
async function load(what: PartName): Promise<BenchPart> {
  // decided on the file, not on the words of an import error (a missing module inside the part is a bug to report)
  if (!existsSync(new URL(`../../bench/${what}/run.js`, import.meta.url))) {
    throw new UnsupportedError(
      `the benchmarks are not part of this installation (bench/${what}/run.js missing): run them from a repository checkout (npm run build, then lattice-mimo bench ${what})`,
    );
  }
  if (what === 'lattice') return await import('../../bench/lattice/run.js');
  if (what === 'mimo') return await import('../../bench/mimo/run.js');
  return await import('../../bench/receiver/run.js');
}

export async function run(argv: string[]): Promise<number> {
  const [what, ...rest] = argv;
  if ((PARTS as readonly string[]).includes(what ?? '')) return (await load(what as PartName)).run(rest);
  if (!what || what === '--help' || what === '-h') {
    process.stdout.write(
      'usage: lattice-mimo bench lattice|mimo|receiver [options]   (--help after the kind lists its options)\n',
    );
    return what ? 0 : 2;
  }
  throw new InvalidArgumentError(`unknown benchmark '${what}' (expected lattice, mimo or receiver)`);
}
