/**
 * The lattice kernels run on the CPU through the CUDA emulator (cuda-emulator.ts), for machines
 * without a GPU (CI): each kernel must give the same Z, basis and counts as its CPU reference, bit
 * for bit, on fresh random bases, with G and Z in shared memory and in global scratch, several
 * block sizes, odd and even m, float64 and float32. Skips where g++ (C++20) is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertMatchesReference } from './match-reference.js';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { RealArray } from '../../src/core/matrix.js';
import { Philox } from '../../src/core/rng.js';
import { blockToeplitzBases, gaussianBases } from '../../src/lattice/generators.js';
import type { AlgoParams, CpuReducer } from '../../src/lattice/types.js';
import { jacobiParallelCpu } from '../../src/lattice/jacobi-parallel/cpu.js';
import { jacobiParallelPlan, jacobiRoundsOf } from '../../src/lattice/jacobi-parallel/cuda.js';
import { JACOBI_ROUNDS, type AllswapTuning, type JacobiTuning } from '../../src/lattice/gpu-tuning.js';
import type { DeviceProperties } from '../../src/gpu/context.js';
import { emulatedH100 } from './emulated-device.js';
import { STATUS, type LaunchPlan } from '../../src/lattice/gpu/batch.js';
import { allswapCpu } from '../../src/lattice/allswap/cpu.js';
import { allswapKernelUrl, allswapPlan } from '../../src/lattice/allswap/cuda.js';
import { compileEmulated, emulatorUnavailable, runEmulated, someCases } from './cuda-emulator.js';
import { proveOutput } from './prove-output.js';

const unavailable = emulatorUnavailable();
const skip = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;

const STATS_WIDTH = 5;
// the per-basis kernels run the papers' algorithms as they are: the reference without the CPU's drift watch
const PARAMS: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 10_000, driftWatch: false };

/**
 * The emulated program: reads [batch, n, m, maxIterations, threads, sharedBytes, gInShared,
 * zInShared, stageRows, preGram] (int32) and the bases, launches jacobi_gram over the batch when
 * preGram is set (16 x 16 tiles, 32 staged rows, as the host's plan), then one block per basis,
 * writes Bout, Zout and the stats.
 */
const JACOBI_MAIN = String.raw`
int main() {
  int h[10];
  if (fread(h, 4, 10, stdin) != 10) return 1;
  const int batch = h[0], n = h[1], m = h[2], maxIter = h[3], nt = h[4], shared = h[5], gs = h[6], zs = h[7], rows = h[8], pre = h[9];
  std::vector<real> B((size_t)batch * n * m), Bo((size_t)batch * n * m, (real)-1e30);
  if (fread(B.data(), sizeof(real), B.size(), stdin) != B.size()) return 1;
  std::vector<double> Z((size_t)batch * m * m, -1e30), Zs((size_t)batch * m * m, -1e30);
  std::vector<real> Gs((size_t)batch * m * (m | 1), (real)-1e30);
  std::vector<int> st((size_t)batch * 5, 0);
  const int T = (m + 15) / 16;
  if (pre && emu_launch(batch * T * T, dim3{256, 1, 1}, 2 * 32 * 16 * sizeof(real), [&] { jacobi_gram(B.data(), Gs.data(), n, m); })) return 2;
  if (emu_launch(batch, dim3{(unsigned)nt, 1, 1}, shared, [&] { jacobi_parallel(B.data(), Bo.data(), Z.data(), Zs.data(), Gs.data(), st.data(), n, m, maxIter, gs, zs, rows, pre); })) return 2;
  fwrite(Bo.data(), sizeof(real), Bo.size(), stdout);
  fwrite(Z.data(), 8, Z.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  return 0;
}
`;

/** An H100 as the launch plans see it, `sharedPerBlockOptinBytes` lowered to force other layouts. */
const device = (sharedLimit: number): DeviceProperties => emulatedH100({ sharedPerBlockOptinBytes: sharedLimit });

