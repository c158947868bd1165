/**
 * `lattice-mimo detect`: detection of received vectors given as JSON.
 *
 * Input  {"H": [H_0, H_1, ...], "y": [y_0, y_1, ...]}: one channel per vector, H_v = nr rows of nt
 *        [re, im] pairs, y_v = nr [re, im] pairs.
 * Output {"symbols": [[...nt indices]], "bits": [[...nt * bitsPerSymbol]], "llr": [[...]]} per vector
 *        (llr only for soft detectors; LLR > 0 means bit 0), plus the detector and modulation, and
 *        "unproven" (0/1 per vector) when --on-budget flag let a search stop at its node budget.
 */
import { InvalidArgumentError, InvalidInputError } from '../core/errors.js';
import { checkOutputPath, readInput, writeOutput } from '../core/io.js';
import { detectAsync } from '../mimo/detect-async.js';
import { bitsPerSymbolOf } from '../mimo/modulation.js';
import { SOFT_DETECTORS } from '../mimo/registry.js';
import type { DetectionInput, DetectOptions } from '../mimo/types.js';
import { BUDGET_DETECTORS, parseDetectorName, parseModulationOption, SEARCH_DETECTORS } from '../sim/cli-options.js';
import { choiceOption, parseCommandLine, rejectInapplicable } from './args.js';
import { intListOption, intOption, numberOption } from './values.js';

export const DETECT_HELP = `usage: lattice-mimo detect --detector NAME --mod MOD --noise-var N0 [options] < in.json > out.json

Detects received vectors y = H s + w. in.json: {"H": [...], "y": [...]} with one H per channel
(nr rows of nt [re, im] pairs) and one y per vector (nr [re, im] pairs); vector v uses channel
floor(v / vectors-per-channel) (default: one H per vector, or y's count over H's when it divides).
out.json: {"symbols": [[...]], "bits": [[...]], "llr": [[...]]}, one row per vector (llr only for soft
detectors: ml, kbest, ssfe, nway; LLR = ln P(b=0|y)/P(b=1|y)).

options:
  --detector NAME     zf, mmse, sic, ml, sphere, psd, kbest, ssfe, nway, lr-zf, lr-mmse, lr-sic
  --mod MOD           bpsk | qpsk | 16qam | 64qam | 256qam
  --noise-var N0      complex noise variance per receive antenna (>= 0; > 0 for soft output);
                      or "noiseVar" in in.json: one number, or one per vector (not both)
  --vectors-per-channel N   consecutive vectors sharing one H (the API's vectorsPerChannel)
  --k K               K for kbest
  --passes N          passes for nway
  --llr-clip C        |LLR| clipping for soft detectors
  --soft S            soft detectors: maxlog (default) | logmap (exact, ml) | none (no llr)
  --initial-radius R  sphere: infinity (default) | babai
  --psd-levels LIST   psd: the configuration's levels, comma list of integers (the API's psd.levels)
  --psd-paths LIST    psd: paths per level, comma list of integers (the API's psd.paths)
  --max-nodes N       node budget per vector (default 2^24 = 16777216): sphere and psd stop their
                      search there; ml and kbest refuse a size whose fixed work exceeds it
  --on-budget error|flag   sphere, psd past the budget: error (default; exit 2, NODE_BUDGET) or
                      flag (keep the best leaf found; out.json gets "unproven", 1 per such vector)
  --engine auto|cpu|cuda   auto (default): the GPU where a device and the detector's CUDA
                      implementation are there, else the CPU; cuda: the GPU or exit 2 (ENGINE_UNAVAILABLE)
  --input FILE        read the JSON from FILE instead of stdin ('-' for stdin)
  --output FILE       write the JSON to FILE, atomically, instead of stdout ('-' for stdout)
  -h, --help          this text

Every option is checked before the input is read. An option that does not apply to the detector
(--k without kbest, --psd-levels without psd, ...) is an error. Shapes (nr, nt, nr < nt included)
and values are checked by the library's detect(), as for API callers.
`;

