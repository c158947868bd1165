/**
 * core/errors.ts: errors travel as typed codes, words and places. withContext gives a new error of
 * the same class whose message is formatMessage's composition of the place and the thrower's
 * words (outer places replace inner ones, a place the thrower named is not repeated); records
 * rebuild the same error after JSON, structured cloning and a worker thread; formatError is the
 * command line's one text for anything thrown.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import {
  asLibraryError,
  CheckFailedError,
  CudaError,
  describeError,
  errorFromRecord,
  errorRecord,
  type ErrorContext,
  formatError,
  formatMessage,
  InternalError,
  LatticeMimoError,
  NodeBudgetError,
  withContext,
} from '../../src/core/errors.js';
import { runOnWorkers } from '../../src/core/worker-pool.js';
import { MAKERS } from './error-makers.js';

const INDEX_KEYS = ['snrIndex', 'chunk', 'basis', 'channel', 'vector'] as const;
const CONTEXT_KEYS = ['file', 'snrIndex', 'snr', 'detector', 'chunk', 'basis', 'channel', 'vector'] as const;

const contextArb: fc.Arbitrary<ErrorContext> = fc.record(
  {
    file: fc.constantFrom('a.alist', 'dir/b.txt'),
    snrIndex: fc.nat(20),
    snr: fc.integer({ min: -10, max: 40 }),
    detector: fc.constantFrom('sphere', 'kbest K=8', 'zf'),
    chunk: fc.nat(50),
    basis: fc.nat(50),
    channel: fc.nat(50),
    vector: fc.nat(50),
  },
  { requiredKeys: [] },
);

test('withContext: a new error of the same class; the place composed before the words, the last value of a key wins, a place the thrower named is not repeated', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: MAKERS.length - 1 }),
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.record(
        { vector: fc.nat(50), basis: fc.nat(50), detector: fc.constantFrom('sphere', 'zf') },
        { requiredKeys: [] },
      ),
      fc.array(contextArb, { maxLength: 4 }),
      (which, reason, own, places) => {
        const [name, make] = MAKERS[which]!;
        const first = make(reason, { ...own, size: 3 });
        const frozen = { message: first.message, details: { ...first.details }, context: { ...first.context } };
        let e = first;
        for (const c of places) {
          const next = withContext(e, c, { extra: places.length });
          assert.ok(next !== e && next.cause === first, 'a new error, caused by the first');
          e = next;
        }
        assert.equal(e.constructor.name, name);
        assert.ok(e instanceof LatticeMimoError && e instanceof Error);
        assert.equal(e.name, first.name);
        assert.equal(e.code, first.code);
        assert.equal(e.reason, reason);
        if (first instanceof CudaError) assert.equal((e as CudaError).cudaError, 'CUDA_ERROR_OUT_OF_MEMORY');
        // the thrower's error is never edited
        assert.deepEqual(
          { message: first.message, details: { ...first.details }, context: { ...first.context } },
          frozen,
        );
        // a key is in the context once some place gave it a value other than the thrower's own
        for (const key of CONTEXT_KEYS) {
          const given = places.filter((c) => c[key] !== undefined).map((c) => c[key]);
          const thrower = (own as Record<string, unknown>)[key];
          if (given.some((v) => v !== thrower)) {
            assert.equal(e.context[key], given[given.length - 1], `context.${key}`);
            assert.equal(e.details?.[key], given[given.length - 1], `details.${key}`);
          } else assert.ok(!(key in e.context), `${key}: the thrower's own value is not repeated`);
        }
        assert.equal(e.details?.size, 3, "the thrower's details stay");
        assert.equal(e.message, formatMessage(reason, e.context));
        assert.ok(e.message.endsWith(reason));
        // the words of the place, in their order
        let at = 0;
        for (const key of INDEX_KEYS) {
          const v = e.context[key];
          if (v === undefined) continue;
          const word = key === 'snrIndex' ? `SNR point ${v}` : `${key} ${v}`;
          const found = e.message.indexOf(word, at);
          assert.ok(found >= at && found < e.message.length - reason.length, `'${word}' in order in: ${e.message}`);
          at = found + word.length;
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('formatMessage: the place in a fixed order, then the words; no place, the words alone', () => {
  const reason = 'the search reached the node budget';
  assert.equal(formatMessage(reason), reason);
  assert.equal(
    formatMessage(reason, { vector: 17, chunk: 3, detector: 'sphere', snr: 10, snrIndex: 2 }),
    `SNR point 2 (10 dB), detector sphere, chunk 3, vector 17: ${reason}`,
  );
  assert.equal(formatMessage(reason, { file: 'x.alist', channel: 4 }), `x.alist, channel 4: ${reason}`);
  assert.equal(formatMessage(reason, { snr: -3.5 }), `SNR -3.5 dB: ${reason}`);
});

test('withContext passes other thrown values through untouched', () => {
  const plain = new TypeError('not ours');
  assert.equal(withContext(plain, { vector: 1 }), plain);
  assert.equal(plain.message, 'not ours');
  assert.equal(withContext('a string', { vector: 1 }), 'a string');
});

test('records: JSON and structured cloning give back the same error (class, code, words, place, details)', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: MAKERS.length - 1 }),
      fc.string({ maxLength: 30 }),
      contextArb,
      fc.nat(1000),
      (which, reason, place, size) => {
        const [name, make] = MAKERS[which]!;
        const e = make(reason, { size }).withContext(place);
        for (const record of [structuredClone(errorRecord(e)), JSON.parse(JSON.stringify(errorRecord(e)))]) {
          const back = errorFromRecord(record);
          assert.equal(back.constructor.name, name);
          assert.ok(back instanceof LatticeMimoError && back instanceof Error);
          assert.deepEqual(
            [back.name, back.code, back.reason, back.message, back.details, { ...back.context }],
            [e.name, e.code, e.reason, e.message, e.details, { ...e.context }],
          );
          if (e instanceof CudaError) assert.equal((back as CudaError).cudaError, e.cudaError);
          assert.equal(record.message, e.message, "the record's message is the composed one");
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('an error thrown in a worker thread comes back of its class, with its place and details', async () => {
  const cases = Array.from({ length: 6 }, (_, i) => ({
    which: (i * 5 + Math.floor(Math.random() * MAKERS.length)) % MAKERS.length,
    vector: Math.floor(Math.random() * 1000),
    chunk: Math.floor(Math.random() * 1000),
  }));
  for (const c of cases) {
    await assert.rejects(runOnWorkers(new URL('./throwing-worker.js', import.meta.url), [c], 1), (e: unknown) => {
      const [name, make] = MAKERS[c.which]!;
      const want = make(`worker ${c.which}`, { size: c.which }).withContext({ vector: c.vector, chunk: c.chunk });
      assert.ok(e instanceof LatticeMimoError, String(e));
      assert.equal(e.constructor.name, name);
      assert.equal(e.message, want.message);
      assert.deepEqual({ ...e.context }, { chunk: c.chunk, vector: c.vector });
      assert.deepEqual(e.details, want.details);
      return true;
    });
  }
});

test('formatError: the one text of the command line for anything thrown', async () => {
  const typed = new NodeBudgetError('reached it', { maxNodes: 5 }).withContext({ detector: 'psd', vector: 9 });
  assert.equal(formatError(typed), 'error [NODE_BUDGET]: detector psd, vector 9: reached it');
  const missing = await readFile('/nonexistent/lattice-mimo').catch((e: unknown) => e);
  assert.deepEqual(describeError(missing), { code: 'IO_ERROR', message: (missing as Error).message });
  let parse: unknown;
  try {
    parseArgs({ args: ['--bogus'], options: {}, strict: true });
  } catch (e) {
    parse = e;
  }
  assert.equal(describeError(parse).code, 'INVALID_ARGUMENT');
  assert.equal(formatError(new RangeError('bad')), 'error [INTERNAL]: bad');
  assert.equal(formatError('thrown text'), 'error [INTERNAL]: thrown text');
});

test('asLibraryError: library errors as they are, anything else an InternalError with it as the cause', () => {
  const typed = new CheckFailedError('nope');
  assert.equal(asLibraryError(typed), typed);
  const plain = new Error(`worker exited with code ${1 + Math.floor(Math.random() * 100)}`);
  const wrapped = asLibraryError(plain);
  assert.ok(wrapped instanceof InternalError);
  assert.equal(wrapped.code, 'INTERNAL');
  assert.equal(wrapped.message, plain.message);
  assert.equal(wrapped.cause, plain);
  const placed = wrapped.withContext({ chunk: 4 }).withContext({ snrIndex: 1 });
  assert.ok(placed instanceof InternalError);
  assert.equal(placed.message, `SNR point 1, chunk 4: ${plain.message}`);
  assert.equal(placed.cause, plain, 'the cause stays what was thrown');
});
