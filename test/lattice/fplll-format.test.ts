import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LatticeMimoError } from '../../src/core/errors.js';
import {
  assertExactDoubles,
  basisFromRows,
  formatBasisJson,
  formatFplll,
  formatIntegerRows,
  parseBasisJson,
  parseFplll,
  parseFplllBasis,
  rowsFromBasis,
} from '../../src/lattice/fplll-format.js';

const safeInt = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
const anyEntry = fc
  .oneof(
    safeInt,
    fc.integer({ min: -1000, max: 1000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e-3, max: 1e-3 }),
  )
  .map((v) => (v === 0 ? 0 : v)); // -0 is written as 0

/** A rectangular matrix of entries drawn by `entry`. */
function matrixOf(entry: fc.Arbitrary<number>): fc.Arbitrary<number[][]> {
  return fc
    .tuple(fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 7 }))
    .chain(([r, c]) => fc.array(fc.array(entry, { minLength: c, maxLength: c }), { minLength: r, maxLength: r }));
}

function errorOf(fn: () => unknown): LatticeMimoError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof LatticeMimoError, `expected a typed error, got ${e}`);
    return e;
  }
  assert.fail('expected an error');
}

test('parseFplll(formatFplll(x)) = x, both styles, integers and doubles', () => {
  fc.assert(
    fc.property(matrixOf(anyEntry), fc.constantFrom('fplll', 'latticegen'), (values, style) => {
      const text = formatFplll(values, { style: style as 'fplll' | 'latticegen' });
      const p = parseFplll(text);
      assert.deepEqual(p.values, values);
      assert.equal(p.rows, values.length);
      assert.equal(p.cols, values[0]!.length);
      assert.equal(
        p.integral,
        values.every((r) => r.every(Number.isInteger)),
      );
    }),
    { numRuns: 300 },
  );
});

test("formatFplll writes integers as plain integers in the tools' layouts", () => {
  fc.assert(
    fc.property(matrixOf(safeInt), (values) => {
      const lines = formatFplll(values).split('\n');
      // fplll: "[[a b ]", "[c d ]", ..., "]", ""
      assert.equal(lines.length, values.length + 2);
      assert.equal(lines[values.length], ']');
      values.forEach((row, i) => {
        assert.equal(lines[i], `${(i === 0 ? '[[' : '[') + row.map((v) => `${BigInt(v)} `).join('')}]`);
      });
      const lg = formatFplll(values, { style: 'latticegen' }).split('\n');
      assert.equal(lg.length, values.length + 1);
      values.forEach((row, i) => {
        assert.equal(
          lg[i],
          (i === 0 ? '[[' : '[') + row.map((v) => `${BigInt(v)}`).join(' ') + (i === values.length - 1 ? ']]' : ']'),
        );
      });
    }),
    { numRuns: 200 },
  );
});

test('whitespace and newlines anywhere between tokens are accepted', () => {
  const ws = fc
    .array(fc.constantFrom(' ', '\n', '\t', '\r\n', '  '), { minLength: 0, maxLength: 3 })
    .map((a) => a.join(''));
  const ws1 = fc.array(fc.constantFrom(' ', '\n', '\t', '\r\n'), { minLength: 1, maxLength: 3 }).map((a) => a.join(''));
  fc.assert(
    fc.property(matrixOf(anyEntry), fc.infiniteStream(ws), fc.infiniteStream(ws1), (values, pads, seps) => {
      const pad = () => pads.next().value as string;
      const text =
        pad() +
        '[' +
        values.map((r) => `${pad()}[${pad()}${r.map(String).join(seps.next().value as string)}${pad()}]`).join('') +
        pad() +
        ']' +
        pad();
      assert.deepEqual(parseFplll(text).values, values);
    }),
    { numRuns: 200 },
  );
});

test('exponent notation, signs and decimals read as numbers', () => {
  const p = parseFplll('[[1e3 -2.5E-1 +7]\n[.5 3. -0]\n]');
  assert.deepEqual(p.values, [
    [1000, -0.25, 7],
    [0.5, 3, 0],
  ]);
  assert.equal(p.integral, false);
  assert.ok(!Object.is(p.values[1]![2], -0));
});

test('basisFromRows / rowsFromBasis: fplll rows are our columns, data is the row-major flatten', () => {
  fc.assert(
    fc.property(matrixOf(safeInt), (values) => {
      const b = basisFromRows(values);
      assert.equal(b.cols, values.length); // basis vectors
      assert.equal(b.rows, values[0]!.length); // dimension
      assert.deepEqual(Array.from(b.data), values.flat());
      assert.deepEqual(rowsFromBasis(b), values);
      assert.deepEqual(parseFplll(formatFplll(b)).values, values);
      assert.deepEqual(Array.from(parseFplllBasis(formatFplll(values)).data), values.flat());
    }),
    { numRuns: 100 },
  );
});

test('JSON {"basis": rows} round-trips exactly', () => {
  fc.assert(
    fc.property(matrixOf(anyEntry), (values) => {
      const text = formatBasisJson(values);
      assert.deepEqual(JSON.parse(text), { basis: values });
      const p = parseBasisJson(text);
      assert.deepEqual(p.values, values);
      assert.equal(
        p.integral,
        values.every((r) => r.every(Number.isInteger)),
      );
    }),
    { numRuns: 200 },
  );
  assert.equal(errorOf(() => parseBasisJson('{"basis": [[1, 2], [3]]}')).code, 'SHAPE_MISMATCH');
  assert.equal(errorOf(() => parseBasisJson('{"basis": [[1, "x"]]}')).code, 'PARSE_ERROR');
  assert.equal(errorOf(() => parseBasisJson('{"basis": []}')).code, 'INVALID_INPUT');
  assert.equal(errorOf(() => parseBasisJson('[[1]]')).code, 'INVALID_INPUT');
  assert.equal(errorOf(() => parseBasisJson('{"basis": [[1, 2]')).code, 'PARSE_ERROR');
  assert.equal(errorOf(() => parseBasisJson('{"basis": [[9007199254740993]]}')).code, 'INVALID_INPUT');
});

