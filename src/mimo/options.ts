/**
 * The options of detect(), detectAsync() and simulate()'s detectors, checked strictly: the options
 * every detector takes (COMMON_DETECT_OPTIONS, each with the rule, read from the detector's traits,
 * of where it applies) and each detector's own (its registry entry's schema). An unknown key is an
 * InvalidArgumentError with the nearest known key suggested; a key that does not apply to the chosen
 * detector (`k` with zf, `llrClip` with a hard detector) is one that says why; a value of the wrong
 * type or range is one naming the option (core/options.ts).
 */
import {
  checkOptions,
  choice,
  CPU_KERNEL_REQUESTS,
  InvalidArgumentError,
  integer,
  nearest,
  number,
  option,
  show,
  type OptionSchema,
  type OptionSpec,
  type ValueCheck,
} from '../core/index.js';
import { batchRunOption, ENGINE_REQUESTS } from '../gpu/index.js';
import { DEFAULT_MAX_NODES, ON_BUDGET } from './budget.js';
import { parseModulation } from './modulation.js';
import {
  type AnyDetectorEntry,
  type Detector,
  DETECTORS,
  type DetectorTraits,
  detectorEntry,
  detectorsWhere,
} from './registry.js';
import { type CommonDetectOptions, type DetectOptions, type Modulation, MODULATIONS } from './types.js';

/** Where a common option applies, read from a detector's traits, and how to say why it does not. */
export interface Applicability {
  /** Whether the option applies to a detector with these traits. */
  applies(traits: DetectorTraits): boolean;
  /** The detectors it applies to, in words ('soft detectors'). */
  readonly holders: string;
  /** Why it does not apply to `detector`: a clause that names it. */
  why(detector: string): string;
}

/** A common option: its spec and, unless it applies to every detector, where it applies. */
export type CommonOptionSpec<T> = OptionSpec<T> & { readonly applies?: Applicability };

const list = (f: (t: DetectorTraits) => boolean, sep = ', ') => detectorsWhere(f).join(sep);

const SOFT: Applicability = {
  applies: (t) => t.soft,
  holders: 'soft detectors',
  why: (d) => `${d} gives hard decisions only (soft detectors: ${list((t) => t.soft)})`,
};
const BUDGETED: Applicability = {
  applies: (t) => t.nodeBudget !== 'none',
  holders: 'detectors with a node budget',
  why: (d) => `${d} has no node budget (detectors with one: ${list((t) => t.nodeBudget !== 'none')})`,
};
const WASM: Applicability = {
  applies: (t) => t.wasmKernel === true,
  holders: 'detectors with a WebAssembly kernel',
  why: (d) =>
    `${d} runs TypeScript only on the CPU (detectors with a WebAssembly kernel: ${list((t) => t.wasmKernel === true)})`,
};
const SEARCHES: Applicability = {
  applies: (t) => t.nodeBudget === 'search',
  holders: 'searches that stop at the node budget',
  why: (d) =>
    `only ${list((t) => t.nodeBudget === 'search', ' and ')} stop a search at the node budget, the detector is ${d}`,
};

/** A detector name of the registry (read at call time), the nearest one suggested otherwise. */
const detectorName: ValueCheck<Detector> = {
  kind: 'choice',
  choices: DETECTORS,
  check: (v, path) => {
    if (typeof v === 'string' && detectorEntry(v)) return v as Detector;
    const near = typeof v === 'string' ? nearest(v, DETECTORS) : null;
    throw new InvalidArgumentError(
      `${path} must be one of ${DETECTORS.join(', ')}, got ${show(v)}${near ? ` (did you mean '${near}'?)` : ''}`,
      { option: 'detector', value: typeof v === 'string' ? v : show(v), ...(near ? { suggestion: near } : {}) },
    );
  },
};

/** A modulation name (parseModulation's spellings: '16QAM', 'qam16', ...). */
const modulationName: ValueCheck<Modulation> = {
  kind: 'choice',
  choices: MODULATIONS,
  check: (v, path) => {
    try {
      if (typeof v === 'string') return parseModulation(v);
    } catch {
      // the message below names the option
    }
    throw new InvalidArgumentError(`${path} must be one of ${MODULATIONS.join(', ')}, got ${show(v)}`, {
      option: 'modulation',
      value: typeof v === 'string' ? v : show(v),
    });
  },
};

