/**
 * fplll's matrix text format, `[[1 2 3]\n[4 5 6]\n]`, where each row is a basis vector, plus the
 * JSON form `{"basis": [[...], ...]}` (rows are basis vectors too).
 *
 * Our bases are column-major n x m with the basis vectors as columns; fplll's m x n matrix has
 * them as rows. The row-major data of fplll's matrix is exactly the column-major data of ours, so
 * converting is a flatten, never a transpose of the numbers.
 *
 * Integer entries may have any number of digits: `bigValues` holds every entry exactly (BigInt)
 * when all of them are integers. `values` (doubles) is exact only while every entry is at most
 * 2^53 - 1 in magnitude (`exact`); callers that need doubles check it (assertExactDoubles) and
 * callers that take integers of any size (precision/ladder.ts) read `bigValues`. A non-integer entry
 * past 2^53 is refused rather than rounded.
 */
import {
  checkOptions,
  choice,
  inapplicable,
  integer,
  option,
  type OptionsOf,
  InvalidInputError,
  allocReal,
  makeBatch,
  type MatrixBatch,
  type Precision,
} from '../core/index.js';

/** One matrix as read from fplll's format or JSON: rows are basis vectors, as written. */
export interface ParsedMatrix {
  /** Number of rows = number of basis vectors (m). */
  rows: number;
  /** Entries per row = dimension of the space (n). */
  cols: number;
  /** values[i] is basis vector i. */
  values: number[][];
  /** Every entry is an integer. */
  integral: boolean;
  /** Every entry exactly (integral input only, else null). */
  bigValues: bigint[][] | null;
  /** Every entry is held exactly in `values` (magnitude at most 2^53 - 1 or not an integer literal past it). */
  exact: boolean;
}

const INTEGER = /^[+-]?\d+$/;

/**
 * Throws for a matrix with an integer entry past 2^53 - 1 (held exactly only in bigValues), naming
 * the first one: for callers that compute in doubles.
 */
