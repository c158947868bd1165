/**
 * The arrays the CDL models' kernels read (cdl-rays.cu, cdl-clusters.cu, tdl-grid.cu), computed on
 * the host by the CPU generator's own functions, so that the kernels repeat the CPU's arithmetic on
 * the CPU's numbers. Shared by the CUDA plan (cuda.ts) and its tests (the CUDA emulator).
 */
import type { ResponsePoints } from '../types.js';
import { type CdlSetup, dopplerTurns, pairingArrays, phaseTables, slotRotations } from './cpu.js';

/** The arrays fixed for a plan. */
export interface CdlDeviceTables {
  /** 4096 complex coarse phase entries, then 4096 fine ones, interleaved (phaseTables). */
  readonly phase: Float64Array;
  /** pairs = clusters 400 field amplitudes and pairs x nr steering phases, interleaved (pairingArrays). */
  readonly rxField: Float64Array;
  readonly rxSteer: Float64Array;
  /** pairs field amplitudes and pairs x nt steering phases, interleaved. */
  readonly txField: Float64Array;
  readonly txSteer: Float64Array;
  /** clusters: sqrt(P_n / 20) c. */
  readonly amp: Float64Array;
  /** nr x (cos, sin) of the receive elements' slants; txSlant the same of the nt transmit ones. */
  readonly rxSlant: Float64Array;
  readonly txSlant: Float64Array;
  /** nr x nt complex, channels' layout: the specular ray's gains (zeros without a line of sight). */
  readonly losG: Float64Array;
}

function interleave(cos: Float64Array, sin: Float64Array): Float64Array {
  const s = new Float64Array(2 * cos.length);
  for (let e = 0; e < cos.length; e++) {
    s[2 * e] = cos[e]!;
    s[2 * e + 1] = sin[e]!;
  }
  return s;
}

/** The plan's fixed arrays. */
export function cdlDeviceTables(m: CdlSetup): CdlDeviceTables {
  const { coarse, fine } = phaseTables();
  const phase = new Float64Array(coarse.length + fine.length);
  phase.set(coarse);
  phase.set(fine, coarse.length);
  const pa = pairingArrays(m);
  return {
    phase,
    rxField: pa.rxField,
    rxSteer: pa.rxSteer,
    txField: pa.txField,
    txSteer: pa.txSteer,
    amp: m.amp,
    rxSlant: interleave(m.rx.cosSlant, m.rx.sinSlant),
    txSlant: interleave(m.tx.cosSlant, m.tx.sinSlant),
    losG: m.losG,
  };
}

/**
 * The arrays of a list of points: the Doppler turns (T' x (pairs + los) complex, T' = 1 without
 * Doppler: every time turns as the first, whose values the CPU copies to the others) and the delay
 * slots' rotations (F x slots complex).
 */
export function cdlPointTables(m: CdlSetup, at: ResponsePoints): { turns: Float64Array; rot: Float64Array } {
  return {
    turns: dopplerTurns(m, m.still ? at.times.subarray(0, 1) : at.times),
    rot: slotRotations(m, at.freqs),
  };
}
