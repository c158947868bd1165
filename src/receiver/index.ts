/**
 * The slot receiver: a 5G NR PUSCH slot's DM-RS estimation, detection, descrambling, rate recovery,
 * LDPC decoding and CRCs, on the CPU (the reference) and wholly on the device (the data staying
 * there); and the transmitter of such slots for tests and benchmarks. docs/RECEIVER.md describes it.
 */
export {
  MAX_RECEIVER_ANTENNAS,
  MAX_RECEIVER_LAYERS,
  type ResolvedReceiver,
  resolveReceiver,
  type SlotReceiverOptions,
} from './options.js';
export type { ReceivedSlot, SlotResult } from './result.js';
export { receiveSlotsCpu } from './cpu.js';
export {
  RECEIVER_STAGES,
  type ReceiverStage,
  type SlotLaunch,
  type SlotReceiverCudaPlan,
  slotReceiverCudaPlan,
} from './cuda.js';
export { receiveSlot, receiveSlots } from './receive.js';
export { receivedGrid, transmitSlot } from './transmit.js';
