#!/usr/bin/env node
/**
 * The `lattice-mimo` command. Each subcommand lives in its own file and exports
 * `run(argv): Promise<number>` (the exit code). Errors print one line on stderr and exit 2, never a
 * stack trace; a closed stdout pipe (`| head`) ends quietly with 141, as a Unix tool killed by SIGPIPE.
 */
import { readFileSync } from 'node:fs';
import { LatticeMimoError } from '../core/index.js';
import { errorLine, escapeForTerminal } from './error-line.js';

type Command = { describe: string; load: () => Promise<{ run: (argv: string[]) => Promise<number> }> };

const COMMANDS: Record<string, Command> = {
  reduce: { describe: 'lattice basis reduction of fplll-format bases', load: () => import('./reduce.js') },
  detect: { describe: 'MIMO detection of received vectors given as JSON', load: () => import('./detect.js') },
  simulate: { describe: 'Monte Carlo BER/SER/FER against SNR', load: () => import('./simulate.js') },
  merge: { describe: 'the run that the shards of a simulation make together', load: () => import('./merge.js') },
  channels: { describe: 'channel realisations on an OFDM grid, as JSON', load: () => import('./channels.js') },
  receive: { describe: '5G NR PUSCH slots through the slot receiver', load: () => import('./receive.js') },
  bench: { describe: 'benchmarks: lattice | mimo | receiver', load: () => import('./bench.js') },
  info: { describe: 'engines and devices found', load: () => import('./info.js') },
  demo: { describe: 'the main job: a short simulation with its plot (npm start)', load: () => import('./demo.js') },
};

/** Exit status of a process whose output pipe was closed (128 + SIGPIPE). */
const EXIT_PIPE = 141;

function usage(): string {
  const lines = [
    'usage: lattice-mimo <command> [options]',
    '       lattice-mimo help <command>',
    '       lattice-mimo --version',
    '',
    'commands:',
  ];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(10)} ${c.describe}`);
  lines.push('', "run 'lattice-mimo help <command>' or 'lattice-mimo <command> --help' for a command's options");
  return lines.join('\n');
}

/** The version in package.json (dist/src/cli/main.js -> ../../../package.json). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function reportError(err: unknown): number {
  process.stderr.write(`${errorLine(err)}\n`);
  return 2;
}

/** A failed write to stdout ends the process: quietly for a closed pipe, with one line otherwise. */
function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') process.exit(EXIT_PIPE);
  process.stderr.write(
    `lattice-mimo: error [IO_ERROR]: cannot write stdout: ${escapeForTerminal(err.message.split('\n')[0]!)}\n`,
  );
  process.exit(2);
}

const HELP_HELP = `usage: lattice-mimo help [COMMAND]

Without COMMAND, lists the commands; with one, prints its options (help bench lattice and help bench
mimo those of each benchmark), as COMMAND --help does. Exit 0.`;

/** `help`, `help CMD`, `help bench KIND`, `help help`. */
async function help(rest: string[]): Promise<number> {
  const [topic, ...more] = rest;
  if (topic === undefined) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  if (topic === 'help' || topic === '--help' || topic === '-h') {
    if (more.length > 0) return reportError(extraWords('help', more));
    process.stdout.write(`${HELP_HELP}\n`);
    return 0;
  }
  const helped = COMMANDS[topic];
  if (!helped)
    return reportError(
      new LatticeMimoError(
        'INVALID_ARGUMENT',
        `unknown command '${topic}' (commands: ${Object.keys(COMMANDS).join(', ')})`,
        {
          command: topic,
        },
      ),
    );
  // one word more only for bench's kind (`help bench mimo` -> `bench mimo --help`)
  if (more.length > (topic === 'bench' ? 1 : 0)) return reportError(extraWords(`help ${topic}`, more));
  try {
    return await (await helped.load()).run([...more, '--help']);
  } catch (err) {
    return reportError(err);
  }
}

function extraWords(what: string, words: string[]): LatticeMimoError {
  return new LatticeMimoError(
    'INVALID_ARGUMENT',
    `${what} takes no further word, got ${words.map((w) => `'${w}'`).join(' ')} (see 'lattice-mimo help help')`,
    { words },
  );
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    (name ? process.stdout : process.stderr).write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`lattice-mimo ${version()}\n`);
    return 0;
  }
  if (name === 'help') return help(rest);
  if (name.startsWith('-'))
    return reportError(
      new LatticeMimoError(
        'INVALID_ARGUMENT',
        `unknown option '${name}' (before a command only --help, -h, --version, -V; options go after the command)`,
        { option: name },
      ),
    );
  const cmd = COMMANDS[name];
  if (!cmd)
    return reportError(
      new LatticeMimoError(
        'INVALID_ARGUMENT',
        `unknown command '${name}' (commands: ${Object.keys(COMMANDS).join(', ')}; try --help)`,
      ),
    );
  try {
    const mod = await cmd.load();
    return await mod.run(rest);
  } catch (err) {
    return reportError(err);
  }
}

process.stdout.on('error', onStdoutError);
process.stderr.on('error', () => {
  /* nowhere left to report it */
});
process.on('uncaughtException', (err) => {
  reportError(err);
  process.exit(2);
});
process.on('unhandledRejection', (err) => {
  reportError(err);
  process.exit(2);
});
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
