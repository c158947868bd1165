/**
 * The receiver's transport block checks on the GPU (crc-check.cu): the CPU's checkTransportBlock
 * verdicts for a slot's transport blocks straight from the layered decoder's decisions on the
 * device, without copying the bits back.
 */
import { InvalidArgumentError } from '../../core/index.js';
import { type CudaContext, type Kernel, loadModule, readKernelSource, type Stream } from '../../gpu/index.js';
import { NR_CRCS } from '../crc.js';
import type { NrBaseGraph } from '../nr.js';
import { transportBlockSegmentation, transportBlockSize, type TransportBlockSegmentation } from '../transport-block.js';

/** Threads a transport block (a multiple of 32: a warp per code block at a time). */
const CRC_BLOCK = 1024;

/** The shape of the transport blocks a plan checks. */
export interface TransportBlockCheckShape {
  /** Base graph of the code blocks. */
  readonly bg: NrBaseGraph;
  /** Code block size: the LDPC code's K (information bits, CRC24B included when C > 1). */
  readonly Kprime: number;
  /** Code blocks a transport block. */
  readonly C: number;
}

/** The device buffers of one check. */
export interface TransportBlockCheckBuffers {
  /**
   * uint8, tbs x C x K' decisions (0/1), the layered decoder's `bits` output (frames x k, k = K')
   * for frames = tbs x C: code block r of transport block t is frame t C + r.
   */
  readonly bits: bigint;
  /** Transport blocks. */
  readonly tbs: number;
  /**
   * uint8 out, tbs x C: 1 where the code block's CRC24B passes, else 0; for C = 1 (no block CRC)
   * the transport block's verdict. 0n: not written.
   */
  readonly blockOk: bigint;
  /** uint8 out, tbs: 1 where the transport block CRC (CRC24A, or CRC16 for A <= 3824) passes, else 0. */
  readonly tbOk: bigint;
}

/**
 * A compiled check for transport blocks of one shape. enqueue() runs on `stream` and reads and
 * writes nothing but the buffers named (written, need not be zeroed), which must stay alive until
 * the stream has passed it; its verdicts equal checkTransportBlock's (blockCrcOk, tbCrcOk) for
 * the same decisions.
 */
export interface TransportBlockCheckCudaPlan {
  /** The segmentation checked: A, the CRCs, C and K'. */
  readonly segmentation: TransportBlockSegmentation;
  /** The kernel (crc_check). */
  readonly kernel: Kernel;
  /** Queues the checks of `tbs` transport blocks. */
  enqueue(stream: Stream, buffers: TransportBlockCheckBuffers): void;
  /** Releases what the plan holds on the device (nothing beyond the cached kernel, which stays). */
  free(): void;
}

/**
 * Compiles (or finds cached) the check of transport blocks of C code blocks of K' bits on base
 * graph bg; InvalidArgumentError when no transport block has that segmentation
 * (transportBlockSize).
 */
export function transportBlockCheckCudaPlan(
  ctx: CudaContext,
  shape: TransportBlockCheckShape,
): TransportBlockCheckCudaPlan {
  const { bg, Kprime, C } = shape;
  const segmentation = transportBlockSegmentation(transportBlockSize(C, Kprime, bg), bg);
  const tbCrc = NR_CRCS[segmentation.tbCrc];
  const kernel = loadModule(ctx, {
    source: readKernelSource(new URL('./crc-check.cu', import.meta.url)),
    name: 'coding/gpu/crc-check.cu',
    defines: { CRC_BLOCK },
  }).kernel('crc_check', ['ptr', 'ptr', 'ptr', 'i32', 'i32', 'u32', 'i32']);
  return {
    segmentation,
    kernel,
    enqueue(stream, b) {
      if (!Number.isInteger(b.tbs) || b.tbs < 0 || b.tbs > 2 ** 31 - 1)
        throw new InvalidArgumentError(`tbs must be a non-negative integer below 2^31, got ${b.tbs}`);
      if (b.tbs === 0) return;
      kernel.launch({ grid: b.tbs, block: CRC_BLOCK, sharedBytes: (CRC_BLOCK / 32) * 4, stream }, [
        b.bits,
        b.blockOk,
        b.tbOk,
        C,
        Kprime,
        tbCrc.poly,
        tbCrc.length,
      ]);
    },
    free() {},
  };
}
