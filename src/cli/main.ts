#!/usr/bin/env node
/**
 * The `lattice-mimo` command. Each subcommand lives in its own file and exports
 * `run(argv): Promise<number>` (the exit code). Errors print one line on stderr and exit 2.
 */
import { LatticeMimoError } from '../core/errors.js';

type Command = { describe: string; load: () => Promise<{ run: (argv: string[]) => Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  reduce: { describe: 'lattice basis reduction of fplll-format bases', load: () => import('./reduce.js') },
  detect: { describe: 'MIMO detection of received vectors given as JSON', load: () => import('./detect.js') },
  simulate: { describe: 'Monte Carlo BER/SER/FER against SNR', load: () => import('./simulate.js') },
  bench: { describe: 'benchmarks: lattice | mimo', load: () => import('./bench.js') },
  info: { describe: 'engines and devices found', load: () => import('./info.js') },
  demo: { describe: 'the main job: a short simulation with its plot (npm start)', load: () => import('./demo.js') },
};

function usage(): string {
  const lines = ['usage: lattice-mimo <command> [options]', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)} ${c.describe}`);
  lines.push('', "run 'lattice-mimo <command> --help' for a command's options");
  return lines.join('\n');
}

/** One line on stderr for an error; exit code 2 for anything the user can fix. */
export function reportError(err: unknown): number {
  if (err instanceof LatticeMimoError) {
    process.stderr.write(`lattice-mimo: error [${err.code}]: ${err.message}\n`);
  } else if (err instanceof Error && (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`lattice-mimo: error [INVALID_ARGUMENT]: ${err.message.split('\n')[0]}\n`);
  } else {
    const msg = err instanceof Error ? err.message : String(err);
    process.stderr.write(`lattice-mimo: error [INTERNAL]: ${msg.split('\n')[0]}\n`);
  }
  return 2;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    process.stderr.write(`lattice-mimo: error [INVALID_ARGUMENT]: unknown command '${name}' (try --help)\n`);
    return 2;
  }
  try {
    const mod = await cmd.load();
    return await mod.run(rest);
  } catch (err) {
    return reportError(err);
  }
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
