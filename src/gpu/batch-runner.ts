/**
 * The batch runner every GPU part uses: a batch of independent items (bases, channels, received
 * vectors, codewords) goes through the device in chunks. It knows no domain: a job says what
 * bytes each item has on the host (inputs, outputs) and on the device only (scratch), how many
 * int32 status words each item reports, and how to enqueue a chunk's kernels; what a status word
 * means is for the job's settle() to say.
 *
 * - A batch with much host traffic is cut into chunks: up to four of at least 2 MiB of copies each,
 *   and past four, as many of about 8 MiB as it holds, up to 16 (a job whose items take uneven
 *   times: up to eight of at least 2 MiB). Each chunk costs the host about eight driver calls (tens of
 *   microseconds), so a small batch gets few; a large one gets many, so that its first upload and
 *   last download, which overlap nothing, are short. The chunks are
 *   spread over up to three streams (workspace.ts: PipelineLane), so that one chunk's upload and
 *   another's download overlap a third one's kernels (kernels of different streams also run side by
 *   side); a batch is cut to fit half the free device memory, and halved again on OUT_OF_MEMORY.
 * - A host array on pinned memory (host-memory.ts: allocPinned) is copied straight to or from the
 *   device; any other array goes through the lane's pinned staging buffer.
 * - A job whose chunks' kernels each fill the device (orderedKernels) runs them chunk after chunk, so
 *   that the first chunk's results go down while the next one computes.
 * - Outputs are written into the caller's arrays; an output may be the input array itself.
 * - One batch at a time per process: the lanes' buffers and streams are shared.
 */
import { InvalidArgumentError, LatticeMimoError } from '../core/index.js';
import { checkBatchRunOptions, type BatchRunOptions } from './batch-options.js';
import type { CudaContext } from './context.js';
import { pinnedAddress } from './host-memory.js';
import type { Stream } from './stream.js';
import { BatchWorkspace, type PipelineLane } from './workspace.js';

export { MAX_TUNED_CHUNKS, type BatchRunOptions } from './batch-options.js';

/** Item i's record is bytes [i * bytesPerItem, (i + 1) * bytesPerItem) of `array`. */
export interface HostRecords {
  readonly array: ArrayBufferView;
  readonly bytesPerItem: number;
}

/** Device memory of each item that never crosses the link. */
export interface DeviceRegion {
  readonly bytesPerItem: number;
  /** Allocated for whole groups of this many items (kernels that give a group of items one block); default 1. */
  readonly itemsPerGroup?: number;
}

/** A job's three kinds of item records, and a chunk's device addresses of them, index for index. */
export interface RecordKinds<Host, Device> {
  readonly inputs: readonly Host[];
  readonly outputs: readonly Host[];
  readonly scratch: readonly Device[];
}

/** The device addresses of one chunk's records, in the job's order. */
export interface ChunkBuffers extends RecordKinds<bigint, bigint> {
  readonly first: number;
  readonly count: number;
  readonly status: bigint;
}

export interface BatchJob extends RecordKinds<HostRecords, DeviceRegion> {
  /** For messages. */
  readonly name: string;
  readonly items: number;
  /** int32 words per item, zeroed before the chunk runs (unless kernelsWriteStatus) and read back after it (for settle()). */
  readonly statusWords: number;
  /** The job's kernels write every status word of a chunk: the runner need not zero them first. */
  readonly kernelsWriteStatus?: boolean;
  /**
   * Time the kernels with events (BatchRunStats.kernelMs; default true). A job that does not report
   * kernel time leaves it off: two event records and a query a chunk are a tenth of a small batch's host time.
   */
  readonly timed?: boolean;
  /** The kernels occupy the whole device (a cooperative launch): chunks run on one stream. */
  readonly exclusive?: boolean;
  /**
   * Items take very different times (an iterative algorithm's): each chunk's kernel ends in a tail
   * where most of the device idles, so such a batch is cut into at most UNEVEN_CHUNKS chunks.
   */
  readonly unevenItems?: boolean;
  /**
   * Each chunk's kernels fill the device: they run one chunk after another (the next chunk's wait
   * for the previous one's), so the first chunk's results go down while the next one computes,
   * instead of every chunk's kernels sharing the device and finishing together at the end.
   */
  readonly orderedKernels?: boolean;
  readonly options?: BatchRunOptions;
  /** Enqueues one chunk's kernels on `stream`; the runner times them with events around this. */
  enqueue(stream: Stream, chunk: ChunkBuffers): void;
  /** Reads one finished chunk's status words (count x statusWords); throws the part's own error to stop the batch. */
  settle(first: number, count: number, status: Int32Array, chunk: ChunkBuffers): void;
}

