/** Simulation results as JSON (`{"points": [...], ...run settings}`) and CSV (one row per point). */
import type { SimPoint, SimulationResult } from './types.js';

/** The result as pretty JSON: `{"points": [...]}` then the run settings, newline-terminated. */
export function resultToJson(result: SimulationResult): string {
  const { points, ...settings } = result;
  return JSON.stringify({ points, ...settings }, null, 2) + '\n';
}

const CSV_FIELDS: readonly (keyof SimPoint)[] = [
  'detector', 'algorithm', 'snr', 'snrType', 'esn0Db', 'ebn0Db', 'noiseVar', 'ber', 'ser', 'fer',
  'bitErrors', 'symbolErrors', 'frameErrors', 'bits', 'symbols', 'vectors', 'timeMs', 'stoppedBy',
];

function csvCell(v: unknown): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The points as CSV: a header row, then one row per detector and SNR point. */
export function resultToCsv(result: SimulationResult): string {
  const lines = [CSV_FIELDS.join(',')];
  for (const p of result.points) lines.push(CSV_FIELDS.map((f) => csvCell(p[f])).join(','));
  return lines.join('\n') + '\n';
}