/** allswap: header [batch, n, m, maxIterations, threads, sharedBytes, wsInShared, wsBytes] and delta, bound (float64). */
const ALLSWAP_MAIN = String.raw`
int main() {
  int h[8]; double dp[2];
  if (fread(h, 4, 8, stdin) != 8 || fread(dp, 8, 2, stdin) != 2) return 1;
  const int batch = h[0], n = h[1], m = h[2], maxIter = h[3], nt = h[4], shared = h[5], inShared = h[6], ws = h[7];
  std::vector<real> B((size_t)batch * n * m), Bo((size_t)batch * n * m, (real)-1e30);
  if (fread(B.data(), sizeof(real), B.size(), stdin) != B.size()) return 1;
  std::vector<double> Z((size_t)batch * m * m, -1e30);
  std::vector<unsigned char> W((size_t)batch * ws + 16, 0xff);
  std::vector<int> st((size_t)batch * 5, 0);
  if (emu_launch(batch, dim3{(unsigned)nt, 1, 1}, shared, [&] { allswap(B.data(), Bo.data(), Z.data(), W.data(), st.data(), n, m, maxIter, dp[0], dp[1], inShared, ws); })) return 2;
  fwrite(Bo.data(), sizeof(real), Bo.size(), stdout);
  fwrite(Z.data(), 8, Z.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  return 0;
}
`;

/**
 * allswap_lane: header [batch, n, m, maxIterations, threads (= bases per block), sharedBytes,
 * zInShared, bInShared, scratch bytes per basis] and delta, bound (float64).
 */
const ALLSWAP_LANE_MAIN = String.raw`
int main() {
  int h[9]; double dp[2];
  if (fread(h, 4, 9, stdin) != 9 || fread(dp, 8, 2, stdin) != 2) return 1;
  const int batch = h[0], n = h[1], m = h[2], maxIter = h[3], nt = h[4], shared = h[5], zs = h[6], bs = h[7], scratch = h[8];
  std::vector<real> B((size_t)batch * n * m), Bo((size_t)batch * n * m, (real)-1e30);
  if (fread(B.data(), sizeof(real), B.size(), stdin) != B.size()) return 1;
  std::vector<double> Z((size_t)batch * m * m, -1e30);
  const int blocks = (batch + nt - 1) / nt;
  std::vector<unsigned char> W((size_t)blocks * nt * scratch + 16, 0xff);
  std::vector<int> st((size_t)batch * 5, 0);
  if (emu_launch(blocks, dim3{(unsigned)nt, 1, 1}, shared, [&] { allswap_lane(B.data(), Bo.data(), Z.data(), W.data(), st.data(), n, m, maxIter, dp[0], dp[1], zs, bs, batch); })) return 2;
  fwrite(Bo.data(), sizeof(real), Bo.size(), stdout);
  fwrite(Z.data(), 8, Z.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  return 0;
}
`;

const LANE_MEMORY = ['shared', 'z-global', 'global'] as const;

interface EmuKernel {
  name: string;
  cpu: CpuReducer;
  /** The kernel files the plan's kernels live in (included in this order). */
  kernelFiles(plan: LaunchPlan): string[];
  main: string;
  /**
   * The host's launch plan (the code the GPU path runs) for a thread count (0: the host's choice)
   * and shared-memory limit; `p` other params than PARAMS where a kernel's plan takes them.
   */
  plan(
    n: number,
    m: number,
    precision: 'float32' | 'float64',
    threads: number,
    sharedLimit: number,
    p?: AlgoParams,
  ): LaunchPlan;
  /** Launch variants [threads, shared-memory limit] covering every layout of the kernel. */
  variants(n: number, m: number, precision: 'float32' | 'float64'): Array<[number, number]>;
  /** Header ints after [batch, n, m, maxIterations, threads, sharedBytes], and float64 parameters. */
  header(plan: LaunchPlan): { ints: number[]; doubles: number[] };
}

const H100_SHARED = 232448;
/**
 * Added to a Jacobi launch variant's thread count: the rounds on a group of two warps
 * ('group-shared-permutation'); 'group-register-players' on a group of two warps (REG_MODE);
 * PRE_GRAM: G from jacobi_gram.
 */
const GROUP_MODE = 10000,
  REG_MODE = 20000,
  PRE_GRAM = 100000;
/**
 * 'group-halo' (several rounds per group barrier): HALO_MODE on three warps, two pairs per lane, at most
 * two rounds per barrier (blocks of rounds, halos that go stale); HALO_WIDE on two warps, one pair
 * per lane, the host's hops; HALO_THREE on two warps, three pairs per lane, four rounds per barrier.
 */
