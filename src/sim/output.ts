/** Simulation results as JSON (`{"points": [...], ...run settings}`) and CSV (one row per point). */
import type { SimPoint, SimulationResult } from './types.js';

/**
 * The result as pretty JSON: `{"points": [...]}` then the run settings, newline-terminated; a
 * shard's per-unit counts (`shard`) come last, their columns on one line each.
 */
export function resultToJson(result: SimulationResult): string {
  const { points, shard, ...settings } = result;
  const text = JSON.stringify({ points, ...settings }, null, 2);
  if (!shard) return `${text}\n`;
  const { units, ...place } = shard;
  const rows = units.map((u) => `      ${JSON.stringify(u)}`).join(',\n');
  const body = `{\n    ${JSON.stringify(place).slice(1, -1)},\n    "units": [\n${rows}\n    ]\n  }`;
  return `${text.slice(0, -2)},\n  "shard": ${body}\n}\n`;
}

const CSV_FIELDS: readonly (keyof SimPoint)[] = [
  'detector',
  'algorithm',
  'snr',
  'snrType',
  'esn0Db',
  'ebn0Db',
  'noiseVar',
  'ber',
  'ser',
  'fer',
  'bitErrors',
  'symbolErrors',
  'frameErrors',
  'bits',
  'symbols',
  'vectors',
  'unproven',
  'timeMs',
  'stoppedBy',
];
/** Columns a coded run adds: frames (codewords), the code, the decoder's mean iterations. */
const CODED_CSV_FIELDS: readonly (keyof SimPoint)[] = ['frames', 'code', 'meanIterations'];

function csvCell(v: unknown): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The points as CSV: a header row, then one row per detector and SNR point. */
export function resultToCsv(result: SimulationResult): string {
  const fields = result.code !== undefined ? [...CSV_FIELDS, ...CODED_CSV_FIELDS] : CSV_FIELDS;
  const lines = [fields.join(',')];
  for (const p of result.points) lines.push(fields.map((f) => csvCell(p[f])).join(','));
  return `${lines.join('\n')}\n`;
}
