// Copies the files the compiled code reads at run time (CUDA kernels) from src/ into dist/src/,
// keeping each beside the compiled host code that loads it.
import { cpSync, readdirSync, statSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';

function copyTree(from, to) {
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) copyTree(src, join(to, name));
    else if (name.endsWith('.cu') || name.endsWith('.cuh')) {
      mkdirSync(dirname(join(to, name)), { recursive: true });
      cpSync(src, join(to, name));
    }
  }
}
copyTree('src', join('dist', 'src'));
