// The CUDA kernel files of a tree and the builds each declares, shared by scripts/nvcc-all.mjs and
// bench/kernels/sass-snapshot.mjs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every .cu file under dir, sorted, recursively. */
export function findCu(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findCu(path));
    else if (name.endsWith('.cu')) out.push(path);
  }
  return out;
}

/**
 * The flags of each build a kernel file declares (`// nvcc-variant: <flags>` lines: the -D defines the
 * host compiles it with through NVRTC); without such lines, -DREAL=float and -DREAL=double.
 */
export function variantsOf(file) {
  const declared = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => /^\s*\/\/\s*nvcc-variant:\s*(.*)$/.exec(l))
    .filter(Boolean)
    .map((m) => m[1].trim().split(/\s+/).filter(Boolean));
  return declared.length > 0 ? declared : [['-DREAL=float'], ['-DREAL=double']];
}