export function assertExactDoubles(p: ParsedMatrix): void {
  if (p.exact) return;
  const advice = p.integral
    ? ' (lll takes integer bases of any size: lllIntegral, or the reduce command with lll in float64)'
    : '';
  p.values.forEach((r, i) => {
    r.forEach((v, j) => {
      checkEntry(v, `(row ${i}, column ${j})`, p.bigValues ? p.bigValues[i]![j]!.toString() : String(v), advice);
    });
  });
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE_WORD = /^[+-]?(?:nan|inf|infinity)$/i;

/** Entry check shared by the text and JSON readers and the writers; `advice` ends a too-large entry's message. */
function checkEntry(v: number, where: string, token: string, advice = ''): number {
  if (!Number.isFinite(v)) {
    throw new InvalidInputError('NON_FINITE', `entry ${where} is not finite ('${token}')`, { where, token });
  }
  if (Math.abs(v) > Number.MAX_SAFE_INTEGER) {
    throw new InvalidInputError(
      'INVALID_INPUT',
      `entry ${where} = ${token} exceeds 2^53 - 1 in magnitude and cannot be held exactly in a double; not rounding it${advice}`,
      { where, token },
    );
  }
  return v === 0 ? 0 : v; // no -0
}

/** Whether /\s/ matches the character (ASCII by its codes, the rest by the regular expression). */
const isSpace = (code: number): boolean =>
  code < 128 ? code === 32 || (code >= 9 && code <= 13) : /\s/.test(String.fromCharCode(code));
const OPEN = 91,
  CLOSE = 93;

/** A read position; its line and column (1-based) are counted only when an error needs them. */
class Cursor {
  pos = 0;
  constructor(readonly text: string) {}
  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): string {
    return this.text[this.pos]!;
  }
  advance(): void {
    this.pos++;
  }
  skipSpace(): void {
    const t = this.text;
    let p = this.pos;
    while (p < t.length && isSpace(t.charCodeAt(p))) p++;
    this.pos = p;
  }
  /** Skips to the end of a token (the next space or bracket) and returns it. */
  token(): string {
    const t = this.text,
      start = this.pos;
    let p = start;
    for (; p < t.length; p++) {
      const code = t.charCodeAt(p);
      if (code === OPEN || code === CLOSE || isSpace(code)) break;
    }
    this.pos = p;
    return t.slice(start, p);
  }
  at(pos = this.pos): { line: number; column: number } {
    let line = 1,
      lineStart = 0;
    for (let i = this.text.indexOf('\n'); i >= 0 && i < pos; i = this.text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return { line, column: pos - lineStart + 1 };
  }
  where(pos = this.pos): string {
    const a = this.at(pos);
    return `line ${a.line}, column ${a.column}`;
  }
}

function parseError(message: string, c: Cursor): InvalidInputError {
  return new InvalidInputError('PARSE_ERROR', `${message} at ${c.where()}`, c.at());
}

/**
 * Reads one matrix in fplll's format (also what `latticegen` and `fplll` print). Whitespace,
 * newlines included, may appear anywhere between tokens; entries are integers or decimals, with an
 * optional sign and exponent. Commas are not part of the format and are rejected.
 */
export function parseFplll(text: string): ParsedMatrix {
  if (typeof text !== 'string')
    throw new InvalidInputError('INVALID_INPUT', `fplll input must be a string, got ${typeof text}`);
  const c = new Cursor(text);
  c.skipSpace();
  if (c.done) throw new InvalidInputError('PARSE_ERROR', 'empty input: expected a matrix such as [[1 2]\\n[3 4]\\n]');
  if (c.peek() !== '[') throw parseError(`expected '[' opening the matrix, found '${c.peek()}'`, c);
  const open = c.at();
  c.advance();

  const values: number[][] = [];
  const tokens: string[][] = [];
  const rowStarts: number[] = [];
  // Bounded: every iteration consumes at least one character.
  for (;;) {
    c.skipSpace();
    if (c.done) {
      throw new InvalidInputError(
        'PARSE_ERROR',
        `unbalanced brackets: input ends before the ']' closing the matrix opened at line ${open.line}, column ${open.column}`,
        open,
      );
    }
    const ch = c.peek();
    if (ch === ']') {
      c.advance();
      break;
    }
    if (ch !== '[')
      throw parseError(`expected '[' starting row ${values.length} or ']' closing the matrix, found '${ch}'`, c);
    rowStarts.push(c.pos);
    const toks: string[] = [];
    values.push(parseRow(c, values.length, toks));
    tokens.push(toks);
  }

  c.skipSpace();
  if (!c.done)
    throw parseError(`unexpected text '${c.peek()}' after the ']' closing the matrix (unbalanced brackets?)`, c);
  if (values.length === 0) throw new InvalidInputError('PARSE_ERROR', 'the matrix has no rows', open);

  const cols = values[0]!.length;
  let integral = true;
  values.forEach((row, i) => {
    if (row.length !== cols) {
      const rowLines = [c.at(rowStarts[0]).line, c.at(rowStarts[i]).line];
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `ragged rows: row ${i} (line ${rowLines[1]}) has ${row.length} entries but row 0 (line ${rowLines[0]}) has ${cols}`,
        { row: i, line: rowLines[1], entries: row.length, expected: cols },
      );
    }
    row.forEach((v, j) => {
      // an integer literal is integral at any size (past about 309 digits its double is Infinity)
      if (INTEGER.test(tokens[i]![j]!)) return;
      if (!Number.isInteger(v) || Math.abs(v) > Number.MAX_SAFE_INTEGER) integral = false;
    });
  });
  const bigValues = integral
    ? tokens.map((r, i) => r.map((t, j) => (INTEGER.test(t) ? BigInt(t) : BigInt(values[i]![j]!))))
    : null;
  const exact = values.every((r) => r.every((v) => Math.abs(v) <= Number.MAX_SAFE_INTEGER));
  return { rows: values.length, cols, values, integral, bigValues, exact };
}

