/**
 * The sequential LLL on its WebAssembly kernel (lll-kernel.as.ts): float64 bases reduced a whole
 * basis a kernel step, a run of bases a call, with the reference's arithmetic operation for
 * operation (cpu.ts): the same bases, transforms and counts bit for bit. A basis the kernel hands
 * back (it left the common path: a breakdown, the double-double extension, a transform near 2^53,
 * the iteration limit, the modified Gram-Schmidt verification) is reduced by the reference from its
 * input by the caller, which gives the reference's result or error.
 */
import {
  LatticeMimoError,
  EngineUnavailableError,
  pickCpuKernel,
  sharedWasmKernel,
  withContext,
  type CpuKernel,
} from '../../core/index.js';
import type { AlgoParams, BasisStats } from '../types.js';
import type { CpuWasmKernel } from '../registry.js';
import { lllCpu } from './cpu.js';
import { reductionBound } from './gso.js';

const KERNEL_URL = new URL('./lll-kernel.wasm', import.meta.url);

/** The kernel's exports (pointers are byte offsets into its memory). */
interface LllKernelExports {
  reduceRun(
    count: number,
    n: number,
    m: number,
    data: number,
    zs: number,
    counts: number,
    status: number,
    work: number,
    delta: number,
    bound: number,
    maxIterations: number,
  ): number;
  workBytes(n: number, m: number): number;
  dotCols(a: number, c: number, len: number): number;
}

/** Bytes of bases and transforms a call of the kernel holds: a run stays in L2 (at least one basis). */
const RUN_BYTES = 256 * 1024;

/**
 * The most memory a basis may take in the kernel (its basis, transform and scratch): the thread keeps
 * the largest memory it was asked for, so a basis past this (m over about 2,800) runs the reference.
 */
const MAX_KERNEL_BYTES = 256 * 1024 * 1024;

/** Whether the kernel takes bases of n x m with these parameters (else the reference runs, and says what is wrong). */
export function lllKernelCovers(n: number, m: number, p: AlgoParams): boolean {
  return (
    Number.isInteger(n) &&
    Number.isInteger(m) &&
    m >= 2 &&
    n >= m &&
    8 * (n * m + m * m) + workBytes(n, m) <= MAX_KERNEL_BYTES &&
    p.delta > 0.25 &&
    p.delta < 1 &&
    p.eta >= 0.5 &&
    p.eta < Math.sqrt(p.delta) &&
    Number.isInteger(p.maxIterations) &&
    p.maxIterations >= 1
  );
}

/** The kernel's CpuWasmKernel.reduce (registry.ts): the caller checked lllKernelCovers(). */
export const lllWasm: CpuWasmKernel['reduce'] = (work, Z, count, n, m, p, stats, onRun) => {
  const size = n * m,
    mm = m * m;
  const cap = Math.max(1, Math.min(count, Math.floor(RUN_BYTES / (8 * (size + mm) + 13))));
  const at = layout(cap, n, m);
  const instance = sharedWasmKernel<LllKernelExports>(KERNEL_URL, at.work + workBytes(n, m));
  const k = instance.exports;
  if (k.workBytes(n, m) !== workBytes(n, m))
    throw new LatticeMimoError('CHECK_FAILED', 'lll-kernel: the host layout disagrees with the kernel');
  const buf = instance.buffer;
  const data = new Float64Array(buf, at.data, cap * size),
    zs = new Float64Array(buf, at.zs, cap * mm),
    counts = new Int32Array(buf, at.counts, 3 * cap),
    status = new Uint8Array(buf, at.status, cap);
  const bound = reductionBound(p.eta, work);
  for (let k0 = 0; k0 < count; k0 += cap) {
    const len = Math.min(cap, count - k0);
    data.set(work.subarray(k0 * size, (k0 + len) * size));
    k.reduceRun(len, n, m, at.data, at.zs, at.counts, at.status, at.work, p.delta, bound, p.maxIterations);
    for (let b = 0; b < len; b++) {
      if (status[b] !== 0) continue;
      work.set(data.subarray(b * size, (b + 1) * size), (k0 + b) * size);
      Z.set(zs.subarray(b * mm, (b + 1) * mm), (k0 + b) * mm);
      stats[k0 + b] = { iterations: counts[b]!, swaps: counts[len + b]!, sizeReductions: counts[2 * len + b]! };
    }
    onRun?.(k0, len);
  }
};

