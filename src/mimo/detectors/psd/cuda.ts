/**
 * The Parallel Sphere Detector on the GPU (Jozsa et al., ICCS 2013): exact ML in float32, the CPU
 * engine's tree walk (cpu.ts) and conventions (the RVD model, sorted QR, level and symbol indices).
 *
 * Two kernels a chunk: psd-prep.cu (a lane a column, n lanes a channel: RVD and sorted QR in
 * float64, the CPU's column order, into the scratch region, PSD_FAC_WORDS floats a channel) and
 * the search, in one of two mappings (opts.psd.gpuMapping):
 *  - 'warp' (default): psd-warp.cu, a group of 1 to 32 lanes a vector (psdAutoLanes), several
 *    vectors a warp and a block; a buffer's next chunk is found by an argmin over the group instead
 *    of a sort (measured faster, see bench/mimo/gpu-psd.ts);
 *  - 'block': psd-block.cu, the paper's mapping: a block a vector, a thread a node, bitonic sort.
 * Both visit the nodes the CPU visits (up to float32 near-ties) and honour the node budget as it
 * does: past maxNodes, once a leaf is held, the vector gets MIMO_STATUS.NODE_BUDGET and its best leaf.
 */
import { InvalidArgumentError, UnsupportedError } from '../../../core/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../../gpu/index.js';
import type { CudaDetector, CudaDetectorPlan, CudaDetectorSetup, DetectChunk } from '../../gpu/cuda-detector.js';
import { normalizeArgs, summaryArgs } from '../../gpu/fused-stages.js';
import { realModel, type RealModel } from '../../preprocess/real-system.js';
import { psdConfig, psdGpuMapping, type PsdConfig, type PsdGpuMapping } from './config.js';

/** Warps a block of the warp mapping: the fastest of bench/mimo/gpu-psd.ts's sweep. */
const DEFAULT_WARPS = 2;

/**
 * Lanes a vector of the warp mapping, from H100 measurements (bench/mimo/gpu-psd.ts): small
 * trees want few lanes (more vectors a warp share its instructions: 2x2 1 lane, 4x4 QPSK 4);
 * large ones want many, since a warp's vectors step together and the slowest one (the long tail
 * of an 8x8 16-QAM or 4x4 64-QAM search) holds the others (32 lanes there). 8x8 QPSK is fastest
 * with 8; 4x4 16-QAM gets 8 as the compromise between 20 dB (4 lanes fastest, 8 within 6%) and
 * 10 dB (8 lanes 1.4x faster than 4, 32 faster still). Chosen by the size of the exhaustive tree,
 * n log2 q bits; then more lanes where a warp's vectors would take over half the block's shared
 * memory.
 */
export function psdAutoLanes(n: number, q: number, vectorBytes = 0, sharedLimit = Infinity): number {
  const bits = n * Math.log2(q);
  let lanes = bits <= 8 ? (n <= 4 ? 1 : 4) : bits <= 16 ? 8 : 32;
  while (lanes < 32 && (32 / lanes) * vectorBytes > sharedLimit / 2) lanes *= 2;
  return lanes;
}

const PREP_THREADS = 128;

/** Floats of psd_prep's factors per channel (psd-common.cuh: Q^T, R, perm, flags; padded to 4). */
export function psdFactorWords(n: number, m: number): number {
  return Math.ceil((n * m + n * n + n + 1) / 4) * 4;
}

/** Lanes a channel of psd_prep: n rounded up to a power of two (4 .. 32), a lane a column. */
export function psdPrepLanes(n: number): number {
  let l = 4;
  while (l < n) l *= 2;
  return l;
}

const pow2 = (e: number): number => {
  let p = 1;
  while (p < e) p *= 2;
  return p;
};

/** Shared bytes of one vector's state in psd-warp.cu (PsdWarp field by field, padded to PSD_WARP_STRIDE: an odd number of words). */
export function psdWarpSharedBytes(n: number, c: PsdConfig): number {
  const S = c.levels.length - 1;
  const pmax = Math.max(...c.paths),
    wmax = Math.max(...c.levels.slice(1).map((l, i) => c.levels[i]! - l));
  const buf = S > 1 ? c.expanded.slice(1, S).reduce((a, b) => a + b, 0) : 1;
  const words = n * n + n + buf + (S + 1) * pmax * wmax + (S + 1) * pmax + n + Math.ceil(((S + 1) * pmax * n + n) / 4);
  return 4 * (words | 1);
}

