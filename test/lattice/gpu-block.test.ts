/**
 * MB-LLL and CR-MB-LLL on the GPU (src/lattice/block/*-kernel.cu, cuda.ts). (1) The kernels through
 * the CUDA emulator (test/gpu/cuda-emulator.ts, runs wherever g++ has C++20): both schedulings
 * (the persistent kernel, and init / per-sub-basis / rest kernels driven by a host loop that
 * shrinks the launch like gpu-host-streams.ts) must equal blockCpu / crBlockCpu bit for bit on fresh
 * random bases. (2) On a CUDA device (skipped with the reason otherwise): both schedulings equal
 * the CPU references, pass checkLLL / checkUnimodular, and report typed errors naming the basis.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertMatchesReference } from '../gpu/match-reference.js';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { RealArray } from '../../src/core/matrix.js';
import { Philox } from '../../src/core/rng.js';
import { blockToeplitzBases, gaussianBases } from '../../src/lattice/generators.js';
import type { AlgoParams, CpuReducer } from '../../src/lattice/types.js';
import { blockCpu, crBlockCpu } from '../../src/lattice/block/cpu.js';
import {
  blockExtraArgs,
  blockThreads,
  reduceBatchCudaBlock,
  reduceBatchCudaCrBlock,
} from '../../src/lattice/block/cuda.js';
import { checkLLL, checkUnimodular } from '../../src/lattice/check.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const KERNELS = ['persistent', 'init', 'sub', 'rest'].map((k) =>
  fileURLToPath(new URL(`../../src/lattice/block/${k}-kernel.cu`, import.meta.url)),
);
const STATS_WIDTH = 5;

/** Header ints [batch, n, m, maxIter, threads, subThreads, size, mb, wsBytes, hostStreams], doubles [delta, bound]. */
const MAIN = String.raw`
int main() {
  int h[10]; double dp[2];
  if (fread(h, 4, 10, stdin) != 10 || fread(dp, 8, 2, stdin) != 2) return 1;
  const int batch = h[0], n = h[1], m = h[2], maxIter = h[3], nt = h[4], snt = h[5], size = h[6], mb = h[7], ws = h[8], host = h[9];
  std::vector<real> B((size_t)batch * n * m), Bo((size_t)batch * n * m, (real)-1e30);
  if (fread(B.data(), sizeof(real), B.size(), stdin) != B.size()) return 1;
  std::vector<double> Z((size_t)batch * m * m, -1e30);
  std::vector<unsigned char> W((size_t)batch * ws + 16, 0xff);
  std::vector<int> st((size_t)batch * 5, 0), active(batch), exch(batch, -1);
  if (!host) {
    if (emu_launch(batch, dim3{(unsigned)nt, 1, 1}, 0, [&] { block_persistent(B.data(), Bo.data(), Z.data(), W.data(), st.data(), n, m, maxIter, dp[0], dp[1], size, mb, ws); })) return 2;
  } else {
    // the host loop of gpu-host-streams.ts on one stream: launches shrink to the unfinished bases
    const int count = (m + size - 1) / size;
    int k = batch;
    for (int i = 0; i < batch; i++) active[i] = i;
    if (emu_launch(k, dim3{(unsigned)nt, 1, 1}, 0, [&] { block_init(B.data(), Bo.data(), Z.data(), W.data(), st.data(), active.data(), exch.data(), n, m, maxIter, dp[0], dp[1], size, mb, ws); })) return 2;
    for (int r = 0; r <= maxIter + 2; r++) {
      int j = 0;
      for (int i = 0; i < k; i++) if (exch[i]) active[j++] = active[i];
      k = j;
      if (k == 0) break;
      if (emu_launch(k * count, dim3{(unsigned)snt, 1, 1}, 0, [&] { block_sub(B.data(), Bo.data(), Z.data(), W.data(), st.data(), active.data(), exch.data(), n, m, maxIter, dp[0], dp[1], size, mb, ws); })) return 2;
      if (emu_launch(k, dim3{(unsigned)nt, 1, 1}, 0, [&] { block_rest(B.data(), Bo.data(), Z.data(), W.data(), st.data(), active.data(), exch.data(), n, m, maxIter, dp[0], dp[1], size, mb, ws); })) return 2;
    }
  }
  fwrite(Bo.data(), sizeof(real), Bo.size(), stdout);
  fwrite(Z.data(), 8, Z.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  return 0;
}
`;

