/**
 * The heterogeneous scheduling of CR-MB-LLL (Algorithm 3, Fig. 2 of the paper): the batch is split
 * into up to four groups, one CUDA stream each. Per host round, on each stream with unfinished
 * bases: the list of unfinished bases (matInd) goes up asynchronously, block_sub reduces their
 * sub-bases (one thread block per sub-basis), block_rest runs the boundary checks and the round
 * logic (one thread block per basis), and the small exch flags (boundaryExch: 1 = another block
 * round needed) come back asynchronously; the host then drops the finished bases, so the next
 * launch shrinks. The closing step runs inside block_rest when a basis finishes.
 */
import { UnsupportedError } from '../../core/index.js';
import { requireCuda, DeviceBuffer, PinnedBuffer, CudaEvent, Stream } from '../../gpu/index.js';
import {
  countArrays,
  emptyOutcome,
  outputArrays,
  settleStatus,
  STATS_WIDTH,
  validateLatticeBatch,
  type CudaBatchOutputs,
  type CudaBatchResult,
  type RealArray,
} from '../gpu/batch.js';
import type { AlgoParams, Algorithm } from '../types.js';
import { blockExtraArgs, blockThreads, hostStreamKernel, subBases } from './cuda.js';

const MAX_STREAMS = 4;

interface Group {
  first: number;
  stream: Stream;
  start: CudaEvent;
  end: CudaEvent;
  active: number[];
}

