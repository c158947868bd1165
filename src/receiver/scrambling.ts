/** 38.211 6.3.1.1's PUSCH scrambling sequence, one bit a byte: the Gold sequence of c_init = n_RNTI 2^15 + n_ID. */
import { goldSequence } from '../channels/index.js';
import type { ResolvedReceiver } from './options.js';

/** The sequence over a slot's C E code-block bits (the same every slot). */
export function scramblingSequence(r: ResolvedReceiver): Uint8Array {
  return goldSequence(r.options.rnti * 32768 + r.options.dataScramblingId, r.C * r.E);
}