type Scheduling = 'persistent' | 'host-streams';

function runEmu(
  mb: boolean,
  sched: Scheduling,
  p: AlgoParams,
  data: RealArray,
  batch: number,
  n: number,
  m: number,
  threads: number,
) {
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const { exe, error } = compileEmulated(MAIN, KERNELS, [`-DREAL=${precision === 'float32' ? 'float' : 'double'}`]);
  if (error) throw new Error(error);
  const [maxIter, delta, bound, size, mbFlag, ws] = blockExtraArgs(n, m, precision, p, mb);
  const header = new Int32Array([
    batch,
    n,
    m,
    maxIter,
    threads || blockThreads(m),
    threads || blockThreads(size),
    size,
    mbFlag,
    ws,
    sched === 'host-streams' ? 1 : 0,
  ]);
  const doubles = new Float64Array([delta, bound]);
  const out = runEmulated(
    exe,
    Buffer.concat([
      Buffer.from(header.buffer),
      Buffer.from(doubles.buffer),
      Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    ]),
  );
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength).slice();
  const eb = data.BYTES_PER_ELEMENT;
  const basis =
    precision === 'float32'
      ? new Float32Array(bytes.buffer, 0, batch * n * m)
      : new Float64Array(bytes.buffer, 0, batch * n * m);
  const zOff = batch * n * m * eb;
  return {
    basis,
    Z: new Float64Array(bytes.slice(zOff, zOff + batch * m * m * 8).buffer),
    stats: new Int32Array(bytes.slice(zOff + batch * m * m * 8).buffer),
  };
}

/** Fresh per run; replay a failure with EMU_SEED=<seed> (the seed its message names). */
const EMU_SEED = process.env.EMU_SEED ? Number(process.env.EMU_SEED) : undefined;

