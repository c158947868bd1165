/**
 * Codes and encoders (fast-check over fresh random inputs):
 *  - every 802.16e rate-1/2 length (all 19) gives zero-syndrome codewords, systematic, linear, with
 *    shifts scaled as floor(p z / 96);
 *  - NR code blocks over random K, rates and both base graphs: 38.212's Zc (the smallest lifting
 *    size with Kb Zc >= K), fillers, zero syndrome, linearity, filler bits zero;
 *  - the base-matrix and alist readers read back what the writers write; malformed files get
 *    InvalidInputError(PARSE_ERROR) naming the problem, fuzzed files never anything but a typed error;
 *  - any parity check (random, possibly rank-deficient, or read from alist) gets a systematic GF(2)
 *    encoder: zero syndromes, k = n - rank (rank found independently), linear;
 *  - bad code requests (unknown family, K or rate outside 38.212) get InvalidArgumentError.
 */
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { InvalidArgumentError, InvalidInputError, IoError, LatticeMimoError } from '../../src/core/errors.js';
import { readAlistFile, readBaseMatrixFile } from '../../src/coding/files.js';
import { ldpcCode, nrCode, qcCode, sparseCode, wimaxCode } from '../../src/coding/code.js';
import { QcEncoder } from '../../src/coding/encoder.js';
import { NR_LIFTING_SETS, NR_MAX_K, nrCodeParams, nrSelectBaseGraph } from '../../src/coding/nr.js';
import {
  expandQc,
  formatAlist,
  formatBaseMatrix,
  liftBaseMatrix,
  parseAlist,
  parseBaseMatrix,
  syndromeWeight,
} from '../../src/coding/parity.js';
import { codeTableText, type CodeTableName } from '../../src/coding/tables.js';
import type { BaseMatrix } from '../../src/coding/types.js';
import { WIMAX_LENGTHS, wimaxBaseMatrix, wimaxRateHalfBase } from '../../src/coding/wimax.js';

const bitsArb = (k: number) => fc.uint8Array({ minLength: k, maxLength: k, min: 0, max: 1 });

/** Syndrome straight from the base matrix, block by block (independent of expandQc). */
function baseSyndrome(base: BaseMatrix, z: number, cw: Uint8Array): number {
  let bad = 0;
  for (let r = 0; r < base.rows; r++) {
    for (let i = 0; i < z; i++) {
      let x = 0;
      for (let c = 0; c < base.cols; c++) {
        const s = base.shifts[r * base.cols + c]!;
        if (s >= 0) x ^= cw[c * z + ((i + s) % z)]!;
      }
      bad += x;
    }
  }
  return bad;
}

test('802.16e: all 19 lengths give systematic zero-syndrome codewords, and the encoder is linear', () => {
  assert.equal(WIMAX_LENGTHS.length, 19);
  for (const n of WIMAX_LENGTHS) {
    const code = wimaxCode(n);
    const z = n / 24,
      base = wimaxBaseMatrix(n);
    assert.equal(code.k, n / 2);
    assert.equal(code.n, n);
    fc.assert(
      fc.property(bitsArb(code.k), bitsArb(code.k), (a, b) => {
        const ca = code.encode(a),
          cb = code.encode(b);
        assert.equal(baseSyndrome(base, z, ca), 0, `n = ${n}: nonzero syndrome`);
        assert.equal(syndromeWeight(code.H, ca), 0);
        assert.deepEqual(ca.subarray(0, code.k), a, 'not systematic');
        const sum = code.encode(a.map((v, i) => v ^ b[i]!));
        assert.deepEqual(
          sum,
          ca.map((v, i) => v ^ cb[i]!),
          `n = ${n}: encode(a + b) != encode(a) + encode(b)`,
        );
      }),
      { numRuns: 4 },
    );
  }
});

test('802.16e shift scaling: floor(p z / 96) for p > 0, zero blocks and 0 kept', () => {
  const raw = wimaxRateHalfBase();
  fc.assert(
    fc.property(fc.constantFrom(...WIMAX_LENGTHS), fc.nat(raw.shifts.length - 1), (n, at) => {
      const p = raw.shifts[at]!,
        s = wimaxBaseMatrix(n).shifts[at]!;
      const z = n / 24;
      assert.equal(s, p < 0 ? -1 : p === 0 ? 0 : Math.floor((p * z) / 96));
      assert.ok(s < z);
    }),
  );
  assert.deepEqual(wimaxBaseMatrix(2304).shifts, raw.shifts, 'n = 2304 (z = z0) uses the shifts as written');
});

