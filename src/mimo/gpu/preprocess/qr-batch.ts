/**
 * Host side of the batched MGS QR kernels: qr-batch.cu (the N-way paper's Alg. 1 and Table I, one
 * thread per real column) and qr-thread.cu (one thread per QR, unsorted only, the same records bit
 * for bit): the record layout they write per (channel, pass), their launch shapes, and a compiled
 * plan that enqueues one of them on a chunk of channels. Detectors that factor the channel once and
 * serve its vectors (ssfe, nway) put these records in their per-channel scratch.
 */
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../../gpu/index.js';
import { InvalidArgumentError } from '../../../core/index.js';
import { asksNormalize, NO_NORMALIZE, type NormalizeArgs } from '../fused-stages.js';

export interface QrBatchShape {
  readonly nr: number;
  readonly nt: number;
  /** Real dimensions per stream: 2 (square QAM, MRVD) or 1 (BPSK). */
  readonly dimsPerStream: 1 | 2;
  /** QRs per channel: pass p factors the channel with its streams rotated by p. */
  readonly passes: number;
  /** SQRD (qrInto 'ascending') instead of plain MGS. */
  readonly sorted: boolean;
  /**
   * The record holds z = Q^T y of the channel's one received vector (nd floats) in place of Q: for
   * chunks of one vector per channel, whose detector then needs no Q (qr-batch.cu's QR_Z).
   */
  readonly zOfVector: boolean;
  /**
   * The kernel's thread mapping (default 'column'): 'column' = qr-batch.cu (one thread per real
   * column, the paper's); 'thread' = qr-thread.cu (one thread per QR; unsorted only).
   */
  readonly mapping?: QrMapping;
}

/** Which QR kernel a plan runs: qr-batch.cu ('column') or qr-thread.cu ('thread'). */
export type QrMapping = 'column' | 'thread';

/**
 * Real matrix entries (2 nr x nd) up to which the thread mapping is the default for unsorted QRs:
 * qr-thread.cu keeps them all in registers (nvcc sm_90: 4x4 QAM, 64 entries, about 130 registers;
 * 128 entries, e.g. 8x4 QAM or 8x8 BPSK, 210 to 255 without spills, so few warps a multiprocessor;
 * 8x8 QAM, 256, spills), so larger shapes keep the column mapping until measured.
 */
export const QR_THREAD_MAX_ENTRIES = 96;

/** The mapping the detectors use for a shape by default: 'thread' for unsorted shapes that fit registers (QR_THREAD_MAX_ENTRIES). */
export function defaultQrMapping(nr: number, nt: number, dimsPerStream: 1 | 2, sorted: boolean): QrMapping {
  return !sorted && 2 * nr * dimsPerStream * nt <= QR_THREAD_MAX_ENTRIES ? 'thread' : 'column';
}

/** Offsets (floats) inside one record and its size (a multiple of 4 floats). */
export interface QrRecordLayout {
  /** Real rows of the channel, 2 nr. */
  readonly rows: number;
  readonly nd: number;
  /** Rows of the record's first part: `rows` (Q, rows x nd column-major) or 1 (z, nd floats). */
  readonly qRows: number;
  /** Offset of Q, or of z. */
  readonly q: number;
  readonly r: number;
  readonly invDiag: number;
  readonly perm: number;
  readonly flags: number;
  readonly floats: number;
}

/**
 * The record qr-batch.cu writes per (channel, pass) (qr-record.cuh): Q rows x nd (or z = Q^T y, nd
 * floats, with zOfVector), R nd x nd, invDiag nd, perm nd (int32), flags (int32), padded to 4 floats.
 */
export function qrRecordLayout(nr: number, nt: number, dimsPerStream: 1 | 2, zOfVector = false): QrRecordLayout {
  const rows = 2 * nr,
    nd = dimsPerStream * nt,
    qRows = zOfVector ? 1 : rows;
  const r = qRows * nd,
    invDiag = r + nd * nd,
    perm = invDiag + nd,
    flags = perm + nd;
  return { rows, nd, qRows, q: 0, r, invDiag, perm, flags, floats: Math.ceil((flags + 1) / 4) * 4 };
}

/**
 * QRs a block of the QR kernel: about 128 threads (a multiple of 32 when nd divides 32), a whole
 * number of channels (a multiple of `passes`), so that a block can normalize its channels first.
 */
export function qrGroupsPerBlock(nd: number, passes = 1): number {
  return Math.max(passes, Math.floor(Math.floor(128 / nd) / passes) * passes);
}

/**
 * Dynamic shared memory of the QR kernel for `groups` QRs a block of rows x nd channels whose records
 * begin with `recordRows` x nd floats (rows: Q; 1: z): mgs.cuh's layout, then the sorted build's Q and
 * flags or the unsorted build's records.
 */
