/**
 * The MIMO detectors, one entry each. An entry (its folder's entry.ts) owns everything the rest of
 * the package knows of its detector: its traits, its own options (an OptionSchema: checks, doc
 * lines, defaults and command-line flags), its one-line description, its label, the `name:ARG`
 * parameter of the command line's detector lists, and its engines, the CPU detector beside the
 * CUDA one (loaded lazily, so that the CPU engine never loads the CUDA bindings).
 *
 * Adding a detector is adding its folder and a line in DETECTOR_REGISTRY below: the detector names,
 * DetectOptions, detect()'s validation, simulation labels, the commands' flags and help all read
 * the registry, never lists of names.
 */
import type { SchemaOf } from '../core/index.js';
import type { CpuDetector } from './detectors/detector.js';
import type { CudaDetector } from './gpu/cuda-detector.js';
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
import { epEntry } from './detectors/ep/entry.js';
import { mmsePicEntry } from './detectors/mmse-pic/entry.js';

/**
 * How a detector meets the node budget (DetectOptions.maxNodes):
 *  - 'search': its search stops at the budget, and onBudget says what then (sphere, psd);
 *  - 'size': its work per vector is fixed, and a size past the budget is refused up front (ml, kbest);
 *  - 'none': it has no tree search to bound.
 */
export type NodeBudgetKind = 'search' | 'size' | 'none';

/**
 * Whether a detector takes nr < nt: 'no'; 'yes' (ml scores the complex model directly);
 * 'regularized' (mmse, sic: with N0 > 0, which makes H^H H + N0 I invertible).
 */
export type WideChannels = 'no' | 'yes' | 'regularized';

/** What the package needs to know of a detector, in place of lists of names. */
export interface DetectorTraits {
  /** It can return LLRs (soft output): DetectOptions.soft and llrClip apply to it. */
  readonly soft: boolean;
  /** Its decisions are ML (ml by enumeration; sphere and psd by a search that proves them). */
  readonly exact: boolean;
  /** How it meets the node budget: maxNodes applies unless 'none', onBudget only to 'search'. */
  readonly nodeBudget: NodeBudgetKind;
  /** The model it searches: the complex one (ml, linear detectors) or a real-valued decomposition (tree searches, lattice-aided). */
  readonly model: 'complex' | 'real';
  /** Whether it accepts nr < nt (see checkDetectorShape). */
  readonly wideChannels: WideChannels;
  /**
   * It takes a-priori LLRs (DetectionInput.priorLlr) and then returns extrinsic LLRs: true on both
   * engines (mmse-pic, ep, ml, kbest, nway, ssfe: all that take them); 'cpu' on the CPU engine
   * only (none now), for a detector whose CUDA kernels take none: a call with priors then runs on
   * the CPU under engine 'auto' and is refused under 'cuda'.
   * Absent: false, and detect() refuses priors for it rather than ignore them.
   */
  readonly priors?: boolean | 'cpu';
  /**
   * It needs noiseVar > 0 for hard decisions too (ep, mmse-pic: N0 weighs the Gaussian prior or the
   * a-priori LLRs against the observation, so N0 = 0 has no meaning). Absent: false.
   */
  readonly positiveNoise?: boolean;
  /**
   * Its CPU implementation has a WebAssembly SIMD kernel (CpuDetector.lanes), run where the one
   * policy (core pickCpuKernel) says so: DetectOptions.cpuKernel applies to it. Absent: false.
   */
  readonly wasmKernel?: boolean;
}

/** The `name:ARG` form of a command-line detector list: `kbest:8` sets option `k` of that entry. */
export interface ListArgument<O> {
  /** The option the argument sets (an integer option of the entry's schema). */
  readonly option: keyof O & string;
  /** Its placeholder in help: 'K' in kbest:K. */
  readonly metavar: string;
}

/**
 * One detector: name, description, traits, its own options and how they show in labels and on the
 * command line, and its engines. `O` is the interface of its own options (documented there; they
 * join DetectOptions through DetectorOwnOptions).
 */