test('NR: lifting size, fillers, base graph, and zero-syndrome linear codewords over random K and rates', () => {
  fc.assert(
    fc.property(
      fc.constantFrom<1 | 2 | undefined>(1, 2, undefined),
      fc.integer({ min: 1, max: 8448 }),
      fc.double({ min: 0.05, max: 0.95, noNaN: true }),
      fc.constantFrom(1, 2, 4, 6, 8),
      fc.nat(),
      (bgReq, K0, R, Qm, seed) => {
        const K = Math.min(K0, NR_MAX_K[bgReq ?? 2]);
        const p = nrCodeParams({ K, R, bg: bgReq, Qm });
        const bg = bgReq ?? nrSelectBaseGraph(K, K / p.E);
        assert.equal(p.bg, bg);
        const Kb = p.Kb;
        if (bg === 1) assert.equal(Kb, 22);
        else assert.equal(Kb, K > 640 ? 10 : K > 560 ? 9 : K > 192 ? 8 : 6);
        const all = NR_LIFTING_SETS.flat();
        assert.ok(Kb * p.Zc >= K, 'Kb Zc < K');
        assert.ok(
          !all.some((z) => z < p.Zc && Kb * z >= K),
          `Zc = ${p.Zc} is not the smallest lifting size for K = ${K}`,
        );
        assert.ok(NR_LIFTING_SETS[p.iLS]!.includes(p.Zc));
        assert.equal(p.Kldpc, (bg === 1 ? 22 : 10) * p.Zc);
        assert.equal(p.fillers, p.Kldpc - K);
        assert.equal(p.E % Qm, 0);
        assert.ok(p.E >= K / R - 1e-9 && p.E < K / R + Qm, `E = ${p.E} is not Qm ceil(K / (R Qm))`);
        // Codewords: only for moderate sizes per run to keep the test fast.
        if (p.nFull > 30000) return;
        const code = nrCode({ K, R, bg: bgReq, Qm });
        let state = seed >>> 0;
        const rnd = () => {
          state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
          return state >>> 31;
        };
        const a = new Uint8Array(K).map(rnd),
          b = new Uint8Array(K).map(rnd);
        const ca = code.encodeFull(a).slice(),
          cb = code.encodeFull(b).slice();
        assert.equal(syndromeWeight(code.H, ca), 0, `nonzero syndrome for K = ${K}, bg ${bg}, Zc ${p.Zc}`);
        assert.deepEqual(ca.subarray(0, K), a);
        assert.ok(
          ca.subarray(K, p.Kldpc).every((v) => v === 0),
          'filler bits are not zero',
        );
        const sum = code.encodeFull(a.map((v, i) => v ^ b[i]!));
        assert.deepEqual(
          sum,
          ca.map((v, i) => v ^ cb[i]!),
          'NR encoder not linear',
        );
      },
    ),
    { numRuns: 25 },
  );
});

test('NR: both base graphs at a random lifting size of every set encode to zero syndromes', () => {
  for (const bg of [1, 2] as const) {
    const table = parseBaseMatrix(codeTableText(bg === 1 ? 'nr-bg1' : 'nr-bg2'));
    NR_LIFTING_SETS.forEach((set, i) => {
      const z = fc.sample(fc.constantFrom(...set), 1)[0]!;
      const qc = liftBaseMatrix(table.sets[i]!, z);
      const enc = new QcEncoder(qc);
      const u = new Uint8Array(enc.k).map(() => (Math.random() < 0.5 ? 1 : 0));
      assert.equal(syndromeWeight(expandQc(qc), enc.encode(u)), 0, `bg ${bg} set ${i} z ${z}`);
    });
  }
});

test("the shipped tables parse to the standard's shapes (WiMAX 12 x 24; NR 46 x 68 and 42 x 52, 8 lifting-size sets)", () => {
  const wimax = parseBaseMatrix(codeTableText('wimax-2304-rate-1_2'));
  const bg1 = parseBaseMatrix(codeTableText('nr-bg1')),
    bg2 = parseBaseMatrix(codeTableText('nr-bg2'));
  assert.deepEqual([wimax.rows, wimax.cols, wimax.sets.length], [12, 24, 1]);
  assert.deepEqual(
    [bg1.rows, bg1.cols, bg1.sets.length, bg1.sets[0]!.shifts.filter((s) => s >= 0).length],
    [46, 68, 8, 316],
  );
  assert.deepEqual(
    [bg2.rows, bg2.cols, bg2.sets.length, bg2.sets[0]!.shifts.filter((s) => s >= 0).length],
    [42, 52, 8, 197],
  );
});

