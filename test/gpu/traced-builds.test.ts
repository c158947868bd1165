/**
 * The benchmarks' measurement builds (bench/kernels/traced.ts) are the production kernels with a
 * patch: every patch still applies to the production source, the result holds the instrumentation
 * and nothing of it leaks into production, and it compiles with nvcc (skipped without nvcc). The
 * patch applier places hunks by content and refuses a hunk that does not fit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { readKernelSource } from '../../src/gpu/module-cache.js';
import { applyPatch, productionUrl, tracedSource } from '../../bench/kernels/traced.js';

const NWAY = '-DNW_NR=4 -DNW_NT=4 -DNW_DPS=2 -DNW_SOFT=1 -DNW_IM_BITS1=0x0ull -DNW_RE_BITS1=0x0ull';
const BUILDS = {
  grid: {
    switches: ['GRID_TRACE', 'GRID_TRACE_COUNTS', 'GRID_GS_INLINE'],
    flags: [
      ['-DREAL=float', '-DGRID_N=130', '-DGRID_TRACE=4096'],
      [
        '-DREAL=double',
        '-DGRID_N=131',
        '-DGRID_TRACE=4096',
        '-DGRID_TRACE_COUNTS=1',
        '-DGRID_BLOCK=2',
        '-DGRID_BLOCK_SIZE=8',
        '-DGRID_GS_INLINE=1',
      ],
    ],
  },
  column: {
    switches: ['COL_PROFILE', 'COL_NO_SUPPORT', 'COL_NO_FASTDIV'],
    flags: [
      [
        '-DREAL=float',
        '-fmad=false',
        '-DCOL_N=68',
        '-DCOL_SMEM=1',
        '-DALLSWAP_THREADS=256',
        '-DALLSWAP_MIN_BLOCKS=3',
        '-DCOL_PROFILE=1',
      ],
      ['-DREAL=float', '-fmad=false', '-DCOL_N=66', '-DCOL_NO_SUPPORT=1', '-DCOL_NO_FASTDIV=1'],
    ],
  },
  nway: {
    switches: ['NW_MODE'],
    flags: [
      [
        ...NWAY.split(' '),
        '-DNW_QL=8',
        '-DNW_PASSES=4',
        '-DNW_VPB=4',
        '-DNW_COPIES=8',
        '-DNW_MODE=2',
        '-DNW_MINB=1',
        '-DNW_RE_BITS0=0xa0800022220282aull',
        '-DNW_IM_BITS0=0x504000111101415ull',
      ],
      [
        ...NWAY.split(' '),
        '-DNW_QL=4',
        '-DNW_PASSES=1',
        '-DNW_VPB=32',
        '-DNW_COPIES=4',
        '-DNW_MODE=1',
        '-DNW_MINB=6',
        '-DNW_RE_BITS0=0x200080aull',
        '-DNW_IM_BITS0=0x1000405ull',
      ],
    ],
  },
  ldpc: {
    switches: ['REMAT'],
    flags: [
      '-DZ=96 -DNCOLS=24 -DNLAYERS=2 -DNEDGES=4 -DMAXDEG=2 -DQC_TABLE=0_3_5_0_1_7_23_95 -DQC_START=0_2_4 -DK_INFO=1152 -DFPB=2 -DALGO=0 -DALPHA_Q=192 -DBETA_Q=0 -DSAT_Q=1024 -DSAT=64.0 -DLLR_INT=0 -DEARLY_STOP=1 -DREMAT=1'.split(
        ' ',
      ),
    ],
  },
} as const;

test('every measurement build applies to its production kernel, adds its switches, and production has none of them', () => {
  for (const [name, b] of Object.entries(BUILDS)) {
    const production = readKernelSource(productionUrl(name as keyof typeof BUILDS));
    const traced = tracedSource(name as keyof typeof BUILDS);
    for (const s of b.switches) {
      assert.ok(traced.includes(s), `${name}: ${s} in the measurement build`);
      assert.ok(!production.includes(s), `${name}: ${s} not in the production kernel`);
    }
  }
});

test('applyPatch places a hunk by its content and refuses one that does not fit', () => {
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 4, maxLength: 30 }),
      fc.nat(),
      fc.string({ maxLength: 8 }).filter((s) => !s.includes('\n')),
      (words, at, added) => {
        const lines = words.map((w, i) => `${i}:${w}`); // (unique lines)
        const i = 1 + (at % (lines.length - 2));
        const patch = `--- a\n+++ b\n@@ -1,3 +1,3 @@\n ${lines[i - 1]}\n-${lines[i]}\n+${added}\n ${lines[i + 1]}\n`;
        const out = applyPatch(`head\n${lines.join('\n')}\ntail`, patch).split('\n');
        assert.deepEqual(out, ['head', ...lines.slice(0, i), added, ...lines.slice(i + 1), 'tail']);
        assert.throws(
          () => applyPatch(lines.filter((_, k) => k !== i).join('\n'), patch, 'p'),
          /p: hunk 1 does not match/,
        );
        assert.throws(
          () => applyPatch(`${lines.join('\n')}\n${lines.join('\n')}`, patch, 'p'),
          /p: hunk 1 matches more than once/,
        );
      },
    ),
  );
});

test('the measurement builds compile with nvcc -arch=sm_90', (t) => {
  const nvcc = spawnSync(process.env.NVCC ?? 'nvcc', ['--version'], { encoding: 'utf8' });
  if (nvcc.status !== 0) {
    t.skip(`nvcc not found: ${nvcc.error?.message ?? nvcc.stderr}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'traced-'));
  try {
    for (const [name, b] of Object.entries(BUILDS)) {
      const file = join(dir, `${name}.cu`);
      writeFileSync(file, tracedSource(name as keyof typeof BUILDS));
      for (const flags of b.flags) {
        const r = spawnSync(
          process.env.NVCC ?? 'nvcc',
          ['-arch=sm_90', '-cubin', '--std=c++17', ...flags, '-o', join(dir, `${name}.cubin`), file],
          { encoding: 'utf8' },
        );
        assert.equal(r.status, 0, `${name} ${flags.join(' ')}:\n${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
