/**
 * A simulation as the commands run it: the live table on stderr while it runs, then the files
 * asked for (JSON, CSV, plot). Shared by `simulate` and `demo`.
 */
import { writeOutput } from '../core/io.js';
import { resultToCsv, resultToJson } from './output.js';
import { writePlot, type PlotOptions } from './plot.js';
import { simulate } from './simulate.js';
import { LiveTable, type TableStream } from './table.js';
import type { SimulationOptions, SimulationResult } from './types.js';

/** simulate() with the live table drawn on `out` (default stderr) while it runs; returns the same result. */
export async function simulateWithTable(
  opts: SimulationOptions,
  out: TableStream = process.stderr,
): Promise<SimulationResult> {
  const table = new LiveTable(out, opts.snrType ?? 'esn0', opts.code !== undefined ? { code: opts.code } : {});
  table.start();
  const result = await simulate({
    ...opts,
    onProgress: (ev) => {
      table.update(ev);
      opts.onProgress?.(ev);
    },
  });
  table.finish(result);
  return result;
}

/**
 * Files writeOutputs() writes, each optional: `json` (resultToJson's text), `csv` (resultToCsv's),
 * `plot` (.svg or .png by its extension, drawn with `plotOptions`); '-' is stdout.
 */
export interface OutputFiles {
  json?: string;
  csv?: string;
  plot?: string;
  plotOptions?: PlotOptions;
}

/**
 * Writes the files asked for ('-' for JSON or CSV means stdout), each atomically; returns the paths
 * written. The plot is skipped (and not listed) when there is no point to draw.
 */
export async function writeOutputs(result: SimulationResult, files: OutputFiles): Promise<string[]> {
  const written: string[] = [];
  if (files.json) {
    await writeOutput(files.json, resultToJson(result));
    if (files.json !== '-') written.push(files.json);
  }
  if (files.csv) {
    await writeOutput(files.csv, resultToCsv(result));
    if (files.csv !== '-') written.push(files.csv);
  }
  if (files.plot && result.points.length > 0) {
    await writePlot(files.plot, result, files.plotOptions);
    written.push(files.plot);
  }
  return written;
}