test('the shipped tables are the project data files (where the shared folder is present)', (t) => {
  const dir = ['/work/shared/data/ldpc', fileURLToPath(new URL('../../../../shared/data/ldpc', import.meta.url))].find(
    (d) => existsSync(d),
  );
  if (dir === undefined) {
    t.skip('the shared data folder (shared/data/ldpc) is not present');
    return;
  }
  for (const name of ['wimax-2304-rate-1_2', 'nr-bg1', 'nr-bg2'] as CodeTableName[]) {
    assert.equal(codeTableText(name), readFileSync(`${dir}/${name}.txt`, 'utf8'), name);
  }
});

test('readers: a written base matrix or alist file reads back the same matrix', () => {
  fc.assert(
    fc.property(fc.constantFrom(...WIMAX_LENGTHS), (n) => {
      const base = wimaxBaseMatrix(n),
        z = n / 24;
      const back = parseBaseMatrix(formatBaseMatrix(base, z));
      assert.equal(back.z, z);
      assert.deepEqual(back.sets[0]!.shifts, base.shifts);
      const H = wimaxCode(n).H;
      const H2 = parseAlist(formatAlist(H));
      assert.deepEqual([H2.m, H2.n], [H.m, H.n]);
      assert.deepEqual(H2.rowStart, H.rowStart);
      assert.deepEqual(H2.col, H.col);
    }),
    { numRuns: 5 },
  );
  // A random small QC code read from text encodes when its parity part is dual-diagonal.
  fc.assert(
    fc.property(
      fc.integer({ min: 2, max: 6 }),
      fc.integer({ min: 1, max: 6 }),
      fc.integer({ min: 2, max: 16 }),
      fc.nat(),
      (mb, kb, z, seed) => {
        let st = seed >>> 0;
        const rnd = (n: number) => {
          st = (Math.imul(st, 1664525) + 1013904223) >>> 0;
          return st % n;
        };
        const cols = mb + kb;
        const shifts = new Int32Array(mb * cols).fill(-1);
        for (let r = 0; r < mb; r++) for (let c = 0; c < kb; c++) if (rnd(2)) shifts[r * cols + c] = rnd(z);
        const x = rnd(z);
        shifts[kb] = x;
        shifts[(mb - 1) * cols + kb] = x; // h_b: top and bottom equal ...
        if (mb > 2)
          shifts[Math.floor(mb / 2) * cols + kb] = 0; // ... one in the middle
        else shifts[(mb - 1) * cols + kb] = -1; // two rows: [P^x I; 0 I]
        for (let r = 0; r < mb - 1; r++) {
          shifts[r * cols + kb + 1 + r] = 0;
          shifts[(r + 1) * cols + kb + 1 + r] = 0;
        }
        const text = formatBaseMatrix({ rows: mb, cols, shifts }, z);
        const code = qcCode(parseBaseMatrix(text).sets[0]!, z);
        const u = new Uint8Array(code.k).map(() => rnd(2));
        assert.equal(syndromeWeight(code.H, code.encode(u)), 0);
      },
    ),
    { numRuns: 60 },
  );
});

test('malformed base-matrix and alist files get InvalidInputError(PARSE_ERROR) naming the problem', () => {
  const bad: [string, RegExp][] = [
    ['', /no data lines/],
    ['12 24\n', /header must be 3 integers/],
    ['2 4 8\n0 1 -1 0\n', /expected either 2 lines/],
    ['2 4 8\n0 1 -1 0\n1 x 0 0\n', /'x' is not an integer/],
    ['2 4 8\n0 1 -1 0\n1 9 0 0\n', /shift 9 .* outside/],
    ['2 4 8\n0 1 -1 -2\n1 1 0 0\n', /shift -2/],
    ['4 2 8\n0 1\n1 1\n0 0\n1 0\n', /no information columns/],
    ['2 4 2\n0 0 1 2 3\n5 0 1 2 3\n', /outside 2 x 4/],
    ['2 4 2\n0 0 1 2 3\n0 0 1 2 3\n', /listed twice/],
  ];
  for (const [text, re] of bad) {
    assert.throws(
      () => parseBaseMatrix(text),
      (e: unknown) => e instanceof InvalidInputError && e.code === 'PARSE_ERROR' && re.test(e.message),
      `base matrix ${JSON.stringify(text)}`,
    );
  }
  const good = formatAlist(wimaxCode(576).H).split('\n');
  const badAlist: [string, RegExp][] = [
    ['3\n', /size line/],
    [good.slice(0, 10).join('\n'), /ends before/],
    [[...good.slice(0, 4), good[4]!.replace(/^\d+/, '999'), ...good.slice(5)].join('\n'), /index outside|should list/],
    [
      [...good.slice(0, 4), good[4]!.replace(/^(\d+) (\d+)/, '$1 $1'), ...good.slice(5)].join('\n'),
      /twice|should list/,
    ],
    [`${good.join('\n')}\n1 2 3\n`, /unexpected data/],
  ];
  for (const [text, re] of badAlist) {
    assert.throws(
      () => parseAlist(text),
      (e: unknown) => e instanceof InvalidInputError && e.code === 'PARSE_ERROR' && re.test(e.message),
      `alist ${text.slice(0, 40)}`,
    );
  }
  // Column and row lists that disagree.
  const H = { m: 2, n: 3, rowStart: Int32Array.from([0, 2, 4]), col: Int32Array.from([0, 1, 1, 2]) };
  const text = formatAlist(H).replace(/\n1 0\n/, '\n2 0\n');
  assert.throws(
    () => parseAlist(text),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'PARSE_ERROR',
  );
});

