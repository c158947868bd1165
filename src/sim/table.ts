/**
 * The live table on stderr: one row per detector at each SNR point. On a terminal the rows of the
 * point being simulated are redrawn in place (ANSI cursor-up and clear-line) as chunks merge; when
 * the stream is not a terminal (a log file, CI) each point's rows are printed once, when it ends.
 */
import type { SimPoint, SimProgressEvent, SimulationResult, SnrType } from './types.js';

const COLUMNS = ['SNR', 'detector', 'BER', 'SER', 'FER', 'errors', 'vectors', 'vectors/s', 'time'] as const;
const WIDTHS = [7, 14, 9, 9, 9, 8, 10, 10, 8];
/** The unproven column (runs with onBudget 'flag'): after `vectors`. */
const UNPROVEN_AT = COLUMNS.indexOf('vectors') + 1;
const UNPROVEN_WIDTH = 8;
/** Redraws at most this often on a terminal (the last state of a point is always drawn). */
const REDRAW_INTERVAL_MS = 100;

/** Where the live table is drawn: a writable text stream (process.stderr, or a test's collector). */
export interface TableStream {
  /** Writes text as is. */
  write(text: string): unknown;
  /** On a terminal the table redraws its rows in place; elsewhere it prints each finished row once. */
  isTTY?: boolean;
}

function rate(v: number): string {
  if (v === 0) return '0';
  return v < 1e-3 ? v.toExponential(2) : v.toPrecision(3);
}

function count(n: number): string {
  if (n < 1e5) return String(n);
  if (n < 1e8) return `${(n / 1e3).toFixed(0)}k`;
  return `${(n / 1e6).toFixed(0)}M`;
}