export function qrBatchSharedBytes(rows: number, nd: number, groups: number, recordRows = rows): number {
  const ld = rows | 1;
  const groupFloats = nd * ld + nd * nd + nd + 2 * nd + 2 * nd;
  const record = Math.ceil((recordRows * nd + nd * nd + 2 * nd + 1) / 4) * 4;
  return (Math.ceil((groups * groupFloats) / 4) * 4 + groups * Math.max(rows * nd + 1, record)) * 4;
}

/** The -D defines of one build of qr-batch.cu. */
export function qrBatchDefines(s: QrBatchShape, groups: number): Record<string, number> {
  return {
    QR_NR: s.nr,
    QR_NT: s.nt,
    QR_DPS: s.dimsPerStream,
    QR_PASSES: s.passes,
    QR_SORTED: s.sorted ? 1 : 0,
    QR_Z: s.zOfVector ? 1 : 0,
    QR_GROUPS: groups,
  };
}

export const QR_BATCH_URL = new URL('./qr-batch.cu', import.meta.url);
export const QR_THREAD_URL = new URL('./qr-thread.cu', import.meta.url);

/** Threads (= QRs) a block of qr-thread.cu: 128 (four warps; each warp stages and stores its own records). */
export const QR_THREAD_BLOCK = 128;

/**
 * 16-byte words of a record qr-thread.cu stages at a time by default (its QR_CHUNK): the whole record
 * (faster on the H100 than a few words at a time: bench/mimo/gpu-nway.ts, figures in bench/history/results-journal.md).
 */
export const QR_THREAD_CHUNK = 64;

/** Launch choices of qr-thread.cu (defaults QR_THREAD_BLOCK, QR_THREAD_CHUNK), validated by QrBatchPlan. */
export interface QrThreadLaunch {
  /** Threads (= QRs) a block: a multiple of 32 in [32, 1024]. */
  readonly threads?: number;
  /** The most 16-byte words of a record staged in shared memory at a time (1 .. 64; the whole record when at least its size). */
  readonly chunk?: number;
}

/**
 * Dynamic shared memory of qr-thread.cu for `threads` threads a block and records of `recordFloats`
 * floats: a staging row of QT_SLD 16-byte words per thread (QT_CH = min(chunk, record / 4) words of
 * a record at a time, the stride made odd).
 */
export function qrThreadSharedBytes(recordFloats: number, threads: number, chunk = QR_THREAD_CHUNK): number {
  const ch = Math.min(chunk, recordFloats / 4);
  return threads * (ch | 1) * 16;
}

/** The -D defines of one build of qr-thread.cu (`threads` a block, a multiple of 32; `chunk` its QR_CHUNK). */
export function qrThreadDefines(s: QrBatchShape, threads: number, chunk = QR_THREAD_CHUNK): Record<string, number> {
  return {
    QR_NR: s.nr,
    QR_NT: s.nt,
    QR_DPS: s.dimsPerStream,
    QR_PASSES: s.passes,
    QR_Z: s.zOfVector ? 1 : 0,
    QR_GROUPS: threads,
    QR_CHUNK: chunk,
  };
}

/** qr-batch.cu or qr-thread.cu (shape.mapping) compiled for one shape. */
export class QrBatchPlan {
  readonly layout: QrRecordLayout;
  readonly mapping: QrMapping;
  /** QRs a block. */
  readonly groups: number;
  readonly threads: number;
  readonly sharedBytes: number;
  /** Bytes of records per channel (all passes). */
  readonly bytesPerChannel: number;
  private readonly kernel: Kernel;

