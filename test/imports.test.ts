/**
 * The import rule of the package's parts (docs/ARCHITECTURE.md). Each folder under src/ is a part;
 * a module of one part reaches another part only through that part's index (`../mimo/index.js`),
 * never its internals, and only along the parts' layering: core below everything, the domain-free
 * CUDA runtime (gpu) on core, the parts on those, sim on the parts it joins, the CLI on top. No
 * module imports its own part's index (a cycle). WebAssembly kernels (`*.as.ts`, AssemblyScript),
 * which cannot load a TypeScript index, reach another part through its AssemblyScript libraries
 * (`src/<part>/wasm/*.lib.as.ts`) instead.
 * Static, dynamic (`import('...')`) and type-only imports all count. Tests and benchmarks may reach
 * anything.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));
const src = join(root, 'src');

/** The parts each part may import (through their indexes). */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  core: [],
  gpu: ['core'],
  lattice: ['core', 'gpu'],
  coding: ['core', 'gpu'],
  channels: ['core', 'gpu'],
  mimo: ['core', 'gpu', 'lattice'],
  sim: ['core', 'gpu', 'mimo', 'coding', 'channels'],
  receiver: ['core', 'gpu', 'mimo', 'coding', 'channels'],
  cli: ['core', 'gpu', 'lattice', 'mimo', 'coding', 'channels', 'sim', 'receiver'],
};

/** The bench part, which the CLI loads on demand (`lattice-mimo bench`) and which is not shipped. */
const CLI_LOADS_BENCH = /^bench\/(lattice|mimo|receiver)\/run\.js$/;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import of a source file: static, re-exports, dynamic and type-only. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('.'));
}

/** The part a path under the repository belongs to ('' for src/index.ts, null outside src/). */
function partOf(path: string): string | null {
  const rel = relative(src, path);
  if (rel.startsWith('..')) return null;
  const parts = rel.split(sep);
  return parts.length === 1 ? '' : parts[0]!;
}

test('every part reaches another only through its index, along the layers', (t) => {
  if (!existsSync(src)) {
    t.skip(`no ${src} (not a repository checkout)`);
    return;
  }
  const broken: string[] = [];
  const files = sources(src);
  for (const file of files) {
    const from = partOf(file)!;
    const here = relative(root, file);
    for (const spec of importsOf(file)) {
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      const to = partOf(target);
      const rel = relative(root, target).split(sep).join('/');
      if (to === null) {
        if (!(from === 'cli' && CLI_LOADS_BENCH.test(rel.replace(/\.ts$/, '.js')))) {
          broken.push(`${here}: imports ${rel}, outside src/`);
        }
        continue;
      }
      if (from === '') {
        if (to !== '' && rel !== `src/${to}/index.ts`)
          broken.push(`${here}: the package index imports ${rel}, not a part index`);
        continue;
      }
      if (to === from) {
        if (rel === `src/${from}/index.ts` && here !== rel)
          broken.push(`${here}: imports its own part's index (a cycle)`);
        continue;
      }
      if (to === '') {
        broken.push(`${here}: imports the package index`);
        continue;
      }
      const entry = here.endsWith('.as.ts')
        ? new RegExp(`^src/${to}/wasm/[^/]+\\.lib\\.as(\\.ts)?$`).test(rel)
        : rel === `src/${to}/index.ts`;
      if (!entry) broken.push(`${here}: imports ${rel}, an internal of part ${to}`);
      else if (!(LAYERS[from] ?? []).includes(to)) broken.push(`${here}: part ${from} may not import part ${to}`);
    }
  }
  assert.ok(files.length > 100, `found ${files.length} source files`);
  const unknown = [...new Set(files.map((f) => partOf(f)!))].filter((p) => p !== '' && !(p in LAYERS));
  assert.deepEqual(unknown, [], `parts without a layer in this test: ${unknown.join(', ')}`);
  assert.deepEqual(broken, [], `${broken.length} imports break the rule:\n${broken.join('\n')}`);
});
