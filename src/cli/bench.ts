/** `lattice-mimo bench lattice|mimo`: benchmark tables (see src/cli/bench/). */
import { InvalidArgumentError } from '../core/errors.js';

export async function run(argv: string[]): Promise<number> {
  const [what, ...rest] = argv;
  if (what === 'mimo') return (await import('./bench/mimo.js')).run(rest);
  if (what === 'lattice') return (await import('./bench/lattice.js')).run(rest);
  if (!what || what === '--help' || what === '-h') {
    process.stdout.write('usage: lattice-mimo bench lattice|mimo [options]   (--help after the kind lists its options)\n');
    return what ? 0 : 2;
  }
  throw new InvalidArgumentError(`unknown benchmark '${what}' (expected lattice or mimo)`);
}