  /**
   * `build`: a measurement build's source in place of the mapping's kernel file and its further -D
   * defines (the benchmarks'); `launch`: the thread mapping's launch choices (ignored by the column mapping).
   */
  constructor(
    ctx: CudaContext,
    readonly shape: QrBatchShape,
    readonly scale: number,
    build?: { readonly source: string; readonly name: string; readonly defines: Readonly<Record<string, number>> },
    launch: QrThreadLaunch = {},
  ) {
    const { nr, nt, dimsPerStream, passes } = shape;
    const nd = dimsPerStream * nt;
    if (2 * nr < nd) throw new InvalidArgumentError(`the QR kernel needs 2 nr >= ${nd} real rows, got nr = ${nr}`);
    if (!Number.isInteger(passes) || passes < 1 || passes > nt)
      throw new InvalidArgumentError(`passes must be an integer in [1, nt = ${nt}], got ${passes}`);
    this.mapping = shape.mapping ?? 'column';
    if (this.mapping !== 'column' && this.mapping !== 'thread')
      throw new InvalidArgumentError(`mapping must be 'column' or 'thread', got ${String(this.mapping)}`);
    if (this.mapping === 'thread' && shape.sorted)
      throw new InvalidArgumentError(
        "the thread-per-QR kernel (mapping 'thread') runs the unsorted QR only; use mapping 'column' for SQRD",
      );
    this.layout = qrRecordLayout(nr, nt, dimsPerStream, shape.zOfVector);
    this.bytesPerChannel = passes * this.layout.floats * 4;
    const thread = this.mapping === 'thread';
    const chunk = launch.chunk ?? QR_THREAD_CHUNK;
    if (thread) {
      const threads = launch.threads ?? QR_THREAD_BLOCK;
      if (!Number.isInteger(threads) || threads < 32 || threads > 1024 || threads % 32 !== 0)
        throw new InvalidArgumentError(
          `the thread-per-QR kernel's threads a block must be a multiple of 32 in [32, 1024], got ${threads}`,
        );
      if (!Number.isInteger(chunk) || chunk < 1 || chunk > 64)
        throw new InvalidArgumentError(
          `the thread-per-QR kernel's staging chunk must be an integer in [1, 64], got ${chunk}`,
        );
      this.groups = threads;
      this.threads = threads;
      this.sharedBytes = qrThreadSharedBytes(this.layout.floats, threads, chunk);
    } else {
      this.groups = qrGroupsPerBlock(nd, passes);
      this.threads = this.groups * nd;
      this.sharedBytes = qrBatchSharedBytes(2 * nr, nd, this.groups, this.layout.qRows);
    }
    const mod = loadModule(ctx, {
      source: build?.source ?? readKernelSource(thread ? QR_THREAD_URL : QR_BATCH_URL),
      name: build?.name ?? (thread ? 'qr-thread.cu' : 'qr-batch.cu'),
      defines: {
        ...(thread ? qrThreadDefines(shape, this.threads, chunk) : qrBatchDefines(shape, this.groups)),
        ...build?.defines,
      },
    });
    this.kernel = thread
      ? mod.kernel('qr_thread', ['ptr', 'ptr', 'ptr', 'i32', 'f32'])
      : mod.kernel('qr_batch', ['ptr', 'ptr', 'ptr', 'i32', 'f32', 'ptr', 'f32', 'ptr', 'ptr', 'ptr', 'i32', 'i64']);
    if (this.sharedBytes > 48 * 1024) this.kernel.setMaxDynamicShared(this.sharedBytes);
  }

  /**
   * Whether enqueue can normalize the chunk first: the column mapping (qr-thread.cu cannot), whole
   * channels a block, and a full warp in it to take them.
   */
  get normalizes(): boolean {
    return this.mapping === 'column' && this.groups % this.shape.passes === 0 && this.threads >= 32;
  }

  /**
   * Factors `channels` channels at H (the chunk layout of cuda-detector.ts) into records at `out`
   * (channels x passes x layout.floats floats). y: with shape.zOfVector, the chunk's received
   * vectors, one per channel (vector c's real element r at float c 2 nr + r, normalized as H);
   * otherwise unused (0n) unless `normalize` asks for the engine's normalize stage: then the kernel
   * first normalizes the chunk (H, y at their addresses; only where `normalizes`).
   */
  enqueue(
    stream: Stream,
    H: bigint,
    y: bigint,
    out: bigint,
    channels: number,
    normalize: NormalizeArgs = NO_NORMALIZE,
  ): void {
    if (channels <= 0) return;
    if (this.shape.zOfVector && y === 0n)
      throw new InvalidArgumentError(
        'the QR kernel forms z = Q^T y (zOfVector) and needs the received vectors, got a null y',
      );
    const problems = channels * this.shape.passes,
      normalizing = asksNormalize(normalize);
    const cfg = { grid: Math.ceil(problems / this.groups), block: this.threads, sharedBytes: this.sharedBytes, stream };
    if (this.mapping === 'thread') {
      if (normalizing)
        throw new InvalidArgumentError(
          "the thread-per-QR kernel does not normalize: run the engine's normalize stage first",
        );
      this.kernel.launch(cfg, [H, this.shape.zOfVector ? y : 0n, out, problems, this.scale]);
      return;
    }
    if (normalizing && !this.normalizes)
      throw new InvalidArgumentError(
        `this QR build puts ${this.groups} QRs a block, not whole channels of ${this.shape.passes}: it cannot normalize`,
      );
    this.kernel.launch(cfg, [H, this.shape.zOfVector || normalizing ? y : 0n, out, problems, this.scale, ...normalize]);
  }
}
