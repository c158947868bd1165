/**
 * What NVRTC gets: every kernel file under src/ read as the runtime reads it (readKernelSource) has
 * no quoted #include left (NVRTC resolves none: each is inlined, trailing comment or not), and a
 * header included twice is inlined once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readKernelSource } from '../../src/gpu/module-cache.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

test('every kernel file reaches NVRTC with its quoted includes inlined', () => {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.cu'));
  assert.ok(files.length > 20, `kernel files found: ${files.length}`);
  for (const f of files) {
    const text = readKernelSource(pathToFileURL(join(SRC, f)));
    const left = text.split('\n').filter((l) => /^\s*#\s*include\s*"/.test(l));
    assert.deepEqual(left, [], `${f}: includes NVRTC cannot open`);
  }
});

test('a quoted include with a trailing comment is inlined, a header twice only once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kernel-src-'));
  try {
    writeFileSync(join(dir, 'h.cuh'), 'int header_line;\n');
    writeFileSync(join(dir, 'k.cu'), '#include "h.cuh"  // why it is here\n#include "h.cuh"\nint kernel_line;\n');
    const text = readKernelSource(pathToFileURL(join(dir, 'k.cu')));
    assert.equal(text.match(/header_line/g)?.length, 1);
    assert.match(text, /kernel_line/);
    assert.doesNotMatch(text, /#include/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
