/**
 * Parity-check matrices: the project's base-matrix text format (dense, or NR's entry list with one
 * shift per lifting-size set), MacKay's alist format, lifting a base matrix to the compact QC form,
 * expanding that to compressed rows, and syndromes.
 */
import { InvalidArgumentError, InvalidInputError } from '../core/index.js';
import type { BaseMatrix, BaseMatrixTable, QcParityCheck, SparseParityCheck } from './types.js';

/** Largest base matrix (rows x cols blocks) and expanded matrix (edges) the readers accept. */
const MAX_BLOCKS = 1 << 20;
const MAX_EDGES = 1 << 26;

function parseError(message: string, details?: Record<string, unknown>): InvalidInputError {
  return new InvalidInputError('PARSE_ERROR', message, details);
}

/** Data lines of a text file: comments (#) and blank lines dropped, each with its 1-based line number. */
function dataLines(text: string, what: string): { line: number; tokens: number[] }[] {
  if (typeof text !== 'string')
    throw new InvalidArgumentError(`${what}: expected the file's text as a string, got ${typeof text}`);
  const out: { line: number; tokens: number[] }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const body = raw.replace(/#.*$/, '').trim();
    if (body === '') return;
    const tokens = body.split(/\s+/).map((t) => {
      if (!/^[+-]?\d+$/.test(t)) throw parseError(`${what} line ${i + 1}: '${t}' is not an integer`, { line: i + 1 });
      return Number(t);
    });
    out.push({ line: i + 1, tokens });
  });
  return out;
}

function positive(v: number | undefined, name: string, line: number, what: string): number {
  if (v === undefined || !Number.isSafeInteger(v) || v < 1)
    throw parseError(`${what} line ${line}: ${name} must be a positive integer, got ${v}`, { line });
  return v;
}

/**
 * Reads a base matrix in the project's format (shared/data/ldpc): a header `rows cols z` followed by
 * rows lines of cols shifts (-1 = zero block, 0 <= s < z), or a header `rows cols entries` followed by
 * one line per nonzero block `row col V_0 .. V_{S-1}` (one shift per set, NR's tables). '#' starts a
 * comment. Throws InvalidInputError(PARSE_ERROR) naming the line and the problem.
 */
export function parseBaseMatrix(text: string): BaseMatrixTable {
  const what = 'base matrix';
  const lines = dataLines(text, what);
  const head = lines[0];
  if (!head) throw parseError(`${what}: the file has no data lines`);
  if (head.tokens.length !== 3)
    throw parseError(
      `${what} line ${head.line}: the header must be 3 integers (rows cols z, or rows cols entries), got ${head.tokens.length}`,
      { line: head.line },
    );
  const rows = positive(head.tokens[0], 'rows', head.line, what);
  const cols = positive(head.tokens[1], 'cols', head.line, what);
  const third = positive(head.tokens[2], 'the third header value', head.line, what);
  if (rows * cols > MAX_BLOCKS)
    throw parseError(`${what}: ${rows} x ${cols} blocks exceeds the limit of ${MAX_BLOCKS}`);
  if (rows >= cols)
    throw parseError(`${what}: ${rows} rows and ${cols} columns leave no information columns (need rows < cols)`);
  const body = lines.slice(1);
  const dense = body.length === rows && body.every((l) => l.tokens.length === cols);
  if (dense) {
    const z = third;
    const shifts = new Int32Array(rows * cols);
    body.forEach((l, r) => {
      l.tokens.forEach((s, c) => {
        if (s < -1 || s >= z)
          throw parseError(`${what} line ${l.line}: shift ${s} in column ${c} is outside -1 .. z-1 = ${z - 1}`, {
            line: l.line,
            row: r,
            col: c,
          });
        shifts[r * cols + c] = s;
      });
    });
    return { rows, cols, z, sets: [{ rows, cols, shifts }] };
  }
  const entries = third;
  const width = body[0]?.tokens.length ?? 0;
  if (body.length !== entries || width < 3 || body.some((l) => l.tokens.length !== width)) {
    throw parseError(
      `${what}: expected either ${rows} lines of ${cols} shifts (dense form) or ${entries} lines 'row col shift..' of one common width >= 3 (entry-list form); ` +
        `got ${body.length} lines of widths ${[...new Set(body.map((l) => l.tokens.length))].join(', ') || 'none'}`,
    );
  }
  const setCount = width - 2;
  const sets = Array.from({ length: setCount }, () => new Int32Array(rows * cols).fill(-1));
  for (const l of body) {
    const [r, c] = l.tokens as [number, number];
    if (r < 0 || r >= rows || c < 0 || c >= cols)
      throw parseError(`${what} line ${l.line}: block (${r}, ${c}) is outside ${rows} x ${cols}`, { line: l.line });
    if (sets[0]![r * cols + c] !== -1)
      throw parseError(`${what} line ${l.line}: block (${r}, ${c}) is listed twice`, { line: l.line });
    for (let s = 0; s < setCount; s++) {
      const v = l.tokens[2 + s]!;
      if (v < 0) throw parseError(`${what} line ${l.line}: shift ${v} of set ${s} is negative`, { line: l.line });
      sets[s]![r * cols + c] = v;
    }
  }
  return { rows, cols, sets: sets.map((shifts) => ({ rows, cols, shifts })) };
}

