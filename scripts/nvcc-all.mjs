#!/usr/bin/env node
// Compiles every CUDA kernel under src/ and bench/ with nvcc (no GPU needed), so that a broken kernel
// fails CI: the library's kernels (one kernel per file; shared device code in .cuh headers, which
// are compiled through the files that include them) and the benchmarks' NVRTC kernels (the device
// ceilings; the measurement builds, patches of the production kernels, are compiled by
// test/gpu/traced-builds.test.ts).
//
// Each .cu file is compiled once per variant: the lines `// nvcc-variant: <flags>` in the file name
// the -D defines (and other flags) the host code compiles it with at run time through NVRTC; a file
// without such lines is compiled with -DREAL=float and -DREAL=double (the package's convention for
// the element type). Every compile uses -arch=sm_90 -cubin --std=c++17.
//
// nvcc pre-includes the CUDA runtime and C headers; NVRTC, which compiles the kernels at run time,
// does not. So each file is also checked for what only those headers give: #include of a system
// header, and macros such as NAN, INFINITY, M_PI, FLT_MAX, INT_MAX (write device functions or
// literals instead); such a use fails like a compile error.
//
// The compiles run side by side, one per core (--jobs=N to choose); the summary keeps file order.
//
// Usage: node scripts/nvcc-all.mjs [--resource-usage] [--arch=sm_90] [--jobs=N] [files...]
// Exits 1 when any compile or check fails (or nvcc is missing), after printing a summary.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { findCu, variantsOf } from './kernel-variants.mjs';

const args = process.argv.slice(2);
const resourceUsage = args.includes('--resource-usage');
const arch = (args.find((a) => a.startsWith('--arch=')) ?? '--arch=sm_90').slice('--arch='.length);
const jobsArg = args.find((a) => a.startsWith('--jobs='));
const jobs = jobsArg ? Number(jobsArg.slice('--jobs='.length)) : availableParallelism();
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`nvcc-all: --jobs must be a positive integer, got '${jobsArg.slice('--jobs='.length)}'`);
  process.exit(2);
}
const named = args.filter((a) => !a.startsWith('--'));
const nvcc = process.env.NVCC ?? 'nvcc';

/** Lines of a kernel file and of the files it includes with `#include "..."` (NVRTC gets them inlined). */
function sourceLines(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, i) => {
      const inc = /^\s*#\s*include\s*"([^"]+)"/.exec(text);
      return inc ? sourceLines(join(dirname(file), inc[1]), seen) : [{ file, line: i + 1, text }];
    });
}

/** Uses of host-header names that NVRTC does not know, as 'file:line: text'. */
function nvrtcProblems(file) {
  const bad =
    /(^\s*#\s*include\s*<)|\b(NAN|INFINITY|HUGE_VALF?|M_PI\w*|M_SQRT\w*|M_LN\w*|M_E|FLT_(MAX|MIN|EPSILON)|DBL_(MAX|MIN|EPSILON)|INT_(MAX|MIN)|UINT_MAX|LLONG_(MAX|MIN))\b/;
  return sourceLines(file)
    .filter(({ text }) => bad.test(text.replace(/\/\/.*$/, '')))
    .map(({ file: f, line, text }) => `${f}:${line}: ${text.trim()}`);
}

const probe = spawnSync(nvcc, ['--version'], { encoding: 'utf8' });
if (probe.error || probe.status !== 0) {
  console.error(
    `nvcc-all: cannot run '${nvcc}' (${probe.error?.message ?? probe.stderr.trim()}); set NVCC or put nvcc on PATH`,
  );
  process.exit(1);
}

// (under bench/, only the kernels it loads through NVRTC, which declare their variants; the other
// .cu files there are whole programs built by hand with nvcc, e.g. bench/col-lab)
const declaresVariants = (file) => /^\s*\/\/\s*nvcc-variant:/m.test(readFileSync(file, 'utf8'));
const files =
  named.length > 0
    ? named
    : [...findCu('src'), ...(existsSync('bench') ? findCu('bench').filter(declaresVariants) : [])];
/** One nvcc run: its exit status and everything it printed. */
function run(cmd) {
  return new Promise((resolve) => {
    const child = spawn(nvcc, cmd, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    child.stderr.on('data', (d) => {
      text += d;
    });
    child.on('error', (err) => resolve({ ok: false, text: err.message }));
    child.on('close', (status) => resolve({ ok: status === 0, text: text.trim() }));
  });
}

const outDir = mkdtempSync(join(tmpdir(), 'nvcc-all-'));
const results = [];
const compiles = [];
for (const file of files) {
  const problems = nvrtcProblems(file);
  results.push({ file, flags: 'NVRTC header check', ok: problems.length === 0, ms: 0 });
  if (problems.length > 0)
    console.error(`FAIL ${file}: names that NVRTC lacks (no host headers at run time)\n  ${problems.join('\n  ')}\n`);
  variantsOf(file).forEach((flags, v) => {
    const cubin = join(outDir, `${relative('.', file).replace(/[\\/]/g, '_')}.${v}.cubin`);
    const cmd = [
      `-arch=${arch}`,
      '-cubin',
      '--std=c++17',
      ...flags,
      ...(resourceUsage ? ['--resource-usage'] : []),
      '-o',
      cubin,
      file,
    ];
    const row = { file, flags: flags.join(' '), ok: false, ms: 0 };
    results.push(row);
    compiles.push({ row, cmd });
  });
}
try {
  let next = 0;
  const worker = async () => {
    while (next < compiles.length) {
      const { row, cmd } = compiles[next++];
      const t0 = Date.now();
      const r = await run(cmd);
      row.ok = r.ok;
      row.ms = Date.now() - t0;
      if (!r.ok) console.error(`FAIL ${row.file} ${row.flags}\n${r.text}\n`);
      else if (resourceUsage && r.text) console.log(`${row.file} ${row.flags}\n${r.text}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, compiles.length) }, worker));
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok);
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file} [${r.flags}] ${r.ms} ms`);
console.log(
  `nvcc-all: ${results.length - failed.length} of ${results.length} checks and compiles passed (${files.length} files, ${arch})`,
);
process.exit(failed.length > 0 ? 1 : 0);