const HALO_MODE = 30000,
  HALO_WIDE = 40000,
  HALO_THREE = 50000;
const HALO_TUNING: Record<number, JacobiTuning> = {
  3: { group: 96, hops: 2, lanePairs: 2 },
  4: { group: 64, lanePairs: 1 },
  5: { group: 64, hops: 4, lanePairs: 3 },
};

const KERNELS: EmuKernel[] = [
  {
    name: 'jacobi-parallel',
    cpu: jacobiParallelCpu,
    kernelFiles: () =>
      ['gram', 'jacobi'].map((k) =>
        fileURLToPath(new URL(`../../src/lattice/jacobi-parallel/${k}-kernel.cu`, import.meta.url)),
      ),
    main: JACOBI_MAIN,
    // threads + GROUP_MODE: the rounds on a group of two warps ('group-shared-permutation', which the host picks from
    // 65 pairs on), else the host's mode (the first warp alone for these sizes)
    plan(n, m, precision, threads, sharedLimit) {
      const mode = Math.floor((threads % PRE_GRAM) / GROUP_MODE);
      const rounds = mode >= 1 ? JACOBI_ROUNDS[Math.min(mode, 3)]! : undefined;
      const jacobi: JacobiTuning = {
        ...(threads % GROUP_MODE > 0 ? { threads: threads % GROUP_MODE } : {}),
        ...(rounds ? { rounds, group: 64 } : {}),
        ...HALO_TUNING[mode],
        preGram: threads >= PRE_GRAM,
      };
      const plan = jacobiParallelPlan(n, m, precision, { ...PARAMS, gpuTuning: { jacobi } }, device(sharedLimit));
      if (mode >= 2) assert.equal(jacobiRoundsOf(plan), rounds, `${rounds} planned`);
      return plan;
    },
    variants(n, m, precision) {
      // everything in shared memory; G only (Z one byte short); neither; neither, and B staged
      // one row at a time for G = B^T B (the rounds on a first warp of 8 or 4 lanes, of 96 lanes);
      // the rounds on a group of two warps, with everything in shared memory and with neither
      const at = (limit: number) => this.plan(n, m, precision, 0, limit);
      const all = at(H100_SHARED).sharedBytes;
      const gOnly = all - 1;
      let none = gOnly;
      while (at(none).scratchBytesPerBasis[1] === 0) none -= 16;
      let tight = none;
      while (Number(at(tight).extraArgs[3]) > 1) tight -= 4;
      return [
        [0, H100_SHARED],
        [32, gOnly],
        [m > 8 ? 8 : 4, none],
        [96, tight],
        [GROUP_MODE + 96, H100_SHARED],
        [GROUP_MODE + 64, none],
        [REG_MODE + 96, H100_SHARED],
        [REG_MODE + 64, H100_SHARED],
        [PRE_GRAM + REG_MODE + 96, none],
        [PRE_GRAM + 0, H100_SHARED],
        [PRE_GRAM + 32, gOnly],
        [HALO_MODE + 128, H100_SHARED],
        [HALO_WIDE + 64, none],
        [PRE_GRAM + HALO_MODE + 96, H100_SHARED],
        [HALO_THREE + 64, H100_SHARED],
      ];
    },
    header: (plan) => ({ ints: plan.extraArgs.slice(1).map(Number), doubles: [] }),
  },
  {
    name: 'allswap',
    cpu: allswapCpu,
    kernelFiles: (plan) => [fileURLToPath(allswapKernelUrl(plan))],
    main: ALLSWAP_MAIN,
    // a negative shared limit: Z in global scratch, the rest in shared memory (the layout the host
    // picks for 64 x 64 bases, several per multiprocessor)
    plan(n, m, precision, threads, sharedLimit) {
      const allswap: AllswapTuning = {
        kernel: 'block',
        ...(threads > 0 ? { threads } : {}),
        ...(sharedLimit < 0 ? { blockMemory: 'z-global' as const } : {}),
      };
      return allswapPlan(
        n,
        m,
        precision,
        { ...PARAMS, gpuTuning: { allswap } },
        device(sharedLimit < 0 ? H100_SHARED : sharedLimit),
      );
    },
    // workspace in shared memory with the host's block size, with fewer threads than pairs, in
    // global memory, and Z alone in global memory with a block size that is a multiple of n and
    // one that is not
    variants: (n, m) => [
      [0, H100_SHARED],
      [m > 8 ? 8 : 4, H100_SHARED],
      [64, 0],
      [2 * n, -1],
      [n + 3, -1],
    ],
    header: (plan) => ({
      ints: [Number(plan.extraArgs[3]), Number(plan.extraArgs[4])],
      doubles: [Number(plan.extraArgs[1]), Number(plan.extraArgs[2])],
    }),
  },
  {
    name: 'allswap (column owners)',
    cpu: allswapCpu,
    kernelFiles: (plan) => [fileURLToPath(allswapKernelUrl(plan))],
    main: ALLSWAP_MAIN,
    // the block kernel's column-owner layout (-DCOL_N, the host's choice for 64 x 64); the second
    // number picks where Z and step 3's lists live (0: the host's choice, global scratch; 1: shared
    // memory; 2: everything in global scratch); no register cap (one module per size)
    plan(n, m, precision, threads, memory, p = PARAMS) {
      const allswap: AllswapTuning = {
        kernel: 'block',
        columnLayout: true,
        minBlocks: 0,
        ...(threads >= 4 * m ? { threads } : {}), // (the shared block sizes below may be too small)
        ...(memory === 1 ? { blockMemory: 'shared' as const } : memory === 2 ? { blockMemory: 'global' as const } : {}),
      };
      const plan = allswapPlan(n, m, precision, { ...p, gpuTuning: { allswap } }, device(H100_SHARED));
      assert.equal(plan.defines?.COL_N, n, 'column-owner layout planned');
      return plan;
    },
    // the host's block size (4 m rounded up to a warp), and one more warp of idle threads
    variants: (_n, m) => [
      [0, 0],
      [Math.ceil((4 * m) / 32) * 32 + 32, 1],
      [0, 2],
    ],
    header: (plan) => ({
      ints: [Number(plan.extraArgs[3]), Number(plan.extraArgs[4])],
      doubles: [Number(plan.extraArgs[1]), Number(plan.extraArgs[2])],
    }),
  },
  {
    name: 'allswap (one thread per basis)',
    cpu: allswapCpu,
    kernelFiles: (plan) => [fileURLToPath(allswapKernelUrl(plan))],
    main: ALLSWAP_LANE_MAIN,
    // threads = bases per block; the second number picks where the arrays live (plus 10: the
    // module specialised to the size, as the host compiles it; else the generic one)
    plan(n, m, precision, threads, memory) {
      const laneMemory = LANE_MEMORY[memory % 10];
      const allswap = {
        kernel: 'lane',
        laneThreads: threads,
        laneSpecialise: memory >= 10,
        ...(laneMemory ? { laneMemory } : {}),
      } as const;
      return allswapPlan(n, m, precision, { ...PARAMS, gpuTuning: { allswap } }, device(H100_SHARED));
    },
    // all in shared memory (one block of 32 lanes, mostly empty; specialised to the size for the
    // small sizes, which keeps the compiles few); Z, then everything in global scratch with one
    // basis per block (several blocks); blocks of 3 lanes, partly empty
    variants: (_n, m) => [
      [32, m <= 5 ? 10 : 0],
      [1, 1],
      [1, 2],
      [3, 2],
    ],
    header: (plan) => ({
      ints: [Number(plan.extraArgs[3]), Number(plan.extraArgs[4]), plan.scratchBytesPerBasis[0]!],
      doubles: [Number(plan.extraArgs[1]), Number(plan.extraArgs[2])],
    }),
  },
];