/** One row `[a b c]`, cursor on its '['; leaves the cursor after its ']'. */
function parseRow(c: Cursor, rowIndex: number, tokens: string[]): number[] {
  const startPos = c.pos;
  c.advance();
  const row: number[] = [];
  for (;;) {
    c.skipSpace();
    if (c.done) {
      const start = c.at(startPos);
      throw new InvalidInputError(
        'PARSE_ERROR',
        `unbalanced brackets: input ends inside row ${rowIndex} opened at line ${start.line}, column ${start.column}`,
        { row: rowIndex, ...start },
      );
    }
    const ch = c.peek();
    if (ch === ']') {
      c.advance();
      break;
    }
    if (ch === '[') throw parseError(`unexpected '[' inside row ${rowIndex} (rows cannot nest; missing ']'?)`, c);
    const tokPos = c.pos;
    const token = c.token();
    const where = () => `(row ${rowIndex}, column ${row.length}) at ${c.where(tokPos)}`;
    if (NON_FINITE_WORD.test(token)) {
      throw new InvalidInputError('NON_FINITE', `entry ${where()} is not finite ('${token}')`, {
        row: rowIndex,
        entry: row.length,
        ...c.at(tokPos),
      });
    }
    if (!NUMBER.test(token)) {
      throw new InvalidInputError('PARSE_ERROR', `non-numeric token '${token}' ${where()}`, {
        row: rowIndex,
        entry: row.length,
        token,
        ...c.at(tokPos),
      });
    }
    // an integer literal of any size is kept exactly (bigValues); other entries must fit a double exactly
    const v = Number(token);
    const exact = INTEGER.test(token) || (Number.isFinite(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER);
    row.push(exact ? v || 0 : checkEntry(v, where(), token)); // no -0
    tokens.push(token);
  }
  if (row.length === 0) {
    const start = c.at(startPos);
    throw new InvalidInputError(
      'PARSE_ERROR',
      `row ${rowIndex} at line ${start.line}, column ${start.column} is empty`,
      { row: rowIndex, ...start },
    );
  }
  return row;
}

/** Anything with a basis in it: fplll rows (values[i] = basis vector i) or our column-major batch. */
export type BasisLike = readonly (readonly number[])[] | MatrixBatch;

function isBatch(x: BasisLike): x is MatrixBatch {
  return !Array.isArray(x) && typeof (x as MatrixBatch | null)?.rows === 'number';
}

/** The options of formatFplll(), formatBasisJson() and formatIntegerRows(). */
const FORMAT_SCHEMA = {
  style: option(
    choice(['fplll', 'latticegen'] as const),
    'the layout: what the fplll binary prints, or what latticegen prints',
    {
      default: 'fplll',
    },
  ),
  index: option(integer(0), 'which matrix of a batch to write', { default: 0 }),
};

/** A format call's options checked (FORMAT_SCHEMA, `keys` of it): index only for a batch. */
function formatOptions(
  input: BasisLike,
  opts: unknown,
  call: string,
  keys: readonly (keyof typeof FORMAT_SCHEMA)[],
): OptionsOf<typeof FORMAT_SCHEMA> {
  const schema = Object.fromEntries(keys.map((k) => [k, FORMAT_SCHEMA[k]]));
  const o = checkOptions(opts, schema, call) as OptionsOf<typeof FORMAT_SCHEMA>;
  if (o.index !== undefined && !isBatch(input))
    throw inapplicable(call, 'index', 'it picks a matrix of a batch, and the input is rows of one matrix');
  return o;
}

/** Rows (basis vectors) of a BasisLike, validated: non-empty, rectangular, finite, |v| <= 2^53 - 1. */
function basisRows(input: BasisLike, index: number): number[][] {
  if (!Array.isArray(input) && !isBatch(input))
    throw new InvalidInputError(
      'INVALID_INPUT',
      'a basis must be rows of numbers or a batch {batch, rows, cols, data}',
    );
  const rows = isBatch(input)
    ? rowsFromBasis(input, index)
    : input.map((r, i) => {
        if (!Array.isArray(r) && !ArrayBuffer.isView(r))
          throw new InvalidInputError('INVALID_INPUT', `row ${i} is not an array of numbers`);
        return Array.from(r as ArrayLike<number>);
      });
  if (rows.length === 0 || rows[0]!.length === 0)
    throw new InvalidInputError('INVALID_INPUT', 'cannot write an empty matrix');
  const cols = rows[0]!.length;
  rows.forEach((r, i) => {
    if (r.length !== cols)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `ragged rows: row ${i} has ${r.length} entries but row 0 has ${cols}`,
      );
    r.forEach((v, j) => {
      checkEntry(v, `(row ${i}, column ${j})`, String(v));
    });
  });
  return rows;
}

/** Integers as integers; other values in the shortest form that reads back to the same double. */
function formatNumber(v: number): string {
  return v === 0 ? '0' : String(v);
}

/** How formatFplll writes a basis. */
export interface FormatOptions {
  /**
   * 'fplll' (default): what the `fplll` binary prints, `[[a b c ]\n[d e f ]\n]\n` (each entry
   * followed by a space, the closing bracket on its own line). 'latticegen': what `latticegen`
   * (and `fplll -z double`) prints, `[[a b c]\n[d e f]]\n`.
   */
  style?: 'fplll' | 'latticegen';
  /** Which matrix of a batch to write; default 0. */
  index?: number;
}

/** Writes a basis in fplll's format, byte for byte as the tool prints it. */
export function formatFplll(input: BasisLike, opts: FormatOptions = {}): string {
  const o = formatOptions(input, opts, 'formatFplll()', ['style', 'index']);
  return writeRows(
    basisRows(input, o.index ?? 0).map((r) => r.map(formatNumber)),
    o.style,
  );
}

/**
 * Writes an integer matrix whose entries may pass 2^53 (BigInt entries, e.g. a wide transform) in
 * fplll's format; number entries must be integers.
 */
export function formatIntegerRows(
  rows: readonly (readonly (number | bigint)[])[],
  opts: Pick<FormatOptions, 'style'> = {},
): string {
  const o = checkOptions(opts, { style: FORMAT_SCHEMA.style }, 'formatIntegerRows()');
  if (!Array.isArray(rows) || !rows.every((r: unknown) => Array.isArray(r)))
    throw new InvalidInputError('INVALID_INPUT', 'an integer matrix must be rows of integers');
  const text = rows.map((r, i) =>
    r.map((v, j) => {
      if (typeof v === 'number' && !Number.isSafeInteger(v))
        throw new InvalidInputError('INVALID_INPUT', `entry (row ${i}, column ${j}) is ${v}, not an exact integer`);
      return v === 0 || v === 0n ? '0' : v.toString(); // no -0
    }),
  );
  if (text.length === 0 || text[0]!.length === 0)
    throw new InvalidInputError('INVALID_INPUT', 'cannot write an empty matrix');
  return writeRows(text, o.style);
}

