/**
 * The MIMO detectors, one entry each: its traits and its engines, the CPU detector beside the CUDA
 * one (loaded lazily, so that the CPU engine never loads the CUDA bindings). Each entry lives in its
 * detector's folder (entry.ts); adding a detector is adding a folder and a line here. detect(),
 * the shape rule and the GPU engine read the traits instead of lists of names.
 */
import type { CpuDetector } from './detectors/detector.js';
import type { CudaDetector } from './gpu/cuda-detector.js';
import type { Detector } from './types.js';
import { zfEntry } from './detectors/zf/entry.js';
import { mmseEntry } from './detectors/mmse/entry.js';
import { sicEntry } from './detectors/sic/entry.js';
import { mlEntry } from './detectors/ml/entry.js';
import { sphereEntry } from './detectors/sphere/entry.js';
import { psdEntry } from './detectors/psd/entry.js';
import { kbestEntry } from './detectors/kbest/entry.js';
import { ssfeEntry } from './detectors/ssfe/entry.js';
import { nwayEntry } from './detectors/nway/entry.js';
import { lrZfEntry } from './detectors/lr-zf/entry.js';
import { lrMmseEntry } from './detectors/lr-mmse/entry.js';
import { lrSicEntry } from './detectors/lr-sic/entry.js';

export interface DetectorTraits {
  /** It can return LLRs (soft output). */
  readonly soft: boolean;
  /** Its decisions are ML (ml by enumeration; sphere and psd by a search that proves them). */
  readonly exact: boolean;
  /** Its work per vector varies and stops at the node budget (DetectOptions.maxNodes, onBudget; stats.budgetExceeded). */
  readonly budgeted: boolean;
  /** The model it searches: the complex one (ml, linear detectors) or a real-valued decomposition (tree searches, lattice-aided). */
  readonly model: 'complex' | 'real';
  /** It accepts nr < nt on any modulation (see checkDetectorShape). */
  readonly wideChannels: boolean;
}

export interface DetectorEntry {
  readonly name: Detector;
  readonly traits: DetectorTraits;
  /** The CPU implementation (float64). */
  readonly cpu: CpuDetector<unknown>;
  /** The CUDA implementation (float32), when there is one. */
  readonly cuda?: () => Promise<CudaDetector>;
}

export const DETECTOR_REGISTRY: Readonly<Record<Detector, DetectorEntry>> = {
  zf: zfEntry,
  mmse: mmseEntry,
  sic: sicEntry,
  ml: mlEntry,
  sphere: sphereEntry,
  psd: psdEntry,
  kbest: kbestEntry,
  ssfe: ssfeEntry,
  nway: nwayEntry,
  'lr-zf': lrZfEntry,
  'lr-mmse': lrMmseEntry,
  'lr-sic': lrSicEntry,
};

/** The detectors with a CUDA implementation. */
export function cudaDetectors(): Detector[] {
  return (Object.values(DETECTOR_REGISTRY) as DetectorEntry[]).filter((e) => e.cuda).map((e) => e.name);
}

const byTrait = (f: (t: DetectorTraits) => boolean): readonly Detector[] =>
  (Object.values(DETECTOR_REGISTRY) as DetectorEntry[]).filter((e) => f(e.traits)).map((e) => e.name);

/** Detectors that return LLRs. */
export const SOFT_DETECTORS: readonly Detector[] = byTrait((t) => t.soft);

/** Detectors that accept nr < nt on any modulation (ml scores the complex model; mmse, sic regularize with N0 > 0). */
export const WIDE_DETECTORS: readonly Detector[] = byTrait((t) => t.wideChannels);