/** Writes a base matrix in the dense form `rows cols z` + one line of shifts per row (parseBaseMatrix reads it back). */
export function formatBaseMatrix(base: BaseMatrix, z: number): string {
  const lines = [`${base.rows} ${base.cols} ${z}`];
  for (let r = 0; r < base.rows; r++)
    lines.push(Array.from(base.shifts.subarray(r * base.cols, (r + 1) * base.cols)).join(' '));
  return `${lines.join('\n')}\n`;
}

/**
 * Lifts a base matrix by z: the compact QC parity check with shifts taken mod z (38.212's rule; a
 * caller wanting 802.16e's scaling passes an already-scaled matrix). Input: rows x cols shifts.
 */
export function liftBaseMatrix(base: BaseMatrix, z: number): QcParityCheck {
  if (!Number.isSafeInteger(z) || z < 1 || z > 1 << 16)
    throw new InvalidArgumentError(`expansion factor z must be an integer in [1, 65536], got ${z}`);
  if (base.shifts.length !== base.rows * base.cols)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `base matrix has ${base.shifts.length} shifts, expected ${base.rows} x ${base.cols}`,
    );
  const layerStart = new Int32Array(base.rows + 1);
  const bc: number[] = [],
    sh: number[] = [];
  for (let r = 0; r < base.rows; r++) {
    for (let c = 0; c < base.cols; c++) {
      const s = base.shifts[r * base.cols + c]!;
      if (s < -1) throw new InvalidInputError('INVALID_INPUT', `base matrix shift ${s} at (${r}, ${c}) is below -1`);
      if (s >= 0) {
        bc.push(c);
        sh.push(s % z);
      }
    }
    layerStart[r + 1] = bc.length;
  }
  if (bc.length * z > MAX_EDGES)
    throw new InvalidArgumentError(`lifting by z = ${z} gives ${bc.length * z} edges, above the limit ${MAX_EDGES}`);
  return {
    z,
    layers: base.rows,
    blockCols: base.cols,
    layerStart,
    blockCol: Int32Array.from(bc),
    shift: Int32Array.from(sh),
  };
}

/** Expands the compact QC form to compressed rows: check row r z + i, entry (c, s) -> column c z + (i + s) mod z. */
export function expandQc(qc: QcParityCheck): SparseParityCheck {
  const { z, layers } = qc;
  const m = layers * z,
    n = qc.blockCols * z;
  const rowStart = new Int32Array(m + 1);
  const col = new Int32Array(qc.blockCol.length * z);
  let e = 0;
  for (let r = 0; r < layers; r++) {
    const a = qc.layerStart[r]!,
      b = qc.layerStart[r + 1]!;
    for (let i = 0; i < z; i++) {
      for (let j = a; j < b; j++) {
        const s = qc.shift[j]!;
        col[e++] = qc.blockCol[j]! * z + ((i + s) % z);
      }
      rowStart[r * z + i + 1] = e;
    }
  }
  return { m, n, rowStart, col };
}

/** Number of checks the hard bits (length n, 0/1) leave unsatisfied; 0 means a codeword. */
export function syndromeWeight(H: SparseParityCheck, bits: ArrayLike<number>): number {
  if (bits.length !== H.n)
    throw new InvalidInputError('SHAPE_MISMATCH', `word has ${bits.length} bits, the code has n = ${H.n}`);
  let bad = 0;
  for (let r = 0; r < H.m; r++) {
    let x = 0;
    for (let e = H.rowStart[r]!; e < H.rowStart[r + 1]!; e++) x ^= bits[H.col[e]!]!;
    bad += x & 1;
  }
  return bad;
}

/**
 * Reads MacKay's alist format: `n m`, `max column weight  max row weight`, the n column weights, the
 * m row weights, n lines of 1-based row indices (one per column, zero-padded), m lines of 1-based
 * column indices (one per row). The two lists must describe the same matrix. Throws
 * InvalidInputError(PARSE_ERROR) naming the line and the problem.
 */