/** runEmu, its errors (a deadlocked program among them) prefixed with the case. */
function runEmuNamed(what: string, ...args: Parameters<typeof runEmu>): ReturnType<typeof runEmu> {
  try {
    return runEmu(...args);
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message}`);
  }
}

const ALGOS: Array<{ name: string; mb: boolean; cpu: CpuReducer }> = [
  { name: 'cr-block', mb: false, cpu: crBlockCpu },
  { name: 'block', mb: true, cpu: blockCpu },
];

for (const algo of ALGOS) {
  for (const precision of ['float64', 'float32'] as const) {
    test(`${algo.name} kernels, emulated, equal the CPU reference bit for bit (${precision}, both schedulings)`, {
      skip: skipEmu,
    }, () => {
      const seed = EMU_SEED ?? randomInt(2 ** 40);
      const rng = new Philox(seed, 11);
      const cases: Array<{ what: string; data: RealArray; batch: number; n: number; m: number; blockSize: number }> =
        [];
      for (const [n, m] of [
        [4 + rng.int(3), 4],
        [9 + rng.int(4), 9],
        [16 + rng.int(6), 14 + rng.int(3)],
      ]) {
        const blockSize = 2 + rng.int(Math.min(6, m - 1));
        cases.push({
          what: `gaussian ${n} x ${m}`,
          data: gaussianBases({ batch: 2, n, m, seed: seed + n * 31 + m, precision }).data,
          batch: 2,
          n,
          m,
          blockSize,
        });
      }
      const t = blockToeplitzBases({
        batch: 2,
        blocks: 3 + rng.int(3),
        blockSize: 2,
        taps: 2,
        shape: 'full',
        seed: seed + 7,
        precision,
      });
      cases.push({
        what: `block-Toeplitz ${t.rows} x ${t.cols}`,
        data: t.data,
        batch: 2,
        n: t.rows,
        m: t.cols,
        blockSize: 2 + rng.int(4),
      });
      const sq = blockToeplitzBases({
        batch: 3,
        blocks: 5,
        blockSize: 2,
        taps: 2,
        shape: 'square',
        seed: seed + 9,
        precision,
      });
      cases.push({
        what: `block-Toeplitz square ${sq.rows}`,
        data: sq.data,
        batch: 3,
        n: sq.rows,
        m: sq.cols,
        blockSize: 2 + rng.int(3),
      });
      for (const c of cases) {
        const p: AlgoParams = {
          delta: 0.75,
          eta: 0.51,
          blockSize: c.blockSize,
          maxIterations: 10_000,
          driftWatch: false,
        };
        for (const sched of ['persistent', 'host-streams'] as const) {
          const threads = sched === 'persistent' ? 0 : 8 + rng.int(3) * 8;
          const what = `seed ${seed}, ${c.what}, blockSize ${c.blockSize}, ${sched}`;
          assertMatchesReference(
            algo.cpu,
            p,
            what,
            c.data,
            c.batch,
            c.n,
            c.m,
            runEmuNamed(what, algo.mb, sched, p, c.data, c.batch, c.n, c.m, threads),
          );
        }
      }
    });
  }
}

test('block kernels, emulated: a transform overflow in the middle of a size reduction ends the whole block (a basis whose Z passes 2^53 in float32; both schedulings)', {
  skip: skipEmu,
}, () => {
  // three 10 x 10 block-Toeplitz bases where MB-LLL's Z passes 2^53 during a size reduction in
  // float32: a thread gone on to the next reduction could raise the flag before a slow one read
  // the last, and the block split over two barriers (the emulator deadlocked)
  const sq = blockToeplitzBases({
    batch: 3,
    blocks: 5,
    blockSize: 2,
    taps: 2,
    shape: 'square',
    seed: 1083554998489,
    precision: 'float32',
  });
  const p: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 2, maxIterations: 10_000, driftWatch: false };
  const Z = new Float64Array(100);
  for (let i = 0; i < 10; i++) Z[i * 11] = 1;
  assert.throws(
    () => blockCpu(sq.data.slice(100, 200), Z, 10, 10, p),
    (e: Error & { code?: string }) => e.code === 'UNSUPPORTED',
    'the case still overflows on the CPU',
  );
  for (const sched of ['persistent', 'host-streams'] as const) {
    const what = `block-Toeplitz square 10, blockSize 2, ${sched}`;
    assertMatchesReference(
      blockCpu,
      p,
      what,
      sq.data,
      3,
      10,
      10,
      runEmuNamed(what, true, sched, p, sq.data, 3, 10, 10, sched === 'persistent' ? 0 : 16),
    );
  }
});

// ---- on a CUDA device ----------------------------------------------------------------------------

async function deviceSkip(): Promise<string | false> {
  try {
    const { cudaAvailable } = await import('../../src/gpu/context.js');
    const a = cudaAvailable();
    return a.ok ? false : `no CUDA device: ${a.reason}`;
  } catch (e) {
    return `no CUDA device: ${(e as Error).message}`;
  }
}
const skipDev = await deviceSkip();
if (skipDev) console.log(`# gpu-block device tests skipped: ${skipDev}`);

const REDUCERS = { 'cr-block': reduceBatchCudaCrBlock, block: reduceBatchCudaBlock } as const;

/** The params with the scheduling chosen (AlgoParams.gpuTuning). */
function scheduled(sched: Scheduling, p: AlgoParams): AlgoParams {
  return { ...p, gpuTuning: { block: { scheduling: sched } } };
}

for (const algo of ALGOS) {
  for (const sched of ['persistent', 'host-streams'] as const) {
    test(`${algo.name} on the GPU (${sched}) equals the CPU reference and is LLL-reduced`, {
      skip: skipDev,
    }, async () => {
      const seed = randomInt(2 ** 40);
      const rng = new Philox(seed, 13);
      for (const precision of ['float64', 'float32'] as const) {
        const n = 8 + rng.int(40),
          m = Math.max(4, n - rng.int(4));
        const batch = 40 + rng.int(200);
        const p: AlgoParams = {
          delta: 0.75,
          eta: 0.51,
          blockSize: 2 + rng.int(Math.min(15, m - 1)),
          maxIterations: 10_000,
          driftWatch: false,
        };
        const g = gaussianBases({ batch, n, m, seed, precision });
        const got = await REDUCERS[algo.name as 'block'](g.data, batch, n, m, scheduled(sched, p));
        const what = `seed ${seed}, ${precision} gaussian ${n} x ${m}, batch ${batch}, blockSize ${p.blockSize}`;
        assertMatchesReference(
          algo.cpu,
          p,
          what,
          g.data,
          batch,
          n,
          m,
          { basis: got.basis, Z: got.Z, stats: statsWords(got.stats, batch) },
          got.stats.basisIsProduct,
        );
        for (let b = 0; b < batch; b++) {
          const B = Array.from(got.basis.subarray(b * n * m, (b + 1) * n * m));
          // float32 may stop after MAX_ROUNDS unverified, like the CPU reference (which it equals, above)
          if (precision === 'float64') assert.ok(checkLLL(B, n, m, p.delta, p.eta).ok, `${what}, basis ${b}: checkLLL`);
          assert.ok(
            checkUnimodular(got.Z.subarray(b * m * m, (b + 1) * m * m), m).ok,
            `${what}, basis ${b}: checkUnimodular`,
          );
        }
        const t = blockToeplitzBases({
          batch: 16,
          blocks: 4 + rng.int(8),
          blockSize: 2,
          taps: 3,
          shape: 'full',
          seed: seed + 3,
          precision,
        });
        const tg = await REDUCERS[algo.name as 'block'](t.data, 16, t.rows, t.cols, scheduled(sched, p));
        assertMatchesReference(
          algo.cpu,
          p,
          `seed ${seed}, ${precision} block-Toeplitz ${t.rows} x ${t.cols}`,
          t.data,
          16,
          t.rows,
          t.cols,
          { basis: tg.basis, Z: tg.Z, stats: statsWords(tg.stats, 16) },
          tg.stats.basisIsProduct,
        );
      }
    });

    test(`${algo.name} on the GPU (${sched}): typed errors name the basis`, { skip: skipDev }, async () => {
      const seed = randomInt(2 ** 40);
      const n = 10,
        m = 10,
        batch = 5;
      const p: AlgoParams = { delta: 0.75, eta: 0.51, blockSize: 3, maxIterations: 10_000, driftWatch: false };
      const g = gaussianBases({ batch, n, m, seed, precision: 'float64' });
      const bad = 1 + (seed % (batch - 1));
      const nan = g.data.slice();
      nan[bad * n * m + 7] = Number.NaN;
      await assert.rejects(
        REDUCERS[algo.name as 'block'](nan, batch, n, m, scheduled(sched, p)),
        (e: Error & { code?: string }) => e.code === 'NON_FINITE' && e.message.includes(`basis ${bad}`),
        `seed ${seed}: NaN in basis ${bad}`,
      );
      const dep = g.data.slice();
      dep.copyWithin(bad * n * m + n, bad * n * m, bad * n * m + n); // column 1 = column 0
      await assert.rejects(
        REDUCERS[algo.name as 'block'](dep, batch, n, m, scheduled(sched, p)),
        (e: Error & { code?: string }) => e.code === 'RANK_DEFICIENT' && e.message.includes(`basis ${bad}`),
        `seed ${seed}: dependent columns in basis ${bad}`,
      );
      await assert.rejects(
        REDUCERS[algo.name as 'block'](g.data, batch, n, m, scheduled(sched, { ...p, maxIterations: 1 })),
        (e: Error & { code?: string }) => e.code === 'ITERATION_LIMIT' && /basis \d+/.test(e.message),
        `seed ${seed}: iteration limit`,
      );
      await assert.rejects(
        REDUCERS[algo.name as 'block'](g.data, batch, n, m, scheduled(sched, { ...p, blockSize: 1 })),
        (e: Error & { code?: string }) => e.code === 'INVALID_ARGUMENT',
        'blockSize 1',
      );
    });
  }
}

/** The result's counts as the kernel's status words (status 0: the call returned). */
function statsWords(
  s: { iterations: Int32Array; swaps: Int32Array; sizeReductions: Int32Array },
  batch: number,
): Int32Array {
  const w = new Int32Array(batch * STATS_WIDTH);
  for (let b = 0; b < batch; b++) {
    w[b * 5] = s.iterations[b]!;
    w[b * 5 + 1] = s.swaps[b]!;
    w[b * 5 + 2] = s.sizeReductions[b]!;
  }
  return w;
}
