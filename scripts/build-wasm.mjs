// Compiles every AssemblyScript kernel (src/**/*.as.ts but the shared helpers, *.lib.as.ts) to a .wasm beside its compiled host code in
// dist/ (src/coding/wasm/x.as.ts -> dist/src/coding/wasm/x.wasm), with the assemblyscript package
// from npm: no native toolchain. The kernels take an imported memory laid out by their host and use
// no AssemblyScript runtime (stub runtime, no abort import), so a module's only import is env.memory.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import asc from 'assemblyscript/asc';

function sources(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    // (a *.lib.as.ts file holds helpers the kernels import: no module of its own)
    else if (name.endsWith('.as.ts') && !name.endsWith('.lib.as.ts')) out.push(path);
  }
  return out;
}

let failed = false;
for (const src of sources('src')) {
  const wasm = join('dist', src.replace(/\.as\.ts$/, '.wasm'));
  const { error, stderr } = await asc.main([
    src,
    '--outFile',
    wasm,
    '--optimizeLevel',
    '3',
    '--shrinkLevel',
    '0',
    '--runtime',
    'stub',
    '--importMemory',
    '--noAssert',
    '--use',
    'abort=',
    '--enable',
    'simd',
  ]);
  if (error) {
    process.stderr.write(`build-wasm: ${src}: ${error.message}\n${stderr.toString()}\n`);
    failed = true;
  }
}
if (failed) process.exit(1);