/**
 * The sequential LLL on `count` float64 bases in place, for another part's loop over many small
 * bases (no proof: reduce() proves). B holds count x n x m (basis k column-major at B[k n m ..]),
 * replaced by the reduced bases; Z receives count x m x m (basis k's unimodular transform,
 * column-major at Z[k m m ..], whatever it held), so that B_in Z = B_out. The WebAssembly kernel
 * runs where the one policy (core pickCpuKernel: p.cpuKernel, LATTICE_MIMO_WASM) says 'wasm-simd'
 * and it takes the shape (lllKernelCovers; p.cpuKernel 'wasm' where it does not:
 * EngineUnavailableError), one call for the whole batch; the reference (cpu.ts) reduces the rest and
 * each basis the kernel hands back, from its input. Either way the bases, transforms and `stats`
 * (per basis, when given) equal the reference's bit for bit; a basis the reference refuses throws
 * its error with the basis index in its context (`basis`). Returns the kernel that ran and how many
 * bases the reference redid; with `count` 0, the kernel a batch of this shape would run.
 */
export function lllBatchInPlace(
  B: Float64Array,
  Z: Float64Array,
  count: number,
  n: number,
  m: number,
  p: AlgoParams,
  stats?: BasisStats[],
): { kernel: CpuKernel; redoneInTypescript: number } {
  const size = n * m,
    mm = m * m;
  if (B.length < count * size || Z.length < count * mm)
    throw new LatticeMimoError(
      'SHAPE_MISMATCH',
      `lllBatchInPlace: ${count} bases of ${n} x ${m} need ${count * size} basis and ${count * mm} transform entries, got ${B.length} and ${Z.length}`,
    );
  const request = p.cpuKernel ?? 'auto';
  const wasm = pickCpuKernel(request, 'lllBatchInPlace') === 'wasm-simd' && lllKernelCovers(n, m, p);
  if (!wasm && request === 'wasm')
    throw new EngineUnavailableError(
      `lllBatchInPlace: cpuKernel 'wasm' asked for, and the kernel does not take ${n} x ${m} bases with these parameters`,
    );
  const done: (BasisStats | undefined)[] = new Array(count);
  if (wasm && count > 0) lllWasm(B.subarray(0, count * size), Z, count, n, m, p, done);
  let redone = 0;
  for (let k = 0; k < count; k++) {
    let s = done[k];
    if (!s) {
      const Zk = Z.subarray(k * mm, (k + 1) * mm);
      Zk.fill(0);
      for (let i = 0; i < m; i++) Zk[i * (m + 1)] = 1;
      try {
        s = lllCpu(B.subarray(k * size, (k + 1) * size), Zk, n, m, p);
      } catch (err) {
        throw withContext(err, { basis: k });
      }
      if (wasm) redone++;
    }
    if (stats) stats[k] = s;
  }
  return { kernel: wasm ? 'wasm-simd' : 'typescript', redoneInTypescript: redone };
}

/** Byte offsets of a run of `cap` bases in the kernel's memory (lll-kernel.as.ts's layout). */
function layout(cap: number, n: number, m: number) {
  const zs = cap * n * m * 8;
  const counts = zs + cap * m * m * 8;
  const status = counts + 12 * cap;
  return { data: 0, zs, counts, status, work: Math.ceil((status + cap) / 16) * 16 };
}

/** The kernel's scratch for one basis (its workBytes). */
function workBytes(n: number, m: number): number {
  return 8 * (3 * m * m + 6 * m + 18 + n + n * m) + 4 * (3 * m + 1) + 16;
}

/**
 * The kernel's dot product of a and c (its four partial sums, which every row, norm and Gram entry
 * goes through), for tests against columns.ts's dotCols.
 */
export function lllKernelDot(a: Float64Array, c: Float64Array): number {
  const len = a.length;
  const instance = sharedWasmKernel<LllKernelExports>(KERNEL_URL, 16 * len + 64);
  new Float64Array(instance.buffer, 0, len).set(a);
  new Float64Array(instance.buffer, 8 * len, len).set(c);
  return instance.exports.dotCols(0, 8 * len, len);
}

/**
 * One basis on the kernel with the coefficient rows mu and R (m x m row-major) as its run left
 * them, for tests against cpu.ts's lllCpuRows; null where the kernel handed the basis back.
 */
export function lllKernelRows(
  B: Float64Array,
  n: number,
  m: number,
  p: AlgoParams,
): { B: Float64Array; Z: Float64Array; stats: BasisStats; mu: Float64Array; R: Float64Array } | null {
  const Z = new Float64Array(m * m);
  const work = Float64Array.from(B);
  const stats: (BasisStats | undefined)[] = [];
  lllWasm(work, Z, 1, n, m, p, stats);
  if (!stats[0]) return null;
  // the run's scratch starts with G, then mu and R (lll-kernel.as.ts's reduceRun)
  const w = layout(1, n, m).work,
    mm = m * m;
  const buffer = sharedWasmKernel<LllKernelExports>(KERNEL_URL, 0).buffer;
  return {
    B: work,
    Z,
    stats: stats[0],
    mu: new Float64Array(buffer, w + 8 * mm, mm).slice(),
    R: new Float64Array(buffer, w + 16 * mm, mm).slice(),
  };
}