/** Shared bytes of the PsdBlock of psd-block.cu for `threads` threads. */
export function psdBlockSharedBytes(n: number, c: PsdConfig, threads: number): number {
  const S = c.levels.length - 1;
  const pmax = Math.max(...c.paths),
    wmax = Math.max(...c.levels.slice(1).map((l, i) => c.levels[i]! - l));
  const keys = S > 1 ? c.expanded.slice(1, S).reduce((a, e) => a + pow2(e), 0) : 1;
  const bytes =
    8 * (keys + threads / 32) +
    4 * (n * n + n + (S + 1) * pmax * wmax + (S + 1) * pmax + 2 * (S + 1) + n) +
    (S + 1) * pmax * n +
    n;
  return Math.ceil(bytes / 8) * 8;
}

/** Threads of the block mapping: Table 1's tt, the largest stage's expanded nodes in whole warps (at most 1024). */
export function psdBlockThreads(c: PsdConfig): number {
  return Math.min(1024, Math.max(32, Math.ceil(Math.max(...c.expanded) / 32) * 32));
}

/** -D defines of the PSD kernels for a model and configuration (psd-common.cuh lists them). */
export function psdDefines(model: RealModel, c: PsdConfig): Record<string, string | number> {
  const d: Record<string, string | number> = {
    PSD_NT: model.nt,
    PSD_NR: model.nr,
    PSD_BPSK: model.constellation.pam === null ? 1 : 0,
    PSD_Q: model.q,
    PSD_S: c.levels.length - 1,
  };
  c.levels.forEach((l, i) => {
    d[`PSD_L${i}`] = l;
  });
  c.paths.forEach((p, i) => {
    d[`PSD_P${i}`] = p;
  });
  const pam = model.constellation.pam;
  if (pam) {
    let labels = 0n;
    pam.labels.forEach((l, i) => {
      labels |= BigInt(l) << BigInt(4 * i);
    });
    d.PSD_LABELS = `0x${labels.toString(16)}ull`;
  }
  return d;
}

/** A plan's launch choices (the detector uses the defaults; the bench script varies them). */
export interface PsdLaunchOptions {
  mapping?: PsdGpuMapping;
  /** Warps a block of the warp mapping. */
  warps?: number;
  /** Lanes a vector of the warp mapping (1, 2, 4, 8, 16 or 32; default psdAutoLanes). */
  lanes?: number;
}