export interface DetectorEntry<N extends string = string, O extends object = Record<never, never>> {
  /** Its name in DetectOptions.detector, results and the command line (its key in DETECTOR_REGISTRY). */
  readonly name: N;
  /** One line for help texts: what it does. */
  readonly description: string;
  readonly traits: DetectorTraits;
  /** The options only this detector takes (checked by detect(); flags of `detect` and `simulate`). */
  readonly options: SchemaOf<O>;
  /** The option a command-line list item `name:ARG` sets, when it has one. */
  readonly listArgument?: ListArgument<O>;
  /** The words its options add to its label after the name ("K=8" for kbest with k 8); none when absent. */
  label?(opts: O): string[];
  /** The CPU implementation (float64). */
  readonly cpu: CpuDetector<unknown>;
  /** The CUDA implementation (float32), when there is one. */
  readonly cuda?: () => Promise<CudaDetector>;
}

/** An entry of any detector (the registry's lookups by a name known only at run time). */
// biome-ignore lint/suspicious/noExplicitAny: the options interface differs from entry to entry
export type AnyDetectorEntry = DetectorEntry<string, any>;

/** The built-in detectors: one line each. */
const BUILT_IN = {
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
  ep: epEntry,
  'mmse-pic': mmsePicEntry,
};

/** A detector by name; the README's detector table says what each does. */
export type Detector = keyof typeof BUILT_IN;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type OwnOptionsOf<E> = E extends DetectorEntry<string, infer O> ? O : never;

/** The options the detectors' entries declare, all together (each applies to its own detector only). */
export type DetectorOwnOptions = UnionToIntersection<OwnOptionsOf<(typeof BUILT_IN)[Detector]>>;

/** The registry: an entry per detector name. */
export const DETECTOR_REGISTRY: Readonly<typeof BUILT_IN> = { ...BUILT_IN };

/** Every detector `detect()` accepts, by name, in registry order. */
export const DETECTORS: readonly Detector[] = Object.keys(BUILT_IN) as Detector[];

/** The entry of a detector name (undefined for a name no entry has). */
export function detectorEntry(name: string): AnyDetectorEntry | undefined {
  return Object.hasOwn(DETECTOR_REGISTRY, name)
    ? (DETECTOR_REGISTRY as Record<string, AnyDetectorEntry>)[name]
    : undefined;
}

/** The detectors whose traits pass `f`, in registry order (read at call time). */
export function detectorsWhere(f: (t: DetectorTraits) => boolean): Detector[] {
  return DETECTORS.filter((d) => f(detectorEntry(d)!.traits));
}

/** The detectors with a CUDA implementation. */
export function cudaDetectors(): Detector[] {
  return DETECTORS.filter((d) => detectorEntry(d)!.cuda);
}

/** The detectors that take a-priori LLRs (DetectionInput.priorLlr), read at call time. */
export function priorDetectors(): Detector[] {
  return detectorsWhere((t) => t.priors === true || t.priors === 'cpu');
}

/** Detectors that return LLRs. */
export const SOFT_DETECTORS: readonly Detector[] = detectorsWhere((t) => t.soft);

/** Detectors that accept nr < nt on any modulation (ml scores the complex model; mmse, sic regularize with N0 > 0). */
export const WIDE_DETECTORS: readonly Detector[] = detectorsWhere((t) => t.wideChannels !== 'no');

/** The lists derived from the traits, kept in step with the registry by registerDetector. */
const DERIVED: readonly [Detector[], (t: DetectorTraits) => boolean][] = [
  [SOFT_DETECTORS as Detector[], (t) => t.soft],
  [WIDE_DETECTORS as Detector[], (t) => t.wideChannels !== 'no'],
];

/**
 * Adds an entry at run time (a detector outside the built-in folders; the tests' fake detector),
 * so that it shows up wherever the registry is read: DETECTORS and the lists of traits, detect()'s
 * validation, labels, the commands' flags and help. Returns the function that removes it again.
 * Its name must be new; an option name it shares with another entry must have the same spec (one
 * flag serves both), and none may be a common option's.
 */
export function registerDetector(entry: AnyDetectorEntry): () => void {
  const reg = DETECTOR_REGISTRY as Record<string, AnyDetectorEntry>;
  if (Object.hasOwn(reg, entry.name)) throw new Error(`internal: detector '${entry.name}' is registered already`);
  reg[entry.name] = entry;
  const name = entry.name as Detector;
  (DETECTORS as Detector[]).push(name);
  for (const [list, f] of DERIVED) if (f(entry.traits)) list.push(name);
  return () => {
    delete reg[entry.name];
    for (const list of [DETECTORS as Detector[], ...DERIVED.map(([l]) => l)]) {
      const i = list.indexOf(name);
      if (i >= 0) list.splice(i, 1);
    }
  };
}
