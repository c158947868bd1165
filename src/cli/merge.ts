/**
 * `lattice-mimo merge`: the run that shards of one simulation make together (sim's mergeShards():
 * the counts of one unsharded run of the same seed), written as simulate writes a run. Where the
 * shards stopped short of the run's stop, it names the units missing and the commands that compute
 * them.
 */
import {
  checkDistinctOutputs,
  checkOutputPath,
  InvalidArgumentError,
  InvalidInputError,
  LatticeMimoError,
  readInput,
} from '../core/index.js';
import {
  type MissingUnit,
  mergeShards,
  missingUnitsText,
  resultTable,
  type SimulationResult,
  writeOutputs,
} from '../sim/index.js';
import { parseCommandLine } from './args.js';

export function mergeHelp(): string {
  return `usage: lattice-mimo merge SHARD.json... [--json FILE] [--csv FILE] [--plot FILE]

The run that the shards of one simulation make together (simulate --shard K/N, each with --json):
units 0, 1, ... of every point and detector taken in order from whichever shard computed them, the
stop rules applied as one process applies them. The counts equal those of the same run unsharded
(same seed), whatever the order of the files or the engines, threads and chunks the shards used.
The table goes to stderr; the merged run is written as simulate writes one (--resume, tables and
plots take it).

Where a unit the stop rules reach is missing (a shard that stopped too early, a file not given),
merge names the units and prints, for each shard, the command that computes them; then exit 2.
See docs/SCALE.md.

options:
  --json FILE               the merged run's JSON ('-' for stdout)
  --csv FILE                its points as CSV ('-' for stdout)
  --plot FILE               BER and FER curves, .svg or .png
  -h, --help                this text
`;
}

const OPTIONS = {
  json: { type: 'string' },
  csv: { type: 'string' },
  plot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A shard's result from its JSON file: a parse error or a file that is no shard's names the file. */
function readShard(text: string, file: string): SimulationResult {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `${file} is not valid JSON: ${(err as Error).message}`, { file });
  }
  const d = doc as Partial<SimulationResult> | null;
  if (typeof d !== 'object' || d === null || Array.isArray(d) || typeof d.shard !== 'object' || d.shard === null)
    throw new InvalidInputError(
      'INVALID_INPUT',
      `${file} is not a shard's JSON (no "shard" field: run simulate with --shard K/N and --json)`,
      { file },
    );
  return d as SimulationResult;
}

/** The commands that compute what mergeShards() found missing: each shard's file run again through the unit it must reach. */
function rerunCommands(
  err: LatticeMimoError,
  files: readonly string[],
  results: readonly SimulationResult[],
): string[] {
  const rerun = (err.details?.rerun ?? []) as { shard: number; minUnit: number }[];
  const count = err.details?.count as number;
  return rerun.map(({ shard, minUnit }) => {
    const i = results.findIndex((r) => r.shard?.index === shard);
    if (i >= 0) return `lattice-mimo simulate --resume ${files[i]} --shard-min-unit ${minUnit} --json ${files[i]}`;
    // no file of that shard: run it from another shard's settings
    return `lattice-mimo simulate --resume ${files[0]} --shard ${shard}/${count} --json shard-${shard}.json`;
  });
}

export async function run(argv: string[]): Promise<number> {
  const { values: v, positionals: files } = parseCommandLine(argv, OPTIONS, {
    command: 'merge',
    maxPositionals: Number.MAX_SAFE_INTEGER,
  });
  if (v.help) {
    process.stdout.write(mergeHelp());
    return 0;
  }
  if (files.length === 0)
    throw new InvalidArgumentError("merge: give the shards' JSON files (lattice-mimo merge --help)");
  if (v.plot !== undefined && !/\.(svg|png)$/i.test(v.plot))
    throw new InvalidArgumentError(`--plot file must end in .svg or .png, got '${v.plot}'`);
  const outputs = (['json', 'csv', 'plot'] as const).flatMap((option) =>
    v[option] !== undefined ? [{ option, file: v[option]! }] : [],
  );
  for (const { option, file } of outputs) checkOutputPath(option, file);
  checkDistinctOutputs(outputs);
  const results: SimulationResult[] = [];
  for (const file of files) results.push(readShard(await readInput(file, "give a shard's JSON file"), file));
  let merged: SimulationResult;
  try {
    merged = mergeShards(results);
  } catch (err) {
    if (err instanceof LatticeMimoError && err.details?.reason === 'SHARDS_INCOMPLETE') {
      const commands = rerunCommands(err, files, results);
      throw new InvalidInputError(
        'INVALID_INPUT',
        `merge: ${missingUnitsText((err.details as { missing: MissingUnit[] }).missing)}; compute them with: ${commands.join(' ; ')} (then merge again)`,
        { ...err.details, commands },
      );
    }
    throw err;
  }
  process.stderr.write(`${resultTable(merged)}\n`);
  const written = await writeOutputs(merged, { json: v.json, csv: v.csv, plot: v.plot });
  for (const file of written) process.stderr.write(`wrote ${file}\n`);
  return 0;
}
