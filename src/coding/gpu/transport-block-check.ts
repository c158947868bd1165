/**
 * The receiver's transport block checks on the GPU (crc-blocks.cu, then crc-verdict.cu): the
 * CPU's checkTransportBlock verdicts for a slot's transport blocks straight from the layered
 * decoder's decisions on the device, without copying the bits back.
 */
import { InvalidArgumentError } from '../../core/index.js';
import {
  type CudaContext,
  DeviceBuffer,
  type Kernel,
  loadModule,
  readKernelSource,
  type Stream,
} from '../../gpu/index.js';
import { NR_CRCS } from '../crc.js';
import type { NrBaseGraph } from '../nr.js';
import { transportBlockSegmentation, transportBlockSize, type TransportBlockSegmentation } from '../transport-block.js';

/** Threads a code block (a multiple of 32): each divides about K' / CRC_THREADS bits. */
export const CRC_THREADS = 256;
/** Warps of crc_verdict's thread blocks: a warp a transport block. */
const VERDICT_WARPS = 8;
/** gCRC24B (38.212 5.1) without its D^24 term. */
const CRC24B_POLY = 0x800063;

/** a(D) b(D) mod g(D) over GF(2), g = D^L + poly, a and b of degree below L (L <= 24). */
export function gf2MulMod(a: number, b: number, poly: number, L: number): number {
  const top = 2 ** L;
  let r = 0;
  for (let i = L - 1; i >= 0; i--) {
    r *= 2;
    if (r >= top) r = (r - top) ^ poly;
    if (Math.floor(b / 2 ** i) % 2 === 1) r ^= a;
  }
  return r;
}

/** D^d mod g(D), g = D^L + poly (L > 1). */
export function gf2PowMod(d: number, poly: number, L: number): number {
  let r = 1,
    p = 2;
  for (; d > 0; d = Math.floor(d / 2)) {
    if (d % 2 === 1) r = gf2MulMod(r, p, poly, L);
    p = gf2MulMod(p, p, poly, L);
  }
  return r;
}

/**
 * crc_blocks' shifts (crc-blocks.cu), uint32 of length 2 threads + C: for thread i's chunk of a
 * code block, ending at e_i = min(K, (i + 1) ceil(K / threads)), D^(K - e_i) mod gCRC24B, then
 * D^(part - min(e_i, part)) mod g; then D^((C - 1 - r) part) mod g for code block r. g is the
 * transport block CRC's generator (poly, L), part = K - 24 for C > 1 and K for C = 1.
 */
export function crcBlockShifts(K: number, C: number, poly: number, L: number, threads = CRC_THREADS): Uint32Array {
  const out = new Uint32Array(2 * threads + C);
  const part = C > 1 ? K - 24 : K;
  const per = Math.ceil(K / threads);
  for (let i = 0; i < threads; i++) {
    const e = Math.min(K, Math.min(K, i * per) + per);
    out[i] = gf2PowMod(K - e, CRC24B_POLY, 24);
    out[threads + i] = gf2PowMod(part - Math.min(e, part), poly, L);
  }
  for (let r = 0; r < C; r++) out[2 * threads + r] = gf2PowMod((C - 1 - r) * part, poly, L);
  return out;
}

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
  /** Work space of at least `scratchBytes(tbs)` bytes (uint32 tbs x C), overwritten. */
  readonly scratch: bigint;
}

/**
 * A compiled check for transport blocks of one shape. enqueue() runs on `stream` and reads and
 * writes nothing but the buffers named (written, need not be zeroed), which must stay alive until
 * the stream has passed it (the work space included: checks queued on two streams at once need
 * two); its verdicts equal checkTransportBlock's (blockCrcOk, tbCrcOk) for
 * the same decisions.
 */
export interface TransportBlockCheckCudaPlan {
  /** The segmentation checked: A, the CRCs, C and K'. */
  readonly segmentation: TransportBlockSegmentation;
  /** The kernels: each code block's CRC and share of its transport block's (crc_blocks), the verdicts (crc_verdict). */
  readonly kernels: { readonly blocks: Kernel; readonly verdict: Kernel };
  /** Bytes of the work space that checking `tbs` transport blocks needs. */
  scratchBytes(tbs: number): number;
  /** Queues the checks of `tbs` transport blocks. */
  enqueue(stream: Stream, buffers: TransportBlockCheckBuffers): void;
  /** Releases the plan's shift table (the cached kernels stay). */
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
  const load = (file: string, define: Record<string, number>) =>
    loadModule(ctx, {
      source: readKernelSource(new URL(`./${file}`, import.meta.url)),
      name: `coding/gpu/${file}`,
      defines: define,
    });
  const blocks = load('crc-blocks.cu', { CRC_THREADS }).kernel('crc_blocks', [
    'ptr',
    'ptr',
    'ptr',
    'ptr',
    'i32',
    'i32',
    'u32',
    'i32',
  ]);
  const verdict = load('crc-verdict.cu', { VERDICT_WARPS }).kernel('crc_verdict', ['ptr', 'ptr', 'ptr', 'i32', 'i32']);
  const table = crcBlockShifts(Kprime, C, tbCrc.poly, tbCrc.length);
  let shifts: DeviceBuffer | null = DeviceBuffer.alloc(ctx, table.byteLength);
  shifts.upload(table);
  const sharedBytes = (Math.ceil(Kprime / 32) + 2 * (CRC_THREADS / 32)) * 4;
  const scratchBytes = (tbs: number): number => Math.max(4, tbs * C * 4);
  return {
    segmentation,
    kernels: { blocks, verdict },
    scratchBytes,
    enqueue(stream, b) {
      if (!shifts) throw new InvalidArgumentError('the transport block check plan was freed');
      if (!Number.isInteger(b.tbs) || b.tbs < 0 || b.tbs * C > 2 ** 31 - 1)
        throw new InvalidArgumentError(`tbs must be a non-negative integer with tbs x C below 2^31, got ${b.tbs}`);
      if (b.tbs === 0) return;
      if (!b.scratch)
        throw new InvalidArgumentError(`scratch must be a work space of scratchBytes(${b.tbs}) bytes, got none`, {
          option: 'scratch',
        });
      blocks.launch({ grid: b.tbs * C, block: CRC_THREADS, sharedBytes, stream }, [
        b.bits,
        shifts.ptr,
        b.scratch,
        b.blockOk,
        C,
        Kprime,
        tbCrc.poly,
        tbCrc.length,
      ]);
      verdict.launch({ grid: Math.ceil(b.tbs / VERDICT_WARPS), block: 32 * VERDICT_WARPS, stream }, [
        b.scratch,
        b.blockOk,
        b.tbOk,
        b.tbs,
        C,
      ]);
    },
    free() {
      shifts?.free();
      shifts = null;
    },
  };
}
