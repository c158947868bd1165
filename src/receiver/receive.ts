/**
 * receiveSlots(): slots of one configuration received on the engine chosen (the one chooser of
 * src/gpu/engine.ts): the CUDA receiver where a device answers and the detector has a CUDA soft
 * output, else the CPU reference.
 */
import { cudaDecoderUnsupported, resolveDecoderOptions } from '../coding/index.js';
import { chooseEngine, requireCuda } from '../gpu/index.js';
import { detectorEntry } from '../mimo/index.js';
import { receiveSlotsCpu } from './cpu.js';
import { slotReceiverCudaPlan } from './cuda.js';
import { resolveReceiver, type SlotReceiverOptions } from './options.js';
import type { ReceivedSlot, SlotResult } from './result.js';

/** Slots a launch of the CUDA receiver holds at most in receiveSlots(). */
const LAUNCH_SLOTS = 16;

/**
 * Each slot's transport block decoded, with its CRC verdicts (slots may be several cells' of the
 * same configuration). InvalidArgumentError naming a bad option; InvalidInputError naming the
 * slot for a grid of the wrong size or with non-finite values; EngineUnavailableError for engine
 * 'cuda' without a device or a CUDA soft detector.
 */
export async function receiveSlots(
  slots: readonly ReceivedSlot[],
  options: SlotReceiverOptions,
): Promise<SlotResult[]> {
  const call = 'receiveSlots()';
  const r = resolveReceiver(options, call);
  const decision = await chooseEngine({
    asked: r.options.engine,
    call: `${call} (${r.detect.detector})`,
    gpuGap: () => {
      const entry = detectorEntry(r.detect.detector)!;
      if (!entry.cuda) return `the '${r.detect.detector}' detector has no CUDA implementation`;
      return cudaDecoderUnsupported(r.code, resolveDecoderOptions(r.options.decoder));
    },
  });
  if (decision.engine === 'cpu') return receiveSlotsCpu(r, slots);
  const plan = await slotReceiverCudaPlan(requireCuda(), r, Math.min(LAUNCH_SLOTS, Math.max(1, slots.length)));
  try {
    return await plan.receive(slots);
  } finally {
    plan.free();
  }
}

/** One slot received (receiveSlots() of one). */
export async function receiveSlot(slot: ReceivedSlot, options: SlotReceiverOptions): Promise<SlotResult> {
  return (await receiveSlots([slot], options))[0]!;
}