/** The options every detector takes; `applies` says where one that does not apply to all does. */
export const COMMON_DETECT_OPTIONS: {
  readonly [K in keyof CommonDetectOptions]-?: CommonOptionSpec<Exclude<CommonDetectOptions[K], undefined>>;
} = {
  detector: option(detectorName, 'the detector', { cli: { flag: 'detector', metavar: 'NAME' } }),
  modulation: option(modulationName, 'the transmitted constellation', { cli: { flag: 'mod', metavar: 'MOD' } }),
  engine: option(
    choice(ENGINE_REQUESTS),
    'auto: the GPU where a device answers and the detector has a CUDA implementation, else the CPU; cuda: the GPU or ENGINE_UNAVAILABLE; cpu',
    { default: 'auto', cli: { flag: 'engine', metavar: 'auto|cpu|cuda' } },
  ),
  soft: {
    ...option(choice(['maxlog', 'logmap', 'none'] as const), 'maxlog, logmap (exact, ml) or none (no LLRs)', {
      default: 'maxlog',
      cli: { flag: 'soft', metavar: 'S' },
    }),
    applies: SOFT,
  },
  llrClip: {
    ...option(number({ min: 0, minOpen: true }), '|LLR| clipping value, > 0 (every LLR is also saturated at 1e100)', {
      cli: { flag: 'llr-clip', metavar: 'C' },
    }),
    applies: SOFT,
  },
  maxNodes: {
    ...option(
      integer(1),
      'the budget per vector: sphere and psd stop their search there; ml and kbest refuse a size whose fixed work exceeds it',
      { default: DEFAULT_MAX_NODES, cli: { flag: 'max-nodes', metavar: 'N' } },
    ),
    applies: BUDGETED,
  },
  onBudget: {
    ...option(
      choice(ON_BUDGET),
      'past it: error (NODE_BUDGET, naming the vector) or flag (keep the best leaf found, marked unproven)',
      { default: 'error', cli: { flag: 'on-budget', metavar: 'error|flag' } },
    ),
    applies: SEARCHES,
  },
  cpuKernel: {
    ...option(
      choice(CPU_KERNEL_REQUESTS),
      "the CPU engine's kernel: auto (WebAssembly SIMD where the runtime has it), wasm (it or ENGINE_UNAVAILABLE) or typescript (the reference); same decisions and LLRs",
      { default: 'auto', cli: { flag: 'cpu-kernel', metavar: 'auto|wasm|typescript' } },
    ),
    applies: WASM,
  },
  gpuBatch: batchRunOption('GPU engine: how the batch runner cuts the batch into chunks and streams'),
};

/** The detector entries that declare option `key` (their own options, not the common ones). */
export function optionOwners(key: string): Detector[] {
  return DETECTORS.filter((d) => Object.hasOwn(detectorEntry(d)!.options, key));
}

/**
 * Why option `key` does not apply to `detector` (a clause naming the detector), or null when it
 * applies; undefined when no detector and no common option has the key.
 */
export function inapplicableReason(key: string, detector: string): string | null | undefined {
  const entry = detectorEntry(detector);
  if (!entry) throw new InvalidArgumentError(`unknown detector ${show(detector)}`, { option: 'detector' });
  if (Object.hasOwn(COMMON_DETECT_OPTIONS, key)) {
    const rule = (COMMON_DETECT_OPTIONS as Record<string, CommonOptionSpec<unknown>>)[key]!.applies;
    return rule && !rule.applies(entry.traits) ? rule.why(detector) : null;
  }
  if (Object.hasOwn(entry.options, key)) return null;
  const owners = optionOwners(key);
  if (owners.length === 0) return undefined;
  const spec = detectorEntry(owners[0]!)!.options[key] as OptionSpec;
  return `it is ${owners.join(' and ')}'s (${spec.doc}), the detector is ${detector}`;
}