function runKernel(
  k: EmuKernel,
  precision: 'float32' | 'float64',
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  v: [number, number],
) {
  const plan = k.plan(n, m, precision, v[0], v[1]);
  const defines = Object.entries(plan.defines ?? {}).map(([name, value]) => `-D${name}=${value}`);
  const { exe, error } = compileEmulated(k.main, k.kernelFiles(plan), [
    `-DREAL=${precision === 'float32' ? 'float' : 'double'}`,
    ...defines,
  ]);
  if (error) throw new Error(error);
  const threads = typeof plan.threads === 'number' ? plan.threads : plan.threads[0] * plan.threads[1];
  const extra = k.header(plan);
  const header = new Int32Array([batch, n, m, PARAMS.maxIterations, threads, plan.sharedBytes, ...extra.ints]);
  const doubles = new Float64Array(extra.doubles);
  let out: Buffer;
  try {
    out = runEmulated(
      exe,
      Buffer.concat([
        Buffer.from(header.buffer),
        Buffer.from(doubles.buffer),
        Buffer.from(data.buffer, data.byteOffset, data.byteLength),
      ]),
    );
  } catch (e) {
    throw new Error(
      `${k.name}, n = ${n}, m = ${m}, ${precision}, launch ${v}: ${(e as Error).message} ${String((e as { stderr?: unknown }).stderr ?? '').slice(0, 500)}`,
    );
  }
  const eb = data.BYTES_PER_ELEMENT;
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength).slice();
  const basis =
    precision === 'float32'
      ? new Float32Array(bytes.buffer, 0, batch * n * m)
      : new Float64Array(bytes.buffer, 0, batch * n * m);
  const zOff = batch * n * m * eb;
  const Z = new Float64Array(bytes.slice(zOff, zOff + batch * m * m * 8).buffer);
  const stats = new Int32Array(bytes.slice(zOff + batch * m * m * 8).buffer);
  return { basis, Z, stats };
}