test('fuzzed base-matrix and alist files: parsed, or a typed error, never anything else', () => {
  const sources = [codeTableText('wimax-2304-rate-1_2'), codeTableText('nr-bg2'), formatAlist(wimaxCode(576).H)];
  fc.assert(
    fc.property(
      fc.nat(2),
      fc.array(fc.tuple(fc.nat(), fc.constantFrom('del', 'dup', 'x', '-7', '99999', '')), {
        minLength: 1,
        maxLength: 4,
      }),
      (which, edits) => {
        const lines = sources[which]!.split('\n');
        for (const [at, op] of edits) {
          const i = at % lines.length;
          if (op === 'del') lines.splice(i, 1);
          else if (op === 'dup') lines.splice(i, 0, lines[i]!);
          else {
            const toks = lines[i]!.split(' ');
            toks[at % toks.length] = op;
            lines[i] = toks.join(' ');
          }
        }
        const text = lines.join('\n');
        for (const parse of [parseBaseMatrix, parseAlist] as const) {
          try {
            parse(text);
          } catch (e) {
            assert.ok(e instanceof LatticeMimoError, `not a typed error: ${String(e)}`);
            assert.ok(e.code === 'PARSE_ERROR' || e.code === 'INVALID_ARGUMENT', e.code);
          }
        }
      },
    ),
    { numRuns: 150 },
  );
});