export function parseAlist(text: string): SparseParityCheck {
  const what = 'alist';
  const lines = dataLines(text, what);
  let at = 0;
  const next = (count: number | undefined, label: string): { line: number; tokens: number[] } => {
    const l = lines[at++];
    if (!l) throw parseError(`${what}: the file ends before ${label}`);
    if (count !== undefined && l.tokens.length !== count)
      throw parseError(`${what} line ${l.line}: ${label} needs ${count} integers, got ${l.tokens.length}`, {
        line: l.line,
      });
    return l;
  };
  const h1 = next(2, 'the size line (n m)');
  const n = positive(h1.tokens[0], 'n', h1.line, what),
    m = positive(h1.tokens[1], 'm', h1.line, what);
  const h2 = next(2, 'the maximum-weight line');
  const dvMax = positive(h2.tokens[0], 'the maximum column weight', h2.line, what);
  const dcMax = positive(h2.tokens[1], 'the maximum row weight', h2.line, what);
  if (n * dvMax > MAX_EDGES)
    throw parseError(`${what}: ${n} columns of weight up to ${dvMax} exceed the limit of ${MAX_EDGES} edges`);
  const weights = (count: number, max: number, label: string): number[] => {
    const l = next(count, label);
    l.tokens.forEach((w, i) => {
      if (w < 0 || w > max)
        throw parseError(`${what} line ${l.line}: ${label} ${i + 1} is ${w}, outside 0 .. ${max}`, { line: l.line });
    });
    return l.tokens;
  };
  const colW = weights(n, dvMax, 'column weight');
  const rowW = weights(m, dcMax, 'row weight');
  const lists = (count: number, w: number[], range: number, label: string): number[][] => {
    const out: number[][] = [];
    for (let i = 0; i < count; i++) {
      const l = next(undefined, `the index list of ${label} ${i + 1}`);
      const idx = l.tokens.filter((t) => t !== 0);
      if (idx.length !== w[i] || l.tokens.slice(idx.length).some((t) => t !== 0)) {
        throw parseError(
          `${what} line ${l.line}: ${label} ${i + 1} should list ${w[i]} indices then only zero padding, got '${l.tokens.join(' ')}'`,
          { line: l.line },
        );
      }
      if (idx.some((t) => t < 1 || t > range))
        throw parseError(`${what} line ${l.line}: ${label} ${i + 1} has an index outside 1 .. ${range}`, {
          line: l.line,
        });
      if (new Set(idx).size !== idx.length)
        throw parseError(`${what} line ${l.line}: ${label} ${i + 1} lists an index twice`, { line: l.line });
      out.push(idx.map((t) => t - 1));
    }
    return out;
  };
  const colLists = lists(n, colW, m, 'column');
  const rowLists = lists(m, rowW, n, 'row');
  if (at !== lines.length)
    throw parseError(`${what} line ${lines[at]!.line}: unexpected data after the ${m} row lists`);
  const edges = new Set<number>();
  colLists.forEach((rs, c) => {
    for (const r of rs) edges.add(r * n + c);
  });
  let count = 0;
  for (let r = 0; r < m; r++) {
    for (const c of rowLists[r]!) {
      if (!edges.has(r * n + c))
        throw parseError(
          `${what}: row ${r + 1} lists column ${c + 1}, but column ${c + 1} does not list row ${r + 1}`,
          { row: r, col: c },
        );
      count++;
    }
  }
  if (count !== edges.size)
    throw parseError(`${what}: the column lists hold ${edges.size} ones, the row lists ${count}`);
  const rowStart = new Int32Array(m + 1);
  const col = new Int32Array(count);
  let e = 0;
  for (let r = 0; r < m; r++) {
    for (const c of rowLists[r]!) col[e++] = c;
    rowStart[r + 1] = e;
  }
  return { m, n, rowStart, col };
}

/** Writes a parity check in alist format (zero-padded lists); parseAlist reads it back. */
export function formatAlist(H: SparseParityCheck): string {
  const colLists: number[][] = Array.from({ length: H.n }, () => []);
  const rowLists: number[][] = [];
  for (let r = 0; r < H.m; r++) {
    const row: number[] = [];
    for (let e = H.rowStart[r]!; e < H.rowStart[r + 1]!; e++) {
      row.push(H.col[e]! + 1);
      colLists[H.col[e]!]!.push(r + 1);
    }
    rowLists.push(row);
  }
  const dv = Math.max(1, ...colLists.map((l) => l.length)),
    dc = Math.max(1, ...rowLists.map((l) => l.length));
  const pad = (l: number[], w: number) => [...l, ...new Array<number>(w - l.length).fill(0)].join(' ');
  return `${[
    `${H.n} ${H.m}`,
    `${dv} ${dc}`,
    colLists.map((l) => l.length).join(' '),
    rowLists.map((l) => l.length).join(' '),
    ...colLists.map((l) => pad(l, dv)),
    ...rowLists.map((l) => pad(l, dc)),
  ].join('\n')}\n`;
}
