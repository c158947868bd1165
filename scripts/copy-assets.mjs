// Copies the files the compiled code reads at run time (CUDA kernels, their headers, the code tables,
// the benchmarks' kernel patches) from src/, bench/ and test/ into dist/, keeping each beside the
// compiled host code that loads it.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

function copyTree(from, to) {
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) copyTree(src, join(to, name));
    else if (['.cu', '.cuh', '.patch', '.txt'].some((ext) => name.endsWith(ext))) {
      mkdirSync(dirname(join(to, name)), { recursive: true });
      cpSync(src, join(to, name));
    }
  }
}
for (const part of ['src', 'bench', 'test']) if (existsSync(part)) copyTree(part, join('dist', part));