const OPTIONS = {
  detector: { type: 'string' },
  mod: { type: 'string' },
  'noise-var': { type: 'string' },
  k: { type: 'string' },
  passes: { type: 'string' },
  'llr-clip': { type: 'string' },
  soft: { type: 'string' },
  engine: { type: 'string' },
  'vectors-per-channel': { type: 'string' },
  'initial-radius': { type: 'string' },
  'psd-levels': { type: 'string' },
  'psd-paths': { type: 'string' },
  'max-nodes': { type: 'string' },
  'on-budget': { type: 'string' },
  input: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** "1,2,3" -> [1, 2, 3]: integers, checked for form only (their meaning is detect()'s to judge). */
function intList(name: string, text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  return intListOption(name, text, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
}

/** Most vectors one JSON input may hold (a bound, and a guard against runaway memory). */
const MAX_VECTORS = 10_000_000;

function pair(v: unknown, where: string): [number, number] {
  if (!Array.isArray(v) || v.length !== 2)
    throw new InvalidInputError('SHAPE_MISMATCH', `${where} must be a [re, im] pair`);
  const [re, im] = v as unknown[];
  if (typeof re !== 'number' || typeof im !== 'number')
    throw new InvalidInputError('INVALID_INPUT', `${where} must hold two numbers`);
  if (!Number.isFinite(re) || !Number.isFinite(im)) throw new InvalidInputError('NON_FINITE', `${where} is not finite`);
  return [re, im];
}

/**
 * Parses the detect JSON into a DetectionInput (noise variance and vectors per channel added by the
 * caller): forms and finiteness here, the pairing of H and y and the sizes in detect().
 */
export function parseDetectionJson(
  text: string,
): Omit<DetectionInput, 'noiseVar'> & { vectors: number; noiseVar?: number | Float64Array } {
  if (text.trim() === '')
    throw new InvalidInputError('INVALID_INPUT', 'input is empty: expected a JSON object {"H": [...], "y": [...]}');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `input is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new InvalidInputError('INVALID_INPUT', 'input must be a JSON object {"H": [...], "y": [...]}');
  const { H: Hs, y: ys } = doc as { H?: unknown; y?: unknown };
  if (!Array.isArray(Hs))
    throw new InvalidInputError('INVALID_INPUT', 'input lacks "H", an array with one channel matrix per vector');
  if (!Array.isArray(ys))
    throw new InvalidInputError('INVALID_INPUT', 'input lacks "y", an array with one received vector per vector');
  if (Hs.length === 0) throw new InvalidInputError('INVALID_INPUT', '"H" is empty');
  if (ys.length === 0) throw new InvalidInputError('INVALID_INPUT', '"y" is empty');
  if (ys.length > MAX_VECTORS || Hs.length > MAX_VECTORS)
    throw new InvalidArgumentError(`at most ${MAX_VECTORS} vectors per input, got ${Math.max(ys.length, Hs.length)}`);
  const H0 = Hs[0];
  if (!Array.isArray(H0) || H0.length === 0 || !Array.isArray(H0[0]) || (H0[0] as unknown[]).length === 0) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      'H[0] must be a non-empty array of rows, each an array of [re, im] pairs',
    );
  }
  const nr = H0.length,
    nt = (H0[0] as unknown[]).length;
  if (nr > 64 || nt > 64) throw new InvalidArgumentError(`H is ${nr} x ${nt}: at most 64 x 64`);
  const vectors = ys.length,
    channels = Hs.length;
  const H = new Float64Array(2 * channels * nr * nt);
  const y = new Float64Array(2 * vectors * nr);
  for (let v = 0; v < channels; v++) {
    const Hv = Hs[v];
    if (!Array.isArray(Hv) || Hv.length !== nr)
      throw new InvalidInputError('SHAPE_MISMATCH', `H[${v}] must have ${nr} rows like H[0]`);
    for (let i = 0; i < nr; i++) {
      const row = Hv[i];
      if (!Array.isArray(row) || row.length !== nt)
        throw new InvalidInputError('SHAPE_MISMATCH', `H[${v}] row ${i} must have ${nt} [re, im] entries like H[0]`);
      for (let j = 0; j < nt; j++) {
        const [re, im] = pair(row[j], `H[${v}] row ${i} column ${j}`);
        const at = 2 * (v * nr * nt + i + j * nr); // column-major
        H[at] = re;
        H[at + 1] = im;
      }
    }
  }
  for (let v = 0; v < vectors; v++) {
    const yv = ys[v];
    if (!Array.isArray(yv) || yv.length !== nr)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `y[${v}] must have ${nr} [re, im] entries (one per receive antenna)`,
      );
    for (let i = 0; i < nr; i++) {
      const [re, im] = pair(yv[i], `y[${v}] entry ${i}`);
      y[2 * (v * nr + i)] = re;
      y[2 * (v * nr + i) + 1] = im;
    }
  }
  const nv = (doc as { noiseVar?: unknown }).noiseVar;
  let noiseVar: number | Float64Array | undefined;
  if (typeof nv === 'number') noiseVar = nv;
  else if (Array.isArray(nv)) {
    noiseVar = new Float64Array(nv.length);
    nv.forEach((x, i) => {
      if (typeof x !== 'number') throw new InvalidInputError('INVALID_INPUT', `"noiseVar"[${i}] must be a number`);
      (noiseVar as Float64Array)[i] = x;
    });
  } else if (nv !== undefined)
    throw new InvalidInputError('INVALID_INPUT', '"noiseVar" must be a number or an array with one number per vector');
  return { nt, nr, H, y, vectors, ...(noiseVar !== undefined ? { noiseVar } : {}) };
}

export interface DetectCommand {
  opts: DetectOptions;
  noiseVar?: number;
  vectorsPerChannel?: number;
  input?: string;
  output?: string;
  help: boolean;
}

/** Parses and checks every option (no input read). */
export function parseDetectArgs(argv: string[]): DetectCommand {
  const { values: v, given } = parseCommandLine(argv, OPTIONS, { command: 'detect' });
  if (v.help) return { opts: {} as DetectOptions, noiseVar: 0, help: true };
  if (v.detector === undefined) throw new InvalidArgumentError('--detector is required (see --help)');
  if (v.mod === undefined) throw new InvalidArgumentError('--mod is required (see --help)');
  const detector = parseDetectorName(v.detector);
  const modulation = parseModulationOption(v.mod);
  const noiseVar = numberOption('noise-var', v['noise-var']);
  if (noiseVar !== undefined && noiseVar < 0)
    throw new InvalidArgumentError(`--noise-var must be >= 0 (a variance), got '${v['noise-var']}'`);
  const engine = choiceOption('engine', v.engine, ['auto', 'cpu', 'cuda'] as const, 'auto');
  const soft = choiceOption('soft', v.soft, ['maxlog', 'logmap', 'none'] as const);
  const isSoft = SOFT_DETECTORS.includes(detector);
  rejectInapplicable(given, ['k'], detector === 'kbest', `--k is kbest's K, the detector is ${detector}`);
  rejectInapplicable(given, ['passes'], detector === 'nway', `--passes is nway's, the detector is ${detector}`);
  rejectInapplicable(
    given,
    ['soft', 'llr-clip'],
    isSoft,
    `${detector} gives hard decisions only (soft detectors: ${SOFT_DETECTORS.join(', ')})`,
  );
  rejectInapplicable(given, ['llr-clip'], soft !== 'none', '--soft none computes no LLRs');
  rejectInapplicable(
    given,
    ['initial-radius'],
    detector === 'sphere',
    `--initial-radius is the sphere decoder's, the detector is ${detector}`,
  );
  rejectInapplicable(
    given,
    ['psd-levels', 'psd-paths'],
    detector === 'psd',
    `the PSD configuration is psd's, the detector is ${detector}`,
  );
  rejectInapplicable(
    given,
    ['max-nodes'],
    BUDGET_DETECTORS.includes(detector),
    `${detector} has no node budget (detectors with one: ${BUDGET_DETECTORS.join(', ')})`,
  );
  rejectInapplicable(
    given,
    ['on-budget'],
    SEARCH_DETECTORS.includes(detector),
    `only ${SEARCH_DETECTORS.join(' and ')} stop a search at the node budget, the detector is ${detector}`,
  );
  const opts: DetectOptions = { detector, modulation, engine };
  if (v['max-nodes'] !== undefined) opts.maxNodes = intOption('max-nodes', v['max-nodes'], 0, 1);
  const onBudget = choiceOption('on-budget', v['on-budget'], ['error', 'flag'] as const);
  if (onBudget !== undefined) opts.onBudget = onBudget;
  if (v.k !== undefined) opts.k = intOption('k', v.k, 0, 1, 1 << 16);
  if (v.passes !== undefined) opts.passes = intOption('passes', v.passes, 0, 1, 64);
  const clip = numberOption('llr-clip', v['llr-clip'], { above: 0 });
  if (clip !== undefined) opts.llrClip = clip;
  if (soft !== undefined) opts.soft = soft;
  const radius = choiceOption('initial-radius', v['initial-radius'], ['infinity', 'babai'] as const);
  if (radius !== undefined) opts.initialRadius = radius;
  const levels = intList('psd-levels', v['psd-levels']),
    paths = intList('psd-paths', v['psd-paths']);
  if (levels !== undefined || paths !== undefined)
    opts.psd = { ...(levels ? { levels } : {}), ...(paths ? { paths } : {}) };
  const vpc =
    v['vectors-per-channel'] === undefined
      ? undefined
      : intOption('vectors-per-channel', v['vectors-per-channel'], 0, 1, MAX_VECTORS);
  if (v.output !== undefined) checkOutputPath('output', v.output);
  return { opts, noiseVar, vectorsPerChannel: vpc, input: v.input, output: v.output, help: false };
}

export async function run(argv: string[]): Promise<number> {
  const cmd = parseDetectArgs(argv);
  if (cmd.help) {
    process.stdout.write(DETECT_HELP);
    return 0;
  }
  const { opts } = cmd;
  const text = await readInput(cmd.input, 'pipe the JSON on stdin or give --input FILE');
  const input = parseDetectionJson(text);
  if (cmd.noiseVar !== undefined && input.noiseVar !== undefined)
    throw new InvalidArgumentError('the noise variance is given twice: --noise-var and "noiseVar" in the input');
  const noiseVar = cmd.noiseVar ?? input.noiseVar;
  if (noiseVar === undefined)
    throw new InvalidArgumentError('no noise variance: give --noise-var N0 or "noiseVar" in the input (see --help)');
  const result = await detectAsync(
    {
      ...input,
      noiseVar,
      ...(cmd.vectorsPerChannel !== undefined ? { vectorsPerChannel: cmd.vectorsPerChannel } : {}),
    },
    opts,
  );

  const nt = input.nt,
    bps = bitsPerSymbolOf(opts.modulation);
  const rows = <A extends ArrayLike<number>>(a: A, width: number): number[][] =>
    Array.from({ length: input.vectors }, (_, r) => Array.from({ length: width }, (_, c) => a[r * width + c]!));
  const out: Record<string, unknown> = {
    detector: opts.detector,
    modulation: opts.modulation,
    nt,
    nr: input.nr,
    noiseVar: typeof noiseVar === 'number' ? noiseVar : [...noiseVar],
    symbols: rows(result.symbols, nt),
    bits: rows(result.bits, nt * bps),
  };
  if (result.llr) out.llr = rows(result.llr, nt * bps);
  if (result.unproven) out.unproven = [...result.unproven];
  await writeOutput(cmd.output ?? '-', `${JSON.stringify(out)}\n`);
  return 0;
}
