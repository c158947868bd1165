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
  if (nvcc.status !== 0) { t.skip(`nvcc not found: ${nvcc.error?.message ?? nvcc.stderr}`); return; }
  if (!existsSync(script)) { t.skip(`no ${script} (not a repository checkout)`); return; }
  const r = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  assert.equal(r.status, 0, `nvcc-all failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout + r.stderr, /kernel\.cu/);
});
