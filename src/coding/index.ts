/**
 * LDPC coding: quasi-cyclic codes from base matrices (802.16e rate 1/2, 5G NR base graphs 1 and 2
 * with 38.212 rate matching), systematic dual-diagonal encoders, and CPU decoders (layered min-sum,
 * layered and flooding sum-product).
 *
 * A link uses it as: `const code = ldpcCode('wimax:2304:1/2')`; `code.encode(info)` (k bits ->
 * n channel bits); `code.decode(llr)` (n LLRs -> {bits: k, iterations, ok}) and
 * `code.decodeBatch(llr, frames)`, or a decoder held by the caller:
 * `const dec = code.decoder({ algorithm: 'nms', maxIterations: 20 }); dec.decodeBatch(llr, frames)`.
 *
 * Around the code blocks: the 38.212 CRCs (crc.ts) and transport blocks (transport-block.ts:
 * segmentation into code blocks of the code's K, the receiver's reassembly and checks); on the
 * device, rate recovery (gpu/rate-recovery.ts) and the transport block checks
 * (gpu/transport-block-check.ts) for a receiver that keeps its frames there.
 */
export {
  type BaseMatrix,
  type BaseMatrixTable,
  type QcParityCheck,
  type SparseParityCheck,
  type DecoderAlgorithm,
  type DecoderOptions,
  type DecodeResult,
  type DecodeBatchResult,
  LDPC_DECODER_ALGORITHMS,
} from './types.js';
export {
  parseBaseMatrix,
  formatBaseMatrix,
  parseAlist,
  formatAlist,
  liftBaseMatrix,
  expandQc,
  syndromeWeight,
} from './parity.js';
export { QcEncoder } from './encoder.js';
export {
  LdpcDecoder,
  resolveDecoderOptions,
  DECODER_SCHEMA,
  type ResolvedDecoderOptions,
  LDPC_DECODER_DEFAULTS,
  LDPC_MAX_SATURATION,
  LDPC_MIN_SUM_SCALE,
} from './decoder.js';
export {
  FixedPointMinSumDecoder,
  fixedPointFormat,
  fixedPointConstants,
  LDPC_INT8_SCALE,
  LDPC_INT16_SCALE,
  MIN_SUM_ARITHMETICS,
  type MinSumArithmetic,
  type FixedPointFormat,
  type FixedPointConstants,
  type FrameLoad,
  type FrameDone,
} from './fixed-point-min-sum.js';
export { SimdMinSumDecoder } from './simd-min-sum.js';
export { WIMAX_LENGTHS, WIMAX_Z0, wimaxBaseMatrix, wimaxRateHalfBase, wimaxExpansion } from './wimax.js';
export {
  NR_LIFTING_SETS,
  NR_MAX_K,
  NR_MAX_RATE,
  NR_MIN_RATE,
  NR_MODULATION_ORDERS,
  nrSelectBaseGraph,
  nrLiftingSize,
  nrCodeParams,
  nrBaseGraphTable,
  nrBaseMatrix,
  nrK0,
  nrRateMatchMap,
  nrRateMatch,
  nrRateRecover,
  NR_CODE_SCHEMA,
  type NrBaseGraph,
  type NrCodeParams,
  type NrCodeRequest,
  type NrLiftingSize,
} from './nr.js';
export { ldpcCode, wimaxCode, nrCode, qcCode, sparseCode, type LdpcCode, type FrameDecoder } from './code.js';
export { GenericEncoder } from './generic-encoder.js';
export { NR_CRCS, CRC_KINDS, crcOf, crcAttach, crcCheck, type CrcKind, type CrcSpec } from './crc.js';
export {
  NR_TB_CRC16_MAX_A,
  transportBlockSegmentation,
  segmentTransportBlock,
  checkTransportBlock,
  transportBlockSize,
  type TransportBlockSegmentation,
  type SegmentedTransportBlock,
  type TransportBlockCheck,
} from './transport-block.js';
export { readBaseMatrixFile, readAlistFile } from './files.js';
export {
  decodeBatchAsync,
  DECODE_ASYNC_SCHEMA,
  LDPC_STATUS,
  type DecodeEngine,
  type GpuDecodeOptions,
  type GpuDecodeBatchResult,
} from './gpu/cuda-decoder.js';

// What other parts of the package use (the package index, src/index.ts, picks what users see).
export { ldpcCudaEncoder } from './gpu/cuda-encoder.js';
export type { LdpcCudaEncoder } from './gpu/cuda-encoder.js';
export { cudaDecoderUnsupported, ldpcCudaPlan } from './gpu/cuda-decoder.js';
export type { LdpcCudaBuffers, LdpcCudaPlan } from './gpu/cuda-decoder.js';
export {
  rateRecoveryCudaPlan,
  rateRecoveryColumns,
  type RateRecoveryCudaPlan,
  type RateRecoveryOptions,
  type RateRecoveryBuffers,
  type RateRecoveryColumns,
} from './gpu/rate-recovery.js';
export {
  transportBlockCheckCudaPlan,
  type TransportBlockCheckCudaPlan,
  type TransportBlockCheckShape,
  type TransportBlockCheckBuffers,
} from './gpu/transport-block-check.js';
