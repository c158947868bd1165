/**
 * A simulation as the commands run it: the live table on stderr while it runs, then the files
 * asked for (JSON, CSV, plot). Shared by `simulate` and `demo`.
 */
import { LatticeMimoError, writeOutput } from '../core/index.js';
import { resultToCsv, resultToJson } from './output.js';
import { writePlot, type PlotOptions } from './plot.js';
import { simulate } from './simulate.js';
import { LiveTable, type TableStream } from './table.js';
import type { SimulationOptions, SimulationResult } from './types.js';

/**
 * simulate() with the live table drawn on `out` (default stderr) while it runs; returns the same
 * result. A run stopped by an error gets its closing notes too (from the error's details.partial)
 * before the error is rethrown.
 */
export async function simulateWithTable(
  opts: SimulationOptions,
  out: TableStream = process.stderr,
): Promise<SimulationResult> {
  const table = new LiveTable(out, opts.snrType ?? 'esn0', {
    ...(opts.code !== undefined ? { code: opts.code } : {}),
    unproven: opts.detectors.some((d) => d.onBudget === 'flag'),
  });
  table.start();
  let result: SimulationResult;
  try {
    result = await simulate({
      ...opts,
      onProgress: (ev) => {
        table.update(ev);
        opts.onProgress?.(ev);
      },
    });
  } catch (err) {
    const partial = partialResult(err);
    if (partial) table.finish(partial);
    throw err;
  }
  table.finish(result);
  return result;
}

/** The finished points of a run that simulate() rejected: the error's details.partial (null for an error before the run started). */
export function partialResult(err: unknown): SimulationResult | null {
  if (!(err instanceof LatticeMimoError)) return null;
  const partial = err.details?.partial as SimulationResult | undefined;
  return partial !== undefined && Array.isArray(partial.points) ? partial : null;
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
