/**
 * A guard: no code in src/ decides anything from an error's words or rewrites them. Errors carry
 * `code`, `details` and `context` for programs (core/errors.ts); the words are composed once, by
 * formatMessage. The patterns are checked against the kinds of line they must catch and the kinds
 * they must let through, so the guard itself can fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

/** A receiver that holds an error's words: `x.message`, `(e as Error).message`, an error's `reason`. */
const WORDS = String.raw`(?:\.message\b|\b(?:e|err|error|cause)\)?\.reason\b)`;

const PATTERNS: [string, RegExp][] = [
  ['edits the words', new RegExp(`${WORDS}\\s*(?:\\+=|=(?![=>]))`)],
  [
    'reads the words with a string method',
    new RegExp(
      `${WORDS}\\)?\\s*\\.(?:replace|replaceAll|startsWith|endsWith|includes|match|matchAll|search|indexOf|lastIndexOf)\\(`,
    ),
  ],
  ['tests the words with a regular expression', new RegExp(`\\.(?:test|exec)\\([^)]*${WORDS}`)],
  ['splits a failure string', /\b(?:failure|reason|error)\.split\(/],
];

/** Lines the guard must flag: the kinds this project had. */
const MUST_FLAG = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a source line, quoted as data
  'if (e instanceof LatticeMimoError) e.message = `channel ${c}: ${e.message}`;',
  "err.message += ' (advice)';",
  "const base = e.message.startsWith('H') ? c * hLen : v * 2 * nr;",
  "e.message.replace(/at element \\d+/, 'x')",
  'if (!(err instanceof LatticeMimoError && /2\\^53/.test(err.message))) throw err;',
  "String((e as Error).message).includes('bench/')",
  "remedy(traits, run, failure ? failure.split(':')[0]! : 'CHECK_FAILED')",
  'if (err.reason.includes("lost")) return;',
];
/** Lines it must let through: words composed into new words, first lines taken for display, codes. */
const MUST_PASS = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a source line, quoted as data
  "throw new InvalidInputError('PARSE_ERROR', `input is not valid JSON: ${(err as Error).message}`);",
  'const msg = err instanceof Error ? err.message : String(err);',
  "if (err.code === 'PRECISION_FAILURE' && err.details?.boundBits === 53) throw err;",
  "const parts = spec.split(':');",
  'return { code: err.code, message: err.message };',
];

function offences(line: string): string[] {
  return PATTERNS.filter(([, re]) => re.test(line)).map(([what]) => what);
}

async function* sources(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

test('the guard flags the patterns it is for and lets the others through', () => {
  for (const line of MUST_FLAG) assert.ok(offences(line).length > 0, `not flagged: ${line}`);
  for (const line of MUST_PASS) assert.deepEqual(offences(line), [], `flagged: ${line}`);
});

test('no code in src/ parses or edits an error message', async () => {
  const found: string[] = [];
  let files = 0;
  for await (const file of sources(SRC)) {
    files++;
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      const what = offences(line);
      if (what.length > 0) found.push(`${file.slice(SRC.length + 1)}:${i + 1}: ${what.join(', ')}: ${line.trim()}`);
    });
  }
  assert.ok(files > 50, `read ${files} source files under ${SRC}`);
  assert.deepEqual(found, [], 'error messages parsed or edited (pass code, details and context instead)');
});