for (const k of KERNELS) {
  for (const precision of ['float64', 'float32'] as const) {
    test(`${k.name} kernel, emulated on the CPU, equals the CPU reference bit for bit (${precision})`, { skip }, () => {
      const seed = process.env.EMU_SEED ? Number(process.env.EMU_SEED) : randomInt(2 ** 40);
      const rng = new Philox(seed, 5);
      // Gaussian, odd and even m, m < n too
      for (const [n, m] of [
        [2 + rng.int(4), 2],
        [5 + rng.int(4), 5],
        [9 + rng.int(4), 8],
        [12 + rng.int(6), 11 + rng.int(2)],
      ]) {
        const g = gaussianBases({ batch: 2, n, m, seed: seed + n * 31 + m, precision });
        for (const v of someCases(k.variants(n, m, precision), rng)) {
          assertMatchesReference(
            k.cpu,
            PARAMS,
            `seed ${seed}, gaussian n = ${n}, m = ${m}, launch ${v}`,
            g.data,
            2,
            n,
            m,
            runKernel(k, precision, g.data, 2, n, m, v),
          );
        }
      }
      // block-Toeplitz, full and square; the square ones are often ill-conditioned (Jacobi's drift
      // and refreshes, all-swap's growth watch: about one 12 x 12 basis in five needs it)
      // (the column owners get taller bases too, up to 30 rows: several registers a lane, and
      // warps whose columns are disjoint from a banded pivot, which skip it)
      const fullBlocks = k.name.includes('column owners') ? 3 + rng.int(10) : 3 + rng.int(3);
      for (const [shape, batch, blocks] of [
        ['full', 2, fullBlocks],
        ['square', 12, 6],
      ] as const) {
        const t = blockToeplitzBases({ batch, blocks, blockSize: 2, taps: 2, shape, seed: seed + 7, precision });
        // (Jacobi: also 'group-register-players' across segments with G from jacobi_gram: its rounds with reductions)
        for (const v of k.name === 'jacobi-parallel'
          ? [64, PRE_GRAM + REG_MODE + 64, PRE_GRAM + HALO_MODE + 96, HALO_WIDE + 64, HALO_THREE + 64]
          : [64]) {
          assertMatchesReference(
            k.cpu,
            PARAMS,
            `seed ${seed}, block-Toeplitz ${shape} ${t.rows} x ${t.cols}, launch ${v}`,
            t.data,
            batch,
            t.rows,
            t.cols,
            runKernel(k, precision, t.data, batch, t.rows, t.cols, [v, H100_SHARED]),
          );
        }
      }
      // integer bases (the exact-arithmetic path) and large entries
      const n = 6 + rng.int(5),
        m = n - rng.int(2);
      const ints = precision === 'float32' ? new Float32Array(2 * n * m) : new Float64Array(2 * n * m);
      for (let i = 0; i < ints.length; i++) ints[i] = Math.round(rng.normal() * 40);
      for (const v of k.name === 'jacobi-parallel' ? [32, PRE_GRAM + REG_MODE + 32, HALO_MODE + 96] : [32]) {
        assertMatchesReference(
          k.cpu,
          PARAMS,
          `seed ${seed}, integer n = ${n}, m = ${m}, launch ${v}`,
          ints,
          2,
          n,
          m,
          runKernel(k, precision, ints, 2, n, m, [v, H100_SHARED]),
        );
      }
      // breakdowns: basis 0 with a column equal to an earlier one, basis 1 with a zero column
      const broken = ints.slice();
      broken.copyWithin((m - 2) * n, 0, n);
      broken.fill(0, n * m + n, n * m + 2 * n);
      assertMatchesReference(
        k.cpu,
        PARAMS,
        `seed ${seed}, dependent and zero columns n = ${n}, m = ${m}`,
        broken,
        2,
        n,
        m,
        runKernel(k, precision, broken, 2, n, m, [32, H100_SHARED]),
      );
    });
  }
}