export async function runHostStreams<A extends RealArray>(
  name: Algorithm,
  mb: boolean,
  data: A,
  batch: number,
  n: number,
  m: number,
  params: AlgoParams,
  out?: CudaBatchOutputs<A>,
): Promise<CudaBatchResult<A>> {
  const t0 = performance.now();
  validateLatticeBatch(data, batch, n, m, params);
  const ctx = requireCuda();
  ctx.makeCurrent();
  const precision = data instanceof Float32Array ? 'float32' : 'float64';
  const elt = precision === 'float32' ? 4 : 8;
  const init = hostStreamKernel(ctx, precision, 'block_init');
  const sub = hostStreamKernel(ctx, precision, 'block_sub');
  const rest = hostStreamKernel(ctx, precision, 'block_rest');
  const extra = blockExtraArgs(n, m, precision, params, mb);
  const wsBytes = extra[5];
  const { size, count } = subBases(m, params.blockSize);
  const threads = Math.min(
    blockThreads(m, params.gpuTuning?.block?.threads),
    rest.attributes().maxThreadsPerBlock,
    init.attributes().maxThreadsPerBlock,
  );
  const subThreads = Math.min(
    blockThreads(size, params.gpuTuning?.block?.subThreads),
    sub.attributes().maxThreadsPerBlock,
  );

  const { basis, Z } = outputArrays(data, batch, n, m, out);
  const { iterations, swaps, sizeReductions } = countArrays(batch, out?.counts);
  const outcome = emptyOutcome();
  const perBasis = 2 * n * m * elt + m * m * 8 + wsBytes + STATS_WIDTH * 4 + 8;
  const chunk = Math.max(1, Math.min(batch, Math.floor((0.5 * ctx.memInfo().freeBytes) / perBasis)));
  const streamCount = Math.max(1, Math.min(params.gpuTuning?.block?.streams ?? MAX_STREAMS, chunk));
  const groups: Group[] = [];
  for (let g = 0; g < streamCount; g++)
    groups.push({
      first: 0,
      stream: Stream.create(ctx),
      start: CudaEvent.create(ctx),
      end: CudaEvent.create(ctx),
      active: [],
    });
  let kernelMs = 0,
    chunks = 0;
  const bufs: Array<DeviceBuffer | PinnedBuffer> = [];
  try {
    const dIn = DeviceBuffer.alloc(ctx, chunk * n * m * elt);
    bufs.push(dIn);
    const dOut = DeviceBuffer.alloc(ctx, chunk * n * m * elt);
    bufs.push(dOut);
    const dZ = DeviceBuffer.alloc(ctx, chunk * m * m * 8);
    bufs.push(dZ);
    const dWs = DeviceBuffer.alloc(ctx, chunk * wsBytes);
    bufs.push(dWs);
    const dStats = DeviceBuffer.alloc(ctx, chunk * STATS_WIDTH * 4);
    bufs.push(dStats);
    const dIdx = DeviceBuffer.alloc(ctx, 2 * chunk * 4);
    bufs.push(dIdx); // matInd, then boundaryExch
    const hIdx = PinnedBuffer.alloc(ctx, 2 * chunk * 4);
    bufs.push(hIdx);
    // Z starts at the next multiple of 8 bytes after the basis (a float32 basis of odd size would misalign it)
    const hOut = PinnedBuffer.alloc(ctx, chunk * (n * m * elt + m * m * 8 + STATS_WIDTH * 4) + 8);
    bufs.push(hOut);
    const idx = hIdx.i32(0, 2 * chunk);
    for (let first = 0; first < batch; first += chunk) {
      const len = Math.min(chunk, batch - first);
      dIn.upload(new Uint8Array(data.buffer, data.byteOffset + first * n * m * elt, len * n * m * elt));
      dStats.fill(0);
      const per = Math.ceil(len / streamCount);
      for (let g = 0; g < streamCount; g++) {
        const grp = groups[g]!;
        grp.first = Math.min(len, g * per);
        grp.active = [];
        for (let i = grp.first; i < Math.min(len, grp.first + per); i++) grp.active.push(i);
      }
      // one host round: on every stream with unfinished bases, matInd up, kernels, boundaryExch back
      const round = (kernels: 'init' | 'round'): void => {
        for (const grp of groups) {
          const k = grp.active.length;
          if (k === 0) continue;
          for (let i = 0; i < k; i++) idx[grp.first + i] = grp.active[i]!;
          dIdx.uploadAsync(hIdx, grp.stream, k * 4, grp.first * 4, grp.first * 4);
          const act = dIdx.ptr + BigInt(grp.first * 4),
            exch = dIdx.ptr + BigInt((chunk + grp.first) * 4);
          const args = [dIn.ptr, dOut.ptr, dZ.ptr, dWs.ptr, dStats.ptr, act, exch, n, m, ...extra];
          if (kernels === 'init') {
            grp.start.record(grp.stream);
            init.launch({ grid: k, block: threads, stream: grp.stream }, args);
          } else {
            sub.launch({ grid: k * count, block: subThreads, stream: grp.stream }, args);
            rest.launch({ grid: k, block: threads, stream: grp.stream }, args);
          }
          grp.end.record(grp.stream);
          dIdx.downloadAsync(hIdx, grp.stream, k * 4, (chunk + grp.first) * 4, (chunk + grp.first) * 4);
        }
      };
      const collect = async (): Promise<void> => {
        for (const grp of groups) {
          if (grp.active.length === 0) continue;
          await grp.stream.wait();
          grp.active = grp.active.filter((_, i) => idx[chunk + grp.first + i] !== 0);
        }
      };
      const used = groups.filter((g) => g.active.length > 0);
      round('init');
      await collect();
      // every host round is one block round of each unfinished basis, which maxIterations bounds
      for (let r = 0; r <= params.maxIterations + 1 && groups.some((g) => g.active.length > 0); r++) {
        round('round');
        await collect();
      }
      for (const grp of used) kernelMs += grp.end.elapsedSince(grp.start);
      if (groups.some((g) => g.active.length > 0))
        throw new UnsupportedError(`${name}: the host loop did not finish within maxIterations + 2 rounds`);
      const s = groups[0]!.stream;
      const bBytes = len * n * m * elt,
        zBytes = len * m * m * 8;
      const zAt = Math.ceil(bBytes / 8) * 8;
      dOut.downloadAsync(hOut, s, bBytes, 0, 0);
      dZ.downloadAsync(hOut, s, zBytes, 0, zAt);
      dStats.downloadAsync(hOut, s, len * STATS_WIDTH * 4, 0, zAt + zBytes);
      await s.wait();
      chunks++;
      new Uint8Array(basis.buffer, first * n * m * elt, bBytes).set(hOut.u8(0, bBytes));
      Z.set(hOut.f64(zAt, len * m * m), first * m * m);
      const st = hOut.i32(zAt + zBytes, len * STATS_WIDTH);
      for (let b = 0; b < len; b++) {
        const w = st.subarray(b * STATS_WIDTH, (b + 1) * STATS_WIDTH);
        settleStatus(name, first + b, w, params, precision, outcome);
        iterations[first + b] = w[0]!;
        swaps[first + b] = w[1]!;
        sizeReductions[first + b] = w[2]!;
      }
    }
  } finally {
    for (const grp of groups) grp.stream.synchronize();
    for (const b of bufs) b.free();
    for (const grp of groups) {
      grp.stream.destroy();
      grp.start.destroy();
      grp.end.destroy();
    }
  }
  return {
    basis,
    Z,
    stats: {
      iterations,
      swaps,
      sizeReductions,
      ...outcome,
      basisIsProduct: false,
      kernelMs,
      totalMs: performance.now() - t0,
      chunks,
      streams: streamCount,
      threadsPerBlock: threads,
      sharedBytesPerBlock: 0,
      variant: 'host-streams',
    },
  };
}