function writeRows(rows: string[][], style: FormatOptions['style'] = 'fplll'): string {
  if (style === 'latticegen') return `[${rows.map((r) => `[${r.join(' ')}]`).join('\n')}]\n`;
  if (style !== 'fplll') throw new InvalidInputError('INVALID_INPUT', `unknown fplll format style '${String(style)}'`);
  return `[${rows.map((r) => `[${r.map((v) => `${v} `).join('')}]\n`).join('')}]\n`;
}

/** Our n x m column-major basis from fplll rows (m basis vectors of length n). */
export function basisFromRows(values: readonly (readonly number[])[], precision: Precision = 'float64'): MatrixBatch {
  checkPrecision(precision, 'basisFromRows()');
  const rows = basisRows(values, 0);
  const m = rows.length,
    n = rows[0]!.length;
  const data = allocReal(precision, n * m);
  // row-major data of fplll's m x n matrix = column-major data of our n x m basis
  rows.forEach((r, j) => {
    r.forEach((v, i) => {
      data[i + j * n] = v;
    });
  });
  return makeBatch(data, 1, n, m);
}

/** fplll rows (row j = basis vector j = our column j) of matrix `index` of a batch. */
export function rowsFromBasis(basis: MatrixBatch, index = 0): number[][] {
  const { batch, rows: n, cols: m, data } = basis;
  if (!Number.isInteger(index) || index < 0 || index >= batch) {
    throw new InvalidInputError('INVALID_INPUT', `matrix index ${index} is outside the batch of ${batch}`);
  }
  const off = index * n * m;
  const out: number[][] = [];
  for (let j = 0; j < m; j++) out.push(Array.from(data.subarray(off + j * n, off + (j + 1) * n)));
  return out;
}

/** parseFplll, then our column-major basis: a batch of one n x m matrix (m rows of length n in the text). */
export function parseFplllBasis(text: string, precision: Precision = 'float64'): MatrixBatch {
  checkPrecision(precision, 'parseFplllBasis()');
  const p = parseFplll(text);
  assertExactDoubles(p);
  return basisFromRows(p.values, precision);
}

/** Reads `{"basis": [[...], ...]}` (rows are basis vectors); same entry rules as parseFplll. */
export function parseBasisJson(text: string): ParsedMatrix {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InvalidInputError('PARSE_ERROR', `invalid JSON: ${(e as Error).message}`);
  }
  const basis =
    doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>).basis : undefined;
  if (!Array.isArray(basis))
    throw new InvalidInputError('INVALID_INPUT', 'JSON must be an object with a "basis" array of rows');
  if (basis.length === 0) throw new InvalidInputError('INVALID_INPUT', '"basis" has no rows');
  const values: number[][] = basis.map((row: unknown, i: number) => {
    if (!Array.isArray(row) || row.length === 0)
      throw new InvalidInputError('INVALID_INPUT', `basis[${i}] must be a non-empty array of numbers`);
    return row.map((v: unknown, j: number) => {
      if (typeof v !== 'number')
        throw new InvalidInputError('PARSE_ERROR', `basis[${i}][${j}] is not a number (${JSON.stringify(v)})`);
      return checkEntry(v, `basis[${i}][${j}]`, String(v));
    });
  });
  const cols = values[0]!.length;
  values.forEach((r, i) => {
    if (r.length !== cols)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `ragged rows: basis[${i}] has ${r.length} entries but basis[0] has ${cols}`,
      );
  });
  const integral = values.every((r) => r.every(Number.isInteger));
  return {
    rows: values.length,
    cols,
    values,
    integral,
    bigValues: integral ? values.map((r) => r.map((v) => BigInt(v))) : null,
    exact: true,
  };
}

/** Writes `{"basis": [[...], ...]}` (rows are basis vectors); numbers round-trip exactly. */
export function formatBasisJson(input: BasisLike, opts: { index?: number } = {}): string {
  const o = formatOptions(input, opts, 'formatBasisJson()', ['index']);
  return `${JSON.stringify({ basis: basisRows(input, o.index ?? 0) })}\n`;
}

const PRECISION = option(choice(['float32', 'float64'] as const), 'the array kind of the basis');

/** A precision argument: 'float32' or 'float64' (InvalidArgumentError naming the call otherwise). */
function checkPrecision(precision: unknown, call: string): void {
  PRECISION.check(precision, `${call} option precision`);
}