test('bad code requests get InvalidArgumentError naming the problem', () => {
  const cases: [() => unknown, RegExp][] = [
    [() => ldpcCode('turbo:100:1/3'), /unknown code/],
    [() => ldpcCode('wimax:2000'), /no rate-1\/2 code of length 2000/],
    [() => ldpcCode('wimax:2304:2/3'), /only the 802.16e rate-1\/2/],
    [() => ldpcCode('nr:bg1:9000:1/2'), /K = 9000 is outside 1 .. 8448/],
    [() => ldpcCode('nr:bg2:4000:1/2'), /K = 4000 is outside 1 .. 3840/],
    [() => ldpcCode('nr:bg3:100:1/2'), /base graph 'bg3'/],
    [() => ldpcCode('nr:bg1:1000:0.99'), /rate 0.99 is outside/],
    [() => ldpcCode('nr:bg1:1000:1/100'), /rate 0.01 is outside/],
    [() => ldpcCode('nr:bg1:1000:3/2'), /not a fraction in \(0, 1\)/],
    [() => ldpcCode('nr:bg1:0:1/2'), /option K must be an integer in \[1, /],
    [() => ldpcCode('nr:bg1:100:1/2', { Qm: 3 }), /option Qm must be one of 1, 2, 4, 6, 8, got 3/],
    [() => ldpcCode('wimax:576', { Qm: 2 }), /option 'Qm' does not apply/],
    [() => ldpcCode('nr:bg1:100:1/2', { qm: 2 } as never), /unknown option 'qm' \(did you mean 'Qm'\?\)/],
    [() => nrCode({ K: 5000, R: 0.2 }), /K = 5000 is outside 1 .. 3840 allowed for base graph 2/],
    [() => nrCode({ K: 100, R: 0.5, E: 200 }), /not both/],
  ];
  for (const [f, re] of cases) {
    assert.throws(
      f,
      (e: unknown) => e instanceof InvalidArgumentError && e.code === 'INVALID_ARGUMENT' && re.test(e.message),
      re.source,
    );
  }
  fc.assert(
    fc.property(fc.integer({ min: 8449, max: 1e6 }), (K) => {
      assert.throws(() => nrCode({ K, R: 0.5, bg: 1 }), InvalidArgumentError);
    }),
    { numRuns: 20 },
  );
  assert.throws(
    () => wimaxCode(2304).encode(new Uint8Array(5)),
    (e: unknown) => e instanceof InvalidInputError && e.code === 'SHAPE_MISMATCH',
  );
  assert.throws(
    () => wimaxCode(576).encode(new Uint8Array(288).fill(2)),
    (e: unknown) => e instanceof InvalidInputError && /not 0 or 1/.test(e.message),
  );
});

/** GF(2) rank of a dense 0/1 matrix given as rows of numbers (plain elimination, independent of GenericEncoder). */
function rankGf2(rows: number[][]): number {
  const a = rows.map((r) => r.slice());
  let rank = 0;
  const n = a[0]?.length ?? 0;
  for (let c = 0; c < n; c++) {
    const p = a.findIndex((r, i) => i >= rank && r[c] === 1);
    if (p < 0) continue;
    [a[rank], a[p]] = [a[p]!, a[rank]!];
    for (let i = 0; i < a.length; i++) if (i !== rank && a[i]![c] === 1) a[i] = a[i]!.map((v, j) => v ^ a[rank]![j]!);
    rank++;
  }
  return rank;
}

test('any parity check gets a systematic GF(2) encoder: zero syndromes, k = n - rank, linear', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 2, max: 40 }),
      fc.double({ min: 0.05, max: 0.6, noNaN: true }),
      fc.nat(),
      (m, n0, density, seed) => {
        const n = Math.max(n0, m + 1);
        let st = seed >>> 0;
        const rnd = () => {
          st = (Math.imul(st, 1664525) + 1013904223) >>> 0;
          return st / 2 ** 32;
        };
        const dense = Array.from({ length: m }, () => Array.from({ length: n }, () => (rnd() < density ? 1 : 0)));
        const rowStart = new Int32Array(m + 1),
          col: number[] = [];
        dense.forEach((r, i) => {
          r.forEach((v, j) => {
            if (v) col.push(j);
          });
          rowStart[i + 1] = col.length;
        });
        const H = { m, n, rowStart, col: Int32Array.from(col) };
        const code = sparseCode(H);
        assert.equal(code.k, n - rankGf2(dense), 'k is not n - rank H');
        const a = new Uint8Array(code.k).map(() => (rnd() < 0.5 ? 1 : 0)),
          b = new Uint8Array(code.k).map(() => (rnd() < 0.5 ? 1 : 0));
        const ca = code.encode(a),
          cb = code.encode(b);
        assert.equal(syndromeWeight(H, ca), 0);
        assert.deepEqual(
          code.encode(a.map((v, i) => v ^ b[i]!)),
          ca.map((v, i) => v ^ cb[i]!),
        );
        // The decoder hands back the information bits from their positions.
        const r = code.decoder({ algorithm: 'spa' }).decode(Float64Array.from(ca, (v) => (v ? -30 : 30)));
        assert.deepEqual(r.bits, a);
      },
    ),
    { numRuns: 80 },
  );
  const fromAlist = sparseCode(parseAlist(formatAlist(wimaxCode(672).H)), 'alist');
  assert.equal(fromAlist.k, 336);
  const u = new Uint8Array(336).map(() => (Math.random() < 0.5 ? 1 : 0));
  assert.equal(syndromeWeight(fromAlist.H, fromAlist.encode(u)), 0);
});

test('code files: read from disk like the text; a missing file is an IoError, bad content names the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lm-ldpc-'));
  try {
    const n = fc.sample(fc.constantFrom(...WIMAX_LENGTHS), 1)[0]!;
    const base = wimaxBaseMatrix(n),
      H = wimaxCode(n).H;
    writeFileSync(join(dir, 'b.txt'), formatBaseMatrix(base, n / 24));
    writeFileSync(join(dir, 'h.alist'), formatAlist(H));
    writeFileSync(join(dir, 'bad.txt'), '3 4\n');
    assert.deepEqual((await readBaseMatrixFile(join(dir, 'b.txt'))).sets[0]!.shifts, base.shifts);
    assert.deepEqual((await readAlistFile(join(dir, 'h.alist'))).col, H.col);
    await assert.rejects(
      readAlistFile(join(dir, 'missing.alist')),
      (e: unknown) => e instanceof IoError && /missing\.alist/.test(e.message),
    );
    await assert.rejects(
      readBaseMatrixFile(join(dir, 'bad.txt')),
      (e: unknown) =>
        e instanceof InvalidInputError && e.code === 'PARSE_ERROR' && e.message.startsWith(join(dir, 'bad.txt')),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
