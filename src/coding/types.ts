/**
 * Shapes shared by the LDPC part: parity-check matrices (quasi-cyclic and expanded), decoder options
 * and results. Bits are Uint8Array of 0/1; LLRs follow the project convention ln P(b=0)/P(b=1)
 * (positive means 0).
 */
import type { CpuKernel, CpuKernelRequest } from '../core/index.js';
import type { MinSumArithmetic } from './fixed-point-min-sum.js';

/**
 * A quasi-cyclic base matrix: `rows x cols` blocks, each the z-by-z zero block (-1) or the identity
 * cyclically shifted right by s >= 0 (row i of the block has its one in column (i + s) mod z).
 */
export interface BaseMatrix {
  /** Number of block rows. */
  readonly rows: number;
  /** Number of block columns. */
  readonly cols: number;
  /** Row-major rows x cols shifts; -1 is a zero block. */
  readonly shifts: Int32Array;
}

/**
 * A base-matrix file in the project's text format: one matrix written for an expansion factor z
 * (the dense form), or one matrix per lifting-size set (the NR entry-list form, 8 sets).
 */
export interface BaseMatrixTable {
  /** Number of block rows. */
  readonly rows: number;
  /** Number of block columns. */
  readonly cols: number;
  /** The expansion factor the shifts are written for (dense form); undefined for the entry-list form. */
  readonly z?: number;
  /** One base matrix per shift set: one for the dense form, one per lifting-size set i_LS for NR's. */
  readonly sets: readonly BaseMatrix[];
}

/**
 * The compact parity check a layered decoder (and a GPU kernel) walks: per layer (block row) the list
 * of (block column, shift) pairs, shifts already reduced mod z. Layer r holds entries
 * layerStart[r] .. layerStart[r+1]-1 of blockCol / shift.
 */
export interface QcParityCheck {
  /** Expansion (lifting) factor. */
  readonly z: number;
  /** Number of layers (block rows); the matrix has layers * z check rows. */
  readonly layers: number;
  /** Number of block columns; the matrix has blockCols * z columns. */
  readonly blockCols: number;
  /** Offsets into blockCol / shift, length layers + 1. */
  readonly layerStart: Int32Array;
  /** Block column of each nonzero block, layer by layer. */
  readonly blockCol: Int32Array;
  /** Right cyclic shift of each nonzero block, in [0, z). */
  readonly shift: Int32Array;
}

/**
 * A sparse binary parity-check matrix (m x n) in compressed-row form: check row r touches columns
 * col[rowStart[r]] .. col[rowStart[r+1]-1]. Any LDPC code (QC expanded, or read from an alist file).
 */
export interface SparseParityCheck {
  /** Number of check rows. */
  readonly m: number;
  /** Number of variable nodes (code bits, punctured ones included). */
  readonly n: number;
  /** Offsets into col, length m + 1. */
  readonly rowStart: Int32Array;
  /** Column index of each edge, row by row. */
  readonly col: Int32Array;
}

/** The most edges a check row of H has (at least 1): the decoders size their row buffers by it. */
export function maxRowDegree(H: SparseParityCheck): number {
  let dmax = 1;
  for (let r = 0; r < H.m; r++) dmax = Math.max(dmax, H.rowStart[r + 1]! - H.rowStart[r]!);
  return dmax;
}

/** The decoding algorithms: layered normalized / offset min-sum, layered and flooding sum-product. */
export type DecoderAlgorithm = 'nms' | 'oms' | 'spa' | 'flooding-spa';

/** Every LDPC {@link DecoderAlgorithm}, fastest first. */
export const LDPC_DECODER_ALGORITHMS: readonly DecoderAlgorithm[] = ['nms', 'oms', 'spa', 'flooding-spa'];

/** Decoder settings; every field has a default. */
export interface DecoderOptions {
  /** Algorithm (default 'nms', layered normalized min-sum). */
  readonly algorithm?: DecoderAlgorithm;
  /** Maximum number of iterations (full passes over all checks), default 20. */
  readonly maxIterations?: number;
  /** Stop as soon as the hard decisions satisfy every check (default true). */
  readonly earlyStop?: boolean;
  /** Normalization factor of 'nms' in (0, 1] (default 0.75). */
  readonly alpha?: number;
  /** Offset of 'oms', >= 0, in LLR units (default 0.5). */
  readonly beta?: number;
  /** Saturation: channel LLRs and check-to-variable messages are clipped to [-saturation, saturation] (default 64). */
  readonly saturation?: number;
  /**
   * The min-sum arithmetic ('nms', 'oms'):
   * - 'float' (the default): the reference, int32 fixed point at 1/16 LLR (float-equivalent below
   *   the saturation), in TypeScript; the arithmetic the CUDA decoder computes bit for bit, so a
   *   seed's counts do not depend on the engine; and the one the sum-product algorithms share.
   * - 'int16': saturating 16-bit lanes at the reference's scale, 8 frames a WebAssembly SIMD
   *   vector: the reference's decisions exactly while (column degree + 1) x saturation x 16 fits
   *   16 bits (every WiMAX and NR code at saturation 64), several times faster.
   * - 'int8': saturating 8-bit lanes at 1/4 LLR, 16 frames a vector: the fastest, FER within
   *   statistical error of 'float' at the same iterations, decisions not bit-equal.
   * The default stays 'float' because it is what every engine and every earlier result computed;
   * speed is an explicit choice (`--arithmetic int8`). CPU only: the CUDA decoder refuses the others.
   */
  readonly arithmetic?: MinSumArithmetic;
  /**
   * The CPU kernel of the 'int16' and 'int8' arithmetics: 'auto' (default; WebAssembly SIMD where
   * the runtime has it and LATTICE_MIMO_WASM is not off, else the TypeScript reference), 'wasm'
   * (it, or EngineUnavailableError), 'typescript' (the reference: same decisions, slower).
   */
  readonly cpuKernel?: CpuKernelRequest;
}

/** The outcome of decoding one frame. */
export interface DecodeResult {
  /** Decoded bits: the information bits for a code's decode(), all n code bits for the raw decoder. */
  readonly bits: Uint8Array;
  /** Iterations run (1 .. maxIterations). */
  readonly iterations: number;
  /** Whether the final hard decisions satisfy every parity check. */
  readonly ok: boolean;
}

/** The outcome of decoding `frames` frames back to back. */
export interface DecodeBatchResult {
  /** frames x k decoded information bits, frame after frame. */
  readonly bits: Uint8Array;
  /** Iterations run per frame. */
  readonly iterations: Int32Array;
  /** 1 where the frame's final hard decisions satisfy every check, else 0. */
  readonly ok: Uint8Array;
  /** The CPU kernel that decoded (set by the CPU decoders). */
  kernel?: CpuKernel;
}
