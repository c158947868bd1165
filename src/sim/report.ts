/**
 * A simulation as the commands run it: the live table on stderr while it runs, then the files
 * asked for (JSON, CSV, plot). Shared by `simulate` and `demo`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resultToCsv, resultToJson } from './output.js';
import { writePlot, type PlotOptions } from './plot.js';
import { simulate } from './simulate.js';
import { LiveTable, type TableStream } from './table.js';
import type { SimulationOptions, SimulationResult } from './types.js';

/** simulate() with the live table drawn on `out` (default stderr) while it runs; returns the same result. */
export async function simulateWithTable(opts: SimulationOptions, out: TableStream = process.stderr): Promise<SimulationResult> {
  const table = new LiveTable(out, opts.snrType ?? 'esn0');
  table.start();
  const result = await simulate({
    ...opts,
    onProgress: (ev) => { table.update(ev); opts.onProgress?.(ev); },
  });
  table.finish(result);
  return result;
}

/**
 * Files writeOutputs() writes, each optional: `json` (resultToJson's text), `csv` (resultToCsv's),
 * `plot` (.svg or .png by its extension, drawn with `plotOptions`); '-' is stdout.
 */
export interface OutputFiles { json?: string; csv?: string; plot?: string; plotOptions?: PlotOptions }

async function writeText(file: string, text: string): Promise<void> {
  if (file === '-') { process.stdout.write(text); return; }
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** Writes the files asked for ('-' for JSON or CSV means stdout); returns the paths written. */
export async function writeOutputs(result: SimulationResult, files: OutputFiles): Promise<string[]> {
  const written: string[] = [];
  if (files.json) { await writeText(files.json, resultToJson(result)); if (files.json !== '-') written.push(files.json); }
  if (files.csv) { await writeText(files.csv, resultToCsv(result)); if (files.csv !== '-') written.push(files.csv); }
  if (files.plot) {
    await mkdir(dirname(files.plot), { recursive: true });
    await writePlot(files.plot, result, files.plotOptions);
    written.push(files.plot);
  }
  return written;
}