/** Builds the plan of a setup: checks the sizes, compiles the kernels, sizes shared memory. */
export function createPsdPlan(
  ctx: CudaContext,
  setup: CudaDetectorSetup,
  launch: PsdLaunchOptions = {},
): CudaDetectorPlan & {
  readonly mapping: PsdGpuMapping;
  readonly threads: number;
  readonly sharedBytes: number;
  readonly vectorsPerBlock: number;
} {
  const { nr, nt, constellation } = setup;
  const model = realModel(constellation, nt, nr);
  if (model.m < model.n)
    throw new UnsupportedError(
      `psd needs as many real receive dimensions as real unknowns (got nt = ${nt}, nr = ${nr})`,
    );
  if (model.n > 32)
    throw new UnsupportedError(
      `psd on the GPU supports up to 32 real dimensions (16 streams of QAM, 32 of BPSK), got ${model.n}`,
    );
  if (model.q > 16)
    throw new UnsupportedError(`psd on the GPU supports PAM alphabets up to 16 levels (256-QAM), got ${model.q}`);
  const config = psdConfig(model.n, model.q, setup.opts.psd);
  if (config.levels.length > 18)
    throw new UnsupportedError(
      `psd on the GPU supports at most 17 stages, the configuration has ${config.levels.length - 1}`,
    );
  const mapping = launch.mapping ?? psdGpuMapping(setup.opts.psd);
  const limit = setup.device.sharedPerBlockOptinBytes;
  const defines = psdDefines(model, config);
  // -fmad=false: the float64 QR rounds as the CPU's qrInto does (the same column order).
  const prep = loadModule(ctx, {
    source: readKernelSource(new URL('./psd-prep.cu', import.meta.url)),
    name: 'psd-prep.cu',
    defines,
    options: ['-fmad=false'],
  }).kernel('psd_prep', ['ptr', 'ptr', 'i32', 'ptr', 'ptr', 'f32', 'ptr', 'ptr', 'ptr', 'i32', 'i64']);
  let search: Kernel, threads: number, sharedBytes: number, perBlock: number;
  if (mapping === 'warp') {
    const lanes = launch.lanes ?? psdAutoLanes(model.n, model.q, psdWarpSharedBytes(model.n, config), limit);
    if (![1, 2, 4, 8, 16, 32].includes(lanes))
      throw new InvalidArgumentError(`psd lanes a vector must be 1, 2, 4, 8, 16 or 32, got ${lanes}`);
    const groups = 32 / lanes;
    const one = psdWarpSharedBytes(model.n, config);
    if (one * groups > limit)
      throw new UnsupportedError(
        `psd configuration ${JSON.stringify({ levels: config.levels, paths: config.paths })} needs ${one} bytes of shared memory a vector (${groups} a warp), the device allows ${limit}; choose closer levels or fewer paths`,
      );
    const warps = Math.max(1, Math.min(launch.warps ?? DEFAULT_WARPS, Math.floor(limit / (one * groups)), 32));
    perBlock = warps * groups;
    threads = 32 * warps;
    sharedBytes = perBlock * one;
    search = loadModule(ctx, {
      source: readKernelSource(new URL('./psd-warp.cu', import.meta.url)),
      name: 'psd-warp.cu',
      defines: { ...defines, PSD_WARPS: warps, PSD_LANES: lanes },
    }).kernel('psd_warp', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i64', 'f32', 'ptr', 'i64']);
  } else {
    threads = psdBlockThreads(config);
    sharedBytes = psdBlockSharedBytes(model.n, config, threads);
    if (sharedBytes > limit)
      throw new UnsupportedError(
        `psd configuration ${JSON.stringify({ levels: config.levels, paths: config.paths })} needs ${sharedBytes} bytes of shared memory a block, the device allows ${limit}; choose closer levels or fewer paths`,
      );
    perBlock = 1;
    search = loadModule(ctx, {
      source: readKernelSource(new URL('./psd-block.cu', import.meta.url)),
      name: 'psd-block.cu',
      defines: { ...defines, PSD_THREADS: threads },
    }).kernel('psd_block', ['ptr', 'ptr', 'ptr', 'ptr', 'i32', 'i32', 'i64', 'f32', 'ptr', 'i64']);
  }
  if (sharedBytes > setup.device.sharedPerBlockBytes) search.setMaxDynamicShared(sharedBytes);
  const scale = constellation.pam ? constellation.pam.scale : 1;
  const maxNodes = BigInt(Math.min(setup.maxNodes, Number.MAX_SAFE_INTEGER));
  const facBytes = 4 * psdFactorWords(model.n, model.m);
  const prepLanes = psdPrepLanes(model.n);
  // the engine's normalize stage first when the chunk asks for it (psd-prep.cu: whole channels a block)
  const qr = (stream: Stream, chunk: DetectChunk): void => {
    if (chunk.channels === 0) return;
    prep.launch({ grid: Math.ceil((chunk.channels * prepLanes) / PREP_THREADS), block: PREP_THREADS, stream }, [
      chunk.H,
      chunk.scratch[0]!,
      chunk.channels,
      chunk.y,
      ...normalizeArgs(chunk),
    ]);
  };
  const detect = (stream: Stream, chunk: DetectChunk): void => {
    const vectors = chunk.channels * chunk.vectorsPerChannel;
    if (vectors === 0) return;
    search.launch({ grid: Math.ceil(vectors / perBlock), block: threads, sharedBytes, stream }, [
      chunk.y,
      chunk.scratch[0]!,
      chunk.symbols,
      chunk.status,
      vectors,
      chunk.vectorsPerChannel,
      maxNodes,
      scale,
      ...summaryArgs(chunk),
    ]);
  };
  return {
    mapping,
    threads,
    sharedBytes,
    vectorsPerBlock: perBlock,
    scratchBytesPerChannel: [facBytes],
    // psd_prep normalizes its block's channels first; the search kernels add to the summaries
    fuses: { normalize: PREP_THREADS % 32 === 0 && PREP_THREADS % prepLanes === 0, summary: true },
    enqueue(stream: Stream, chunk: DetectChunk): void {
      qr(stream, chunk);
      detect(stream, chunk);
    },
    stages: [
      { name: 'qr', enqueue: qr },
      { name: 'detect', enqueue: detect },
    ],
  };
}

export const cudaDetector: CudaDetector = {
  name: 'psd',
  soft: false,
  create: (ctx, setup) => createPsdPlan(ctx, setup),
};