export interface BatchRunStats {
  /** Device time of the enqueued kernels (events), summed over chunks; NaN when the job is not timed. */
  kernelMs: number;
  /** Wall time of the whole run: staging, copies, kernels, status. */
  totalMs: number;
  chunks: number;
  streams: number;
}

/**
 * The pipeline's chunking (measured on the H100, bench/mimo/host-profile.ts and bench/host-path.ts):
 * up to SMALL_CHUNKS chunks of at least CHUNK_LINK_BYTES of copies, then chunks of about
 * LARGE_CHUNK_BYTES, at most MAX_CHUNKS; a job of uneven items at most UNEVEN_CHUNKS of at least
 * CHUNK_LINK_BYTES (their kernels' tails: measured best at 8, of 3 to 8, on the lattice batches).
 */
const SMALL_CHUNKS = 4;
const CHUNK_LINK_BYTES = 2 * 2 ** 20;
const LARGE_CHUNK_BYTES = 8 * 2 ** 20;
const MAX_CHUNKS = 16;
const UNEVEN_CHUNKS = 8;

/** How many chunks a batch of `linkBytes` of copies is cut into (before the memory rule). */
export function chunksFor(linkBytes: number, unevenItems = false): number {
  const small = Math.floor(linkBytes / CHUNK_LINK_BYTES);
  if (unevenItems) return Math.max(1, Math.min(UNEVEN_CHUNKS, small));
  if (small < SMALL_CHUNKS) return Math.max(1, small);
  return Math.max(SMALL_CHUNKS, Math.min(MAX_CHUNKS, Math.floor(linkBytes / LARGE_CHUNK_BYTES)));
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs the job (after any batch already running in this process). */
export function runBatch(ctx: CudaContext, job: BatchJob): Promise<BatchRunStats> {
  const run = queue.then(() => runExclusive(ctx, job));
  queue = run.catch(() => undefined);
  return run;
}

const align256 = (x: number): number => Math.ceil(x / 256) * 256;

interface Layout {
  /** Device byte offsets of each record kind in a chunk arena: inputs, outputs, status, then scratch. */
  dIn: number[];
  dOut: number[];
  dScratch: number[];
  dStatus: number;
  deviceTotal: number;
  /** Staging offsets (-1: the record is pinned, copied directly). */
  hIn: number[];
  hOut: number[];
  hStatus: number;
  hostTotal: number;
  /** Every input is staged at its device offset's place: one upload of inBytes carries them all. */
  inBytes: number;
  /** Every output staged likewise: one download of outBytes carries them and the status (from dOut[0], or dStatus when there are no outputs). */
  outBytes: number;
}

function checkJob(job: BatchJob): void {
  checkBatchRunOptions(job.options, `${job.name}: batch runner option options`);
  if (!Number.isSafeInteger(job.items) || job.items < 0)
    throw new InvalidArgumentError(`${job.name}: items must be a non-negative integer`);
  for (const r of [...job.inputs, ...job.outputs]) {
    if (
      !Number.isSafeInteger(r.bytesPerItem) ||
      r.bytesPerItem < 0 ||
      r.array.byteLength < job.items * r.bytesPerItem
    ) {
      throw new InvalidArgumentError(
        `${job.name}: a host array of ${r.array.byteLength} bytes is shorter than ${job.items} records of ${r.bytesPerItem} bytes`,
      );
    }
  }
}

async function runExclusive(ctx: CudaContext, job: BatchJob): Promise<BatchRunStats> {
  const t0 = performance.now();
  checkJob(job);
  ctx.makeCurrent();
  const pinnedIn = job.inputs.map((r) => pinnedAddress(r.array));
  const pinnedOut = job.outputs.map((r) => pinnedAddress(r.array));
  // When every input (every output) is staged, the staging buffer mirrors the device arena's
  // offsets, so one copy carries them all: each driver call is 5 to 15 us of a small batch's host time.
  const stagedIn = pinnedIn.every((p) => p === null),
    stagedOut = pinnedOut.every((p) => p === null);
  const layoutOf = (count: number): Layout => {
    let d = 0,
      h = 0;
    const dev = (bytes: number) => {
      const o = d;
      d += align256(Math.max(bytes, 1));
      return o;
    };
    const host = (bytes: number) => {
      const o = h;
      h += Math.ceil(bytes / 16) * 16;
      return o;
    };
    const dIn = job.inputs.map((r) => dev(count * r.bytesPerItem));
    const inEnd = d;
    const dOut = job.outputs.map((r) => dev(count * r.bytesPerItem));
    const dStatus = dev(count * job.statusWords * 4);
    const outEnd = d;
    const dScratch = job.scratch.map((s) => {
      const g = Math.max(1, s.itemsPerGroup ?? 1);
      return dev(Math.ceil(count / g) * g * s.bytesPerItem);
    });
    let hIn: number[],
      hOut: number[],
      hStatus: number,
      inBytes = 0,
      outBytes = 0;
    if (stagedIn && job.inputs.length > 0) {
      hIn = dIn.slice();
      h = inBytes = inEnd;
    } else {
      hIn = job.inputs.map((r, i) => (pinnedIn[i] === null ? host(count * r.bytesPerItem) : -1));
    }
    if (stagedOut) {
      // [inEnd, outEnd) on the device: the outputs, then the status
      const shift = h - inEnd;
      hOut = dOut.map((o) => o + shift);
      hStatus = dStatus + shift;
      h += outBytes = outEnd - inEnd;
    } else {
      hOut = job.outputs.map((r, i) => (pinnedOut[i] === null ? host(count * r.bytesPerItem) : -1));
      hStatus = host(count * job.statusWords * 4);
    }
    return { dIn, dOut, dScratch, dStatus, deviceTotal: d, hIn, hOut, hStatus, hostTotal: h, inBytes, outBytes };
  };
  if (job.items === 0) return { kernelMs: 0, totalMs: performance.now() - t0, chunks: 0, streams: 0 };

  const ws = BatchWorkspace.of(ctx);
  // device bytes an item takes in a large chunk (one item's layout would count each record's alignment)
  const perItem = layoutOf(1024).deviceTotal / 1024;
  // enough chunks that one's copies overlap another's kernels (chunksFor); a chunk of less than a
  // wave of its kernel is no loss: the lanes' kernels run side by side
  const linkBytes =
    [...job.inputs, ...job.outputs].reduce((t, r) => t + r.bytesPerItem, job.statusWords * 4) * job.items;
  const wanted = job.options?.chunks || chunksFor(linkBytes, job.unevenItems);
  let chunk = Math.ceil(job.items / wanted);
  if (job.options?.maxChunk) chunk = Math.min(chunk, job.options.maxChunk);
  const chunkCount = Math.ceil(job.items / chunk);
  let laneCount = job.options?.streams || Math.min(BatchWorkspace.MAX_LANES, chunkCount);
  laneCount = job.exclusive ? 1 : Math.max(1, Math.min(laneCount, chunkCount));
  // the lanes already hold enough for these chunks: no need to ask the driver what is free (a
  // cuMemGetInfo costs tens of microseconds, a fifth of a small batch's call)
  if (!ws.holds(laneCount, layoutOf(chunk).deviceTotal)) {
    const fit = Math.floor((0.5 * (ctx.memInfo().freeBytes + ws.deviceBytes)) / laneCount / perItem);
    if (fit < chunk) chunk = Math.max(1, fit);
  }
  let lanes: PipelineLane[];
  for (;;) {
    try {
      const at = layoutOf(chunk);
      lanes = ws.lanes(laneCount, at.hostTotal, at.deviceTotal);
      break;
    } catch (e) {
      if (e instanceof LatticeMimoError && e.code === 'OUT_OF_MEMORY' && (chunk > 1 || laneCount > 1)) {
        ws.release(); // does not fit: fewer lanes, then smaller chunks
        if (laneCount > 1) laneCount--;
        else chunk = Math.ceil(chunk / 2);
        continue;
      }
      throw e;
    }
  }

  const bytesOf = (v: ArrayBufferView, offset: number, bytes: number) =>
    new Uint8Array(v.buffer, v.byteOffset + offset, bytes);
  let kernelMs = 0,
    chunks = 0;
  const timed = job.timed ?? true;
  interface Pending {
    lane: PipelineLane;
    first: number;
    count: number;
    at: Layout;
    buffers: ChunkBuffers;
  }
  const pending: Pending[] = [];
  const collect = async ({ lane, first, count, at, buffers }: Pending): Promise<void> => {
    await lane.stream.wait();
    lane.busy = false;
    kernelMs += timed ? lane.end.elapsedSince(lane.start) : NaN;
    chunks++;
    job.outputs.forEach((r, i) => {
      if (at.hOut[i]! < 0) return;
      const bytes = count * r.bytesPerItem;
      bytesOf(r.array, first * r.bytesPerItem, bytes).set(lane.host.u8(at.hOut[i], bytes));
    });
    job.settle(first, count, lane.host.i32(at.hStatus, count * job.statusWords), buffers);
  };
  /** The lane of the chunk enqueued last (whose kernels an ordered job's next chunk waits for). */
  let previous: PipelineLane | null = null;
  try {
    for (let first = 0, i = 0; first < job.items; i++) {
      const count = Math.min(chunk, job.items - first);
      const lane = lanes[i % lanes.length]!;
      // the lane's previous chunk must be read back before its staging buffer is reused
      const prev = pending.findIndex((j) => j.lane === lane);
      if (prev >= 0) await collect(pending.splice(prev, 1)[0]!);
      const at = layoutOf(count);
      const { dev, host, stream } = lane;
      const base = dev.ptr;
      const buffers: ChunkBuffers = {
        first,
        count,
        inputs: at.dIn.map((o) => base + BigInt(o)),
        outputs: at.dOut.map((o) => base + BigInt(o)),
        scratch: at.dScratch.map((o) => base + BigInt(o)),
        status: base + BigInt(at.dStatus),
      };
      job.inputs.forEach((r, k) => {
        const bytes = count * r.bytesPerItem,
          src = first * r.bytesPerItem;
        if (pinnedIn[k] !== null) {
          dev.uploadFromAsync(pinnedIn[k]! + BigInt(src), stream, bytes, at.dIn[k]);
        } else {
          host.u8(at.hIn[k], bytes).set(bytesOf(r.array, src, bytes));
          if (at.inBytes === 0) dev.uploadAsync(host, stream, bytes, at.hIn[k], at.dIn[k]);
        }
      });
      if (at.inBytes > 0) dev.uploadAsync(host, stream, at.inBytes, 0, 0);
      if (!job.kernelsWriteStatus) dev.fillRange(at.dStatus, count * job.statusWords * 4, 0, stream);
      if (job.orderedKernels && previous) previous.computed.awaitOn(stream);
      if (timed) lane.start.record(stream);
      job.enqueue(stream, buffers);
      if (timed) lane.end.record(stream);
      if (job.orderedKernels) lane.computed.record(stream);
      if (at.outBytes > 0) {
        // outputs then status: from the first one's device offset to its staging offset
        dev.downloadAsync(host, stream, at.outBytes, at.dOut[0] ?? at.dStatus, at.hOut[0] ?? at.hStatus);
      } else {
        job.outputs.forEach((r, k) => {
          const bytes = count * r.bytesPerItem;
          if (pinnedOut[k] !== null)
            dev.downloadToAsync(pinnedOut[k]! + BigInt(first * r.bytesPerItem), stream, bytes, at.dOut[k]);
          else dev.downloadAsync(host, stream, bytes, at.dOut[k], at.hOut[k]);
        });
        dev.downloadAsync(host, stream, count * job.statusWords * 4, at.dStatus, at.hStatus);
      }
      previous = lane;
      lane.busy = true;
      pending.push({ lane, first, count, at, buffers });
      first += count;
    }
    while (pending.length > 0) await collect(pending.shift()!);
  } finally {
    // on an error, let every lane finish before its buffers are reused
    for (const l of lanes)
      if (l.busy) {
        l.stream.synchronize();
        l.busy = false;
      }
  }
  return { kernelMs, totalMs: performance.now() - t0, chunks, streams: lanes.length };
}
