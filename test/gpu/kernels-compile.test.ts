/**
 * Every CUDA kernel compiles with nvcc for sm_90 (scripts/nvcc-all.mjs), so a broken kernel fails
 * CI, which has nvcc but no GPU. Skips, saying so, where nvcc or the repository's scripts are absent
 * (the packed copy that runs on the GPU machine compiles its kernels through NVRTC instead).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = `${root}scripts/nvcc-all.mjs`;

test('every .cu file compiles with nvcc -arch=sm_90', (t) => {
  const nvcc = spawnSync(process.env.NVCC ?? 'nvcc', ['--version'], { encoding: 'utf8' });
  if (nvcc.status !== 0) {
    t.skip(`nvcc not found: ${nvcc.error?.message ?? nvcc.stderr}`);
    return;
  }
  if (!existsSync(script)) {
    t.skip(`no ${script} (not a repository checkout)`);
    return;
  }
  const r = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  assert.equal(r.status, 0, `nvcc-all failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout + r.stderr, /kernel\.cu/);
});

// NVRTC's JIT mode (how the engine builds kernels) takes a generic lambda's call operator for a host
// function and refuses it; nvcc accepts the same code, so the nvcc build above cannot catch it.
test('kernel sources hold no generic lambdas (NVRTC refuses what nvcc accepts)', async (t) => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const src = `${root}src`;
  if (!existsSync(src)) {
    t.skip(`no ${src} (not a repository checkout)`);
    return;
  }
  const found: string[] = [];
  let files = 0;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.cuh?$/.test(entry.name)) continue;
    files++;
    const path = `${entry.parentPath}/${entry.name}`;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/\]\s*(?:__device__\s*)?\(\s*(?:const\s+)?auto\b/.test(line))
          found.push(`${path}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.ok(files > 20, `only ${files} kernel files found under ${src}`);
  assert.deepEqual(found, [], `generic lambdas in kernel code:\n${found.join('\n')}`);
});
