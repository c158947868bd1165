/**
 * The slot receiver on the CPU engine, the reference the CUDA receiver is checked against: per
 * slot the DM-RS estimate (estimateSlot), every data resource element detected with the slot's
 * noise variance (detect(), max-log LLRs), the code blocks' LLRs descrambled and decoded (the
 * code's decodeBatch recovers the rate matching), the CRCs checked. Slow on full slots (the
 * detectors run one vector at a time): it is the reference, the device is the receiver.
 */
import {
  dmrsPilots,
  estimateSlot,
  type LmmseFilter,
  lmmseFilter,
  type SlotEstimator,
  slotsPerFrame,
  SYMBOLS_PER_SLOT,
} from '../channels/index.js';
import { checkTransportBlock } from '../coding/index.js';
import { InvalidArgumentError, InvalidInputError } from '../core/index.js';
import { detect } from '../mimo/index.js';
import type { ResolvedReceiver } from './options.js';
import type { ReceivedSlot, SlotResult } from './result.js';
import { scramblingSequence } from './scrambling.js';

/** Checks each slot's grid: its length and finite values (InvalidInputError naming the slot). */
export function checkSlots(r: ResolvedReceiver, slots: readonly ReceivedSlot[]): void {
  const want = 2 * SYMBOLS_PER_SLOT * r.K * r.options.nr;
  slots.forEach((s, i) => {
    if (!(s.grid instanceof Float32Array || s.grid instanceof Float64Array) || s.grid.length !== want)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `slots[${i}].grid must be a Float32Array or Float64Array of 14 x ${r.K} x ${r.options.nr} complex (${want} numbers), got ${s.grid?.length ?? typeof s.grid}`,
        { slot: i },
      );
    if (!Number.isInteger(s.slot) || s.slot < 0)
      throw new InvalidArgumentError(`slots[${i}].slot must be a non-negative integer, got ${s.slot}`, {
        option: 'slot',
        slot: i,
      });
    for (let t = 0; t < s.grid.length; t++)
      if (!Number.isFinite(s.grid[t]!))
        throw new InvalidInputError('NON_FINITE', `slots[${i}].grid[${t}] is ${s.grid[t]}`, { slot: i, index: t });
  });
}

/** The slots received on this thread (see the file comment). */
export function receiveSlotsCpu(r: ResolvedReceiver, slots: readonly ReceivedSlot[]): SlotResult[] {
  checkSlots(r, slots);
  const { config, K, C, E, code, dataRes } = r;
  const L = config.layers,
    nr = r.options.nr;
  let filter: LmmseFilter | null = null;
  const estimator = (): SlotEstimator => {
    if (r.options.csi === 'ls') return { csi: 'ls', time: r.time };
    filter ??= lmmseFilter(config, { pdp: r.pdp!, noiseVariance: r.options.n0 });
    return { csi: 'lmmse', filter, time: r.time };
  };
  const scramble = scramblingSequence(r);
  const bg = code.nr!.bg as 1 | 2;
  return slots.map((s) => {
    const Y = Float64Array.from(s.grid);
    const est = estimateSlot(dmrsPilots(config, s.slot % slotsPerFrame(config.scs)), Y, nr, estimator());
    const H = new Float64Array(2 * dataRes * nr * L),
      y = new Float64Array(2 * dataRes * nr);
    let v = 0;
    for (const l of config.dataSymbols) {
      H.set(est.H.subarray(2 * l * K * nr * L, 2 * (l + 1) * K * nr * L), 2 * v * nr * L);
      y.set(Y.subarray(2 * l * K * nr, 2 * (l + 1) * K * nr), 2 * v * nr);
      v += K;
    }
    const det = detect({ nt: L, nr, H, y, noiseVar: est.noiseVar }, { ...r.detect, engine: 'cpu' });
    const llr = new Float64Array(C * E);
    for (let b = 0; b < C * E; b++) llr[b] = scramble[b] ? -det.llr![b]! : det.llr![b]!;
    const dec = code.decodeBatch(llr, C, r.options.decoder);
    const blocks = Array.from({ length: C }, (_, c) => dec.bits.subarray(c * code.k, (c + 1) * code.k));
    const checked = checkTransportBlock(blocks, r.A, bg);
    return {
      tb: checked.tb,
      tbCrcOk: checked.tbCrcOk,
      blockCrcOk: checked.blockCrcOk,
      iterations: dec.iterations,
      engine: 'cpu',
    };
  });
}