// float32 arithmetic on the column owners (AlgoParams.float32Arithmetic 'float32', as the papers'
// float32 kernels): not the CPU reference's results, so each output is proven on its own (Z
// unimodular, B = B_in Z, LLL conditions of B_in Z in float64 with a float32-sized tolerance), and
// a phase must have run; a breakdown must be one that reduce() redoes in float64.
test('allswap (column owners) with float32 arithmetic, emulated on the CPU: every output is an LLL-reduced basis of its input', {
  skip,
}, () => {
  const seed = process.env.EMU_SEED ? Number(process.env.EMU_SEED) : randomInt(2 ** 40);
  const rng = new Philox(seed, 6);
  const owners = KERNELS.find((k) => k.name === 'allswap (column owners)')!;
  const f32: EmuKernel = {
    ...owners,
    plan(n, m, precision, threads, memory) {
      const plan = owners.plan(n, m, precision, threads, memory, { ...PARAMS, float32Arithmetic: 'float32' });
      assert.equal(plan.defines?.COL_F32_ARITH, 1, 'float32 arithmetic planned');
      return plan;
    },
  };
  const cases: Array<{ what: string; data: Float32Array; batch: number; n: number; m: number }> = [];
  for (const [n, m] of [
    [9 + rng.int(4), 8],
    [14 + rng.int(6), 12 + rng.int(2)],
  ]) {
    cases.push({
      what: `gaussian n = ${n}, m = ${m}`,
      data: gaussianBases({ batch: 3, n, m, seed: seed + n, precision: 'float32' }).data as Float32Array,
      batch: 3,
      n,
      m,
    });
  }
  const t = blockToeplitzBases({
    batch: 3,
    blocks: 4 + rng.int(8),
    blockSize: 2,
    taps: 2,
    shape: 'full',
    seed: seed + 3,
    precision: 'float32',
  });
  cases.push({
    what: `block-Toeplitz ${t.rows} x ${t.cols}`,
    data: t.data as Float32Array,
    batch: 3,
    n: t.rows,
    m: t.cols,
  });
  for (const c of cases) {
    const out = runKernel(f32, 'float32', c.data, c.batch, c.n, c.m, [0, 0]);
    for (let k = 0; k < c.batch; k++) {
      const what = `seed ${seed}, ${c.what}, basis ${k}`;
      const status = out.stats[k * STATS_WIDTH + 3]!;
      if (status !== 0) {
        // (the statuses reduce() redoes in float64 for a float32 run)
        assert.ok(
          ([STATUS.PRECISION_FAILURE, STATUS.RANK_DEFICIENT, STATUS.TRANSFORM_OVERFLOW] as number[]).includes(status),
          `${what}: status ${status}, not a float32 breakdown`,
        );
        continue;
      }
      assert.ok(out.stats[k * STATS_WIDTH]! >= 1, `${what}: no phase ran`);
      proveOutput(c.data, out, k, c.n, c.m, PARAMS, what);
    }
  }
});
