/**
 * The CUDA systematic encoder of QC LDPC codes with the dual-diagonal parity part (encode.cu): the
 * CPU encoder's schedule (QcEncoder) replayed on the device, Z threads a frame, so a GPU link can
 * encode the frames it sends without a round trip. Codewords equal the CPU's bit for bit.
 */
import { InvalidArgumentError, UnsupportedError } from '../../core/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../gpu/index.js';
import type { LdpcCode } from '../code.js';
import { QcEncoder } from '../encoder.js';
import type { QcParityCheck } from '../types.js';

/**
 * A compiled encoder for one code. enqueue(): `info` frames x kInfo bytes (0/1) -> `cw` frames x
 * nFull bytes, the mother code's full codeword (for NR before rate matching: fillers 0, the
 * punctured columns included), on `stream`.
 */
export interface LdpcCudaEncoder {
  /** Information bits a frame read (the code's k). */
  readonly kInfo: number;
  /** Codeword bits a frame written (the parity check's columns). */
  readonly nFull: number;
  readonly framesPerBlock: number;
  readonly sharedBytes: number;
  readonly kernel: Kernel;
  enqueue(stream: Stream, buffers: { info: bigint; cw: bigint; frames: number }): void;
}

/** The -D defines of encode.cu for a QC code whose first k columns carry the k information bits. */
export function ldpcEncoderDefines(
  qc: QcParityCheck,
  k: number,
  framesPerBlock: number,
): Record<string, string | number> {
  const { kb, coreRows, special, steps } = new QcEncoder(qc).schedule();
  if (k > kb * qc.z)
    throw new InvalidArgumentError(`${k} information bits do not fit the code's ${kb} information blocks of ${qc.z}`);
  const table: number[] = [];
  for (let e = 0; e < qc.blockCol.length; e++) table.push(qc.blockCol[e]!, qc.shift[e]! % qc.z);
  return {
    Z: qc.z,
    NCOLS: qc.blockCols,
    NLAYERS: qc.layers,
    NEDGES: qc.blockCol.length,
    QC_TABLE: table.join('_'),
    QC_START: Array.from(qc.layerStart).join('_'),
    KB: kb,
    K_INFO: k,
    ENC_NCORE: coreRows.length,
    ENC_CORE: Array.from(coreRows).join('_'),
    ENC_SPECIAL: [special.row, special.col, special.shift % qc.z].join('_'),
    ENC_NSTEPS: steps.length,
    ENC_STEPS: steps.length > 0 ? steps.flatMap((s) => [s.row, s.col, s.shift % qc.z]).join('_') : '0',
    FPB: framesPerBlock,
  };
}

/** Frames a block: about 256 threads, the frames' shared bytes within 48 KiB. */
export function encoderFramesPerBlock(qc: QcParityCheck): number {
  const perFrame = (qc.blockCols + qc.layers) * qc.z;
  return Math.max(
    1,
    Math.min(Math.floor(256 / qc.z) || 1, Math.floor(1024 / qc.z), Math.floor((48 * 1024) / perFrame)),
  );
}

/**
 * Compiles (or finds cached) the encoder of `code`: UnsupportedError for a code without QC
 * structure or information bits outside its first columns (a code read as a plain sparse matrix).
 */
export function ldpcCudaEncoder(ctx: CudaContext, code: LdpcCode): LdpcCudaEncoder {
  const qc = code.qc;
  if (!qc)
    throw new UnsupportedError(
      `code '${code.name}' has no quasi-cyclic structure (the CUDA encoder replays the dual-diagonal schedule)`,
    );
  const fpb = encoderFramesPerBlock(qc);
  const nFull = qc.blockCols * qc.z;
  const sharedBytes = fpb * (qc.blockCols + qc.layers) * qc.z;
  if (sharedBytes > 48 * 1024)
    throw new UnsupportedError(
      `code '${code.name}': one frame of the CUDA encoder needs ${sharedBytes} bytes of shared memory (over 48 KiB)`,
    );
  const kernel = loadModule(ctx, {
    source: readKernelSource(new URL('./encode.cu', import.meta.url)),
    name: 'coding/gpu/encode.cu',
    defines: ldpcEncoderDefines(qc, code.k, fpb),
  }).kernel('ldpc_encode', ['ptr', 'ptr', 'i32']);
  return {
    kInfo: code.k,
    nFull,
    framesPerBlock: fpb,
    sharedBytes,
    kernel,
    enqueue(stream, b) {
      if (!Number.isInteger(b.frames) || b.frames < 0)
        throw new InvalidArgumentError(`frames must be a non-negative integer, got ${b.frames}`);
      if (b.frames === 0) return;
      kernel.launch({ grid: Math.ceil(b.frames / fpb), block: [qc.z, fpb], sharedBytes, stream }, [
        b.info,
        b.cw,
        b.frames,
      ]);
    },
  };
}