test('a bad token anywhere is reported with its row, entry, line and column', () => {
  const bad = fc.constantFrom('abc', '1,', '--1', '0x10', '1e', '1.2.3', '2^5', 'e5');
  fc.assert(
    fc.property(matrixOf(fc.integer({ min: -99, max: 99 })), fc.nat(), bad, (values, pick, token) => {
      const i = pick % values.length,
        j = Math.floor(pick / values.length) % values[0]!.length;
      const rows = values.map((r) => r.map(String));
      rows[i]![j] = token;
      const text = `[${rows.map((r) => `[${r.join(' ')} ]\n`).join('')}]\n`;
      const e = errorOf(() => parseFplll(text));
      assert.equal(e.code, 'PARSE_ERROR');
      // where the token really is
      const line = i + 1;
      const column = (i === 0 ? 2 : 1) + rows[i]!.slice(0, j).reduce((s, t) => s + t.length + 1, 0) + 1;
      assert.deepEqual([e.details?.row, e.details?.entry, e.details?.line, e.details?.column], [i, j, line, column]);
      assert.match(e.message, new RegExp(`line ${line}, column ${column}`));
    }),
    { numRuns: 200 },
  );
});

test('integers beyond 2^53 are read exactly (bigValues, round trip), and refused where doubles are needed, naming the entry', () => {
  const big = fc.bigInt({ min: 2n ** 53n, max: 2n ** 700n });
  fc.assert(
    fc.property(matrixOf(fc.integer({ min: -9, max: 9 })), fc.nat(), big, fc.boolean(), (values, pick, v, neg) => {
      const i = pick % values.length,
        j = Math.floor(pick / values.length) % values[0]!.length;
      const rows = values.map((r) => r.map(String));
      const w = neg ? -v : v;
      rows[i]![j] = w.toString();
      const p = parseFplll(formatRows(rows));
      assert.equal(p.exact, false);
      assert.ok(p.integral && p.bigValues);
      assert.equal(p.bigValues[i]![j], w);
      assert.deepEqual(
        p.bigValues.map((r) => r.map(String)),
        rows,
      );
      // written back exactly, byte for byte in latticegen's style
      assert.equal(formatIntegerRows(p.bigValues, { style: 'latticegen' }), formatRows(rows));
      const e = errorOf(() => assertExactDoubles(p));
      assert.equal(e.code, 'INVALID_INPUT');
      assert.match(e.message, new RegExp(`row ${i}, column ${j}`));
      assert.equal(errorOf(() => parseFplllBasis(formatRows(rows))).code, 'INVALID_INPUT');
    }),
    { numRuns: 100 },
  );
  // a non-integer past 2^53 cannot be held exactly anywhere: refused
  assert.equal(errorOf(() => parseFplll('[[1e300 1]]')).code, 'INVALID_INPUT');
  assert.equal(errorOf(() => formatFplll([[2 ** 60]])).code, 'INVALID_INPUT');
});

function formatRows(rows: string[][]): string {
  return `[${rows.map((r) => `[${r.join(' ')}]`).join('\n')}]\n`;
}

test('malformed input gets typed errors saying what is wrong', () => {
  const cases: [string, string, RegExp][] = [
    ['', 'PARSE_ERROR', /empty input/],
    [' \n\t ', 'PARSE_ERROR', /empty input/],
    ['[[1 2]\n[3 4 5]\n]', 'SHAPE_MISMATCH', /row 1 \(line 2\) has 3 entries but row 0 \(line 1\) has 2/],
    ['[[1 2]\n[3 4]', 'PARSE_ERROR', /unbalanced brackets/],
    ['[[1 2]\n[3 4', 'PARSE_ERROR', /unbalanced brackets: input ends inside row 1/],
    ['[[1 2]]]', 'PARSE_ERROR', /after the '\]' closing the matrix/],
    ['[[1 [2]]]', 'PARSE_ERROR', /rows cannot nest/],
    ['[1 2]', 'PARSE_ERROR', /expected '\[' starting row 0/],
    ['1 2', 'PARSE_ERROR', /expected '\['/],
    ['[[]]', 'PARSE_ERROR', /row 0 .* is empty/],
    ['[]', 'PARSE_ERROR', /no rows/],
    ['[[1, 2], [3, 4]]', 'PARSE_ERROR', /non-numeric token '1,'/],
    ['[[1 nan]]', 'NON_FINITE', /row 0, column 1/],
    ['[[1 2]\n[-Inf 4]]', 'NON_FINITE', /line 2, column 2/],
    ['[[1 1e400]]', 'NON_FINITE', /not finite/],
    ['[[1 2]] trailing', 'PARSE_ERROR', /unexpected text 't'/],
  ];
  for (const [text, code, message] of cases) {
    const e = errorOf(() => parseFplll(text));
    assert.equal(e.code, code, `${JSON.stringify(text)}: ${e.message}`);
    assert.match(e.message, message, JSON.stringify(text));
  }
  assert.equal(errorOf(() => formatFplll([])).code, 'INVALID_INPUT');
  assert.equal(errorOf(() => formatFplll([[1, 2], [3]])).code, 'SHAPE_MISMATCH');
  assert.equal(errorOf(() => formatFplll([[1, Number.NaN]])).code, 'NON_FINITE');
  assert.equal(errorOf(() => rowsFromBasis(basisFromRows([[1]]), 1)).code, 'INVALID_INPUT');
});