function perSecond(v: number): string {
  if (!Number.isFinite(v)) return '-';
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}k`;
  return v.toFixed(0);
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  if (ms < 600_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** The cells padded to their columns; `unproven`: the cells hold the unproven column. */
function row(cells: readonly string[], unproven = false): string {
  const widths = unproven ? [...WIDTHS.slice(0, UNPROVEN_AT), UNPROVEN_WIDTH, ...WIDTHS.slice(UNPROVEN_AT)] : WIDTHS;
  return cells.map((c, i) => (i === 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ');
}

/** `cells` with the unproven column's cell inserted, where the table has it. */
function withUnproven(cells: string[], cell: string, unproven: boolean): string[] {
  return unproven ? [...cells.slice(0, UNPROVEN_AT), cell, ...cells.slice(UNPROVEN_AT)] : cells;
}

export function snrTypeName(t: SnrType): string {
  return t === 'esn0' ? 'Es/N0' : 'Eb/N0';
}

/**
 * One table row for a detector at a point. `runningMs` (the point's wall time so far) marks a row
 * still being counted; a row stopped by the time limit says so. `unproven`: the table has the
 * unproven column (vectors whose search stopped at the node budget, onBudget 'flag').
 */
export function formatPointRow(p: SimPoint, runningMs?: number, unproven = false): string {
  const vps = p.timeMs > 0 ? p.vectors / (p.timeMs / 1000) : NaN;
  // coded: errors are frame errors (the stop rule's count), vectors are frames
  const coded = p.code !== undefined;
  const cells = [
    p.snr.toFixed(1),
    p.detector.slice(0, WIDTHS[1]!),
    rate(p.ber),
    rate(p.ser),
    rate(p.fer),
    count(coded ? p.frameErrors : p.bitErrors),
    count(coded ? p.frames : p.vectors),
    perSecond(vps),
    duration(p.timeMs),
  ];
  return (
    row(withUnproven(cells, count(p.unproven), unproven), unproven) +
    (runningMs !== undefined ? ` ... ${duration(runningMs)}` : p.stoppedBy === 'time' ? ' (time limit)' : '')
  );
}

/**
 * The table's header; `code` (a coded run) makes BER / FER those of the decoded information bits,
 * errors frame errors, the count frames; `unproven` adds the column of vectors whose search
 * stopped at the node budget (onBudget 'flag').
 */
export function tableHeader(snrType: SnrType, code?: string, unproven = false): string {
  const names = COLUMNS.map((c) => (c === 'SNR' ? 'SNR dB' : code !== undefined && c === 'vectors' ? 'frames' : c));
  const head = row(withUnproven(names, 'unproven', unproven), unproven);
  return [
    code !== undefined
      ? `SNR is ${snrTypeName(snrType)} in dB (code rate included); code ${code}: BER and FER of the decoded information bits, SER of the detector; errors = frame errors; vectors/s and time are detection and decoding, per core`
      : `SNR is ${snrTypeName(snrType)} in dB; errors = bit errors; vectors/s and time are detection only, per core (summed over workers)`,
    ...(unproven
      ? [
          'unproven = vectors whose search stopped at the node budget (--on-budget flag): their best leaf counted, not proven ML',
        ]
      : []),
    head,
    '-'.repeat(head.length),
  ].join('\n');
}

export class LiveTable {
  private readonly tty: boolean;
  /** Rows of the current point already on screen (terminal mode). */
  private drawn = 0;
  private lastDraw = 0;
  private readonly code: string | undefined;
  private readonly unproven: boolean;

  /** `opts.unproven`: the unproven column (a run with a detector under onBudget 'flag'). */
  constructor(
    private readonly out: TableStream,
    private readonly snrType: SnrType,
    opts: { tty?: boolean; code?: string; unproven?: boolean } = {},
  ) {
    this.code = opts.code;
    this.unproven = opts.unproven === true;
    this.tty = opts.tty ?? this.out.isTTY === true;
  }

  start(): void {
    this.out.write(`${tableHeader(this.snrType, this.code, this.unproven)}\n`);
  }

  /** Pass as `onProgress` (or call from it). */
  update(ev: SimProgressEvent): void {
    if (!this.tty) {
      if (ev.type === 'point')
        this.out.write(`${ev.points.map((p) => formatPointRow(p, undefined, this.unproven)).join('\n')}\n`);
      return;
    }
    const now = performance.now();
    if (ev.type === 'update' && now - this.lastDraw < REDRAW_INTERVAL_MS) return;
    this.lastDraw = now;
    const lines = ev.points.map((p, d) =>
      formatPointRow(p, ev.type === 'update' && !ev.finished[d] ? ev.pointWallMs : undefined, this.unproven),
    );
    let text = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    for (const line of lines) text += `\r\x1b[2K${line}\n`;
    this.out.write(text);
    this.drawn = ev.type === 'point' ? 0 : lines.length;
  }

  /** The closing notes: zero-error points, time-limited points, an interruption or an error, the run's totals. */
  finish(result: SimulationResult): void {
    if (this.tty && this.drawn > 0) {
      // the rows of an interrupted point stay on screen: mark them
      this.out.write(
        `(the point above was ${result.error ? 'stopped by an error' : 'interrupted'}: its partial counts are not kept)\n`,
      );
      this.drawn = 0;
    }
    const zero = result.points.filter((p) => (result.code ? p.frameErrors : p.bitErrors) === 0).length;
    const timed = result.points.filter((p) => p.stoppedBy === 'time').length;
    const snrPoints = result.snrs.length;
    const finished = new Set(result.points.map((p) => p.snrIndex)).size;
    const notes = [
      `${result.points.length} points (${finished} of ${snrPoints} SNR values) in ${duration(result.wallMs)} on ${result.threads} thread(s), engine ${result.engine}`,
    ];
    if (result.error)
      notes.push(`stopped by an error (${result.error.code}): ${snrPoints - finished} SNR value(s) not finished`);
    else if (result.interrupted) notes.push(`interrupted: ${snrPoints - finished} SNR value(s) not finished`);
    if (timed > 0)
      notes.push(
        `${timed} point(s) stopped by the time limit (${result.maxTimeSeconds} s per point): fewer errors / vectors than asked, flagged stoppedBy "time"`,
      );
    if (zero > 0)
      notes.push(
        result.code
          ? `${zero} point(s) with no frame errors: FER 0 means below 1 / frames (omitted from log-scale plots)`
          : `${zero} point(s) with no bit errors: BER 0 means below 1 / bits (omitted from log-scale plots)`,
      );
    this.out.write(`${notes.join('\n')}\n`);
  }
}

/** A finished run's table (header and a row per point), as the live table ends. */
export function resultTable(result: SimulationResult): string {
  const unproven = result.points.some((p) => p.unproven > 0);
  return [
    tableHeader(result.snrType, result.code, unproven),
    ...result.points.map((p) => formatPointRow(p, undefined, unproven)),
  ].join('\n');
}