/** Every key a detector options object may hold, with its spec (for the suggestion of an unknown key). */
function allKeys(extra: OptionSchema): OptionSchema {
  const all: Record<string, OptionSpec> = { ...COMMON_DETECT_OPTIONS };
  for (const d of DETECTORS) Object.assign(all, detectorEntry(d)!.options);
  return { ...all, ...extra };
}

/** How a caller takes detector options beyond detect()'s. */
export interface DetectOptionsUse {
  /** Common keys the caller sets itself, each with why (simulate(): the run's modulation and engine). */
  readonly refused?: Readonly<Record<string, string>>;
  /** Keys the caller adds (simulate(): label). */
  readonly extra?: OptionSchema;
  /** Keys that must be given besides detector (detect(): modulation). */
  readonly required?: readonly string[];
}

/**
 * Checks a detector options object and returns a copy holding the checked values of the keys given
 * (absent and undefined keys left out; the modulation in its canonical spelling). `call` names the
 * caller in messages ('detect()', 'simulate() detectors[2]'). InvalidArgumentError, with
 * `details.option`, for: a value that is not an object, a missing detector or required key, an
 * unknown key (the nearest known one suggested), a key that does not apply to the detector (why,
 * read from its traits or the entry that owns the key), a value of the wrong type or range, and
 * llrClip with soft 'none'.
 */
export function checkDetectOptions(value: unknown, call: string, use: DetectOptionsUse = {}): DetectOptions {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError(`${call} options must be an object, got ${show(value)}`, { option: call });
  }
  const o = value as Record<string, unknown>;
  if (o.detector === undefined) {
    throw new InvalidArgumentError(`${call}: option detector is required (one of ${DETECTORS.join(', ')})`, {
      option: 'detector',
    });
  }
  const detector = detectorName.check(o.detector, `${call} option detector`);
  const entry: AnyDetectorEntry = detectorEntry(detector)!;
  const extra = use.extra ?? {};
  for (const key of Object.keys(o)) {
    if (o[key] === undefined || Object.hasOwn(extra, key)) continue;
    const refused = use.refused && Object.hasOwn(use.refused, key) ? use.refused[key] : undefined;
    const why = refused ?? inapplicableReason(key, detector);
    // unknown: checkOptions names it and suggests the nearest key of every detector's
    if (why === undefined) checkOptions({ [key]: o[key] }, allKeys(extra), call);
    else if (why !== null) {
      throw new InvalidArgumentError(`${call}: option ${key} does not apply: ${why}`, {
        option: key,
        detector,
        reason: why,
      });
    }
  }
  for (const key of use.required ?? []) {
    if (o[key] === undefined) throw new InvalidArgumentError(`${call}: option ${key} is required`, { option: key });
  }
  const schema: Record<string, OptionSpec> = { ...entry.options, ...extra };
  for (const [k, spec] of Object.entries(COMMON_DETECT_OPTIONS))
    if (!use.refused || !Object.hasOwn(use.refused, k)) schema[k] = spec;
  const out = checkOptions(o, schema, call) as Record<string, unknown>;
  if (out.soft === 'none' && out.llrClip !== undefined) {
    throw new InvalidArgumentError(`${call}: option llrClip does not apply: soft 'none' computes no LLRs`, {
      option: 'llrClip',
      detector,
      reason: "soft 'none'",
    });
  }
  return out as unknown as DetectOptions;
}

/**
 * The options of a detector that are to give hard decisions only (an uncoded link counts symbols
 * and bits): soft detectors get soft 'none', and no option that only concerns LLRs stays.
 */
export function hardDecisionOptions<O extends { detector: string; soft?: unknown; llrClip?: unknown }>(opts: O): O {
  const { soft: _soft, llrClip: _clip, ...rest } = opts;
  return (detectorEntry(opts.detector)?.traits.soft ? { ...rest, soft: 'none' } : rest) as O;
}

/** A detector's name and the words its options add ("kbest K=8", "sphere babai", "ml logmap"). */
export function detectorOptionsLabel(opts: { detector: string; soft?: string }): string {
  const entry = detectorEntry(opts.detector);
  const parts = [opts.detector, ...(entry?.label?.(opts) ?? [])];
  if (opts.soft === 'logmap') parts.push('logmap');
  return parts.join(' ');
}
